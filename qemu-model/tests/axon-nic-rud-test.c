/*
 * qtest of RUD QPs (reliable unordered delivery, "Reliable unordered
 * delivery" in axon_io_defs.h): every operation of several packets inside
 * the device and over its wire; a wire that loses and reorders frames,
 * sprayed over two planes, with every message placed whole and sent again
 * only where lost; a lost last packet found by a probe; a plane whose
 * link is down avoided; the connection keys (drawn out of RESET, shown
 * to nobody, new at each connection); forged packets (interface 1.14's
 * token, wrong keys, outside the window, a message that is not there, a
 * duplicate READ unlike the one answered, stray first packets of a
 * message) dropped and counted with the QPs in RTS, also 20,000 (or a
 * million) at live traffic; remote errors failing the sender only; WQEs
 * RUD cannot send.
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
    connect_rud(r, u, D_PSN(0), D_PSN(1));
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
 * tell, so the sender probes with that packet after the probe time (2 ms
 * here, the device's floor) and completes long before the 40 ms timeout, with
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
    g_assert_cmpint(qtest_clock_step(r->a->qts, 0) - t0, >=, 2000000);
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

/*
 * Injects a frame and waits until the device took it (and perhaps what
 * it answered, which comes back over the wire).
 */
static void inject_one(Rdma *r, const uint8_t *buf, size_t len)
{
    uint32_t want = rd(r->a, AXON_REG_STAT_RX_ROCE) + 1;

    inject(r->a, buf, len);
    for (int i = 0; i < POLL_LIMIT &&
         rd(r->a, AXON_REG_STAT_RX_ROCE) < want; i++) {
        axon_step(r->a, 1000);
    }
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_ROCE), >=, want);
}

static void forge_rud_one(Rdma *r, const ForgedRud *f)
{
    uint8_t buf[FORGE_MAX_FRAME];

    inject_one(r, buf, forge_rud_frame(f, buf));
}

/* A RUD WRITE of 256 bytes of 0xee at va, as a forger writes it. */
static void forge_rud(Rdma *r, TQp *to, uint32_t psn, uint64_t key,
                      uint32_t msg_id, uint32_t off, uint64_t va)
{
    uint8_t data[256];
    ForgedRud f = {
        .opcode = AXON_RUD_OPCODE_DATA, .dqpn = to->qpn, .psn = psn,
        .key = key, .msg_id = msg_id, .msg_len = 256 + off, .offset = off,
        .op = AXON_RUD_OP_WRITE, .rkey = r->mr[1].key, .va = va,
        .payload = data, .len = sizeof(data),
    };

    memset(data, 0xee, sizeof(data));
    forge_rud_one(r, &f);
}

/*
 * The connection token of interface 1.14 (axon_rud_token(), removed):
 * mixed from the sender's initial PSN and both QPNs, all of which the
 * kernel's core shows every local user (rdma res show qp).
 */
