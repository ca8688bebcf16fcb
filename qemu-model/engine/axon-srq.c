/*
 * axon engine: shared receive queues
 *
 * The admin commands that create, arm, query and destroy SRQs, their
 * doorbell, and the one service the responder calls when one of an SRQ's
 * QPs takes a WQE from it (which may post the limit event). The QPs take
 * the WQEs themselves through axon_qp_recv_wq(), as from their own RQ.
 * An XRC SRQ (an XRC domain's) is lent, with its CQ and PD, to the XRC
 * target a request names it to, for that request (axon-roce-rx.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-rdma.h"

AXON_BUILD_BUG_ON(sizeof(struct axon_admin_srq) != 56);

AxonSrq *axon_srq_lookup(AxonEngine *eng, uint32_t srqn)
{
    return srqn && srqn <= AXON_RDMA_MAX_SRQ ? eng->srq[srqn] : NULL;
}

/* WQEs posted and not taken yet */
static uint32_t axon_srq_level(AxonSrq *srq)
{
    return (uint16_t)(srq->wq.pi - srq->wq.ci);
}

uint16_t axon_srq_create(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                         uint64_t *result)
{
    const struct axon_admin_srq *c = &cmd->srq;
    uint64_t ring = le64_to_cpu(c->ring_addr);
    uint32_t pdn = le32_to_cpu(c->pdn), uar = le32_to_cpu(c->uar);
    uint32_t depth = le16_to_cpu(c->depth), limit = le32_to_cpu(c->limit);
    uint32_t xrcdn = le32_to_cpu(c->xrcdn), cqn = le32_to_cpu(c->cqn);
    AxonCq *cq = axon_cq_lookup(eng, cqn);
    uint32_t n, srqn = 0;
    AxonSrq *srq;

    if (c->reserved0 || c->srqn ||
        !buffer_is_zero(c->reserved, sizeof(c->reserved))) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_CREATE_SRQ,
                                   "reserved bytes set");
    }
    if (!xrcdn && cqn) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_CREATE_SRQ,
                                   "a CQ for a basic SRQ");
    }
    if (!axon_mr_pd_valid(eng, pdn) || (xrcdn && !cq)) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (!ring || !IS_ALIGNED(ring, AXON_QUEUE_ALIGN) ||
        depth < AXON_WQ_MIN_DEPTH || !is_power_of_2(depth) ||
        c->wqe_shift < AXON_RQ_MIN_WQE_SHIFT ||
        c->wqe_shift > AXON_WQE_MAX_SHIFT ||
        ring + ((uint64_t)depth << c->wqe_shift) < ring ||
        limit >= depth || uar >= AXON_RDMA_DB_PAGES) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_CREATE_SRQ,
                                   "bad ring, depth, limit or uar");
    }
    /* next fit, as for QPs: a number just freed is not reused at once */
    for (n = 0; n < AXON_RDMA_MAX_SRQ; n++) {
        srqn = (eng->srq_last + n) % AXON_RDMA_MAX_SRQ + 1;
        if (!eng->srq[srqn]) {
            break;
        }
    }
    if (n == AXON_RDMA_MAX_SRQ) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    eng->srq_last = srqn;
    srq = axon_new0(AxonSrq, 1);
    if (!srq) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    srq->srqn = srqn;
    srq->xrcdn = xrcdn;
    srq->cq = xrcdn ? cq : NULL;
    if (srq->cq) {
        srq->cq->users++;
    }
    srq->pdn = pdn;
    srq->uar = uar;
    srq->wq.base = ring;
    srq->wq.depth = depth;
    srq->wq.shift = c->wqe_shift;
    srq->limit = limit;
    eng->pd_users[pdn]++;
    eng->srq[srqn] = srq;
    *result = srqn;
    axon_trace_rdma_srq(eng->env, srqn, depth, uar);
    return AXON_ADMIN_SUCCESS;
}

