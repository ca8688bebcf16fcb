/*
 * qtest of the RDMA engine in loopback: MRs, CQs and QPs, WRITE, SEND, READ and
 * atomics, the engine's budgets, errors, garbage WQEs, CQ overflow,
 * resizing and rings in pages, MR re-registration, doorbells
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-nic-qos.h"
#include "qemu/units.h"

static void test_rdma_query(void)
{
    Axon *a = axon_start(NULL);
    struct axon_dev_attr d;

    rdma_enable(a);
    g_assert_cmphex(rd(a, AXON_REG_CAPS) & AXON_CAP_RDMA, !=, 0);
    g_assert_cmpuint(rd(a, AXON_REG_DB_PAGES), >=, 2);
    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_DEVICE, RESP_ADDR, sizeof(d),
                           0), ==, AXON_ADMIN_SUCCESS);
    qtest_memread(a->qts, RESP_ADDR, &d, sizeof(d));
    g_assert_cmpuint(le32_to_cpu(d.max_qp), >=, 1024);
    g_assert_cmpuint(le32_to_cpu(d.max_qp_wr), ==, AXON_WQ_MAX_DEPTH);
    g_assert_cmpuint(le32_to_cpu(d.max_sge), ==, AXON_MAX_SGE);
    g_assert_cmpuint(le32_to_cpu(d.max_cq), ==, 65536);
    g_assert_cmpuint(le32_to_cpu(d.max_cqe), ==, AXON_CQ_MAX_DEPTH);
    g_assert_cmpuint(le32_to_cpu(d.max_qp_rd_atom), ==, AXON_MAX_RD_ATOMIC);
    g_assert_cmpuint(le32_to_cpu(d.max_inline), ==, AXON_MAX_INLINE);
    g_assert_cmpuint(le64_to_cpu(d.max_mr_size), >=, 1ULL << 40);

    /* a bad CEQ keeps the device down */
    wr(a, AXON_REG_CTRL, AXON_CTRL_RESET);
    program_queues(a, SQ_ADDR, 8, CQ_ADDR, 8, EQ_ADDR, 8);
    wr(a, AXON_REG_CEQ_BASE_LO, 0x123);
    wr(a, AXON_REG_CEQ_DEPTH, 64);
    wr(a, AXON_REG_CTRL, AXON_CTRL_ENABLE);
    g_assert_cmpuint(rd(a, AXON_REG_ERROR), ==, AXON_DEV_ERR_CEQ_CONFIG);
    axon_stop(a);
}

