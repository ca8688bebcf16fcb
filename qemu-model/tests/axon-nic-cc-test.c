/*
 * qtest of RC congestion control (DCQCN, Documentation/congestion-control.rst):
 * a CNP paces the requester in virtual time and the rate climbs back;
 * a flood of CNPs cuts no deeper than one;
 * packets the wire marks CE are answered with CNPs; CNPs from anyone but
 * a live QP's peer change nothing.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-nic-qos.h"

#define CC_LINE_RATE 1000       /* Mb/s, the devices' dcqcn-line-rate */
#define CC_BYTES 65536          /* one WRITE: 64 packets of R_MTU */
#define CC_WIRE_OVERHEAD 66     /* what the model adds to each packet */

static int64_t vclock(Axon *a)
{
    return qtest_clock_step(a->qts, 0);
}

/*
 * A CQE, waited for in real time (a few seconds at most) with the
 * virtual clock standing still.
 */
static bool poll_cq_still(Rdma *r, TCq *cq, struct axon_cqe *cqe)
{
    for (int i = 0; i < 100; i++) {
        if (poll_cq_now(r, cq, cqe)) {
            return true;
        }
        g_usleep(1000);
    }
    return false;
}

static uint8_t live_flags(Rdma *r, int i)
{
    struct axon_qp_live st;

    qp_live(r->a, r->qp[i].qpn, &st);
    return st.flags;
}

static uint64_t live_tx_pkts(Rdma *r, int i)
{
    struct axon_qp_live st;

    qp_live(r->a, r->qp[i].qpn, &st);
    return le64_to_cpu(st.cnt.tx_pkts);
}

static void write_64k(Rdma *r, uint64_t off, uint64_t wr_id)
{
    post_rdma0(r, AXON_WR_RDMA_WRITE, r->mr[1].key, r->mr[1].iova + off,
               CC_BYTES, wr_id);
}

/*
 * Reaction point: a CNP from the peer halves QP 0's rate (alpha starts at
 * 1). Its next WRITE leaves one packet at once and the rest only as the
 * virtual clock moves, at no more than line rate; without CNPs the rate
 * climbs back, the QP is no longer paced, and a WRITE completes with the
 * clock standing still again. CNPs for a QP that does not exist are
 * dropped.
 */
static void test_rdma_dcqcn_cnp(void)
{
    Rdma *r = rdma_setup_on(",dcqcn=on,dcqcn-line-rate=1000,"
                            "dcqcn-min-rate=10", 7, false, NULL);
    g_autofree uint8_t *data = pattern(CC_BYTES, 5);
    Forged cnp = { .opcode = F_CNP, .dqpn = r->qp[0].qpn };
    struct axon_cqe cqe;
    uint64_t tx;
    int64_t t0, pkt_ns;
    uint32_t drops;

    g_assert_cmphex(rd(r->a, AXON_REG_CAPS) & AXON_CAP_CC, ==, AXON_CAP_CC);
    mr_access(r, 0, r->mr[0].iova + 300000, data, CC_BYTES, true);

    /* at line rate the model does not pace: no virtual time needed */
    write_64k(r, 0, 1);
    g_assert_true(poll_cq_still(r, r->qp[0].scq, &cqe));
    g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
    g_assert_cmphex(live_flags(r, 0) & AXON_QP_LIVE_CC_PACED, ==, 0);

    forge(r, &cnp, 1);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_CNP_RCVD), ==, 1);
    g_assert_cmphex(live_flags(r, 0) & AXON_QP_LIVE_CC_PACED, ==,
                    AXON_QP_LIVE_CC_PACED);

    tx = live_tx_pkts(r, 0);
    t0 = vclock(r->a);
    write_64k(r, 100000, 2);
    g_assert_false(poll_cq_still(r, r->qp[0].scq, &cqe));
    /* the first packet went at once; the next is due in 17 us */
    g_assert_cmpuint(live_tx_pkts(r, 0) - tx, ==, 1);
    while (!poll_cq_now(r, r->qp[0].scq, &cqe)) {
        g_assert_cmpint(vclock(r->a) - t0, <, 1000000000LL);
        axon_step(r->a, 10000);
    }
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 2);
    g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
    pkt_ns = (R_MTU + CC_WIRE_OVERHEAD) * 8000 / CC_LINE_RATE;
    g_test_message("64 KiB after a CNP: %" PRId64 " us of virtual time",
                   (vclock(r->a) - t0) / 1000);
    g_assert_cmpint(vclock(r->a) - t0, >=,
                    (CC_BYTES / R_MTU - 1) * pkt_ns);
    check_mem(r, 1, 100000, data, CC_BYTES);

    /* no CNP for 50 ms: back to line rate, not paced */
    axon_step(r->a, 50 * 1000 * 1000);
    g_assert_cmphex(live_flags(r, 0) & AXON_QP_LIVE_CC_PACED, ==, 0);
    write_64k(r, 200000, 3);
    g_assert_true(poll_cq_still(r, r->qp[0].scq, &cqe));
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 3);
    check_mem(r, 1, 200000, data, CC_BYTES);

    /* a CNP for no QP is dropped and counted as such */
    drops = rd(r->a, AXON_REG_STAT_RX_DROPS);
    cnp.dqpn = 999;
    forge(r, &cnp, 1);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_DROPS), ==, drops + 1);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_CNP_RCVD), ==, 1);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_CNP_SENT), ==, 0);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_ECN_MARKED), ==, 0);
    g_assert_cmpuint(qp_state(r->a, r->qp[0].qpn), ==, AXON_QPS_RTS);
    rdma_stop(r);
}