/* MODIFY_SRQ, QUERY_SRQ and DESTROY_SRQ name an SRQ and nothing else. */
static AxonSrq *axon_srq_cmd(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                             bool with_limit, uint16_t *status)
{
    const struct axon_admin_srq *c = &cmd->srq;
    AxonSrq *srq;

    if (c->ring_addr || c->pdn || c->uar || c->depth || c->wqe_shift ||
        c->reserved0 || (!with_limit && c->limit) || c->xrcdn || c->cqn ||
        !buffer_is_zero(c->reserved, sizeof(c->reserved))) {
        *status = axon_engine_bad_cmd(eng, le16_to_cpu(cmd->opcode),
                                   "reserved bytes set");
        return NULL;
    }
    srq = axon_srq_lookup(eng, le32_to_cpu(c->srqn));
    if (!srq) {
        *status = AXON_ADMIN_BAD_HANDLE;
    }
    return srq;
}

uint16_t axon_srq_modify(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                         uint64_t *result)
{
    uint32_t limit = le32_to_cpu(cmd->srq.limit);
    uint16_t status;
    AxonSrq *srq = axon_srq_cmd(eng, cmd, true, &status);

    if (!srq) {
        return status;
    }
    if (limit >= srq->wq.depth) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_MODIFY_SRQ,
                                   "limit not below depth");
    }
    srq->limit = limit;
    return AXON_ADMIN_SUCCESS;
}

uint16_t axon_srq_query(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                        uint64_t *result)
{
    uint16_t status;
    AxonSrq *srq = axon_srq_cmd(eng, cmd, false, &status);

    if (!srq) {
        return status;
    }
    *result = srq->limit;
    return AXON_ADMIN_SUCCESS;
}

static void axon_srq_free(AxonEngine *eng, AxonSrq *srq)
{
    if (srq->cq) {
        srq->cq->users--;
    }
    eng->pd_users[srq->pdn]--;
    eng->srq[srq->srqn] = NULL;
    free(srq);
}

uint16_t axon_srq_destroy(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                          uint64_t *result)
{
    uint16_t status;
    AxonSrq *srq = axon_srq_cmd(eng, cmd, false, &status);

    if (!srq) {
        return status;
    }
    if (srq->users) {
        return AXON_ADMIN_BUSY;
    }
    axon_srq_free(eng, srq);
    return AXON_ADMIN_SUCCESS;
}

/*
 * A new producer index, checked as a QP's RQ doorbell is: at most depth
 * WQEs posted and not taken, and never behind the WQEs already taken.
 */
bool axon_srq_doorbell(AxonEngine *eng, uint32_t page, uint32_t srqn,
                       uint32_t val, const char **why)
{
    AxonSrq *srq = axon_srq_lookup(eng, srqn);
    uint16_t pi = AXON_DB_GET_VALUE(val);

    if (!srq || srq->uar != page) {
        *why = "no such SRQ on this page";
        return false;
    }
    if ((uint16_t)(pi - srq->wq.ci) > srq->wq.depth) {
        *why = "more WQEs than the depth";
        return false;
    }
    if ((uint16_t)(pi - srq->wq.ci) < axon_srq_level(srq)) {
        *why = "producer index went back";
        return false;
    }
    srq->wq.pi = pi;
    return true;
}

void axon_srq_taken(AxonEngine *eng, AxonSrq *srq)
{
    srq->wq.ci++;
    if (srq->limit && axon_srq_level(srq) < srq->limit) {
        srq->limit = 0;
        axon_env_event(eng->env, AXON_EVENT_SRQ_LIMIT, srq->srqn);
    }
}

void axon_srq_reset(AxonEngine *eng)
{
    for (uint32_t i = 1; i <= AXON_RDMA_MAX_SRQ; i++) {
        if (eng->srq[i]) {
            axon_srq_free(eng, eng->srq[i]);
        }
    }
    eng->srq_last = 0;
}

bool axon_srq_realize(AxonEngine *eng)
{
    eng->srq = axon_new0(AxonSrq *, AXON_RDMA_MAX_SRQ + 1);
    return eng->srq;
}

void axon_srq_exit(AxonEngine *eng)
{
    free(eng->srq);
}
