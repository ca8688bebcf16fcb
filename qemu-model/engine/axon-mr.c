/*
 * axon engine: protection domains, memory regions and keys
 *
 * The engine reaches host memory only through here: a key names an MR
 * of the QP's PD with the rights asked for, the range lies inside it, and
 * the bytes are moved through the page list the device copied when the
 * MR was created (CREATE_MR; REMAP_MR for peer MRs whose pages moved).
 * Keys are drawn at random (Documentation/wire-security.rst).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-rdma.h"

/* ---- protection domains ------------------------------------------------ */

bool axon_mr_pd_valid(AxonEngine *eng, uint32_t pdn)
{
    return pdn < eng->conf.max_pd && test_bit(pdn, eng->pd_table);
}

/* MRs and QPs still in the PD */
static bool axon_mr_pd_busy(AxonEngine *eng, uint32_t pdn)
{
    return pdn < eng->conf.max_pd && eng->pd_users[pdn];
}

uint16_t axon_mr_create_pd(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                           uint64_t *result)
{
    unsigned long pdn;

    if (!buffer_is_zero(cmd->raw, sizeof(cmd->raw))) {
        return AXON_ADMIN_BAD_PARAM;
    }
    pdn = find_first_zero_bit(eng->pd_table, eng->conf.max_pd);
    if (pdn >= eng->conf.max_pd) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    set_bit(pdn, eng->pd_table);
    *result = pdn;
    return AXON_ADMIN_SUCCESS;
}

uint16_t axon_mr_destroy_pd(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                            uint64_t *result)
{
    const struct axon_admin_pd *p = &cmd->pd;
    uint32_t pdn = le32_to_cpu(p->pdn);

    if (!buffer_is_zero(p->reserved, sizeof(p->reserved))) {
        return AXON_ADMIN_BAD_PARAM;
    }
    if (pdn >= eng->conf.max_pd || !test_bit(pdn, eng->pd_table)) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (axon_mr_pd_busy(eng, pdn)) {
        return AXON_ADMIN_BUSY;
    }
    clear_bit(pdn, eng->pd_table);
    return AXON_ADMIN_SUCCESS;
}

/* ---- memory access through keys ----------------------------------------- */

/*
 * A key names a valid MR of the PD with the rights asked for, and
 * [va, va + len) lies inside it. Local read needs no right. An
 * invalidated MR's pages may belong to someone else by now: every access
 * is refused, as if out of bounds.
 */
AxonMr *axon_mr_check(AxonEngine *eng, uint32_t key, uint32_t pdn,
                      uint64_t va, uint64_t len, uint32_t access)
{
    AxonMr *mr = axon_mr_slot(eng, AXON_KEY_GET_INDEX(key));

    if (!mr || mr->mw_type) {
        /* a window's key names remote access only, never an lkey */
        axon_trace_err_rdma_key(eng->env, key, pdn, va, len, access);
        return NULL;
    }
    if (mr->tag == AXON_KEY_GET_TAG(key) && mr->invalidated) {
        eng->stats.mr_invalid++;
        axon_trace_err_rdma_mr_invalid(eng->env, key, va, len);
        return NULL;
    }
    if (mr->tag != AXON_KEY_GET_TAG(key) || mr->pdn != pdn ||
        (mr->access & access) != access || va < mr->iova ||
        len > mr->length || va - mr->iova > mr->length - len) {
        axon_trace_err_rdma_key(eng->env, key, pdn, va, len, access);
        return NULL;
    }
    return mr;
}

/* Copies between buf and one run of host memory. */
static bool axon_mr_dma(AxonEngine *eng, uint64_t addr, uint8_t *buf,
                        uint64_t len, AxonDmaDir dir)
{
    if (dir == AXON_DMA_TO_DEVICE) {
        return axon_env_dma_read(eng->env, addr, buf, len);
    }
    return axon_env_dma_write(eng->env, addr, buf, len);
}

