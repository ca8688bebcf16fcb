/*
 * axon engine tests: the small driver (see axon-test-drv.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <endian.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axon-test-drv.h"
#include "tap.h"

unsigned d_errors;
uint16_t d_wq_depth = D_WQ_DEPTH;
bool d_sq_dbrec;

void d_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    d_errors++;
    tap_diag("%s:%d: %s", file, line, msg);
}

uint64_t d_bus(DNode *n, uint64_t off)
{
    return n->env->base + off;
}

void d_memwrite(DNode *n, uint64_t off, const void *buf, size_t len)
{
    if (D_CHECK(off <= n->env->size && len <= n->env->size - off,
                "memwrite out of range")) {
        memcpy(n->env->mem + off, buf, len);
    }
}

void d_memread(DNode *n, uint64_t off, void *buf, size_t len)
{
    if (D_CHECK(off <= n->env->size && len <= n->env->size - off,
                "memread out of range")) {
        memcpy(buf, n->env->mem + off, len);
    }
}

uint16_t d_cmd(DNode *n, AxonEngineCmd *fn, uint16_t opcode,
               struct axon_admin_cmd *cmd, uint64_t *result)
{
    uint64_t res = 0;
    uint16_t st;

    cmd->opcode = htole16(opcode);
    world_enter(n->w);
    st = fn(n->eng, cmd, &res);
    world_leave(n->w);
    if (result) {
        *result = res;
    }
    return st;
}

void d_pattern(uint8_t *buf, size_t len, uint32_t seed)
{
    uint64_t s = 0x9e3779b97f4a7c15ULL * (seed + 1);
    size_t i = 0;

    while (i < len) {
        uint64_t r = t_rand(&s);

        for (int k = 0; k < 8 && i < len; k++, i++) {
            buf[i] = (uint8_t)(r >> (8 * k));
        }
    }
}

/* ---- the data MR ------------------------------------------------------ */

/* Where byte off of the data MR lives: its node memory offset, and run. */
static uint64_t mr_where(DNode *n, uint64_t off, uint64_t *run)
{
    uint64_t rel = D_MR_SKEW + off, in = rel & ((1ULL << D_PAGE_SHIFT) - 1);

    *run = (1ULL << D_PAGE_SHIFT) - in;
    return n->pages[rel >> D_PAGE_SHIFT] - n->env->base + in;
}

static void mr_access(DNode *n, uint64_t off, void *buf, size_t len,
                      bool write, int fill)
{
    uint8_t *p = buf;

    if (!D_CHECK(off <= D_MR_LEN && len <= D_MR_LEN - off,
                 "MR access [%#llx, +%zu) beyond the MR",
                 (unsigned long long)off, len)) {
        return;
    }
    while (len) {
        uint64_t run, at = mr_where(n, off, &run);
        size_t k = len < run ? len : run;

        if (fill >= 0) {
            memset(n->env->mem + at, fill, k);
        } else if (write) {
            memcpy(n->env->mem + at, p, k);
        } else {
            memcpy(p, n->env->mem + at, k);
        }
        if (p) {
            p += k;
        }
        off += k;
        len -= k;
    }
}

void d_mr_write(DNode *n, uint64_t off, const void *buf, size_t len)
{
    mr_access(n, off, (void *)buf, len, true, -1);
}

void d_mr_read(DNode *n, uint64_t off, void *buf, size_t len)
{
    mr_access(n, off, buf, len, false, -1);
}

void d_mr_fill(DNode *n, uint64_t off, uint8_t byte, size_t len)
{
    mr_access(n, off, NULL, len, true, byte);
}

struct axon_sge d_sge(DNode *n, uint64_t off, uint32_t len)
{
    struct axon_sge s = {
        .addr = htole64(n->iova + off),
        .length = htole32(len),
        .lkey = htole32(n->key),
    };
    return s;
}

/* ---- setup ------------------------------------------------------------ */

