/*
 * qtest for the axon-nic device model: registers, reset and enable
 * handshake, admin queue, async events, MSI-X, the Ethernet function, the
 * RDMA engine (with MRs on an axon-gpu's memory: peer to peer) and the
 * bad-input cases, driven through the device's BARs with no guest OS.
 * The axon-gpu model is tested here too.
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
#include "axon/axon_gpu_dev.h"

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

/* ---- RDMA ------------------------------------------------------------- */

#define R_BASE 0x2000000ULL
#define PBL_ADDR (R_BASE + 0x000000)    /* page lists, 64 KiB each */
#define CEQ_ADDR (R_BASE + 0x100000)
#define ATTR_ADDR (R_BASE + 0x110000)
#define RCQ_ADDR(i) (R_BASE + 0x120000 + (i) * 0x10000)
#define RSQ_ADDR(i) (R_BASE + 0x200000 + (i) * 0x40000)
#define RRQ_ADDR(i) (R_BASE + 0x220000 + (i) * 0x40000)
#define MEM_ADDR(i) (R_BASE + 0x400000 + (i) * 0x200000)
#define MEM_PAGES 256                   /* 1 MiB per region */
#define R_CQ_DEPTH 64
#define R_WQ_DEPTH 64
#define R_WQE_SHIFT 9
#define R_UAR 3
#define R_MTU 1024
#define T_MAC "52:54:00:12:34:56"

/* A region of 4 KiB pages in an MR whose page list is shuffled. */
typedef struct TMr {
    uint64_t iova;
    uint32_t key;
    uint64_t pages[MEM_PAGES];
} TMr;

typedef struct TCq {
    uint32_t cqn;
    uint64_t ring;
    uint32_t cons;
} TCq;

typedef struct TQp {
    uint32_t qpn;
    uint64_t sq, rq;
    uint16_t sq_pi, rq_pi;
    TCq *scq, *rcq;
} TQp;

typedef struct Rdma {
    Axon *a;
    bool v6;                    /* IPv6 GIDs (else IPv4-mapped) */
    QPCIBar db;
    uint32_t pdn;
    TMr mr[2];
    TCq cq[2];
    TQp qp[2];
} Rdma;

static uint16_t cmd_result(Axon *a, struct axon_admin_cmd *cmd, uint16_t op,
                           uint64_t *result)
{
    cmd->opcode = cpu_to_le16(op);
    return run_cmd(a, cmd, result);
}

static uint16_t create_pd(Axon *a, uint64_t *pdn)
{
    struct axon_admin_cmd cmd = {};

    return cmd_result(a, &cmd, AXON_ADMIN_CREATE_PD, pdn);
}

static uint16_t create_mr(Axon *a, uint32_t pdn, uint32_t access,
                          uint64_t iova, uint64_t length, uint32_t npages,
                          uint8_t shift, uint8_t levels, uint64_t *key)
{
    struct axon_admin_cmd cmd = {};

    cmd.mr.pdn = cpu_to_le32(pdn);
    cmd.mr.access = cpu_to_le32(access);
    cmd.mr.iova = cpu_to_le64(iova);
    cmd.mr.length = cpu_to_le64(length);
    cmd.mr.pbl_addr = cpu_to_le64(PBL_ADDR);
    cmd.mr.npages = cpu_to_le32(npages);
    cmd.mr.page_shift = shift;
    cmd.mr.levels = levels;
    return cmd_result(a, &cmd, AXON_ADMIN_CREATE_MR, key);
}

static uint16_t destroy_mr(Axon *a, uint32_t key)
{
    struct axon_admin_cmd cmd = {};

    cmd.mr.key = cpu_to_le32(key);
    return cmd_result(a, &cmd, AXON_ADMIN_DESTROY_MR, NULL);
}

static uint16_t create_cq(Axon *a, uint64_t ring, uint32_t depth, uint32_t uar,
                          uint64_t *cqn)
{
    struct axon_admin_cmd cmd = {};

    cmd.cq.ring_addr = cpu_to_le64(ring);
    cmd.cq.depth = cpu_to_le32(depth);
    cmd.cq.uar = cpu_to_le32(uar);
    return cmd_result(a, &cmd, AXON_ADMIN_CREATE_CQ, cqn);
}

static uint16_t destroy_cq(Axon *a, uint32_t cqn)
{
    struct axon_admin_cmd cmd = {};

    cmd.cq.cqn = cpu_to_le32(cqn);
    return cmd_result(a, &cmd, AXON_ADMIN_DESTROY_CQ, NULL);
}

static uint16_t create_qp(Axon *a, uint32_t pdn, uint32_t scqn, uint32_t rcqn,
                          uint64_t sq, uint64_t rq, uint16_t depth,
                          uint8_t sig_all, uint64_t *qpn)
{
    struct axon_admin_cmd cmd = {};

    cmd.create_qp.pdn = cpu_to_le32(pdn);
    cmd.create_qp.send_cqn = cpu_to_le32(scqn);
    cmd.create_qp.recv_cqn = cpu_to_le32(rcqn);
    cmd.create_qp.uar = cpu_to_le32(R_UAR);
    cmd.create_qp.sq_addr = cpu_to_le64(sq);
    cmd.create_qp.rq_addr = cpu_to_le64(rq);
    cmd.create_qp.sq_depth = cpu_to_le16(depth);
    cmd.create_qp.rq_depth = cpu_to_le16(depth);
    cmd.create_qp.sq_wqe_shift = R_WQE_SHIFT;
    cmd.create_qp.rq_wqe_shift = R_WQE_SHIFT;
    cmd.create_qp.sq_sig_all = sig_all;
    return cmd_result(a, &cmd, AXON_ADMIN_CREATE_QP, qpn);
}

static uint16_t qp_cmd(Axon *a, uint16_t op, uint32_t qpn, uint32_t mask,
                       uint64_t addr)
{
    struct axon_admin_cmd cmd = {};

    cmd.qp.qpn = cpu_to_le32(qpn);
    cmd.qp.attr_mask = cpu_to_le32(mask);
    cmd.qp.attr_addr = cpu_to_le64(addr);
    return cmd_result(a, &cmd, op, NULL);
}

static uint16_t modify_qp(Axon *a, uint32_t qpn, uint32_t mask,
                          const struct axon_qp_attr *attr)
{
    qtest_memwrite(a->qts, ATTR_ADDR, attr, sizeof(*attr));
    return qp_cmd(a, AXON_ADMIN_MODIFY_QP, qpn, mask, ATTR_ADDR);
}

static uint32_t qp_state(Axon *a, uint32_t qpn)
{
    g_assert_cmpuint(qp_cmd(a, AXON_ADMIN_QUERY_QP, qpn, 0, ATTR_ADDR), ==,
                     AXON_ADMIN_SUCCESS);
    return qtest_readl(a->qts, ATTR_ADDR);
}

static void rdma_enable(Axon *a)
{
    wr(a, AXON_REG_CTRL, AXON_CTRL_RESET);
    qtest_memset(a->qts, SQ_ADDR, 0, 0x10000);
    qtest_memset(a->qts, CQ_ADDR, 0, 0x10000);
    qtest_memset(a->qts, EQ_ADDR, 0, 0x10000);
    qtest_memset(a->qts, CEQ_ADDR, 0, 0x10000);
    program_queues(a, SQ_ADDR, 16, CQ_ADDR, 16, EQ_ADDR, 16);
    wr(a, AXON_REG_CEQ_BASE_LO, (uint32_t)CEQ_ADDR);
    wr(a, AXON_REG_CEQ_BASE_HI, CEQ_ADDR >> 32);
    wr(a, AXON_REG_CEQ_DEPTH, 64);
    wr(a, AXON_REG_CTRL, AXON_CTRL_ENABLE);
    g_assert_cmpuint(rd(a, AXON_REG_ERROR), ==, AXON_DEV_ERR_NONE);
    a->sq_depth = a->cq_depth = a->eq_depth = 16;
    a->sq_tail = a->cq_head = a->eq_head = 0;
    a->cq_phase = a->eq_phase = true;
}

/* Region i: MEM_PAGES pages, listed in a shuffled order behind iova. */
static void make_mr(Rdma *r, int i, uint32_t access)
{
    Axon *a = r->a;
    TMr *m = &r->mr[i];
    uint64_t pbl[MEM_PAGES], key;
    int p;

    m->iova = 0x7f0000000000ULL + i * 0x10000000ULL + 0x123;
    for (p = 0; p < MEM_PAGES; p++) {
        /* pairs of pages swapped: runs of one and two pages */
        int phys = (p % 4 == 1) ? p + 1 : (p % 4 == 2) ? p - 1 : p;

        m->pages[p] = MEM_ADDR(i) + phys * 4096ULL;
        pbl[p] = cpu_to_le64(m->pages[p]);
    }
    qtest_memwrite(a->qts, PBL_ADDR, pbl, sizeof(pbl));
    g_assert_cmpuint(create_mr(a, r->pdn, access, m->iova,
                               MEM_PAGES * 4096ULL - 0x123 - 5, MEM_PAGES,
                               12, 1, &key), ==, AXON_ADMIN_SUCCESS);
    m->key = key;
}

/* Reads or writes an MR's memory as the device sees it (through iova). */
static void mr_access(Rdma *r, int i, uint64_t va, void *buf, size_t len,
                      bool write)
{
    TMr *m = &r->mr[i];
    uint8_t *p = buf;

    while (len) {
        uint64_t off = va - (m->iova & ~4095ULL);
        uint64_t n = MIN(len, 4096 - (off & 4095));
        uint64_t pa = m->pages[off / 4096] + (off & 4095);

        if (write) {
            qtest_memwrite(r->a->qts, pa, p, n);
        } else {
            qtest_memread(r->a->qts, pa, p, n);
        }
        p += n;
        va += n;
        len -= n;
    }
}

static const uint8_t gid_v6[16] = {
    0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0, 0xff, 0xfe, 0x12, 0x34, 0x56,
};

