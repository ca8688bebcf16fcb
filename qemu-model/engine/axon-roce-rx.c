/*
 * axon engine: the receive path's top, a packet to its QP's stage
 *
 * A frame from the wire (decoded by axon-roce-net.c) or a packet one of
 * this device's QPs sent to another (loopback, through eng->rx_local)
 * goes to the QP it names, if that QP may take it: RC requests to its
 * responder, responses to its completer, and the UC, UD and RUD
 * services' packets to theirs; a datagram to a multicast group to each
 * QP attached to it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce.h"

/*
 * Is the packet from the QP's peer? In loopback, from (the sending QP)
 * must be its destination QP; on the wire the source IP must be its dgid.
 */
static bool axon_roce_from_peer(const AxonQp *qp, const AxonPkt *pkt,
                                const AxonQp *from)
{
    if (from) {
        return qp->loopback && from->qpn == le32_to_cpu(qp->attr.dest_qpn);
    }
    return !qp->loopback && !memcmp(pkt->sgid, qp->attr.dgid, 16);
}

/* The type of QP a packet's service is for (the CNP: RC's). */
static uint8_t axon_roce_service_qpt(uint8_t opcode)
{
    switch (IB_OPCODE_SERVICE(opcode)) {
    case IB_SERVICE_UD:
        return AXON_QPT_UD;
    case IB_SERVICE_UC:
        return AXON_QPT_UC;
    case IB_SERVICE_RUD:
        return AXON_QPT_RUD;
    case IB_SERVICE_XRC:
        return axon_ib_op(opcode)->flags & OP_REQ ? AXON_QPT_XRC_TGT :
                                                    AXON_QPT_XRC_INI;
    default:
        return AXON_QPT_RC;
    }
}

/*
 * A datagram to AXON_MCAST_QPN: a copy to each QP attached to its group,
 * as if sent to that QP, so the UD service's checks (state, Q_Key, a
 * receive WQE) hold for each copy on its own.
 */
static void axon_roce_rx_mcast(AxonEngine *eng, const AxonPkt *pkt,
                               const AxonQp *from)
{
    const uint32_t *qpn;
    AxonPkt copy = *pkt;
    uint32_t i, n;

    qpn = axon_mcast_members(eng, pkt->dgid, &n);
    if (!qpn || IB_OPCODE_SERVICE(pkt->opcode) != IB_SERVICE_UD) {
        axon_trace_err_roce_qpn(eng->env, pkt->dqpn);
        eng->stats.rx_drops++;
        return;
    }
    for (i = 0; i < n; i++) {
        copy.dqpn = qpn[i];
        axon_roce_rx_pkt(eng, &copy, from);
    }
}

/*
 * XRC runs RC's stages on the packet as RC's. A target's request takes
 * its receive WQE, CQ and PD from the XRC SRQ it names, which must be of
 * the target's domain (else it is dropped, counted: the initiator
 * retries), for as long as the request is handled.
 */
static void axon_roce_rx_xrc(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt)
{
    AxonPkt rc = *pkt;
    AxonSrq *srq;

    rc.opcode &= ~IB_OPCODE_SERVICE(pkt->opcode);
    if (qp->type == AXON_QPT_XRC_INI) {
        axon_roce_comp_rx(eng, qp, &rc);
        return;
    }
    srq = axon_srq_lookup(eng, pkt->xrc_srqn);
    if (!srq || !srq->xrcdn || srq->xrcdn != qp->xrcdn) {
        axon_trace_err_roce_peer(eng->env, qp->qpn, pkt->xrc_srqn);
        eng->stats.rx_drops++;
        return;
    }
    qp->srq = srq;
    qp->rcq = srq->cq;
    qp->pdn = srq->pdn;
    axon_roce_resp_rx(eng, qp, &rc);
    qp->srq = NULL;
    qp->rcq = NULL;
}

/* A packet for this device: from its wire, or (from) one of its QPs. */
void axon_roce_rx_pkt(AxonEngine *eng, const AxonPkt *pkt,
                      const AxonQp *from)
{
    AxonQp *qp;

    if (pkt->dqpn == AXON_MCAST_QPN) {
        axon_roce_rx_mcast(eng, pkt, from);
        return;
    }
    qp = axon_qp_lookup(eng, pkt->dqpn);
    if (!qp) {
        axon_trace_err_roce_qpn(eng->env, pkt->dqpn);
        eng->stats.rx_drops++;
        return;
    }
    /* a RUD packet without the QP's key: before anything else is looked at */
    if (qp->type == AXON_QPT_RUD &&
        IB_OPCODE_SERVICE(pkt->opcode) == IB_SERVICE_RUD &&
        !axon_rud_key_ok(eng, qp, pkt)) {
        return;
    }
    /* connected QPs take packets from their peer only */
    if (qp->type != axon_roce_service_qpt(pkt->opcode) ||
        (pkt->opcode == IB_CNP && qp->state != AXON_QPS_RTR &&
         qp->state != AXON_QPS_RTS) ||
        (qp->type != AXON_QPT_UD && !axon_roce_from_peer(qp, pkt, from))) {
        axon_trace_err_roce_peer(eng->env, qp->qpn, from ? from->qpn : 0);
        eng->stats.rx_drops++;
        return;
    }
    eng->stats.rx_pkts++;
    qp->stats.rx_pkts++;
    qp->stats.rx_bytes += pkt->len;
    if (qp->type == AXON_QPT_UD) {
        axon_ud_rx(eng, qp, pkt);
        return;
    }
    if (pkt->opcode == IB_CNP) {
        axon_cc_cnp_rx(eng, qp);
        return;
    }
    axon_cc_rx(eng, qp, pkt);
    if (IB_OPCODE_SERVICE(pkt->opcode) == IB_SERVICE_XRC) {
        axon_roce_rx_xrc(eng, qp, pkt);
    } else if (qp->type == AXON_QPT_RUD) {
        axon_rud_rx(eng, qp, pkt);
    } else if (qp->type == AXON_QPT_UC) {
        axon_uc_rx(eng, qp, pkt);
    } else if (axon_ib_op(pkt->opcode)->flags & OP_REQ) {
        axon_roce_resp_rx(eng, qp, pkt);
    } else {
        axon_roce_comp_rx(eng, qp, pkt);
    }
}

bool axon_engine_rx(AxonEngine *eng, unsigned plane, const uint8_t *frame,
                    size_t len)
{
    AxonPkt pkt = {};
    const char *why;

    if (!axon_roce_decode(eng, frame, len, &pkt, &why)) {
        return false;
    }
    if (why) {
        axon_trace_err_roce_rx(eng->env, why);
        eng->stats.rx_drops++;
        return true;
    }
    axon_trace_roce_rx(eng->env, pkt.opcode, pkt.dqpn, pkt.psn, pkt.len);
    axon_roce_rx_pkt(eng, &pkt, NULL);
    return true;
}