/* Payload bytes the engine moved from (TO_DEVICE) or to a peer MR. */
static void axon_mr_count_peer(AxonEngine *eng, AxonDmaDir dir,
                               uint64_t len)
{
    if (dir == AXON_DMA_TO_DEVICE) {
        eng->stats.peer_rd += len;
    } else {
        eng->stats.peer_wr += len;
    }
    axon_trace_rdma_peer_dma(eng->env, dir == AXON_DMA_FROM_DEVICE, len);
}

/*
 * Copies len bytes at va of a checked MR to (AXON_DMA_TO_DEVICE) or
 * from buf, one run of physically contiguous pages at a time.
 */
bool axon_mr_rw(AxonEngine *eng, AxonMr *mr, uint64_t va, void *buf,
                uint32_t len, AxonDmaDir dir)
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
            axon_trace_err_rdma_dma(eng->env, va, len);
            return false;
        }
        /* an on-demand paging MR's page may be absent: never guess it */
        if (!axon_mr_page_ok(mr, pg, dir == AXON_DMA_FROM_DEVICE)) {
            axon_trace_err_rdma_dma(eng->env, va, len);
            return false;
        }
        addr = axon_mr_page(mr, pg) + poff;
        while (run < len && pg + 1 < mr->npages &&
               mr->pages[pg + 1] == mr->pages[pg] + psz) {
            run += psz;
            pg++;
        }
        run = MIN(run, len);
        if (!axon_mr_dma(eng, addr, p, run, dir)) {
            axon_trace_err_rdma_dma(eng->env, addr, run);
            return false;
        }
        if (mr->peer) {
            axon_mr_count_peer(eng, dir, run);
        }
        p += run;
        off += run;
        len -= run;
    }
    return true;
}

/* An 8-byte aligned atomic on host memory; *orig gets the old value. */
bool axon_mr_atomic(AxonEngine *eng, AxonMr *mr, uint64_t va,
                    bool cas, uint64_t cmp_add, uint64_t swap,
                    uint64_t *orig)
{
    uint64_t off = va - mr->iova + mr->first_off;
    uint64_t addr;

    if ((off >> mr->page_shift) >= mr->npages ||
        !axon_mr_page_ok(mr, off >> mr->page_shift, true)) {
        return false;
    }
    addr = axon_mr_page(mr, off >> mr->page_shift) +
           (off & ((1ULL << mr->page_shift) - 1));
    if (!axon_env_dma_atomic(eng->env, addr, cas, cmp_add, swap, orig)) {
        return false;
    }
    if (mr->peer) {
        axon_mr_count_peer(eng, AXON_DMA_TO_DEVICE, 8);
        axon_mr_count_peer(eng, AXON_DMA_FROM_DEVICE, 8);
    }
    return true;
}

/* Moves len bytes at message offset off between buf and a WQE's SGEs. */
bool axon_mr_sge_rw(AxonEngine *eng, uint32_t pdn, const AxonSge *sge,
                    unsigned nsge, uint32_t off, uint8_t *buf, uint32_t len,
                    AxonDmaDir dir)
{
    uint32_t access = dir == AXON_DMA_FROM_DEVICE ?
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
        mr = axon_mr_check(eng, sge[i].lkey, pdn, sge[i].addr + off, n,
                           access);
        if (!mr || !axon_mr_rw(eng, mr, sge[i].addr + off, buf, n, dir)) {
            return false;
        }
        buf += n;
        len -= n;
        off = 0;
    }
    return !len;
}

/* ---- admin: memory regions ---------------------------------------------- */

