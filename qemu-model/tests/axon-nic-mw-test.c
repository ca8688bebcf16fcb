/*
 * qtest of memory windows: their admin rules, type 1 windows bound and
 * bound again (the old key refused), type 2 windows answering only the
 * QP that bound them and taken away by LOCAL_INV, SEND_INV and that QP's
 * end, an MR with a window bound refusing DESTROY_MR, windows destroyed by
 * their slot whatever their tag, and the bindings that break a rule.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-nic-qos.h"

#define W_OFF 8192                  /* the window, into MR 1's range */
#define W_LEN 16384
#define W_RIGHTS (AXON_ACCESS_REMOTE_WRITE | AXON_ACCESS_REMOTE_READ)

static uint32_t retag(uint32_t key, unsigned n)
{
    return AXON_KEY(AXON_KEY_GET_INDEX(key), AXON_KEY_GET_TAG(key) + n);
}

/*
 * An MR over MR 1's pages (the fixture's page list is still MR 1's) with
 * access, in pdn: the same bytes, seen through a key that allows windows.
 */
static uint32_t bindable_mr(Rdma *r, uint32_t pdn, uint32_t access)
{
    uint64_t key;

    g_assert_cmpuint(create_mr(r->a, pdn, access, r->mr[1].iova,
                               MEM_PAGES * 4096ULL - 0x123 - 5, MEM_PAGES, 12,
                               1, &key), ==, AXON_ADMIN_SUCCESS);
    return key;
}

/* A BIND_MW of the window to off into MR 1's range. */
static void post_bind(Rdma *r, TQp *qp, uint32_t mw_key, uint32_t mr_key,
                      uint64_t off, uint64_t len, uint8_t rights,
                      uint64_t wr_id)
{
    post_bind_mw(r, qp, mw_key, mr_key, r->mr[1].iova + off, len, rights,
                 wr_id);
}

