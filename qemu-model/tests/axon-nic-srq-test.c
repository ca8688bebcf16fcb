/*
 * qtest of shared receive queues: the admin commands and their checks,
 * QPs taking receive WQEs from one SRQ in ring order, the SRQ's PD for
 * the WQEs' lkeys, the limit event, RNR when the SRQ is empty, doorbells
 * and what a QP in ERR leaves in the SRQ.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-nic-qos.h"

/* Guest memory between the fixture's queues and its MRs */
#define SRQ_RING (R_BASE + 0x300000)
#define T_SQ(i) (R_BASE + 0x340000 + (i) * 0x8000)
#define T_RQ(i) (R_BASE + 0x3c0000 + (i) * 0x8000)
#define SRQ_DEPTH 8

typedef struct TSrq {
    uint32_t srqn;
    uint16_t pi;
} TSrq;

static uint16_t srq_cmd(Axon *a, uint16_t op, struct axon_admin_srq *c,
                        uint64_t *result)
{
    struct axon_admin_cmd cmd = { .srq = *c };

    return cmd_result(a, &cmd, op, result);
}

static uint16_t create_srq(Axon *a, uint32_t pdn, uint16_t depth,
                           uint32_t limit, uint64_t *srqn)
{
    struct axon_admin_srq c = {
        .ring_addr = cpu_to_le64(SRQ_RING),
        .pdn = cpu_to_le32(pdn),
        .uar = cpu_to_le32(R_UAR),
        .depth = cpu_to_le16(depth),
        .wqe_shift = R_WQE_SHIFT,
        .limit = cpu_to_le32(limit),
    };

    return srq_cmd(a, AXON_ADMIN_CREATE_SRQ, &c, srqn);
}

static uint16_t srq_op(Axon *a, uint16_t op, uint32_t srqn, uint32_t limit,
                       uint64_t *result)
{
    struct axon_admin_srq c = {
        .srqn = cpu_to_le32(srqn),
        .limit = cpu_to_le32(limit),
    };

    return srq_cmd(a, op, &c, result);
}

static void post_srq(Rdma *r, TSrq *q, uint64_t wr_id, struct axon_sge sg)
{
    uint64_t addr = SRQ_RING + (q->pi % SRQ_DEPTH) * (1u << R_WQE_SHIFT);
    struct axon_recv_wqe w = { .wr_id = cpu_to_le64(wr_id), .num_sge = 1 };

    qtest_memwrite(r->a->qts, addr, &w, sizeof(w));
    qtest_memwrite(r->a->qts, addr + sizeof(w), &sg, sizeof(sg));
    q->pi++;
    ring(r, R_UAR, AXON_DB_SRQ, q->srqn, q->pi);
}

/* QP i of the test with its own RQ: a sender, completing on CQ 0 */
static void make_sender(Rdma *r, TQp *qp, int i)
{
    uint64_t qpn;

    *qp = (TQp){ .sq = T_SQ(i), .rq = T_RQ(i), .scq = &r->cq[0],
                 .rcq = &r->cq[0] };
    g_assert_cmpuint(create_qp(r->a, r->pdn, r->cq[0].cqn, r->cq[0].cqn,
                               qp->sq, qp->rq, R_WQ_DEPTH, 0, &qpn), ==,
                     AXON_ADMIN_SUCCESS);
    qp->qpn = qpn;
}

/* QP i of the test on the SRQ: a receiver, completing on CQ 1 */
static void make_receiver(Rdma *r, TQp *qp, int i, uint32_t srqn)
{
    uint64_t qpn;

    *qp = (TQp){ .sq = T_SQ(i), .scq = &r->cq[1], .rcq = &r->cq[1] };
    g_assert_cmpuint(create_qp_srq(r->a, r->pdn, r->cq[1].cqn, r->cq[1].cqn,
                                   qp->sq, srqn, &qpn), ==,
                     AXON_ADMIN_SUCCESS);
    qp->qpn = qpn;
}

