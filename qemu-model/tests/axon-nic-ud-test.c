/*
 * qtest of UD QPs: their admin rules, datagrams inside the device and
 * over its wire (IPv4 and IPv6) with the GRH and the sender in the
 * receive, Q_Keys (a wrong one dropped, the privileged one meaning the
 * QP's own), receive errors that leave the QP working, bad WQEs,
 * frames a forger sends at a UD QP, and the GSI QP (QP1).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-nic-qos.h"
#include "axon-nic-forge.h"

/* Guest memory between the fixture's queues and its MRs */
#define U_SQ(i) (R_BASE + 0x340000 + (i) * 0x8000)
#define U_RQ(i) (R_BASE + 0x3c0000 + (i) * 0x8000)
#define U_QKEY(i) (0x11110000u + (i))
#define U_SQ_PSN 0x123456

static uint16_t create_ud(Rdma *r, TQp *qp, int i, uint8_t type)
{
    return create_qp_type(r, qp, type, U_SQ(i), U_RQ(i), &r->cq[i]);
}

static void ud_modify(Rdma *r, TQp *qp, uint32_t state, uint32_t mask,
                      uint32_t qkey)
{
    struct axon_qp_attr at = {
        .state = cpu_to_le32(state),
        .qkey = cpu_to_le32(qkey),
        .sq_psn = cpu_to_le32(U_SQ_PSN),
    };

    g_assert_cmpuint(modify_qp(r->a, qp->qpn, AXON_QP_ATTR_STATE | mask, &at),
                     ==, AXON_ADMIN_SUCCESS);
}

/* UD QP i of the test, in RTS with Q_Key U_QKEY(i), on CQ i */
static void make_ud(Rdma *r, TQp *qp, int i)
{
    g_assert_cmpuint(create_ud(r, qp, i, AXON_QPT_UD), ==, AXON_ADMIN_SUCCESS);
    ud_to_rts(r, qp, U_QKEY(i), U_SQ_PSN);
}

/* A UD send WQE to qpn on this device, by the fixture's GID. */
static struct axon_send_wqe ud_wqe(Rdma *r, uint8_t opcode, uint64_t wr_id,
                                   uint32_t qpn, uint32_t qkey)
{
    struct axon_send_wqe w = {
        .opcode = opcode,
        .flags = AXON_WQE_SIGNALED,
        .wr_id = cpu_to_le64(wr_id),
        .remote_qpn = cpu_to_le32(qpn),
        .qkey = cpu_to_le32(qkey),
        .imm_data = cpu_to_be32(0xfeed0000 | (uint8_t)wr_id),
    };

    own_av(r, &w.av);
    w.av.hop_limit = 7;
    w.av.tclass = 0x28;
    if (r->v6) {
        w.av.flow_label = cpu_to_le32(0x54321);
    }
    return w;
}

static void ud_send(Rdma *r, TQp *from, uint8_t opcode, uint64_t wr_id,
                    uint32_t qpn, uint32_t qkey, uint64_t off, uint32_t len)
{
    struct axon_send_wqe w = ud_wqe(r, opcode, wr_id, qpn, qkey);
    struct axon_sge sg = sge(r, 0, off, len);

    w.num_sge = 1;
    post_send(r, from, &w, &sg, NULL);
}

/* The receive of qp: len bytes of MR 1 at off. */
static void ud_recv(Rdma *r, TQp *qp, uint64_t wr_id, uint64_t off,
                    uint32_t len)
{
    struct axon_sge sg = sge(r, 1, off, len);

    post_recv(r, qp, wr_id, &sg, 1);
}

/*
 * A datagram of len bytes from qpn landed at MR 1's off, GRH first, sent
 * with ud_wqe()'s traffic class and hop limit or (forged) 0 and 64.
 */
