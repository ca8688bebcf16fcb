// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: the RDMA verbs helpers (drivers/axon/axon_*.c): MR page lists
 * built from a umem's DMA blocks (pinned pages and dma-buf style DMA-only
 * tables), widened counters, MR access flags, CQ depth, QP queue
 * geometry, the create_cq/create_qp udata checks, ib_qp_attr ->
 * struct axon_qp_attr and back, CQE -> ib_wc, send and receive WQEs.
 */

#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <rdma/ib_umem.h>

#include "axon_cqe.h"
#include "axon_dev_attr.h"
#include "axon_kunit.h"
#include "axon_mr_attr.h"
#include "axon_qp_attr.h"
#include "axon_udata.h"
#include "axon_wqe.h"

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

/* ---- widened counters --------------------------------------------------- */

static void axon_counter_widen_test(struct kunit *test)
{
	u64 sum = 0;
	u32 last = 0;

	KUNIT_EXPECT_EQ(test, axon_counter_widen(&sum, &last, 10), 10);
	KUNIT_EXPECT_EQ(test, axon_counter_widen(&sum, &last, 10), 10);
	KUNIT_EXPECT_EQ(test, axon_counter_widen(&sum, &last, U32_MAX),
			(u64)U32_MAX);
	/* the register wraps: the sum goes on */
	KUNIT_EXPECT_EQ(test, axon_counter_widen(&sum, &last, 5),
			(u64)U32_MAX + 6);
	KUNIT_EXPECT_EQ(test, last, 5);
	KUNIT_EXPECT_EQ(test, axon_counter_widen(&sum, &last, 4),
			(u64)U32_MAX + 6 + U32_MAX);
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
	{ "MW bind", IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND, -EOPNOTSUPP,
	  0 },
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

/* ---- CQ depth and create_cq udata ---------------------------------------- */

struct axon_cq_depth_case {
	const char *name;
	int cqe;
	u32 max_cqe;
	int err;
	u32 depth;
};

static const struct axon_cq_depth_case axon_cq_depth_cases[] = {
	{ "1 -> minimum 2", 1, 65536, 0, 2 },
	{ "2", 2, 65536, 0, 2 },
	{ "3 -> 4", 3, 65536, 0, 4 },
	{ "1000 -> 1024", 1000, 65536, 0, 1024 },
	{ "65536: the contract's maximum", 65536, 65536, 0, 65536 },
	{ "65537", 65537, 1 << 20, -EINVAL, 0 },
	{ "above the device's max_cqe", 4097, 4096, -EINVAL, 0 },
	{ "0", 0, 65536, -EINVAL, 0 },
	{ "negative", -1, 65536, -EINVAL, 0 },
	{ "INT_MAX", INT_MAX, U32_MAX, -EINVAL, 0 },
};

AXON_KUNIT_DESC(axon_cq_depth_case)
KUNIT_ARRAY_PARAM(axon_cq_depth, axon_cq_depth_cases,
		  axon_cq_depth_case_desc);

static void axon_cq_depth_test(struct kunit *test)
{
	const struct axon_cq_depth_case *c = test->param_value;
	u32 depth = 0;

	KUNIT_EXPECT_EQ(test, axon_cq_depth(c->cqe, c->max_cqe, &depth),
			c->err);
	if (!c->err)
		KUNIT_EXPECT_EQ(test, depth, c->depth);
}

struct axon_cq_udata_case {
	const char *name;
	bool in_zero;
	size_t outlen;
	int err;
};

static const struct axon_cq_udata_case axon_cq_udata_cases[] = {
	{ "no request, full response", true, sizeof(struct axon_create_cq_resp),
	  0 },
	{ "longer response buffer", true, 256, 0 },
	{ "non-zero request", false, sizeof(struct axon_create_cq_resp),
	  -EINVAL },
	{ "response too short", true, sizeof(struct axon_create_cq_resp) - 1,
	  -EINVAL },
	{ "no response", true, 0, -EINVAL },
};

AXON_KUNIT_DESC(axon_cq_udata_case)
KUNIT_ARRAY_PARAM(axon_cq_udata, axon_cq_udata_cases,
		  axon_cq_udata_case_desc);

static void axon_cq_udata_test(struct kunit *test)
{
	const struct axon_cq_udata_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, axon_check_create_cq_udata(c->in_zero,
							 c->outlen), c->err);
}

/* ---- QP queue geometry and create_qp udata ------------------------------- */

struct axon_geom_case {
	const char *name;
	struct ib_qp_cap cap;
	u32 max_wr;		/* device limits; 0: the contract's */
	int err;
	struct axon_qp_geom g;
};

