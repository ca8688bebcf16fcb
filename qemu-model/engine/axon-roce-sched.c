/*
 * axon engine: the RC transport's engine and timers
 *
 * The engine bottom half runs the scheduled QPs' requesters round robin
 * within a budget, with the READ responses and atomic ACKs their
 * responders owe (a long READ is answered a turn at a time), and sends
 * the ACKs the responders owe, coalesced; a send doorbell runs its QP's
 * first packets at once. The ACK timeout and the RNR wait share one
 * timer per QP. The QP state machine (axon-qp.c) calls in here when
 * a QP reaches RTR, RTS or ERR.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce.h"

void axon_roce_ack_owed(AxonEngine *eng, AxonQp *qp)
{
    if (!qp->in_acks) {
        return;
    }
    TAILQ_REMOVE(&eng->acks, qp, acks);
    qp->in_acks = false;
    if (qp->state != AXON_QPS_RTR && qp->state != AXON_QPS_RTS) {
        return;
    }
    if (qp->type == AXON_QPT_RUD) {
        axon_rud_send_ack(eng, qp);
    } else {
        axon_roce_resp_ack(eng, qp);
    }
}

static void axon_roce_flush_acks(AxonEngine *eng)
{
    AxonQp *qp;

    while ((qp = TAILQ_FIRST(&eng->acks))) {
        axon_roce_ack_owed(eng, qp);
    }
}

static void axon_roce_retry_timer(void *opaque)
{
    AxonQp *qp = opaque;
    AxonEngine *eng = qp->eng;
    AxonSwqe *e;

    if (!axon_env_running(eng->env) || qp->state != AXON_QPS_RTS) {
        return;
    }
    if (qp->comp.rnr_wait) {
        qp->comp.rnr_wait = false;
        axon_roce_schedule(eng, qp);
        return;
    }
    if (!axon_roce_outstanding(qp)) {
        return;
    }
    if (axon_env_now_ns(eng->env) <
        qp->comp.progress_ns + axon_roce_timeout_ns(qp)) {
        axon_env_timer_mod(qp->comp.retry_timer,
                           qp->comp.progress_ns + axon_roce_timeout_ns(qp));
        return;
    }
    e = axon_win(qp, qp->comp.sq_comp);
    axon_trace_roce_timeout(eng->env, qp->qpn, qp->comp.una_psn,
                            qp->comp.retry_left);
    qp->stats.timeouts++;
    if (!qp->comp.retry_left) {
        axon_roce_fail(qp, e, AXON_WC_RETRY_EXC_ERR);
        axon_roce_complete(eng, qp);
        return;
    }
    qp->comp.retry_left--;
    axon_roce_rewind(qp, qp->comp.una_psn);
    axon_roce_arm_retry(qp, true);
    axon_roce_schedule(eng, qp);
}

void axon_roce_qp_stop(AxonEngine *eng, AxonQp *qp)
{
    axon_env_timer_del(qp->comp.retry_timer);
    axon_env_timer_del(qp->cc.pace_timer);
    axon_rud_stop(qp);
    axon_roce_resp_stop(qp);
    qp->comp.rnr_wait = false;
    qp->comp.retry_idle = false;
    axon_roce_unqueue(eng, qp);
}

/* false: out of memory (the caller frees what was made) */
bool axon_roce_qp_init(AxonEngine *eng, AxonQp *qp)
{
    qp->eng = eng;
    qp->resp.last_op = IB_NO_OPCODE;
    qp->comp.retry_timer = axon_env_timer_new(eng->env, axon_roce_retry_timer,
                                              qp);
    axon_cc_qp_init(qp);
    return qp->type != AXON_QPT_RUD || axon_rud_qp_init(qp);
}

/*
 * INIT -> RTR: the path, MTU and PSN are set, once (never in flight). A
 * UD QP's messages take the port's MTU; each names its own destination.
 */
void axon_roce_qp_rtr(AxonEngine *eng, AxonQp *qp)
{
    if (qp->type == AXON_QPT_UD) {
        qp->mtu = AXON_ENGINE_ACTIVE_MTU;
        return;
    }
    qp->loopback = axon_roce_dest_is_local(eng, qp->attr.dmac, qp->attr.dgid);
    qp->mtu = le32_to_cpu(qp->attr.path_mtu);
    qp->resp.epsn = le32_to_cpu(qp->attr.rq_psn);
    qp->resp.msn = 0;
    qp->resp.nak_sent = false;
    qp->resp.last_op = IB_NO_OPCODE;
    qp->resp.recv_active = false;
    if (qp->rud) {
        axon_rud_rtr(eng, qp);
    }
}

