/*
 * axon-nic: completion queues, queue pairs and their doorbells
 *
 * The admin commands that create, modify and destroy CQs and QPs (the QP
 * state machine), the doorbell BAR (one page per user context: a context
 * rings only its own QPs and CQs), the CQE writer with its CQ events and
 * the async QP events. Every field of every command is checked and
 * reserved bytes must be zero. The transport (axon-roce.h) is told when a
 * QP reaches RTR, RTS or ERR, and calls back only through the CQE writer,
 * the QP events and axon_qp_error().
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/cutils.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/rcu.h"
#include "hw/pci/pci.h"
#include "sysemu/dma.h"
#include "trace.h"

#include "axon-roce.h"

QEMU_BUILD_BUG_ON(sizeof(struct axon_qp_attr) != 80);
QEMU_BUILD_BUG_ON(sizeof(struct axon_qp_live) != 168);
QEMU_BUILD_BUG_ON(sizeof(struct axon_cqe) != AXON_CQE_SIZE);
QEMU_BUILD_BUG_ON(sizeof(struct axon_cqe_ts) != AXON_CQE_TS_SIZE);
QEMU_BUILD_BUG_ON(sizeof(struct axon_send_wqe) != 64);
QEMU_BUILD_BUG_ON(sizeof(struct axon_recv_wqe) != 16);
QEMU_BUILD_BUG_ON(sizeof(struct axon_admin_create_qp) != 56);

/* ---- completions and events --------------------------------------------- */

void axon_qp_event(AxonNicState *s, AxonQp *qp, uint16_t type)
{
    axon_nic_post_event(s, type, qp->qpn);
}

