// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon queue pairs: RC, UD with AXON_CAP_UD, UC with AXON_CAP_UC. The
 * send and receive
 * queues are rings of power-of-2 WQE slots in kernel memory the device
 * reads; a user QP's rings are mapped into the process, which posts and
 * rings its doorbell page itself. A kernel QP is posted here and rung
 * through page 0; its consumer indexes advance as poll_cq sees its
 * completions.
 *
 * The QP state machine runs in the device, which may move a QP to ERR on
 * its own: modify_qp asks it for the current state, checks the transition
 * with ib_modify_qp_is_ok(), converts the attributes and lets the device
 * decide; query_qp asks the device too.
 *
 * A QP created with an SRQ has no receive queue of its own: post_recv
 * fails and its receive completions free the SRQ's slots (axon_srq.c).
 * The post verbs serve kernel QPs only: a process posts to its own rings.
 *
 * A UD QP sends SENDs to the address handle each work request names
 * (axon_ah.c) and takes the state, the Q_Key and the SQ PSN only; each of
 * its receive buffers starts with the packet's 40-byte GRH.
 *
 * A UC QP is connected as an RC one, without acknowledgements: it has no
 * READs or atomics, so no RDMA read depths, timeouts or retries, and
 * REMOTE_WRITE is the only remote right it grants (axon_qp_attr.c).
 *
 * A RUD driver QP is connected as an RC one too, and exchanges keys: the
 * device draws the QP's receive key when it leaves RESET, modify_qp hands
 * it to the caller in its udata response, and the caller passes the
 * peer's key in the udata request of the modify to RTR. The driver keeps
 * neither key: nothing else (query_qp, rdma res, netlink) can show them.
 *
 * With AXON_CAP_FAST_REG, kernel RC and UC QPs post REG_MR and LOCAL_INV
 * of fast-registration MRs (axon_mr.c), and RC ones SEND_WITH_INV.
 *
 * With AXON_CAP_XRC, XRC QPs, which take RC's attributes (the core checks
 * their transitions against its XRC tables). An initiator is a user RC
 * requester without a receive queue: recv_cq and the receive capabilities
 * are ignored, and a kernel one is refused, as a kernel work request
 * cannot name the XRC SRQ at the target. A target has no queue, CQ or PD:
 * the core creates it with no udata and no PD for a process's XRC domain,
 * may share it among processes (ib_open_qp()) and hands the modify_qp of
 * each of them the caller's udata. CREATE_QP gives the device its type,
 * its domain and the kernel's doorbell page 0, which no process maps: it
 * has no doorbell to ring. Being nobody's to post to, it is not a kernel
 * QP (qp->kernel): nothing is purged for it, and the post verbs, which
 * serve kernel QPs only, refuse it.
 *
 * With AXON_CAP_ODP, a QP that finds a page of an on-demand paging MR
 * absent waits for the driver to map it: its page fault is handled by
 * its own work item (axon_odp.c), which its destroy cancels.
 */

#include <linux/completion.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_addr.h>
#include <rdma/uverbs_ioctl.h>

#include "axon.h"
#include "axon_cmds.h"
#include "axon_cqe.h"
#include "axon_odp.h"
#include "axon_qp_attr.h"
#include "axon_udata.h"
#include "axon_wqe.h"

/* The device's type for a QP of @type, or -EOPNOTSUPP. */
static int axon_qp_type(const struct axon_dev *adev, enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_RC:
		return AXON_QPT_RC;
	case IB_QPT_UD:
		return adev->ud ? AXON_QPT_UD : -EOPNOTSUPP;
	case IB_QPT_UC:
		return adev->uc ? AXON_QPT_UC : -EOPNOTSUPP;
	case IB_QPT_GSI:
		return adev->gsi ? AXON_QPT_GSI : -EOPNOTSUPP;
	case IB_QPT_DRIVER:
		return adev->rud ? AXON_QPT_RUD : -EOPNOTSUPP;
	case IB_QPT_XRC_INI:
		return adev->xrc ? AXON_QPT_XRC_INI : -EOPNOTSUPP;
	case IB_QPT_XRC_TGT:
		return adev->xrc ? AXON_QPT_XRC_TGT : -EOPNOTSUPP;
	default:
		return -EOPNOTSUPP;
	}
}

