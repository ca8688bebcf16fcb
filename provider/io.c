// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon libibverbs provider: the data path. Posting writes WQEs into the
 * mapped queues and rings a doorbell, polling reads the mapped CQ ring,
 * arming writes a doorbell: no system call anywhere in this file.
 */
#include <errno.h>

#include "axon.h"

/*
 * IB's rule: receives may be posted from INIT on, sends from RTS on. In
 * SQD sends wait; in SQE and ERR the device completes them flushed.
 */
static bool axon_can_post_send(const struct ibv_qp *ibqp)
{
	switch (ibqp->state) {
	case IBV_QPS_RTS:
	case IBV_QPS_SQD:
	case IBV_QPS_SQE:
	case IBV_QPS_ERR:
		return true;
	default:
		return false;
	}
}

/*
 * The driver marked the CQ dead (the device failed or is going away):
 * nothing posted would ever complete, so posting fails with EIO.
 */
static bool axon_cq_of_dead(struct ibv_cq *ibcq)
{
	return axon_cq_dead(&to_axon_cq(ibcq)->ring);
}

/*
 * Publish WQEs up to pi, then tell the device: a stream (WQEs enough in
 * flight) through the doorbell record while the device polls it, else
 * the doorbell. Called under sq_lock.
 */
static void axon_sq_ring(struct axon_qp *qp, uint32_t pi)
{
	bool stream;

	__atomic_store_n(&qp->sq.pi, pi, __ATOMIC_RELEASE);
	/* the WQEs before the record and the doorbell */
	axon_to_device_barrier();
	if (qp->sq_dbrec) {
		stream = pi - __atomic_load_n(&qp->sq.ci, __ATOMIC_ACQUIRE) >=
			 AXON_SQ_POLL_MIN_INFLIGHT;
		axon_sq_dbrec_write(qp->sq_dbrec, pi, stream);
		/* the record before the doorbell */
		axon_to_device_barrier();
		if (stream && axon_sq_dbrec_polled(qp->sq_dbrec))
			return;
	}
	axon_ring_db(qp->sq_db, qp->qpn, pi);
}

/*
 * wr as a WQE in slot; a UD QP's carries an address, a UC QP has no READs
 * or atomics, a RUD QP (axon's only driver QP type) no atomics.
 */
static int axon_qp_build_send_wqe(struct axon_qp *qp, struct ibv_send_wr *wr,
				  void *slot)
{
	switch (qp->vqp.qp.qp_type) {
	case IBV_QPT_UD:
		return axon_build_ud_send_wqe(&qp->sq, wr, qp->vqp.qp.pd, slot);
	case IBV_QPT_UC:
		return axon_build_uc_send_wqe(&qp->sq, wr, slot);
	case IBV_QPT_DRIVER:
		return axon_build_rud_send_wqe(&qp->sq, wr, slot);
	case IBV_QPT_XRC_SEND:
		return axon_build_xrc_send_wqe(&qp->sq, wr, slot);
	default:
		return axon_build_send_wqe(&qp->sq, wr, slot);
	}
}

int axon_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct axon_qp *qp = to_axon_qp(ibqp);
	struct axon_wq *sq = &qp->sq;
	uint32_t pi;
	int err = 0;

	/* an XRC_RECV QP has no send queue */
	if (!sq->depth || !axon_can_post_send(ibqp)) {
		*bad_wr = wr;
		return EINVAL;
	}
	if (axon_cq_of_dead(ibqp->send_cq)) {
		*bad_wr = wr;
		return EIO;
	}

	pthread_spin_lock(&qp->sq_lock);
	pi = sq->pi;
	for (; wr; wr = wr->next) {
		if (axon_wq_full(sq, pi)) {
			err = ENOMEM;
			break;
		}
		err = axon_qp_build_send_wqe(qp, wr, axon_wq_slot(sq, pi));
		if (err)
			break;
		pi++;
	}
	if (pi != sq->pi)
		axon_sq_ring(qp, pi);
	pthread_spin_unlock(&qp->sq_lock);

	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * ibv_bind_mw(), for type 1 windows (libibverbs checks the type and that
 * MR and window share a PD): a BIND_MW WQE under the window's key with
 * the next tag, which is the window's key from then on, as libibverbs
 * expects. If the bind then fails, the window keeps its old key
 * (ibv_bind_mw(3): the caller restores it). EINVAL on a UD QP, and for
 * what axon_send_wqe_set_bind() refuses.
 */