static void test_rdma_mr(void)
{
    Axon *a = axon_start(NULL);
    uint64_t pdn, key, key2, leaf[2], pbl[4];
    struct axon_admin_cmd cmd = {};
    int i;

    rdma_enable(a);
    g_assert_cmpuint(create_pd(a, &pdn), ==, AXON_ADMIN_SUCCESS);
    for (i = 0; i < 4; i++) {
        pbl[i] = cpu_to_le64(MEM_ADDR(0) + i * 4096);
    }
    qtest_memwrite(a->qts, PBL_ADDR, pbl, sizeof(pbl));
    /* 3 pages: 0x2f00 bytes from 0x100 into the first */
    g_assert_cmpuint(create_mr(a, pdn, AXON_ACCESS_ALL, 0x10100, 0x2f00, 4,
                               12, 1, &key), ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_mr(a, pdn, AXON_ACCESS_ALL, 0x10100, 0x2f00, 3, 12,
                               1, &key), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(AXON_KEY_GET_INDEX(key), !=, 0);
    /* bad parameters */
    g_assert_cmpuint(create_mr(a, pdn + 1, 0, 0, 4096, 1, 12, 1, NULL), ==,
                     AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(create_mr(a, pdn, AXON_ACCESS_REMOTE_WRITE, 0, 4096, 1,
                               12, 1, NULL), ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_mr(a, pdn, AXON_ACCESS_MR_ALL + 1, 0, 4096, 1,
                               12, 1, NULL), ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_mr(a, pdn, 0, 0, 4096, 1, 11, 1, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_mr(a, pdn, 0, 0, 4096, 1, 12, 3, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_mr(a, pdn, 0, ~0ULL - 10, 4096, 2, 12, 1, NULL),
                     ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_mr(a, pdn, 0, 0, 1ULL << 41, 1u << 29, 12, 1,
                               NULL), ==, AXON_ADMIN_BAD_PARAM);
    /* a 2 MiB page list entry that is only 4 KiB aligned */
    qtest_writeq(a->qts, PBL_ADDR, MEM_ADDR(0) + 4096);
    g_assert_cmpuint(create_mr(a, pdn, 0, 0, 4096, 1, 21, 1, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    cmd.mr.pdn = cpu_to_le32(pdn);
    cmd.mr.length = cpu_to_le64(0);
    cmd.mr.levels = 1;
    cmd.mr.page_shift = 12;
    cmd.mr.reserved[3] = 1;
    g_assert_cmpuint(cmd_result(a, &cmd, AXON_ADMIN_CREATE_MR, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    /* two levels: two leaves, 600 pages */
    leaf[0] = cpu_to_le64(PBL_ADDR + 0x1000);
    leaf[1] = cpu_to_le64(PBL_ADDR + 0x2000);
    qtest_memwrite(a->qts, PBL_ADDR, leaf, sizeof(leaf));
    for (i = 0; i < 600; i++) {
        qtest_writeq(a->qts, PBL_ADDR + 0x1000 + i * 8, MEM_ADDR(0));
    }
    g_assert_cmpuint(create_mr(a, pdn, AXON_ACCESS_LOCAL_WRITE, 0,
                               600 * 4096, 600, 12, 2, &key2), ==,
                     AXON_ADMIN_SUCCESS);
    /* the PD is in use */
    memset(&cmd, 0, sizeof(cmd));
    cmd.pd.pdn = cpu_to_le32(pdn);
    g_assert_cmpuint(cmd_result(a, &cmd, AXON_ADMIN_DESTROY_PD, NULL), ==,
                     AXON_ADMIN_BUSY);
    /* stale keys */
    g_assert_cmpuint(destroy_mr(a, key), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(destroy_mr(a, key), ==, AXON_ADMIN_BAD_HANDLE);
    qtest_memwrite(a->qts, PBL_ADDR, pbl, sizeof(pbl));
    g_assert_cmpuint(create_mr(a, 0, 0, 0, 4096, 1, 12, 1, &key2), ==,
                     AXON_ADMIN_SUCCESS);
    /* never the key just freed */
    g_assert_cmphex(key2, !=, key);
    g_assert_cmpuint(destroy_mr(a, key), ==, AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(destroy_mr(a, 0), ==, AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(destroy_mr(a, 0xffffffff), ==, AXON_ADMIN_BAD_HANDLE);
    g_assert_cmphex(rd(a, AXON_REG_STATUS), ==, AXON_STATUS_READY);
    axon_stop(a);
}

static void test_rdma_cq_qp(void)
{
    Axon *a = axon_start(NULL);
    uint64_t pdn, cqn, qpn, v;
    struct axon_qp_attr at = {};
    struct axon_admin_cmd cmd = {};

    rdma_enable(a);
    g_assert_cmpuint(create_pd(a, &pdn), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(create_cq(a, RCQ_ADDR(0), 3, 1, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_cq(a, RCQ_ADDR(0) + 8, 64, 1, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_cq(a, RCQ_ADDR(0), AXON_CQ_MAX_DEPTH * 2, 1,
                               NULL), ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_cq(a, RCQ_ADDR(0), 64, 100000, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_cq(a, RCQ_ADDR(0), 64, 1, &cqn), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(create_qp(a, pdn, cqn, cqn + 1, RSQ_ADDR(0), RRQ_ADDR(0),
                               64, 0, NULL), ==, AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(create_qp(a, pdn, cqn, cqn, RSQ_ADDR(0), RRQ_ADDR(0),
                               48, 0, NULL), ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_qp(a, pdn, cqn, cqn, RSQ_ADDR(0) + 64,
                               RRQ_ADDR(0), 64, 0, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_qp(a, pdn, cqn, cqn, RSQ_ADDR(0), RRQ_ADDR(0),
                               64, 2, NULL), ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_qp(a, pdn, cqn, cqn, RSQ_ADDR(0), RRQ_ADDR(0),
                               64, 0, &qpn), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(qpn, >=, 2);
    g_assert_cmpuint(qp_state(a, qpn), ==, AXON_QPS_RESET);

    /* the state machine */
    at.state = cpu_to_le32(AXON_QPS_RTR);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_BAD_STATE);
    at.state = cpu_to_le32(AXON_QPS_SQD);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_BAD_STATE);
    at.state = cpu_to_le32(9);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_BAD_PARAM);
    at.state = cpu_to_le32(AXON_QPS_INIT);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE | 0x100000, &at),
                     ==, AXON_ADMIN_BAD_PARAM);
    at.reserved[3] = 1;
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_BAD_PARAM);
    at.reserved[3] = 0;
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_SUCCESS);
    at.state = cpu_to_le32(AXON_QPS_RTR);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_PATH_MTU, &at), ==,
                     AXON_ADMIN_BAD_PARAM); /* mtu 0 */
    at.path_mtu = cpu_to_le32(1024);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_PATH_MTU, &at), ==,
                     AXON_ADMIN_BAD_STATE); /* no path, dest_qpn, rq_psn */
    /* the path needs a GID at sgid_index */
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_PATH_MTU | AXON_QP_ATTR_PATH |
                               AXON_QP_ATTR_DEST_QPN | AXON_QP_ATTR_RQ_PSN,
                               &at), ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(set_gid(a, 1, 0, AXON_GID_TYPE_ROCE_V2, 0, 0), ==,
                     AXON_ADMIN_SUCCESS);
    at.rq_psn = cpu_to_le32(AXON_PSN_MASK + 1);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_PATH_MTU | AXON_QP_ATTR_PATH |
                               AXON_QP_ATTR_DEST_QPN | AXON_QP_ATTR_RQ_PSN,
                               &at), ==, AXON_ADMIN_BAD_PARAM);
    at.rq_psn = 0;
    at.dest_qpn = cpu_to_le32(qpn);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_PATH_MTU | AXON_QP_ATTR_PATH |
                               AXON_QP_ATTR_DEST_QPN | AXON_QP_ATTR_RQ_PSN,
                               &at), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(qp_state(a, qpn), ==, AXON_QPS_RTR);
    at.state = cpu_to_le32(AXON_QPS_RTS);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_BAD_STATE); /* no sq_psn */
    at.retry_cnt = 8;
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_SQ_PSN | AXON_QP_ATTR_RETRY_CNT,
                               &at), ==, AXON_ADMIN_BAD_PARAM);
    at.retry_cnt = 7;
    at.max_rd_atomic = 17;
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_SQ_PSN |
                               AXON_QP_ATTR_MAX_RD_ATOMIC, &at), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_SQ_PSN, &at), ==,
                     AXON_ADMIN_SUCCESS);
    /* in flight only the access and the RNR timer change */
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_PATH_MTU, &at), ==,
                     AXON_ADMIN_BAD_STATE);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_SQ_PSN, &at), ==,
                     AXON_ADMIN_BAD_STATE);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_ACCESS |
                               AXON_QP_ATTR_MIN_RNR_TIMER, &at), ==,
                     AXON_ADMIN_SUCCESS);
    at.state = cpu_to_le32(AXON_QPS_INIT);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_BAD_STATE);
    at.state = cpu_to_le32(AXON_QPS_ERR);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(qp_state(a, qpn), ==, AXON_QPS_ERR);
    at.state = cpu_to_le32(AXON_QPS_RESET);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_SUCCESS);
    /* RESET -> ERR is a transition like any other */
    at.state = cpu_to_le32(AXON_QPS_ERR);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(qp_state(a, qpn), ==, AXON_QPS_ERR);
    g_assert_cmpuint(qp_cmd(a, AXON_ADMIN_QUERY_QP, qpn, 0, UNMAPPED_ADDR),
                     ==, AXON_ADMIN_DMA_ERROR);
    g_assert_cmpuint(qp_cmd(a, AXON_ADMIN_QUERY_QP, qpn + 1, 0, ATTR_ADDR),
                     ==, AXON_ADMIN_BAD_HANDLE);

    /* objects in use */
    g_assert_cmpuint(destroy_cq(a, cqn), ==, AXON_ADMIN_BUSY);
    cmd.pd.pdn = cpu_to_le32(pdn);
    g_assert_cmpuint(cmd_result(a, &cmd, AXON_ADMIN_DESTROY_PD, NULL), ==,
                     AXON_ADMIN_BUSY);
    g_assert_cmpuint(qp_cmd(a, AXON_ADMIN_DESTROY_QP, qpn, 0, 0), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(qp_cmd(a, AXON_ADMIN_DESTROY_QP, qpn, 0, 0), ==,
                     AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(destroy_cq(a, cqn), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(destroy_cq(a, cqn), ==, AXON_ADMIN_BAD_HANDLE);
    /* next fit: the numbers just freed are not handed out again at once */
    g_assert_cmpuint(create_cq(a, RCQ_ADDR(0), 64, 1, &v), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(v, ==, cqn + 1);
    cqn = v;
    g_assert_cmpuint(create_qp(a, pdn, cqn, cqn, RSQ_ADDR(0), RRQ_ADDR(0),
                               64, 0, &v), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(v, ==, qpn + 1);
    g_assert_cmpuint(qp_cmd(a, AXON_ADMIN_DESTROY_QP, v, 0, 0), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(destroy_cq(a, cqn), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(cmd_result(a, &cmd, AXON_ADMIN_DESTROY_PD, NULL), ==,
                     AXON_ADMIN_SUCCESS);
    /* a reset forgets everything */
    g_assert_cmpuint(create_pd(a, &pdn), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(create_cq(a, RCQ_ADDR(0), 64, 1, &cqn), ==,
                     AXON_ADMIN_SUCCESS);
    rdma_enable(a);
    g_assert_cmpuint(destroy_cq(a, cqn), ==, AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(create_pd(a, &v), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(v, ==, 0);
    axon_stop(a);
}

static void test_rdma_write(void)
{
    Rdma *r = rdma_setup(7);
    struct axon_send_wqe w = {};
    struct axon_sge sg[AXON_MAX_SGE];
    g_autofree uint8_t *data = pattern(8100, 1);
    g_autofree uint8_t *big = pattern(16 * 1000, 9);
    g_autofree uint8_t *zero = g_malloc0(64);
    struct axon_cqe cqe;
    int i;

    mr_access(r, 0, r->mr[0].iova + 10, data, 100, true);
    mr_access(r, 0, r->mr[0].iova + 20000, data + 100, 5000, true);
    mr_access(r, 0, r->mr[0].iova + 70001, data + 5100, 3000, true);
    sg[0] = sge(r, 0, 10, 100);
    sg[1] = sge(r, 0, 20000, 5000);
    sg[2] = sge(r, 0, 70001, 3000);
    w.opcode = AXON_WR_RDMA_WRITE;
    w.flags = AXON_WQE_SIGNALED;
    w.num_sge = 3;
    w.wr_id = cpu_to_le64(0x1111);
    w.remote_addr = cpu_to_le64(r->mr[1].iova + 7);
    w.rkey = cpu_to_le32(r->mr[1].key);
    post_send(r, &r->qp[0], &w, sg, NULL);
    expect_cqe(r, r->qp[0].scq, 0x1111, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    check_mem(r, 1, 7, data, 8100);
    /* nothing past the end */
    check_mem(r, 1, 8107, zero, 64);

    /* 16 SGEs, unsignaled then signaled */
    for (i = 0; i < AXON_MAX_SGE; i++) {
        mr_access(r, 0, r->mr[0].iova + 300000 + i * 4099, big + i * 1000,
                  1000, true);
        sg[i] = sge(r, 0, 300000 + i * 4099, 1000);
    }
    w.num_sge = AXON_MAX_SGE;
    w.flags = 0;
    w.wr_id = cpu_to_le64(0x2222);
    w.remote_addr = cpu_to_le64(r->mr[1].iova + 100000);
    post_send(r, &r->qp[0], &w, sg, NULL);
    w.flags = AXON_WQE_SIGNALED;
    w.num_sge = 0;
    w.wr_id = cpu_to_le64(0x3333);
    post_send(r, &r->qp[0], &w, NULL, NULL);
    expect_cqe(r, r->qp[0].scq, 0x3333, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    check_mem(r, 1, 100000, big, 16 * 1000);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_TX_PKTS), >=, 9 + 16);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_DROPS), ==, 0);

    /* in loopback a WRITE's ACK comes in the same pass: no clock runs */
    w.flags = AXON_WQE_SIGNALED | AXON_WQE_INLINE;
    w.inline_len = cpu_to_le32(8);
    w.wr_id = cpu_to_le64(0x4444);
    post_send(r, &r->qp[0], &w, NULL, data);
    g_assert_true(poll_cq_now(r, r->qp[0].scq, &cqe));
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x4444);
    g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
    rdma_stop(r);
}

/* A QP takes packets from its peer only. */
static void test_rdma_peer(void)
{
    Rdma *r = rdma_setup(7);
    TQp q = { .sq = RSQ_ADDR(2), .rq = RRQ_ADDR(2),
              .scq = &r->cq[0], .rcq = &r->cq[0] };
    struct axon_send_wqe w = {};
    g_autofree uint8_t *zero = g_malloc0(8);
    uint32_t drops = rd(r->a, AXON_REG_STAT_RX_DROPS);
    uint64_t v;
    int i;

    /* a third QP aims at QP 1, with the PSN QP 1 expects from QP 0 */
    g_assert_cmpuint(create_qp(r->a, r->pdn, q.scq->cqn, q.rcq->cqn, q.sq,
                               q.rq, R_WQ_DEPTH, 0, &v), ==,
                     AXON_ADMIN_SUCCESS);
    q.qpn = v;
    connect_qp(r, &q, r->qp[1].qpn, 0xfffff0, 0x000100, 7);
    w.opcode = AXON_WR_RDMA_WRITE;
    w.flags = AXON_WQE_SIGNALED | AXON_WQE_INLINE;
    w.inline_len = cpu_to_le32(8);
    w.remote_addr = cpu_to_le64(r->mr[1].iova);
    w.rkey = cpu_to_le32(r->mr[1].key);
    post_send(r, &q, &w, NULL, "intruder");
    for (i = 0; i < 1000 && rd(r->a, AXON_REG_STAT_RX_DROPS) == drops; i++) {
        qtest_clock_step(r->a->qts, 1000);
    }
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_DROPS), ==, drops + 1);
    check_mem(r, 1, 0, zero, 8);
    rdma_stop(r);
}

/* Completion events that find the CEQ full wait for room; none is lost. */
static void test_rdma_ceq_full(void)
{
    Rdma *r = rdma_setup(7);
    TQp *qp = &r->qp[0];
    struct axon_send_wqe w = {};
    struct axon_event ev;
    int i;

    w.opcode = AXON_WR_RDMA_WRITE;
    w.flags = AXON_WQE_SIGNALED | AXON_WQE_INLINE;
    w.inline_len = cpu_to_le32(8);
    w.remote_addr = cpu_to_le64(r->mr[1].iova);
    w.rkey = cpu_to_le32(r->mr[1].key);
    /* the driver re-arms without moving the CEQ head: 63 fit, 2 wait */
    for (i = 0; i < 65; i++) {
        ring(r, R_UAR, AXON_DB_CQ_ARM, qp->scq->cqn, AXON_CQ_ARM_NEXT);
        w.wr_id = cpu_to_le64(i);
        post_send(r, qp, &w, NULL, "8 bytes!");
        expect_cqe(r, qp->scq, i, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    }
    qtest_memread(r->a->qts, CEQ_ADDR + 63 * sizeof(ev), &ev, sizeof(ev));
    g_assert_cmpuint(ev.flags, ==, 0);
    /* two consumed: the one waiting comes (a CQ is owed one at most) */
    wr(r->a, AXON_REG_CEQ_HEAD, 2);
    qtest_memread(r->a->qts, CEQ_ADDR + 63 * sizeof(ev), &ev, sizeof(ev));
    g_assert_cmpuint(le16_to_cpu(ev.type), ==, AXON_EVENT_COMPLETION);
    g_assert_cmpuint(le32_to_cpu(ev.param), ==, qp->scq->cqn);
    g_assert_cmpuint(le16_to_cpu(ev.flags), ==, AXON_EVENT_PHASE);
    qtest_memread(r->a->qts, CEQ_ADDR, &ev, sizeof(ev));
    g_assert_cmpuint(le16_to_cpu(ev.flags), ==, AXON_EVENT_PHASE);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_EQ_DROPS), ==, 0);
    rdma_stop(r);
}

/*
 * ib_send_bw's pattern: a stream of small SENDs, signaled every 16th, the
 * receiver re-posting its few receives as it reaps them (RNR NAKs).
 * dev_args: the device's extra properties (x-engine-thread=on: every send
 * doorbell is left to the engine's own thread, which must run it).
 */
static void test_rdma_send_stream(const void *dev_args)
{
    Rdma *r = rdma_setup_on(NULL, 7, false, dev_args);
    TQp *a = &r->qp[0], *b = &r->qp[1];
    struct axon_send_wqe w = {};
    struct axon_sge sg = sge(r, 1, 0, 64);
    struct axon_cqe cqe;
    const int total = 2000, nrecv = 16;
    int sent = 0, done = 0, got = 0, i, idle = 0;

    for (i = 0; i < nrecv; i++) {
        post_recv(r, b, i, &sg, 1);
    }
    w.opcode = AXON_WR_SEND;
    w.inline_len = cpu_to_le32(8);
    while (got < total && idle < 20000) {
        bool moved = false;
        uint64_t addr;
        bool phase;

        while (sent < total && sent - done < 64) {
            w.flags = AXON_WQE_INLINE |
                      (sent % 16 == 15 || sent + 1 == total ?
                       AXON_WQE_SIGNALED : 0);
            w.wr_id = cpu_to_le64(sent);
            post_send(r, a, &w, NULL, "8 bytes!");
            sent++;
            moved = true;
        }
        addr = a->scq->ring + (a->scq->cons % R_CQ_DEPTH) * AXON_CQE_SIZE;
        phase = !((a->scq->cons / R_CQ_DEPTH) & 1);
        qtest_memread(r->a->qts, addr, &cqe, sizeof(cqe));
        if (!!(cqe.flags & AXON_CQE_PHASE) == phase) {
            g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
            done = le64_to_cpu(cqe.wr_id) + 1;
            a->scq->cons++;
            qtest_writel(r->a->qts, a->scq->ring + R_CQ_DEPTH * AXON_CQE_SIZE,
                         a->scq->cons);
            moved = true;
        }
        addr = b->rcq->ring + (b->rcq->cons % R_CQ_DEPTH) * AXON_CQE_SIZE;
        phase = !((b->rcq->cons / R_CQ_DEPTH) & 1);
        qtest_memread(r->a->qts, addr, &cqe, sizeof(cqe));
        if (!!(cqe.flags & AXON_CQE_PHASE) == phase) {
            g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
            g_assert_cmpuint(le64_to_cpu(cqe.wr_id), ==, got % nrecv);
            got++;
            b->rcq->cons++;
            qtest_writel(r->a->qts, b->rcq->ring + R_CQ_DEPTH * AXON_CQE_SIZE,
                         b->rcq->cons);
            post_recv(r, b, (got + nrecv - 1) % nrecv, &sg, 1);
            moved = true;
        }
        if (!moved) {
            idle++;
            qtest_clock_step(r->a->qts, 20000);
        } else {
            idle = 0;
        }
    }
    g_assert_cmpint(got, ==, total);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_NAKS), >, 0);  /* RNR NAKs */
    rdma_stop(r);
}

/* A send queue's doorbell record, after its R_WQ_DEPTH slots. */
static uint64_t sq_dbrec(const TQp *qp)
{
    return qp->sq + ((uint64_t)R_WQ_DEPTH << R_WQE_SHIFT);
}

/*
 * post_send() as a producer with a doorbell record does it: the index to
 * the record, the doorbell only when the device does not poll it. True:
 * the doorbell rang.
 */
static bool post_send_dbrec(Rdma *r, TQp *qp, struct axon_send_wqe *w,
                            const void *inl)
{
    uint64_t addr = qp->sq + (qp->sq_pi % R_WQ_DEPTH) * (1u << R_WQE_SHIFT);

    qtest_memwrite(r->a->qts, addr, w, sizeof(*w));
    qtest_memwrite(r->a->qts, addr + sizeof(*w), inl,
                   le32_to_cpu(w->inline_len));
    qp->sq_pi++;
    qtest_writel(r->a->qts, sq_dbrec(qp), qp->sq_pi | AXON_SQ_DBREC_POLL);
    if (qtest_readl(r->a->qts, sq_dbrec(qp) + 4)) {
        return false;
    }
    ring(r, R_UAR, AXON_DB_SQ, qp->qpn, qp->sq_pi);
    return true;
}

/*
 * Send queue doorbell records (AXON_QP_SQ_DBREC): two more QPs with
 * records, between the fixture's rings. A stream of 2,000 WRITEs, posted
 * as their completions come, rings the doorbell a few times only (the
 * device polls the record every sq-poll-ns while the QP keeps posting);
 * idle past sq-poll-idle-ns the polling word is 0 and the next post rings
 * again. Then a reset while the device polls: its poll timer finds no QP,
 * and the device serves the fixture's QPs again. dev_args: the device's
 * properties (sq-poll-ns=2000: it polls, which it does not by default;
 * x-engine-thread=on).
 */
static void test_rdma_sq_dbrec(const void *dev_args)
{
    Rdma *r = rdma_setup_on(NULL, 7, false, dev_args);
    struct axon_admin_cmd cmd;
    struct axon_send_wqe w = {};
    struct axon_cqe cqe;
    TQp q[2];
    const int total = 2000;
    int sent = 0, done = 0, rings = 0, idle = 0, i;
    uint64_t v;

    g_assert_cmphex(rd(r->a, AXON_REG_CAPS) & AXON_CAP_SQ_DBREC, ==,
                    AXON_CAP_SQ_DBREC);
    for (i = 0; i < 2; i++) {
        q[i] = (TQp){ .sq = RSQ_ADDR(i) + 0x10000, .rq = RRQ_ADDR(i) + 0x10000,
                      .scq = &r->cq[i], .rcq = &r->cq[i] };
        qtest_memset(r->a->qts, q[i].sq, 0, 0x10000);
        create_qp_cmd(&cmd, r->pdn, q[i].scq->cqn, q[i].rcq->cqn, q[i].sq,
                      R_WQ_DEPTH);
        cmd.create_qp.rq_addr = cpu_to_le64(q[i].rq);
        cmd.create_qp.rq_depth = cpu_to_le16(R_WQ_DEPTH);
        cmd.create_qp.rq_wqe_shift = R_WQE_SHIFT;
        cmd.create_qp.flags = AXON_QP_SQ_DBREC;
        g_assert_cmpuint(cmd_result(r->a, &cmd, AXON_ADMIN_CREATE_QP, &v), ==,
                         AXON_ADMIN_SUCCESS);
        q[i].qpn = v;
    }
    connect_qp(r, &q[0], q[1].qpn, 0x100, 0x200, 7);
    connect_qp(r, &q[1], q[0].qpn, 0x200, 0x100, 7);
    w.opcode = AXON_WR_RDMA_WRITE;
    w.inline_len = cpu_to_le32(8);
    w.remote_addr = cpu_to_le64(r->mr[1].iova + 0x1000);
    w.rkey = cpu_to_le32(r->mr[1].key);
    while (done < total && idle < 2000) {
        bool moved = false;
        uint64_t addr;
        bool phase;

        while (sent < total && sent - done < 32) {
            w.flags = AXON_WQE_INLINE |
                      (sent % 8 == 7 || sent + 1 == total ?
                       AXON_WQE_SIGNALED : 0);
            w.wr_id = cpu_to_le64(sent);
            rings += post_send_dbrec(r, &q[0], &w, "8 bytes!");
            sent++;
            moved = true;
        }
        addr = q[0].scq->ring + (q[0].scq->cons % R_CQ_DEPTH) * AXON_CQE_SIZE;
        phase = !((q[0].scq->cons / R_CQ_DEPTH) & 1);
        qtest_memread(r->a->qts, addr, &cqe, sizeof(cqe));
        if (!!(cqe.flags & AXON_CQE_PHASE) == phase) {
            g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
            done = le64_to_cpu(cqe.wr_id) + 1;
            q[0].scq->cons++;
            qtest_writel(r->a->qts,
                         q[0].scq->ring + R_CQ_DEPTH * AXON_CQE_SIZE,
                         q[0].scq->cons);
            moved = true;
        }
        if (!moved) {
            idle++;
            qtest_clock_step(r->a->qts, 1000);
        } else {
            idle = 0;
        }
    }
    g_assert_cmpint(done, ==, total);
    g_test_message("%d WRITEs rang %d doorbells", total, rings);
    g_assert_cmpint(rings, >, 0);
    g_assert_cmpint(rings, <, total / 10);
    qtest_clock_step(r->a->qts, 100000);
    g_assert_cmpuint(qtest_readl(r->a->qts, sq_dbrec(&q[0]) + 4), ==, 0);
    /* the doorbell (taken in its MMIO write) sets the word again */
    w.flags = AXON_WQE_INLINE | AXON_WQE_SIGNALED;
    w.wr_id = cpu_to_le64(total);
    g_assert_true(post_send_dbrec(r, &q[0], &w, "8 bytes!"));
    g_assert_cmpuint(qtest_readl(r->a->qts, sq_dbrec(&q[0]) + 4), ==, 1);
    expect_cqe(r, q[0].scq, total, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_DB_REJECTS), ==, 0);
    /*
     * a reset while the device polls q[0] (its word set again by a post):
     * nothing more is written to its record, nothing taken from it; the
     * fixture's QPs work after
     */
    w.wr_id = cpu_to_le64(total + 1);
    post_send_dbrec(r, &q[0], &w, "8 bytes!");
    g_assert_cmpuint(qtest_readl(r->a->qts, sq_dbrec(&q[0]) + 4), ==, 1);
    rdma_configure(r, false, 7);
    qtest_writel(r->a->qts, sq_dbrec(&q[0]), q[0].sq_pi + 1);
    qtest_clock_step(r->a->qts, 100000);
    g_assert_cmpuint(qtest_readl(r->a->qts, sq_dbrec(&q[0]) + 4), ==, 1);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_DB_REJECTS), ==, 0);
    w.wr_id = cpu_to_le64(1);
    w.remote_addr = cpu_to_le64(r->mr[1].iova + 0x1000);
    w.rkey = cpu_to_le32(r->mr[1].key);
    post_send(r, &r->qp[0], &w, NULL, "8 bytes!");
    expect_cqe(r, r->qp[0].scq, 1, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    rdma_stop(r);
}