static const struct axon_geom_case axon_geom_cases[] = {
	{ "empty", { 0, 0, 0, 0, 0 }, 0, 0,
	  { 1, 1, 6, 5, 0, 1, 0 } },
	{ "rc_pingpong", { 1, 500, 1, 1, 0 }, 0, 0,
	  { 1, 512, 7, 5, 4, 1, 64 } },
	{ "16 SGEs each way", { 64, 64, 16, 16, 0 }, 0, 0,
	  { 64, 64, 9, 9, 16, 16, 256 } },
	{ "inline 256", { 8, 8, 1, 2, 256 }, 0, 0,
	  { 8, 8, 9, 6, 16, 3, 256 } },
	{ "inline 100", { 8, 8, 1, 4, 100 }, 0, 0,
	  { 8, 8, 8, 7, 12, 7, 192 } },
	{ "depths 1000 and 3", { 1000, 3, 2, 2, 0 }, 0, 0,
	  { 1024, 4, 7, 6, 4, 3, 64 } },
	{ "32768 WRs", { 32768, 32768, 1, 1, 0 }, 0, 0,
	  { 32768, 32768, 7, 5, 4, 1, 64 } },
	{ "32769 send WRs", { 32769, 1, 1, 1, 0 }, 0, -EINVAL },
	{ "beyond the device's max_qp_wr", { 1, 4097, 1, 1, 0 }, 4096,
	  -EINVAL },
	{ "17 send SGEs", { 1, 1, 17, 1, 0 }, 0, -EINVAL },
	{ "17 receive SGEs", { 1, 1, 1, 17, 0 }, 0, -EINVAL },
	{ "inline 257", { 1, 1, 1, 1, 257 }, 0, -EINVAL },
	{ "U32_MAX WRs", { U32_MAX, U32_MAX, 1, 1, 0 }, 0, -EINVAL },
};

AXON_KUNIT_DESC(axon_geom_case)
KUNIT_ARRAY_PARAM(axon_geom, axon_geom_cases, axon_geom_case_desc);

static void axon_geom_test(struct kunit *test)
{
	const struct axon_geom_case *c = test->param_value;
	struct axon_qp_limits lim = {
		.max_wr = c->max_wr ?: AXON_WQ_MAX_DEPTH,
		.max_sge = AXON_MAX_SGE,
		.max_inline = AXON_MAX_INLINE,
	};
	struct axon_qp_geom g = {};
	struct ib_qp_cap cap = {};

	KUNIT_ASSERT_EQ(test, axon_qp_geometry(&c->cap, &lim, &g), c->err);
	if (c->err)
		return;
	KUNIT_EXPECT_EQ(test, g.sq_depth, c->g.sq_depth);
	KUNIT_EXPECT_EQ(test, g.rq_depth, c->g.rq_depth);
	KUNIT_EXPECT_EQ(test, g.sq_wqe_shift, c->g.sq_wqe_shift);
	KUNIT_EXPECT_EQ(test, g.rq_wqe_shift, c->g.rq_wqe_shift);
	KUNIT_EXPECT_EQ(test, g.max_send_sge, c->g.max_send_sge);
	KUNIT_EXPECT_EQ(test, g.max_recv_sge, c->g.max_recv_sge);
	KUNIT_EXPECT_EQ(test, g.max_inline, c->g.max_inline);

	/* what is reported back covers what was asked, and fits the slots */
	axon_qp_geom_caps(&g, &cap);
	KUNIT_EXPECT_GE(test, cap.max_send_wr, c->cap.max_send_wr);
	KUNIT_EXPECT_GE(test, cap.max_recv_wr, c->cap.max_recv_wr);
	KUNIT_EXPECT_GE(test, cap.max_send_sge, c->cap.max_send_sge);
	KUNIT_EXPECT_GE(test, cap.max_recv_sge, c->cap.max_recv_sge);
	KUNIT_EXPECT_GE(test, cap.max_inline_data, c->cap.max_inline_data);
	KUNIT_EXPECT_LE(test, sizeof(struct axon_send_wqe) +
			max(cap.max_send_sge * sizeof(struct axon_sge),
			    (size_t)cap.max_inline_data),
			(size_t)1 << g.sq_wqe_shift);
	KUNIT_EXPECT_LE(test, sizeof(struct axon_recv_wqe) +
			cap.max_recv_sge * sizeof(struct axon_sge),
			(size_t)1 << g.rq_wqe_shift);
	KUNIT_EXPECT_LE(test, g.sq_wqe_shift, AXON_WQE_MAX_SHIFT);
	KUNIT_EXPECT_LE(test, g.rq_wqe_shift, AXON_WQE_MAX_SHIFT);
}

struct axon_qp_req_case {
	const char *name;
	u32 comp_mask;
	u32 reserved;
	bool tail_zero;
	size_t outlen;
	int err;
};

#define AXON_QP_RESP_LEN sizeof(struct axon_create_qp_resp)

static const struct axon_qp_req_case axon_qp_req_cases[] = {
	{ "zero request", 0, 0, true, AXON_QP_RESP_LEN, 0 },
	{ "longer response buffer", 0, 0, true, AXON_QP_RESP_LEN + 8, 0 },
	{ "comp_mask bit 0", 1, 0, true, AXON_QP_RESP_LEN, -EOPNOTSUPP },
	{ "reserved set", 0, 0x80000000, true, AXON_QP_RESP_LEN,
	  -EOPNOTSUPP },
	{ "non-zero trailing bytes", 0, 0, false, AXON_QP_RESP_LEN, -EINVAL },
	{ "response too short", 0, 0, true, AXON_QP_RESP_LEN - 8, -EINVAL },
	{ "no response", 0, 0, true, 0, -EINVAL },
};

