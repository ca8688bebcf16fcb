/*
 * axon simulator: a simulated host's driver (see axon-sim-drv.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "axon-sim-drv.h"
#include "wq.h"

/* The real memory's layout: the scratch, the page list, the CQ, the QPs. */
#define DRV_ATTR        0x0ULL
#define DRV_PBL         0x1000ULL
#define DRV_PBL_MAX     512     /* 512 GiB of data MR */
#define DRV_CQ          0x2000ULL
#define DRV_UAR         1
#define DRV_SQ_SHIFT    7       /* a send WQE header and one SGE */
#define DRV_RQ_SHIFT    5       /* a receive WQE header and one SGE */

struct SimQp {
    uint32_t qpn;
    uint8_t type;
    struct axon_wq sq, rq;
};

struct SimDrv {
    SimDrvConf c;
    uint32_t pdn, key;
    uint64_t iova;
    uint32_t cqn;
    struct axon_cqring cq;
    uint32_t cq_depth;
    SimQp *qps;                 /* [c.max_qp] */
    unsigned nqp;
    SimQp **by_qpn;             /* the poller's lookup, [qpn & mask] */
    uint32_t by_qpn_mask;
};

static uint64_t ring_align(uint64_t n)
{
    return (n + AXON_QUEUE_ALIGN - 1) & ~(uint64_t)(AXON_QUEUE_ALIGN - 1);
}

static uint32_t cq_depth_for(unsigned max_qp, uint32_t wq_depth)
{
    uint64_t want = 2ULL * max_qp * wq_depth;
    uint32_t d = 64;

    while (d < want && d < AXON_CQ_MAX_DEPTH) {
        d <<= 1;
    }
    return d;
}

static uint64_t qp_rings_off(unsigned max_qp, uint32_t wq_depth)
{
    uint64_t cq = (uint64_t)cq_depth_for(max_qp, wq_depth) * AXON_CQE_SIZE +
                  sizeof(struct axon_cq_dbrec);

    return ring_align(DRV_CQ + cq);
}

static uint64_t sq_ring_size(uint32_t wq_depth)
{
    return (uint64_t)wq_depth << DRV_SQ_SHIFT;
}

/*
 * A QP's two rings, the SQ first, packed: the device wants a ring
 * aligned to its WQE size only, so a QP of 4 WQEs costs 640 bytes of the
 * host's memory rather than two pages (a 1,024-host all-to-all holds a
 * million QPs).
 */
static uint64_t qp_size(uint32_t wq_depth)
{
    uint64_t n = sq_ring_size(wq_depth) + ((uint64_t)wq_depth << DRV_RQ_SHIFT);

    return (n + (1u << DRV_SQ_SHIFT) - 1) & ~(uint64_t)((1u << DRV_SQ_SHIFT) - 1);
}

uint64_t sim_drv_mem_size(unsigned max_qp, uint32_t wq_depth)
{
    return qp_rings_off(max_qp, wq_depth) + max_qp * qp_size(wq_depth);
}

static uint16_t cmd(SimDrv *d, AxonEngineCmd *fn, uint16_t opcode,
                    struct axon_admin_cmd *c, uint64_t *result)
{
    uint64_t res = 0;
    uint16_t st;

    c->opcode = htole16(opcode);
    st = fn(d->c.eng, c, &res);
    if (result) {
        *result = res;
    }
    return st;
}

/* A device status as an errno, as the kernel driver maps it. */
static int status_errno(uint16_t st)
{
    switch (st) {
    case AXON_ADMIN_SUCCESS:
        return 0;
    case AXON_ADMIN_NO_RESOURCES:
        return -ENOMEM;
    default:
        return -EINVAL;
    }
}