/*
 * Two QPs due in one engine run, the second with more packets than the
 * run has left: it goes on in the next run, not after an ACK timeout.
 */
static void test_rdma_engine_budget(void)
{
    Rdma *r = rdma_setup(7);
    TQp *a = &r->qp[0], *b = &r->qp[1];
    struct axon_send_wqe w = {};
    struct axon_sge sg = sge(r, 0, 0, 64);
    g_autofree uint8_t *big = pattern(300 * R_MTU, 5);

    mr_access(r, 1, r->mr[1].iova, big, 300 * R_MTU, true);
    /* both SENDs meet an empty RQ: both QPs wait the same RNR time */
    w.opcode = AXON_WR_SEND;
    w.flags = AXON_WQE_INLINE;
    w.inline_len = cpu_to_le32(8);
    post_send(r, a, &w, NULL, "8 bytes!");
    post_send(r, b, &w, NULL, "8 bytes!");
    /* behind them, 2 packets on a and 300 on b */
    w.opcode = AXON_WR_RDMA_WRITE;
    w.remote_addr = cpu_to_le64(r->mr[1].iova + 0x80000);
    w.rkey = cpu_to_le32(r->mr[1].key);
    post_send(r, a, &w, NULL, "8 bytes!");
    w.flags = AXON_WQE_INLINE | AXON_WQE_SIGNALED;
    w.wr_id = cpu_to_le64(0xa);
    post_send(r, a, &w, NULL, "8 bytes!");
    w.flags = AXON_WQE_SIGNALED;
    w.inline_len = 0;
    w.num_sge = 1;
    w.wr_id = cpu_to_le64(0xb);
    w.remote_addr = cpu_to_le64(r->mr[0].iova);
    w.rkey = cpu_to_le32(r->mr[0].key);
    sg = sge(r, 1, 0, 300 * R_MTU);
    post_send(r, b, &w, &sg, NULL);
    sg = sge(r, 0, 0x90000, 64);
    post_recv(r, a, 1, &sg, 1);
    sg = sge(r, 1, 0x90000, 64);
    post_recv(r, b, 2, &sg, 1);
    qtest_clock_step(r->a->qts, 100 * 1000);
    /* a runs first: its SEND reaches b, then its WRITEs complete */
    expect_cqe(r, a->scq, 0xa, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    expect_cqe(r, b->rcq, 2, AXON_WC_RECV, AXON_WC_SUCCESS);
    expect_cqe(r, b->scq, 0xb, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    expect_cqe(r, a->rcq, 1, AXON_WC_RECV, AXON_WC_SUCCESS);
    check_mem(r, 0, 0, big, 300 * R_MTU);
    /* sent again: the two SENDs after their RNR NAKs, nothing else */
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RETRANS), ==, 2);
    rdma_stop(r);
}