/* *@sq_dbrec: the caller asked for a send queue doorbell record */
static int axon_check_create_qp(struct axon_dev *adev,
				const struct ib_qp_init_attr *init_attr,
				struct ib_udata *udata, bool *sq_dbrec)
{
	struct axon_create_qp_req req = {};
	bool tail_zero;
	int err;

	*sq_dbrec = false;
	if (axon_qp_type(adev, init_attr->qp_type) < 0 ||
	    init_attr->rwq_ind_tbl || init_attr->create_flags)
		return -EOPNOTSUPP;
	switch (init_attr->qp_type) {
	case IB_QPT_XRC_TGT:
		/* the core's, for an XRC domain; any SRQ given is ignored */
		return init_attr->xrcd && !udata ? 0 : -EINVAL;
	case IB_QPT_XRC_INI:
		/* a process's: a kernel one could not name the target's SRQ */
		if (!udata)
			return -EOPNOTSUPP;
		if (!init_attr->send_cq || init_attr->srq)
			return -EINVAL;
		break;
	default:
		if (!init_attr->send_cq || !init_attr->recv_cq)
			return -EINVAL;
		/* an XRC SRQ serves XRC target QPs only */
		if (init_attr->srq &&
		    init_attr->srq->srq_type != IB_SRQT_BASIC)
			return -EINVAL;
		/* a driver QP is a process's, named by its request */
		if (!udata)
			return init_attr->qp_type == IB_QPT_DRIVER ?
			       -EOPNOTSUPP : 0;
		break;
	}

	tail_zero = udata->inlen <= sizeof(req) ||
		    ib_is_udata_cleared(udata, sizeof(req),
					udata->inlen - sizeof(req));
	err = ib_copy_from_udata(&req, udata, min(sizeof(req), udata->inlen));
	if (err)
		return err;
	*sq_dbrec = req.comp_mask & AXON_CREATE_QP_REQ_SQ_DBREC;
	return axon_check_create_qp_req(&req,
					init_attr->qp_type == IB_QPT_DRIVER,
					adev->sq_dbrec, tail_zero,
					udata->outlen);
}

static int axon_create_qp_user(struct axon_qp *qp, bool sq_dbrec,
			       struct ib_udata *udata)
{
	struct axon_ucontext *uctx =
		rdma_udata_to_drv_context(udata, struct axon_ucontext,
					  ibucontext);
	struct axon_create_qp_resp resp = {};
	int err;

	err = axon_qmem_expose(uctx, &qp->sq.mem, &resp.sq_mmap_key);
	if (err)
		return err;
	if (axon_qp_has_rq(qp)) {
		err = axon_qmem_expose(uctx, &qp->rq.mem, &resp.rq_mmap_key);
		if (err)
			return err;
	}
	if (sq_dbrec)
		resp.comp_mask |= AXON_CREATE_QP_RESP_SQ_DBREC;
	resp.qpn = qp->qpn;
	resp.sq_depth = qp->sq.depth;
	resp.rq_depth = qp->rq.depth;
	resp.sq_wqe_shift = qp->sq.wqe_shift;
	resp.rq_wqe_shift = qp->rq.wqe_shift;
	resp.max_inline = qp->max_inline;
	resp.sq_size = qp->sq.mem.size;
	resp.rq_size = qp->rq.mem.size;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

/*
 * An XRC target QP: CREATE_QP with its type, its domain and doorbell page
 * 0, nothing else; no ring, no capabilities.
 */
static int axon_create_xrc_tgt(struct axon_dev *adev, struct axon_qp *qp,
			       struct ib_qp_init_attr *init_attr)
{
	struct axon_qp_params p = {
		.type = AXON_QPT_XRC_TGT,
		.xrcdn = to_axrcd(init_attr->xrcd)->xrcdn,
		.uar = 0,	/* the kernel's page: no process rings it */
	};
	int err;