int axon_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {
		.wr_id = mw_bind->wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = mw_bind->send_flags,
		.bind_mw = {
			.mw = mw,
			.rkey = ibv_inc_rkey(mw->rkey),
			.bind_info = mw_bind->bind_info,
		},
	}, *bad_wr;
	int err;

	err = axon_post_send(ibqp, &wr, &bad_wr);
	if (!err)
		mw->rkey = wr.bind_mw.rkey;
	return err;
}

int axon_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr)
{
	struct axon_qp *qp = to_axon_qp(ibqp);
	struct axon_wq *rq = &qp->rq;
	uint32_t pi;
	int err = 0;

	/* an SRQ's QP, an XRC one: no receive queue of its own */
	if (ibqp->state == IBV_QPS_RESET || qp->srq || !rq->depth) {
		*bad_wr = wr;
		return EINVAL;
	}
	if (axon_cq_of_dead(ibqp->recv_cq)) {
		*bad_wr = wr;
		return EIO;
	}

	pthread_spin_lock(&qp->rq_lock);
	pi = rq->pi;
	for (; wr; wr = wr->next) {
		if (axon_wq_full(rq, pi)) {
			err = ENOMEM;
			break;
		}
		err = axon_build_recv_wqe(rq, wr, axon_wq_slot(rq, pi));
		if (err)
			break;
		pi++;
	}
	if (pi != rq->pi) {
		__atomic_store_n(&rq->pi, pi, __ATOMIC_RELEASE);
		axon_to_device_barrier();
		axon_ring_db(qp->rq_db, qp->qpn, pi);
	}
	pthread_spin_unlock(&qp->rq_lock);

	if (err)
		*bad_wr = wr;
	return err;
}

int axon_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct axon_srq *srq = to_axon_srq(ibsrq);
	struct axon_wq *wq = &srq->wq;
	uint32_t pi;
	int err = 0;

	pthread_spin_lock(&srq->lock);
	pi = wq->pi;
	for (; wr; wr = wr->next) {
		if (axon_wq_full(wq, pi)) {
			err = ENOMEM;
			break;
		}
		err = axon_build_recv_wqe(wq, wr, axon_wq_slot(wq, pi));
		if (err)
			break;
		pi++;
	}
	if (pi != wq->pi) {
		__atomic_store_n(&wq->pi, pi, __ATOMIC_RELEASE);
		axon_to_device_barrier();
		axon_ring_db(srq->db, srq->srqn, pi);
	}
	pthread_spin_unlock(&srq->lock);

	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * The XRC SRQ of this CQ a receive CQE of an XRC target QP completes,
 * under the CQ lock: the one its src_qp names; NULL for none of them.
 */
static struct axon_srq *axon_cq_xrc_srq(struct axon_cq *cq,
					const struct axon_cqe *cqe)
{
	struct axon_srq *s;

	for (s = cq->xrc_srqs; s; s = s->xrc_next)
		if (s->srqn == le32toh(cqe->src_qp))
			return s;
	return NULL;
}

/*
 * A receive CQE naming no QP of the table: an XRC target QP's (of this
 * process or another), if the CQ serves XRC SRQs; it retires one of the
 * SRQ's WQEs.
 */
static bool axon_cq_xrc_retire(struct axon_cq *cq, const struct axon_cqe *cqe)
{
	struct axon_srq *srq;

	if (!(cqe->flags & AXON_CQE_RECV) ||
	    le32toh(cqe->qpn) == AXON_QPN_PURGED)
		return false;
	srq = axon_cq_xrc_srq(cq, cqe);
	return srq && axon_srq_retire(&srq->wq);
}

/*
 * Consume the next CQE and retire the WQEs it completes; *dest_qpn is
 * its QP's peer (0 for an XRC target QP's). CQEs naming no QP of this
 * context (purged ones included) or no outstanding WQE of it are
 * dropped, but for XRC SRQs' receives.
 */
static struct axon_cqe *axon_cq_next(struct axon_cq *cq, uint32_t *dest_qpn)
{
	struct axon_context *ctx = to_axon_ctx(cq->vcq.cq.context);
	struct axon_cqe *cqe;
	struct axon_qp *qp;
	bool live;