static void axon_cq_overflow(AxonNicState *s, AxonCq *cq)
{
    qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: CQ %u overflowed\n", cq->cqn);
    trace_axon_nic_err_rdma_cq_overflow(cq->cqn, cq->prod);
    cq->overflowed = true;
    axon_nic_post_event(s, AXON_EVENT_CQ_ERROR, cq->cqn);
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

/* Room for one more CQE, per the consumer index record after the ring. */
static bool axon_cq_room(AxonNicState *s, AxonCq *cq)
{
    uint32_t cons;

    if (cq->prod - cq->cons_seen < cq->ring.depth) {
        return true;
    }
    if (ldl_le_pci_dma(PCI_DEVICE(s), axon_cq_dbrec(&cq->ring), &cons,
                       MEMTXATTRS_UNSPECIFIED) != MEMTX_OK) {
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

void axon_qp_cqe_write(AxonNicState *s, AxonQp *qp, bool recv,
                       struct axon_cqe *cqe)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    AxonCq *cq = recv ? qp->rcq : qp->scq;
    uint64_t addr;
    const size_t head = offsetof(struct axon_cqe, flags);
    struct axon_cqe_ts tail = {};

    axon_qp_count_status(qp, cqe->status);
    if (cq->overflowed) {
        return;
    }
    if (!axon_cq_room(s, cq)) {
        axon_cq_overflow(s, cq);
        return;
    }
    cqe->qpn = cpu_to_le32(qp->qpn);
    cqe->flags |= (recv ? AXON_CQE_RECV : 0) |
                  axon_cq_phase(cq->ring.depth, cq->prod);
    addr = axon_cq_slot(&cq->ring, cq->prod);
    /* the clock is read only for the CQs that carry it */
    if (cq->ring.flags & AXON_CQ_TIMESTAMP) {
        tail.timestamp = cpu_to_le64(axon_nic_clock(s));
    }
    /* the phase byte last: it is what the consumer polls */
    if (pci_dma_write(pdev, addr, cqe, head) != MEMTX_OK ||
        (cq->ring.flags & AXON_CQ_TIMESTAMP &&
         pci_dma_write(pdev, addr + sizeof(*cqe), (uint8_t *)&tail +
                       sizeof(*cqe), sizeof(tail) - sizeof(*cqe)) !=
         MEMTX_OK)) {
        axon_cq_overflow(s, cq);
        return;
    }
    smp_wmb(); /* the entry before its phase byte */
    if (pci_dma_write(pdev, addr + head, (uint8_t *)cqe + head,
                      sizeof(*cqe) - head) != MEMTX_OK) {
        axon_cq_overflow(s, cq);
        return;
    }
    trace_axon_nic_rdma_cqe(cq->cqn, qp->qpn, recv,
                            le16_to_cpu(cqe->wqe_index), cqe->status);
    cq->prod++;
    if (cq->arm == AXON_CQ_ARM_NEXT ||
        (cq->arm == AXON_CQ_ARM_SOLICITED &&
         ((cqe->flags & AXON_CQE_SOLICITED) ||
          cqe->status != AXON_WC_SUCCESS))) {
        cq->arm = 0;
        if (!axon_nic_post_completion(s, cq->cqn) && !cq->ev_owed) {
            cq->ev_owed = true;
            s->rdma->ev_owed++;
        }
    }
}

void axon_qp_cqe(AxonNicState *s, AxonQp *qp, bool recv, uint64_t wr_id,
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

    axon_qp_cqe_write(s, qp, recv, &cqe);
}

/*
 * The driver moved the CEQ head: post the events that found it full. The
 * driver may re-arm a CQ before it moves the head past the CQ's last
 * event, so a CQ can have more than one event on the CEQ; none is lost.
 */
void axon_cq_ceq_room(AxonNicState *s)
{
    AxonRdma *r = s->rdma;
    uint32_t cqn;

    for (cqn = 1; r->ev_owed && cqn <= AXON_RDMA_MAX_CQ; cqn++) {
        AxonCq *cq = r->cq[cqn];

        if (cq && cq->ev_owed) {
            if (!axon_nic_post_completion(s, cqn)) {
                return;
            }
            cq->ev_owed = false;
            r->ev_owed--;
        }
    }
}

/* ---- lookups ------------------------------------------------------------ */

AxonQp *axon_qp_lookup(AxonNicState *s, uint32_t qpn)
{
    return qpn && qpn < AXON_RDMA_QP_SLOTS ? s->rdma->qp[qpn] : NULL;
}

static AxonCq *axon_cq_lookup(AxonNicState *s, uint32_t cqn)
{
    return cqn && cqn <= AXON_RDMA_MAX_CQ ? s->rdma->cq[cqn] : NULL;
}

/* ---- doorbells ---------------------------------------------------------- */

static void axon_db_reject(AxonNicState *s, uint32_t page, uint32_t reg,
                           uint32_t val, const char *why)
{
    qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: doorbell page %u offset 0x%x "
                  "value 0x%x rejected: %s\n", page, reg, val, why);
    trace_axon_nic_err_rdma_db(page, reg, val, why);
    s->rdma->stats.db_rejects++;
}

static void axon_db_qp(AxonNicState *s, uint32_t page, uint32_t reg,
                       uint32_t val)
{
    AxonQp *qp = axon_qp_lookup(s, AXON_DB_GET_ID(val));
    uint16_t pi = AXON_DB_GET_VALUE(val);
    AxonWq *wq;
    uint16_t done, taken;

    if (!qp || qp->uar != page) {
        axon_db_reject(s, page, reg, val, "no such QP on this page");
        return;
    }
    if (qp->state == AXON_QPS_RESET) {
        axon_db_reject(s, page, reg, val, "QP in RESET");
        return;
    }
    if (reg == AXON_DB_RQ && qp->srq) {
        axon_db_reject(s, page, reg, val, "the QP receives from an SRQ");
        return;
    }
    wq = reg == AXON_DB_SQ ? &qp->sq : &qp->rq;
    done = reg == AXON_DB_SQ ? qp->comp.sq_comp : qp->rq.ci;
    /* a SEND being placed holds the receive WQE at rq.ci */
    taken = reg == AXON_DB_SQ ? qp->req.sq_fetch :
            qp->rq.ci + qp->resp.recv_active;
    if ((uint16_t)(pi - done) > wq->depth) {
        axon_db_reject(s, page, reg, val, "more WQEs than the depth");
        return;
    }
    if ((uint16_t)(pi - done) < (uint16_t)(taken - done)) {
        axon_db_reject(s, page, reg, val, "producer index went back");
        return;
    }
    wq->pi = pi;
    if (reg == AXON_DB_SQ) {
        axon_roce_kick(s, qp);
    } else if (qp->state == AXON_QPS_ERR) {
        axon_roce_schedule(s, qp);
    }
}

static void axon_db_cq(AxonNicState *s, uint32_t page, uint32_t val)
{
    AxonCq *cq = axon_cq_lookup(s, AXON_DB_GET_ID(val));
    uint32_t arm = AXON_DB_GET_VALUE(val);

    if (!cq || cq->uar != page) {
        axon_db_reject(s, page, AXON_DB_CQ_ARM, val,
                       "no such CQ on this page");
        return;
    }
    if (arm != AXON_CQ_ARM_NEXT && arm != AXON_CQ_ARM_SOLICITED) {
        axon_db_reject(s, page, AXON_DB_CQ_ARM, val, "bad arm value");
        return;
    }
    /* NEXT covers SOLICITED */
    if (cq->arm != AXON_CQ_ARM_NEXT) {
        cq->arm = arm;
    }
}

static void axon_db_write(void *opaque, hwaddr addr, uint64_t val64,
                          unsigned size)
{
    AxonNicState *s = opaque;
    uint32_t page = addr / AXON_DB_PAGE_SIZE;
    uint32_t reg = addr % AXON_DB_PAGE_SIZE;
    uint32_t val = val64;
    const char *why;

    if (!axon_nic_ready(s)) {
        axon_db_reject(s, page, reg, val, "device not ready");
        return;
    }
    switch (reg) {
    case AXON_DB_SQ:
    case AXON_DB_RQ:
        axon_db_qp(s, page, reg, val);
        break;
    case AXON_DB_CQ_ARM:
        axon_db_cq(s, page, val);
        break;
    case AXON_DB_SRQ:
        if (!axon_srq_doorbell(s, page, val, &why)) {
            axon_db_reject(s, page, reg, val, why);
        }
        break;
    default:
        axon_db_reject(s, page, reg, val, "no doorbell at this offset");
        break;
    }
}

static uint64_t axon_db_read(void *opaque, hwaddr addr, unsigned size)
{
    return 0;
}

static const MemoryRegionOps axon_db_ops = {
    .read = axon_db_read,
    .write = axon_db_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

/* ---- admin: completion queues ------------------------------------------- */

/*
 * The ring a CREATE_CQ or RESIZE_CQ names, checked, its page list (if it
 * has one) read and held against the budget of CQ pages.
 */
static uint16_t axon_cq_ring_load(AxonNicState *s, uint16_t opcode,
                                  const struct axon_admin_cq *c,
                                  AxonCqRing *ring)
{
    uint64_t base = le64_to_cpu(c->ring_addr);
    uint32_t depth = le32_to_cpu(c->depth), npages = le32_to_cpu(c->npages);
    uint64_t size = (uint64_t)depth * AXON_CQ_CQE_SIZE(c->flags) +
                    sizeof(struct axon_cq_dbrec);
    g_autofree uint64_t *pages = NULL;
    uint16_t status;
    uint32_t i;

    memset(ring, 0, sizeof(*ring));
    if (c->flags & ~AXON_CQ_TIMESTAMP) {
        return axon_nic_bad_cmd(opcode, "unknown flags");
    }
    if (depth < AXON_CQ_MIN_DEPTH || depth > AXON_CQ_MAX_DEPTH ||
        !is_power_of_2(depth) || !base) {
        return axon_nic_bad_cmd(opcode, "bad ring or depth");
    }
    ring->flags = c->flags;
    ring->cqe_size = AXON_CQ_CQE_SIZE(c->flags);
    if (!npages) {
        if (c->levels || !QEMU_IS_ALIGNED(base, AXON_QUEUE_ALIGN) ||
            base + size < base) {
            return axon_nic_bad_cmd(opcode, "bad ring");
        }
        ring->base = base;
        ring->depth = depth;
        return AXON_ADMIN_SUCCESS;
    }
    if (npages != DIV_ROUND_UP(size, 4096) ||
        (c->levels != 1 && c->levels != 2) || !QEMU_IS_ALIGNED(base, 8)) {
        return axon_nic_bad_cmd(opcode, "bad ring page list");
    }
    if (s->rdma->cq_pages + npages > AXON_RDMA_MAX_CQ_PAGES) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    pages = g_try_new(uint64_t, npages);
    if (!pages) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    status = axon_mr_read_pbl(s, opcode, base, c->levels, npages, pages);
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    for (i = 0; i < npages; i++) {
        pages[i] = le64_to_cpu(pages[i]);
        if (!QEMU_IS_ALIGNED(pages[i], 4096)) {
            return axon_nic_bad_cmd(opcode, "ring page not 4K aligned");
        }
    }
    ring->pages = g_steal_pointer(&pages);
    ring->npages = npages;
    ring->depth = depth;
    s->rdma->cq_pages += npages;
    return AXON_ADMIN_SUCCESS;
}

static void axon_cq_ring_free(AxonNicState *s, AxonCqRing *ring)
{
    s->rdma->cq_pages -= ring->npages;
    g_free(ring->pages);
    ring->pages = NULL;
    ring->npages = 0;
}

uint16_t axon_cq_create(AxonNicState *s, const struct axon_admin_cmd *cmd,
                        uint64_t *result)
{
    const struct axon_admin_cq *c = &cmd->cq;
    AxonRdma *r = s->rdma;
    uint32_t uar = le32_to_cpu(c->uar);
    AxonCqRing ring;
    uint16_t status;
    uint32_t cqn;
    AxonCq *cq;

    if (c->cqn || !buffer_is_zero(c->reserved, sizeof(c->reserved))) {
        return axon_nic_bad_cmd(AXON_ADMIN_CREATE_CQ, "reserved bytes set");
    }
    if (uar >= AXON_RDMA_DB_PAGES) {
        return axon_nic_bad_cmd(AXON_ADMIN_CREATE_CQ, "bad uar");
    }
    /* one completion event per CQ at most is pending on the CEQ */
    if (r->ncq >= AXON_RDMA_MAX_CQ || r->ncq + 1 >= s->ceq.depth) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    status = axon_cq_ring_load(s, AXON_ADMIN_CREATE_CQ, c, &ring);
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    /* next free number after the last one; ncq < AXON_RDMA_MAX_CQ */
    do {
        cqn = r->cq_last % AXON_RDMA_MAX_CQ + 1;
        r->cq_last = cqn;
    } while (r->cq[cqn]);
    cq = g_new0(AxonCq, 1);
    cq->cqn = cqn;
    cq->ring = ring;
    cq->uar = uar;
    r->cq[cqn] = cq;
    r->ncq++;
    *result = cqn;
    trace_axon_nic_rdma_cq(cqn, ring.depth, ring.npages, uar, ring.flags);
    return AXON_ADMIN_SUCCESS;
}

uint16_t axon_cq_destroy(AxonNicState *s, const struct axon_admin_cmd *cmd,
                         uint64_t *result)
{
    const struct axon_admin_cq *c = &cmd->cq;
    AxonCq *cq;

    if (c->ring_addr || c->depth || c->uar || c->npages || c->levels ||
        c->flags || !buffer_is_zero(c->reserved, sizeof(c->reserved))) {
        return axon_nic_bad_cmd(AXON_ADMIN_DESTROY_CQ, "reserved bytes set");
    }
    cq = axon_cq_lookup(s, le32_to_cpu(c->cqn));
    if (!cq) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (cq->users) {
        return AXON_ADMIN_BUSY;
    }
    s->rdma->cq[cq->cqn] = NULL;
    s->rdma->ncq--;
    s->rdma->ev_owed -= cq->ev_owed;
    axon_cq_ring_free(s, &cq->ring);
    g_free(cq);
    return AXON_ADMIN_SUCCESS;
}

/*
 * Fill the new ring for indices cons .. cons + depth - 1: the CQEs not
 * consumed yet, copied, then entries of the wrong phase. Nothing changes
 * for the CQ until it all is written.
 */
static bool axon_cq_fill_ring(PCIDevice *pdev, AxonCq *cq,
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
            if (pci_dma_read(pdev, axon_cq_slot(&cq->ring, i), &entry,
                             ring->cqe_size) != MEMTX_OK) {
                return false;
            }
            cqe->flags = (cqe->flags & ~AXON_CQE_PHASE) |
                         axon_cq_phase(depth, i);
        }
        if (pci_dma_write(pdev, axon_cq_slot(ring, i), &entry,
                          ring->cqe_size) != MEMTX_OK) {
            return false;
        }
    }
    return pci_dma_write(pdev, axon_cq_dbrec(ring), &rec, sizeof(rec)) ==
           MEMTX_OK;
}

