// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon shared receive queues. An SRQ is a ring of receive WQE slots in
 * kernel memory, like a QP's RQ; a user SRQ's ring is mapped into the
 * process, which posts and rings AXON_DB_SRQ itself. Its QPs take WQEs
 * in ring order and complete them in any order, so the slots are counted,
 * not indexed: one is free when fewer than depth WQEs are not completed
 * (the device copies a WQE when a QP takes it).
 *
 * Basic SRQs and, with AXON_CAP_XRC, XRC SRQs; no tag matching. An XRC
 * SRQ belongs to an XRC domain and serves that domain's target QPs (the
 * initiator names it by the number the core hands out as its srq_num);
 * its receive completions go to its own CQ. XRC SRQs are user SRQs only:
 * a CQE names the target QP, not the SRQ, so poll_cq could not tell which
 * SRQ's slot a kernel XRC SRQ's completion frees (no kernel ULP uses XRC).
 * The limit is armed with modify_srq(IB_SRQ_LIMIT); the device disarms it
 * when it fires.
 */

#include <linux/log2.h>
#include <rdma/uverbs_ioctl.h>

#include "axon.h"
#include "axon_cmds.h"
#include "axon_udata.h"
#include "axon_wqe.h"

static int axon_srq_geometry(struct axon_dev *adev,
			     const struct ib_srq_attr *attr, u32 *depth,
			     u8 *wqe_shift, u32 *max_sge)
{
	u32 max_wr = le32_to_cpu(adev->attr.max_srq_wr);
	u32 sge_limit = le16_to_cpu(adev->attr.max_srq_sge);

	if (attr->max_wr > max_wr || attr->max_sge > sge_limit)
		return -EINVAL;
	*depth = roundup_pow_of_two(max_t(u32, attr->max_wr, 1));
	*wqe_shift = max_t(u8, AXON_RQ_MIN_WQE_SHIFT,
			   order_base_2(sizeof(struct axon_recv_wqe) +
					attr->max_sge *
					sizeof(struct axon_sge)));
	*max_sge = min_t(u32, sge_limit,
			 ((1u << *wqe_shift) - sizeof(struct axon_recv_wqe)) /
			 sizeof(struct axon_sge));
	return 0;
}

static int axon_create_srq_user(struct axon_srq *srq, struct ib_udata *udata)
{
	struct axon_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct axon_ucontext,
					  ibucontext);
	struct axon_create_srq_resp resp = {};
	int err;

	if (udata->outlen < sizeof(resp))
		return -EINVAL;
	err = axon_qmem_expose(uctx, &srq->wq.mem, &resp.srq_mmap_key);
	if (err)
		return err;
	resp.srqn = srq->srqn;
	resp.depth = srq->wq.depth;
	resp.wqe_shift = srq->wq.wqe_shift;
	resp.srq_size = srq->wq.mem.size;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

/* Basic SRQs, and user XRC SRQs with AXON_CAP_XRC. */
static bool axon_srq_type_ok(const struct axon_dev *adev,
			     enum ib_srq_type type, const struct ib_udata *udata)
{
	switch (type) {
	case IB_SRQT_BASIC:
		return true;
	case IB_SRQT_XRC:
		return adev->xrc && udata;
	default:
		return false;
	}
}

int axon_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init_attr,
		    struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibsrq->device);
	struct axon_srq *srq = to_asrq(ibsrq);
	struct axon_srq_params p = {};
	u32 depth, max_sge;
	u8 wqe_shift;
	int err;

	if (!adev->srq || !axon_srq_type_ok(adev, init_attr->srq_type, udata)) {
		err = -EOPNOTSUPP;
		goto err_out;
	}
	if (init_attr->srq_type == IB_SRQT_XRC &&
	    (!init_attr->ext.xrc.xrcd || !init_attr->ext.cq)) {
		err = -EINVAL;
		goto err_out;
	}
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		err = -EINVAL;
		goto err_out;
	}
	err = axon_srq_geometry(adev, &init_attr->attr, &depth, &wqe_shift,
				&max_sge);
	if (err)
		goto err_out;
	srq->kernel = !udata;
	err = axon_wq_alloc(adev, &srq->wq, depth, wqe_shift, max_sge, !!udata,
			    0);
	if (err)
		goto err_out;

	p.pdn = to_apd(ibsrq->pd)->pdn;
	p.uar = udata ? rdma_udata_to_drv_context(udata, struct axon_ucontext,
						  ibucontext)->uar : 0;
	p.ring = srq->wq.mem.dma;
	p.depth = depth;
	p.wqe_shift = wqe_shift;
	if (init_attr->srq_type == IB_SRQT_XRC) {
		p.xrcdn = to_axrcd(init_attr->ext.xrc.xrcd)->xrcdn;
		p.cqn = to_acq(init_attr->ext.cq)->cqn;
	}
	err = axon_cmd_create_srq(&adev->aq, &p, &srq->srqn);
	if (err == -ETIMEDOUT)
		goto err_out;	/* the device may have made the SRQ on the ring */
	if (err)
		goto err_free;
	/* the number initiators name, given to userspace by the core */
	if (init_attr->srq_type == IB_SRQT_XRC)
		ibsrq->ext.xrc.srq_num = srq->srqn;
	err = xa_insert(&adev->srqs, srq->srqn, srq, GFP_KERNEL);
	if (err) {
		if (err == -EBUSY)
			err = -EIO;
		goto err_destroy;
	}
	if (udata) {
		err = axon_create_srq_user(srq, udata);
		if (err)
			goto err_erase;
	}
	init_attr->attr.max_wr = depth;
	init_attr->attr.max_sge = max_sge;
	init_attr->attr.srq_limit = 0;
	return 0;

