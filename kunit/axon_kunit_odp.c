// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: on-demand paging as the device takes it
 * (drivers/axon/axon_odp_attr.c): the capabilities reported, page fault
 * events taken apart and checked against their MR, dma_list entries as
 * MAP_PAGES entries, the pages an advise_mr range covers, the pages of an
 * MR an invalidated range overlaps.
 */

#include <linux/sizes.h>
#include <rdma/ib_umem_odp.h>

#include "axon_kunit.h"
#include "axon_odp_attr.h"

/* ---- capabilities ------------------------------------------------------- */

static void axon_odp_caps_test(struct kunit *test)
{
	const u32 all = IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
			IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ |
			IB_ODP_SUPPORT_ATOMIC | IB_ODP_SUPPORT_SRQ_RECV;
	struct ib_odp_caps caps;

	memset(&caps, 0xff, sizeof(caps));
	axon_odp_caps(&caps);
	/* explicit ODP only: no implicit MRs over the address space */
	KUNIT_EXPECT_EQ(test, caps.general_caps, (u64)IB_ODP_SUPPORT);
	KUNIT_EXPECT_EQ(test, caps.per_transport_caps.rc_odp_caps, all);
	KUNIT_EXPECT_EQ(test, caps.per_transport_caps.xrc_odp_caps,
			all & ~IB_ODP_SUPPORT_RECV);
	KUNIT_EXPECT_EQ(test, caps.per_transport_caps.ud_odp_caps,
			(u32)IB_ODP_SUPPORT_SEND);
	KUNIT_EXPECT_EQ(test, caps.per_transport_caps.uc_odp_caps, 0U);
}

/* ---- page fault events -------------------------------------------------- */

struct axon_fault_case {
	const char *name;
	u64 data;
	u64 npages;		/* the MR's */
	int err;
	u32 key, first, count;	/* expected, when err is 0 */
};

static const struct axon_fault_case axon_fault_cases[] = {
	{ "one page, the first", AXON_FAULT(0x1234ab, 0, 1), 16, 0,
	  0x1234ab, 0, 1 },
	{ "the last page", AXON_FAULT(0xdeadbe01, 15, 1), 16, 0,
	  0xdeadbe01, 15, 1 },
	{ "256 pages, the most an event asks", AXON_FAULT(0x100, 10, 256),
	  266, 0, 0x100, 10, 256 },
	{ "key with every bit", AXON_FAULT(0xffffffff, 3, 2), 5, 0,
	  0xffffffff, 3, 2 },
	{ "first at 24 bits' end", AXON_FAULT(0x200, 0xffffff, 1),
	  AXON_MR_MAX_PAGES, 0, 0x200, 0xffffff, 1 },
	{ "one page past the MR", AXON_FAULT(0x100, 15, 2), 16, -EINVAL },
	{ "first past the MR", AXON_FAULT(0x100, 16, 1), 16, -EINVAL },
	{ "an MR without pages", AXON_FAULT(0x100, 0, 1), 0, -EINVAL },
	{ "256 pages from the top of 24 bits",
	  AXON_FAULT(0x100, 0xffffff, 256), AXON_MR_MAX_PAGES, -EINVAL },
};

AXON_KUNIT_DESC(axon_fault_case)
KUNIT_ARRAY_PARAM(axon_fault, axon_fault_cases, axon_fault_case_desc);

static void axon_fault_decode_test(struct kunit *test)
{
	const struct axon_fault_case *c = test->param_value;
	struct axon_odp_fault f;

	KUNIT_ASSERT_EQ(test, axon_odp_fault_decode(c->data, c->npages, &f),
			c->err);
	if (c->err)
		return;
	KUNIT_EXPECT_EQ(test, f.key, c->key);
	KUNIT_EXPECT_EQ(test, f.first, c->first);
	KUNIT_EXPECT_EQ(test, f.count, c->count);
}

/* ---- MAP_PAGES entries -------------------------------------------------- */

struct axon_entry_case {
	const char *name;
	u64 dma;		/* the dma_list entry */
	unsigned int page_shift;
	int err;
	u64 entry;		/* expected, when err is 0 */
};

