/*
 * qtest of RUD QPs (reliable unordered delivery, "Reliable unordered
 * delivery" in axon_io_defs.h): every operation of several packets inside
 * the device and over its wire; a wire that loses and reorders frames,
 * sprayed over two planes, with every message placed whole and sent again
 * only where lost; a lost last packet found by a probe; a plane whose
 * link is down avoided; forged packets (wrong token, outside the window,
 * a message that is not there) dropped and counted with the QPs in RTS;
 * remote errors failing the sender only; WQEs RUD cannot send.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-nic-qos.h"
#include "axon-nic-forge.h"

#define D_SQ(i) (R_BASE + 0x340000 + (i) * 0x8000)
#define D_RQ(i) (R_BASE + 0x3c0000 + (i) * 0x8000)
#define D_PSN(i) ((0xfffff0u + (i) * 0x400) & AXON_PSN_MASK)  /* 0 wraps */
#define D_MSG (3 * R_MTU - 100)             /* three packets */
#define D_MSGS 12

static void make_rud_pair(Rdma *r, TQp *u)
{
    for (int i = 0; i < 2; i++) {
        g_assert_cmpuint(create_qp_type(r, &u[i], AXON_QPT_RUD, D_SQ(i),
                                        D_RQ(i), &r->cq[i]), ==,
                         AXON_ADMIN_SUCCESS);
    }
    connect_qp(r, &u[0], u[1].qpn, D_PSN(0), D_PSN(1), 7);
    connect_qp(r, &u[1], u[0].qpn, D_PSN(1), D_PSN(0), 7);
}

/* n receive completions, in any order: each wr_id once, with its length */
static void expect_recvs(Rdma *r, TCq *cq, uint64_t first, unsigned n,
                         uint32_t len)
{
    uint64_t seen = 0;

    for (unsigned i = 0; i < n; i++) {
        struct axon_cqe cqe;
        uint64_t k;

        g_assert_true(poll_cq(r, cq, &cqe));
        g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
        k = le64_to_cpu(cqe.wr_id) - first;
        g_assert_cmpuint(k, <, n);
        g_assert_false(seen & (1ULL << k));
        seen |= 1ULL << k;
        g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, len);
        if (cqe.flags & AXON_CQE_WITH_IMM) {
            g_assert_cmphex(be32_to_cpu(cqe.imm_data) >> 16, ==, 0xc0de);
        }
    }
}

static void test_rud_admin(void)
{
    Rdma *r = rdma_setup(7);
    TQp u[2];

    g_assert_cmphex(rd(r->a, AXON_REG_CAPS) & AXON_CAP_RUD, ==, AXON_CAP_RUD);
    make_rud_pair(r, u);
    g_assert_cmpuint(qp_state(r->a, u[0].qpn), ==, AXON_QPS_RTS);
    g_assert_cmpuint(qp_state(r->a, u[1].qpn), ==, AXON_QPS_RTS);
    rdma_stop(r);
}

/*
 * D_MSGS messages of each operation, three packets each: every one
 * placed, every receive completed once, the send completions in order.
 */
