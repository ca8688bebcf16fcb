// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon on-demand paging (AXON_CAP_ODP, "On-demand paging" in
 * axon_admin_cmds_defs.h), built with CONFIG_INFINIBAND_ON_DEMAND_PAGING.
 * An ODP MR is a device MR with AXON_MR_ODP over an ib_umem_odp: nothing
 * is pinned, and every page starts absent on the device.
 *
 * - Page faults: a QP that needs an absent page waits, and the device
 *   posts AXON_EVENT_PAGE_FAULT, at most one per QP until RESUME_QP. The
 *   async event handler stores the event in the QP and queues the QP's
 *   work on axon_odp_wq; the work finds the MR by key, faults exactly the
 *   pages asked for into the process and maps them for DMA
 *   (ib_umem_odp_map_dma_and_lock()), gives them to the device
 *   (MAP_PAGES) with the umem's mutex held, and sends RESUME_QP: OK, or
 *   FAILED when anything failed (an unknown key, an address the process
 *   has no memory at), after which the QP's access fails as one out of
 *   bounds does.
 * - Invalidation: the MMU notifier, with the umem's mutex held, takes the
 *   pages the device has in the range back (UNMAP_PAGES), then unmaps
 *   them for DMA. Mapping and unmapping both hold the mutex, so the
 *   device has a page only while the umem's dma_list holds it.
 * - Prefetch: advise_mr maps ranges the way faults do, synchronously.
 *
 * Lifetime: odp_mutex guards adev->odp_mrs, and a fault or a prefetch
 * holds it from the lookup until MAP_PAGES completed. Dereg removes the
 * key under it first, so that no fault or prefetch uses the MR after;
 * then DESTROY_MR; then ib_umem_release(), which waits for notifier calls
 * in progress and unmaps what is left. A QP's destroy cancels its work
 * after DESTROY_QP (a work already running may send RESUME_QP for a QP the
 * device no longer knows: BAD_HANDLE, harmless). One mutex for every
 * fault of the device: the model serves them one at a time anyway.
 *
 * Lock order: odp_mutex, the process's mmap lock (hmm_range_fault()),
 * then a umem's umem_mutex; the notifier takes umem_mutex alone. Nothing
 * is allocated under umem_mutex: reclaim may invalidate the same umem.
 */

#include <linux/mmu_notifier.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_umem_odp.h>

#include "axon.h"
#include "axon_cmds.h"
#include "axon_odp.h"
#include "axon_odp_attr.h"
#include "axon_pbl.h"

/* The pages one MAP_PAGES of a prefetch gives at most: 16 leaves. */
#define AXON_ODP_MAP_CHUNK	(16 * AXON_PBL_LEAF_ENTRIES)

/* Page faults are handled here, apart from the module's axon_wq. */
static struct workqueue_struct *axon_odp_wq;

static void axon_odp_count(struct axon_dev *adev, enum axon_odp_stat stat,
			   u64 n)
{
	atomic64_add(n, &adev->odp_stats[stat]);
}

static struct ib_umem_odp *axon_mr_odp(struct axon_mr *mr)
{
	return to_ib_umem_odp(mr->umem);
}

/* The ODP MR whose key is @key (the whole key, tag too), or NULL. */
static struct axon_mr *axon_odp_find(struct axon_dev *adev, u32 key)
{
	struct axon_mr *mr;

	lockdep_assert_held(&adev->odp_mutex);
	mr = xa_load(&adev->odp_mrs, AXON_KEY_GET_INDEX(key));
	return mr && mr->key == key ? mr : NULL;
}

/*
 * Pages [@first, @first + @count) of @mr: faulted in if @fault (else only
 * those the process has in its page tables), mapped for DMA with @access
 * (ODP_*_ALLOWED_BIT), then given to the device, absent ones as absent.
 * odp_mutex held, so that the MR stays.
 */
static int axon_odp_map(struct axon_dev *adev, struct axon_mr *mr, u32 first,
			u32 count, u64 access, bool fault)
{
	struct ib_umem_odp *odp = axon_mr_odp(mr);
	unsigned int shift = odp->page_shift;
	struct axon_pbl pbl;
	__le64 *entry;
	int ret, err;
	u32 i;

	lockdep_assert_held(&adev->odp_mutex);
	err = axon_pbl_alloc(adev, &pbl, count);
	if (err)
		return err;
	ret = ib_umem_odp_map_dma_and_lock(odp, ib_umem_start(odp) +
					   ((u64)first << shift),
					   (u64)count << shift, access, fault);
	if (ret < 0) {
		err = ret;
		goto free_pbl;
	}
	for (i = 0; i < count && !err; i++) {
		entry = &pbl.leaves[i / AXON_PBL_LEAF_ENTRIES]
				   [i % AXON_PBL_LEAF_ENTRIES];
		err = axon_odp_entry(odp->dma_list[first + i], shift, entry);
	}
	if (!err)
		err = axon_cmd_odp_pages(&adev->aq, AXON_ADMIN_MAP_PAGES,
					 mr->key, first, count,
					 axon_pbl_addr(&pbl), pbl.levels);
	mutex_unlock(&odp->umem_mutex);
free_pbl:
	axon_pbl_free(adev, &pbl, err == -ETIMEDOUT);
	return err;
}

