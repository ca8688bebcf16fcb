/*
 * axon engine: the RC responder (rxe_resp.c)
 *
 * Checks each request's PSN against the one expected: a duplicate is
 * answered from saved state (or acknowledged) and never executed again,
 * one ahead gets a sequence NAK (Documentation/wire-security.rst). The
 * expected one is checked (opcode sequence, length, key, PD, access
 * rights, bounds) before it touches host memory; then its payload is
 * placed (SEND into a receive WQE, WRITE through the rkey), a READ
 * answered, an atomic executed. A request that fails a check is NAKed
 * and the QP goes to ERR.
 *
 * READ responses and atomic ACKs are owed in the saved resources and
 * sent in PSN order, a burst (AXON_ROCE_RESP_BURST) while the request is
 * taken and the rest from the engine (axon_roce_resp_run), however long
 * the READ; an ACK or NAK for a later PSN waits for them.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce.h"

void axon_roce_send_ack(AxonEngine *eng, AxonQp *qp, uint8_t syndrome,
                        uint32_t psn)
{
    AxonPkt pkt = {
        .opcode = IB_ACK,
        .dqpn = le32_to_cpu(qp->attr.dest_qpn),
        .psn = psn,
        .syndrome = syndrome,
        .msn = qp->resp.msn,
    };

    if (syndrome >> AETH_TYPE_SHIFT != AETH_ACK) {
        eng->stats.naks++;
    }
    if (syndrome >> AETH_TYPE_SHIFT == AETH_RNR_NAK) {
        qp->stats.rnr_naks_sent++;
    } else if (syndrome == (AETH_NAK << AETH_TYPE_SHIFT | NAK_PSN_SEQ)) {
        qp->stats.seq_naks_sent++;
    } else if (syndrome >> AETH_TYPE_SHIFT == AETH_NAK) {
        qp->stats.err_naks_sent++;
    }
    axon_roce_xmit(eng, qp, &pkt);
}

/* Can the responder take requests and answer them? */
static bool axon_roce_resp_up(const AxonQp *qp)
{
    return qp->state == AXON_QPS_RTR || qp->state == AXON_QPS_RTS;
}

/* The QP fails with a NAK of psn: everything owed before it was sent. */
static void axon_roce_resp_fail_now(AxonEngine *eng, AxonQp *qp, uint32_t psn,
                                    uint8_t nak, uint16_t event,
                                    const char *why)
{
    axon_env_guest_error(eng->env, "QP %u: request PSN %u "
                         "refused (%s), NAK %u\n", qp->qpn, psn, why, nak);
    axon_trace_err_roce_resp(eng->env, qp->qpn, psn, nak, why);
    axon_roce_send_ack(eng, qp, AETH_NAK << AETH_TYPE_SHIFT | nak, psn);
    if (event) {
        axon_qp_event(eng, qp, event);
    }
    axon_qp_error(eng, qp);
}

/*
 * A request the responder cannot accept: NAK it, the QP goes to ERR. The
 * NAK leaves after the READ responses and atomic ACKs owed for earlier
 * PSNs (responses go in PSN order); meanwhile no request is taken.
 */
static void axon_roce_resp_fail(AxonEngine *eng, AxonQp *qp, uint8_t nak,
                                uint16_t event, const char *why)
{
    AxonResp *r = &qp->resp;

    if (!r->answering) {
        axon_roce_resp_fail_now(eng, qp, r->epsn, nak, event, why);
        return;
    }
    axon_env_guest_error(eng->env, "QP %u: request PSN %u refused (%s), "
                         "NAK %u after the responses owed\n", qp->qpn,
                         r->epsn, why, nak);
    r->failing = true;
    r->fail_event = event;
    r->aeth_owed = true;
    r->aeth_syndrome = AETH_NAK << AETH_TYPE_SHIFT | nak;
    r->aeth_psn = r->epsn;
}

/*
 * An ACK or NAK of the responder: sent now or, while responses for
 * earlier PSNs wait to be sent, after them (a requester takes an
 * acknowledgement past a READ's PSNs for lost responses). The latest one
 * waits, but an ACK does not replace a NAK of the expected PSN, which
 * acknowledges as much; a failing QP's NAK is its last word.
 */
