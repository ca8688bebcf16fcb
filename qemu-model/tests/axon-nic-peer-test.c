/*
 * qtest of peer memory: INVALIDATE_MR, REMAP_MR, and MRs on an axon-gpu's BAR
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-nic-qos.h"

static uint16_t mr_cmd(Axon *a, uint16_t op, uint32_t key, uint32_t npages,
                       uint8_t shift, uint8_t levels)
{
    struct axon_admin_cmd cmd = {};

    cmd.mr.key = cpu_to_le32(key);
    if (op == AXON_ADMIN_REMAP_MR) {
        cmd.mr.pbl_addr = cpu_to_le64(PBL_ADDR);
        cmd.mr.npages = cpu_to_le32(npages);
        cmd.mr.page_shift = shift;
        cmd.mr.levels = levels;
    }
    return cmd_result(a, &cmd, op, NULL);
}

static uint16_t invalidate_mr(Axon *a, uint32_t key)
{
    return mr_cmd(a, AXON_ADMIN_INVALIDATE_MR, key, 0, 0, 0);
}

/* Points region i's page list at MEM_PAGES pages from base, in order. */
static void mr_pages(Rdma *r, int i, uint64_t base)
{
    uint64_t pbl[MEM_PAGES];

    for (int p = 0; p < MEM_PAGES; p++) {
        r->mr[i].pages[p] = base + p * 4096ULL;
        pbl[p] = cpu_to_le64(r->mr[i].pages[p]);
    }
    qtest_memwrite(r->a->qts, PBL_ADDR, pbl, sizeof(pbl));
}

static uint64_t peer_stat(Axon *a, uint32_t lo)
{
    uint32_t hi;
    uint64_t v;

    do {
        hi = rd(a, lo + 4);
        v = AXON_REG_U64(hi, rd(a, lo));
    } while (rd(a, lo + 4) != hi);
    return v;
}