uint16_t axon_cq_resize(AxonNicState *s, const struct axon_admin_cmd *cmd,
                        uint64_t *result)
{
    const struct axon_admin_cq *c = &cmd->cq;
    PCIDevice *pdev = PCI_DEVICE(s);
    AxonCqRing ring;
    uint16_t status;
    uint32_t cons;
    AxonCq *cq;

    if (c->uar || !buffer_is_zero(c->reserved, sizeof(c->reserved))) {
        return axon_nic_bad_cmd(AXON_ADMIN_RESIZE_CQ, "reserved bytes set");
    }
    cq = axon_cq_lookup(s, le32_to_cpu(c->cqn));
    if (!cq) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (cq->overflowed) {
        return axon_nic_bad_cmd(AXON_ADMIN_RESIZE_CQ, "the CQ overflowed");
    }
    if (ldl_le_pci_dma(pdev, axon_cq_dbrec(&cq->ring), &cons,
                       MEMTXATTRS_UNSPECIFIED) != MEMTX_OK) {
        return AXON_ADMIN_DMA_ERROR;
    }
    if (cq->prod - cons > cq->ring.depth) {
        return axon_nic_bad_cmd(AXON_ADMIN_RESIZE_CQ,
                                "consumer index ahead of the CQEs written");
    }
    if (c->flags != cq->ring.flags) {
        return axon_nic_bad_cmd(AXON_ADMIN_RESIZE_CQ, "not the CQ's flags");
    }
    status = axon_cq_ring_load(s, AXON_ADMIN_RESIZE_CQ, c, &ring);
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    if (cq->prod - cons > ring.depth) {
        status = axon_nic_bad_cmd(AXON_ADMIN_RESIZE_CQ,
                                  "more CQEs to consume than the new depth");
    } else if (!axon_cq_fill_ring(pdev, cq, &ring, cons)) {
        status = AXON_ADMIN_DMA_ERROR;
    }
    if (status != AXON_ADMIN_SUCCESS) {
        axon_cq_ring_free(s, &ring);
        return status;
    }
    trace_axon_nic_rdma_cq_resize(cq->cqn, cq->ring.depth, ring.depth,
                                  cq->prod - cons);
    axon_cq_ring_free(s, &cq->ring);
    cq->ring = ring;
    cq->cons_seen = cons;
    return AXON_ADMIN_SUCCESS;
}