static void connect_qp(Rdma *r, TQp *qp, uint32_t dest, uint32_t sq_psn,
                       uint32_t rq_psn, uint8_t rnr_retry)
{
    Axon *a = r->a;
    struct axon_qp_attr at = {};

    at.state = cpu_to_le32(AXON_QPS_INIT);
    at.access = cpu_to_le32(AXON_ACCESS_REMOTE_WRITE |
                            AXON_ACCESS_REMOTE_READ |
                            AXON_ACCESS_REMOTE_ATOMIC);
    g_assert_cmpuint(modify_qp(a, qp->qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_ACCESS, &at), ==,
                     AXON_ADMIN_SUCCESS);
    at.state = cpu_to_le32(AXON_QPS_RTR);
    at.dest_qpn = cpu_to_le32(dest);
    at.rq_psn = cpu_to_le32(rq_psn);
    at.path_mtu = cpu_to_le32(R_MTU);
    memcpy(at.dmac, "\x52\x54\x00\x12\x34\x56", 6);
    if (r->v6) {
        memcpy(at.dgid, gid_v6, 16);
        at.sgid_index = 1;
        at.flow_label = cpu_to_le32(0x12345);
        at.tclass = 0x20;
    } else {
        at.dgid[10] = at.dgid[11] = 0xff;
        at.dgid[12] = 10;
        at.dgid[15] = 1;
    }
    at.hop_limit = 64;
    at.max_dest_rd_atomic = 16;
    at.min_rnr_timer = 1;
    g_assert_cmpuint(modify_qp(a, qp->qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_PATH | AXON_QP_ATTR_PATH_MTU |
                               AXON_QP_ATTR_DEST_QPN | AXON_QP_ATTR_RQ_PSN |
                               AXON_QP_ATTR_MAX_DEST_RD_ATOMIC |
                               AXON_QP_ATTR_MIN_RNR_TIMER, &at), ==,
                     AXON_ADMIN_SUCCESS);
    at.state = cpu_to_le32(AXON_QPS_RTS);
    at.sq_psn = cpu_to_le32(sq_psn);
    at.timeout = 14;
    at.retry_cnt = 7;
    at.rnr_retry = rnr_retry;
    at.max_rd_atomic = 16;
    g_assert_cmpuint(modify_qp(a, qp->qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_SQ_PSN | AXON_QP_ATTR_TIMEOUT |
                               AXON_QP_ATTR_RETRY_CNT |
                               AXON_QP_ATTR_RNR_RETRY |
                               AXON_QP_ATTR_MAX_RD_ATOMIC, &at), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(qp_state(a, qp->qpn), ==, AXON_QPS_RTS);
}

/*
 * Two QPs of this device connected to each other: in loopback, or, with
 * wire_args, through RoCEv2 frames on a socket netdev that sends to itself.
 * dev_args (loopback only) adds to the command line after the device.
 */
static Rdma *rdma_setup_on(const char *wire_args, uint8_t rnr_retry,
                           bool v6, const char *dev_args)
{
    Rdma *r = g_new0(Rdma, 1);
    Axon *a;
    uint64_t v;
    int i;

    g_assert(!wire_args || !dev_args);
    if (wire_args) {
        g_autofree char *args = g_strdup_printf(",mac=" T_MAC
                                                ",x-wire-loopback=on%s",
                                                wire_args);

        a = axon_start_wire(args);
    } else {
        g_autofree char *args = g_strdup_printf(",mac=" T_MAC "%s",
                                                dev_args ? dev_args : "");

        a = axon_start(args);
    }
    r->a = a;
    r->v6 = v6;
    rdma_enable(a);
    if (wire_args) {
        /* frames reach the RoCE engine while the Ethernet function runs */
        qtest_memset(a->qts, ETX_ADDR, 0, 0x10000);
        qtest_memset(a->qts, ERX_ADDR, 0, 0x10000);
        program_eth(a, ETX_ADDR, 64, ERX_ADDR, 64, 9000);
        wr(a, AXON_REG_ETH_CTRL, AXON_ETH_CTRL_ENABLE);
        a->tx_depth = a->rx_depth = 64;
        a->mtu = 9000;
        a->tx_tail = a->rx_tail = 0;
        post_rx(a, 8);
    }
    r->db = qpci_iomap(a->dev, AXON_BAR_DB, NULL);
    g_assert_cmpuint(set_gid(a, 1, 0, AXON_GID_TYPE_ROCE_V2, 0, 0), ==,
                     AXON_ADMIN_SUCCESS);
    if (v6) {
        struct axon_admin_cmd cmd = {};

        cmd.gid.port = cpu_to_le32(1);
        cmd.gid.index = cpu_to_le32(1);
        cmd.gid.type = cpu_to_le32(AXON_GID_TYPE_ROCE_V2);
        memcpy(cmd.gid.gid, gid_v6, 16);
        g_assert_cmpuint(cmd_result(a, &cmd, AXON_ADMIN_SET_GID, NULL), ==,
                         AXON_ADMIN_SUCCESS);
    }
    g_assert_cmpuint(create_pd(a, &v), ==, AXON_ADMIN_SUCCESS);
    r->pdn = v;
    for (i = 0; i < 2; i++) {
        make_mr(r, i, AXON_ACCESS_ALL);
        qtest_memset(a->qts, RCQ_ADDR(i), 0, 0x10000);
        r->cq[i].ring = RCQ_ADDR(i);
        g_assert_cmpuint(create_cq(a, RCQ_ADDR(i), R_CQ_DEPTH, R_UAR, &v), ==,
                         AXON_ADMIN_SUCCESS);
        r->cq[i].cqn = v;
    }
    for (i = 0; i < 2; i++) {
        TQp *qp = &r->qp[i];

        qp->sq = RSQ_ADDR(i);
        qp->rq = RRQ_ADDR(i);
        qp->scq = qp->rcq = &r->cq[i];
        g_assert_cmpuint(create_qp(a, r->pdn, qp->scq->cqn, qp->rcq->cqn,
                                   qp->sq, qp->rq, R_WQ_DEPTH, 0, &v), ==,
                         AXON_ADMIN_SUCCESS);
        g_assert_cmpuint(v, >=, 2);
        qp->qpn = v;
    }
    /* QP 0 sends across the PSN wrap */
    connect_qp(r, &r->qp[0], r->qp[1].qpn, 0xfffff0, 0x000100, rnr_retry);
    connect_qp(r, &r->qp[1], r->qp[0].qpn, 0x000100, 0xfffff0, rnr_retry);
    return r;
}

static Rdma *rdma_setup(uint8_t rnr_retry)
{
    return rdma_setup_on(NULL, rnr_retry, false, NULL);
}

static void rdma_stop(Rdma *r)
{
    axon_stop(r->a);
    g_free(r);
}

static void ring(Rdma *r, uint32_t page, uint32_t reg, uint32_t id,
                 uint32_t val)
{
    qpci_io_writel(r->a->dev, r->db, page * AXON_DB_PAGE_SIZE + reg,
                   id << AXON_DB_ID_SHIFT | val);
}

static struct axon_sge sge(Rdma *r, int mr, uint64_t off, uint32_t len)
{
    struct axon_sge s = {
        .addr = cpu_to_le64(r->mr[mr].iova + off),
        .length = cpu_to_le32(len),
        .lkey = cpu_to_le32(r->mr[mr].key),
    };
    return s;
}

static void post_send(Rdma *r, TQp *qp, struct axon_send_wqe *w,
                      const struct axon_sge *sg, const void *inl)
{
    uint64_t addr = qp->sq + (qp->sq_pi % R_WQ_DEPTH) * (1u << R_WQE_SHIFT);

    qtest_memwrite(r->a->qts, addr, w, sizeof(*w));
    if (inl) {
        qtest_memwrite(r->a->qts, addr + sizeof(*w), inl,
                       le32_to_cpu(w->inline_len));
    } else if (w->num_sge) {
        qtest_memwrite(r->a->qts, addr + sizeof(*w), sg,
                       MIN(w->num_sge, 28) * sizeof(*sg));
    }
    qp->sq_pi++;
    ring(r, R_UAR, AXON_DB_SQ, qp->qpn, qp->sq_pi);
}

static void post_recv(Rdma *r, TQp *qp, uint64_t wr_id,
                      const struct axon_sge *sg, int n)
{
    uint64_t addr = qp->rq + (qp->rq_pi % R_WQ_DEPTH) * (1u << R_WQE_SHIFT);
    struct axon_recv_wqe w = { .wr_id = cpu_to_le64(wr_id), .num_sge = n };

    qtest_memwrite(r->a->qts, addr, &w, sizeof(w));
    if (n) {
        qtest_memwrite(r->a->qts, addr + sizeof(w), sg, n * sizeof(*sg));
    }
    qp->rq_pi++;
    ring(r, R_UAR, AXON_DB_RQ, qp->qpn, qp->rq_pi);
}

static bool poll_cq(Rdma *r, TCq *cq, struct axon_cqe *cqe)
{
    uint64_t addr = cq->ring + (cq->cons % R_CQ_DEPTH) * AXON_CQE_SIZE;
    bool phase = !((cq->cons / R_CQ_DEPTH) & 1);

    for (int i = 0; i < POLL_LIMIT / 10; i++) {
        qtest_memread(r->a->qts, addr, cqe, sizeof(*cqe));
        if (!!(cqe->flags & AXON_CQE_PHASE) == phase) {
            cq->cons++;
            qtest_writel(r->a->qts, cq->ring + R_CQ_DEPTH * AXON_CQE_SIZE,
                         cq->cons);
            return true;
        }
        qtest_clock_step(r->a->qts, 100000);
    }
    return false;
}

/* A CQE that comes without the virtual clock moving: no timer in its way. */
static bool poll_cq_now(Rdma *r, TCq *cq, struct axon_cqe *cqe)
{
    uint64_t addr = cq->ring + (cq->cons % R_CQ_DEPTH) * AXON_CQE_SIZE;
    bool phase = !((cq->cons / R_CQ_DEPTH) & 1);

    for (int i = 0; i < 1000; i++) {
        qtest_memread(r->a->qts, addr, cqe, sizeof(*cqe));
        if (!!(cqe->flags & AXON_CQE_PHASE) == phase) {
            cq->cons++;
            qtest_writel(r->a->qts, cq->ring + R_CQ_DEPTH * AXON_CQE_SIZE,
                         cq->cons);
            return true;
        }
    }
    return false;
}

static void expect_cqe(Rdma *r, TCq *cq, uint64_t wr_id, uint8_t opcode,
                       uint8_t status)
{
    struct axon_cqe cqe;

    g_assert_true(poll_cq(r, cq, &cqe));
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, wr_id);
    g_assert_cmpuint(cqe.status, ==, status);
    if (status == AXON_WC_SUCCESS) {
        g_assert_cmpuint(cqe.opcode, ==, opcode);
    }
}

static uint8_t *pattern(size_t len, uint8_t seed)
{
    uint8_t *p = g_malloc(len);

    for (size_t i = 0; i < len; i++) {
        p[i] = seed + i * 7 + (i >> 8);
    }
    return p;
}

