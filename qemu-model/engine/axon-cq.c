/*
 * axon engine: completion queues
 *
 * The admin commands that create, resize and destroy CQs, the CQE writer
 * the transports complete through, CQ events (and their wait for room on
 * the host's completion event queue) and CQ overflow. A CQ's ring is
 * contiguous or in pages; its consumer index record is the driver's
 * promise of room, read before every CQE.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-rdma.h"

AXON_BUILD_BUG_ON(sizeof(struct axon_cqe) != AXON_CQE_SIZE);
AXON_BUILD_BUG_ON(sizeof(struct axon_cqe_ts) != AXON_CQE_TS_SIZE);

static void axon_cq_overflow(AxonEngine *eng, AxonCq *cq)
{
    axon_env_guest_error(eng->env, "CQ %u overflowed\n", cq->cqn);
    axon_trace_err_rdma_cq_overflow(eng->env, cq->cqn, cq->prod);
    cq->overflowed = true;
    axon_env_event(eng->env, AXON_EVENT_CQ_ERROR, cq->cqn);
}

/* The bus address of byte off of the ring's memory (no entry straddles). */
static uint64_t axon_cq_addr(const AxonCqRing *ring, uint64_t off)
{
    return ring->pages ? ring->pages[off / 4096] + off % 4096
                       : ring->base + off;
}

static uint64_t axon_cq_slot(const AxonCqRing *ring, uint32_t idx)
{
    return axon_cq_addr(ring, (uint64_t)(idx & (ring->depth - 1)) *
                              ring->cqe_size);
}

static uint64_t axon_cq_dbrec(const AxonCqRing *ring)
{
    return axon_cq_addr(ring, (uint64_t)ring->depth * ring->cqe_size);
}

/* The phase bit CQE index idx has in a ring of depth entries. */
static uint8_t axon_cq_phase(uint32_t depth, uint32_t idx)
{
    return (idx / depth) & 1 ? 0 : AXON_CQE_PHASE;
}

/* The consumer index the driver last recorded for the ring. */
static bool axon_cq_read_dbrec(AxonEngine *eng, const AxonCqRing *ring,
                               uint32_t *cons)
{
    if (!axon_env_dma_read(eng->env, axon_cq_dbrec(ring), cons,
                           sizeof(*cons))) {
        return false;
    }
    *cons = le32_to_cpu(*cons);
    return true;
}

/* Room for one more CQE, per the consumer index record after the ring. */
static bool axon_cq_room(AxonEngine *eng, AxonCq *cq)
{
    uint32_t cons;

    if (cq->prod - cq->cons_seen < cq->ring.depth) {
        return true;
    }
    if (!axon_cq_read_dbrec(eng, &cq->ring, &cons)) {
        return false;
    }
    /* an index ahead of the producer is garbage: no room either */
    if (cq->prod - cons > cq->ring.depth) {
        return false;
    }
    cq->cons_seen = cons;
    return cq->prod - cons < cq->ring.depth;
}

/* Which of the QP's error counters a completion status counts in. */
static void axon_qp_count_status(AxonQp *qp, uint8_t status)
{
    switch (status) {
    case AXON_WC_SUCCESS:
    case AXON_WC_WR_FLUSH_ERR:
        break;
    case AXON_WC_LOC_LEN_ERR:
    case AXON_WC_LOC_QP_OP_ERR:
    case AXON_WC_LOC_PROT_ERR:
    case AXON_WC_MW_BIND_ERR:
    case AXON_WC_LOC_ACCESS_ERR:
        qp->stats.local_errs++;
        break;
    case AXON_WC_BAD_RESP_ERR:
    case AXON_WC_REM_INV_REQ_ERR:
    case AXON_WC_REM_ACCESS_ERR:
    case AXON_WC_REM_OP_ERR:
    case AXON_WC_RETRY_EXC_ERR:
    case AXON_WC_RNR_RETRY_EXC_ERR:
        qp->stats.remote_errs++;
        break;
    }
}

void axon_qp_cqe_write(AxonEngine *eng, AxonQp *qp, bool recv,
                       struct axon_cqe *cqe)
{
    AxonCq *cq = recv ? qp->rcq : qp->scq;
    uint64_t addr;
    const size_t head = offsetof(struct axon_cqe, flags);
    struct axon_cqe_ts tail = {};