bool d_node_init(DNode *n, TWorld *w, unsigned id)
{
    struct axon_admin_cmd cmd;
    uint64_t pbl[D_PAGES], v;
    unsigned p;

    memset(n, 0, sizeof(*n));
    n->w = w;
    n->id = id;
    n->env = world_node(w, id);
    n->eng = world_engine(w, id);
    n->gid[10] = n->gid[11] = 0xff;
    n->gid[12] = 10;
    n->gid[15] = (uint8_t)(id + 1);

    memset(&cmd, 0, sizeof(cmd));
    cmd.gid.port = htole32(1);
    cmd.gid.index = htole32(0);
    cmd.gid.type = htole32(AXON_GID_TYPE_ROCE_V2);
    memcpy(cmd.gid.gid, n->gid, 16);
    if (!D_CHECK(d_cmd(n, axon_gid_set, AXON_ADMIN_SET_GID, &cmd, NULL) ==
                 AXON_ADMIN_SUCCESS, "SET_GID")) {
        return false;
    }
    memset(&cmd, 0, sizeof(cmd));
    if (!D_CHECK(d_cmd(n, axon_mr_create_pd, AXON_ADMIN_CREATE_PD, &cmd,
                       &v) == AXON_ADMIN_SUCCESS, "CREATE_PD")) {
        return false;
    }
    n->pdn = v;

    /* pairs of pages swapped, so the MR is not one run of memory */
    for (p = 0; p < D_PAGES; p++) {
        unsigned phys = (p % 4 == 1) ? p + 1 : (p % 4 == 2) ? p - 1 : p;

        n->pages[p] = d_bus(n, D_DATA + ((uint64_t)phys << D_PAGE_SHIFT));
        pbl[p] = htole64(n->pages[p]);
    }
    d_memwrite(n, D_PBL, pbl, sizeof(pbl));
    n->iova = 0x7f0000000000ULL + ((uint64_t)id << 32) + D_MR_SKEW;
    memset(&cmd, 0, sizeof(cmd));
    cmd.mr.pdn = htole32(n->pdn);
    cmd.mr.access = htole32(AXON_ACCESS_LOCAL_WRITE |
                            AXON_ACCESS_REMOTE_WRITE |
                            AXON_ACCESS_REMOTE_READ |
                            AXON_ACCESS_REMOTE_ATOMIC);
    cmd.mr.iova = htole64(n->iova);
    cmd.mr.length = htole64(D_MR_LEN);
    cmd.mr.pbl_addr = htole64(d_bus(n, D_PBL));
    cmd.mr.npages = htole32(D_PAGES);
    cmd.mr.page_shift = D_PAGE_SHIFT;
    cmd.mr.levels = 1;
    if (!D_CHECK(d_cmd(n, axon_mr_create, AXON_ADMIN_CREATE_MR, &cmd, &v) ==
                 AXON_ADMIN_SUCCESS, "CREATE_MR")) {
        return false;
    }
    n->key = v;
    return true;
}

bool d_pair(TWorld *w, DNode *a, DNode *b)
{
    return w && d_node_init(a, w, 0) && d_node_init(b, w, 1);
}

DCq *d_cq(DNode *n, uint32_t depth)
{
    struct axon_admin_cmd cmd = {};
    DCq *cq;
    uint64_t v;

    if (!D_CHECK(n->ncq < D_MAX_CQ, "too many CQs")) {
        return NULL;
    }
    cq = &n->cq[n->ncq];
    cq->ring = d_bus(n, D_CQ(n->ncq));
    cq->depth = depth;
    cq->cons = 0;
    memset(n->env->mem + D_CQ(n->ncq), 0, 0x10000);
    cmd.cq.ring_addr = htole64(cq->ring);
    cmd.cq.depth = htole32(depth);
    cmd.cq.uar = htole32(D_UAR);
    if (!D_CHECK(d_cmd(n, axon_cq_create, AXON_ADMIN_CREATE_CQ, &cmd, &v) ==
                 AXON_ADMIN_SUCCESS, "CREATE_CQ")) {
        return NULL;
    }
    cq->cqn = v;
    n->ncq++;
    return cq;
}

/*
 * A QP of type in the node's next slot: its queues as the type has them
 * (an XRC initiator no RQ, an XRC target none, in domain xrcdn).
 */