static void axon_roce_resp_aeth(AxonEngine *eng, AxonQp *qp, uint8_t syndrome,
                                uint32_t psn)
{
    AxonResp *r = &qp->resp;

    if (!r->answering) {
        axon_roce_send_ack(eng, qp, syndrome, psn);
        return;
    }
    if (r->failing ||
        (r->aeth_owed && syndrome >> AETH_TYPE_SHIFT == AETH_ACK &&
         r->aeth_syndrome >> AETH_TYPE_SHIFT != AETH_ACK &&
         r->aeth_psn == r->epsn)) {
        return;
    }
    r->aeth_owed = true;
    r->aeth_syndrome = syndrome;
    r->aeth_psn = psn;
}

/* The coalesced ACK of everything before the expected PSN. */
void axon_roce_resp_ack(AxonEngine *eng, AxonQp *qp)
{
    axon_roce_resp_aeth(eng, qp, AETH_NO_CREDIT, axon_psn_add(qp->resp.epsn,
                                                              -1));
}

/* The ACK or NAK that waited for the responses, once they are sent. */
static unsigned axon_roce_resp_owed(AxonEngine *eng, AxonQp *qp)
{
    AxonResp *r = &qp->resp;

    if (!r->aeth_owed) {
        return 0;
    }
    r->aeth_owed = false;
    if (r->failing) {
        r->failing = false;
        axon_roce_resp_fail_now(eng, qp, r->aeth_psn, r->aeth_syndrome & 0x1f,
                                r->fail_event, "after the responses owed");
    } else if (r->aeth_syndrome >> AETH_TYPE_SHIFT == AETH_ACK) {
        axon_roce_send_ack(eng, qp, r->aeth_syndrome,
                           axon_psn_add(r->epsn, -1));
    } else {
        axon_roce_send_ack(eng, qp, r->aeth_syndrome, r->aeth_psn);
    }
    return 1;
}

/* A receive WQE completes with an error; the requester gets nak. */
static void axon_roce_recv_fail(AxonEngine *eng, AxonQp *qp, uint8_t status,
                                uint8_t nak, const char *why)
{
    axon_qp_cqe(eng, qp, true, qp->resp.recv_wr_id, qp->resp.recv_idx,
                AXON_WC_RECV, status, 0, 0, 0);
    axon_roce_recv_done(qp);
    axon_roce_resp_fail(eng, qp, nak, 0, why);
}

/* RC: a bad receive WQE fails the request, and the QP goes to ERR. */
static bool axon_roce_take_recv(AxonEngine *eng, AxonQp *qp)
{
    if (axon_roce_recv_fetch(eng, qp)) {
        return true;
    }
    axon_roce_recv_fail(eng, qp, AXON_WC_LOC_QP_OP_ERR, NAK_REM_OP,
                        "bad receive WQE");
    return false;
}

static void axon_roce_atomic_ack(AxonEngine *eng, AxonQp *qp, uint32_t psn,
                                 uint64_t orig)
{
    AxonPkt pkt = {
        .opcode = IB_ATOMIC_ACK,
        .dqpn = le32_to_cpu(qp->attr.dest_qpn),
        .psn = psn,
        .syndrome = AETH_NO_CREDIT,
        .msn = qp->resp.msn,
        .orig = orig,
    };

    axon_roce_xmit(eng, qp, &pkt);
}

/* res has responses (or an atomic ACK) to send. */
static bool axon_roce_res_pending(const AxonRdRes *res)
{
    return res->valid && res->sent < res->npkts;
}

/* A new request's resource (filled in): answered from its first PSN. */
static void axon_roce_res_start(AxonQp *qp, AxonRdRes *res)
{
    res->sent = res->first = 0;
    res->replay = false;
    qp->resp.answering++;
}

/*
 * A duplicate asks res again from its response k on: answered again from
 * there. One still being answered goes back to k if it is past it;
 * responses not sent yet are sent anyway.
 */
