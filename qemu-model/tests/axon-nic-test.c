/*
 * qtest for the axon-nic device model: registers, reset and enable
 * handshake, admin queue, async events, MSI-X, the Ethernet function and
 * the bad-input cases, driven through the device's BARs with no guest OS.
 * The Ethernet tests give the device a UDP socket netdev that sends to
 * itself (TX loops back to RX) and inject frames from this process as
 * datagrams to the same socket.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/sockets.h"
#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/pci-pc.h"
#include "hw/pci/pci_regs.h"

#include "axon/axon_dev.h"

/* Guest physical memory used by the tests (the VM has 128 MiB). */
#define SQ_ADDR 0x1000000ULL
#define CQ_ADDR 0x1010000ULL
#define EQ_ADDR 0x1020000ULL
#define RESP_ADDR 0x1030000ULL
#define MSI_ADDR 0x1040000ULL
#define ETX_ADDR 0x1050000ULL
#define ERX_ADDR 0x1060000ULL
#define TXBUF_ADDR 0x1100000ULL
#define RXBUF_ADDR 0x1200000ULL
#define BUF_STRIDE 0x4000ULL
#define UNMAPPED_ADDR 0xfff0000000000ULL

#define POLL_LIMIT 100000

typedef struct Axon {
    QTestState *qts;
    QPCIBus *bus;
    QPCIDevice *dev;
    QPCIBar bar;
    uint32_t sq_depth, cq_depth, eq_depth;
    uint32_t sq_tail, cq_head, eq_head;
    bool cq_phase, eq_phase;
    uint16_t next_cid;
    /* Ethernet function */
    uint32_t tx_depth, rx_depth, mtu;
    uint32_t tx_tail, rx_tail;
    /* the netdev's UDP socket, for injecting frames; -1 without */
    int wire_fd;
    struct sockaddr_in wire_addr;
} Axon;

static uint32_t rd(Axon *a, uint32_t reg)
{
    return qpci_io_readl(a->dev, a->bar, reg);
}

static void wr(Axon *a, uint32_t reg, uint32_t val)
{
    qpci_io_writel(a->dev, a->bar, reg, val);
}

static Axon *axon_start(const char *extra)
{
    Axon *a = g_new0(Axon, 1);

    a->qts = qtest_initf("-m 128M -device axon-nic,addr=04.0%s",
                         extra ? extra : "");
    a->bus = qpci_new_pc(a->qts, NULL);
    a->dev = qpci_device_find(a->bus, QPCI_DEVFN(4, 0));
    g_assert(a->dev);
    qpci_device_enable(a->dev);
    a->bar = qpci_iomap(a->dev, AXON_BAR_REGS, NULL);
    a->wire_fd = -1;
    return a;
}

/* A free local UDP port for the device's socket netdev. */
static int free_udp_port(void)
{
    struct sockaddr_in sa = { .sin_family = AF_INET };
    socklen_t len = sizeof(sa);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);

    g_assert_cmpint(fd, >=, 0);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    g_assert_cmpint(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), ==, 0);
    g_assert_cmpint(getsockname(fd, (struct sockaddr *)&sa, &len), ==, 0);
    close(fd);
    return ntohs(sa.sin_port);
}