/* The pages of a 2-level page list, from its leaves (little endian). */
static uint16_t axon_mr_read_leaves(AxonEngine *eng, uint16_t opcode,
                                    const uint64_t *leaf, uint32_t nleaf,
                                    uint32_t npages, uint64_t *pages)
{
    uint32_t i;

    for (i = 0; i < nleaf; i++) {
        uint64_t addr = le64_to_cpu(leaf[i]);
        uint32_t n = MIN(npages - i * AXON_PBL_LEAF_ENTRIES,
                         AXON_PBL_LEAF_ENTRIES);

        if (!IS_ALIGNED(addr, 4096)) {
            return axon_engine_bad_cmd(eng, opcode, "leaf not 4K aligned");
        }
        if (!axon_env_dma_read(eng->env, addr,
                               pages + i * AXON_PBL_LEAF_ENTRIES,
                               (uint64_t)n * 8)) {
            return AXON_ADMIN_DMA_ERROR;
        }
    }
    return AXON_ADMIN_SUCCESS;
}

/* Reads a 1- or 2-level page list (of a new MR or CQ ring) into pages. */
uint16_t axon_mr_read_pbl(AxonEngine *eng, uint16_t opcode, uint64_t pbl,
                          uint8_t levels, uint32_t npages, uint64_t *pages)
{
    uint32_t nleaf = DIV_ROUND_UP(npages, AXON_PBL_LEAF_ENTRIES);
    uint64_t *leaf;
    uint16_t status;

    if (levels == 1) {
        return axon_env_dma_read(eng->env, pbl, pages, (uint64_t)npages * 8) ?
               AXON_ADMIN_SUCCESS : AXON_ADMIN_DMA_ERROR;
    }
    leaf = axon_new0(uint64_t, nleaf);
    if (!leaf) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    if (axon_env_dma_read(eng->env, pbl, leaf, (uint64_t)nleaf * 8)) {
        status = axon_mr_read_leaves(eng, opcode, leaf, nleaf, npages, pages);
    } else {
        status = AXON_ADMIN_DMA_ERROR;
    }
    free(leaf);
    return status;
}

/*
 * The page list fields of CREATE_MR and REMAP_MR, for an MR spanning
 * [iova, iova + length): the list must cover exactly that range.
 */
static uint16_t axon_mr_check_pages(AxonEngine *eng, uint16_t opcode,
                                    const struct axon_admin_mr *m,
                                    uint64_t iova, uint64_t length)
{
    uint32_t npages = le32_to_cpu(m->npages), need;
    uint64_t pbl = le64_to_cpu(m->pbl_addr), psz;

    if (m->page_shift < AXON_MR_MIN_PAGE_SHIFT ||
        m->page_shift > AXON_MR_MAX_PAGE_SHIFT ||
        (m->levels != 1 && m->levels != 2)) {
        return axon_engine_bad_cmd(eng, opcode, "bad page_shift or levels");
    }
    psz = 1ULL << m->page_shift;
    need = length ? DIV_ROUND_UP((iova & (psz - 1)) + length, psz) : 0;
    if (npages != need || npages > AXON_MR_MAX_PAGES) {
        return axon_engine_bad_cmd(eng, opcode, "npages does not match");
    }
    if (npages && (!pbl || !IS_ALIGNED(pbl, 8))) {
        return axon_engine_bad_cmd(eng, opcode, "bad page list address");
    }
    return AXON_ADMIN_SUCCESS;
}

/* An ODP MR's CREATE_MR: pages as any MR's, no list (they come later). */
static uint16_t axon_mr_check_odp(AxonEngine *eng,
                                  const struct axon_admin_mr *m,
                                  uint64_t iova, uint64_t length)
{
    uint32_t npages = le32_to_cpu(m->npages);
    uint64_t psz = 1ULL << m->page_shift;

    if (m->page_shift < AXON_MR_MIN_PAGE_SHIFT ||
        m->page_shift > AXON_MR_MAX_PAGE_SHIFT || m->levels || m->pbl_addr ||
        !length || npages > AXON_MR_MAX_PAGES ||
        npages != DIV_ROUND_UP((iova & (psz - 1)) + length, psz)) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_CREATE_MR,
                                   "bad on-demand paging MR");
    }
    return AXON_ADMIN_SUCCESS;
}

/*
 * Converts a page list read from the guest to host order and checks each
 * page's alignment; *peer: is any page a peer's memory?
 */
