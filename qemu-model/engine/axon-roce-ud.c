/*
 * axon engine: the UD service (IBA 9.8; rxe_req.c and rxe_resp.c for UD)
 *
 * Send: each SEND WQE of a UD QP is one packet with a DETH to the QP,
 * Q_Key and address its WQE names, completed once it is sent: nothing
 * is acknowledged, nothing retransmitted. One over the port's MTU is not
 * sent at all, and completes successfully all the same (IBA C10-93.1.1).
 * Receive: a datagram carrying the QP's Q_Key takes a receive WQE, which
 * gets the 40-byte GRH (the packet's IP header) and then the payload; the
 * CQE names the sender.
 * Nothing a datagram carries changes the QP's state: a wrong Q_Key, no
 * receive WQE, a bad header or, for QP 1, a length that is not a MAD's
 * drops it, counted.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce.h"

/* Sends e's datagram; fails e if its payload cannot be gathered. */
static void axon_ud_send(AxonEngine *eng, AxonQp *qp, AxonSwqe *e)
{
    const struct axon_ud_av *av = &e->ud.av;
    AxonPkt pkt = {
        .opcode = e->opcode == AXON_WR_SEND_IMM ? IB_UD_SEND_ONLY_IMM :
                  IB_UD_SEND_ONLY,
        .se = e->flags & AXON_WQE_SOLICITED,
        .dqpn = e->ud.dqpn,
        .psn = e->first_psn,
        .qkey = e->ud.qkey,
        .src_qpn = qp->qpn,
        .imm = e->imm,
        .len = e->len,
    };
    AxonPath path = {
        .dmac = av->dmac,
        .dgid = av->dgid,
        .sgid_index = av->sgid_index,
        .hop_limit = av->hop_limit,
        .tclass = av->tclass,
        .flow_label = le32_to_cpu(av->flow_label),
        .udp_sport = le16_to_cpu(av->udp_sport),
        .loopback = e->ud.loopback,
    };

    e->done = true;
    e->status = AXON_WC_SUCCESS;
    if (e->len > qp->mtu) {
        /* IBA C10-93.1.1: no packet, and no error */
        axon_trace_err_ud_tx(eng->env, qp->qpn, e->idx, e->len);
        return;
    }
    if (e->flags & AXON_WQE_INLINE) {
        pkt.payload = e->inline_data;
    } else if (axon_mr_sge_rw(eng, qp->pdn, e->sge, e->num_sge, 0,
                              eng->txbuf, e->len,
                              AXON_DMA_TO_DEVICE)) {
        pkt.payload = eng->txbuf;
    } else {
        axon_roce_fail(qp, e, AXON_WC_LOC_PROT_ERR);
        return;
    }
    axon_roce_xmit_path(eng, qp, &pkt, &path);
}

/*
 * Sends up to budget datagrams, completing each as it goes (in order,
 * through the completer); returns how many.
 */
unsigned axon_ud_req_run(AxonEngine *eng, AxonQp *qp, unsigned budget)
{
    unsigned sent = 0;

    while (sent < budget && qp->state == AXON_QPS_RTS) {
        AxonSwqe *e;

        if (qp->req.cur == qp->req.sq_fetch) {
            if (qp->req.sq_stopped || qp->req.sq_fetch == qp->sq.pi) {
                break;
            }
            axon_roce_fetch(eng, qp);
        }
        e = axon_win(qp, qp->req.cur);
        if (!e->done && axon_roce_pages_wait(eng, qp, e)) {
            break;
        }
        if (!e->done) {
            axon_ud_send(eng, qp, e);
            sent++;
        }
        axon_roce_complete(eng, qp);
    }
    return sent;
}

/*
 * The GRH of a received datagram (IBA 11.4.1.2, for RoCE v2): an IPv6
 * header as it came, an IPv4 one in the last 20 bytes. false if the
 * packet's IP header cannot be one.
 */