static void check_mem(Rdma *r, int mr, uint64_t off, const uint8_t *want,
                      size_t len)
{
    g_autofree uint8_t *got = g_malloc(len);

    mr_access(r, mr, r->mr[mr].iova + off, got, len, false);
    g_assert_cmpmem(got, len, want, len);
}

static void test_rdma_query(void)
{
    Axon *a = axon_start(NULL);
    struct axon_dev_attr d;

    rdma_enable(a);
    g_assert_cmphex(rd(a, AXON_REG_CAPS) & AXON_CAP_RDMA, !=, 0);
    g_assert_cmpuint(rd(a, AXON_REG_DB_PAGES), >=, 2);
    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_DEVICE, RESP_ADDR, sizeof(d),
                           0), ==, AXON_ADMIN_SUCCESS);
    qtest_memread(a->qts, RESP_ADDR, &d, sizeof(d));
    g_assert_cmpuint(le32_to_cpu(d.max_qp), >=, 1024);
    g_assert_cmpuint(le32_to_cpu(d.max_qp_wr), ==, AXON_WQ_MAX_DEPTH);
    g_assert_cmpuint(le32_to_cpu(d.max_sge), ==, AXON_MAX_SGE);
    g_assert_cmpuint(le32_to_cpu(d.max_cq), <=, 4095);
    g_assert_cmpuint(le32_to_cpu(d.max_cqe), ==, AXON_CQ_MAX_DEPTH);
    g_assert_cmpuint(le32_to_cpu(d.max_qp_rd_atom), ==, AXON_MAX_RD_ATOMIC);
    g_assert_cmpuint(le32_to_cpu(d.max_inline), ==, AXON_MAX_INLINE);
    g_assert_cmpuint(le64_to_cpu(d.max_mr_size), >=, 1ULL << 40);

    /* a bad CEQ keeps the device down */
    wr(a, AXON_REG_CTRL, AXON_CTRL_RESET);
    program_queues(a, SQ_ADDR, 8, CQ_ADDR, 8, EQ_ADDR, 8);
    wr(a, AXON_REG_CEQ_BASE_LO, 0x123);
    wr(a, AXON_REG_CEQ_DEPTH, 64);
    wr(a, AXON_REG_CTRL, AXON_CTRL_ENABLE);
    g_assert_cmpuint(rd(a, AXON_REG_ERROR), ==, AXON_DEV_ERR_CEQ_CONFIG);
    axon_stop(a);
}