/* ---- admin: queue pairs and their state machine -------------------------- */

static bool axon_qp_check_wq(uint64_t base, uint32_t depth, uint8_t shift,
                             uint8_t min_shift)
{
    return base && QEMU_IS_ALIGNED(base, AXON_QUEUE_ALIGN) &&
           depth >= AXON_WQ_MIN_DEPTH && depth <= AXON_WQ_MAX_DEPTH &&
           is_power_of_2(depth) && shift >= min_shift &&
           shift <= AXON_WQE_MAX_SHIFT &&
           base + ((uint64_t)depth << shift) > base;
}

uint16_t axon_qp_create(AxonNicState *s, const struct axon_admin_cmd *cmd,
                        uint64_t *result)
{
    const struct axon_admin_create_qp *c = &cmd->create_qp;
    AxonRdma *r = s->rdma;
    uint32_t pdn = le32_to_cpu(c->pdn), uar = le32_to_cpu(c->uar);
    uint16_t sq_depth = le16_to_cpu(c->sq_depth);
    uint16_t rq_depth = le16_to_cpu(c->rq_depth);
    AxonCq *scq = axon_cq_lookup(s, le32_to_cpu(c->send_cqn));
    AxonCq *rcq = axon_cq_lookup(s, le32_to_cpu(c->recv_cqn));
    uint32_t srqn = le32_to_cpu(c->srqn);
    AxonSrq *srq = axon_srq_lookup(s, srqn);
    uint32_t i = 0, n;
    AxonQp *qp;

    if (!buffer_is_zero(c->reserved, sizeof(c->reserved))) {
        return axon_nic_bad_cmd(AXON_ADMIN_CREATE_QP, "reserved bytes set");
    }
    if (c->type > AXON_QPT_RUD) {
        return axon_nic_bad_cmd(AXON_ADMIN_CREATE_QP, "bad type");
    }
    if (!axon_mr_pd_valid(s, pdn) || !scq || !rcq || (srqn && !srq)) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (uar >= AXON_RDMA_DB_PAGES || c->sq_sig_all > 1 ||
        !axon_qp_check_wq(le64_to_cpu(c->sq_addr), sq_depth,
                          c->sq_wqe_shift, AXON_SQ_MIN_WQE_SHIFT) ||
        (srq ? c->rq_addr || rq_depth || c->rq_wqe_shift :
         !axon_qp_check_wq(le64_to_cpu(c->rq_addr), rq_depth,
                           c->rq_wqe_shift, AXON_RQ_MIN_WQE_SHIFT))) {
        return axon_nic_bad_cmd(AXON_ADMIN_CREATE_QP, "bad queue or uar");
    }
    if (c->type == AXON_QPT_GSI) {
        if (r->qp[AXON_GSI_QPN]) {
            return AXON_ADMIN_NO_RESOURCES;
        }
        i = AXON_GSI_QPN;
    } else {
        /* next fit: a QPN just destroyed is not handed out again at once */
        for (n = 0; n < AXON_RDMA_MAX_QP; n++) {
            i = AXON_RDMA_FIRST_QPN + (r->qp_last + n) % AXON_RDMA_MAX_QP;
            if (!r->qp[i]) {
                break;
            }
        }
        if (n == AXON_RDMA_MAX_QP) {
            return AXON_ADMIN_NO_RESOURCES;
        }
        r->qp_last = i - AXON_RDMA_FIRST_QPN + 1;
    }
    qp = g_new0(AxonQp, 1);
    qp->qpn = i;
    qp->state = AXON_QPS_RESET;
    /* the GSI QP is a UD QP in all but its number */
    qp->type = c->type == AXON_QPT_GSI ? AXON_QPT_UD : c->type;
    qp->pdn = pdn;
    qp->uar = uar;
    qp->scq = scq;
    qp->rcq = rcq;
    qp->sig_all = c->sq_sig_all;
    qp->sq.base = le64_to_cpu(c->sq_addr);
    qp->sq.depth = sq_depth;
    qp->sq.shift = c->sq_wqe_shift;
    qp->rq.base = le64_to_cpu(c->rq_addr);
    qp->rq.depth = rq_depth;
    qp->rq.shift = c->rq_wqe_shift;
    qp->srq = srq;
    qp->req.win = g_new0(AxonSwqe, AXON_RDMA_WINDOW);
    axon_roce_qp_init(s, qp);
    scq->users++;
    rcq->users++;
    if (srq) {
        srq->users++;
    }
    r->pd_users[pdn]++;
    r->qp[i] = qp;
    *result = qp->qpn;
    trace_axon_nic_rdma_qp(qp->qpn, sq_depth, rq_depth, uar);
    return AXON_ADMIN_SUCCESS;
}