	qp->srq = NULL;
	qp->xrcdn = p.xrcdn;
	qp->kernel = false;
	qp->state = IB_QPS_RESET;
	qp->dest_qpn = 0;
	mutex_init(&qp->state_mutex);
	spin_lock_init(&qp->sq.lock);
	spin_lock_init(&qp->rq.lock);
	err = axon_cmd_create_qp(&adev->aq, &p, &qp->qpn);
	if (err)
		return err;
	err = xa_insert(&adev->qps, qp->qpn, qp, GFP_KERNEL);
	if (err) {
		/* the device handed out a qpn that is in use */
		axon_cmd_destroy_qp(&adev->aq, qp->qpn);
		return err == -EBUSY ? -EIO : err;
	}
	qp->ibqp.qp_num = qp->qpn;
	memset(&init_attr->cap, 0, sizeof(init_attr->cap));
	return 0;
}

int axon_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		   struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibqp->device);
	const struct axon_dev_attr *a = &adev->attr;
	struct axon_qp_limits lim = {
		.max_wr = le32_to_cpu(a->max_qp_wr),
		.max_sge = le32_to_cpu(a->max_sge),
		.max_inline = le32_to_cpu(a->max_inline),
	};
	struct axon_qp *qp = to_aqp(ibqp);
	struct axon_qp_params p = {};
	struct axon_qp_geom g;
	bool sq_dbrec;
	int err;

	err = axon_check_create_qp(adev, init_attr, udata, &sq_dbrec);
	if (err)
		goto err_out;
	/* an XRC target faults on the pages it places too */
	axon_odp_qp_init(qp);
	if (init_attr->qp_type == IB_QPT_XRC_TGT) {
		err = axon_create_xrc_tgt(adev, qp, init_attr);
		if (err)
			goto err_out;
		return 0;
	}
	qp->srq = init_attr->srq ? to_asrq(init_attr->srq) : NULL;
	/* with an SRQ or as an XRC initiator, no receive capabilities */
	if (!axon_qp_has_rq(qp)) {
		init_attr->cap.max_recv_wr = 0;
		init_attr->cap.max_recv_sge = 0;
	}
	err = axon_qp_geometry(&init_attr->cap, &lim, &g);
	if (err)
		goto err_out;
	if (!axon_qp_has_rq(qp)) {
		g.rq_depth = 0;
		g.rq_wqe_shift = 0;
		g.max_recv_sge = 0;
	}

	sq_dbrec = sq_dbrec && axon_wq_dbrec_fits(g.sq_depth, g.sq_wqe_shift);
	qp->kernel = !udata;
	qp->sig_all = init_attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->max_inline = g.max_inline;
	qp->state = IB_QPS_RESET;
	qp->dest_qpn = 0;
	mutex_init(&qp->state_mutex);
	err = axon_wq_alloc(adev, &qp->sq, g.sq_depth, g.sq_wqe_shift,
			    g.max_send_sge, !!udata,
			    sq_dbrec ? sizeof(struct axon_sq_dbrec) : 0);
	if (err)
		goto err_out;
	if (!axon_qp_has_rq(qp)) {
		spin_lock_init(&qp->rq.lock);	/* axon_qp_purge() takes it */
	} else {
		err = axon_wq_alloc(adev, &qp->rq, g.rq_depth, g.rq_wqe_shift,
				    g.max_recv_sge, !!udata, 0);
		if (err)
			goto err_free_sq;
	}

	p.pdn = to_apd(ibqp->pd)->pdn;
	p.send_cqn = to_acq(init_attr->send_cq)->cqn;
	/* an XRC initiator receives nothing: a recv_cq given is not its */
	if (init_attr->qp_type != IB_QPT_XRC_INI)
		p.recv_cqn = to_acq(init_attr->recv_cq)->cqn;
	p.uar = udata ? rdma_udata_to_drv_context(udata, struct axon_ucontext,
						  ibucontext)->uar : 0;
	p.sq_addr = qp->sq.mem.dma;
	p.rq_addr = qp->rq.mem.dma;
	p.sq_depth = g.sq_depth;
	p.rq_depth = g.rq_depth;
	p.sq_wqe_shift = g.sq_wqe_shift;
	p.rq_wqe_shift = g.rq_wqe_shift;
	p.sq_sig_all = qp->sig_all;
	p.srqn = qp->srq ? qp->srq->srqn : 0;
	p.type = axon_qp_type(adev, init_attr->qp_type);
	p.flags = sq_dbrec ? AXON_QP_SQ_DBREC : 0;
	err = axon_cmd_create_qp(&adev->aq, &p, &qp->qpn);
	if (err == -ETIMEDOUT)
		goto err_out;	/* the device may have made the QP on the rings */
	if (err)
		goto err_free_rq;
	err = xa_insert(&adev->qps, qp->qpn, qp, GFP_KERNEL);
	if (err) {
		/* the device handed out a qpn that is in use */
		if (err == -EBUSY)
			err = -EIO;
		goto err_destroy_qp;
	}
	if (udata) {
		err = axon_create_qp_user(qp, sq_dbrec, udata);
		if (err)
			goto err_erase;
	}
	ibqp->qp_num = qp->qpn;
	axon_qp_geom_caps(&g, &init_attr->cap);
	return 0;

