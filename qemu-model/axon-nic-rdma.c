/*
 * axon-nic: RDMA resources
 *
 * The doorbell BAR, the admin commands that create and destroy memory
 * regions, completion queues and queue pairs, the QP state machine, the
 * CQE writer and the memory access helpers the transport uses to reach
 * guest memory through a key. The transport itself is axon-nic-roce.c.
 *
 * Every field of every command is checked, reserved bytes must be zero,
 * and guest memory is only ever reached through a page list the device
 * copied at CREATE_MR, after the key, PD, access rights and bounds have
 * been checked.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/cutils.h"
#include "qemu/guest-random.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/rcu.h"
#include "hw/pci/pci.h"
#include "sysemu/dma.h"
#include "trace.h"

#include "axon-nic-rdma.h"

QEMU_BUILD_BUG_ON(sizeof(struct axon_qp_attr) != 80);
QEMU_BUILD_BUG_ON(sizeof(struct axon_cqe) != AXON_CQE_SIZE);
QEMU_BUILD_BUG_ON(sizeof(struct axon_send_wqe) != 64);
QEMU_BUILD_BUG_ON(sizeof(struct axon_recv_wqe) != 16);
QEMU_BUILD_BUG_ON(sizeof(struct axon_admin_cmd) != 64);

/* ---- memory access through keys ----------------------------------------- */

/*
 * A key names a valid MR of the PD with the rights asked for, and
 * [va, va + len) lies inside it. Local read needs no right. An
 * invalidated MR's pages may belong to someone else by now: every access
 * is refused, as if out of bounds.
 */
AxonMr *axon_rdma_mr_check(AxonNicState *s, uint32_t key, uint32_t pdn,
                           uint64_t va, uint64_t len, uint32_t access)
{
    uint32_t idx = key >> AXON_KEY_INDEX_SHIFT;
    AxonMr *mr;

    if (idx == 0 || idx > AXON_RDMA_MAX_MR) {
        return NULL;
    }
    mr = &s->rdma->mr[idx];
    if (mr->valid && mr->tag == (key & AXON_KEY_TAG_MASK) &&
        mr->invalidated) {
        s->rdma->stat_mr_invalid++;
        trace_axon_nic_err_rdma_mr_invalid(key, va, len);
        return NULL;
    }
    if (!mr->valid || mr->tag != (key & AXON_KEY_TAG_MASK) ||
        mr->pdn != pdn || (mr->access & access) != access ||
        va < mr->iova || len > mr->length || va - mr->iova > mr->length - len) {
        trace_axon_nic_err_rdma_key(key, pdn, va, len, access);
        return NULL;
    }
    return mr;
}

/*
 * Copies between buf and one run of guest memory. address_space_rw
 * translates the run once and memcpy()s RAM (marking it dirty, so TCG
 * sees code it overwrites); anything but RAM or MMIO is an error.
 */
static bool axon_rdma_dma(PCIDevice *pdev, dma_addr_t addr, uint8_t *buf,
                          dma_addr_t len, DMADirection dir)
{
    return pci_dma_rw(pdev, addr, buf, len, dir, MEMTXATTRS_UNSPECIFIED) ==
           MEMTX_OK;
}

/* Payload bytes the engine moved from (TO_DEVICE) or to a peer MR. */
static void axon_rdma_count_peer(AxonNicState *s, DMADirection dir,
                                 uint64_t len)
{
    if (dir == DMA_DIRECTION_TO_DEVICE) {
        s->rdma->stat_peer_rd += len;
    } else {
        s->rdma->stat_peer_wr += len;
    }
    trace_axon_nic_rdma_peer_dma(dir == DMA_DIRECTION_FROM_DEVICE, len);
}

/*
 * Copies len bytes at va of a checked MR to (DMA_DIRECTION_TO_DEVICE) or
 * from buf, one run of physically contiguous pages at a time.
 */
bool axon_rdma_mr_rw(AxonNicState *s, AxonMr *mr, uint64_t va, void *buf,
                     uint32_t len, DMADirection dir)
{
    uint64_t psz = 1ULL << mr->page_shift;
    uint64_t off = va - mr->iova + mr->first_off;
    uint8_t *p = buf;

    while (len) {
        uint64_t pg = off >> mr->page_shift;
        uint64_t poff = off & (psz - 1);
        uint64_t addr = mr->pages[pg] + poff;
        uint64_t run = psz - poff;

        while (run < len && pg + 1 < mr->npages &&
               mr->pages[pg + 1] == mr->pages[pg] + psz) {
            run += psz;
            pg++;
        }
        run = MIN(run, len);
        if (!axon_rdma_dma(PCI_DEVICE(s), addr, p, run, dir)) {
            trace_axon_nic_err_rdma_dma(addr, run);
            return false;
        }
        if (mr->peer) {
            axon_rdma_count_peer(s, dir, run);
        }
        p += run;
        off += run;
        len -= run;
    }
    return true;
}