static void check_datagram(Rdma *r, TCq *cq, uint64_t wr_id, uint32_t qpn,
                           uint64_t off, const uint8_t *data, uint32_t len,
                           bool imm, bool forged)
{
    uint8_t tclass = forged ? 0 : 0x28, ttl = forged ? 64 : 7;
    uint8_t grh[AXON_UD_GRH_LEN];
    struct axon_cqe cqe;
    uint8_t want_flags = AXON_CQE_RECV | AXON_CQE_GRH |
                         (r->v6 ? 0 : AXON_CQE_GRH_IPV4) |
                         (imm ? AXON_CQE_WITH_IMM : 0);

    g_assert_true(poll_cq(r, cq, &cqe));
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, wr_id);
    g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, AXON_WC_RECV);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, AXON_UD_GRH_LEN + len);
    g_assert_cmpuint(le32_to_cpu(cqe.src_qp), ==, qpn);
    g_assert_cmphex(cqe.flags & ~AXON_CQE_PHASE, ==, want_flags);
    if (imm) {
        g_assert_cmphex(be32_to_cpu(cqe.imm_data), ==,
                        0xfeed0000 | (uint8_t)wr_id);
    }
    mr_access(r, 1, r->mr[1].iova + off, grh, sizeof(grh), false);
    if (r->v6) {
        g_assert_cmphex(ldl_be_p(grh), ==, 6u << 28 | tclass << 20 | 0x54321);
        g_assert_cmpuint(grh[6], ==, 17);
        g_assert_cmpuint(grh[7], ==, ttl);
        g_assert_cmpmem(grh + 8, 16, gid_v6, 16);
        g_assert_cmpmem(grh + 24, 16, gid_v6, 16);
    } else {
        static const uint8_t zero[20];
        static const uint8_t addr[4] = { 10, 0, 0, 1 };

        g_assert_cmpmem(grh, 20, zero, 20);
        g_assert_cmphex(grh[20], ==, 0x45);
        g_assert_cmphex(grh[21], ==, tclass);
        g_assert_cmpuint(grh[28], ==, ttl);
        g_assert_cmpuint(grh[29], ==, 17);
        g_assert_cmpmem(grh + 32, 4, addr, 4);
        g_assert_cmpmem(grh + 36, 4, addr, 4);
    }
    check_mem(r, 1, off + AXON_UD_GRH_LEN, data, len);
}