static void test_rdma_mr(void)
{
    Axon *a = axon_start(NULL);
    uint64_t pdn, key, key2, leaf[2], pbl[4];
    struct axon_admin_cmd cmd = {};
    int i;

    rdma_enable(a);
    g_assert_cmpuint(create_pd(a, &pdn), ==, AXON_ADMIN_SUCCESS);
    for (i = 0; i < 4; i++) {
        pbl[i] = cpu_to_le64(MEM_ADDR(0) + i * 4096);
    }
    qtest_memwrite(a->qts, PBL_ADDR, pbl, sizeof(pbl));
    /* 3 pages: 0x2f00 bytes from 0x100 into the first */
    g_assert_cmpuint(create_mr(a, pdn, AXON_ACCESS_ALL, 0x10100, 0x2f00, 4,
                               12, 1, &key), ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_mr(a, pdn, AXON_ACCESS_ALL, 0x10100, 0x2f00, 3, 12,
                               1, &key), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(key >> 8, !=, 0);
    /* bad parameters */
    g_assert_cmpuint(create_mr(a, pdn + 1, 0, 0, 4096, 1, 12, 1, NULL), ==,
                     AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(create_mr(a, pdn, AXON_ACCESS_REMOTE_WRITE, 0, 4096, 1,
                               12, 1, NULL), ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_mr(a, pdn, 0x10, 0, 4096, 1, 12, 1, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_mr(a, pdn, 0, 0, 4096, 1, 11, 1, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_mr(a, pdn, 0, 0, 4096, 1, 12, 3, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_mr(a, pdn, 0, ~0ULL - 10, 4096, 2, 12, 1, NULL),
                     ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_mr(a, pdn, 0, 0, 1ULL << 41, 1u << 29, 12, 1,
                               NULL), ==, AXON_ADMIN_BAD_PARAM);
    /* a 2 MiB page list entry that is only 4 KiB aligned */
    qtest_writeq(a->qts, PBL_ADDR, MEM_ADDR(0) + 4096);
    g_assert_cmpuint(create_mr(a, pdn, 0, 0, 4096, 1, 21, 1, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    cmd.mr.pdn = cpu_to_le32(pdn);
    cmd.mr.length = cpu_to_le64(0);
    cmd.mr.levels = 1;
    cmd.mr.page_shift = 12;
    cmd.mr.reserved[3] = 1;
    g_assert_cmpuint(cmd_result(a, &cmd, AXON_ADMIN_CREATE_MR, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    /* two levels: two leaves, 600 pages */
    leaf[0] = cpu_to_le64(PBL_ADDR + 0x1000);
    leaf[1] = cpu_to_le64(PBL_ADDR + 0x2000);
    qtest_memwrite(a->qts, PBL_ADDR, leaf, sizeof(leaf));
    for (i = 0; i < 600; i++) {
        qtest_writeq(a->qts, PBL_ADDR + 0x1000 + i * 8, MEM_ADDR(0));
    }
    g_assert_cmpuint(create_mr(a, pdn, AXON_ACCESS_LOCAL_WRITE, 0,
                               600 * 4096, 600, 12, 2, &key2), ==,
                     AXON_ADMIN_SUCCESS);
    /* the PD is in use */
    memset(&cmd, 0, sizeof(cmd));
    cmd.pd.pdn = cpu_to_le32(pdn);
    g_assert_cmpuint(cmd_result(a, &cmd, AXON_ADMIN_DESTROY_PD, NULL), ==,
                     AXON_ADMIN_BUSY);
    /* stale keys */
    g_assert_cmpuint(destroy_mr(a, key), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(destroy_mr(a, key), ==, AXON_ADMIN_BAD_HANDLE);
    qtest_memwrite(a->qts, PBL_ADDR, pbl, sizeof(pbl));
    g_assert_cmpuint(create_mr(a, 0, 0, 0, 4096, 1, 12, 1, &key2), ==,
                     AXON_ADMIN_SUCCESS);
    /* never the key just freed */
    g_assert_cmphex(key2, !=, key);
    g_assert_cmpuint(destroy_mr(a, key), ==, AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(destroy_mr(a, 0), ==, AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(destroy_mr(a, 0xffffffff), ==, AXON_ADMIN_BAD_HANDLE);
    g_assert_cmphex(rd(a, AXON_REG_STATUS), ==, AXON_STATUS_READY);
    axon_stop(a);
}

static void test_rdma_cq_qp(void)
{
    Axon *a = axon_start(NULL);
    uint64_t pdn, cqn, qpn, v;
    struct axon_qp_attr at = {};
    struct axon_admin_cmd cmd = {};

    rdma_enable(a);
    g_assert_cmpuint(create_pd(a, &pdn), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(create_cq(a, RCQ_ADDR(0), 3, 1, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_cq(a, RCQ_ADDR(0) + 8, 64, 1, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_cq(a, RCQ_ADDR(0), 1u << 17, 1, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_cq(a, RCQ_ADDR(0), 64, 100000, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_cq(a, RCQ_ADDR(0), 64, 1, &cqn), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(create_qp(a, pdn, cqn, cqn + 1, RSQ_ADDR(0), RRQ_ADDR(0),
                               64, 0, NULL), ==, AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(create_qp(a, pdn, cqn, cqn, RSQ_ADDR(0), RRQ_ADDR(0),
                               48, 0, NULL), ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_qp(a, pdn, cqn, cqn, RSQ_ADDR(0) + 64,
                               RRQ_ADDR(0), 64, 0, NULL), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_qp(a, pdn, cqn, cqn, RSQ_ADDR(0), RRQ_ADDR(0),
                               64, 2, NULL), ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(create_qp(a, pdn, cqn, cqn, RSQ_ADDR(0), RRQ_ADDR(0),
                               64, 0, &qpn), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(qpn, >=, 2);
    g_assert_cmpuint(qp_state(a, qpn), ==, AXON_QPS_RESET);

    /* the state machine */
    at.state = cpu_to_le32(AXON_QPS_RTR);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_BAD_STATE);
    at.state = cpu_to_le32(AXON_QPS_SQD);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_BAD_STATE);
    at.state = cpu_to_le32(9);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_BAD_PARAM);
    at.state = cpu_to_le32(AXON_QPS_INIT);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE | 0x100000, &at),
                     ==, AXON_ADMIN_BAD_PARAM);
    at.reserved[18] = 1;
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_BAD_PARAM);
    at.reserved[18] = 0;
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_SUCCESS);
    at.state = cpu_to_le32(AXON_QPS_RTR);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_PATH_MTU, &at), ==,
                     AXON_ADMIN_BAD_PARAM); /* mtu 0 */
    at.path_mtu = cpu_to_le32(1024);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_PATH_MTU, &at), ==,
                     AXON_ADMIN_BAD_STATE); /* no path, dest_qpn, rq_psn */
    /* the path needs a GID at sgid_index */
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_PATH_MTU | AXON_QP_ATTR_PATH |
                               AXON_QP_ATTR_DEST_QPN | AXON_QP_ATTR_RQ_PSN,
                               &at), ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(set_gid(a, 1, 0, AXON_GID_TYPE_ROCE_V2, 0, 0), ==,
                     AXON_ADMIN_SUCCESS);
    at.rq_psn = cpu_to_le32(1u << 24);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_PATH_MTU | AXON_QP_ATTR_PATH |
                               AXON_QP_ATTR_DEST_QPN | AXON_QP_ATTR_RQ_PSN,
                               &at), ==, AXON_ADMIN_BAD_PARAM);
    at.rq_psn = 0;
    at.dest_qpn = cpu_to_le32(qpn);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_PATH_MTU | AXON_QP_ATTR_PATH |
                               AXON_QP_ATTR_DEST_QPN | AXON_QP_ATTR_RQ_PSN,
                               &at), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(qp_state(a, qpn), ==, AXON_QPS_RTR);
    at.state = cpu_to_le32(AXON_QPS_RTS);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_BAD_STATE); /* no sq_psn */
    at.retry_cnt = 8;
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_SQ_PSN | AXON_QP_ATTR_RETRY_CNT,
                               &at), ==, AXON_ADMIN_BAD_PARAM);
    at.retry_cnt = 7;
    at.max_rd_atomic = 17;
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_SQ_PSN |
                               AXON_QP_ATTR_MAX_RD_ATOMIC, &at), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_SQ_PSN, &at), ==,
                     AXON_ADMIN_SUCCESS);
    /* in flight only the access and the RNR timer change */
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_PATH_MTU, &at), ==,
                     AXON_ADMIN_BAD_STATE);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_SQ_PSN, &at), ==,
                     AXON_ADMIN_BAD_STATE);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_ACCESS |
                               AXON_QP_ATTR_MIN_RNR_TIMER, &at), ==,
                     AXON_ADMIN_SUCCESS);
    at.state = cpu_to_le32(AXON_QPS_INIT);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_BAD_STATE);
    at.state = cpu_to_le32(AXON_QPS_ERR);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(qp_state(a, qpn), ==, AXON_QPS_ERR);
    at.state = cpu_to_le32(AXON_QPS_RESET);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_SUCCESS);
    /* RESET -> ERR is a transition like any other */
    at.state = cpu_to_le32(AXON_QPS_ERR);
    g_assert_cmpuint(modify_qp(a, qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(qp_state(a, qpn), ==, AXON_QPS_ERR);
    g_assert_cmpuint(qp_cmd(a, AXON_ADMIN_QUERY_QP, qpn, 0, UNMAPPED_ADDR),
                     ==, AXON_ADMIN_DMA_ERROR);
    g_assert_cmpuint(qp_cmd(a, AXON_ADMIN_QUERY_QP, qpn + 1, 0, ATTR_ADDR),
                     ==, AXON_ADMIN_BAD_HANDLE);

    /* objects in use */
    g_assert_cmpuint(destroy_cq(a, cqn), ==, AXON_ADMIN_BUSY);
    cmd.pd.pdn = cpu_to_le32(pdn);
    g_assert_cmpuint(cmd_result(a, &cmd, AXON_ADMIN_DESTROY_PD, NULL), ==,
                     AXON_ADMIN_BUSY);
    g_assert_cmpuint(qp_cmd(a, AXON_ADMIN_DESTROY_QP, qpn, 0, 0), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(qp_cmd(a, AXON_ADMIN_DESTROY_QP, qpn, 0, 0), ==,
                     AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(destroy_cq(a, cqn), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(destroy_cq(a, cqn), ==, AXON_ADMIN_BAD_HANDLE);
    /* next fit: the numbers just freed are not handed out again at once */
    g_assert_cmpuint(create_cq(a, RCQ_ADDR(0), 64, 1, &v), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(v, ==, cqn + 1);
    cqn = v;
    g_assert_cmpuint(create_qp(a, pdn, cqn, cqn, RSQ_ADDR(0), RRQ_ADDR(0),
                               64, 0, &v), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(v, ==, qpn + 1);
    g_assert_cmpuint(qp_cmd(a, AXON_ADMIN_DESTROY_QP, v, 0, 0), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(destroy_cq(a, cqn), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(cmd_result(a, &cmd, AXON_ADMIN_DESTROY_PD, NULL), ==,
                     AXON_ADMIN_SUCCESS);
    /* a reset forgets everything */
    g_assert_cmpuint(create_pd(a, &pdn), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(create_cq(a, RCQ_ADDR(0), 64, 1, &cqn), ==,
                     AXON_ADMIN_SUCCESS);
    rdma_enable(a);
    g_assert_cmpuint(destroy_cq(a, cqn), ==, AXON_ADMIN_BAD_HANDLE);
    g_assert_cmpuint(create_pd(a, &v), ==, AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(v, ==, 0);
    axon_stop(a);
}

static void test_rdma_write(void)
{
    Rdma *r = rdma_setup(7);
    struct axon_send_wqe w = {};
    struct axon_sge sg[AXON_MAX_SGE];
    g_autofree uint8_t *data = pattern(8100, 1);
    g_autofree uint8_t *big = pattern(16 * 1000, 9);
    g_autofree uint8_t *zero = g_malloc0(64);
    struct axon_cqe cqe;
    int i;

    mr_access(r, 0, r->mr[0].iova + 10, data, 100, true);
    mr_access(r, 0, r->mr[0].iova + 20000, data + 100, 5000, true);
    mr_access(r, 0, r->mr[0].iova + 70001, data + 5100, 3000, true);
    sg[0] = sge(r, 0, 10, 100);
    sg[1] = sge(r, 0, 20000, 5000);
    sg[2] = sge(r, 0, 70001, 3000);
    w.opcode = AXON_WR_RDMA_WRITE;
    w.flags = AXON_WQE_SIGNALED;
    w.num_sge = 3;
    w.wr_id = cpu_to_le64(0x1111);
    w.remote_addr = cpu_to_le64(r->mr[1].iova + 7);
    w.rkey = cpu_to_le32(r->mr[1].key);
    post_send(r, &r->qp[0], &w, sg, NULL);
    expect_cqe(r, r->qp[0].scq, 0x1111, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    check_mem(r, 1, 7, data, 8100);
    /* nothing past the end */
    check_mem(r, 1, 8107, zero, 64);

    /* 16 SGEs, unsignaled then signaled */
    for (i = 0; i < AXON_MAX_SGE; i++) {
        mr_access(r, 0, r->mr[0].iova + 300000 + i * 4099, big + i * 1000,
                  1000, true);
        sg[i] = sge(r, 0, 300000 + i * 4099, 1000);
    }
    w.num_sge = AXON_MAX_SGE;
    w.flags = 0;
    w.wr_id = cpu_to_le64(0x2222);
    w.remote_addr = cpu_to_le64(r->mr[1].iova + 100000);
    post_send(r, &r->qp[0], &w, sg, NULL);
    w.flags = AXON_WQE_SIGNALED;
    w.num_sge = 0;
    w.wr_id = cpu_to_le64(0x3333);
    post_send(r, &r->qp[0], &w, NULL, NULL);
    expect_cqe(r, r->qp[0].scq, 0x3333, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    check_mem(r, 1, 100000, big, 16 * 1000);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_TX_PKTS), >=, 9 + 16);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_DROPS), ==, 0);

    /* in loopback a WRITE's ACK comes in the same pass: no clock runs */
    w.flags = AXON_WQE_SIGNALED | AXON_WQE_INLINE;
    w.inline_len = cpu_to_le32(8);
    w.wr_id = cpu_to_le64(0x4444);
    post_send(r, &r->qp[0], &w, NULL, data);
    g_assert_true(poll_cq_now(r, r->qp[0].scq, &cqe));
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0x4444);
    g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
    rdma_stop(r);
}

/* A QP takes packets from its peer only. */
static void test_rdma_peer(void)
{
    Rdma *r = rdma_setup(7);
    TQp q = { .sq = RSQ_ADDR(2), .rq = RRQ_ADDR(2),
              .scq = &r->cq[0], .rcq = &r->cq[0] };
    struct axon_send_wqe w = {};
    g_autofree uint8_t *zero = g_malloc0(8);
    uint32_t drops = rd(r->a, AXON_REG_STAT_RX_DROPS);
    uint64_t v;
    int i;

    /* a third QP aims at QP 1, with the PSN QP 1 expects from QP 0 */
    g_assert_cmpuint(create_qp(r->a, r->pdn, q.scq->cqn, q.rcq->cqn, q.sq,
                               q.rq, R_WQ_DEPTH, 0, &v), ==,
                     AXON_ADMIN_SUCCESS);
    q.qpn = v;
    connect_qp(r, &q, r->qp[1].qpn, 0xfffff0, 0x000100, 7);
    w.opcode = AXON_WR_RDMA_WRITE;
    w.flags = AXON_WQE_SIGNALED | AXON_WQE_INLINE;
    w.inline_len = cpu_to_le32(8);
    w.remote_addr = cpu_to_le64(r->mr[1].iova);
    w.rkey = cpu_to_le32(r->mr[1].key);
    post_send(r, &q, &w, NULL, "intruder");
    for (i = 0; i < 1000 && rd(r->a, AXON_REG_STAT_RX_DROPS) == drops; i++) {
        qtest_clock_step(r->a->qts, 1000);
    }
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_DROPS), ==, drops + 1);
    check_mem(r, 1, 0, zero, 8);
    rdma_stop(r);
}

/* Completion events that find the CEQ full wait for room; none is lost. */
static void test_rdma_ceq_full(void)
{
    Rdma *r = rdma_setup(7);
    TQp *qp = &r->qp[0];
    struct axon_send_wqe w = {};
    struct axon_event ev;
    int i;

    w.opcode = AXON_WR_RDMA_WRITE;
    w.flags = AXON_WQE_SIGNALED | AXON_WQE_INLINE;
    w.inline_len = cpu_to_le32(8);
    w.remote_addr = cpu_to_le64(r->mr[1].iova);
    w.rkey = cpu_to_le32(r->mr[1].key);
    /* the driver re-arms without moving the CEQ head: 63 fit, 2 wait */
    for (i = 0; i < 65; i++) {
        ring(r, R_UAR, AXON_DB_CQ_ARM, qp->scq->cqn, AXON_CQ_ARM_NEXT);
        w.wr_id = cpu_to_le64(i);
        post_send(r, qp, &w, NULL, "8 bytes!");
        expect_cqe(r, qp->scq, i, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    }
    qtest_memread(r->a->qts, CEQ_ADDR + 63 * sizeof(ev), &ev, sizeof(ev));
    g_assert_cmpuint(ev.flags, ==, 0);
    /* two consumed: the one waiting comes (a CQ is owed one at most) */
    wr(r->a, AXON_REG_CEQ_HEAD, 2);
    qtest_memread(r->a->qts, CEQ_ADDR + 63 * sizeof(ev), &ev, sizeof(ev));
    g_assert_cmpuint(le16_to_cpu(ev.type), ==, AXON_EVENT_COMPLETION);
    g_assert_cmpuint(le32_to_cpu(ev.param), ==, qp->scq->cqn);
    g_assert_cmpuint(le16_to_cpu(ev.flags), ==, AXON_EVENT_PHASE);
    qtest_memread(r->a->qts, CEQ_ADDR, &ev, sizeof(ev));
    g_assert_cmpuint(le16_to_cpu(ev.flags), ==, AXON_EVENT_PHASE);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_EQ_DROPS), ==, 0);
    rdma_stop(r);
}

/*
 * ib_send_bw's pattern: a stream of small SENDs, signaled every 16th, the
 * receiver re-posting its few receives as it reaps them (RNR NAKs).
 */
static void test_rdma_send_stream(void)
{
    Rdma *r = rdma_setup(7);
    TQp *a = &r->qp[0], *b = &r->qp[1];
    struct axon_send_wqe w = {};
    struct axon_sge sg = sge(r, 1, 0, 64);
    struct axon_cqe cqe;
    const int total = 2000, nrecv = 16;
    int sent = 0, done = 0, got = 0, i, idle = 0;

    for (i = 0; i < nrecv; i++) {
        post_recv(r, b, i, &sg, 1);
    }
    w.opcode = AXON_WR_SEND;
    w.inline_len = cpu_to_le32(8);
    while (got < total && idle < 20000) {
        bool moved = false;
        uint64_t addr;
        bool phase;

        while (sent < total && sent - done < 64) {
            w.flags = AXON_WQE_INLINE |
                      (sent % 16 == 15 || sent + 1 == total ?
                       AXON_WQE_SIGNALED : 0);
            w.wr_id = cpu_to_le64(sent);
            post_send(r, a, &w, NULL, "8 bytes!");
            sent++;
            moved = true;
        }
        addr = a->scq->ring + (a->scq->cons % R_CQ_DEPTH) * AXON_CQE_SIZE;
        phase = !((a->scq->cons / R_CQ_DEPTH) & 1);
        qtest_memread(r->a->qts, addr, &cqe, sizeof(cqe));
        if (!!(cqe.flags & AXON_CQE_PHASE) == phase) {
            g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
            done = le64_to_cpu(cqe.wr_id) + 1;
            a->scq->cons++;
            qtest_writel(r->a->qts, a->scq->ring + R_CQ_DEPTH * AXON_CQE_SIZE,
                         a->scq->cons);
            moved = true;
        }
        addr = b->rcq->ring + (b->rcq->cons % R_CQ_DEPTH) * AXON_CQE_SIZE;
        phase = !((b->rcq->cons / R_CQ_DEPTH) & 1);
        qtest_memread(r->a->qts, addr, &cqe, sizeof(cqe));
        if (!!(cqe.flags & AXON_CQE_PHASE) == phase) {
            g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
            g_assert_cmpuint(le64_to_cpu(cqe.wr_id), ==, got % nrecv);
            got++;
            b->rcq->cons++;
            qtest_writel(r->a->qts, b->rcq->ring + R_CQ_DEPTH * AXON_CQE_SIZE,
                         b->rcq->cons);
            post_recv(r, b, (got + nrecv - 1) % nrecv, &sg, 1);
            moved = true;
        }
        if (!moved) {
            idle++;
            qtest_clock_step(r->a->qts, 20000);
        } else {
            idle = 0;
        }
    }
    g_assert_cmpint(got, ==, total);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_NAKS), >, 0);  /* RNR NAKs */
    rdma_stop(r);
}

/*
 * Two QPs due in one engine run, the second with more packets than the
 * run has left: it goes on in the next run, not after an ACK timeout.
 */
static void test_rdma_engine_budget(void)
{
    Rdma *r = rdma_setup(7);
    TQp *a = &r->qp[0], *b = &r->qp[1];
    struct axon_send_wqe w = {};
    struct axon_sge sg = sge(r, 0, 0, 64);
    g_autofree uint8_t *big = pattern(300 * R_MTU, 5);

    mr_access(r, 1, r->mr[1].iova, big, 300 * R_MTU, true);
    /* both SENDs meet an empty RQ: both QPs wait the same RNR time */
    w.opcode = AXON_WR_SEND;
    w.flags = AXON_WQE_INLINE;
    w.inline_len = cpu_to_le32(8);
    post_send(r, a, &w, NULL, "8 bytes!");
    post_send(r, b, &w, NULL, "8 bytes!");
    /* behind them, 2 packets on a and 300 on b */
    w.opcode = AXON_WR_RDMA_WRITE;
    w.remote_addr = cpu_to_le64(r->mr[1].iova + 0x80000);
    w.rkey = cpu_to_le32(r->mr[1].key);
    post_send(r, a, &w, NULL, "8 bytes!");
    w.flags = AXON_WQE_INLINE | AXON_WQE_SIGNALED;
    w.wr_id = cpu_to_le64(0xa);
    post_send(r, a, &w, NULL, "8 bytes!");
    w.flags = AXON_WQE_SIGNALED;
    w.inline_len = 0;
    w.num_sge = 1;
    w.wr_id = cpu_to_le64(0xb);
    w.remote_addr = cpu_to_le64(r->mr[0].iova);
    w.rkey = cpu_to_le32(r->mr[0].key);
    sg = sge(r, 1, 0, 300 * R_MTU);
    post_send(r, b, &w, &sg, NULL);
    sg = sge(r, 0, 0x90000, 64);
    post_recv(r, a, 1, &sg, 1);
    sg = sge(r, 1, 0x90000, 64);
    post_recv(r, b, 2, &sg, 1);
    qtest_clock_step(r->a->qts, 100 * 1000);
    /* a runs first: its SEND reaches b, then its WRITEs complete */
    expect_cqe(r, a->scq, 0xa, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    expect_cqe(r, b->rcq, 2, AXON_WC_RECV, AXON_WC_SUCCESS);
    expect_cqe(r, b->scq, 0xb, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    expect_cqe(r, a->rcq, 1, AXON_WC_RECV, AXON_WC_SUCCESS);
    check_mem(r, 0, 0, big, 300 * R_MTU);
    /* sent again: the two SENDs after their RNR NAKs, nothing else */
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RETRANS), ==, 2);
    rdma_stop(r);
}

static void test_rdma_send_recv(void)
{
    Rdma *r = rdma_setup(7);
    struct axon_send_wqe w = {};
    struct axon_sge sg[2];
    struct axon_cqe cqe;
    struct axon_event ev;
    g_autofree uint8_t *data = pattern(3000, 3);
    uint8_t inl[200];
    TQp *a = &r->qp[0], *b = &r->qp[1];

    mr_access(r, 0, r->mr[0].iova, data, 3000, true);
    /* 1000 + 4000 bytes of receive buffers */
    sg[0] = sge(r, 1, 5, 1000);
    sg[1] = sge(r, 1, 50000, 4000);
    post_recv(r, b, 0xb1, sg, 2);
    ring(r, R_UAR, AXON_DB_CQ_ARM, b->rcq->cqn, AXON_CQ_ARM_SOLICITED);
    sg[0] = sge(r, 0, 0, 3000);
    w.opcode = AXON_WR_SEND_IMM;
    w.flags = AXON_WQE_SIGNALED | AXON_WQE_SOLICITED;
    w.num_sge = 1;
    w.imm_data = cpu_to_be32(0xdeadbeef);
    w.wr_id = cpu_to_le64(0xa1);
    post_send(r, a, &w, sg, NULL);
    expect_cqe(r, a->scq, 0xa1, AXON_WC_SEND, AXON_WC_SUCCESS);
    g_assert_true(poll_cq(r, b->rcq, &cqe));
    g_assert_cmphex(le64_to_cpu(cqe.wr_id), ==, 0xb1);
    g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
    g_assert_cmpuint(cqe.opcode, ==, AXON_WC_RECV);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 3000);
    g_assert_cmphex(be32_to_cpu(cqe.imm_data), ==, 0xdeadbeef);
    g_assert_cmphex(cqe.flags & ~AXON_CQE_PHASE, ==, AXON_CQE_WITH_IMM |
                    AXON_CQE_RECV | AXON_CQE_SOLICITED);
    g_assert_cmpuint(le32_to_cpu(cqe.qpn), ==, b->qpn);
    check_mem(r, 1, 5, data, 1000);
    check_mem(r, 1, 50000, data + 1000, 2000);
    /* the armed CQ got a completion event on the CEQ */
    qtest_memread(r->a->qts, CEQ_ADDR, &ev, sizeof(ev));
    g_assert_cmpuint(le16_to_cpu(ev.type), ==, AXON_EVENT_COMPLETION);
    g_assert_cmpuint(le32_to_cpu(ev.param), ==, b->rcq->cqn);
    g_assert_cmpuint(le16_to_cpu(ev.flags), ==, AXON_EVENT_PHASE);

    /* inline */
    memset(inl, 0x5a, sizeof(inl));
    sg[0] = sge(r, 1, 9000, 500);
    post_recv(r, b, 0xb2, sg, 1);
    memset(&w, 0, sizeof(w));
    w.opcode = AXON_WR_SEND;
    w.flags = AXON_WQE_SIGNALED | AXON_WQE_INLINE;
    w.inline_len = cpu_to_le32(sizeof(inl));
    w.wr_id = cpu_to_le64(0xa2);
    post_send(r, a, &w, NULL, inl);
    expect_cqe(r, a->scq, 0xa2, AXON_WC_SEND, AXON_WC_SUCCESS);
    expect_cqe(r, b->rcq, 0xb2, AXON_WC_RECV, AXON_WC_SUCCESS);
    check_mem(r, 1, 9000, inl, sizeof(inl));

    /* WRITE_WITH_IMM consumes a receive */
    post_recv(r, b, 0xb3, NULL, 0);
    memset(&w, 0, sizeof(w));
    w.opcode = AXON_WR_RDMA_WRITE_IMM;
    w.flags = AXON_WQE_SIGNALED;
    w.num_sge = 1;
    w.imm_data = cpu_to_be32(77);
    w.wr_id = cpu_to_le64(0xa3);
    w.remote_addr = cpu_to_le64(r->mr[1].iova + 200000);
    w.rkey = cpu_to_le32(r->mr[1].key);
    sg[0] = sge(r, 0, 0, 3000);
    post_send(r, a, &w, sg, NULL);
    expect_cqe(r, a->scq, 0xa3, AXON_WC_RDMA_WRITE, AXON_WC_SUCCESS);
    g_assert_true(poll_cq(r, b->rcq, &cqe));
    g_assert_cmpuint(cqe.opcode, ==, AXON_WC_RECV_RDMA_WITH_IMM);
    g_assert_cmpuint(le32_to_cpu(cqe.byte_len), ==, 3000);
    g_assert_cmphex(be32_to_cpu(cqe.imm_data), ==, 77);
    check_mem(r, 1, 200000, data, 3000);
    rdma_stop(r);
}

static void test_rdma_read_atomic(void)
{
    Rdma *r = rdma_setup(7);
    struct axon_send_wqe w = {};
    struct axon_sge sg[2];
    g_autofree uint8_t *data = pattern(10000, 5);
    uint64_t v = cpu_to_le64(100), got;
    TQp *a = &r->qp[0];
    int i;

    mr_access(r, 1, r->mr[1].iova + 33, data, 10000, true);
    /* several READs outstanding at once, into two SGEs each */
    for (i = 0; i < 3; i++) {
        sg[0] = sge(r, 0, i * 20000, 4000);
        sg[1] = sge(r, 0, i * 20000 + 8192 + 1, 6000);
        w.opcode = AXON_WR_RDMA_READ;
        w.flags = AXON_WQE_SIGNALED;
        w.num_sge = 2;
        w.wr_id = cpu_to_le64(0x100 + i);
        w.remote_addr = cpu_to_le64(r->mr[1].iova + 33);
        w.rkey = cpu_to_le32(r->mr[1].key);
        post_send(r, a, &w, sg, NULL);
    }
    for (i = 0; i < 3; i++) {
        expect_cqe(r, a->scq, 0x100 + i, AXON_WC_RDMA_READ, AXON_WC_SUCCESS);
        check_mem(r, 0, i * 20000, data, 4000);
        check_mem(r, 0, i * 20000 + 8192 + 1, data + 4000, 6000);
    }

    /* atomics on the responder's memory */
    mr_access(r, 1, r->mr[1].iova + 0x1000 - 0x123, &v, 8, true);
    sg[0] = sge(r, 0, 0x100, 8);
    memset(&w, 0, sizeof(w));
    w.opcode = AXON_WR_ATOMIC_FETCH_ADD;
    w.flags = AXON_WQE_SIGNALED | AXON_WQE_FENCE;
    w.num_sge = 1;
    w.wr_id = cpu_to_le64(0x200);
    w.remote_addr = cpu_to_le64(r->mr[1].iova + 0x1000 - 0x123);
    w.rkey = cpu_to_le32(r->mr[1].key);
    w.compare_add = cpu_to_le64(5);
    post_send(r, a, &w, sg, NULL);
    expect_cqe(r, a->scq, 0x200, AXON_WC_FETCH_ADD, AXON_WC_SUCCESS);
    mr_access(r, 0, r->mr[0].iova + 0x100, &got, 8, false);
    g_assert_cmpuint(le64_to_cpu(got), ==, 100);
    w.opcode = AXON_WR_ATOMIC_CMP_SWP;
    w.wr_id = cpu_to_le64(0x201);
    w.compare_add = cpu_to_le64(105);
    w.swap = cpu_to_le64(0x123456789ULL);
    post_send(r, a, &w, sg, NULL);
    expect_cqe(r, a->scq, 0x201, AXON_WC_COMP_SWAP, AXON_WC_SUCCESS);
    mr_access(r, 0, r->mr[0].iova + 0x100, &got, 8, false);
    g_assert_cmpuint(le64_to_cpu(got), ==, 105);
    mr_access(r, 1, r->mr[1].iova + 0x1000 - 0x123, &got, 8, false);
    g_assert_cmphex(le64_to_cpu(got), ==, 0x123456789ULL);
    /* misaligned: the responder refuses, both QPs go to ERR */
    w.wr_id = cpu_to_le64(0x202);
    w.remote_addr = cpu_to_le64(r->mr[1].iova + 4);
    post_send(r, a, &w, sg, NULL);
    expect_cqe(r, a->scq, 0x202, 0, AXON_WC_REM_INV_REQ_ERR);
    g_assert_cmpuint(qp_state(r->a, a->qpn), ==, AXON_QPS_ERR);
    g_assert_cmpuint(qp_state(r->a, r->qp[1].qpn), ==, AXON_QPS_ERR);
    rdma_stop(r);
}

static void test_rdma_errors(void)
{
    Rdma *r = rdma_setup(0);
    struct axon_send_wqe w = {};
    struct axon_sge sg[1];
    struct axon_cqe cqe;
    TQp *a = &r->qp[0], *b = &r->qp[1];
    uint64_t key;

    /* a SEND without a posted receive: RNR, no retries left */
    sg[0] = sge(r, 0, 0, 100);
    w.opcode = AXON_WR_SEND;
    w.num_sge = 1;
    w.wr_id = cpu_to_le64(1);
    post_send(r, a, &w, sg, NULL);
    expect_cqe(r, a->scq, 1, 0, AXON_WC_RNR_RETRY_EXC_ERR);
    /* later WQEs are flushed, also those posted in ERR */
    w.wr_id = cpu_to_le64(2);
    post_send(r, a, &w, sg, NULL);
    expect_cqe(r, a->scq, 2, 0, AXON_WC_WR_FLUSH_ERR);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_NAKS), >=, 1);
    rdma_stop(r);

    /* RNR retried: the receive comes late, or never (one retry) */
    for (int retries = 7; retries >= 1; retries -= 6) {
        r = rdma_setup(retries);
        a = &r->qp[0];
        b = &r->qp[1];
        sg[0] = sge(r, 0, 0, 100);
        w.opcode = AXON_WR_SEND;
        w.flags = AXON_WQE_SIGNALED;
        w.num_sge = 1;
        w.wr_id = cpu_to_le64(retries);
        post_send(r, a, &w, sg, NULL);
        qtest_clock_step(r->a->qts, 300 * 1000 * 1000);
        if (retries == 7) {
            sg[0] = sge(r, 1, 0, 100);
            post_recv(r, b, 0xb7, sg, 1);
            expect_cqe(r, b->rcq, 0xb7, AXON_WC_RECV, AXON_WC_SUCCESS);
            expect_cqe(r, a->scq, 7, AXON_WC_SEND, AXON_WC_SUCCESS);
        } else {
            expect_cqe(r, a->scq, 1, 0, AXON_WC_RNR_RETRY_EXC_ERR);
        }
        rdma_stop(r);
    }

    /* a WRITE into an MR without REMOTE_WRITE */
    r = rdma_setup(7);
    a = &r->qp[0];
    b = &r->qp[1];
    qtest_writeq(r->a->qts, PBL_ADDR, MEM_ADDR(1));
    g_assert_cmpuint(create_mr(r->a, r->pdn, AXON_ACCESS_LOCAL_WRITE |
                               AXON_ACCESS_REMOTE_READ, 0x1000, 4096, 1, 12,
                               1, &key), ==, AXON_ADMIN_SUCCESS);
    post_recv(r, b, 0xb0, NULL, 0);
    sg[0] = sge(r, 0, 0, 100);
    w.opcode = AXON_WR_RDMA_WRITE;
    w.wr_id = cpu_to_le64(3);
    w.remote_addr = cpu_to_le64(0x1000);
    w.rkey = cpu_to_le32(key);
    post_send(r, a, &w, sg, NULL);
    expect_cqe(r, a->scq, 3, 0, AXON_WC_REM_ACCESS_ERR);
    expect_cqe(r, b->rcq, 0xb0, 0, AXON_WC_WR_FLUSH_ERR);
    g_assert_cmpuint(qp_state(r->a, b->qpn), ==, AXON_QPS_ERR);
    rdma_stop(r);

    /* out of the MR's bounds, and a deregistered key */
    r = rdma_setup(7);
    a = &r->qp[0];
    sg[0] = sge(r, 0, 0, 100);
    w.opcode = AXON_WR_RDMA_READ;
    w.wr_id = cpu_to_le64(4);
    w.remote_addr = cpu_to_le64(r->mr[1].iova + MEM_PAGES * 4096ULL - 0x123 -
                                50);
    w.rkey = cpu_to_le32(r->mr[1].key);
    post_send(r, a, &w, sg, NULL);
    expect_cqe(r, a->scq, 4, 0, AXON_WC_REM_ACCESS_ERR);
    rdma_stop(r);

    r = rdma_setup(7);
    a = &r->qp[0];
    g_assert_cmpuint(destroy_mr(r->a, r->mr[0].key), ==, AXON_ADMIN_SUCCESS);
    sg[0] = sge(r, 0, 0, 100);
    w.opcode = AXON_WR_RDMA_WRITE;
    w.wr_id = cpu_to_le64(5);
    w.remote_addr = cpu_to_le64(r->mr[1].iova);
    w.rkey = cpu_to_le32(r->mr[1].key);
    post_send(r, a, &w, sg, NULL);
    expect_cqe(r, a->scq, 5, 0, AXON_WC_LOC_PROT_ERR);
    g_assert_true(!poll_cq(r, r->qp[1].rcq, &cqe) ||
                  cqe.status == AXON_WC_WR_FLUSH_ERR);
    rdma_stop(r);
}