/* Forget all queue state, as a move to RESET does. */
static void axon_qp_forget(AxonNicState *s, AxonQp *qp)
{
    axon_roce_qp_stop(s, qp);
    qp->sq.pi = qp->sq.ci = 0;
    qp->rq.pi = qp->rq.ci = 0;
    qp->comp.sq_comp = qp->req.sq_fetch = qp->req.cur = 0;
    qp->req.sq_stopped = false;
    qp->resp.recv_active = false;
    qp->comm_est = false;
    memset(qp->resp.res, 0, sizeof(qp->resp.res));
    memset(qp->req.win, 0, sizeof(*qp->req.win) * AXON_RDMA_WINDOW);
}

void axon_qp_error(AxonNicState *s, AxonQp *qp)
{
    if (qp->state == AXON_QPS_ERR) {
        return;
    }
    trace_axon_nic_rdma_qp_state(qp->qpn, qp->state, AXON_QPS_ERR);
    qp->state = AXON_QPS_ERR;
    qp->last_wqe_owed = qp->srq;
    axon_roce_qp_stop(s, qp);
    axon_roce_schedule(s, qp);  /* to flush both queues */
}

/*
 * IBA 11.2.4.2 as Linux's ib_modify_qp_is_ok() has it for RC: a path, MTU,
 * QPN or PSN is set on the way to RTR and RTS only, never in flight.
 */
#define AXON_QP_ATTR_IN_FLIGHT  (AXON_QP_ATTR_STATE | AXON_QP_ATTR_ACCESS | \
                                 AXON_QP_ATTR_MIN_RNR_TIMER)

/* The same for UD, whose QPs take no path and no responder attributes. */
#define AXON_QP_ATTR_UD         (AXON_QP_ATTR_STATE | AXON_QP_ATTR_QKEY | \
                                 AXON_QP_ATTR_SQ_PSN)

/* UC: RC's connection, without acknowledgements or responder resources */
#define AXON_QP_ATTR_UC         (AXON_QP_ATTR_STATE | AXON_QP_ATTR_ACCESS | \
                                 AXON_QP_ATTR_PATH | AXON_QP_ATTR_PATH_MTU | \
                                 AXON_QP_ATTR_DEST_QPN | AXON_QP_ATTR_RQ_PSN | \
                                 AXON_QP_ATTR_SQ_PSN)

/* The attributes of a QP of this type. */
static uint32_t axon_qp_type_attrs(const AxonQp *qp)
{
    switch (qp->type) {
    case AXON_QPT_UD:
        return AXON_QP_ATTR_UD;
    case AXON_QPT_UC:
        return AXON_QP_ATTR_UC;
    case AXON_QPT_RUD:
        return AXON_QP_ATTR_ALL & ~AXON_QP_ATTR_QKEY;
    default:
        return AXON_QP_ATTR_ALL & ~(AXON_QP_ATTR_QKEY | AXON_QP_ATTR_PEER_KEY);
    }
}

static bool axon_qp_ud_transition_ok(uint32_t cur, uint32_t new,
                                     uint32_t mask)
{
    switch (cur) {
    case AXON_QPS_RESET:
        return new == AXON_QPS_INIT && (mask & AXON_QP_ATTR_QKEY) &&
               !(mask & AXON_QP_ATTR_SQ_PSN);
    case AXON_QPS_INIT:
        return (new == AXON_QPS_INIT || new == AXON_QPS_RTR) &&
               !(mask & AXON_QP_ATTR_SQ_PSN);
    case AXON_QPS_RTR:
        return new == AXON_QPS_RTS && (mask & AXON_QP_ATTR_SQ_PSN);
    case AXON_QPS_RTS:
    case AXON_QPS_SQE:
        return new == AXON_QPS_RTS && !(mask & AXON_QP_ATTR_SQ_PSN);
    default:
        return false;
    }
}

static bool axon_qp_transition_ok(const AxonQp *qp, uint32_t cur,
                                  uint32_t new, uint32_t mask)
{
    /* a RUD QP is given its peer's key on the way to RTR, and then only */
    if ((mask & AXON_QP_ATTR_PEER_KEY) &&
        (cur != AXON_QPS_INIT || new != AXON_QPS_RTR)) {
        return false;
    }
    if (new == AXON_QPS_RESET || new == AXON_QPS_ERR) {
        return true;
    }
    if (qp->type == AXON_QPT_UD) {
        return axon_qp_ud_transition_ok(cur, new, mask);
    }
    switch (cur) {
    case AXON_QPS_RESET:
        return new == AXON_QPS_INIT;
    case AXON_QPS_INIT:
        if (new == AXON_QPS_RTR) {
            uint32_t need = AXON_QP_ATTR_PATH | AXON_QP_ATTR_PATH_MTU |
                            AXON_QP_ATTR_DEST_QPN | AXON_QP_ATTR_RQ_PSN |
                            (qp->type == AXON_QPT_RUD ?
                             AXON_QP_ATTR_PEER_KEY : 0);
            return (mask & need) == need;
        }
        return new == AXON_QPS_INIT &&
               !(mask & ~(AXON_QP_ATTR_STATE | AXON_QP_ATTR_ACCESS));
    case AXON_QPS_RTR:
        return new == AXON_QPS_RTS && (mask & AXON_QP_ATTR_SQ_PSN);
    case AXON_QPS_RTS:
    case AXON_QPS_SQE:
        return new == AXON_QPS_RTS && !(mask & ~AXON_QP_ATTR_IN_FLIGHT);
    default:
        return false;
    }
}