static void test_ud_admin(void)
{
    Rdma *r = rdma_setup(7);
    struct axon_qp_attr at = {};
    TQp qp;

    g_assert_cmpuint(create_ud(r, &qp, 0, AXON_QPT_XRC_TGT + 1), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_ud(r, &qp, 0, AXON_QPT_UD), ==,
                     AXON_ADMIN_SUCCESS);
    /* RC's attributes are not a UD QP's, nor the Q_Key an RC QP's */
    at.state = cpu_to_le32(AXON_QPS_INIT);
    at.qkey = cpu_to_le32(U_QKEY(0));
    g_assert_cmpuint(modify_qp(r->a, qp.qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_QKEY | AXON_QP_ATTR_ACCESS, &at),
                     ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(modify_qp(r->a, r->qp[0].qpn, AXON_QP_ATTR_QKEY, &at),
                     ==, AXON_ADMIN_BAD_PARAM);
    /* RESET -> INIT needs the Q_Key */
    g_assert_cmpuint(modify_qp(r->a, qp.qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_BAD_STATE);
    ud_modify(r, &qp, AXON_QPS_INIT, AXON_QP_ATTR_QKEY, U_QKEY(0));
    ud_modify(r, &qp, AXON_QPS_RTR, 0, 0);
    /* RTR -> RTS needs the SQ PSN */
    at.state = cpu_to_le32(AXON_QPS_RTS);
    g_assert_cmpuint(modify_qp(r->a, qp.qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_BAD_STATE);
    ud_modify(r, &qp, AXON_QPS_RTS, AXON_QP_ATTR_SQ_PSN, 0);
    ud_modify(r, &qp, AXON_QPS_RTS, AXON_QP_ATTR_QKEY, U_QKEY(5));
    g_assert_cmpuint(qp_state(r->a, qp.qpn), ==, AXON_QPS_RTS);
    g_assert_cmphex(qtest_readl(r->a->qts, ATTR_ADDR +
                                offsetof(struct axon_qp_attr, qkey)), ==,
                    U_QKEY(5));
    g_assert_cmpuint(rd(r->a, AXON_REG_CAPS) & AXON_CAP_UD, ==, AXON_CAP_UD);
    rdma_stop(r);
}

/* Datagrams between two UD QPs of the fixture: data, GRH, sender, imm. */
static void ud_traffic(Rdma *r, TQp *u)
{
    uint8_t *data = pattern(R_MTU, 0x5a);

    mr_access(r, 0, r->mr[0].iova, data, R_MTU, true);

    ud_recv(r, &u[1], 0x100, 0, 4096);
    ud_recv(r, &u[1], 0x101, 4096, 4096);
    ud_recv(r, &u[1], 0x102, 8192, 4096);
    ud_send(r, &u[0], AXON_WR_SEND, 0x200, u[1].qpn, U_QKEY(1), 0, R_MTU);
    ud_send(r, &u[0], AXON_WR_SEND_IMM, 0x201, u[1].qpn, U_QKEY(1), 0, 100);
    ud_send(r, &u[0], AXON_WR_SEND, 0x202, u[1].qpn, U_QKEY(1), 0, 0);
    expect_cqe(r, u[0].scq, 0x200, AXON_WC_SEND, AXON_WC_SUCCESS);
    expect_cqe(r, u[0].scq, 0x201, AXON_WC_SEND, AXON_WC_SUCCESS);
    expect_cqe(r, u[0].scq, 0x202, AXON_WC_SEND, AXON_WC_SUCCESS);
    check_datagram(r, u[1].rcq, 0x100, u[0].qpn, 0, data, R_MTU, false, false);
    check_datagram(r, u[1].rcq, 0x101, u[0].qpn, 4096, data, 100, true, false);
    check_datagram(r, u[1].rcq, 0x102, u[0].qpn, 8192, data, 0, false, false);
    g_free(data);
}

static void test_ud_loopback(void)
{
    Rdma *r = rdma_setup(7);
    TQp u[2];

    make_ud(r, &u[0], 0);
    make_ud(r, &u[1], 1);
    ud_traffic(r, u);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_DROPS), ==, 0);
    rdma_stop(r);
}

static void test_ud_wire(void)
{
    for (int v6 = 0; v6 < 2; v6++) {
        Rdma *r = rdma_setup_on("", 7, v6, NULL);
        uint32_t roce = rd(r->a, AXON_REG_STAT_RX_ROCE);
        TQp u[2];

        make_ud(r, &u[0], 0);
        make_ud(r, &u[1], 1);
        ud_traffic(r, u);
        g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_ROCE) - roce, ==, 3);
        g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_DROPS), ==, 0);
        rdma_stop(r);
    }
}

/*
 * Q_Keys: a wrong one is dropped and counted and leaves the receive for
 * the next datagram; a privileged one in the WQE sends the QP's own.
 */
static void test_ud_qkey(void)
{
    Rdma *r = rdma_setup(7);
    uint8_t *data = pattern(64, 0x33);
    struct axon_cqe cqe;
    struct axon_qp_attr at = {};
    TQp u[2];

    mr_access(r, 0, r->mr[0].iova, data, 64, true);

    make_ud(r, &u[0], 0);
    make_ud(r, &u[1], 1);
    ud_recv(r, &u[1], 0x100, 0, 4096);
    ud_send(r, &u[0], AXON_WR_SEND, 0x200, u[1].qpn, U_QKEY(2), 0, 64);
    expect_cqe(r, u[0].scq, 0x200, AXON_WC_SEND, AXON_WC_SUCCESS);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_QKEY_DROPS), ==, 1);
    g_assert_false(poll_cq_now(r, u[1].rcq, &cqe));
    /* bit 31: the sender's own Q_Key, here made the receiver's */
    ud_modify(r, &u[0], AXON_QPS_RTS, AXON_QP_ATTR_QKEY, U_QKEY(1));
    ud_send(r, &u[0], AXON_WR_SEND, 0x201, u[1].qpn, 0x80000000u, 0, 64);
    expect_cqe(r, u[0].scq, 0x201, AXON_WC_SEND, AXON_WC_SUCCESS);
    check_datagram(r, u[1].rcq, 0x100, u[0].qpn, 0, data, 64, false, false);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_QKEY_DROPS), ==, 1);
    /* the receiver's Q_Key changed in RTS: the old one no longer lands */
    at.state = cpu_to_le32(AXON_QPS_RTS);
    at.qkey = cpu_to_le32(U_QKEY(7));
    g_assert_cmpuint(modify_qp(r->a, u[1].qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_QKEY, &at), ==,
                     AXON_ADMIN_SUCCESS);
    ud_recv(r, &u[1], 0x101, 0, 4096);
    ud_send(r, &u[0], AXON_WR_SEND, 0x202, u[1].qpn, U_QKEY(1), 0, 64);
    expect_cqe(r, u[0].scq, 0x202, AXON_WC_SEND, AXON_WC_SUCCESS);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_QKEY_DROPS), ==, 2);
    g_assert_false(poll_cq_now(r, u[1].rcq, &cqe));
    g_free(data);
    rdma_stop(r);
}