static void axon_roce_res_replay(AxonQp *qp, AxonRdRes *res, uint32_t k)
{
    if (axon_roce_res_pending(res)) {
        if (k >= res->sent) {
            return;
        }
    } else {
        qp->resp.answering++;
        res->replay = true;
    }
    res->sent = res->first = k;
}

/* Response k of res goes out: the answer is done with the last. */
static void axon_roce_res_sent(AxonQp *qp, AxonRdRes *res, uint32_t k)
{
    res->sent = k + 1;
    if (res->sent == res->npkts) {
        qp->resp.answering--;
    }
}

/* The oldest resource with responses to send: PSN order. */
static AxonRdRes *axon_roce_next_answer(AxonQp *qp)
{
    unsigned i;

    for (i = 0; i < AXON_MAX_RD_ATOMIC; i++) {
        AxonRdRes *res = &qp->resp.res[(qp->resp.res_next + i) %
                                       AXON_MAX_RD_ATOMIC];

        if (axon_roce_res_pending(res)) {
            return res;
        }
    }
    return NULL;
}

/*
 * Sends up to budget READ responses of res from res->sent on; returns
 * how many. The key is checked again for each burst, as the MR may be
 * gone since the request: a READ's first answer then fails the QP (a
 * NAK of the response due), a duplicate's answer just stops (a duplicate
 * never fails a QP).
 */
static unsigned axon_roce_read_burst(AxonEngine *eng, AxonQp *qp,
                                     AxonRdRes *res, unsigned budget)
{
    uint32_t k = res->sent, n = MIN(budget, res->npkts - k), i;
    uint64_t off = (uint64_t)k * qp->mtu;
    uint8_t nak = NAK_REM_ACCESS;
    uint16_t event = AXON_EVENT_QP_ACCESS_ERR;
    const char *why = "READ no longer allowed";
    AxonMr *mr = NULL;

    if (res->len) {
        mr = axon_mr_check_remote(eng, qp, res->rkey, res->va + off,
                                  MIN(res->len - off, (uint64_t)n * qp->mtu),
                                  AXON_ACCESS_REMOTE_READ);
    }
    if (!(qp->attr.access & cpu_to_le32(AXON_ACCESS_REMOTE_READ)) ||
        (res->len && !mr)) {
        goto fail;
    }
    /* an absent page: the rest is answered once the QP has it */
    if (res->len && axon_odp_wait(eng, qp, mr, res->va + off,
                                  MIN(res->len - off, (uint64_t)n * qp->mtu),
                                  false)) {
        return 0;
    }
    if (res->len && !axon_odp_present(mr, res->va + off,
                                      MIN(res->len - off,
                                          (uint64_t)n * qp->mtu), false)) {
        why = "READ of a page that cannot be mapped";
        goto fail;
    }
    for (i = k; i < k + n; i++) {
        uint64_t at = (uint64_t)i * qp->mtu;
        uint32_t chunk = res->len ? MIN(qp->mtu, res->len - at) : 0;
        bool first = i == res->first, last = i + 1 == res->npkts;
        AxonPkt pkt = {
            .opcode = first ? (last ? IB_READ_RESP_ONLY : IB_READ_RESP_FIRST) :
                      (last ? IB_READ_RESP_LAST : IB_READ_RESP_MIDDLE),
            .dqpn = le32_to_cpu(qp->attr.dest_qpn),
            .psn = axon_psn_add(res->psn, i),
            .syndrome = AETH_NO_CREDIT,
            .msn = qp->resp.msn,
            .payload = eng->rspbuf,
            .len = chunk,
        };

        if (chunk && !axon_mr_rw(eng, mr, res->va + at, eng->rspbuf, chunk,
                                 AXON_DMA_TO_DEVICE)) {
            nak = NAK_REM_OP;
            event = AXON_EVENT_QP_FATAL;
            why = "READ source not readable";
            goto fail;
        }
        axon_roce_res_sent(qp, res, i);
        axon_roce_xmit(eng, qp, &pkt);
        if (!axon_roce_resp_up(qp)) {
            /* in loopback the requester's QP may be this one, failed */
            return i + 1 - k;
        }
    }
    return n;

fail:
    n = res->sent - k;
    if (res->replay) {
        res->sent = res->npkts;
        qp->resp.answering--;
        eng->stats.stray++;
        qp->stats.stray++;
        return n;
    }
    axon_roce_resp_fail_now(eng, qp, axon_psn_add(res->psn, res->sent), nak,
                            event, why);
    return n;
}