static DQp *qp_make(DNode *n, uint8_t type, DCq *scq, DCq *rcq,
                    uint32_t xrcdn)
{
    struct axon_admin_cmd cmd = {};
    struct axon_admin_create_qp *c = &cmd.create_qp;
    DQp *qp;
    uint64_t v;

    if (!D_CHECK(n->nqp < D_MAX_QP, "no QP slot")) {
        return NULL;
    }
    qp = &n->qp[n->nqp];
    memset(qp, 0, sizeof(*qp));
    qp->type = type;
    c->uar = htole32(D_UAR);
    c->type = type;
    c->xrcdn = htole32(xrcdn);
    if (type != AXON_QPT_XRC_TGT) {
        qp->sq = d_bus(n, D_SQ(n->nqp));
        qp->scq = scq;
        c->pdn = htole32(n->pdn);
        c->send_cqn = htole32(scq->cqn);
        c->sq_addr = htole64(qp->sq);
        c->sq_depth = htole16(d_wq_depth);
        c->sq_wqe_shift = D_WQE_SHIFT;
        c->flags = d_sq_dbrec ? AXON_QP_SQ_DBREC : 0;
        qp->dbrec = d_sq_dbrec;
    }
    if (rcq) {
        qp->rq = d_bus(n, D_RQ(n->nqp));
        qp->rcq = rcq;
        c->recv_cqn = htole32(rcq->cqn);
        c->rq_addr = htole64(qp->rq);
        c->rq_depth = htole16(d_wq_depth);
        c->rq_wqe_shift = D_WQE_SHIFT;
    }
    if (!D_CHECK(d_cmd(n, axon_qp_create, AXON_ADMIN_CREATE_QP, &cmd, &v) ==
                 AXON_ADMIN_SUCCESS, "CREATE_QP type %u", type)) {
        return NULL;
    }
    qp->qpn = v;
    n->nqp++;
    return qp;
}

DQp *d_qp(DNode *n, uint8_t type, DCq *scq, DCq *rcq)
{
    if (!D_CHECK(scq && rcq, "no CQ")) {
        return NULL;
    }
    return qp_make(n, type, scq, rcq, 0);
}

DQp *d_xrc_ini(DNode *n, DCq *scq)
{
    return D_CHECK(scq, "no CQ") ? qp_make(n, AXON_QPT_XRC_INI, scq, NULL, 0) :
                                   NULL;
}

DQp *d_xrc_tgt(DNode *n, uint32_t xrcdn)
{
    return qp_make(n, AXON_QPT_XRC_TGT, NULL, NULL, xrcdn);
}

bool d_xrc_srq(DNode *n, DSrq *srq, DCq *cq, uint32_t xrcdn, uint64_t ring)
{
    struct axon_admin_cmd cmd = {};
    uint64_t v;

    memset(srq, 0, sizeof(*srq));
    srq->ring = d_bus(n, ring);
    cmd.srq.ring_addr = htole64(srq->ring);
    cmd.srq.pdn = htole32(n->pdn);
    cmd.srq.uar = htole32(D_UAR);
    cmd.srq.depth = htole16(d_wq_depth);
    cmd.srq.wqe_shift = D_WQE_SHIFT;
    cmd.srq.xrcdn = htole32(xrcdn);
    cmd.srq.cqn = htole32(cq->cqn);
    if (!D_CHECK(d_cmd(n, axon_srq_create, AXON_ADMIN_CREATE_SRQ, &cmd,
                       &v) == AXON_ADMIN_SUCCESS, "CREATE_SRQ xrcd %u",
                 xrcdn)) {
        return false;
    }
    srq->srqn = v;
    srq->cq = cq;
    return true;
}

uint16_t d_modify(DNode *n, DQp *qp, uint32_t mask,
                  const struct axon_qp_attr *at, uint64_t *result)
{
    struct axon_admin_cmd cmd = {};

    d_memwrite(n, D_ATTR, at, sizeof(*at));
    cmd.qp.qpn = htole32(qp->qpn);
    cmd.qp.attr_mask = htole32(mask);
    cmd.qp.attr_addr = htole64(d_bus(n, D_ATTR));
    return d_cmd(n, axon_qp_modify, AXON_ADMIN_MODIFY_QP, &cmd, result);
}

bool d_init(DNode *n, DQp *qp, uint32_t access)
{
    struct axon_qp_attr at = {};

    at.state = htole32(AXON_QPS_INIT);
    at.access = htole32(access);
    return D_CHECK(d_modify(n, qp, AXON_QP_ATTR_STATE | AXON_QP_ATTR_ACCESS,
                          &at, &qp->key) == AXON_ADMIN_SUCCESS,
                   "node %u QP %u to INIT", n->id, qp->qpn);
}

