/*
 * qtest of the control plane: identity, reset and enable, queue set-up,
 * the admin queue and its bad commands, doorbells, MSI-X, async events
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-nic-qos.h"

static void test_identity(void)
{
    Axon *a = axon_start(NULL);

    g_assert_cmphex(qpci_config_readw(a->dev, PCI_VENDOR_ID), ==,
                    AXON_PCI_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(a->dev, PCI_DEVICE_ID), ==,
                    AXON_PCI_DEVICE_ID_NIC);
    g_assert_cmphex(rd(a, AXON_REG_MAGIC), ==, AXON_DEV_MAGIC);
    g_assert_cmphex(AXON_VERSION_GET_MAJOR(rd(a, AXON_REG_VERSION)), ==,
                    AXON_DEV_VERSION_MAJOR);
    g_assert_cmphex(rd(a, AXON_REG_CAPS) & AXON_CAP_ADMIN_QUEUE, !=, 0);
    g_assert_cmphex(rd(a, AXON_REG_CAPS) & AXON_CAP_ETHERNET, !=, 0);
    /* trimmed packets: none taken as such without rud-trim-dscp */
    g_assert_cmphex(rd(a, AXON_REG_CAPS) & AXON_CAP_RUD_TRIM, !=, 0);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_RUD_TRIMS), ==, 0);
    g_assert_cmpuint(rd(a, AXON_REG_FW_VERSION), !=, 0);
    g_assert_cmpuint(rd(a, AXON_REG_STATUS), ==, 0);
    g_assert_cmpuint(qpci_msix_table_size(a->dev), ==, AXON_MSIX_NUM_VECTORS);
    axon_stop(a);
}

static void test_enable_and_reset(void)
{
    Axon *a = axon_start(NULL);

    g_assert_cmpuint(axon_enable(a, 8, 8, 8), ==, AXON_DEV_ERR_NONE);
    g_assert_cmphex(rd(a, AXON_REG_STATUS), ==, AXON_STATUS_READY);
    g_assert_cmpuint(rd(a, AXON_REG_AQ_SQ_DEPTH), ==, 8);

    /* queue registers are frozen while enabled */
    wr(a, AXON_REG_AQ_SQ_DEPTH, 16);
    g_assert_cmpuint(rd(a, AXON_REG_AQ_SQ_DEPTH), ==, 8);

    /* disable, then reset clears everything */
    wr(a, AXON_REG_CTRL, 0);
    g_assert_cmphex(rd(a, AXON_REG_STATUS), ==, 0);
    wr(a, AXON_REG_CTRL, AXON_CTRL_RESET);
    g_assert_cmphex(rd(a, AXON_REG_CTRL), ==, 0);
    g_assert_cmpuint(rd(a, AXON_REG_AQ_SQ_DEPTH), ==, 0);
    g_assert_cmpuint(rd(a, AXON_REG_AQ_SQ_BASE_LO), ==, 0);
    axon_stop(a);
}

typedef struct BadConfig {
    uint64_t sq, cq, eq;
    uint32_t sqd, cqd, eqd;
    uint32_t error;
} BadConfig;

