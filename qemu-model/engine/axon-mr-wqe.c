/*
 * axon engine: what work requests do to memory (IBA 10.6.7, 10.8.5): fast
 * registration (REG_MR, LOCAL_INV, a SEND_INV's remote invalidation),
 * memory windows (BIND_MW), and the responder's rkey check that resolves
 * a window to its MR. The MR table and its admin commands are
 * axon-mr.c's.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-rdma.h"

/*
 * A responder's check of an rkey for qp: an MR's as axon_mr_check(), or
 * a bound window's (its PD, its QP if type 2, its range and rights), and
 * then its MR's, which is returned.
 */
AxonMr *axon_mr_check_remote(AxonEngine *eng, const AxonQp *qp, uint32_t key,
                             uint64_t va, uint64_t len, uint32_t access)
{
    AxonMr *mw = axon_mr_slot(eng, AXON_KEY_GET_INDEX(key)), *mr;

    if (!mw || !mw->mw_type) {
        return axon_mr_check(eng, key, qp->pdn, va, len, access);
    }
    if (!mw->bound || mw->tag != AXON_KEY_GET_TAG(key) ||
        mw->pdn != qp->pdn ||
        (mw->mw_type == 2 && mw->bound_qpn != qp->qpn) ||
        (mw->access & access) != access || va < mw->iova ||
        len > mw->length || va - mw->iova > mw->length - len) {
        axon_trace_err_rdma_key(eng->env, key, qp->pdn, va, len, access);
        return NULL;
    }
    mr = axon_mr_slot(eng, mw->parent);
    /* a window never outlives its MR's range; should it, refuse */
    if (va < mr->iova || va - mr->iova > mr->length - len ||
        len > mr->length) {
        axon_trace_err_rdma_key(eng->env, key, qp->pdn, va, len, access);
        return NULL;
    }
    if (mr->invalidated) {
        eng->stats.mr_invalid++;
        axon_trace_err_rdma_mr_invalid(eng->env, key, va, len);
        return NULL;
    }
    return mr;
}

/* The fast-registration MR of key's slot in the PD, whatever its tag. */
static AxonMr *axon_mr_fast_reg_slot(AxonEngine *eng, uint32_t pdn,
                                     uint32_t key)
{
    AxonMr *mr = axon_mr_slot(eng, AXON_KEY_GET_INDEX(key));

    return mr && mr->fast_reg && mr->pdn == pdn ? mr : NULL;
}

/*
 * REG_MR: the invalid fast-registration MR of key's slot in the PD gets
 * the registration and key; returns the WQE's completion status.
 */
uint8_t axon_mr_fast_reg(AxonEngine *eng, uint32_t pdn, uint32_t key,
                         uint64_t iova, const struct axon_reg_mr_seg *reg)
{
    AxonMr *mr = axon_mr_fast_reg_slot(eng, pdn, key);
    uint64_t length = le64_to_cpu(reg->length);
    uint64_t pbl = le64_to_cpu(reg->pbl_addr), psz;
    uint32_t npages = le32_to_cpu(reg->npages), need;
    bool peer;

    if (!mr || !mr->invalidated) {
        axon_trace_err_rdma_key(eng->env, key, pdn, iova, length, 0);
        return AXON_WC_LOC_PROT_ERR;
    }
    if (reg->page_shift < AXON_MR_MIN_PAGE_SHIFT ||
        reg->page_shift > AXON_MR_MAX_PAGE_SHIFT ||
        (reg->access & ~AXON_ACCESS_MR_ALL) ||
        ((reg->access & (AXON_ACCESS_REMOTE_WRITE |
                         AXON_ACCESS_REMOTE_ATOMIC)) &&
         !(reg->access & AXON_ACCESS_LOCAL_WRITE)) ||
        length > AXON_RDMA_MAX_MR_SIZE || iova + length < iova ||
        !buffer_is_zero(reg->reserved, sizeof(reg->reserved))) {
        return AXON_WC_LOC_QP_OP_ERR;
    }
    psz = 1ULL << reg->page_shift;
    need = length ? DIV_ROUND_UP((iova & (psz - 1)) + length, psz) : 0;
    if (npages != need || npages > mr->max_pages ||
        (npages && !IS_ALIGNED(pbl, 8)) ||
        (npages && !axon_env_dma_read(eng->env, pbl, mr->pages,
                                      (uint64_t)npages * 8)) ||
        !axon_mr_scan_pages(eng, mr->pages, npages, psz, &peer)) {
        return AXON_WC_LOC_QP_OP_ERR;
    }
    mr->tag = AXON_KEY_GET_TAG(key);
    mr->iova = iova;
    mr->length = length;
    mr->access = reg->access;
    mr->page_shift = reg->page_shift;
    mr->first_off = iova & (psz - 1);
    mr->npages = npages;
    mr->peer = peer;
    mr->invalidated = false;
    axon_trace_rdma_mr(eng->env, AXON_KEY_GET_INDEX(key), mr->tag, iova, length,
                       mr->access, peer);
    return AXON_WC_SUCCESS;
}