void axon_roce_qp_rts(AxonEngine *eng, AxonQp *qp)
{
    uint32_t psn = le32_to_cpu(qp->attr.sq_psn);

    qp->req.cur_psn = qp->req.psn_hi = qp->comp.una_psn = psn;
    qp->req.cur = qp->comp.sq_comp = qp->req.sq_fetch;
    qp->req.cur_off = 0;
    qp->comp.retry_left = qp->attr.retry_cnt;
    qp->comp.rnr_left = qp->attr.rnr_retry;
    axon_cc_qp_reset(qp);
    if (qp->rud) {
        axon_rud_rts(eng, qp);
    }
    axon_roce_schedule(eng, qp);
}

/*
 * In ERR: the transport stops (axon_qp_error() left that to the engine),
 * and every outstanding and newly posted WQE completes flushed.
 */
void axon_roce_flush(AxonEngine *eng, AxonQp *qp)
{
    axon_roce_qp_stop(eng, qp);
    if (qp->rud) {
        axon_rud_flush(eng, qp);
    }
    while (qp->comp.sq_comp != qp->req.sq_fetch) {
        AxonSwqe *e = axon_win(qp, qp->comp.sq_comp++);

        if (!e->done) {
            e->status = AXON_WC_WR_FLUSH_ERR;
        }
        axon_roce_swqe_cqe(eng, qp, e);
    }
    while (qp->comp.sq_comp != qp->sq.pi) {
        uint16_t idx = qp->comp.sq_comp++;
        struct axon_send_wqe w = {};

        axon_env_dma_read(eng->env, qp->sq.base +
                          ((uint64_t)(idx & (qp->sq.depth - 1)) <<
                          qp->sq.shift), &w, 16);
        axon_qp_cqe(eng, qp, false, le64_to_cpu(w.wr_id), idx,
                    axon_wc_opcode(w.opcode), AXON_WC_WR_FLUSH_ERR, 0, 0, 0);
    }
    qp->req.sq_fetch = qp->req.cur = qp->comp.sq_comp;
    qp->req.cur_off = 0;
    if (qp->srq) {
        /* only the WQE it took is the QP's; the rest stay in the SRQ */
        if (qp->resp.recv_active) {
            axon_qp_cqe(eng, qp, true, qp->resp.recv_wr_id, qp->resp.recv_idx,
                        AXON_WC_RECV, AXON_WC_WR_FLUSH_ERR, 0, 0, 0);
        }
        if (qp->last_wqe_owed) {
            qp->last_wqe_owed = false;
            axon_qp_event(eng, qp, AXON_EVENT_QP_LAST_WQE);
        }
    }
    while (qp->rq.ci != qp->rq.pi) {
        uint16_t idx = qp->rq.ci++;
        uint64_t wr_id = 0;

        axon_env_dma_read(eng->env, qp->rq.base +
                          ((uint64_t)(idx & (qp->rq.depth - 1)) <<
                          qp->rq.shift), &wr_id, sizeof(wr_id));
        wr_id = le64_to_cpu(wr_id);
        axon_qp_cqe(eng, qp, true, wr_id, idx, AXON_WC_RECV,
                    AXON_WC_WR_FLUSH_ERR, 0, 0, 0);
    }
    qp->resp.recv_active = false;
}

/*
 * RC's requester, for the packets congestion control lets it send now;
 * a QP it holds back is brought back by its pace timer, not the engine.
 * One that sent less than it was allowed stopped for its own reasons (its
 * window, a fence, an RNR wait): an ACK or its retry timer brings it
 * back, and a pace timer due at once would only spin.
 */
static unsigned axon_roce_rc_send(AxonEngine *eng, AxonQp *qp,
                                  unsigned budget)
{
    unsigned allowed = axon_cc_allowance(eng, qp, budget);
    uint64_t bytes = qp->stats.tx_bytes;
    unsigned n = allowed ? axon_roce_req_run(eng, qp, allowed) : 0;

    axon_cc_sent(eng, qp, n, qp->stats.tx_bytes - bytes,
                 n == allowed && allowed < budget && axon_roce_unsent(qp));
    return n;
}