AXON_KUNIT_DESC(axon_qp_req_case)
KUNIT_ARRAY_PARAM(axon_qp_req, axon_qp_req_cases, axon_qp_req_case_desc);

static void axon_qp_req_test(struct kunit *test)
{
	const struct axon_qp_req_case *c = test->param_value;
	struct axon_create_qp_req req = {
		.comp_mask = c->comp_mask,
		.reserved = c->reserved,
	};

	KUNIT_EXPECT_EQ(test, axon_check_create_qp_req(&req, c->tail_zero,
						       c->outlen), c->err);
}

/* ---- ib_qp_attr -> struct axon_qp_attr ----------------------------------- */

static const struct axon_qp_conv axon_test_conv = {
	.qpn = 0x12,
	.dest_qpn = 0x34,
	.active_mtu = IB_MTU_1024,
	.max_rd_atomic = AXON_MAX_RD_ATOMIC,
};

static void axon_test_rtr_attr(struct ib_qp_attr *attr, int *mask)
{
	static const u8 dmac[ETH_ALEN] = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 };
	union ib_gid dgid = { .raw = { [10] = 0xff, [11] = 0xff, 192, 0, 2,
				       2 } };

	memset(attr, 0, sizeof(*attr));
	attr->qp_state = IB_QPS_RTR;
	attr->path_mtu = IB_MTU_4096;
	attr->dest_qp_num = 0x56;
	attr->rq_psn = 0xabcdef;
	attr->max_dest_rd_atomic = 4;
	attr->min_rnr_timer = 12;
	attr->ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr->ah_attr, 1);
	rdma_ah_set_grh(&attr->ah_attr, &dgid, 0, 3, 64, 0x20);
	memcpy(attr->ah_attr.roce.dmac, dmac, ETH_ALEN);
	*mask = IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
		IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
}

/* INIT -> RTR as rc_pingpong does it, field by field. */
static void axon_qp_attr_rtr_test(struct kunit *test)
{
	struct axon_qp_attr out;
	struct ib_qp_attr attr;
	u32 out_mask = 0;
	int mask;

	axon_test_rtr_attr(&attr, &mask);
	KUNIT_ASSERT_EQ(test, axon_qp_attr_from_ib(&attr, mask, &axon_test_conv,
						   &out, &out_mask), 0);
	KUNIT_EXPECT_EQ(test, out_mask,
			AXON_QP_ATTR_STATE | AXON_QP_ATTR_PATH |
			AXON_QP_ATTR_PATH_MTU | AXON_QP_ATTR_DEST_QPN |
			AXON_QP_ATTR_RQ_PSN | AXON_QP_ATTR_MAX_DEST_RD_ATOMIC |
			AXON_QP_ATTR_MIN_RNR_TIMER);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.state), AXON_QPS_RTR);
	/* 4096 asked, the port runs 1024 */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.path_mtu), 1024);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.dest_qpn), 0x56);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.rq_psn), 0xabcdef);
	KUNIT_EXPECT_EQ(test, out.max_dest_rd_atomic, 4);
	KUNIT_EXPECT_EQ(test, out.min_rnr_timer, 12);
	KUNIT_EXPECT_EQ(test, memcmp(out.dmac, attr.ah_attr.roce.dmac, 6), 0);
	KUNIT_EXPECT_EQ(test, memcmp(out.dgid, attr.ah_attr.grh.dgid.raw, 16),
			0);
	KUNIT_EXPECT_EQ(test, out.sgid_index, 3);
	KUNIT_EXPECT_EQ(test, out.hop_limit, 64);
	KUNIT_EXPECT_EQ(test, out.tclass, 0x20);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.flow_label), 0);
	/* no flow label: the source port comes from this call's dest QPN */
	KUNIT_EXPECT_EQ(test, le16_to_cpu(out.udp_sport),
			rdma_get_udp_sport(0, 0x12, 0x56));
	KUNIT_EXPECT_GE(test, le16_to_cpu(out.udp_sport), 0xc000);
	/* what the device does not get stays zero */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.sq_psn), 0);
	KUNIT_EXPECT_EQ(test, out.timeout, 0);
	KUNIT_EXPECT_NULL(test, memchr_inv(out.reserved, 0,
					   sizeof(out.reserved)));
}

/* The flow label, when given, picks the source port. */
static void axon_qp_attr_flow_label_test(struct kunit *test)
{
	struct axon_qp_attr out;
	struct ib_qp_attr attr;
	u32 out_mask;
	int mask;

	axon_test_rtr_attr(&attr, &mask);
	attr.ah_attr.grh.flow_label = 0x12345;
	KUNIT_ASSERT_EQ(test, axon_qp_attr_from_ib(&attr, mask, &axon_test_conv,
						   &out, &out_mask), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.flow_label), 0x12345);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(out.udp_sport),
			rdma_flow_label_to_udp_sport(0x12345));
}