/*
 * A QP's page fault: the pages it asked for mapped, then RESUME_QP. The
 * device sends no other fault for the QP before RESUME_QP, so the event
 * stored in the QP is this one.
 */
static void axon_odp_fault_work(struct work_struct *work)
{
	struct axon_qp *qp = container_of(work, struct axon_qp, odp_work);
	struct axon_dev *adev = to_adev(qp->ibqp.device);
	u64 data = READ_ONCE(qp->odp_fault);
	u8 status = AXON_ODP_RESUME_FAILED;
	struct axon_odp_fault f = {};
	struct axon_mr *mr;
	u64 access;
	int err;

	axon_odp_count(adev, AXON_ODP_FAULTS, 1);
	mutex_lock(&adev->odp_mutex);
	mr = axon_odp_find(adev, AXON_FAULT_GET_KEY(data));
	err = mr ? axon_odp_fault_decode(data, mr->npages, &f) : -ENOENT;
	if (!err) {
		access = ODP_READ_ALLOWED_BIT;
		if (mr->umem->writable)
			access |= ODP_WRITE_ALLOWED_BIT;
		err = axon_odp_map(adev, mr, f.first, f.count, access, true);
	}
	mutex_unlock(&adev->odp_mutex);
	if (!err) {
		status = AXON_ODP_RESUME_OK;
		axon_odp_count(adev, AXON_ODP_FAULT_PAGES, f.count);
	} else {
		axon_odp_count(adev, AXON_ODP_FAILED_FAULTS, 1);
		ibdev_dbg(&adev->ibdev,
			  "qp %u: page fault 0x%llx (key 0x%x) not mapped: %d\n",
			  qp->qpn, data, AXON_FAULT_GET_KEY(data), err);
	}
	err = axon_cmd_resume_qp(&adev->aq, qp->qpn, status);
	/* BAD_HANDLE: the QP is being destroyed */
	if (err && err != -EINVAL && !axon_destroyed(adev, err))
		ibdev_err_ratelimited(&adev->ibdev,
				      "resume qp %u failed: %d, it may wait forever\n",
				      qp->qpn, err);
}

/* From the async event handler: queue the QP's fault work. */
void axon_odp_fault_event(struct axon_dev *adev, u32 qpn, u64 data)
{
	struct axon_qp *qp = xa_load(&adev->qps, qpn);

	if (!qp) {
		dev_dbg(&adev->pdev->dev, "page fault for unknown qp %u\n",
			qpn);
		return;
	}
	WRITE_ONCE(qp->odp_fault, data);
	if (!queue_work(axon_odp_wq, &qp->odp_work))
		dev_warn_ratelimited(&adev->pdev->dev,
				     "qp %u: page fault while one is pending\n",
				     qpn);
}

void axon_odp_qp_init(struct axon_qp *qp)
{
	INIT_WORK(&qp->odp_work, axon_odp_fault_work);
}

/* After DESTROY_QP: no fault of the QP is handled any more. */
void axon_odp_qp_flush(struct axon_qp *qp)
{
	cancel_work_sync(&qp->odp_work);
}

/*
 * The memory manager takes [range->start, range->end) away: the device
 * gives back the pages of it that it has, then they are unmapped for DMA.
 * Only blocking calls can wait for the device; a non-blocking one (the
 * OOM reaper) is told to try again later.
 */