static uint32_t old_token(uint32_t init_psn, uint32_t src_qpn,
                          uint32_t dst_qpn)
{
    uint64_t x = ((uint64_t)init_psn << 40) ^ ((uint64_t)src_qpn << 20) ^
                 dst_qpn ^ 0x9e3779b97f4a7c15ULL;

    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/*
 * A RUD WRITE as interface 1.14 laid it out (a 40-byte RUDETH under the
 * token) with the token a local user computes: what took a forger one
 * frame before connections had keys.
 */
static void forge_rud_old(Rdma *r, TQp *from, TQp *to, uint32_t psn,
                          uint32_t msg_id, uint64_t va)
{
    uint8_t p[40 + 256] = {};
    Forged f = {
        .opcode = AXON_RUD_OPCODE_DATA, .dqpn = to->qpn, .psn = psn,
        .payload = p, .len = sizeof(p),
    };

    stl_be_p(p, old_token(D_PSN(0), from->qpn, to->qpn));
    stl_be_p(p + 4, msg_id);
    stl_be_p(p + 8, 256);                       /* the message's length */
    p[16] = AXON_RUD_OP_WRITE;
    stl_be_p(p + 24, r->mr[1].key);
    stq_be_p(p + 32, va);
    memset(p + 40, 0xee, 256);
    forge(r, &f, 1);
}

static uint64_t qp_stray(Rdma *r, TQp *qp)
{
    struct axon_qp_live st;

    qp_live(r->a, qp->qpn, &st);
    return le64_to_cpu(st.cnt.stray);
}

/*
 * Forged DATA packets at a live RUD connection, each dropped and counted
 * (the device's rud_drops and the QP's stray counter), nothing written,
 * the QPs in RTS, the connection's traffic verifying afterwards:
 *
 * - the WRITE a local user could forge before keys: interface 1.14's
 *   frame under the token computed from the PSNs and QPNs rdma res shows
 *   (on 1.14 it lands);
 * - 64-bit keys guessed at random, key 0, and the key of the other
 *   direction of the same connection;
 * - the right key with a PSN ahead of the window or behind it.
 *
 * The right key in the window lands: the test sees what would.
 */
static void test_rud_forged(void)
{
    Rdma *r = rdma_setup_on("", 7, false, NULL);
    g_autofree uint8_t *zero = g_malloc0(256);
    g_autofree uint8_t *ee = g_malloc(256);
    uint64_t va = r->mr[1].iova + 700000, stray;
    uint32_t psn, drops, n = 0;
    TQp u[2];

    make_rud_pair(r, u);
    rud_traffic(r, u);
    psn = D_PSN(0) + 148;           /* rud_traffic sent 148 PSNs */
    drops = rd(r->a, AXON_REG_STAT_RUD_DROPS);
    stray = qp_stray(r, &u[1]);
    forge_rud_old(r, &u[0], &u[1], psn, 60, va);
    n++;
    for (int i = 0; i < 64; i++, n++) {
        uint64_t key = (uint64_t)g_test_rand_int() << 32 | g_test_rand_int();

        forge_rud(r, &u[1], psn + i % 8, key == u[1].key ? ~key : key,
                  60 + i % 8, 0, va);
    }
    forge_rud(r, &u[1], psn, 0, 60, 0, va);
    forge_rud(r, &u[1], psn, u[0].key, 60, 0, va);
    forge_rud(r, &u[1], (psn + 5000) & AXON_PSN_MASK, u[1].key, 60, 0, va);
    forge_rud(r, &u[1], (psn + 0x800000) & AXON_PSN_MASK, u[1].key, 60, 0,
              va);
    n += 4;
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RUD_DROPS) - drops, ==, n);
    g_assert_cmpuint(qp_stray(r, &u[1]) - stray, ==, n);
    check_mem(r, 1, 700000, zero, 256);
    g_assert_cmpuint(qp_state(r->a, u[0].qpn), ==, AXON_QPS_RTS);
    g_assert_cmpuint(qp_state(r->a, u[1].qpn), ==, AXON_QPS_RTS);
    rud_traffic(r, u);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RUD_DROPS) - drops, ==, n);
    /* last, far ahead of the traffic's PSNs: the right key lands */
    memset(ee, 0xee, 256);
    forge_rud(r, &u[1], (psn + 1000) & AXON_PSN_MASK, u[1].key, 200, 0, va);
    check_mem(r, 1, 700000, ee, 256);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RUD_DROPS) - drops, ==, n);
    rdma_stop(r);
}

/* Does the QUERY_QP or QUERY_QP_LIVE record show any half of key? */
static bool shows_key(Rdma *r, uint32_t qpn, uint64_t key)
{
    uint8_t buf[sizeof(struct axon_qp_live)];
    uint32_t lo = cpu_to_le32(key), hi = cpu_to_le32(key >> 32);

    for (int live = 0; live < 2; live++) {
        size_t len = live ? sizeof(struct axon_qp_live) :
                     sizeof(struct axon_qp_attr);

        g_assert_cmpuint(qp_cmd(r->a, live ? AXON_ADMIN_QUERY_QP_LIVE :
                                AXON_ADMIN_QUERY_QP, qpn, 0, ATTR_ADDR), ==,
                         AXON_ADMIN_SUCCESS);
        qtest_memread(r->a->qts, ATTR_ADDR, buf, len);
        if (memmem(buf, len, &lo, 4) || memmem(buf, len, &hi, 4)) {
            return true;
        }
    }
    return false;
}