static void test_bad_queue_config(void)
{
    static const BadConfig cases[] = {
        { SQ_ADDR, CQ_ADDR, EQ_ADDR, 0, 8, 8, AXON_DEV_ERR_AQ_SQ_CONFIG },
        { SQ_ADDR, CQ_ADDR, EQ_ADDR, 1, 8, 8, AXON_DEV_ERR_AQ_SQ_CONFIG },
        { SQ_ADDR, CQ_ADDR, EQ_ADDR, 6, 8, 8, AXON_DEV_ERR_AQ_SQ_CONFIG },
        { SQ_ADDR, CQ_ADDR, EQ_ADDR, 8192, 8192, 8,
          AXON_DEV_ERR_AQ_SQ_CONFIG },
        { SQ_ADDR, CQ_ADDR, EQ_ADDR, 0xffffffff, 8, 8,
          AXON_DEV_ERR_AQ_SQ_CONFIG },
        { 0, CQ_ADDR, EQ_ADDR, 8, 8, 8, AXON_DEV_ERR_AQ_SQ_CONFIG },
        { SQ_ADDR + 64, CQ_ADDR, EQ_ADDR, 8, 8, 8,
          AXON_DEV_ERR_AQ_SQ_CONFIG },
        /* a ring that would wrap around the address space */
        { 0xffffffffffff0000ULL, CQ_ADDR, EQ_ADDR, 4096, 4096, 8,
          AXON_DEV_ERR_AQ_SQ_CONFIG },
        { SQ_ADDR, CQ_ADDR, EQ_ADDR, 8, 4, 8, AXON_DEV_ERR_AQ_CQ_CONFIG },
        { SQ_ADDR, CQ_ADDR + 8, EQ_ADDR, 8, 8, 8,
          AXON_DEV_ERR_AQ_CQ_CONFIG },
        { SQ_ADDR, CQ_ADDR, EQ_ADDR, 8, 8, 3, AXON_DEV_ERR_EQ_CONFIG },
        { SQ_ADDR, CQ_ADDR, 0, 8, 8, 8, AXON_DEV_ERR_EQ_CONFIG },
    };
    Axon *a = axon_start(NULL);
    size_t i;

    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        const BadConfig *c = &cases[i];

        g_test_message("bad queue config case %zu", i);
        wr(a, AXON_REG_CTRL, AXON_CTRL_RESET);
        program_queues(a, c->sq, c->sqd, c->cq, c->cqd, c->eq, c->eqd);
        wr(a, AXON_REG_CTRL, AXON_CTRL_ENABLE);
        g_assert_cmpuint(rd(a, AXON_REG_ERROR), ==, c->error);
        g_assert_cmphex(rd(a, AXON_REG_STATUS) & AXON_STATUS_READY, ==, 0);
        /* a doorbell on a device that refused to start does nothing */
        wr(a, AXON_REG_AQ_SQ_TAIL, 1);
        g_assert_cmpuint(rd(a, AXON_REG_STAT_AQ_CMDS), ==, 0);
    }
    /* and the device still comes up after a good setup */
    g_assert_cmpuint(axon_enable(a, 8, 8, 8), ==, AXON_DEV_ERR_NONE);
    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_PORT, RESP_ADDR, 4096, 1), ==,
                     AXON_ADMIN_SUCCESS);
    axon_stop(a);
}

static void test_query(void)
{
    Axon *a = axon_start(",mac=52:54:00:12:34:56");
    struct axon_dev_attr dattr;
    struct axon_port_attr pattr;

    g_assert_cmpuint(axon_enable(a, 8, 8, 8), ==, AXON_DEV_ERR_NONE);

    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_DEVICE, RESP_ADDR,
                           sizeof(dattr), 0), ==, AXON_ADMIN_SUCCESS);
    qtest_memread(a->qts, RESP_ADDR, &dattr, sizeof(dattr));
    g_assert_cmpuint(le32_to_cpu(dattr.num_ports), ==, 1);
    g_assert_cmphex(le32_to_cpu(dattr.vendor_part_id), ==,
                    AXON_PCI_DEVICE_ID_NIC);
    g_assert_cmpuint(le32_to_cpu(dattr.max_pd), ==, 1024);
    g_assert_cmphex(dattr.mac[5], ==, 0x56);
    g_assert_cmphex(le64_to_cpu(dattr.sys_image_guid), ==,
                    0x505400fffe123456ULL);

    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_PORT, RESP_ADDR,
                           sizeof(pattr), 1), ==, AXON_ADMIN_SUCCESS);
    qtest_memread(a->qts, RESP_ADDR, &pattr, sizeof(pattr));
    g_assert_cmpuint(le32_to_cpu(pattr.state), ==, AXON_PORT_ACTIVE);
    g_assert_cmpuint(le32_to_cpu(pattr.max_mtu), ==, 4096);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_AQ_CMDS), ==, 2);
    axon_stop(a);
}

