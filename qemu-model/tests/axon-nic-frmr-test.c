/*
 * qtest of fast registration: fast-registration MRs and their admin
 * rules, REG_MR giving one pages and a key the peer then WRITEs and READs
 * through, LOCAL_INV and SEND_INV taking the key away again (the peer's
 * next access refused) but not while a window is bound over it, a stale
 * tag refused after a new registration, and the WQEs that break a rule.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-nic-qos.h"

#define FR_IOVA 0x500000000080ULL   /* 0x80 into its first page */
#define FR_PAGES 4
#define FR_LEN (FR_PAGES * 4096 - 0x80)
#define FR_CAPACITY 8
#define FR_FIRST 8                  /* MR 1's pages from here back it */
#define FR_PBL (PBL_ADDR + 0x8000)
#define FR_ACCESS (AXON_ACCESS_LOCAL_WRITE | AXON_ACCESS_REMOTE_WRITE | \
                   AXON_ACCESS_REMOTE_READ)

static uint16_t create_fr(Axon *a, uint32_t pdn, uint32_t npages,
                          uint32_t access, uint64_t *key)
{
    struct axon_admin_cmd cmd = {};

    cmd.mr.pdn = cpu_to_le32(pdn);
    cmd.mr.access = cpu_to_le32(access);
    cmd.mr.npages = cpu_to_le32(npages);
    cmd.mr.flags = cpu_to_le16(AXON_MR_FAST_REG);
    return cmd_result(a, &cmd, AXON_ADMIN_CREATE_MR, key);
}

/* key with its tag moved on by n, as ib_update_fast_reg_key() does */
static uint32_t retag(uint32_t key, unsigned n)
{
    return AXON_KEY(AXON_KEY_GET_INDEX(key), AXON_KEY_GET_TAG(key) + n);
}

/* Where MR 1 sees the byte at FR_IOVA + off. */
static uint64_t mr1_off(Rdma *r, uint64_t off)
{
    return (r->mr[1].iova & ~4095ULL) - r->mr[1].iova +
           FR_FIRST * 4096 + (FR_IOVA & 4095) + off;
}

/*
 * A REG_MR of npages of MR 1's pages (from FR_FIRST) at iova under key
 * with access, posted on qp.
 */
static void post_reg_at(Rdma *r, TQp *qp, uint32_t key, uint64_t iova,
                        uint32_t npages, uint64_t len, uint8_t access,
                        uint64_t wr_id)
{
    struct axon_send_wqe w = {
        .opcode = AXON_WR_REG_MR,
        .flags = AXON_WQE_SIGNALED,
        .wr_id = cpu_to_le64(wr_id),
        .remote_addr = cpu_to_le64(iova),
        .rkey = cpu_to_le32(key),
        .reg = {
            .length = cpu_to_le64(len),
            .pbl_addr = cpu_to_le64(FR_PBL),
            .npages = cpu_to_le32(npages),
            .page_shift = 12,
            .access = access,
        },
    };
    uint64_t pbl[FR_CAPACITY + 1];

    for (uint32_t i = 0; i < npages; i++) {
        pbl[i] = cpu_to_le64(r->mr[1].pages[FR_FIRST + i]);
    }
    qtest_memwrite(r->a->qts, FR_PBL, pbl, npages * sizeof(pbl[0]));
    post_send(r, qp, &w, NULL, NULL);
}

/* The usual registration: at FR_IOVA, with FR_ACCESS. */
static void post_reg(Rdma *r, TQp *qp, uint32_t key, uint32_t npages,
                     uint64_t len, uint64_t wr_id)
{
    post_reg_at(r, qp, key, FR_IOVA, npages, len, FR_ACCESS, wr_id);
}

static void post_key_op(Rdma *r, TQp *qp, uint8_t opcode, uint32_t key,
                        uint64_t wr_id)
{
    struct axon_send_wqe w = {
        .opcode = opcode,
        .flags = AXON_WQE_SIGNALED,
        .wr_id = cpu_to_le64(wr_id),
        .rkey = cpu_to_le32(key),
    };

    post_send(r, qp, &w, NULL, NULL);
}

static uint32_t make_fr(Rdma *r)
{
    uint64_t key;

    g_assert_cmpuint(create_fr(r->a, r->pdn, FR_CAPACITY, 0, &key), ==,
                     AXON_ADMIN_SUCCESS);
    return key;
}

