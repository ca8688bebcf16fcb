/*
 * axon engine: the RUD acknowledgements
 *
 * The receiver's selective ACKs (the PSN before which everything
 * arrived, a bitmap of the window after it, the CE-marked count) and
 * NAKs, and what the sender does with them: slots freed, messages
 * completed, losses found, the window moved.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce-rud.h"

/* ---- the sender's answers ------------------------------------------------ */

/* A READ response, for a READ request outstanding at its PSN. */
static void axon_rud_resp_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt)
{
    AxonRud *r = qp->rud;
    AxonRudSlot *sl = axon_rud_slot(r, pkt->psn);
    AxonSwqe *e = axon_win(qp, sl->wqe);
    uint32_t k, chunks;

    if (qp->state == AXON_QPS_RTS &&
        axon_psn_diff(pkt->psn, r->next_psn) < 0 &&
        axon_psn_diff(pkt->psn, r->next_psn) >= -AXON_RUD_WINDOW &&
        (axon_psn_diff(pkt->psn, r->una) < 0 || !sl->live)) {
        /* a request asked twice, answered twice: one answer is late */
        eng->stats.rud_dups++;
        qp->stats.dup_reqs++;
        return;
    }
    if (qp->state != AXON_QPS_RTS ||
        axon_psn_diff(pkt->psn, r->una) < 0 ||
        axon_psn_diff(pkt->psn, r->next_psn) >= 0 || !sl->live || !sl->read ||
        e->rud.msg_id != pkt->msg_id || pkt->offset < sl->off ||
        (pkt->offset - sl->off) % qp->mtu) {
        axon_rud_drop(eng, qp, pkt, "response for nothing outstanding");
        return;
    }
    k = (pkt->offset - sl->off) / qp->mtu;
    chunks = MAX(DIV_ROUND_UP(sl->len, qp->mtu), 1);
    if (k >= chunks ||
        pkt->len != MIN(qp->mtu, sl->off + sl->len - pkt->offset)) {
        axon_rud_drop(eng, qp, pkt, "response size");
        return;
    }
    if (sl->got & (1ULL << k)) {
        eng->stats.rud_dups++;
        qp->stats.dup_reqs++;
        return;
    }
    if (pkt->len && !axon_mr_sge_rw(eng, qp->pdn, e->sge, e->num_sge,
                                    pkt->offset, (uint8_t *)pkt->payload,
                                    pkt->len, AXON_DMA_FROM_DEVICE)) {
        axon_rud_fail(eng, qp, e, AXON_WC_LOC_PROT_ERR);
        return;
    }
    sl->got |= 1ULL << k;
    if (sl->got != (chunks == 64 ? UINT64_MAX : (1ULL << chunks) - 1)) {
        return;
    }
    if (sl->tries == 1) {
        axon_rud_rtt(r, axon_rud_now(r) - sl->sent_ns);
    }
    axon_rud_slot_done(qp, sl);
    axon_rud_cwnd_acked(qp, 1, pkt->ecn == AXON_ECN_CE);
    axon_rud_advance_una(r);
    axon_roce_complete(eng, qp);
}

/* The slot at psn is acknowledged by an ACK; true if that is news. */
static bool axon_rud_sacked(AxonQp *qp, uint32_t psn)
{
    AxonRudSlot *sl = axon_rud_slot(qp->rud, psn);

    if (!sl->live || sl->read) {
        return false;           /* a READ waits for its responses */
    }
    axon_rud_slot_done(qp, sl);
    return true;
}

static uint8_t axon_rud_nak_status(uint8_t syndrome)
{
    switch (syndrome & 0x1f) {
    case NAK_INV_REQ:
        return AXON_WC_REM_INV_REQ_ERR;
    case NAK_REM_ACCESS:
        return AXON_WC_REM_ACCESS_ERR;
    default:
        return AXON_WC_REM_OP_ERR;
    }
}

/*
 * A switch trimmed the packet at err_psn: it goes again now, if it is
 * still in flight as the notice names it (a late notice is news of
 * nothing).
 */
static void axon_rud_trim_notice(AxonEngine *eng, AxonQp *qp,
                                 const AxonPkt *pkt)
{
    AxonRud *r = qp->rud;
    AxonRudSlot *sl = axon_rud_slot(r, pkt->err_psn);

    if (axon_psn_diff(pkt->err_psn, r->una) >= 0 &&
        axon_psn_diff(pkt->err_psn, r->next_psn) < 0 &&
        sl->live && !sl->read &&
        axon_win(qp, sl->wqe)->rud.msg_id == pkt->err_msg) {
        axon_rud_trimmed(eng, qp, sl, pkt->err_psn);
    }
}