static const struct axon_entry_case axon_entry_cases[] = {
	{ "unmapped: absent", 0, PAGE_SHIFT, 0, 0 },
	{ "readable", 0x12345000 | ODP_READ_ALLOWED_BIT, 12, 0,
	  0x12345000 | AXON_ODP_PAGE_PRESENT },
	{ "writable", 0x12345000 | ODP_READ_ALLOWED_BIT |
	  ODP_WRITE_ALLOWED_BIT, 12, 0,
	  0x12345000 | AXON_ODP_PAGE_PRESENT | AXON_ODP_PAGE_WRITE },
	{ "above 4 GiB", 0x7ffff0000000ULL | ODP_READ_ALLOWED_BIT |
	  ODP_WRITE_ALLOWED_BIT, 12, 0,
	  0x7ffff0000000ULL | AXON_ODP_PAGE_PRESENT | AXON_ODP_PAGE_WRITE },
	{ "at bus address 0", ODP_READ_ALLOWED_BIT, 12, 0,
	  AXON_ODP_PAGE_PRESENT },
	{ "2 MiB page", 0x40200000 | ODP_READ_ALLOWED_BIT, 21, 0,
	  0x40200000 | AXON_ODP_PAGE_PRESENT },
	{ "4 KiB aligned, 2 MiB page", 0x40201000 | ODP_READ_ALLOWED_BIT, 21,
	  -EINVAL },
	{ "not page aligned", 0x12345800 | ODP_READ_ALLOWED_BIT, 12,
	  -EINVAL },
};

AXON_KUNIT_DESC(axon_entry_case)
KUNIT_ARRAY_PARAM(axon_entry, axon_entry_cases, axon_entry_case_desc);

static void axon_odp_entry_test(struct kunit *test)
{
	const struct axon_entry_case *c = test->param_value;
	__le64 entry = cpu_to_le64(0x5a5a5a5a5a5a5a5aULL);

	KUNIT_ASSERT_EQ(test, axon_odp_entry(c->dma, c->page_shift, &entry),
			c->err);
	if (!c->err)
		KUNIT_EXPECT_EQ(test, le64_to_cpu(entry), c->entry);
}

/* ---- advise_mr ranges --------------------------------------------------- */

struct axon_range_case {
	const char *name;
	u64 iova, length;	/* the MR */
	unsigned int page_shift;
	u64 addr, len;		/* the range */
	int err;
	u32 first, count;	/* expected, when err is 0 */
};

#define ODP_IOVA 0x7f0000000000ULL

static const struct axon_range_case axon_range_cases[] = {
	{ "the whole MR", ODP_IOVA, SZ_64K, 12, ODP_IOVA, SZ_64K, 0, 0, 16 },
	{ "one byte", ODP_IOVA, SZ_64K, 12, ODP_IOVA + 0x1fff, 1, 0, 1, 1 },
	{ "across a page boundary", ODP_IOVA, SZ_64K, 12, ODP_IOVA + 0xfff, 2, 0,
	  0, 2 },
	{ "the last page", ODP_IOVA, SZ_64K, 12, ODP_IOVA + SZ_64K - 1, 1, 0, 15, 1 },
	{ "MR starting mid-page", ODP_IOVA + 0x800, SZ_8K, 12, ODP_IOVA + 0x800,
	  SZ_8K, 0, 0, 3 },
	{ "mid-page MR, its second page", ODP_IOVA + 0x800, SZ_8K, 12,
	  ODP_IOVA + 0x1000, 1, 0, 1, 1 },
	{ "2 MiB pages, the MR mid-page", ODP_IOVA + SZ_1M, SZ_4M, 21,
	  ODP_IOVA + SZ_2M, SZ_2M, 0, 1, 1 },
	{ "empty range", ODP_IOVA, SZ_64K, 12, ODP_IOVA + SZ_4K, 0, 0, 1, 0 },
	{ "empty range at the end", ODP_IOVA, SZ_64K, 12, ODP_IOVA + SZ_64K, 0, 0,
	  16, 0 },
	{ "before the MR", ODP_IOVA, SZ_64K, 12, ODP_IOVA - 1, 2, -EFAULT },
	{ "one byte past the end", ODP_IOVA, SZ_64K, 12, ODP_IOVA + SZ_4K, SZ_64K,
	  -EFAULT },
	{ "after the MR", ODP_IOVA, SZ_64K, 12, ODP_IOVA + SZ_64K, 1, -EFAULT },
	{ "wrapping length", ODP_IOVA, SZ_64K, 12, ODP_IOVA + SZ_4K, U64_MAX,
	  -EFAULT },
};

