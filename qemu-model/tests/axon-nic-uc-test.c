/*
 * qtest of UC QPs: their admin rules, SENDs and WRITEs of several packets
 * inside the device and over its wire with nothing acknowledged, a lost
 * packet losing its message and only it, messages that cannot be placed
 * dropped whole with the QP left working, and WQEs UC cannot send.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-nic-qos.h"

/* Guest memory between the fixture's queues and its MRs */
#define C_SQ(i) (R_BASE + 0x340000 + (i) * 0x8000)
#define C_RQ(i) (R_BASE + 0x3c0000 + (i) * 0x8000)
#define C_PSN(i) ((0xfffff8u + (i) * 0x100) & AXON_PSN_MASK) /* 0 wraps */
#define C_MSG (3 * R_MTU - 100)             /* three packets */

static uint16_t create_uc(Rdma *r, TQp *qp, int i)
{
    return create_qp_type(r, qp, AXON_QPT_UC, C_SQ(i), C_RQ(i), &r->cq[i]);
}

static void make_uc_pair(Rdma *r, TQp *u)
{
    for (int i = 0; i < 2; i++) {
        g_assert_cmpuint(create_uc(r, &u[i], i), ==, AXON_ADMIN_SUCCESS);
    }
    uc_connect(r, &u[0], u[1].qpn, C_PSN(0), C_PSN(1));
    uc_connect(r, &u[1], u[0].qpn, C_PSN(1), C_PSN(0));
}

static void expect_recv(Rdma *r, TCq *cq, uint64_t wr_id, uint8_t opcode,
                        uint32_t len, bool imm, uint8_t seed)
{
    struct axon_cqe cqe;

    g_assert_true(poll_cq(r, cq, &cqe));
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, wr_id);
    g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, opcode);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, len);
    g_assert_cmpuint(!!(cqe.flags & AXON_CQE_WITH_IMM), ==, imm);
    if (imm) {
        g_assert_cmphex(be32_to_cpu(cqe.imm_data), ==, 0xc0de0000 | seed);
    }
}

