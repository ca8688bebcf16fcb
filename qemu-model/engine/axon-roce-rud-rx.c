/*
 * axon engine: the RUD receiver
 *
 * Each packet checked (connection key first, then the PSN window,
 * offsets, rkey) and placed as it arrives, whatever its order; a message
 * completes once all of its bytes are placed. READ requests answered.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce-rud.h"

/* ---- receiver ------------------------------------------------------------ */

static bool axon_rud_seen(AxonRud *r, uint32_t psn)
{
    unsigned b = psn % AXON_RUD_WINDOW;

    return r->seen[b / 64] & (1ULL << (b % 64));
}

/* psn arrived and is placed: move the cumulative PSN past what has. */
static void axon_rud_mark(AxonRud *r, uint32_t psn)
{
    unsigned b = psn % AXON_RUD_WINDOW;

    r->seen[b / 64] |= 1ULL << (b % 64);
    if (axon_psn_diff(psn, r->rx_high) >= 0) {
        r->rx_high = axon_psn_add(psn, 1);
    }
    while (axon_rud_seen(r, r->epsn)) {
        b = r->epsn % AXON_RUD_WINDOW;
        r->seen[b / 64] &= ~(1ULL << (b % 64));
        r->epsn = axon_psn_add(r->epsn, 1);
    }
}

/*
 * A packet arrived: the receiver owes an ACK when the sender asked for
 * one (a message's last packet, and every AXON_RUD_ACK_REQ PSNs), when
 * the packet came twice (the ACK that answered it was lost) or out of
 * order (the SACK tells the sender of the hole), and at the end of the
 * engine's batch; at once if many wait for it, or with a NAK.
 */
static void axon_rud_ack_owed(AxonEngine *eng, AxonQp *qp,
                              const AxonPkt *pkt, bool dup)
{
    AxonRud *r = qp->rud;

    r->ack_psn = pkt->psn;
    if (pkt->ecn == AXON_ECN_CE && r->ce < UINT8_MAX) {
        r->ce++;
    }
    if (++r->unacked >= AXON_RUD_ACK_EVERY || r->err_syndrome) {
        axon_rud_send_ack(eng, qp);
        return;
    }
    if (pkt->ackreq || dup || r->rx_high != r->epsn || pkt->ecn ==
        AXON_ECN_CE) {
        axon_roce_ack_later(eng, qp);
    }
}

/*
 * The ACK: the cumulative PSN, the bitmap after it as far as the highest
 * PSN that arrived (none when all came in order), marks, a NAK.
 */
void axon_rud_send_ack(AxonEngine *eng, AxonQp *qp)
{
    AxonRud *r = qp->rud;
    int32_t span = axon_psn_diff(r->rx_high, r->epsn);
    uint8_t bitmap[IB_RUD_SACK_BYTES] = {};
    AxonPkt pkt = {
        .opcode = IB_RUD_ACK,
        .psn = r->epsn,
        .key = r->tx_key,
        .syndrome = r->err_syndrome,
        .ce = r->ce,
        .ack_psn = r->ack_psn,
        .err_psn = r->err_psn,
        .err_msg = r->err_msg,
        .payload = bitmap,
    };
    unsigned i, n = MIN(MAX(span, 0), AXON_RUD_WINDOW);

    pkt.len = DIV_ROUND_UP(n, 8);
    for (i = 1; i < n; i++) {
        if (axon_rud_seen(r, axon_psn_add(r->epsn, i))) {
            bitmap[i / 8] |= 1 << (i % 8);
        }
    }
    if (r->err_syndrome >> AETH_TYPE_SHIFT == AETH_NAK) {
        eng->stats.naks++;
        qp->stats.err_naks_sent++;
    }
    r->unacked = 0;
    r->ce = 0;
    r->err_syndrome = 0;
    axon_rud_xmit(eng, qp, &pkt, axon_rud_pick_plane(eng, r, -1));
}