static void test_bad_commands(void)
{
    Axon *a = axon_start(NULL);
    struct axon_admin_cmd cmd;
    uint8_t canary[64], back[64];

    g_assert_cmpuint(axon_enable(a, 8, 8, 8), ==, AXON_DEV_ERR_NONE);

    /* response buffer too small: nothing is written */
    memset(canary, 0xa5, sizeof(canary));
    qtest_memwrite(a->qts, RESP_ADDR, canary, sizeof(canary));
    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_DEVICE, RESP_ADDR, 8, 0), ==,
                     AXON_ADMIN_BAD_PARAM);
    qtest_memread(a->qts, RESP_ADDR, back, sizeof(back));
    g_assert_cmpmem(canary, sizeof(canary), back, sizeof(back));

    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_PORT, RESP_ADDR, 4096, 0), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_PORT, RESP_ADDR, 4096, 2), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_DEVICE, RESP_ADDR, 4096, 1), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_DEVICE, UNMAPPED_ADDR, 4096, 0),
                     ==, AXON_ADMIN_DMA_ERROR);

    memset(&cmd, 0, sizeof(cmd));
    cmd.opcode = cpu_to_le16(0xbeef);
    g_assert_cmpuint(run_cmd(a, &cmd, NULL), ==, AXON_ADMIN_BAD_OPCODE);

    memset(&cmd, 0, sizeof(cmd));
    cmd.opcode = cpu_to_le16(AXON_ADMIN_CREATE_PD);
    cmd.flags = cpu_to_le32(1);
    g_assert_cmpuint(run_cmd(a, &cmd, NULL), ==, AXON_ADMIN_BAD_PARAM);

    /* random garbage in every field */
    memset(&cmd, 0xff, sizeof(cmd));
    g_assert_cmpuint(run_cmd(a, &cmd, NULL), !=, AXON_ADMIN_SUCCESS);

    g_assert_cmpuint(rd(a, AXON_REG_STAT_AQ_ERRORS), ==, 8);
    /* the device keeps working */
    g_assert_cmphex(rd(a, AXON_REG_STATUS), ==, AXON_STATUS_READY);
    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_PORT, RESP_ADDR, 4096, 1), ==,
                     AXON_ADMIN_SUCCESS);
    axon_stop(a);
}

static void test_phase_wrap(void)
{
    Axon *a = axon_start(NULL);
    int i;

    /* smallest rings: the phase flips every second command */
    g_assert_cmpuint(axon_enable(a, 2, 2, 2), ==, AXON_DEV_ERR_NONE);
    for (i = 0; i < 9; i++) {
        g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_PORT, RESP_ADDR, 4096, 1),
                         ==, AXON_ADMIN_SUCCESS);
    }
    g_assert_cmpuint(rd(a, AXON_REG_AQ_SQ_HEAD), ==, 1);
    axon_stop(a);
}

static void test_bad_doorbell(void)
{
    Axon *a = axon_start(NULL);
    struct axon_admin_cqe cqe;

    g_assert_cmpuint(axon_enable(a, 4, 4, 4), ==, AXON_DEV_ERR_NONE);
    wr(a, AXON_REG_AQ_SQ_TAIL, 4);
    g_assert_cmpuint(rd(a, AXON_REG_ERROR), ==, AXON_DEV_ERR_DOORBELL);
    wr(a, AXON_REG_AQ_SQ_TAIL, 0xffffffff);
    wr(a, AXON_REG_EQ_HEAD, 1000);
    qtest_memread(a->qts, CQ_ADDR, &cqe, sizeof(cqe));
    g_assert_cmpuint(le16_to_cpu(cqe.flags), ==, 0);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_AQ_CMDS), ==, 0);
    g_assert_cmphex(rd(a, AXON_REG_STATUS), ==, AXON_STATUS_READY);
    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_PORT, RESP_ADDR, 4096, 1), ==,
                     AXON_ADMIN_SUCCESS);
    axon_stop(a);
}