/*
 * A flood of CNPs at one instant (a forger's: a CNP carries nothing the
 * peer alone knows) cuts QP 0's rate once, as one CNP does: a QP reacts
 * to at most one CNP every dcqcn-cnp-us. Before that limit, every CNP of
 * the flood cut the rate again: the WRITE took 4.7 ms of virtual time,
 * against 0.77 ms now.
 */
static void test_rdma_dcqcn_cnp_flood(void)
{
    Rdma *r = rdma_setup_on(",dcqcn=on,dcqcn-line-rate=1000,"
                            "dcqcn-min-rate=10", 7, false, NULL);
    g_autofree uint8_t *data = pattern(CC_BYTES, 6);
    Forged cnp = { .opcode = F_CNP, .dqpn = r->qp[0].qpn };
    struct axon_cqe cqe;
    int64_t t0, took, half_rate_ns;

    mr_access(r, 0, r->mr[0].iova + 300000, data, CC_BYTES, true);
    for (int i = 0; i < 50; i++) {
        forge(r, &cnp, 1);
    }
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_CNP_RCVD), ==, 50);
    g_assert_cmphex(live_flags(r, 0) & AXON_QP_LIVE_CC_PACED, ==,
                    AXON_QP_LIVE_CC_PACED);
    t0 = vclock(r->a);
    write_64k(r, 0, 1);
    while (!poll_cq_now(r, r->qp[0].scq, &cqe)) {
        g_assert_cmpint(vclock(r->a) - t0, <, 1000000000LL);
        axon_step(r->a, 10000);
    }
    took = vclock(r->a) - t0;
    g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
    check_mem(r, 1, 0, data, CC_BYTES);
    /* one cut: half of line rate, give or take the clock's 10 us steps */
    half_rate_ns = (int64_t)CC_BYTES / R_MTU * (R_MTU + CC_WIRE_OVERHEAD) *
                   8000 / (CC_LINE_RATE / 2);
    g_test_message("64 KiB after 50 CNPs at once: %" PRId64 " us of virtual "
                   "time (one cut: %" PRId64 " us)", took / 1000,
                   half_rate_ns / 1000);
    g_assert_cmpint(took, <=, half_rate_ns + 100000);
    g_assert_cmpuint(qp_state(r->a, r->qp[0].qpn), ==, AXON_QPS_RTS);
    rdma_stop(r);
}

/* Four WRITEs from QP 0 to QP 1 and their data, the clock moving. */
static void write_four(Rdma *r)
{
    g_autofree uint8_t *data = pattern(CC_BYTES, 9);

    mr_access(r, 0, r->mr[0].iova + 300000, data, CC_BYTES, true);
    for (int i = 0; i < 4; i++) {
        write_64k(r, i * CC_BYTES, 0x10 + i);
    }
    for (int i = 0; i < 4; i++) {
        expect_cqe(r, r->qp[0].scq, 0x10 + i, AXON_WC_RDMA_WRITE,
                   AXON_WC_SUCCESS);
        check_mem(r, 1, i * CC_BYTES, data, CC_BYTES);
    }
}

/*
 * Notification point: the wire marks every 8th ECN-capable frame CE
 * (x-tx-ce-every, a congested switch's part). The receiving QP answers
 * with CNPs, no more than one per dcqcn-cnp-us, which come back over the
 * same wire to the sender and are counted there. A device without DCQCN
 * sends nothing ECN-capable, so the same wire marks nothing.
 */
static void test_rdma_dcqcn_ecn(void)
{
    Rdma *r = rdma_setup_on(",dcqcn=on,dcqcn-line-rate=1000,"
                            "x-tx-ce-every=8", 7, false, NULL);
    uint32_t marked, sent;

    write_four(r);
    marked = rd(r->a, AXON_REG_STAT_ECN_MARKED);
    sent = rd(r->a, AXON_REG_STAT_CNP_SENT);
    g_test_message("%u packets marked CE, %u CNPs", marked, sent);
    g_assert_cmpuint(marked, >=, 4 * CC_BYTES / R_MTU / 8);
    g_assert_cmpuint(sent, >, 0);
    g_assert_cmpuint(sent, <=, marked);
    /*
     * They come back over the host's UDP loopback, which may lose a
     * frame on a busy host (a CNP is never retransmitted), and the last
     * ones may still be on their way.
     */
    for (int i = 0; i < 1000 &&
         rd(r->a, AXON_REG_STAT_CNP_RCVD) < sent; i++) {
        axon_step(r->a, 1000);
        g_usleep(1000);
    }
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_CNP_RCVD), >, 0);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_CNP_RCVD), <=,
                     rd(r->a, AXON_REG_STAT_CNP_SENT));
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_DROPS), ==, 0);
    rdma_stop(r);

    r = rdma_setup_on(",x-tx-ce-every=8", 7, false, NULL);
    write_four(r);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_ECN_MARKED), ==, 0);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_CNP_SENT), ==, 0);
    g_assert_cmphex(live_flags(r, 0) & AXON_QP_LIVE_CC_PACED, ==, 0);
    rdma_stop(r);
}

void axon_nic_cc_tests(void)
{
    qtest_add_func("/axon-nic/rdma-dcqcn-cnp", test_rdma_dcqcn_cnp);
    qtest_add_func("/axon-nic/rdma-dcqcn-cnp-flood",
                   test_rdma_dcqcn_cnp_flood);
    qtest_add_func("/axon-nic/rdma-dcqcn-ecn", test_rdma_dcqcn_ecn);
}