err_erase:
	xa_erase(&adev->qps, qp->qpn);
	axon_sync_events(adev);
err_destroy_qp:
	if (!axon_destroyed(adev, axon_cmd_destroy_qp(&adev->aq, qp->qpn)))
		goto err_out;	/* the device may still use the rings */
err_free_rq:
	axon_qmem_free(adev, &qp->rq.mem);
err_free_sq:
	axon_qmem_free(adev, &qp->sq.mem);
err_out:
	ibdev_dbg(&adev->ibdev,
		  "create_qp (type %d, wr %u/%u, sge %u/%u, inline %u) failed: %d\n",
		  init_attr->qp_type, init_attr->cap.max_send_wr,
		  init_attr->cap.max_recv_wr, init_attr->cap.max_send_sge,
		  init_attr->cap.max_recv_sge, init_attr->cap.max_inline_data,
		  err);
	return err;
}

/* Both CQ locks of a QP, lower cqn first; one if the CQs are the same. */
static void axon_qp_lock_cqs(struct axon_cq *first, struct axon_cq *second)
	__acquires(&first->lock) __acquires(&second->lock)
{
	spin_lock_irq(&first->lock);
	if (second != first)
		spin_lock_nested(&second->lock, SINGLE_DEPTH_NESTING);
	else
		__acquire(&second->lock);	/* for sparse */
}

static void axon_qp_unlock_cqs(struct axon_cq *first, struct axon_cq *second)
	__releases(&second->lock) __releases(&first->lock)
{
	if (second != first)
		spin_unlock(&second->lock);
	else
		__release(&second->lock);
	spin_unlock_irq(&first->lock);
}

/*
 * The device completes no more WQEs of a kernel QP (destroyed or RESET):
 * forget its CQEs not polled yet, which would otherwise be reported as
 * those of the next QP with its qpn and move its tails. Under the CQ
 * locks, so that no poller sees them meanwhile; on @reset the queues
 * restart at slot 0 as the device's do.
 */
static void axon_qp_purge(struct axon_qp *qp, bool reset)
{
	struct axon_cq *scq = to_acq(qp->ibqp.send_cq);
	/* an XRC initiator has no receive CQ */
	struct axon_cq *rcq = qp->ibqp.recv_cq ? to_acq(qp->ibqp.recv_cq) : scq;
	struct axon_cq *first = scq->cqn <= rcq->cqn ? scq : rcq;
	struct axon_cq *second = first == scq ? rcq : scq;
	u32 recv, recv2 = 0;

	/* a resize would copy the CQEs before they are purged */
	mutex_lock(&first->resize_mutex);
	if (second != first)
		mutex_lock_nested(&second->resize_mutex, SINGLE_DEPTH_NESTING);
	axon_qp_lock_cqs(first, second);
	axon_cq_purge(first->mem.va, first->depth, first->cons, qp->qpn, &recv);
	if (second != first)
		axon_cq_purge(second->mem.va, second->depth, second->cons,
			      qp->qpn, &recv2);
	/* the SRQ's WQEs these complete are free */
	if (qp->srq)
		axon_srq_forget(qp->srq, recv + recv2);
	if (reset) {
		spin_lock(&qp->sq.lock);
		qp->sq.head = 0;
		WRITE_ONCE(qp->sq.tail, 0);
		spin_unlock(&qp->sq.lock);
		spin_lock(&qp->rq.lock);
		qp->rq.head = 0;
		WRITE_ONCE(qp->rq.tail, 0);
		spin_unlock(&qp->rq.lock);
	}
	axon_qp_unlock_cqs(first, second);
	if (second != first)
		mutex_unlock(&second->resize_mutex);
	mutex_unlock(&first->resize_mutex);
}