/* The device with netdev=n0, a socket netdev that sends to itself. */
static Axon *axon_start_wire(const char *extra)
{
    int port = free_udp_port();
    g_autofree char *args = g_strdup_printf(
        ",netdev=n0%s -netdev socket,id=n0,udp=127.0.0.1:%d,"
        "localaddr=127.0.0.1:%d", extra ? extra : "", port, port);
    Axon *a = axon_start(args);

    a->wire_fd = socket(AF_INET, SOCK_DGRAM, 0);
    g_assert_cmpint(a->wire_fd, >=, 0);
    a->wire_addr.sin_family = AF_INET;
    a->wire_addr.sin_port = htons(port);
    a->wire_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

static void axon_stop(Axon *a)
{
    if (a->wire_fd >= 0) {
        close(a->wire_fd);
    }
    g_free(a->dev);
    qpci_free_pc(a->bus);
    qtest_quit(a->qts);
    g_free(a);
}

static void program_queues(Axon *a, uint64_t sq, uint32_t sqd, uint64_t cq,
                           uint32_t cqd, uint64_t eq, uint32_t eqd)
{
    wr(a, AXON_REG_AQ_SQ_BASE_LO, (uint32_t)sq);
    wr(a, AXON_REG_AQ_SQ_BASE_HI, sq >> 32);
    wr(a, AXON_REG_AQ_SQ_DEPTH, sqd);
    wr(a, AXON_REG_AQ_CQ_BASE_LO, (uint32_t)cq);
    wr(a, AXON_REG_AQ_CQ_BASE_HI, cq >> 32);
    wr(a, AXON_REG_AQ_CQ_DEPTH, cqd);
    wr(a, AXON_REG_EQ_BASE_LO, (uint32_t)eq);
    wr(a, AXON_REG_EQ_BASE_HI, eq >> 32);
    wr(a, AXON_REG_EQ_DEPTH, eqd);
}

/* Reset, zero the rings, program them and enable; returns AXON_REG_ERROR. */
static uint32_t axon_enable(Axon *a, uint32_t sqd, uint32_t cqd, uint32_t eqd)
{
    wr(a, AXON_REG_CTRL, AXON_CTRL_RESET);
    g_assert_cmpuint(rd(a, AXON_REG_CTRL) & AXON_CTRL_RESET, ==, 0);
    qtest_memset(a->qts, SQ_ADDR, 0, 0x10000);
    qtest_memset(a->qts, CQ_ADDR, 0, 0x10000);
    qtest_memset(a->qts, EQ_ADDR, 0, 0x10000);
    program_queues(a, SQ_ADDR, sqd, CQ_ADDR, cqd, EQ_ADDR, eqd);
    wr(a, AXON_REG_CTRL, AXON_CTRL_ENABLE);
    a->sq_depth = sqd;
    a->cq_depth = cqd;
    a->eq_depth = eqd;
    a->sq_tail = a->cq_head = a->eq_head = 0;
    a->cq_phase = a->eq_phase = true;
    return rd(a, AXON_REG_ERROR);
}

static void setup_msix(Axon *a, unsigned vector, uint64_t addr, uint32_t data)
{
    uint64_t off = a->dev->msix_table_off + vector * PCI_MSIX_ENTRY_SIZE;

    if (!a->dev->msix_enabled) {
        qpci_msix_enable(a->dev);
    }
    qpci_io_writel(a->dev, a->dev->msix_table_bar,
                   off + PCI_MSIX_ENTRY_LOWER_ADDR, (uint32_t)addr);
    qpci_io_writel(a->dev, a->dev->msix_table_bar,
                   off + PCI_MSIX_ENTRY_UPPER_ADDR, addr >> 32);
    qpci_io_writel(a->dev, a->dev->msix_table_bar,
                   off + PCI_MSIX_ENTRY_DATA, data);
    qpci_io_writel(a->dev, a->dev->msix_table_bar,
                   off + PCI_MSIX_ENTRY_VECTOR_CTRL, 0);
}

static void submit(Axon *a, struct axon_admin_cmd *cmd)
{
    cmd->command_id = cpu_to_le16(a->next_cid++);
    qtest_memwrite(a->qts, SQ_ADDR + a->sq_tail * sizeof(*cmd), cmd,
                   sizeof(*cmd));
    a->sq_tail = (a->sq_tail + 1) % a->sq_depth;
    wr(a, AXON_REG_AQ_SQ_TAIL, a->sq_tail);
}

/* Wait for the next completion; returns false if none arrives. */
static bool reap(Axon *a, struct axon_admin_cqe *cqe)
{
    uint64_t addr = CQ_ADDR + a->cq_head * sizeof(*cqe);
    int i;

    for (i = 0; i < POLL_LIMIT; i++) {
        qtest_memread(a->qts, addr, cqe, sizeof(*cqe));
        if (!!(le16_to_cpu(cqe->flags) & AXON_ADMIN_CQE_PHASE) ==
            a->cq_phase) {
            if (++a->cq_head == a->cq_depth) {
                a->cq_head = 0;
                a->cq_phase = !a->cq_phase;
            }
            return true;
        }
        qtest_clock_step(a->qts, 1000);
    }
    return false;
}

static uint16_t run_cmd(Axon *a, struct axon_admin_cmd *cmd, uint64_t *result)
{
    struct axon_admin_cqe cqe;
    uint16_t cid = a->next_cid;

    submit(a, cmd);
    g_assert_true(reap(a, &cqe));
    g_assert_cmpuint(le16_to_cpu(cqe.command_id), ==, cid);
    if (result) {
        *result = le64_to_cpu(cqe.result);
    }
    return le16_to_cpu(cqe.status);
}

static uint16_t query(Axon *a, uint16_t opcode, uint64_t addr, uint32_t len,
                      uint32_t port)
{
    struct axon_admin_cmd cmd = {};

    cmd.opcode = cpu_to_le16(opcode);
    cmd.query.resp_addr = cpu_to_le64(addr);
    cmd.query.resp_len = cpu_to_le32(len);
    cmd.query.port = cpu_to_le32(port);
    return run_cmd(a, &cmd, NULL);
}

static void test_identity(void)
{
    Axon *a = axon_start(NULL);

    g_assert_cmphex(qpci_config_readw(a->dev, PCI_VENDOR_ID), ==,
                    AXON_PCI_VENDOR_ID);
    g_assert_cmphex(qpci_config_readw(a->dev, PCI_DEVICE_ID), ==,
                    AXON_PCI_DEVICE_ID_NIC);
    g_assert_cmphex(rd(a, AXON_REG_MAGIC), ==, AXON_DEV_MAGIC);
    g_assert_cmphex(rd(a, AXON_REG_VERSION) >> 16, ==, AXON_DEV_VERSION_MAJOR);
    g_assert_cmphex(rd(a, AXON_REG_CAPS) & AXON_CAP_ADMIN_QUEUE, !=, 0);
    g_assert_cmphex(rd(a, AXON_REG_CAPS) & AXON_CAP_ETHERNET, !=, 0);
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

static bool wait_word(Axon *a, uint64_t addr, uint32_t want)
{
    for (int i = 0; i < POLL_LIMIT; i++) {
        if (qtest_readl(a->qts, addr) == want) {
            return true;
        }
        qtest_clock_step(a->qts, 1000);
    }
    return false;
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

static void read_event(Axon *a, struct axon_event *ev)
{
    qtest_memread(a->qts, EQ_ADDR + a->eq_head * sizeof(*ev), ev, sizeof(*ev));
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

/* ---- Ethernet function ---------------------------------------------- */

#define ETH_MSI_ADDR (MSI_ADDR + 8)
#define DESC_SIZE sizeof(struct axon_eth_desc)
#define DESC_FLAGS offsetof(struct axon_eth_desc, flags)
#define DESC_LEN offsetof(struct axon_eth_desc, len)

static void program_eth(Axon *a, uint64_t tx, uint32_t txd, uint64_t rx,
                        uint32_t rxd, uint32_t mtu)
{
    wr(a, AXON_REG_ETH_TX_BASE_LO, (uint32_t)tx);
    wr(a, AXON_REG_ETH_TX_BASE_HI, tx >> 32);
    wr(a, AXON_REG_ETH_TX_DEPTH, txd);
    wr(a, AXON_REG_ETH_RX_BASE_LO, (uint32_t)rx);
    wr(a, AXON_REG_ETH_RX_BASE_HI, rx >> 32);
    wr(a, AXON_REG_ETH_RX_DEPTH, rxd);
    wr(a, AXON_REG_ETH_MTU, mtu);
}

/* Admin queues up, then the Ethernet rings; returns AXON_REG_ERROR. */
static uint32_t eth_enable(Axon *a, uint32_t txd, uint32_t rxd, uint32_t mtu)
{
    g_assert_cmpuint(axon_enable(a, 4, 4, 4), ==, AXON_DEV_ERR_NONE);
    qtest_memset(a->qts, ETX_ADDR, 0, 0x10000);
    qtest_memset(a->qts, ERX_ADDR, 0, 0x10000);
    program_eth(a, ETX_ADDR, txd, ERX_ADDR, rxd, mtu);
    wr(a, AXON_REG_ETH_CTRL, AXON_ETH_CTRL_ENABLE);
    a->tx_depth = txd;
    a->rx_depth = rxd;
    a->mtu = mtu;
    a->tx_tail = a->rx_tail = 0;
    return rd(a, AXON_REG_ERROR);
}

static uint64_t rx_buf(uint32_t idx)
{
    return RXBUF_ADDR + idx * BUF_STRIDE;
}

static void write_desc(Axon *a, uint64_t ring, uint32_t idx, uint64_t addr,
                       uint16_t len)
{
    struct axon_eth_desc d = {
        .addr = cpu_to_le64(addr),
        .buf_len = cpu_to_le16(len),
    };

    qtest_memwrite(a->qts, ring + idx * DESC_SIZE, &d, sizeof(d));
}

/* Posts one RX buffer of buf_len bytes at addr (0: the default one). */
static uint32_t post_rx_at(Axon *a, uint64_t addr, uint16_t buf_len)
{
    uint32_t idx = a->rx_tail;

    write_desc(a, ERX_ADDR, idx, addr ? addr : rx_buf(idx), buf_len);
    qtest_memset(a->qts, rx_buf(idx), 0, BUF_STRIDE);
    a->rx_tail = (a->rx_tail + 1) % a->rx_depth;
    wr(a, AXON_REG_ETH_RX_TAIL, a->rx_tail);
    return idx;
}

static void post_rx(Axon *a, unsigned n)
{
    while (n--) {
        post_rx_at(a, 0, BUF_STRIDE);
    }
}

/* Queues a TX descriptor (frame already in guest memory at addr). */
static uint32_t tx_desc(Axon *a, uint64_t addr, uint16_t len)
{
    uint32_t idx = a->tx_tail;

    write_desc(a, ETX_ADDR, idx, addr, len);
    a->tx_tail = (a->tx_tail + 1) % a->tx_depth;
    wr(a, AXON_REG_ETH_TX_TAIL, a->tx_tail);
    return idx;
}

static uint32_t tx_frame(Axon *a, const void *frame, uint16_t len)
{
    uint64_t addr = TXBUF_ADDR + a->tx_tail * BUF_STRIDE;

    qtest_memwrite(a->qts, addr, frame, len);
    return tx_desc(a, addr, len);
}

/* Waits until the device has written back the descriptor's flags. */
static uint16_t wait_desc(Axon *a, uint64_t ring, uint32_t idx)
{
    for (int i = 0; i < POLL_LIMIT; i++) {
        uint16_t flags = qtest_readw(a->qts, ring + idx * DESC_SIZE +
                                     DESC_FLAGS);
        if (flags) {
            return flags;
        }
        qtest_clock_step(a->qts, 1000);
    }
    return 0;
}

static bool wait_reg(Axon *a, uint32_t reg, uint32_t want)
{
    for (int i = 0; i < POLL_LIMIT; i++) {
        if (rd(a, reg) == want) {
            return true;
        }
        qtest_clock_step(a->qts, 1000);
    }
    return false;
}

static uint16_t rx_len(Axon *a, uint32_t idx)
{
    return qtest_readw(a->qts, ERX_ADDR + idx * DESC_SIZE + DESC_LEN);
}

/* Checks that RX buffer idx holds exactly this frame. */
static void check_rx(Axon *a, uint32_t idx, const uint8_t *frame, size_t len)
{
    g_autofree uint8_t *got = g_malloc(len + 1);

    g_assert_cmphex(wait_desc(a, ERX_ADDR, idx), ==, AXON_ETH_DESC_DONE);
    g_assert_cmpuint(rx_len(a, idx), ==, len);
    qtest_memread(a->qts, rx_buf(idx), got, len + 1);
    g_assert_cmpmem(got, len, frame, len);
    g_assert_cmpuint(got[len], ==, 0);
}

static void inject(Axon *a, const void *frame, size_t len)
{
    g_assert_cmpint(sendto(a->wire_fd, frame, len, 0,
                           (struct sockaddr *)&a->wire_addr,
                           sizeof(a->wire_addr)), ==, len);
}

/* An Ethernet frame of len bytes: header, then a pattern from seed. */
static uint8_t *make_frame(size_t len, uint16_t ethertype, uint8_t seed)
{
    static const uint8_t hdr[12] = {
        0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x52, 0x54, 0x00, 0xab, 0xcd, 0xef,
    };
    uint8_t *f = g_malloc0(MAX(len, 64));
    size_t i;

    memcpy(f, hdr, MIN(len, sizeof(hdr)));
    if (len >= 14) {
        stw_be_p(f + 12, ethertype);
    }
    for (i = 14; i < len; i++) {
        f[i] = seed + i * 7;
    }
    return f;
}

enum { L3_V4, L3_V6 };

/*
 * IPv4 or IPv6 / UDP to dport, optionally VLAN-tagged, with payload_len
 * bytes after the UDP header; returns the frame, its length in *len.
 */
static uint8_t *make_udp(int l3, bool vlan, uint16_t dport, uint16_t frag,
                         size_t payload_len, size_t *len)
{
    size_t l3off = 14 + (vlan ? 4 : 0);
    size_t l4off = l3off + (l3 == L3_V4 ? 20 : 40);
    uint8_t *f;

    *len = l4off + 8 + payload_len;
    f = make_frame(*len, vlan ? 0x8100 : l3 == L3_V4 ? 0x0800 : 0x86dd, 3);
    if (vlan) {
        stw_be_p(f + 14, 5);
        stw_be_p(f + 16, l3 == L3_V4 ? 0x0800 : 0x86dd);
    }
    if (l3 == L3_V4) {
        f[l3off] = 0x45;
        stw_be_p(f + l3off + 6, frag);
        f[l3off + 9] = 17;
    } else {
        f[l3off] = 0x60;
        f[l3off + 6] = 17;
    }
    stw_be_p(f + l4off, 49152);
    stw_be_p(f + l4off + 2, dport);
    stw_be_p(f + l4off + 4, 8 + payload_len);
    return f;
}

typedef struct BadEth {
    uint64_t tx, rx;
    uint32_t txd, rxd, mtu;
    uint32_t error;
} BadEth;

static void test_eth_config(void)
{
    static const BadEth cases[] = {
        { ETX_ADDR, ERX_ADDR, 0, 8, 1500, AXON_DEV_ERR_ETH_TX_CONFIG },
        { ETX_ADDR, ERX_ADDR, 1, 8, 1500, AXON_DEV_ERR_ETH_TX_CONFIG },
        { ETX_ADDR, ERX_ADDR, 12, 8, 1500, AXON_DEV_ERR_ETH_TX_CONFIG },
        { ETX_ADDR, ERX_ADDR, 8192, 8, 1500, AXON_DEV_ERR_ETH_TX_CONFIG },
        { 0, ERX_ADDR, 8, 8, 1500, AXON_DEV_ERR_ETH_TX_CONFIG },
        { ETX_ADDR + 16, ERX_ADDR, 8, 8, 1500, AXON_DEV_ERR_ETH_TX_CONFIG },
        { 0xfffffffffffff000ULL, ERX_ADDR, 4096, 8, 1500,
          AXON_DEV_ERR_ETH_TX_CONFIG },
        { ETX_ADDR, ERX_ADDR, 8, 0xffffffff, 1500,
          AXON_DEV_ERR_ETH_RX_CONFIG },
        { ETX_ADDR, 0, 8, 8, 1500, AXON_DEV_ERR_ETH_RX_CONFIG },
        { ETX_ADDR, ERX_ADDR + 0x800, 8, 8, 1500,
          AXON_DEV_ERR_ETH_RX_CONFIG },
        { ETX_ADDR, ERX_ADDR, 8, 8, 0, AXON_DEV_ERR_ETH_MTU },
        { ETX_ADDR, ERX_ADDR, 8, 8, AXON_ETH_MIN_MTU - 1,
          AXON_DEV_ERR_ETH_MTU },
        { ETX_ADDR, ERX_ADDR, 8, 8, AXON_ETH_MAX_MTU + 1,
          AXON_DEV_ERR_ETH_MTU },
    };
    Axon *a = axon_start(NULL);
    size_t i;

    g_assert_cmphex(rd(a, AXON_REG_CAPS) & AXON_CAP_ETHERNET, !=, 0);

    /* the Ethernet function needs a ready device */
    program_eth(a, ETX_ADDR, 8, ERX_ADDR, 8, 1500);
    wr(a, AXON_REG_ETH_CTRL, AXON_ETH_CTRL_ENABLE);
    g_assert_cmphex(rd(a, AXON_REG_ETH_CTRL), ==, 0);

    g_assert_cmpuint(axon_enable(a, 4, 4, 4), ==, AXON_DEV_ERR_NONE);
    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        const BadEth *c = &cases[i];

        g_test_message("bad Ethernet config case %zu", i);
        program_eth(a, c->tx, c->txd, c->rx, c->rxd, c->mtu);
        wr(a, AXON_REG_ETH_CTRL, AXON_ETH_CTRL_ENABLE);
        g_assert_cmpuint(rd(a, AXON_REG_ERROR), ==, c->error);
        g_assert_cmphex(rd(a, AXON_REG_ETH_CTRL), ==, 0);
        /* doorbells of a stopped function do nothing */
        wr(a, AXON_REG_ETH_TX_TAIL, 1);
        g_assert_cmpuint(rd(a, AXON_REG_ETH_TX_HEAD), ==, 0);
        g_assert_cmphex(rd(a, AXON_REG_STATUS), ==, AXON_STATUS_READY);
    }

    /* the limits themselves are good, and a good enable clears ERROR */
    program_eth(a, ETX_ADDR, AXON_QUEUE_MAX_DEPTH, ERX_ADDR,
                AXON_QUEUE_MIN_DEPTH, AXON_ETH_MAX_MTU);
    wr(a, AXON_REG_ETH_CTRL, AXON_ETH_CTRL_ENABLE);
    g_assert_cmpuint(rd(a, AXON_REG_ERROR), ==, AXON_DEV_ERR_NONE);
    g_assert_cmphex(rd(a, AXON_REG_ETH_CTRL), ==, AXON_ETH_CTRL_ENABLE);

    /* frozen while enabled */
    wr(a, AXON_REG_ETH_MTU, 1500);
    wr(a, AXON_REG_ETH_RX_DEPTH, 8);
    wr(a, AXON_REG_ETH_TX_BASE_LO, 0);
    g_assert_cmpuint(rd(a, AXON_REG_ETH_MTU), ==, AXON_ETH_MAX_MTU);
    g_assert_cmpuint(rd(a, AXON_REG_ETH_RX_DEPTH), ==, AXON_QUEUE_MIN_DEPTH);
    g_assert_cmphex(rd(a, AXON_REG_ETH_TX_BASE_LO), ==, (uint32_t)ETX_ADDR);

    /* doorbell out of range */
    wr(a, AXON_REG_ETH_RX_TAIL, AXON_QUEUE_MIN_DEPTH);
    g_assert_cmpuint(rd(a, AXON_REG_ERROR), ==, AXON_DEV_ERR_DOORBELL);
    g_assert_cmpuint(rd(a, AXON_REG_ETH_RX_HEAD), ==, 0);

    /* stopping the admin queues stops the Ethernet function too */
    wr(a, AXON_REG_CTRL, 0);
    g_assert_cmphex(rd(a, AXON_REG_ETH_CTRL), ==, 0);

    /* reset clears every Ethernet register */
    wr(a, AXON_REG_CTRL, AXON_CTRL_RESET);
    g_assert_cmpuint(rd(a, AXON_REG_ETH_MTU), ==, 0);
    g_assert_cmpuint(rd(a, AXON_REG_ETH_TX_DEPTH), ==, 0);
    g_assert_cmphex(rd(a, AXON_REG_ETH_RX_BASE_LO), ==, 0);
    g_assert_cmpuint(rd(a, AXON_REG_ERROR), ==, AXON_DEV_ERR_NONE);
    axon_stop(a);
}

/* Without netdev= frames are sent nowhere, but TX completes. */
static void test_eth_no_netdev(void)
{
    Axon *a = axon_start(NULL);
    g_autofree uint8_t *f = make_frame(60, 0x88b5, 1);
    uint32_t idx;

    g_assert_cmpuint(eth_enable(a, 8, 8, 1500), ==, AXON_DEV_ERR_NONE);
    idx = tx_frame(a, f, 60);
    g_assert_cmphex(wait_desc(a, ETX_ADDR, idx), ==, AXON_ETH_DESC_DONE);
    g_assert_cmpuint(rd(a, AXON_REG_ETH_TX_HEAD), ==, 1);
    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_PORT, RESP_ADDR, 4096, 1), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(qtest_readl(a->qts, RESP_ADDR), ==, AXON_PORT_ACTIVE);
    axon_stop(a);
}

static void test_eth_loopback(void)
{
    /* shortest frame, typical, full MTU, full MTU with a VLAN tag */
    static const uint16_t lens[] = { AXON_ETH_HLEN, 60, 1514, 1518 };
    Axon *a = axon_start_wire(NULL);
    uint8_t *frames[ARRAY_SIZE(lens)];
    g_autofree uint8_t *good = make_frame(100, 0x88b5, 9);
    uint32_t idx;
    size_t i;

    g_assert_cmpuint(eth_enable(a, 8, 16, 1500), ==, AXON_DEV_ERR_NONE);
    post_rx(a, 8);
    for (i = 0; i < ARRAY_SIZE(lens); i++) {
        frames[i] = make_frame(lens[i], i == 3 ? 0x8100 : 0x88b5, i);
        idx = tx_frame(a, frames[i], lens[i]);
        g_assert_cmphex(wait_desc(a, ETX_ADDR, idx), ==, AXON_ETH_DESC_DONE);
    }
    for (i = 0; i < ARRAY_SIZE(lens); i++) {
        check_rx(a, i, frames[i], lens[i]);
        g_free(frames[i]);
    }
    g_assert_cmpuint(rd(a, AXON_REG_ETH_TX_HEAD), ==, 4);
    g_assert_cmpuint(rd(a, AXON_REG_ETH_RX_HEAD), ==, 4);

    /* bad descriptors: DONE|ERROR, counted, nothing sent */
    idx = tx_desc(a, TXBUF_ADDR, AXON_ETH_HLEN - 1);
    g_assert_cmphex(wait_desc(a, ETX_ADDR, idx), ==,
                    AXON_ETH_DESC_DONE | AXON_ETH_DESC_ERROR);
    idx = tx_desc(a, TXBUF_ADDR, 1500 + AXON_ETH_OVERHEAD + 1);
    g_assert_cmphex(wait_desc(a, ETX_ADDR, idx), ==,
                    AXON_ETH_DESC_DONE | AXON_ETH_DESC_ERROR);
    idx = tx_desc(a, UNMAPPED_ADDR, 60);
    g_assert_cmphex(wait_desc(a, ETX_ADDR, idx), ==,
                    AXON_ETH_DESC_DONE | AXON_ETH_DESC_ERROR);
    idx = tx_desc(a, TXBUF_ADDR, 0xffff);
    g_assert_cmphex(wait_desc(a, ETX_ADDR, idx), ==,
                    AXON_ETH_DESC_DONE | AXON_ETH_DESC_ERROR);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_TX_ERRORS), ==, 4);

    /* the TX ring wraps (8 entries) and the next frame is the next RX */
    idx = tx_frame(a, good, 100);
    g_assert_cmpuint(idx, ==, 0);
    g_assert_cmphex(wait_desc(a, ETX_ADDR, idx), ==, AXON_ETH_DESC_DONE);
    check_rx(a, 4, good, 100);
    g_assert_cmphex(rd(a, AXON_REG_STATUS), ==, AXON_STATUS_READY);
    axon_stop(a);
}

