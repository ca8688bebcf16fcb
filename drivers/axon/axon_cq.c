// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon completion queues. A CQ is a ring of depth CQEs followed by the
 * consumer index record, in kernel memory the device writes. A user CQ's
 * memory is mapped into the process, which polls it and arms it through
 * its doorbell page; a kernel CQ is polled here and armed through page 0.
 * Resizing moves a CQ to a new ring, its CQE indices carrying on there.
 */

#include <linux/slab.h>
#include <rdma/uverbs_ioctl.h>

#include "axon.h"
#include "axon_cmds.h"
#include "axon_cqe.h"
#include "axon_pbl.h"
#include "axon_udata.h"

static struct axon_cq_dbrec *axon_cq_dbrec(struct axon_cq *cq)
{
	return cq->mem.va + (size_t)cq->depth * AXON_CQ_CQE_SIZE(cq->flags);
}

/*
 * No CQE will come any more (the device failed or is going away): say so
 * in the consumer index record, which a process polling the ring reads
 * (the device never does).
 */
static void axon_cq_mark_dead(struct axon_cq *cq)
{
	struct axon_cq_dbrec *dbrec = axon_cq_dbrec(cq);

	WRITE_ONCE(dbrec->flags, cpu_to_le32(AXON_CQ_DBREC_DEAD));
}

/*
 * Memory for a ring of @depth CQEs of the size @flags give and its
 * record, and how the device is to find it (@p): a user CQ's in pages
 * when the device takes page lists (@pbl, which the caller frees after
 * the command), else contiguous.
 */
static int axon_cq_ring_alloc(struct axon_dev *adev, struct axon_qmem *mem,
			      struct axon_pbl *pbl,
			      struct axon_cq_ring_params *p, u32 depth,
			      u8 flags, bool user)
{
	size_t size = (size_t)depth * AXON_CQ_CQE_SIZE(flags) +
		      sizeof(struct axon_cq_dbrec);
	size_t n = DIV_ROUND_UP(size, SZ_4K), per = PAGE_SIZE / SZ_4K, i;
	int err;

	memset(pbl, 0, sizeof(*pbl));
	memset(p, 0, sizeof(*p));
	p->depth = depth;
	p->flags = flags;
	if (!user || !adev->cq_pages) {
		err = axon_qmem_alloc(adev, mem, size, user);
		p->addr = mem->dma;
		return err;
	}
	err = axon_qmem_alloc_paged(adev, mem, size);
	if (err)
		return err;
	err = axon_pbl_alloc(adev, pbl, n);
	if (err) {
		axon_qmem_free(adev, mem);
		return err;
	}
	for (i = 0; i < n; i++)
		pbl->leaves[i / AXON_PBL_LEAF_ENTRIES][i % AXON_PBL_LEAF_ENTRIES] =
			cpu_to_le64(mem->page_dma[i / per] + (i % per) * SZ_4K);
	p->addr = axon_pbl_addr(pbl);
	p->npages = n;
	p->levels = pbl->levels;
	return 0;
}

static bool axon_dev_dead(struct axon_dev *adev)
{
	return READ_ONCE(adev->dying) || READ_ONCE(adev->aq.failed);
}

/*
 * Mark every CQ dead. A CQ created meanwhile is marked by
 * axon_create_cq(): both sides order the flags against the table through
 * its lock.
 */
void axon_cqs_mark_dead(struct axon_dev *adev)
{
	struct axon_cq *cq;
	unsigned long cqn;

	xa_lock(&adev->cqs);
	xa_for_each(&adev->cqs, cqn, cq)
		axon_cq_mark_dead(cq);
	xa_unlock(&adev->cqs);
}