struct axon_dmac_wait {
	struct completion done;
	int status;
};

static void axon_dmac_resolved(int status, struct sockaddr *src,
			       struct rdma_dev_addr *addr, void *context)
{
	struct axon_dmac_wait *wait = context;

	wait->status = status;
	complete(&wait->done);
}

/*
 * The destination MAC of a driver QP's path. The core resolves it for
 * the QP types it knows to be connected, not for driver QPs: resolve the
 * path's GIDs the same way, through the neighbour table of the source
 * GID's netdev, waiting for the answer (1 s at most).
 */
static int axon_qp_resolve_dmac(struct ib_qp *ibqp, struct ib_qp_attr *attr,
				int mask)
{
	struct rdma_ah_attr *ah = &attr->ah_attr;
	const struct ib_global_route *grh;
	union {
		struct sockaddr_in in4;
		struct sockaddr_in6 in6;
	} src, dst;
	struct rdma_dev_addr dev_addr = { .net = &init_net };
	struct axon_dmac_wait wait;
	int err;

	if (ibqp->qp_type != IB_QPT_DRIVER || !(mask & IB_QP_AV))
		return 0;
	if (ah->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(ah);
	if (!grh->sgid_attr)
		return -EINVAL;
	rdma_gid2ip((struct sockaddr *)&src, &grh->sgid_attr->gid);
	rdma_gid2ip((struct sockaddr *)&dst, &grh->dgid);
	dev_addr.sgid_attr = grh->sgid_attr;
	init_completion(&wait.done);
	err = rdma_resolve_ip((struct sockaddr *)&src, (struct sockaddr *)&dst,
			      &dev_addr, 1000, axon_dmac_resolved, true, &wait);
	if (err)
		return err;
	wait_for_completion(&wait.done);
	if (wait.status)
		return wait.status;
	memcpy(ah->roce.dmac, dev_addr.dst_dev_addr, ETH_ALEN);
	return 0;
}

/*
 * The QP's current state for modify_qp: the consumer's if it gives one.
 * Else the state the driver last set, if @may_guess and the device refuses
 * a command whose state it does not match (AXON_CAP_QP_CUR_STATE), which
 * spares a QUERY_QP; *@guessed says so. Else the device's, which may have
 * moved the QP to SQE or ERR on its own.
 */
static int axon_qp_cur_state(struct axon_dev *adev, struct axon_qp *qp,
			     const struct ib_qp_attr *attr, int mask,
			     bool may_guess, enum ib_qp_state *cur,
			     bool *guessed)
{
	struct axon_qp_attr aattr;
	int err;

	*guessed = false;
	if (mask & IB_QP_CUR_STATE) {
		*cur = attr->cur_qp_state;
		return 0;
	}
	if (may_guess && adev->qp_cur_state) {
		*cur = READ_ONCE(qp->state);
		*guessed = true;
		return 0;
	}
	err = axon_cmd_query_qp(&adev->aq, qp->qpn, &aattr);
	if (err)
		return err;
	*cur = axon_qp_state_to_ib(&aattr);
	WRITE_ONCE(qp->state, *cur);
	return 0;
}

/*
 * The driver data of a modify_qp, as far as userspace sent it, checked:
 * a RUD QP's peer key.
 */
static int axon_modify_qp_req(struct ib_qp *ibqp, struct ib_udata *udata,
			      struct axon_modify_qp_req *req)
{
	bool tail_zero;
	int err;

	memset(req, 0, sizeof(*req));
	if (!udata || !udata->inlen)
		return 0;
	tail_zero = udata->inlen <= sizeof(*req) ||
		    ib_is_udata_cleared(udata, sizeof(*req),
					udata->inlen - sizeof(*req));
	err = ib_copy_from_udata(req, udata, min(sizeof(*req), udata->inlen));
	if (err)
		return err;
	return axon_check_modify_qp_req(req, ibqp->qp_type == IB_QPT_DRIVER,
					tail_zero);
}

/*
 * A RUD QP's keys (see "RUD connection keys" in <rdma/axon-abi.h>): it
 * takes its peer's key on the way to RTR and there only, and leaves
 * RESET only when the response can carry the key the device draws then.
 */
static int axon_modify_qp_rud_ok(const struct axon_modify_qp_req *req,
				 struct ib_udata *udata, enum ib_qp_state cur,
				 enum ib_qp_state next)
{
	bool key = req->comp_mask & AXON_MODIFY_QP_REQ_RUD_PEER_KEY;

	if (key != (cur == IB_QPS_INIT && next == IB_QPS_RTR))
		return -EINVAL;
	if (cur == IB_QPS_RESET && next != IB_QPS_RESET &&
	    next != IB_QPS_ERR &&
	    (!udata || udata->outlen < offsetofend(struct axon_modify_qp_resp,
						   rud_key)))
		return -EINVAL;
	return 0;
}

int axon_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibqp->device);
	struct axon_qp *qp = to_aqp(ibqp);
	struct axon_qp_conv conv = {
		.type = axon_qp_verbs_type(ibqp->qp_type),
		.qpn = qp->qpn,
		.active_mtu = axon_active_mtu(adev),
		.max_rd_atomic = min_t(u32, AXON_MAX_RD_ATOMIC,
				       le32_to_cpu(adev->attr.max_qp_rd_atom)),
	};
	bool rud = ibqp->qp_type == IB_QPT_DRIVER;
	struct axon_modify_qp_resp resp = {};
	struct axon_modify_qp_req req;
	enum ib_qp_state cur, next;
	struct axon_qp_attr aattr;
	bool may_guess = true;
	bool guessed;
	u64 key = 0;
	u32 amask;
	int err;

	err = axon_modify_qp_req(ibqp, udata, &req);
	if (err)
		goto err_out;

	mutex_lock(&qp->state_mutex);
	if (mask == IB_QP_STATE && attr->qp_state == IB_QPS_ERR &&
	    !req.comp_mask) {
		/* any state may move to ERR: no query, no allocation */
		err = axon_cmd_modify_qp_err(&adev->aq, qp->qpn);
		if (err)
			goto err_unlock;
		WRITE_ONCE(qp->state, IB_QPS_ERR);
		mutex_unlock(&qp->state_mutex);
		return 0;
	}
