/*
 * qtest of RDMA over the wire (RoCEv2 frames, with loss and reordering),
 * and the wire as an attacker's: forged frames at live QPs and the keys
 * they would have to guess (Documentation/wire-security.rst)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-nic-qos.h"
#include "axon-nic-forge.h"
#include "qapi/qmp/qdict.h"
#include "qemu/units.h"
#include <poll.h>

/* WRITE, SEND, READ and an atomic over the wire, maybe lossy. */
static void rdma_traffic(Rdma *r, int rounds)
{
    struct axon_send_wqe w = {};
    struct axon_sge sg[2];
    g_autofree uint8_t *data = pattern(65536, 11);
    g_autofree uint8_t *back = pattern(20000, 13);
    TQp *a = &r->qp[0], *b = &r->qp[1];
    uint64_t v = cpu_to_le64(1), got;
    int i;

    mr_access(r, 0, r->mr[0].iova, data, 65536, true);
    mr_access(r, 1, r->mr[1].iova + 700000, back, 20000, true);
    mr_access(r, 1, r->mr[1].iova + 0x10000 - 0x123, &v, 8, true);
    for (i = 0; i < rounds; i++) {
        g_test_message("round %d", i);
        sg[0] = sge(r, 0, 0, 65536);
        memset(&w, 0, sizeof(w));
        w.opcode = AXON_WR_RDMA_WRITE;
        w.flags = AXON_WQE_SIGNALED;
        w.num_sge = 1;
        w.wr_id = cpu_to_le64(0x10 + i);
        w.remote_addr = cpu_to_le64(r->mr[1].iova + 100000 + i * 77);
        w.rkey = cpu_to_le32(r->mr[1].key);
        post_send(r, a, &w, sg, NULL);

        sg[1] = sge(r, 1, 400000, 30000);
        post_recv(r, b, 0x20 + i, &sg[1], 1);
        sg[0] = sge(r, 0, 1000 + i, 20000);
        w.opcode = AXON_WR_SEND;
        w.wr_id = cpu_to_le64(0x30 + i);
        post_send(r, a, &w, sg, NULL);

        sg[0] = sge(r, 0, 200000, 20000);
        w.opcode = AXON_WR_RDMA_READ;
        w.wr_id = cpu_to_le64(0x40 + i);
        w.remote_addr = cpu_to_le64(r->mr[1].iova + 700000);
        post_send(r, a, &w, sg, NULL);

        sg[0] = sge(r, 0, 300000, 8);
        w.opcode = AXON_WR_ATOMIC_FETCH_ADD;
        w.wr_id = cpu_to_le64(0x50 + i);
        w.remote_addr = cpu_to_le64(r->mr[1].iova + 0x10000 - 0x123);
        w.compare_add = cpu_to_le64(2);
        post_send(r, a, &w, sg, NULL);

        expect_cqe(r, a->scq, 0x10 + i, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
        expect_cqe(r, b->rcq, 0x20 + i, AXON_WC_RECV, AXON_WC_SUCCESS);
        expect_cqe(r, a->scq, 0x30 + i, AXON_WC_SEND, AXON_WC_SUCCESS);
        expect_cqe(r, a->scq, 0x40 + i, AXON_WC_RDMA_READ, AXON_WC_SUCCESS);
        expect_cqe(r, a->scq, 0x50 + i, AXON_WC_FETCH_ADD, AXON_WC_SUCCESS);
        check_mem(r, 1, 100000 + i * 77, data, 65536);
        check_mem(r, 1, 400000, data + 1000 + i, 20000);
        check_mem(r, 0, 200000, back, 20000);
        mr_access(r, 0, r->mr[0].iova + 300000, &got, 8, false);
        /* executed once per round, even when retransmitted */
        g_assert_cmpuint(le64_to_cpu(got), ==, 1 + 2 * i);
    }
}

static void test_rdma_wire(void)
{
    for (int v6 = 0; v6 < 2; v6++) {
        Rdma *r = rdma_setup_on("", 7, v6, NULL);

        rdma_traffic(r, 2);
        g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_PKTS), >=, 2 * 87);
        g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_DROPS), ==, 0);
        g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_ROCE), ==,
                         rd(r->a, AXON_REG_STAT_RX_PKTS));
        rdma_stop(r);
    }
}

static void cset_snapshot(Rdma *r, uint32_t set, struct axon_qp_live *st,
                          struct axon_qp_counters *c, uint32_t *port);

/*
 * Loss and reordering: the traffic completes, and QUERY_QP_LIVE shows
 * two idle QPs whose PSNs agree and whose counters add up to the
 * device's (read while no frame lands: the answer to a READ asked again
 * may still be on its way after the READ completed).
 */
static void test_rdma_wire_loss(void)
{
    Rdma *r = rdma_setup_on(",x-tx-drop-every=13,x-tx-reorder-every=5",
                            7, false, NULL);
    struct axon_qp_live st[2];
    uint64_t sum[6] = {};
    uint32_t port[7];
    int i;

    rdma_traffic(r, 4);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RETRANS), >, 0);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_DROPS), ==, 0);

    g_assert_cmphex(rd(r->a, AXON_REG_CAPS) & AXON_CAP_QP_LIVE, ==,
                    AXON_CAP_QP_LIVE);
    cset_snapshot(r, 0, st, NULL, port);
    for (i = 0; i < 2; i++) {
        g_assert_cmpuint(le32_to_cpu(st[i].state), ==, AXON_QPS_RTS);
        /* idle: everything sent is acknowledged, every WQE completed */
        g_assert_cmphex(le32_to_cpu(st[i].una_psn), ==,
                        le32_to_cpu(st[i].sq_psn));
        g_assert_cmphex(le32_to_cpu(st[i].psn_hi), ==,
                        le32_to_cpu(st[i].sq_psn));
        g_assert_cmpuint(le16_to_cpu(st[i].sq_fetched), ==,
                         le16_to_cpu(st[i].sq_completed));
        g_assert_cmpuint(st[i].reads_inflight, ==, 0);
        g_assert_cmphex(st[i].flags & ~AXON_QP_LIVE_TIMER, ==, 0);
        g_assert_cmpuint(le64_to_cpu(st[i].cnt.local_errs) +
                         le64_to_cpu(st[i].cnt.remote_errs), ==, 0);
        sum[0] += le64_to_cpu(st[i].cnt.tx_pkts);
        sum[1] += le64_to_cpu(st[i].cnt.rx_pkts);
        sum[2] += le64_to_cpu(st[i].cnt.retrans);
        sum[3] += le64_to_cpu(st[i].cnt.out_of_seq);
        sum[4] += le64_to_cpu(st[i].cnt.dup_reqs);
        sum[5] += le64_to_cpu(st[i].cnt.stray);
    }
    /* what one sent, the other expects next */
    g_assert_cmphex(le32_to_cpu(st[0].sq_psn), ==, le32_to_cpu(st[1].epsn));
    g_assert_cmphex(le32_to_cpu(st[1].sq_psn), ==, le32_to_cpu(st[0].epsn));
    /* 4 WRITEs of 64 KiB and more: QP 0 sent at least their bytes */
    g_assert_cmpuint(le64_to_cpu(st[0].cnt.tx_bytes), >=, 4 * 65536);
    g_assert_cmpuint(le64_to_cpu(st[0].cnt.retrans), >, 0);
    g_assert_cmpuint(le64_to_cpu(st[0].cnt.seq_naks_rcvd) +
                     le64_to_cpu(st[0].cnt.timeouts), >, 0);
    g_assert_cmpuint(le64_to_cpu(st[1].cnt.seq_naks_sent), >, 0);
    /* the registers of cset_port_regs[] */
    g_assert_cmpuint(sum[0], ==, port[0]);
    g_assert_cmpuint(sum[1], ==, port[1]);
    g_assert_cmpuint(sum[2], ==, port[2]);
    g_assert_cmpuint(sum[3], ==, port[5]);
    g_assert_cmpuint(sum[4], ==, port[4]);
    g_assert_cmpuint(sum[5], ==, port[6]);

    /* bad commands */
    g_assert_cmpuint(qp_cmd(r->a, AXON_ADMIN_QUERY_QP_LIVE, r->qp[0].qpn, 1,
                            ATTR_ADDR), ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(qp_cmd(r->a, AXON_ADMIN_QUERY_QP_LIVE, 999, 0,
                            ATTR_ADDR), ==, AXON_ADMIN_BAD_HANDLE);
    rdma_stop(r);
}