bool axon_mr_scan_pages(AxonEngine *eng, uint64_t *p, uint32_t npages,
                        uint64_t psz, bool *peer)
{
    uint64_t run_lo = 0, run_hi = 0;
    uint32_t i;

    *peer = false;
    for (i = 0; i < npages; i++) {
        p[i] = le64_to_cpu(p[i]);
        if (!IS_ALIGNED(p[i], psz)) {
            return false;
        }
        /* guest RAM is one run: translate only where a new one starts */
        if (!*peer && (p[i] < run_lo || p[i] >= run_hi)) {
            run_lo = p[i];
            *peer = axon_env_dma_is_peer(eng->env, p[i], &run_hi);
        }
    }
    return true;
}

/*
 * Reads a checked page list into *pages, replacing held entries of the
 * page list budget, and finds out whether any page is a peer's memory.
 */
static uint16_t axon_mr_load_pages(AxonEngine *eng, uint16_t opcode,
                                   const struct axon_admin_mr *m,
                                   uint32_t held, uint64_t **pages,
                                   bool *peer)
{
    uint32_t npages = le32_to_cpu(m->npages);
    uint64_t *p = NULL;
    uint16_t status = AXON_ADMIN_SUCCESS;

    *peer = false;
    if (eng->pbl_pages - held + npages > AXON_RDMA_MAX_PBL_PAGES) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    if (npages) {
        p = axon_new0(uint64_t, npages);
        if (!p) {
            return AXON_ADMIN_NO_RESOURCES;
        }
        status = axon_mr_read_pbl(eng, opcode, le64_to_cpu(m->pbl_addr),
                                  m->levels, npages, p);
    }
    if (status == AXON_ADMIN_SUCCESS &&
        !axon_mr_scan_pages(eng, p, npages, 1ULL << m->page_shift, peer)) {
        status = axon_engine_bad_cmd(eng, opcode, "page address not aligned");
    }
    if (status != AXON_ADMIN_SUCCESS) {
        free(p);
        return status;
    }
    *pages = p;
    return AXON_ADMIN_SUCCESS;
}