    axon_qp_count_status(qp, cqe->status);
    if (!cq) {
        return;     /* an XRC target outside a request: nothing owed */
    }
    if (cq->overflowed) {
        return;
    }
    if (!axon_cq_room(eng, cq)) {
        axon_cq_overflow(eng, cq);
        return;
    }
    cqe->qpn = cpu_to_le32(qp->qpn);
    if (recv && qp->type == AXON_QPT_XRC_TGT) {
        cqe->src_qp = cpu_to_le32(qp->srq->srqn);   /* lent for the request */
    }
    cqe->flags |= (recv ? AXON_CQE_RECV : 0) |
                  axon_cq_phase(cq->ring.depth, cq->prod);
    addr = axon_cq_slot(&cq->ring, cq->prod);
    /* the clock is read only for the CQs that carry it */
    if (cq->ring.flags & AXON_CQ_TIMESTAMP) {
        tail.timestamp = cpu_to_le64(axon_env_device_clock(eng->env));
    }
    /* the phase byte last: it is what the consumer polls */
    if (!axon_env_dma_write(eng->env, addr, cqe, head) ||
        (cq->ring.flags & AXON_CQ_TIMESTAMP &&
         !axon_env_dma_write(eng->env, addr + sizeof(*cqe), (uint8_t *)&tail +
                             sizeof(*cqe), sizeof(tail) - sizeof(*cqe)))) {
        axon_cq_overflow(eng, cq);
        return;
    }
    if (!axon_env_dma_write(eng->env, addr + head, (uint8_t *)cqe + head,
                            sizeof(*cqe) - head)) {
        axon_cq_overflow(eng, cq);
        return;
    }
    axon_trace_rdma_cqe(eng->env, cq->cqn, qp->qpn, recv,
                        le16_to_cpu(cqe->wqe_index), cqe->status);
    cq->prod++;
    if (cq->arm == AXON_CQ_ARM_NEXT ||
        (cq->arm == AXON_CQ_ARM_SOLICITED &&
         ((cqe->flags & AXON_CQE_SOLICITED) ||
          cqe->status != AXON_WC_SUCCESS))) {
        cq->arm = 0;
        if (!axon_env_completion(eng->env, cq->cqn) && !cq->ev_owed) {
            cq->ev_owed = true;
            TAILQ_INSERT_TAIL(&eng->ev_owed, cq, owed_link);
        }
    }
}

void axon_qp_cqe(AxonEngine *eng, AxonQp *qp, bool recv, uint64_t wr_id,
                 uint16_t idx, uint8_t opcode, uint8_t status,
                 uint32_t byte_len, uint32_t imm, uint8_t flags)
{
    struct axon_cqe cqe = {
        .wr_id = cpu_to_le64(wr_id),
        .byte_len = cpu_to_le32(byte_len),
        .imm_data = imm,
        .wqe_index = cpu_to_le16(idx),
        .opcode = opcode,
        .status = status,
        .flags = flags,
    };

    axon_qp_cqe_write(eng, qp, recv, &cqe);
}

static void axon_cq_owed_drop(AxonEngine *eng, AxonCq *cq)
{
    if (cq->ev_owed) {
        TAILQ_REMOVE(&eng->ev_owed, cq, owed_link);
        cq->ev_owed = false;
    }
}

/*
 * The driver moved the CEQ head: post the events that found it full. The
 * driver may re-arm a CQ before it moves the head past the CQ's last
 * event, so a CQ can have more than one event on the CEQ; none is lost.
 * The events go in the order they were owed, whatever the number of CQs:
 * a device may hold far more CQs than the CEQ has entries.
 */
void axon_cq_ceq_room(AxonEngine *eng)
{
    AxonCq *cq;

    while ((cq = TAILQ_FIRST(&eng->ev_owed)) != NULL) {
        if (!axon_env_completion(eng->env, cq->cqn)) {
            return;
        }
        axon_cq_owed_drop(eng, cq);
    }
}

AxonCq *axon_cq_lookup(AxonEngine *eng, uint32_t cqn)
{
    return axon_table_get(&eng->cqs, cqn);
}

/* ---- admin: completion queues ------------------------------------------- */

/* A paged ring's page list, in host order, each page 4 KiB aligned. */
static uint16_t axon_cq_read_pages(AxonEngine *eng, uint16_t opcode,
                                   uint64_t pbl, uint8_t levels,
                                   uint32_t npages, uint64_t *pages)
{
    uint16_t status = axon_mr_read_pbl(eng, opcode, pbl, levels, npages,
                                       pages);
    uint32_t i;

    for (i = 0; status == AXON_ADMIN_SUCCESS && i < npages; i++) {
        pages[i] = le64_to_cpu(pages[i]);
        if (!IS_ALIGNED(pages[i], 4096)) {
            status = axon_engine_bad_cmd(eng, opcode,
                                         "ring page not 4K aligned");
        }
    }
    return status;
}