/*
 * The engine's part of the responder: up to budget READ responses and
 * atomic ACKs owed, oldest first, then the ACK or NAK that waited for
 * them. Returns the packets sent.
 */
unsigned axon_roce_resp_run(AxonEngine *eng, AxonQp *qp, unsigned budget)
{
    unsigned sent = 0;

    while (qp->resp.answering && sent < budget && axon_roce_resp_up(qp)) {
        AxonRdRes *res = axon_roce_next_answer(qp);

        if (!res) {
            qp->resp.answering = 0;
            break;
        }
        if (res->atomic) {
            axon_roce_res_sent(qp, res, 0);
            axon_roce_atomic_ack(eng, qp, res->psn, res->orig);
            sent++;
            continue;
        }
        sent += axon_roce_read_burst(eng, qp, res, budget - sent);
        if (qp->odp == AXON_QP_ODP_WAITING) {
            break;
        }
    }
    if (!qp->resp.answering && axon_roce_resp_up(qp)) {
        sent += axon_roce_resp_owed(eng, qp);
    }
    return sent;
}

/*
 * What a request asked for is answered: one burst now, while the frame
 * that asked is handled, the rest from the engine.
 */
static void axon_roce_answer(AxonEngine *eng, AxonQp *qp)
{
    axon_roce_resp_run(eng, qp, AXON_ROCE_RESP_BURST);
    if (qp->resp.answering && axon_roce_resp_up(qp)) {
        axon_roce_schedule(eng, qp);
    }
}

/* The QP leaves RTR and RTS: nothing owed is sent any more. */
void axon_roce_resp_stop(AxonQp *qp)
{
    unsigned i;

    for (i = 0; i < AXON_MAX_RD_ATOMIC; i++) {
        if (axon_roce_res_pending(&qp->resp.res[i])) {
            qp->resp.res[i].sent = qp->resp.res[i].npkts;
        }
    }
    qp->resp.answering = 0;
    qp->resp.aeth_owed = false;
    qp->resp.failing = false;
}

/*
 * The saved READ or atomic a duplicate repeats: one whose PSNs hold the
 * duplicate's, asked with the same key at the same place (a READ asked
 * again from a lost response on: the rest of the saved one, or less).
 */
static AxonRdRes *axon_roce_saved(AxonQp *qp, const AxonPkt *pkt, bool atomic)
{
    unsigned i;

    for (i = 0; i < AXON_MAX_RD_ATOMIC; i++) {
        AxonRdRes *res = &qp->resp.res[i];
        uint32_t k = axon_psn_diff(pkt->psn, res->psn);
        uint64_t off = (uint64_t)k * qp->mtu;

        if (!res->valid || res->atomic != atomic || k >= res->npkts ||
            pkt->rkey != res->rkey || pkt->va != res->va + off) {
            continue;
        }
        if (atomic || pkt->dmalen <= res->len - off) {
            return res;
        }
    }
    return NULL;
}

/*
 * A request with a PSN already executed: answered again from what was
 * saved of it, never executed again. A READ or atomic matching nothing
 * saved (forged, or too old) is dropped, and nothing it names is checked
 * or touched: a duplicate never moves the QP to ERR. A saved READ is
 * answered again from the duplicate's PSN to its end (IBA 9.8.3.3, as
 * rxe does), in bursts as a new one.
 */