bool d_rtr_rts(DNode *n, DQp *qp, DNode *peer, DQp *pq, uint32_t mtu,
               uint32_t sq_psn, uint32_t rq_psn, uint8_t rnr_retry)
{
    struct axon_qp_attr at = {};
    uint32_t mask = AXON_QP_ATTR_STATE | AXON_QP_ATTR_PATH |
                    AXON_QP_ATTR_PATH_MTU | AXON_QP_ATTR_DEST_QPN |
                    AXON_QP_ATTR_RQ_PSN;
    bool uc = qp->type == AXON_QPT_UC;

    at.state = htole32(AXON_QPS_RTR);
    at.dest_qpn = htole32(pq->qpn);
    at.rq_psn = htole32(rq_psn);
    at.path_mtu = htole32(mtu);
    memcpy(at.dmac, peer->env->mac, 6);
    memcpy(at.dgid, peer->gid, 16);
    at.hop_limit = 64;
    if (!uc) {
        at.max_dest_rd_atomic = 16;
        at.min_rnr_timer = 1;
        mask |= AXON_QP_ATTR_MAX_DEST_RD_ATOMIC | AXON_QP_ATTR_MIN_RNR_TIMER;
    }
    if (qp->type == AXON_QPT_RUD) {
        at.peer_key_lo = htole32((uint32_t)pq->key);
        at.peer_key_hi = htole32((uint32_t)(pq->key >> 32));
        mask |= AXON_QP_ATTR_PEER_KEY;
    }
    if (!D_CHECK(d_modify(n, qp, mask, &at, NULL) == AXON_ADMIN_SUCCESS,
                 "node %u QP %u to RTR", n->id, qp->qpn)) {
        return false;
    }
    memset(&at, 0, sizeof(at));
    at.state = htole32(AXON_QPS_RTS);
    at.sq_psn = htole32(sq_psn);
    mask = AXON_QP_ATTR_STATE | AXON_QP_ATTR_SQ_PSN;
    if (!uc) {
        at.timeout = 14;
        at.retry_cnt = 7;
        at.rnr_retry = rnr_retry;
        at.max_rd_atomic = 16;
        mask |= AXON_QP_ATTR_TIMEOUT | AXON_QP_ATTR_RETRY_CNT |
                AXON_QP_ATTR_RNR_RETRY | AXON_QP_ATTR_MAX_RD_ATOMIC;
    }
    return D_CHECK(d_modify(n, qp, mask, &at, NULL) == AXON_ADMIN_SUCCESS,
                   "node %u QP %u to RTS", n->id, qp->qpn) &&
           D_CHECK(d_qp_state(n, qp) == AXON_QPS_RTS, "not in RTS");
}

bool d_connect(DNode *a, DQp *qa, DNode *b, DQp *qb, uint32_t mtu,
               uint8_t rnr_retry)
{
    uint32_t access = qa->type == AXON_QPT_UC ? AXON_ACCESS_REMOTE_WRITE :
                      AXON_ACCESS_REMOTE_WRITE | AXON_ACCESS_REMOTE_READ |
                      AXON_ACCESS_REMOTE_ATOMIC;
    /* a's first PSN just below the wrap: transfers cross it */
    uint32_t psn_a = 0xffff00, psn_b = 0x000100;

    if (!qa || !qb || !d_init(a, qa, access) || !d_init(b, qb, access)) {
        return false;
    }
    if (qa->type == AXON_QPT_RUD &&
        !D_CHECK(qa->key && qb->key && qa->key != qb->key,
                 "RUD keys %#llx %#llx", (unsigned long long)qa->key,
                 (unsigned long long)qb->key)) {
        return false;
    }
    return d_rtr_rts(a, qa, b, qb, mtu, psn_a, psn_b, rnr_retry) &&
           d_rtr_rts(b, qb, a, qa, mtu, psn_b, psn_a, rnr_retry);
}