static bool axon_odp_invalidate(struct mmu_interval_notifier *mni,
				const struct mmu_notifier_range *range,
				unsigned long cur_seq)
{
	struct ib_umem_odp *odp = container_of(mni, struct ib_umem_odp,
					       notifier);
	struct axon_dev *adev = to_adev(odp->umem.ibdev);
	struct axon_mr *mr = odp->private;
	unsigned int shift = odp->page_shift;
	u32 first, count, lo = 0, hi = 0, i;
	bool mapped = false;
	int err;

	if (!mmu_notifier_range_blockable(range))
		return false;
	mutex_lock(&odp->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	if (!axon_odp_span(ib_umem_start(odp), ib_umem_end(odp), shift,
			   range->start, range->end, &first, &count))
		goto unlock;
	for (i = first; i < first + count; i++) {
		if (!odp->dma_list[i])
			continue;
		if (!mapped)
			lo = i;
		hi = i;
		mapped = true;
	}
	/* nothing mapped, nothing given to the device (mr is set by then) */
	if (!mapped || !mr)
		goto unlock;
	err = axon_cmd_odp_pages(&adev->aq, AXON_ADMIN_UNMAP_PAGES, mr->key,
				 lo, hi - lo + 1, 0, 0);
	/* BAD_HANDLE: dereg destroyed the MR already; the device has nothing */
	if (err && err != -EINVAL && !axon_destroyed(adev, err))
		ibdev_err_ratelimited(&adev->ibdev,
				      "unmap pages %u..%u of mr 0x%x failed: %d, the device may still use them\n",
				      lo, hi, mr->key, err);
	ib_umem_odp_unmap_dma_pages(odp, ib_umem_start(odp) + ((u64)lo << shift),
				    ib_umem_start(odp) +
				    ((u64)(hi + 1) << shift));
	axon_odp_count(adev, AXON_ODP_INVALIDATIONS, 1);
unlock:
	mutex_unlock(&odp->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops axon_odp_mni_ops = {
	.invalidate = axon_odp_invalidate,
};

/*
 * reg_user_mr with IB_ACCESS_ON_DEMAND: an explicit ODP MR over [start,
 * start + length), all its pages absent. Implicit ODP (start 0, length
 * U64_MAX: the whole address space) is EOPNOTSUPP, as are memory
 * windows on ODP MRs. IB_ACCESS_HUGETLB makes the MR's pages huge pages
 * (the umem's page_shift), which the device must support.
 */
struct ib_mr *axon_odp_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				   u64 virt_addr, int access,
				   struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibpd->device);
	struct axon_mr_params p = {};
	struct ib_umem_odp *odp;
	struct axon_mr *mr;
	size_t npages;
	int err;

	if (!adev->odp || (!start && length == U64_MAX) ||
	    access & IB_ACCESS_MW_BIND) {
		err = -EOPNOTSUPP;
		goto err_out;
	}
	err = axon_check_mr_args(adev, start, length, virt_addr,
				 access & ~(IB_ACCESS_ON_DEMAND |
					    IB_ACCESS_HUGETLB), udata);
	if (err)
		goto err_out;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		err = -ENOMEM;
		goto err_out;
	}
	odp = ib_umem_odp_get(ibpd->device, start, length, access,
			      &axon_odp_mni_ops);
	if (IS_ERR(odp)) {
		err = PTR_ERR(odp);
		goto err_free_mr;
	}
	mr->umem = &odp->umem;
	npages = ib_umem_odp_num_pages(odp);
	/* the device indexes the pages from the one holding the iova */
	if (!(axon_mr_pgsz_bitmap(adev) & BIT_ULL(odp->page_shift)) ||
	    npages > AXON_MR_MAX_PAGES ||
	    (start ^ virt_addr) & (BIT_ULL(odp->page_shift) - 1)) {
		err = -EINVAL;
		goto err_release_umem;
	}
	/* before the device has any page: the notifier finds the MR */
	odp->private = mr;
	p.pdn = to_apd(ibpd)->pdn;
	p.access = axon_mr_access(access);
	p.iova = virt_addr;
	p.length = length;
	p.npages = npages;
	p.page_shift = odp->page_shift;
	p.flags = AXON_MR_ODP;
	err = axon_cmd_create_mr(&adev->aq, &p, &mr->key);
	if (err)
		goto err_release_umem;
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	mr->page_shift = p.page_shift;
	mr->npages = p.npages;
	mr->access = access;
	mutex_lock(&adev->odp_mutex);
	err = xa_insert(&adev->odp_mrs, AXON_KEY_GET_INDEX(mr->key), mr,
			GFP_KERNEL);
	mutex_unlock(&adev->odp_mutex);
	if (err) {
		/* the device handed out a key index that is in use */
		if (err == -EBUSY)
			err = -EIO;
		goto err_destroy_mr;
	}
	return &mr->ibmr;

err_destroy_mr:
	if (!axon_destroyed(adev, axon_cmd_destroy_mr(&adev->aq, mr->key)))
		ibdev_err_ratelimited(&adev->ibdev,
				      "destroy mr 0x%x failed, its pages unmapped anyway\n",
				      mr->key);
err_release_umem:
	ib_umem_release(mr->umem);
err_free_mr:
	kfree(mr);
err_out:
	ibdev_dbg(&adev->ibdev,
		  "reg_mr on demand 0x%llx+0x%llx (access 0x%x) failed: %d\n",
		  start, length, access, err);
	return ERR_PTR(err);
}

/*
 * DESTROY_MR of an ODP MR: its key forgotten first, so that no fault or
 * prefetch uses it from then on (one in progress finishes first). If the
 * device refuses (EBUSY: windows bound), the MR stays as it was.
 */
