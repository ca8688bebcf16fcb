/*
 * axon engine: doorbells
 *
 * One page per user context (its UAR): a context rings only its own QPs,
 * SRQs and CQs. A doorbell names the queue and its new producer index (or
 * a CQ's arm); a bad one is refused, counted and reported, and changes
 * nothing.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce.h"

/* Every id a doorbell can carry rings inside its page. */
AXON_BUILD_BUG_ON(AXON_DB_OFFSET(AXON_DB_REG_MASK, AXON_DB_MAX_ID) >=
                  AXON_DB_PAGE_SIZE);

static void axon_db_reject(AxonEngine *eng, uint32_t page, uint32_t reg,
                           uint32_t val, const char *why)
{
    axon_env_guest_error(eng->env, "doorbell page %u offset 0x%x "
                         "value 0x%x rejected: %s\n", page, reg, val, why);
    axon_trace_err_rdma_db(eng->env, page, reg, val, why);
    eng->stats.db_rejects++;
}

static void axon_db_qp(AxonEngine *eng, uint32_t page, uint32_t offset,
                       uint32_t id, uint32_t val)
{
    uint32_t reg = AXON_DB_REG(offset);
    AxonQp *qp = axon_qp_lookup(eng, id);
    uint16_t pi = AXON_DB_GET_VALUE(val);
    AxonWq *wq;
    uint16_t done, taken;

    if (!qp || qp->uar != page) {
        axon_db_reject(eng, page, offset, val, "no such QP on this page");
        return;
    }
    if (qp->state == AXON_QPS_RESET) {
        axon_db_reject(eng, page, offset, val, "QP in RESET");
        return;
    }
    if (reg == AXON_DB_RQ && qp->srq) {
        axon_db_reject(eng, page, offset, val, "the QP receives from an SRQ");
        return;
    }
    wq = reg == AXON_DB_SQ ? &qp->sq : &qp->rq;
    if (!wq->depth) {
        axon_db_reject(eng, page, offset, val, "the QP has no such queue");
        return;
    }
    done = reg == AXON_DB_SQ ? qp->comp.sq_comp : qp->rq.ci;
    /* a SEND being placed holds the receive WQE at rq.ci */
    taken = reg == AXON_DB_SQ ? qp->req.sq_fetch :
            qp->rq.ci + qp->resp.recv_active;
    if ((uint16_t)(pi - done) > wq->depth) {
        axon_db_reject(eng, page, offset, val, "more WQEs than the depth");
        return;
    }
    if ((uint16_t)(pi - done) < (uint16_t)(taken - done)) {
        axon_db_reject(eng, page, offset, val, "producer index went back");
        return;
    }
    wq->pi = pi;
    if (reg == AXON_DB_SQ) {
        axon_roce_kick(eng, qp);
    } else if (qp->state == AXON_QPS_ERR) {
        axon_roce_schedule(eng, qp);
    }
}

static void axon_db_cq(AxonEngine *eng, uint32_t page, uint32_t offset,
                       uint32_t id, uint32_t val)
{
    AxonCq *cq = axon_cq_lookup(eng, id);
    uint32_t arm = AXON_DB_GET_VALUE(val);

    if (!cq || cq->uar != page) {
        axon_db_reject(eng, page, offset, val,
                       "no such CQ on this page");
        return;
    }
    if (arm != AXON_CQ_ARM_NEXT && arm != AXON_CQ_ARM_SOLICITED) {
        axon_db_reject(eng, page, offset, val, "bad arm value");
        return;
    }
    /* NEXT covers SOLICITED */
    if (cq->arm != AXON_CQ_ARM_NEXT) {
        cq->arm = arm;
    }
}

/*
 * A write of val at offset offset of doorbell page (UAR) page: the offset
 * names the doorbell and carries the id's high bits (AXON_DB_OFFSET).
 */
void axon_engine_doorbell(AxonEngine *eng, uint32_t page, uint32_t offset,
                          uint32_t val)
{
    uint32_t reg = AXON_DB_REG(offset);
    uint32_t id = AXON_DB_FULL_ID(offset, val);
    const char *why;

    if (!axon_env_running(eng->env)) {
        axon_db_reject(eng, page, offset, val, "device not ready");
        return;
    }
    switch (reg) {
    case AXON_DB_SQ:
    case AXON_DB_RQ:
        axon_db_qp(eng, page, offset, id, val);
        break;
    case AXON_DB_CQ_ARM:
        axon_db_cq(eng, page, offset, id, val);
        break;
    case AXON_DB_SRQ:
        if (!axon_srq_doorbell(eng, page, id, val, &why)) {
            axon_db_reject(eng, page, offset, val, why);
        }
        break;
    default:
        axon_db_reject(eng, page, offset, val, "no doorbell at this offset");
        break;
    }
}
