/*
 * axon-nic: protection domains, memory regions and keys, the GID table
 *
 * The engine reaches guest memory only through here: a key names an MR
 * of the QP's PD with the rights asked for, the range lies inside it, and
 * the bytes are moved through the page list the device copied when the
 * MR was created (CREATE_MR; REMAP_MR for peer MRs whose pages moved).
 * Keys are drawn at random (Documentation/wire-security.rst). The GID
 * table resolves a QP's source address.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitmap.h"
#include "qemu/cutils.h"
#include "qemu/guest-random.h"
#include "qemu/log.h"
#include "hw/pci/pci.h"
#include "sysemu/dma.h"
#include "trace.h"

#include "axon-nic-rdma.h"

/* ---- protection domains and the GID table ------------------------------ */

bool axon_mr_pd_valid(AxonNicState *s, uint32_t pdn)
{
    return pdn < s->max_pd && test_bit(pdn, s->rdma->pd_table);
}

/* MRs and QPs still in the PD */
static bool axon_mr_pd_busy(AxonNicState *s, uint32_t pdn)
{
    return pdn < s->max_pd && s->rdma->pd_users[pdn];
}

uint16_t axon_mr_create_pd(AxonNicState *s, const struct axon_admin_cmd *cmd,
                           uint64_t *result)
{
    unsigned long pdn;

    if (!buffer_is_zero(cmd->raw, sizeof(cmd->raw))) {
        return AXON_ADMIN_BAD_PARAM;
    }
    pdn = find_first_zero_bit(s->rdma->pd_table, s->max_pd);
    if (pdn >= s->max_pd) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    set_bit(pdn, s->rdma->pd_table);
    *result = pdn;
    return AXON_ADMIN_SUCCESS;
}

uint16_t axon_mr_destroy_pd(AxonNicState *s, const struct axon_admin_cmd *cmd,
                            uint64_t *result)
{
    const struct axon_admin_pd *p = &cmd->pd;
    uint32_t pdn = le32_to_cpu(p->pdn);

    if (!buffer_is_zero(p->reserved, sizeof(p->reserved))) {
        return AXON_ADMIN_BAD_PARAM;
    }
    if (pdn >= s->max_pd || !test_bit(pdn, s->rdma->pd_table)) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (axon_mr_pd_busy(s, pdn)) {
        return AXON_ADMIN_BUSY;
    }
    clear_bit(pdn, s->rdma->pd_table);
    return AXON_ADMIN_SUCCESS;
}

/* The GID table is the RDMA engine's: it resolves a QP's sgid_index. */
uint16_t axon_mr_set_gid(AxonNicState *s, const struct axon_admin_cmd *cmd,
                         uint64_t *result)
{
    const struct axon_admin_gid *g = &cmd->gid;
    uint32_t port = le32_to_cpu(g->port);
    uint32_t index = le32_to_cpu(g->index);
    uint32_t type = le32_to_cpu(g->type);
    AxonGid *e;

    if (port < 1 || port > AXON_NIC_PORTS || index >= AXON_NIC_GID_TBL_LEN ||
        type > AXON_GID_TYPE_ROCE_V2 || g->reserved0 ||
        !buffer_is_zero(g->reserved, sizeof(g->reserved))) {
        trace_axon_nic_err_set_gid(port, index, type);
        return AXON_ADMIN_BAD_PARAM;
    }
    e = &s->rdma->gid_tbl[index];
    e->type = type;
    if (type == AXON_GID_TYPE_NONE) {
        memset(e->gid, 0, sizeof(e->gid));
    } else {
        memcpy(e->gid, g->gid, sizeof(e->gid));
    }
    trace_axon_nic_set_gid(index, type);
    return AXON_ADMIN_SUCCESS;
}

/* The entry a QP's sgid_index names (checked against the table's size). */
const AxonGid *axon_mr_gid(AxonNicState *s, uint32_t index)
{
    assert(index < AXON_NIC_GID_TBL_LEN);
    return &s->rdma->gid_tbl[index];
}

bool axon_mr_gid_is_ours(AxonNicState *s, const uint8_t *gid)
{
    unsigned i;

    for (i = 0; i < AXON_NIC_GID_TBL_LEN; i++) {
        if (s->rdma->gid_tbl[i].type != AXON_GID_TYPE_NONE &&
            !memcmp(s->rdma->gid_tbl[i].gid, gid, 16)) {
            return true;
        }
    }
    return false;
}

