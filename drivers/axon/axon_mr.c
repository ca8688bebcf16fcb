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
 * addresses, for their local_dma_lkey.
 *
 * Fast registration (AXON_CAP_FAST_REG), for kernel consumers: alloc_mr
 * makes a device MR with a capacity of pages and no pages (invalid) and
 * a page list of that capacity the driver keeps; map_mr_sg fills the list
 * (ib_sg_to_pages()); the consumer's REG_MR WQE then hands the device the
 * list, iova, length, access and a new key (axon_wqe.c), and LOCAL_INV or
 * a peer's SEND_WITH_INV take the key away again. The device reads the
 * list when the WQE executes, so the list lives as long as the MR.
 *
 * dma-buf MRs (AXON_CAP_PEER_MR) take their pages from the dma-buf's DMA
 * addresses (often another device's BAR, no struct page). Where the kernel
 * lets importers follow moves (CONFIG_DMABUF_MOVE_NOTIFY) the MR is a
 * dynamic importer, otherwise the buffer is pinned. Dynamic MR states,
 * all changed under the dma-buf's resv lock:
 *  - registration maps the pages and runs CREATE_MR under the lock, so a
 *    move cannot slip in between; then live and valid.
 *  - move_notify (called under the lock): INVALIDATE_MR if valid, then
 *    the pages are unmapped and, if live, a remap work queued. Accesses
 *    meanwhile fail with the statuses axon_dev.h defines.
 *  - the remap work, under the lock, if live and not valid: map the pages
 *    (waits for the exporter's move), REMAP_MR, valid.
 *  - dereg, under the lock: not live, DESTROY_MR (if the device refuses,
 *    memory windows being bound to the MR, it is as it was); then,
 *    unlocked, it cancels the work, which cannot be queued again as the
 *    MR is not live. A move_notify arriving later only unmaps; the umem
 *    release detaches, after which none arrives, and only then is the MR
 *    freed.
 *
 * On-demand paging MRs (IB_ACCESS_ON_DEMAND, AXON_CAP_ODP) pin nothing:
 * the device asks for their pages as it needs them (axon_odp.c).
 */

#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/dma-mapping.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>

#include "axon.h"
#include "axon_cmds.h"
#include "axon_mr_attr.h"
#include "axon_odp.h"
#include "axon_pbl.h"

unsigned long axon_mr_pgsz_bitmap(struct axon_dev *adev)
{
	return le64_to_cpu(adev->attr.page_size_cap) &
	       GENMASK_ULL(AXON_MR_MAX_PAGE_SHIFT, AXON_MR_MIN_PAGE_SHIFT);
}

int axon_check_mr_args(struct axon_dev *adev, u64 start, u64 length,
		       u64 virt_addr, int access, struct ib_udata *udata)
{
	int err;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(&adev->ibdev, "reg_mr: non-zero udata\n");
		return -EINVAL;
	}
	err = axon_check_mr_access(access);
	if (!err && access & IB_ACCESS_MW_BIND && !adev->mw)
		err = -EOPNOTSUPP;
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

/* The page list fields of @p for a filled @pbl. */
static void axon_pbl_params(const struct axon_pbl *pbl, size_t npages,
			    unsigned long pgsz, struct axon_mr_params *p)
{
	p->pbl_addr = axon_pbl_addr(pbl);
	p->npages = npages;
	p->page_shift = __ffs(pgsz);
	p->levels = pbl->levels;
}

/* A page list for @umem at @iova, in the largest pages the layout allows. */
static int axon_pbl_build(struct axon_dev *adev, struct ib_umem *umem,
			  u64 iova, struct axon_pbl *pbl,
			  struct axon_mr_params *p)
{
	unsigned long pgsz;
	size_t npages;
	int err;

	err = axon_mr_layout(umem, axon_mr_pgsz_bitmap(adev), iova, &pgsz,
			     &npages);
	if (err) {
		ibdev_dbg(&adev->ibdev, "reg_mr: no page size fits iova 0x%llx\n",
			  iova);
		return err;
	}
	err = axon_pbl_alloc(adev, pbl, npages);
	if (err)
		return err;
	err = axon_pbl_fill(umem, pgsz, pbl->leaves, npages);
	if (err) {
		axon_pbl_free(adev, pbl, false);
		return err;
	}
	axon_pbl_params(pbl, npages, pgsz, p);
	return 0;
}

/* CREATE_MR over a filled page list (@p), which is freed. */
static int axon_create_mr(struct axon_dev *adev, struct axon_mr *mr,
			  struct ib_pd *ibpd, int access, u64 iova, u64 length,
			  struct axon_pbl *pbl, struct axon_mr_params *p)
{
	int err;

	p->pdn = to_apd(ibpd)->pdn;
	p->access = axon_mr_access(access);
	p->iova = iova;
	p->length = length;
	err = axon_cmd_create_mr(&adev->aq, p, &mr->key);
	axon_pbl_free(adev, pbl, err == -ETIMEDOUT);
	if (err)
		return err;
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	mr->page_shift = p->page_shift;
	mr->npages = p->npages;
	return 0;
}

/*
 * The pages of an MR whose CREATE_MR, REREG_MR or DESTROY_MR timed out:
 * the device may still reach them, so they stay pinned (a dma-buf stays
 * attached) until the device is reset, and are released then. A dynamic
 * dma-buf attachment must not outlive the driver either: its exporter
 * would call a move_notify that is gone.
 */
struct axon_umem_orphan {
	struct list_head node;
	struct ib_umem *umem;
};

void axon_umem_orphan(struct axon_dev *adev, struct ib_umem *umem)
{
	struct axon_umem_orphan *o = kmalloc(sizeof(*o), GFP_KERNEL);

	if (!o) {
		/* kept for ever beats reached by the device once freed */
		ibdev_warn(&adev->ibdev, "leaking the pages of a timed-out MR\n");
		return;
	}
	o->umem = umem;
	spin_lock(&adev->orphan_lock);
	list_add(&o->node, &adev->orphan_umems);
	spin_unlock(&adev->orphan_lock);
}

/* The device is reset (it reaches no memory): the orphans go. */
void axon_release_orphan_umems(struct axon_dev *adev)
{
	struct axon_umem_orphan *o, *tmp;
	LIST_HEAD(orphans);

	spin_lock(&adev->orphan_lock);
	list_splice_init(&adev->orphan_umems, &orphans);
	spin_unlock(&adev->orphan_lock);
	list_for_each_entry_safe(o, tmp, &orphans, node) {
		ib_umem_release(o->umem);
		kfree(o);
	}
}

struct ib_mr *axon_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			       u64 virt_addr, int access,
			       struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibpd->device);
	struct axon_mr_params p = {};
	struct axon_pbl pbl;
	struct axon_mr *mr;
	int err;

	if (access & IB_ACCESS_ON_DEMAND)
		return axon_odp_reg_user_mr(ibpd, start, length, virt_addr,
					    access, udata);
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
	err = axon_pbl_build(adev, mr->umem, virt_addr, &pbl, &p);
	if (err)
		goto err_release_umem;
	err = axon_create_mr(adev, mr, ibpd, access, virt_addr, length, &pbl,
			     &p);
	if (err == -ETIMEDOUT) {
		axon_umem_orphan(adev, mr->umem);
		goto err_free_mr;
	}
	if (err)
		goto err_release_umem;
	mr->access = access;
	return &mr->ibmr;

err_release_umem:
	ib_umem_release(mr->umem);
err_free_mr:
	kfree(mr);
	return ERR_PTR(err);
}

