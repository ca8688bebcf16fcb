/*
 * axon engine: queue pairs and their state machine
 *
 * The admin commands that create, modify, query and destroy QPs, and the
 * async QP events. Every field of every command is checked and reserved
 * bytes must be zero. The transport (axon-roce.h) is told when a QP
 * reaches RTR, RTS or ERR, and calls back only through the CQE writer
 * (axon-cq.c), the QP events and axon_qp_error().
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce.h"

AXON_BUILD_BUG_ON(sizeof(struct axon_qp_attr) != 80);
AXON_BUILD_BUG_ON(sizeof(struct axon_qp_live) != 168);
AXON_BUILD_BUG_ON(sizeof(struct axon_send_wqe) != 64);
AXON_BUILD_BUG_ON(sizeof(struct axon_recv_wqe) != 16);
AXON_BUILD_BUG_ON(sizeof(struct axon_admin_create_qp) != 56);

/* ---- admin: queue pairs and their state machine -------------------------- */

/* A work queue is aligned to its WQE size: no WQE straddles two pages. */
static bool axon_qp_check_wq(uint64_t base, uint32_t depth, uint8_t shift,
                             uint8_t min_shift)
{
    return base && depth >= AXON_WQ_MIN_DEPTH && depth <= AXON_WQ_MAX_DEPTH &&
           is_power_of_2(depth) && shift >= min_shift &&
           shift <= AXON_WQE_MAX_SHIFT && IS_ALIGNED(base, 1ULL << shift) &&
           base + ((uint64_t)depth << shift) > base;
}

/* What axon_qp_create() allocated. */
static void axon_qp_unmake(AxonQp *qp)
{
    axon_env_timer_free(qp->comp.retry_timer);
    axon_cc_qp_free(qp);
    axon_rud_qp_free(qp);
    free(qp->req.win);
    free(qp);
}