/* The packet at psn is refused: the sender gets a NAK for it. */
static void axon_rud_nak(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt,
                         uint8_t code, const char *why)
{
    AxonRud *r = qp->rud;

    axon_rud_drop(eng, qp, pkt, why);
    r->err_syndrome = AETH_NAK << AETH_TYPE_SHIFT | code;
    r->err_psn = pkt->psn;
    r->err_msg = pkt->msg_id;
    axon_rud_ack_owed(eng, qp, pkt, false);
}

/* The receive WQE of a message, taken now; false if there is none. */
static bool axon_rud_take_recv(AxonEngine *eng, AxonQp *qp, AxonRudMsg *m)
{
    AxonWq *wq = axon_qp_recv_wq(qp);

    if (wq->ci == wq->pi) {
        return false;
    }
    if (!axon_roce_recv_fetch(eng, qp)) {
        /* the consumer's WQE is bad: its QP goes to ERR, as RC's does */
        axon_qp_cqe(eng, qp, true, qp->resp.recv_wr_id, qp->resp.recv_idx,
                    AXON_WC_RECV, AXON_WC_LOC_QP_OP_ERR, 0, 0, 0);
        axon_roce_recv_done(qp);
        axon_qp_error(eng, qp);
        return false;
    }
    m->recv_wr_id = qp->resp.recv_wr_id;
    m->recv_idx = qp->resp.recv_idx;
    m->recv_nsge = qp->resp.recv_nsge;
    memcpy(m->recv_sge, qp->resp.recv_sge, sizeof(m->recv_sge));
    axon_roce_recv_done(qp);    /* the message holds it from now on */
    return true;
}

bool axon_rud_op_recv(uint8_t op)
{
    return op == RUD_OP_SEND || op == RUD_OP_SEND_IMM ||
           op == RUD_OP_WRITE_IMM;
}

static uint32_t axon_rud_room(const AxonRudMsg *m)
{
    uint64_t room = 0;
    unsigned i;

    for (i = 0; i < m->recv_nsge; i++) {
        room += m->recv_sge[i].length;
    }
    return MIN(room, UINT32_MAX);
}

/* The message's last byte is placed: its receive completes. */
static void axon_rud_msg_done(AxonEngine *eng, AxonQp *qp, AxonRudMsg *m)
{
    m->active = false;
    if (!axon_rud_op_recv(m->op)) {
        return;
    }
    axon_qp_cqe(eng, qp, true, m->recv_wr_id, m->recv_idx,
                m->op == RUD_OP_WRITE_IMM ? AXON_WC_RECV_RDMA_WITH_IMM :
                AXON_WC_RECV, AXON_WC_SUCCESS, m->len, m->imm,
                (m->op != RUD_OP_SEND ? AXON_CQE_WITH_IMM : 0) |
                (m->se ? AXON_CQE_SOLICITED : 0));
}

/*
 * The slot's message will never complete: its receive WQE, if it took
 * one, completes in error (the QP stays in RTS) and the slot is free.
 */
static void axon_rud_abandon(AxonEngine *eng, AxonQp *qp, AxonRudMsg *m,
                             const AxonPkt *pkt, const char *why)
{
    axon_trace_err_rud_rx(eng->env, qp->qpn, pkt->opcode, pkt->psn, why);
    if (axon_rud_op_recv(m->op)) {
        axon_qp_cqe(eng, qp, true, m->recv_wr_id, m->recv_idx, AXON_WC_RECV,
                    AXON_WC_GENERAL_ERR, 0, 0, 0);
    }
    m->active = false;
}

/*
 * The message a packet belongs to, opened by its first packet to come.
 * A slot (msg_id % AXON_RUD_MSGS) is held by the message that opened it
 * until the message is placed whole, with two exceptions that keep a
 * stray first packet from holding it for good:
 *
 * - a packet of a later message of the slot (msg_id + 128k) takes it at
 *   once: a sender begins message n + 128 only once message n is
 *   acknowledged whole, so the one the slot holds can never complete;
 * - packets of the slot's msg_id that differ from its first packet (in
 *   length, operation or immediate data) are refused, and the
 *   AXON_RUD_SLOT_REFUSALS-th refused without the held message placing
 *   anything in between takes the slot: a sender sends again what is
 *   not acknowledged, a stray packet comes once.
 *
 * Packets of an earlier message of the slot are dropped: that message
 * was acknowledged whole, so they are duplicates.
 */