/* Takes the pair back to RESET; their rings start again at slot 0. */
static void reset_pair(Rdma *r, TQp *u)
{
    struct axon_qp_attr at = { .state = cpu_to_le32(AXON_QPS_RESET) };

    for (int i = 0; i < 2; i++) {
        g_assert_cmpuint(modify_qp(r->a, u[i].qpn, AXON_QP_ATTR_STATE, &at),
                         ==, AXON_ADMIN_SUCCESS);
        u[i].sq_pi = u[i].rq_pi = 0;
    }
}

/*
 * The keys: drawn when a RUD QP leaves RESET and returned by that
 * MODIFY_QP only (QUERY_QP and QUERY_QP_LIVE never show them), given to
 * the peer at INIT -> RTR and only there, never 0, new at every
 * connection: after a reconnection, a packet under the old key is
 * dropped and the traffic flows under the new ones. 64 draws differ,
 * and each of the 64 bits is 0 in some and 1 in others.
 */
static void test_rud_keys(void)
{
    Rdma *r = rdma_setup_on("", 7, false, NULL);
    struct axon_qp_attr at = {};
    uint64_t old[2], draws[64], v, ones = 0, zeros = 0;
    uint32_t drops;
    TQp u[2];

    for (int i = 0; i < 2; i++) {
        g_assert_cmpuint(create_qp_type(r, &u[i], AXON_QPT_RUD, D_SQ(i),
                                        D_RQ(i), &r->cq[i]), ==,
                         AXON_ADMIN_SUCCESS);
    }
    /* an RC QP takes no peer key; RESET -> INIT of one gives no key */
    at.state = cpu_to_le32(AXON_QPS_RTS);
    at.peer_key_lo = cpu_to_le32(1);
    g_assert_cmpuint(modify_qp(r->a, r->qp[0].qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_PEER_KEY, &at), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmphex(r->qp[0].key, ==, 0);
    init_qp(r, &u[0]);
    init_qp(r, &u[1]);
    g_assert_cmphex(u[0].key, !=, 0);
    g_assert_cmphex(u[1].key, !=, u[0].key);
    /* the peer's key: at INIT -> RTR, required there, never 0 */
    at = (struct axon_qp_attr){ .state = cpu_to_le32(AXON_QPS_INIT),
                                .peer_key_lo = cpu_to_le32(1) };
    g_assert_cmpuint(modify_qp(r->a, u[0].qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_PEER_KEY, &at), ==,
                     AXON_ADMIN_BAD_STATE);
    at.state = cpu_to_le32(AXON_QPS_RTR);
    at.dest_qpn = cpu_to_le32(u[1].qpn);
    at.path_mtu = cpu_to_le32(R_MTU);
    at.dgid[10] = at.dgid[11] = 0xff;
    g_assert_cmpuint(modify_qp(r->a, u[0].qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_PATH | AXON_QP_ATTR_PATH_MTU |
                               AXON_QP_ATTR_DEST_QPN | AXON_QP_ATTR_RQ_PSN,
                               &at), ==, AXON_ADMIN_BAD_STATE);
    at.peer_key_lo = 0;
    g_assert_cmpuint(modify_qp(r->a, u[0].qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_PATH | AXON_QP_ATTR_PATH_MTU |
                               AXON_QP_ATTR_DEST_QPN | AXON_QP_ATTR_RQ_PSN |
                               AXON_QP_ATTR_PEER_KEY, &at), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(qp_state(r->a, u[0].qpn), ==, AXON_QPS_INIT);
    ready_qp(r, &u[0], u[1].qpn, D_PSN(0), D_PSN(1), 7, u[1].key);
    ready_qp(r, &u[1], u[0].qpn, D_PSN(1), D_PSN(0), 7, u[0].key);
    /* and not in flight */
    at = (struct axon_qp_attr){ .state = cpu_to_le32(AXON_QPS_RTS),
                                .peer_key_lo = cpu_to_le32(1) };
    g_assert_cmpuint(modify_qp(r->a, u[0].qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_PEER_KEY, &at), ==,
                     AXON_ADMIN_BAD_STATE);
    for (int i = 0; i < 2; i++) {
        g_assert_false(shows_key(r, u[i].qpn, u[0].key));
        g_assert_false(shows_key(r, u[i].qpn, u[1].key));
    }
    rud_traffic(r, u);

    /* connected again: new keys, the old ones dropped */
    old[0] = u[0].key;
    old[1] = u[1].key;
    reset_pair(r, u);
    connect_rud(r, u, D_PSN(0), D_PSN(1));
    g_assert_cmphex(u[0].key, !=, old[0]);
    g_assert_cmphex(u[1].key, !=, old[1]);
    drops = rd(r->a, AXON_REG_STAT_RUD_DROPS);
    forge_rud(r, &u[1], D_PSN(0), old[1], 0, 0, r->mr[1].iova + 700000);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RUD_DROPS) - drops, ==, 1);
    rud_traffic(r, u);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RUD_DROPS) - drops, ==, 1);

    /* from ERR too; and the draws */
    at = (struct axon_qp_attr){ .state = cpu_to_le32(AXON_QPS_ERR) };
    g_assert_cmpuint(modify_qp(r->a, u[0].qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_SUCCESS);
    for (int i = 0; i < 64; i++) {
        at = (struct axon_qp_attr){ .state = cpu_to_le32(AXON_QPS_RESET) };
        g_assert_cmpuint(modify_qp(r->a, u[0].qpn, AXON_QP_ATTR_STATE, &at),
                         ==, AXON_ADMIN_SUCCESS);
        at.state = cpu_to_le32(AXON_QPS_INIT);
        g_assert_cmpuint(modify_qp_result(r->a, u[0].qpn, AXON_QP_ATTR_STATE,
                                          &at, &v), ==, AXON_ADMIN_SUCCESS);
        draws[i] = v;
        g_assert_cmphex(v, !=, 0);
        g_assert_cmphex(v, !=, u[0].key);
        for (int j = 0; j < i; j++) {
            g_assert_cmphex(v, !=, draws[j]);
        }
        ones |= v;
        zeros |= ~v;
    }
    g_assert_cmphex(ones, ==, UINT64_MAX);
    g_assert_cmphex(zeros, ==, UINT64_MAX);
    rdma_stop(r);
}

