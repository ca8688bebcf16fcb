// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon memory regions on user memory. The pages are pinned with
 * ib_umem_get(), split into the largest device page size the layout
 * allows, and handed to the device as a page list: one level up to
 * AXON_PBL_LEAF_ENTRIES pages, else a root of pointers to 4 KiB leaves,
 * so no large contiguous allocation is needed for big MRs. The device
 * copies the list in CREATE_MR, so it lives only for the command.
 *
 * Kernel PDs get a DMA MR (get_dma_mr): an identity page list over bus
 * addresses, for their local_dma_lkey. alloc_mr (fast registration) is
 * not implemented: the device has no registration work request.
 */

#include <linux/dma-mapping.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>

#include "axon.h"
#include "axon_cmds.h"
#include "axon_util.h"

struct axon_pbl {
	u32 levels;
	size_t nleaves;
	__le64 **leaves;
	dma_addr_t *leaf_dma;
	__le64 *root;		/* levels 2 */
	dma_addr_t root_dma;
};

/* Give the list's buffers back; @orphan: the device may still read them. */
static void axon_pbl_free(struct axon_dev *adev, struct axon_pbl *pbl,
			  bool orphan)
{
	struct device *dev = &adev->pdev->dev;
	size_t i;

	for (i = 0; i < pbl->nleaves && pbl->leaves[i]; i++) {
		if (orphan)
			axon_admin_orphan_buf(&adev->aq, pbl->leaves[i],
					      pbl->leaf_dma[i],
					      AXON_PBL_LEAF_SIZE);
		else
			dma_free_coherent(dev, AXON_PBL_LEAF_SIZE,
					  pbl->leaves[i], pbl->leaf_dma[i]);
	}
	if (pbl->root) {
		if (orphan)
			axon_admin_orphan_buf(&adev->aq, pbl->root,
					      pbl->root_dma,
					      pbl->nleaves * sizeof(__le64));
		else
			dma_free_coherent(dev, pbl->nleaves * sizeof(__le64),
					  pbl->root, pbl->root_dma);
	}
	kvfree(pbl->leaves);
	kvfree(pbl->leaf_dma);
}

/* Allocate the page list for @npages entries; the caller fills the leaves. */
static int axon_pbl_alloc(struct axon_dev *adev, struct axon_pbl *pbl,
			  size_t npages)
{
	struct device *dev = &adev->pdev->dev;
	size_t i;

	memset(pbl, 0, sizeof(*pbl));
	pbl->levels = axon_pbl_levels(npages);
	pbl->nleaves = axon_pbl_leaves(npages);
	pbl->leaves = kvcalloc(pbl->nleaves, sizeof(*pbl->leaves), GFP_KERNEL);
	pbl->leaf_dma = kvcalloc(pbl->nleaves, sizeof(*pbl->leaf_dma),
				 GFP_KERNEL);
	if (!pbl->leaves || !pbl->leaf_dma)
		goto err_free;
	for (i = 0; i < pbl->nleaves; i++) {
		pbl->leaves[i] = dma_alloc_coherent(dev, AXON_PBL_LEAF_SIZE,
						    &pbl->leaf_dma[i],
						    GFP_KERNEL);
		if (!pbl->leaves[i])
			goto err_free;
	}
	if (pbl->levels == 2) {
		pbl->root = dma_alloc_coherent(dev,
					       pbl->nleaves * sizeof(__le64),
					       &pbl->root_dma, GFP_KERNEL);
		if (!pbl->root)
			goto err_free;
		for (i = 0; i < pbl->nleaves; i++)
			pbl->root[i] = cpu_to_le64(pbl->leaf_dma[i]);
	}
	return 0;

err_free:
	axon_pbl_free(adev, pbl, false);
	return -ENOMEM;
}

static unsigned long axon_mr_pgsz_bitmap(struct axon_dev *adev)
{
	return le64_to_cpu(adev->attr.page_size_cap) &
	       GENMASK_ULL(AXON_MR_MAX_PAGE_SHIFT, AXON_MR_MIN_PAGE_SHIFT);
}

static int axon_check_mr_args(struct axon_dev *adev, u64 start, u64 length,
			      u64 virt_addr, int access,
			      struct ib_udata *udata)
{
	int err;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(&adev->ibdev, "reg_mr: non-zero udata\n");
		return -EINVAL;
	}
	err = axon_check_mr_access(access);
	if (err) {
		ibdev_dbg(&adev->ibdev, "reg_mr: access 0x%x: %d\n", access,
			  err);
		return err;
	}
	/* as ib_umem_get() says of a wrapping user range */
	if (start + length < start || virt_addr + length < virt_addr) {
		ibdev_dbg(&adev->ibdev, "reg_mr: range wraps\n");
		return -EINVAL;
	}
	if (length > le64_to_cpu(adev->attr.max_mr_size)) {
		ibdev_dbg(&adev->ibdev, "reg_mr: length 0x%llx too large\n",
			  length);
		return -EINVAL;
	}
	return 0;
}