	while ((cqe = axon_cqe_peek(&cq->ring))) {
		cq->ring.ci++;
		qp = axon_qp_find(ctx, le32toh(cqe->qpn));
		if (!qp) {
			if (cq->xrc_srqs && axon_cq_xrc_retire(cq, cqe)) {
				*dest_qpn = 0;
				return cqe;
			}
			continue;
		}
		if (cqe->flags & AXON_CQE_RECV)
			live = qp->srq ? axon_srq_retire(&qp->srq->wq) :
					 axon_rq_retire(&qp->rq);
		else
			live = axon_sq_retire(&qp->sq, le16toh(cqe->wqe_index));
		if (live) {
			*dest_qpn = qp->dest_qpn;
			return cqe;
		}
	}
	return NULL;
}

/* Give consumed CQEs back to the device, if there are new ones. */
static void axon_cq_update_dbrec(struct axon_cq *cq)
{
	if (le32toh(cq->ring.dbrec->cons_index) != cq->ring.ci)
		axon_cq_publish(&cq->ring);
}

int axon_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct axon_cq *cq = to_axon_cq(ibcq);
	struct axon_cqe *cqe;
	uint32_t dest_qpn;
	int n;

	pthread_spin_lock(&cq->lock);
	for (n = 0; n < num_entries; n++) {
		cqe = axon_cq_next(cq, &dest_qpn);
		if (!cqe)
			break;
		axon_cqe_to_wc(cqe, dest_qpn, &wc[n]);
	}
	axon_cq_update_dbrec(cq);
	/*
	 * The device is gone (unplugged, driver removed, failed): what it
	 * completed was returned above; an empty ring stays empty, so
	 * fail rather than let the caller spin on it.
	 */
	if (!n && num_entries > 0 && axon_cq_dead(&cq->ring))
		n = -EIO;
	pthread_spin_unlock(&cq->lock);

	return n;
}

int axon_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct axon_cq *cq = to_axon_cq(ibcq);

	axon_ring_db(cq->db, cq->cqn,
		     solicited_only ? AXON_CQ_ARM_SOLICITED : AXON_CQ_ARM_NEXT);
	return 0;
}

/* --- a QP leaving the table or RESET: its CQs' pollers kept out --------- */

/*
 * The QP's CQs in locking order, by cqn; second is NULL if they are one.
 * An XRC_SEND QP has only its send CQ (libibverbs keeps the recv_cq it
 * was given, which the QP does not use).
 */
static void axon_qp_cqs(struct axon_qp *qp, struct axon_cq **first,
			struct axon_cq **second)
{
	struct axon_cq *scq = to_axon_cq(qp->vqp.qp.send_cq);
	struct axon_cq *rcq = qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND ? scq :
			      to_axon_cq(qp->vqp.qp.recv_cq);

	if (scq == rcq) {
		*first = scq;
		*second = NULL;
	} else if (scq->cqn < rcq->cqn) {
		*first = scq;
		*second = rcq;
	} else {
		*first = rcq;
		*second = scq;
	}
}

/*
 * Pollers look QPs up and retire their WQEs under the CQ lock: with the
 * QP's CQs locked, no CQE can reach the QP.
 */
void axon_qp_lock_cqs(struct axon_qp *qp)
{
	struct axon_cq *first, *second;

	axon_qp_cqs(qp, &first, &second);
	pthread_spin_lock(&first->lock);
	if (second)
		pthread_spin_lock(&second->lock);
}

void axon_qp_unlock_cqs(struct axon_qp *qp)
{
	struct axon_cq *first, *second;

	axon_qp_cqs(qp, &first, &second);
	if (second)
		pthread_spin_unlock(&second->lock);
	pthread_spin_unlock(&first->lock);
}

/*
 * Under axon_qp_lock_cqs(): drop the QP's CQEs not polled yet, so that
 * they cannot retire WQEs of a QP that reuses the queues or the qpn.
 */