/* A READ request at psn, as a forger writes it, with the right key. */
static void forge_read(Rdma *r, TQp *to, uint32_t psn, uint32_t msg_id,
                       uint32_t len, uint32_t off, uint32_t rkey, uint64_t va)
{
    ForgedRud f = {
        .opcode = AXON_RUD_OPCODE_READ_REQ, .dqpn = to->qpn,
        .psn = psn & AXON_PSN_MASK, .key = to->key, .msg_id = msg_id,
        .msg_len = len, .offset = off, .req_len = len - off,
        .op = AXON_RUD_OP_READ, .rkey = rkey, .va = va,
    };

    forge_rud_one(r, &f);
}

static uint64_t qp_tx(Rdma *r, TQp *qp)
{
    struct axon_qp_live st;

    qp_live(r->a, qp->qpn, &st);
    return le64_to_cpu(st.cnt.tx_pkts);
}

/*
 * A duplicate READ request is answered only from what the responder
 * saved of the request it answered: the test knows the key (a forger
 * does not), so the rule itself is what it sees. The first WQE is a READ
 * of D_MSG at PSN D_PSN(0), message 0; then one WRITE, at D_PSN(0) + 1
 * to + 3. The same request again is answered again (its responses reach
 * the requester as late duplicates); one at its PSN asking another
 * address, key, length or offset, one at a WRITE's PSN and one far
 * behind the window are dropped and counted, with nothing sent.
 */