int axon_odp_mr_destroy(struct axon_dev *adev, struct axon_mr *mr)
{
	unsigned long index = AXON_KEY_GET_INDEX(mr->key);
	int err;

	mutex_lock(&adev->odp_mutex);
	xa_erase(&adev->odp_mrs, index);
	mutex_unlock(&adev->odp_mutex);
	err = axon_cmd_destroy_mr(&adev->aq, mr->key);
	if (err == -EBUSY) {
		mutex_lock(&adev->odp_mutex);
		if (xa_err(xa_store(&adev->odp_mrs, index, mr, GFP_KERNEL)))
			ibdev_err_ratelimited(&adev->ibdev,
					      "mr 0x%x: kept, but its page faults will fail\n",
					      mr->key);
		mutex_unlock(&adev->odp_mutex);
	}
	return err;
}

/*
 * One advise_mr range: its MR must be an ODP MR of @pd (EINVAL), writable
 * for PREFETCH_WRITE (EPERM), the range inside it (EFAULT). PREFETCH
 * maps the pages readable, PREFETCH_WRITE writable, both faulting them
 * in; PREFETCH_NO_FAULT maps only those the process has in its page
 * tables, as they are there.
 */
static int axon_odp_advise_sge(struct axon_dev *adev, struct ib_pd *pd,
			       enum ib_uverbs_advise_mr_advice advice,
			       const struct ib_sge *sge)
{
	bool fault = advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT;
	u64 access = ODP_READ_ALLOWED_BIT;
	struct axon_mr *mr;
	u32 first, count, n;
	int err;

	mutex_lock(&adev->odp_mutex);
	mr = axon_odp_find(adev, sge->lkey);
	if (!mr || mr->ibmr.pd != pd) {
		err = -EINVAL;
		goto unlock;
	}
	if (advice == IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE) {
		if (!mr->umem->writable) {
			err = -EPERM;
			goto unlock;
		}
		access |= ODP_WRITE_ALLOWED_BIT;
	}
	err = axon_odp_range_pages(mr->ibmr.iova, mr->ibmr.length,
				   mr->page_shift, sge->addr, sge->length,
				   &first, &count);
	while (!err && count) {
		n = min_t(u32, count, AXON_ODP_MAP_CHUNK);
		err = axon_odp_map(adev, mr, first, n, access, fault);
		first += n;
		count -= n;
	}
unlock:
	mutex_unlock(&adev->odp_mutex);
	return err;
}

/*
 * ibv_advise_mr(): prefetch ranges of ODP MRs. Always synchronous: the
 * device has the pages when the call returns, with or without
 * IB_UVERBS_ADVISE_MR_FLAG_FLUSH.
 */
static int axon_advise_mr(struct ib_pd *pd,
			  enum ib_uverbs_advise_mr_advice advice, u32 flags,
			  struct ib_sge *sg_list, u32 num_sge,
			  struct uverbs_attr_bundle *attrs)
{
	struct axon_dev *adev = to_adev(pd->device);
	int err = 0;
	u32 i;

	switch (advice) {
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH:
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE:
	case IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT:
		break;
	default:
		err = -EOPNOTSUPP;
		goto out;
	}
	if (flags & ~IB_UVERBS_ADVISE_MR_FLAG_FLUSH) {
		err = -EINVAL;
		goto out;
	}
	for (i = 0; i < num_sge && !err; i++) {
		err = axon_odp_advise_sge(adev, pd, advice, &sg_list[i]);
		if (!err)
			axon_odp_count(adev, AXON_ODP_PREFETCHES, 1);
	}
out:
	if (err)
		ibdev_dbg(&adev->ibdev,
			  "advise_mr %d (flags 0x%x, %u ranges) failed: %d\n",
			  advice, flags, num_sge, err);
	return err;
}

static const struct ib_device_ops axon_odp_ops = {
	.advise_mr = axon_advise_mr,
};

void axon_odp_set_ops(struct axon_dev *adev)
{
	if (adev->odp)
		ib_set_device_ops(&adev->ibdev, &axon_odp_ops);
}

/* What ibv_query_device_ex() reports as odp_caps, and the core checks. */
void axon_odp_query_device(struct axon_dev *adev,
			   struct ib_device_attr *props)
{
	if (!adev->odp)
		return;
	props->kernel_cap_flags |= IBK_ON_DEMAND_PAGING;
	axon_odp_caps(&props->odp_caps);
}

int axon_odp_init(void)
{
	/* a waiting QP may hold up what memory reclaim waits for */
	axon_odp_wq = alloc_workqueue("axon_odp", WQ_UNBOUND | WQ_MEM_RECLAIM,
				      0);
	return axon_odp_wq ? 0 : -ENOMEM;
}

void axon_odp_exit(void)
{
	destroy_workqueue(axon_odp_wq);
}