/*
 * LOCAL_INV, and a SEND_INV's remote invalidation: the fast-registration
 * MR of key (its current tag) in the PD is invalid from now on, or the
 * bound type 2 window of key unbound. An MR with windows bound stays
 * valid (as rxe's), the operation refused: a REG_MR could otherwise move
 * it under a window that still names its old range.
 */
bool axon_mr_local_inv(AxonEngine *eng, uint32_t pdn, uint32_t key)
{
    AxonMr *mw = axon_mr_slot(eng, AXON_KEY_GET_INDEX(key));
    AxonMr *mr = axon_mr_fast_reg_slot(eng, pdn, key);

    if (mw && mw->mw_type == 2 && mw->bound && mw->pdn == pdn &&
        mw->tag == AXON_KEY_GET_TAG(key)) {
        axon_mr_unbind(eng, mw);
        axon_trace_rdma_mr_invalidate(eng->env, key);
        return true;
    }
    if (!mr || mr->tag != AXON_KEY_GET_TAG(key)) {
        axon_trace_err_rdma_key(eng->env, key, pdn, 0, 0, 0);
        return false;
    }
    if (mr->windows) {
        axon_trace_err_rdma_mr_windows(eng->env, key, mr->windows);
        return false;
    }
    mr->invalidated = true;
    axon_trace_rdma_mr_invalidate(eng->env, key);
    return true;
}

/*
 * BIND_MW: the window of key's slot in qp's PD gets [addr, addr + length)
 * of an MR of the PD that allows windows, and key; returns the WQE's
 * completion status (see "Memory windows" in axon_io_defs.h).
 */
uint8_t axon_mr_bind_mw(AxonEngine *eng, const AxonQp *qp, uint32_t key,
                        uint64_t addr, const struct axon_bind_mw_seg *bind)
{
    uint32_t mr_key = le32_to_cpu(bind->mr_key);
    uint32_t mr_idx = AXON_KEY_GET_INDEX(mr_key);
    uint64_t length = le64_to_cpu(bind->length);
    AxonMr *mw = axon_mr_slot(eng, AXON_KEY_GET_INDEX(key));
    AxonMr *mr = axon_mr_slot(eng, mr_idx);

    if (!mw || !buffer_is_zero(bind->reserved, sizeof(bind->reserved)) ||
        (bind->access & ~(AXON_ACCESS_REMOTE_WRITE | AXON_ACCESS_REMOTE_READ |
                          AXON_ACCESS_REMOTE_ATOMIC))) {
        return AXON_WC_MW_BIND_ERR;
    }
    if (mw->mw_type == 1 && mw->pdn == qp->pdn && !length) {
        /* unbound, under a new key: no MR, no range */
        axon_mr_unbind(eng, mw);
        mw->tag = AXON_KEY_GET_TAG(key);
        return AXON_WC_SUCCESS;
    }
    if (!mw->mw_type || mw->pdn != qp->pdn ||
        (mw->mw_type == 2 && mw->bound) ||
        !mr || mr->mw_type ||
        mr->tag != AXON_KEY_GET_TAG(mr_key) ||
        mr->pdn != qp->pdn || mr->invalidated ||
        !(mr->access & AXON_ACCESS_MW_BIND) ||
        ((bind->access & (AXON_ACCESS_REMOTE_WRITE |
                          AXON_ACCESS_REMOTE_ATOMIC)) &&
         !(mr->access & AXON_ACCESS_LOCAL_WRITE)) ||
        addr < mr->iova || length > mr->length ||
        addr - mr->iova > mr->length - length) {
        axon_trace_err_rdma_key(eng->env, key, qp->pdn, addr, length,
                                bind->access);
        return AXON_WC_MW_BIND_ERR;
    }
    axon_mr_unbind(eng, mw);
    mw->tag = AXON_KEY_GET_TAG(key);
    mw->parent = mr_idx;
    mw->iova = addr;
    mw->length = length;
    mw->access = bind->access;
    mw->bound_qpn = qp->qpn;
    mw->bound = true;
    eng->mw_bound++;
    mr->windows++;
    return AXON_WC_SUCCESS;
}

/*
 * A QP is destroyed: the type 2 windows bound to it are unbound. Only
 * with windows bound are the MRs looked at: a reset destroys every QP.
 */
void axon_mr_qp_destroyed(AxonEngine *eng, uint32_t qpn)
{
    uint32_t i = 0;
    AxonMr *mw;

    while (eng->mw_bound && (mw = axon_table_next(&eng->mrs, &i)) != NULL) {
        if (mw->mw_type == 2 && mw->bound && mw->bound_qpn == qpn) {
            axon_mr_unbind(eng, mw);
        }
        i++;
    }
}