static int setup(SimDrv *d)
{
    const SimDrvConf *c = &d->c;
    struct axon_admin_cmd a;
    uint32_t npages = c->data_len >> SIM_DATA_PAGE_SHIFT;
    uint64_t *pbl = (uint64_t *)(c->mem + DRV_PBL);
    uint64_t v;
    uint16_t st;

    memset(&a, 0, sizeof(a));
    a.gid.port = htole32(1);
    a.gid.type = htole32(AXON_GID_TYPE_ROCE_V2);
    memcpy(a.gid.gid, c->gid, 16);
    st = cmd(d, axon_gid_set, AXON_ADMIN_SET_GID, &a, NULL);
    if (st) {
        return status_errno(st);
    }
    memset(&a, 0, sizeof(a));
    st = cmd(d, axon_mr_create_pd, AXON_ADMIN_CREATE_PD, &a, &v);
    if (st) {
        return status_errno(st);
    }
    d->pdn = v;

    for (uint32_t p = 0; p < npages; p++) {
        pbl[p] = htole64(c->data_bus + ((uint64_t)p << SIM_DATA_PAGE_SHIFT));
    }
    d->iova = 1ULL << 44;
    memset(&a, 0, sizeof(a));
    a.mr.pdn = htole32(d->pdn);
    a.mr.access = htole32(AXON_ACCESS_LOCAL_WRITE | AXON_ACCESS_REMOTE_WRITE);
    a.mr.iova = htole64(d->iova);
    a.mr.length = htole64(c->data_len);
    a.mr.pbl_addr = htole64(c->mem_bus + DRV_PBL);
    a.mr.npages = htole32(npages);
    a.mr.page_shift = SIM_DATA_PAGE_SHIFT;
    a.mr.levels = 1;
    st = cmd(d, axon_mr_create, AXON_ADMIN_CREATE_MR, &a, &v);
    if (st) {
        return status_errno(st);
    }
    d->key = v;

    d->cq_depth = cq_depth_for(c->max_qp, c->wq_depth);
    memset(&a, 0, sizeof(a));
    a.cq.ring_addr = htole64(c->mem_bus + DRV_CQ);
    a.cq.depth = htole32(d->cq_depth);
    a.cq.uar = htole32(DRV_UAR);
    st = cmd(d, axon_cq_create, AXON_ADMIN_CREATE_CQ, &a, &v);
    if (st) {
        return status_errno(st);
    }
    d->cqn = v;
    d->cq.cqes = (struct axon_cqe *)(c->mem + DRV_CQ);
    d->cq.dbrec = (struct axon_cq_dbrec *)(c->mem + DRV_CQ +
                                           (uint64_t)d->cq_depth *
                                           AXON_CQE_SIZE);
    while ((1u << d->cq.depth_shift) < d->cq_depth) {
        d->cq.depth_shift++;
    }
    return 0;
}

int sim_drv_new(const SimDrvConf *conf, SimDrv **drv)
{
    SimDrv *d;
    int err;

    *drv = NULL;
    if (!conf->max_qp || !conf->wq_depth ||
        (conf->wq_depth & (conf->wq_depth - 1)) ||
        conf->wq_depth > AXON_WQ_MAX_DEPTH ||
        conf->data_len >> SIM_DATA_PAGE_SHIFT > DRV_PBL_MAX ||
        conf->data_len & ((1ULL << SIM_DATA_PAGE_SHIFT) - 1) ||
        conf->mem_size < sim_drv_mem_size(conf->max_qp, conf->wq_depth)) {
        return -EINVAL;
    }
    d = calloc(1, sizeof(*d));
    if (!d) {
        return -ENOMEM;
    }
    d->c = *conf;
    d->by_qpn_mask = 1;
    while (d->by_qpn_mask < AXON_RDMA_MAX_QP + 2) {
        d->by_qpn_mask <<= 1;
    }
    d->qps = calloc(conf->max_qp, sizeof(*d->qps));
    d->by_qpn = calloc(d->by_qpn_mask, sizeof(*d->by_qpn));
    d->by_qpn_mask--;
    if (!d->qps || !d->by_qpn) {
        sim_drv_free(d);
        return -ENOMEM;
    }
    memset(conf->mem, 0, qp_rings_off(conf->max_qp, conf->wq_depth));
    err = setup(d);
    if (err) {
        sim_drv_free(d);
        return err;
    }
    *drv = d;
    return 0;
}

void sim_drv_free(SimDrv *d)
{
    if (d) {
        free(d->qps);
        free(d->by_qpn);
        free(d);
    }
}

uint32_t sim_drv_key(const SimDrv *d)
{
    return d->key;
}

uint64_t sim_drv_iova(const SimDrv *d)
{
    return d->iova;
}

uint32_t sim_qp_num(const SimQp *qp)
{
    return qp->qpn;
}

