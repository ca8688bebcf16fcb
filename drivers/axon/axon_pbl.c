// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon page lists: allocated in 4 KiB leaves of coherent memory the
 * device reads during one admin command (all in one block when the
 * allocator has one), or as one admin buffer when they fit in one leaf
 * (see axon_pbl.h).
 */

#include <linux/dma-mapping.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "axon.h"
#include "axon_mr_attr.h"
#include "axon_pbl.h"

/* Give the list's buffers back; @orphan: the device may still read them. */
void axon_pbl_free(struct axon_dev *adev, struct axon_pbl *pbl, bool orphan)
{
	struct axon_admin_queue *aq = &adev->aq;
	size_t i;

	if (pbl->levels == 1) {
		if (pbl->list)
			axon_admin_buf_free(aq, pbl->list, pbl->list_dma,
					    pbl->list_len, orphan);
		return;
	}
	if (pbl->block)
		axon_admin_coherent_free(aq, pbl->block, pbl->block_dma,
					 pbl->nleaves * AXON_PBL_LEAF_SIZE,
					 orphan);
	for (i = 0; !pbl->block && pbl->leaves && i < pbl->nleaves &&
	     pbl->leaves[i]; i++)
		axon_admin_coherent_free(aq, pbl->leaves[i], pbl->leaf_dma[i],
					 AXON_PBL_LEAF_SIZE, orphan);
	if (pbl->root)
		axon_admin_coherent_free(aq, pbl->root, pbl->root_dma,
					 pbl->nleaves * sizeof(__le64), orphan);
	kvfree(pbl->leaves);
	kvfree(pbl->leaf_dma);
}

/*
 * Most of a large MR's registration was its leaves' allocations, one
 * coherent page each: take them in one block if the allocator has one
 * at hand (up to AXON_PBL_BLOCK_MAX, a 2 GiB MR of 4 KiB pages; no
 * reclaim or retries for it, though a CMA area may migrate pages to
 * find one), else leaf by leaf.
 */
#define AXON_PBL_BLOCK_MAX	SZ_4M

static bool axon_pbl_alloc_block(struct device *dev, struct axon_pbl *pbl)
{
	size_t len = pbl->nleaves * AXON_PBL_LEAF_SIZE;
	size_t i;

	if (len > AXON_PBL_BLOCK_MAX)
		return false;
	pbl->block = dma_alloc_coherent(dev, len, &pbl->block_dma,
					GFP_KERNEL | __GFP_NOWARN |
					__GFP_NORETRY);
	if (!pbl->block)
		return false;
	for (i = 0; i < pbl->nleaves; i++) {
		pbl->leaves[i] = pbl->block + i * AXON_PBL_LEAF_SIZE;
		pbl->leaf_dma[i] = pbl->block_dma + i * AXON_PBL_LEAF_SIZE;
	}
	return true;
}

/* Allocate the page list for @npages entries; the caller fills the leaves. */
int axon_pbl_alloc(struct axon_dev *adev, struct axon_pbl *pbl, size_t npages)
{
	struct device *dev = &adev->pdev->dev;
	size_t i;

	memset(pbl, 0, sizeof(*pbl));
	pbl->levels = axon_pbl_levels(npages);
	pbl->nleaves = axon_pbl_leaves(npages);
	if (pbl->levels == 1) {
		/* one leaf, no allocation but the list's */
		pbl->list_len = max_t(size_t, npages, 1) * sizeof(__le64);
		pbl->list = axon_admin_buf_alloc(&adev->aq, pbl->list_len,
						 &pbl->list_dma);
		if (!pbl->list)
			return -ENOMEM;
		pbl->leaves = &pbl->list;
		pbl->leaf_dma = &pbl->list_dma;
		return 0;
	}
	pbl->leaves = kvcalloc(pbl->nleaves, sizeof(*pbl->leaves), GFP_KERNEL);
	pbl->leaf_dma = kvcalloc(pbl->nleaves, sizeof(*pbl->leaf_dma),
				 GFP_KERNEL);
	if (!pbl->leaves || !pbl->leaf_dma)
		goto err_free;
	if (!axon_pbl_alloc_block(dev, pbl)) {
		for (i = 0; i < pbl->nleaves; i++) {
			pbl->leaves[i] = dma_alloc_coherent(dev,
							    AXON_PBL_LEAF_SIZE,
							    &pbl->leaf_dma[i],
							    GFP_KERNEL);
			if (!pbl->leaves[i])
				goto err_free;
		}
	}
	pbl->root = dma_alloc_coherent(dev, pbl->nleaves * sizeof(__le64),
				       &pbl->root_dma, GFP_KERNEL);
	if (!pbl->root)
		goto err_free;
	for (i = 0; i < pbl->nleaves; i++)
		pbl->root[i] = cpu_to_le64(pbl->leaf_dma[i]);
	return 0;

err_free:
	axon_pbl_free(adev, pbl, false);
	return -ENOMEM;
}