static bool axon_ud_grh(const AxonPkt *pkt, uint8_t *grh, bool *v4)
{
    memset(grh, 0, AXON_UD_GRH_LEN);
    if (!pkt->l3 || !pkt->l3_len) {
        return false;
    }
    *v4 = pkt->l3[0] >> 4 == 4;
    if (*v4 && pkt->l3_len == 20) {
        memcpy(grh + 20, pkt->l3, 20);
        return true;
    }
    if (!*v4 && pkt->l3_len == AXON_UD_GRH_LEN) {
        memcpy(grh, pkt->l3, AXON_UD_GRH_LEN);
        return true;
    }
    return false;   /* IPv4 with options: no room in a GRH */
}

/* A datagram for a UD QP. */
void axon_ud_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt)
{
    AxonRdmaStats *st = &eng->stats;
    AxonWq *wq = axon_qp_recv_wq(qp);
    uint8_t grh[AXON_UD_GRH_LEN];
    struct axon_cqe cqe = {};
    uint32_t byte_len;
    bool v4 = false;

    if ((qp->state != AXON_QPS_RTR && qp->state != AXON_QPS_RTS) ||
        pkt->len > qp->mtu || !axon_ud_grh(pkt, grh, &v4)) {
        axon_trace_err_ud_rx(eng->env, qp->qpn, pkt->src_qpn,
                             "state or header");
        st->rx_drops++;
        return;
    }
    if (qp->qpn == AXON_GSI_QPN && pkt->len != AXON_GSI_MAD_SIZE) {
        axon_trace_err_ud_rx(eng->env, qp->qpn, pkt->src_qpn,
                             "not a MAD's length");
        st->rx_drops++;
        return;
    }
    if (pkt->qkey != le32_to_cpu(qp->attr.qkey)) {
        axon_trace_err_ud_rx(eng->env, qp->qpn, pkt->src_qpn, "Q_Key");
        st->qkey_drops++;
        return;
    }
    if (wq->ci == wq->pi) {
        axon_trace_err_ud_rx(eng->env, qp->qpn, pkt->src_qpn, "no receive WQE");
        st->ud_nobuf++;
        return;
    }
    if (!axon_roce_recv_fetch(eng, qp)) {
        axon_qp_cqe(eng, qp, true, qp->resp.recv_wr_id, qp->resp.recv_idx,
                    AXON_WC_RECV, AXON_WC_LOC_QP_OP_ERR, 0, 0, 0);
        axon_roce_recv_done(qp);
        axon_qp_error(eng, qp);
        return;
    }
    byte_len = AXON_UD_GRH_LEN + pkt->len;
    cqe.wr_id = cpu_to_le64(qp->resp.recv_wr_id);
    cqe.wqe_index = cpu_to_le16(qp->resp.recv_idx);
    cqe.opcode = AXON_WC_RECV;
    cqe.status = AXON_WC_SUCCESS;
    if (byte_len > axon_roce_recv_room(qp)) {
        /* the message is lost, the QP goes on (a UD receive error) */
        cqe.status = AXON_WC_LOC_LEN_ERR;
    } else if (!axon_mr_sge_rw(eng, axon_roce_recv_pdn(qp), qp->resp.recv_sge,
                               qp->resp.recv_nsge, 0, grh, AXON_UD_GRH_LEN,
                               AXON_DMA_FROM_DEVICE) ||
               (pkt->len &&
                !axon_mr_sge_rw(eng, axon_roce_recv_pdn(qp), qp->resp.recv_sge,
                                qp->resp.recv_nsge, AXON_UD_GRH_LEN,
                                (uint8_t *)pkt->payload, pkt->len,
                                AXON_DMA_FROM_DEVICE))) {
        cqe.status = AXON_WC_LOC_PROT_ERR;
    } else {
        cqe.byte_len = cpu_to_le32(byte_len);
        cqe.src_qp = cpu_to_le32(pkt->src_qpn);
        cqe.imm_data = pkt->imm;
        cqe.flags = AXON_CQE_GRH | (v4 ? AXON_CQE_GRH_IPV4 : 0) |
                    (axon_ib_op(pkt->opcode)->flags & OP_IMM ?
                     AXON_CQE_WITH_IMM : 0) |
                    (pkt->se ? AXON_CQE_SOLICITED : 0);
    }
    axon_qp_cqe_write(eng, qp, true, &cqe);
    axon_roce_recv_done(qp);
    if (cqe.status == AXON_WC_LOC_PROT_ERR) {
        axon_qp_error(eng, qp);
    }
}