void axon_qp_purge_cqes(struct axon_qp *qp)
{
	struct axon_cq *first, *second;

	unsigned int recv, recv2 = 0, n;

	axon_qp_cqs(qp, &first, &second);
	axon_cq_purge(&first->ring, qp->qpn, &recv);
	if (second)
		axon_cq_purge(&second->ring, qp->qpn, &recv2);
	/* the SRQ's WQEs these complete are free */
	for (n = recv + recv2; qp->srq && n; n--)
		axon_srq_retire(&qp->srq->wq);
}

/* The device forgot both queues (RESET): restart them at slot 0. */
void axon_qp_reset_queues(struct axon_qp *qp)
{
	axon_qp_lock_cqs(qp);
	axon_qp_purge_cqes(qp);
	pthread_spin_lock(&qp->sq_lock);
	pthread_spin_lock(&qp->rq_lock);
	qp->sq.pi = qp->sq.ci = 0;
	qp->rq.pi = qp->rq.ci = 0;
	/* the device polls no QP in RESET: a word left set is stale */
	if (qp->sq_dbrec)
		*qp->sq_dbrec = (struct axon_sq_dbrec){ 0 };
	pthread_spin_unlock(&qp->rq_lock);
	pthread_spin_unlock(&qp->sq_lock);
	axon_qp_unlock_cqs(qp);
}

/* --- ibv_create_cq_ex(): ibv_start_poll() and friends ------------------- */

static int axon_cq_read_next(struct axon_cq *cq)
{
	struct ibv_cq_ex *ibcq = &cq->vcq.cq_ex;
	struct axon_cqe *cqe;

	cqe = axon_cq_next(cq, &cq->cur_dest_qpn);
	if (!cqe)
		return axon_cq_dead(&cq->ring) ? EIO : ENOENT;
	cq->cur = cqe;
	ibcq->wr_id = le64toh(cqe->wr_id);
	ibcq->status = (enum ibv_wc_status)cqe->status;
	return 0;
}

static int axon_start_poll_unlocked(struct ibv_cq_ex *ibcq,
				    struct ibv_poll_cq_attr *attr)
{
	struct axon_cq *cq = to_axon_cq_ex(ibcq);
	int err;

	if (attr->comp_mask)
		return EINVAL;
	err = axon_cq_read_next(cq);
	if (err)
		axon_cq_update_dbrec(cq);
	return err;
}

static int axon_next_poll(struct ibv_cq_ex *ibcq)
{
	return axon_cq_read_next(to_axon_cq_ex(ibcq));
}

static void axon_end_poll_unlocked(struct ibv_cq_ex *ibcq)
{
	axon_cq_update_dbrec(to_axon_cq_ex(ibcq));
}

/* The CQ lock is held from a successful start_poll to end_poll. */
static int axon_start_poll(struct ibv_cq_ex *ibcq,
			   struct ibv_poll_cq_attr *attr)
{
	struct axon_cq *cq = to_axon_cq_ex(ibcq);
	int err;

	pthread_spin_lock(&cq->lock);
	err = axon_start_poll_unlocked(ibcq, attr);
	if (err)
		pthread_spin_unlock(&cq->lock);
	return err;
}

static void axon_end_poll(struct ibv_cq_ex *ibcq)
{
	struct axon_cq *cq = to_axon_cq_ex(ibcq);

	axon_cq_update_dbrec(cq);
	pthread_spin_unlock(&cq->lock);
}

static enum ibv_wc_opcode axon_wc_read_opcode(struct ibv_cq_ex *ibcq)
{
	return (enum ibv_wc_opcode)to_axon_cq_ex(ibcq)->cur->opcode;
}

static uint32_t axon_wc_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return to_axon_cq_ex(ibcq)->cur->vendor_err;
}

static uint32_t axon_wc_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return le32toh(to_axon_cq_ex(ibcq)->cur->byte_len);
}

/* ibv_wc_read_invalidated_rkey() reads this too (see axon_cqe_imm()). */
static __be32 axon_wc_read_imm_data(struct ibv_cq_ex *ibcq)
{
	return axon_cqe_imm(to_axon_cq_ex(ibcq)->cur);
}

static uint32_t axon_wc_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return le32toh(to_axon_cq_ex(ibcq)->cur->qpn);
}

static uint32_t axon_wc_read_src_qp(struct ibv_cq_ex *ibcq)
{
	struct axon_cq *cq = to_axon_cq_ex(ibcq);

	return axon_cqe_src_qp(cq->cur, cq->cur_dest_qpn);
}

