// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: memory regions as the device takes them
 * (drivers/axon/axon_mr_attr.c): page lists built from a umem's DMA
 * blocks (pinned pages and dma-buf style DMA-only tables), the page
 * layout and its limit, access flags, memory window types.
 */

#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <rdma/ib_umem.h>

#include "axon_kunit.h"
#include "axon_mr_attr.h"

/* ---- MR page lists ------------------------------------------------------ */

/*
 * A umem as ib_umem_get() leaves it: nsegs DMA segments of seg_len bytes,
 * segment i at dma + i * stride, covering the pages of [va, va + len).
 * The expected page list assumes pgsz divides seg_len and dma is pgsz
 * aligned.
 */
struct axon_pbl_case {
	const char *name;
	u64 va;
	u64 len;
	u32 nsegs;
	u64 seg_len;
	u64 dma;
	u64 stride;
	unsigned long bitmap;	/* device page sizes */
	unsigned long pgsz;	/* expected */
	size_t npages;		/* expected */
	u32 levels;		/* expected */
};

#define AXON_ALL_PGSZ GENMASK(AXON_MR_MAX_PAGE_SHIFT, AXON_MR_MIN_PAGE_SHIFT)

static const struct axon_pbl_case axon_pbl_cases[] = {
	{ "one page", 0x7f0000001000, SZ_4K, 1, SZ_4K, 0x100003000, SZ_4K,
	  AXON_ALL_PGSZ, SZ_4K, 1, 1 },
	{ "contiguous 64 KiB, DMA 4 KiB aligned", 0x7f0000000000, SZ_64K, 1,
	  SZ_64K, 0x100003000, SZ_64K, AXON_ALL_PGSZ, SZ_4K, 16, 1 },
	{ "contiguous 64 KiB, DMA 64 KiB aligned", 0x7f0000000000, SZ_64K, 1,
	  SZ_64K, 0x100010000, SZ_64K, AXON_ALL_PGSZ, SZ_64K, 1, 1 },
	{ "contiguous 64 KiB, device 4 KiB pages only", 0x7f0000000000,
	  SZ_64K, 1, SZ_64K, 0x100010000, SZ_64K, SZ_4K, SZ_4K, 16, 1 },
	{ "fragmented: 8 scattered pages", 0x7f0000000000, 8 * SZ_4K, 8,
	  SZ_4K, 0x100000000, SZ_1M, AXON_ALL_PGSZ, SZ_4K, 8, 1 },
	{ "unaligned start and end", 0x7f0000000123, SZ_8K, 1, 3 * SZ_4K,
	  0x100005000, 3 * SZ_4K, AXON_ALL_PGSZ, SZ_4K, 3, 1 },
	{ "huge pages: 4 x 2 MiB scattered", 0x7f0000000000, SZ_8M, 4, SZ_2M,
	  0x200000000, SZ_16M, AXON_ALL_PGSZ, SZ_2M, 4, 1 },
	{ "1 GiB page", 0x7f0040000000, SZ_1G, 1, SZ_1G, 0x140000000, SZ_1G,
	  AXON_ALL_PGSZ, SZ_1G, 1, 1 },
	{ "512 pages: one full leaf", 0x7f0000000000, 512 * SZ_4K, 1,
	  512 * SZ_4K, 0x100001000, 512 * SZ_4K, AXON_ALL_PGSZ, SZ_4K, 512,
	  1 },
	{ "513 pages: 2 levels", 0x7f0000000000, 513 * SZ_4K, 1, 513 * SZ_4K,
	  0x100001000, 513 * SZ_4K, AXON_ALL_PGSZ, SZ_4K, 513, 2 },
	{ "4 GiB in scattered 2 MiB pages", 0x7f0000000000, SZ_4G, 2048,
	  SZ_2M, 0x400000000, SZ_4M, AXON_ALL_PGSZ, SZ_2M, 2048, 2 },
	{ "4 GiB in 4 KiB pages", 0x7f0000000000, SZ_4G, 65536, SZ_64K,
	  0x400001000, SZ_128K, AXON_ALL_PGSZ, SZ_4K, 1 << 20, 2 },
};