static void test_rdma_send_recv(void)
{
    Rdma *r = rdma_setup(7);
    struct axon_send_wqe w = {};
    struct axon_sge sg[2];
    struct axon_cqe cqe;
    struct axon_event ev;
    g_autofree uint8_t *data = pattern(3000, 3);
    uint8_t inl[200];
    TQp *a = &r->qp[0], *b = &r->qp[1];

    mr_access(r, 0, r->mr[0].iova, data, 3000, true);
    /* 1000 + 4000 bytes of receive buffers */
    sg[0] = sge(r, 1, 5, 1000);
    sg[1] = sge(r, 1, 50000, 4000);
    post_recv(r, b, 0xb1, sg, 2);
    ring(r, R_UAR, AXON_DB_CQ_ARM, b->rcq->cqn, AXON_CQ_ARM_SOLICITED);
    sg[0] = sge(r, 0, 0, 3000);
    w.opcode = AXON_WR_SEND_IMM;
    w.flags = AXON_WQE_SIGNALED | AXON_WQE_SOLICITED;
    w.num_sge = 1;
    w.imm_data = cpu_to_be32(0xdeadbeef);
    w.wr_id = cpu_to_le64(0xa1);
    post_send(r, a, &w, sg, NULL);
    expect_cqe(r, a->scq, 0xa1, AXON_WC_SEND, AXON_WC_SUCCESS);
    g_assert_true(poll_cq(r, b->rcq, &cqe));
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb1);
    g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, AXON_WC_RECV);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 3000);
    g_assert_cmphex(be32_to_cpu(cqe.imm_data), ==, 0xdeadbeef);
    g_assert_cmphex(cqe.flags & ~AXON_CQE_PHASE, ==, AXON_CQE_WITH_IMM |
                    AXON_CQE_RECV | AXON_CQE_SOLICITED);
    g_assert_cmpuint(le32_to_cpu(cqe.qpn), ==, b->qpn);
    check_mem(r, 1, 5, data, 1000);
    check_mem(r, 1, 50000, data + 1000, 2000);
    /* the armed CQ got a completion event on the CEQ */
    qtest_memread(r->a->qts, CEQ_ADDR, &ev, sizeof(ev));
    g_assert_cmpuint(le16_to_cpu(ev.type), ==, AXON_EVENT_COMPLETION);
    g_assert_cmpuint(le32_to_cpu(ev.param), ==, b->rcq->cqn);
    g_assert_cmpuint(le16_to_cpu(ev.flags), ==, AXON_EVENT_PHASE);

    /* inline */
    memset(inl, 0x5a, sizeof(inl));
    sg[0] = sge(r, 1, 9000, 500);
    post_recv(r, b, 0xb2, sg, 1);
    memset(&w, 0, sizeof(w));
    w.opcode = AXON_WR_SEND;
    w.flags = AXON_WQE_SIGNALED | AXON_WQE_INLINE;
    w.inline_len = cpu_to_le32(sizeof(inl));
    w.wr_id = cpu_to_le64(0xa2);
    post_send(r, a, &w, NULL, inl);
    expect_cqe(r, a->scq, 0xa2, AXON_WC_SEND, AXON_WC_SUCCESS);
    expect_cqe(r, b->rcq, 0xb2, AXON_WC_RECV, AXON_WC_SUCCESS);
    check_mem(r, 1, 9000, inl, sizeof(inl));

    /* WRITE_WITH_IMM consumes a receive */
    post_recv(r, b, 0xb3, NULL, 0);
    memset(&w, 0, sizeof(w));
    w.opcode = AXON_WR_RDMA_WRITE_IMM;
    w.flags = AXON_WQE_SIGNALED;
    w.num_sge = 1;
    w.imm_data = cpu_to_be32(77);
    w.wr_id = cpu_to_le64(0xa3);
    w.remote_addr = cpu_to_le64(r->mr[1].iova + 200000);
    w.rkey = cpu_to_le32(r->mr[1].key);
    sg[0] = sge(r, 0, 0, 3000);
    post_send(r, a, &w, sg, NULL);
    expect_cqe(r, a->scq, 0xa3, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    g_assert_true(poll_cq(r, b->rcq, &cqe));
    g_assert_cmpuint(cqe.opcode, ==, AXON_WC_RECV_RDMA_WITH_IMM);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 3000);
    g_assert_cmphex(be32_to_cpu(cqe.imm_data), ==, 77);
    check_mem(r, 1, 200000, data, 3000);
    rdma_stop(r);
}

static void test_rdma_read_atomic(const void *dev_args)
{
    Rdma *r = rdma_setup_on(NULL, 7, false, dev_args);
    struct axon_send_wqe w = {};
    struct axon_sge sg[2];
    g_autofree uint8_t *data = pattern(10000, 5);
    uint64_t v = cpu_to_le64(100), got;
    TQp *a = &r->qp[0];
    int i;

    mr_access(r, 1, r->mr[1].iova + 33, data, 10000, true);
    /* several READs outstanding at once, into two SGEs each */
    for (i = 0; i < 3; i++) {
        sg[0] = sge(r, 0, i * 20000, 4000);
        sg[1] = sge(r, 0, i * 20000 + 8192 + 1, 6000);
        w.opcode = AXON_WR_RDMA_READ;
        w.flags = AXON_WQE_SIGNALED;
        w.num_sge = 2;
        w.wr_id = cpu_to_le64(0x100 + i);
        w.remote_addr = cpu_to_le64(r->mr[1].iova + 33);
        w.rkey = cpu_to_le32(r->mr[1].key);
        post_send(r, a, &w, sg, NULL);
    }
    for (i = 0; i < 3; i++) {
        expect_cqe(r, a->scq, 0x100 + i, AXON_WC_RDMA_READ, AXON_WC_SUCCESS);
        check_mem(r, 0, i * 20000, data, 4000);
        check_mem(r, 0, i * 20000 + 8192 + 1, data + 4000, 6000);
    }

    /* atomics on the responder's memory */
    mr_access(r, 1, r->mr[1].iova + 0x1000 - 0x123, &v, 8, true);
    sg[0] = sge(r, 0, 0x100, 8);
    memset(&w, 0, sizeof(w));
    w.opcode = AXON_WR_ATOMIC_FETCH_ADD;
    w.flags = AXON_WQE_SIGNALED | AXON_WQE_FENCE;
    w.num_sge = 1;
    w.wr_id = cpu_to_le64(0x200);
    w.remote_addr = cpu_to_le64(r->mr[1].iova + 0x1000 - 0x123);
    w.rkey = cpu_to_le32(r->mr[1].key);
    w.compare_add = cpu_to_le64(5);
    post_send(r, a, &w, sg, NULL);
    expect_cqe(r, a->scq, 0x200, AXON_WC_FETCH_ADD, AXON_WC_SUCCESS);
    mr_access(r, 0, r->mr[0].iova + 0x100, &got, 8, false);
    g_assert_cmpuint(le64_to_cpu(got), ==, 100);
    w.opcode = AXON_WR_ATOMIC_CMP_SWP;
    w.wr_id = cpu_to_le64(0x201);
    w.compare_add = cpu_to_le64(105);
    w.swap = cpu_to_le64(0x123456789ULL);
    post_send(r, a, &w, sg, NULL);
    expect_cqe(r, a->scq, 0x201, AXON_WC_COMP_SWAP, AXON_WC_SUCCESS);
    mr_access(r, 0, r->mr[0].iova + 0x100, &got, 8, false);
    g_assert_cmpuint(le64_to_cpu(got), ==, 105);
    mr_access(r, 1, r->mr[1].iova + 0x1000 - 0x123, &got, 8, false);
    g_assert_cmphex(le64_to_cpu(got), ==, 0x123456789ULL);
    /* misaligned: the responder refuses, both QPs go to ERR */
    w.wr_id = cpu_to_le64(0x202);
    w.remote_addr = cpu_to_le64(r->mr[1].iova + 4);
    post_send(r, a, &w, sg, NULL);
    expect_cqe(r, a->scq, 0x202, 0, AXON_WC_REM_INV_REQ_ERR);
    g_assert_cmpuint(qp_state(r->a, a->qpn), ==, AXON_QPS_ERR);
    g_assert_cmpuint(qp_state(r->a, r->qp[1].qpn), ==, AXON_QPS_ERR);
    rdma_stop(r);
}

/*
 * A long READ is asked in parts of a wire window (256 KiB at MTU 1024),
 * each a READ request with PSNs of its own, in loopback as on the wire:
 * the responder is never asked for more at once
 * (Documentation/wire-security.rst, "READs in bursts").
 */
static void test_rdma_read_parts(void)
{
    Rdma *r = rdma_setup(7);
    TQp *a = &r->qp[0], *b = &r->qp[1];
    uint32_t len = 1000000, n = DIV_ROUND_UP(len, R_MTU);
    g_autofree uint8_t *data = pattern(len, 9);
    struct axon_qp_live st[2];

    mr_access(r, 1, r->mr[1].iova + 100, data, len, true);
    qp_live(r->a, b->qpn, &st[0]);
    post_sge_wqe(r, a, AXON_WR_RDMA_READ, 0, 0x300, 0, len, 100,
                 r->mr[1].key);
    expect_cqe(r, a->scq, 0x300, AXON_WC_RDMA_READ, AXON_WC_SUCCESS);
    check_mem(r, 0, 0, data, len);
    qp_live(r->a, b->qpn, &st[1]);
    /* 977 responses: requests for 256, 256, 256 and 209 of them */
    g_assert_cmpuint(le64_to_cpu(st[1].cnt.rx_pkts) -
                     le64_to_cpu(st[0].cnt.rx_pkts), ==, 4);
    g_assert_cmphex(le32_to_cpu(st[1].epsn), ==,
                    (le32_to_cpu(st[0].epsn) + n) & AXON_PSN_MASK);
    g_assert_cmpuint(le64_to_cpu(st[1].cnt.dup_reqs), ==, 0);
    rdma_stop(r);
}

/*
 * An MR of len bytes at iova in 64 KiB pages, page j on block j % blocks
 * of the guest memory at phys: a long MR over little memory.
 */