static int axon_create_cq_user(struct axon_dev *adev, struct axon_cq *cq,
			       struct ib_udata *udata)
{
	struct axon_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct axon_ucontext,
					  ibucontext);
	struct axon_create_cq_resp resp = {};
	int err;

	err = axon_qmem_expose(uctx, &cq->mem, &resp.cq_mmap_key);
	if (err)
		return err;
	resp.cqn = cq->cqn;
	resp.depth = cq->depth;
	resp.cqe_size = AXON_CQ_CQE_SIZE(cq->flags);
	resp.cq_size = cq->mem.size;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

int axon_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibcq->device);
	struct axon_cq *cq = to_acq(ibcq);
	struct axon_cq_ring_params ring;
	struct axon_pbl pbl;
	u32 uar = 0;
	int err;

	/* one completion event per CQ must fit the CEQ (io_eq_size) */
	if (atomic_inc_return(&adev->ncqs) > adev->max_cq) {
		atomic_dec(&adev->ncqs);
		return -ENOMEM;
	}
	/* timestamps for user CQs only: struct ib_wc has no room for one */
	if (attr->flags & ~IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION ||
	    (attr->flags && (!udata || !adev->clock))) {
		err = -EOPNOTSUPP;
		goto err_out;
	}
	cq->flags = attr->flags ? AXON_CQ_TIMESTAMP : 0;
	if (attr->comp_vector >= ibcq->device->num_comp_vectors) {
		err = -EINVAL;
		goto err_out;
	}
	if (udata) {
		size_t resp_size = sizeof(struct axon_create_cq_resp);
		bool in_zero = !udata->inlen ||
			       ib_is_udata_cleared(udata, 0, udata->inlen);

		err = axon_check_resp_only_udata(in_zero, udata->outlen,
						 resp_size);
		if (err)
			goto err_out;
		uar = rdma_udata_to_drv_context(udata, struct axon_ucontext,
						ibucontext)->uar;
	}
	err = axon_cq_depth(attr->cqe, le32_to_cpu(adev->attr.max_cqe),
			    &cq->depth);
	if (err)
		goto err_out;

	spin_lock_init(&cq->lock);
	mutex_init(&cq->resize_mutex);
	cq->cons = 0;
	err = axon_cq_ring_alloc(adev, &cq->mem, &pbl, &ring, cq->depth,
				 cq->flags, !!udata);
	if (err)
		goto err_out;
	err = axon_cmd_create_cq(&adev->aq, &ring, uar, &cq->cqn);
	axon_pbl_free(adev, &pbl, err == -ETIMEDOUT);
	if (err == -ETIMEDOUT)
		goto err_out;	/* the device may have made the CQ on the ring */
	if (err)
		goto err_free_mem;
	err = xa_insert(&adev->cqs, cq->cqn, cq, GFP_KERNEL);
	if (err) {
		/* the device handed out a cqn that is in use */
		if (err == -EBUSY)
			err = -EIO;
		goto err_destroy_cq;
	}
	if (axon_dev_dead(adev))
		axon_cq_mark_dead(cq);
	if (udata) {
		err = axon_create_cq_user(adev, cq, udata);
		if (err)
			goto err_erase;
	}
	ibcq->cqe = cq->depth;
	return 0;

err_erase:
	xa_erase(&adev->cqs, cq->cqn);
	axon_sync_events(adev);
err_destroy_cq:
	if (!axon_destroyed(adev, axon_cmd_destroy_cq(&adev->aq, cq->cqn)))
		goto err_out;	/* the device may still write the ring */
err_free_mem:
	axon_qmem_free(adev, &cq->mem);
err_out:
	atomic_dec(&adev->ncqs);
	ibdev_dbg(&adev->ibdev, "create_cq (%d entries) failed: %d\n",
		  attr->cqe, err);
	return err;
}

/*
 * Leave the event handlers' table first, so that the cqn is free for the
 * next CQ the moment the device releases it. Unless the device destroyed
 * the CQ or is dead, it may still write the ring: it is leaked then.
 */