static void test_eth_rx_errors(void)
{
    Axon *a = axon_start_wire(NULL);
    g_autofree uint8_t *big = make_frame(65000, 0x88b5, 2);
    g_autofree uint8_t *good = make_frame(200, 0x88b5, 4);
    uint32_t idx;

    g_assert_cmpuint(eth_enable(a, 8, 8, 1500), ==, AXON_DEV_ERR_NONE);

    /* runts and oversize frames are dropped before using a buffer */
    post_rx(a, 1);
    inject(a, big, 1);
    inject(a, big, AXON_ETH_HLEN - 1);
    inject(a, big, 1500 + AXON_ETH_OVERHEAD + 1);
    inject(a, big, 65000);
    inject(a, good, 200);
    check_rx(a, 0, good, 200);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_RX_RUNT), ==, 2);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_RX_OVERSIZE), ==, 2);

    /* a frame larger than the posted buffer: dropped, buffer kept */
    idx = post_rx_at(a, 0, 100);
    inject(a, good, 200);
    inject(a, good, 100);
    check_rx(a, idx, good, 100);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_RX_OVERSIZE), ==, 3);

    /* an unwritable buffer: DONE|ERROR with length 0, counted */
    idx = post_rx_at(a, UNMAPPED_ADDR, 2048);
    inject(a, good, 200);
    g_assert_cmphex(wait_desc(a, ERX_ADDR, idx), ==,
                    AXON_ETH_DESC_DONE | AXON_ETH_DESC_ERROR);
    g_assert_cmpuint(rx_len(a, idx), ==, 0);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_RX_DMA_ERRORS), ==, 1);

    /* and the device keeps receiving */
    idx = post_rx_at(a, 0, 2048);
    inject(a, good, 200);
    check_rx(a, idx, good, 200);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_RX_NOBUF), ==, 0);
    g_assert_cmphex(rd(a, AXON_REG_STATUS), ==, AXON_STATUS_READY);
    axon_stop(a);
}