static void test_rud_read_dup(void)
{
    Rdma *r = rdma_setup_on("", 7, false, NULL);
    uint8_t *back = pattern(D_MSG, 0x29);
    uint64_t va = r->mr[1].iova + 500000, tx;
    uint32_t rkey = r->mr[1].key, drops, dups, p = D_PSN(0);
    TQp u[2];

    make_rud_pair(r, u);
    mr_access(r, 1, va, back, D_MSG, true);
    post_sge_wqe(r, &u[0], AXON_WR_RDMA_READ, 0, 0x300, 100000, D_MSG, 500000,
                 rkey);
    expect_cqe(r, u[0].scq, 0x300, AXON_WC_RDMA_READ, AXON_WC_SUCCESS);
    post_sge_wqe(r, &u[0], AXON_WR_RDMA_WRITE, 0, 0x301, 0, D_MSG, 0, rkey);
    expect_cqe(r, u[0].scq, 0x301, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    check_mem(r, 0, 100000, back, D_MSG);

    drops = rd(r->a, AXON_REG_STAT_RUD_DROPS);
    dups = rd(r->a, AXON_REG_STAT_RUD_DUPS);
    tx = qp_tx(r, &u[1]);
    forge_read(r, &u[1], p, 0, D_MSG, 0, rkey, va);
    for (int i = 0; i < POLL_LIMIT && qp_tx(r, &u[1]) - tx < 3; i++) {
        axon_step(r->a, 1000);
    }
    g_assert_cmpuint(qp_tx(r, &u[1]) - tx, >=, 3);      /* three responses */
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RUD_DROPS), ==, drops);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RUD_DUPS) - dups, >=, 1 + 3);

    tx = qp_tx(r, &u[1]);
    forge_read(r, &u[1], p, 0, D_MSG, 0, rkey, va + 4096);
    forge_read(r, &u[1], p, 0, D_MSG, 0, r->mr[0].key, r->mr[0].iova);
    forge_read(r, &u[1], p, 0, D_MSG + R_MTU, 0, rkey, va);
    forge_read(r, &u[1], p, 0, D_MSG, R_MTU, rkey, va);
    forge_read(r, &u[1], p, 1, D_MSG, 0, rkey, va);
    forge_read(r, &u[1], p + 1, 1, D_MSG, 0, rkey, va);
    forge_read(r, &u[1], p - 2000, 0, D_MSG, 0, rkey, va);
    axon_step(r->a, 10 * 1000 * 1000);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RUD_DROPS) - drops, ==, 7);
    g_assert_cmpuint(qp_tx(r, &u[1]), ==, tx);
    g_assert_cmpuint(qp_state(r->a, u[0].qpn), ==, AXON_QPS_RTS);
    g_assert_cmpuint(qp_state(r->a, u[1].qpn), ==, AXON_QPS_RTS);
    rud_traffic(r, u);
    g_free(back);
    rdma_stop(r);
}

/*
 * Message slots (msg_id % 128). A forged first packet of a message holds
 * no slot: the WRITE a local user could forge before keys (interface
 * 1.14's frame and token) and one under a guessed key, each at the slot
 * of a message to come, are dropped, and the messages complete. With the
 * right key (the peer's own, or leaked), a stray first packet holds its
 * slot only until the sender reaches it: a SEND of an earlier message of
 * the slot gives it up to the real message at once, one of the same
 * msg_id but another length after AXON_RUD_SLOT_REFUSALS (3) refused
 * packets; the stray SEND's receive WQE completes in error
 * (GENERAL_ERR), every real message completes, the QPs stay in RTS.
 */