static AxonRudMsg *axon_rud_msg(AxonEngine *eng, AxonQp *qp,
                                const AxonPkt *pkt, const char **why)
{
    AxonRudMsg **held = &qp->rud->msg[pkt->msg_id % AXON_RUD_MSGS];
    AxonRudMsg *m = *held;

    if (!m) {
        m = *held = axon_new0(AxonRudMsg, 1);
        if (!m) {
            *why = "out of memory";     /* the sender sends it again */
            return NULL;
        }
    }
    if (m->active) {
        int32_t age = pkt->msg_id - m->msg_id;

        if (age < 0) {
            *why = "packet of an earlier message of its slot";
            return NULL;
        }
        if (!age && m->op == pkt->rud_op && m->len == pkt->msg_len &&
            m->imm == pkt->imm) {
            return m;
        }
        if (!age && ++m->refused < AXON_RUD_SLOT_REFUSALS) {
            *why = "packet of another message";
            return NULL;
        }
        axon_rud_abandon(eng, qp, m, pkt,
                         age ? "slot taken by a later message" :
                         "slot taken from a stalled message");
    }
    memset(m, 0, sizeof(*m));
    m->msg_id = pkt->msg_id;
    m->op = pkt->rud_op;
    m->len = pkt->msg_len;
    m->imm = pkt->imm;
    m->se = pkt->se;
    if (axon_rud_op_recv(m->op) && !axon_rud_take_recv(eng, qp, m)) {
        *why = "no receive WQE";
        return NULL;
    }
    m->active = true;
    return m;
}

/* A SEND's packet into its receive WQE; false (NAKed) if it cannot be. */
static bool axon_rud_place_send(AxonEngine *eng, AxonQp *qp, AxonRudMsg *m,
                                const AxonPkt *pkt)
{
    if (m->len > axon_rud_room(m)) {
        axon_qp_cqe(eng, qp, true, m->recv_wr_id, m->recv_idx, AXON_WC_RECV,
                    AXON_WC_LOC_LEN_ERR, 0, 0, 0);
        m->active = false;
        axon_rud_nak(eng, qp, pkt, NAK_INV_REQ, "SEND longer than its WQE");
        return false;
    }
    if (!axon_mr_sge_rw(eng, axon_roce_recv_pdn(qp), m->recv_sge, m->recv_nsge,
                        pkt->offset, (uint8_t *)pkt->payload, pkt->len,
                        AXON_DMA_FROM_DEVICE)) {
        axon_qp_cqe(eng, qp, true, m->recv_wr_id, m->recv_idx, AXON_WC_RECV,
                    AXON_WC_LOC_PROT_ERR, 0, 0, 0);
        m->active = false;
        axon_rud_nak(eng, qp, pkt, NAK_REM_OP, "receive WQE not writable");
        return false;
    }
    return true;
}

/* A WRITE's packet through its key; false (NAKed) if not allowed. */
static bool axon_rud_place_write(AxonEngine *eng, AxonQp *qp,
                                 const AxonPkt *pkt)
{
    uint64_t va = pkt->va + pkt->offset;
    AxonMr *mr;

    if (!pkt->len) {
        return true;
    }
    mr = axon_mr_check_remote(eng, qp, pkt->rkey, va, pkt->len,
                              AXON_ACCESS_REMOTE_WRITE);
    if (!mr || !(qp->attr.access & cpu_to_le32(AXON_ACCESS_REMOTE_WRITE)) ||
        !axon_mr_rw(eng, mr, va, (uint8_t *)pkt->payload, pkt->len,
                    AXON_DMA_FROM_DEVICE)) {
        axon_rud_nak(eng, qp, pkt, NAK_REM_ACCESS, "WRITE not allowed");
        return false;
    }
    return true;
}

/*
 * A READ request: the responses, sprayed. A new request (nak) that the
 * rkey, the QP's rights or the bounds do not allow is NAKed; a duplicate
 * is answered from what was saved of its first answer, and dropped if
 * the key no longer allows it. False if nothing was sent.
 */
