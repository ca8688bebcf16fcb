/*
 * axon engine: the RC completer (rxe_comp.c)
 *
 * What comes back to a requester: ACKs and NAKs, READ responses (placed
 * into the WQE's SGEs) and atomic ACKs. Each must be for a PSN that is
 * outstanding (Documentation/wire-security.rst); it acknowledges WQEs,
 * makes the requester go back (go-back-N) or fails a WQE. Finished WQEs
 * complete in order, with a CQE; a failed one moves the QP to ERR.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce.h"

#define AXON_ROCE_MIN_TIMEOUT_NS    (10 * SCALE_MS) /* TCG guests are slow */

/* The IB RNR timer encoding (IBA table 45), in microseconds. */
static const uint32_t axon_rnr_us[32] = {
    655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
    1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
    40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/* Local ACK timeout: 4.096 us * 2^timeout. */
int64_t axon_roce_timeout_ns(AxonQp *qp)
{
    return MAX(4096LL << qp->attr.timeout, AXON_ROCE_MIN_TIMEOUT_NS);
}

/*
 * Starts the ACK timer (timeout 0: none). progress (an answer came)
 * restarts the count, lazily: the timer, when it fires, sees the recent
 * progress and goes back to sleep, so answers do not re-arm a timer each.
 * So does the first packet after everything was answered: the timer was
 * left running then (axon_roce_complete()).
 */
void axon_roce_arm_retry(AxonQp *qp, bool progress)
{
    bool pending;
    int64_t now;

    if (!qp->attr.timeout) {
        return;
    }
    now = axon_env_now_ns(qp->eng->env);
    pending = axon_env_timer_pending(qp->comp.retry_timer);
    if (progress || qp->comp.retry_idle || !pending) {
        qp->comp.progress_ns = now;
        qp->comp.retry_idle = false;
    }
    if (!pending) {
        axon_env_timer_mod(qp->comp.retry_timer,
                           now + axon_roce_timeout_ns(qp));
    }
}

/* After an RNR NAK: nothing is sent before the timer it asked for. */
void axon_roce_rnr_wait(AxonQp *qp, uint8_t timer)
{
    qp->comp.rnr_wait = true;
    qp->comp.retry_idle = false;
    axon_env_timer_mod(qp->comp.retry_timer, axon_env_now_ns(qp->eng->env) +
                       axon_rnr_us[timer & 0x1f] * SCALE_US);
}

/* Everything before una is acknowledged: progress, for the ACK timer. */
static void axon_roce_set_una(AxonQp *qp, uint32_t una)
{
    if (axon_psn_diff(una, qp->comp.una_psn) > 0) {
        qp->comp.una_psn = una;
        qp->comp.progress_ns = axon_env_now_ns(qp->eng->env);
    }
}

uint8_t axon_wc_opcode(uint8_t wr_opcode)
{
    switch (wr_opcode) {
    case AXON_WR_RDMA_WRITE:
    case AXON_WR_RDMA_WRITE_IMM:
        return AXON_WC_RDMA_WRITE;
    case AXON_WR_RDMA_READ:
        return AXON_WC_RDMA_READ;
    case AXON_WR_ATOMIC_CMP_SWP:
        return AXON_WC_COMP_SWAP;
    case AXON_WR_ATOMIC_FETCH_ADD:
        return AXON_WC_FETCH_ADD;
    case AXON_WR_REG_MR:
        return AXON_WC_REG_MR;
    case AXON_WR_LOCAL_INV:
        return AXON_WC_LOCAL_INV;
    case AXON_WR_BIND_MW:
        return AXON_WC_BIND_MW;
    default:
        return AXON_WC_SEND;
    }
}

void axon_roce_swqe_cqe(AxonEngine *eng, AxonQp *qp, AxonSwqe *e)
{
    if (e->signaled || e->status != AXON_WC_SUCCESS) {
        axon_qp_cqe(eng, qp, false, e->wr_id, e->idx,
                    axon_wc_opcode(e->opcode), e->status, e->len, 0, 0);
    }
}

/* The cursor passes e, which completed before it was (re)sent. */
void axon_roce_skip(AxonQp *qp, AxonSwqe *e)
{
    qp->req.cur++;
    qp->req.cur_off = 0;
    if (e->npkts) {
        qp->req.cur_psn = axon_psn_add(e->first_psn, e->npkts);
    }
}

/* Completes finished WQEs in order; a failed one puts the QP in ERR. */
void axon_roce_complete(AxonEngine *eng, AxonQp *qp)
{
    while (qp->comp.sq_comp != qp->req.sq_fetch && qp->state == AXON_QPS_RTS) {
        AxonSwqe *e = axon_win(qp, qp->comp.sq_comp);

        if (!e->done) {
            break;
        }
        if (qp->req.cur == qp->comp.sq_comp) {
            axon_roce_skip(qp, e);
        }
        qp->comp.sq_comp++;
        axon_roce_swqe_cqe(eng, qp, e);
        if (e->status != AXON_WC_SUCCESS) {
            axon_qp_error(eng, qp);
        }
    }
    if (qp->state == AXON_QPS_RTS) {
        /*
         * Nothing in flight: the ACK timer is left to run out, not
         * stopped, or the next message would set it again, and setting the
         * earliest timer wakes the host's loop (QEMU's main loop, from the
         * vCPU that rang): a wake-up a message. It also times an RNR wait,
         * with nothing in flight.
         */
        if (!axon_roce_outstanding(qp) && !qp->comp.rnr_wait) {
            qp->comp.retry_idle = true;
        }
        if (axon_roce_unsent(qp)) {
            axon_roce_schedule(eng, qp);
        }
    }
}

/* Next transmission restarts at psn (go-back-N). */
void axon_roce_rewind(AxonQp *qp, uint32_t psn)
{
    uint16_t i;

    for (i = qp->comp.sq_comp; i != qp->req.sq_fetch; i++) {
        AxonSwqe *e = axon_win(qp, i);
        int32_t d = axon_psn_diff(psn, e->first_psn);

        if (e->done) {
            if (e->status != AXON_WC_SUCCESS) {
                break;
            }
            continue;
        }
        if (axon_psn_diff(psn, axon_psn_add(e->first_psn, e->npkts)) >= 0) {
            continue;
        }
        qp->req.cur = i;
        if (axon_swqe_rd_atomic(e)) {
            d = axon_psn_diff(e->resp_psn, e->first_psn);
        } else if (d < 0) {
            d = 0;
        }
        qp->req.cur_off = d * qp->mtu;
        qp->req.cur_psn = axon_psn_add(e->first_psn, d);
        return;
    }
    qp->req.cur = i;
    qp->req.cur_off = 0;
    qp->req.cur_psn = qp->req.psn_hi;
}

/* A READ or atomic lost (part of) its answer: ask again, once. */
static void axon_roce_reask(AxonQp *qp, AxonSwqe *e)
{
    if (e->reasked && e->reask_psn == e->resp_psn) {
        return;
    }
    e->reasked = true;
    e->reask_psn = e->resp_psn;
    axon_roce_rewind(qp, e->resp_psn);
}

/*
 * The answer of e needs a page that is absent (axon-odp.c): it is dropped
 * and asked for again once the QP has the page.
 */
static bool axon_roce_answer_waits(AxonEngine *eng, AxonQp *qp, AxonSwqe *e,
                                   uint32_t off, uint32_t len)
{
    if (!axon_odp_sge_wait(eng, qp, qp->pdn, e->sge, e->num_sge, off, len,
                           true)) {
        return false;
    }
    e->reasked = false;
    axon_roce_reask(qp, e);
    return true;
}

/*
 * Everything up to and including psn was received by the responder. The
 * acknowledgement stops at a READ or atomic still waiting for answers; if
 * it covers PSNs whose answers did not come, they were lost.
 */
static void axon_roce_acked(AxonQp *qp, uint32_t psn)
{
    uint32_t una = axon_psn_add(psn, 1);
    uint16_t i;

    for (i = qp->comp.sq_comp; i != qp->req.sq_fetch; i++) {
        AxonSwqe *e = axon_win(qp, i);
        uint32_t last = axon_psn_add(e->first_psn, e->npkts - 1);

        if (e->done) {
            continue;
        }
        if (axon_swqe_rd_atomic(e)) {
            if (axon_psn_diff(psn, e->resp_psn) >= 0) {
                axon_roce_reask(qp, e);
                una = e->resp_psn;
            }
            break;
        }
        if (axon_psn_diff(last, psn) > 0) {
            break;
        }
        e->done = true;
        e->status = AXON_WC_SUCCESS;
    }
    if (axon_psn_diff(una, qp->comp.una_psn) > 0) {
        axon_roce_set_una(qp, una);
        qp->comp.retry_left = qp->attr.retry_cnt;
        qp->comp.rnr_left = qp->attr.rnr_retry;
    }
    if (axon_psn_diff(qp->req.cur_psn, qp->comp.una_psn) < 0) {
        axon_roce_rewind(qp, qp->comp.una_psn);
    }
}

/* The WQE that sent psn, if it is still outstanding. */
static AxonSwqe *axon_roce_swqe_of(AxonQp *qp, uint32_t psn)
{
    uint16_t i;

    for (i = qp->comp.sq_comp; i != qp->req.sq_fetch; i++) {
        AxonSwqe *e = axon_win(qp, i);

        if (!e->done && axon_psn_diff(psn, e->first_psn) >= 0 &&
            axon_psn_diff(psn, axon_psn_add(e->first_psn, e->npkts)) < 0) {
            return e;
        }
    }
    return NULL;
}

void axon_roce_fail(AxonQp *qp, AxonSwqe *e, uint8_t status)
{
    e->done = true;
    e->status = status;
    qp->req.sq_stopped = true;
}

/*
 * e got an answer up to its resp_psn: that is acknowledged too, unless an
 * older READ or atomic still waits for its answer (which was lost).
 */
static void axon_roce_answered(AxonQp *qp, AxonSwqe *e)
{
    uint16_t i;

    for (i = qp->comp.sq_comp; axon_win(qp, i) != e; i++) {
        AxonSwqe *o = axon_win(qp, i);

        if (!o->done && axon_swqe_rd_atomic(o)) {
            return;
        }
    }
    axon_roce_set_una(qp, e->resp_psn);
}

static void axon_roce_read_resp_rx(AxonEngine *eng, AxonQp *qp,
                                   const AxonPkt *pkt)
{
    AxonSwqe *e = axon_roce_swqe_of(qp, pkt->psn);
    uint32_t k, off, want;
    bool last;

    if (!e || e->opcode != AXON_WR_RDMA_READ ||
        axon_psn_diff(pkt->psn, e->resp_psn) < 0) {
        eng->stats.stray++;      /* a duplicate, or not a READ's */
        qp->stats.stray++;
        return;
    }
    axon_roce_acked(qp, axon_psn_add(e->first_psn, -1));
    if (pkt->psn != e->resp_psn) {
        /* a response was lost */
        axon_roce_reask(qp, e);
        axon_roce_schedule(eng, qp);
        return;
    }
    k = axon_psn_diff(pkt->psn, e->first_psn);
    off = k * qp->mtu;
    last = k + 1 == e->npkts;
    want = last ? e->len - off : qp->mtu;
    /*
     * READs asked in parts, or again, answer FIRST ... LAST for each
     * part: only the lengths tell where the message ends.
     */
    if (pkt->len != want) {
        axon_roce_fail(qp, e, AXON_WC_BAD_RESP_ERR);
        return;
    }
    if (axon_roce_answer_waits(eng, qp, e, off, pkt->len)) {
        return;
    }
    if (!axon_mr_sge_rw(eng, qp->pdn, e->sge, e->num_sge, off,
                        (uint8_t *)pkt->payload, pkt->len,
                        AXON_DMA_FROM_DEVICE)) {
        axon_roce_fail(qp, e, AXON_WC_LOC_PROT_ERR);
        return;
    }
    e->resp_psn = axon_psn_add(e->resp_psn, 1);
    e->reasked = false;
    qp->comp.progress_ns = axon_env_now_ns(qp->eng->env);
    axon_roce_answered(qp, e);
    qp->comp.retry_left = qp->attr.retry_cnt;
    if (last) {
        e->done = true;
        e->status = AXON_WC_SUCCESS;
    }
}

static void axon_roce_atomic_ack_rx(AxonEngine *eng, AxonQp *qp,
                                    const AxonPkt *pkt)
{
    AxonSwqe *e = axon_roce_swqe_of(qp, pkt->psn);
    uint64_t orig = cpu_to_le64(pkt->orig);

    if (!e || e->opcode < AXON_WR_ATOMIC_CMP_SWP) {
        eng->stats.stray++;      /* a duplicate, or not an atomic's */
        qp->stats.stray++;
        return;
    }
    axon_roce_acked(qp, axon_psn_add(e->first_psn, -1));
    if (axon_roce_answer_waits(eng, qp, e, 0, 8)) {
        return;
    }
    if (!axon_mr_sge_rw(eng, qp->pdn, e->sge, e->num_sge, 0, (uint8_t *)&orig,
                        8,
                        AXON_DMA_FROM_DEVICE)) {
        axon_roce_fail(qp, e, AXON_WC_LOC_PROT_ERR);
        return;
    }
    e->resp_psn = axon_psn_add(e->resp_psn, 1);
    axon_roce_answered(qp, e);
    e->done = true;
    e->status = AXON_WC_SUCCESS;
}

/*
 * A NAK names the PSN of a request not yet acknowledged, sent by a WQE
 * still outstanding, with a syndrome the spec defines; anything else is
 * dropped, so only the peer can make a WQE fail.
 */
static AxonSwqe *axon_roce_check_nak(AxonQp *qp, const AxonPkt *pkt)
{
    uint8_t type = pkt->syndrome >> AETH_TYPE_SHIFT & 3;
    uint8_t code = pkt->syndrome & 0x1f;

    if (axon_psn_diff(pkt->psn, qp->comp.una_psn) < 0 ||
        (type == AETH_NAK && code > NAK_REM_OP) || type == AETH_RESERVED) {
        return NULL;
    }
    return axon_roce_swqe_of(qp, pkt->psn);
}

static void axon_roce_ack_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt)
{
    uint8_t type = pkt->syndrome >> AETH_TYPE_SHIFT & 3;
    uint8_t code = pkt->syndrome & 0x1f;
    AxonSwqe *e;

    if (type == AETH_ACK) {
        axon_roce_acked(qp, pkt->psn);
        return;
    }
    e = axon_roce_check_nak(qp, pkt);
    if (!e) {
        eng->stats.stray++;
        qp->stats.stray++;
        return;
    }
    eng->stats.naks++;
    if (type == AETH_RNR_NAK) {
        qp->stats.rnr_naks_rcvd++;
    } else if (type == AETH_NAK && code == NAK_PSN_SEQ) {
        qp->stats.seq_naks_rcvd++;
    } else {
        qp->stats.err_naks_rcvd++;
    }
    axon_roce_acked(qp, axon_psn_add(pkt->psn, -1));
    if (type == AETH_RNR_NAK) {
        axon_trace_roce_rnr(eng->env, qp->qpn, pkt->psn, qp->comp.rnr_left);
        if (qp->attr.rnr_retry != 7) {
            if (!qp->comp.rnr_left) {
                axon_roce_fail(qp, e, AXON_WC_RNR_RETRY_EXC_ERR);
                return;
            }
            qp->comp.rnr_left--;
        }
        axon_roce_rewind(qp, pkt->psn);
        axon_roce_rnr_wait(qp, code);
        return;
    }
    axon_trace_roce_nak(eng->env, qp->qpn, pkt->psn, code);
    switch (code) {
    case NAK_PSN_SEQ:
        axon_roce_rewind(qp, pkt->psn);
        break;
    case NAK_REM_ACCESS:
        axon_roce_fail(qp, e, AXON_WC_REM_ACCESS_ERR);
        break;
    case NAK_REM_OP:
        axon_roce_fail(qp, e, AXON_WC_REM_OP_ERR);
        break;
    default:
        axon_roce_fail(qp, e, AXON_WC_REM_INV_REQ_ERR);
        break;
    }
}

/* A response for a QP acting as requester. */
void axon_roce_comp_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt)
{
    if (qp->state != AXON_QPS_RTS) {
        eng->stats.rx_drops++;
        return;
    }
    /* only PSNs that were sent and are not yet acknowledged count */
    if (axon_psn_diff(pkt->psn, qp->req.psn_hi) >= 0 ||
        axon_psn_diff(pkt->psn, axon_psn_add(qp->comp.una_psn, -1)) < 0) {
        axon_trace_err_roce_psn(eng->env, qp->qpn, pkt->psn, qp->comp.una_psn,
                                qp->req.psn_hi);
        eng->stats.stray++;
        qp->stats.stray++;
        return;
    }
    switch (pkt->opcode) {
    case IB_ACK:
        axon_roce_ack_rx(eng, qp, pkt);
        break;
    case IB_ATOMIC_ACK:
        axon_roce_atomic_ack_rx(eng, qp, pkt);
        break;
    default:
        axon_roce_read_resp_rx(eng, qp, pkt);
        break;
    }
    if (axon_roce_outstanding(qp)) {
        axon_roce_arm_retry(qp, false);
    }
    axon_roce_complete(eng, qp);
}