/* An 8-byte aligned atomic on guest memory; *orig gets the old value. */
bool axon_rdma_mr_atomic(AxonNicState *s, AxonMr *mr, uint64_t va,
                         bool cas, uint64_t cmp_add, uint64_t swap,
                         uint64_t *orig)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(s));
    uint64_t off = va - mr->iova + mr->first_off;
    uint64_t addr = mr->pages[off >> mr->page_shift] +
                    (off & ((1ULL << mr->page_shift) - 1));
    dma_addr_t plen = 8;
    hwaddr xlat, l = 8;
    uint64_t *p, old, new;
    MemoryRegion *mr_ram;

    /* only RAM can be updated atomically in place */
    RCU_READ_LOCK_GUARD();
    mr_ram = address_space_translate(as, addr, &xlat, &l, true,
                                     MEMTXATTRS_UNSPECIFIED);
    if (l < 8 || !memory_region_is_ram(mr_ram) || mr_ram->readonly) {
        return false;
    }
    p = dma_memory_map(as, addr, &plen, DMA_DIRECTION_FROM_DEVICE,
                       MEMTXATTRS_UNSPECIFIED);
    if (!p || plen < 8) {
        if (p) {
            dma_memory_unmap(as, p, plen, DMA_DIRECTION_FROM_DEVICE, 0);
        }
        return false;
    }
    /* vCPUs may touch the word concurrently: compare-and-swap on it */
    old = qatomic_read__nocheck(p);
    for (;;) {
        uint64_t cur = le64_to_cpu(old), seen;

        if (cas) {
            new = cur == cmp_add ? swap : cur;
        } else {
            new = cur + cmp_add;
        }
        seen = qatomic_cmpxchg__nocheck(p, old, cpu_to_le64(new));
        if (seen == old) {
            *orig = cur;
            break;
        }
        old = seen;
    }
    dma_memory_unmap(as, p, plen, DMA_DIRECTION_FROM_DEVICE, 8);
    if (mr->peer) {
        axon_rdma_count_peer(s, DMA_DIRECTION_TO_DEVICE, 8);
        axon_rdma_count_peer(s, DMA_DIRECTION_FROM_DEVICE, 8);
    }
    return true;
}

/* ---- completions and events --------------------------------------------- */

void axon_rdma_qp_event(AxonNicState *s, AxonQp *qp, uint16_t type)
{
    axon_nic_post_event(s, type, qp->qpn);
}

static void axon_rdma_cq_overflow(AxonNicState *s, AxonCq *cq)
{
    qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: CQ %u overflowed\n", cq->cqn);
    trace_axon_nic_err_rdma_cq_overflow(cq->cqn, cq->prod);
    cq->overflowed = true;
    axon_nic_post_event(s, AXON_EVENT_CQ_ERROR, cq->cqn);
}

/* Room for one more CQE, per the consumer index record after the ring. */
static bool axon_rdma_cq_room(AxonNicState *s, AxonCq *cq)
{
    uint32_t cons;

    if (cq->prod - cq->cons_seen < cq->depth) {
        return true;
    }
    if (ldl_le_pci_dma(PCI_DEVICE(s),
                       cq->ring + (uint64_t)cq->depth * AXON_CQE_SIZE,
                       &cons, MEMTXATTRS_UNSPECIFIED) != MEMTX_OK) {
        return false;
    }
    /* an index ahead of the producer is garbage: no room either */
    if (cq->prod - cons > cq->depth) {
        return false;
    }
    cq->cons_seen = cons;
    return cq->prod - cons < cq->depth;
}

void axon_rdma_cqe(AxonNicState *s, AxonQp *qp, bool recv, uint64_t wr_id,
                   uint16_t idx, uint8_t opcode, uint8_t status,
                   uint32_t byte_len, uint32_t imm, uint8_t flags)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    AxonCq *cq = recv ? qp->rcq : qp->scq;
    struct axon_cqe cqe = {};
    uint64_t addr;
    const size_t head = offsetof(struct axon_cqe, flags);

    if (cq->overflowed) {
        return;
    }
    if (!axon_rdma_cq_room(s, cq)) {
        axon_rdma_cq_overflow(s, cq);
        return;
    }
    cqe.wr_id = cpu_to_le64(wr_id);
    cqe.byte_len = cpu_to_le32(byte_len);
    cqe.imm_data = imm;
    cqe.qpn = cpu_to_le32(qp->qpn);
    cqe.wqe_index = cpu_to_le16(idx);
    cqe.opcode = opcode;
    cqe.status = status;
    cqe.flags = flags | (recv ? AXON_CQE_RECV : 0) |
                ((cq->prod / cq->depth) & 1 ? 0 : AXON_CQE_PHASE);
    addr = cq->ring + (uint64_t)(cq->prod & (cq->depth - 1)) * AXON_CQE_SIZE;
    /* the phase byte last: it is what the consumer polls */
    if (pci_dma_write(pdev, addr, &cqe, head) != MEMTX_OK) {
        axon_rdma_cq_overflow(s, cq);
        return;
    }
    smp_wmb(); /* the entry before its phase byte */
    if (pci_dma_write(pdev, addr + head, (uint8_t *)&cqe + head,
                      sizeof(cqe) - head) != MEMTX_OK) {
        axon_rdma_cq_overflow(s, cq);
        return;
    }
    trace_axon_nic_rdma_cqe(cq->cqn, qp->qpn, recv, idx, status);
    cq->prod++;
    if (cq->arm == AXON_CQ_ARM_NEXT ||
        (cq->arm == AXON_CQ_ARM_SOLICITED &&
         ((flags & AXON_CQE_SOLICITED) || status != AXON_WC_SUCCESS))) {
        cq->arm = 0;
        if (!axon_nic_post_completion(s, cq->cqn) && !cq->ev_owed) {
            cq->ev_owed = true;
            s->rdma->ev_owed++;
        }
    }
}

/*
 * The driver moved the CEQ head: post the events that found it full. The
 * driver may re-arm a CQ before it moves the head past the CQ's last
 * event, so a CQ can have more than one event on the CEQ; none is lost.
 */
void axon_rdma_ceq_room(AxonNicState *s)
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

AxonQp *axon_rdma_qp(AxonNicState *s, uint32_t qpn)
{
    if (qpn < AXON_RDMA_FIRST_QPN ||
        qpn >= AXON_RDMA_FIRST_QPN + AXON_RDMA_MAX_QP) {
        return NULL;
    }
    return s->rdma->qp[qpn - AXON_RDMA_FIRST_QPN];
}

static AxonCq *axon_rdma_cq(AxonNicState *s, uint32_t cqn)
{
    return cqn && cqn <= AXON_RDMA_MAX_CQ ? s->rdma->cq[cqn] : NULL;
}