static void rud_traffic(Rdma *r, TQp *u)
{
    uint8_t *data = pattern(D_MSG, 0x61);
    uint8_t *back = pattern(D_MSG, 0x17);
    g_autofree uint8_t *zero = g_malloc0(D_MSGS * 12288);
    static const uint8_t ops[] = {
        AXON_WR_SEND, AXON_WR_SEND_IMM, AXON_WR_RDMA_WRITE,
        AXON_WR_RDMA_WRITE_IMM,
    };
    unsigned i;

    mr_access(r, 0, r->mr[0].iova, data, D_MSG, true);
    for (unsigned o = 0; o < ARRAY_SIZE(ops); o++) {
        bool recv = ops[o] != AXON_WR_RDMA_WRITE;

        for (i = 0; i < D_MSGS; i++) {
            if (recv) {
                post_sge_recv(r, &u[1], 0x100 + i, i * 12288, 12288);
            }
        }
        for (i = 0; i < D_MSGS; i++) {
            bool write = ops[o] == AXON_WR_RDMA_WRITE ||
                         ops[o] == AXON_WR_RDMA_WRITE_IMM;

            post_sge_wqe(r, &u[0], ops[o], 0, 0x200 + i, 0, D_MSG,
                         write ? i * 12288 : 0, r->mr[1].key);
        }
        for (i = 0; i < D_MSGS; i++) {
            expect_cqe(r, u[0].scq, 0x200 + i,
                       ops[o] <= AXON_WR_RDMA_WRITE_IMM ? AXON_WC_RDMA_WRITE :
                       AXON_WC_SEND, AXON_WC_SUCCESS);
        }
        if (recv) {
            expect_recvs(r, u[1].rcq, 0x100, D_MSGS, D_MSG);
        }
        for (i = 0; i < D_MSGS; i++) {
            check_mem(r, 1, i * 12288, data, D_MSG);
        }
        mr_access(r, 1, r->mr[1].iova, zero, D_MSGS * 12288, true);
    }
    /* READs: the responses land in MR 0 */
    mr_access(r, 1, r->mr[1].iova + 500000, back, D_MSG, true);
    for (i = 0; i < 4; i++) {
        post_sge_wqe(r, &u[0], AXON_WR_RDMA_READ, 0, 0x300 + i,
                     100000 + i * 12288, D_MSG, 500000, r->mr[1].key);
    }
    for (i = 0; i < 4; i++) {
        expect_cqe(r, u[0].scq, 0x300 + i, AXON_WC_RDMA_READ, AXON_WC_SUCCESS);
        check_mem(r, 0, 100000 + i * 12288, back, D_MSG);
    }
    g_assert_cmpuint(qp_state(r->a, u[0].qpn), ==, AXON_QPS_RTS);
    g_assert_cmpuint(qp_state(r->a, u[1].qpn), ==, AXON_QPS_RTS);
    g_free(data);
    g_free(back);
}

static void test_rud_loopback(void)
{
    Rdma *r = rdma_setup(7);
    TQp u[2];

    make_rud_pair(r, u);
    rud_traffic(r, u);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RUD_DROPS), ==, 0);
    rdma_stop(r);
}

static void test_rud_wire(void)
{
    for (int v6 = 0; v6 < 2; v6++) {
        Rdma *r = rdma_setup_on("", 7, v6, NULL);
        TQp u[2];

        make_rud_pair(r, u);
        rud_traffic(r, u);
        g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_DROPS), ==, 0);
        g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RUD_DROPS), ==, 0);
        g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RETRANS), ==, 0);
        rdma_stop(r);
    }
}

/* A second plane: a socket netdev that sends to itself. */
static char *plane_args(const char *more)
{
    int port1 = free_udp_port();

    return g_strdup_printf(",plane1=n1%s -netdev socket,id=n1,"
                           "udp=127.0.0.1:%d,localaddr=127.0.0.1:%d", more,
                           port1, port1);
}

/*
 * Every 13th frame lost and every 5th reordered, over two planes: every
 * message lands whole, what was lost is sent again, and both planes
 * carried packets.
 */
static void test_rud_loss(void)
{
    g_autofree char *args = plane_args(",x-tx-drop-every=13,"
                                       "x-tx-reorder-every=5");
    Rdma *r = rdma_setup_on(args, 7, false, NULL);
    TQp u[2];

    make_rud_pair(r, u);
    rud_traffic(r, u);
    g_test_message("retransmitted %u, duplicates %u, plane tx %u/%u",
                   rd(r->a, AXON_REG_STAT_RETRANS),
                   rd(r->a, AXON_REG_STAT_RUD_DUPS),
                   rd(r->a, AXON_REG_STAT_PLANE_TX(0)),
                   rd(r->a, AXON_REG_STAT_PLANE_TX(1)));
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RETRANS), >, 0);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_PLANE_TX(0)), >, 0);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_PLANE_TX(1)), >, 0);
    rdma_stop(r);
}

/*
 * A message's last packet lost, with nothing sent after it: no SACK can
 * tell, so the sender probes with that packet after the probe time (8 ms
 * here) and the message completes long before the 40 ms timeout, with
 * one packet sent again. Frames on the wire: the first WRITE's three and
 * its ACK, then the second WRITE's, whose third (frame 7) is dropped.
 */