static void test_rud_slots(void)
{
    Rdma *r = rdma_setup_on("", 7, false, NULL);
    uint8_t *data = pattern(D_MSG, 0x47);
    uint32_t psn = D_PSN(0) + 148, drops;
    uint64_t wr_ids = 0;
    struct axon_cqe cqe;
    ForgedRud f = {
        .opcode = AXON_RUD_OPCODE_DATA, .msg_len = 2 * R_MTU,
        .op = AXON_RUD_OP_SEND, .payload = data, .len = R_MTU,
    };
    TQp u[2];

    make_rud_pair(r, u);
    rud_traffic(r, u);          /* 52 messages, 148 PSNs */
    f.dqpn = u[1].qpn;
    drops = rd(r->a, AXON_REG_STAT_RUD_DROPS);
    forge_rud_old(r, &u[0], &u[1], psn, 53, r->mr[1].iova);
    f.key = u[1].key ^ 0x5a5a5a5a5a5a5a5aULL;
    f.psn = psn;
    f.msg_id = 54;
    forge_rud_one(r, &f);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RUD_DROPS) - drops, ==, 2);

    /*
     * Right-key strays, far ahead of the PSNs the messages below take,
     * each the first of two packets: they take receive WQEs 0x100, 0x101.
     */
    for (int i = 0; i < 10; i++) {
        post_sge_recv(r, &u[1], 0x100 + i, i * 12288, 12288);
    }
    f.key = u[1].key;
    f.psn = psn + 900;
    f.msg_id = 55 - 128;        /* the slot of message 55, earlier */
    forge_rud_one(r, &f);
    f.psn = psn + 901;
    f.msg_id = 57;              /* message 57 itself, but 2 KiB long */
    forge_rud_one(r, &f);
    /* messages 52 to 59: SENDs of D_MSG, three packets each */
    mr_access(r, 0, r->mr[0].iova, data, D_MSG, true);
    for (int i = 0; i < 8; i++) {
        post_sge_wqe(r, &u[0], AXON_WR_SEND, 0, 0x200 + i, 0, D_MSG, 0, 0);
    }
    for (int i = 0; i < 8; i++) {
        expect_cqe(r, u[0].scq, 0x200 + i, AXON_WC_SEND, AXON_WC_SUCCESS);
    }
    /* the two strays' receive WQEs (0x100, 0x101) fail, eight complete */
    for (int i = 0; i < 10; i++) {
        uint64_t k;

        g_assert_true(poll_cq(r, u[1].rcq, &cqe));
        k = le64_to_cpu(cqe.wr_id) - 0x100;
        g_assert_cmpuint(k, <, 10);
        g_assert_false(wr_ids & (1ULL << k));
        wr_ids |= 1ULL << k;
        if (k < 2) {
            g_assert_cmpuint(cqe.status, ==, AXON_WC_GENERAL_ERR);
        } else {
            g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
            g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, D_MSG);
            check_mem(r, 1, k * 12288, data, D_MSG);
        }
    }
    g_assert_cmpuint(qp_state(r->a, u[0].qpn), ==, AXON_QPS_RTS);
    g_assert_cmpuint(qp_state(r->a, u[1].qpn), ==, AXON_QPS_RTS);
    g_free(data);
    rdma_stop(r);
}
/* Forged frames the flood sends, unless AXON_RUD_FORGE_COUNT says */
#define FLOOD_FRAMES 20000
/*
 * Frames injected each time the clock moves while the traffic is in
 * flight, through an l2tpv3 wire whose 4 MiB socket buffer takes them
 * and the traffic's (the socket backend's holds about 90 frames).
 */
#define FLOOD_BURST 500
#define FL_MSG D_MSG            /* the traffic's messages: 3 packets */
#define FL_SEND D_MSG

static uint64_t rand64(void)
{
    return (uint64_t)g_test_rand_int() << 32 | g_test_rand_int();
}

/* A PSN around base: a third far behind or ahead, the rest near it. */
static uint32_t flood_psn(uint32_t base)
{
    switch (g_test_rand_int_range(0, 3)) {
    case 0:
        return g_test_rand_int() & AXON_PSN_MASK;
    default:
        return (base + g_test_rand_int_range(-1500, 2500)) & AXON_PSN_MASK;
    }
}

/*
 * A RUD frame of any opcode at u[0] or u[1] from a forger who knows both
 * QPNs, the MRs' keys and addresses and roughly the PSNs, under a key
 * guessed at random.
 */