static uint16_t cset_cmd(Axon *a, uint16_t op, uint32_t set, uint32_t qpn,
                         uint64_t resp, uint64_t *result)
{
    struct axon_admin_cmd cmd = {};

    cmd.counter_set.set = cpu_to_le32(set);
    cmd.counter_set.qpn = cpu_to_le32(qpn);
    cmd.counter_set.resp_addr = cpu_to_le64(resp);
    return cmd_result(a, &cmd, op, result);
}

static void cset_query(Axon *a, uint32_t set, struct axon_qp_counters *c)
{
    g_assert_cmpuint(cset_cmd(a, AXON_ADMIN_QUERY_COUNTER_SET, set, 0,
                              ATTR_ADDR, NULL), ==, AXON_ADMIN_SUCCESS);
    qtest_memread(a->qts, ATTR_ADDR, c, sizeof(*c));
}

/* The port's registers a QP's counters make up. */
static const uint32_t cset_port_regs[] = {
    AXON_REG_STAT_TX_PKTS, AXON_REG_STAT_RX_PKTS, AXON_REG_STAT_RETRANS,
    AXON_REG_STAT_NAKS, AXON_REG_STAT_DUP_REQS, AXON_REG_STAT_OUT_OF_SEQ,
    AXON_REG_STAT_STRAY,
};

/* Those registers' values as counters c would make them up. */
static void cset_port_of(const struct axon_qp_counters *c, uint32_t *v)
{
    v[0] = le64_to_cpu(c->tx_pkts);
    v[1] = le64_to_cpu(c->rx_pkts);
    v[2] = le64_to_cpu(c->retrans);
    v[3] = le64_to_cpu(c->seq_naks_sent) + le64_to_cpu(c->rnr_naks_sent) +
           le64_to_cpu(c->err_naks_sent) + le64_to_cpu(c->seq_naks_rcvd) +
           le64_to_cpu(c->rnr_naks_rcvd) + le64_to_cpu(c->err_naks_rcvd);
    v[4] = le64_to_cpu(c->dup_reqs);
    v[5] = le64_to_cpu(c->out_of_seq);
    v[6] = le64_to_cpu(c->stray);
}

/*
 * Both QPs' counters, set's (if not 0) and the port's registers, read
 * while neither QP counted anything: a frame still on the lossy wire (a
 * duplicate of one sent again) may land between two reads, so the reads
 * are taken again until the QPs' counters stand still around them.
 */
static void cset_snapshot(Rdma *r, uint32_t set, struct axon_qp_live *st,
                          struct axon_qp_counters *c, uint32_t *port)
{
    struct axon_qp_live again[2];
    int tries, i;

    for (tries = 0; tries < 100; tries++) {
        qp_live(r->a, r->qp[0].qpn, &st[0]);
        qp_live(r->a, r->qp[1].qpn, &st[1]);
        if (set) {
            cset_query(r->a, set, c);
        }
        for (i = 0; i < ARRAY_SIZE(cset_port_regs); i++) {
            port[i] = rd(r->a, cset_port_regs[i]);
        }
        qp_live(r->a, r->qp[0].qpn, &again[0]);
        qp_live(r->a, r->qp[1].qpn, &again[1]);
        if (!memcmp(&st[0].cnt, &again[0].cnt, sizeof(st[0].cnt)) &&
            !memcmp(&st[1].cnt, &again[1].cnt, sizeof(st[1].cnt))) {
            return;
        }
        qtest_clock_step(r->a->qts, 1000000);
    }
    g_assert_not_reached();
}

/*
 * Counter sets over a lossy wire: a set counts exactly what its QP
 * counted while bound, the port's registers exactly what the other QP
 * counted, and the set's counts stay out of the port once it is left and
 * freed; a set in use cannot be freed; bad sets and commands are refused.
 */