static bool axon_rdma_pd_valid(AxonNicState *s, uint32_t pdn)
{
    return pdn < s->max_pd && test_bit(pdn, s->pd_table);
}

bool axon_rdma_pd_busy(AxonNicState *s, uint32_t pdn)
{
    return pdn < s->max_pd && s->rdma->pd_users[pdn];
}

/* ---- doorbells ---------------------------------------------------------- */

static void axon_rdma_db_reject(AxonNicState *s, uint32_t page, uint32_t reg,
                                uint32_t val, const char *why)
{
    qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: doorbell page %u offset 0x%x "
                  "value 0x%x rejected: %s\n", page, reg, val, why);
    trace_axon_nic_err_rdma_db(page, reg, val, why);
    s->rdma->stat_db_rejects++;
}

static void axon_rdma_db_qp(AxonNicState *s, uint32_t page, uint32_t reg,
                            uint32_t val)
{
    AxonQp *qp = axon_rdma_qp(s, val >> AXON_DB_ID_SHIFT);
    uint16_t pi = val & AXON_DB_VALUE_MASK;
    AxonWq *wq;
    uint16_t done, taken;

    if (!qp || qp->uar != page) {
        axon_rdma_db_reject(s, page, reg, val, "no such QP on this page");
        return;
    }
    if (qp->state == AXON_QPS_RESET) {
        axon_rdma_db_reject(s, page, reg, val, "QP in RESET");
        return;
    }
    wq = reg == AXON_DB_SQ ? &qp->sq : &qp->rq;
    done = reg == AXON_DB_SQ ? qp->sq_comp : qp->rq.ci;
    /* a SEND being placed holds the receive WQE at rq.ci */
    taken = reg == AXON_DB_SQ ? qp->sq_fetch : qp->rq.ci + qp->recv_active;
    if ((uint16_t)(pi - done) > wq->depth) {
        axon_rdma_db_reject(s, page, reg, val, "more WQEs than the depth");
        return;
    }
    if ((uint16_t)(pi - done) < (uint16_t)(taken - done)) {
        axon_rdma_db_reject(s, page, reg, val, "producer index went back");
        return;
    }
    wq->pi = pi;
    if (reg == AXON_DB_SQ) {
        axon_roce_kick(s, qp);
    } else if (qp->state == AXON_QPS_ERR) {
        axon_roce_schedule(s, qp);
    }
}

static void axon_rdma_db_cq(AxonNicState *s, uint32_t page, uint32_t val)
{
    AxonCq *cq = axon_rdma_cq(s, val >> AXON_DB_ID_SHIFT);
    uint32_t arm = val & AXON_DB_VALUE_MASK;

    if (!cq || cq->uar != page) {
        axon_rdma_db_reject(s, page, AXON_DB_CQ_ARM, val,
                            "no such CQ on this page");
        return;
    }
    if (arm != AXON_CQ_ARM_NEXT && arm != AXON_CQ_ARM_SOLICITED) {
        axon_rdma_db_reject(s, page, AXON_DB_CQ_ARM, val, "bad arm value");
        return;
    }
    /* NEXT covers SOLICITED */
    if (cq->arm != AXON_CQ_ARM_NEXT) {
        cq->arm = arm;
    }
}

static void axon_rdma_db_write(void *opaque, hwaddr addr, uint64_t val64,
                               unsigned size)
{
    AxonNicState *s = opaque;
    uint32_t page = addr / AXON_DB_PAGE_SIZE;
    uint32_t reg = addr % AXON_DB_PAGE_SIZE;
    uint32_t val = val64;

    if (!axon_nic_ready(s)) {
        axon_rdma_db_reject(s, page, reg, val, "device not ready");
        return;
    }
    switch (reg) {
    case AXON_DB_SQ:
    case AXON_DB_RQ:
        axon_rdma_db_qp(s, page, reg, val);
        break;
    case AXON_DB_CQ_ARM:
        axon_rdma_db_cq(s, page, val);
        break;
    default:
        axon_rdma_db_reject(s, page, reg, val, "no doorbell at this offset");
        break;
    }
}

static uint64_t axon_rdma_db_read(void *opaque, hwaddr addr, unsigned size)
{
    return 0;
}

static const MemoryRegionOps axon_rdma_db_ops = {
    .read = axon_rdma_db_read,
    .write = axon_rdma_db_write,
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

/* ---- admin: memory regions ---------------------------------------------- */

static uint16_t axon_rdma_bad(uint16_t opcode, const char *why)
{
    qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: admin opcode %u: %s\n", opcode,
                  why);
    trace_axon_nic_err_rdma_cmd(opcode, why);
    return AXON_ADMIN_BAD_PARAM;
}

/* Reads the 1- or 2-level page list of a new MR into pages. */
static uint16_t axon_rdma_read_pbl(AxonNicState *s, uint16_t opcode,
                                   uint64_t pbl, uint8_t levels,
                                   uint32_t npages, uint64_t *pages)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    uint32_t nleaf, i;
    g_autofree uint64_t *leaf = NULL;

    if (levels == 1) {
        return pci_dma_read(pdev, pbl, pages, (uint64_t)npages * 8) ==
               MEMTX_OK ? AXON_ADMIN_SUCCESS : AXON_ADMIN_DMA_ERROR;
    }
    nleaf = DIV_ROUND_UP(npages, AXON_PBL_LEAF_ENTRIES);
    leaf = g_new(uint64_t, nleaf);
    if (pci_dma_read(pdev, pbl, leaf, (uint64_t)nleaf * 8) != MEMTX_OK) {
        return AXON_ADMIN_DMA_ERROR;
    }
    for (i = 0; i < nleaf; i++) {
        uint64_t addr = le64_to_cpu(leaf[i]);
        uint32_t n = MIN(npages - i * AXON_PBL_LEAF_ENTRIES,
                         AXON_PBL_LEAF_ENTRIES);

        if (!QEMU_IS_ALIGNED(addr, 4096)) {
            return axon_rdma_bad(opcode, "leaf not 4K aligned");
        }
        if (pci_dma_read(pdev, addr, pages + i * AXON_PBL_LEAF_ENTRIES,
                         (uint64_t)n * 8) != MEMTX_OK) {
            return AXON_ADMIN_DMA_ERROR;
        }
    }
    return AXON_ADMIN_SUCCESS;
}