again:
	err = axon_qp_cur_state(adev, qp, attr, mask, may_guess, &cur,
				&guessed);
	if (err)
		goto err_unlock;
	next = mask & IB_QP_STATE ? attr->qp_state : cur;
	/* XRC QPs by the core's XRC tables, converted as RC ones */
	if (!ib_modify_qp_is_ok(cur, next,
				rud ? IB_QPT_RC : ibqp->qp_type, mask)) {
		err = -EINVAL;
		goto err_refused;
	}
	if (rud) {
		err = axon_modify_qp_rud_ok(&req, udata, cur, next);
		if (err)
			goto err_refused;
	}
	err = axon_qp_resolve_dmac(ibqp, attr, mask);
	if (err)
		goto err_unlock;
	conv.dest_qpn = qp->dest_qpn;
	err = axon_qp_attr_from_ib(attr, mask, &conv, &aattr, &amask);
	if (err)
		goto err_unlock;
	if (req.comp_mask & AXON_MODIFY_QP_REQ_RUD_PEER_KEY) {
		amask |= AXON_QP_ATTR_PEER_KEY;
		aattr.peer_key_lo = cpu_to_le32(lower_32_bits(req.rud_peer_key));
		aattr.peer_key_hi = cpu_to_le32(upper_32_bits(req.rud_peer_key));
	}
	if (adev->qp_cur_state) {
		amask |= AXON_QP_ATTR_CUR_STATE;
		aattr.cur_state = cur;	/* numbered as enum ib_qp_state */
	}
	err = axon_cmd_modify_qp(&adev->aq, qp->qpn, amask, &aattr, &key);
	memzero_explicit(&aattr, sizeof(aattr));
	if (err)
		goto err_refused;
	memzero_explicit(&req, sizeof(req));

	/* the post verbs of kernel QPs read it without the mutex */
	WRITE_ONCE(qp->state, next);
	if (mask & IB_QP_DEST_QPN)
		qp->dest_qpn = attr->dest_qp_num;
	if (next == IB_QPS_RESET && qp->kernel)
		axon_qp_purge(qp, true);
	if (rud && cur == IB_QPS_RESET && next == IB_QPS_INIT) {
		/* the key goes to the QP's owner, and nowhere else */
		if (!key) {
			ibdev_err(&adev->ibdev, "QP %u left RESET with no key\n",
				  qp->qpn);
			err = -EIO;
			goto err_unlock;
		}
		resp.comp_mask = AXON_MODIFY_QP_RESP_RUD_KEY;
		resp.rud_key = key;
		key = 0;
	}
	if (udata && udata->outlen)
		err = ib_copy_to_udata(udata, &resp,
				       min(udata->outlen, sizeof(resp)));
	memzero_explicit(&resp, sizeof(resp));
	if (err)
		goto err_unlock;
	mutex_unlock(&qp->state_mutex);
	return 0;