static void test_eth_rx_nobuf(void)
{
    Axon *a = axon_start_wire(NULL);
    uint8_t *f[3];
    int i;

    for (i = 0; i < 3; i++) {
        f[i] = make_frame(64 + i, 0x88b5, 10 * i);
    }

    /* stopped function: frames are taken off the wire and counted */
    g_assert_cmpuint(axon_enable(a, 4, 4, 4), ==, AXON_DEV_ERR_NONE);
    inject(a, f[0], 64);
    inject(a, f[1], 65);
    g_assert_true(wait_reg(a, AXON_REG_STAT_RX_NOBUF, 2));

    /* running without buffers: frames wait until buffers are posted */
    g_assert_cmpuint(eth_enable(a, 8, 8, 1500), ==, AXON_DEV_ERR_NONE);
    for (i = 0; i < 3; i++) {
        inject(a, f[i], 64 + i);
    }
    for (i = 0; i < 100; i++) {
        qtest_clock_step(a->qts, 1000);
    }
    g_assert_cmpuint(rd(a, AXON_REG_ETH_RX_HEAD), ==, 0);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_RX_NOBUF), ==, 0);
    post_rx(a, 1);
    check_rx(a, 0, f[0], 64);
    post_rx(a, 4);
    check_rx(a, 1, f[1], 65);
    check_rx(a, 2, f[2], 66);
    g_assert_true(wait_reg(a, AXON_REG_ETH_RX_HEAD, 3));
    for (i = 0; i < 3; i++) {
        g_free(f[i]);
    }
    axon_stop(a);
}