static void test_rdma_garbage_wqe(void)
{
    static const struct { uint8_t opcode, num_sge, flags; } bad[] = {
        { 0x77, 0, 0 },
        { AXON_WR_SEND, 200, 0 },
        { AXON_WR_RDMA_READ, 0, AXON_WQE_INLINE },
        { AXON_WR_SEND, 1, 0x80 },
    };
    struct axon_sge sg[28];
    size_t i;

    memset(sg, 0xee, sizeof(sg));
    for (i = 0; i < ARRAY_SIZE(bad); i++) {
        Rdma *r = rdma_setup(7);
        struct axon_send_wqe w = {};
        TQp *a = &r->qp[0];

        g_test_message("garbage WQE %zu", i);
        w.opcode = bad[i].opcode;
        w.num_sge = bad[i].num_sge;
        w.flags = bad[i].flags | AXON_WQE_SIGNALED;
        w.wr_id = cpu_to_le64(0x600 + i);
        w.inline_len = cpu_to_le32(bad[i].flags & AXON_WQE_INLINE ? 8 : 0);
        post_send(r, a, &w, sg, NULL);
        w.wr_id = cpu_to_le64(0x700 + i);
        post_send(r, a, &w, sg, NULL);
        expect_cqe(r, a->scq, 0x600 + i, 0, AXON_WC_LOC_QP_OP_ERR);
        expect_cqe(r, a->scq, 0x700 + i, 0, AXON_WC_WR_FLUSH_ERR);
        g_assert_cmpuint(qp_state(r->a, a->qpn), ==, AXON_QPS_ERR);
        g_assert_cmphex(rd(r->a, AXON_REG_STATUS), ==, AXON_STATUS_READY);
        rdma_stop(r);
    }
    /* a bad lkey in an SGE */
    {
        Rdma *r = rdma_setup(7);
        struct axon_send_wqe w = {};
        TQp *a = &r->qp[0];

        sg[0] = sge(r, 0, 0, 100);
        sg[0].lkey = cpu_to_le32(r->mr[0].key ^ 1);
        w.opcode = AXON_WR_SEND;
        w.num_sge = 1;
        w.wr_id = cpu_to_le64(0x800);
        post_send(r, a, &w, sg, NULL);
        expect_cqe(r, a->scq, 0x800, 0, AXON_WC_LOC_PROT_ERR);
        rdma_stop(r);
    }
}