static void pair(Rdma *r, TQp *a, TQp *b)
{
    connect_qp(r, a, b->qpn, 0x100, 0x200, 7);
    connect_qp(r, b, a->qpn, 0x200, 0x100, 7);
}

/* An SRQ with limit, and two senders connected to two QPs on it. */
static void two_pairs(Rdma *r, TSrq *q, uint32_t limit, TQp *s0, TQp *s1,
                      TQp *r0, TQp *r1)
{
    uint64_t v;

    g_assert_cmpuint(create_srq(r->a, r->pdn, SRQ_DEPTH, limit, &v), ==,
                     AXON_ADMIN_SUCCESS);
    q->srqn = v;
    make_sender(r, s0, 0);
    make_sender(r, s1, 1);
    make_receiver(r, r0, 2, q->srqn);
    make_receiver(r, r1, 3, q->srqn);
    pair(r, s0, r0);
    pair(r, s1, r1);
}

/* A SEND of len bytes from MR 0 at off; waits for its completion. */
static void send_msg(Rdma *r, TQp *qp, uint64_t off, uint32_t len,
                     uint8_t status)
{
    struct axon_sge sg = sge(r, 0, off, len);
    struct axon_send_wqe w = {
        .opcode = AXON_WR_SEND, .flags = AXON_WQE_SIGNALED, .num_sge = 1,
        .wr_id = cpu_to_le64(0x5000 + off),
    };

    post_send(r, qp, &w, &sg, NULL);
    expect_cqe(r, qp->scq, 0x5000 + off, AXON_WC_SEND, status);
}

static void expect_recv(Rdma *r, uint64_t wr_id, uint32_t qpn, uint32_t len)
{
    struct axon_cqe cqe;

    g_assert_true(poll_cq(r, &r->cq[1], &cqe));
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, wr_id);
    g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, AXON_WC_RECV);
    g_assert_cmpuint(le32_to_cpu(cqe.qpn), ==, qpn);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, len);
}

static void expect_event(Axon *a, uint16_t type, uint32_t param)
{
    struct axon_event ev;

    g_assert_true(take_event(a, &ev));
    g_assert_cmpuint(le16_to_cpu(ev.type), ==, type);
    g_assert_cmpuint(le32_to_cpu(ev.param), ==, param);
}