err_erase:
	xa_erase(&adev->srqs, srq->srqn);
	axon_sync_events(adev);
err_destroy:
	if (!axon_destroyed(adev, axon_cmd_destroy_srq(&adev->aq, srq->srqn)))
		goto err_out;	/* the device may still use the ring */
err_free:
	axon_qmem_free(adev, &srq->wq.mem);
err_out:
	ibdev_dbg(&adev->ibdev, "create_srq (type %d, wr %u, sge %u) failed: %d\n",
		  init_attr->srq_type, init_attr->attr.max_wr,
		  init_attr->attr.max_sge, err);
	return err;
}

int axon_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibsrq->device);
	struct axon_srq *srq = to_asrq(ibsrq);

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	/* the ring cannot grow */
	if (mask & ~IB_SRQ_LIMIT)
		return -EOPNOTSUPP;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit >= srq->wq.depth)
		return -EINVAL;
	return axon_cmd_modify_srq(&adev->aq, srq->srqn, attr->srq_limit);
}

int axon_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct axon_dev *adev = to_adev(ibsrq->device);
	struct axon_srq *srq = to_asrq(ibsrq);
	u32 limit;
	int err;

	err = axon_cmd_query_srq(&adev->aq, srq->srqn, &limit);
	if (err)
		return err;
	attr->max_wr = srq->wq.depth;
	attr->max_sge = srq->wq.max_sge;
	attr->srq_limit = limit;
	return 0;
}

/* As for QPs: leave the table first; leak the ring unless destroyed. */
int axon_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibsrq->device);
	struct axon_srq *srq = to_asrq(ibsrq);
	int err;

	xa_erase(&adev->srqs, srq->srqn);
	axon_sync_events(adev);
	err = axon_cmd_destroy_srq(&adev->aq, srq->srqn);
	if (err)
		ibdev_err_ratelimited(&adev->ibdev, "destroy srq %u failed: %d\n",
				      srq->srqn, err);
	if (axon_destroyed(adev, err))
		axon_qmem_free(adev, &srq->wq.mem);
	else
		ibdev_err_ratelimited(&adev->ibdev,
				      "srq %u: ring leaked, the device may still use it\n",
				      srq->srqn);
	return 0;
}

int axon_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr)
{
	struct axon_dev *adev = to_adev(ibsrq->device);
	struct axon_srq *srq = to_asrq(ibsrq);
	struct axon_wq *wq = &srq->wq;
	unsigned long flags;
	u16 start;
	int err = 0;

	spin_lock_irqsave(&wq->lock, flags);
	start = wq->head;
	for (; wr; wr = wr->next) {
		if (axon_wq_full(wq)) {
			err = -ENOMEM;
			break;
		}
		err = axon_build_recv_wqe(wr, axon_wq_slot(wq), wq->max_sge);
		if (err)
			break;
		wq->head++;
	}
	if (wq->head != start)
		axon_ring_db(adev, AXON_DB_SRQ, srq->srqn, wq->head);
	spin_unlock_irqrestore(&wq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * poll_cq saw a receive completion of a kernel QP on @srq: one more slot
 * is free. An index outside the last depth WQEs posted is the device's
 * error: false, the CQE is dropped.
 */
bool axon_srq_completed(struct axon_srq *srq, u16 wqe_index)
{
	struct axon_wq *wq = &srq->wq;
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&wq->lock, flags);
	ok = (u16)(wq->head - 1 - wqe_index) < wq->depth &&
	     wq->head != READ_ONCE(wq->tail);
	if (ok)
		WRITE_ONCE(wq->tail, wq->tail + 1);
	spin_unlock_irqrestore(&wq->lock, flags);
	if (!ok)
		dev_warn_ratelimited(srq->ibsrq.device->dev.parent,
				     "srq %u: completion for WQE %u, %u posted, %u done\n",
				     srq->srqn, wqe_index, wq->head, wq->tail);
	return ok;
}

/* A kernel QP on @srq is purged: its @n receive CQEs will not be polled. */
void axon_srq_forget(struct axon_srq *srq, u32 n)
{
	unsigned long flags;

	spin_lock_irqsave(&srq->wq.lock, flags);
	WRITE_ONCE(srq->wq.tail, srq->wq.tail + n);
	spin_unlock_irqrestore(&srq->wq.lock, flags);
}

void axon_srq_event(struct axon_dev *adev, u32 srqn)
{
	struct axon_srq *srq = xa_load(&adev->srqs, srqn);
	struct ib_event event = {
		.device = &adev->ibdev,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};

	if (!srq) {
		dev_dbg(&adev->pdev->dev, "limit event for unknown srq %u\n",
			srqn);
		return;
	}
	event.element.srq = &srq->ibsrq;
	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&event, srq->ibsrq.srq_context);
}
