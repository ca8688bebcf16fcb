/*
 * axon-nic qtest fixtures (see axon-nic-qos.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-nic-qos.h"

const uint8_t gid_v6[16] = {
    0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0, 0xff, 0xfe, 0x12, 0x34, 0x56,
};

uint32_t rd(Axon *a, uint32_t reg)
{
    return qpci_io_readl(a->dev, a->bar, reg);
}

void wr(Axon *a, uint32_t reg, uint32_t val)
{
    qpci_io_writel(a->dev, a->bar, reg, val);
}

Axon *axon_attach(QTestState *qts)
{
    Axon *a = g_new0(Axon, 1);

    a->qts = qts;
    a->bus = qpci_new_pc(a->qts, NULL);
    a->dev = qpci_device_find(a->bus, QPCI_DEVFN(4, 0));
    g_assert(a->dev);
    qpci_device_enable(a->dev);
    a->bar = qpci_iomap(a->dev, AXON_BAR_REGS, NULL);
    a->wire_fd = -1;
    return a;
}

Axon *axon_start(const char *extra)
{
    return axon_attach(qtest_initf("-m 128M -device axon-nic,addr=04.0%s",
                                   extra ? extra : ""));
}

void axon_step(Axon *a, int64_t ns)
{
    qtest_clock_step(a->qts, ns);
    if (a->run_main_loop) {
        a->run_main_loop(a->qts);
    }
}

/* A free local UDP port for the device's socket netdev. */
int free_udp_port(void)
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
Axon *axon_start_wire(const char *extra)
{
    int port = free_udp_port();
    g_autofree char *args = g_strdup_printf(
        ",netdev=n0%s -netdev socket,id=n0,udp=127.0.0.1:%d,"
        "localaddr=127.0.0.1:%d", extra ? extra : "", port, port);
    Axon *a = axon_start(args);

    wire_open(a, port);
    return a;
}

/*
 * The same wire through QEMU's l2tpv3 backend (UDP mode, no cookie, no
 * counter), whose socket takes a 4 MiB receive buffer (qemu-model/patches)
 * where the socket backend's keeps about 90 frames: for a test that
 * sends the device more at once. inject() adds the 8-byte header.
 */
Axon *axon_start_l2tp_wire(const char *extra)
{
    int port = free_udp_port();
    g_autofree char *args = g_strdup_printf(
        ",netdev=n0%s -netdev l2tpv3,id=n0,udp=on,src=127.0.0.1,"
        "dst=127.0.0.1,srcport=%d,dstport=%d,txsession=1,rxsession=1,"
        "counter=off", extra ? extra : "", port, port);
    Axon *a = axon_start(args);

    wire_open(a, port);
    stl_be_p(a->wire_hdr, 0x30000);             /* an L2TPv3 data packet */
    stl_be_p(a->wire_hdr + 4, 1);               /* session 1 */
    a->wire_hdr_len = 8;
    return a;
}

void wire_open(Axon *a, int port)
{
    a->wire_fd = socket(AF_INET, SOCK_DGRAM, 0);
    g_assert_cmpint(a->wire_fd, >=, 0);
    a->wire_addr.sin_family = AF_INET;
    a->wire_addr.sin_port = htons(port);
    a->wire_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

void axon_stop(Axon *a)
{
    if (a->wire_fd >= 0) {
        close(a->wire_fd);
    }
    g_free(a->dev);
    qpci_free_pc(a->bus);
    qtest_quit(a->qts);
    g_free(a);
}

void program_queues(Axon *a, uint64_t sq, uint32_t sqd, uint64_t cq,
                    uint32_t cqd, uint64_t eq, uint32_t eqd)
{
    wr(a, AXON_REG_AQ_SQ_BASE_LO, AXON_REG_LO(sq));
    wr(a, AXON_REG_AQ_SQ_BASE_HI, AXON_REG_HI(sq));
    wr(a, AXON_REG_AQ_SQ_DEPTH, sqd);
    wr(a, AXON_REG_AQ_CQ_BASE_LO, AXON_REG_LO(cq));
    wr(a, AXON_REG_AQ_CQ_BASE_HI, AXON_REG_HI(cq));
    wr(a, AXON_REG_AQ_CQ_DEPTH, cqd);
    wr(a, AXON_REG_EQ_BASE_LO, AXON_REG_LO(eq));
    wr(a, AXON_REG_EQ_BASE_HI, AXON_REG_HI(eq));
    wr(a, AXON_REG_EQ_DEPTH, eqd);
}

/* Reset, zero the rings, program them and enable; returns AXON_REG_ERROR. */
uint32_t axon_enable(Axon *a, uint32_t sqd, uint32_t cqd, uint32_t eqd)
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

void setup_msix(Axon *a, unsigned vector, uint64_t addr, uint32_t data)
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

void submit(Axon *a, struct axon_admin_cmd *cmd)
{
    cmd->command_id = cpu_to_le16(a->next_cid++);
    qtest_memwrite(a->qts, SQ_ADDR + a->sq_tail * sizeof(*cmd), cmd,
                   sizeof(*cmd));
    a->sq_tail = (a->sq_tail + 1) % a->sq_depth;
    wr(a, AXON_REG_AQ_SQ_TAIL, a->sq_tail);
}

/* Wait for the next completion; returns false if none arrives. */
bool reap(Axon *a, struct axon_admin_cqe *cqe)
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
        axon_step(a, 1000);
    }
    return false;
}