/* One attribute changed from a valid RTR or RTS call; the result. */
struct axon_qp_attr_case {
	const char *name;
	void (*set)(struct ib_qp_attr *attr, int *mask);
	int err;
};

#define AXON_QP_SET(fn, stmt)						\
static void fn(struct ib_qp_attr *attr, int *mask)			\
{									\
	stmt;								\
}

AXON_QP_SET(axon_set_nothing, (void)attr)
AXON_QP_SET(axon_set_no_grh, attr->ah_attr.ah_flags = 0)
AXON_QP_SET(axon_set_ib_ah, attr->ah_attr.type = RDMA_AH_ATTR_TYPE_IB)
AXON_QP_SET(axon_set_port2, attr->ah_attr.port_num = 2)
AXON_QP_SET(axon_set_flow_label, attr->ah_attr.grh.flow_label = 0x100000)
AXON_QP_SET(axon_set_mtu_bad, attr->path_mtu = 0)
AXON_QP_SET(axon_set_mtu_big, attr->path_mtu = IB_MTU_4096 + 1)
AXON_QP_SET(axon_set_rq_psn, attr->rq_psn = 0x1000000)
AXON_QP_SET(axon_set_dest_qpn, attr->dest_qp_num = 0x1000000)
AXON_QP_SET(axon_set_rd_atomic, attr->max_dest_rd_atomic = 17)
AXON_QP_SET(axon_set_rnr_timer, attr->min_rnr_timer = 32)
AXON_QP_SET(axon_set_sq_psn, (attr->sq_psn = 0x1000000, *mask |= IB_QP_SQ_PSN))
AXON_QP_SET(axon_set_timeout, (attr->timeout = 32, *mask |= IB_QP_TIMEOUT))
AXON_QP_SET(axon_set_retry, (attr->retry_cnt = 8, *mask |= IB_QP_RETRY_CNT))
AXON_QP_SET(axon_set_rnr_retry,
	    (attr->rnr_retry = 8, *mask |= IB_QP_RNR_RETRY))
AXON_QP_SET(axon_set_init_rd_atomic,
	    (attr->max_rd_atomic = 17, *mask |= IB_QP_MAX_QP_RD_ATOMIC))
AXON_QP_SET(axon_set_pkey, (attr->pkey_index = 1, *mask |= IB_QP_PKEY_INDEX))
AXON_QP_SET(axon_set_qp_port, (attr->port_num = 2, *mask |= IB_QP_PORT))
AXON_QP_SET(axon_set_access_local,
	    (attr->qp_access_flags = IB_ACCESS_LOCAL_WRITE,
	     *mask |= IB_QP_ACCESS_FLAGS))
AXON_QP_SET(axon_set_access_bind,
	    (attr->qp_access_flags = IB_ACCESS_MW_BIND,
	     *mask |= IB_QP_ACCESS_FLAGS))
AXON_QP_SET(axon_set_qkey, *mask |= IB_QP_QKEY)
AXON_QP_SET(axon_set_alt_path, *mask |= IB_QP_ALT_PATH)
AXON_QP_SET(axon_set_cap, *mask |= IB_QP_CAP)
AXON_QP_SET(axon_set_rate_limit, *mask |= IB_QP_RATE_LIMIT)

static const struct axon_qp_attr_case axon_qp_attr_cases[] = {
	{ "valid RTR", axon_set_nothing, 0 },
	{ "no GRH", axon_set_no_grh, -EINVAL },
	{ "IB address", axon_set_ib_ah, -EINVAL },
	{ "address on port 2", axon_set_port2, -EINVAL },
	{ "21-bit flow label", axon_set_flow_label, -EINVAL },
	{ "path MTU 0", axon_set_mtu_bad, -EINVAL },
	{ "path MTU beyond 4096", axon_set_mtu_big, -EINVAL },
	{ "25-bit RQ PSN", axon_set_rq_psn, -EINVAL },
	{ "25-bit dest QPN", axon_set_dest_qpn, -EINVAL },
	{ "17 responder resources", axon_set_rd_atomic, -EINVAL },
	{ "RNR timer 32", axon_set_rnr_timer, -EINVAL },
	{ "25-bit SQ PSN", axon_set_sq_psn, -EINVAL },
	{ "timeout 32", axon_set_timeout, -EINVAL },
	{ "retry count 8", axon_set_retry, -EINVAL },
	{ "RNR retry 8", axon_set_rnr_retry, -EINVAL },
	{ "17 initiator depth", axon_set_init_rd_atomic, -EINVAL },
	{ "pkey index 1", axon_set_pkey, -EINVAL },
	{ "port 2", axon_set_qp_port, -EINVAL },
	{ "access: local write is fine", axon_set_access_local, 0 },
	{ "access: MW bind", axon_set_access_bind, -EINVAL },
	{ "Q_Key (UD only)", axon_set_qkey, -EOPNOTSUPP },
	{ "alternate path", axon_set_alt_path, -EOPNOTSUPP },
	{ "resize (IB_QP_CAP)", axon_set_cap, -EOPNOTSUPP },
	{ "rate limit", axon_set_rate_limit, -EOPNOTSUPP },
};

