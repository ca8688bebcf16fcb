/*
 * axon engine: the RC requester (rxe_req.c)
 *
 * Takes send WQEs from the SQ into the QP's window (a send doorbell for
 * its first packets, then the engine bottom half), checks them, and
 * segments them at the path MTU into packets: at most a window of PSNs
 * in flight, READs asked a wire window at a time (in loopback too), at
 * most max_rd_atomic READ requests and atomics outstanding, fences
 * honoured. Retransmission (go-back-N) only moves the cursor back:
 * axon-roce-comp.c does it.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce.h"

static uint32_t axon_roce_window(AxonQp *qp)
{
    return qp->loopback ? AXON_PSN_MASK / 2 : axon_roce_wire_pkts(qp);
}

/*
 * An RC, XRC initiator's or UC WQE's header: the opcodes (UC: no READ, no
 * atomics, no SEND_INV), flags and fields they define (XRC: the target's
 * SRQ); REG_MR's registration is the MR layer's to check.
 */
static bool axon_rc_check_wqe(const AxonQp *qp, const struct axon_send_wqe *w)
{
    bool uc = qp->type == AXON_QPT_UC;
    uint32_t srqn = le32_to_cpu(w->xrc_srqn);

    if (w->opcode > AXON_WR_BIND_MW || w->reserved0 ||
        (uc && (axon_wr_rd_atomic(w->opcode) ||
                w->opcode == AXON_WR_SEND_INV)) ||
        (w->flags & ~(AXON_WQE_SIGNALED | AXON_WQE_SOLICITED |
                      AXON_WQE_FENCE | AXON_WQE_INLINE))) {
        return false;
    }
    if (axon_wr_local(w->opcode) &&
        (w->num_sge || (w->flags & AXON_WQE_INLINE))) {
        return false;
    }
    if (w->opcode == AXON_WR_REG_MR || w->opcode == AXON_WR_BIND_MW) {
        return true;
    }
    return buffer_is_zero(w->reserved, sizeof(w->reserved)) &&
           (qp->type == AXON_QPT_XRC_INI ? srqn <= AXON_QPN_MASK : !srqn);
}

/*
 * A UD WQE's header (see "Datagrams" in axon_io_defs.h); fills e's
 * destination. false: a malformed WQE.
 */
static bool axon_ud_check_wqe(AxonEngine *eng, AxonQp *qp,
                              const struct axon_send_wqe *w, AxonSwqe *e)
{
    const struct axon_ud_av *av = &w->av;
    uint32_t qkey = le32_to_cpu(w->qkey);
    const AxonGid *sgid;
    bool v4;

    if ((w->opcode != AXON_WR_SEND && w->opcode != AXON_WR_SEND_IMM) ||
        w->reserved0 || w->rkey ||
        (w->flags & ~(AXON_WQE_SIGNALED | AXON_WQE_SOLICITED |
                      AXON_WQE_INLINE)) ||
        le32_to_cpu(w->remote_qpn) > AXON_QPN_MASK ||
        (av->flags & ~AXON_AV_IPV4) ||
        (av->dmac[0] & 1) != axon_gid_is_mcast(av->dgid) ||
        le32_to_cpu(av->flow_label) > AXON_FLOW_LABEL_MASK ||
        av->sgid_index >= AXON_ENGINE_GID_TBL_LEN) {
        return false;
    }
    sgid = axon_gid_get(eng, av->sgid_index);
    v4 = av->flags & AXON_AV_IPV4;
    if (sgid->type == AXON_GID_TYPE_NONE || axon_gid_is_v4(sgid->gid) != v4 ||
        axon_gid_is_v4(av->dgid) != v4) {
        return false;
    }
    e->ud.dqpn = le32_to_cpu(w->remote_qpn);
    /* a privileged Q_Key in the WQE means "the QP's own" (IBA 10.2.5) */
    e->ud.qkey = qkey & AXON_UD_PRIVILEGED_QKEY ? le32_to_cpu(qp->attr.qkey) :
                 qkey;
    e->ud.av = *av;
    e->ud.loopback = axon_roce_dest_is_local(eng, av->dmac, av->dgid);
    return true;
}