#define GSI_QKEY 0x80010000u

/*
 * The GSI QP: one at a time, always number 1, a UD QP that sends as
 * QP 1 and takes the datagrams for QP 1 (with its Q_Key and a MAD's
 * length only); none for QP 0, which RoCE does not have.
 */
static void test_gsi(void)
{
    Rdma *r = rdma_setup_on("", 7, false, NULL);
    uint8_t *data = pattern(512, 0x61);
    TCq gcq = { .ring = RCQ_ADDR(2) };
    uint32_t drops;
    uint64_t cqn;
    struct axon_cqe cqe;
    TQp u[2], gsi, again;

    g_assert_cmphex(rd(r->a, AXON_REG_CAPS) & AXON_CAP_GSI, ==, AXON_CAP_GSI);
    mr_access(r, 0, r->mr[0].iova, data, 512, true);
    qtest_memset(r->a->qts, gcq.ring, 0, 0x10000);
    g_assert_cmpuint(create_cq(r->a, gcq.ring, R_CQ_DEPTH, R_UAR, &cqn), ==,
                     AXON_ADMIN_SUCCESS);
    gcq.cqn = cqn;
    g_assert_cmpuint(create_qp_type(r, &gsi, AXON_QPT_GSI, U_SQ(2), U_RQ(2),
                                    &gcq), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(gsi.qpn, ==, AXON_GSI_QPN);
    g_assert_cmpuint(create_qp_type(r, &again, AXON_QPT_GSI, U_SQ(3), U_RQ(3),
                                    &gcq), ==, AXON_ADMIN_NO_RESOURCES);
    ud_to_rts(r, &gsi, GSI_QKEY, U_SQ_PSN);
    make_ud(r, &u[0], 0);
    make_ud(r, &u[1], 1);
    g_assert_cmpuint(u[0].qpn, >, AXON_GSI_QPN);

    /* QP1 to a UD QP: the receiver sees source QP 1 */
    ud_recv(r, &u[1], 0x100, 0, 4096);
    ud_send(r, &gsi, AXON_WR_SEND, 0x200, u[1].qpn, U_QKEY(1), 0, 256);
    expect_cqe(r, gsi.scq, 0x200, AXON_WC_SEND, AXON_WC_SUCCESS);
    check_datagram(r, u[1].rcq, 0x100, AXON_GSI_QPN, 0, data, 256, false,
                   false);

    /* to QP1: the wrong Q_Key is dropped, the GSI Q_Key lands */
    ud_recv(r, &gsi, 0x102, 0, 4096);
    ud_send(r, &u[0], AXON_WR_SEND, 0x201, AXON_GSI_QPN, U_QKEY(1), 0, 256);
    expect_cqe(r, u[0].scq, 0x201, AXON_WC_SEND, AXON_WC_SUCCESS);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_QKEY_DROPS), ==, 1);
    g_assert_false(poll_cq_now(r, gsi.rcq, &cqe));
    ud_modify(r, &u[0], AXON_QPS_RTS, AXON_QP_ATTR_QKEY, GSI_QKEY);
    ud_send(r, &u[0], AXON_WR_SEND_IMM, 0x202, AXON_GSI_QPN, 0x80000000u, 0,
            256);
    expect_cqe(r, u[0].scq, 0x202, AXON_WC_SEND, AXON_WC_SUCCESS);
    check_datagram(r, gsi.rcq, 0x102, u[0].qpn, 0, data, 256, true, false);

    /*
     * Not a MAD's length, shorter or longer: dropped and counted, the
     * receive WQE is kept for the next MAD
     */
    drops = rd(r->a, AXON_REG_STAT_RX_DROPS);
    ud_recv(r, &gsi, 0x103, 0, 4096);
    ud_send(r, &u[0], AXON_WR_SEND, 0x205, AXON_GSI_QPN, 0x80000000u, 0, 24);
    expect_cqe(r, u[0].scq, 0x205, AXON_WC_SEND, AXON_WC_SUCCESS);
    ud_send(r, &u[0], AXON_WR_SEND, 0x206, AXON_GSI_QPN, 0x80000000u, 0, 257);
    expect_cqe(r, u[0].scq, 0x206, AXON_WC_SEND, AXON_WC_SUCCESS);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_DROPS), ==, drops + 2);
    g_assert_false(poll_cq_now(r, gsi.rcq, &cqe));
    ud_send(r, &u[0], AXON_WR_SEND, 0x207, AXON_GSI_QPN, 0x80000000u, 0, 256);
    expect_cqe(r, u[0].scq, 0x207, AXON_WC_SEND, AXON_WC_SUCCESS);
    check_datagram(r, gsi.rcq, 0x103, u[0].qpn, 0, data, 256, false, false);

    /* nothing answers for QP 0 */
    drops = rd(r->a, AXON_REG_STAT_RX_DROPS);
    ud_send(r, &u[0], AXON_WR_SEND, 0x203, 0, 0x80000000u, 0, 256);
    expect_cqe(r, u[0].scq, 0x203, AXON_WC_SEND, AXON_WC_SUCCESS);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_DROPS), ==, drops + 1);

    /* once destroyed, QP1 is gone and can be made again */
    g_assert_cmpuint(qp_cmd(r->a, AXON_ADMIN_DESTROY_QP, AXON_GSI_QPN, 0, 0),
                     ==, AXON_ADMIN_SUCCESS);
    ud_send(r, &u[0], AXON_WR_SEND, 0x204, AXON_GSI_QPN, 0x80000000u, 0, 256);
    expect_cqe(r, u[0].scq, 0x204, AXON_WC_SEND, AXON_WC_SUCCESS);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_DROPS), ==, drops + 2);
    g_assert_cmpuint(create_qp_type(r, &again, AXON_QPT_GSI, U_SQ(3), U_RQ(3),
                                    &gcq), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(again.qpn, ==, AXON_GSI_QPN);
    g_free(data);
    rdma_stop(r);
}