/* Checks the attributes under mask; NULL if they are good. */
static const char *axon_qp_check_attr(AxonNicState *s,
                                      const struct axon_qp_attr *a,
                                      uint32_t mask)
{
    uint32_t mtu = le32_to_cpu(a->path_mtu);

    if (mask & ~AXON_QP_ATTR_ALL ||
        !buffer_is_zero(a->reserved0, sizeof(a->reserved0)) ||
        !buffer_is_zero(a->reserved, sizeof(a->reserved))) {
        return "reserved bits set";
    }
    if ((mask & AXON_QP_ATTR_STATE) && le32_to_cpu(a->state) > AXON_QPS_ERR) {
        return "bad state";
    }
    if ((mask & AXON_QP_ATTR_ACCESS) &&
        le32_to_cpu(a->access) & ~AXON_ACCESS_ALL) {
        return "bad access";
    }
    if ((mask & AXON_QP_ATTR_PATH) &&
        (a->sgid_index >= AXON_NIC_GID_TBL_LEN ||
         axon_mr_gid(s, a->sgid_index)->type == AXON_GID_TYPE_NONE ||
         le32_to_cpu(a->flow_label) > AXON_FLOW_LABEL_MASK ||
         (a->dmac[0] & 1))) {
        return "bad path";
    }
    if ((mask & AXON_QP_ATTR_PATH_MTU) &&
        (mtu < 256 || mtu > AXON_RDMA_MAX_MTU || !is_power_of_2(mtu))) {
        return "bad path_mtu";
    }
    if (((mask & AXON_QP_ATTR_DEST_QPN) &&
         le32_to_cpu(a->dest_qpn) > AXON_QPN_MASK) ||
        ((mask & AXON_QP_ATTR_RQ_PSN) &&
         le32_to_cpu(a->rq_psn) > AXON_PSN_MASK) ||
        ((mask & AXON_QP_ATTR_SQ_PSN) &&
         le32_to_cpu(a->sq_psn) > AXON_PSN_MASK)) {
        return "bad qpn or psn";
    }
    if (((mask & AXON_QP_ATTR_TIMEOUT) && a->timeout > 31) ||
        ((mask & AXON_QP_ATTR_RETRY_CNT) && a->retry_cnt > 7) ||
        ((mask & AXON_QP_ATTR_RNR_RETRY) && a->rnr_retry > 7) ||
        ((mask & AXON_QP_ATTR_MIN_RNR_TIMER) && a->min_rnr_timer > 31) ||
        ((mask & AXON_QP_ATTR_MAX_RD_ATOMIC) &&
         a->max_rd_atomic > AXON_MAX_RD_ATOMIC) ||
        ((mask & AXON_QP_ATTR_MAX_DEST_RD_ATOMIC) &&
         a->max_dest_rd_atomic > AXON_MAX_RD_ATOMIC)) {
        return "bad retry, timer or rd_atomic";
    }
    if ((mask & AXON_QP_ATTR_PEER_KEY) && !a->peer_key_lo && !a->peer_key_hi) {
        return "bad peer key";
    }
    return NULL;
}

/* Copies the attributes under mask from a into the QP's. */
static void axon_qp_apply_attr(struct axon_qp_attr *q,
                               const struct axon_qp_attr *a, uint32_t mask)
{
    if (mask & AXON_QP_ATTR_ACCESS) {
        q->access = a->access;
    }
    if (mask & AXON_QP_ATTR_PATH) {
        memcpy(q->dmac, a->dmac, sizeof(q->dmac));
        q->sgid_index = a->sgid_index;
        q->hop_limit = a->hop_limit;
        memcpy(q->dgid, a->dgid, sizeof(q->dgid));
        q->flow_label = a->flow_label;
        q->udp_sport = a->udp_sport;
        q->tclass = a->tclass;
    }
    if (mask & AXON_QP_ATTR_PATH_MTU) {
        q->path_mtu = a->path_mtu;
    }
    if (mask & AXON_QP_ATTR_DEST_QPN) {
        q->dest_qpn = a->dest_qpn;
    }
    if (mask & AXON_QP_ATTR_RQ_PSN) {
        q->rq_psn = a->rq_psn;
    }
    if (mask & AXON_QP_ATTR_SQ_PSN) {
        q->sq_psn = a->sq_psn;
    }
    if (mask & AXON_QP_ATTR_TIMEOUT) {
        q->timeout = a->timeout;
    }
    if (mask & AXON_QP_ATTR_RETRY_CNT) {
        q->retry_cnt = a->retry_cnt;
    }
    if (mask & AXON_QP_ATTR_RNR_RETRY) {
        q->rnr_retry = a->rnr_retry;
    }
    if (mask & AXON_QP_ATTR_MIN_RNR_TIMER) {
        q->min_rnr_timer = a->min_rnr_timer;
    }
    if (mask & AXON_QP_ATTR_MAX_RD_ATOMIC) {
        q->max_rd_atomic = a->max_rd_atomic;
    }
    if (mask & AXON_QP_ATTR_MAX_DEST_RD_ATOMIC) {
        q->max_dest_rd_atomic = a->max_dest_rd_atomic;
    }
    if (mask & AXON_QP_ATTR_QKEY) {
        q->qkey = a->qkey;
    }
}