AXON_KUNIT_DESC(axon_pbl_case)
KUNIT_ARRAY_PARAM(axon_pbl, axon_pbl_cases, axon_pbl_case_desc);

static struct ib_umem *axon_fake_umem(struct kunit *test,
				      const struct axon_pbl_case *c)
{
	struct ib_umem *umem = kunit_kzalloc(test, sizeof(*umem), GFP_KERNEL);
	struct scatterlist *sg;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, umem);
	umem->address = c->va;
	umem->length = c->len;
	KUNIT_ASSERT_EQ(test, sg_alloc_table(&umem->sgt_append.sgt, c->nsegs,
					     GFP_KERNEL), 0);
	for_each_sgtable_sg(&umem->sgt_append.sgt, sg, i) {
		sg_dma_address(sg) = c->dma + (u64)i * c->stride;
		sg_dma_len(sg) = c->seg_len;
	}
	return umem;
}

static __le64 **axon_alloc_leaves(struct kunit *test, size_t npages)
{
	size_t n = axon_pbl_leaves(npages), i;
	__le64 **leaves = kunit_kcalloc(test, n, sizeof(*leaves), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, leaves);
	for (i = 0; i < n; i++) {
		leaves[i] = kunit_kzalloc(test, AXON_PBL_LEAF_SIZE, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, leaves[i]);
	}
	return leaves;
}