/*
 * Receive errors lose the datagram, never the QP: no receive WQE (counted),
 * a receive too small for GRH and payload (LOC_LEN_ERR).
 */
static void test_ud_recv_errors(void)
{
    Rdma *r = rdma_setup(7);
    uint8_t *data = pattern(200, 0x44);
    struct axon_cqe cqe;
    TQp u[2];

    mr_access(r, 0, r->mr[0].iova, data, 200, true);

    make_ud(r, &u[0], 0);
    make_ud(r, &u[1], 1);
    ud_send(r, &u[0], AXON_WR_SEND, 0x200, u[1].qpn, U_QKEY(1), 0, 200);
    expect_cqe(r, u[0].scq, 0x200, AXON_WC_SEND, AXON_WC_SUCCESS);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_UD_NOBUF), ==, 1);
    g_assert_false(poll_cq_now(r, u[1].rcq, &cqe));

    ud_recv(r, &u[1], 0x100, 0, AXON_UD_GRH_LEN + 199);
    ud_send(r, &u[0], AXON_WR_SEND, 0x201, u[1].qpn, U_QKEY(1), 0, 200);
    expect_cqe(r, u[0].scq, 0x201, AXON_WC_SEND, AXON_WC_SUCCESS);
    expect_cqe(r, u[1].rcq, 0x100, AXON_WC_RECV, AXON_WC_LOC_LEN_ERR);
    g_assert_cmpuint(qp_state(r->a, u[1].qpn), ==, AXON_QPS_RTS);

    ud_recv(r, &u[1], 0x101, 0, AXON_UD_GRH_LEN + 200);
    ud_send(r, &u[0], AXON_WR_SEND, 0x202, u[1].qpn, U_QKEY(1), 0, 200);
    expect_cqe(r, u[0].scq, 0x202, AXON_WC_SEND, AXON_WC_SUCCESS);
    check_datagram(r, u[1].rcq, 0x101, u[0].qpn, 0, data, 200, false, false);
    g_free(data);
    rdma_stop(r);
}