static void test_frmr_admin(void)
{
    Rdma *r = rdma_setup(7);
    struct axon_admin_cmd cmd = {};
    uint64_t key;
    uint32_t bad;

    g_assert_cmpuint(create_fr(r->a, r->pdn, 0, 0, &key), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_fr(r->a, r->pdn, AXON_FAST_REG_MAX_PAGES + 1, 0,
                               &key), ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_fr(r->a, r->pdn, 1, AXON_ACCESS_LOCAL_WRITE,
                               &key), ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_fr(r->a, r->pdn + 100, 1, 0, &key), ==,
                     AXON_ADMIN_BAD_HANDLE);
    cmd.mr.flags = cpu_to_le16(AXON_MR_MW_TYPE2 << 1);   /* no such flag */
    g_assert_cmpuint(cmd_result(r->a, &cmd, AXON_ADMIN_CREATE_MR, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_fr(r->a, r->pdn, FR_CAPACITY, 0, &key), ==,
                     AXON_ADMIN_SUCCESS);
    /* INVALIDATE_MR and REMAP_MR are for dma-buf MRs, not these */
    memset(&cmd, 0, sizeof(cmd));
    cmd.mr.key = cpu_to_le32(key);
    g_assert_cmpuint(cmd_result(r->a, &cmd, AXON_ADMIN_INVALIDATE_MR, NULL),
                     ==, AXON_ADMIN_BAD_PARAM);
    /* unregistered: nothing goes through it */
    bad = rd(r->a, AXON_REG_STAT_MR_INVALID);
    post_rdma0(r, AXON_WR_RDMA_WRITE, key, FR_IOVA, 64, 0x300);
    expect_cqe(r, r->qp[0].scq, 0x300, 0, AXON_WC_REM_ACCESS_ERR);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_MR_INVALID), ==, bad + 1);
    g_assert_cmpuint(destroy_mr(r->a, key), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(rd(r->a, AXON_REG_CAPS) & AXON_CAP_FAST_REG, ==,
                     AXON_CAP_FAST_REG);
    rdma_stop(r);
}

/* QP 1 registers; QP 0 WRITEs and READs through the key. */
static uint32_t reg_and_use(Rdma *r, uint32_t key, const uint8_t *data)
{
    uint8_t back[5000] = {};

    post_reg(r, &r->qp[1], key, FR_PAGES, FR_LEN, 0x100);
    expect_cqe(r, r->qp[1].scq, 0x100, AXON_WC_REG_MR, AXON_WC_SUCCESS);
    mr_access(r, 0, r->mr[0].iova + 300000, (void *)data, 5000, true);
    post_rdma0(r, AXON_WR_RDMA_WRITE, key, FR_IOVA + 100, 5000, 0x200);
    expect_cqe(r, r->qp[0].scq, 0x200, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    check_mem(r, 1, mr1_off(r, 100), data, 5000);
    mr_access(r, 0, r->mr[0].iova + 300000, back, sizeof(back), true);
    post_rdma0(r, AXON_WR_RDMA_READ, key, FR_IOVA + 100, 5000, 0x201);
    expect_cqe(r, r->qp[0].scq, 0x201, AXON_WC_RDMA_READ, AXON_WC_SUCCESS);
    check_mem(r, 0, 300000, data, 5000);
    return key;
}

static void test_frmr_local_inv(void)
{
    Rdma *r = rdma_setup(7);
    uint8_t *data = pattern(5000, 0x15);
    uint32_t key = retag(make_fr(r), 1);
    uint32_t bad;

    reg_and_use(r, key, data);
    post_key_op(r, &r->qp[1], AXON_WR_LOCAL_INV, key, 0x101);
    expect_cqe(r, r->qp[1].scq, 0x101, AXON_WC_LOCAL_INV, AXON_WC_SUCCESS);
    bad = rd(r->a, AXON_REG_STAT_MR_INVALID);
    post_rdma0(r, AXON_WR_RDMA_WRITE, key, FR_IOVA + 100, 64, 0x202);
    expect_cqe(r, r->qp[0].scq, 0x202, 0, AXON_WC_REM_ACCESS_ERR);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_MR_INVALID), ==, bad + 1);
    g_free(data);
    rdma_stop(r);
}

/*
 * SEND_INV: QP 0 takes QP 1's key away with its message; a new
 * registration under the next tag leaves the old key refused.
 */
