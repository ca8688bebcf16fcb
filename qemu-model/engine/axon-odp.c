/*
 * axon engine: on-demand paging (AXON_CAP_ODP)
 *
 * An ODP MR's pages come and go while it lives: MAP_PAGES gives some,
 * UNMAP_PAGES takes them back when the host's memory manager moves them.
 * A QP that needs an absent page waits for it: one AXON_EVENT_PAGE_FAULT
 * asks the driver, and until RESUME_QP the QP's requester sends nothing
 * and its responder turns requests away (an RNR NAK, or a drop that the
 * requester's retry covers). The transport asks axon_odp_wait() before it
 * touches an MR; axon_mr_rw() refuses an absent page whatever the caller
 * did, so one that did not ask fails the access as out of bounds.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce.h"

/* Pages [pg, last] of mr, or the first AXON_FAULT_MAX_PAGES of them. */
static bool axon_odp_fault(AxonEngine *eng, AxonQp *qp, const AxonMr *mr,
                           uint64_t pg, uint64_t last)
{
    uint32_t count = MIN(last - pg + 1, AXON_FAULT_MAX_PAGES);
    uint32_t key = AXON_KEY(mr->idx, mr->tag);

    switch (qp->odp) {
    case AXON_QP_ODP_WAITING:
        eng->stats.odp_waits++;
        return true;
    case AXON_QP_ODP_FAILED:
        return false;           /* the access fails, as out of bounds */
    }
    eng->stats.odp_faults++;
    axon_trace_rdma_odp_fault(eng->env, qp->qpn, key, pg, count);
    if (!axon_env_page_fault(eng->env, qp->qpn,
                             AXON_FAULT(key, (uint32_t)pg, count))) {
        /* nobody will answer: fail rather than wait for ever */
        qp->odp = AXON_QP_ODP_FAILED;
        return false;
    }
    qp->odp = AXON_QP_ODP_WAITING;
    eng->stats.odp_waits++;
    return true;
}

/*
 * The first page of [va, va + len) of mr (a checked range) the device may
 * not touch (for a write, if write) in *pg, the range's last in *last;
 * false if there is none.
 */
static bool axon_odp_missing(const AxonMr *mr, uint64_t va, uint64_t len,
                             bool write, uint64_t *pg, uint64_t *last)
{
    uint64_t off;

    if (!mr->odp || !len) {
        return false;
    }
    off = va - mr->iova + mr->first_off;
    *pg = off >> mr->page_shift;
    *last = (off + len - 1) >> mr->page_shift;
    if (*last >= mr->npages) {
        return false;           /* out of bounds: the access fails */
    }
    while (*pg <= *last && axon_mr_page_ok(mr, *pg, write)) {
        (*pg)++;
    }
    return *pg <= *last;
}

/*
 * Must qp wait before it touches [va, va + len) of mr (a checked range)?
 * true: a page is absent (or read only, for a write); the fault is asked
 * for, once, and the caller holds the packet back. false with a page
 * still missing (axon_odp_present() says so): the QP's fault failed.
 */
bool axon_odp_wait(AxonEngine *eng, AxonQp *qp, const AxonMr *mr,
                   uint64_t va, uint64_t len, bool write)
{
    uint64_t pg, last;

    return axon_odp_missing(mr, va, len, write, &pg, &last) &&
           axon_odp_fault(eng, qp, mr, pg, last);
}

/* May the device touch all of [va, va + len) of mr (a checked range)? */
bool axon_odp_present(const AxonMr *mr, uint64_t va, uint64_t len,
                      bool write)
{
    uint64_t pg, last;

    return !axon_odp_missing(mr, va, len, write, &pg, &last);
}

/*
 * As axon_odp_wait(), for bytes [off, off + len) of a WQE's SGEs. Only
 * an lkey that names an ODP MR of the PD around its range is looked at:
 * any other SGE is judged by the access itself.
 */
bool axon_odp_sge_wait(AxonEngine *eng, AxonQp *qp, uint32_t pdn,
                       const AxonSge *sge, unsigned nsge, uint32_t off,
                       uint32_t len, bool write)
{
    unsigned i;

    for (i = 0; i < nsge && len; i++) {
        uint64_t va = sge[i].addr + off;
        uint32_t n;
        AxonMr *mr;

        if (off >= sge[i].length) {
            off -= sge[i].length;
            continue;
        }
        n = MIN(sge[i].length - off, len);
        mr = axon_mr_slot(eng, AXON_KEY_GET_INDEX(sge[i].lkey));
        if (mr && mr->odp && mr->tag == AXON_KEY_GET_TAG(sge[i].lkey) &&
            mr->pdn == pdn && va >= mr->iova && n <= mr->length &&
            va - mr->iova <= mr->length - n &&
            axon_odp_wait(eng, qp, mr, va, n, write)) {
            return true;
        }
        len -= n;
        off = 0;
    }
    return false;
}