static void test_eth_roce_steering(void)
{
    Axon *a = axon_start_wire(NULL);
    struct {
        int l3;
        bool vlan;
        uint16_t dport, frag;
        size_t payload;
        bool roce;
    } cases[] = {
        { L3_V4, false, AXON_ROCEV2_UDP_PORT, 0, 28, true },
        { L3_V6, false, AXON_ROCEV2_UDP_PORT, 0, 28, true },
        { L3_V4, true, AXON_ROCEV2_UDP_PORT, 0x4000, 28, true },
        { L3_V6, true, AXON_ROCEV2_UDP_PORT, 0, 28, true },
        /* truncated BTH: still for the engine, which checks it */
        { L3_V4, false, AXON_ROCEV2_UDP_PORT, 0, 3, true },
        /* not RoCEv2: the driver gets them */
        { L3_V4, false, AXON_ROCEV2_UDP_PORT - 1, 0, 28, false },
        { L3_V6, true, 53, 0, 28, false },
        { L3_V4, false, AXON_ROCEV2_UDP_PORT, 0x2000, 28, false },
        { L3_V4, false, AXON_ROCEV2_UDP_PORT, 0x0010, 28, false },
    };
    uint32_t delivered = 0, roce = 0;
    size_t i, len;

    g_assert_cmpuint(eth_enable(a, 8, 16, 1500), ==, AXON_DEV_ERR_NONE);
    post_rx(a, 15);
    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        g_autofree uint8_t *f = make_udp(cases[i].l3, cases[i].vlan,
                                         cases[i].dport, cases[i].frag,
                                         cases[i].payload, &len);

        g_test_message("steering case %zu", i);
        inject(a, f, len);
        if (cases[i].roce) {
            g_assert_true(wait_reg(a, AXON_REG_STAT_RX_ROCE, ++roce));
        } else {
            check_rx(a, delivered++, f, len);
        }
    }

    /* truncated headers are not RoCEv2 and never read out of bounds */
    for (i = 0; i < 3; i++) {
        static const size_t cut[] = { 14 + 10, 14 + 20 + 4, 14 + 30 };
        g_autofree uint8_t *f = make_udp(i == 2 ? L3_V6 : L3_V4, false,
                                         AXON_ROCEV2_UDP_PORT, 0, 28, &len);

        g_test_message("truncated case %zu", i);
        inject(a, f, cut[i]);
        check_rx(a, delivered++, f, cut[i]);
    }
    {
        /* an IPv4 header length pointing past the frame */
        g_autofree uint8_t *f = make_udp(L3_V4, false, AXON_ROCEV2_UDP_PORT,
                                         0, 0, &len);

        f[14] = 0x4f;
        inject(a, f, len);
        check_rx(a, delivered++, f, len);
    }
    g_assert_cmpuint(rd(a, AXON_REG_STAT_RX_ROCE), ==, roce);
    g_assert_cmpuint(rd(a, AXON_REG_ETH_RX_HEAD), ==, delivered);
    axon_stop(a);
}