/*
 * The ring a CREATE_CQ or RESIZE_CQ names, checked, its page list (if it
 * has one) read and held against the budget of CQ pages.
 */
static uint16_t axon_cq_ring_load(AxonEngine *eng, uint16_t opcode,
                                  const struct axon_admin_cq *c,
                                  AxonCqRing *ring)
{
    uint64_t base = le64_to_cpu(c->ring_addr);
    uint32_t depth = le32_to_cpu(c->depth), npages = le32_to_cpu(c->npages);
    uint64_t size = (uint64_t)depth * AXON_CQ_CQE_SIZE(c->flags) +
                    sizeof(struct axon_cq_dbrec);
    uint64_t *pages;
    uint16_t status;

    memset(ring, 0, sizeof(*ring));
    if (c->flags & ~AXON_CQ_TIMESTAMP) {
        return axon_engine_bad_cmd(eng, opcode, "unknown flags");
    }
    if (depth < AXON_CQ_MIN_DEPTH || depth > AXON_CQ_MAX_DEPTH ||
        !is_power_of_2(depth) || !base) {
        return axon_engine_bad_cmd(eng, opcode, "bad ring or depth");
    }
    ring->flags = c->flags;
    ring->cqe_size = AXON_CQ_CQE_SIZE(c->flags);
    if (!npages) {
        if (c->levels || !IS_ALIGNED(base, AXON_QUEUE_ALIGN) ||
            base + size < base) {
            return axon_engine_bad_cmd(eng, opcode, "bad ring");
        }
        ring->base = base;
        ring->depth = depth;
        return AXON_ADMIN_SUCCESS;
    }
    if (npages != DIV_ROUND_UP(size, 4096) ||
        (c->levels != 1 && c->levels != 2) || !IS_ALIGNED(base, 8)) {
        return axon_engine_bad_cmd(eng, opcode, "bad ring page list");
    }
    if (eng->cq_pages + npages > AXON_RDMA_MAX_CQ_PAGES) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    pages = axon_new0(uint64_t, npages);
    if (!pages) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    status = axon_cq_read_pages(eng, opcode, base, c->levels, npages, pages);
    if (status != AXON_ADMIN_SUCCESS) {
        free(pages);
        return status;
    }
    ring->pages = pages;
    ring->npages = npages;
    ring->depth = depth;
    eng->cq_pages += npages;
    return AXON_ADMIN_SUCCESS;
}

static void axon_cq_ring_free(AxonEngine *eng, AxonCqRing *ring)
{
    eng->cq_pages -= ring->npages;
    free(ring->pages);
    ring->pages = NULL;
    ring->npages = 0;
}

static void axon_cq_free(AxonEngine *eng, AxonCq *cq)
{
    axon_table_set(&eng->cqs, cq->cqn, NULL);
    axon_cq_owed_drop(eng, cq);
    axon_cq_ring_free(eng, &cq->ring);
    free(cq);
}

uint16_t axon_cq_create(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                        uint64_t *result)
{
    const struct axon_admin_cq *c = &cmd->cq;
    uint32_t uar = le32_to_cpu(c->uar);
    AxonCqRing ring;
    uint16_t status;
    uint32_t cqn;
    AxonCq *cq;

    if (c->cqn || !buffer_is_zero(c->reserved, sizeof(c->reserved))) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_CREATE_CQ,
                                   "reserved bytes set");
    }
    if (uar >= AXON_RDMA_DB_PAGES) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_CREATE_CQ, "bad uar");
    }
    /* events that find the CEQ full wait (axon_cq_ceq_room) */
    if (!eng->ceq_depth || eng->cqs.count >= AXON_RDMA_MAX_CQ) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    status = axon_cq_ring_load(eng, AXON_ADMIN_CREATE_CQ, c, &ring);
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    /* next free number after the last one; count < AXON_RDMA_MAX_CQ */
    do {
        cqn = eng->cq_last % AXON_RDMA_MAX_CQ + 1;
        eng->cq_last = cqn;
    } while (axon_cq_lookup(eng, cqn));
    cq = axon_new0(AxonCq, 1);
    if (!cq || !axon_table_set(&eng->cqs, cqn, cq)) {
        free(cq);
        axon_cq_ring_free(eng, &ring);
        return AXON_ADMIN_NO_RESOURCES;
    }
    cq->cqn = cqn;
    cq->ring = ring;
    cq->uar = uar;
    *result = cqn;
    axon_trace_rdma_cq(eng->env, cqn, ring.depth, ring.npages, uar, ring.flags);
    return AXON_ADMIN_SUCCESS;
}