static void axon_pbl_test(struct kunit *test)
{
	const struct axon_pbl_case *c = test->param_value;
	struct ib_umem *umem = axon_fake_umem(test, c);
	unsigned long pgsz;
	size_t npages, i, bad = 0;
	__le64 **leaves;

	pgsz = ib_umem_find_best_pgsz(umem, c->bitmap, c->va);
	KUNIT_EXPECT_EQ(test, pgsz, c->pgsz);
	npages = ib_umem_num_dma_blocks(umem, pgsz);
	KUNIT_EXPECT_EQ(test, npages, c->npages);
	KUNIT_EXPECT_EQ(test, axon_pbl_levels(npages), c->levels);
	if (pgsz != c->pgsz || npages != c->npages)
		goto out;

	leaves = axon_alloc_leaves(test, npages);
	KUNIT_EXPECT_EQ(test, axon_pbl_fill(umem, pgsz, leaves, npages), 0);
	for (i = 0; i < npages; i++) {
		u64 byte = (u64)i * pgsz;
		u64 want = c->dma + byte / c->seg_len * c->stride +
			   byte % c->seg_len;
		u64 got = le64_to_cpu(leaves[i / AXON_PBL_LEAF_ENTRIES]
					    [i % AXON_PBL_LEAF_ENTRIES]);

		if (got != want && bad++ < 4)
			KUNIT_FAIL(test, "entry %zu: 0x%llx, want 0x%llx", i,
				   got, want);
		if (got & (pgsz - 1) && bad++ < 4)
			KUNIT_FAIL(test, "entry %zu: 0x%llx not aligned", i,
				   got);
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
	/* a list sized for another count is refused, not overrun */
	if (npages > 1)
		KUNIT_EXPECT_EQ(test, axon_pbl_fill(umem, pgsz, leaves,
						    npages - 1), -EINVAL);
out:
	sg_free_table(&umem->sgt_append.sgt);
}

static void axon_pbl_too_short_test(struct kunit *test)
{
	const struct axon_pbl_case *c = &axon_pbl_cases[1];
	struct ib_umem *umem = axon_fake_umem(test, c);
	__le64 **leaves = axon_alloc_leaves(test, 17);

	ib_umem_find_best_pgsz(umem, SZ_4K, c->va);
	KUNIT_EXPECT_EQ(test, axon_pbl_fill(umem, SZ_4K, leaves, 17), -EINVAL);
	sg_free_table(&umem->sgt_append.sgt);
}

/* ---- dma-buf MR page lists ---------------------------------------------- */

/*
 * A dma-buf umem as ib_umem_dmabuf_map_pages() leaves it: the exporter's
 * sg table carries DMA addresses only (a GPU BAR, no struct page); the
 * umem's list starts at the entry holding the dma-buf offset (skip
 * entries before it), that entry advanced to the offset's CPU page, the
 * last one trimmed to the page after the end. ents are those entries as
 * the umem sees them, then untouched exporter entries (nents in all).
 * The expected list is given as runs of consecutive pgsz blocks.
 */
struct axon_dmabuf_ent {
	u64 dma;
	u32 len;
};

struct axon_pbl_run {
	u64 dma;
	u32 count;
};

struct axon_dmabuf_case {
	const char *name;
	u64 offset;		/* umem->address: into the dma-buf */
	u64 len;
	u64 iova;
	u32 skip;		/* exporter entries before the MR's */
	u32 nmap;		/* entries of the MR */
	u32 nents;		/* all the exporter's entries */
	struct axon_dmabuf_ent ents[4];	/* from skip on */
	unsigned long bitmap;
	int err;		/* expected from axon_mr_layout() */
	unsigned long pgsz;
	size_t npages;
	struct axon_pbl_run runs[4];
};

static const struct axon_dmabuf_case axon_dmabuf_cases[] = {
	/* a 32 KiB device page spans more than the MR: bounds still hold */
	{ "one entry, offset 0x1800, GPU VA", 0x1800, 0x3000,
	  0x700000001800, 0, 1, 1, { { 0xe0001000, 0x4000 } },
	  AXON_ALL_PGSZ, 0, SZ_32K, 1, { { 0xe0000000, 1 } } },
	{ "three entries of mixed sizes, 4 KiB pages", 0x1000, 0x13000,
	  0x10000001000, 0, 3, 3,
	  { { 0x100001000, 0x1000 }, { 0x200000000, 0x10000 },
	    { 0x300000000, 0x2000 } },
	  SZ_4K, 0, SZ_4K, 19,
	  { { 0x100001000, 1 }, { 0x200000000, 16 }, { 0x300000000, 2 } } },
	{ "three entries of mixed sizes, best pages", 0x1000, 0x13000,
	  0x10000001000, 0, 3, 3,
	  { { 0x100001000, 0x1000 }, { 0x200000000, 0x10000 },
	    { 0x300000000, 0x2000 } },
	  AXON_ALL_PGSZ, 0, SZ_8K, 10,
	  { { 0x100000000, 1 }, { 0x200000000, 8 }, { 0x300000000, 1 } } },
	{ "offset in the 2nd 2 MiB chunk, last trimmed", 0x201000, 0x2ff000,
	  0x7f0000201000, 1, 2, 4,
	  { { 0x90001000, 0x1ff000 }, { 0xa0000000, 0x100000 },
	    { 0xb0000000, SZ_2M } },
	  AXON_ALL_PGSZ, 0, SZ_2M, 2, { { 0x90000000, 1 }, { 0xa0000000, 1 } } },
	{ "iova misaligned to the BAR: 4 KiB pages", 0, SZ_64K,
	  0x7f0000003000, 0, 1, 1, { { 0xe0000000, SZ_64K } },
	  AXON_ALL_PGSZ, 0, SZ_4K, 16, { { 0xe0000000, 16 } } },
	{ "device pages larger than the alignment allows", 0x1000, SZ_4K,
	  0x7f0000000000, 0, 1, 1, { { 0xe0001000, SZ_4K } },
	  SZ_64K, -EINVAL },
};

AXON_KUNIT_DESC(axon_dmabuf_case)
KUNIT_ARRAY_PARAM(axon_dmabuf, axon_dmabuf_cases, axon_dmabuf_case_desc);

/* The exporter's table; the umem's list points into it as the core's. */
static struct ib_umem *axon_fake_dmabuf_umem(struct kunit *test,
					     const struct axon_dmabuf_case *c,
					     struct sg_table *exp)
{
	struct ib_umem *umem = kunit_kzalloc(test, sizeof(*umem), GFP_KERNEL);
	struct scatterlist *sg;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, umem);
	KUNIT_ASSERT_EQ(test, sg_alloc_table(exp, c->nents, GFP_KERNEL), 0);
	for_each_sgtable_dma_sg(exp, sg, i) {
		if (i < c->skip) {
			sg_dma_address(sg) = 0xdead0000 + (u64)i * SZ_2M;
			sg_dma_len(sg) = SZ_2M;
			continue;
		}
		sg_dma_address(sg) = c->ents[i - c->skip].dma;
		sg_dma_len(sg) = c->ents[i - c->skip].len;
		if (i == c->skip)
			umem->sgt_append.sgt.sgl = sg;
	}
	umem->sgt_append.sgt.nents = c->nmap;
	umem->address = c->offset;
	umem->length = c->len;
	umem->is_dmabuf = 1;
	return umem;
}