/*
 * Takes the next WQE from the SQ into the window and checks it (RC and
 * UD alike); a bad one is done, failed.
 */
void axon_roce_fetch(AxonEngine *eng, AxonQp *qp)
{
    uint16_t idx = qp->req.sq_fetch++;
    AxonSwqe *e = axon_win(qp, idx);
    uint64_t addr = qp->sq.base +
                    ((uint64_t)(idx & (qp->sq.depth - 1)) << qp->sq.shift);
    uint32_t slot = 1u << qp->sq.shift, access = 0, i, inl;
    struct axon_send_wqe w;
    uint64_t len = 0;

    memset(e, 0, sizeof(*e));
    e->idx = idx;
    e->first_psn = e->resp_psn = qp->req.cur_psn;
    if (!axon_env_dma_read(eng->env, addr, &w, sizeof(w))) {
        axon_roce_fail(qp, e, AXON_WC_LOC_QP_OP_ERR);
        return;
    }
    e->opcode = w.opcode;
    e->flags = w.flags;
    e->num_sge = w.num_sge;
    e->imm = w.imm_data;
    e->wr_id = le64_to_cpu(w.wr_id);
    e->raddr = le64_to_cpu(w.remote_addr);
    e->rkey = le32_to_cpu(w.rkey);
    e->cmp = le64_to_cpu(w.compare_add);
    e->swap = le64_to_cpu(w.swap);
    e->xrc_srqn = le32_to_cpu(w.xrc_srqn);
    e->signaled = (w.flags & AXON_WQE_SIGNALED) || qp->sig_all;
    inl = le32_to_cpu(w.inline_len);
    if (w.opcode == AXON_WR_REG_MR) {
        e->reg = w.reg;
    } else if (w.opcode == AXON_WR_BIND_MW) {
        e->bind = w.bind;
    }

    if (qp->type == AXON_QPT_UD ? !axon_ud_check_wqe(eng, qp, &w, e) :
        !axon_rc_check_wqe(qp, &w)) {
        goto bad_wqe;
    }
    if (w.flags & AXON_WQE_INLINE) {
        if (w.num_sge || axon_wr_rd_atomic(w.opcode) ||
            inl > AXON_MAX_INLINE || sizeof(w) + inl > slot) {
            goto bad_wqe;
        }
        if (!axon_env_dma_read(eng->env, addr + sizeof(w), e->inline_data,
                               inl)) {
            goto bad_wqe;
        }
        len = inl;
    } else {
        struct axon_sge sge[AXON_MAX_SGE];

        if (inl || w.num_sge > AXON_MAX_SGE ||
            sizeof(w) + w.num_sge * sizeof(sge[0]) > slot ||
            !axon_env_dma_read(eng->env, addr + sizeof(w), sge,
                               w.num_sge * sizeof(sge[0]))) {
            goto bad_wqe;
        }
        if (axon_wr_rd_atomic(w.opcode)) {
            access = AXON_ACCESS_LOCAL_WRITE;
        }
        for (i = 0; i < w.num_sge; i++) {
            e->sge[i].addr = le64_to_cpu(sge[i].addr);
            e->sge[i].length = le32_to_cpu(sge[i].length);
            e->sge[i].lkey = le32_to_cpu(sge[i].lkey);
            len += e->sge[i].length;
            if (e->sge[i].length &&
                !axon_mr_check(eng, e->sge[i].lkey, qp->pdn,
                               e->sge[i].addr, e->sge[i].length,
                               access)) {
                axon_roce_fail(qp, e, AXON_WC_LOC_PROT_ERR);
                return;
            }
        }
    }
    if (len > AXON_MAX_MSG_SIZE ||
        (axon_wr_atomic(w.opcode) && len != 8)) {
        e->len = 0;
        axon_roce_fail(qp, e, AXON_WC_LOC_LEN_ERR);
        return;
    }
    e->len = len;
    if (axon_wr_local(w.opcode)) {
        e->npkts = 0;                   /* sends nothing */
    } else if (axon_wr_atomic(w.opcode)) {
        e->npkts = 1;
    } else {
        e->npkts = len ? DIV_ROUND_UP(len, qp->mtu) : 1;
    }
    return;

bad_wqe:
    axon_env_guest_error(eng->env, "QP %u: bad send WQE %u\n",
                         qp->qpn, idx);
    axon_trace_err_roce_wqe(eng->env, qp->qpn, idx, w.opcode, w.num_sge);
    axon_roce_fail(qp, e, AXON_WC_LOC_QP_OP_ERR);
}