uint16_t axon_qp_modify(AxonNicState *s, const struct axon_admin_cmd *cmd,
                        uint64_t *result)
{
    const struct axon_admin_modify_qp *m = &cmd->qp;
    uint32_t mask = le32_to_cpu(m->attr_mask);
    struct axon_qp_attr a;
    uint32_t cur, new;
    const char *why;
    AxonQp *qp;

    if (!buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_nic_bad_cmd(AXON_ADMIN_MODIFY_QP, "reserved bytes set");
    }
    qp = axon_qp_lookup(s, le32_to_cpu(m->qpn));
    if (!qp) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (pci_dma_read(PCI_DEVICE(s), le64_to_cpu(m->attr_addr), &a,
                     sizeof(a)) != MEMTX_OK) {
        return AXON_ADMIN_DMA_ERROR;
    }
    why = axon_qp_check_attr(s, &a, mask);
    if ((mask & ~axon_qp_type_attrs(qp)) ||
        (qp->type == AXON_QPT_UC && (mask & AXON_QP_ATTR_ACCESS) &&
         (le32_to_cpu(a.access) & ~AXON_ACCESS_REMOTE_WRITE))) {
        why = "attribute of another QP type";
    }
    if (why) {
        return axon_nic_bad_cmd(AXON_ADMIN_MODIFY_QP, why);
    }
    cur = qp->state;
    new = mask & AXON_QP_ATTR_STATE ? le32_to_cpu(a.state) : cur;
    if (!axon_qp_transition_ok(qp, cur, new, mask)) {
        qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: QP %u: transition %u -> %u "
                      "(mask 0x%x) not allowed\n", qp->qpn, cur, new, mask);
        trace_axon_nic_err_rdma_qp_state(qp->qpn, cur, new, mask);
        return AXON_ADMIN_BAD_STATE;
    }
    axon_qp_apply_attr(&qp->attr, &a, mask);
    /* kept by the transport alone: QUERY_QP never shows it */
    if (mask & AXON_QP_ATTR_PEER_KEY) {
        axon_rud_set_peer_key(qp, (uint64_t)le32_to_cpu(a.peer_key_hi) << 32 |
                                  le32_to_cpu(a.peer_key_lo));
    }
    trace_axon_nic_rdma_qp_state(qp->qpn, cur, new);
    if (new == AXON_QPS_RESET || new == AXON_QPS_ERR) {
        axon_roce_ack_owed(s, qp);
    }
    if (new == AXON_QPS_RESET) {
        qp->state = new;
        axon_qp_forget(s, qp);
        if (qp->rud) {
            axon_rud_forget(qp);
        }
    } else if (new == AXON_QPS_ERR) {
        axon_qp_error(s, qp);
    } else {
        qp->state = new;
        if (cur == AXON_QPS_RESET && qp->rud) {
            /* a new key each time the QP is connected: its owner's alone */
            *result = axon_rud_open(qp);
        }
        if (cur == AXON_QPS_INIT && new == AXON_QPS_RTR) {
            axon_roce_qp_rtr(s, qp);
        } else if (new == AXON_QPS_RTS && cur != AXON_QPS_RTS) {
            axon_roce_qp_rts(s, qp);
        }
    }
    return AXON_ADMIN_SUCCESS;
}

uint16_t axon_qp_query(AxonNicState *s, const struct axon_admin_cmd *cmd,
                       uint64_t *result)
{
    const struct axon_admin_modify_qp *m = &cmd->qp;
    struct axon_qp_attr a;
    AxonQp *qp;

    if (m->attr_mask || !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_nic_bad_cmd(AXON_ADMIN_QUERY_QP, "reserved bytes set");
    }
    qp = axon_qp_lookup(s, le32_to_cpu(m->qpn));
    if (!qp) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    a = qp->attr;
    a.state = cpu_to_le32(qp->state);
    if (pci_dma_write(PCI_DEVICE(s), le64_to_cpu(m->attr_addr), &a,
                      sizeof(a)) != MEMTX_OK) {
        return AXON_ADMIN_DMA_ERROR;
    }
    return AXON_ADMIN_SUCCESS;
}