uint16_t axon_qp_create(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                        uint64_t *result)
{
    const struct axon_admin_create_qp *c = &cmd->create_qp;
    uint32_t pdn = le32_to_cpu(c->pdn), uar = le32_to_cpu(c->uar);
    uint16_t sq_depth = le16_to_cpu(c->sq_depth);
    uint16_t rq_depth = le16_to_cpu(c->rq_depth);
    AxonCq *scq = axon_cq_lookup(eng, le32_to_cpu(c->send_cqn));
    AxonCq *rcq = axon_cq_lookup(eng, le32_to_cpu(c->recv_cqn));
    uint32_t srqn = le32_to_cpu(c->srqn);
    AxonSrq *srq = axon_srq_lookup(eng, srqn);
    uint32_t i = 0, n;
    AxonQp *qp;

    if (!buffer_is_zero(c->reserved, sizeof(c->reserved))) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_CREATE_QP,
                                   "reserved bytes set");
    }
    /* the record follows the ring, which must not wrap around with it */
    if (c->flags & ~AXON_QP_SQ_DBREC ||
        (c->flags && (!sq_depth || c->sq_wqe_shift > AXON_WQE_MAX_SHIFT ||
                      le64_to_cpu(c->sq_addr) + ((uint64_t)sq_depth <<
                      c->sq_wqe_shift) + sizeof(struct axon_sq_dbrec) <
                      le64_to_cpu(c->sq_addr)))) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_CREATE_QP,
                                   "bad flags");
    }
    if (c->type > AXON_QPT_XRC_TGT ||
        (c->type == AXON_QPT_XRC_TGT) != !!c->xrcdn) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_CREATE_QP,
                                   "bad type or XRC domain");
    }
    if (c->type == AXON_QPT_XRC_TGT) {
        /* no queue, CQ or PD: its requests name the SRQ that has them */
        if (pdn || c->send_cqn || c->recv_cqn || srqn || c->sq_addr ||
            c->rq_addr || sq_depth || rq_depth || c->sq_wqe_shift ||
            c->rq_wqe_shift || c->sq_sig_all || uar >= AXON_RDMA_DB_PAGES) {
            return axon_engine_bad_cmd(eng, AXON_ADMIN_CREATE_QP,
                                       "an XRC target with a queue");
        }
    } else if (!axon_mr_pd_valid(eng, pdn) || !scq ||
               (c->type == AXON_QPT_XRC_INI ? c->recv_cqn || srqn :
                !rcq || (srqn && !srq))) {
        return AXON_ADMIN_BAD_HANDLE;
    } else if (uar >= AXON_RDMA_DB_PAGES || c->sq_sig_all > 1 ||
               !axon_qp_check_wq(le64_to_cpu(c->sq_addr), sq_depth,
                                 c->sq_wqe_shift, AXON_SQ_MIN_WQE_SHIFT) ||
               (srq || c->type == AXON_QPT_XRC_INI ?
                c->rq_addr || rq_depth || c->rq_wqe_shift :
                !axon_qp_check_wq(le64_to_cpu(c->rq_addr), rq_depth,
                                  c->rq_wqe_shift, AXON_RQ_MIN_WQE_SHIFT))) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_CREATE_QP,
                                   "bad queue or uar");
    }
    if (c->type == AXON_QPT_GSI) {
        if (axon_qp_lookup(eng, AXON_GSI_QPN)) {
            return AXON_ADMIN_NO_RESOURCES;
        }
        i = AXON_GSI_QPN;
    } else {
        /* next fit: a QPN just destroyed is not handed out again at once */
        for (n = 0; n < AXON_RDMA_MAX_QP; n++) {
            i = AXON_RDMA_FIRST_QPN + (eng->qp_last + n) % AXON_RDMA_MAX_QP;
            if (!axon_qp_lookup(eng, i)) {
                break;
            }
        }
        if (n == AXON_RDMA_MAX_QP) {
            return AXON_ADMIN_NO_RESOURCES;
        }
        eng->qp_last = i - AXON_RDMA_FIRST_QPN + 1;
    }
    qp = axon_new0(AxonQp, 1);
    if (!qp) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    qp->qpn = i;
    qp->state = AXON_QPS_RESET;
    /* the GSI QP is a UD QP in all but its number */
    qp->type = c->type == AXON_QPT_GSI ? AXON_QPT_UD : c->type;
    qp->pdn = pdn;
    qp->uar = uar;
    qp->xrcdn = le32_to_cpu(c->xrcdn);
    qp->scq = scq;
    qp->rcq = c->type == AXON_QPT_XRC_INI ? NULL : rcq;
    qp->sig_all = c->sq_sig_all;
    qp->sq_dbrec = c->flags & AXON_QP_SQ_DBREC;
    qp->sq.base = le64_to_cpu(c->sq_addr);
    qp->sq.depth = sq_depth;
    qp->sq.shift = c->sq_wqe_shift;
    qp->rq.base = le64_to_cpu(c->rq_addr);
    qp->rq.depth = rq_depth;
    qp->rq.shift = c->rq_wqe_shift;
    qp->srq = srq;
    /*
     * A QP cannot have more WQEs outstanding than its SQ holds; two at
     * least, as UC tells its last packet gone by the next WQE's entry.
     */
    qp->req.win_size = MIN(MAX(sq_depth, 2), AXON_RDMA_WINDOW);
    qp->req.win = axon_new0(AxonSwqe, qp->req.win_size);
    if (!axon_roce_qp_init(eng, qp) || !qp->req.win ||
        !axon_table_set(&eng->qps, i, qp)) {
        axon_qp_unmake(qp);
        return AXON_ADMIN_NO_RESOURCES;
    }
    if (c->type != AXON_QPT_XRC_TGT) {
        scq->users++;
        eng->pd_users[pdn]++;
    }
    if (qp->rcq) {
        qp->rcq->users++;
    }
    if (srq) {
        srq->users++;
    }
    *result = qp->qpn;
    axon_trace_rdma_qp(eng->env, qp->qpn, sq_depth, rq_depth, uar);
    return AXON_ADMIN_SUCCESS;
}