/*
 * Does the packet at cur_psn ask for an ACK inside a message? Every half
 * window does: were only a message's last packet to ask, a message longer
 * than the window would stall until the retransmit timer fired.
 */
static bool axon_roce_ack_point(AxonQp *qp)
{
    uint32_t half = MAX(axon_roce_window(qp) / 2, 1);

    return axon_psn_add(qp->req.cur_psn, 1) % half == 0;
}

/*
 * Responses a READ request asks for at most: a long READ is asked a wire
 * window at a time (its parts, each a request of its own with its own
 * PSNs), in loopback too, so that no request of ours asks a responder for
 * more than that (Documentation/wire-security.rst, "READs in bursts").
 */
static uint32_t axon_roce_read_part_pkts(const AxonQp *qp)
{
    return axon_roce_wire_pkts(qp);
}

/*
 * The PSNs of the READ request e sends at the cursor: the rest of its
 * part. Asked again from a lost response on, only to the end of that
 * part: the responder answers a duplicate only inside a request it saved.
 */
static uint32_t axon_roce_read_part(AxonQp *qp, AxonSwqe *e)
{
    uint32_t k = axon_psn_diff(qp->req.cur_psn, e->first_psn);
    uint32_t w = axon_roce_read_part_pkts(qp);

    return MIN(e->npkts - k, w - k % w);
}

/* Would the next packet of e put too many PSNs in flight? */
static bool axon_roce_window_full(AxonQp *qp, AxonSwqe *e)
{
    uint32_t n = 1;

    if (axon_psn_diff(qp->req.psn_hi, qp->comp.una_psn) <= 0 ||
        axon_psn_diff(qp->req.cur_psn, qp->req.psn_hi) < 0) {
        return false;   /* nothing in flight, or a retransmission */
    }
    if (e->opcode == AXON_WR_RDMA_READ) {
        n = axon_roce_read_part(qp, e);
    }
    return axon_psn_diff(axon_psn_add(qp->req.cur_psn, n), qp->comp.una_psn) >
           (int32_t)axon_roce_window(qp);
}

/*
 * READ requests (parts of READ WQEs) and atomics sent before the cursor
 * and not answered yet: each holds one of the responder's resources
 * (max_dest_rd_atomic) until its last response has come.
 */
static unsigned axon_roce_rd_outstanding(AxonQp *qp)
{
    uint32_t p = axon_roce_read_part_pkts(qp);
    unsigned n = 0;
    uint16_t i;

    for (i = qp->comp.sq_comp; i != qp->req.sq_fetch; i++) {
        AxonSwqe *e = axon_win(qp, i);
        uint32_t from, to;

        if (!e->done && axon_swqe_rd_atomic(e)) {
            from = axon_psn_diff(e->resp_psn, e->first_psn);
            to = i == qp->req.cur ?
                 (uint32_t)axon_psn_diff(qp->req.cur_psn, e->first_psn) :
                 e->npkts;
            if (to > from) {
                n += e->opcode == AXON_WR_RDMA_READ ?
                     DIV_ROUND_UP(to, p) - from / p : 1;
            }
        }
        if (i == qp->req.cur) {
            break;
        }
    }
    return n;
}

static const uint8_t axon_send_ops[2][2][2] = {
    /* [first][last][imm] */
    { { IB_SEND_MIDDLE, IB_SEND_MIDDLE }, { IB_SEND_LAST, IB_SEND_LAST_IMM } },
    { { IB_SEND_FIRST, IB_SEND_FIRST }, { IB_SEND_ONLY, IB_SEND_ONLY_IMM } },
};