/* The access bits and range of a CREATE_MR or REREG_MR. */
static uint16_t axon_mr_check_range(AxonEngine *eng, uint16_t opcode,
                                    uint32_t access,
                                    uint64_t iova, uint64_t length)
{
    if (access & ~AXON_ACCESS_MR_ALL ||
        ((access & (AXON_ACCESS_REMOTE_WRITE | AXON_ACCESS_REMOTE_ATOMIC)) &&
         !(access & AXON_ACCESS_LOCAL_WRITE))) {
        return axon_engine_bad_cmd(eng, opcode, "bad access bits");
    }
    if (length > AXON_RDMA_MAX_MR_SIZE || iova + length < iova) {
        return axon_engine_bad_cmd(eng, opcode, "bad length");
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
static uint8_t axon_mr_new_tag(AxonEngine *eng, uint8_t last)
{
    uint8_t tag;

    do {
        axon_env_random(eng->env, &tag, sizeof(tag));
    } while (tag == last);
    return tag;
}

uint16_t axon_mr_create(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                        uint64_t *result)
{
    const struct axon_admin_mr *m = &cmd->mr;
    uint32_t pdn = le32_to_cpu(m->pdn), access = le32_to_cpu(m->access);
    uint32_t npages = le32_to_cpu(m->npages), idx = 0, n, start;
    uint64_t iova = le64_to_cpu(m->iova), length = le64_to_cpu(m->length);
    uint64_t *pages = NULL;
    uint16_t status;
    bool peer;
    AxonMr *mr;

    uint16_t flags = le16_to_cpu(m->flags);
    bool fast_reg = flags == AXON_MR_FAST_REG;
    bool odp = flags == AXON_MR_ODP;
    uint8_t mw_type = flags == AXON_MR_MW_TYPE1 ? 1 :
                      flags == AXON_MR_MW_TYPE2 ? 2 : 0;

    if ((flags && !fast_reg && !mw_type && !odp) || m->key ||
        !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_CREATE_MR,
                                   "reserved bytes set");
    }
    if (!axon_mr_pd_valid(eng, pdn)) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (mw_type && (access || iova || length || m->pbl_addr || npages ||
                    m->page_shift || m->levels)) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_CREATE_MR,
                                   "bad memory window");
    }
    if (fast_reg &&
        (access || iova || length || m->pbl_addr || m->page_shift ||
         m->levels || !npages || npages > AXON_FAST_REG_MAX_PAGES)) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_CREATE_MR,
                                   "bad fast-registration MR");
    }
    status = axon_mr_check_range(eng, AXON_ADMIN_CREATE_MR, access, iova,
                                 length);
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    if (odp) {
        status = axon_mr_check_odp(eng, m, iova, length);
    } else if (!fast_reg && !mw_type) {
        status = axon_mr_check_pages(eng, AXON_ADMIN_CREATE_MR, m, iova,
                                     length);
    }
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    /*
     * Keys are not to be guessed from one another (a forged frame needs
     * one): the slot is the first free one from a random point, the tag
     * random and never the slot's last.
     */
    if (eng->mrs.count >= AXON_RDMA_MAX_MR) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    axon_env_random(eng->env, &start, sizeof(start));
    for (n = 0; n < AXON_RDMA_MAX_MR; n++) {
        idx = (start + n) % AXON_RDMA_MAX_MR + 1;
        if (!axon_mr_slot(eng, idx)) {
            break;
        }
    }
    if (mw_type) {
        peer = false;
    } else if (fast_reg || odp) {
        /*
         * The capacity is held from now on; the pages come with REG_MR
         * or MAP_PAGES, absent (0) until then.
         */
        if (eng->pbl_pages + npages > AXON_RDMA_MAX_PBL_PAGES) {
            return AXON_ADMIN_NO_RESOURCES;
        }
        pages = axon_new0(uint64_t, npages);
        if (!pages) {
            return AXON_ADMIN_NO_RESOURCES;
        }
        peer = false;
    } else {
        status = axon_mr_load_pages(eng, AXON_ADMIN_CREATE_MR, m, 0, &pages,
                                    &peer);
        if (status != AXON_ADMIN_SUCCESS) {
            return status;
        }
    }
    mr = axon_new0(AxonMr, 1);
    if (!mr || !axon_table_set(&eng->mrs, idx, mr)) {
        free(mr);
        free(pages);
        return AXON_ADMIN_NO_RESOURCES;
    }
    mr->idx = idx;
    mr->tag = axon_mr_new_tag(eng, eng->mr_tag[idx]);
    mr->invalidated = fast_reg;
    mr->fast_reg = fast_reg;
    mr->max_pages = fast_reg ? npages : 0;
    mr->mw_type = mw_type;
    mr->odp = odp;
    axon_mr_describe(mr, m, pages, peer);
    mr->npages = fast_reg ? 0 : npages;
    eng->pbl_pages += npages;
    eng->pd_users[pdn]++;
    *result = AXON_KEY(idx, mr->tag);
    axon_trace_rdma_mr(eng->env, idx, mr->tag, iova, length, access, peer);
    return AXON_ADMIN_SUCCESS;
}

/* The MR or window of key slot idx, NULL for none. */
AxonMr *axon_mr_slot(AxonEngine *eng, uint32_t idx)
{
    return axon_table_get(&eng->mrs, idx);
}

/* A bound window lets go of its MR. */
void axon_mr_unbind(AxonEngine *eng, AxonMr *mw)
{
    if (mw->bound) {
        AxonMr *mr = axon_mr_slot(eng, mw->parent);

        if (mr) {               /* a reset may have freed it first */
            mr->windows--;
        }
        mw->bound = false;
        eng->mw_bound--;
    }
}