uint16_t run_cmd(Axon *a, struct axon_admin_cmd *cmd, uint64_t *result)
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

uint16_t query(Axon *a, uint16_t opcode, uint64_t addr, uint32_t len,
               uint32_t port)
{
    struct axon_admin_cmd cmd = {};

    cmd.opcode = cpu_to_le16(opcode);
    cmd.query.resp_addr = cpu_to_le64(addr);
    cmd.query.resp_len = cpu_to_le32(len);
    cmd.query.port = cpu_to_le32(port);
    return run_cmd(a, &cmd, NULL);
}

bool wait_word(Axon *a, uint64_t addr, uint32_t want)
{
    for (int i = 0; i < POLL_LIMIT; i++) {
        if (qtest_readl(a->qts, addr) == want) {
            return true;
        }
        axon_step(a, 1000);
    }
    return false;
}

void read_event(Axon *a, struct axon_event *ev)
{
    qtest_memread(a->qts, EQ_ADDR + a->eq_head * sizeof(*ev), ev, sizeof(*ev));
}

bool take_event(Axon *a, struct axon_event *ev)
{
    for (int i = 0; i < POLL_LIMIT / 10; i++) {
        read_event(a, ev);
        if (!!(le16_to_cpu(ev->flags) & AXON_EVENT_PHASE) == a->eq_phase) {
            if (++a->eq_head == a->eq_depth) {
                a->eq_head = 0;
                a->eq_phase = !a->eq_phase;
            }
            wr(a, AXON_REG_EQ_HEAD, a->eq_head);
            return true;
        }
        axon_step(a, 1000);
    }
    return false;
}

void program_eth(Axon *a, uint64_t tx, uint32_t txd, uint64_t rx,
                 uint32_t rxd, uint32_t mtu)
{
    wr(a, AXON_REG_ETH_TX_BASE_LO, AXON_REG_LO(tx));
    wr(a, AXON_REG_ETH_TX_BASE_HI, AXON_REG_HI(tx));
    wr(a, AXON_REG_ETH_TX_DEPTH, txd);
    wr(a, AXON_REG_ETH_RX_BASE_LO, AXON_REG_LO(rx));
    wr(a, AXON_REG_ETH_RX_BASE_HI, AXON_REG_HI(rx));
    wr(a, AXON_REG_ETH_RX_DEPTH, rxd);
    wr(a, AXON_REG_ETH_MTU, mtu);
}

/* Admin queues up, then the Ethernet rings; returns AXON_REG_ERROR. */
uint32_t eth_enable(Axon *a, uint32_t txd, uint32_t rxd, uint32_t mtu)
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

uint64_t rx_buf(uint32_t idx)
{
    return RXBUF_ADDR + idx * BUF_STRIDE;
}

void write_desc(Axon *a, uint64_t ring, uint32_t idx, uint64_t addr,
                uint16_t len)
{
    struct axon_eth_desc d = {
        .addr = cpu_to_le64(addr),
        .buf_len = cpu_to_le16(len),
    };

    qtest_memwrite(a->qts, ring + idx * DESC_SIZE, &d, sizeof(d));
}

/* Posts one RX buffer of buf_len bytes at addr (0: the default one). */
uint32_t post_rx_at(Axon *a, uint64_t addr, uint16_t buf_len)
{
    uint32_t idx = a->rx_tail;

    write_desc(a, ERX_ADDR, idx, addr ? addr : rx_buf(idx), buf_len);
    qtest_memset(a->qts, rx_buf(idx), 0, BUF_STRIDE);
    a->rx_tail = (a->rx_tail + 1) % a->rx_depth;
    wr(a, AXON_REG_ETH_RX_TAIL, a->rx_tail);
    return idx;
}

void post_rx(Axon *a, unsigned n)
{
    while (n--) {
        post_rx_at(a, 0, BUF_STRIDE);
    }
}