uint16_t axon_cq_destroy(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                         uint64_t *result)
{
    const struct axon_admin_cq *c = &cmd->cq;
    AxonCq *cq;

    if (c->ring_addr || c->depth || c->uar || c->npages || c->levels ||
        c->flags || !buffer_is_zero(c->reserved, sizeof(c->reserved))) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_DESTROY_CQ,
                                   "reserved bytes set");
    }
    cq = axon_cq_lookup(eng, le32_to_cpu(c->cqn));
    if (!cq) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (cq->users) {
        return AXON_ADMIN_BUSY;
    }
    axon_cq_free(eng, cq);
    return AXON_ADMIN_SUCCESS;
}

/*
 * Fill the new ring for indices cons .. cons + depth - 1: the CQEs not
 * consumed yet, copied, then entries of the wrong phase. Nothing changes
 * for the CQ until it all is written.
 */
static bool axon_cq_fill_ring(AxonEngine *eng, AxonCq *cq,
                              const AxonCqRing *ring, uint32_t cons)
{
    struct axon_cq_dbrec rec = { .cons_index = cpu_to_le32(cons) };
    uint32_t waiting = cq->prod - cons, depth = ring->depth, i;
    struct axon_cqe_ts entry;
    struct axon_cqe *cqe = &entry.cqe;

    for (i = cons; i != cons + depth; i++) {
        if (i - cons >= waiting) {
            memset(&entry, 0, sizeof(entry));
            cqe->flags = axon_cq_phase(depth, i) ^ AXON_CQE_PHASE;
        } else {
            if (!axon_env_dma_read(eng->env, axon_cq_slot(&cq->ring, i), &entry,
                                   ring->cqe_size)) {
                return false;
            }
            cqe->flags = (cqe->flags & ~AXON_CQE_PHASE) |
                         axon_cq_phase(depth, i);
        }
        if (!axon_env_dma_write(eng->env, axon_cq_slot(ring, i), &entry,
                                ring->cqe_size)) {
            return false;
        }
    }
    return axon_env_dma_write(eng->env, axon_cq_dbrec(ring), &rec, sizeof(rec));
}

uint16_t axon_cq_resize(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                        uint64_t *result)
{
    const struct axon_admin_cq *c = &cmd->cq;
    AxonCqRing ring;
    uint16_t status;
    uint32_t cons;
    AxonCq *cq;

    if (c->uar || !buffer_is_zero(c->reserved, sizeof(c->reserved))) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_RESIZE_CQ,
                                   "reserved bytes set");
    }
    cq = axon_cq_lookup(eng, le32_to_cpu(c->cqn));
    if (!cq) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (cq->overflowed) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_RESIZE_CQ,
                                   "the CQ overflowed");
    }
    if (!axon_cq_read_dbrec(eng, &cq->ring, &cons)) {
        return AXON_ADMIN_DMA_ERROR;
    }
    if (cq->prod - cons > cq->ring.depth) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_RESIZE_CQ,
                                   "consumer index ahead of the CQEs written");
    }
    if (c->flags != cq->ring.flags) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_RESIZE_CQ,
                                   "not the CQ's flags");
    }
    status = axon_cq_ring_load(eng, AXON_ADMIN_RESIZE_CQ, c, &ring);
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    if (cq->prod - cons > ring.depth) {
        status = axon_engine_bad_cmd(eng, AXON_ADMIN_RESIZE_CQ,
                                     "more CQEs to consume than the new depth");
    } else if (!axon_cq_fill_ring(eng, cq, &ring, cons)) {
        status = AXON_ADMIN_DMA_ERROR;
    }
    if (status != AXON_ADMIN_SUCCESS) {
        axon_cq_ring_free(eng, &ring);
        return status;
    }
    axon_trace_rdma_cq_resize(eng->env, cq->cqn, cq->ring.depth, ring.depth,
                              cq->prod - cons);
    axon_cq_ring_free(eng, &cq->ring);
    cq->ring = ring;
    cq->cons_seen = cons;
    return AXON_ADMIN_SUCCESS;
}

/* Every CQ, for a reset: the table's empty chunks are skipped. */
void axon_cq_reset(AxonEngine *eng)
{
    uint32_t i = 0;
    AxonCq *cq;

    while ((cq = axon_table_next(&eng->cqs, &i)) != NULL) {
        axon_cq_free(eng, cq);
    }
}
