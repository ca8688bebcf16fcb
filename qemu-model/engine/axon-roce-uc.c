/*
 * axon engine: the UC service (IBA 9.7.7, 9.9.4; rxe_resp.c for UC)
 *
 * Send: a UC QP's WQEs are segmented like RC's (axon_roce_build) into UC
 * opcodes, none asking for an ACK, and complete once their last packet is
 * sent: nothing is acknowledged, nothing retransmitted. Receive: packets
 * are taken in PSN order; a PSN other than the expected drops the message
 * in progress, and the next first or only packet, whatever its PSN,
 * starts a new one (IBA 9.9.4: UC resynchronises on a message's start).
 * A message that cannot be placed (no receive WQE, an rkey that does not
 * allow the WRITE) is dropped whole. Nothing from the wire moves the
 * QP to ERR; only a receive WQE the consumer got wrong does.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce.h"

/*
 * Sends up to budget packets, completing each WQE (in order, through the
 * completer) once its last packet is out; returns how many.
 */
unsigned axon_uc_req_run(AxonEngine *eng, AxonQp *qp, unsigned budget)
{
    unsigned sent = 0;

    while (sent < budget && qp->state == AXON_QPS_RTS) {
        AxonSwqe *e;
        AxonPkt pkt;

        if (qp->req.cur == qp->req.sq_fetch) {
            if (qp->req.sq_stopped || qp->req.sq_fetch == qp->sq.pi) {
                break;
            }
            axon_roce_fetch(eng, qp);
        }
        e = axon_win(qp, qp->req.cur);
        if (e->done || axon_roce_local_op(eng, qp, e)) {
            axon_roce_complete(eng,
                               qp);      /* failed when fetched, or local */
            continue;
        }
        if (axon_roce_pages_wait(eng, qp, e)) {
            break;
        }
        if (!axon_roce_build(eng, qp, e, &pkt)) {
            axon_roce_fail(qp, e, AXON_WC_LOC_PROT_ERR);
            axon_roce_complete(eng, qp);
            continue;
        }
        pkt.opcode |= IB_SERVICE_UC;
        pkt.ackreq = false;
        axon_roce_xmit(eng, qp, &pkt);
        sent++;
        if (axon_win(qp, qp->req.cur) != e) {
            e->done = true;                 /* its last packet went */
            e->status = AXON_WC_SUCCESS;
            axon_roce_complete(eng, qp);
        }
    }
    return sent;
}

/*
 * The message in progress is lost: no packet of it is taken from now on.
 * A receive WQE it had begun stays for the next SEND.
 */
static void axon_uc_drop_msg(AxonEngine *eng, AxonQp *qp, const char *why)
{
    if (qp->resp.last_op != IB_NO_OPCODE) {
        axon_trace_err_uc_rx(eng->env, qp->qpn, qp->resp.epsn, why);
        eng->stats.uc_drops++;
    }
    qp->resp.last_op = IB_NO_OPCODE;
    qp->resp.recv_off = 0;
}

/* A receive WQE completes with an error; the QP goes on unless it is ERR. */
static void axon_uc_recv_fail(AxonEngine *eng, AxonQp *qp, uint8_t status)
{
    axon_qp_cqe(eng, qp, true, qp->resp.recv_wr_id, qp->resp.recv_idx,
                AXON_WC_RECV, status, 0, 0, 0);
    axon_roce_recv_done(qp);
    if (status != AXON_WC_LOC_LEN_ERR) {
        axon_qp_error(eng, qp);
    }
}

/*
 * The receive WQE for a message: the one a dropped SEND had begun, or the
 * next; false if there is none (or it is bad: completed, the QP in ERR).
 */
static bool axon_uc_take_recv(AxonEngine *eng, AxonQp *qp)
{
    AxonWq *wq = axon_qp_recv_wq(qp);

    if (qp->resp.recv_active) {
        return true;
    }
    if (wq->ci == wq->pi) {
        return false;
    }
    if (!axon_roce_recv_fetch(eng, qp)) {
        axon_uc_recv_fail(eng, qp, AXON_WC_LOC_QP_OP_ERR);
        return false;
    }
    return true;
}