/* READ and atomic WQEs in the send window, not completed yet. */
static uint8_t axon_qp_reads_inflight(AxonQp *qp)
{
    uint8_t n = 0;
    uint16_t i;

    for (i = qp->comp.sq_comp; i != qp->req.sq_fetch; i++) {
        AxonSwqe *e = axon_win(qp, i);

        n += !e->done && (e->opcode == AXON_WR_RDMA_READ ||
                          e->opcode >= AXON_WR_ATOMIC_CMP_SWP);
    }
    return n;
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

uint16_t axon_qp_query_live(AxonNicState *s, const struct axon_admin_cmd *cmd,
                             uint64_t *result)
{
    const struct axon_admin_modify_qp *m = &cmd->qp;
    struct axon_qp_live st;
    AxonQp *qp;

    if (m->attr_mask || !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_nic_bad_cmd(AXON_ADMIN_QUERY_QP_LIVE,
                                "reserved bytes set");
    }
    qp = axon_qp_lookup(s, le32_to_cpu(m->qpn));
    if (!qp) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    st = (struct axon_qp_live) {
        .state = cpu_to_le32(qp->state),
        .sq_psn = cpu_to_le32(qp->req.cur_psn),
        /* a READ's or atomic's response answers it without an ACK */
        .una_psn = cpu_to_le32(qp->comp.sq_comp == qp->req.sq_fetch ?
                               qp->req.psn_hi : qp->comp.una_psn),
        .psn_hi = cpu_to_le32(qp->req.psn_hi),
        .epsn = cpu_to_le32(qp->resp.epsn),
        .msn = cpu_to_le32(qp->resp.msn),
        .sq_fetched = cpu_to_le16(qp->req.sq_fetch),
        .sq_completed = cpu_to_le16(qp->comp.sq_comp),
        .retry_left = qp->comp.retry_left,
        .rnr_left = qp->comp.rnr_left,
        .reads_inflight = axon_qp_reads_inflight(qp),
        .flags = (timer_pending(qp->comp.retry_timer) ?
                  AXON_QP_LIVE_TIMER : 0) |
                 (qp->comp.rnr_wait ? AXON_QP_LIVE_RNR_WAIT : 0) |
                 (qp->resp.nak_sent ? AXON_QP_LIVE_NAK_SENT : 0) |
                 (qp->req.sq_stopped ? AXON_QP_LIVE_SQ_STOPPED : 0) |
                 (axon_cc_paced(s, qp) ? AXON_QP_LIVE_CC_PACED : 0) |
                 (qp->type == AXON_QPT_UD || qp->type == AXON_QPT_RUD ? 0 :
                  AXON_QP_LIVE_PLANE(axon_roce_qp_plane(s, qp))),
    };
    axon_qp_counters_le(&qp->stats, &st.cnt);
    if (pci_dma_write(PCI_DEVICE(s), le64_to_cpu(m->attr_addr), &st,
                      sizeof(st)) != MEMTX_OK) {
        return AXON_ADMIN_DMA_ERROR;
    }
    return AXON_ADMIN_SUCCESS;
}

static void axon_qp_free(AxonNicState *s, AxonQp *qp)
{
    axon_roce_qp_stop(s, qp);
    timer_free(qp->comp.retry_timer);
    axon_cc_qp_free(qp);
    axon_rud_qp_free(qp);
    qp->scq->users--;
    qp->rcq->users--;
    if (qp->srq) {
        qp->srq->users--;
    }
    s->rdma->pd_users[qp->pdn]--;
    axon_cset_leave(s, qp);
    s->rdma->qp[qp->qpn] = NULL;
    axon_mr_qp_destroyed(s, qp->qpn);
    g_free(qp->req.win);
    g_free(qp);
}

uint16_t axon_qp_destroy(AxonNicState *s, const struct axon_admin_cmd *cmd,
                         uint64_t *result)
{
    const struct axon_admin_modify_qp *m = &cmd->qp;
    AxonQp *qp;

    if (m->attr_mask || m->attr_addr ||
        !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_nic_bad_cmd(AXON_ADMIN_DESTROY_QP, "reserved bytes set");
    }
    qp = axon_qp_lookup(s, le32_to_cpu(m->qpn));
    if (!qp) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    axon_roce_ack_owed(s, qp);
    axon_qp_free(s, qp);
    return AXON_ADMIN_SUCCESS;
}

/* ---- stats, reset, realize ---------------------------------------------- */

static uint32_t axon_rdma_stat_raw(AxonNicState *s, hwaddr addr)
{
    AxonRdma *r = s->rdma;

    switch (addr) {
    case AXON_REG_STAT_DB_REJECTS:
        return r->stats.db_rejects;
    case AXON_REG_STAT_TX_PKTS:
        return r->stats.tx_pkts;
    case AXON_REG_STAT_RX_PKTS:
        return r->stats.rx_pkts;
    case AXON_REG_STAT_RX_DROPS:
        return r->stats.rx_drops;
    case AXON_REG_STAT_RETRANS:
        return r->stats.retrans;
    case AXON_REG_STAT_NAKS:
        return r->stats.naks;
    case AXON_REG_STAT_PEER_RD_LO:
        return AXON_REG_LO(r->stats.peer_rd);
    case AXON_REG_STAT_PEER_RD_HI:
        return AXON_REG_HI(r->stats.peer_rd);
    case AXON_REG_STAT_PEER_WR_LO:
        return AXON_REG_LO(r->stats.peer_wr);
    case AXON_REG_STAT_PEER_WR_HI:
        return AXON_REG_HI(r->stats.peer_wr);
    case AXON_REG_STAT_MR_INVALID:
        return r->stats.mr_invalid;
    case AXON_REG_STAT_DUP_REQS:
        return r->stats.dup_reqs;
    case AXON_REG_STAT_OUT_OF_SEQ:
        return r->stats.out_of_seq;
    case AXON_REG_STAT_STRAY:
        return r->stats.stray;
    case AXON_REG_STAT_QKEY_DROPS:
        return r->stats.qkey_drops;
    case AXON_REG_STAT_UD_NOBUF:
        return r->stats.ud_nobuf;
    case AXON_REG_STAT_UC_DROPS:
        return r->stats.uc_drops;
    case AXON_REG_STAT_CNP_SENT:
        return r->stats.cnp_sent;
    case AXON_REG_STAT_CNP_RCVD:
        return r->stats.cnp_rcvd;
    case AXON_REG_STAT_RUD_DROPS:
        return r->stats.rud_drops;
    case AXON_REG_STAT_RUD_DUPS:
        return r->stats.rud_dups;
    case AXON_REG_STAT_ECN_MARKED:
        return r->stats.ecn_marked;
    default:
        return 0;
    }
}

/* A port counter: what counter sets counted is theirs, not the port's. */
uint32_t axon_rdma_stat(AxonNicState *s, hwaddr addr)
{
    return axon_cset_port_stat(s, addr, axon_rdma_stat_raw(s, addr));
}

/* Tears every object down; the device forgets them. */
void axon_rdma_reset(AxonNicState *s)
{
    AxonRdma *r = s->rdma;
    uint32_t i;

    qemu_bh_cancel(r->bh);
    for (i = 0; i < AXON_RDMA_QP_SLOTS; i++) {
        if (r->qp[i]) {
            axon_qp_free(s, r->qp[i]);
        }
    }
    /* up to the last CQ: a mostly empty table resets quickly (fuzzing) */
    for (i = 1; r->ncq && i <= AXON_RDMA_MAX_CQ; i++) {
        if (r->cq[i]) {
            axon_cq_ring_free(s, &r->cq[i]->ring);
            g_free(r->cq[i]);
            r->cq[i] = NULL;
            r->ncq--;
        }
    }
    axon_srq_reset(s);
    axon_mr_reset(s);
    axon_cset_reset(s);
    r->ev_owed = 0;
    r->cq_last = r->qp_last = 0;
    memset(&r->stats, 0, sizeof(r->stats));
}

void axon_rdma_realize(AxonNicState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    AxonRdma *r = g_new0(AxonRdma, 1);

    s->rdma = r;
    axon_mr_realize(s);
    axon_srq_realize(s);
    r->cq = g_new0(AxonCq *, AXON_RDMA_MAX_CQ + 1);
    r->qp = g_new0(AxonQp *, AXON_RDMA_QP_SLOTS);
    QTAILQ_INIT(&r->sched);
    QTAILQ_INIT(&r->acks);
    r->bh = qemu_bh_new_guarded(axon_roce_bh, s,
                                &DEVICE(pdev)->mem_reentrancy_guard);
    memory_region_init_io(&r->db, OBJECT(s), &axon_db_ops, s,
                          "axon-nic-doorbells",
                          AXON_RDMA_DB_PAGES * AXON_DB_PAGE_SIZE);
    pci_register_bar(pdev, AXON_BAR_DB, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &r->db);
}

void axon_rdma_exit(AxonNicState *s)
{
    AxonRdma *r = s->rdma;

    axon_rdma_reset(s);
    qemu_bh_delete(r->bh);
    axon_srq_exit(s);
    axon_mr_exit(s);
    g_free(r->cq);
    g_free(r->qp);
    g_free(r);
    s->rdma = NULL;
}