/* QP 0 WRITEs and READs back through the window's key. */
static void use_window(Rdma *r, uint32_t key, uint64_t off, uint8_t seed)
{
    uint8_t *data = pattern(3000, seed);
    uint8_t zero[3000] = {};

    mr_access(r, 0, r->mr[0].iova + 300000, data, 3000, true);
    post_rdma0(r, AXON_WR_RDMA_WRITE, key, r->mr[1].iova + off, 3000,
               0x200);
    expect_cqe(r, r->qp[0].scq, 0x200, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    check_mem(r, 1, off, data, 3000);
    mr_access(r, 0, r->mr[0].iova + 300000, zero, 3000, true);
    post_rdma0(r, AXON_WR_RDMA_READ, key, r->mr[1].iova + off, 3000, 0x201);
    expect_cqe(r, r->qp[0].scq, 0x201, AXON_WC_RDMA_READ, AXON_WC_SUCCESS);
    check_mem(r, 0, 300000, data, 3000);
    g_free(data);
}

static void test_mw_admin(void)
{
    Rdma *r = rdma_setup(7);
    struct axon_admin_cmd cmd = {};
    uint64_t key;

    g_assert_cmpuint(create_mw(r->a, r->pdn, AXON_MR_MW_TYPE1 |
                               AXON_MR_MW_TYPE2, &key), ==,
                     AXON_ADMIN_BAD_PARAM);
    cmd.mr.pdn = cpu_to_le32(r->pdn);
    cmd.mr.flags = cpu_to_le16(AXON_MR_MW_TYPE2);
    cmd.mr.access = cpu_to_le32(AXON_ACCESS_REMOTE_READ);
    g_assert_cmpuint(cmd_result(r->a, &cmd, AXON_ADMIN_CREATE_MR, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_mw(r->a, r->pdn + 100, AXON_MR_MW_TYPE1, &key),
                     ==, AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(create_mw(r->a, r->pdn, AXON_MR_MW_TYPE1, &key), ==,
                     AXON_ADMIN_SUCCESS);
    /* unbound: nothing goes through it */
    post_rdma0(r, AXON_WR_RDMA_WRITE, key, r->mr[1].iova + W_OFF, 64, 0x300);
    expect_cqe(r, r->qp[0].scq, 0x300, 0, AXON_WC_REM_ACCESS_ERR);
    g_assert_cmpuint(destroy_mr(r->a, key), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(rd(r->a, AXON_REG_CAPS) & AXON_CAP_MW, ==, AXON_CAP_MW);
    rdma_stop(r);
}

/*
 * Type 1: bound, used, bound again under a new key (the old refused),
 * and the MR busy while a window is bound to it.
 */
static void test_mw_type1(void)
{
    Rdma *r = rdma_setup(7);
    uint32_t mr = bindable_mr(r, r->pdn, AXON_ACCESS_ALL | AXON_ACCESS_MW_BIND);
    uint64_t v;
    uint32_t key;

    g_assert_cmpuint(create_mw(r->a, r->pdn, AXON_MR_MW_TYPE1, &v), ==,
                     AXON_ADMIN_SUCCESS);
    key = retag(v, 1);
    post_bind(r, &r->qp[1], key, mr, W_OFF, W_LEN, W_RIGHTS, 0x100);
    expect_cqe(r, r->qp[1].scq, 0x100, AXON_WC_BIND_MW, AXON_WC_SUCCESS);
    use_window(r, key, W_OFF + 100, 0x31);
    g_assert_cmpuint(destroy_mr(r->a, mr), ==, AXON_ADMIN_BUSY);
    /* bound again, by the other QP of the PD: the new key works */
    post_bind(r, &r->qp[0], retag(key, 1), mr, W_OFF, 4096, W_RIGHTS, 0x101);
    expect_cqe(r, r->qp[0].scq, 0x101, AXON_WC_BIND_MW, AXON_WC_SUCCESS);
    use_window(r, retag(key, 1), W_OFF, 0x32);
    /* outside the window, though inside the MR */
    post_rdma0(r, AXON_WR_RDMA_WRITE, retag(key, 1),
               r->mr[1].iova + W_OFF + 4096, 64, 0x202);
    expect_cqe(r, r->qp[0].scq, 0x202, 0, AXON_WC_REM_ACCESS_ERR);
    rdma_stop(r);

    r = rdma_setup(7);
    mr = bindable_mr(r, r->pdn, AXON_ACCESS_ALL | AXON_ACCESS_MW_BIND);
    g_assert_cmpuint(create_mw(r->a, r->pdn, AXON_MR_MW_TYPE1, &v), ==,
                     AXON_ADMIN_SUCCESS);
    post_bind(r, &r->qp[1], retag(v, 1), mr, W_OFF, W_LEN, W_RIGHTS, 0x100);
    expect_cqe(r, r->qp[1].scq, 0x100, AXON_WC_BIND_MW, AXON_WC_SUCCESS);
    /* unbound by a zero-length bind (no MR named): the key refused */
    post_bind(r, &r->qp[1], retag(v, 2), 0, 0, 0, 0, 0x101);
    expect_cqe(r, r->qp[1].scq, 0x101, AXON_WC_BIND_MW, AXON_WC_SUCCESS);
    post_rdma0(r, AXON_WR_RDMA_WRITE, retag(v, 1), r->mr[1].iova + W_OFF,
               64, 0x200);
    expect_cqe(r, r->qp[0].scq, 0x200, 0, AXON_WC_REM_ACCESS_ERR);
    g_assert_cmpuint(destroy_mr(r->a, mr), ==, AXON_ADMIN_SUCCESS);
    /* DESTROY_MR names a window by its slot: the key CREATE_MR gave */
    g_assert_cmpuint(destroy_mr(r->a, v), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(destroy_mr(r->a, v), ==, AXON_ADMIN_BAD_HANDLE);
    rdma_stop(r);
}

/* Type 2: LOCAL_INV, then SEND_INV, take the window away. */
static void test_mw_type2(void)
{
    for (int remote = 0; remote < 2; remote++) {
        Rdma *r = rdma_setup(7);
        uint32_t mr = bindable_mr(r, r->pdn,
                                  AXON_ACCESS_ALL | AXON_ACCESS_MW_BIND);
        struct axon_send_wqe inv = {
            .opcode = remote ? AXON_WR_SEND_INV : AXON_WR_LOCAL_INV,
            .flags = AXON_WQE_SIGNALED,
            .wr_id = cpu_to_le64(0x102),
        };
        struct axon_sge rsg = sge(r, 1, 0, 64);
        struct axon_cqe cqe;
        uint64_t v;
        uint32_t key;

        g_assert_cmpuint(create_mw(r->a, r->pdn, AXON_MR_MW_TYPE2, &v), ==,
                         AXON_ADMIN_SUCCESS);
        key = retag(v, 1);
        post_bind(r, &r->qp[1], key, mr, W_OFF, W_LEN, W_RIGHTS, 0x100);
        expect_cqe(r, r->qp[1].scq, 0x100, AXON_WC_BIND_MW, AXON_WC_SUCCESS);
        use_window(r, key, W_OFF, 0x41);
        inv.rkey = cpu_to_le32(key);
        if (remote) {
            post_recv(r, &r->qp[1], 0x400, &rsg, 1);
            post_send(r, &r->qp[0], &inv, NULL, NULL);
            expect_cqe(r, r->qp[0].scq, 0x102, AXON_WC_SEND, AXON_WC_SUCCESS);
            g_assert_true(poll_cq(r, r->qp[1].rcq, &cqe));
            g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
            g_assert_cmphex(cqe.flags & AXON_CQE_WITH_INV, ==,
                            AXON_CQE_WITH_INV);
            g_assert_cmphex(be32_to_cpu(cqe.imm_data), ==, key);
        } else {
            post_send(r, &r->qp[1], &inv, NULL, NULL);
            expect_cqe(r, r->qp[1].scq, 0x102, AXON_WC_LOCAL_INV,
                       AXON_WC_SUCCESS);
        }
        /* unbound: the key is refused, the MR free */
        g_assert_cmpuint(destroy_mr(r->a, mr), ==, AXON_ADMIN_SUCCESS);
        post_rdma0(r, AXON_WR_RDMA_WRITE, key, r->mr[1].iova + W_OFF, 64,
                   0x203);
        expect_cqe(r, r->qp[0].scq, 0x203, 0, AXON_WC_REM_ACCESS_ERR);
        rdma_stop(r);
    }
}

/* A type 2 window answers only the QP that bound it. */
static void test_mw_type2_qp(void)
{
    Rdma *r = rdma_setup(7);
    uint32_t mr = bindable_mr(r, r->pdn, AXON_ACCESS_ALL | AXON_ACCESS_MW_BIND);
    uint64_t v;
    TQp third;

    g_assert_cmpuint(create_qp_type(r, &third, AXON_QPT_RC,
                                    R_BASE + 0x340000, R_BASE + 0x3c0000,
                                    &r->cq[1]), ==, AXON_ADMIN_SUCCESS);
    connect_qp(r, &third, r->qp[0].qpn, 0x1000, 0x2000, 7);
    g_assert_cmpuint(create_mw(r->a, r->pdn, AXON_MR_MW_TYPE2, &v), ==,
                     AXON_ADMIN_SUCCESS);
    post_bind(r, &third, retag(v, 1), mr, W_OFF, W_LEN, W_RIGHTS, 0x100);
    expect_cqe(r, third.scq, 0x100, AXON_WC_BIND_MW, AXON_WC_SUCCESS);
    /* the QP that bound it gone, the window is unbound: the MR is free */
    g_assert_cmpuint(destroy_mr(r->a, mr), ==, AXON_ADMIN_BUSY);
    g_assert_cmpuint(qp_cmd(r->a, AXON_ADMIN_DESTROY_QP, third.qpn, 0, 0),
                     ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(destroy_mr(r->a, mr), ==, AXON_ADMIN_SUCCESS);
    /* QP 0's requests reach QP 1, which did not bind it */
    post_rdma0(r, AXON_WR_RDMA_WRITE, retag(v, 1), r->mr[1].iova + W_OFF,
               64, 0x200);
    expect_cqe(r, r->qp[0].scq, 0x200, 0, AXON_WC_REM_ACCESS_ERR);
    rdma_stop(r);
}

/* Bindings that break a rule, and window keys where they do not belong. */
static void test_mw_bad(void)
{
    enum { NO_MW_BIND, OUTSIDE, NO_LOCAL_WRITE, OTHER_PD, TWICE, AS_LKEY,
           INV_TYPE1, CASES };
    static const uint8_t status[CASES] = {
        [NO_MW_BIND] = AXON_WC_MW_BIND_ERR,
        [OUTSIDE] = AXON_WC_MW_BIND_ERR,
        [NO_LOCAL_WRITE] = AXON_WC_MW_BIND_ERR,
        [OTHER_PD] = AXON_WC_MW_BIND_ERR,
        [TWICE] = AXON_WC_MW_BIND_ERR,
        [AS_LKEY] = AXON_WC_LOC_PROT_ERR,
        [INV_TYPE1] = AXON_WC_LOC_PROT_ERR,
    };

    for (int c = 0; c < CASES; c++) {
        Rdma *r = rdma_setup(7);
        uint32_t mr = bindable_mr(r, r->pdn,
                                  AXON_ACCESS_ALL | AXON_ACCESS_MW_BIND);
        uint64_t v, pdn;
        uint32_t key;
        struct axon_send_wqe w = {
            .opcode = AXON_WR_SEND,
            .flags = AXON_WQE_SIGNALED,
            .num_sge = 1,
            .wr_id = cpu_to_le64(0x101),
        };
        struct axon_sge sg;

        g_assert_cmpuint(create_mw(r->a, r->pdn, c == INV_TYPE1 ?
                                   AXON_MR_MW_TYPE1 : AXON_MR_MW_TYPE2, &v),
                         ==, AXON_ADMIN_SUCCESS);
        key = retag(v, 1);
        switch (c) {
        case NO_MW_BIND:
            post_bind(r, &r->qp[1], key, r->mr[1].key, W_OFF, W_LEN,
                      W_RIGHTS, 0x101);
            break;
        case OUTSIDE:
            post_bind(r, &r->qp[1], key, mr, MEM_PAGES * 4096ULL - 4096,
                      W_LEN, W_RIGHTS, 0x101);
            break;
        case NO_LOCAL_WRITE:
            mr = bindable_mr(r, r->pdn, AXON_ACCESS_REMOTE_READ |
                             AXON_ACCESS_MW_BIND);
            post_bind(r, &r->qp[1], key, mr, W_OFF, W_LEN, W_RIGHTS, 0x101);
            break;
        case OTHER_PD:
            g_assert_cmpuint(create_pd(r->a, &pdn), ==, AXON_ADMIN_SUCCESS);
            g_assert_cmpuint(create_mw(r->a, pdn, AXON_MR_MW_TYPE2, &v), ==,
                             AXON_ADMIN_SUCCESS);
            post_bind(r, &r->qp[1], v, mr, W_OFF, W_LEN, W_RIGHTS, 0x101);
            break;
        case TWICE:
            post_bind(r, &r->qp[1], key, mr, W_OFF, W_LEN, W_RIGHTS, 0x100);
            expect_cqe(r, r->qp[1].scq, 0x100, AXON_WC_BIND_MW,
                       AXON_WC_SUCCESS);
            post_bind(r, &r->qp[1], retag(key, 1), mr, W_OFF, W_LEN,
                      W_RIGHTS, 0x101);
            break;
        case AS_LKEY:
            post_bind(r, &r->qp[1], key, mr, W_OFF, W_LEN, W_RIGHTS, 0x100);
            expect_cqe(r, r->qp[1].scq, 0x100, AXON_WC_BIND_MW,
                       AXON_WC_SUCCESS);
            sg = (struct axon_sge){
                .addr = cpu_to_le64(r->mr[1].iova + W_OFF),
                .length = cpu_to_le32(64), .lkey = cpu_to_le32(key),
            };
            post_send(r, &r->qp[1], &w, &sg, NULL);
            break;
        case INV_TYPE1:
            post_bind(r, &r->qp[1], key, mr, W_OFF, W_LEN, W_RIGHTS, 0x100);
            expect_cqe(r, r->qp[1].scq, 0x100, AXON_WC_BIND_MW,
                       AXON_WC_SUCCESS);
            w.opcode = AXON_WR_LOCAL_INV;
            w.num_sge = 0;
            w.rkey = cpu_to_le32(key);
            post_send(r, &r->qp[1], &w, NULL, NULL);
            break;
        }
        expect_cqe(r, r->qp[1].scq, 0x101, 0, status[c]);
        g_assert_cmpuint(qp_state(r->a, r->qp[1].qpn), ==, AXON_QPS_ERR);
        rdma_stop(r);
    }
}

void axon_nic_mw_tests(void)
{
    qtest_add_func("/axon-nic/mw-admin", test_mw_admin);
    qtest_add_func("/axon-nic/mw-type1", test_mw_type1);
    qtest_add_func("/axon-nic/mw-type2", test_mw_type2);
    qtest_add_func("/axon-nic/mw-type2-qp", test_mw_type2_qp);
    qtest_add_func("/axon-nic/mw-bad", test_mw_bad);
}