static void test_eth_irq(void)
{
    Axon *a = axon_start_wire(NULL);
    g_autofree uint8_t *f = make_frame(80, 0x88b5, 5);
    uint32_t idx;

    g_assert_cmpuint(eth_enable(a, 8, 8, 1500), ==, AXON_DEV_ERR_NONE);
    setup_msix(a, AXON_MSIX_ETH, ETH_MSI_ADDR, 0xe7);
    qtest_writel(a->qts, ETH_MSI_ADDR, 0);

    /* not armed: completions raise nothing */
    idx = post_rx_at(a, 0, 2048);
    tx_frame(a, f, 80);
    check_rx(a, idx, f, 80);
    g_assert_cmphex(qtest_readl(a->qts, ETH_MSI_ADDR), ==, 0);

    /* armed: the next completion (TX) raises it once, then disarmed */
    wr(a, AXON_REG_ETH_IRQ_ARM, 1);
    idx = post_rx_at(a, 0, 2048);
    g_assert_cmphex(qtest_readl(a->qts, ETH_MSI_ADDR), ==, 0);
    g_assert_cmphex(wait_desc(a, ETX_ADDR, tx_frame(a, f, 80)), ==,
                    AXON_ETH_DESC_DONE);
    g_assert_cmphex(qtest_readl(a->qts, ETH_MSI_ADDR), ==, 0xe7);
    qtest_writel(a->qts, ETH_MSI_ADDR, 0);
    check_rx(a, idx, f, 80);
    g_assert_cmphex(qtest_readl(a->qts, ETH_MSI_ADDR), ==, 0);

    /* armed again: an RX completion raises it */
    wr(a, AXON_REG_ETH_IRQ_ARM, 1);
    idx = post_rx_at(a, 0, 2048);
    inject(a, f, 80);
    check_rx(a, idx, f, 80);
    g_assert_cmphex(qtest_readl(a->qts, ETH_MSI_ADDR), ==, 0xe7);

    /* 0 disarms; other values are ignored */
    qtest_writel(a->qts, ETH_MSI_ADDR, 0);
    wr(a, AXON_REG_ETH_IRQ_ARM, 1);
    wr(a, AXON_REG_ETH_IRQ_ARM, 0);
    wr(a, AXON_REG_ETH_IRQ_ARM, 2);
    idx = post_rx_at(a, 0, 2048);
    inject(a, f, 80);
    check_rx(a, idx, f, 80);
    g_assert_cmphex(qtest_readl(a->qts, ETH_MSI_ADDR), ==, 0);
    axon_stop(a);
}