/* Queues a TX descriptor (frame already in guest memory at addr). */
uint32_t tx_desc(Axon *a, uint64_t addr, uint16_t len)
{
    uint32_t idx = a->tx_tail;

    write_desc(a, ETX_ADDR, idx, addr, len);
    a->tx_tail = (a->tx_tail + 1) % a->tx_depth;
    wr(a, AXON_REG_ETH_TX_TAIL, a->tx_tail);
    return idx;
}

uint32_t tx_frame(Axon *a, const void *frame, uint16_t len)
{
    uint64_t addr = TXBUF_ADDR + a->tx_tail * BUF_STRIDE;

    qtest_memwrite(a->qts, addr, frame, len);
    return tx_desc(a, addr, len);
}

/* Waits until the device has written back the descriptor's flags. */
uint16_t wait_desc(Axon *a, uint64_t ring, uint32_t idx)
{
    for (int i = 0; i < POLL_LIMIT; i++) {
        uint16_t flags = qtest_readw(a->qts, ring + idx * DESC_SIZE +
                                     DESC_FLAGS);
        if (flags) {
            return flags;
        }
        axon_step(a, 1000);
    }
    return 0;
}

bool wait_reg(Axon *a, uint32_t reg, uint32_t want)
{
    for (int i = 0; i < POLL_LIMIT; i++) {
        if (rd(a, reg) == want) {
            return true;
        }
        axon_step(a, 1000);
    }
    return false;
}

uint16_t rx_len(Axon *a, uint32_t idx)
{
    return qtest_readw(a->qts, ERX_ADDR + idx * DESC_SIZE + DESC_LEN);
}

/* Checks that RX buffer idx holds exactly this frame. */
void check_rx(Axon *a, uint32_t idx, const uint8_t *frame, size_t len)
{
    g_autofree uint8_t *got = g_malloc(len + 1);

    g_assert_cmphex(wait_desc(a, ERX_ADDR, idx), ==, AXON_ETH_DESC_DONE);
    g_assert_cmpuint(rx_len(a, idx), ==, len);
    qtest_memread(a->qts, rx_buf(idx), got, len + 1);
    g_assert_cmpmem(got, len, frame, len);
    g_assert_cmpuint(got[len], ==, 0);
}

void inject(Axon *a, const void *frame, size_t len)
{
    struct iovec iov[2] = {
        { .iov_base = a->wire_hdr, .iov_len = a->wire_hdr_len },
        { .iov_base = (void *)frame, .iov_len = len },
    };
    struct msghdr msg = {
        .msg_name = &a->wire_addr, .msg_namelen = sizeof(a->wire_addr),
        .msg_iov = iov, .msg_iovlen = 2,
    };

    g_assert_cmpint(sendmsg(a->wire_fd, &msg, 0), ==, a->wire_hdr_len + len);
}

/* An Ethernet frame of len bytes: header, then a pattern from seed. */
uint8_t *make_frame(size_t len, uint16_t ethertype, uint8_t seed)
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

/*
 * IPv4 or IPv6 / UDP to dport, optionally VLAN-tagged, with payload_len
 * bytes after the UDP header; returns the frame, its length in *len.
 */
uint8_t *make_udp(int l3, bool vlan, uint16_t dport, uint16_t frag,
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

void set_link(Axon *a, const char *name, bool up)
{
    QDict *rsp = qtest_qmp(a->qts, "{'execute': 'set_link', 'arguments': "
                           "{'name': %s, 'up': %i}}", name, up);

    g_assert(qdict_haskey(rsp, "return"));
    qobject_unref(rsp);
}

uint32_t port_state(Axon *a)
{
    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_PORT, RESP_ADDR, 4096, 1), ==,
                     AXON_ADMIN_SUCCESS);
    return qtest_readl(a->qts, RESP_ADDR);
}