static struct dma_resv *axon_mr_resv(struct axon_mr *mr)
{
	return to_ib_umem_dmabuf(mr->umem)->attach->dmabuf->resv;
}

/*
 * The exporter moves the buffer (resv lock held): stop the device, drop
 * the mapping, remap later. The device cannot refuse: if INVALIDATE_MR
 * fails on a live device, it may still reach the old location.
 */
static void axon_dmabuf_move_notify(struct dma_buf_attachment *attach)
{
	struct ib_umem_dmabuf *umem_dmabuf = attach->importer_priv;
	struct axon_dev *adev = to_adev(umem_dmabuf->umem.ibdev);
	struct axon_mr *mr = umem_dmabuf->private;
	int err;

	dma_resv_assert_held(attach->dmabuf->resv);
	if (mr && mr->valid) {
		err = axon_cmd_invalidate_mr(&adev->aq, mr->key);
		if (!axon_destroyed(adev, err))
			ibdev_err_ratelimited(&adev->ibdev,
					      "invalidate mr 0x%x failed: %d, the device may still access the moved buffer\n",
					      mr->key, err);
		mr->valid = false;
	}
	ib_umem_dmabuf_unmap_pages(umem_dmabuf);
	if (mr && mr->live)
		queue_work(system_unbound_wq, &mr->remap_work);
}