AXON_KUNIT_DESC(axon_range_case)
KUNIT_ARRAY_PARAM(axon_range, axon_range_cases, axon_range_case_desc);

static void axon_odp_range_test(struct kunit *test)
{
	const struct axon_range_case *c = test->param_value;
	u32 first = ~0U, count = ~0U;

	KUNIT_ASSERT_EQ(test, axon_odp_range_pages(c->iova, c->length,
						   c->page_shift, c->addr,
						   c->len, &first, &count),
			c->err);
	if (c->err)
		return;
	KUNIT_EXPECT_EQ(test, first, c->first);
	KUNIT_EXPECT_EQ(test, count, c->count);
}

/* ---- invalidated ranges ------------------------------------------------- */

struct axon_span_case {
	const char *name;
	u64 start, end;		/* the invalidated range */
	bool overlaps;
	u32 first, count;	/* expected, when it overlaps */
};

/* an MR of 16 pages of 4 KiB at ODP_IOVA */
static const struct axon_span_case axon_span_cases[] = {
	{ "the whole MR", ODP_IOVA, ODP_IOVA + SZ_64K, true, 0, 16 },
	{ "wider than the MR", 0, U64_MAX, true, 0, 16 },
	{ "one page", ODP_IOVA + SZ_8K, ODP_IOVA + 3 * SZ_4K, true, 2, 1 },
	{ "part of a page", ODP_IOVA + 0x2100, ODP_IOVA + 0x2200, true, 2, 1 },
	{ "over the start", ODP_IOVA - SZ_4K, ODP_IOVA + SZ_4K, true, 0, 1 },
	{ "over the end", ODP_IOVA + 15 * SZ_4K, ODP_IOVA + SZ_1M, true, 15, 1 },
	{ "before the MR", 0, ODP_IOVA, false },
	{ "after the MR", ODP_IOVA + SZ_64K, ODP_IOVA + SZ_1M, false },
	{ "empty", ODP_IOVA + SZ_4K, ODP_IOVA + SZ_4K, false },
};

AXON_KUNIT_DESC(axon_span_case)
KUNIT_ARRAY_PARAM(axon_span, axon_span_cases, axon_span_case_desc);

static void axon_odp_span_test(struct kunit *test)
{
	const struct axon_span_case *c = test->param_value;
	u32 first = ~0U, count = ~0U;

	KUNIT_ASSERT_EQ(test, axon_odp_span(ODP_IOVA, ODP_IOVA + SZ_64K, 12, c->start,
					    c->end, &first, &count),
			c->overlaps);
	if (!c->overlaps)
		return;
	KUNIT_EXPECT_EQ(test, first, c->first);
	KUNIT_EXPECT_EQ(test, count, c->count);
}

static struct kunit_case axon_odp_cases[] = {
	KUNIT_CASE(axon_odp_caps_test),
	KUNIT_CASE_PARAM(axon_fault_decode_test, axon_fault_gen_params),
	KUNIT_CASE_PARAM(axon_odp_entry_test, axon_entry_gen_params),
	KUNIT_CASE_PARAM(axon_odp_range_test, axon_range_gen_params),
	KUNIT_CASE_PARAM(axon_odp_span_test, axon_span_gen_params),
	{}
};

static struct kunit_suite axon_odp_suite = {
	.name = "axon_odp",
	.test_cases = axon_odp_cases,
};

kunit_test_suite(axon_odp_suite);