static uint32_t repeat_mr(Rdma *r, uint64_t iova, uint64_t len,
                          uint64_t phys, unsigned blocks)
{
    uint32_t npages = len >> 16, j;
    g_autofree uint64_t *pbl = g_new(uint64_t, npages);
    uint64_t key;

    for (j = 0; j < npages; j++) {
        pbl[j] = cpu_to_le64(phys + ((uint64_t)(j % blocks) << 16));
    }
    qtest_memwrite(r->a->qts, PBL_ADDR, pbl, npages * sizeof(*pbl));
    g_assert_cmpuint(create_mr(r->a, r->pdn, AXON_ACCESS_ALL, iova, len,
                               npages, 16, 1, &key), ==, AXON_ADMIN_SUCCESS);
    return key;
}

/*
 * A 64 MiB READ in loopback: 256 requests, at most max_rd_atomic (16) of
 * them outstanding at once (the responder NAKs a 17th: it keeps no more),
 * answered in bursts; it completes. Responder page j is on block j % 5,
 * requester page j on block j % 4: the last page written on requester
 * block k (page 1020 + k) is read from responder block k.
 */
static void test_rdma_read_long(void)
{
    Rdma *r = rdma_setup(7);
    TQp *a = &r->qp[0], *b = &r->qp[1];
    uint64_t len = 64 * MiB, src = 0x4000000, dst = 0x4800000;
    uint64_t riova = 0x7e0000000000ULL, liova = 0x7e1000000000ULL;
    uint32_t rkey = repeat_mr(r, riova, len, src, 5);
    uint32_t lkey = repeat_mr(r, liova, len, dst, 4);
    struct axon_send_wqe w = {
        .opcode = AXON_WR_RDMA_READ,
        .flags = AXON_WQE_SIGNALED,
        .num_sge = 1,
        .wr_id = cpu_to_le64(0x301),
        .remote_addr = cpu_to_le64(riova),
        .rkey = cpu_to_le32(rkey),
    };
    struct axon_sge sg = {
        .addr = cpu_to_le64(liova),
        .length = cpu_to_le32(len),
        .lkey = cpu_to_le32(lkey),
    };
    struct axon_qp_live st[2];
    int k;

    for (k = 0; k < 5; k++) {
        g_autofree uint8_t *blk = pattern(64 * KiB, 40 + k);

        qtest_memwrite(r->a->qts, src + k * 64 * KiB, blk, 64 * KiB);
    }
    qp_live(r->a, b->qpn, &st[0]);
    post_send(r, a, &w, &sg, NULL);
    expect_cqe(r, a->scq, 0x301, AXON_WC_RDMA_READ, AXON_WC_SUCCESS);
    qp_live(r->a, b->qpn, &st[1]);
    g_assert_cmpuint(le64_to_cpu(st[1].cnt.rx_pkts) -
                     le64_to_cpu(st[0].cnt.rx_pkts), ==, len / (256 * KiB));
    g_assert_cmpuint(le64_to_cpu(st[1].cnt.tx_pkts) -
                     le64_to_cpu(st[0].cnt.tx_pkts), ==, len / R_MTU);
    g_assert_cmpuint(le64_to_cpu(st[1].cnt.err_naks_sent), ==, 0);
    for (k = 0; k < 4; k++) {
        g_autofree uint8_t *want = pattern(64 * KiB, 40 + k);
        g_autofree uint8_t *got = g_malloc(64 * KiB);

        qtest_memread(r->a->qts, dst + k * 64 * KiB, got, 64 * KiB);
        g_assert_cmpmem(got, 64 * KiB, want, 64 * KiB);
    }
    g_assert_cmpuint(qp_state(r->a, a->qpn), ==, AXON_QPS_RTS);
    g_assert_cmpuint(qp_state(r->a, b->qpn), ==, AXON_QPS_RTS);
    rdma_stop(r);
}

static void test_rdma_errors(void)
{
    Rdma *r = rdma_setup(0);
    struct axon_send_wqe w = {};
    struct axon_sge sg[1];
    struct axon_cqe cqe;
    TQp *a = &r->qp[0], *b = &r->qp[1];
    uint64_t key;

    /* a SEND without a posted receive: RNR, no retries left */
    sg[0] = sge(r, 0, 0, 100);
    w.opcode = AXON_WR_SEND;
    w.num_sge = 1;
    w.wr_id = cpu_to_le64(1);
    post_send(r, a, &w, sg, NULL);
    expect_cqe(r, a->scq, 1, 0, AXON_WC_RNR_RETRY_EXC_ERR);
    /* later WQEs are flushed, also those posted in ERR */
    w.wr_id = cpu_to_le64(2);
    post_send(r, a, &w, sg, NULL);
    expect_cqe(r, a->scq, 2, 0, AXON_WC_WR_FLUSH_ERR);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_NAKS), >=, 1);
    rdma_stop(r);

    /* RNR retried: the receive comes late, or never (one retry) */
    for (int retries = 7; retries >= 1; retries -= 6) {
        r = rdma_setup(retries);
        a = &r->qp[0];
        b = &r->qp[1];
        sg[0] = sge(r, 0, 0, 100);
        w.opcode = AXON_WR_SEND;
        w.flags = AXON_WQE_SIGNALED;
        w.num_sge = 1;
        w.wr_id = cpu_to_le64(retries);
        post_send(r, a, &w, sg, NULL);
        qtest_clock_step(r->a->qts, 300 * 1000 * 1000);
        if (retries == 7) {
            sg[0] = sge(r, 1, 0, 100);
            post_recv(r, b, 0xb7, sg, 1);
            expect_cqe(r, b->rcq, 0xb7, AXON_WC_RECV, AXON_WC_SUCCESS);
            expect_cqe(r, a->scq, 7, AXON_WC_SEND, AXON_WC_SUCCESS);
        } else {
            expect_cqe(r, a->scq, 1, 0, AXON_WC_RNR_RETRY_EXC_ERR);
        }
        rdma_stop(r);
    }

    /* a WRITE into an MR without REMOTE_WRITE */
    r = rdma_setup(7);
    a = &r->qp[0];
    b = &r->qp[1];
    qtest_writeq(r->a->qts, PBL_ADDR, MEM_ADDR(1));
    g_assert_cmpuint(create_mr(r->a, r->pdn, AXON_ACCESS_LOCAL_WRITE |
                               AXON_ACCESS_REMOTE_READ, 0x1000, 4096, 1, 12,
                               1, &key), ==, AXON_ADMIN_SUCCESS);
    post_recv(r, b, 0xb0, NULL, 0);
    sg[0] = sge(r, 0, 0, 100);
    w.opcode = AXON_WR_RDMA_WRITE;
    w.wr_id = cpu_to_le64(3);
    w.remote_addr = cpu_to_le64(0x1000);
    w.rkey = cpu_to_le32(key);
    post_send(r, a, &w, sg, NULL);
    expect_cqe(r, a->scq, 3, 0, AXON_WC_REM_ACCESS_ERR);
    expect_cqe(r, b->rcq, 0xb0, 0, AXON_WC_WR_FLUSH_ERR);
    g_assert_cmpuint(qp_state(r->a, b->qpn), ==, AXON_QPS_ERR);
    /* one error NAK each way in the QPs' counters, one error each */
    {
        struct axon_qp_live la, lb;

        qp_live(r->a, a->qpn, &la);
        qp_live(r->a, b->qpn, &lb);
        g_assert_cmpuint(le32_to_cpu(la.state), ==, AXON_QPS_ERR);
        g_assert_cmpuint(le64_to_cpu(lb.cnt.err_naks_sent), ==, 1);
        g_assert_cmpuint(le64_to_cpu(la.cnt.err_naks_rcvd), ==, 1);
        g_assert_cmpuint(le64_to_cpu(la.cnt.remote_errs), ==, 1);
        g_assert_cmpuint(le64_to_cpu(la.cnt.local_errs), ==, 0);
        g_assert_cmpuint(le64_to_cpu(lb.cnt.local_errs) +
                         le64_to_cpu(lb.cnt.remote_errs), ==, 0);
        g_assert_cmpuint(le64_to_cpu(lb.cnt.rx_pkts), ==, 1);
        g_assert_cmpuint(le64_to_cpu(lb.cnt.rx_bytes), ==, 100);
    }
    rdma_stop(r);

    /* out of the MR's bounds, and a deregistered key */
    r = rdma_setup(7);
    a = &r->qp[0];
    sg[0] = sge(r, 0, 0, 100);
    w.opcode = AXON_WR_RDMA_READ;
    w.wr_id = cpu_to_le64(4);
    w.remote_addr = cpu_to_le64(r->mr[1].iova + MEM_PAGES * 4096ULL - 0x123 -
                                50);
    w.rkey = cpu_to_le32(r->mr[1].key);
    post_send(r, a, &w, sg, NULL);
    expect_cqe(r, a->scq, 4, 0, AXON_WC_REM_ACCESS_ERR);
    rdma_stop(r);

    r = rdma_setup(7);
    a = &r->qp[0];
    g_assert_cmpuint(destroy_mr(r->a, r->mr[0].key), ==, AXON_ADMIN_SUCCESS);
    sg[0] = sge(r, 0, 0, 100);
    w.opcode = AXON_WR_RDMA_WRITE;
    w.wr_id = cpu_to_le64(5);
    w.remote_addr = cpu_to_le64(r->mr[1].iova);
    w.rkey = cpu_to_le32(r->mr[1].key);
    post_send(r, a, &w, sg, NULL);
    expect_cqe(r, a->scq, 5, 0, AXON_WC_LOC_PROT_ERR);
    g_assert_true(!poll_cq(r, r->qp[1].rcq, &cqe) ||
                  cqe.status == AXON_WC_WR_FLUSH_ERR);
    rdma_stop(r);
}

static void test_rdma_garbage_wqe(void)
{
    static const struct { uint8_t opcode, num_sge, flags; } bad[] = {
        { 0x77, 0, 0 },
        { AXON_WR_SEND, 200, 0 },
        { AXON_WR_RDMA_READ, 0, AXON_WQE_INLINE },
        { AXON_WR_SEND, 1, 0x80 },
    };
    struct axon_sge sg[28];
    size_t i;

    memset(sg, 0xee, sizeof(sg));
    for (i = 0; i < ARRAY_SIZE(bad); i++) {
        Rdma *r = rdma_setup(7);
        struct axon_send_wqe w = {};
        TQp *a = &r->qp[0];

        g_test_message("garbage WQE %zu", i);
        w.opcode = bad[i].opcode;
        w.num_sge = bad[i].num_sge;
        w.flags = bad[i].flags | AXON_WQE_SIGNALED;
        w.wr_id = cpu_to_le64(0x600 + i);
        w.inline_len = cpu_to_le32(bad[i].flags & AXON_WQE_INLINE ? 8 : 0);
        post_send(r, a, &w, sg, NULL);
        w.wr_id = cpu_to_le64(0x700 + i);
        post_send(r, a, &w, sg, NULL);
        expect_cqe(r, a->scq, 0x600 + i, 0, AXON_WC_LOC_QP_OP_ERR);
        expect_cqe(r, a->scq, 0x700 + i, 0, AXON_WC_WR_FLUSH_ERR);
        g_assert_cmpuint(qp_state(r->a, a->qpn), ==, AXON_QPS_ERR);
        g_assert_cmphex(rd(r->a, AXON_REG_STATUS), ==, AXON_STATUS_READY);
        rdma_stop(r);
    }
    /* a bad lkey in an SGE */
    {
        Rdma *r = rdma_setup(7);
        struct axon_send_wqe w = {};
        TQp *a = &r->qp[0];

        sg[0] = sge(r, 0, 0, 100);
        sg[0].lkey = cpu_to_le32(r->mr[0].key ^ 1);
        w.opcode = AXON_WR_SEND;
        w.num_sge = 1;
        w.wr_id = cpu_to_le64(0x800);
        post_send(r, a, &w, sg, NULL);
        expect_cqe(r, a->scq, 0x800, 0, AXON_WC_LOC_PROT_ERR);
        rdma_stop(r);
    }
}