/*
 * Is the memory at bus address addr owned by another PCI device (a peer's
 * BAR)? *end gets the end of the run of addresses the answer holds for.
 */
static bool axon_rdma_is_peer(AxonNicState *s, uint64_t addr, uint64_t *end)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(s));
    hwaddr xlat, len = UINT64_MAX - addr;
    MemoryRegion *mr;
    Object *owner;

    RCU_READ_LOCK_GUARD();
    mr = address_space_translate(as, addr, &xlat, &len, false,
                                 MEMTXATTRS_UNSPECIFIED);
    *end = addr + MAX(len, 1);
    owner = memory_region_owner(mr);
    return owner && owner != OBJECT(s) &&
           object_dynamic_cast(owner, TYPE_PCI_DEVICE);
}

/*
 * The page list fields of CREATE_MR and REMAP_MR, for an MR spanning
 * [iova, iova + length): the list must cover exactly that range.
 */
static uint16_t axon_rdma_check_pages(uint16_t opcode,
                                      const struct axon_admin_mr *m,
                                      uint64_t iova, uint64_t length)
{
    uint32_t npages = le32_to_cpu(m->npages), need;
    uint64_t pbl = le64_to_cpu(m->pbl_addr), psz;

    if (m->page_shift < AXON_MR_MIN_PAGE_SHIFT ||
        m->page_shift > AXON_MR_MAX_PAGE_SHIFT ||
        (m->levels != 1 && m->levels != 2)) {
        return axon_rdma_bad(opcode, "bad page_shift or levels");
    }
    psz = 1ULL << m->page_shift;
    need = length ? DIV_ROUND_UP((iova & (psz - 1)) + length, psz) : 0;
    if (npages != need || npages > AXON_MR_MAX_PAGES) {
        return axon_rdma_bad(opcode, "npages does not match");
    }
    if (npages && (!pbl || !QEMU_IS_ALIGNED(pbl, 8))) {
        return axon_rdma_bad(opcode, "bad page list address");
    }
    return AXON_ADMIN_SUCCESS;
}

/*
 * Reads a checked page list into *pages, replacing held entries of the
 * page list budget, and finds out whether any page is a peer's memory.
 */
static uint16_t axon_rdma_load_pages(AxonNicState *s, uint16_t opcode,
                                     const struct axon_admin_mr *m,
                                     uint32_t held, uint64_t **pages,
                                     bool *peer)
{
    uint32_t npages = le32_to_cpu(m->npages), i;
    uint64_t psz = 1ULL << m->page_shift, run_lo = 0, run_hi = 0;
    g_autofree uint64_t *p = NULL;
    uint16_t status;

    *peer = false;
    if (s->rdma->pbl_pages - held + npages > AXON_RDMA_MAX_PBL_PAGES) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    if (npages) {
        p = g_try_new(uint64_t, npages);
        if (!p) {
            return AXON_ADMIN_NO_RESOURCES;
        }
        status = axon_rdma_read_pbl(s, opcode, le64_to_cpu(m->pbl_addr),
                                    m->levels, npages, p);
        if (status != AXON_ADMIN_SUCCESS) {
            return status;
        }
    }
    for (i = 0; i < npages; i++) {
        p[i] = le64_to_cpu(p[i]);
        if (!QEMU_IS_ALIGNED(p[i], psz)) {
            return axon_rdma_bad(opcode, "page address not aligned");
        }
        /* guest RAM is one run: translate only where a new one starts */
        if (!*peer && (p[i] < run_lo || p[i] >= run_hi)) {
            run_lo = p[i];
            *peer = axon_rdma_is_peer(s, p[i], &run_hi);
        }
    }
    *pages = g_steal_pointer(&p);
    return AXON_ADMIN_SUCCESS;
}

/* A random key tag other than last: a stale key never matches. */
static uint8_t axon_rdma_new_tag(uint8_t last)
{
    uint8_t tag;

    do {
        qemu_guest_getrandom_nofail(&tag, sizeof(tag));
    } while (tag == last);
    return tag;
}