int axon_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibcq->device);
	struct axon_cq *cq = to_acq(ibcq);
	int err;

	xa_erase(&adev->cqs, cq->cqn);
	axon_sync_events(adev);
	err = axon_cmd_destroy_cq(&adev->aq, cq->cqn);
	if (err)
		ibdev_err_ratelimited(&adev->ibdev,
				      "destroy cq %u failed: %d\n", cq->cqn,
				      err);
	mutex_destroy(&cq->resize_mutex);
	if (axon_destroyed(adev, err))
		axon_qmem_free(adev, &cq->mem);
	else
		ibdev_err_ratelimited(&adev->ibdev,
				      "cq %u: ring leaked, the device may still write it\n",
				      cq->cqn);
	atomic_dec(&adev->ncqs);
	return 0;
}

static int axon_resize_cq_check_udata(struct ib_udata *udata)
{
	bool in_zero = !udata->inlen ||
		       ib_is_udata_cleared(udata, 0, udata->inlen);

	return axon_check_resp_only_udata(in_zero, udata->outlen,
					  sizeof(struct axon_resize_cq_resp));
}

/*
 * Put the CQ on the ring the device now writes. A kernel CQ polled on the
 * old ring meanwhile finds those CQEs at the same indices in the new one:
 * it carries on at its own index there, which it publishes in the new
 * record (the device copied the index it saw, which may be behind).
 */
static void axon_cq_switch_ring(struct axon_dev *adev, struct axon_cq *cq,
				struct axon_qmem *mem, u32 depth)
{
	struct axon_qmem old;
	unsigned long flags;

	xa_lock(&adev->cqs);		/* against axon_cqs_mark_dead() */
	spin_lock_irqsave(&cq->lock, flags);
	old = cq->mem;
	cq->mem = *mem;
	cq->depth = depth;
	if (!cq->mem.user)
		WRITE_ONCE(axon_cq_dbrec(cq)->cons_index,
			   cpu_to_le32(cq->cons));
	if (axon_dev_dead(adev))
		axon_cq_mark_dead(cq);
	spin_unlock_irqrestore(&cq->lock, flags);
	xa_unlock(&adev->cqs);
	axon_qmem_free(adev, &old);
}

/*
 * RESIZE_CQ moves the CQ to a new ring at once, the CQEs not consumed yet
 * with it; it fails with -EINVAL when more of them wait than @cqe. A user
 * CQ's process maps the new ring (struct axon_resize_cq_resp) while it
 * holds its CQ lock.
 */
int axon_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibcq->device);
	struct axon_cq *cq = to_acq(ibcq);
	struct axon_resize_cq_resp resp = {};
	struct axon_cq_ring_params ring;
	struct axon_ucontext *uctx;
	struct axon_qmem mem;
	struct axon_pbl pbl;
	u32 depth;
	int err;

	err = udata ? axon_resize_cq_check_udata(udata) : 0;
	if (!err)
		err = axon_cq_depth(cqe, le32_to_cpu(adev->attr.max_cqe),
				    &depth);
	if (err)
		goto err_out;

	mutex_lock(&cq->resize_mutex);
	err = axon_cq_ring_alloc(adev, &mem, &pbl, &ring, depth, cq->flags,
				 !!udata);
	if (err)
		goto err_unlock;
	if (udata) {
		uctx = rdma_udata_to_drv_context(udata, struct axon_ucontext,
						 ibucontext);
		err = axon_qmem_expose(uctx, &mem, &resp.cq_mmap_key);
		if (err)
			goto err_free_pbl;
	}
	err = axon_cmd_resize_cq(&adev->aq, cq->cqn, &ring);
	axon_pbl_free(adev, &pbl, err == -ETIMEDOUT);
	if (err == -ETIMEDOUT) {
		/* the device may still take the new ring: it is leaked */
		ibdev_err_ratelimited(&adev->ibdev,
				      "cq %u: resize timed out, new ring leaked\n",
				      cq->cqn);
		goto err_unlock;
	}
	if (err)
		goto err_free_mem;
	axon_cq_switch_ring(adev, cq, &mem, depth);
	ibcq->cqe = depth;
	mutex_unlock(&cq->resize_mutex);
	if (!udata)
		return 0;
	resp.depth = depth;
	resp.cq_size = mem.size;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));

