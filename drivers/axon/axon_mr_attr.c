// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon: a memory region as the device takes it: page size and count,
 * page list, access bits; a fast-registration MR's page list; the types
 * of memory windows.
 * Shared by axon.ko and the KUnit suites (see axon_mr_attr.h).
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>

#include "axon_compat.h"
#include "axon_mr_attr.h"

/*
 * Write the DMA addresses of the pgsz blocks covering @umem into page list
 * leaves of AXON_PBL_LEAF_ENTRIES entries (a 1-level list is one leaf).
 * pgsz comes from ib_umem_find_best_pgsz(), so every block is pgsz
 * aligned and the first one holds the umem's iova offset. -EINVAL unless
 * the umem is exactly @npages blocks.
 */
int axon_pbl_fill(struct ib_umem *umem, unsigned long pgsz,
		  __le64 *const *leaves, size_t npages)
{
	struct ib_block_iter biter;
	size_t i = 0;

	rdma_umem_for_each_dma_block(umem, &biter, pgsz) {
		if (i == npages)
			return -EINVAL;
		leaves[i / AXON_PBL_LEAF_ENTRIES][i % AXON_PBL_LEAF_ENTRIES] =
			cpu_to_le64(rdma_block_iter_dma_address(&biter));
		i++;
	}
	return i == npages ? 0 : -EINVAL;
}

/*
 * The device page size and page count for @umem at @iova: the largest
 * size of @pgsz_bitmap its DMA layout allows. -EINVAL when none fits or
 * the list would be longer than the device takes.
 */
int axon_mr_layout(struct ib_umem *umem, unsigned long pgsz_bitmap, u64 iova,
		   unsigned long *pgsz, size_t *npages)
{
	*pgsz = ib_umem_find_best_pgsz(umem, pgsz_bitmap, iova);
	if (!*pgsz)
		return -EINVAL;
	*npages = ib_umem_num_dma_blocks(umem, *pgsz);
	return *npages > AXON_MR_MAX_PAGES ? -EINVAL : 0;
}

/* The device's access bits have the values of enum ib_access_flags. */
u32 axon_mr_access(int ib_access)
{
	return ib_access & AXON_ACCESS_MR_ALL;
}

/*
 * MR access flags: the five the device enforces (MW bind only with
 * AXON_CAP_MW, which the caller checks); optional ones (relaxed ordering)
 * may be ignored. Remote write or atomic without local write is invalid,
 * anything else (on demand, zero based) unsupported.
 */
int axon_check_mr_access(int ib_access)
{
	if (ib_access & ~(AXON_IB_MR_ACCESS | IB_ACCESS_OPTIONAL))
		return -EOPNOTSUPP;
	if (ib_access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC) &&
	    !(ib_access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

/*
 * CREATE_MR's flags for a memory window of @type: type 1, or type 2 (the
 * device's are 2B: bound to the QP that binds them); 0 for another type.
 */
u16 axon_mw_flags(enum ib_mw_type type)
{
	switch (type) {
	case IB_MW_TYPE_1:
		return AXON_MR_MW_TYPE1;
	case IB_MW_TYPE_2:
		return AXON_MR_MW_TYPE2;
	default:
		return 0;
	}
}

/*
 * The page shift of a fast registration in pages of @page_size bytes (the
 * ib_map_mr_sg() argument): a power of 2 the device takes in REG_MR,
 * 2^AXON_MR_MIN_PAGE_SHIFT .. 2^AXON_MR_MAX_PAGE_SHIFT; else -EINVAL.
 */
int axon_fr_page_shift(u32 page_size)
{
	if (!is_power_of_2(page_size) ||
	    page_size < BIT(AXON_MR_MIN_PAGE_SHIFT) ||
	    page_size > BIT(AXON_MR_MAX_PAGE_SHIFT))
		return -EINVAL;
	return ilog2(page_size);
}

/*
 * ib_sg_to_pages()' set_page: the next page of the list, or -ENOMEM when
 * the list is full (the core then maps what fitted).
 */
int axon_fr_set_page(struct axon_fr_pages *fr, u64 addr)
{
	if (fr->npages == fr->capacity)
		return -ENOMEM;
	fr->list[fr->npages++] = cpu_to_le64(addr);
	return 0;
}