static void test_sq_dma_error_is_fatal(void)
{
    Axon *a = axon_start(NULL);

    wr(a, AXON_REG_CTRL, AXON_CTRL_RESET);
    program_queues(a, UNMAPPED_ADDR, 4, CQ_ADDR, 4, EQ_ADDR, 4);
    wr(a, AXON_REG_CTRL, AXON_CTRL_ENABLE);
    g_assert_cmpuint(rd(a, AXON_REG_ERROR), ==, AXON_DEV_ERR_NONE);
    wr(a, AXON_REG_AQ_SQ_TAIL, 1);
    for (int i = 0; i < POLL_LIMIT; i++) {
        if (rd(a, AXON_REG_STATUS) & AXON_STATUS_FATAL) {
            break;
        }
        qtest_clock_step(a->qts, 1000);
    }
    g_assert_cmphex(rd(a, AXON_REG_STATUS) & AXON_STATUS_FATAL, !=, 0);
    g_assert_cmpuint(rd(a, AXON_REG_ERROR), ==, AXON_DEV_ERR_DMA);
    /* enable is refused until reset; reset recovers */
    wr(a, AXON_REG_CTRL, 0);
    wr(a, AXON_REG_CTRL, AXON_CTRL_ENABLE);
    g_assert_cmphex(rd(a, AXON_REG_STATUS) & AXON_STATUS_READY, ==, 0);
    g_assert_cmpuint(axon_enable(a, 4, 4, 4), ==, AXON_DEV_ERR_NONE);
    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_PORT, RESP_ADDR, 4096, 1), ==,
                     AXON_ADMIN_SUCCESS);
    axon_stop(a);
}