err_refused:
	/* refused for a state the driver guessed: ask the device, try again */
	if (err == -EINVAL && guessed) {
		may_guess = false;
		goto again;
	}
err_unlock:
	memzero_explicit(&req, sizeof(req));
	mutex_unlock(&qp->state_mutex);
err_out:
	ibdev_dbg(&adev->ibdev, "modify_qp %u (mask 0x%x, state %d) failed: %d\n",
		  qp->qpn, mask, mask & IB_QP_STATE ? attr->qp_state : -1, err);
	return err;
}

int axon_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init_attr)
{
	struct axon_dev *adev = to_adev(ibqp->device);
	struct axon_qp *qp = to_aqp(ibqp);
	struct axon_qp_attr aattr;
	int err;

	err = axon_cmd_query_qp(&adev->aq, qp->qpn, &aattr);
	if (err)
		return err;

	memset(attr, 0, sizeof(*attr));
	axon_qp_attr_to_ib(&aattr, axon_qp_verbs_type(ibqp->qp_type), attr);
	attr->cap.max_send_wr = qp->sq.depth;
	attr->cap.max_recv_wr = qp->rq.depth;
	attr->cap.max_send_sge = qp->sq.max_sge;
	attr->cap.max_recv_sge = qp->rq.max_sge;
	attr->cap.max_inline_data = qp->max_inline;

	memset(init_attr, 0, sizeof(*init_attr));
	init_attr->qp_type = ibqp->qp_type;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->srq = ibqp->srq;
	init_attr->xrcd = ibqp->xrcd;
	init_attr->cap = attr->cap;
	init_attr->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR :
					       IB_SIGNAL_REQ_WR;
	return 0;
}

/* As for CQs: leave the tables first; leak the rings unless destroyed. */
int axon_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibqp->device);
	struct axon_qp *qp = to_aqp(ibqp);
	int err;

	xa_erase(&adev->qps, qp->qpn);
	axon_sync_events(adev);
	err = axon_cmd_destroy_qp(&adev->aq, qp->qpn);
	/* a page fault queued before the QP left the table */
	axon_odp_qp_flush(qp);
	/* also waits for pollers that found the QP before it left */
	if (qp->kernel)
		axon_qp_purge(qp, false);
	if (err)
		ibdev_err_ratelimited(&adev->ibdev,
				      "destroy qp %u failed: %d\n", qp->qpn,
				      err);
	if (axon_destroyed(adev, err)) {
		axon_qmem_free(adev, &qp->rq.mem);
		axon_qmem_free(adev, &qp->sq.mem);
	} else {
		ibdev_err_ratelimited(&adev->ibdev,
				      "qp %u: rings leaked, the device may still use them\n",
				      qp->qpn);
	}
	return 0;
}

/*
 * @wr as a WQE in the next send slot; a UD QP's carries an address, a UC
 * QP has no READs or atomics. A REG_MR gives its MR the key it posts: the
 * one DESTROY_MR will need, unless the WQE fails (axon_mr.c).
 */