static void axon_roce_duplicate(AxonEngine *eng, AxonQp *qp,
                                const AxonPkt *pkt)
{
    uint8_t kind = axon_ib_ops[pkt->opcode].kind;
    AxonRdRes *res;
    AxonMr *mr = NULL;

    eng->stats.dup_reqs++;

    qp->stats.dup_reqs++;
    if (kind != KIND_READ && kind != KIND_ATOMIC) {
        axon_roce_ack_later(eng, qp);
        return;
    }
    res = axon_roce_saved(qp, pkt, kind == KIND_ATOMIC);
    if (!res) {
        axon_trace_err_roce_dup(eng->env, qp->qpn, pkt->psn, pkt->opcode);
        eng->stats.stray++;
        qp->stats.stray++;
        return;
    }
    if (kind == KIND_READ) {
        /* the data is read again: the MR may be gone since */
        if (pkt->dmalen) {
            mr = axon_mr_check_remote(eng, qp, pkt->rkey, pkt->va, pkt->dmalen,
                                      AXON_ACCESS_REMOTE_READ);
        }
        if (!(qp->attr.access & cpu_to_le32(AXON_ACCESS_REMOTE_READ)) ||
            (pkt->dmalen && !mr)) {
            eng->stats.stray++;
            qp->stats.stray++;
            return;
        }
    }
    axon_roce_res_replay(qp, res, axon_psn_diff(pkt->psn, res->psn));
    axon_roce_answer(eng, qp);
}

/* Does op continue the message of the previous request? */
static bool axon_roce_check_sequence(AxonQp *qp, uint8_t op)
{
    uint16_t flags = axon_ib_ops[op].flags;

    switch (qp->resp.last_op) {
    case IB_SEND_FIRST:
    case IB_SEND_MIDDLE:
        return axon_ib_ops[op].kind == KIND_SEND && !(flags & OP_START);
    case IB_WRITE_FIRST:
    case IB_WRITE_MIDDLE:
        return axon_ib_ops[op].kind == KIND_WRITE && !(flags & OP_START);
    default:
        return flags & OP_START;
    }
}

/* The request cannot be taken yet; the requester sends it again later. */
static void axon_roce_resp_rnr(AxonEngine *eng, AxonQp *qp, uint32_t psn)
{
    axon_trace_roce_rnr(eng->env, qp->qpn, psn, 0);
    axon_roce_resp_aeth(eng, qp, AETH_RNR_NAK << AETH_TYPE_SHIFT |
                        qp->attr.min_rnr_timer, psn);
}

/*
 * false: the packet was not taken (it failed the QP, or waits for a page
 * of the receive WQE, which the QP then keeps for the SEND sent again).
 */
static bool axon_roce_resp_send(AxonEngine *eng, AxonQp *qp,
                                const AxonPkt *pkt, uint16_t flags)
{
    if (flags & OP_START && !qp->resp.recv_active &&
        !axon_roce_take_recv(eng, qp)) {
        return false;
    }
    if (pkt->len > axon_roce_recv_room(qp) - qp->resp.recv_off) {
        axon_roce_recv_fail(eng, qp, AXON_WC_LOC_LEN_ERR, NAK_INV_REQ,
                            "SEND longer than the receive WQE");
        return false;
    }
    if (axon_odp_sge_wait(eng, qp, axon_roce_recv_pdn(qp), qp->resp.recv_sge,
                          qp->resp.recv_nsge, qp->resp.recv_off, pkt->len,
                          true)) {
        axon_roce_resp_rnr(eng, qp, pkt->psn);
        return false;
    }
    if (!axon_mr_sge_rw(eng, axon_roce_recv_pdn(qp), qp->resp.recv_sge,
                        qp->resp.recv_nsge, qp->resp.recv_off,
                        (uint8_t *)pkt->payload, pkt->len,
                        AXON_DMA_FROM_DEVICE)) {
        axon_roce_recv_fail(eng, qp, AXON_WC_LOC_PROT_ERR, NAK_REM_OP,
                            "receive WQE lkey");
        return false;
    }
    qp->resp.recv_off += pkt->len;
    if (!(flags & OP_END)) {
        return true;
    }
    /* SEND with invalidate: a fast-registration MR of this QP's PD */
    if ((flags & OP_IETH) && !axon_mr_local_inv(eng, qp->pdn, pkt->rkey)) {
        axon_roce_recv_fail(eng, qp, AXON_WC_LOC_PROT_ERR, NAK_INV_REQ,
                            "SEND_INV of a key not to invalidate");
        return false;
    }
    axon_qp_cqe(eng, qp, true, qp->resp.recv_wr_id, qp->resp.recv_idx,
                AXON_WC_RECV, AXON_WC_SUCCESS, qp->resp.recv_off,
                flags & OP_IETH ? cpu_to_be32(pkt->rkey) : pkt->imm,
                (flags & OP_IMM ? AXON_CQE_WITH_IMM : 0) |
                (flags & OP_IETH ? AXON_CQE_WITH_INV : 0) |
                (pkt->se ? AXON_CQE_SOLICITED : 0));
    axon_roce_recv_done(qp);
    return true;
}