static void test_rdma_cq_overflow(void)
{
    Rdma *r = rdma_setup(7);
    struct axon_send_wqe w = {};
    struct axon_event ev;
    TQp *a = &r->qp[0];
    int i;

    /* 64 CQEs fill the CQ: nobody consumes them */
    w.opcode = AXON_WR_RDMA_WRITE;
    w.flags = AXON_WQE_SIGNALED;
    w.rkey = cpu_to_le32(r->mr[1].key);
    w.remote_addr = cpu_to_le64(r->mr[1].iova);
    for (i = 0; i < R_CQ_DEPTH; i++) {
        post_send(r, a, &w, NULL, NULL);
    }
    g_assert_true(wait_word(r->a, a->scq->ring + (R_CQ_DEPTH - 1) *
                            AXON_CQE_SIZE + offsetof(struct axon_cqe, flags),
                            AXON_CQE_PHASE));
    /* the 65th overflows it: the device stops and says so */
    post_send(r, a, &w, NULL, NULL);
    g_assert_true(wait_word(r->a, EQ_ADDR, AXON_EVENT_CQ_ERROR |
                            AXON_EVENT_PHASE << 16));
    qtest_memread(r->a->qts, EQ_ADDR, &ev, sizeof(ev));
    g_assert_cmpuint(le32_to_cpu(ev.param), ==, a->scq->cqn);
    /* the first CQE was not overwritten */
    g_assert_cmphex(qtest_readb(r->a->qts, a->scq->ring +
                                offsetof(struct axon_cqe, flags)), ==,
                    AXON_CQE_PHASE);
    g_assert_cmphex(rd(r->a, AXON_REG_STATUS), ==, AXON_STATUS_READY);
    rdma_stop(r);
}