static uint16_t axon_rdma_create_mr(AxonNicState *s,
                                    const struct axon_admin_mr *m,
                                    uint64_t *result)
{
    AxonRdma *r = s->rdma;
    uint32_t pdn = le32_to_cpu(m->pdn), access = le32_to_cpu(m->access);
    uint32_t npages = le32_to_cpu(m->npages), idx = 0, n, start;
    uint64_t iova = le64_to_cpu(m->iova), length = le64_to_cpu(m->length);
    uint64_t *pages = NULL;
    uint16_t status;
    bool peer;
    AxonMr *mr;

    if (m->reserved0 || m->key ||
        !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_rdma_bad(AXON_ADMIN_CREATE_MR, "reserved bytes set");
    }
    if (!axon_rdma_pd_valid(s, pdn)) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (access & ~AXON_ACCESS_ALL ||
        ((access & (AXON_ACCESS_REMOTE_WRITE | AXON_ACCESS_REMOTE_ATOMIC)) &&
         !(access & AXON_ACCESS_LOCAL_WRITE))) {
        return axon_rdma_bad(AXON_ADMIN_CREATE_MR, "bad access bits");
    }
    if (length > AXON_RDMA_MAX_MR_SIZE || iova + length < iova) {
        return axon_rdma_bad(AXON_ADMIN_CREATE_MR, "bad length");
    }
    status = axon_rdma_check_pages(AXON_ADMIN_CREATE_MR, m, iova, length);
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    /*
     * Keys are not to be guessed from one another (a forged frame needs
     * one): the slot is the first free one from a random point, the tag
     * random and never the slot's last.
     */
    qemu_guest_getrandom_nofail(&start, sizeof(start));
    for (n = 0; n < AXON_RDMA_MAX_MR; n++) {
        idx = (start + n) % AXON_RDMA_MAX_MR + 1;
        if (!r->mr[idx].valid) {
            break;
        }
    }
    if (n == AXON_RDMA_MAX_MR) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    status = axon_rdma_load_pages(s, AXON_ADMIN_CREATE_MR, m, 0, &pages,
                                  &peer);
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    mr = &r->mr[idx];
    mr->tag = axon_rdma_new_tag(mr->tag);
    mr->valid = true;
    mr->invalidated = false;
    mr->peer = peer;
    mr->page_shift = m->page_shift;
    mr->pdn = pdn;
    mr->access = access;
    mr->iova = iova;
    mr->length = length;
    mr->first_off = iova & ((1ULL << m->page_shift) - 1);
    mr->npages = npages;
    mr->pages = pages;
    r->pbl_pages += npages;
    r->pd_users[pdn]++;
    *result = idx << AXON_KEY_INDEX_SHIFT | mr->tag;
    trace_axon_nic_rdma_mr(idx, mr->tag, iova, length, access, peer);
    return AXON_ADMIN_SUCCESS;
}

static void axon_rdma_free_mr(AxonNicState *s, AxonMr *mr)
{
    s->rdma->pbl_pages -= mr->npages;
    s->rdma->pd_users[mr->pdn]--;
    g_free(mr->pages);
    mr->pages = NULL;
    mr->valid = false;
}

/* The MR a DESTROY_MR, INVALIDATE_MR or REMAP_MR names, or NULL. */
static AxonMr *axon_rdma_mr_of_key(AxonNicState *s, uint32_t key)
{
    uint32_t idx = key >> AXON_KEY_INDEX_SHIFT;
    AxonMr *mr;

    if (idx == 0 || idx > AXON_RDMA_MAX_MR) {
        return NULL;
    }
    mr = &s->rdma->mr[idx];
    if (!mr->valid || mr->tag != (key & AXON_KEY_TAG_MASK)) {
        return NULL;
    }
    return mr;
}

static uint16_t axon_rdma_destroy_mr(AxonNicState *s,
                                     const struct axon_admin_mr *m)
{
    AxonMr *mr;

    if (m->pdn || m->access || m->iova || m->length || m->pbl_addr ||
        m->npages || m->page_shift || m->levels || m->reserved0 ||
        !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_rdma_bad(AXON_ADMIN_DESTROY_MR, "reserved bytes set");
    }
    mr = axon_rdma_mr_of_key(s, le32_to_cpu(m->key));
    if (!mr) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    axon_rdma_free_mr(s, mr);
    return AXON_ADMIN_SUCCESS;
}

/*
 * From the completion on the device does not touch the MR's pages: the
 * engine runs in the main loop like this command and looks the key up
 * for every access (nothing holds a page mapping across iterations).
 */
static uint16_t axon_rdma_invalidate_mr(AxonNicState *s,
                                        const struct axon_admin_mr *m)
{
    AxonMr *mr;

    if (m->pdn || m->access || m->iova || m->length || m->pbl_addr ||
        m->npages || m->page_shift || m->levels || m->reserved0 ||
        !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_rdma_bad(AXON_ADMIN_INVALIDATE_MR, "reserved bytes set");
    }
    mr = axon_rdma_mr_of_key(s, le32_to_cpu(m->key));
    if (!mr) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    mr->invalidated = true;
    trace_axon_nic_rdma_mr_invalidate(le32_to_cpu(m->key));
    return AXON_ADMIN_SUCCESS;
}

/* New pages for the same [iova, iova + length); the MR is valid again. */
static uint16_t axon_rdma_remap_mr(AxonNicState *s,
                                   const struct axon_admin_mr *m)
{
    uint64_t *pages = NULL;
    uint16_t status;
    bool peer;
    AxonMr *mr;

    if (m->pdn || m->access || m->iova || m->length || m->reserved0 ||
        !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_rdma_bad(AXON_ADMIN_REMAP_MR, "reserved bytes set");
    }
    mr = axon_rdma_mr_of_key(s, le32_to_cpu(m->key));
    if (!mr) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    status = axon_rdma_check_pages(AXON_ADMIN_REMAP_MR, m, mr->iova,
                                   mr->length);
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    status = axon_rdma_load_pages(s, AXON_ADMIN_REMAP_MR, m, mr->npages,
                                  &pages, &peer);
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    s->rdma->pbl_pages += le32_to_cpu(m->npages) - (uint64_t)mr->npages;
    g_free(mr->pages);
    mr->pages = pages;
    mr->npages = le32_to_cpu(m->npages);
    mr->page_shift = m->page_shift;
    mr->first_off = mr->iova & ((1ULL << m->page_shift) - 1);
    mr->peer = peer;
    mr->invalidated = false;
    trace_axon_nic_rdma_mr_remap(le32_to_cpu(m->key), mr->npages, peer);
    return AXON_ADMIN_SUCCESS;
}

/* ---- admin: completion queues ------------------------------------------- */