/* ---- memory access through keys ----------------------------------------- */

/*
 * A key names a valid MR of the PD with the rights asked for, and
 * [va, va + len) lies inside it. Local read needs no right. An
 * invalidated MR's pages may belong to someone else by now: every access
 * is refused, as if out of bounds.
 */
AxonMr *axon_mr_check(AxonNicState *s, uint32_t key, uint32_t pdn,
                      uint64_t va, uint64_t len, uint32_t access)
{
    uint32_t idx = AXON_KEY_GET_INDEX(key);
    AxonMr *mr;

    if (idx == 0 || idx > AXON_RDMA_MAX_MR) {
        return NULL;
    }
    mr = &s->rdma->mr[idx];
    if (mr->mw_type) {
        /* a window's key names remote access only, never an lkey */
        trace_axon_nic_err_rdma_key(key, pdn, va, len, access);
        return NULL;
    }
    if (mr->valid && mr->tag == AXON_KEY_GET_TAG(key) &&
        mr->invalidated) {
        s->rdma->stats.mr_invalid++;
        trace_axon_nic_err_rdma_mr_invalid(key, va, len);
        return NULL;
    }
    if (!mr->valid || mr->tag != AXON_KEY_GET_TAG(key) ||
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
static bool axon_mr_dma(PCIDevice *pdev, dma_addr_t addr, uint8_t *buf,
                        dma_addr_t len, DMADirection dir)
{
    return pci_dma_rw(pdev, addr, buf, len, dir, MEMTXATTRS_UNSPECIFIED) ==
           MEMTX_OK;
}

/* Payload bytes the engine moved from (TO_DEVICE) or to a peer MR. */
static void axon_mr_count_peer(AxonNicState *s, DMADirection dir,
                               uint64_t len)
{
    if (dir == DMA_DIRECTION_TO_DEVICE) {
        s->rdma->stats.peer_rd += len;
    } else {
        s->rdma->stats.peer_wr += len;
    }
    trace_axon_nic_rdma_peer_dma(dir == DMA_DIRECTION_FROM_DEVICE, len);
}

/*
 * Copies len bytes at va of a checked MR to (DMA_DIRECTION_TO_DEVICE) or
 * from buf, one run of physically contiguous pages at a time.
 */
bool axon_mr_rw(AxonNicState *s, AxonMr *mr, uint64_t va, void *buf,
                uint32_t len, DMADirection dir)
{
    uint64_t psz = 1ULL << mr->page_shift;
    uint64_t off = va - mr->iova + mr->first_off;
    uint8_t *p = buf;

    while (len) {
        uint64_t pg = off >> mr->page_shift;
        uint64_t poff = off & (psz - 1);
        uint64_t addr, run = psz - poff;

        /* every caller checked the range: this guards the page list */
        if (pg >= mr->npages) {
            trace_axon_nic_err_rdma_dma(va, len);
            return false;
        }
        addr = mr->pages[pg] + poff;
        while (run < len && pg + 1 < mr->npages &&
               mr->pages[pg + 1] == mr->pages[pg] + psz) {
            run += psz;
            pg++;
        }
        run = MIN(run, len);
        if (!axon_mr_dma(PCI_DEVICE(s), addr, p, run, dir)) {
            trace_axon_nic_err_rdma_dma(addr, run);
            return false;
        }
        if (mr->peer) {
            axon_mr_count_peer(s, dir, run);
        }
        p += run;
        off += run;
        len -= run;
    }
    return true;
}

/* An 8-byte aligned atomic on guest memory; *orig gets the old value. */
bool axon_mr_atomic(AxonNicState *s, AxonMr *mr, uint64_t va,
                    bool cas, uint64_t cmp_add, uint64_t swap,
                    uint64_t *orig)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(s));
    uint64_t off = va - mr->iova + mr->first_off;
    uint64_t addr;
    dma_addr_t plen = 8;
    hwaddr xlat, l = 8;
    uint64_t *p, old, new;
    MemoryRegion *mr_ram;

    if ((off >> mr->page_shift) >= mr->npages) {
        return false;
    }
    addr = mr->pages[off >> mr->page_shift] +
           (off & ((1ULL << mr->page_shift) - 1));
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
        axon_mr_count_peer(s, DMA_DIRECTION_TO_DEVICE, 8);
        axon_mr_count_peer(s, DMA_DIRECTION_FROM_DEVICE, 8);
    }
    return true;
}