static unsigned int axon_wc_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return axon_cqe_wc_flags(to_axon_cq_ex(ibcq)->cur);
}

static uint8_t axon_wc_read_sl(struct ibv_cq_ex *ibcq)
{
	return axon_cqe_sl(to_axon_cq_ex(ibcq)->cur);
}

/* RoCE: no LIDs or path bits. */
static uint64_t axon_wc_read_completion_ts(struct ibv_cq_ex *ibcq)
{
	return axon_cqe_timestamp(to_axon_cq_ex(ibcq)->cur);
}

static uint64_t axon_wc_read_completion_wallclock_ns(struct ibv_cq_ex *ibcq)
{
	return axon_clock_to_wallclock(to_axon_ctx(ibcq->context),
				       axon_wc_read_completion_ts(ibcq));
}

static uint32_t axon_wc_read_zero32(struct ibv_cq_ex *ibcq __maybe_unused)
{
	return 0;
}

static uint8_t axon_wc_read_zero8(struct ibv_cq_ex *ibcq __maybe_unused)
{
	return 0;
}

void axon_cq_ex_set_ops(struct axon_cq *cq, uint64_t wc_flags,
			bool single_threaded)
{
	struct ibv_cq_ex *ibcq = &cq->vcq.cq_ex;

	if (single_threaded) {
		ibcq->start_poll = axon_start_poll_unlocked;
		ibcq->end_poll = axon_end_poll_unlocked;
	} else {
		ibcq->start_poll = axon_start_poll;
		ibcq->end_poll = axon_end_poll;
	}
	ibcq->next_poll = axon_next_poll;
	ibcq->read_opcode = axon_wc_read_opcode;
	ibcq->read_vendor_err = axon_wc_read_vendor_err;
	ibcq->read_byte_len = axon_wc_read_byte_len;
	ibcq->read_imm_data = axon_wc_read_imm_data;
	ibcq->read_qp_num = axon_wc_read_qp_num;
	ibcq->read_src_qp = axon_wc_read_src_qp;
	ibcq->read_wc_flags = axon_wc_read_wc_flags;
	ibcq->read_slid = axon_wc_read_zero32;
	ibcq->read_sl = axon_wc_read_sl;
	ibcq->read_dlid_path_bits = axon_wc_read_zero8;
	if (wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP)
		ibcq->read_completion_ts = axon_wc_read_completion_ts;
	if (wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
		ibcq->read_completion_wallclock_ns =
			axon_wc_read_completion_wallclock_ns;
}

/* --- ibv_create_qp_ex(): ibv_wr_start() and friends --------------------- */

/*
 * Start the next WQE of the batch. After the first error the rest of the
 * batch is ignored and ibv_wr_complete() returns that error.
 */
static struct axon_send_wqe *axon_wr_begin(struct axon_qp *qp, uint8_t opcode)
{
	struct ibv_qp_ex *ibqp = &qp->vqp.qp_ex;

	qp->cur = NULL;
	/*
	 * An XRC_SEND QP's WQE that goes on the wire needs its SRQ,
	 * ibv_wr_set_xrc_srqn(), before the next one starts or the batch
	 * completes, as a UD one its address.
	 */
	if (ibqp->qp_base.qp_type == IBV_QPT_XRC_SEND) {
		if (qp->wr_need_addr && !qp->wr_err)
			qp->wr_err = EINVAL;
		qp->wr_need_addr = !axon_wr_local(opcode);
	}
	if (qp->wr_err)
		return NULL;
	if (axon_wq_full(&qp->sq, qp->wr_pi)) {
		qp->wr_err = ENOMEM;
		return NULL;
	}
	/* Inline is chosen by ibv_wr_set_inline_data*(), not by the flag. */
	qp->cur = axon_send_wqe_init(axon_wq_slot(&qp->sq, qp->wr_pi), opcode,
				     axon_wqe_flags(ibqp->wr_flags &
						    ~IBV_SEND_INLINE),
				     ibqp->wr_id);
	qp->wr_pi++;
	return qp->cur;
}

static void axon_wr_send(struct ibv_qp_ex *ibqp)
{
	axon_wr_begin(to_axon_qp_ex(ibqp), AXON_WR_SEND);
}

static void axon_wr_send_imm(struct ibv_qp_ex *ibqp, __be32 imm_data)
{
	struct axon_send_wqe *wqe;

	wqe = axon_wr_begin(to_axon_qp_ex(ibqp), AXON_WR_SEND_IMM);
	if (wqe)
		wqe->imm_data = imm_data;
}

/* SEND_INV and LOCAL_INV: the key the peer or the QP invalidates. */
static void axon_wr_inv(struct ibv_qp_ex *ibqp, uint8_t opcode,
			uint32_t invalidate_rkey)
{
	struct axon_send_wqe *wqe;

	wqe = axon_wr_begin(to_axon_qp_ex(ibqp), opcode);
	if (wqe)
		wqe->rkey = htole32(invalidate_rkey);
}

static void axon_wr_send_inv(struct ibv_qp_ex *ibqp, uint32_t invalidate_rkey)
{
	axon_wr_inv(ibqp, AXON_WR_SEND_INV, invalidate_rkey);
}

static void axon_wr_local_inv(struct ibv_qp_ex *ibqp, uint32_t invalidate_rkey)
{
	axon_wr_inv(ibqp, AXON_WR_LOCAL_INV, invalidate_rkey);
}

/* A window of either type, as with ibv_post_send(); the key is not kept. */
static void axon_wr_bind_mw(struct ibv_qp_ex *ibqp, struct ibv_mw *mw,
			    uint32_t rkey,
			    const struct ibv_mw_bind_info *bind_info)
{
	struct axon_qp *qp = to_axon_qp_ex(ibqp);
	struct axon_send_wqe *wqe;

	wqe = axon_wr_begin(qp, AXON_WR_BIND_MW);
	if (wqe)
		qp->wr_err = axon_send_wqe_set_bind(wqe, mw, rkey, bind_info);
}

/*
 * A UD QP's WQE needs a destination, ibv_wr_set_ud_addr(), before the
 * next one starts or the batch completes: EINVAL otherwise, as for a
 * fence, which orders nothing on a QP without READs or atomics.
 */
static void axon_wr_ud_begin(struct axon_qp *qp, uint8_t opcode,
			     __be32 imm_data)
{
	struct axon_send_wqe *wqe;

	if (!qp->wr_err && (qp->wr_need_addr ||
			    qp->vqp.qp_ex.wr_flags & IBV_SEND_FENCE))
		qp->wr_err = EINVAL;
	qp->wr_need_addr = true;
	wqe = axon_wr_begin(qp, opcode);
	if (wqe)
		wqe->imm_data = imm_data;
}

static void axon_wr_ud_send(struct ibv_qp_ex *ibqp)
{
	axon_wr_ud_begin(to_axon_qp_ex(ibqp), AXON_WR_SEND, 0);
}

static void axon_wr_ud_send_imm(struct ibv_qp_ex *ibqp, __be32 imm_data)
{
	axon_wr_ud_begin(to_axon_qp_ex(ibqp), AXON_WR_SEND_IMM, imm_data);
}

/* An address handle of the QP's PD, and the QP and Q_Key behind it. */
static void axon_wr_set_ud_addr(struct ibv_qp_ex *ibqp, struct ibv_ah *ah,
				uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct axon_qp *qp = to_axon_qp_ex(ibqp);

	if (!qp->cur)
		return;
	qp->wr_need_addr = false;
	qp->wr_err = axon_send_wqe_set_ud(qp->cur, ibqp->qp_base.pd, ah,
					  remote_qpn, remote_qkey);
}

/*
 * The XRC SRQ at the target of an XRC_SEND QP's WQE, 24 bits (EINVAL
 * otherwise); meaningless for LOCAL_INV and BIND_MW, whose segments use
 * its bytes: ignored for them.
 */
static void axon_wr_set_xrc_srqn(struct ibv_qp_ex *ibqp, uint32_t remote_srqn)
{
	struct axon_qp *qp = to_axon_qp_ex(ibqp);

	if (!qp->cur || axon_wr_local(qp->cur->opcode))
		return;
	qp->wr_need_addr = false;
	qp->wr_err = axon_send_wqe_set_xrc(qp->cur, remote_srqn);
}

static void axon_wr_remote(struct ibv_qp_ex *ibqp, uint8_t opcode,
			   uint32_t rkey, uint64_t remote_addr, __be32 imm_data)
{
	struct axon_send_wqe *wqe;

	wqe = axon_wr_begin(to_axon_qp_ex(ibqp), opcode);
	if (!wqe)
		return;
	wqe->remote_addr = htole64(remote_addr);
	wqe->rkey = htole32(rkey);
	wqe->imm_data = imm_data;
}

static void axon_wr_rdma_write(struct ibv_qp_ex *ibqp, uint32_t rkey,
			       uint64_t remote_addr)
{
	axon_wr_remote(ibqp, AXON_WR_RDMA_WRITE, rkey, remote_addr, 0);
}

static void axon_wr_rdma_write_imm(struct ibv_qp_ex *ibqp, uint32_t rkey,
				   uint64_t remote_addr, __be32 imm_data)
{
	axon_wr_remote(ibqp, AXON_WR_RDMA_WRITE_IMM, rkey, remote_addr,
		       imm_data);
}

static void axon_wr_rdma_read(struct ibv_qp_ex *ibqp, uint32_t rkey,
			      uint64_t remote_addr)
{
	axon_wr_remote(ibqp, AXON_WR_RDMA_READ, rkey, remote_addr, 0);
}

static void axon_wr_atomic(struct ibv_qp_ex *ibqp, uint8_t opcode,
			   uint32_t rkey, uint64_t remote_addr,
			   uint64_t compare_add, uint64_t swap)
{
	struct axon_send_wqe *wqe;

	wqe = axon_wr_begin(to_axon_qp_ex(ibqp), opcode);
	if (!wqe)
		return;
	wqe->remote_addr = htole64(remote_addr);
	wqe->rkey = htole32(rkey);
	wqe->compare_add = htole64(compare_add);
	wqe->swap = htole64(swap);
}

static void axon_wr_atomic_cmp_swp(struct ibv_qp_ex *ibqp, uint32_t rkey,
				   uint64_t remote_addr, uint64_t compare,
				   uint64_t swap)
{
	axon_wr_atomic(ibqp, AXON_WR_ATOMIC_CMP_SWP, rkey, remote_addr,
		       compare, swap);
}

static void axon_wr_atomic_fetch_add(struct ibv_qp_ex *ibqp, uint32_t rkey,
				     uint64_t remote_addr, uint64_t add)
{
	axon_wr_atomic(ibqp, AXON_WR_ATOMIC_FETCH_ADD, rkey, remote_addr, add,
		       0);
}

static void axon_wr_set_sge_list(struct ibv_qp_ex *ibqp, size_t num_sge,
				 const struct ibv_sge *sg_list)
{
	struct axon_qp *qp = to_axon_qp_ex(ibqp);
	struct axon_send_wqe *wqe = qp->cur;
	struct axon_sge *sge;
	size_t i;

	if (!wqe)
		return;
	if (num_sge > qp->sq.max_sge || axon_wr_local(wqe->opcode)) {
		qp->wr_err = EINVAL;
		return;
	}
	sge = axon_send_wqe_sges(wqe);
	for (i = 0; i < num_sge; i++)
		axon_wqe_set_sge(&sge[i], sg_list[i].addr, sg_list[i].length,
				 sg_list[i].lkey);
	wqe->num_sge = num_sge;
}

static void axon_wr_set_sge(struct ibv_qp_ex *ibqp, uint32_t lkey,
			    uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	axon_wr_set_sge_list(ibqp, 1, &sge);
}

/* Only data the requester sends can be inline. */
static bool axon_opcode_sends_data(uint8_t opcode)
{
	return opcode == AXON_WR_SEND || opcode == AXON_WR_SEND_IMM ||
	       opcode == AXON_WR_SEND_INV || opcode == AXON_WR_RDMA_WRITE ||
	       opcode == AXON_WR_RDMA_WRITE_IMM;
}

static void axon_wr_set_inline_data_list(struct ibv_qp_ex *ibqp,
					 size_t num_buf,
					 const struct ibv_data_buf *buf_list)
{
	struct axon_qp *qp = to_axon_qp_ex(ibqp);
	struct axon_send_wqe *wqe = qp->cur;
	size_t i;

	if (!wqe)
		return;
	if (!axon_opcode_sends_data(wqe->opcode)) {
		qp->wr_err = EINVAL;
		return;
	}
	wqe->flags |= AXON_WQE_INLINE;
	wqe->num_sge = 0;
	wqe->inline_len = 0;
	for (i = 0; i < num_buf; i++) {
		qp->wr_err = axon_wqe_add_inline(&qp->sq, wqe, buf_list[i].addr,
						 buf_list[i].length);
		if (qp->wr_err)
			return;
	}
}

static void axon_wr_set_inline_data(struct ibv_qp_ex *ibqp, void *addr,
				    size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	axon_wr_set_inline_data_list(ibqp, 1, &buf);
}

/* The SQ lock is held from ibv_wr_start() to ibv_wr_complete()/abort(). */
static void axon_wr_start(struct ibv_qp_ex *ibqp)
{
	struct axon_qp *qp = to_axon_qp_ex(ibqp);

	pthread_spin_lock(&qp->sq_lock);
	qp->wr_pi = qp->sq.pi;
	qp->cur = NULL;
	qp->wr_need_addr = false;
	qp->wr_err = !axon_can_post_send(&ibqp->qp_base) ? EINVAL :
		     axon_cq_of_dead(ibqp->qp_base.send_cq) ? EIO : 0;
}

/* Post the batch, or nothing of it if any part failed. */
static int axon_wr_complete(struct ibv_qp_ex *ibqp)
{
	struct axon_qp *qp = to_axon_qp_ex(ibqp);
	int err = qp->wr_err ?: (qp->wr_need_addr ? EINVAL : 0);

	if (!err && qp->wr_pi != qp->sq.pi)
		axon_sq_ring(qp, qp->wr_pi);
	pthread_spin_unlock(&qp->sq_lock);
	return err;
}

static void axon_wr_abort(struct ibv_qp_ex *ibqp)
{
	pthread_spin_unlock(&to_axon_qp_ex(ibqp)->sq_lock);
}

/*
 * Chosen by QP type: a UD QP sends SENDs, each to an address handle; a UC
 * QP SENDs and WRITEs; a RUD QP (IBV_QPT_DRIVER) READs too; an RC QP
 * atomics and window operations too; an XRC_SEND QP what an RC QP does,
 * each WQE to an XRC SRQ.
 */
void axon_qp_ex_set_ops(struct axon_qp *qp)
{
	struct ibv_qp_ex *ibqp = &qp->vqp.qp_ex;
	enum ibv_qp_type type = qp->vqp.qp.qp_type;

	if (type == IBV_QPT_UD) {
		ibqp->wr_send = axon_wr_ud_send;
		ibqp->wr_send_imm = axon_wr_ud_send_imm;
		ibqp->wr_set_ud_addr = axon_wr_set_ud_addr;
	} else {
		ibqp->wr_send = axon_wr_send;
		ibqp->wr_send_imm = axon_wr_send_imm;
		ibqp->wr_rdma_write = axon_wr_rdma_write;
		ibqp->wr_rdma_write_imm = axon_wr_rdma_write_imm;
	}
	if (type == IBV_QPT_RC || type == IBV_QPT_XRC_SEND ||
	    type == IBV_QPT_DRIVER)
		ibqp->wr_rdma_read = axon_wr_rdma_read;
	if (type == IBV_QPT_XRC_SEND)
		ibqp->wr_set_xrc_srqn = axon_wr_set_xrc_srqn;
	if (type == IBV_QPT_RC || type == IBV_QPT_XRC_SEND) {
		ibqp->wr_atomic_cmp_swp = axon_wr_atomic_cmp_swp;
		ibqp->wr_atomic_fetch_add = axon_wr_atomic_fetch_add;
		ibqp->wr_send_inv = axon_wr_send_inv;
		ibqp->wr_local_inv = axon_wr_local_inv;
		ibqp->wr_bind_mw = axon_wr_bind_mw;
	}
	ibqp->wr_set_sge = axon_wr_set_sge;
	ibqp->wr_set_sge_list = axon_wr_set_sge_list;
	ibqp->wr_set_inline_data = axon_wr_set_inline_data;
	ibqp->wr_set_inline_data_list = axon_wr_set_inline_data_list;
	ibqp->wr_start = axon_wr_start;
	ibqp->wr_complete = axon_wr_complete;
	ibqp->wr_abort = axon_wr_abort;
}