/* false: the packet was not taken (as axon_roce_resp_send()) */
static bool axon_roce_resp_write(AxonEngine *eng, AxonQp *qp,
                                 const AxonPkt *pkt, uint16_t flags)
{
    bool allowed = qp->attr.access & cpu_to_le32(AXON_ACCESS_REMOTE_WRITE);
    AxonMr *mr;

    if (flags & OP_START) {
        qp->resp.wr_va = pkt->va;
        qp->resp.wr_rkey = pkt->rkey;
        qp->resp.wr_left = pkt->dmalen;
        qp->resp.wr_len = pkt->dmalen;
        if (pkt->dmalen &&
            (!allowed || !axon_mr_check_remote(eng, qp, pkt->rkey, pkt->va,
                                        pkt->dmalen,
                                        AXON_ACCESS_REMOTE_WRITE))) {
            axon_roce_resp_fail(eng, qp, NAK_REM_ACCESS,
                                AXON_EVENT_QP_ACCESS_ERR,
                                "WRITE outside the MR");
            return false;
        }
    }
    if (pkt->len > qp->resp.wr_left ||
        ((flags & OP_END) && pkt->len != qp->resp.wr_left)) {
        axon_roce_resp_fail(eng, qp, NAK_INV_REQ, AXON_EVENT_QP_REQ_ERR,
                            "WRITE length");
        return false;
    }
    if (pkt->len) {
        /* checked per packet: the MR may be gone since the first */
        mr = axon_mr_check_remote(eng, qp, qp->resp.wr_rkey, qp->resp.wr_va,
                           pkt->len, AXON_ACCESS_REMOTE_WRITE);
        if (!mr || !allowed) {
            axon_roce_resp_fail(eng, qp, NAK_REM_ACCESS,
                                AXON_EVENT_QP_ACCESS_ERR,
                                "WRITE outside the MR");
            return false;
        }
        if (axon_odp_wait(eng, qp, mr, qp->resp.wr_va, pkt->len, true)) {
            axon_roce_resp_rnr(eng, qp, pkt->psn);
            return false;
        }
        if (!axon_odp_present(mr, qp->resp.wr_va, pkt->len, true)) {
            axon_roce_resp_fail(eng, qp, NAK_REM_ACCESS,
                                AXON_EVENT_QP_ACCESS_ERR,
                                "WRITE to a page that cannot be mapped");
            return false;
        }
        if (!axon_mr_rw(eng, mr, qp->resp.wr_va, (uint8_t *)pkt->payload,
                        pkt->len, AXON_DMA_FROM_DEVICE)) {
            axon_roce_resp_fail(eng, qp, NAK_REM_OP, AXON_EVENT_QP_FATAL,
                                "WRITE target not writable");
            return false;
        }
    }
    qp->resp.wr_va += pkt->len;
    qp->resp.wr_left -= pkt->len;
    if (flags & OP_IMM) {
        if (!axon_roce_take_recv(eng, qp)) {
            return false;
        }
        axon_qp_cqe(eng, qp, true, qp->resp.recv_wr_id, qp->resp.recv_idx,
                    AXON_WC_RECV_RDMA_WITH_IMM, AXON_WC_SUCCESS,
                    qp->resp.wr_len, pkt->imm, AXON_CQE_WITH_IMM |
                    (pkt->se ? AXON_CQE_SOLICITED : 0));
        axon_roce_recv_done(qp);
    }
    return true;
}