err_free_pbl:
	axon_pbl_free(adev, &pbl, false);
err_free_mem:
	axon_qmem_free(adev, &mem);
err_unlock:
	mutex_unlock(&cq->resize_mutex);
err_out:
	ibdev_dbg(&adev->ibdev, "resize_cq %u to %d entries failed: %d\n",
		  cq->cqn, cqe, err);
	return err;
}

/* The CQE at the consumer index if the device has written it. */
static struct axon_cqe *axon_cq_peek(struct axon_cq *cq)
{
	return axon_cqe_at(cq->mem.va, cq->depth, cq->cons);
}

/* Fill @wc from @cqe; false to drop it: its QP is gone or it is bogus. */
static bool axon_cq_complete(struct axon_dev *adev, struct axon_cqe *cqe,
			     struct ib_wc *wc)
{
	struct axon_qp *qp;

	if (axon_cqe_to_wc(cqe, wc))
		dev_warn_ratelimited(&adev->pdev->dev,
				     "bad CQE: opcode %u status %u flags 0x%x\n",
				     cqe->opcode, cqe->status, cqe->flags);
	qp = xa_load(&adev->qps, le32_to_cpu(cqe->qpn));
	if (!qp)
		return false;
	wc->qp = &qp->ibqp;
	return axon_qp_completed(qp, cqe->flags & AXON_CQE_RECV,
				 le16_to_cpu(cqe->wqe_index));
}

int axon_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct axon_dev *adev = to_adev(ibcq->device);
	struct axon_cq *cq = to_acq(ibcq);
	struct axon_cqe *cqe;
	unsigned long flags;
	u32 start;
	int n = 0;

	spin_lock_irqsave(&cq->lock, flags);
	start = cq->cons;
	while (n < num_entries) {
		cqe = axon_cq_peek(cq);
		if (!cqe)
			break;
		if (axon_cq_complete(adev, cqe, &wc[n]))
			n++;
		cq->cons++;
	}
	if (cq->cons != start) {
		/* the entries are read before the device may reuse them */
		dma_mb();
		WRITE_ONCE(axon_cq_dbrec(cq)->cons_index,
			   cpu_to_le32(cq->cons));
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int axon_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct axon_dev *adev = to_adev(ibcq->device);
	struct axon_cq *cq = to_acq(ibcq);
	unsigned long irqflags;
	bool pending;

	axon_ring_db(adev, AXON_DB_CQ_ARM, cq->cqn,
		     (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
		     AXON_CQ_ARM_SOLICITED : AXON_CQ_ARM_NEXT);
	if (!(flags & IB_CQ_REPORT_MISSED_EVENTS))
		return 0;
	spin_lock_irqsave(&cq->lock, irqflags);
	pending = axon_cq_peek(cq);
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return pending;
}

/* AXON_EVENT_CQ_ERROR: the CQ overflowed. */
void axon_cq_event(struct axon_dev *adev, u32 cqn)
{
	struct axon_cq *cq = xa_load(&adev->cqs, cqn);
	struct ib_event event = {
		.device = &adev->ibdev,
		.event = IB_EVENT_CQ_ERR,
	};

	if (!cq) {
		dev_dbg(&adev->pdev->dev, "event for unknown cq %u\n", cqn);
		return;
	}
	dev_warn_ratelimited(&adev->pdev->dev, "cq %u overflowed\n", cqn);
	event.element.cq = &cq->ibcq;
	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&event, cq->ibcq.cq_context);
}

/* AXON_EVENT_COMPLETION, from the hard interrupt. */
void axon_cq_comp_event(struct axon_dev *adev, u32 cqn)
{
	struct axon_cq *cq = xa_load(&adev->cqs, cqn);

	if (cq && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}