static void test_rdma_invalidate_cmds(void)
{
    Rdma *r = rdma_setup(7);
    Axon *a = r->a;
    uint32_t key = r->mr[1].key;
    struct axon_admin_cmd cmd = {};
    uint64_t leaf[MEM_PAGES];
    uint32_t errors;

    g_assert_cmphex(rd(a, AXON_REG_CAPS) & AXON_CAP_PEER_MR, !=, 0);
    g_assert_cmpuint(rd(a, AXON_REG_VERSION), ==,
                     AXON_VERSION(AXON_DEV_VERSION_MAJOR,
                                  AXON_DEV_VERSION_MINOR));
    /* unknown keys */
    g_assert_cmpuint(invalidate_mr(a, 0), ==, AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(invalidate_mr(a, key + 1), ==, AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(invalidate_mr(a, 0xffffffff), ==, AXON_ADMIN_BAD_HANDLE);
    mr_pages(r, 1, MEM_ADDR(1));
    g_assert_cmpuint(mr_cmd(a, AXON_ADMIN_REMAP_MR, key + 1, MEM_PAGES, 12, 1),
                     ==, AXON_ADMIN_BAD_HANDLE);
    /* any other field set */
    errors = rd(a, AXON_REG_STAT_AQ_ERRORS);
    cmd.mr.key = cpu_to_le32(key);
    cmd.mr.pdn = cpu_to_le32(1);
    g_assert_cmpuint(cmd_result(a, &cmd, AXON_ADMIN_INVALIDATE_MR, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    memset(&cmd, 0, sizeof(cmd));
    cmd.mr.key = cpu_to_le32(key);
    cmd.mr.npages = cpu_to_le32(1);
    g_assert_cmpuint(cmd_result(a, &cmd, AXON_ADMIN_INVALIDATE_MR, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    memset(&cmd, 0, sizeof(cmd));
    cmd.mr.key = cpu_to_le32(key);
    cmd.mr.reserved[11] = 1;
    g_assert_cmpuint(cmd_result(a, &cmd, AXON_ADMIN_INVALIDATE_MR, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    for (int f = 0; f < 6; f++) {
        memset(&cmd, 0, sizeof(cmd));
        cmd.mr.key = cpu_to_le32(key);
        cmd.mr.pbl_addr = cpu_to_le64(PBL_ADDR);
        cmd.mr.npages = cpu_to_le32(MEM_PAGES);
        cmd.mr.page_shift = 12;
        cmd.mr.levels = 1;
        switch (f) {
        case 0:
            cmd.mr.pdn = cpu_to_le32(1);
            break;
        case 1:
            cmd.mr.access = cpu_to_le32(AXON_ACCESS_LOCAL_WRITE);
            break;
        case 2:
            cmd.mr.iova = cpu_to_le64(r->mr[1].iova);
            break;
        case 3:
            cmd.mr.length = cpu_to_le64(4096);
            break;
        case 4:
            cmd.mr.flags = cpu_to_le16(AXON_MR_FAST_REG);
            break;
        case 5:
            cmd.mr.reserved[0] = 1;
            break;
        }
        g_assert_cmpuint(cmd_result(a, &cmd, AXON_ADMIN_REMAP_MR, NULL), ==,
                         AXON_ADMIN_BAD_PARAM);
    }
    /* a list that does not cover the MR, or a bad shape */
    g_assert_cmpuint(mr_cmd(a, AXON_ADMIN_REMAP_MR, key, MEM_PAGES - 1, 12, 1),
                     ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(mr_cmd(a, AXON_ADMIN_REMAP_MR, key, MEM_PAGES + 1, 12, 1),
                     ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(mr_cmd(a, AXON_ADMIN_REMAP_MR, key, MEM_PAGES, 11, 1),
                     ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(mr_cmd(a, AXON_ADMIN_REMAP_MR, key, MEM_PAGES, 12, 3),
                     ==, AXON_ADMIN_BAD_PARAM);
    qtest_writeq(a->qts, PBL_ADDR, MEM_ADDR(1) + 4096);
    g_assert_cmpuint(mr_cmd(a, AXON_ADMIN_REMAP_MR, key, 1, 21, 1),
                     ==, AXON_ADMIN_BAD_PARAM);   /* not 2 MiB aligned */
    qtest_writeq(a->qts, PBL_ADDR, MEM_ADDR(1) + 8);
    g_assert_cmpuint(mr_cmd(a, AXON_ADMIN_REMAP_MR, key, 1, 21, 2),
                     ==, AXON_ADMIN_BAD_PARAM);   /* leaf not 4 KiB aligned */
    g_assert_cmpuint(rd(a, AXON_REG_STAT_AQ_ERRORS), ==, errors + 15);
    mr_pages(r, 1, MEM_ADDR(1));
    /* invalidating twice, remapping a valid MR */
    g_assert_cmpuint(invalidate_mr(a, key), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(invalidate_mr(a, key), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(mr_cmd(a, AXON_ADMIN_REMAP_MR, key, MEM_PAGES, 12, 1),
                     ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(mr_cmd(a, AXON_ADMIN_REMAP_MR, key, MEM_PAGES, 12, 1),
                     ==, AXON_ADMIN_SUCCESS);
    /* a 2-level list: one leaf */
    qtest_memread(a->qts, PBL_ADDR, leaf, sizeof(leaf));
    qtest_memwrite(a->qts, PBL_ADDR + 0x1000, leaf, sizeof(leaf));
    qtest_writeq(a->qts, PBL_ADDR, PBL_ADDR + 0x1000);
    g_assert_cmpuint(mr_cmd(a, AXON_ADMIN_REMAP_MR, key, MEM_PAGES, 12, 2),
                     ==, AXON_ADMIN_SUCCESS);
    /* a destroyed key is gone for both */
    g_assert_cmpuint(destroy_mr(a, key), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(invalidate_mr(a, key), ==, AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(mr_cmd(a, AXON_ADMIN_REMAP_MR, key, MEM_PAGES, 12, 1),
                     ==, AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_MR_INVALID), ==, 0);
    g_assert_cmphex(rd(a, AXON_REG_STATUS), ==, AXON_STATUS_READY);
    rdma_stop(r);
}

static void post_write(Rdma *r, uint64_t wr_id, int from, uint64_t off,
                       int to, uint64_t roff, uint32_t len, uint8_t opcode)
{
    struct axon_send_wqe w = {};
    struct axon_sge sg = sge(r, from, off, len);

    w.opcode = opcode;
    w.flags = AXON_WQE_SIGNALED;
    w.num_sge = 1;
    w.wr_id = cpu_to_le64(wr_id);
    w.remote_addr = cpu_to_le64(r->mr[to].iova + roff);
    w.rkey = cpu_to_le32(r->mr[to].key);
    post_send(r, from ? &r->qp[1] : &r->qp[0], &w, &sg, NULL);
}

/* Every access through an invalidated MR fails; after REMAP_MR it works. */
static void test_rdma_invalidate_access(void)
{
    g_autofree uint8_t *data = pattern(6000, 3);
    g_autofree uint8_t *zero = g_malloc0(6000);
    TQp *a, *b;
    Rdma *r;

    /* remote WRITE and READ: NAKed, the requester sees REM_ACCESS_ERR */
    for (int op = 0; op < 2; op++) {
        r = rdma_setup(7);
        a = &r->qp[0];
        b = &r->qp[1];
        mr_access(r, 0, r->mr[0].iova, data, 6000, true);
        mr_access(r, 1, r->mr[1].iova, zero, 6000, true);
        g_assert_cmpuint(invalidate_mr(r->a, r->mr[1].key), ==,
                         AXON_ADMIN_SUCCESS);
        /* a failed REMAP_MR leaves it invalid */
        g_assert_cmpuint(mr_cmd(r->a, AXON_ADMIN_REMAP_MR, r->mr[1].key,
                                MEM_PAGES - 1, 12, 1), ==,
                         AXON_ADMIN_BAD_PARAM);
        if (op) {
            mr_access(r, 1, r->mr[1].iova, data, 6000, true);
            mr_access(r, 0, r->mr[0].iova, zero, 6000, true);
        }
        post_write(r, 0x10 + op, 0, 0, 1, 0, 6000,
                   op ? AXON_WR_RDMA_READ : AXON_WR_RDMA_WRITE);
        expect_cqe(r, a->scq, 0x10 + op, 0, AXON_WC_REM_ACCESS_ERR);
        g_assert_cmpuint(qp_state(r->a, a->qpn), ==, AXON_QPS_ERR);
        g_assert_cmpuint(qp_state(r->a, b->qpn), ==, AXON_QPS_ERR);
        g_assert_cmpuint(rd(r->a, AXON_REG_STAT_MR_INVALID), ==, 1);
        /* nothing moved */
        check_mem(r, op ? 0 : 1, 0, zero, 6000);
        rdma_stop(r);
    }

    /* local: the SGE's MR is invalidated */
    r = rdma_setup(7);
    a = &r->qp[0];
    g_assert_cmpuint(invalidate_mr(r->a, r->mr[0].key), ==,
                     AXON_ADMIN_SUCCESS);
    post_write(r, 0x20, 0, 0, 1, 0, 100, AXON_WR_RDMA_WRITE);
    expect_cqe(r, a->scq, 0x20, 0, AXON_WC_LOC_PROT_ERR);
    g_assert_cmpuint(qp_state(r->a, a->qpn), ==, AXON_QPS_ERR);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_MR_INVALID), ==, 1);
    check_mem(r, 1, 0, zero, 100);
    rdma_stop(r);

    /*
     * Remapped to other pages, one 2 MiB page this time: the data goes
     * there, the old pages stay untouched.
     */
    r = rdma_setup(7);
    a = &r->qp[0];
    mr_access(r, 0, r->mr[0].iova, data, 6000, true);
    mr_access(r, 1, r->mr[1].iova, zero, 6000, true);
    g_assert_cmpuint(invalidate_mr(r->a, r->mr[1].key), ==,
                     AXON_ADMIN_SUCCESS);
    qtest_memset(r->a->qts, MEM_ADDR(2), 0, 0x200000);
    qtest_writeq(r->a->qts, PBL_ADDR, MEM_ADDR(2));
    g_assert_cmpuint(mr_cmd(r->a, AXON_ADMIN_REMAP_MR, r->mr[1].key, 1, 21, 1),
                     ==, AXON_ADMIN_SUCCESS);
    post_write(r, 0x30, 0, 0, 1, 5, 6000, AXON_WR_RDMA_WRITE);
    expect_cqe(r, a->scq, 0x30, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    check_mem(r, 1, 0, zero, 5);        /* old pages */
    check_mem(r, 1, 5, zero, 5995);
    mr_pages(r, 1, MEM_ADDR(2));        /* new pages */
    check_mem(r, 1, 5, data, 6000);
    check_mem(r, 1, 0, zero, 5);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_MR_INVALID), ==, 0);
    /* and READ back from them */
    mr_access(r, 0, r->mr[0].iova + 10000, zero, 6000, true);
    post_write(r, 0x31, 0, 10000, 1, 5, 6000, AXON_WR_RDMA_READ);
    expect_cqe(r, a->scq, 0x31, AXON_WC_RDMA_READ, AXON_WC_SUCCESS);
    check_mem(r, 0, 10000, data, 6000);
    rdma_stop(r);
}

/* MRs on an axon-gpu's BAR 2 move payload peer to peer, and count it. */
static void test_rdma_peer_mr(void)
{
    g_autofree char *gpu = g_strdup_printf(" -device axon-gpu,addr=05.0,"
                                           "vram-size=%d", GPU_VRAM);
    Rdma *r = rdma_setup_on(NULL, 7, false, gpu);
    g_autofree uint8_t *data = pattern(6000, 11);
    g_autofree uint8_t *got = g_malloc(6000);
    g_autofree uint8_t *zero = g_malloc0(6000);
    QPCIDevice *gdev = qpci_device_find(r->a->bus, QPCI_DEVFN(5, 0));
    QPCIBar vram;
    uint64_t key, pbl[MEM_PAGES];
    TQp *a = &r->qp[0];

    g_assert(gdev);
    qpci_device_enable(gdev);
    vram = qpci_iomap(gdev, AXON_GPU_BAR_VRAM, NULL);

    /* ordinary RAM MRs are not peer traffic */
    mr_access(r, 0, r->mr[0].iova, data, 6000, true);
    post_write(r, 0x40, 0, 0, 1, 0, 6000, AXON_WR_RDMA_WRITE);
    expect_cqe(r, a->scq, 0x40, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    post_write(r, 0x41, 0, 0, 1, 0, 6000, AXON_WR_RDMA_READ);
    expect_cqe(r, a->scq, 0x41, AXON_WC_RDMA_READ, AXON_WC_SUCCESS);
    g_assert_cmpuint(peer_stat(r->a, AXON_REG_STAT_PEER_RD_LO), ==, 0);
    g_assert_cmpuint(peer_stat(r->a, AXON_REG_STAT_PEER_WR_LO), ==, 0);

    /* region 1 remapped onto VRAM, 1 MiB into the BAR */
    g_assert_cmpuint(invalidate_mr(r->a, r->mr[1].key), ==,
                     AXON_ADMIN_SUCCESS);
    mr_pages(r, 1, vram.addr + 0x100000);
    g_assert_cmpuint(mr_cmd(r->a, AXON_ADMIN_REMAP_MR, r->mr[1].key,
                            MEM_PAGES, 12, 1), ==, AXON_ADMIN_SUCCESS);
    post_write(r, 0x42, 0, 0, 1, 100, 6000, AXON_WR_RDMA_WRITE);
    expect_cqe(r, a->scq, 0x42, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    g_assert_cmpuint(peer_stat(r->a, AXON_REG_STAT_PEER_WR_LO), ==, 6000);
    g_assert_cmpuint(peer_stat(r->a, AXON_REG_STAT_PEER_RD_LO), ==, 0);
    /* the bytes are in the GPU's memory, as its BAR shows them */
    qpci_memread(gdev, vram, 0x100000 + 0x123 + 100, got, 6000);
    g_assert_cmpmem(got, 6000, data, 6000);

    /* READ from VRAM into RAM */
    mr_access(r, 0, r->mr[0].iova + 20000, zero, 6000, true);
    post_write(r, 0x43, 0, 20000, 1, 100, 6000, AXON_WR_RDMA_READ);
    expect_cqe(r, a->scq, 0x43, AXON_WC_RDMA_READ, AXON_WC_SUCCESS);
    check_mem(r, 0, 20000, data, 6000);
    g_assert_cmpuint(peer_stat(r->a, AXON_REG_STAT_PEER_RD_LO), ==, 6000);
    g_assert_cmpuint(peer_stat(r->a, AXON_REG_STAT_PEER_WR_LO), ==, 6000);

    /* an atomic on VRAM: 8 bytes each way */
    qpci_io_writeq(gdev, vram, 0x100000 + 0x123 + 0x1000 - 0x123, 41);
    {
        struct axon_send_wqe w = {};
        struct axon_sge sg = sge(r, 0, 0x100, 8);

        w.opcode = AXON_WR_ATOMIC_FETCH_ADD;
        w.flags = AXON_WQE_SIGNALED;
        w.num_sge = 1;
        w.wr_id = cpu_to_le64(0x44);
        w.remote_addr = cpu_to_le64(r->mr[1].iova + 0x1000 - 0x123);
        w.rkey = cpu_to_le32(r->mr[1].key);
        w.compare_add = cpu_to_le64(1);
        post_send(r, a, &w, &sg, NULL);
    }
    expect_cqe(r, a->scq, 0x44, AXON_WC_FETCH_ADD, AXON_WC_SUCCESS);
    g_assert_cmpuint(qpci_io_readq(gdev, vram, 0x100000 + 0x1000), ==, 42);
    g_assert_cmpuint(peer_stat(r->a, AXON_REG_STAT_PEER_RD_LO), ==, 6008);
    g_assert_cmpuint(peer_stat(r->a, AXON_REG_STAT_PEER_WR_LO), ==, 6008);

    /* a local SGE on VRAM: a CREATE_MR of the GPU's pages is peer too */
    for (int p = 0; p < 4; p++) {
        pbl[p] = cpu_to_le64(vram.addr + 0x200000 + p * 4096ULL);
    }
    qtest_memwrite(r->a->qts, PBL_ADDR, pbl, 4 * sizeof(pbl[0]));
    g_assert_cmpuint(create_mr(r->a, r->pdn, AXON_ACCESS_LOCAL_WRITE, 0x1000,
                               4 * 4096, 4, 12, 1, &key), ==,
                     AXON_ADMIN_SUCCESS);
    qpci_memwrite(gdev, vram, 0x200000, data, 5000);
    {
        struct axon_send_wqe w = {};
        struct axon_sge sg = {
            .addr = cpu_to_le64(0x1000),
            .length = cpu_to_le32(5000),
            .lkey = cpu_to_le32(key),
        };

        w.opcode = AXON_WR_RDMA_WRITE;
        w.flags = AXON_WQE_SIGNALED;
        w.num_sge = 1;
        w.wr_id = cpu_to_le64(0x45);
        w.remote_addr = cpu_to_le64(r->mr[0].iova + 40000);
        w.rkey = cpu_to_le32(r->mr[0].key);
        post_send(r, a, &w, &sg, NULL);
    }
    expect_cqe(r, a->scq, 0x45, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    check_mem(r, 0, 40000, data, 5000);
    g_assert_cmpuint(peer_stat(r->a, AXON_REG_STAT_PEER_RD_LO), ==, 11008);
    g_assert_cmpuint(peer_stat(r->a, AXON_REG_STAT_PEER_WR_LO), ==, 6008);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_PEER_RD_HI), ==, 0);

    /* back on RAM: no longer peer traffic */
    g_assert_cmpuint(invalidate_mr(r->a, r->mr[1].key), ==,
                     AXON_ADMIN_SUCCESS);
    mr_pages(r, 1, MEM_ADDR(1));
    g_assert_cmpuint(mr_cmd(r->a, AXON_ADMIN_REMAP_MR, r->mr[1].key,
                            MEM_PAGES, 12, 1), ==, AXON_ADMIN_SUCCESS);
    mr_access(r, 0, r->mr[0].iova, data, 6000, true);  /* the atomic's */
    post_write(r, 0x46, 0, 0, 1, 100, 6000, AXON_WR_RDMA_WRITE);
    expect_cqe(r, a->scq, 0x46, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    check_mem(r, 1, 100, data, 6000);
    g_assert_cmpuint(peer_stat(r->a, AXON_REG_STAT_PEER_WR_LO), ==, 6008);
    /* reset clears the counters */
    wr(r->a, AXON_REG_CTRL, AXON_CTRL_RESET);
    g_assert_cmpuint(peer_stat(r->a, AXON_REG_STAT_PEER_RD_LO), ==, 0);
    g_assert_cmpuint(peer_stat(r->a, AXON_REG_STAT_PEER_WR_LO), ==, 0);
    g_free(gdev);
    rdma_stop(r);
}

void axon_nic_peer_tests(void)
{
    qtest_add_func("/axon-nic/rdma-invalidate-cmds", test_rdma_invalidate_cmds);
    qtest_add_func("/axon-nic/rdma-invalidate-access",
                   test_rdma_invalidate_access);
    qtest_add_func("/axon-nic/rdma-peer-mr", test_rdma_peer_mr);
}