AXON_KUNIT_DESC(axon_qp_attr_case)
KUNIT_ARRAY_PARAM(axon_qp_attr, axon_qp_attr_cases, axon_qp_attr_case_desc);

static void axon_qp_attr_case_test(struct kunit *test)
{
	const struct axon_qp_attr_case *c = test->param_value;
	struct axon_qp_attr out;
	struct ib_qp_attr attr;
	u32 out_mask;
	int mask;

	axon_test_rtr_attr(&attr, &mask);
	c->set(&attr, &mask);
	KUNIT_EXPECT_EQ(test, axon_qp_attr_from_ib(&attr, mask, &axon_test_conv,
						   &out, &out_mask), c->err);
}

/* The remote access bits only; local write is not the responder's. */
static void axon_qp_attr_access_test(struct kunit *test)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IB_ACCESS_LOCAL_WRITE |
				   IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_ATOMIC,
	};
	struct axon_qp_attr out;
	u32 out_mask;

	KUNIT_ASSERT_EQ(test, axon_qp_attr_from_ib(&attr, IB_QP_STATE |
						   IB_QP_ACCESS_FLAGS |
						   IB_QP_PKEY_INDEX |
						   IB_QP_PORT, &axon_test_conv,
						   &out, &out_mask), 0);
	KUNIT_EXPECT_EQ(test, out_mask, AXON_QP_ATTR_STATE |
			AXON_QP_ATTR_ACCESS);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.access),
			AXON_ACCESS_REMOTE_WRITE | AXON_ACCESS_REMOTE_ATOMIC);
}

/* What QUERY_QP answers comes back as the ib_qp_attr that was set. */
static void axon_qp_attr_roundtrip_test(struct kunit *test)
{
	struct ib_qp_attr attr, back = {};
	struct axon_qp_attr out;
	u32 out_mask;
	int mask;

	axon_test_rtr_attr(&attr, &mask);
	attr.ah_attr.grh.flow_label = 0xbeef;
	KUNIT_ASSERT_EQ(test, axon_qp_attr_from_ib(&attr, mask, &axon_test_conv,
						   &out, &out_mask), 0);
	axon_qp_attr_to_ib(&out, &back);
	KUNIT_EXPECT_EQ(test, back.qp_state, IB_QPS_RTR);
	KUNIT_EXPECT_EQ(test, back.path_mtu, IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, back.dest_qp_num, attr.dest_qp_num);
	KUNIT_EXPECT_EQ(test, back.rq_psn, attr.rq_psn);
	KUNIT_EXPECT_EQ(test, back.max_dest_rd_atomic, attr.max_dest_rd_atomic);
	KUNIT_EXPECT_EQ(test, back.min_rnr_timer, attr.min_rnr_timer);
	KUNIT_EXPECT_EQ(test, back.ah_attr.type, RDMA_AH_ATTR_TYPE_ROCE);
	KUNIT_EXPECT_TRUE(test, rdma_ah_get_ah_flags(&back.ah_attr) & IB_AH_GRH);
	KUNIT_EXPECT_EQ(test, memcmp(back.ah_attr.grh.dgid.raw,
				     attr.ah_attr.grh.dgid.raw, 16), 0);
	KUNIT_EXPECT_EQ(test, back.ah_attr.grh.sgid_index, 3);
	KUNIT_EXPECT_EQ(test, back.ah_attr.grh.hop_limit, 64);
	KUNIT_EXPECT_EQ(test, back.ah_attr.grh.traffic_class, 0x20);
	KUNIT_EXPECT_EQ(test, back.ah_attr.grh.flow_label, 0xbeef);
	KUNIT_EXPECT_EQ(test, memcmp(back.ah_attr.roce.dmac,
				     attr.ah_attr.roce.dmac, 6), 0);
	KUNIT_EXPECT_EQ(test, back.port_num, 1);
}

static void axon_qp_state_test(struct kunit *test)
{
	struct axon_qp_attr a = { .state = cpu_to_le32(IB_QPS_RTS) };

	KUNIT_EXPECT_EQ(test, axon_qp_state_to_ib(&a), IB_QPS_RTS);
	a.state = cpu_to_le32(IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, axon_qp_state_to_ib(&a), IB_QPS_ERR);
	/* a state the core does not know is an error */
	a.state = cpu_to_le32(0x10000);
	KUNIT_EXPECT_EQ(test, axon_qp_state_to_ib(&a), IB_QPS_ERR);
}

/* ---- async events ---------------------------------------------------------- */