uint16_t set_gid(Axon *a, uint32_t port, uint32_t index, uint32_t type,
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

uint16_t cmd_result(Axon *a, struct axon_admin_cmd *cmd, uint16_t op,
                    uint64_t *result)
{
    cmd->opcode = cpu_to_le16(op);
    return run_cmd(a, cmd, result);
}

uint16_t create_pd(Axon *a, uint64_t *pdn)
{
    struct axon_admin_cmd cmd = {};

    return cmd_result(a, &cmd, AXON_ADMIN_CREATE_PD, pdn);
}

uint16_t create_mr(Axon *a, uint32_t pdn, uint32_t access,
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

uint16_t destroy_mr(Axon *a, uint32_t key)
{
    struct axon_admin_cmd cmd = {};

    cmd.mr.key = cpu_to_le32(key);
    return cmd_result(a, &cmd, AXON_ADMIN_DESTROY_MR, NULL);
}

uint16_t create_mw(Axon *a, uint32_t pdn, uint16_t flags, uint64_t *key)
{
    struct axon_admin_cmd cmd = {};

    cmd.mr.pdn = cpu_to_le32(pdn);
    cmd.mr.flags = cpu_to_le16(flags);
    return cmd_result(a, &cmd, AXON_ADMIN_CREATE_MR, key);
}

uint16_t create_cq_flags(Axon *a, uint64_t ring, uint32_t depth,
                         uint32_t uar, uint8_t flags, uint64_t *cqn)
{
    struct axon_admin_cmd cmd = {};

    cmd.cq.ring_addr = cpu_to_le64(ring);
    cmd.cq.depth = cpu_to_le32(depth);
    cmd.cq.uar = cpu_to_le32(uar);
    cmd.cq.flags = flags;
    return cmd_result(a, &cmd, AXON_ADMIN_CREATE_CQ, cqn);
}

uint16_t create_cq(Axon *a, uint64_t ring, uint32_t depth, uint32_t uar,
                   uint64_t *cqn)
{
    return create_cq_flags(a, ring, depth, uar, 0, cqn);
}

uint16_t destroy_cq(Axon *a, uint32_t cqn)
{
    struct axon_admin_cmd cmd = {};

    cmd.cq.cqn = cpu_to_le32(cqn);
    return cmd_result(a, &cmd, AXON_ADMIN_DESTROY_CQ, NULL);
}

uint16_t resize_cq(Axon *a, uint32_t cqn, uint64_t ring, uint32_t depth)
{
    struct axon_admin_cmd cmd = {};

    cmd.cq.cqn = cpu_to_le32(cqn);
    cmd.cq.ring_addr = cpu_to_le64(ring);
    cmd.cq.depth = cpu_to_le32(depth);
    return cmd_result(a, &cmd, AXON_ADMIN_RESIZE_CQ, NULL);
}

void create_qp_cmd(struct axon_admin_cmd *cmd, uint32_t pdn, uint32_t scqn,
                   uint32_t rcqn, uint64_t sq, uint16_t depth)
{
    memset(cmd, 0, sizeof(*cmd));
    cmd->create_qp.pdn = cpu_to_le32(pdn);
    cmd->create_qp.send_cqn = cpu_to_le32(scqn);
    cmd->create_qp.recv_cqn = cpu_to_le32(rcqn);
    cmd->create_qp.uar = cpu_to_le32(R_UAR);
    cmd->create_qp.sq_addr = cpu_to_le64(sq);
    cmd->create_qp.sq_depth = cpu_to_le16(depth);
    cmd->create_qp.sq_wqe_shift = R_WQE_SHIFT;
}

uint16_t create_qp(Axon *a, uint32_t pdn, uint32_t scqn, uint32_t rcqn,
                   uint64_t sq, uint64_t rq, uint16_t depth,
                   uint8_t sig_all, uint64_t *qpn)
{
    struct axon_admin_cmd cmd;

    create_qp_cmd(&cmd, pdn, scqn, rcqn, sq, depth);
    cmd.create_qp.rq_addr = cpu_to_le64(rq);
    cmd.create_qp.rq_depth = cpu_to_le16(depth);
    cmd.create_qp.rq_wqe_shift = R_WQE_SHIFT;
    cmd.create_qp.sq_sig_all = sig_all;
    return cmd_result(a, &cmd, AXON_ADMIN_CREATE_QP, qpn);
}

uint16_t qp_cmd(Axon *a, uint16_t op, uint32_t qpn, uint32_t mask,
                uint64_t addr)
{
    struct axon_admin_cmd cmd = {};

    cmd.qp.qpn = cpu_to_le32(qpn);
    cmd.qp.attr_mask = cpu_to_le32(mask);
    cmd.qp.attr_addr = cpu_to_le64(addr);
    return cmd_result(a, &cmd, op, NULL);
}

uint16_t modify_qp(Axon *a, uint32_t qpn, uint32_t mask,
                   const struct axon_qp_attr *attr)
{
    qtest_memwrite(a->qts, ATTR_ADDR, attr, sizeof(*attr));
    return qp_cmd(a, AXON_ADMIN_MODIFY_QP, qpn, mask, ATTR_ADDR);
}

uint32_t qp_state(Axon *a, uint32_t qpn)
{
    g_assert_cmpuint(qp_cmd(a, AXON_ADMIN_QUERY_QP, qpn, 0, ATTR_ADDR), ==,
                     AXON_ADMIN_SUCCESS);
    return qtest_readl(a->qts, ATTR_ADDR);
}

void qp_live(Axon *a, uint32_t qpn, struct axon_qp_live *st)
{
    g_assert_cmpuint(qp_cmd(a, AXON_ADMIN_QUERY_QP_LIVE, qpn, 0, ATTR_ADDR),
                     ==, AXON_ADMIN_SUCCESS);
    qtest_memread(a->qts, ATTR_ADDR, st, sizeof(*st));
}

void rdma_enable(Axon *a)
{
    wr(a, AXON_REG_CTRL, AXON_CTRL_RESET);
    qtest_memset(a->qts, SQ_ADDR, 0, 0x10000);
    qtest_memset(a->qts, CQ_ADDR, 0, 0x10000);
    qtest_memset(a->qts, EQ_ADDR, 0, 0x10000);
    qtest_memset(a->qts, CEQ_ADDR, 0, 0x10000);
    program_queues(a, SQ_ADDR, 16, CQ_ADDR, 16, EQ_ADDR, 16);
    wr(a, AXON_REG_CEQ_BASE_LO, AXON_REG_LO(CEQ_ADDR));
    wr(a, AXON_REG_CEQ_BASE_HI, AXON_REG_HI(CEQ_ADDR));
    wr(a, AXON_REG_CEQ_DEPTH, 64);
    wr(a, AXON_REG_CTRL, AXON_CTRL_ENABLE);
    g_assert_cmpuint(rd(a, AXON_REG_ERROR), ==, AXON_DEV_ERR_NONE);
    a->sq_depth = a->cq_depth = a->eq_depth = 16;
    a->sq_tail = a->cq_head = a->eq_head = 0;
    a->cq_phase = a->eq_phase = true;
}

/* Region i: MEM_PAGES pages, listed in a shuffled order behind iova. */
void make_mr(Rdma *r, int i, uint32_t access)
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
void mr_access(Rdma *r, int i, uint64_t va, void *buf, size_t len,
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

uint16_t create_qp_srq(Axon *a, uint32_t pdn, uint32_t scqn, uint32_t rcqn,
                       uint64_t sq, uint32_t srqn, uint64_t *qpn)
{
    struct axon_admin_cmd cmd;

    create_qp_cmd(&cmd, pdn, scqn, rcqn, sq, R_WQ_DEPTH);
    cmd.create_qp.srqn = cpu_to_le32(srqn);
    return cmd_result(a, &cmd, AXON_ADMIN_CREATE_QP, qpn);
}

uint16_t create_qp_type(Rdma *r, TQp *qp, uint8_t type, uint64_t sq,
                        uint64_t rq, TCq *cq)
{
    struct axon_admin_cmd cmd;
    uint64_t qpn;
    uint16_t st;

    *qp = (TQp){ .sq = sq, .rq = rq, .scq = cq, .rcq = cq };
    create_qp_cmd(&cmd, r->pdn, cq->cqn, cq->cqn, sq, R_WQ_DEPTH);
    cmd.create_qp.rq_addr = cpu_to_le64(rq);
    cmd.create_qp.rq_depth = cpu_to_le16(R_WQ_DEPTH);
    cmd.create_qp.rq_wqe_shift = R_WQE_SHIFT;
    cmd.create_qp.type = type;
    st = cmd_result(r->a, &cmd, AXON_ADMIN_CREATE_QP, &qpn);
    qp->qpn = qpn;
    return st;
}

void ud_to_rts(Rdma *r, TQp *qp, uint32_t qkey, uint32_t sq_psn)
{
    struct axon_qp_attr at = {
        .state = cpu_to_le32(AXON_QPS_INIT),
        .qkey = cpu_to_le32(qkey),
        .sq_psn = cpu_to_le32(sq_psn),
    };

    g_assert_cmpuint(modify_qp(r->a, qp->qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_QKEY, &at), ==,
                     AXON_ADMIN_SUCCESS);
    at.state = cpu_to_le32(AXON_QPS_RTR);
    g_assert_cmpuint(modify_qp(r->a, qp->qpn, AXON_QP_ATTR_STATE, &at), ==,
                     AXON_ADMIN_SUCCESS);
    at.state = cpu_to_le32(AXON_QPS_RTS);
    g_assert_cmpuint(modify_qp(r->a, qp->qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_SQ_PSN, &at), ==,
                     AXON_ADMIN_SUCCESS);
}

/* The fixture's path to its own address: its MAC, GID 0 (v4) or 1 (v6). */
static void own_path(Rdma *r, uint8_t *dmac, uint8_t *dgid,
                     uint8_t *sgid_index)
{
    memcpy(dmac, "\x52\x54\x00\x12\x34\x56", 6);
    memset(dgid, 0, 16);
    if (r->v6) {
        memcpy(dgid, gid_v6, 16);
        *sgid_index = 1;
    } else {
        dgid[10] = dgid[11] = 0xff;
        dgid[12] = 10;
        dgid[15] = 1;
        *sgid_index = 0;
    }
}

void own_av(Rdma *r, struct axon_ud_av *av)
{
    memset(av, 0, sizeof(*av));
    own_path(r, av->dmac, av->dgid, &av->sgid_index);
    av->flags = r->v6 ? 0 : AXON_AV_IPV4;
}

void uc_connect(Rdma *r, TQp *qp, uint32_t dest, uint32_t sq_psn,
                uint32_t rq_psn)
{
    struct axon_qp_attr at = {
        .state = cpu_to_le32(AXON_QPS_INIT),
        .access = cpu_to_le32(AXON_ACCESS_REMOTE_WRITE),
        .dest_qpn = cpu_to_le32(dest),
        .rq_psn = cpu_to_le32(rq_psn),
        .sq_psn = cpu_to_le32(sq_psn),
        .path_mtu = cpu_to_le32(R_MTU),
    };

    own_path(r, at.dmac, at.dgid, &at.sgid_index);
    g_assert_cmpuint(modify_qp(r->a, qp->qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_ACCESS, &at), ==,
                     AXON_ADMIN_SUCCESS);
    at.state = cpu_to_le32(AXON_QPS_RTR);
    g_assert_cmpuint(modify_qp(r->a, qp->qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_PATH | AXON_QP_ATTR_PATH_MTU |
                               AXON_QP_ATTR_DEST_QPN | AXON_QP_ATTR_RQ_PSN,
                               &at), ==, AXON_ADMIN_SUCCESS);
    at.state = cpu_to_le32(AXON_QPS_RTS);
    g_assert_cmpuint(modify_qp(r->a, qp->qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_SQ_PSN, &at), ==,
                     AXON_ADMIN_SUCCESS);
}

uint16_t modify_qp_result(Axon *a, uint32_t qpn, uint32_t mask,
                          const struct axon_qp_attr *attr, uint64_t *result)
{
    struct axon_admin_cmd cmd = {};

    qtest_memwrite(a->qts, ATTR_ADDR, attr, sizeof(*attr));
    cmd.qp.qpn = cpu_to_le32(qpn);
    cmd.qp.attr_mask = cpu_to_le32(mask);
    cmd.qp.attr_addr = cpu_to_le64(ATTR_ADDR);
    return cmd_result(a, &cmd, AXON_ADMIN_MODIFY_QP, result);
}

void init_qp(Rdma *r, TQp *qp)
{
    struct axon_qp_attr at = {};

    at.state = cpu_to_le32(AXON_QPS_INIT);
    at.access = cpu_to_le32(AXON_ACCESS_REMOTE_WRITE |
                            AXON_ACCESS_REMOTE_READ |
                            AXON_ACCESS_REMOTE_ATOMIC);
    g_assert_cmpuint(modify_qp_result(r->a, qp->qpn, AXON_QP_ATTR_STATE |
                                      AXON_QP_ATTR_ACCESS, &at, &qp->key),
                     ==, AXON_ADMIN_SUCCESS);
}

void ready_qp(Rdma *r, TQp *qp, uint32_t dest, uint32_t sq_psn,
              uint32_t rq_psn, uint8_t rnr_retry, uint64_t peer_key)
{
    Axon *a = r->a;
    struct axon_qp_attr at = {};

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
    at.peer_key_lo = cpu_to_le32(peer_key);
    at.peer_key_hi = cpu_to_le32(peer_key >> 32);
    g_assert_cmpuint(modify_qp(a, qp->qpn, AXON_QP_ATTR_STATE |
                               AXON_QP_ATTR_PATH | AXON_QP_ATTR_PATH_MTU |
                               AXON_QP_ATTR_DEST_QPN | AXON_QP_ATTR_RQ_PSN |
                               AXON_QP_ATTR_MAX_DEST_RD_ATOMIC |
                               AXON_QP_ATTR_MIN_RNR_TIMER |
                               (peer_key ? AXON_QP_ATTR_PEER_KEY : 0), &at),
                     ==, AXON_ADMIN_SUCCESS);
    memset(&at, 0, sizeof(at));
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

void connect_qp(Rdma *r, TQp *qp, uint32_t dest, uint32_t sq_psn,
                uint32_t rq_psn, uint8_t rnr_retry)
{
    init_qp(r, qp);
    ready_qp(r, qp, dest, sq_psn, rq_psn, rnr_retry, 0);
}

void connect_rud(Rdma *r, TQp *u, uint32_t psn0, uint32_t psn1)
{
    init_qp(r, &u[0]);
    init_qp(r, &u[1]);
    g_assert_cmphex(u[0].key, !=, 0);
    g_assert_cmphex(u[1].key, !=, 0);
    g_assert_cmphex(u[0].key, !=, u[1].key);
    ready_qp(r, &u[0], u[1].qpn, psn0, psn1, 7, u[1].key);
    ready_qp(r, &u[1], u[0].qpn, psn1, psn0, 7, u[0].key);
}

/*
 * Two QPs of this device connected to each other: in loopback, or, with
 * wire_args, through RoCEv2 frames on a socket netdev that sends to itself.
 * dev_args (loopback only) adds to the command line after the device.
 */
Rdma *rdma_setup_on(const char *wire_args, uint8_t rnr_retry,
                    bool v6, const char *dev_args)
{
    Axon *a;

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
    return rdma_bring_up(a, wire_args != NULL, rnr_retry, v6);
}

Rdma *rdma_setup_l2tp(const char *wire_args)
{
    g_autofree char *args = g_strdup_printf(",mac=" T_MAC
                                            ",x-wire-loopback=on%s",
                                            wire_args ? wire_args : "");

    return rdma_bring_up(axon_start_l2tp_wire(args), true, 7, false);
}

Rdma *rdma_bring_up(Axon *a, bool wire, uint8_t rnr_retry, bool v6)
{
    Rdma *r = g_new0(Rdma, 1);

    r->a = a;
    r->v6 = v6;
    r->db = qpci_iomap(a->dev, AXON_BAR_DB, NULL);
    rdma_configure(r, wire, rnr_retry);
    return r;
}

void rdma_configure(Rdma *r, bool wire, uint8_t rnr_retry)
{
    Axon *a = r->a;
    uint64_t v;
    int i;

    *r = (Rdma){ .a = a, .v6 = r->v6, .db = r->db };
    rdma_enable(a);
    if (wire) {
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
    g_assert_cmpuint(set_gid(a, 1, 0, AXON_GID_TYPE_ROCE_V2, 0, 0), ==,
                     AXON_ADMIN_SUCCESS);
    if (r->v6) {
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
}

Rdma *rdma_setup(uint8_t rnr_retry)
{
    return rdma_setup_on(NULL, rnr_retry, false, NULL);
}

void rdma_stop(Rdma *r)
{
    axon_stop(r->a);
    g_free(r);
}

void ring(Rdma *r, uint32_t page, uint32_t reg, uint32_t id,
          uint32_t val)
{
    qpci_io_writel(r->a->dev, r->db,
                   page * AXON_DB_PAGE_SIZE + AXON_DB_OFFSET(reg, id),
                   AXON_DB_WORD(id, val));
}

struct axon_sge sge(Rdma *r, int mr, uint64_t off, uint32_t len)
{
    struct axon_sge s = {
        .addr = cpu_to_le64(r->mr[mr].iova + off),
        .length = cpu_to_le32(len),
        .lkey = cpu_to_le32(r->mr[mr].key),
    };
    return s;
}

void post_send(Rdma *r, TQp *qp, struct axon_send_wqe *w,
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

void post_bind_mw(Rdma *r, TQp *qp, uint32_t mw_key, uint32_t mr_key,
                  uint64_t addr, uint64_t len, uint8_t rights,
                  uint64_t wr_id)
{
    struct axon_send_wqe w = {
        .opcode = AXON_WR_BIND_MW,
        .flags = AXON_WQE_SIGNALED,
        .wr_id = cpu_to_le64(wr_id),
        .remote_addr = cpu_to_le64(addr),
        .rkey = cpu_to_le32(mw_key),
        .bind = {
            .length = cpu_to_le64(len),
            .mr_key = cpu_to_le32(mr_key),
            .access = rights,
        },
    };

    post_send(r, qp, &w, NULL, NULL);
}

void post_rdma0(Rdma *r, uint8_t opcode, uint32_t rkey, uint64_t raddr,
                uint32_t len, uint64_t wr_id)
{
    struct axon_send_wqe w = {
        .opcode = opcode,
        .flags = AXON_WQE_SIGNALED,
        .num_sge = 1,
        .wr_id = cpu_to_le64(wr_id),
        .remote_addr = cpu_to_le64(raddr),
        .rkey = cpu_to_le32(rkey),
    };
    struct axon_sge sg = sge(r, 0, 300000, len);

    post_send(r, &r->qp[0], &w, &sg, NULL);
}

void post_recv(Rdma *r, TQp *qp, uint64_t wr_id,
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

void post_sge_wqe(Rdma *r, TQp *qp, uint8_t opcode, uint8_t flags,
                  uint64_t wr_id, uint64_t off, uint32_t len, uint64_t roff,
                  uint32_t rkey)
{
    struct axon_send_wqe w = {
        .opcode = opcode,
        .flags = AXON_WQE_SIGNALED | flags,
        .num_sge = 1,
        .wr_id = cpu_to_le64(wr_id),
        .imm_data = cpu_to_be32(0xc0de0000 | (uint8_t)wr_id),
        .remote_addr = cpu_to_le64(r->mr[1].iova + roff),
        .rkey = cpu_to_le32(rkey),
    };
    struct axon_sge sg = sge(r, 0, off, len);

    post_send(r, qp, &w, &sg, NULL);
}

void post_sge_recv(Rdma *r, TQp *qp, uint64_t wr_id, uint64_t off,
                   uint32_t len)
{
    struct axon_sge sg = sge(r, 1, off, len);

    post_recv(r, qp, wr_id, &sg, 1);
}

uint64_t tcq_addr(const TCq *cq, uint64_t off)
{
    return cq->pages ? cq->pages[off / 4096] + off % 4096 : cq->ring + off;
}

bool poll_cq(Rdma *r, TCq *cq, struct axon_cqe *cqe)
{
    uint32_t depth = cq->depth ? cq->depth : R_CQ_DEPTH;
    uint32_t size = cq->cqe_size ? cq->cqe_size : AXON_CQE_SIZE;
    uint64_t addr = tcq_addr(cq, (cq->cons % depth) * size);
    bool phase = !((cq->cons / depth) & 1);

    for (int i = 0; i < POLL_LIMIT / 10; i++) {
        qtest_memread(r->a->qts, addr, cqe, sizeof(*cqe));
        if (!!(cqe->flags & AXON_CQE_PHASE) == phase) {
            cq->cons++;
            qtest_writel(r->a->qts, tcq_addr(cq, depth * size), cq->cons);
            return true;
        }
        axon_step(r->a, 100000);
    }
    return false;
}

/* A CQE that comes without the virtual clock moving: no timer in its way. */
bool poll_cq_now(Rdma *r, TCq *cq, struct axon_cqe *cqe)
{
    uint32_t depth = cq->depth ? cq->depth : R_CQ_DEPTH;
    uint32_t size = cq->cqe_size ? cq->cqe_size : AXON_CQE_SIZE;
    uint64_t addr = tcq_addr(cq, (cq->cons % depth) * size);
    bool phase = !((cq->cons / depth) & 1);

    for (int i = 0; i < 1000; i++) {
        qtest_memread(r->a->qts, addr, cqe, sizeof(*cqe));
        if (!!(cqe->flags & AXON_CQE_PHASE) == phase) {
            cq->cons++;
            qtest_writel(r->a->qts, tcq_addr(cq, depth * size), cq->cons);
            return true;
        }
    }
    return false;
}

void expect_cqe(Rdma *r, TCq *cq, uint64_t wr_id, uint8_t opcode,
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

uint8_t *pattern(size_t len, uint8_t seed)
{
    uint8_t *p = g_malloc(len);

    for (size_t i = 0; i < len; i++) {
        p[i] = seed + i * 7 + (i >> 8);
    }
    return p;
}

void check_mem(Rdma *r, int mr, uint64_t off, const uint8_t *want,
               size_t len)
{
    g_autofree uint8_t *got = g_malloc(len);

    mr_access(r, mr, r->mr[mr].iova + off, got, len, false);
    g_assert_cmpmem(got, len, want, len);
}

/* Size and flags of a memory BAR, probed the way firmware does. */
uint64_t bar_size(QPCIDevice *dev, int bar, uint32_t *flags)
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

void forge(Rdma *r, const Forged *f, uint32_t frames)
{
    uint8_t buf[FORGE_MAX_FRAME];
    uint32_t want = rd(r->a, AXON_REG_STAT_RX_ROCE) + frames;

    inject(r->a, buf, forge_frame(f, buf));
    for (int i = 0; i < POLL_LIMIT &&
         rd(r->a, AXON_REG_STAT_RX_ROCE) != want; i++) {
        axon_step(r->a, 1000);
        if (i % 1000 == 999) {
            g_usleep(1000);
        }
    }
    g_assert_cmpuint(rd(r->a, AXON_REG_STAT_RX_ROCE), ==, want);
}