static void test_rdma_counter_sets(void)
{
    Rdma *r = rdma_setup_on(",x-tx-drop-every=13,x-tx-reorder-every=5",
                            7, false, NULL);
    uint32_t port[ARRAY_SIZE(cset_port_regs)], want[ARRAY_SIZE(port)];
    uint32_t got[ARRAY_SIZE(port)], not_ours[ARRAY_SIZE(port)];
    struct axon_qp_counters set, set2;
    struct axon_qp_live st[2];
    uint64_t s1, s, last = 0;
    int i;

    g_assert_cmphex(rd(r->a, AXON_REG_CAPS) & AXON_CAP_COUNTER_SETS, ==,
                    AXON_CAP_COUNTER_SETS);
    g_assert_cmpuint(cset_cmd(r->a, AXON_ADMIN_ALLOC_COUNTER_SET, 0, 0, 0,
                              &s1), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(s1, >=, 1);
    g_assert_cmpuint(s1, <, AXON_MAX_COUNTER_SETS);
    /* QP 0 in the set before it sends anything: the set is QP 0 */
    g_assert_cmpuint(cset_cmd(r->a, AXON_ADMIN_BIND_COUNTER_SET, s1,
                              r->qp[0].qpn, 0, NULL), ==, AXON_ADMIN_SUCCESS);
    rdma_traffic(r, 2);
    cset_snapshot(r, s1, st, &set, port);
    g_assert_cmpmem(&set, sizeof(set), &st[0].cnt, sizeof(st[0].cnt));
    g_assert_cmpuint(le64_to_cpu(set.retrans), >, 0);
    /* the port: QP 1 alone */
    cset_port_of(&st[1].cnt, want);
    g_assert_cmpmem(port, sizeof(port), want, sizeof(want));
    g_assert_cmpuint(cset_cmd(r->a, AXON_ADMIN_FREE_COUNTER_SET, s1, 0, 0,
                              NULL), ==, AXON_ADMIN_BUSY);

    /* back in the port's set: the set keeps what it counted */
    g_assert_cmpuint(cset_cmd(r->a, AXON_ADMIN_BIND_COUNTER_SET, 0,
                              r->qp[0].qpn, 0, NULL), ==, AXON_ADMIN_SUCCESS);
    rdma_traffic(r, 1);
    cset_snapshot(r, s1, st, &set2, port);
    g_assert_cmpmem(&set2, sizeof(set2), &set, sizeof(set));
    g_assert_cmpuint(cset_cmd(r->a, AXON_ADMIN_FREE_COUNTER_SET, s1, 0, 0,
                              NULL), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(cset_cmd(r->a, AXON_ADMIN_QUERY_COUNTER_SET, s1, 0,
                              ATTR_ADDR, NULL), ==, AXON_ADMIN_BAD_HANDLE);
    /* freed: the port is both QPs less what the set counted */
    cset_snapshot(r, 0, st, NULL, port);
    cset_port_of(&st[0].cnt, want);
    cset_port_of(&st[1].cnt, got);
    cset_port_of(&set, not_ours);
    for (i = 0; i < ARRAY_SIZE(want); i++) {
        want[i] += got[i] - not_ours[i];
    }
    g_assert_cmpmem(port, sizeof(port), want, sizeof(want));

    /* bad commands and sets */
    g_assert_cmpuint(cset_cmd(r->a, AXON_ADMIN_BIND_COUNTER_SET, 5,
                              r->qp[0].qpn, 0, NULL), ==,
                     AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(cset_cmd(r->a, AXON_ADMIN_BIND_COUNTER_SET, 0, 999, 0,
                              NULL), ==, AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(cset_cmd(r->a, AXON_ADMIN_QUERY_COUNTER_SET, 0, 0,
                              ATTR_ADDR, NULL), ==, AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(cset_cmd(r->a, AXON_ADMIN_FREE_COUNTER_SET,
                              AXON_MAX_COUNTER_SETS, 0, 0, NULL), ==,
                     AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(cset_cmd(r->a, AXON_ADMIN_ALLOC_COUNTER_SET, 1, 0, 0,
                              &s), ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(cset_cmd(r->a, AXON_ADMIN_FREE_COUNTER_SET, 1, 2, 0,
                              NULL), ==, AXON_ADMIN_BAD_PARAM);
    /* every set, then no more */
    for (i = 1; i < AXON_MAX_COUNTER_SETS; i++) {
        g_assert_cmpuint(cset_cmd(r->a, AXON_ADMIN_ALLOC_COUNTER_SET, 0, 0,
                                  0, &s), ==, AXON_ADMIN_SUCCESS);
        g_assert_cmpuint(s, >, last);
        last = s;
    }
    g_assert_cmpuint(cset_cmd(r->a, AXON_ADMIN_ALLOC_COUNTER_SET, 0, 0, 0,
                              &s), ==, AXON_ADMIN_NO_RESOURCES);
    for (i = 1; i < AXON_MAX_COUNTER_SETS; i++) {
        g_assert_cmpuint(cset_cmd(r->a, AXON_ADMIN_FREE_COUNTER_SET, i, 0, 0,
                                  NULL), ==, AXON_ADMIN_SUCCESS);
    }
    rdma_stop(r);
}

static uint16_t wire_test(Axon *a, uint32_t mask, uint32_t drop,
                          uint32_t reorder, uint64_t *now)
{
    struct axon_admin_cmd cmd = {};

    cmd.wire_test.mask = cpu_to_le32(mask);
    cmd.wire_test.drop_every = cpu_to_le32(drop);
    cmd.wire_test.reorder_every = cpu_to_le32(reorder);
    return cmd_result(a, &cmd, AXON_ADMIN_WIRE_TEST, now);
}

/*
 * WIRE_TEST: the x-tx-* impairments read back, turned off (no
 * retransmission then) and on again (retransmissions) while QPs run;
 * fields outside the mask stay; bad commands change nothing.
 */
static void test_rdma_wire_test_cmd(void)
{
    Rdma *r = rdma_setup_on(",x-tx-drop-every=13", 7, false, NULL);
    struct axon_admin_cmd cmd = {};
    uint32_t retrans;
    uint64_t now;

    g_assert_cmphex(rd(r->a, AXON_REG_CAPS) & AXON_CAP_WIRE_TEST, ==,
                    AXON_CAP_WIRE_TEST);
    g_assert_cmpuint(wire_test(r->a, 0, 99, 99, &now), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmphex(now, ==, 13);

    g_assert_cmpuint(wire_test(r->a, AXON_WIRE_TEST_DROP, 0, 99, &now), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmphex(now, ==, 0);
    rdma_traffic(r, 1);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RETRANS), ==, 0);

    g_assert_cmpuint(wire_test(r->a, AXON_WIRE_TEST_DROP |
                               AXON_WIRE_TEST_REORDER, 7, 5, &now), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmphex(now, ==, 5ULL << 32 | 7);
    rdma_traffic(r, 1);
    retrans = rd(r->a, AXON_REG_STAT_RETRANS);
    g_assert_cmpuint(retrans, >, 0);
    g_assert_cmpuint(wire_test(r->a, AXON_WIRE_TEST_REORDER, 99, 0, &now),
                     ==, AXON_ADMIN_SUCCESS);
    g_assert_cmphex(now, ==, 7);

    /* bad commands */
    g_assert_cmpuint(wire_test(r->a, 0x4, 0, 0, &now), ==,
                     AXON_ADMIN_BAD_PARAM);
    cmd.wire_test.mask = cpu_to_le32(AXON_WIRE_TEST_DROP);
    cmd.wire_test.reserved[43] = 1;
    g_assert_cmpuint(cmd_result(r->a, &cmd, AXON_ADMIN_WIRE_TEST, &now), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(wire_test(r->a, 0, 0, 0, &now), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmphex(now, ==, 7);
    rdma_stop(r);
}

/*
 * Frames an attacker on the fabric could send: from the peer's address,
 * to a live QP, with a correct ICRC, but knowing no current PSN or key.
 * None may change a QP's state or memory (Documentation/wire-security.rst).
 */

#define F_AHEAD 0x400000    /* ahead of any PSN these tests reach */

typedef struct Stats {
    uint32_t dup, oos, stray, naks, tx, roce, drops;
} Stats;

static Stats stats(Axon *a)
{
    Stats st = {
        .dup = rd(a, AXON_REG_STAT_DUP_REQS),
        .oos = rd(a, AXON_REG_STAT_OUT_OF_SEQ),
        .stray = rd(a, AXON_REG_STAT_STRAY),
        .naks = rd(a, AXON_REG_STAT_NAKS),
        .tx = rd(a, AXON_REG_STAT_TX_PKTS),
        .roce = rd(a, AXON_REG_STAT_RX_ROCE),
        .drops = rd(a, AXON_REG_STAT_RX_DROPS),
    };
    return st;
}

/* Counters moved by exactly this much since st. */
static void stats_moved(Axon *a, const Stats *st, uint32_t dup, uint32_t oos,
                        uint32_t stray, uint32_t naks, uint32_t tx)
{
    Stats now = stats(a);

    g_assert_cmpuint(now.dup - st->dup, ==, dup);
    g_assert_cmpuint(now.oos - st->oos, ==, oos);
    g_assert_cmpuint(now.stray - st->stray, ==, stray);
    g_assert_cmpuint(now.naks - st->naks, ==, naks);
    g_assert_cmpuint(now.tx - st->tx, ==, tx);
    g_assert_cmpuint(now.drops, ==, st->drops);
}

static void both_rts(Rdma *r)
{
    g_assert_cmpuint(qp_state(r->a, r->qp[0].qpn), ==, AXON_QPS_RTS);
    g_assert_cmpuint(qp_state(r->a, r->qp[1].qpn), ==, AXON_QPS_RTS);
}

/* QP 0's first PSN (rdma_setup_on), which QP 1 expects */
#define F_PSN0 0xfffff0u

static uint32_t f_psn(uint32_t from, int32_t d)
{
    return (from + d) & AXON_PSN_MASK;
}

/*
 * A duplicate READ is answered only if it repeats a saved one (PSN, key,
 * address, length within); anything else is dropped and counted, with
 * the QP left in RTS and nothing sent.
 */
static void test_rdma_forged_read(void)
{
    Rdma *r = rdma_setup_on("", 7, false, NULL);
    TQp *a = &r->qp[0], *b = &r->qp[1];
    struct axon_send_wqe w = {};
    struct axon_sge sg = sge(r, 0, 0, 3000);
    g_autofree uint8_t *data = pattern(3000, 21);
    g_autofree uint8_t *zero = g_malloc0(3000);
    uint64_t va = r->mr[1].iova + 5000;
    Forged f = {
        .opcode = F_READ_REQ, .dqpn = b->qpn, .psn = F_PSN0,
        .va = va, .rkey = r->mr[1].key ^ 0x5a, .dmalen = 3000,
    };
    Stats st;

    /* a READ of three packets, PSNs F_PSN0 .. + 2: saved by QP 1 */
    mr_access(r, 1, va, data, 3000, true);
    w.opcode = AXON_WR_RDMA_READ;
    w.flags = AXON_WQE_SIGNALED;
    w.num_sge = 1;
    w.wr_id = cpu_to_le64(0x77);
    w.remote_addr = cpu_to_le64(va);
    w.rkey = cpu_to_le32(r->mr[1].key);
    post_send(r, a, &w, &sg, NULL);
    expect_cqe(r, a->scq, 0x77, AXON_WC_RDMA_READ, AXON_WC_SUCCESS);
    check_mem(r, 0, 0, data, 3000);
    mr_access(r, 0, r->mr[0].iova, zero, 3000, true);

    st = stats(r->a);
    forge(r, &f, 1);                    /* the saved PSN, a wrong key */
    f.rkey = r->mr[1].key;
    f.va = va + 8;
    forge(r, &f, 1);                    /* the key, another address */
    f.va = va;
    f.psn = f_psn(F_PSN0, -1000);
    forge(r, &f, 1);                    /* nothing saved there */
    f.psn = f_psn(F_PSN0, 1);
    f.va = va + R_MTU;
    f.dmalen = 3000 - R_MTU + 1;
    forge(r, &f, 1);                    /* longer than the saved one */
    stats_moved(r->a, &st, 4, 0, 4, 0, 0);
    both_rts(r);

    /*
     * What repeats the saved READ from its second packet on is answered:
     * two responses, which QP 0 drops (their PSNs are acknowledged).
     */
    f.dmalen = 3000 - R_MTU;
    forge(r, &f, 3);
    stats_moved(r->a, &st, 5, 0, 4 + 2, 0, 2);
    check_mem(r, 0, 0, zero, 3000);
    both_rts(r);
    rdma_traffic(r, 1);
    rdma_stop(r);
}

/* A duplicate atomic gets its saved result again, and is never redone. */
static void test_rdma_forged_atomic(void)
{
    Rdma *r = rdma_setup_on("", 7, false, NULL);
    TQp *a = &r->qp[0], *b = &r->qp[1];
    struct axon_send_wqe w = {};
    struct axon_sge sg = sge(r, 0, 0x100, 8);
    uint64_t va = r->mr[1].iova + 0x1000 - 0x123, v = cpu_to_le64(100), got;
    Forged f = {
        .opcode = F_FETCH_ADD, .dqpn = b->qpn, .psn = F_PSN0,
        .va = va, .rkey = r->mr[1].key, .swap_add = 5,
    };
    Stats st;

    mr_access(r, 1, va, &v, 8, true);
    w.opcode = AXON_WR_ATOMIC_FETCH_ADD;
    w.flags = AXON_WQE_SIGNALED;
    w.num_sge = 1;
    w.wr_id = cpu_to_le64(0x88);
    w.remote_addr = cpu_to_le64(va);
    w.rkey = cpu_to_le32(r->mr[1].key);
    w.compare_add = cpu_to_le64(5);
    post_send(r, a, &w, &sg, NULL);
    expect_cqe(r, a->scq, 0x88, AXON_WC_FETCH_ADD, AXON_WC_SUCCESS);

    st = stats(r->a);
    /* the same request again: the saved ACK, which QP 0 drops */
    forge(r, &f, 2);
    stats_moved(r->a, &st, 1, 0, 1, 0, 1);
    f.va = va + 8;
    forge(r, &f, 1);                    /* another address */
    f.va = va;
    f.opcode = F_CMP_SWP;
    f.psn = f_psn(F_PSN0, -3);
    forge(r, &f, 1);                    /* nothing saved there */
    f.psn = f_psn(F_PSN0, F_AHEAD);
    f.rkey ^= 0x33;
    forge(r, &f, 2);                    /* ahead: one NAK, no error */
    f.psn = f_psn(F_PSN0, F_AHEAD + 1);
    forge(r, &f, 1);                    /* no second NAK */
    /* QP 0 drops the NAK: it names a PSN it has not sent */
    stats_moved(r->a, &st, 3, 2, 1 + 2 + 1, 1, 2);
    mr_access(r, 1, va, &got, 8, false);
    g_assert_cmpuint(le64_to_cpu(got), ==, 105);
    both_rts(r);
    rdma_traffic(r, 1);
    rdma_stop(r);
}

/*
 * SENDs and WRITEs behind the expected PSN are acknowledged, ahead of it
 * NAKed once; neither touches memory or a receive WQE, or fails the QP.
 */
static void test_rdma_forged_requests(void)
{
    Rdma *r = rdma_setup_on("", 7, false, NULL);
    TQp *a = &r->qp[0], *b = &r->qp[1];
    struct axon_send_wqe w = {};
    struct axon_sge ssg = sge(r, 0, 0, 512);
    g_autofree uint8_t *junk = pattern(512, 99);
    g_autofree uint8_t *zero = g_malloc0(512);
    struct axon_sge sg = sge(r, 1, 400000, 30000);
    struct axon_cqe cqe;
    Forged f = {
        .opcode = F_WRITE_ONLY, .dqpn = b->qpn, .psn = f_psn(F_PSN0, -100),
        .va = r->mr[1].iova + 9000, .rkey = r->mr[1].key, .dmalen = 512,
        .payload = junk, .len = 512,
    };
    Stats st = stats(r->a);

    /* behind: the ACK that answers it, QP 0 takes as a duplicate ACK */
    forge(r, &f, 2);
    f.opcode = F_SEND_ONLY;
    post_recv(r, b, 0x99, &sg, 1);
    forge(r, &f, 2);
    stats_moved(r->a, &st, 2, 0, 0, 0, 2);
    g_assert_false(poll_cq_now(r, b->rcq, &cqe));

    /* ahead, with a valid key: one NAK (QP 0 drops it), nothing written */
    f.opcode = F_WRITE_ONLY;
    f.psn = f_psn(F_PSN0, F_AHEAD);
    forge(r, &f, 2);
    f.psn = f_psn(F_PSN0, F_AHEAD + 1);
    forge(r, &f, 1);
    f.opcode = F_READ_REQ;
    f.psn = f_psn(F_PSN0, F_AHEAD + 2);
    f.rkey ^= 0x11;
    f.len = 0;
    forge(r, &f, 1);
    stats_moved(r->a, &st, 2, 3, 1, 1, 3);
    check_mem(r, 1, 9000, zero, 512);
    both_rts(r);
    /* the receive posted above is the one the next SEND takes */
    w.opcode = AXON_WR_SEND;
    w.flags = AXON_WQE_SIGNALED;
    w.num_sge = 1;
    w.wr_id = cpu_to_le64(0x98);
    mr_access(r, 0, r->mr[0].iova, junk, 512, true);
    post_send(r, a, &w, &ssg, NULL);
    expect_cqe(r, a->scq, 0x98, AXON_WC_SEND, AXON_WC_SUCCESS);
    g_assert_true(poll_cq(r, b->rcq, &cqe));
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x99);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 512);
    check_mem(r, 1, 400000, junk, 512);
    rdma_traffic(r, 1);
    rdma_stop(r);
}

/*
 * Responses, ACKs and NAKs for PSNs the requester has not sent, or that
 * are acknowledged, are dropped; so are NAKs with a reserved syndrome
 * for a PSN it waits for.
 */
static void test_rdma_forged_responses(void)
{
    Rdma *r = rdma_setup_on("", 7, false, NULL);
    TQp *a = &r->qp[0], *b = &r->qp[1];
    struct axon_send_wqe w = {};
    struct axon_sge sg = sge(r, 0, 0, 100);
    struct axon_sge rsg = sge(r, 1, 0, 100);
    uint8_t payload[64] = { 1 };
    Forged f = { .opcode = F_ACK, .dqpn = a->qpn, .syndrome = F_SYN_ACK };
    Stats st = stats(r->a);

    f.psn = f_psn(F_PSN0, 100);
    forge(r, &f, 1);                    /* never sent */
    f.syndrome = F_SYN_NAK(F_NAK_REM_ACCESS);
    f.psn = f_psn(F_PSN0, -1);
    forge(r, &f, 1);                    /* acknowledged */
    f.syndrome = F_SYN_RNR(3);
    f.psn = f_psn(F_PSN0, F_AHEAD);
    forge(r, &f, 1);
    f.opcode = F_READ_RESP_ONLY;
    f.syndrome = F_SYN_ACK;
    f.payload = payload;
    f.len = sizeof(payload);
    f.psn = f_psn(F_PSN0, -1);
    forge(r, &f, 1);                    /* no READ there */
    f.opcode = F_ATOMIC_ACK;
    f.len = 0;
    f.psn = F_PSN0;
    forge(r, &f, 1);
    stats_moved(r->a, &st, 0, 0, 5, 0, 0);
    both_rts(r);

    /* a SEND waiting for a receive WQE (RNR): its PSN is outstanding */
    w.opcode = AXON_WR_SEND;
    w.flags = AXON_WQE_SIGNALED;
    w.num_sge = 1;
    w.wr_id = cpu_to_le64(0xaa);
    post_send(r, a, &w, &sg, NULL);
    g_assert_true(wait_reg(r->a, AXON_REG_STAT_NAKS, st.naks + 2));
    st = stats(r->a);
    f.opcode = F_ACK;
    f.psn = F_PSN0;
    f.syndrome = F_SYN_RESERVED;
    forge(r, &f, 1);
    f.syndrome = F_SYN_NAK(F_NAK_INV_RD);
    forge(r, &f, 1);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_STRAY) - st.stray, ==, 2);
    both_rts(r);
    post_recv(r, b, 0xbb, &rsg, 1);
    expect_cqe(r, a->scq, 0xaa, AXON_WC_SEND, AXON_WC_SUCCESS);
    expect_cqe(r, b->rcq, 0xbb, AXON_WC_RECV, AXON_WC_SUCCESS);
    both_rts(r);
    rdma_stop(r);
}

/*
 * Keys of 1,000 registrations: all different, tags spread over their
 * 8 bits, and no step between one key and the next that repeats.
 */
static void test_rdma_key_draw(void)
{
    Axon *a = axon_start(NULL);
    enum { N = 1000 };
    uint64_t pdn, key[N], pbl = cpu_to_le64(MEM_ADDR(0));
    g_autoptr(GHashTable) keys = g_hash_table_new(NULL, NULL);
    g_autoptr(GHashTable) steps = g_hash_table_new(NULL, NULL);
    unsigned tags[256] = {}, ntags = 0, worst = 0;
    int i;

    rdma_enable(a);
    g_assert_cmpuint(create_pd(a, &pdn), ==, AXON_ADMIN_SUCCESS);
    qtest_memwrite(a->qts, PBL_ADDR, &pbl, sizeof(pbl));
    for (i = 0; i < N; i++) {
        g_assert_cmpuint(create_mr(a, pdn, 0, 0, 4096, 1, 12, 1, &key[i]), ==,
                         AXON_ADMIN_SUCCESS);
        /* every other one is freed again: slots are reused */
        if (i & 1) {
            g_assert_cmpuint(destroy_mr(a, key[i]), ==, AXON_ADMIN_SUCCESS);
            g_assert_cmpuint(destroy_mr(a, key[i]), ==, AXON_ADMIN_BAD_HANDLE);
        }
    }
    for (i = 0; i < N; i++) {
        uint32_t step = (uint32_t)(key[i] - key[i ? i - 1 : N - 1]);
        unsigned n = GPOINTER_TO_UINT(g_hash_table_lookup(steps,
                                      GUINT_TO_POINTER(step))) + 1;

        g_assert_false(g_hash_table_contains(keys, GUINT_TO_POINTER(key[i])));
        g_hash_table_add(keys, GUINT_TO_POINTER(key[i]));
        g_hash_table_insert(steps, GUINT_TO_POINTER(step),
                            GUINT_TO_POINTER(n));
        worst = MAX(worst, n);
        ntags += !tags[key[i] & 0xff]++;
    }
    g_test_message("%d keys: %u of 256 tags, a step repeats %u times at most",
                   N, ntags, worst);
    g_assert_cmpuint(ntags, >=, 200);
    g_assert_cmpuint(worst, <=, 3);
    axon_stop(a);
}

static uint8_t live_plane(Rdma *r, int i)
{
    struct axon_qp_live st;

    qp_live(r->a, r->qp[i].qpn, &st);
    return AXON_QP_LIVE_GET_PLANE(st.flags);
}

/*
 * Two planes, each a socket netdev that sends to itself ("Planes" in
 * axon_regs_defs.h): each QP keeps to the plane of its UDP source port
 * (from its QPN here, so QPs 2n and 2n+1 differ), the traffic completes
 * over both, each plane counts what it carried, and a frame on plane 1
 * that is not RoCEv2 is dropped and counted. With plane 1 down its QP's
 * packets go nowhere: a WRITE from it ends in RETRY_EXC_ERR and plane 1
 * counts nothing more.
 */
static void test_rdma_planes(void)
{
    int port1 = free_udp_port();
    g_autofree char *args = g_strdup_printf(
        ",plane1=n1 -netdev socket,id=n1,udp=127.0.0.1:%d,"
        "localaddr=127.0.0.1:%d", port1, port1);
    Rdma *r = rdma_setup_on(args, 7, false, NULL);
    g_autofree uint8_t *junk = make_frame(200, 0x0806, 3);
    struct sockaddr_in to = r->a->wire_addr;
    uint32_t tx[2], rx[2], sent;
    struct axon_send_wqe w = {
        .opcode = AXON_WR_RDMA_WRITE,
        .flags = AXON_WQE_SIGNALED,
        .num_sge = 1,
        .wr_id = cpu_to_le64(0x77),
        .remote_addr = cpu_to_le64(r->mr[1].iova),
        .rkey = cpu_to_le32(r->mr[1].key),
    };
    struct axon_sge sg = sge(r, 0, 300000, 4096);
    struct axon_cqe cqe;
    TQp *down;

    g_assert_cmphex(rd(r->a, AXON_REG_CAPS) & AXON_CAP_PLANES, ==,
                    AXON_CAP_PLANES);
    g_assert_cmphex(rd(r->a, AXON_REG_PLANES), ==, AXON_PLANES(2, 0x3));
    for (int i = 0; i < 2; i++) {
        g_assert_cmpuint(live_plane(r, i), ==, r->qp[i].qpn % 2);
    }
    g_assert_cmpuint(r->qp[0].qpn % 2, !=, r->qp[1].qpn % 2);

    rdma_traffic(r, 2);
    for (int k = 0; k < 2; k++) {
        tx[k] = rd(r->a, AXON_REG_STAT_PLANE_TX(k));
        rx[k] = rd(r->a, AXON_REG_STAT_PLANE_RX(k));
        g_test_message("plane %d: tx %u rx %u", k, tx[k], rx[k]);
        /* a plane's frames come back on it: each netdev sends to itself */
        g_assert_cmpuint(tx[k], >, 0);
        g_assert_cmpuint(tx[k], ==, rx[k]);
        g_assert_cmpuint(rd(r->a, AXON_REG_STAT_PLANE_DROPS(k)), ==, 0);
    }
    g_assert_cmpuint(tx[0] + tx[1], ==, rd(r->a, AXON_REG_STAT_RX_ROCE));
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_PLANE_TX(2)), ==, 0);

    /* not RoCEv2 on plane 1: dropped there, never the Ethernet function's */
    to.sin_port = htons(port1);
    g_assert_cmpint(sendto(r->a->wire_fd, junk, 200, 0,
                           (struct sockaddr *)&to, sizeof(to)), ==, 200);
    g_assert(wait_reg(r->a, AXON_REG_STAT_PLANE_DROPS(1), 1));

    /* plane 1 down: its QP's WRITE is never acknowledged */
    set_link(r->a, "n1", false);
    g_assert_cmphex(rd(r->a, AXON_REG_PLANES), ==, AXON_PLANES(2, 0x1));
    down = &r->qp[r->qp[0].qpn % 2 == 1 ? 0 : 1];
    sent = rd(r->a, AXON_REG_STAT_PLANE_TX(1));
    post_send(r, down, &w, &sg, NULL);
    g_assert(poll_cq(r, down->scq, &cqe));
    g_assert_cmpuint(le64_to_cpu(cqe.wr_id), ==, 0x77);
    g_assert_cmpuint(cqe.status, ==, AXON_WC_RETRY_EXC_ERR);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_PLANE_TX(1)), ==, sent);
    set_link(r->a, "n1", true);
    g_assert_cmphex(rd(r->a, AXON_REG_PLANES), ==, AXON_PLANES(2, 0x3));
    rdma_stop(r);
}

/*
 * Long READs asked in one request, as a peer such as rxe asks them
 * (Documentation/wire-security.rst, "READs in bursts"). The device's wire
 * goes to a socket of the test's, which plays the QPs' peer (10.0.0.1):
 * it sends READ requests to QP 1 and takes the responses.
 */

#define F_READ_RESP_FIRST 0x0d
#define F_READ_RESP_MIDDLE 0x0e
#define F_READ_RESP_LAST 0x0f

#define RESP_BURST_MAX 64       /* the engine's burst of one QP */
#define LONG_IOVA 0x7e0000000000ULL
#define LONG_PHYS 0x4000000ULL  /* guest memory behind long MRs */

typedef struct Peer {
    Rdma *r;
    int fd;                     /* what the device sends comes here */
} Peer;

/* The fixture's QPs on a wire whose far end is the test (rcvbuf: bytes). */
static Peer *peer_start(int rcvbuf)
{
    Peer *p = g_new0(Peer, 1);
    struct sockaddr_in sa = { .sin_family = AF_INET };
    socklen_t sl = sizeof(sa);
    int dev = free_udp_port();
    g_autofree char *args = NULL;
    Axon *a;

    p->fd = socket(AF_INET, SOCK_DGRAM, 0);
    g_assert_cmpint(p->fd, >=, 0);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    g_assert_cmpint(bind(p->fd, (struct sockaddr *)&sa, sizeof(sa)), ==, 0);
    g_assert_cmpint(getsockname(p->fd, (struct sockaddr *)&sa, &sl), ==, 0);
    /* past rmem_max if allowed: a lost response is only asked again */
    if (setsockopt(p->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
                   sizeof(rcvbuf))) {
        setsockopt(p->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    }
    args = g_strdup_printf(",id=nic0,mac=" T_MAC ",x-wire-loopback=on,"
                           "netdev=n0 -netdev socket,id=n0,"
                           "udp=127.0.0.1:%d,localaddr=127.0.0.1:%d",
                           ntohs(sa.sin_port), dev);
    a = axon_start(args);
    wire_open(a, dev);
    p->r = rdma_bring_up(a, true, 7, false);
    return p;
}

static void peer_stop(Peer *p)
{
    close(p->fd);
    rdma_stop(p->r);
    g_free(p);
}

/* A frame the device sent, within ms; its length, or -1 if none came. */
static ssize_t peer_recv(Peer *p, uint8_t *buf, size_t size, int ms)
{
    struct pollfd pfd = { .fd = p->fd, .events = POLLIN };

    if (poll(&pfd, 1, ms) <= 0) {
        return -1;
    }
    return recv(p->fd, buf, size, 0);
}

/* The test hook x-rx-tx-max: the most packets one received frame sent. */
static int64_t rx_tx_max(Axon *a, bool clear)
{
    QDict *rsp = qtest_qmp(a->qts, "{'execute': 'qom-get', 'arguments': "
                           "{'path': 'nic0', 'property': 'x-rx-tx-max'}}");
    int64_t v = qdict_haskey(rsp, "return") ?
                qdict_get_int(rsp, "return") : -1;

    qobject_unref(rsp);
    if (clear) {
        qobject_unref(qtest_qmp(a->qts, "{'execute': 'qom-set', 'arguments': "
                                "{'path': 'nic0', 'property': 'x-rx-tx-max',"
                                " 'value': 0}}"));
    }
    return v;
}

/* The BTH and AETH of a response from the device (IPv4, no VLAN). */
typedef struct Rsp {
    uint8_t opcode;
    uint32_t dqpn, psn;
    uint8_t syndrome;
    const uint8_t *payload;
    uint32_t len;
} Rsp;

static bool parse_rsp(const uint8_t *f, ssize_t n, Rsp *r)
{
    const uint8_t *ib = f + 14 + 20 + 8;
    ssize_t hdr = 12;

    if (n < 14 + 20 + 8 + 12 + 4 || lduw_be_p(f + 12) != 0x0800) {
        return false;
    }
    r->opcode = ib[0];
    r->dqpn = ldl_be_p(ib + 4) & 0xffffff;
    r->psn = ldl_be_p(ib + 8) & AXON_PSN_MASK;
    r->syndrome = 0;
    if (r->opcode != F_READ_RESP_MIDDLE) {
        r->syndrome = ib[12];
        hdr += 4;
    }
    n -= 14 + 20 + 8 + hdr + ((ib[1] >> 4) & 3) + 4;
    if (n < 0) {
        return false;
    }
    r->payload = ib + hdr;
    r->len = n;
    return true;
}

/*
 * A long MR of the responder (QP 1's side): len bytes at LONG_IOVA in
 * pages of 2^shift bytes, page j on block j % blocks at LONG_PHYS, each
 * block a pattern of its own.
 */
typedef struct LongMr {
    uint32_t key;
    uint64_t len;
    unsigned shift, blocks;
    uint8_t *blk[16];
} LongMr;

static void long_mr(Rdma *r, LongMr *m, uint64_t len, unsigned shift,
                    unsigned blocks, bool fill)
{
    uint32_t npages = len >> shift, j;
    g_autofree uint64_t *pbl = g_new(uint64_t, npages);
    uint64_t key;

    g_assert_cmpuint(blocks, <=, ARRAY_SIZE(m->blk));
    m->len = len;
    m->shift = shift;
    m->blocks = blocks;
    for (j = 0; j < blocks; j++) {
        m->blk[j] = fill ? pattern(1u << shift, 60 + j) : NULL;
        if (fill) {
            qtest_memwrite(r->a->qts, LONG_PHYS + ((uint64_t)j << shift),
                           m->blk[j], 1u << shift);
        }
    }
    for (j = 0; j < npages; j++) {
        pbl[j] = cpu_to_le64(LONG_PHYS + ((uint64_t)(j % blocks) << shift));
    }
    qtest_memwrite(r->a->qts, PBL_ADDR, pbl, npages * sizeof(*pbl));
    g_assert_cmpuint(create_mr(r->a, r->pdn, AXON_ACCESS_ALL, LONG_IOVA, len,
                               npages, shift, 1, &key), ==,
                     AXON_ADMIN_SUCCESS);
    m->key = key;
}

static void long_mr_free(LongMr *m)
{
    for (unsigned j = 0; j < m->blocks; j++) {
        g_free(m->blk[j]);
    }
}

/* The peer's READ request to QP 1 for the MR from response k on. */
static void long_ask(Peer *p, const LongMr *m, uint32_t k)
{
    uint8_t buf[FORGE_MAX_FRAME];
    Forged f = {
        .opcode = F_READ_REQ, .dqpn = p->r->qp[1].qpn,
        .psn = f_psn(F_PSN0, k), .va = LONG_IOVA + (uint64_t)k * R_MTU,
        .rkey = m->key, .dmalen = m->len - (uint64_t)k * R_MTU,
    };

    inject(p->r->a, buf, forge_frame(&f, buf));
}

/* Response k of the MR's READ: its length and its bytes. */
static void long_check(const LongMr *m, uint32_t k, const Rsp *rsp)
{
    uint64_t off = (uint64_t)k * R_MTU;
    uint32_t want = MIN(R_MTU, m->len - off);
    const uint8_t *blk = m->blk[(off >> m->shift) % m->blocks];

    g_assert_cmpuint(rsp->len, ==, want);
    g_assert_cmpmem(rsp->payload, rsp->len,
                    blk + (off & ((1u << m->shift) - 1)), want);
}

/*
 * A 64 MiB READ in one request: one received frame sends at most a burst
 * of responses, the rest leave from the engine; every response comes, in
 * PSN order, right; a duplicate of the request asked while it is answered
 * (at response 1,000 once 2,000 came) and one asked after it (the last 40)
 * are answered again from their PSN on; a lost response is asked again
 * the same way. A WRITE sent right behind the READ is acknowledged only
 * after the READ's last response (responses leave in PSN order).
 */
static void test_rdma_read_bursts(void)
{
    Peer *p = peer_start(64 * MiB);
    Rdma *r = p->r;
    TQp *a = &r->qp[0], *b = &r->qp[1];
    LongMr m;
    uint32_t n, next = 0, hi = 0, again = 0, asked = UINT32_MAX, quiet = 0;
    uint32_t k, restart = 0, firsts = 0;
    bool acked = false, lost = false, dup_sent = false;
    g_autofree uint8_t *junk = pattern(512, 77);
    uint8_t buf[FORGE_MAX_FRAME + 64];
    struct axon_qp_live st;
    Forged wf = {
        .opcode = F_WRITE_ONLY, .dqpn = b->qpn,
        .va = r->mr[1].iova + 5000, .rkey = r->mr[1].key, .dmalen = 512,
        .payload = junk, .len = 512,
    };
    Rsp rsp;
    ssize_t len;

    long_mr(r, &m, 64 * MiB, 16, 13, true);
    n = m.len / R_MTU;
    wf.psn = f_psn(F_PSN0, n);
    g_assert_cmpint(rx_tx_max(r->a, true), ==, 0);
    long_ask(p, &m, 0);
    inject(r->a, buf, forge_frame(&wf, buf));
    while (next < n || !acked || (!lost && firsts < 2)) {
        len = peer_recv(p, buf, sizeof(buf), 1000);
        if (len < 0) {
            /* a lost response, or lost ones at the end: asked again */
            g_assert_cmpuint(++quiet, <, 20);
            if (next < n) {
                lost = true;
                long_ask(p, &m, next);
            }
            continue;
        }
        g_assert_true(parse_rsp(buf, len, &rsp));
        g_assert_cmphex(rsp.dqpn, ==, a->qpn);
        if (rsp.opcode == F_ACK) {
            /* the WRITE's, after every response the READ asked for */
            g_assert_cmphex(rsp.psn, ==, wf.psn);
            g_assert_cmphex(rsp.syndrome, ==, F_SYN_ACK);
            g_assert_false(acked);
            if (!lost) {
                g_assert_cmpuint(hi, ==, n);
            }
            acked = true;
            continue;
        }
        g_assert_cmpuint(rsp.opcode, >=, F_READ_RESP_FIRST);
        g_assert_cmpuint(rsp.opcode, <=, F_READ_RESP_ONLY);
        k = (rsp.psn - F_PSN0) & AXON_PSN_MASK;
        g_assert_cmpuint(k, <, n);
        long_check(&m, k, &rsp);
        g_assert_true((rsp.opcode == F_READ_RESP_LAST ||
                       rsp.opcode == F_READ_RESP_ONLY) == (k == n - 1));
        if (rsp.opcode == F_READ_RESP_FIRST ||
            rsp.opcode == F_READ_RESP_ONLY) {
            firsts++;
            restart = k;
        }
        hi = MAX(hi, k + 1);
        if (k == next) {
            next++;
        } else if (k < next) {
            again++;
        } else if (asked != next) {
            lost = true;
            asked = next;
            long_ask(p, &m, next);
        }
        if (!dup_sent && next >= 2000) {
            dup_sent = true;
            long_ask(p, &m, 1000);
        }
    }
    k = rx_tx_max(r->a, false);
    g_test_message("%u responses, %u again, %u answers begun, loss %d; one "
                   "received frame sent %u at most", n, again, firsts, lost, k);
    g_assert_cmpuint(k, >, 0);
    g_assert_cmpuint(k, <=, RESP_BURST_MAX);
    if (!lost) {
        /* the duplicate's answer began at its PSN */
        g_assert_cmpuint(firsts, ==, 2);
        g_assert_cmpuint(restart, ==, 1000);
    }
    check_mem(r, 1, 5000, junk, 512);

    /* the rest of the duplicate's answer, and what a loss asked again */
    while ((len = peer_recv(p, buf, sizeof(buf), 500)) >= 0) {
        g_assert_true(parse_rsp(buf, len, &rsp));
        g_assert_cmpuint(rsp.opcode, !=, F_ACK);
        k = (rsp.psn - F_PSN0) & AXON_PSN_MASK;
        g_assert_cmpuint(k, <, n);
        long_check(&m, k, &rsp);
    }
    /* after the answer: a duplicate of its last 40 responses */
    long_ask(p, &m, n - 40);
    for (k = n - 40; k < n; k++) {
        len = peer_recv(p, buf, sizeof(buf), 5000);
        g_assert_cmpint(len, >, 0);
        g_assert_true(parse_rsp(buf, len, &rsp));
        g_assert_cmphex(rsp.psn, ==, f_psn(F_PSN0, k));
        g_assert_cmpuint(rsp.opcode, ==, k == n - 40 ? F_READ_RESP_FIRST :
                         k == n - 1 ? F_READ_RESP_LAST : F_READ_RESP_MIDDLE);
        long_check(&m, k, &rsp);
    }
    g_assert_cmpint(peer_recv(p, buf, sizeof(buf), 300), <, 0);
    g_assert_cmpuint(rx_tx_max(r->a, false), <=, RESP_BURST_MAX);
    qp_live(r->a, b->qpn, &st);
    g_assert_cmpuint(le32_to_cpu(st.state), ==, AXON_QPS_RTS);
    g_assert_cmphex(le32_to_cpu(st.epsn), ==, f_psn(F_PSN0, n + 1));
    g_assert_cmpuint(le64_to_cpu(st.cnt.dup_reqs), >=, 2);
    g_assert_cmpuint(le64_to_cpu(st.cnt.err_naks_sent), ==, 0);
    long_mr_free(&m);
    peer_stop(p);
}

/*
 * Benchmark, not a test (AXON_BENCH_READ_MIB=n registers it): how long
 * the main loop is held while the device answers one READ request of n
 * MiB (2048: the largest). A qtest register read is sent back to back
 * from before the request until the last response left; the longest wait
 * for one is the main loop's longest stall. Nothing reads the wire, so
 * the kernel drops what the device sends: the time is the device's.
 */
static void bench_read_stall(void)
{
    uint64_t mib = g_ascii_strtoull(getenv("AXON_BENCH_READ_MIB"), NULL, 10);
    Peer *p = peer_start(0);
    Rdma *r = p->r;
    LongMr m;
    uint32_t n, tx0, tx, pings = 0, over_ms = 0;
    int64_t t0, t, last, stall = 0, idle = 0, stall_at = 0, v;

    g_assert_cmpuint(mib, >=, 1);
    g_assert_cmpuint(mib, <=, 2048);
    long_mr(r, &m, mib * MiB, 21, 4, false);
    n = m.len / R_MTU;
    /* the idle main loop, for reference */
    last = g_get_monotonic_time();
    for (int i = 0; i < 2000; i++) {
        rd(r->a, AXON_REG_STAT_TX_PKTS);
        t = g_get_monotonic_time();
        idle = MAX(idle, t - last);
        last = t;
    }
    tx0 = rd(r->a, AXON_REG_STAT_TX_PKTS);
    rx_tx_max(r->a, true);
    t0 = last = g_get_monotonic_time();
    long_ask(p, &m, 0);
    do {
        tx = rd(r->a, AXON_REG_STAT_TX_PKTS);
        t = g_get_monotonic_time();
        over_ms += t - last > 1000;
        if (t - last > stall) {
            stall = t - last;
            stall_at = last - t0;
        }
        last = t;
        pings++;
    } while (tx - tx0 < n && t - t0 < 600 * G_USEC_PER_SEC);
    v = rx_tx_max(r->a, false);
    printf("# read-stall: %" PRIu64 " MiB READ, %u responses of %u bytes: "
           "%u sent in %.3f s; longest main-loop stall %.3f ms "
           "(from %.3f s), %u register reads between, %u waited over 1 ms; "
           "idle loop's longest %.3f ms; x-rx-tx-max %" PRId64 "\n", mib, n,
           R_MTU, tx - tx0, (t - t0) / 1e6, stall / 1e3, stall_at / 1e6,
           pings, over_ms, idle / 1e3, v);
    g_assert_cmpuint(tx - tx0, >=, n);
    peer_stop(p);
}

void axon_nic_wire_tests(void)
{
    qtest_add_func("/axon-nic/rdma-wire", test_rdma_wire);
    qtest_add_func("/axon-nic/rdma-wire-loss", test_rdma_wire_loss);
    qtest_add_func("/axon-nic/rdma-wire-test-cmd", test_rdma_wire_test_cmd);
    qtest_add_func("/axon-nic/rdma-counter-sets", test_rdma_counter_sets);
    qtest_add_func("/axon-nic/rdma-forged-read", test_rdma_forged_read);
    qtest_add_func("/axon-nic/rdma-forged-atomic", test_rdma_forged_atomic);
    qtest_add_func("/axon-nic/rdma-forged-requests", test_rdma_forged_requests);
    qtest_add_func("/axon-nic/rdma-forged-responses",
                   test_rdma_forged_responses);
    qtest_add_func("/axon-nic/rdma-key-draw", test_rdma_key_draw);
    qtest_add_func("/axon-nic/rdma-planes", test_rdma_planes);
    qtest_add_func("/axon-nic/rdma-read-bursts", test_rdma_read_bursts);
    if (getenv("AXON_BENCH_READ_MIB")) {
        qtest_add_func("/axon-nic/bench/read-stall", bench_read_stall);
    }
}