static void axon_qp_event_type_test(struct kunit *test)
{
	enum ib_event_type ev;

	KUNIT_EXPECT_TRUE(test, axon_qp_event_type(AXON_EVENT_QP_FATAL, &ev));
	KUNIT_EXPECT_EQ(test, ev, IB_EVENT_QP_FATAL);
	KUNIT_EXPECT_TRUE(test, axon_qp_event_type(AXON_EVENT_QP_REQ_ERR, &ev));
	KUNIT_EXPECT_EQ(test, ev, IB_EVENT_QP_REQ_ERR);
	KUNIT_EXPECT_TRUE(test, axon_qp_event_type(AXON_EVENT_QP_ACCESS_ERR,
						   &ev));
	KUNIT_EXPECT_EQ(test, ev, IB_EVENT_QP_ACCESS_ERR);
	KUNIT_EXPECT_TRUE(test, axon_qp_event_type(AXON_EVENT_COMM_EST, &ev));
	KUNIT_EXPECT_EQ(test, ev, IB_EVENT_COMM_EST);
	KUNIT_EXPECT_FALSE(test, axon_qp_event_type(AXON_EVENT_CQ_ERROR, &ev));
	KUNIT_EXPECT_FALSE(test, axon_qp_event_type(AXON_EVENT_COMPLETION,
						    &ev));
	KUNIT_EXPECT_FALSE(test, axon_qp_event_type(0xffff, &ev));
}

/* ---- completions against the posted WQEs ----------------------------------- */

static void axon_wq_index_test(struct kunit *test)
{
	/* nothing posted */
	KUNIT_EXPECT_FALSE(test, axon_wq_index_pending(5, 5, 5));
	KUNIT_EXPECT_FALSE(test, axon_wq_index_pending(5, 5, 4));
	/* [5, 8) */
	KUNIT_EXPECT_TRUE(test, axon_wq_index_pending(5, 8, 5));
	KUNIT_EXPECT_TRUE(test, axon_wq_index_pending(5, 8, 7));
	KUNIT_EXPECT_FALSE(test, axon_wq_index_pending(5, 8, 8));
	KUNIT_EXPECT_FALSE(test, axon_wq_index_pending(5, 8, 4));
	KUNIT_EXPECT_FALSE(test, axon_wq_index_pending(5, 8, 0xffff));
	/* [0xfffe, 2): the indexes wrap at 2^16 */
	KUNIT_EXPECT_TRUE(test, axon_wq_index_pending(0xfffe, 2, 0xffff));
	KUNIT_EXPECT_TRUE(test, axon_wq_index_pending(0xfffe, 2, 0));
	KUNIT_EXPECT_TRUE(test, axon_wq_index_pending(0xfffe, 2, 1));
	KUNIT_EXPECT_FALSE(test, axon_wq_index_pending(0xfffe, 2, 2));
	KUNIT_EXPECT_FALSE(test, axon_wq_index_pending(0xfffe, 2, 0xfffd));
}

/* ---- purging a QP's CQEs --------------------------------------------------- */

static void axon_test_cqe(struct axon_cqe *ring, u32 depth, u32 idx, u32 qpn)
{
	struct axon_cqe *cqe = &ring[idx & (depth - 1)];

	cqe->qpn = cpu_to_le32(qpn);
	cqe->flags = idx & depth ? 0 : AXON_CQE_PHASE;
}

static void axon_cq_purge_test(struct kunit *test)
{
	struct axon_cqe *ring;
	u32 depth = 4;

	ring = kunit_kcalloc(test, depth, AXON_CQE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ring);
	KUNIT_ASSERT_EQ(test, sizeof(*ring), AXON_CQE_SIZE);
	/* consumer at 2 (the first pass), CQEs 2..4 written, 5 not */
	axon_test_cqe(ring, depth, 0, 7);
	axon_test_cqe(ring, depth, 1, 7);
	axon_test_cqe(ring, depth, 2, 7);
	axon_test_cqe(ring, depth, 3, 9);
	axon_test_cqe(ring, depth, 4, 7);
	KUNIT_EXPECT_NULL(test, axon_cqe_at(ring, depth, 5));
	KUNIT_EXPECT_PTR_EQ(test, axon_cqe_at(ring, depth, 4), &ring[0]);

	KUNIT_EXPECT_EQ(test, axon_cq_purge(ring, depth, 2, 7), 2);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ring[0].qpn), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ring[1].qpn), 7);	/* consumed */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ring[2].qpn), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ring[3].qpn), 9);
	KUNIT_EXPECT_EQ(test, axon_cq_purge(ring, depth, 2, 7), 0);

	/* a full ring: the pass ends at cons + depth */
	axon_test_cqe(ring, depth, 5, 9);
	KUNIT_EXPECT_EQ(test, axon_cq_purge(ring, depth, 2, 9), 2);
	KUNIT_EXPECT_NULL(test, axon_cqe_at(ring, depth, 6));
}

/* ---- CQE -> ib_wc ---------------------------------------------------------- */

struct axon_cqe_case {
	const char *name;
	u8 opcode;
	u8 status;
	u8 flags;
	int err;
	enum ib_wc_opcode wc_opcode;
	enum ib_wc_status wc_status;
};