static uint16_t axon_rdma_create_cq(AxonNicState *s,
                                    const struct axon_admin_cq *c,
                                    uint64_t *result)
{
    AxonRdma *r = s->rdma;
    uint64_t ring = le64_to_cpu(c->ring_addr);
    uint32_t depth = le32_to_cpu(c->depth), uar = le32_to_cpu(c->uar);
    uint32_t cqn;
    AxonCq *cq;

    if (c->cqn || !buffer_is_zero(c->reserved, sizeof(c->reserved))) {
        return axon_rdma_bad(AXON_ADMIN_CREATE_CQ, "reserved bytes set");
    }
    if (depth < AXON_CQ_MIN_DEPTH || depth > AXON_CQ_MAX_DEPTH ||
        !is_power_of_2(depth) || !ring ||
        !QEMU_IS_ALIGNED(ring, AXON_QUEUE_ALIGN) ||
        ring + (uint64_t)depth * AXON_CQE_SIZE +
        sizeof(struct axon_cq_dbrec) < ring || uar >= AXON_RDMA_DB_PAGES) {
        return axon_rdma_bad(AXON_ADMIN_CREATE_CQ, "bad ring, depth or uar");
    }
    /* one completion event per CQ at most is pending on the CEQ */
    if (r->ncq >= AXON_RDMA_MAX_CQ || r->ncq + 1 >= s->ceq.depth) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    /* next free number after the last one; ncq < AXON_RDMA_MAX_CQ */
    do {
        cqn = r->cq_last % AXON_RDMA_MAX_CQ + 1;
        r->cq_last = cqn;
    } while (r->cq[cqn]);
    cq = g_new0(AxonCq, 1);
    cq->cqn = cqn;
    cq->ring = ring;
    cq->depth = depth;
    cq->uar = uar;
    r->cq[cqn] = cq;
    r->ncq++;
    *result = cqn;
    trace_axon_nic_rdma_cq(cqn, depth, uar);
    return AXON_ADMIN_SUCCESS;
}

static uint16_t axon_rdma_destroy_cq(AxonNicState *s,
                                     const struct axon_admin_cq *c)
{
    AxonCq *cq;

    if (c->ring_addr || c->depth || c->uar ||
        !buffer_is_zero(c->reserved, sizeof(c->reserved))) {
        return axon_rdma_bad(AXON_ADMIN_DESTROY_CQ, "reserved bytes set");
    }
    cq = axon_rdma_cq(s, le32_to_cpu(c->cqn));
    if (!cq) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (cq->users) {
        return AXON_ADMIN_BUSY;
    }
    s->rdma->cq[cq->cqn] = NULL;
    s->rdma->ncq--;
    s->rdma->ev_owed -= cq->ev_owed;
    g_free(cq);
    return AXON_ADMIN_SUCCESS;
}

/* ---- admin: queue pairs ------------------------------------------------- */

static bool axon_rdma_check_wq(uint64_t base, uint32_t depth, uint8_t shift,
                               uint8_t min_shift)
{
    return base && QEMU_IS_ALIGNED(base, AXON_QUEUE_ALIGN) &&
           depth >= AXON_WQ_MIN_DEPTH && depth <= AXON_WQ_MAX_DEPTH &&
           is_power_of_2(depth) && shift >= min_shift &&
           shift <= AXON_WQE_MAX_SHIFT &&
           base + ((uint64_t)depth << shift) > base;
}

static uint16_t axon_rdma_create_qp(AxonNicState *s,
                                    const struct axon_admin_create_qp *c,
                                    uint64_t *result)
{
    AxonRdma *r = s->rdma;
    uint32_t pdn = le32_to_cpu(c->pdn), uar = le32_to_cpu(c->uar);
    uint16_t sq_depth = le16_to_cpu(c->sq_depth);
    uint16_t rq_depth = le16_to_cpu(c->rq_depth);
    AxonCq *scq = axon_rdma_cq(s, le32_to_cpu(c->send_cqn));
    AxonCq *rcq = axon_rdma_cq(s, le32_to_cpu(c->recv_cqn));
    uint32_t i = 0, n;
    AxonQp *qp;

    if (c->reserved0 || !buffer_is_zero(c->reserved, sizeof(c->reserved))) {
        return axon_rdma_bad(AXON_ADMIN_CREATE_QP, "reserved bytes set");
    }
    if (!axon_rdma_pd_valid(s, pdn) || !scq || !rcq) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (uar >= AXON_RDMA_DB_PAGES || c->sq_sig_all > 1 ||
        !axon_rdma_check_wq(le64_to_cpu(c->sq_addr), sq_depth,
                            c->sq_wqe_shift, AXON_SQ_MIN_WQE_SHIFT) ||
        !axon_rdma_check_wq(le64_to_cpu(c->rq_addr), rq_depth,
                            c->rq_wqe_shift, AXON_RQ_MIN_WQE_SHIFT)) {
        return axon_rdma_bad(AXON_ADMIN_CREATE_QP, "bad queue or uar");
    }
    /* next fit: a QPN just destroyed is not handed out again at once */
    for (n = 0; n < AXON_RDMA_MAX_QP; n++) {
        i = (r->qp_last + n) % AXON_RDMA_MAX_QP;
        if (!r->qp[i]) {
            break;
        }
    }
    if (n == AXON_RDMA_MAX_QP) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    r->qp_last = i + 1;
    qp = g_new0(AxonQp, 1);
    qp->qpn = i + AXON_RDMA_FIRST_QPN;
    qp->state = AXON_QPS_RESET;
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
    qp->win = g_new0(AxonSwqe, AXON_RDMA_WINDOW);
    axon_roce_qp_init(s, qp);
    scq->users++;
    rcq->users++;
    r->pd_users[pdn]++;
    r->qp[i] = qp;
    *result = qp->qpn;
    trace_axon_nic_rdma_qp(qp->qpn, sq_depth, rq_depth, uar);
    return AXON_ADMIN_SUCCESS;
}

/* Forget all queue state, as a move to RESET does. */
static void axon_rdma_qp_forget(AxonNicState *s, AxonQp *qp)
{
    axon_roce_qp_stop(s, qp);
    qp->sq.pi = qp->sq.ci = 0;
    qp->rq.pi = qp->rq.ci = 0;
    qp->sq_comp = qp->sq_fetch = qp->cur = 0;
    qp->sq_stopped = false;
    qp->recv_active = false;
    qp->comm_est = false;
    memset(qp->res, 0, sizeof(qp->res));
    memset(qp->win, 0, sizeof(*qp->win) * AXON_RDMA_WINDOW);
}