bool d_ud_rts(DNode *n, DQp *qp, uint32_t qkey)
{
    struct axon_qp_attr at = {};

    at.state = htole32(AXON_QPS_INIT);
    at.qkey = htole32(qkey);
    if (!D_CHECK(d_modify(n, qp, AXON_QP_ATTR_STATE | AXON_QP_ATTR_QKEY, &at,
                        NULL) == AXON_ADMIN_SUCCESS, "UD INIT")) {
        return false;
    }
    at.state = htole32(AXON_QPS_RTR);
    if (!D_CHECK(d_modify(n, qp, AXON_QP_ATTR_STATE, &at, NULL) ==
                 AXON_ADMIN_SUCCESS, "UD RTR")) {
        return false;
    }
    at.state = htole32(AXON_QPS_RTS);
    at.sq_psn = htole32(0x42);
    return D_CHECK(d_modify(n, qp, AXON_QP_ATTR_STATE | AXON_QP_ATTR_SQ_PSN,
                          &at, NULL) == AXON_ADMIN_SUCCESS, "UD RTS");
}

uint32_t d_qp_state(DNode *n, DQp *qp)
{
    struct axon_admin_cmd cmd = {};
    struct axon_qp_attr at;

    memset(n->env->mem + D_ATTR, 0xee, sizeof(at));
    cmd.qp.qpn = htole32(qp->qpn);
    cmd.qp.attr_addr = htole64(d_bus(n, D_ATTR));
    if (!D_CHECK(d_cmd(n, axon_qp_query, AXON_ADMIN_QUERY_QP, &cmd, NULL) ==
                 AXON_ADMIN_SUCCESS, "QUERY_QP")) {
        return ~0u;
    }
    d_memread(n, D_ATTR, &at, sizeof(at));
    return le32toh(at.state);
}

bool d_qp_live(DNode *n, DQp *qp, struct axon_qp_live *live)
{
    struct axon_admin_cmd cmd = {};

    cmd.qp.qpn = htole32(qp->qpn);
    cmd.qp.attr_addr = htole64(d_bus(n, D_ATTR));
    if (!D_CHECK(d_cmd(n, axon_qp_query_live, AXON_ADMIN_QUERY_QP_LIVE, &cmd,
                       NULL) == AXON_ADMIN_SUCCESS, "QUERY_QP_LIVE")) {
        return false;
    }
    d_memread(n, D_ATTR, live, sizeof(*live));
    return true;
}

/* ---- work ------------------------------------------------------------- */

static void ring(DNode *n, uint32_t reg, uint32_t id, uint32_t val)
{
    world_enter(n->w);
    axon_engine_doorbell(n->eng, D_UAR, AXON_DB_OFFSET(reg, id),
                         AXON_DB_WORD(id, val));
    world_leave(n->w);
}

void d_arm_cq(DNode *n, DCq *cq, uint32_t arm)
{
    ring(n, AXON_DB_CQ_ARM, cq->cqn, arm);
}

void d_write_send(DNode *n, DQp *qp, const struct axon_send_wqe *w,
                  const struct axon_sge *sg)
{
    uint64_t at = qp->sq - n->env->base +
                  (uint64_t)(qp->sq_pi % d_wq_depth) * (1u << D_WQE_SHIFT);

    d_memwrite(n, at, w, sizeof(*w));
    if (w->num_sge && sg) {
        d_memwrite(n, at + sizeof(*w), sg, w->num_sge * sizeof(*sg));
    }
    qp->sq_pi++;
}

/* The SQ's record, after its ring: its offset in node memory. */
static uint64_t sq_dbrec(DNode *n, DQp *qp)
{
    return qp->sq - n->env->base + ((uint64_t)d_wq_depth << D_WQE_SHIFT);
}

void d_sq_dbrec_write(DNode *n, DQp *qp, uint32_t prod_index)
{
    uint32_t le = htole32(prod_index);

    d_memwrite(n, sq_dbrec(n, qp) + offsetof(struct axon_sq_dbrec, prod_index),
               &le, sizeof(le));
}

uint32_t d_sq_polling(DNode *n, DQp *qp)
{
    uint32_t le = 0;

    d_memread(n, sq_dbrec(n, qp) + offsetof(struct axon_sq_dbrec, polling),
              &le, sizeof(le));
    return le32toh(le);
}