static const struct axon_cqe_case axon_cqe_cases[] = {
	{ "send", AXON_WC_SEND, AXON_WC_SUCCESS, AXON_CQE_PHASE, 0,
	  IB_WC_SEND, IB_WC_SUCCESS },
	{ "RDMA read", AXON_WC_RDMA_READ, AXON_WC_SUCCESS, 0, 0,
	  IB_WC_RDMA_READ, IB_WC_SUCCESS },
	{ "fetch and add", AXON_WC_FETCH_ADD, AXON_WC_REM_ACCESS_ERR, 0, 0,
	  IB_WC_FETCH_ADD, IB_WC_REM_ACCESS_ERR },
	{ "receive", AXON_WC_RECV, AXON_WC_SUCCESS, AXON_CQE_RECV, 0,
	  IB_WC_RECV, IB_WC_SUCCESS },
	{ "receive, write with immediate", AXON_WC_RECV_RDMA_WITH_IMM,
	  AXON_WC_SUCCESS, AXON_CQE_RECV | AXON_CQE_WITH_IMM, 0,
	  IB_WC_RECV_RDMA_WITH_IMM, IB_WC_SUCCESS },
	{ "flushed receive", AXON_WC_RECV, AXON_WC_WR_FLUSH_ERR,
	  AXON_CQE_RECV, 0, IB_WC_RECV, IB_WC_WR_FLUSH_ERR },
	{ "RNR retries exceeded", AXON_WC_SEND, AXON_WC_RNR_RETRY_EXC_ERR, 0,
	  0, IB_WC_SEND, IB_WC_RNR_RETRY_EXC_ERR },
	{ "unknown opcode", 99, AXON_WC_SUCCESS, 0, -EIO, IB_WC_SEND,
	  IB_WC_GENERAL_ERR },
	{ "receive opcode on a send", AXON_WC_RECV, AXON_WC_SUCCESS, 0, -EIO,
	  IB_WC_SEND, IB_WC_GENERAL_ERR },
	{ "send opcode on a receive", AXON_WC_SEND, AXON_WC_SUCCESS,
	  AXON_CQE_RECV, -EIO, IB_WC_RECV, IB_WC_GENERAL_ERR },
	{ "unknown status", AXON_WC_SEND, 3, 0, -EIO, IB_WC_SEND,
	  IB_WC_GENERAL_ERR },
};

AXON_KUNIT_DESC(axon_cqe_case)
KUNIT_ARRAY_PARAM(axon_cqe, axon_cqe_cases, axon_cqe_case_desc);

static void axon_cqe_test(struct kunit *test)
{
	const struct axon_cqe_case *c = test->param_value;
	struct axon_cqe cqe = {
		.wr_id = cpu_to_le64(0x1122334455667788),
		.byte_len = cpu_to_le32(4096),
		.imm_data = cpu_to_be32(0xcafe),
		.opcode = c->opcode,
		.status = c->status,
		.flags = c->flags,
	};
	struct ib_wc wc;

	KUNIT_EXPECT_EQ(test, axon_cqe_to_wc(&cqe, &wc), c->err);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 0x1122334455667788);
	KUNIT_EXPECT_EQ(test, wc.opcode, c->wc_opcode);
	KUNIT_EXPECT_EQ(test, wc.status, c->wc_status);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 4096);
	KUNIT_EXPECT_EQ(test, !!(wc.wc_flags & IB_WC_WITH_IMM),
			!!(c->flags & AXON_CQE_WITH_IMM));
	if (c->flags & AXON_CQE_WITH_IMM)
		KUNIT_EXPECT_EQ(test, be32_to_cpu(wc.ex.imm_data), 0xcafe);
	KUNIT_EXPECT_NULL(test, wc.qp);
}

/* ---- kernel WQEs ------------------------------------------------------------- */

static void axon_send_wqe_write_test(struct kunit *test)
{
	struct ib_sge sge[2] = {
		{ .addr = 0x1000, .length = 100, .lkey = 0x101 },
		{ .addr = 0x2000, .length = 200, .lkey = 0x202 },
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = 7,
			.sg_list = sge,
			.num_sge = 2,
			.opcode = IB_WR_RDMA_WRITE_WITH_IMM,
			.send_flags = IB_SEND_SOLICITED | IB_SEND_FENCE,
			.ex.imm_data = cpu_to_be32(0x1234),
		},
		.remote_addr = 0xdead0000,
		.rkey = 0x4242,
	};
	u8 *slot = kunit_kzalloc(test, 128, GFP_KERNEL);
	struct axon_send_wqe *wqe = (struct axon_send_wqe *)slot;
	struct axon_sge *s = (struct axon_sge *)(wqe + 1);

	KUNIT_ASSERT_NOT_NULL(test, slot);
	memset(slot, 0xaa, 128);
	KUNIT_ASSERT_EQ(test, axon_build_send_wqe(&wr.wr, slot, 128, 4, 64,
						  false), 0);
	KUNIT_EXPECT_EQ(test, wqe->opcode, AXON_WR_RDMA_WRITE_IMM);
	KUNIT_EXPECT_EQ(test, wqe->flags, AXON_WQE_SOLICITED | AXON_WQE_FENCE);
	KUNIT_EXPECT_EQ(test, wqe->num_sge, 2);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wqe->imm_data), 0x1234);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(wqe->wr_id), 7);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(wqe->remote_addr), 0xdead0000);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(wqe->rkey), 0x4242);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s[1].addr), 0x2000);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(s[1].length), 200);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(s[1].lkey), 0x202);
	/* the rest of the slot is cleared */
	KUNIT_EXPECT_NULL(test, memchr_inv(slot + 96, 0, 32));

	/* more SGEs than the QP has */
	KUNIT_EXPECT_EQ(test, axon_build_send_wqe(&wr.wr, slot, 128, 1, 64,
						  false), -EINVAL);
}