/* Moves len bytes at message offset off between buf and a WQE's SGEs. */
bool axon_mr_sge_rw(AxonNicState *s, uint32_t pdn, const AxonSge *sge,
                    unsigned nsge, uint32_t off, uint8_t *buf, uint32_t len,
                    DMADirection dir)
{
    uint32_t access = dir == DMA_DIRECTION_FROM_DEVICE ?
                      AXON_ACCESS_LOCAL_WRITE : 0;
    unsigned i;

    for (i = 0; i < nsge && len; i++) {
        uint32_t n;
        AxonMr *mr;

        if (off >= sge[i].length) {
            off -= sge[i].length;
            continue;
        }
        n = MIN(sge[i].length - off, len);
        mr = axon_mr_check(s, sge[i].lkey, pdn, sge[i].addr + off, n,
                           access);
        if (!mr || !axon_mr_rw(s, mr, sge[i].addr + off, buf, n, dir)) {
            return false;
        }
        buf += n;
        len -= n;
        off = 0;
    }
    return !len;
}

/* ---- admin: memory regions ---------------------------------------------- */

/* Reads a 1- or 2-level page list (of a new MR or CQ ring) into pages. */
uint16_t axon_mr_read_pbl(AxonNicState *s, uint16_t opcode, uint64_t pbl,
                          uint8_t levels, uint32_t npages, uint64_t *pages)
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
            return axon_nic_bad_cmd(opcode, "leaf not 4K aligned");
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
static bool axon_mr_is_peer(AxonNicState *s, uint64_t addr, uint64_t *end)
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
static uint16_t axon_mr_check_pages(uint16_t opcode,
                                    const struct axon_admin_mr *m,
                                    uint64_t iova, uint64_t length)
{
    uint32_t npages = le32_to_cpu(m->npages), need;
    uint64_t pbl = le64_to_cpu(m->pbl_addr), psz;

    if (m->page_shift < AXON_MR_MIN_PAGE_SHIFT ||
        m->page_shift > AXON_MR_MAX_PAGE_SHIFT ||
        (m->levels != 1 && m->levels != 2)) {
        return axon_nic_bad_cmd(opcode, "bad page_shift or levels");
    }
    psz = 1ULL << m->page_shift;
    need = length ? DIV_ROUND_UP((iova & (psz - 1)) + length, psz) : 0;
    if (npages != need || npages > AXON_MR_MAX_PAGES) {
        return axon_nic_bad_cmd(opcode, "npages does not match");
    }
    if (npages && (!pbl || !QEMU_IS_ALIGNED(pbl, 8))) {
        return axon_nic_bad_cmd(opcode, "bad page list address");
    }
    return AXON_ADMIN_SUCCESS;
}

/*
 * Converts a page list read from the guest to host order and checks each
 * page's alignment; *peer: is any page a peer's memory?
 */
bool axon_mr_scan_pages(AxonNicState *s, uint64_t *p, uint32_t npages,
                        uint64_t psz, bool *peer)
{
    uint64_t run_lo = 0, run_hi = 0;
    uint32_t i;

    *peer = false;
    for (i = 0; i < npages; i++) {
        p[i] = le64_to_cpu(p[i]);
        if (!QEMU_IS_ALIGNED(p[i], psz)) {
            return false;
        }
        /* guest RAM is one run: translate only where a new one starts */
        if (!*peer && (p[i] < run_lo || p[i] >= run_hi)) {
            run_lo = p[i];
            *peer = axon_mr_is_peer(s, p[i], &run_hi);
        }
    }
    return true;
}

/*
 * Reads a checked page list into *pages, replacing held entries of the
 * page list budget, and finds out whether any page is a peer's memory.
 */
static uint16_t axon_mr_load_pages(AxonNicState *s, uint16_t opcode,
                                   const struct axon_admin_mr *m,
                                   uint32_t held, uint64_t **pages,
                                   bool *peer)
{
    uint32_t npages = le32_to_cpu(m->npages);
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
        status = axon_mr_read_pbl(s, opcode, le64_to_cpu(m->pbl_addr),
                                  m->levels, npages, p);
        if (status != AXON_ADMIN_SUCCESS) {
            return status;
        }
    }
    if (!axon_mr_scan_pages(s, p, npages, 1ULL << m->page_shift, peer)) {
        return axon_nic_bad_cmd(opcode, "page address not aligned");
    }
    *pages = g_steal_pointer(&p);
    return AXON_ADMIN_SUCCESS;
}