static const struct dma_buf_attach_ops axon_dmabuf_attach_ops = {
	.allow_peer2peer = true,
	.move_notify = axon_dmabuf_move_notify,
};

/* After a move: map the buffer where it is now and give it to the MR. */
static void axon_dmabuf_remap_work(struct work_struct *work)
{
	struct axon_mr *mr = container_of(work, struct axon_mr, remap_work);
	struct ib_umem_dmabuf *umem_dmabuf = to_ib_umem_dmabuf(mr->umem);
	struct axon_dev *adev = to_adev(mr->umem->ibdev);
	struct axon_mr_params p = {};
	struct axon_pbl pbl;
	int err;

	dma_resv_lock(axon_mr_resv(mr), NULL);
	if (!mr->live || mr->valid)
		goto unlock;
	err = ib_umem_dmabuf_map_pages(umem_dmabuf);
	if (err)
		goto err_unmap;
	/* the umem's iova is the MR's, from registration */
	err = axon_pbl_build(adev, mr->umem, mr->umem->iova, &pbl, &p);
	if (err)
		goto err_unmap;
	err = axon_cmd_remap_mr(&adev->aq, mr->key, &p);
	axon_pbl_free(adev, &pbl, err == -ETIMEDOUT);
	if (err)
		goto err_unmap;
	mr->valid = true;
	goto unlock;

err_unmap:
	ibdev_err_ratelimited(&adev->ibdev,
			      "remap mr 0x%x failed: %d, it stays invalid\n",
			      mr->key, err);
	ib_umem_dmabuf_unmap_pages(umem_dmabuf);
unlock:
	dma_resv_unlock(axon_mr_resv(mr));
}

/*
 * Map (dynamic importer; a pinned one is mapped already) and CREATE_MR
 * under the resv lock: a move waits until the MR is live and valid.
 */
static int axon_dmabuf_mr_create(struct axon_dev *adev, struct axon_mr *mr,
				 struct ib_pd *ibpd, int access, u64 iova,
				 u64 length)
{
	struct ib_umem_dmabuf *umem_dmabuf = to_ib_umem_dmabuf(mr->umem);
	struct axon_mr_params p = {};
	struct axon_pbl pbl;
	int err;

	INIT_WORK(&mr->remap_work, axon_dmabuf_remap_work);
	dma_resv_lock(axon_mr_resv(mr), NULL);
	if (!umem_dmabuf->pinned) {
		err = ib_umem_dmabuf_map_pages(umem_dmabuf);
		if (err)
			goto unlock;
	}
	err = axon_pbl_build(adev, mr->umem, iova, &pbl, &p);
	if (err)
		goto unlock;
	err = axon_create_mr(adev, mr, ibpd, access, iova, length, &pbl, &p);
	if (err)
		goto unlock;
	mr->live = true;
	mr->valid = true;
	umem_dmabuf->private = mr;
unlock:
	dma_resv_unlock(axon_mr_resv(mr));
	return err;
}