static void axon_send_wqe_inline_test(struct kunit *test)
{
	static const char data[] = "inline payload";
	struct ib_sge sge = {
		.addr = (uintptr_t)data,
		.length = sizeof(data),
	};
	struct ib_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_INLINE,
	};
	u8 *slot = kunit_kzalloc(test, 128, GFP_KERNEL);
	struct axon_send_wqe *wqe = (struct axon_send_wqe *)slot;

	KUNIT_ASSERT_NOT_NULL(test, slot);
	KUNIT_ASSERT_EQ(test, axon_build_send_wqe(&wr, slot, 128, 4, 64, true),
			0);
	KUNIT_EXPECT_EQ(test, wqe->opcode, AXON_WR_SEND);
	KUNIT_EXPECT_EQ(test, wqe->flags, AXON_WQE_INLINE | AXON_WQE_SIGNALED);
	KUNIT_EXPECT_EQ(test, wqe->num_sge, 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(wqe->inline_len), sizeof(data));
	KUNIT_EXPECT_EQ(test, memcmp(wqe + 1, data, sizeof(data)), 0);

	/* more than fits inline */
	sge.length = 65;
	KUNIT_EXPECT_EQ(test, axon_build_send_wqe(&wr, slot, 128, 4, 64, true),
			-EINVAL);
	/* unknown opcode */
	wr.opcode = IB_WR_LOCAL_INV;
	KUNIT_EXPECT_EQ(test, axon_build_send_wqe(&wr, slot, 128, 4, 64, true),
			-EINVAL);
}

static void axon_recv_wqe_test(struct kunit *test)
{
	struct ib_sge sge = { .addr = 0x3000, .length = 64, .lkey = 0x303 };
	struct ib_recv_wr wr = { .wr_id = 9, .sg_list = &sge, .num_sge = 1 };
	u8 *slot = kunit_kzalloc(test, 32, GFP_KERNEL);
	struct axon_recv_wqe *wqe = (struct axon_recv_wqe *)slot;
	struct axon_sge *s = (struct axon_sge *)(wqe + 1);

	KUNIT_ASSERT_NOT_NULL(test, slot);
	KUNIT_ASSERT_EQ(test, axon_build_recv_wqe(&wr, slot, 1), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(wqe->wr_id), 9);
	KUNIT_EXPECT_EQ(test, wqe->num_sge, 1);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->addr), 0x3000);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(s->lkey), 0x303);
	wr.num_sge = 2;
	KUNIT_EXPECT_EQ(test, axon_build_recv_wqe(&wr, slot, 1), -EINVAL);
}

static struct kunit_case axon_rdma_cases[] = {
	KUNIT_CASE_PARAM(axon_pbl_test, axon_pbl_gen_params),
	KUNIT_CASE(axon_pbl_too_short_test),
	KUNIT_CASE_PARAM(axon_dmabuf_pbl_test, axon_dmabuf_gen_params),
	KUNIT_CASE(axon_mr_layout_max_test),
	KUNIT_CASE(axon_counter_widen_test),
	KUNIT_CASE_PARAM(axon_mr_access_test, axon_access_gen_params),
	KUNIT_CASE_PARAM(axon_cq_depth_test, axon_cq_depth_gen_params),
	KUNIT_CASE_PARAM(axon_cq_udata_test, axon_cq_udata_gen_params),
	KUNIT_CASE_PARAM(axon_geom_test, axon_geom_gen_params),
	KUNIT_CASE_PARAM(axon_qp_req_test, axon_qp_req_gen_params),
	KUNIT_CASE(axon_qp_attr_rtr_test),
	KUNIT_CASE(axon_qp_attr_flow_label_test),
	KUNIT_CASE_PARAM(axon_qp_attr_case_test, axon_qp_attr_gen_params),
	KUNIT_CASE(axon_qp_attr_access_test),
	KUNIT_CASE(axon_qp_attr_roundtrip_test),
	KUNIT_CASE(axon_qp_state_test),
	KUNIT_CASE(axon_qp_event_type_test),
	KUNIT_CASE(axon_wq_index_test),
	KUNIT_CASE(axon_cq_purge_test),
	KUNIT_CASE_PARAM(axon_cqe_test, axon_cqe_gen_params),
	KUNIT_CASE(axon_send_wqe_write_test),
	KUNIT_CASE(axon_send_wqe_inline_test),
	KUNIT_CASE(axon_recv_wqe_test),
	{}
};

static struct kunit_suite axon_rdma_suite = {
	.name = "axon_rdma",
	.test_cases = axon_rdma_cases,
};

kunit_test_suite(axon_rdma_suite);