/* The access bits and range of a CREATE_MR or REREG_MR. */
static uint16_t axon_mr_check_range(uint16_t opcode, uint32_t access,
                                    uint64_t iova, uint64_t length)
{
    if (access & ~AXON_ACCESS_MR_ALL ||
        ((access & (AXON_ACCESS_REMOTE_WRITE | AXON_ACCESS_REMOTE_ATOMIC)) &&
         !(access & AXON_ACCESS_LOCAL_WRITE))) {
        return axon_nic_bad_cmd(opcode, "bad access bits");
    }
    if (length > AXON_RDMA_MAX_MR_SIZE || iova + length < iova) {
        return axon_nic_bad_cmd(opcode, "bad length");
    }
    return AXON_ADMIN_SUCCESS;
}

/* What CREATE_MR and REREG_MR set alike: the PD, access, range, pages. */
static void axon_mr_describe(AxonMr *mr, const struct axon_admin_mr *m,
                             uint64_t *pages, bool peer)
{
    mr->pdn = le32_to_cpu(m->pdn);
    mr->access = le32_to_cpu(m->access);
    mr->iova = le64_to_cpu(m->iova);
    mr->length = le64_to_cpu(m->length);
    mr->page_shift = m->page_shift;
    mr->first_off = mr->iova & ((1ULL << m->page_shift) - 1);
    mr->pages = pages;
    mr->peer = peer;
}

/* A random key tag other than last: a stale key never matches. */
static uint8_t axon_mr_new_tag(uint8_t last)
{
    uint8_t tag;

    do {
        qemu_guest_getrandom_nofail(&tag, sizeof(tag));
    } while (tag == last);
    return tag;
}

uint16_t axon_mr_create(AxonNicState *s, const struct axon_admin_cmd *cmd,
                        uint64_t *result)
{
    const struct axon_admin_mr *m = &cmd->mr;
    AxonRdma *r = s->rdma;
    uint32_t pdn = le32_to_cpu(m->pdn), access = le32_to_cpu(m->access);
    uint32_t npages = le32_to_cpu(m->npages), idx = 0, n, start;
    uint64_t iova = le64_to_cpu(m->iova), length = le64_to_cpu(m->length);
    uint64_t *pages = NULL;
    uint16_t status;
    bool peer;
    AxonMr *mr;

    uint16_t flags = le16_to_cpu(m->flags);
    bool fast_reg = flags == AXON_MR_FAST_REG;
    uint8_t mw_type = flags == AXON_MR_MW_TYPE1 ? 1 :
                      flags == AXON_MR_MW_TYPE2 ? 2 : 0;

    if ((flags && !fast_reg && !mw_type) || m->key ||
        !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_nic_bad_cmd(AXON_ADMIN_CREATE_MR, "reserved bytes set");
    }
    if (!axon_mr_pd_valid(s, pdn)) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (mw_type && (access || iova || length || m->pbl_addr || npages ||
                    m->page_shift || m->levels)) {
        return axon_nic_bad_cmd(AXON_ADMIN_CREATE_MR, "bad memory window");
    }
    if (fast_reg &&
        (access || iova || length || m->pbl_addr || m->page_shift ||
         m->levels || !npages || npages > AXON_FAST_REG_MAX_PAGES)) {
        return axon_nic_bad_cmd(AXON_ADMIN_CREATE_MR,
                                "bad fast-registration MR");
    }
    status = axon_mr_check_range(AXON_ADMIN_CREATE_MR, access, iova, length);
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    status = fast_reg || mw_type ? AXON_ADMIN_SUCCESS :
             axon_mr_check_pages(AXON_ADMIN_CREATE_MR, m, iova, length);
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
    if (mw_type) {
        peer = false;
    } else if (fast_reg) {
        /* the capacity is held from now on; the pages come with REG_MR */
        if (r->pbl_pages + npages > AXON_RDMA_MAX_PBL_PAGES) {
            return AXON_ADMIN_NO_RESOURCES;
        }
        pages = g_new0(uint64_t, npages);
        peer = false;
    } else {
        status = axon_mr_load_pages(s, AXON_ADMIN_CREATE_MR, m, 0, &pages,
                                    &peer);
        if (status != AXON_ADMIN_SUCCESS) {
            return status;
        }
    }
    mr = &r->mr[idx];
    mr->tag = axon_mr_new_tag(mr->tag);
    mr->valid = true;
    set_bit(idx, r->mr_valid);
    mr->invalidated = fast_reg;
    mr->fast_reg = fast_reg;
    mr->max_pages = fast_reg ? npages : 0;
    mr->mw_type = mw_type;
    mr->bound = false;
    mr->windows = 0;
    axon_mr_describe(mr, m, pages, peer);
    mr->npages = fast_reg ? 0 : npages;
    r->pbl_pages += npages;
    r->pd_users[pdn]++;
    *result = AXON_KEY(idx, mr->tag);
    trace_axon_nic_rdma_mr(idx, mr->tag, iova, length, access, peer);
    return AXON_ADMIN_SUCCESS;
}

