/*
 * axon engine: receive WQEs, as a SEND or WRITE_WITH_IMM takes them
 *
 * Every service that receives (the RC responder, UC, UD, RUD) takes the
 * next receive WQE of its QP's RQ or SRQ into the QP's responder state,
 * checked, and frees it when the message is placed.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce.h"

/*
 * The receive WQE being placed is done with. An RQ's slot is free from
 * now on; an SRQ's was when the QP took it.
 */
void axon_roce_recv_done(AxonQp *qp)
{
    if (!qp->srq) {
        qp->rq.ci++;
    }
    qp->resp.recv_active = false;
}

/* The PD the receive WQE's lkeys belong to: the SRQ's, or the QP's. */
uint32_t axon_roce_recv_pdn(AxonQp *qp)
{
    return qp->srq ? qp->srq->pdn : qp->pdn;
}

/*
 * Takes the next receive WQE into the responder's state (RC and UD
 * alike); false if it is bad.
 */
bool axon_roce_recv_fetch(AxonEngine *eng, AxonQp *qp)
{
    AxonWq *rq = axon_qp_recv_wq(qp);
    uint16_t idx = rq->ci;
    uint64_t addr = rq->base + ((uint64_t)(idx & (rq->depth - 1)) << rq->shift);
    struct axon_recv_wqe w;
    struct axon_sge sge[AXON_MAX_SGE];
    unsigned i;

    qp->resp.recv_idx = idx;
    qp->resp.recv_off = 0;
    qp->resp.recv_active = true;
    qp->resp.recv_wr_id = 0;
    if (qp->srq) {
        axon_srq_taken(eng, qp->srq);
    }
    if (axon_env_dma_read(eng->env, addr, &w, sizeof(w))) {
        qp->resp.recv_wr_id = le64_to_cpu(w.wr_id);
        if (w.num_sge <= AXON_MAX_SGE &&
            buffer_is_zero(w.reserved, sizeof(w.reserved)) &&
            sizeof(w) + w.num_sge * sizeof(sge[0]) <= 1u << rq->shift &&
            axon_env_dma_read(eng->env, addr + sizeof(w), sge,
                              w.num_sge * sizeof(sge[0]))) {
            qp->resp.recv_nsge = w.num_sge;
            for (i = 0; i < w.num_sge; i++) {
                qp->resp.recv_sge[i].addr = le64_to_cpu(sge[i].addr);
                qp->resp.recv_sge[i].length = le32_to_cpu(sge[i].length);
                qp->resp.recv_sge[i].lkey = le32_to_cpu(sge[i].lkey);
            }
            return true;
        }
    }
    axon_env_guest_error(eng->env, "QP %u: bad receive WQE %u\n",
                         qp->qpn, idx);
    axon_trace_err_roce_wqe(eng->env, qp->qpn, idx, 0xff, w.num_sge);
    return false;
}

uint32_t axon_roce_recv_room(AxonQp *qp)
{
    uint64_t room = 0;
    unsigned i;

    for (i = 0; i < qp->resp.recv_nsge; i++) {
        room += qp->resp.recv_sge[i].length;
    }
    return MIN(room, UINT32_MAX);
}