static void test_rud_tail_loss(void)
{
    Rdma *r = rdma_setup_on(",x-tx-drop-every=7", 7, false, NULL);
    uint8_t *data = pattern(D_MSG, 0x3c);
    int64_t t0;
    TQp u[2];

    make_rud_pair(r, u);
    mr_access(r, 0, r->mr[0].iova, data, D_MSG, true);
    post_sge_wqe(r, &u[0], AXON_WR_RDMA_WRITE, 0, 0x200, 0, D_MSG, 0,
                 r->mr[1].key);
    expect_cqe(r, u[0].scq, 0x200, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RETRANS), ==, 0);

    t0 = qtest_clock_step(r->a->qts, 0);
    post_sge_wqe(r, &u[0], AXON_WR_RDMA_WRITE, 0, 0x201, 0, D_MSG, 12288,
                 r->mr[1].key);
    expect_cqe(r, u[0].scq, 0x201, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    g_test_message("second WRITE completed after %" PRId64 " us",
                   (qtest_clock_step(r->a->qts, 0) - t0) / 1000);
    g_assert_cmpint(qtest_clock_step(r->a->qts, 0) - t0, >=, 8000000);
    g_assert_cmpint(qtest_clock_step(r->a->qts, 0) - t0, <, 20000000);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RETRANS), ==, 1);
    check_mem(r, 1, 12288, data, D_MSG);
    g_assert_cmpuint(qp_state(r->a, u[0].qpn), ==, AXON_QPS_RTS);
    g_free(data);
    rdma_stop(r);
}

/* Plane 1's link down: everything goes on plane 0, and completes. */
static void test_rud_plane_down(void)
{
    g_autofree char *args = plane_args("");
    Rdma *r = rdma_setup_on(args, 7, false, NULL);
    uint32_t sent;
    TQp u[2];

    make_rud_pair(r, u);
    set_link(r->a, "n1", false);
    sent = rd(r->a, AXON_REG_STAT_PLANE_TX(1));
    rud_traffic(r, u);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_PLANE_TX(1)), ==, sent);
    set_link(r->a, "n1", true);
    rud_traffic(r, u);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_PLANE_TX(1)), >, sent);
    rdma_stop(r);
}

/* A RUD DATA packet as a forger writes it: RUDETH, then the payload. */
static void forge_rud(Rdma *r, TQp *to, uint32_t psn, uint32_t token,
                      uint32_t msg_id, uint32_t off, uint64_t va)
{
    uint8_t p[40 + 256] = {};
    Forged f = {
        .opcode = 0xc0, .dqpn = to->qpn, .psn = psn,
        .payload = p, .len = sizeof(p),
    };

    stl_be_p(p, token);
    stl_be_p(p + 4, msg_id);
    stl_be_p(p + 8, 256 + off);                 /* the message's length */
    stl_be_p(p + 12, off);
    p[16] = 2;                                  /* WRITE */
    stl_be_p(p + 24, r->mr[1].key);
    stq_be_p(p + 32, va);
    memset(p + 40, 0xee, 256);
    forge(r, &f, 1);
}

/*
 * Forged DATA packets at a live RUD connection: a guessed token, a PSN
 * outside the window, an offset that is not the message's: each dropped
 * and counted, nothing written, the QPs in RTS, and the connection's own
 * traffic verifies afterwards.
 */
static void test_rud_forged(void)
{
    Rdma *r = rdma_setup_on("", 7, false, NULL);
    g_autofree uint8_t *zero = g_malloc0(256);
    uint64_t va = r->mr[1].iova + 700000;
    uint32_t drops;
    TQp u[2];

    make_rud_pair(r, u);
    rud_traffic(r, u);
    drops = rd(r->a, AXON_REG_STAT_RUD_DROPS);
    for (uint32_t t = 0; t < 8; t++) {
        forge_rud(r, &u[1], D_PSN(0) + 100, 0x1000 * t + 7, 5, 0, va);
    }
    forge_rud(r, &u[1], (D_PSN(0) + 5000) & AXON_PSN_MASK, 0, 0, 0, va);
    forge_rud(r, &u[1], (D_PSN(0) + 0x800000) & AXON_PSN_MASK, 0, 0, 0, va);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RUD_DROPS) - drops, ==, 10);
    check_mem(r, 1, 700000, zero, 256);
    g_assert_cmpuint(qp_state(r->a, u[0].qpn), ==, AXON_QPS_RTS);
    g_assert_cmpuint(qp_state(r->a, u[1].qpn), ==, AXON_QPS_RTS);
    rud_traffic(r, u);
    rdma_stop(r);
}