/* Forget all queue state, as a move to RESET does. */
static void axon_qp_forget(AxonEngine *eng, AxonQp *qp)
{
    axon_roce_qp_stop(eng, qp);
    axon_sq_poll_stop(eng, qp, true);
    qp->sq.pi = qp->sq.ci = 0;
    qp->rq.pi = qp->rq.ci = 0;
    qp->comp.sq_comp = qp->req.sq_fetch = qp->req.cur = 0;
    qp->req.sq_stopped = false;
    qp->resp.recv_active = false;
    qp->comm_est = false;
    qp->odp = AXON_QP_ODP_IDLE;
    memset(qp->resp.res, 0, sizeof(qp->resp.res));
    memset(qp->req.win, 0, sizeof(*qp->req.win) * qp->req.win_size);
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
static const char *axon_qp_check_attr(AxonEngine *eng,
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
    if ((mask & AXON_QP_ATTR_CUR_STATE) ? a->cur_state > AXON_QPS_ERR :
                                          a->cur_state != 0) {
        return "bad cur_state";
    }
    if ((mask & AXON_QP_ATTR_ACCESS) &&
        le32_to_cpu(a->access) & ~AXON_ACCESS_ALL) {
        return "bad access";
    }
    if ((mask & AXON_QP_ATTR_PATH) &&
        (a->sgid_index >= AXON_ENGINE_GID_TBL_LEN ||
         axon_gid_get(eng, a->sgid_index)->type == AXON_GID_TYPE_NONE ||
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

uint16_t axon_qp_modify(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                        uint64_t *result)
{
    const struct axon_admin_modify_qp *m = &cmd->qp;
    uint32_t mask = le32_to_cpu(m->attr_mask);
    struct axon_qp_attr a;
    uint32_t cur, new, expect_cur;
    const char *why;
    AxonQp *qp;

    if (!buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_MODIFY_QP,
                                   "reserved bytes set");
    }
    qp = axon_qp_lookup(eng, le32_to_cpu(m->qpn));
    if (!qp) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (!axon_env_dma_read(eng->env, le64_to_cpu(m->attr_addr), &a,
                           sizeof(a))) {
        return AXON_ADMIN_DMA_ERROR;
    }
    why = axon_qp_check_attr(eng, &a, mask);
    /* a condition on the command, not an attribute: any type takes it */
    expect_cur = mask & AXON_QP_ATTR_CUR_STATE;
    mask &= ~AXON_QP_ATTR_CUR_STATE;
    if ((mask & ~axon_qp_type_attrs(qp)) ||
        (qp->type == AXON_QPT_UC && (mask & AXON_QP_ATTR_ACCESS) &&
         (le32_to_cpu(a.access) & ~AXON_ACCESS_REMOTE_WRITE))) {
        why = "attribute of another QP type";
    }
    if (why) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_MODIFY_QP, why);
    }
    cur = qp->state;
    new = mask & AXON_QP_ATTR_STATE ? le32_to_cpu(a.state) : cur;
    if (expect_cur && a.cur_state != cur) {
        /* the device moved the QP since the driver last did: it asks */
        axon_trace_err_rdma_qp_state(eng->env, qp->qpn, a.cur_state, new,
                                     mask | AXON_QP_ATTR_CUR_STATE);
        return AXON_ADMIN_BAD_STATE;
    }
    if (!axon_qp_transition_ok(qp, cur, new, mask)) {
        axon_env_guest_error(eng->env, "QP %u: transition %u -> %u "
                             "(mask 0x%x) not allowed\n", qp->qpn, cur, new,
                             mask);
        axon_trace_err_rdma_qp_state(eng->env, qp->qpn, cur, new, mask);
        return AXON_ADMIN_BAD_STATE;
    }
    axon_qp_apply_attr(&qp->attr, &a, mask);
    /* kept by the transport alone: QUERY_QP never shows it */
    if (mask & AXON_QP_ATTR_PEER_KEY) {
        axon_rud_set_peer_key(qp, (uint64_t)le32_to_cpu(a.peer_key_hi) << 32 |
                                  le32_to_cpu(a.peer_key_lo));
    }
    axon_trace_rdma_qp_state(eng->env, qp->qpn, cur, new);
    if (new == AXON_QPS_RESET || new == AXON_QPS_ERR) {
        axon_roce_ack_owed(eng, qp);
    }
    if (new == AXON_QPS_RESET) {
        qp->state = new;
        axon_qp_forget(eng, qp);
        if (qp->rud) {
            axon_rud_forget(qp);
        }
    } else if (new == AXON_QPS_ERR) {
        axon_qp_error(eng, qp);
    } else {
        qp->state = new;
        if (cur == AXON_QPS_RESET && qp->rud) {
            /* a new key each time the QP is connected: its owner's alone */
            *result = axon_rud_open(qp);
        }
        if (cur == AXON_QPS_INIT && new == AXON_QPS_RTR) {
            axon_roce_qp_rtr(eng, qp);
        } else if (new == AXON_QPS_RTS && cur != AXON_QPS_RTS) {
            axon_roce_qp_rts(eng, qp);
        }
    }
    return AXON_ADMIN_SUCCESS;
}

uint16_t axon_qp_query(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                       uint64_t *result)
{
    const struct axon_admin_modify_qp *m = &cmd->qp;
    struct axon_qp_attr a;
    AxonQp *qp;

    if (m->attr_mask || !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_QUERY_QP,
                                   "reserved bytes set");
    }
    qp = axon_qp_lookup(eng, le32_to_cpu(m->qpn));
    if (!qp) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    a = qp->attr;
    a.state = cpu_to_le32(qp->state);
    if (!axon_env_dma_write(eng->env, le64_to_cpu(m->attr_addr), &a,
                            sizeof(a))) {
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

uint16_t axon_qp_query_live(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                             uint64_t *result)
{
    const struct axon_admin_modify_qp *m = &cmd->qp;
    struct axon_qp_live st;
    AxonQp *qp;

    if (m->attr_mask || !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_QUERY_QP_LIVE,
                                   "reserved bytes set");
    }
    qp = axon_qp_lookup(eng, le32_to_cpu(m->qpn));
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
        .flags = (axon_env_timer_pending(qp->comp.retry_timer) &&
                  !qp->comp.retry_idle ? AXON_QP_LIVE_TIMER : 0) |
                 (qp->comp.rnr_wait ? AXON_QP_LIVE_RNR_WAIT : 0) |
                 (qp->resp.nak_sent ? AXON_QP_LIVE_NAK_SENT : 0) |
                 (qp->req.sq_stopped ? AXON_QP_LIVE_SQ_STOPPED : 0) |
                 (axon_cc_paced(eng, qp) ? AXON_QP_LIVE_CC_PACED : 0) |
                 (qp->type == AXON_QPT_UD || qp->type == AXON_QPT_RUD ? 0 :
                  AXON_QP_LIVE_PLANE(axon_roce_qp_plane(eng, qp))),
    };
    axon_qp_counters_le(&qp->stats, &st.cnt);
    if (!axon_env_dma_write(eng->env, le64_to_cpu(m->attr_addr), &st,
                            sizeof(st))) {
        return AXON_ADMIN_DMA_ERROR;
    }
    return AXON_ADMIN_SUCCESS;
}