static void test_rdma_cq_overflow(void)
{
    Rdma *r = rdma_setup(7);
    struct axon_send_wqe w = {};
    struct axon_event ev;
    TQp *a = &r->qp[0];
    int i;

    /* 64 CQEs fill the CQ: nobody consumes them */
    w.opcode = AXON_WR_RDMA_WRITE;
    w.flags = AXON_WQE_SIGNALED;
    w.rkey = cpu_to_le32(r->mr[1].key);
    w.remote_addr = cpu_to_le64(r->mr[1].iova);
    for (i = 0; i < R_CQ_DEPTH; i++) {
        post_send(r, a, &w, NULL, NULL);
    }
    g_assert_true(wait_word(r->a, a->scq->ring + (R_CQ_DEPTH - 1) *
                            AXON_CQE_SIZE + offsetof(struct axon_cqe, flags),
                            AXON_CQE_PHASE));
    /* the 65th overflows it: the device stops and says so */
    post_send(r, a, &w, NULL, NULL);
    g_assert_true(wait_word(r->a, EQ_ADDR, AXON_EVENT_CQ_ERROR |
                            AXON_EVENT_PHASE << 16));
    qtest_memread(r->a->qts, EQ_ADDR, &ev, sizeof(ev));
    g_assert_cmpuint(le32_to_cpu(ev.param), ==, a->scq->cqn);
    /* the first CQE was not overwritten */
    g_assert_cmphex(qtest_readb(r->a->qts, a->scq->ring +
                                offsetof(struct axon_cqe, flags)), ==,
                    AXON_CQE_PHASE);
    g_assert_cmphex(rd(r->a, AXON_REG_STATUS), ==, AXON_STATUS_READY);
    rdma_stop(r);
}

/* QP 0 writes n signaled WRITEs, wr_id first, first + 1, ... */
static void post_writes(Rdma *r, uint64_t first, int n)
{
    struct axon_send_wqe w = {};
    TQp *a = &r->qp[0];

    w.opcode = AXON_WR_RDMA_WRITE;
    w.flags = AXON_WQE_SIGNALED;
    w.rkey = cpu_to_le32(r->mr[1].key);
    w.remote_addr = cpu_to_le64(r->mr[1].iova);
    for (int i = 0; i < n; i++) {
        w.wr_id = cpu_to_le64(first + i);
        post_send(r, a, &w, NULL, NULL);
    }
}

static void expect_writes(Rdma *r, uint64_t first, int n)
{
    for (int i = 0; i < n; i++) {
        expect_cqe(r, r->qp[0].scq, first + i, AXON_WC_RDMA_WRITE,
                   AXON_WC_SUCCESS);
    }
}

/*
 * RESIZE_CQ keeps the CQE indices: the CQEs waiting move to the new ring,
 * the consumer goes on from its index there, on the second pass over the
 * old ring and the new one, and the new depth bounds the CQ.
 */