/* The slot's tag is kept, so that no key of the MR names its successor. */
static void axon_mr_free(AxonEngine *eng, AxonMr *mr)
{
    axon_mr_unbind(eng, mr);
    eng->pbl_pages -= mr->fast_reg ? mr->max_pages : mr->npages;
    eng->pd_users[mr->pdn]--;
    eng->mr_tag[mr->idx] = mr->tag;
    axon_table_set(&eng->mrs, mr->idx, NULL);
    free(mr->pages);
    free(mr);
}

/*
 * The MR a DESTROY_MR, INVALIDATE_MR or REMAP_MR names, or NULL. The tag
 * of a window or fast-registration MR is whatever its consumer's last
 * binding or registration chose, which the driver may not see (a REG_MR
 * flushed, a bind in user space): its slot alone names it.
 */
AxonMr *axon_mr_of_key(AxonEngine *eng, uint32_t key)
{
    AxonMr *mr = axon_mr_slot(eng, AXON_KEY_GET_INDEX(key));

    if (!mr || (!mr->mw_type && !mr->fast_reg &&
                mr->tag != AXON_KEY_GET_TAG(key))) {
        return NULL;
    }
    return mr;
}

uint16_t axon_mr_destroy(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                         uint64_t *result)
{
    const struct axon_admin_mr *m = &cmd->mr;
    AxonMr *mr;

    if (m->pdn || m->access || m->iova || m->length || m->pbl_addr ||
        m->npages || m->page_shift || m->levels || m->flags ||
        !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_DESTROY_MR,
                                   "reserved bytes set");
    }
    mr = axon_mr_of_key(eng, le32_to_cpu(m->key));
    if (!mr) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (mr->windows) {
        return AXON_ADMIN_BUSY;         /* windows bound to it */
    }
    axon_mr_free(eng, mr);
    return AXON_ADMIN_SUCCESS;
}

/*
 * From the completion on the device does not touch the MR's pages: the
 * engine runs in the main loop like this command and looks the key up
 * for every access (nothing holds a page mapping across iterations).
 */
uint16_t axon_mr_invalidate(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                            uint64_t *result)
{
    const struct axon_admin_mr *m = &cmd->mr;
    AxonMr *mr;

    if (m->pdn || m->access || m->iova || m->length || m->pbl_addr ||
        m->npages || m->page_shift || m->levels || m->flags ||
        !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_INVALIDATE_MR,
                                   "reserved bytes set");
    }
    mr = axon_mr_of_key(eng, le32_to_cpu(m->key));
    if (!mr) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (mr->fast_reg || mr->mw_type || mr->odp) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_INVALIDATE_MR,
                                   "a fast-registration, ODP MR or a window");
    }
    mr->invalidated = true;
    axon_trace_rdma_mr_invalidate(eng->env, le32_to_cpu(m->key));
    return AXON_ADMIN_SUCCESS;
}

/* New pages for the same [iova, iova + length); the MR is valid again. */
uint16_t axon_mr_remap(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                       uint64_t *result)
{
    const struct axon_admin_mr *m = &cmd->mr;
    uint64_t *pages = NULL;
    uint16_t status;
    bool peer;
    AxonMr *mr;

    if (m->pdn || m->access || m->iova || m->length || m->flags ||
        !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_REMAP_MR,
                                   "reserved bytes set");
    }
    mr = axon_mr_of_key(eng, le32_to_cpu(m->key));
    if (!mr) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (mr->fast_reg || mr->mw_type || mr->odp) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_REMAP_MR,
                                   "a fast-registration, ODP MR or a window");
    }
    status = axon_mr_check_pages(eng, AXON_ADMIN_REMAP_MR, m, mr->iova,
                                 mr->length);
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    status = axon_mr_load_pages(eng, AXON_ADMIN_REMAP_MR, m, mr->npages,
                                &pages, &peer);
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    eng->pbl_pages += le32_to_cpu(m->npages) - (uint64_t)mr->npages;
    free(mr->pages);
    mr->pages = pages;
    mr->npages = le32_to_cpu(m->npages);
    mr->page_shift = m->page_shift;
    mr->first_off = mr->iova & ((1ULL << m->page_shift) - 1);
    mr->peer = peer;
    mr->invalidated = false;
    axon_trace_rdma_mr_remap(eng->env, le32_to_cpu(m->key), mr->npages, peer);
    return AXON_ADMIN_SUCCESS;
}

