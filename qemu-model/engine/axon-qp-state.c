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
    AxonQp **chunk;

    if (!qpn || qpn >= AXON_RDMA_QP_SLOTS) {
        return NULL;
    }
    chunk = eng->qp[qpn >> AXON_QP_CHUNK_SHIFT];
    return chunk ? chunk[qpn & (AXON_QP_CHUNK - 1)] : NULL;
}

/*
 * Slot qpn of the table, empty, holds qp; or, qp NULL, a QP's slot is
 * emptied. False when the slot's chunk cannot be made. The table grows
 * and shrinks with the QPs a device holds, 8 KiB a chunk of 1024, not
 * with AXON_RDMA_MAX_QP.
 */
bool axon_qp_table_set(AxonEngine *eng, uint32_t qpn, AxonQp *qp)
{
    unsigned c = qpn >> AXON_QP_CHUNK_SHIFT;

    if (!eng->qp[c]) {
        eng->qp[c] = axon_new0(AxonQp *, AXON_QP_CHUNK);
        if (!eng->qp[c]) {
            return false;
        }
    }
    eng->qp[c][qpn & (AXON_QP_CHUNK - 1)] = qp;
    if (qp) {
        eng->qp_chunk_used[c]++;
    } else if (!--eng->qp_chunk_used[c]) {
        free(eng->qp[c]);
        eng->qp[c] = NULL;
    }
    return true;
}

/* The QP with the lowest qpn >= *qpn, *qpn set to it; NULL: none. */
AxonQp *axon_qp_next(AxonEngine *eng, uint32_t *qpn)
{
    uint32_t i = *qpn;

    while (i < AXON_RDMA_QP_SLOTS) {
        AxonQp **chunk = eng->qp[i >> AXON_QP_CHUNK_SHIFT];

        if (!chunk) {
            i = (i | (AXON_QP_CHUNK - 1)) + 1;      /* skip the empty chunk */
        } else if (chunk[i & (AXON_QP_CHUNK - 1)]) {
            *qpn = i;
            return chunk[i & (AXON_QP_CHUNK - 1)];
        } else {
            i++;
        }
    }
    return NULL;
}

void axon_qp_table_free(AxonEngine *eng)
{
    for (unsigned i = 0; i < AXON_QP_CHUNKS; i++) {
        free(eng->qp[i]);
        eng->qp[i] = NULL;
        eng->qp_chunk_used[i] = 0;
    }
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
