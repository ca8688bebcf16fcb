/*
 * axon engine: a QP as the transports see it
 *
 * The services the transports call up through, and the only ones besides
 * the CQE writer (axon-cq.c): look a QP up by number, post its async
 * events, move it to ERR, and its counters as the device interface has
 * them. Nothing here calls a transport: a QP moved to ERR is scheduled,
 * and the engine stops its transport and flushes its queues when it runs
 * (axon_roce_flush).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce.h"

AxonQp *axon_qp_lookup(AxonEngine *eng, uint32_t qpn)
{
    return axon_table_get(&eng->qps, qpn);
}

void axon_qp_event(AxonEngine *eng, AxonQp *qp, uint16_t type)
{
    axon_env_event(eng->env, type, qp->qpn);
}

void axon_qp_error(AxonEngine *eng, AxonQp *qp)
{
    if (qp->state == AXON_QPS_ERR) {
        return;
    }
    axon_trace_rdma_qp_state(eng->env, qp->qpn, qp->state, AXON_QPS_ERR);
    qp->state = AXON_QPS_ERR;
    qp->last_wqe_owed = qp->srq;
    /* the engine stops its transport, then flushes both queues */
    axon_roce_unqueue(eng, qp);
    axon_roce_schedule(eng, qp);
}

void axon_qp_counters_le(const AxonQpStats *c, struct axon_qp_counters *out)
{
    *out = (struct axon_qp_counters) {
        .tx_pkts = cpu_to_le64(c->tx_pkts),
        .tx_bytes = cpu_to_le64(c->tx_bytes),
        .rx_pkts = cpu_to_le64(c->rx_pkts),
        .rx_bytes = cpu_to_le64(c->rx_bytes),
        .retrans = cpu_to_le64(c->retrans),
        .timeouts = cpu_to_le64(c->timeouts),
        .seq_naks_sent = cpu_to_le64(c->seq_naks_sent),
        .rnr_naks_sent = cpu_to_le64(c->rnr_naks_sent),
        .err_naks_sent = cpu_to_le64(c->err_naks_sent),
        .seq_naks_rcvd = cpu_to_le64(c->seq_naks_rcvd),
        .rnr_naks_rcvd = cpu_to_le64(c->rnr_naks_rcvd),
        .err_naks_rcvd = cpu_to_le64(c->err_naks_rcvd),
        .out_of_seq = cpu_to_le64(c->out_of_seq),
        .dup_reqs = cpu_to_le64(c->dup_reqs),
        .stray = cpu_to_le64(c->stray),
        .local_errs = cpu_to_le64(c->local_errs),
        .remote_errs = cpu_to_le64(c->remote_errs),
    };
}