/*
 * Everything of the MR but its key, at once: the engine looks the key up
 * for every access, so none sees half of the old and half of the new.
 */
uint16_t axon_mr_rereg(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                       uint64_t *result)
{
    const struct axon_admin_mr *m = &cmd->mr;
    uint32_t pdn = le32_to_cpu(m->pdn), access = le32_to_cpu(m->access);
    uint64_t iova = le64_to_cpu(m->iova), length = le64_to_cpu(m->length);
    uint64_t *pages = NULL;
    uint16_t status;
    bool peer;
    AxonMr *mr;

    if (m->flags || !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_REREG_MR,
                                   "reserved bytes set");
    }
    mr = axon_mr_of_key(eng, le32_to_cpu(m->key));
    if (!mr || !axon_mr_pd_valid(eng, pdn)) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (mr->fast_reg || mr->mw_type || mr->odp) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_REREG_MR,
                                   "a fast-registration, ODP MR or a window");
    }
    if (mr->windows) {
        return AXON_ADMIN_BUSY;
    }
    status = axon_mr_check_range(eng, AXON_ADMIN_REREG_MR, access, iova,
                                 length);
    if (status == AXON_ADMIN_SUCCESS) {
        status = axon_mr_check_pages(eng, AXON_ADMIN_REREG_MR, m, iova, length);
    }
    if (status == AXON_ADMIN_SUCCESS) {
        status = axon_mr_load_pages(eng, AXON_ADMIN_REREG_MR, m, mr->npages,
                                    &pages, &peer);
    }
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    eng->pbl_pages += le32_to_cpu(m->npages) - (uint64_t)mr->npages;
    eng->pd_users[mr->pdn]--;
    eng->pd_users[pdn]++;
    free(mr->pages);
    axon_mr_describe(mr, m, pages, peer);
    mr->npages = le32_to_cpu(m->npages);
    mr->invalidated = false;
    axon_trace_rdma_mr_rereg(eng->env, le32_to_cpu(m->key), pdn, iova, length,
                             access);
    return AXON_ADMIN_SUCCESS;
}

/* ---- realize, reset ----------------------------------------------------- */

/* false: out of memory (axon_mr_exit() frees what was made) */
bool axon_mr_realize(AxonEngine *eng)
{
    eng->pd_table = bitmap_new(eng->conf.max_pd);
    eng->pd_users = axon_new0(uint32_t, eng->conf.max_pd);
    eng->mr_tag = axon_new0(uint8_t, AXON_RDMA_MAX_MR + 1);
    axon_table_init(&eng->mrs, AXON_RDMA_MAX_MR + 1);
    return eng->pd_table && eng->pd_users && eng->mr_tag;
}

/* Every MR and PD is forgotten; the tags stay, so old keys stay stale. */
void axon_mr_reset(AxonEngine *eng)
{
    uint32_t i = 0;
    AxonMr *mr;

    /* by the table: a reset of a mostly empty one is quick to fuzz */
    while ((mr = axon_table_next(&eng->mrs, &i)) != NULL) {
        axon_mr_free(eng, mr);
    }
    bitmap_zero(eng->pd_table, eng->conf.max_pd);
    memset(eng->pd_users, 0, eng->conf.max_pd * sizeof(eng->pd_users[0]));
    memset(eng->gid_tbl, 0, sizeof(eng->gid_tbl));
}

void axon_mr_exit(AxonEngine *eng)
{
    axon_table_free(&eng->mrs);
    free(eng->mr_tag);
    free(eng->pd_users);
    free(eng->pd_table);
}