/* A SEND packet; false if the message is dropped. */
static bool axon_uc_send(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt,
                         uint16_t flags)
{
    if ((flags & OP_START) && !axon_uc_take_recv(eng, qp)) {
        return false;
    }
    if (pkt->len > axon_roce_recv_room(qp) - qp->resp.recv_off) {
        axon_uc_recv_fail(eng, qp, AXON_WC_LOC_LEN_ERR);
        return false;
    }
    if (!axon_mr_sge_rw(eng, axon_roce_recv_pdn(qp), qp->resp.recv_sge,
                        qp->resp.recv_nsge, qp->resp.recv_off,
                        (uint8_t *)pkt->payload, pkt->len,
                        AXON_DMA_FROM_DEVICE)) {
        axon_uc_recv_fail(eng, qp, AXON_WC_LOC_PROT_ERR);
        return false;
    }
    qp->resp.recv_off += pkt->len;
    if (flags & OP_END) {
        axon_qp_cqe(eng, qp, true, qp->resp.recv_wr_id, qp->resp.recv_idx,
                    AXON_WC_RECV, AXON_WC_SUCCESS, qp->resp.recv_off, pkt->imm,
                    (flags & OP_IMM ? AXON_CQE_WITH_IMM : 0) |
                    (pkt->se ? AXON_CQE_SOLICITED : 0));
        axon_roce_recv_done(qp);
        qp->resp.recv_off = 0;
    }
    return true;
}

/* A WRITE packet; false if the message is dropped. */
static bool axon_uc_write(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt,
                          uint16_t flags)
{
    bool allowed = qp->attr.access & cpu_to_le32(AXON_ACCESS_REMOTE_WRITE);
    AxonMr *mr = NULL;

    if (flags & OP_START) {
        qp->resp.wr_va = pkt->va;
        qp->resp.wr_rkey = pkt->rkey;
        qp->resp.wr_left = pkt->dmalen;
        qp->resp.wr_len = pkt->dmalen;
    }
    if (pkt->len > qp->resp.wr_left ||
        ((flags & OP_END) && pkt->len != qp->resp.wr_left)) {
        return false;
    }
    /* a WRITE_IMM without a receive WQE for it writes nothing */
    if ((flags & OP_IMM) && !axon_uc_take_recv(eng, qp)) {
        return false;
    }
    if (pkt->len) {
        /* checked per packet: the MR may be gone since the first */
        mr = axon_mr_check_remote(eng, qp, qp->resp.wr_rkey, qp->resp.wr_va,
                           pkt->len, AXON_ACCESS_REMOTE_WRITE);
        if (!mr || !allowed ||
            !axon_mr_rw(eng, mr, qp->resp.wr_va, (uint8_t *)pkt->payload,
                        pkt->len, AXON_DMA_FROM_DEVICE)) {
            return false;
        }
    }
    qp->resp.wr_va += pkt->len;
    qp->resp.wr_left -= pkt->len;
    if (flags & OP_IMM) {
        axon_qp_cqe(eng, qp, true, qp->resp.recv_wr_id, qp->resp.recv_idx,
                    AXON_WC_RECV_RDMA_WITH_IMM, AXON_WC_SUCCESS,
                    qp->resp.wr_len, pkt->imm, AXON_CQE_WITH_IMM |
                    (pkt->se ? AXON_CQE_SOLICITED : 0));
        axon_roce_recv_done(qp);
    }
    return true;
}

/* A packet for a UC QP, from its peer. */
void axon_uc_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt)
{
    const AxonIbOp *op = axon_ib_op(pkt->opcode);
    uint8_t rc_op = pkt->opcode & ~IB_SERVICE_UC;
    bool in_msg = qp->resp.last_op != IB_NO_OPCODE;
    bool ok;

    if (qp->state != AXON_QPS_RTR && qp->state != AXON_QPS_RTS) {
        eng->stats.rx_drops++;
        return;
    }
    if (pkt->psn != qp->resp.epsn) {
        /* packets lost (UC sends nothing twice): so is their message */
        if (in_msg || !(op->flags & OP_START)) {
            qp->resp.last_op = rc_op;   /* counted once */
        }
        axon_uc_drop_msg(eng, qp, "PSN skipped");
        in_msg = false;
    }
    qp->resp.epsn = axon_psn_add(pkt->psn, 1);
    if (!(op->flags & OP_START) &&
        (!in_msg || axon_ib_ops[qp->resp.last_op].kind != op->kind)) {
        /* the rest of a message lost already, or out of sequence */
        axon_uc_drop_msg(eng, qp, "opcode out of sequence");
        return;
    }
    if ((op->flags & OP_START) && in_msg) {
        axon_uc_drop_msg(eng, qp, "message cut short");
    }
    if (qp->state == AXON_QPS_RTR && !qp->comm_est) {
        qp->comm_est = true;
        axon_qp_event(eng, qp, AXON_EVENT_COMM_EST);
    }
    ok = pkt->len <= qp->mtu &&
         ((op->flags & OP_END) || pkt->len == qp->mtu) &&
         (op->kind == KIND_SEND ? axon_uc_send(eng, qp, pkt, op->flags) :
          axon_uc_write(eng, qp, pkt, op->flags));
    if (!ok) {
        qp->resp.last_op = rc_op;       /* counted as in progress */
        axon_uc_drop_msg(eng, qp, op->kind == KIND_SEND ? "SEND not placed" :
                         "WRITE not placed");
        return;
    }
    qp->resp.last_op = op->flags & OP_END ? IB_NO_OPCODE : rc_op;
}