/*
 * The resource a new READ or atomic takes: the oldest, unless it is still
 * being answered. A requester has no more READs and atomics outstanding
 * than max_dest_rd_atomic, at most AXON_MAX_RD_ATOMIC: one that has more
 * gets an invalid request NAK, as the IBA has it (false).
 */
static bool axon_roce_res_free(AxonEngine *eng, AxonQp *qp)
{
    if (!axon_roce_res_pending(&qp->resp.res[qp->resp.res_next])) {
        return true;
    }
    axon_roce_resp_fail(eng, qp, NAK_INV_REQ, AXON_EVENT_QP_REQ_ERR,
                        "more READs and atomics than max_dest_rd_atomic");
    return false;
}

static AxonRdRes *axon_roce_new_res(AxonQp *qp)
{
    AxonRdRes *res = &qp->resp.res[qp->resp.res_next];

    qp->resp.res_next = (qp->resp.res_next + 1) % AXON_MAX_RD_ATOMIC;
    memset(res, 0, sizeof(*res));
    return res;
}

static void axon_roce_resp_atomic(AxonEngine *eng, AxonQp *qp,
                                  const AxonPkt *pkt)
{
    AxonRdRes *res;
    AxonMr *mr;
    uint64_t orig;

    if (pkt->va & 7) {
        axon_roce_resp_fail(eng, qp, NAK_INV_REQ, AXON_EVENT_QP_REQ_ERR,
                            "misaligned atomic");
        return;
    }
    if (!axon_roce_res_free(eng, qp)) {
        return;
    }
    mr = axon_mr_check_remote(eng, qp, pkt->rkey, pkt->va, 8,
                       AXON_ACCESS_REMOTE_ATOMIC);
    if (!mr || !(qp->attr.access & cpu_to_le32(AXON_ACCESS_REMOTE_ATOMIC))) {
        axon_roce_resp_fail(eng, qp, NAK_REM_ACCESS, AXON_EVENT_QP_ACCESS_ERR,
                            "atomic outside the MR");
        return;
    }
    /* an absent page: dropped, the requester's retry asks again */
    if (axon_odp_wait(eng, qp, mr, pkt->va, 8, true)) {
        return;
    }
    if (!axon_odp_present(mr, pkt->va, 8, true)) {
        axon_roce_resp_fail(eng, qp, NAK_REM_ACCESS, AXON_EVENT_QP_ACCESS_ERR,
                            "atomic on a page that cannot be mapped");
        return;
    }
    if (!axon_mr_atomic(eng, mr, pkt->va, pkt->opcode == IB_CMP_SWP,
                        pkt->opcode == IB_CMP_SWP ? pkt->cmp :
                        pkt->swap_add, pkt->swap_add, &orig)) {
        axon_roce_resp_fail(eng, qp, NAK_REM_OP, AXON_EVENT_QP_FATAL,
                            "atomic target not readable");
        return;
    }
    res = axon_roce_new_res(qp);
    res->valid = true;
    res->atomic = true;
    res->psn = pkt->psn;
    res->npkts = 1;
    res->va = pkt->va;
    res->rkey = pkt->rkey;
    res->orig = orig;
    qp->resp.epsn = axon_psn_add(qp->resp.epsn, 1);
    qp->resp.msn++;
    axon_roce_res_start(qp, res);
    axon_roce_answer(eng, qp);
}

/*
 * A READ: checked and saved, then answered in bursts (axon_roce_answer),
 * whatever its length: a peer may ask for up to 2 GiB in one request.
 */