/* A bound window lets go of its MR. */
void axon_mr_unbind(AxonNicState *s, AxonMr *mw)
{
    if (mw->bound) {
        s->rdma->mr[mw->parent].windows--;
        mw->bound = false;
    }
}

static void axon_mr_free(AxonNicState *s, AxonMr *mr)
{
    axon_mr_unbind(s, mr);
    s->rdma->pbl_pages -= mr->fast_reg ? mr->max_pages : mr->npages;
    s->rdma->pd_users[mr->pdn]--;
    g_free(mr->pages);
    mr->pages = NULL;
    mr->valid = false;
    clear_bit(mr - s->rdma->mr, s->rdma->mr_valid);
}

/*
 * The MR a DESTROY_MR, INVALIDATE_MR or REMAP_MR names, or NULL. The tag
 * of a window or fast-registration MR is whatever its consumer's last
 * binding or registration chose, which the driver may not see (a REG_MR
 * flushed, a bind in user space): its slot alone names it.
 */
static AxonMr *axon_mr_of_key(AxonNicState *s, uint32_t key)
{
    uint32_t idx = AXON_KEY_GET_INDEX(key);
    AxonMr *mr;

    if (idx == 0 || idx > AXON_RDMA_MAX_MR) {
        return NULL;
    }
    mr = &s->rdma->mr[idx];
    if (!mr->valid || (!mr->mw_type && !mr->fast_reg &&
                        mr->tag != AXON_KEY_GET_TAG(key))) {
        return NULL;
    }
    return mr;
}

uint16_t axon_mr_destroy(AxonNicState *s, const struct axon_admin_cmd *cmd,
                         uint64_t *result)
{
    const struct axon_admin_mr *m = &cmd->mr;
    AxonMr *mr;

    if (m->pdn || m->access || m->iova || m->length || m->pbl_addr ||
        m->npages || m->page_shift || m->levels || m->flags ||
        !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_nic_bad_cmd(AXON_ADMIN_DESTROY_MR, "reserved bytes set");
    }
    mr = axon_mr_of_key(s, le32_to_cpu(m->key));
    if (!mr) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (mr->windows) {
        return AXON_ADMIN_BUSY;         /* windows bound to it */
    }
    axon_mr_free(s, mr);
    return AXON_ADMIN_SUCCESS;
}

/*
 * From the completion on the device does not touch the MR's pages: the
 * engine runs in the main loop like this command and looks the key up
 * for every access (nothing holds a page mapping across iterations).
 */
uint16_t axon_mr_invalidate(AxonNicState *s, const struct axon_admin_cmd *cmd,
                            uint64_t *result)
{
    const struct axon_admin_mr *m = &cmd->mr;
    AxonMr *mr;

    if (m->pdn || m->access || m->iova || m->length || m->pbl_addr ||
        m->npages || m->page_shift || m->levels || m->flags ||
        !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_nic_bad_cmd(AXON_ADMIN_INVALIDATE_MR, "reserved bytes set");
    }
    mr = axon_mr_of_key(s, le32_to_cpu(m->key));
    if (!mr) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (mr->fast_reg || mr->mw_type) {
        return axon_nic_bad_cmd(AXON_ADMIN_INVALIDATE_MR,
                                "a fast-registration MR or a window");
    }
    mr->invalidated = true;
    trace_axon_nic_rdma_mr_invalidate(le32_to_cpu(m->key));
    return AXON_ADMIN_SUCCESS;
}