static const uint8_t axon_write_ops[2][2][2] = {
    { { IB_WRITE_MIDDLE, IB_WRITE_MIDDLE },
      { IB_WRITE_LAST, IB_WRITE_LAST_IMM } },
    { { IB_WRITE_FIRST, IB_WRITE_FIRST },
      { IB_WRITE_ONLY, IB_WRITE_ONLY_IMM } },
};

/*
 * Must the QP wait for pages of an on-demand paging MR before the next
 * packet of e (axon-odp.c)? A SEND or WRITE packet reads its bytes; the
 * answers to a READ or an atomic will be written to the rest of its SGEs.
 */
bool axon_roce_pages_wait(AxonEngine *eng, AxonQp *qp, const AxonSwqe *e)
{
    uint32_t off = qp->req.cur_off;

    if ((e->flags & AXON_WQE_INLINE) || off >= e->len) {
        return false;
    }
    if (axon_swqe_rd_atomic(e)) {
        return axon_odp_sge_wait(eng, qp, qp->pdn, e->sge, e->num_sge, off,
                                 e->len - off, true);
    }
    return axon_odp_sge_wait(eng, qp, qp->pdn, e->sge, e->num_sge, off,
                             MIN(qp->mtu, e->len - off), false);
}

/*
 * Builds the next packet of e at the QP's cursor and moves the cursor.
 * Returns false if the payload could not be gathered.
 */
bool axon_roce_build(AxonEngine *eng, AxonQp *qp, AxonSwqe *e, AxonPkt *pkt)
{
    uint32_t off = qp->req.cur_off, n;
    bool first, last, imm;

    memset(pkt, 0, sizeof(*pkt));
    pkt->dqpn = le32_to_cpu(qp->attr.dest_qpn);
    pkt->xrc_srqn = e->xrc_srqn;
    pkt->psn = qp->req.cur_psn;
    pkt->ackreq = true;
    switch (e->opcode) {
    case AXON_WR_RDMA_READ:
        n = axon_roce_read_part(qp, e);
        pkt->opcode = IB_READ_REQ;
        pkt->va = e->raddr + off;
        pkt->rkey = e->rkey;
        pkt->dmalen = MIN(e->len - off, n * qp->mtu);
        qp->req.cur_psn = axon_psn_add(qp->req.cur_psn, n);
        qp->req.cur_off = off + n * qp->mtu;
        if (qp->req.cur_off >= e->len) {
            qp->req.cur++;
            qp->req.cur_off = 0;
        }
        return true;
    case AXON_WR_ATOMIC_CMP_SWP:
    case AXON_WR_ATOMIC_FETCH_ADD:
        pkt->opcode = e->opcode == AXON_WR_ATOMIC_CMP_SWP ? IB_CMP_SWP :
                      IB_FETCH_ADD;
        pkt->va = e->raddr;
        pkt->rkey = e->rkey;
        pkt->swap_add = e->opcode == AXON_WR_ATOMIC_CMP_SWP ? e->swap : e->cmp;
        pkt->cmp = e->cmp;
        qp->req.cur_psn = axon_psn_add(qp->req.cur_psn, 1);
        qp->req.cur++;
        qp->req.cur_off = 0;
        return true;
    }
    n = MIN(qp->mtu, e->len - off);
    first = !off;
    last = off + n == e->len;
    imm = e->opcode == AXON_WR_RDMA_WRITE_IMM || e->opcode == AXON_WR_SEND_IMM;
    if (e->opcode <= AXON_WR_RDMA_WRITE_IMM) {
        pkt->opcode = axon_write_ops[first][last][imm];
        if (first) {
            pkt->va = e->raddr;
            pkt->rkey = e->rkey;
            pkt->dmalen = e->len;
        }
    } else if (e->opcode == AXON_WR_SEND_INV && last) {
        pkt->opcode = first ? IB_SEND_ONLY_INV : IB_SEND_LAST_INV;
        pkt->rkey = e->rkey;
    } else {
        pkt->opcode = axon_send_ops[first][last][imm];
    }
    pkt->imm = e->imm;
    pkt->se = last && (e->flags & AXON_WQE_SOLICITED) &&
              e->opcode != AXON_WR_RDMA_WRITE;
    pkt->ackreq = last || axon_roce_ack_point(qp);
    pkt->len = n;
    if (e->flags & AXON_WQE_INLINE) {
        pkt->payload = e->inline_data + off;
    } else {
        if (!axon_mr_sge_rw(eng, qp->pdn, e->sge, e->num_sge, off, eng->txbuf,
                            n, AXON_DMA_TO_DEVICE)) {
            return false;
        }
        pkt->payload = eng->txbuf;
    }
    qp->req.cur_psn = axon_psn_add(qp->req.cur_psn, 1);
    qp->req.cur_off = off + n;
    if (last) {
        qp->req.cur++;
        qp->req.cur_off = 0;
    }
    return true;
}