static void test_frmr_send_inv(void)
{
    Rdma *r = rdma_setup(7);
    uint8_t *data = pattern(5000, 0x27);
    uint32_t key = retag(make_fr(r), 1);
    struct axon_send_wqe w = {
        .opcode = AXON_WR_SEND_INV,
        .flags = AXON_WQE_SIGNALED,
        .num_sge = 1,
        .wr_id = cpu_to_le64(0x203),
        .rkey = cpu_to_le32(key),
    };
    struct axon_sge sg = sge(r, 0, 300000, 3000), rsg = sge(r, 1, 0, 4096);
    struct axon_cqe cqe;

    reg_and_use(r, key, data);
    post_recv(r, &r->qp[1], 0x400, &rsg, 1);
    post_send(r, &r->qp[0], &w, &sg, NULL);
    expect_cqe(r, r->qp[0].scq, 0x203, AXON_WC_SEND, AXON_WC_SUCCESS);
    g_assert_true(poll_cq(r, r->qp[1].rcq, &cqe));
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x400);
    g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 3000);
    g_assert_cmphex(cqe.flags & (AXON_CQE_WITH_INV | AXON_CQE_WITH_IMM), ==,
                    AXON_CQE_WITH_INV);
    g_assert_cmphex(be32_to_cpu(cqe.imm_data), ==, key);
    /* the MR is free again: registered anew under the next tag */
    post_reg(r, &r->qp[1], retag(key, 1), FR_PAGES, FR_LEN, 0x102);
    expect_cqe(r, r->qp[1].scq, 0x102, AXON_WC_REG_MR, AXON_WC_SUCCESS);
    post_rdma0(r, AXON_WR_RDMA_WRITE, key, FR_IOVA + 100, 64, 0x204);
    expect_cqe(r, r->qp[0].scq, 0x204, 0, AXON_WC_REM_ACCESS_ERR);
    /* DESTROY_MR names it by its slot: here with the tag CREATE_MR gave */
    g_assert_cmpuint(destroy_mr(r->a, retag(key, -1)), ==,
                     AXON_ADMIN_SUCCESS);
    g_free(data);
    rdma_stop(r);
}

/* WQEs that break a rule: each fails, its QP goes to ERR. */
static void test_frmr_bad(void)
{
    enum { TWICE, PLAIN_MR, OVER_CAPACITY, WRONG_TAG, OTHER_PD, NOT_COVERED,
           CASES };
    static const uint8_t status[CASES] = {
        [TWICE] = AXON_WC_LOC_PROT_ERR,
        [PLAIN_MR] = AXON_WC_LOC_PROT_ERR,
        [OVER_CAPACITY] = AXON_WC_LOC_QP_OP_ERR,
        [WRONG_TAG] = AXON_WC_LOC_PROT_ERR,
        [OTHER_PD] = AXON_WC_LOC_PROT_ERR,
        [NOT_COVERED] = AXON_WC_LOC_QP_OP_ERR,
    };

    for (int c = 0; c < CASES; c++) {
        Rdma *r = rdma_setup(7);
        uint32_t key = retag(make_fr(r), 1);
        uint64_t pdn, other;

        switch (c) {
        case TWICE:
            post_reg(r, &r->qp[1], key, FR_PAGES, FR_LEN, 0x100);
            expect_cqe(r, r->qp[1].scq, 0x100, AXON_WC_REG_MR,
                       AXON_WC_SUCCESS);
            post_reg(r, &r->qp[1], retag(key, 1), FR_PAGES, FR_LEN, 0x101);
            break;
        case PLAIN_MR:
            post_reg(r, &r->qp[1], r->mr[1].key, FR_PAGES, FR_LEN, 0x101);
            break;
        case OVER_CAPACITY:
            post_reg(r, &r->qp[1], key, FR_CAPACITY + 1,
                     FR_CAPACITY * 4096, 0x101);
            break;
        case WRONG_TAG:
            post_reg(r, &r->qp[1], key, FR_PAGES, FR_LEN, 0x100);
            expect_cqe(r, r->qp[1].scq, 0x100, AXON_WC_REG_MR,
                       AXON_WC_SUCCESS);
            post_key_op(r, &r->qp[1], AXON_WR_LOCAL_INV, retag(key, 1),
                        0x101);
            break;
        case OTHER_PD:
            g_assert_cmpuint(create_pd(r->a, &pdn), ==, AXON_ADMIN_SUCCESS);
            g_assert_cmpuint(create_fr(r->a, pdn, FR_CAPACITY, 0, &other),
                             ==, AXON_ADMIN_SUCCESS);
            post_reg(r, &r->qp[1], other, FR_PAGES, FR_LEN, 0x101);
            break;
        case NOT_COVERED:
            post_reg(r, &r->qp[1], key, FR_PAGES, FR_LEN + 1, 0x101);
            break;
        }
        expect_cqe(r, r->qp[1].scq, 0x101, 0, status[c]);
        g_assert_cmpuint(qp_state(r->a, r->qp[1].qpn), ==, AXON_QPS_ERR);
        rdma_stop(r);
    }
}

/*
 * SEND_INV of a key that is no fast-registration MR of the responder's
 * PD: NAKed, the receive fails, both QPs go to ERR, the MR keeps working.
 */