void axon_rdma_qp_error(AxonNicState *s, AxonQp *qp)
{
    if (qp->state == AXON_QPS_ERR) {
        return;
    }
    trace_axon_nic_rdma_qp_state(qp->qpn, qp->state, AXON_QPS_ERR);
    qp->state = AXON_QPS_ERR;
    axon_roce_qp_stop(s, qp);
    axon_roce_schedule(s, qp);  /* to flush both queues */
}

/*
 * IBA 11.2.4.2 as Linux's ib_modify_qp_is_ok() has it for RC: a path, MTU,
 * QPN or PSN is set on the way to RTR and RTS only, never in flight.
 */
#define AXON_QP_ATTR_IN_FLIGHT  (AXON_QP_ATTR_STATE | AXON_QP_ATTR_ACCESS | \
                                 AXON_QP_ATTR_MIN_RNR_TIMER)

static bool axon_rdma_transition_ok(uint32_t cur, uint32_t new, uint32_t mask)
{
    if (new == AXON_QPS_RESET || new == AXON_QPS_ERR) {
        return true;
    }
    switch (cur) {
    case AXON_QPS_RESET:
        return new == AXON_QPS_INIT;
    case AXON_QPS_INIT:
        if (new == AXON_QPS_RTR) {
            uint32_t need = AXON_QP_ATTR_PATH | AXON_QP_ATTR_PATH_MTU |
                            AXON_QP_ATTR_DEST_QPN | AXON_QP_ATTR_RQ_PSN;
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
static const char *axon_rdma_check_attr(AxonNicState *s,
                                        const struct axon_qp_attr *a,
                                        uint32_t mask)
{
    uint32_t mtu = le32_to_cpu(a->path_mtu);

    if (mask & ~AXON_QP_ATTR_ALL ||
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
         s->gid_tbl[a->sgid_index].type == AXON_GID_TYPE_NONE ||
         le32_to_cpu(a->flow_label) >> 20 || (a->dmac[0] & 1))) {
        return "bad path";
    }
    if ((mask & AXON_QP_ATTR_PATH_MTU) &&
        (mtu < 256 || mtu > AXON_RDMA_MAX_MTU || !is_power_of_2(mtu))) {
        return "bad path_mtu";
    }
    if (((mask & AXON_QP_ATTR_DEST_QPN) &&
         le32_to_cpu(a->dest_qpn) > AXON_PSN_MASK) ||
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
    return NULL;
}

/* Copies the attributes under mask from a into the QP's. */
static void axon_rdma_apply_attr(struct axon_qp_attr *q,
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
}

static uint16_t axon_rdma_modify_qp(AxonNicState *s,
                                    const struct axon_admin_modify_qp *m)
{
    uint32_t mask = le32_to_cpu(m->attr_mask);
    struct axon_qp_attr a;
    uint32_t cur, new;
    const char *why;
    AxonQp *qp;

    if (!buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_rdma_bad(AXON_ADMIN_MODIFY_QP, "reserved bytes set");
    }
    qp = axon_rdma_qp(s, le32_to_cpu(m->qpn));
    if (!qp) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (pci_dma_read(PCI_DEVICE(s), le64_to_cpu(m->attr_addr), &a,
                     sizeof(a)) != MEMTX_OK) {
        return AXON_ADMIN_DMA_ERROR;
    }
    why = axon_rdma_check_attr(s, &a, mask);
    if (why) {
        return axon_rdma_bad(AXON_ADMIN_MODIFY_QP, why);
    }
    cur = qp->state;
    new = mask & AXON_QP_ATTR_STATE ? le32_to_cpu(a.state) : cur;
    if (!axon_rdma_transition_ok(cur, new, mask)) {
        qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: QP %u: transition %u -> %u "
                      "(mask 0x%x) not allowed\n", qp->qpn, cur, new, mask);
        trace_axon_nic_err_rdma_qp_state(qp->qpn, cur, new, mask);
        return AXON_ADMIN_BAD_STATE;
    }
    axon_rdma_apply_attr(&qp->attr, &a, mask);
    trace_axon_nic_rdma_qp_state(qp->qpn, cur, new);
    if (new == AXON_QPS_RESET) {
        qp->state = new;
        axon_rdma_qp_forget(s, qp);
    } else if (new == AXON_QPS_ERR) {
        axon_rdma_qp_error(s, qp);
    } else {
        qp->state = new;
        if (cur == AXON_QPS_INIT && new == AXON_QPS_RTR) {
            axon_roce_qp_rtr(s, qp);
        } else if (new == AXON_QPS_RTS && cur != AXON_QPS_RTS) {
            axon_roce_qp_rts(s, qp);
        }
    }
    return AXON_ADMIN_SUCCESS;
}

static uint16_t axon_rdma_query_qp(AxonNicState *s,
                                   const struct axon_admin_modify_qp *m)
{
    struct axon_qp_attr a;
    AxonQp *qp;

    if (m->attr_mask || !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_rdma_bad(AXON_ADMIN_QUERY_QP, "reserved bytes set");
    }
    qp = axon_rdma_qp(s, le32_to_cpu(m->qpn));
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

static void axon_rdma_free_qp(AxonNicState *s, AxonQp *qp)
{
    axon_roce_qp_stop(s, qp);
    timer_free(qp->retry_timer);
    qp->scq->users--;
    qp->rcq->users--;
    s->rdma->pd_users[qp->pdn]--;
    s->rdma->qp[qp->qpn - AXON_RDMA_FIRST_QPN] = NULL;
    g_free(qp->win);
    g_free(qp);
}

static uint16_t axon_rdma_destroy_qp(AxonNicState *s,
                                     const struct axon_admin_modify_qp *m)
{
    AxonQp *qp;

    if (m->attr_mask || m->attr_addr ||
        !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_rdma_bad(AXON_ADMIN_DESTROY_QP, "reserved bytes set");
    }
    qp = axon_rdma_qp(s, le32_to_cpu(m->qpn));
    if (!qp) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    axon_rdma_free_qp(s, qp);
    return AXON_ADMIN_SUCCESS;
}

uint16_t axon_rdma_admin(AxonNicState *s, const struct axon_admin_cmd *cmd,
                         uint64_t *result)
{
    switch (le16_to_cpu(cmd->opcode)) {
    case AXON_ADMIN_CREATE_MR:
        return axon_rdma_create_mr(s, &cmd->mr, result);
    case AXON_ADMIN_DESTROY_MR:
        return axon_rdma_destroy_mr(s, &cmd->mr);
    case AXON_ADMIN_INVALIDATE_MR:
        return axon_rdma_invalidate_mr(s, &cmd->mr);
    case AXON_ADMIN_REMAP_MR:
        return axon_rdma_remap_mr(s, &cmd->mr);
    case AXON_ADMIN_CREATE_CQ:
        return axon_rdma_create_cq(s, &cmd->cq, result);
    case AXON_ADMIN_DESTROY_CQ:
        return axon_rdma_destroy_cq(s, &cmd->cq);
    case AXON_ADMIN_CREATE_QP:
        return axon_rdma_create_qp(s, &cmd->create_qp, result);
    case AXON_ADMIN_MODIFY_QP:
        return axon_rdma_modify_qp(s, &cmd->qp);
    case AXON_ADMIN_QUERY_QP:
        return axon_rdma_query_qp(s, &cmd->qp);
    case AXON_ADMIN_DESTROY_QP:
        return axon_rdma_destroy_qp(s, &cmd->qp);
    default:
        trace_axon_nic_err_admin_opcode(le16_to_cpu(cmd->opcode));
        return AXON_ADMIN_BAD_OPCODE;
    }
}

/* ---- stats, reset, realize ---------------------------------------------- */

uint32_t axon_rdma_stat(AxonNicState *s, hwaddr addr)
{
    AxonRdma *r = s->rdma;

    switch (addr) {
    case AXON_REG_STAT_DB_REJECTS:
        return r->stat_db_rejects;
    case AXON_REG_STAT_TX_PKTS:
        return r->stat_tx_pkts;
    case AXON_REG_STAT_RX_PKTS:
        return r->stat_rx_pkts;
    case AXON_REG_STAT_RX_DROPS:
        return r->stat_rx_drops;
    case AXON_REG_STAT_RETRANS:
        return r->stat_retrans;
    case AXON_REG_STAT_NAKS:
        return r->stat_naks;
    case AXON_REG_STAT_PEER_RD_LO:
        return r->stat_peer_rd;
    case AXON_REG_STAT_PEER_RD_HI:
        return r->stat_peer_rd >> 32;
    case AXON_REG_STAT_PEER_WR_LO:
        return r->stat_peer_wr;
    case AXON_REG_STAT_PEER_WR_HI:
        return r->stat_peer_wr >> 32;
    case AXON_REG_STAT_MR_INVALID:
        return r->stat_mr_invalid;
    case AXON_REG_STAT_DUP_REQS:
        return r->stat_dup_reqs;
    case AXON_REG_STAT_OUT_OF_SEQ:
        return r->stat_out_of_seq;
    case AXON_REG_STAT_STRAY:
        return r->stat_stray;
    default:
        return 0;
    }
}

/* Tears every object down; the device forgets them. */
void axon_rdma_reset(AxonNicState *s)
{
    AxonRdma *r = s->rdma;
    uint32_t i;

    qemu_bh_cancel(r->bh);
    for (i = 0; i < AXON_RDMA_MAX_QP; i++) {
        if (r->qp[i]) {
            axon_rdma_free_qp(s, r->qp[i]);
        }
    }
    for (i = 1; i <= AXON_RDMA_MAX_CQ; i++) {
        g_free(r->cq[i]);
        r->cq[i] = NULL;
    }
    for (i = 1; i <= AXON_RDMA_MAX_MR; i++) {
        if (r->mr[i].valid) {
            axon_rdma_free_mr(s, &r->mr[i]);
        }
    }
    r->ncq = 0;
    r->ev_owed = 0;
    r->held_len = 0;
    r->tx_count = 0;
    r->cq_last = r->qp_last = 0;
    r->stat_db_rejects = 0;
    r->stat_tx_pkts = 0;
    r->stat_rx_pkts = 0;
    r->stat_rx_drops = 0;
    r->stat_retrans = 0;
    r->stat_naks = 0;
    r->stat_peer_rd = 0;
    r->stat_peer_wr = 0;
    r->stat_mr_invalid = 0;
}

void axon_rdma_realize(AxonNicState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    AxonRdma *r = g_new0(AxonRdma, 1);

    s->rdma = r;
    r->mr = g_new0(AxonMr, AXON_RDMA_MAX_MR + 1);
    r->cq = g_new0(AxonCq *, AXON_RDMA_MAX_CQ + 1);
    r->qp = g_new0(AxonQp *, AXON_RDMA_MAX_QP);
    r->pd_users = g_new0(uint32_t, s->max_pd);
    QTAILQ_INIT(&r->sched);
    QTAILQ_INIT(&r->acks);
    r->bh = qemu_bh_new_guarded(axon_roce_bh, s,
                                &DEVICE(pdev)->mem_reentrancy_guard);
    memory_region_init_io(&r->db, OBJECT(s), &axon_rdma_db_ops, s,
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
    g_free(r->mr);
    g_free(r->cq);
    g_free(r->qp);
    g_free(r->pd_users);
    g_free(r);
    s->rdma = NULL;
}