/*
 * A WRITE its rkey does not allow fails the sender's WQE with
 * REM_ACCESS_ERR and the sender's QP goes to ERR; the receiver stays in
 * RTS. A SEND longer than its receive: REM_INV_REQ_ERR, LOC_LEN_ERR.
 */
static void test_rud_remote_errors(void)
{
    for (int send = 0; send < 2; send++) {
        Rdma *r = rdma_setup(7);
        TQp u[2];

        make_rud_pair(r, u);
        if (send) {
            post_sge_recv(r, &u[1], 0x100, 0, D_MSG - 1);
            post_sge_wqe(r, &u[0], AXON_WR_SEND, 0, 0x200, 0, D_MSG, 0, 0);
            expect_cqe(r, u[0].scq, 0x200, AXON_WC_SEND,
                       AXON_WC_REM_INV_REQ_ERR);
            expect_cqe(r, u[1].rcq, 0x100, AXON_WC_RECV, AXON_WC_LOC_LEN_ERR);
        } else {
            post_sge_wqe(r, &u[0], AXON_WR_RDMA_WRITE, 0, 0x200, 0, D_MSG,
                         0, r->mr[1].key ^ 0x80);
            expect_cqe(r, u[0].scq, 0x200, AXON_WC_RDMA_WRITE,
                       AXON_WC_REM_ACCESS_ERR);
        }
        g_assert_cmpuint(qp_state(r->a, u[0].qpn), ==, AXON_QPS_ERR);
        g_assert_cmpuint(qp_state(r->a, u[1].qpn), ==, AXON_QPS_RTS);
        rdma_stop(r);
    }
}

/* An atomic or SEND_INV on RUD fails its WQE, and the QP goes to ERR. */
static void test_rud_bad_wqe(void)
{
    static const uint8_t ops[] = {
        AXON_WR_ATOMIC_CMP_SWP, AXON_WR_ATOMIC_FETCH_ADD, AXON_WR_SEND_INV,
    };

    for (unsigned i = 0; i < ARRAY_SIZE(ops); i++) {
        Rdma *r = rdma_setup(7);
        TQp u[2];

        make_rud_pair(r, u);
        post_sge_wqe(r, &u[0], ops[i], 0, 0x200, 0, 8, 0, r->mr[1].key);
        expect_cqe(r, u[0].scq, 0x200, 0, AXON_WC_LOC_QP_OP_ERR);
        g_assert_cmpuint(qp_state(r->a, u[0].qpn), ==, AXON_QPS_ERR);
        g_assert_cmpuint(qp_state(r->a, u[1].qpn), ==, AXON_QPS_RTS);
        rdma_stop(r);
    }
}

void axon_nic_rud_tests(void)
{
    qtest_add_func("/axon-nic/rud-admin", test_rud_admin);
    qtest_add_func("/axon-nic/rud-loopback", test_rud_loopback);
    qtest_add_func("/axon-nic/rud-wire", test_rud_wire);
    qtest_add_func("/axon-nic/rud-loss", test_rud_loss);
    qtest_add_func("/axon-nic/rud-tail-loss", test_rud_tail_loss);
    qtest_add_func("/axon-nic/rud-plane-down", test_rud_plane_down);
    qtest_add_func("/axon-nic/rud-forged", test_rud_forged);
    qtest_add_func("/axon-nic/rud-remote-errors", test_rud_remote_errors);
    qtest_add_func("/axon-nic/rud-bad-wqe", test_rud_bad_wqe);
}