static int axon_qp_build_send_wqe(struct axon_qp *qp,
				  const struct ib_send_wr *wr)
{
	struct axon_dev *adev = to_adev(qp->ibqp.device);
	struct axon_wq *sq = &qp->sq;
	int err;

	if (axon_qp_is_ud(qp->ibqp.qp_type))
		return axon_build_ud_send_wqe(wr, qp->ibqp.pd,
					      axon_wq_slot(sq),
					      1u << sq->wqe_shift, sq->max_sge,
					      qp->max_inline, qp->sig_all);
	if (!axon_conn_wr_ok(qp->ibqp.qp_type, wr->opcode, adev->fast_reg))
		return -EINVAL;
	err = axon_build_send_wqe(wr, qp->ibqp.pd, axon_wq_slot(sq),
				  1u << sq->wqe_shift, sq->max_sge,
				  qp->max_inline, qp->sig_all);
	if (!err && wr->opcode == IB_WR_REG_MR)
		to_amr(reg_wr(wr)->mr)->key = reg_wr(wr)->key;
	return err;
}

int axon_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr)
{
	struct axon_dev *adev = to_adev(ibqp->device);
	struct axon_qp *qp = to_aqp(ibqp);
	struct axon_wq *sq = &qp->sq;
	unsigned long flags;
	u16 start;
	int err = 0;

	/* a process posts to its own rings; an XRC target has none */
	if (!qp->kernel || !axon_qp_has_sq(qp)) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&sq->lock, flags);
	start = sq->head;
	for (; wr; wr = wr->next) {
		if (READ_ONCE(qp->state) < IB_QPS_RTS) {
			err = -EINVAL;
			break;
		}
		if (axon_wq_full(sq)) {
			err = -ENOMEM;
			break;
		}
		err = axon_qp_build_send_wqe(qp, wr);
		if (err)
			break;
		sq->head++;
	}
	if (sq->head != start)
		axon_ring_db(adev, AXON_DB_SQ, qp->qpn, sq->head);
	spin_unlock_irqrestore(&sq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

int axon_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr)
{
	struct axon_dev *adev = to_adev(ibqp->device);
	struct axon_qp *qp = to_aqp(ibqp);
	struct axon_wq *rq = &qp->rq;
	unsigned long flags;
	u16 start;
	int err = 0;

	/* as for sends; an SRQ's QP and an XRC one have no RQ */
	if (!qp->kernel || !axon_qp_has_rq(qp)) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&rq->lock, flags);
	start = rq->head;
	for (; wr; wr = wr->next) {
		if (READ_ONCE(qp->state) == IB_QPS_RESET) {
			err = -EINVAL;
			break;
		}
		if (axon_wq_full(rq)) {
			err = -ENOMEM;
			break;
		}
		err = axon_build_recv_wqe(wr, axon_wq_slot(rq), rq->max_sge);
		if (err)
			break;
		rq->head++;
	}
	if (rq->head != start)
		axon_ring_db(adev, AXON_DB_RQ, qp->qpn, rq->head);
	spin_unlock_irqrestore(&rq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * poll_cq saw the completion of a kernel QP's WQE: free its slots. Each
 * queue completes in order, so all WQEs up to this one are done. An index
 * outside the posted WQEs is the device's error: false, the CQE is dropped.
 */
bool axon_qp_completed(struct axon_qp *qp, bool recv, u16 wqe_index)
{
	struct axon_wq *wq = recv ? &qp->rq : &qp->sq;

	if (!qp->kernel)
		return true;
	if (recv && qp->srq)
		return axon_srq_completed(qp->srq, wqe_index);
	if (!axon_wq_index_pending(wq->tail, READ_ONCE(wq->head), wqe_index)) {
		dev_warn_ratelimited(qp->ibqp.device->dev.parent,
				     "qp %u: %s completion for WQE %u outside [%u, %u)\n",
				     qp->qpn, recv ? "receive" : "send",
				     wqe_index, wq->tail, READ_ONCE(wq->head));
		return false;
	}
	WRITE_ONCE(wq->tail, wqe_index + 1);
	return true;
}

void axon_qp_event(struct axon_dev *adev, u32 qpn, u16 type)
{
	struct axon_qp *qp = xa_load(&adev->qps, qpn);
	struct ib_event event = { .device = &adev->ibdev };

	if (!qp) {
		dev_dbg(&adev->pdev->dev, "event %u for unknown qp %u\n",
			type, qpn);
		return;
	}
	if (!axon_qp_event_type(type, &event.event))
		return;
	event.element.qp = &qp->ibqp;
	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&event, qp->ibqp.qp_context);
}