static void axon_dmabuf_pbl_test(struct kunit *test)
{
	const struct axon_dmabuf_case *c = test->param_value;
	struct sg_table exp;
	struct ib_umem *umem = axon_fake_dmabuf_umem(test, c, &exp);
	size_t npages = 0, i = 0, bad = 0;
	unsigned long pgsz = 0;
	__le64 **leaves;
	u32 r, k;

	KUNIT_EXPECT_EQ(test, axon_mr_layout(umem, c->bitmap, c->iova, &pgsz,
					     &npages), c->err);
	if (c->err)
		goto out;
	KUNIT_EXPECT_EQ(test, pgsz, c->pgsz);
	KUNIT_EXPECT_EQ(test, npages, c->npages);
	if (pgsz != c->pgsz || npages != c->npages)
		goto out;

	leaves = axon_alloc_leaves(test, npages);
	KUNIT_EXPECT_EQ(test, axon_pbl_fill(umem, pgsz, leaves, npages), 0);
	for (r = 0; r < ARRAY_SIZE(c->runs) && c->runs[r].count; r++) {
		for (k = 0; k < c->runs[r].count; k++, i++) {
			u64 want = c->runs[r].dma + (u64)k * pgsz;
			u64 got = le64_to_cpu(leaves[i / AXON_PBL_LEAF_ENTRIES]
						    [i % AXON_PBL_LEAF_ENTRIES]);

			if (got != want && bad++ < 4)
				KUNIT_FAIL(test, "entry %zu: 0x%llx, want 0x%llx",
					   i, got, want);
		}
	}
	KUNIT_EXPECT_EQ(test, i, npages);
	KUNIT_EXPECT_EQ(test, bad, 0);
out:
	sg_free_table(&exp);
}

/*
 * AXON_MR_MAX_PAGES is the most the device takes: 64 GiB of 4 KiB pages
 * in 2 GiB DMA entries, then one page more.
 */
static void axon_mr_layout_max_test(struct kunit *test)
{
	const u32 nents = 33;
	struct ib_umem *umem = kunit_kzalloc(test, sizeof(*umem), GFP_KERNEL);
	struct scatterlist *sg;
	unsigned long pgsz;
	size_t npages;
	u32 i;

	KUNIT_ASSERT_NOT_NULL(test, umem);
	KUNIT_ASSERT_EQ(test, sg_alloc_table(&umem->sgt_append.sgt, nents,
					     GFP_KERNEL), 0);
	for_each_sgtable_dma_sg(&umem->sgt_append.sgt, sg, i) {
		sg_dma_address(sg) = 0x1000000000ULL + (u64)i * SZ_2G;
		sg_dma_len(sg) = i < nents - 1 ? SZ_2G : SZ_4K;
	}
	umem->length = (u64)AXON_MR_MAX_PAGES * SZ_4K;
	KUNIT_EXPECT_EQ(test, axon_mr_layout(umem, SZ_4K, 0, &pgsz, &npages),
			0);
	KUNIT_EXPECT_EQ(test, npages, AXON_MR_MAX_PAGES);
	umem->length += SZ_4K;
	KUNIT_EXPECT_EQ(test, axon_mr_layout(umem, SZ_4K, 0, &pgsz, &npages),
			-EINVAL);
	sg_free_table(&umem->sgt_append.sgt);
}