static bool axon_rud_answer_read(AxonEngine *eng, AxonQp *qp,
                                 const AxonRudRead *rq, const AxonPkt *pkt,
                                 bool nak)
{
    uint64_t va = rq->va + rq->offset;
    AxonMr *mr = NULL;
    uint32_t done = 0;

    if (rq->req_len) {
        mr = axon_mr_check_remote(eng, qp, rq->rkey, va, rq->req_len,
                                  AXON_ACCESS_REMOTE_READ);
        if (!mr ||
            !(qp->attr.access & cpu_to_le32(AXON_ACCESS_REMOTE_READ))) {
            if (nak) {
                axon_rud_nak(eng, qp, pkt, NAK_REM_ACCESS, "READ not allowed");
            } else {
                axon_rud_drop(eng, qp, pkt, "duplicate READ no longer allowed");
            }
            return false;
        }
    }
    do {
        uint32_t n = MIN(qp->mtu, rq->req_len - done);
        AxonPkt rsp = {
            .opcode = IB_RUD_READ_RESP,
            .psn = rq->psn,
            .key = qp->rud->tx_key,
            .msg_id = rq->msg_id,
            .msg_len = rq->msg_len,
            .offset = rq->offset + done,
            .rud_op = RUD_OP_READ,
            .payload = eng->rspbuf,
            .len = n,
        };

        if (n && !axon_mr_rw(eng, mr, va + done, eng->rspbuf, n,
                             AXON_DMA_TO_DEVICE)) {
            if (nak) {
                axon_rud_nak(eng, qp, pkt, NAK_REM_ACCESS, "READ unreadable");
            } else {
                axon_rud_drop(eng, qp, pkt, "READ unreadable");
            }
            return false;
        }
        axon_rud_xmit(eng, qp, &rsp, axon_rud_pick_plane(eng, qp->rud, -1));
        done += n;
    } while (done < rq->req_len);
    return true;
}

/* What a READ request asks, as the responder saves it. */
static AxonRudRead axon_rud_read_of(const AxonPkt *pkt)
{
    return (AxonRudRead) {
        .valid = true,
        .psn = pkt->psn,
        .msg_id = pkt->msg_id,
        .msg_len = pkt->msg_len,
        .offset = pkt->offset,
        .req_len = pkt->req_len,
        .rkey = pkt->rkey,
        .va = pkt->va,
    };
}

/* The saved READ request a duplicate repeats exactly, or NULL. */
static const AxonRudRead *axon_rud_read_saved(AxonRud *r, const AxonPkt *pkt)
{
    const AxonRudRead *rq = r->rd ? &r->rd[pkt->psn % AXON_RUD_WINDOW] : NULL;

    if (!rq || !rq->valid || rq->psn != pkt->psn ||
        rq->msg_id != pkt->msg_id || rq->msg_len != pkt->msg_len ||
        rq->offset != pkt->offset || rq->req_len != pkt->req_len ||
        rq->rkey != pkt->rkey || rq->va != pkt->va) {
        return NULL;
    }
    return rq;
}

/* Does the packet fit its message, as RUDETH describes them? */
static const char *axon_rud_check_req(const AxonQp *qp, const AxonPkt *pkt)
{
    bool read = pkt->opcode == IB_RUD_READ_REQ;
    uint64_t end = (uint64_t)pkt->offset + (read ? pkt->req_len : pkt->len);

    if (pkt->rud_op > RUD_OP_MAX || read != (pkt->rud_op == RUD_OP_READ)) {
        return "operation";
    }
    if (pkt->msg_len > AXON_MAX_MSG_SIZE || end > pkt->msg_len) {
        return "offset outside the message";
    }
    if (read) {
        return pkt->req_len > AXON_RUD_READ_PKTS * qp->mtu ||
               pkt->offset % qp->mtu ? "READ request size" : NULL;
    }
    if (pkt->len > qp->mtu || pkt->offset % qp->mtu ||
        (pkt->len != qp->mtu && end != pkt->msg_len)) {
        return "packet size";
    }
    return NULL;
}