/*
 * Installed with AXON_CAP_PEER_MR only (the core answers EOPNOTSUPP
 * without). No argument is checked before the dma-buf is looked up: fd -1
 * must fail with EBADF whatever else is passed (NCCL and UCX probe so).
 */
struct ib_mr *axon_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
				      u64 length, u64 virt_addr, int fd,
				      int access, struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibpd->device);
	struct ib_umem_dmabuf *umem_dmabuf;
	struct axon_mr *mr;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	if (IS_ENABLED(CONFIG_DMABUF_MOVE_NOTIFY))
		umem_dmabuf = ib_umem_dmabuf_get(ibpd->device, offset, length,
						 fd, access,
						 &axon_dmabuf_attach_ops);
	else
		umem_dmabuf = ib_umem_dmabuf_get_pinned(ibpd->device, offset,
							length, fd, access);
	if (IS_ERR(umem_dmabuf)) {
		err = PTR_ERR(umem_dmabuf);
		ibdev_dbg(&adev->ibdev, "reg_dmabuf_mr: fd %d: %d\n", fd, err);
		goto err_free_mr;
	}
	mr->umem = &umem_dmabuf->umem;
	err = axon_check_mr_args(adev, offset, length, virt_addr, access,
				 udata);
	if (err)
		goto err_release_umem;
	err = axon_dmabuf_mr_create(adev, mr, ibpd, access, virt_addr, length);
	if (err == -ETIMEDOUT) {
		axon_umem_orphan(adev, mr->umem);
		goto err_free_mr;
	}
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
	struct axon_mr_params p = {};
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
	axon_pbl_params(&pbl, npages, pgsz, &p);
	err = axon_create_mr(adev, mr, ibpd, access, 0, length, &pbl, &p);
	if (err)
		goto err_free_mr;
	return &mr->ibmr;

err_free_mr:
	kfree(mr);
	ibdev_dbg(&adev->ibdev, "get_dma_mr failed: %d\n", err);
	return ERR_PTR(err);
}

/*
 * The pages one fast registration may have: the device's, within the
 * contract's; 0 without AXON_CAP_FAST_REG.
 */
u32 axon_fr_max_pages(struct axon_dev *adev)
{
	if (!adev->fast_reg)
		return 0;
	return min_t(u32, le32_to_cpu(adev->attr.max_fast_reg_pages),
		     AXON_FAST_REG_MAX_PAGES);
}

static size_t axon_fr_list_size(const struct axon_fr_pages *fr)
{
	return (size_t)fr->capacity * sizeof(*fr->list);
}

/* Give a fast-registration MR's page list back, if it has one. */
static void axon_fr_free(struct axon_dev *adev, struct axon_fr_pages *fr,
			 bool orphan)
{
	if (fr->list)
		axon_admin_coherent_free(&adev->aq, fr->list, fr->dma,
					 axon_fr_list_size(fr), orphan);
}

/*
 * A fast-registration MR (IB_MR_TYPE_MEM_REG) for up to @max_num_sg pages:
 * the device's, invalid until a REG_MR WQE gives it pages, and the page
 * list the WQE names. SG_GAPS and integrity MRs are EOPNOTSUPP.
 */
