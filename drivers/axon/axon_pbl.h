/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon page lists ("Page lists" in <axon/axon_dev.h>): the 1- or 2-level
 * lists of DMA addresses that CREATE_MR, REMAP_MR, REREG_MR and the paged
 * CQ rings hand the device, which copies them during the command. Leaves
 * are 4 KiB each, so no large contiguous allocation is needed; a list of
 * one level is as long as its entries, from the admin queue's buffers.
 */
#ifndef _AXON_PBL_H_
#define _AXON_PBL_H_

#include <linux/types.h>

struct axon_dev;

struct axon_pbl {
	u32 levels;
	size_t nleaves;
	__le64 **leaves;
	dma_addr_t *leaf_dma;
	__le64 *root;		/* levels 2 */
	dma_addr_t root_dma;
	/* levels 2: every leaf, in one coherent block when there was one */
	void *block;
	dma_addr_t block_dma;
	/*
	 * levels 1: the list alone, an admin buffer of list_len bytes, which
	 * leaves and leaf_dma point at (so a pbl is never copied)
	 */
	__le64 *list;
	dma_addr_t list_dma;
	size_t list_len;
};

int axon_pbl_alloc(struct axon_dev *adev, struct axon_pbl *pbl,
		   size_t npages);
void axon_pbl_free(struct axon_dev *adev, struct axon_pbl *pbl, bool orphan);

/* Where the device reads the list: its leaf, or its root. */
static inline dma_addr_t axon_pbl_addr(const struct axon_pbl *pbl)
{
	return pbl->levels == 1 ? pbl->leaf_dma[0] : pbl->root_dma;
}

#endif /* _AXON_PBL_H_ */
