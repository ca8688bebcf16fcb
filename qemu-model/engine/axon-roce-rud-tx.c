/*
 * axon engine: the RUD sender
 *
 * WQEs cut into packets at the path MTU, each with a PSN of its own and
 * a RUDETH saying where it goes, sent within the window; packets found
 * lost sent again, on another plane.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce-rud.h"

/* ---- sender -------------------------------------------------------------- */

static uint8_t axon_rud_op(uint8_t wr_opcode)
{
    switch (wr_opcode) {
    case AXON_WR_SEND_IMM:
        return RUD_OP_SEND_IMM;
    case AXON_WR_RDMA_WRITE:
        return RUD_OP_WRITE;
    case AXON_WR_RDMA_WRITE_IMM:
        return RUD_OP_WRITE_IMM;
    case AXON_WR_RDMA_READ:
        return RUD_OP_READ;
    default:
        return RUD_OP_SEND;
    }
}

/*
 * The packets in flight reach half the window, or all of it: a window
 * smaller than the AckReq interval would otherwise wait for the probe.
 */
static bool axon_rud_window_mark(AxonRud *r)
{
    uint32_t pkts = MAX(r->cwnd / AXON_RUD_CWND_ONE, 1);

    return r->inflight == pkts / 2 || r->inflight >= pkts;
}

/* Sends (again) the packet at psn; false if its payload is unreadable. */
static bool axon_rud_send_pkt(AxonEngine *eng, AxonQp *qp, uint32_t psn,
                              bool again)
{
    AxonRud *r = qp->rud;
    AxonRudSlot *sl = axon_rud_slot(r, psn);
    AxonSwqe *e = axon_win(qp, sl->wqe);
    AxonPkt pkt = {
        .opcode = sl->read ? IB_RUD_READ_REQ : IB_RUD_DATA,
        .psn = psn,
        .key = r->tx_key,
        .msg_id = e->rud.msg_id,
        .msg_len = e->len,
        .offset = sl->off,
        .rud_op = axon_rud_op(e->opcode),
        .imm = e->imm,
        .rkey = e->rkey,
        .va = e->raddr,
        .se = (e->flags & AXON_WQE_SOLICITED) &&
              e->opcode != AXON_WR_RDMA_WRITE,
        /* an ACK for a message's end, and now and then within one */
        .ackreq = again || sl->off + sl->len >= e->len ||
                  psn % AXON_RUD_ACK_REQ == 0 || axon_rud_window_mark(r),
    };
    unsigned plane;

    if (sl->read) {
        pkt.req_len = sl->len;
    } else if (e->flags & AXON_WQE_INLINE) {
        pkt.payload = e->inline_data + sl->off;
        pkt.len = sl->len;
    } else {
        if (sl->len &&
            !axon_mr_sge_rw(eng, qp->pdn, e->sge, e->num_sge, sl->off,
                            eng->txbuf, sl->len,
                            AXON_DMA_TO_DEVICE)) {
            return false;
        }
        pkt.payload = eng->txbuf;
        pkt.len = sl->len;
    }
    plane = axon_rud_pick_plane(eng, r, again ? sl->plane : -1);
    sl->plane = plane;
    sl->tries++;
    sl->seq = ++r->seq;
    sl->sent_ns = axon_rud_now(r);
    if (again) {
        eng->stats.retrans++;
        qp->stats.retrans++;
    }
    axon_rud_arm(r, MIN(axon_rud_due(r, sl), sl->sent_ns + axon_rud_pto(r)));
    axon_rud_xmit(eng, qp, &pkt, plane);
    return true;
}

/* Takes the next packet of the WQE at the cursor into a slot; its PSN. */
static uint32_t axon_rud_next_pkt(AxonQp *qp, AxonSwqe *e)
{
    AxonRud *r = qp->rud;
    uint32_t psn = r->next_psn, off = qp->req.cur_off;
    AxonRudSlot *sl = axon_rud_slot(r, psn);
    uint32_t max = e->opcode == AXON_WR_RDMA_READ ?
                   AXON_RUD_READ_PKTS * qp->mtu : qp->mtu;

    memset(sl, 0, sizeof(*sl));
    sl->live = true;
    sl->read = e->opcode == AXON_WR_RDMA_READ;
    sl->wqe = e->idx;
    sl->off = off;
    sl->len = MIN(max, e->len - off);
    e->rud.left++;
    r->inflight++;
    r->next_psn = axon_psn_add(psn, 1);
    /* the cursor moves first: a loopback answer may come back at once */
    qp->req.cur_off = off + sl->len;
    if (qp->req.cur_off >= e->len) {
        qp->req.cur++;
        qp->req.cur_off = 0;
    }
    return psn;
}

/* RUD WQEs: what axon_roce_fetch() cannot tell from the opcode alone. */
static bool axon_rud_wqe_ok(const AxonSwqe *e)
{
    return !axon_wr_atomic(e->opcode) && e->opcode != AXON_WR_SEND_INV;
}

unsigned axon_rud_req_run(AxonEngine *eng, AxonQp *qp, unsigned budget)
{
    AxonRud *r = qp->rud;
    unsigned sent = 0;

    while (sent < budget && qp->state == AXON_QPS_RTS) {
        AxonSwqe *e;
        uint32_t psn;

        if (r->rs_count) {
            AxonRudSlot *sl;

            psn = r->resend[r->rs_head];
            r->rs_head = (r->rs_head + 1) & (r->nslots - 1);
            r->rs_count--;
            sl = axon_rud_slot(r, psn);
            sl->queued = false;
            if (sl->live) {
                if (!axon_rud_send_pkt(eng, qp, psn, true)) {
                    axon_rud_fail(eng, qp, axon_win(qp, sl->wqe),
                                  AXON_WC_LOC_PROT_ERR);
                }
                sent++;
            }
            continue;
        }
        if (r->inflight >= MAX(r->cwnd / AXON_RUD_CWND_ONE, 1) ||
            (axon_psn_diff(r->next_psn, r->una) >= (int32_t)r->nslots &&
             !axon_rud_grow(r))) {
            break;
        }
        if (qp->req.cur == qp->req.sq_fetch) {
            if (qp->req.sq_stopped || qp->req.sq_fetch == qp->sq.pi ||
                axon_win_full(qp)) {
                break;
            }
            axon_roce_fetch(eng, qp);
            e = axon_win(qp, qp->req.cur);
            if (!e->done && !axon_rud_wqe_ok(e)) {
                axon_roce_fail(qp, e, AXON_WC_LOC_QP_OP_ERR);
            }
        }
        e = axon_win(qp, qp->req.cur);
        if (e->done) {
            /* failed when fetched; completes in order */
            axon_roce_skip(qp, e);
            axon_roce_complete(eng, qp);
            continue;
        }
        if (!qp->req.cur_off) {
            /* a fence waits for every WQE before it to complete */
            if ((e->flags & AXON_WQE_FENCE) &&
                qp->comp.sq_comp != qp->req.cur) {
                break;
            }
            if (axon_roce_local_op(eng, qp, e)) {
                axon_roce_skip(qp, e);
                axon_roce_complete(eng, qp);
                continue;
            }
            e->rud.msg_id = r->msg_next++;
            e->rud.left = 0;
        }
        psn = axon_rud_next_pkt(qp, e);
        if (!axon_rud_send_pkt(eng, qp, psn, false)) {
            axon_rud_fail(eng, qp, e, AXON_WC_LOC_PROT_ERR);
            continue;
        }
        sent++;
    }
    if (sent == budget && r->rs_count) {
        axon_roce_schedule(eng, qp);
    }
    return sent;
}