static void set_link(Axon *a, const char *name, bool up)
{
    QDict *rsp = qtest_qmp(a->qts, "{'execute': 'set_link', 'arguments': "
                           "{'name': %s, 'up': %i}}", name, up);

    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
}

static uint32_t port_state(Axon *a)
{
    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_PORT, RESP_ADDR, 4096, 1), ==,
                     AXON_ADMIN_SUCCESS);
    return qtest_readl(a->qts, RESP_ADDR);
}

static void test_eth_link(void)
{
    Axon *a = axon_start_wire(",id=nic0");
    g_autofree uint8_t *f = make_frame(70, 0x88b5, 6);
    g_autofree uint8_t *g = make_frame(90, 0x88b5, 7);
    struct axon_event ev;
    uint32_t idx;

    g_assert_cmpuint(eth_enable(a, 8, 8, 1500), ==, AXON_DEV_ERR_NONE);
    setup_msix(a, AXON_MSIX_ASYNC, MSI_ADDR + 4, 0xe1);
    g_assert_cmpuint(port_state(a), ==, AXON_PORT_ACTIVE);

    /* set_link on the device */
    set_link(a, "nic0", false);
    g_assert_true(wait_word(a, MSI_ADDR + 4, 0xe1));
    read_event(a, &ev);
    g_assert_cmpuint(le16_to_cpu(ev.type), ==, AXON_EVENT_PORT_DOWN);
    g_assert_cmpuint(le32_to_cpu(ev.param), ==, 1);
    g_assert_cmpuint(port_state(a), ==, AXON_PORT_DOWN);
    /* no change, no event */
    set_link(a, "nic0", false);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_EVENTS), ==, 1);

    /* link down: TX completes but nothing reaches the wire or RX */
    idx = post_rx_at(a, 0, 2048);
    g_assert_cmphex(wait_desc(a, ETX_ADDR, tx_frame(a, f, 70)), ==,
                    AXON_ETH_DESC_DONE);
    inject(a, f, 70);

    /* set_link on the netdev takes the device's link with it */
    set_link(a, "n0", true);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_EVENTS), ==, 2);
    a->eq_head = 1;
    read_event(a, &ev);
    g_assert_cmpuint(le16_to_cpu(ev.type), ==, AXON_EVENT_PORT_ACTIVE);
    wr(a, AXON_REG_EQ_HEAD, 2);
    g_assert_cmpuint(port_state(a), ==, AXON_PORT_ACTIVE);
    inject(a, g, 90);
    check_rx(a, idx, g, 90);

    /* the QOM property link-up is an alias */
    qobject_unref(qtest_qmp(a->qts, "{'execute': 'qom-set', 'arguments': "
                            "{'path': 'nic0', 'property': 'link-up', "
                            "'value': false}}"));
    g_assert_cmpuint(port_state(a), ==, AXON_PORT_DOWN);
    set_link(a, "nic0", true);
    g_assert_cmpuint(port_state(a), ==, AXON_PORT_ACTIVE);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_EVENTS), ==, 4);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_EQ_DROPS), ==, 0);
    axon_stop(a);
}