static void test_uc_admin(void)
{
    Rdma *r = rdma_setup(7);
    struct axon_qp_attr at = {
        .state = cpu_to_le32(AXON_QPS_INIT),
        .access = cpu_to_le32(AXON_ACCESS_REMOTE_READ),
    };
    TQp u[2];

    g_assert_cmpuint(create_uc(r, &u[0], 0), ==, AXON_ADMIN_SUCCESS);
    /* no READs, atomics, timers or retries on UC */
    g_assert_cmpuint(modify_qp(r->a, u[0].qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_ACCESS, &at), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(modify_qp(r->a, u[0].qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_TIMEOUT, &at), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(modify_qp(r->a, u[0].qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_QKEY, &at), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(qp_state(r->a, u[0].qpn), ==, AXON_QPS_RESET);
    g_assert_cmpuint(create_uc(r, &u[1], 1), ==, AXON_ADMIN_SUCCESS);
    uc_connect(r, &u[0], u[1].qpn, C_PSN(0), C_PSN(1));
    g_assert_cmpuint(qp_state(r->a, u[0].qpn), ==, AXON_QPS_RTS);
    g_assert_cmpuint(rd(r->a, AXON_REG_CAPS) & AXON_CAP_UC, ==, AXON_CAP_UC);
    rdma_stop(r);
}

/*
 * SEND, SEND_IMM, WRITE and WRITE_IMM of three packets each, across the
 * PSN wrap: placed and completed, and only data packets sent.
 */
static void uc_traffic(Rdma *r, TQp *u)
{
    uint8_t *data = pattern(C_MSG, 0x61);
    uint32_t tx = rd(r->a, AXON_REG_STAT_TX_PKTS);

    mr_access(r, 0, r->mr[0].iova, data, C_MSG, true);
    post_sge_recv(r, &u[1], 0x100, 0, 4096);
    post_sge_recv(r, &u[1], 0x101, 4096, 4096);
    post_sge_recv(r, &u[1], 0x102, 8192, 0);
    post_sge_wqe(r, &u[0], AXON_WR_SEND, 0, 0x200, 0, C_MSG, 0, 0);
    post_sge_wqe(r, &u[0], AXON_WR_SEND_IMM, 0, 0x201, 0, C_MSG, 0, 0);
    post_sge_wqe(r, &u[0], AXON_WR_RDMA_WRITE, 0, 0x202, 0, C_MSG, 16384,
                 r->mr[1].key);
    post_sge_wqe(r, &u[0], AXON_WR_RDMA_WRITE_IMM, 0, 0x203, 0, C_MSG,
                 32768, r->mr[1].key);
    expect_cqe(r, u[0].scq, 0x200, AXON_WC_SEND, AXON_WC_SUCCESS);
    expect_cqe(r, u[0].scq, 0x201, AXON_WC_SEND, AXON_WC_SUCCESS);
    expect_cqe(r, u[0].scq, 0x202, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    expect_cqe(r, u[0].scq, 0x203, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    expect_recv(r, u[1].rcq, 0x100, AXON_WC_RECV, C_MSG, false, 0);
    expect_recv(r, u[1].rcq, 0x101, AXON_WC_RECV, C_MSG, true, 0x01);
    expect_recv(r, u[1].rcq, 0x102, AXON_WC_RECV_RDMA_WITH_IMM, C_MSG, true,
                0x03);
    check_mem(r, 1, 0, data, C_MSG);
    check_mem(r, 1, 4096, data, C_MSG);
    check_mem(r, 1, 16384, data, C_MSG);
    check_mem(r, 1, 32768, data, C_MSG);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_TX_PKTS) - tx, ==, 4 * 3);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_UC_DROPS), ==, 0);
    g_free(data);
}

static void test_uc_loopback(void)
{
    Rdma *r = rdma_setup(7);
    TQp u[2];

    make_uc_pair(r, u);
    uc_traffic(r, u);
    rdma_stop(r);
}

static void test_uc_wire(void)
{
    for (int v6 = 0; v6 < 2; v6++) {
        Rdma *r = rdma_setup_on("", 7, v6, NULL);
        TQp u[2];

        make_uc_pair(r, u);
        uc_traffic(r, u);
        g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_DROPS), ==, 0);
        rdma_stop(r);
    }
}

/*
 * Every 13th frame lost: of ten SENDs of three packets, the 5th (frame
 * 13) and 9th (frame 26) are lost and only they; their receive WQEs take
 * the next messages, so eight complete, in order, each whole.
 */
static void test_uc_loss(void)
{
    Rdma *r = rdma_setup_on(",x-tx-drop-every=13", 7, false, NULL);
    uint8_t *data[10];
    struct axon_cqe cqe;
    TQp u[2];
    int i, got = 0;

    make_uc_pair(r, u);
    for (i = 0; i < 10; i++) {
        data[i] = pattern(C_MSG, 0x10 * i);
        mr_access(r, 0, r->mr[0].iova + i * 4096, data[i], C_MSG, true);
        post_sge_recv(r, &u[1], 0x100 + i, i * 4096, 4096);
    }
    for (i = 0; i < 10; i++) {
        post_sge_wqe(r, &u[0], AXON_WR_SEND, 0, 0x200 + i, i * 4096, C_MSG,
                     0, 0);
    }
    for (i = 0; i < 10; i++) {
        expect_cqe(r, u[0].scq, 0x200 + i, AXON_WC_SEND, AXON_WC_SUCCESS);
    }
    for (i = 0; i < 10; i++) {
        if (i == 4 || i == 8) {
            continue;
        }
        expect_recv(r, u[1].rcq, 0x100 + got, AXON_WC_RECV, C_MSG, false, 0);
        check_mem(r, 1, got * 4096, data[i], C_MSG);
        got++;
    }
    g_assert_false(poll_cq_now(r, u[1].rcq, &cqe));
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_UC_DROPS), ==, 2);
    g_assert_cmpuint(qp_state(r->a, u[1].qpn), ==, AXON_QPS_RTS);
    for (i = 0; i < 10; i++) {
        g_free(data[i]);
    }
    rdma_stop(r);
}