/* ---- admin -------------------------------------------------------------- */

/* The ODP MR and its pages [first, first + npages) a command names. */
static uint16_t axon_odp_range(AxonEngine *eng, uint16_t opcode,
                               const struct axon_admin_odp *o, AxonMr **mrp)
{
    uint32_t first = le32_to_cpu(o->first), npages = le32_to_cpu(o->npages);
    AxonMr *mr;

    if (o->qpn || o->status ||
        !buffer_is_zero(o->reserved, sizeof(o->reserved))) {
        return axon_engine_bad_cmd(eng, opcode, "reserved bytes set");
    }
    mr = axon_mr_of_key(eng, le32_to_cpu(o->key));
    if (!mr) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (!mr->odp) {
        return axon_engine_bad_cmd(eng, opcode, "not an ODP MR");
    }
    if (!npages || first >= mr->npages || npages > mr->npages - first) {
        return axon_engine_bad_cmd(eng, opcode, "pages past the MR");
    }
    *mrp = mr;
    return AXON_ADMIN_SUCCESS;
}

uint16_t axon_odp_map(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                      uint64_t *result)
{
    const struct axon_admin_odp *o = &cmd->odp;
    uint32_t first = le32_to_cpu(o->first), npages = le32_to_cpu(o->npages);
    uint64_t pbl = le64_to_cpu(o->pbl_addr), low, *p;
    uint16_t status;
    AxonMr *mr;
    uint32_t i;

    status = axon_odp_range(eng, AXON_ADMIN_MAP_PAGES, o, &mr);
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    if ((o->levels != 1 && o->levels != 2) || !pbl || !IS_ALIGNED(pbl, 8)) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_MAP_PAGES,
                                   "bad page list address or levels");
    }
    p = axon_new0(uint64_t, npages);
    if (!p) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    status = axon_mr_read_pbl(eng, AXON_ADMIN_MAP_PAGES, pbl, o->levels,
                              npages, p);
    low = (1ULL << mr->page_shift) - 1;
    for (i = 0; status == AXON_ADMIN_SUCCESS && i < npages; i++) {
        p[i] = le64_to_cpu(p[i]);
        if (p[i] && (!(p[i] & AXON_ODP_PAGE_PRESENT) ||
                     (p[i] & low & ~(uint64_t)(AXON_ODP_PAGE_PRESENT |
                                               AXON_ODP_PAGE_WRITE)))) {
            status = axon_engine_bad_cmd(eng, AXON_ADMIN_MAP_PAGES,
                                         "bad page entry");
        }
    }
    if (status == AXON_ADMIN_SUCCESS) {
        memcpy(mr->pages + first, p, (size_t)npages * sizeof(*p));
        axon_trace_rdma_odp_pages(eng->env, le32_to_cpu(o->key), first,
                                  npages, 1);
    }
    free(p);
    return status;
}

/*
 * From the completion on the device does not touch the pages: the
 * transport runs in the thread of this command and reads an MR's page
 * list for every access.
 */
uint16_t axon_odp_unmap(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                        uint64_t *result)
{
    const struct axon_admin_odp *o = &cmd->odp;
    uint32_t first = le32_to_cpu(o->first), npages = le32_to_cpu(o->npages);
    uint16_t status;
    AxonMr *mr;

    status = axon_odp_range(eng, AXON_ADMIN_UNMAP_PAGES, o, &mr);
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    if (o->levels || o->pbl_addr) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_UNMAP_PAGES,
                                   "reserved bytes set");
    }
    memset(mr->pages + first, 0, (size_t)npages * sizeof(*mr->pages));
    axon_trace_rdma_odp_pages(eng->env, le32_to_cpu(o->key), first, npages,
                              0);
    return AXON_ADMIN_SUCCESS;
}

uint16_t axon_odp_resume(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                         uint64_t *result)
{
    const struct axon_admin_odp *o = &cmd->odp;
    AxonQp *qp;

    if (o->key || o->first || o->npages || o->pbl_addr || o->levels ||
        o->status > AXON_ODP_RESUME_FAILED ||
        !buffer_is_zero(o->reserved, sizeof(o->reserved))) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_RESUME_QP,
                                   "reserved bytes set");
    }
    qp = axon_qp_lookup(eng, le32_to_cpu(o->qpn));
    if (!qp) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (qp->odp != AXON_QP_ODP_WAITING) {
        return AXON_ADMIN_SUCCESS;
    }
    qp->odp = o->status == AXON_ODP_RESUME_OK ? AXON_QP_ODP_IDLE :
              AXON_QP_ODP_FAILED;
    axon_trace_rdma_odp_resume(eng->env, qp->qpn, o->status);
    if (qp->state == AXON_QPS_RTR || qp->state == AXON_QPS_RTS) {
        axon_roce_schedule(eng, qp);
    }
    return AXON_ADMIN_SUCCESS;
}