/*
 * A datagram over the port's MTU is not sent, and completes successfully
 * (IBA C10-93.1.1); the receive it would have taken gets the next one.
 */
static void test_ud_over_mtu(void)
{
    Rdma *r = rdma_setup(7);
    uint8_t *data = pattern(64, 0x66);
    struct axon_cqe cqe;
    uint32_t tx;
    TQp u[2];

    mr_access(r, 0, r->mr[0].iova, data, 64, true);
    make_ud(r, &u[0], 0);
    make_ud(r, &u[1], 1);
    ud_recv(r, &u[1], 0x100, 0, 4096);
    tx = rd(r->a, AXON_REG_STAT_TX_PKTS);
    ud_send(r, &u[0], AXON_WR_SEND, 0x200, u[1].qpn, U_QKEY(1), 0, R_MTU + 1);
    expect_cqe(r, u[0].scq, 0x200, AXON_WC_SEND, AXON_WC_SUCCESS);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_TX_PKTS), ==, tx);
    g_assert_false(poll_cq_now(r, u[1].rcq, &cqe));
    ud_send(r, &u[0], AXON_WR_SEND, 0x201, u[1].qpn, U_QKEY(1), 0, 64);
    expect_cqe(r, u[0].scq, 0x201, AXON_WC_SEND, AXON_WC_SUCCESS);
    check_datagram(r, u[1].rcq, 0x100, u[0].qpn, 0, data, 64, false,
                   false);
    g_free(data);
    rdma_stop(r);
}

/* Sends a UD QP cannot make: each fails its WQE, and the QP goes to ERR. */
static void test_ud_bad_wqe(void)
{
    static const struct {
        uint8_t opcode, flags, av_flags;
        uint32_t len, rkey;
        uint8_t status;
    } cases[] = {
        { AXON_WR_RDMA_WRITE, 0, AXON_AV_IPV4, 8, 0, AXON_WC_LOC_QP_OP_ERR },
        { AXON_WR_SEND, AXON_WQE_FENCE, AXON_AV_IPV4, 8, 0,
          AXON_WC_LOC_QP_OP_ERR },
        { AXON_WR_SEND, 0, 0, 8, 0, AXON_WC_LOC_QP_OP_ERR },   /* family */
        { AXON_WR_SEND, 0, 0x80 | AXON_AV_IPV4, 8, 0, AXON_WC_LOC_QP_OP_ERR },
        { AXON_WR_SEND, 0, AXON_AV_IPV4, 8, 5, AXON_WC_LOC_QP_OP_ERR },
    };

    for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
        Rdma *r = rdma_setup(7);
        struct axon_send_wqe w;
        struct axon_sge sg = sge(r, 0, 0, cases[i].len);
        TQp u[2];

        make_ud(r, &u[0], 0);
        make_ud(r, &u[1], 1);
        ud_recv(r, &u[1], 0x100, 0, 4096);
        w = ud_wqe(r, cases[i].opcode, 0x200, u[1].qpn, U_QKEY(1));
        w.flags |= cases[i].flags;
        w.av.flags = cases[i].av_flags;
        w.rkey = cpu_to_le32(cases[i].rkey);
        w.num_sge = 1;
        post_send(r, &u[0], &w, &sg, NULL);
        expect_cqe(r, u[0].scq, 0x200, 0, cases[i].status);
        g_assert_cmpuint(qp_state(r->a, u[0].qpn), ==, AXON_QPS_ERR);
        g_assert_cmpuint(qp_state(r->a, u[1].qpn), ==, AXON_QPS_RTS);
        rdma_stop(r);
    }
}