/*
 * REG_MR, LOCAL_INV and BIND_MW take effect here, in SQ order (a fence
 * honoured before them), and are done at once; false for any other WQE.
 */
bool axon_roce_local_op(AxonEngine *eng, AxonQp *qp, AxonSwqe *e)
{
    uint8_t status;

    switch (e->opcode) {
    case AXON_WR_REG_MR:
        status = axon_mr_fast_reg(eng, qp->pdn, e->rkey, e->raddr, &e->reg);
        break;
    case AXON_WR_LOCAL_INV:
        status = axon_mr_local_inv(eng, qp->pdn, e->rkey) ? AXON_WC_SUCCESS :
                 AXON_WC_LOC_PROT_ERR;
        break;
    case AXON_WR_BIND_MW:
        status = axon_mr_bind_mw(eng, qp, e->rkey, e->raddr, &e->bind);
        break;
    default:
        return false;
    }
    if (status != AXON_WC_SUCCESS) {
        axon_roce_fail(qp, e, status);
    } else {
        e->done = true;
        e->status = status;
    }
    return true;
}

/* Sends up to budget packets; returns how many. */
unsigned axon_roce_req_run(AxonEngine *eng, AxonQp *qp,
                           unsigned budget)
{
    unsigned sent = 0;
    unsigned max_rd = MAX(qp->attr.max_rd_atomic, 1);

    while (sent < budget && qp->state == AXON_QPS_RTS && !qp->comp.rnr_wait) {
        AxonSwqe *e;
        AxonPkt pkt;

        if (qp->req.cur == qp->req.sq_fetch) {
            if (qp->req.sq_stopped || qp->req.sq_fetch == qp->sq.pi ||
                axon_win_full(qp)) {
                break;
            }
            axon_roce_fetch(eng, qp);
        }
        e = axon_win(qp, qp->req.cur);
        if (e->done) {
            /* failed locally, or answered meanwhile; completes in order */
            axon_roce_skip(qp, e);
            axon_roce_complete(eng, qp);
            continue;
        }
        /* a new READ request or atomic (not one sent again) */
        if (axon_swqe_rd_atomic(e) &&
            axon_psn_diff(qp->req.cur_psn, qp->req.psn_hi) >= 0 &&
            axon_roce_rd_outstanding(qp) >= max_rd) {
            break;
        }
        if (!qp->req.cur_off && (e->flags & AXON_WQE_FENCE) &&
            axon_roce_rd_outstanding(qp)) {
            break;
        }
        if (axon_roce_local_op(eng, qp, e)) {
            axon_roce_complete(eng, qp);
            continue;
        }
        if (axon_roce_window_full(qp, e) || axon_roce_pages_wait(eng, qp, e)) {
            break;
        }
        if (!axon_roce_build(eng, qp, e, &pkt)) {
            axon_roce_fail(qp, e, AXON_WC_LOC_PROT_ERR);
            axon_roce_complete(eng, qp);
            continue;
        }
        if (axon_psn_diff(pkt.psn, qp->req.psn_hi) < 0) {
            eng->stats.retrans++;
            qp->stats.retrans++;
        }
        if (axon_psn_diff(qp->req.cur_psn, qp->req.psn_hi) > 0) {
            qp->req.psn_hi = qp->req.cur_psn;
        }
        axon_roce_arm_retry(qp, false);
        axon_roce_xmit(eng, qp, &pkt);
        sent++;
    }
    return sent;
}