/*
 * A DATA packet a switch trimmed to its headers: unless it came whole
 * already, the sender hears of it at once (AXON_RUD_SYN_TRIMMED, with the
 * SACK), instead of from later packets' SACKs or its timer.
 */
static void axon_rud_trimmed_rx(AxonEngine *eng, AxonQp *qp,
                                const AxonPkt *pkt, int32_t d)
{
    AxonRud *r = qp->rud;

    if (d < 0 || axon_rud_seen(r, pkt->psn)) {
        axon_rud_drop(eng, qp, pkt, "trimmed copy of a packet that came");
        return;
    }
    eng->stats.rud_trims++;
    r->err_syndrome = AXON_RUD_SYN_TRIMMED;
    r->err_psn = pkt->psn;
    r->err_msg = pkt->msg_id;
    r->ack_psn = pkt->psn;
    axon_rud_send_ack(eng, qp);
}

/* A DATA packet or READ request, from the peer (its key checked). */
void axon_rud_req_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt)
{
    AxonRud *r = qp->rud;
    int32_t d = axon_psn_diff(pkt->psn, r->epsn);
    const AxonRudRead *saved = NULL;
    const char *why;
    AxonRudMsg *m;
    bool dup;

    if (qp->state != AXON_QPS_RTR && qp->state != AXON_QPS_RTS) {
        axon_rud_drop(eng, qp, pkt, "QP not receiving");
        return;
    }
    if (d >= AXON_RUD_WINDOW) {
        axon_rud_drop(eng, qp, pkt, "PSN ahead of the window");
        qp->stats.out_of_seq++;
        return;
    }
    /* a sender sends nothing again from before its window */
    if (d < -AXON_RUD_WINDOW) {
        axon_rud_drop(eng, qp, pkt, "PSN behind the window");
        return;
    }
    if (pkt->trimmed) {
        axon_rud_trimmed_rx(eng, qp, pkt, d);
        return;
    }
    why = axon_rud_check_req(qp, pkt);
    if (why) {
        axon_rud_drop(eng, qp, pkt, why);
        return;
    }
    dup = d < 0 || axon_rud_seen(r, pkt->psn);
    if (dup && pkt->opcode == IB_RUD_READ_REQ) {
        /* answered again only as it was first answered */
        saved = axon_rud_read_saved(r, pkt);
        if (!saved) {
            axon_rud_drop(eng, qp, pkt, "duplicate READ request unlike any "
                                      "answered");
            return;
        }
    }
    if (dup) {
        eng->stats.rud_dups++;
        qp->stats.dup_reqs++;
    }
    if (qp->state == AXON_QPS_RTR && !qp->comm_est) {
        qp->comm_est = true;
        axon_qp_event(eng, qp, AXON_EVENT_COMM_EST);
    }
    if (pkt->opcode == IB_RUD_READ_REQ) {
        AxonRudRead rq = axon_rud_read_of(pkt);

        /* a QP that is never READ from keeps no READ state */
        if (!r->rd) {
            r->rd = axon_new0(AxonRudRead, AXON_RUD_WINDOW);
            if (!r->rd) {
                axon_rud_drop(eng, qp, pkt, "no memory for READ state");
                return;
            }
        }
        if (!axon_rud_answer_read(eng, qp, saved ? saved : &rq, pkt, !dup)) {
            return;
        }
        if (!dup) {
            r->rd[pkt->psn % AXON_RUD_WINDOW] = rq;
        }
    } else if (!dup) {
        m = axon_rud_msg(eng, qp, pkt, &why);
        if (!m) {
            axon_rud_drop(eng, qp, pkt, why);  /* sent again later */
            return;
        }
        if (m->op == RUD_OP_WRITE || m->op == RUD_OP_WRITE_IMM ?
            !axon_rud_place_write(eng, qp, pkt) :
            !axon_rud_place_send(eng, qp, m, pkt)) {
            return;
        }
        m->placed += pkt->len;
        m->refused = 0;
        if (m->placed == m->len) {
            axon_rud_msg_done(eng, qp, m);
        }
    }
    if (!dup) {
        axon_rud_mark(r, pkt->psn);
    }
    axon_rud_ack_owed(eng, qp, pkt, dup);
}