/* CREATE_MR over a filled page list, which is freed. */
static int axon_create_mr(struct axon_dev *adev, struct axon_mr *mr,
			  struct ib_pd *ibpd, int access, u64 iova, u64 length,
			  struct axon_pbl *pbl, size_t npages,
			  unsigned long pgsz)
{
	struct axon_mr_params p = {
		.pdn = to_apd(ibpd)->pdn,
		.access = axon_mr_access(access),
		.iova = iova,
		.length = length,
		.pbl_addr = pbl->levels == 1 ? pbl->leaf_dma[0] : pbl->root_dma,
		.npages = npages,
		.page_shift = __ffs(pgsz),
		.levels = pbl->levels,
	};
	int err;

	err = axon_cmd_create_mr(&adev->aq, &p, &mr->key);
	axon_pbl_free(adev, pbl, err == -ETIMEDOUT);
	if (err)
		return err;
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	return 0;
}

struct ib_mr *axon_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			       u64 virt_addr, int access,
			       struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibpd->device);
	struct axon_pbl pbl;
	unsigned long pgsz;
	struct axon_mr *mr;
	size_t npages;
	int err;

	err = axon_check_mr_args(adev, start, length, virt_addr, access,
				 udata);
	if (err)
		return ERR_PTR(err);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		ibdev_dbg(&adev->ibdev, "reg_mr: ib_umem_get: %d\n", err);
		goto err_free_mr;
	}
	pgsz = ib_umem_find_best_pgsz(mr->umem, axon_mr_pgsz_bitmap(adev),
				      virt_addr);
	npages = pgsz ? ib_umem_num_dma_blocks(mr->umem, pgsz) : 0;
	if (!pgsz || npages > AXON_MR_MAX_PAGES) {
		ibdev_dbg(&adev->ibdev,
			  "reg_mr: no page size fits (pgsz 0x%lx, %zu pages)\n",
			  pgsz, npages);
		err = -EINVAL;
		goto err_release_umem;
	}
	err = axon_pbl_alloc(adev, &pbl, npages);
	if (err)
		goto err_release_umem;
	err = axon_pbl_fill(mr->umem, pgsz, pbl.leaves, npages);
	if (err) {
		axon_pbl_free(adev, &pbl, false);
		goto err_release_umem;
	}
	err = axon_create_mr(adev, mr, ibpd, access, virt_addr, length, &pbl,
			     npages, pgsz);
	if (err)
		goto err_release_umem;
	return &mr->ibmr;

err_release_umem:
	ib_umem_release(mr->umem);
err_free_mr:
	kfree(mr);
	return ERR_PTR(err);
}

/*
 * The DMA MR covers bus addresses [0, 2^bits): the largest power of 2 in
 * max_mr_size that AXON_MR_MAX_PAGES of the device's largest page span;
 * 0 when it has no usable page size. The DMA mask is set to it.
 */
u32 axon_dma_mr_bits(struct axon_dev *adev)
{
	unsigned long bitmap = axon_mr_pgsz_bitmap(adev);
	u64 max = le64_to_cpu(adev->attr.max_mr_size);

	if (!bitmap || !max)
		return 0;
	return min_t(u32, ilog2(max), __fls(bitmap) + ilog2(AXON_MR_MAX_PAGES));
}

/*
 * The DMA MR of kernel PDs (their local_dma_lkey): bus addresses as they
 * are, as far as the DMA mask goes, in the device's largest pages. Local
 * access only: a global rkey is not offered.
 */
struct ib_mr *axon_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct axon_dev *adev = to_adev(ibpd->device);
	unsigned long bitmap = axon_mr_pgsz_bitmap(adev);
	u32 bits = axon_dma_mr_bits(adev);
	u64 length = bits ? 1ULL << bits : 0;
	unsigned long pgsz = bitmap ? rounddown_pow_of_two(bitmap) : 0;
	struct axon_pbl pbl;
	struct axon_mr *mr;
	size_t npages, i;
	int err;

	if (access & ~IB_ACCESS_LOCAL_WRITE)
		return ERR_PTR(-EOPNOTSUPP);
	npages = pgsz ? DIV_ROUND_UP_ULL(length, pgsz) : 0;
	if (!npages || npages > AXON_MR_MAX_PAGES)
		return ERR_PTR(-EOPNOTSUPP);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	err = axon_pbl_alloc(adev, &pbl, npages);
	if (err)
		goto err_free_mr;
	for (i = 0; i < npages; i++)
		pbl.leaves[i / AXON_PBL_LEAF_ENTRIES][i % AXON_PBL_LEAF_ENTRIES] =
			cpu_to_le64((u64)i * pgsz);
	err = axon_create_mr(adev, mr, ibpd, access, 0, length, &pbl, npages,
			     pgsz);
	if (err)
		goto err_free_mr;
	return &mr->ibmr;

err_free_mr:
	kfree(mr);
	ibdev_dbg(&adev->ibdev, "get_dma_mr failed: %d\n", err);
	return ERR_PTR(err);
}

/*
 * The core cannot handle a failing destroy while it tears a context down:
 * a device error is logged and the MR is gone for the driver. Unless the
 * device destroyed the MR or is dead, it may still use the pages: they
 * stay pinned.
 */
int axon_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibmr->device);
	struct axon_mr *mr = to_amr(ibmr);
	int err;

	err = axon_cmd_destroy_mr(&adev->aq, mr->key);
	if (err)
		ibdev_err_ratelimited(&adev->ibdev,
				      "destroy mr 0x%x failed: %d\n", mr->key,
				      err);
	if (axon_destroyed(adev, err))
		ib_umem_release(mr->umem);
	else if (mr->umem)
		ibdev_err_ratelimited(&adev->ibdev,
				      "mr 0x%x: pages leaked pinned, the device may still use them\n",
				      mr->key);
	kfree(mr);
	return 0;
}