struct ib_mr *axon_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type mr_type,
			    u32 max_num_sg)
{
	struct axon_dev *adev = to_adev(ibpd->device);
	struct axon_mr_params p = {};
	struct axon_mr *mr;
	int err;

	if (mr_type != IB_MR_TYPE_MEM_REG) {
		err = -EOPNOTSUPP;
		goto err_out;
	}
	if (!max_num_sg || max_num_sg > axon_fr_max_pages(adev)) {
		err = -EINVAL;
		goto err_out;
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		err = -ENOMEM;
		goto err_out;
	}
	mr->fr.capacity = max_num_sg;
	mr->fr.list = dma_alloc_coherent(&adev->pdev->dev,
					 axon_fr_list_size(&mr->fr),
					 &mr->fr.dma, GFP_KERNEL);
	if (!mr->fr.list) {
		err = -ENOMEM;
		goto err_free_mr;
	}
	p.pdn = to_apd(ibpd)->pdn;
	p.npages = max_num_sg;
	p.flags = AXON_MR_FAST_REG;
	/* the device reads no page list in CREATE_MR of such an MR */
	err = axon_cmd_create_mr(&adev->aq, &p, &mr->key);
	if (err)
		goto err_free_list;
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	return &mr->ibmr;

err_free_list:
	axon_fr_free(adev, &mr->fr, false);
err_free_mr:
	kfree(mr);
err_out:
	ibdev_dbg(&adev->ibdev, "alloc_mr (type %d, %u pages) failed: %d\n",
		  mr_type, max_num_sg, err);
	return ERR_PTR(err);
}

static int axon_fr_set_page_cb(struct ib_mr *ibmr, u64 addr)
{
	return axon_fr_set_page(&to_amr(ibmr)->fr, addr);
}

/*
 * The pages of @sg, in pages of ibmr->page_size (which ib_map_mr_sg()
 * set), into the MR's list: the number of @sg entries mapped, which the
 * core makes the largest prefix that fits. REG_MR reads the list later.
 */
int axon_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset)
{
	struct axon_fr_pages *fr = &to_amr(ibmr)->fr;
	int shift = axon_fr_page_shift(ibmr->page_size);
	int n;

	if (shift < 0) {
		ibdev_dbg(ibmr->device, "map_mr_sg: page size %u\n",
			  ibmr->page_size);
		return shift;
	}
	fr->npages = 0;
	fr->page_shift = shift;
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, axon_fr_set_page_cb);
	fr->page_off = ibmr->iova & (ibmr->page_size - 1);
	return n;
}

/*
 * DESTROY_MR of a dma-buf MR, under the resv lock so that no move_notify
 * runs meanwhile; from then on neither it nor the remap work touches the
 * device's MR (see the top of this file). An MR the device may still use
 * keeps its attachment until the device is reset (axon_umem_orphan()):
 * move_notify must then not find it.
 */
static int axon_dmabuf_mr_destroy(struct axon_dev *adev, struct axon_mr *mr)
{
	bool valid;
	int err;

	dma_resv_lock(axon_mr_resv(mr), NULL);
	valid = mr->valid;
	mr->live = false;
	/* a move_notify before the umem detaches must not invalidate the key */
	mr->valid = false;
	err = axon_cmd_destroy_mr(&adev->aq, mr->key);
	if (err == -EBUSY) {
		/*
		 * not destroyed, and the user (dma-buf MRs are users') gets
		 * EBUSY: live as before, a queued remap still to run
		 */
		mr->live = true;
		mr->valid = valid;
		dma_resv_unlock(axon_mr_resv(mr));
		return err;
	}
	if (!axon_destroyed(adev, err))
		to_ib_umem_dmabuf(mr->umem)->private = NULL;
	dma_resv_unlock(axon_mr_resv(mr));
	cancel_work_sync(&mr->remap_work);
	return err;
}

/*
 * REREG_MR changes the MR in place, so its keys stay, as a peer holding
 * them expects. What the flags do not change stays: the range, or the
 * access. The pages are pinned anew for a new range, and when the access
 * becomes writable (a read-only pin may be a copy the process does not
 * see); the device lets go of the old ones when the command completes.
 * dma-buf, on-demand paging and fast-registration MRs are not
 * re-registered (nor is an MR made on-demand). The RDMA core
 * updates the PD, iova and length of the ib_mr.
 */