static void test_rdma_cq_resize(void)
{
    Rdma *r = rdma_setup(7);
    TCq *cq = r->qp[0].scq;
    uint64_t big = RCQ_ADDR(4), small = RCQ_ADDR(5), old = cq->ring;
    uint8_t before[R_CQ_DEPTH * AXON_CQE_SIZE], after[sizeof(before)];
    struct axon_event ev;

    /* 80 written, 70 consumed: the indices are on the ring's second pass */
    post_writes(r, 0, 40);
    expect_writes(r, 0, 40);
    post_writes(r, 40, 40);
    expect_writes(r, 40, 30);
    g_assert_true(wait_word(r->a, old + (79 % R_CQ_DEPTH) * AXON_CQE_SIZE +
                            offsetof(struct axon_cqe, flags), 0));

    /* refused, the CQ left as it was */
    g_assert_cmpuint(resize_cq(r->a, cq->cqn, big, 96), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(resize_cq(r->a, cq->cqn, big + 8, 128), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(resize_cq(r->a, cq->cqn, 0, 128), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(resize_cq(r->a, cq->cqn, big, AXON_CQ_MAX_DEPTH * 2), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(resize_cq(r->a, 999, big, 128), ==,
                     AXON_ADMIN_BAD_HANDLE);
    /* 10 CQEs wait: 8 slots cannot hold them */
    g_assert_cmpuint(resize_cq(r->a, cq->cqn, big, 8), ==,
                     AXON_ADMIN_BAD_PARAM);
    {
        struct axon_admin_cmd cmd = {};

        cmd.cq.cqn = cpu_to_le32(cq->cqn);
        cmd.cq.ring_addr = cpu_to_le64(big);
        cmd.cq.depth = cpu_to_le32(128);
        cmd.cq.uar = cpu_to_le32(R_UAR);
        g_assert_cmpuint(cmd_result(r->a, &cmd, AXON_ADMIN_RESIZE_CQ, NULL),
                         ==, AXON_ADMIN_BAD_PARAM);
    }

    /* grow: the 10 waiting CQEs are in the new ring at their indices */
    g_assert_cmpuint(resize_cq(r->a, cq->cqn, big, 128), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(qtest_readl(r->a->qts, big + 128 * AXON_CQE_SIZE), ==,
                     70);
    qtest_memread(r->a->qts, old, before, sizeof(before));
    cq->ring = big;
    cq->depth = 128;
    expect_writes(r, 70, 10);
    /* more than the old depth, past the new ring's end: old ring untouched */
    post_writes(r, 80, 50);
    expect_writes(r, 80, 50);
    post_writes(r, 130, 50);
    expect_writes(r, 130, 50);
    post_writes(r, 180, 60);
    expect_writes(r, 180, 60);
    qtest_memread(r->a->qts, old, after, sizeof(after));
    g_assert_cmpmem(before, sizeof(before), after, sizeof(after));

    /* shrink with 5 waiting, on the new ring's second pass */
    post_writes(r, 240, 5);
    g_assert_true(wait_word(r->a, big + (244 % 128) * AXON_CQE_SIZE +
                            offsetof(struct axon_cqe, flags), 0));
    g_assert_cmpuint(resize_cq(r->a, cq->cqn, small, 16), ==,
                     AXON_ADMIN_SUCCESS);
    cq->ring = small;
    cq->depth = 16;
    expect_writes(r, 240, 5);
    /* 16 more fill it; the 17th overflows the new depth */
    post_writes(r, 245, 17);
    g_assert_true(wait_word(r->a, EQ_ADDR, AXON_EVENT_CQ_ERROR |
                            AXON_EVENT_PHASE << 16));
    qtest_memread(r->a->qts, EQ_ADDR, &ev, sizeof(ev));
    g_assert_cmpuint(le32_to_cpu(ev.param), ==, cq->cqn);
    expect_writes(r, 245, 16);
    /* an overflowed CQ stays where it is */
    g_assert_cmpuint(resize_cq(r->a, cq->cqn, big, 128), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmphex(rd(r->a, AXON_REG_STATUS), ==, AXON_STATUS_READY);
    rdma_stop(r);
}

/* RESIZE_CQ (or CREATE_CQ with cqn 0) onto a ring in the given pages. */
static uint16_t cq_in_pages(Rdma *r, uint16_t op, uint32_t cqn,
                            uint32_t depth, const uint64_t *pages,
                            uint32_t npages, uint8_t levels, uint64_t *res)
{
    struct axon_admin_cmd cmd = {};
    uint64_t pbl[16];

    for (uint32_t i = 0; i < npages; i++) {
        pbl[i] = cpu_to_le64(pages[i]);
    }
    qtest_memwrite(r->a->qts, PBL_ADDR, pbl, npages * 8);
    cmd.cq.cqn = cpu_to_le32(cqn);
    cmd.cq.ring_addr = cpu_to_le64(PBL_ADDR);
    cmd.cq.depth = cpu_to_le32(depth);
    cmd.cq.npages = cpu_to_le32(npages);
    cmd.cq.levels = levels;
    return cmd_result(r->a, &cmd, op, res);
}

/*
 * A CQ ring in 4 KiB pages out of order: CQEs and the consumer index go
 * to the page of their offset, around the ring many times, and back to a
 * contiguous ring with CQEs waiting.
 */
static void test_rdma_cq_pages(void)
{
    Rdma *r = rdma_setup(7);
    TCq *cq = r->qp[0].scq;
    /* 256 CQEs and the record: 3 pages */
    static const uint64_t pages[3] = { RCQ_ADDR(8), RCQ_ADDR(6), RCQ_ADDR(7) };
    uint64_t bad[3] = { RCQ_ADDR(8), RCQ_ADDR(6) + 8, RCQ_ADDR(7) }, cqn;

    /* refused: a page list of the wrong length, levels, a page unaligned */
    g_assert_cmpuint(cq_in_pages(r, AXON_ADMIN_RESIZE_CQ, cq->cqn, 256, pages,
                                 2, 1, NULL), ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(cq_in_pages(r, AXON_ADMIN_RESIZE_CQ, cq->cqn, 256, pages,
                                 3, 3, NULL), ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(cq_in_pages(r, AXON_ADMIN_RESIZE_CQ, cq->cqn, 256, bad,
                                 3, 1, NULL), ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(cq_in_pages(r, AXON_ADMIN_CREATE_CQ, 0, 256, bad, 3, 1,
                                 NULL), ==, AXON_ADMIN_BAD_PARAM);
    /* a new CQ in pages */
    g_assert_cmpuint(cq_in_pages(r, AXON_ADMIN_CREATE_CQ, 0, 256, pages, 3, 1,
                                 &cqn), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(destroy_cq(r->a, cqn), ==, AXON_ADMIN_SUCCESS);

    /* QP 0's send CQ moves into the pages with 5 CQEs waiting */
    post_writes(r, 0, 5);
    g_assert_true(wait_word(r->a, cq->ring + 4 * AXON_CQE_SIZE +
                            offsetof(struct axon_cqe, flags),
                            AXON_CQE_PHASE));
    g_assert_cmpuint(cq_in_pages(r, AXON_ADMIN_RESIZE_CQ, cq->cqn, 256, pages,
                                 3, 1, NULL), ==, AXON_ADMIN_SUCCESS);
    cq->pages = pages;
    cq->depth = 256;
    g_assert_cmpuint(qtest_readl(r->a->qts, tcq_addr(cq, 256 * AXON_CQE_SIZE)),
                     ==, 0);
    expect_writes(r, 0, 5);
    /* 600 more: the ring's pages, two and a half times around */
    for (int i = 0; i < 12; i++) {
        post_writes(r, 5 + 50 * i, 50);
        expect_writes(r, 5 + 50 * i, 50);
    }
    /* back to a contiguous ring, 7 waiting on the pages */
    post_writes(r, 605, 7);
    g_assert_true(wait_word(r->a, tcq_addr(cq, (611 % 256) * AXON_CQE_SIZE +
                                                offsetof(struct axon_cqe,
                                                         flags)),
                            AXON_CQE_PHASE));
    g_assert_cmpuint(resize_cq(r->a, cq->cqn, RCQ_ADDR(4), 64), ==,
                     AXON_ADMIN_SUCCESS);
    cq->pages = NULL;
    cq->ring = RCQ_ADDR(4);
    cq->depth = 64;
    expect_writes(r, 605, 7);
    post_writes(r, 612, 40);
    expect_writes(r, 612, 40);
    g_assert_cmphex(rd(r->a, AXON_REG_STATUS), ==, AXON_STATUS_READY);
    rdma_stop(r);
}

static uint64_t clock_now(Axon *a)
{
    return qpci_io_readq(a->dev, a->bar, AXON_CLOCK_PAGE + AXON_CLOCK_LO);
}

/* The device clock of CQE idx of a CQ of struct axon_cqe_ts. */
static uint64_t cqe_timestamp(Rdma *r, TCq *cq, uint64_t ring, uint32_t idx)
{
    return qtest_readq(r->a->qts, ring + (idx % cq->depth) * AXON_CQE_TS_SIZE +
                                  offsetof(struct axon_cqe_ts, timestamp));
}

/* RESIZE_CQ with the CQ flags given. */
static uint16_t resize_cq_flags(Rdma *r, TCq *cq, uint64_t ring,
                                uint32_t depth, uint8_t flags)
{
    struct axon_admin_cmd cmd = {};

    cmd.cq.cqn = cpu_to_le32(cq->cqn);
    cmd.cq.ring_addr = cpu_to_le64(ring);
    cmd.cq.depth = cpu_to_le32(depth);
    cmd.cq.flags = flags;
    return cmd_result(r->a, &cmd, AXON_ADMIN_RESIZE_CQ, NULL);
}

/*
 * The clock page: 64-bit and 32-bit reads of a nanosecond count that
 * moves with the virtual clock, nothing else in the page, writes ignored.
 * CQs of 64-byte CQEs stamp each CQE with it, keep their stamps across a
 * RESIZE_CQ, and keep their CQE size.
 */
static void test_rdma_cq_timestamp(void)
{
    Rdma *r = rdma_setup(7);
    Axon *a = r->a;
    uint64_t t0, t1, v, stamps[3];
    int i;

    g_assert_cmphex(rd(a, AXON_REG_CAPS) & AXON_CAP_CLOCK, ==, AXON_CAP_CLOCK);
    t0 = clock_now(a);
    axon_step(a, 1000000);
    t1 = clock_now(a);
    g_assert_cmpuint(t1 - t0, ==, 1000000);
    g_assert_cmphex(AXON_REG_U64(qpci_io_readl(a->dev, a->bar, AXON_CLOCK_PAGE +
                                               AXON_CLOCK_HI),
                                 qpci_io_readl(a->dev, a->bar, AXON_CLOCK_PAGE +
                                               AXON_CLOCK_LO)), ==, t1);
    qpci_io_writeq(a->dev, a->bar, AXON_CLOCK_PAGE + AXON_CLOCK_LO, 0);
    g_assert_cmpuint(clock_now(a), ==, t1);
    g_assert_cmphex(qpci_io_readl(a->dev, a->bar, AXON_CLOCK_PAGE + 8), ==, 0);
    g_assert_cmphex(qpci_io_readl(a->dev, a->bar, AXON_CLOCK_PAGE + 0xffc), ==,
                    0);

    /* unknown flags refused */
    g_assert_cmpuint(create_cq_flags(a, RCQ_ADDR(4), 64, R_UAR, 0x2, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    /* QPs 0 and 1 again, on CQs of 64-byte CQEs */
    for (i = 0; i < 2; i++) {
        g_assert_cmpuint(qp_cmd(a, AXON_ADMIN_DESTROY_QP, r->qp[i].qpn, 0, 0),
                         ==, AXON_ADMIN_SUCCESS);
        g_assert_cmpuint(destroy_cq(a, r->cq[i].cqn), ==, AXON_ADMIN_SUCCESS);
    }
    for (i = 0; i < 2; i++) {
        TCq *cq = &r->cq[i];
        TQp *qp = &r->qp[i];

        qtest_memset(a->qts, cq->ring, 0, 0x10000);
        g_assert_cmpuint(create_cq_flags(a, cq->ring, R_CQ_DEPTH, R_UAR,
                                         AXON_CQ_TIMESTAMP, &v), ==,
                         AXON_ADMIN_SUCCESS);
        *cq = (TCq){ .cqn = v, .ring = cq->ring, .depth = R_CQ_DEPTH,
                     .cqe_size = AXON_CQE_TS_SIZE };
        qtest_memset(a->qts, qp->sq, 0, 0x10000);
        g_assert_cmpuint(create_qp(a, r->pdn, cq->cqn, cq->cqn, qp->sq, qp->rq,
                                   R_WQ_DEPTH, 0, &v), ==, AXON_ADMIN_SUCCESS);
        qp->qpn = v;
        qp->sq_pi = qp->rq_pi = 0;
    }
    connect_qp(r, &r->qp[0], r->qp[1].qpn, 0x10, 0x20, 7);
    connect_qp(r, &r->qp[1], r->qp[0].qpn, 0x20, 0x10, 7);

    /* 100 writes around the ring, 5 us apart in 4 batches: stamps in order */
    t0 = clock_now(a);
    for (i = 0; i < 4; i++) {
        axon_step(a, 5000);
        post_writes(r, 25 * i, 25);
        expect_writes(r, 25 * i, 25);
    }
    t1 = clock_now(a);
    v = t0;
    for (i = 100 - R_CQ_DEPTH; i < 100; i++) {
        uint64_t ts = cqe_timestamp(r, r->qp[0].scq, r->cq[0].ring, i);

        g_assert_cmpuint(ts, >=, v);
        v = ts;
        g_assert_cmphex(qtest_readq(a->qts, r->cq[0].ring +
                                    (i % R_CQ_DEPTH) * AXON_CQE_TS_SIZE + 40),
                        ==, 0);
    }
    g_assert_cmpuint(v, <=, t1);
    /* slot 0 holds CQE 64, of the third batch */
    g_assert_cmpuint(cqe_timestamp(r, r->qp[0].scq, r->cq[0].ring, 0), >=,
                     t0 + 3 * 5000);

    /* 3 waiting (second pass: phase 0) move with their stamps */
    post_writes(r, 100, 3);
    g_assert_true(wait_word(a, r->cq[0].ring + (102 % R_CQ_DEPTH) *
                            AXON_CQE_TS_SIZE + offsetof(struct axon_cqe, flags),
                            0));
    for (i = 0; i < 3; i++) {
        stamps[i] = cqe_timestamp(r, r->qp[0].scq, r->cq[0].ring, 100 + i);
    }
    g_assert_cmpuint(resize_cq_flags(r, &r->cq[0], RCQ_ADDR(4), 128, 0), ==,
                     AXON_ADMIN_BAD_PARAM);
    qtest_memset(a->qts, RCQ_ADDR(4), 0, 0x10000);
    g_assert_cmpuint(resize_cq_flags(r, &r->cq[0], RCQ_ADDR(4), 128,
                                     AXON_CQ_TIMESTAMP), ==,
                     AXON_ADMIN_SUCCESS);
    r->cq[0].ring = RCQ_ADDR(4);
    r->cq[0].depth = 128;
    g_assert_cmpuint(qtest_readl(a->qts, RCQ_ADDR(4) + 128 * AXON_CQE_TS_SIZE),
                     ==, 100);
    for (i = 0; i < 3; i++) {
        g_assert_cmpuint(cqe_timestamp(r, r->qp[0].scq, RCQ_ADDR(4), 100 + i),
                         ==, stamps[i]);
    }
    expect_writes(r, 100, 3);
    axon_step(a, 5000);
    post_writes(r, 103, 30);
    expect_writes(r, 103, 30);
    g_assert_cmpuint(cqe_timestamp(r, r->qp[0].scq, RCQ_ADDR(4), 132), >,
                     stamps[2]);
    g_assert_cmphex(rd(a, AXON_REG_STATUS), ==, AXON_STATUS_READY);
    rdma_stop(r);
}

/* REREG_MR of MR i: its pages as they are, the rest as given. */
static uint16_t rereg_mr(Rdma *r, int i, uint32_t key, uint32_t pdn,
                         uint32_t access, uint64_t iova, uint32_t npages)
{
    struct axon_admin_cmd cmd = {};
    uint64_t pbl[MEM_PAGES];

    for (int p = 0; p < MEM_PAGES; p++) {
        pbl[p] = cpu_to_le64(r->mr[i].pages[p]);
    }
    qtest_memwrite(r->a->qts, PBL_ADDR, pbl, sizeof(pbl));
    cmd.mr.key = cpu_to_le32(key);
    cmd.mr.pdn = cpu_to_le32(pdn);
    cmd.mr.access = cpu_to_le32(access);
    cmd.mr.iova = cpu_to_le64(iova);
    cmd.mr.length = cpu_to_le64(MEM_PAGES * 4096ULL - 0x123 - 5);
    cmd.mr.pbl_addr = cpu_to_le64(PBL_ADDR);
    cmd.mr.npages = cpu_to_le32(npages);
    cmd.mr.page_shift = 12;
    cmd.mr.levels = 1;
    return cmd_result(r->a, &cmd, AXON_ADMIN_REREG_MR, NULL);
}

/* QP 0 WRITEs 64 bytes of pattern seed to MR 1 at off; the status. */
static uint8_t write_mr1(Rdma *r, uint64_t off, uint8_t seed, uint64_t wr_id)
{
    g_autofree uint8_t *data = pattern(64, seed);
    struct axon_cqe cqe;

    mr_access(r, 0, r->mr[0].iova + 300000, data, 64, true);
    post_rdma0(r, AXON_WR_RDMA_WRITE, r->mr[1].key, r->mr[1].iova + off, 64,
               wr_id);
    g_assert_true(poll_cq(r, r->qp[0].scq, &cqe));
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, wr_id);
    if (cqe.status == AXON_WC_SUCCESS) {
        check_mem(r, 1, off, data, 64);
    }
    return cqe.status;
}

/*
 * REREG_MR keeps the key and changes the rest at once: a failed one
 * changes nothing, then a new range, access and PD each decide what the
 * next WRITE through the key meets.
 */
static void test_rdma_mr_rereg(void)
{
    Rdma *r = rdma_setup(7);
    uint32_t key = r->mr[1].key, pdn = r->pdn;
    uint64_t iova = r->mr[1].iova, moved = iova + 0x1000000, pdn2;
    struct axon_admin_cmd cmd = {};

    g_assert_cmpuint(write_mr1(r, 100, 1, 1), ==, AXON_WC_SUCCESS);
    /* refused: stale key, no PD, bad access, wrong page count, flags */
    g_assert_cmpuint(rereg_mr(r, 1, key ^ 1, pdn, AXON_ACCESS_ALL, moved,
                              MEM_PAGES), ==, AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(rereg_mr(r, 1, key, pdn + 100, AXON_ACCESS_ALL, moved,
                              MEM_PAGES), ==, AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(rereg_mr(r, 1, key, pdn, AXON_ACCESS_REMOTE_WRITE, moved,
                              MEM_PAGES), ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(rereg_mr(r, 1, key, pdn, AXON_ACCESS_ALL, moved,
                              MEM_PAGES - 1), ==, AXON_ADMIN_BAD_PARAM);
    cmd.mr.key = cpu_to_le32(key);
    cmd.mr.flags = cpu_to_le16(AXON_MR_FAST_REG);
    g_assert_cmpuint(cmd_result(r->a, &cmd, AXON_ADMIN_REREG_MR, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(write_mr1(r, 200, 2, 2), ==, AXON_WC_SUCCESS);

    /* another range over the same pages, the same key */
    g_assert_cmpuint(rereg_mr(r, 1, key, pdn, AXON_ACCESS_ALL, moved,
                              MEM_PAGES), ==, AXON_ADMIN_SUCCESS);
    r->mr[1].iova = moved;
    g_assert_cmpuint(write_mr1(r, 300, 3, 3), ==, AXON_WC_SUCCESS);
    /* the old range is gone: the responder refuses, the QPs stop */
    r->mr[1].iova = iova;
    g_assert_cmpuint(write_mr1(r, 400, 4, 4), ==, AXON_WC_REM_ACCESS_ERR);
    rdma_stop(r);

    /* no remote write any more */
    r = rdma_setup(7);
    key = r->mr[1].key;
    g_assert_cmpuint(rereg_mr(r, 1, key, r->pdn, AXON_ACCESS_LOCAL_WRITE,
                              r->mr[1].iova, MEM_PAGES), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(write_mr1(r, 100, 5, 5), ==, AXON_WC_REM_ACCESS_ERR);
    rdma_stop(r);

    /* another PD: the QPs' PD no longer reaches it, and it holds the PD */
    r = rdma_setup(7);
    key = r->mr[1].key;
    g_assert_cmpuint(create_pd(r->a, &pdn2), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(rereg_mr(r, 1, key, pdn2, AXON_ACCESS_ALL,
                              r->mr[1].iova, MEM_PAGES), ==,
                     AXON_ADMIN_SUCCESS);
    memset(&cmd, 0, sizeof(cmd));
    cmd.pd.pdn = cpu_to_le32(pdn2);
    g_assert_cmpuint(cmd_result(r->a, &cmd, AXON_ADMIN_DESTROY_PD, NULL), ==,
                     AXON_ADMIN_BUSY);
    g_assert_cmpuint(write_mr1(r, 100, 6, 6), ==, AXON_WC_REM_ACCESS_ERR);
    g_assert_cmphex(rd(r->a, AXON_REG_STATUS), ==, AXON_STATUS_READY);
    rdma_stop(r);
}

static void test_rdma_doorbells(void)
{
    Rdma *r = rdma_setup(7);
    struct axon_send_wqe w = {};
    struct axon_sge sg[1];
    struct axon_cqe cqe;
    TQp *a = &r->qp[0];

    sg[0] = sge(r, 0, 0, 100);
    w.opcode = AXON_WR_RDMA_WRITE;
    w.flags = AXON_WQE_SIGNALED;
    w.num_sge = 1;
    w.remote_addr = cpu_to_le64(r->mr[1].iova);
    w.rkey = cpu_to_le32(r->mr[1].key);
    qtest_memwrite(r->a->qts, a->sq, &w, sizeof(w));
    qtest_memwrite(r->a->qts, a->sq + sizeof(w), sg, sizeof(sg));
    /* another context's page, a bad offset, an unknown QP, too many WQEs */
    ring(r, R_UAR + 1, AXON_DB_SQ, a->qpn, 1);
    ring(r, 0, AXON_DB_SQ, a->qpn, 1);
    ring(r, R_UAR, 0x10, a->qpn, 1);
    ring(r, R_UAR, AXON_DB_SQ, 1000, 1);
    ring(r, R_UAR, AXON_DB_SQ, a->qpn, R_WQ_DEPTH + 1);
    ring(r, R_UAR, AXON_DB_CQ_ARM, a->scq->cqn, 7);
    ring(r, R_UAR + 1, AXON_DB_CQ_ARM, a->scq->cqn, AXON_CQ_ARM_NEXT);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_DB_REJECTS), ==, 7);
    g_assert_false(poll_cq(r, a->scq, &cqe));
    /* the right page works */
    ring(r, R_UAR, AXON_DB_SQ, a->qpn, 1);
    g_assert_true(poll_cq(r, a->scq, &cqe));
    g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
    /* a producer index behind what the device took is refused */
    ring(r, R_UAR, AXON_DB_SQ, a->qpn, 0);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_DB_REJECTS), ==, 8);
    g_assert_false(poll_cq(r, a->scq, &cqe));
    rdma_stop(r);
}

/* n CQs of 16 entries, a page each: the CEQ's depth does not limit them */
static void make_cqs(Axon *a, uint64_t *cqn, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        g_assert_cmpuint(create_cq(a, MEM_ADDR(1) + i * 4096, 16, R_UAR,
                                   &cqn[i]), ==, AXON_ADMIN_SUCCESS);
    }
}

/*
 * A reset forgets every MR and CQ, wherever they sit in their tables (the
 * reset visits only the slots in use), and gives all their room back;
 * the keys registered afterwards are none of the old ones. The CQs are
 * more than the CEQ (of 64) has entries.
 */
static void test_rdma_reset_forgets(void)
{
    Axon *a = axon_start(NULL);
    uint64_t pdn, pbl, old[32], key, cqn[80];
    unsigned i, j;

    rdma_enable(a);
    g_assert_cmpuint(create_pd(a, &pdn), ==, AXON_ADMIN_SUCCESS);
    pbl = cpu_to_le64(MEM_ADDR(0));
    qtest_memwrite(a->qts, PBL_ADDR, &pbl, sizeof(pbl));
    for (i = 0; i < ARRAY_SIZE(old); i++) {
        g_assert_cmpuint(create_mr(a, pdn, AXON_ACCESS_ALL, 0x1000, 4096, 1,
                                   12, 1, &old[i]), ==, AXON_ADMIN_SUCCESS);
    }
    make_cqs(a, cqn, ARRAY_SIZE(cqn));

    rdma_enable(a);             /* resets first */
    for (i = 0; i < ARRAY_SIZE(old); i++) {
        g_assert_cmpuint(destroy_mr(a, old[i]), ==, AXON_ADMIN_BAD_HANDLE);
    }
    for (i = 0; i < ARRAY_SIZE(cqn); i++) {
        g_assert_cmpuint(destroy_cq(a, cqn[i]), ==, AXON_ADMIN_BAD_HANDLE);
    }
    make_cqs(a, cqn, ARRAY_SIZE(cqn));
    g_assert_cmpuint(create_pd(a, &pdn), ==, AXON_ADMIN_SUCCESS);
    qtest_memwrite(a->qts, PBL_ADDR, &pbl, sizeof(pbl));
    for (i = 0; i < ARRAY_SIZE(old); i++) {
        g_assert_cmpuint(create_mr(a, pdn, AXON_ACCESS_ALL, 0x1000, 4096, 1,
                                   12, 1, &key), ==, AXON_ADMIN_SUCCESS);
        for (j = 0; j < ARRAY_SIZE(old); j++) {
            g_assert_cmphex(key, !=, old[j]);
        }
    }
    axon_stop(a);
}

void axon_nic_rdma_tests(void)
{
    qtest_add_func("/axon-nic/rdma-query", test_rdma_query);
    qtest_add_func("/axon-nic/rdma-mr", test_rdma_mr);
    qtest_add_func("/axon-nic/rdma-reset-forgets", test_rdma_reset_forgets);
    qtest_add_func("/axon-nic/rdma-cq-qp", test_rdma_cq_qp);
    qtest_add_func("/axon-nic/rdma-doorbells", test_rdma_doorbells);
    qtest_add_func("/axon-nic/rdma-cq-overflow", test_rdma_cq_overflow);
    qtest_add_func("/axon-nic/rdma-cq-resize", test_rdma_cq_resize);
    qtest_add_func("/axon-nic/rdma-cq-pages", test_rdma_cq_pages);
    qtest_add_func("/axon-nic/rdma-cq-timestamp", test_rdma_cq_timestamp);
    qtest_add_func("/axon-nic/rdma-mr-rereg", test_rdma_mr_rereg);
    qtest_add_func("/axon-nic/rdma-write", test_rdma_write);
    qtest_add_func("/axon-nic/rdma-peer", test_rdma_peer);
    qtest_add_func("/axon-nic/rdma-send-recv", test_rdma_send_recv);
    qtest_add_func("/axon-nic/rdma-engine-budget", test_rdma_engine_budget);
    qtest_add_data_func("/axon-nic/rdma-send-stream", NULL,
                        test_rdma_send_stream);
    qtest_add_data_func("/axon-nic/rdma-send-stream-engine-thread",
                        ",x-engine-thread=on", test_rdma_send_stream);
    qtest_add_data_func("/axon-nic/rdma-sq-dbrec", ",sq-poll-ns=2000",
                        test_rdma_sq_dbrec);
    qtest_add_data_func("/axon-nic/rdma-sq-dbrec-engine-thread",
                        ",sq-poll-ns=2000,x-engine-thread=on",
                        test_rdma_sq_dbrec);
    qtest_add_func("/axon-nic/rdma-ceq-full", test_rdma_ceq_full);
    qtest_add_data_func("/axon-nic/rdma-read-atomic", NULL,
                        test_rdma_read_atomic);
    qtest_add_data_func("/axon-nic/rdma-read-atomic-engine-thread",
                        ",x-engine-thread=on", test_rdma_read_atomic);
    qtest_add_func("/axon-nic/rdma-read-parts", test_rdma_read_parts);
    qtest_add_func("/axon-nic/rdma-read-long", test_rdma_read_long);
    qtest_add_func("/axon-nic/rdma-errors", test_rdma_errors);
    qtest_add_func("/axon-nic/rdma-garbage-wqe", test_rdma_garbage_wqe);
}