static void test_frmr_send_inv_bad(void)
{
    Rdma *r = rdma_setup(7);
    struct axon_send_wqe w = {
        .opcode = AXON_WR_SEND_INV,
        .flags = AXON_WQE_SIGNALED,
        .num_sge = 1,
        .wr_id = cpu_to_le64(0x203),
        .rkey = cpu_to_le32(r->mr[1].key),
    };
    struct axon_sge sg = sge(r, 0, 0, 64), rsg = sge(r, 1, 0, 4096);

    post_recv(r, &r->qp[1], 0x400, &rsg, 1);
    post_send(r, &r->qp[0], &w, &sg, NULL);
    expect_cqe(r, r->qp[1].rcq, 0x400, 0, AXON_WC_LOC_PROT_ERR);
    expect_cqe(r, r->qp[0].scq, 0x203, 0, AXON_WC_REM_INV_REQ_ERR);
    g_assert_cmpuint(qp_state(r->a, r->qp[0].qpn), ==, AXON_QPS_ERR);
    g_assert_cmpuint(qp_state(r->a, r->qp[1].qpn), ==, AXON_QPS_ERR);
    rdma_stop(r);
}

/*
 * A type 2 window bound over a fast-registration MR keeps the MR from
 * being invalidated, locally or by a SEND_INV: else a REG_MR at another
 * iova would leave the window naming the MR's old range, and an access
 * through it would index the new page list with an offset computed
 * against the old (QEMU's heap, or DMA to a wild address).
 */
static void test_frmr_window_pins(void)
{
    for (int remote = 0; remote < 2; remote++) {
        Rdma *r = rdma_setup(7);
        uint8_t *data = pattern(3000, 0x3c + remote);
        uint32_t key = retag(make_fr(r), 1);
        struct axon_send_wqe inv = {
            .opcode = remote ? AXON_WR_SEND_INV : AXON_WR_LOCAL_INV,
            .flags = AXON_WQE_SIGNALED,
            .wr_id = cpu_to_le64(0x102),
            .rkey = cpu_to_le32(key),
        };
        struct axon_sge rsg = sge(r, 1, 0, 64);
        uint64_t v;
        uint32_t win;

        post_reg_at(r, &r->qp[1], key, FR_IOVA, FR_PAGES, FR_LEN,
                    FR_ACCESS | AXON_ACCESS_MW_BIND, 0x100);
        expect_cqe(r, r->qp[1].scq, 0x100, AXON_WC_REG_MR, AXON_WC_SUCCESS);
        g_assert_cmpuint(create_mw(r->a, r->pdn, AXON_MR_MW_TYPE2, &v), ==,
                         AXON_ADMIN_SUCCESS);
        win = retag(v, 1);
        post_bind_mw(r, &r->qp[1], win, key, FR_IOVA, FR_LEN,
                     AXON_ACCESS_REMOTE_WRITE | AXON_ACCESS_REMOTE_READ,
                     0x101);
        expect_cqe(r, r->qp[1].scq, 0x101, AXON_WC_BIND_MW, AXON_WC_SUCCESS);
        mr_access(r, 0, r->mr[0].iova + 300000, data, 3000, true);
        post_rdma0(r, AXON_WR_RDMA_WRITE, win, FR_IOVA + 8000, 3000, 0x200);
        expect_cqe(r, r->qp[0].scq, 0x200, AXON_WC_RDMA_WRITE,
                   AXON_WC_SUCCESS);
        check_mem(r, 1, mr1_off(r, 8000), data, 3000);
        if (remote) {
            /* refused as any key not to invalidate: the receive fails */
            post_recv(r, &r->qp[1], 0x400, &rsg, 1);
            post_send(r, &r->qp[0], &inv, NULL, NULL);
            expect_cqe(r, r->qp[1].rcq, 0x400, 0, AXON_WC_LOC_PROT_ERR);
            expect_cqe(r, r->qp[0].scq, 0x102, 0, AXON_WC_REM_INV_REQ_ERR);
        } else {
            post_send(r, &r->qp[1], &inv, NULL, NULL);
            expect_cqe(r, r->qp[1].scq, 0x102, 0, AXON_WC_LOC_PROT_ERR);
        }
        /* still registered, window and all: DESTROY_MR is refused */
        g_assert_cmpuint(destroy_mr(r->a, key), ==, AXON_ADMIN_BUSY);
        g_free(data);
        rdma_stop(r);
    }
}

void axon_nic_frmr_tests(void)
{
    qtest_add_func("/axon-nic/frmr-admin", test_frmr_admin);
    qtest_add_func("/axon-nic/frmr-local-inv", test_frmr_local_inv);
    qtest_add_func("/axon-nic/frmr-send-inv", test_frmr_send_inv);
    qtest_add_func("/axon-nic/frmr-bad", test_frmr_bad);
    qtest_add_func("/axon-nic/frmr-send-inv-bad", test_frmr_send_inv_bad);
    qtest_add_func("/axon-nic/frmr-window-pins", test_frmr_window_pins);
}