struct ib_mr *axon_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				 u64 length, u64 virt_addr, int access,
				 struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibmr->device);
	struct axon_mr *mr = to_amr(ibmr);
	struct axon_mr_params p = {};
	struct ib_umem *umem;
	struct axon_pbl pbl;
	int err;

	if (!mr->umem || mr->umem->is_dmabuf || mr->umem->is_odp)
		return ERR_PTR(-EOPNOTSUPP);
	if (!(flags & IB_MR_REREG_TRANS)) {
		start = mr->umem->address;
		length = mr->umem->length;
		virt_addr = ibmr->iova;
	}
	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;
	err = axon_check_mr_args(adev, start, length, virt_addr, access,
				 udata);
	if (err)
		return ERR_PTR(err);

	umem = mr->umem;
	if (flags & IB_MR_REREG_TRANS ||
	    (ib_access_writable(access) && !umem->writable)) {
		umem = ib_umem_get(ibpd->device, start, length, access);
		if (IS_ERR(umem))
			return ERR_CAST(umem);
	}
	err = axon_pbl_build(adev, umem, virt_addr, &pbl, &p);
	if (err)
		goto err_release_umem;
	p.pdn = to_apd(ibpd)->pdn;
	p.access = axon_mr_access(access);
	p.iova = virt_addr;
	p.length = length;
	err = axon_cmd_rereg_mr(&adev->aq, mr->key, &p);
	axon_pbl_free(adev, &pbl, err == -ETIMEDOUT);
	if (err)
		goto err_release_umem;
	if (umem != mr->umem) {
		ib_umem_release(mr->umem);
		mr->umem = umem;
	}
	mr->access = access;
	mr->page_shift = p.page_shift;
	mr->npages = p.npages;
	return NULL;

err_release_umem:
	if (umem != mr->umem && err == -ETIMEDOUT)
		axon_umem_orphan(adev, umem);
	else if (umem != mr->umem)
		ib_umem_release(umem);
	ibdev_dbg(&adev->ibdev, "rereg_mr 0x%x (flags 0x%x) failed: %d\n",
		  mr->key, flags, err);
	return ERR_PTR(err);
}

/*
 * EBUSY: the device did not destroy the MR (memory windows are bound to
 * it, or no command slot freed up) and it stays as it was. A user gets
 * that (ibv_dereg_mr(3)) and may try again; so does the core, which
 * retries a failed destroy while it tears a context down, once others
 * (the windows) are gone. Any other failure cannot be handled there: a
 * device error is logged and the MR is gone for the driver. Unless the
 * device destroyed the MR or is dead, it may still use the pages: they
 * stay pinned (or mapped, for a dma-buf) until the device is reset.
 */
int axon_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibmr->device);
	struct axon_mr *mr = to_amr(ibmr);
	bool destroyed;
	int err;

	/*
	 * The device names a fast-registration MR by its slot, so mr->key
	 * (the last REG_MR posted, which may have been flushed) will do.
	 */
	if (mr->umem && mr->umem->is_dmabuf)
		err = axon_dmabuf_mr_destroy(adev, mr);
	else if (mr->umem && mr->umem->is_odp)
		err = axon_odp_mr_destroy(adev, mr);
	else
		err = axon_cmd_destroy_mr(&adev->aq, mr->key);
	if (err == -EBUSY && udata) {
		ibdev_dbg(&adev->ibdev, "dereg_mr 0x%x: busy\n", mr->key);
		return err;
	}
	if (err)
		ibdev_err_ratelimited(&adev->ibdev,
				      "destroy mr 0x%x failed: %d\n", mr->key,
				      err);
	destroyed = axon_destroyed(adev, err);
	/*
	 * An ODP umem cannot be left behind: its MMU notifier would call
	 * into a freed MR. Its release unmaps every page from DMA.
	 */
	if (destroyed || (mr->umem && mr->umem->is_odp)) {
		ib_umem_release(mr->umem);
	} else if (mr->umem) {
		ibdev_err_ratelimited(&adev->ibdev,
				      "mr 0x%x: pages kept until the device is reset, it may still use them\n",
				      mr->key);
		axon_umem_orphan(adev, mr->umem);
	}
	/* a REG_MR the device has not executed yet would read it */
	axon_fr_free(adev, &mr->fr, !destroyed);
	kfree(mr);
	return 0;
}