static void test_srq_admin(void)
{
    Rdma *r = rdma_setup(7);
    Axon *a = r->a;
    struct axon_dev_attr attr;
    struct axon_admin_srq c = {};
    uint64_t srqn, v, qpn;

    g_assert_cmphex(rd(a, AXON_REG_CAPS) & AXON_CAP_SRQ, ==, AXON_CAP_SRQ);
    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_DEVICE, RESP_ADDR,
                           sizeof(attr), 0), ==, AXON_ADMIN_SUCCESS);
    qtest_memread(a->qts, RESP_ADDR, &attr, sizeof(attr));
    g_assert_cmpuint(le32_to_cpu(attr.max_srq), ==, 1024);
    g_assert_cmpuint(le32_to_cpu(attr.max_srq_wr), ==, AXON_WQ_MAX_DEPTH);
    g_assert_cmpuint(le16_to_cpu(attr.max_srq_sge), ==, AXON_MAX_SGE);

    /* every field is checked */
    g_assert_cmpuint(create_srq(a, r->pdn + 7, 8, 0, &v), ==,
                     AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(create_srq(a, r->pdn, 0, 0, &v), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_srq(a, r->pdn, 6, 0, &v), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_srq(a, r->pdn, 8, 8, &v), ==,
                     AXON_ADMIN_BAD_PARAM);
    c.ring_addr = cpu_to_le64(SRQ_RING + 64);
    c.pdn = cpu_to_le32(r->pdn);
    c.depth = cpu_to_le16(8);
    c.wqe_shift = R_WQE_SHIFT;
    g_assert_cmpuint(srq_cmd(a, AXON_ADMIN_CREATE_SRQ, &c, &v), ==,
                     AXON_ADMIN_BAD_PARAM);
    c.ring_addr = cpu_to_le64(SRQ_RING);
    c.wqe_shift = AXON_RQ_MIN_WQE_SHIFT - 1;
    g_assert_cmpuint(srq_cmd(a, AXON_ADMIN_CREATE_SRQ, &c, &v), ==,
                     AXON_ADMIN_BAD_PARAM);
    c.wqe_shift = R_WQE_SHIFT;
    c.reserved[3] = 1;
    g_assert_cmpuint(srq_cmd(a, AXON_ADMIN_CREATE_SRQ, &c, &v), ==,
                     AXON_ADMIN_BAD_PARAM);

    g_assert_cmpuint(create_srq(a, r->pdn, 8, 5, &srqn), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(srqn, >=, 1);
    g_assert_cmpuint(srq_op(a, AXON_ADMIN_QUERY_SRQ, srqn, 0, &v), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(v, ==, 5);
    g_assert_cmpuint(srq_op(a, AXON_ADMIN_MODIFY_SRQ, srqn, 8, &v), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(srq_op(a, AXON_ADMIN_MODIFY_SRQ, srqn, 2, &v), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(srq_op(a, AXON_ADMIN_QUERY_SRQ, srqn, 0, &v), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(v, ==, 2);
    g_assert_cmpuint(srq_op(a, AXON_ADMIN_QUERY_SRQ, srqn, 1, &v), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(srq_op(a, AXON_ADMIN_QUERY_SRQ, srqn + 1, 0, &v), ==,
                     AXON_ADMIN_BAD_HANDLE);

    /* a QP on an SRQ has no RQ of its own; the SRQ must exist */
    g_assert_cmpuint(create_qp_srq(a, r->pdn, r->cq[0].cqn, r->cq[0].cqn,
                                   T_SQ(0), srqn + 1, &qpn), ==,
                     AXON_ADMIN_BAD_HANDLE);
    {
        struct axon_admin_cmd cmd;

        create_qp_cmd(&cmd, r->pdn, r->cq[0].cqn, r->cq[0].cqn, T_SQ(0),
                      R_WQ_DEPTH);
        cmd.create_qp.srqn = cpu_to_le32(srqn);
        cmd.create_qp.rq_depth = cpu_to_le16(8);
        g_assert_cmpuint(cmd_result(a, &cmd, AXON_ADMIN_CREATE_QP, &qpn), ==,
                         AXON_ADMIN_BAD_PARAM);
    }
    g_assert_cmpuint(create_qp_srq(a, r->pdn, r->cq[0].cqn, r->cq[0].cqn,
                                   T_SQ(0), srqn, &qpn), ==,
                     AXON_ADMIN_SUCCESS);

    /* in use by a QP, the SRQ and its PD stay */
    g_assert_cmpuint(srq_op(a, AXON_ADMIN_DESTROY_SRQ, srqn, 0, &v), ==,
                     AXON_ADMIN_BUSY);
    g_assert_cmpuint(qp_cmd(a, AXON_ADMIN_DESTROY_QP, qpn, 0, 0), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(srq_op(a, AXON_ADMIN_DESTROY_SRQ, srqn, 0, &v), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(srq_op(a, AXON_ADMIN_DESTROY_SRQ, srqn, 0, &v), ==,
                     AXON_ADMIN_BAD_HANDLE);
    /* a number just freed is not handed out at once */
    g_assert_cmpuint(create_srq(a, r->pdn, 8, 0, &v), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(v, !=, srqn);
    rdma_stop(r);
}

/*
 * Two QPs on one SRQ take its WQEs in ring order, whichever QP a message
 * arrives on; the limit event comes once, when the level drops below it;
 * an empty SRQ makes the sender wait (RNR) until a WQE is posted.
 */
static void test_srq_recv(void)
{
    Rdma *r = rdma_setup(7);
    Axon *a = r->a;
    g_autofree uint8_t *data = pattern(65536, 41);
    uint32_t events = rd(a, AXON_REG_STAT_EVENTS);
    TQp s0, s1, r0, r1;
    TSrq q = {};
    uint64_t v;
    int i;

    two_pairs(r, &q, 3, &s0, &s1, &r0, &r1);
    mr_access(r, 0, r->mr[0].iova, data, 65536, true);
    for (i = 0; i < 4; i++) {
        post_srq(r, &q, 100 + i, sge(r, 1, i * 8192, 8192));
    }

    send_msg(r, &s0, 0, 1000, AXON_WC_SUCCESS);
    expect_recv(r, 100, r0.qpn, 1000);
    /* 3 left: not below the limit yet */
    g_assert_cmpuint(rd(a, AXON_REG_STAT_EVENTS), ==, events);
    send_msg(r, &s1, 1000, 5000, AXON_WC_SUCCESS);
    expect_recv(r, 101, r1.qpn, 5000);
    /* 2 WQEs left, below the limit of 3: the event, once */
    expect_event(a, AXON_EVENT_SRQ_LIMIT, q.srqn);
    g_assert_cmpuint(srq_op(a, AXON_ADMIN_QUERY_SRQ, q.srqn, 0, &v), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(v, ==, 0);
    send_msg(r, &s0, 6000, 3000, AXON_WC_SUCCESS);
    expect_recv(r, 102, r0.qpn, 3000);
    check_mem(r, 1, 0, data, 1000);
    check_mem(r, 1, 8192, data + 1000, 5000);
    check_mem(r, 1, 16384, data + 6000, 3000);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_EVENTS), ==, events + 1);

    /* armed again: the next WQE taken leaves 0 < 1 */
    g_assert_cmpuint(srq_op(a, AXON_ADMIN_MODIFY_SRQ, q.srqn, 1, &v), ==,
                     AXON_ADMIN_SUCCESS);
    send_msg(r, &s1, 9000, 100, AXON_WC_SUCCESS);
    expect_recv(r, 103, r1.qpn, 100);
    expect_event(a, AXON_EVENT_SRQ_LIMIT, q.srqn);

    /* empty: the SEND waits in RNR until a WQE comes */
    {
        struct axon_sge sg = sge(r, 0, 20000, 700);
        struct axon_send_wqe w = {
            .opcode = AXON_WR_SEND, .flags = AXON_WQE_SIGNALED,
            .num_sge = 1, .wr_id = cpu_to_le64(0x77),
        };
        struct axon_cqe cqe;

        post_send(r, &s0, &w, &sg, NULL);
        g_assert_false(poll_cq_now(r, &r->cq[0], &cqe));
        post_srq(r, &q, 104, sge(r, 1, 40000, 8192));
        expect_cqe(r, &r->cq[0], 0x77, AXON_WC_SEND, AXON_WC_SUCCESS);
        expect_recv(r, 104, r0.qpn, 700);
        check_mem(r, 1, 40000, data + 20000, 700);
    }
    g_assert_cmpuint(qp_state(a, r0.qpn), ==, AXON_QPS_RTS);
    g_assert_cmpuint(qp_state(a, r1.qpn), ==, AXON_QPS_RTS);
    rdma_stop(r);
}

/*
 * The doorbells: a QP on an SRQ has no RQ doorbell; an SRQ's is checked
 * for its page and its depth. A QP in ERR flushes nothing of the SRQ,
 * says QP_LAST_WQE, and the other QP goes on taking WQEs.
 */
static void test_srq_doorbell_err(void)
{
    Rdma *r = rdma_setup(7);
    Axon *a = r->a;
    uint32_t rejects = rd(a, AXON_REG_STAT_DB_REJECTS);
    struct axon_qp_attr at = { .state = cpu_to_le32(AXON_QPS_ERR) };
    struct axon_cqe cqe;
    TQp s0, s1, r0, r1;
    TSrq q = {};

    two_pairs(r, &q, 0, &s0, &s1, &r0, &r1);

    ring(r, R_UAR, AXON_DB_RQ, r0.qpn, 1);
    ring(r, R_UAR + 1, AXON_DB_SRQ, q.srqn, 1);
    ring(r, R_UAR, AXON_DB_SRQ, q.srqn, SRQ_DEPTH + 1);
    ring(r, R_UAR, AXON_DB_SRQ, q.srqn + 1, 1);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_DB_REJECTS), ==, rejects + 4);

    post_srq(r, &q, 200, sge(r, 1, 0, 4096));
    post_srq(r, &q, 201, sge(r, 1, 4096, 4096));
    g_assert_cmpuint(modify_qp(a, r0.qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_SUCCESS);
    expect_event(a, AXON_EVENT_QP_LAST_WQE, r0.qpn);
    g_assert_false(poll_cq_now(r, &r->cq[1], &cqe));
    /* going back would hide posted WQEs */
    ring(r, R_UAR, AXON_DB_SRQ, q.srqn, q.pi - 1);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_DB_REJECTS), ==, rejects + 5);

    send_msg(r, &s1, 0, 300, AXON_WC_SUCCESS);
    expect_recv(r, 200, r1.qpn, 300);
    send_msg(r, &s1, 300, 300, AXON_WC_SUCCESS);
    expect_recv(r, 201, r1.qpn, 300);
    rdma_stop(r);
}

/* The WQEs' lkeys are the SRQ's PD's, not the QP's. */
static void test_srq_pd(void)
{
    Rdma *r = rdma_setup(7);
    Axon *a = r->a;
    TQp s0, r0;
    TSrq q = {};
    uint64_t pd2, v;
    struct axon_cqe cqe;

    g_assert_cmpuint(create_pd(a, &pd2), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(create_srq(a, pd2, SRQ_DEPTH, 0, &v), ==,
                     AXON_ADMIN_SUCCESS);
    q.srqn = v;
    make_sender(r, &s0, 0);
    make_receiver(r, &r0, 2, q.srqn);
    pair(r, &s0, &r0);
    /* MR 1 is in the QPs' PD, not in the SRQ's */
    post_srq(r, &q, 300, sge(r, 1, 0, 4096));
    send_msg(r, &s0, 0, 100, AXON_WC_REM_OP_ERR);
    g_assert_true(poll_cq(r, &r->cq[1], &cqe));
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 300);
    g_assert_cmpuint(cqe.status, ==, AXON_WC_LOC_PROT_ERR);
    g_assert_cmpuint(qp_state(a, r0.qpn), ==, AXON_QPS_ERR);
    /* a PD with an SRQ in it is busy */
    g_assert_cmpuint(qp_cmd(a, AXON_ADMIN_DESTROY_QP, r0.qpn, 0, 0), ==,
                     AXON_ADMIN_SUCCESS);
    {
        struct axon_admin_cmd cmd = {};

        cmd.pd.pdn = cpu_to_le32(pd2);
        g_assert_cmpuint(cmd_result(a, &cmd, AXON_ADMIN_DESTROY_PD, NULL), ==,
                         AXON_ADMIN_BUSY);
    }
    rdma_stop(r);
}

void axon_nic_srq_tests(void)
{
    qtest_add_func("/axon-nic/srq-admin", test_srq_admin);
    qtest_add_func("/axon-nic/srq-recv", test_srq_recv);
    qtest_add_func("/axon-nic/srq-doorbell-err", test_srq_doorbell_err);
    qtest_add_func("/axon-nic/srq-pd", test_srq_pd);
}