/* ---- MR access flags ---------------------------------------------------- */

struct axon_access_case {
	const char *name;
	int access;
	int err;
	u32 axon;
};

static const struct axon_access_case axon_access_cases[] = {
	{ "none (local read)", 0, 0, 0 },
	{ "local write", IB_ACCESS_LOCAL_WRITE, 0, AXON_ACCESS_LOCAL_WRITE },
	{ "remote read", IB_ACCESS_REMOTE_READ, 0, AXON_ACCESS_REMOTE_READ },
	{ "all four", IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
	  IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC, 0, AXON_ACCESS_ALL },
	{ "relaxed ordering is optional", IB_ACCESS_LOCAL_WRITE |
	  IB_ACCESS_RELAXED_ORDERING, 0, AXON_ACCESS_LOCAL_WRITE },
	{ "remote write without local write", IB_ACCESS_REMOTE_WRITE,
	  -EINVAL, 0 },
	{ "remote atomic without local write", IB_ACCESS_REMOTE_ATOMIC,
	  -EINVAL, 0 },
	{ "MW bind", IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND, 0,
	  AXON_ACCESS_LOCAL_WRITE | AXON_ACCESS_MW_BIND },
	{ "MW bind alone", IB_ACCESS_MW_BIND, 0, AXON_ACCESS_MW_BIND },
	{ "all five", AXON_IB_MR_ACCESS, 0, AXON_ACCESS_MR_ALL },
	{ "MW bind, remote write without local write",
	  IB_ACCESS_REMOTE_WRITE | IB_ACCESS_MW_BIND, -EINVAL, 0 },
	{ "on demand", IB_ACCESS_ON_DEMAND, -EOPNOTSUPP, 0 },
	{ "zero based", IB_ZERO_BASED, -EOPNOTSUPP, 0 },
};

AXON_KUNIT_DESC(axon_access_case)
KUNIT_ARRAY_PARAM(axon_access, axon_access_cases, axon_access_case_desc);

static void axon_mr_access_test(struct kunit *test)
{
	const struct axon_access_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, axon_check_mr_access(c->access), c->err);
	if (!c->err)
		KUNIT_EXPECT_EQ(test, axon_mr_access(c->access), c->axon);
}

/* ---- memory window types ---------------------------------------------- */

static void axon_mw_flags_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, axon_mw_flags(IB_MW_TYPE_1), AXON_MR_MW_TYPE1);
	KUNIT_EXPECT_EQ(test, axon_mw_flags(IB_MW_TYPE_2), AXON_MR_MW_TYPE2);
	/* what ib_uverbs refuses before the driver sees it */
	KUNIT_EXPECT_EQ(test, axon_mw_flags((enum ib_mw_type)3), 0);
	KUNIT_EXPECT_EQ(test, axon_mw_flags((enum ib_mw_type)0), 0);
}

static struct kunit_case axon_mr_attr_cases[] = {
	KUNIT_CASE_PARAM(axon_pbl_test, axon_pbl_gen_params),
	KUNIT_CASE(axon_pbl_too_short_test),
	KUNIT_CASE_PARAM(axon_dmabuf_pbl_test, axon_dmabuf_gen_params),
	KUNIT_CASE(axon_mr_layout_max_test),
	KUNIT_CASE_PARAM(axon_mr_access_test, axon_access_gen_params),
	KUNIT_CASE(axon_mw_flags_test),
	{}
};

static struct kunit_suite axon_mr_attr_suite = {
	.name = "axon_mr_attr",
	.test_cases = axon_mr_attr_cases,
};

kunit_test_suite(axon_mr_attr_suite);