static void axon_rud_ack_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt)
{
    AxonRud *r = qp->rud;
    AxonRudSlot *trig = axon_rud_slot(r, pkt->ack_psn);
    /* outside the PSNs in flight, the slot holds another packet's send */
    bool trig_in = axon_psn_diff(pkt->ack_psn, r->una) >= 0 &&
                   axon_psn_diff(pkt->ack_psn, r->next_psn) < 0;
    bool trig_live = trig_in && trig->live && trig->tries == 1;
    int trig_plane = trig_in ? trig->plane : -1;
    int64_t trig_sent = trig->sent_ns, now, late;
    unsigned n = 0, i;
    uint32_t psn, high;

    if (qp->state != AXON_QPS_RTS ||
        axon_psn_diff(pkt->psn, r->una) < -AXON_RUD_WINDOW ||
        axon_psn_diff(pkt->psn, r->next_psn) > 0 ||
        pkt->len > IB_RUD_SACK_BYTES) {
        axon_rud_drop(eng, qp, pkt, "ACK for nothing sent");
        return;
    }
    if (pkt->syndrome >> AETH_TYPE_SHIFT == AETH_NAK) {
        AxonRudSlot *sl = axon_rud_slot(r, pkt->err_psn);

        /* only a packet of a message outstanding, as the NAK names it */
        if (sl->live && axon_psn_diff(pkt->err_psn, r->una) >= 0 &&
            axon_psn_diff(pkt->err_psn, r->next_psn) < 0 &&
            axon_win(qp, sl->wqe)->rud.msg_id == pkt->err_msg) {
            qp->stats.err_naks_rcvd++;
            axon_rud_fail(eng, qp, axon_win(qp, sl->wqe),
                          axon_rud_nak_status(pkt->syndrome));
            return;
        }
    }
    if (pkt->syndrome == AXON_RUD_SYN_TRIMMED) {
        axon_rud_trim_notice(eng, qp, pkt);
    }
    for (psn = r->una; axon_psn_diff(psn, pkt->psn) < 0;
         psn = axon_psn_add(psn, 1)) {
        n += axon_rud_sacked(qp, psn);
    }
    high = pkt->psn;
    for (i = 1; i < pkt->len * 8; i++) {
        psn = axon_psn_add(pkt->psn, i);
        if (axon_psn_diff(psn, r->next_psn) >= 0) {
            break;
        }
        /* a late ACK's bits before una: their slots hold newer PSNs */
        if (axon_psn_diff(psn, r->una) < 0) {
            continue;
        }
        if (pkt->payload[i / 8] & (1 << (i % 8))) {
            n += axon_rud_sacked(qp, psn);
            high = psn;
        }
    }
    now = axon_rud_now(r);
    if (trig_live && !trig->live) {
        axon_rud_rtt(r, now - trig_sent);
    }
    if (pkt->ce && trig_plane >= 0) {
        /* the plane that carried the marked packet queues: avoid it */
        r->avoid_until[trig_plane] = MAX(r->avoid_until[trig_plane],
                                         now + r->srtt_ns);
    }
    axon_rud_cwnd_acked(qp, n, pkt->ce);
    axon_rud_advance_una(r);
    for (psn = r->una; axon_psn_diff(psn, high) < 0;
         psn = axon_psn_add(psn, 1)) {
        AxonRudSlot *sl = axon_rud_slot(r, psn);

        late = axon_rud_late_at(r, sl);
        if (late && now > late) {
            axon_rud_queue(eng, qp, sl, psn, false);
        } else if (late) {
            /* a full window may bring no further ACK to tell */
            axon_rud_arm(r, late + 1);
        }
    }
    axon_roce_complete(eng, qp);
}

void axon_rud_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt)
{
    switch (pkt->opcode) {
    case IB_RUD_ACK:
        axon_rud_ack_rx(eng, qp, pkt);
        break;
    case IB_RUD_READ_RESP:
        axon_rud_resp_rx(eng, qp, pkt);
        break;
    default:
        axon_rud_req_rx(eng, qp, pkt);
    }
}