static void axon_roce_resp_read(AxonEngine *eng, AxonQp *qp,
                                const AxonPkt *pkt)
{
    uint32_t n = pkt->dmalen ? DIV_ROUND_UP(pkt->dmalen, qp->mtu) : 1;
    AxonRdRes *res;
    AxonMr *mr = NULL;

    if (pkt->dmalen) {
        mr = axon_mr_check_remote(eng, qp, pkt->rkey, pkt->va, pkt->dmalen,
                           AXON_ACCESS_REMOTE_READ);
    }
    if (!(qp->attr.access & cpu_to_le32(AXON_ACCESS_REMOTE_READ)) ||
        (pkt->dmalen && !mr)) {
        axon_roce_resp_fail(eng, qp, NAK_REM_ACCESS, AXON_EVENT_QP_ACCESS_ERR,
                            "READ outside the MR");
        return;
    }
    if (pkt->dmalen > AXON_MAX_MSG_SIZE) {
        axon_roce_resp_fail(eng, qp, NAK_INV_REQ, AXON_EVENT_QP_REQ_ERR,
                            "READ too long");
        return;
    }
    if (!axon_roce_res_free(eng, qp)) {
        return;
    }
    res = axon_roce_new_res(qp);
    res->valid = true;
    res->psn = pkt->psn;
    res->npkts = n;
    res->va = pkt->va;
    res->rkey = pkt->rkey;
    res->len = pkt->dmalen;
    qp->resp.epsn = axon_psn_add(qp->resp.epsn, n);
    qp->resp.msn++;
    axon_roce_res_start(qp, res);
    axon_roce_answer(eng, qp);
}

/* A request for a QP acting as responder. */
void axon_roce_resp_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt)
{
    uint16_t flags = axon_ib_ops[pkt->opcode].flags;
    uint8_t kind = axon_ib_ops[pkt->opcode].kind;
    int32_t d;

    /* a failing QP takes nothing while its last responses go out */
    if (!axon_roce_resp_up(qp) || qp->resp.failing) {
        eng->stats.rx_drops++;
        return;
    }
    d = axon_psn_diff(pkt->psn, qp->resp.epsn);
    if (d < 0) {
        axon_roce_duplicate(eng, qp, pkt);
        return;
    }
    if (d > 0) {
        /* one NAK for the expected PSN (the spec's), nothing else */
        eng->stats.out_of_seq++;
        qp->stats.out_of_seq++;
        if (!qp->resp.nak_sent) {
            qp->resp.nak_sent = true;
            axon_roce_resp_aeth(eng, qp, AETH_NAK << AETH_TYPE_SHIFT |
                                NAK_PSN_SEQ, qp->resp.epsn);
        }
        return;
    }
    qp->resp.nak_sent = false;
    if (qp->state == AXON_QPS_RTR && !qp->comm_est) {
        qp->comm_est = true;
        axon_qp_event(eng, qp, AXON_EVENT_COMM_EST);
    }
    if (!axon_roce_check_sequence(qp, pkt->opcode) ||
        ((flags & OP_PAYLOAD) &&
         (pkt->len > qp->mtu || (!(flags & OP_END) && pkt->len != qp->mtu)))) {
        axon_roce_resp_fail(eng, qp, NAK_INV_REQ, AXON_EVENT_QP_REQ_ERR,
                            "opcode sequence or length");
        return;
    }
    /*
     * A message needing a receive WQE waits for one: RNR. A SEND sent
     * again after an RNR NAK for a page has its WQE already.
     */
    if (((kind == KIND_SEND && (flags & OP_START) &&
          !qp->resp.recv_active) ||
         (kind == KIND_WRITE && (flags & OP_IMM))) &&
        axon_qp_recv_wq(qp)->ci == axon_qp_recv_wq(qp)->pi) {
        axon_roce_resp_rnr(eng, qp, pkt->psn);
        return;
    }
    switch (kind) {
    case KIND_SEND:
        if (!axon_roce_resp_send(eng, qp, pkt, flags)) {
            return;
        }
        break;
    case KIND_WRITE:
        if (!axon_roce_resp_write(eng, qp, pkt, flags)) {
            return;
        }
        break;
    case KIND_READ:
        axon_roce_resp_read(eng, qp, pkt);
        qp->resp.last_op = pkt->opcode;
        return;
    default:
        axon_roce_resp_atomic(eng, qp, pkt);
        qp->resp.last_op = pkt->opcode;
        return;
    }
    if (!axon_roce_resp_up(qp) || qp->resp.failing) {
        return;
    }
    qp->resp.last_op = pkt->opcode;
    qp->resp.epsn = axon_psn_add(qp->resp.epsn, 1);
    if (flags & OP_END) {
        qp->resp.msn++;
    }
    if (pkt->ackreq) {
        axon_roce_ack_later(eng, qp);
    }
}