static void test_rdma_doorbells(void)
{
    Rdma *r = rdma_setup(7);
    struct axon_send_wqe w = {};
    struct axon_sge sg[1];
    struct axon_cqe cqe;
    TQp *a = &r->qp[0];

    sg[0] = sge(r, 0, 0, 100);
    w.opcode = AXON_WR_RDMA_WRITE;
    w.flags = AXON_WQE_SIGNALED;
    w.num_sge = 1;
    w.remote_addr = cpu_to_le64(r->mr[1].iova);
    w.rkey = cpu_to_le32(r->mr[1].key);
    qtest_memwrite(r->a->qts, a->sq, &w, sizeof(w));
    qtest_memwrite(r->a->qts, a->sq + sizeof(w), sg, sizeof(sg));
    /* another context's page, a bad offset, an unknown QP, too many WQEs */
    ring(r, R_UAR + 1, AXON_DB_SQ, a->qpn, 1);
    ring(r, 0, AXON_DB_SQ, a->qpn, 1);
    ring(r, R_UAR, 0x10, a->qpn, 1);
    ring(r, R_UAR, AXON_DB_SQ, 1000, 1);
    ring(r, R_UAR, AXON_DB_SQ, a->qpn, R_WQ_DEPTH + 1);
    ring(r, R_UAR, AXON_DB_CQ_ARM, a->scq->cqn, 7);
    ring(r, R_UAR + 1, AXON_DB_CQ_ARM, a->scq->cqn, AXON_CQ_ARM_NEXT);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_DB_REJECTS), ==, 7);
    g_assert_false(poll_cq(r, a->scq, &cqe));
    /* the right page works */
    ring(r, R_UAR, AXON_DB_SQ, a->qpn, 1);
    g_assert_true(poll_cq(r, a->scq, &cqe));
    g_assert_cmpuint(cqe.status, ==, AXON_WC_SUCCESS);
    /* a producer index behind what the device took is refused */
    ring(r, R_UAR, AXON_DB_SQ, a->qpn, 0);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_DB_REJECTS), ==, 8);
    g_assert_false(poll_cq(r, a->scq, &cqe));
    rdma_stop(r);
}

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

static void test_rdma_wire_loss(void)
{
    Rdma *r = rdma_setup_on(",x-tx-drop-every=13,x-tx-reorder-every=5",
                            7, false, NULL);

    rdma_traffic(r, 4);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RETRANS), >, 0);
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_DROPS), ==, 0);
    rdma_stop(r);
}

/* ---- the wire is hostile: forged RoCEv2 frames ------------------------ */

/*
 * Frames an attacker on the fabric could send: from the peer's address,
 * to a live QP, with a correct ICRC, but knowing no current PSN or key.
 * None may change a QP's state or memory (Documentation/wire-security.rst).
 */

/* BTH opcodes (IBA 9.2), as a forger writes them */
enum {
    F_SEND_ONLY = 0x04,
    F_WRITE_ONLY = 0x0a,
    F_READ_REQ = 0x0c,
    F_READ_RESP_ONLY = 0x10,
    F_ACK = 0x11,
    F_ATOMIC_ACK = 0x12,
    F_CMP_SWP = 0x13,
    F_FETCH_ADD = 0x14,
};

/* AETH syndromes */
#define F_SYN_ACK 0x1f
#define F_SYN_RNR(t) (0x20 | (t))
#define F_SYN_RESERVED 0x40
#define F_SYN_NAK(code) (0x60 | (code))
#define F_NAK_REM_ACCESS 2
#define F_NAK_INV_RD 4

#define F_AHEAD 0x400000    /* ahead of any PSN these tests reach */

typedef struct Forged {
    uint8_t opcode;
    uint32_t dqpn, psn;
    uint64_t va;                /* RETH, AtomicETH */
    uint32_t rkey, dmalen;
    uint64_t swap_add, cmp;     /* AtomicETH */
    uint8_t syndrome;           /* AETH */
    const void *payload;
    uint32_t len;
} Forged;

/* CRC-32 as zlib computes it: the ICRC's */
static uint32_t crc32_le(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++) {
            crc = crc >> 1 ^ (0xedb88320u & -(crc & 1));
        }
    }
    return ~crc;
}

/* f as a RoCEv2 frame from 10.0.0.1 (the QPs' peer) to this device. */
static size_t forge_frame(const Forged *f, uint8_t *buf)
{
    uint8_t *ip = buf + 14, *udp = ip + 20, *ib = udp + 8, *q = ib + 12;
    uint8_t pad = -f->len & 3, ph[8 + 20 + 8 + 12];
    uint32_t sum = 0, crc;
    size_t ib_len, udp_len;
    int i;

    memset(buf, 0, 14 + 20 + 8 + 12);
    memcpy(buf, "\x52\x54\x00\x12\x34\x56", 6);
    memcpy(buf + 6, "\x52\x54\x00\x66\x66\x66", 6);
    stw_be_p(buf + 12, 0x0800);
    ib[0] = f->opcode;
    ib[1] = pad << 4;
    stw_be_p(ib + 2, 0xffff);
    stl_be_p(ib + 4, f->dqpn);
    stl_be_p(ib + 8, 0x80000000u | (f->psn & 0xffffff));
    switch (f->opcode) {
    case F_WRITE_ONLY:
    case F_READ_REQ:
        stq_be_p(q, f->va);
        stl_be_p(q + 8, f->rkey);
        stl_be_p(q + 12, f->dmalen);
        q += 16;
        break;
    case F_CMP_SWP:
    case F_FETCH_ADD:
        stq_be_p(q, f->va);
        stl_be_p(q + 8, f->rkey);
        stq_be_p(q + 12, f->swap_add);
        stq_be_p(q + 20, f->cmp);
        q += 28;
        break;
    case F_READ_RESP_ONLY:
    case F_ACK:
    case F_ATOMIC_ACK:
        stl_be_p(q, (uint32_t)f->syndrome << 24 | 1);
        q += 4;
        if (f->opcode == F_ATOMIC_ACK) {
            stq_be_p(q, 0x1234);
            q += 8;
        }
        break;
    }
    ib_len = q - ib;
    memcpy(q, f->payload, f->len);
    memset(q + f->len, 0, pad);
    udp_len = 8 + ib_len + f->len + pad + 4;
    ip[0] = 0x45;
    stw_be_p(ip + 2, 20 + udp_len);
    ip[8] = 64;
    ip[9] = 17;
    ip[12] = ip[16] = 10;
    ip[15] = ip[19] = 1;
    for (i = 0; i < 20; i += 2) {
        sum += lduw_be_p(ip + i);
    }
    sum = (sum & 0xffff) + (sum >> 16);
    stw_be_p(ip + 10, ~(sum + (sum >> 16)));
    stw_be_p(udp, 0xc123);
    stw_be_p(udp + 2, AXON_ROCEV2_UDP_PORT);
    stw_be_p(udp + 4, udp_len);
    /* the ICRC's pseudo header: variant fields masked to ones */
    memset(ph, 0xff, 8);
    memcpy(ph + 8, ip, 20 + 8 + 12);
    ph[8 + 1] = ph[8 + 8] = 0xff;
    stw_be_p(ph + 8 + 10, 0xffff);
    stw_be_p(ph + 8 + 20 + 6, 0xffff);
    ph[8 + 28 + 4] = 0xff;
    crc = crc32_le(0, ph, sizeof(ph));
    crc = crc32_le(crc, ib + 12, ib_len - 12 + f->len + pad);
    stl_le_p(q + f->len + pad, crc);
    return 14 + 20 + udp_len;
}

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

/*
 * Sends f and waits until the device took it and the frames it answers
 * with (the device's wire loops back to it) came back: frames in all.
 */
static void forge(Rdma *r, const Forged *f, uint32_t frames)
{
    uint8_t buf[1600];
    uint32_t want = rd(r->a, AXON_REG_STAT_RX_ROCE) + frames;

    inject(r->a, buf, forge_frame(f, buf));
    g_assert_true(wait_reg(r->a, AXON_REG_STAT_RX_ROCE, want));
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
    return (from + d) & 0xffffff;
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
    forge(r, &f, 1);                    /* ahead: one NAK, no error */
    f.psn = f_psn(F_PSN0, F_AHEAD + 1);
    forge(r, &f, 1);                    /* no second NAK */
    wait_reg(r->a, AXON_REG_STAT_RX_ROCE, st.roce + 7);
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

/* ---- peer memory: INVALIDATE_MR, REMAP_MR, MRs on an axon-gpu -------- */

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
        v = (uint64_t)hi << 32 | rd(a, lo);
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
                     AXON_DEV_VERSION_MAJOR << 16 | AXON_DEV_VERSION_MINOR);
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
            cmd.mr.reserved0 = cpu_to_le16(1);
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

#define GPU_VRAM (16 * 1024 * 1024)

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

/* ---- axon-gpu ----------------------------------------------------------- */