static uint16_t set_gid(Axon *a, uint32_t port, uint32_t index, uint32_t type,
                        uint32_t rsvd0, uint8_t rsvd)
{
    struct axon_admin_cmd cmd = {};
    static const uint8_t gid[16] = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1,
    };

    cmd.opcode = cpu_to_le16(AXON_ADMIN_SET_GID);
    cmd.gid.port = cpu_to_le32(port);
    cmd.gid.index = cpu_to_le32(index);
    cmd.gid.type = cpu_to_le32(type);
    cmd.gid.reserved0 = cpu_to_le32(rsvd0);
    memcpy(cmd.gid.gid, gid, sizeof(gid));
    cmd.gid.reserved[23] = rsvd;
    return run_cmd(a, &cmd, NULL);
}

static void test_set_gid(void)
{
    Axon *a = axon_start(NULL);

    g_assert_cmpuint(axon_enable(a, 8, 8, 8), ==, AXON_DEV_ERR_NONE);
    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_PORT, RESP_ADDR, 4096, 1), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(qtest_readl(a->qts, RESP_ADDR +
                                 offsetof(struct axon_port_attr,
                                          gid_tbl_len)), ==, 16);

    g_assert_cmpuint(set_gid(a, 1, 0, AXON_GID_TYPE_ROCE_V2, 0, 0), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(set_gid(a, 1, 15, AXON_GID_TYPE_ROCE_V1, 0, 0), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(set_gid(a, 1, 0, AXON_GID_TYPE_NONE, 0, 0), ==,
                     AXON_ADMIN_SUCCESS);

    g_assert_cmpuint(set_gid(a, 0, 0, AXON_GID_TYPE_ROCE_V2, 0, 0), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(set_gid(a, 2, 0, AXON_GID_TYPE_ROCE_V2, 0, 0), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(set_gid(a, 1, 16, AXON_GID_TYPE_ROCE_V2, 0, 0), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(set_gid(a, 1, 0xffffffff, AXON_GID_TYPE_ROCE_V2, 0, 0),
                     ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(set_gid(a, 1, 0, AXON_GID_TYPE_ROCE_V2 + 1, 0, 0), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(set_gid(a, 1, 0, AXON_GID_TYPE_ROCE_V2, 1, 0), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(set_gid(a, 1, 0, AXON_GID_TYPE_ROCE_V2, 0, 1), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_AQ_ERRORS), ==, 7);
    axon_stop(a);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

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
    qtest_add_func("/axon-nic/eth-config", test_eth_config);
    qtest_add_func("/axon-nic/eth-no-netdev", test_eth_no_netdev);
    qtest_add_func("/axon-nic/eth-loopback", test_eth_loopback);
    qtest_add_func("/axon-nic/eth-rx-errors", test_eth_rx_errors);
    qtest_add_func("/axon-nic/eth-rx-nobuf", test_eth_rx_nobuf);
    qtest_add_func("/axon-nic/eth-roce-steering", test_eth_roce_steering);
    qtest_add_func("/axon-nic/eth-irq", test_eth_irq);
    qtest_add_func("/axon-nic/eth-link", test_eth_link);
    qtest_add_func("/axon-nic/set-gid", test_set_gid);

    return g_test_run();
}