/*
 * Messages the responder cannot place are dropped whole and counted:
 * a WRITE outside its rkey, a SEND with no receive WQE; a SEND too long
 * completes its receive with LOC_LEN_ERR. The QPs stay in RTS and the
 * next message lands.
 */
static void test_uc_drops(void)
{
    Rdma *r = rdma_setup(7);
    uint8_t *data = pattern(C_MSG, 0x22);
    struct axon_cqe cqe;
    TQp u[2];

    make_uc_pair(r, u);
    mr_access(r, 0, r->mr[0].iova, data, C_MSG, true);
    post_sge_wqe(r, &u[0], AXON_WR_RDMA_WRITE, 0, 0x200, 0, C_MSG, 0,
                 r->mr[1].key ^ 0x80);
    expect_cqe(r, u[0].scq, 0x200, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_UC_DROPS), ==, 1);
    post_sge_wqe(r, &u[0], AXON_WR_SEND, 0, 0x201, 0, C_MSG, 0, 0);
    expect_cqe(r, u[0].scq, 0x201, AXON_WC_SEND, AXON_WC_SUCCESS);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_UC_DROPS), ==, 2);
    g_assert_false(poll_cq_now(r, u[1].rcq, &cqe));

    post_sge_recv(r, &u[1], 0x100, 0, C_MSG - 1);
    post_sge_wqe(r, &u[0], AXON_WR_SEND, 0, 0x202, 0, C_MSG, 0, 0);
    expect_cqe(r, u[0].scq, 0x202, AXON_WC_SEND, AXON_WC_SUCCESS);
    expect_cqe(r, u[1].rcq, 0x100, AXON_WC_RECV, AXON_WC_LOC_LEN_ERR);

    post_sge_recv(r, &u[1], 0x101, 0, C_MSG);
    post_sge_wqe(r, &u[0], AXON_WR_SEND, 0, 0x203, 0, C_MSG, 0, 0);
    expect_cqe(r, u[0].scq, 0x203, AXON_WC_SEND, AXON_WC_SUCCESS);
    expect_recv(r, u[1].rcq, 0x101, AXON_WC_RECV, C_MSG, false, 0);
    check_mem(r, 1, 0, data, C_MSG);
    g_assert_cmpuint(qp_state(r->a, u[0].qpn), ==, AXON_QPS_RTS);
    g_assert_cmpuint(qp_state(r->a, u[1].qpn), ==, AXON_QPS_RTS);
    g_free(data);
    rdma_stop(r);
}

/* A READ or an atomic on UC fails its WQE, and the QP goes to ERR. */
static void test_uc_bad_wqe(void)
{
    for (uint8_t op = AXON_WR_RDMA_READ; op <= AXON_WR_ATOMIC_FETCH_ADD;
         op++) {
        Rdma *r = rdma_setup(7);
        TQp u[2];

        make_uc_pair(r, u);
        post_sge_wqe(r, &u[0], op, 0, 0x200, 0, 8, 0, r->mr[1].key);
        expect_cqe(r, u[0].scq, 0x200, 0, AXON_WC_LOC_QP_OP_ERR);
        g_assert_cmpuint(qp_state(r->a, u[0].qpn), ==, AXON_QPS_ERR);
        g_assert_cmpuint(qp_state(r->a, u[1].qpn), ==, AXON_QPS_RTS);
        rdma_stop(r);
    }
}

void axon_nic_uc_tests(void)
{
    qtest_add_func("/axon-nic/uc-admin", test_uc_admin);
    qtest_add_func("/axon-nic/uc-loopback", test_uc_loopback);
    qtest_add_func("/axon-nic/uc-wire", test_uc_wire);
    qtest_add_func("/axon-nic/uc-loss", test_uc_loss);
    qtest_add_func("/axon-nic/uc-drops", test_uc_drops);
    qtest_add_func("/axon-nic/uc-bad-wqe", test_uc_bad_wqe);
}