static size_t flood_frame(Rdma *r, TQp *u, uint8_t *buf)
{
    static uint8_t junk[R_MTU];
    int to = g_test_rand_bit();
    uint8_t opcode = AXON_RUD_OPCODE_DATA + g_test_rand_int_range(0, 4);
    bool answer = opcode >= AXON_RUD_OPCODE_READ_RESP;
    uint32_t base = D_PSN(answer ? to : !to);
    int mr = g_test_rand_bit();
    ForgedRud f = {
        .opcode = opcode,
        .dqpn = u[to].qpn,
        .psn = flood_psn(base),
        .key = rand64(),
        .msg_id = g_test_rand_bit() ? g_test_rand_int_range(0, 400) :
                  g_test_rand_int(),
        .msg_len = g_test_rand_int_range(0, 20000),
        .offset = g_test_rand_int_range(0, 20) * R_MTU,
        .req_len = g_test_rand_int_range(0, 17 * R_MTU),
        .op = g_test_rand_int_range(0, 6),
        .imm = g_test_rand_int(),
        .rkey = g_test_rand_bit() ? r->mr[mr].key : g_test_rand_int(),
        .va = r->mr[mr].iova + g_test_rand_int_range(0, MEM_PAGES * 4096),
        .syndrome = g_test_rand_bit() ? 0x60 | g_test_rand_int_range(0, 4) :
                    g_test_rand_int_range(0, 256),
        .ce = g_test_rand_int_range(0, 256),
        .ack_psn = flood_psn(base),
        .err_psn = flood_psn(base),
        .payload = junk,
        .len = opcode == AXON_RUD_OPCODE_ACK ?
               g_test_rand_int_range(0, AXON_RUD_SACK_BYTES + 1) :
               opcode == AXON_RUD_OPCODE_READ_REQ ? 0 :
               g_test_rand_int_range(0, R_MTU + 1),
    };

    if (f.key == u[to].key) {
        f.key = ~f.key;         /* one chance in 2^64, but the test counts */
    }
    for (size_t i = 0; i < sizeof(junk); i += 4) {
        stl_le_p(junk + i, g_test_rand_int());
    }
    return forge_rud_frame(&f, buf);
}

/* One look at the CQ, no waiting. */
static bool cqe_now(Rdma *r, TCq *cq, struct axon_cqe *cqe)
{
    uint64_t addr = tcq_addr(cq, (cq->cons % R_CQ_DEPTH) * AXON_CQE_SIZE);

    qtest_memread(r->a->qts, addr, cqe, sizeof(*cqe));
    if (!!(cqe->flags & AXON_CQE_PHASE) != !((cq->cons / R_CQ_DEPTH) & 1)) {
        return false;
    }
    cq->cons++;
    qtest_writel(r->a->qts, tcq_addr(cq, R_CQ_DEPTH * AXON_CQE_SIZE),
                 cq->cons);
    return true;
}

/*
 * The acceptance run of RUD's keys: a forger who knows both QPNs sends
 * FLOOD_FRAMES (or $AXON_RUD_FORGE_COUNT, 1000000 for the full run)
 * forged RUD frames, every opcode with random fields, guessed keys, PSNs
 * in and out of the window, at a live connection moving traffic both
 * ways: each round u[0] SENDs 4 messages, WRITEs 4 and READs 2, u[1]
 * WRITEs 2, three packets each (38 packets, ACKs besides), and the
 * forger's frames go FLOOD_BURST at every step of the clock while they
 * are in flight. Every forged frame is dropped and counted (the device's
 * rud_drops and the QPs' stray counters grow by exactly their number),
 * every round's data verifies, and neither QP leaves RTS.
 */