static uint16_t modify(SimDrv *d, SimQp *qp, uint32_t mask,
                       const struct axon_qp_attr *at, uint64_t *result)
{
    struct axon_admin_cmd a = {};

    memcpy(d->c.mem + DRV_ATTR, at, sizeof(*at));
    a.qp.qpn = htole32(qp->qpn);
    a.qp.attr_mask = htole32(mask);
    a.qp.attr_addr = htole64(d->c.mem_bus + DRV_ATTR);
    return cmd(d, axon_qp_modify, AXON_ADMIN_MODIFY_QP, &a, result);
}

SimQp *sim_drv_qp(SimDrv *d, uint8_t type, uint64_t *key, int *err)
{
    uint32_t depth = d->c.wq_depth;
    uint64_t at, v;
    struct axon_admin_cmd a = {};
    struct axon_qp_attr attr = {};
    uint16_t st;
    SimQp *qp;

    if (d->nqp == d->c.max_qp) {
        *err = -ENOMEM;
        return NULL;
    }
    qp = &d->qps[d->nqp];
    at = qp_rings_off(d->c.max_qp, depth) + d->nqp * qp_size(depth);
    memset(d->c.mem + at, 0, qp_size(depth));
    qp->type = type;
    qp->sq = (struct axon_wq){
        .buf = d->c.mem + at, .depth = depth, .wqe_shift = DRV_SQ_SHIFT,
        .max_sge = 1,
    };
    qp->rq = (struct axon_wq){
        .buf = d->c.mem + at + sq_ring_size(depth), .depth = depth,
        .wqe_shift = DRV_RQ_SHIFT, .max_sge = 1,
    };
    a.create_qp.pdn = htole32(d->pdn);
    a.create_qp.send_cqn = htole32(d->cqn);
    a.create_qp.recv_cqn = htole32(d->cqn);
    a.create_qp.uar = htole32(DRV_UAR);
    a.create_qp.sq_addr = htole64(d->c.mem_bus + at);
    a.create_qp.rq_addr = htole64(d->c.mem_bus + at + sq_ring_size(depth));
    a.create_qp.sq_depth = htole16(depth);
    a.create_qp.rq_depth = htole16(depth);
    a.create_qp.sq_wqe_shift = DRV_SQ_SHIFT;
    a.create_qp.rq_wqe_shift = DRV_RQ_SHIFT;
    a.create_qp.type = type;
    st = cmd(d, axon_qp_create, AXON_ADMIN_CREATE_QP, &a, &v);
    if (st) {
        *err = status_errno(st);
        return NULL;
    }
    qp->qpn = v;

    attr.state = htole32(AXON_QPS_INIT);
    attr.access = htole32(AXON_ACCESS_REMOTE_WRITE);
    st = modify(d, qp, AXON_QP_ATTR_STATE | AXON_QP_ATTR_ACCESS, &attr, key);
    if (st) {
        *err = status_errno(st);
        return NULL;
    }
    d->by_qpn[qp->qpn & d->by_qpn_mask] = qp;
    d->nqp++;
    *err = 0;
    return qp;
}

int sim_drv_connect(SimDrv *d, SimQp *qp, const SimPeer *peer,
                    uint32_t mtu, uint8_t timeout, uint32_t sq_psn,
                    uint32_t rq_psn)
{
    struct axon_qp_attr at = {};
    uint32_t mask = AXON_QP_ATTR_STATE | AXON_QP_ATTR_PATH |
                    AXON_QP_ATTR_PATH_MTU | AXON_QP_ATTR_DEST_QPN |
                    AXON_QP_ATTR_RQ_PSN | AXON_QP_ATTR_MAX_DEST_RD_ATOMIC |
                    AXON_QP_ATTR_MIN_RNR_TIMER;

    at.state = htole32(AXON_QPS_RTR);
    at.dest_qpn = htole32(peer->qpn);
    at.rq_psn = htole32(rq_psn);
    at.path_mtu = htole32(mtu);
    memcpy(at.dmac, peer->mac, 6);
    memcpy(at.dgid, peer->gid, 16);
    at.hop_limit = 64;
    at.max_dest_rd_atomic = 16;
    at.min_rnr_timer = 1;
    if (qp->type == AXON_QPT_RUD) {
        at.peer_key_lo = htole32((uint32_t)peer->key);
        at.peer_key_hi = htole32((uint32_t)(peer->key >> 32));
        mask |= AXON_QP_ATTR_PEER_KEY;
    }
    if (modify(d, qp, mask, &at, NULL)) {
        return -EINVAL;
    }
    memset(&at, 0, sizeof(at));
    at.state = htole32(AXON_QPS_RTS);
    at.sq_psn = htole32(sq_psn);
    at.timeout = timeout;
    at.retry_cnt = 7;
    at.rnr_retry = 7;
    at.max_rd_atomic = 16;
    mask = AXON_QP_ATTR_STATE | AXON_QP_ATTR_SQ_PSN | AXON_QP_ATTR_TIMEOUT |
           AXON_QP_ATTR_RETRY_CNT | AXON_QP_ATTR_RNR_RETRY |
           AXON_QP_ATTR_MAX_RD_ATOMIC;
    return modify(d, qp, mask, &at, NULL) ? -EINVAL : 0;
}

