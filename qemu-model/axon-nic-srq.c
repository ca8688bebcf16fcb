/*
 * axon-nic: shared receive queues
 *
 * The admin commands that create, arm, query and destroy SRQs, their
 * doorbell, and the one service the responder calls when one of an SRQ's
 * QPs takes a WQE from it (which may post the limit event). The QPs take
 * the WQEs themselves through axon_qp_recv_wq(), as from their own RQ.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "hw/pci/pci.h"
#include "trace.h"

#include "axon-nic-rdma.h"

QEMU_BUILD_BUG_ON(sizeof(struct axon_admin_srq) != 56);

AxonSrq *axon_srq_lookup(AxonNicState *s, uint32_t srqn)
{
    return srqn && srqn <= AXON_RDMA_MAX_SRQ ? s->rdma->srq[srqn] : NULL;
}

/* WQEs posted and not taken yet */
static uint32_t axon_srq_level(AxonSrq *srq)
{
    return (uint16_t)(srq->wq.pi - srq->wq.ci);
}

uint16_t axon_srq_create(AxonNicState *s, const struct axon_admin_cmd *cmd,
                         uint64_t *result)
{
    const struct axon_admin_srq *c = &cmd->srq;
    AxonRdma *r = s->rdma;
    uint64_t ring = le64_to_cpu(c->ring_addr);
    uint32_t pdn = le32_to_cpu(c->pdn), uar = le32_to_cpu(c->uar);
    uint32_t depth = le16_to_cpu(c->depth), limit = le32_to_cpu(c->limit);
    uint32_t n, srqn = 0;
    AxonSrq *srq;

    if (c->reserved0 || c->srqn ||
        !buffer_is_zero(c->reserved, sizeof(c->reserved))) {
        return axon_nic_bad_cmd(AXON_ADMIN_CREATE_SRQ, "reserved bytes set");
    }
    if (!axon_mr_pd_valid(s, pdn)) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (!ring || !QEMU_IS_ALIGNED(ring, AXON_QUEUE_ALIGN) ||
        depth < AXON_WQ_MIN_DEPTH || !is_power_of_2(depth) ||
        c->wqe_shift < AXON_RQ_MIN_WQE_SHIFT ||
        c->wqe_shift > AXON_WQE_MAX_SHIFT ||
        ring + ((uint64_t)depth << c->wqe_shift) < ring ||
        limit >= depth || uar >= AXON_RDMA_DB_PAGES) {
        return axon_nic_bad_cmd(AXON_ADMIN_CREATE_SRQ,
                                "bad ring, depth, limit or uar");
    }
    /* next fit, as for QPs: a number just freed is not reused at once */
    for (n = 0; n < AXON_RDMA_MAX_SRQ; n++) {
        srqn = (r->srq_last + n) % AXON_RDMA_MAX_SRQ + 1;
        if (!r->srq[srqn]) {
            break;
        }
    }
    if (n == AXON_RDMA_MAX_SRQ) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    r->srq_last = srqn;
    srq = g_new0(AxonSrq, 1);
    srq->srqn = srqn;
    srq->pdn = pdn;
    srq->uar = uar;
    srq->wq.base = ring;
    srq->wq.depth = depth;
    srq->wq.shift = c->wqe_shift;
    srq->limit = limit;
    r->pd_users[pdn]++;
    r->srq[srqn] = srq;
    *result = srqn;
    trace_axon_nic_rdma_srq(srqn, depth, uar);
    return AXON_ADMIN_SUCCESS;
}

/* MODIFY_SRQ, QUERY_SRQ and DESTROY_SRQ name an SRQ and nothing else. */
static AxonSrq *axon_srq_cmd(AxonNicState *s, const struct axon_admin_cmd *cmd,
                             bool with_limit, uint16_t *status)
{
    const struct axon_admin_srq *c = &cmd->srq;
    AxonSrq *srq;

    if (c->ring_addr || c->pdn || c->uar || c->depth || c->wqe_shift ||
        c->reserved0 || (!with_limit && c->limit) ||
        !buffer_is_zero(c->reserved, sizeof(c->reserved))) {
        *status = axon_nic_bad_cmd(le16_to_cpu(cmd->opcode),
                                   "reserved bytes set");
        return NULL;
    }
    srq = axon_srq_lookup(s, le32_to_cpu(c->srqn));
    if (!srq) {
        *status = AXON_ADMIN_BAD_HANDLE;
    }
    return srq;
}

uint16_t axon_srq_modify(AxonNicState *s, const struct axon_admin_cmd *cmd,
                         uint64_t *result)
{
    uint32_t limit = le32_to_cpu(cmd->srq.limit);
    uint16_t status;
    AxonSrq *srq = axon_srq_cmd(s, cmd, true, &status);

    if (!srq) {
        return status;
    }
    if (limit >= srq->wq.depth) {
        return axon_nic_bad_cmd(AXON_ADMIN_MODIFY_SRQ, "limit not below depth");
    }
    srq->limit = limit;
    return AXON_ADMIN_SUCCESS;
}

uint16_t axon_srq_query(AxonNicState *s, const struct axon_admin_cmd *cmd,
                        uint64_t *result)
{
    uint16_t status;
    AxonSrq *srq = axon_srq_cmd(s, cmd, false, &status);

    if (!srq) {
        return status;
    }
    *result = srq->limit;
    return AXON_ADMIN_SUCCESS;
}

static void axon_srq_free(AxonNicState *s, AxonSrq *srq)
{
    s->rdma->pd_users[srq->pdn]--;
    s->rdma->srq[srq->srqn] = NULL;
    g_free(srq);
}

uint16_t axon_srq_destroy(AxonNicState *s, const struct axon_admin_cmd *cmd,
                          uint64_t *result)
{
    uint16_t status;
    AxonSrq *srq = axon_srq_cmd(s, cmd, false, &status);

    if (!srq) {
        return status;
    }
    if (srq->users) {
        return AXON_ADMIN_BUSY;
    }
    axon_srq_free(s, srq);
    return AXON_ADMIN_SUCCESS;
}

/*
 * A new producer index, checked as a QP's RQ doorbell is: at most depth
 * WQEs posted and not taken, and never behind the WQEs already taken.
 */
bool axon_srq_doorbell(AxonNicState *s, uint32_t page, uint32_t val,
                       const char **why)
{
    AxonSrq *srq = axon_srq_lookup(s, AXON_DB_GET_ID(val));
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

void axon_srq_taken(AxonNicState *s, AxonSrq *srq)
{
    srq->wq.ci++;
    if (srq->limit && axon_srq_level(srq) < srq->limit) {
        srq->limit = 0;
        axon_nic_post_event(s, AXON_EVENT_SRQ_LIMIT, srq->srqn);
    }
}

void axon_srq_reset(AxonNicState *s)
{
    AxonRdma *r = s->rdma;

    for (uint32_t i = 1; i <= AXON_RDMA_MAX_SRQ; i++) {
        if (r->srq[i]) {
            axon_srq_free(s, r->srq[i]);
        }
    }
    r->srq_last = 0;
}

void axon_srq_realize(AxonNicState *s)
{
    s->rdma->srq = g_new0(AxonSrq *, AXON_RDMA_MAX_SRQ + 1);
}

void axon_srq_exit(AxonNicState *s)
{
    g_free(s->rdma->srq);
}