/*
 * Frames a forger sends at a UD QP: with its Q_Key a datagram lands (the
 * Q_Key is what a UD QP asks of a sender); without it, or of another
 * service, or cut short, it is dropped and counted, and no QP moves.
 */
static void test_ud_forged(void)
{
    Rdma *r = rdma_setup_on("", 7, false, NULL);
    uint8_t *data = pattern(R_MTU + 4, 0x77), buf[FORGE_MAX_FRAME];
    Forged f = {
        .opcode = F_UD_SEND_ONLY_IMM,
        .psn = 77,
        .qkey = U_QKEY(1),
        .src_qpn = 0xabcdef,
        .imm = cpu_to_be32(0xfeed0000),
        .payload = data,
        .len = 64,
    };
    static const uint8_t unknown_ops[] = { 0x15, 0x1f, 0x35, 0x3f, 0x66,
                                            0x7f, 0x80, 0xff };
    uint32_t roce, drops;
    TQp u[2];

    make_ud(r, &u[0], 0);
    make_ud(r, &u[1], 1);
    f.dqpn = u[1].qpn;
    ud_recv(r, &u[1], 0x100, 0, 4096);
    inject(r->a, buf, forge_frame(&f, buf));
    check_datagram(r, u[1].rcq, 0x100, 0xabcdef, 0, data, 64, true, true);

    drops = rd(r->a, AXON_REG_STAT_RX_DROPS);
    roce = rd(r->a, AXON_REG_STAT_RX_ROCE);
    ud_recv(r, &u[1], 0x101, 0, 4096);
    f.qkey = U_QKEY(2);
    inject(r->a, buf, forge_frame(&f, buf));
    f.qkey = U_QKEY(1);
    f.opcode = F_SEND_ONLY;                     /* RC to a UD QP */
    inject(r->a, buf, forge_frame(&f, buf));
    f.opcode = F_UD_SEND_ONLY;
    f.dqpn = r->qp[1].qpn;                      /* UD to an RC QP */
    inject(r->a, buf, forge_frame(&f, buf));
    f.dqpn = u[1].qpn;
    f.len = R_MTU + 4;                          /* over the port's MTU */
    inject(r->a, buf, forge_frame(&f, buf));
    /*
     * operations no service has, past the end of each table (found by
     * axon-roce-rx-fuzz: read out of axon_ib_ops' bounds)
     */
    f.len = 64;
    for (size_t i = 0; i < ARRAY_SIZE(unknown_ops); i++) {
        f.opcode = unknown_ops[i];
        inject(r->a, buf, forge_frame(&f, buf));
    }
    g_assert_true(wait_reg(r->a, AXON_REG_STAT_RX_ROCE,
                           roce + 4 + ARRAY_SIZE(unknown_ops)));
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_QKEY_DROPS), ==, 1);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_DROPS) - drops, ==,
                     3 + ARRAY_SIZE(unknown_ops));
    g_assert_cmpuint(qp_state(r->a, u[1].qpn), ==, AXON_QPS_RTS);
    g_assert_cmpuint(qp_state(r->a, r->qp[1].qpn), ==, AXON_QPS_RTS);
    /* the receive is still there for the next good datagram */
    f.opcode = F_UD_SEND_ONLY;
    inject(r->a, buf, forge_frame(&f, buf));
    check_datagram(r, u[1].rcq, 0x101, 0xabcdef, 0, data, 64, false, true);
    g_free(data);
    rdma_stop(r);
}

void axon_nic_ud_tests(void)
{
    qtest_add_func("/axon-nic/ud-admin", test_ud_admin);
    qtest_add_func("/axon-nic/ud-loopback", test_ud_loopback);
    qtest_add_func("/axon-nic/ud-wire", test_ud_wire);
    qtest_add_func("/axon-nic/ud-qkey", test_ud_qkey);
    qtest_add_func("/axon-nic/ud-recv-errors", test_ud_recv_errors);
    qtest_add_func("/axon-nic/ud-bad-wqe", test_ud_bad_wqe);
    qtest_add_func("/axon-nic/ud-over-mtu", test_ud_over_mtu);
    qtest_add_func("/axon-nic/ud-forged", test_ud_forged);
    qtest_add_func("/axon-nic/gsi", test_gsi);
}