void d_ring_sq(DNode *n, DQp *qp)
{
    if (qp->dbrec) {
        d_sq_dbrec_write(n, qp, qp->sq_pi |
                         (qp->dbrec_quiet ? 0 : AXON_SQ_DBREC_POLL));
        if (d_sq_polling(n, qp)) {
            return;
        }
    }
    n->sq_rings++;
    ring(n, AXON_DB_SQ, qp->qpn, qp->sq_pi);
}

void d_post_send(DNode *n, DQp *qp, const struct axon_send_wqe *w,
                 const struct axon_sge *sg)
{
    d_write_send(n, qp, w, sg);
    d_ring_sq(n, qp);
}

/* Writes a receive WQE into slot pi of the ring at bus address rq. */
static void write_recv(DNode *n, uint64_t rq, uint16_t pi, uint64_t wr_id,
                       const struct axon_sge *sg, unsigned nsge)
{
    uint64_t at = rq - n->env->base +
                  (uint64_t)(pi % d_wq_depth) * (1u << D_WQE_SHIFT);
    struct axon_recv_wqe w = { .wr_id = htole64(wr_id),
                               .num_sge = (uint8_t)nsge };

    d_memwrite(n, at, &w, sizeof(w));
    if (nsge) {
        d_memwrite(n, at + sizeof(w), sg, nsge * sizeof(*sg));
    }
}

void d_post_recv(DNode *n, DQp *qp, uint64_t wr_id,
                 const struct axon_sge *sg, unsigned nsge)
{
    write_recv(n, qp->rq, qp->rq_pi, wr_id, sg, nsge);
    qp->rq_pi++;
    ring(n, AXON_DB_RQ, qp->qpn, qp->rq_pi);
}

void d_post_srq_recv(DNode *n, DSrq *srq, uint64_t wr_id,
                     const struct axon_sge *sg, unsigned nsge)
{
    write_recv(n, srq->ring, srq->pi, wr_id, sg, nsge);
    srq->pi++;
    ring(n, AXON_DB_SRQ, srq->srqn, srq->pi);
}

bool d_poll(DNode *n, DCq *cq, struct axon_cqe *cqe)
{
    uint64_t at = cq->ring - n->env->base +
                  (uint64_t)(cq->cons % cq->depth) * AXON_CQE_SIZE;
    bool phase = !((cq->cons / cq->depth) & 1);
    uint32_t cons;

    d_memread(n, at, cqe, sizeof(*cqe));
    if (!!(cqe->flags & AXON_CQE_PHASE) != phase) {
        return false;
    }
    cq->cons++;
    cons = htole32(cq->cons);
    d_memwrite(n, cq->ring - n->env->base +
               (uint64_t)cq->depth * AXON_CQE_SIZE, &cons, 4);
    return true;
}

typedef struct PollArg {
    DNode *n;
    DCq *cq;
    struct axon_cqe *cqe;
    bool got;
} PollArg;

static bool poll_done(void *opaque)
{
    PollArg *p = opaque;

    if (!p->got) {
        p->got = d_poll(p->n, p->cq, p->cqe);
    }
    return p->got;
}

bool d_wait(DNode *n, DCq *cq, struct axon_cqe *cqe, int64_t timeout_ns)
{
    PollArg p = { .n = n, .cq = cq, .cqe = cqe };

    return world_run_until(n->w, poll_done, &p, world_now(n->w) + timeout_ns);
}

bool d_expect(DNode *n, DCq *cq, uint64_t wr_id, uint8_t opcode,
              uint8_t status, struct axon_cqe *out)
{
    struct axon_cqe cqe;

    if (!D_CHECK(d_wait(n, cq, &cqe, 60LL * 1000000000),
                 "node %u: no CQE for wr_id %#llx", n->id,
                 (unsigned long long)wr_id)) {
        return false;
    }
    if (out) {
        *out = cqe;
    }
    return D_CHECK(le64toh(cqe.wr_id) == wr_id,
                   "node %u: CQE wr_id %#llx, want %#llx", n->id,
                   (unsigned long long)le64toh(cqe.wr_id),
                   (unsigned long long)wr_id) &&
           D_CHECK(cqe.status == status, "node %u: wr_id %#llx status %u,"
                   " want %u", n->id, (unsigned long long)wr_id,
                   cqe.status, status) &&
           D_CHECK(status != AXON_WC_SUCCESS || cqe.opcode == opcode,
                   "node %u: opcode %u, want %u", n->id, cqe.opcode, opcode);
}