uint32_t sim_qp_sq_room(const SimQp *qp)
{
    return qp->sq.depth - (qp->sq.pi - qp->sq.ci);
}

int sim_drv_write_imm(SimDrv *d, SimQp *qp, uint64_t wr_id,
                      uint64_t local_off, uint32_t len, uint64_t remote,
                      uint32_t rkey, uint32_t imm)
{
    struct ibv_sge sge = {
        .addr = d->iova + local_off, .length = len, .lkey = d->key,
    };
    struct ibv_send_wr wr = {
        .wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
        .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
        .send_flags = IBV_SEND_SIGNALED,
        .imm_data = htobe32(imm),
        .wr.rdma = { .remote_addr = remote, .rkey = rkey },
    };
    void *slot;
    int err;

    if (axon_wq_full(&qp->sq, qp->sq.pi)) {
        return -ENOSPC;
    }
    slot = axon_wq_slot(&qp->sq, qp->sq.pi);
    err = qp->type == AXON_QPT_RUD ? axon_build_rud_send_wqe(&qp->sq, &wr, slot)
                                   : axon_build_send_wqe(&qp->sq, &wr, slot);
    if (err) {
        return -err;
    }
    qp->sq.pi++;
    axon_engine_doorbell(d->c.eng, DRV_UAR,
                         AXON_DB_OFFSET(AXON_DB_SQ, qp->qpn),
                         AXON_DB_WORD(qp->qpn, qp->sq.pi & 0xffff));
    return 0;
}

int sim_drv_post_recv(SimDrv *d, SimQp *qp, uint64_t wr_id)
{
    struct ibv_recv_wr wr = { .wr_id = wr_id };
    int err;

    if (axon_wq_full(&qp->rq, qp->rq.pi)) {
        return -ENOSPC;
    }
    err = axon_build_recv_wqe(&qp->rq, &wr, axon_wq_slot(&qp->rq, qp->rq.pi));
    if (err) {
        return -err;
    }
    qp->rq.pi++;
    axon_engine_doorbell(d->c.eng, DRV_UAR,
                         AXON_DB_OFFSET(AXON_DB_RQ, qp->qpn),
                         AXON_DB_WORD(qp->qpn, qp->rq.pi & 0xffff));
    return 0;
}

unsigned sim_drv_poll(SimDrv *d, struct ibv_wc *wc, unsigned max)
{
    struct axon_cqe *cqe;
    unsigned n = 0;

    while (n < max && (cqe = axon_cqe_peek(&d->cq))) {
        SimQp *qp = d->by_qpn[le32toh(cqe->qpn) & d->by_qpn_mask];

        d->cq.ci++;
        if (!qp || qp->qpn != le32toh(cqe->qpn)) {
            continue;
        }
        if (cqe->flags & AXON_CQE_RECV) {
            axon_rq_retire(&qp->rq);
        } else {
            axon_sq_retire(&qp->sq, le16toh(cqe->wqe_index));
        }
        axon_cqe_to_wc(cqe, 0, &wc[n++]);
    }
    axon_cq_publish(&d->cq);
    return n;
}

void sim_drv_arm(SimDrv *d)
{
    axon_engine_doorbell(d->c.eng, DRV_UAR,
                         AXON_DB_OFFSET(AXON_DB_CQ_ARM, d->cqn),
                         AXON_DB_WORD(d->cqn, AXON_CQ_ARM_NEXT));
}