static void test_pd_table(void)
{
    Axon *a = axon_start(",max-pd=3");
    struct axon_admin_cmd cmd;
    uint64_t pdn;
    int i;

    g_assert_cmpuint(axon_enable(a, 8, 8, 8), ==, AXON_DEV_ERR_NONE);
    for (i = 0; i < 3; i++) {
        memset(&cmd, 0, sizeof(cmd));
        cmd.opcode = cpu_to_le16(AXON_ADMIN_CREATE_PD);
        g_assert_cmpuint(run_cmd(a, &cmd, &pdn), ==, AXON_ADMIN_SUCCESS);
        g_assert_cmpuint(pdn, ==, i);
    }
    memset(&cmd, 0, sizeof(cmd));
    cmd.opcode = cpu_to_le16(AXON_ADMIN_CREATE_PD);
    g_assert_cmpuint(run_cmd(a, &cmd, NULL), ==, AXON_ADMIN_NO_RESOURCES);

    memset(&cmd, 0, sizeof(cmd));
    cmd.opcode = cpu_to_le16(AXON_ADMIN_DESTROY_PD);
    cmd.pd.pdn = cpu_to_le32(1);
    g_assert_cmpuint(run_cmd(a, &cmd, NULL), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(run_cmd(a, &cmd, NULL), ==, AXON_ADMIN_BAD_HANDLE);
    cmd.pd.pdn = cpu_to_le32(3);
    g_assert_cmpuint(run_cmd(a, &cmd, NULL), ==, AXON_ADMIN_BAD_HANDLE);
    cmd.pd.pdn = cpu_to_le32(0xffffffff);
    g_assert_cmpuint(run_cmd(a, &cmd, NULL), ==, AXON_ADMIN_BAD_HANDLE);

    memset(&cmd, 0, sizeof(cmd));
    cmd.opcode = cpu_to_le16(AXON_ADMIN_CREATE_PD);
    g_assert_cmpuint(run_cmd(a, &cmd, &pdn), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(pdn, ==, 1);
    axon_stop(a);
}

static void test_msix_admin(void)
{
    Axon *a = axon_start(NULL);

    g_assert_cmpuint(axon_enable(a, 4, 4, 4), ==, AXON_DEV_ERR_NONE);
    setup_msix(a, AXON_MSIX_ADMIN, MSI_ADDR, 0xada);
    qtest_writel(a->qts, MSI_ADDR, 0);
    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_PORT, RESP_ADDR, 4096, 1), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_true(wait_word(a, MSI_ADDR, 0xada));
    axon_stop(a);
}

static void test_events(void)
{
    Axon *a = axon_start(",id=nic0");
    struct axon_event ev;
    QDict *rsp;
    int i;

    g_assert_cmpuint(axon_enable(a, 4, 4, 4), ==, AXON_DEV_ERR_NONE);
    setup_msix(a, AXON_MSIX_ASYNC, MSI_ADDR + 4, 0xe1);

    rsp = qtest_qmp(a->qts, "{'execute': 'qom-set', 'arguments': "
                    "{'path': 'nic0', 'property': 'link-up', 'value': false}}");
    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
    g_assert_true(wait_word(a, MSI_ADDR + 4, 0xe1));
    read_event(a, &ev);
    g_assert_cmpuint(le16_to_cpu(ev.type), ==, AXON_EVENT_PORT_DOWN);
    g_assert_cmpuint(le16_to_cpu(ev.flags), ==, AXON_EVENT_PHASE);
    g_assert_cmpuint(le32_to_cpu(ev.param), ==, 1);
    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_PORT, RESP_ADDR, 4096, 1), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(qtest_readl(a->qts, RESP_ADDR), ==, AXON_PORT_DOWN);

    /* fill the ring without consuming: 3 of 4 slots usable, rest dropped */
    for (i = 0; i < 5; i++) {
        rsp = qtest_qmp(a->qts, "{'execute': 'qom-set', 'arguments': "
                        "{'path': 'nic0', 'property': 'link-up', "
                        "'value': %i}}", i % 2 == 0);
        qobject_unref(rsp);
    }
    g_assert_cmpuint(rd(a, AXON_REG_STAT_EVENTS), ==, 3);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_EQ_DROPS), ==, 3);

    /* consuming makes room again, and the phase wraps */
    wr(a, AXON_REG_EQ_HEAD, 3);
    rsp = qtest_qmp(a->qts, "{'execute': 'qom-set', 'arguments': "
                    "{'path': 'nic0', 'property': 'link-up', 'value': false}}");
    qobject_unref(rsp);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_EVENTS), ==, 4);
    a->eq_head = 3;
    read_event(a, &ev);
    g_assert_cmpuint(le16_to_cpu(ev.flags), ==, AXON_EVENT_PHASE);
    a->eq_head = 0;
    axon_stop(a);
}

void axon_nic_ctrl_tests(void)
{
    qtest_add_func("/axon-nic/identity", test_identity);
    qtest_add_func("/axon-nic/enable-and-reset", test_enable_and_reset);
    qtest_add_func("/axon-nic/bad-queue-config", test_bad_queue_config);
    qtest_add_func("/axon-nic/query", test_query);
    qtest_add_func("/axon-nic/bad-commands", test_bad_commands);
    qtest_add_func("/axon-nic/phase-wrap", test_phase_wrap);
    qtest_add_func("/axon-nic/bad-doorbell", test_bad_doorbell);
    qtest_add_func("/axon-nic/sq-dma-error-is-fatal",
                   test_sq_dma_error_is_fatal);
    qtest_add_func("/axon-nic/pd-table", test_pd_table);
    qtest_add_func("/axon-nic/msix-admin", test_msix_admin);
    qtest_add_func("/axon-nic/events", test_events);
}