static void axon_qp_free(AxonEngine *eng, AxonQp *qp)
{
    axon_roce_qp_stop(eng, qp);
    /* its queues are the driver's to free: nothing more is written */
    axon_sq_poll_stop(eng, qp, false);
    /* an XRC target holds no CQ, SRQ or PD: its requests lend them */
    if (qp->type != AXON_QPT_XRC_TGT) {
        qp->scq->users--;
        eng->pd_users[qp->pdn]--;
        if (qp->rcq) {
            qp->rcq->users--;
        }
        if (qp->srq) {
            qp->srq->users--;
        }
    }
    axon_cset_leave(eng, qp);
    axon_mcast_qp_gone(eng, qp->qpn);
    axon_table_set(&eng->qps, qp->qpn, NULL);
    axon_mr_qp_destroyed(eng, qp->qpn);
    axon_qp_unmake(qp);
}

uint16_t axon_qp_destroy(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                         uint64_t *result)
{
    const struct axon_admin_modify_qp *m = &cmd->qp;
    AxonQp *qp;

    if (m->attr_mask || m->attr_addr ||
        !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_DESTROY_QP,
                                   "reserved bytes set");
    }
    qp = axon_qp_lookup(eng, le32_to_cpu(m->qpn));
    if (!qp) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    axon_roce_ack_owed(eng, qp);
    axon_qp_free(eng, qp);
    return AXON_ADMIN_SUCCESS;
}

/* Every QP, for a reset. */
void axon_qp_reset(AxonEngine *eng)
{
    uint32_t i;
    AxonQp *qp;

    for (i = 0; (qp = axon_table_next(&eng->qps, &i)) != NULL; i++) {
        axon_qp_free(eng, qp);
    }
}