/* New pages for the same [iova, iova + length); the MR is valid again. */
uint16_t axon_mr_remap(AxonNicState *s, const struct axon_admin_cmd *cmd,
                       uint64_t *result)
{
    const struct axon_admin_mr *m = &cmd->mr;
    uint64_t *pages = NULL;
    uint16_t status;
    bool peer;
    AxonMr *mr;

    if (m->pdn || m->access || m->iova || m->length || m->flags ||
        !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_nic_bad_cmd(AXON_ADMIN_REMAP_MR, "reserved bytes set");
    }
    mr = axon_mr_of_key(s, le32_to_cpu(m->key));
    if (!mr) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (mr->fast_reg || mr->mw_type) {
        return axon_nic_bad_cmd(AXON_ADMIN_REMAP_MR,
                                "a fast-registration MR or a window");
    }
    status = axon_mr_check_pages(AXON_ADMIN_REMAP_MR, m, mr->iova,
                                 mr->length);
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    status = axon_mr_load_pages(s, AXON_ADMIN_REMAP_MR, m, mr->npages,
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

/*
 * Everything of the MR but its key, at once: the engine looks the key up
 * for every access, so none sees half of the old and half of the new.
 */
uint16_t axon_mr_rereg(AxonNicState *s, const struct axon_admin_cmd *cmd,
                       uint64_t *result)
{
    const struct axon_admin_mr *m = &cmd->mr;
    AxonRdma *r = s->rdma;
    uint32_t pdn = le32_to_cpu(m->pdn), access = le32_to_cpu(m->access);
    uint64_t iova = le64_to_cpu(m->iova), length = le64_to_cpu(m->length);
    uint64_t *pages = NULL;
    uint16_t status;
    bool peer;
    AxonMr *mr;

    if (m->flags || !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_nic_bad_cmd(AXON_ADMIN_REREG_MR, "reserved bytes set");
    }
    mr = axon_mr_of_key(s, le32_to_cpu(m->key));
    if (!mr || !axon_mr_pd_valid(s, pdn)) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (mr->fast_reg || mr->mw_type) {
        return axon_nic_bad_cmd(AXON_ADMIN_REREG_MR,
                                "a fast-registration MR or a window");
    }
    if (mr->windows) {
        return AXON_ADMIN_BUSY;
    }
    status = axon_mr_check_range(AXON_ADMIN_REREG_MR, access, iova, length);
    if (status == AXON_ADMIN_SUCCESS) {
        status = axon_mr_check_pages(AXON_ADMIN_REREG_MR, m, iova, length);
    }
    if (status == AXON_ADMIN_SUCCESS) {
        status = axon_mr_load_pages(s, AXON_ADMIN_REREG_MR, m, mr->npages,
                                    &pages, &peer);
    }
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    r->pbl_pages += le32_to_cpu(m->npages) - (uint64_t)mr->npages;
    r->pd_users[mr->pdn]--;
    r->pd_users[pdn]++;
    g_free(mr->pages);
    axon_mr_describe(mr, m, pages, peer);
    mr->npages = le32_to_cpu(m->npages);
    mr->invalidated = false;
    trace_axon_nic_rdma_mr_rereg(le32_to_cpu(m->key), pdn, iova, length,
                                 access);
    return AXON_ADMIN_SUCCESS;
}

/* ---- realize, reset ----------------------------------------------------- */

void axon_mr_realize(AxonNicState *s)
{
    AxonRdma *r = s->rdma;

    r->pd_table = bitmap_new(s->max_pd);
    r->pd_users = g_new0(uint32_t, s->max_pd);
    r->mr = g_new0(AxonMr, AXON_RDMA_MAX_MR + 1);
    r->mr_valid = bitmap_new(AXON_RDMA_MAX_MR + 1);
}

/* Every MR and PD is forgotten; the tags stay, so old keys stay stale. */
void axon_mr_reset(AxonNicState *s)
{
    AxonRdma *r = s->rdma;
    unsigned long i;

    /* by the bitmap: a reset of a mostly empty table is quick to fuzz */
    while ((i = find_first_bit(r->mr_valid, AXON_RDMA_MAX_MR + 1)) <=
           AXON_RDMA_MAX_MR) {
        axon_mr_free(s, &r->mr[i]);
    }
    bitmap_zero(r->pd_table, s->max_pd);
    memset(r->pd_users, 0, s->max_pd * sizeof(r->pd_users[0]));
    memset(r->gid_tbl, 0, sizeof(r->gid_tbl));
}

void axon_mr_exit(AxonNicState *s)
{
    AxonRdma *r = s->rdma;

    g_free(r->mr);
    g_free(r->mr_valid);
    g_free(r->pd_users);
    g_free(r->pd_table);
}