/*
 * RC: the responses the responder owes (half the budget when the
 * requester has work too), then the requester.
 */
static unsigned axon_roce_rc_run(AxonEngine *eng, AxonQp *qp, unsigned budget)
{
    unsigned n = 0;

    if (axon_roce_answering(qp)) {
        n = axon_roce_resp_run(eng, qp, axon_roce_unsent(qp) ?
                               MAX(budget / 2, 1) : budget);
    }
    if (n < budget && qp->state == AXON_QPS_RTS) {
        n += axon_roce_rc_send(eng, qp, budget - n);
    }
    return n;
}

/* Runs the QP's sender for up to budget packets; returns how many. */
static unsigned axon_roce_send(AxonEngine *eng, AxonQp *qp, unsigned budget)
{
    switch (qp->type) {
    case AXON_QPT_UD:
        return axon_ud_req_run(eng, qp, budget);
    case AXON_QPT_UC:
        return axon_uc_req_run(eng, qp, budget);
    case AXON_QPT_RUD:
        return axon_rud_req_run(eng, qp, budget);
    default:
        return axon_roce_rc_run(eng, qp, budget);
    }
}

/*
 * The QP has more to send after a turn that sent n of quota: its
 * requester when the quota stopped it, not its window; responses owed in
 * any case (a turn with responses owed sends one at least: one that sent
 * nothing is not run again at once, so the engine cannot spin).
 */
static bool axon_roce_more(AxonQp *qp, unsigned n, unsigned quota)
{
    return (axon_roce_answering(qp) && n) ||
           (n == quota && axon_roce_unsent(qp));
}

/*
 * A send doorbell runs its QP's requester at once, for up to
 * AXON_ROCE_DB_BUDGET packets, in the thread that rang it (a vCPU's), and
 * leaves the rest to the engine bottom half. Under TCG, with vCPUs busy
 * polling, waking the main loop for one small message costs tens of
 * microseconds (e1000 transmits from its tail register write for the
 * same reason). The budget bounds how long a doorbell write can take;
 * engine_busy keeps a doorbell reached through the engine's own DMA from
 * running it re-entrantly. A host whose engine has a thread of its own
 * (conf.deferred_doorbells) wants the doorbell only scheduled.
 */
void axon_roce_kick(AxonEngine *eng, AxonQp *qp)
{
    unsigned n;

    if (qp->state != AXON_QPS_RTS || eng->engine_busy ||
        eng->conf.deferred_doorbells) {
        axon_roce_schedule(eng, qp);
        return;
    }
    eng->engine_busy = true;
    n = axon_roce_send(eng, qp, AXON_ROCE_DB_BUDGET);
    axon_roce_flush_acks(eng);
    eng->engine_busy = false;
    /* waking the main loop for nothing would only contend for the lock */
    if (axon_roce_more(qp, n, AXON_ROCE_DB_BUDGET)) {
        axon_roce_schedule(eng, qp);
    }
}

/*
 * The engine: runs the scheduled QPs round robin within a budget, so a
 * busy QP neither starves the others nor the vCPUs, then sends the ACKs
 * its responders owe (one per batch: coalesced).
 */
void axon_engine_run(AxonEngine *eng)
{
    unsigned budget = AXON_ROCE_BH_BUDGET;
    AxonQp *qp;

    if (!axon_env_running(eng->env)) {
        return;
    }
    eng->engine_busy = true;
    while (budget && (qp = TAILQ_FIRST(&eng->sched))) {
        unsigned n, quota = MIN(budget, AXON_ROCE_QP_BUDGET);

        TAILQ_REMOVE(&eng->sched, qp, sched);
        qp->scheduled = false;
        if (qp->state == AXON_QPS_ERR) {
            axon_roce_flush(eng, qp);
            continue;
        }
        n = axon_roce_send(eng, qp, quota);
        budget -= n;
        axon_roce_flush_acks(eng);
        /* stopped by the quota, not for want of work: not done yet */
        if (axon_roce_more(qp, n, quota)) {
            axon_roce_schedule(eng, qp);
        }
    }
    axon_roce_flush_acks(eng);
    eng->engine_busy = false;
    if (!TAILQ_EMPTY(&eng->sched)) {
        axon_env_kick(eng->env);
    }
}