static void test_rud_flood(void)
{
    const char *env = g_getenv("AXON_RUD_FORGE_COUNT");
    uint64_t want = env ? g_ascii_strtoull(env, NULL, 0) : FLOOD_FRAMES;
    Rdma *r = rdma_setup_l2tp(NULL);
    uint8_t buf[FORGE_MAX_FRAME];
    uint64_t forged = 0, stray0, drops0, rounds = 0, frames_ns = 0;
    int64_t t0 = g_get_monotonic_time();
    TQp u[2];

    make_rud_pair(r, u);
    drops0 = rd(r->a, AXON_REG_STAT_RUD_DROPS);
    stray0 = qp_stray(r, &u[0]) + qp_stray(r, &u[1]);
    do {
        g_autofree uint8_t *data = pattern(FL_MSG, rounds);
        g_autofree uint8_t *back = pattern(FL_MSG, rounds + 0x80);
        unsigned left[2] = { 10, 2 + 4 }, recvd = 0, i;
        struct axon_cqe cqe;

        mr_access(r, 0, r->mr[0].iova, data, FL_MSG, true);
        mr_access(r, 1, r->mr[1].iova + 600000, back, FL_MSG, true);
        for (i = 0; i < 4; i++) {
            post_sge_recv(r, &u[1], 0x100 + i, i * FL_SEND, FL_SEND);
        }
        for (i = 0; i < 4; i++) {
            post_sge_wqe(r, &u[0], AXON_WR_SEND, 0, 0x200 + i, 0, FL_SEND, 0,
                         0);
            post_sge_wqe(r, &u[0], AXON_WR_RDMA_WRITE, 0, 0x210 + i, 0, FL_MSG,
                         100000 + i * FL_MSG, r->mr[1].key);
        }
        for (i = 0; i < 2; i++) {
            post_sge_wqe(r, &u[0], AXON_WR_RDMA_READ, 0, 0x220 + i,
                         200000 + i * FL_MSG, FL_MSG, 600000, r->mr[1].key);
            post_sge_wqe(r, &u[1], AXON_WR_RDMA_WRITE, 0, 0x230 + i, 0, FL_MSG,
                         300000 + i * FL_MSG, r->mr[1].key);
        }
        while (left[0] || left[1]) {
            unsigned n = MIN(want - forged, FLOOD_BURST);
            int64_t f0 = g_get_monotonic_time();

            for (i = 0; i < n; i++) {
                inject(r->a, buf, flood_frame(r, u, buf));
            }
            frames_ns += (g_get_monotonic_time() - f0) * 1000;
            forged += n;
            axon_step(r->a, 1000);
            /* u[1]'s CQ has its WRITEs' completions and its receives */
            for (int q = 0; q < 2; q++) {
                while (left[q] && cqe_now(r, u[q].scq, &cqe)) {
                    g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
                    if (cqe.opcode == AXON_WC_RECV) {
                        g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==,
                                         FL_SEND);
                        recvd |= 1u << (le64_to_cpu(cqe.wr_id) - 0x100);
                    }
                    left[q]--;
                }
            }
        }
        g_assert_cmphex(recvd, ==, 0xf);
        /* every frame the forger sent so far reached the device, dropped */
        for (int k = 0; k < POLL_LIMIT &&
             rd(r->a, AXON_REG_STAT_RUD_DROPS) - drops0 < forged; k++) {
            axon_step(r->a, 1000);
        }
        g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RUD_DROPS) - drops0, ==,
                         forged);
        for (i = 0; i < 4; i++) {
            check_mem(r, 1, i * FL_SEND, data, FL_SEND);
            check_mem(r, 1, 100000 + i * FL_MSG, data, FL_MSG);
        }
        for (i = 0; i < 2; i++) {
            check_mem(r, 0, 200000 + i * FL_MSG, back, FL_MSG);
            check_mem(r, 1, 300000 + i * FL_MSG, data, FL_MSG);
        }
        g_assert_cmpuint(qp_state(r->a, u[0].qpn), ==, AXON_QPS_RTS);
        g_assert_cmpuint(qp_state(r->a, u[1].qpn), ==, AXON_QPS_RTS);
        rounds++;
    } while (forged < want);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RUD_DROPS) - drops0, ==, forged);
    g_assert_cmpuint(qp_stray(r, &u[0]) + qp_stray(r, &u[1]) - stray0, ==,
                     forged);
    g_test_message("%" PRIu64 " forged RUD frames, all with traffic in "
                   "flight, in %.1f s (%.0f a second, %.1f s of it writing "
                   "them), %" PRIu64 " rounds of traffic verified, every "
                   "frame counted, QPs in RTS",
                   forged, (g_get_monotonic_time() - t0) / 1e6,
                   forged / ((g_get_monotonic_time() - t0) / 1e6),
                   frames_ns / 1e9, rounds);
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
    qtest_add_func("/axon-nic/rud-keys", test_rud_keys);
    qtest_add_func("/axon-nic/rud-read-dup", test_rud_read_dup);
    qtest_add_func("/axon-nic/rud-slots", test_rud_slots);
    qtest_add_func("/axon-nic/rud-flood", test_rud_flood);
    qtest_add_func("/axon-nic/rud-remote-errors", test_rud_remote_errors);
    qtest_add_func("/axon-nic/rud-bad-wqe", test_rud_bad_wqe);
}