/* Size and flags of a memory BAR, probed the way firmware does. */
static uint64_t bar_size(QPCIDevice *dev, int bar, uint32_t *flags)
{
    uint8_t reg = PCI_BASE_ADDRESS_0 + bar * 4;
    uint32_t lo = qpci_config_readl(dev, reg);
    uint64_t mask;

    *flags = lo & ~PCI_BASE_ADDRESS_MEM_MASK;
    qpci_config_writel(dev, reg, 0xffffffff);
    mask = qpci_config_readl(dev, reg) & PCI_BASE_ADDRESS_MEM_MASK;
    qpci_config_writel(dev, reg, lo);
    if (*flags & PCI_BASE_ADDRESS_MEM_TYPE_64) {
        uint32_t hi = qpci_config_readl(dev, reg + 4);

        qpci_config_writel(dev, reg + 4, 0xffffffff);
        mask |= (uint64_t)qpci_config_readl(dev, reg + 4) << 32;
        qpci_config_writel(dev, reg + 4, hi);
    } else {
        mask |= 0xffffffff00000000ULL;
    }
    return ~mask + 1;
}

static void test_gpu_identity(void)
{
    QTestState *qts = qtest_init("-m 128M -device axon-gpu,addr=05.0,"
                                 "vram-size=16M -device axon-gpu,addr=06.0");
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    uint64_t sizes[2] = { 16 * 1024 * 1024, 1024 * 1024 * 1024 };
    uint32_t flags;

    for (int i = 0; i < 2; i++) {
        QPCIDevice *dev = qpci_device_find(bus, QPCI_DEVFN(5 + i, 0));
        QPCIBar regs;

        g_assert(dev);
        g_assert_cmphex(qpci_config_readw(dev, PCI_VENDOR_ID), ==,
                        AXON_PCI_VENDOR_ID);
        g_assert_cmphex(qpci_config_readw(dev, PCI_DEVICE_ID), ==,
                        AXON_PCI_DEVICE_ID_GPU);
        g_assert_cmphex(qpci_config_readl(dev, PCI_CLASS_REVISION) >> 8, ==,
                        AXON_GPU_PCI_CLASS);
        g_assert_cmpuint(bar_size(dev, AXON_GPU_BAR_REGS, &flags), ==,
                         AXON_GPU_REGS_SIZE);
        g_assert_cmphex(flags, ==, PCI_BASE_ADDRESS_SPACE_MEMORY);
        g_assert_cmpuint(bar_size(dev, AXON_GPU_BAR_VRAM, &flags), ==,
                         sizes[i]);
        g_assert_cmphex(flags, ==, PCI_BASE_ADDRESS_SPACE_MEMORY |
                        PCI_BASE_ADDRESS_MEM_TYPE_64 |
                        PCI_BASE_ADDRESS_MEM_PREFETCH);
        /* nothing else: no BAR 1, no BAR 4/5, no interrupt */
        g_assert_cmphex(qpci_config_readl(dev, PCI_BASE_ADDRESS_1), ==, 0);
        g_assert_cmphex(qpci_config_readl(dev, PCI_BASE_ADDRESS_4), ==, 0);
        g_assert_cmphex(qpci_config_readb(dev, PCI_INTERRUPT_PIN), ==, 0);

        qpci_device_enable(dev);
        regs = qpci_iomap(dev, AXON_GPU_BAR_REGS, NULL);
        g_assert_cmphex(qpci_io_readl(dev, regs, AXON_GPU_REG_MAGIC), ==,
                        AXON_GPU_MAGIC);
        g_assert_cmphex(qpci_io_readl(dev, regs, AXON_GPU_REG_VERSION), ==,
                        AXON_GPU_VERSION_MAJOR << 16 | AXON_GPU_VERSION_MINOR);
        g_assert_cmphex(qpci_io_readl(dev, regs, AXON_GPU_REG_VRAM_SIZE_LO),
                        ==, (uint32_t)sizes[i]);
        g_assert_cmphex(qpci_io_readl(dev, regs, AXON_GPU_REG_VRAM_SIZE_HI),
                        ==, sizes[i] >> 32);
        /* other offsets read 0, writes change nothing */
        g_assert_cmphex(qpci_io_readl(dev, regs, 0x10), ==, 0);
        g_assert_cmphex(qpci_io_readl(dev, regs, AXON_GPU_REGS_SIZE - 4), ==,
                        0);
        qpci_io_writel(dev, regs, AXON_GPU_REG_MAGIC, 0);
        qpci_io_writel(dev, regs, AXON_GPU_REG_VRAM_SIZE_LO, 1);
        qpci_io_writel(dev, regs, 0x10, 1);
        g_assert_cmphex(qpci_io_readl(dev, regs, AXON_GPU_REG_MAGIC), ==,
                        AXON_GPU_MAGIC);
        g_assert_cmphex(qpci_io_readl(dev, regs, AXON_GPU_REG_VRAM_SIZE_LO),
                        ==, (uint32_t)sizes[i]);
        g_assert_cmphex(qpci_io_readl(dev, regs, 0x10), ==, 0);
        g_free(dev);
    }
    qpci_free_pc(bus);
    qtest_quit(qts);
}

/* BAR 2 is memory: what is written reads back, at either end. */
static void test_gpu_vram(void)
{
    QTestState *qts = qtest_init("-m 128M -device axon-gpu,addr=05.0,"
                                 "vram-size=16M");
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    QPCIDevice *dev = qpci_device_find(bus, QPCI_DEVFN(5, 0));
    g_autofree uint8_t *data = pattern(8192, 7);
    g_autofree uint8_t *got = g_malloc(8192);
    QPCIBar vram;
    uint64_t size;

    g_assert(dev);
    qpci_device_enable(dev);
    vram = qpci_iomap(dev, AXON_GPU_BAR_VRAM, &size);
    g_assert_cmpuint(size, ==, 16 * 1024 * 1024);
    /* starts zeroed */
    qpci_memread(dev, vram, 0, got, 8192);
    for (int i = 0; i < 8192; i++) {
        g_assert_cmpuint(got[i], ==, 0);
    }
    qpci_io_writel(dev, vram, 0, 0x12345678);
    qpci_io_writeq(dev, vram, size - 8, 0x1122334455667788ULL);
    g_assert_cmphex(qpci_io_readl(dev, vram, 0), ==, 0x12345678);
    g_assert_cmphex(qpci_io_readb(dev, vram, 1), ==, 0x56);
    g_assert_cmphex(qpci_io_readq(dev, vram, size - 8), ==,
                    0x1122334455667788ULL);
    qpci_memwrite(dev, vram, 0x12345, data, 8192);
    qpci_memread(dev, vram, 0x12345, got, 8192);
    g_assert_cmpmem(got, 8192, data, 8192);
    /* the same bytes at the BAR's bus address, as a peer DMAs them */
    qtest_memread(qts, vram.addr + 0x12345, got, 8192);
    g_assert_cmpmem(got, 8192, data, 8192);
    g_free(dev);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

/* vram-size must be a power of 2 within the limits. */
static void test_gpu_bad_vram_size(void)
{
    QTestState *qts = qtest_init("-m 128M");
    const int64_t bad[] = {
        0, 3 * 1024 * 1024, AXON_GPU_VRAM_MIN_SIZE / 2,
        AXON_GPU_VRAM_MAX_SIZE * 2, AXON_GPU_VRAM_MIN_SIZE + 4096,
    };
    QDict *resp;

    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        resp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments': {"
                         "'driver': 'axon-gpu', 'id': 'g', "
                         "'vram-size': %" PRId64 "}}", bad[i]);
        g_assert(qdict_haskey(resp, "error"));
        g_assert_nonnull(strstr(qdict_get_str(qdict_get_qdict(resp, "error"),
                                              "desc"), "vram-size"));
        qobject_unref(resp);
    }
    /* the smallest good size is accepted */
    qtest_qmp_assert_success(qts, "{'execute': 'device_add', 'arguments': {"
                             "'driver': 'axon-gpu', 'id': 'g', "
                             "'vram-size': %" PRId64 "}}",
                             (int64_t)AXON_GPU_VRAM_MIN_SIZE);
    qtest_quit(qts);
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
    qtest_add_func("/axon-nic/rdma-query", test_rdma_query);
    qtest_add_func("/axon-nic/rdma-mr", test_rdma_mr);
    qtest_add_func("/axon-nic/rdma-cq-qp", test_rdma_cq_qp);
    qtest_add_func("/axon-nic/rdma-doorbells", test_rdma_doorbells);
    qtest_add_func("/axon-nic/rdma-cq-overflow", test_rdma_cq_overflow);
    qtest_add_func("/axon-nic/rdma-write", test_rdma_write);
    qtest_add_func("/axon-nic/rdma-peer", test_rdma_peer);
    qtest_add_func("/axon-nic/rdma-send-recv", test_rdma_send_recv);
    qtest_add_func("/axon-nic/rdma-engine-budget", test_rdma_engine_budget);
    qtest_add_func("/axon-nic/rdma-send-stream", test_rdma_send_stream);
    qtest_add_func("/axon-nic/rdma-ceq-full", test_rdma_ceq_full);
    qtest_add_func("/axon-nic/rdma-read-atomic", test_rdma_read_atomic);
    qtest_add_func("/axon-nic/rdma-errors", test_rdma_errors);
    qtest_add_func("/axon-nic/rdma-garbage-wqe", test_rdma_garbage_wqe);
    qtest_add_func("/axon-nic/rdma-wire", test_rdma_wire);
    qtest_add_func("/axon-nic/rdma-wire-loss", test_rdma_wire_loss);
    qtest_add_func("/axon-nic/rdma-forged-read", test_rdma_forged_read);
    qtest_add_func("/axon-nic/rdma-forged-atomic", test_rdma_forged_atomic);
    qtest_add_func("/axon-nic/rdma-forged-requests",
                   test_rdma_forged_requests);
    qtest_add_func("/axon-nic/rdma-forged-responses",
                   test_rdma_forged_responses);
    qtest_add_func("/axon-nic/rdma-key-draw", test_rdma_key_draw);
    qtest_add_func("/axon-nic/rdma-invalidate-cmds",
                   test_rdma_invalidate_cmds);
    qtest_add_func("/axon-nic/rdma-invalidate-access",
                   test_rdma_invalidate_access);
    qtest_add_func("/axon-nic/rdma-peer-mr", test_rdma_peer_mr);
    qtest_add_func("/axon-gpu/identity", test_gpu_identity);
    qtest_add_func("/axon-gpu/vram", test_gpu_vram);
    qtest_add_func("/axon-gpu/bad-vram-size", test_gpu_bad_vram_size);

    return g_test_run();
}
