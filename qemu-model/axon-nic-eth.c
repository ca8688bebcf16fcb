/*
 * axon-nic: the Ethernet function
 *
 * Two descriptor rings in guest memory carry the frames that are not
 * RoCEv2: the driver queues frames on the TX ring and posts empty buffers
 * on the RX ring; the device moves them to and from its wire, a QEMU
 * netdev backend (netdev=). RoCEv2 frames (UDP destination port 4791) are
 * steered to the RDMA engine instead; of the others, multicast frames
 * pass the multicast filter first (AXON_CAP_MCAST). Frames of the other
 * planes never reach this function (axon-nic-plane.c). Without netdev=
 * the port is up and sent frames are discarded.
 *
 * Nothing from the guest or the wire is trusted: ring setup is checked
 * when the function is enabled, every descriptor length and address
 * before use, every received header byte before it is read.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/iov.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "hw/pci/pci.h"
#include "net/net.h"
#include "net/eth.h"
#include "trace.h"

#include "axon-nic.h"

#define AXON_ETH_DESC_SIZE sizeof(struct axon_eth_desc)
QEMU_BUILD_BUG_ON(sizeof(struct axon_eth_desc) != 16);

static uint64_t axon_nic_eth_desc_addr(const AxonRing *r, uint32_t idx)
{
    return r->base + (uint64_t)idx * AXON_ETH_DESC_SIZE;
}

/* A TX or RX completion: raise AXON_MSIX_ETH if the driver armed it. */
static void axon_nic_eth_completed(AxonNicState *s)
{
    if (s->eth.irq_armed) {
        s->eth.irq_armed = false;
        axon_nic_irq(s, AXON_MSIX_ETH);
    }
}

/* Frames held back while no RX buffer was posted are retried. */
static void axon_nic_eth_flush_rx(AxonNicState *s)
{
    if (s->nic) {
        qemu_flush_queued_packets(qemu_get_queue(s->nic));
    }
}

static enum axon_dev_error axon_nic_eth_check_config(AxonNicState *s)
{
    AxonEth *e = &s->eth;

    if (!axon_nic_check_ring(&e->tx, AXON_ETH_DESC_SIZE)) {
        return AXON_DEV_ERR_ETH_TX_CONFIG;
    }
    if (!axon_nic_check_ring(&e->rx, AXON_ETH_DESC_SIZE)) {
        return AXON_DEV_ERR_ETH_RX_CONFIG;
    }
    if (e->mtu < AXON_ETH_MIN_MTU || e->mtu > AXON_ETH_MAX_MTU) {
        return AXON_DEV_ERR_ETH_MTU;
    }
    return AXON_DEV_ERR_NONE;
}

static void axon_nic_eth_enable(AxonNicState *s)
{
    AxonEth *e = &s->eth;
    enum axon_dev_error err;

    if (!axon_nic_ready(s)) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "axon-nic: Ethernet enable while the device is not "
                      "ready ignored\n");
        trace_axon_nic_err_eth_not_ready();
        return;
    }
    err = axon_nic_eth_check_config(s);
    if (err != AXON_DEV_ERR_NONE) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "axon-nic: Ethernet enable refused, bad setup (%d)\n",
                      err);
        trace_axon_nic_err_eth_config(err);
        s->error = err;
        return;
    }
    e->tx.idx = 0;
    e->tx_tail = 0;
    e->rx.idx = 0;
    e->rx_tail = 0;
    e->irq_armed = false;
    e->ctrl |= AXON_ETH_CTRL_ENABLE;
    if (s->error == AXON_DEV_ERR_ETH_TX_CONFIG ||
        s->error == AXON_DEV_ERR_ETH_RX_CONFIG ||
        s->error == AXON_DEV_ERR_ETH_MTU) {
        s->error = AXON_DEV_ERR_NONE;
    }
    trace_axon_nic_eth_enabled(e->tx.depth, e->rx.depth, e->mtu);
}

/* Stops the function; frames held for RX buffers are then discarded. */
void axon_nic_eth_stop(AxonNicState *s)
{
    AxonEth *e = &s->eth;

    if (!(e->ctrl & AXON_ETH_CTRL_ENABLE)) {
        return;
    }
    qemu_bh_cancel(e->tx_bh);
    e->ctrl &= ~AXON_ETH_CTRL_ENABLE;
    e->irq_armed = false;
    axon_nic_eth_flush_rx(s);
}

void axon_nic_eth_reset(AxonNicState *s)
{
    AxonEth *e = &s->eth;

    qemu_bh_cancel(e->tx_bh);
    memset(e, 0, offsetof(AxonEth, tx_bh));
    e->rx_mode = AXON_ETH_RX_ALLMULTI;
    e->drop_every = s->tx_drop_every;
    e->reorder_every = s->tx_reorder_every;
    axon_nic_eth_flush_rx(s);
}

/* ---- transmit ----------------------------------------------------------- */

/* Sends one descriptor's frame; returns the flags to write back. */
static uint16_t axon_nic_eth_tx_one(AxonNicState *s, uint32_t idx,
                                    const struct axon_eth_desc *d)
{
    uint64_t addr = le64_to_cpu(d->addr);
    uint32_t len = le16_to_cpu(d->buf_len);

    if (len < AXON_ETH_HLEN || len > axon_nic_eth_max_frame(s)) {
        qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: TX descriptor %u length "
                      "%u outside %u..%u\n", idx, len, AXON_ETH_HLEN,
                      axon_nic_eth_max_frame(s));
        trace_axon_nic_err_eth_tx_len(idx, len, axon_nic_eth_max_frame(s));
        s->eth.stat_tx_errors++;
        return AXON_ETH_DESC_DONE | AXON_ETH_DESC_ERROR;
    }
    if (pci_dma_read(PCI_DEVICE(s), addr, s->eth.tx_buf, len) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: TX descriptor %u buffer "
                      "0x%" PRIx64 " not readable\n", idx, addr);
        trace_axon_nic_err_eth_tx_dma(idx, addr);
        s->eth.stat_tx_errors++;
        return AXON_ETH_DESC_DONE | AXON_ETH_DESC_ERROR;
    }
    trace_axon_nic_eth_tx(idx, len);
    if (s->nic) {
        qemu_send_packet(qemu_get_queue(s->nic), s->eth.tx_buf, len);
    }
    return AXON_ETH_DESC_DONE;
}

/* Runs outside the vCPU's MMIO exit: sends the TX ring up to the tail. */
static void axon_nic_eth_tx_bh(void *opaque)
{
    AxonNicState *s = opaque;
    PCIDevice *pdev = PCI_DEVICE(s);
    AxonEth *e = &s->eth;
    bool completed = false;

    while (axon_nic_eth_running(s) && e->tx.idx != e->tx_tail) {
        uint64_t daddr = axon_nic_eth_desc_addr(&e->tx, e->tx.idx);
        struct axon_eth_desc d;
        uint16_t flags;

        if (pci_dma_read(pdev, daddr, &d, sizeof(d)) != MEMTX_OK) {
            axon_nic_fatal(s, AXON_DEV_ERR_DMA);
            break;
        }
        flags = cpu_to_le16(axon_nic_eth_tx_one(s, e->tx.idx, &d));
        if (pci_dma_write(pdev, daddr + offsetof(struct axon_eth_desc, flags),
                          &flags, sizeof(flags)) != MEMTX_OK) {
            axon_nic_fatal(s, AXON_DEV_ERR_DMA);
            break;
        }
        e->tx.idx = (e->tx.idx + 1) & (e->tx.depth - 1);
        completed = true;
    }
    if (completed) {
        axon_nic_eth_completed(s);
    }
}

/* ---- receive ------------------------------------------------------------ */

/*
 * While the function runs, frames wait in QEMU's queue until a buffer is
 * posted. While it is stopped they are taken and dropped (counted as
 * STAT_RX_NOBUF), so a stopped device does not hold up its wire.
 */
static bool axon_nic_eth_can_receive(NetClientState *nc)
{
    AxonNicState *s = qemu_get_nic_opaque(nc);

    return !axon_nic_eth_running(s) || s->eth.rx.idx != s->eth.rx_tail;
}

/* Fills the next posted buffer, or drops the frame. */
static void axon_nic_eth_rx_one(AxonNicState *s, const uint8_t *buf,
                                size_t size)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    AxonEth *e = &s->eth;
    uint32_t idx = e->rx.idx;
    uint64_t daddr = axon_nic_eth_desc_addr(&e->rx, idx);
    struct axon_eth_desc d;
    uint64_t addr;
    uint16_t len, flags;

    if (pci_dma_read(pdev, daddr, &d, sizeof(d)) != MEMTX_OK) {
        axon_nic_fatal(s, AXON_DEV_ERR_DMA);
        return;
    }
    addr = le64_to_cpu(d.addr);
    if (le16_to_cpu(d.buf_len) < size) {
        /* the buffer stays posted for the next frame */
        trace_axon_nic_err_eth_rx_buf_small(idx, le16_to_cpu(d.buf_len),
                                            size);
        e->stat_rx_oversize++;
        return;
    }
    if (pci_dma_write(pdev, addr, buf, size) == MEMTX_OK) {
        len = cpu_to_le16(size);
        flags = cpu_to_le16(AXON_ETH_DESC_DONE);
        trace_axon_nic_eth_rx(idx, size);
    } else {
        qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: RX descriptor %u buffer "
                      "0x%" PRIx64 " not writable\n", idx, addr);
        trace_axon_nic_err_eth_rx_dma(idx, addr);
        e->stat_rx_dma_errors++;
        len = 0;
        flags = cpu_to_le16(AXON_ETH_DESC_DONE | AXON_ETH_DESC_ERROR);
    }
    /* length first: DONE is what the driver polls */
    if (pci_dma_write(pdev, daddr + offsetof(struct axon_eth_desc, len),
                      &len, sizeof(len)) != MEMTX_OK ||
        pci_dma_write(pdev, daddr + offsetof(struct axon_eth_desc, flags),
                      &flags, sizeof(flags)) != MEMTX_OK) {
        axon_nic_fatal(s, AXON_DEV_ERR_DMA);
        return;
    }
    e->rx.idx = (idx + 1) & (e->rx.depth - 1);
    axon_nic_eth_completed(s);
}

/*
 * The multicast filter ("Ethernet multicast filter" in axon_eth_defs.h):
 * whether a frame the RDMA engine did not take passes. Broadcast and
 * unicast always do; a multicast one with ALLMULTI, or when the filter's
 * bit for its destination (the top 6 bits of the big-endian CRC-32 of
 * the address, as Linux's ether_crc()) is set.
 */
static bool axon_nic_eth_mc_pass(AxonEth *e, const uint8_t *buf, size_t size)
{
    const uint8_t *dmac = buf;
    unsigned bit;

    if (!is_multicast_ether_addr(dmac) || is_broadcast_ether_addr(dmac) ||
        (e->rx_mode & AXON_ETH_RX_ALLMULTI)) {
        return true;
    }
    bit = net_crc32(dmac, ETH_ALEN) >> 26;
    if (e->mc_hash & (1ULL << bit)) {
        return true;
    }
    trace_axon_nic_err_eth_rx_mc_filtered(size, bit);
    e->stat_rx_mc_filtered++;
    return false;
}

static ssize_t axon_nic_eth_receive(NetClientState *nc, const uint8_t *buf,
                                    size_t size)
{
    AxonNicState *s = qemu_get_nic_opaque(nc);
    AxonEth *e = &s->eth;

    /* runts, oversize frames and a stopped function end here too */
    if (axon_nic_wire_rx(s, 0, buf, size)) {
        return size;
    }
    /* before waiting for a buffer: a filtered frame never takes one */
    if (!axon_nic_eth_mc_pass(e, buf, size)) {
        return size;
    }
    if (e->rx.idx == e->rx_tail) {
        return 0; /* queued until the driver posts a buffer */
    }
    axon_nic_eth_rx_one(s, buf, size);
    return size;
}

/* ---- port link ---------------------------------------------------------- */

static void axon_nic_eth_link_status_changed(NetClientState *nc)
{
    axon_nic_set_port_state(qemu_get_nic_opaque(nc), !nc->link_down);
}

/* The QOM property "link-up": the same as set_link on the device. */
void axon_nic_eth_set_link(AxonNicState *s, bool up)
{
    if (s->nic) {
        qemu_get_queue(s->nic)->link_down = !up;
    }
    axon_nic_set_port_state(s, up);
}

/* ---- MMIO --------------------------------------------------------------- */

uint32_t axon_nic_eth_mmio_read(AxonNicState *s, hwaddr addr)
{
    AxonEth *e = &s->eth;

    switch (addr) {
    case AXON_REG_ETH_CTRL:
        return e->ctrl;
    case AXON_REG_ETH_MTU:
        return e->mtu;
    case AXON_REG_ETH_TX_BASE_LO:
        return AXON_REG_LO(e->tx.base);
    case AXON_REG_ETH_TX_BASE_HI:
        return AXON_REG_HI(e->tx.base);
    case AXON_REG_ETH_TX_DEPTH:
        return e->tx.depth;
    case AXON_REG_ETH_RX_BASE_LO:
        return AXON_REG_LO(e->rx.base);
    case AXON_REG_ETH_RX_BASE_HI:
        return AXON_REG_HI(e->rx.base);
    case AXON_REG_ETH_RX_DEPTH:
        return e->rx.depth;
    case AXON_REG_ETH_TX_HEAD:
        return e->tx.idx;
    case AXON_REG_ETH_RX_HEAD:
        return e->rx.idx;
    case AXON_REG_STAT_RX_NOBUF:
        return e->stat_rx_nobuf;
    case AXON_REG_STAT_RX_RUNT:
        return e->stat_rx_runt;
    case AXON_REG_STAT_RX_OVERSIZE:
        return e->stat_rx_oversize;
    case AXON_REG_STAT_RX_ROCE:
        return e->stat_rx_roce;
    case AXON_REG_STAT_TX_ERRORS:
        return e->stat_tx_errors;
    case AXON_REG_STAT_RX_DMA_ERRORS:
        return e->stat_rx_dma_errors;
    case AXON_REG_ETH_MC_HASH_LO:
        return AXON_REG_LO(e->mc_hash);
    case AXON_REG_ETH_MC_HASH_HI:
        return AXON_REG_HI(e->mc_hash);
    case AXON_REG_ETH_RX_MODE:
        return e->rx_mode;
    case AXON_REG_STAT_RX_MC_FILTERED:
        return e->stat_rx_mc_filtered;
    default:
        /* write-only doorbells and holes read as zero */
        return 0;
    }
}

static void axon_nic_eth_write_ctrl(AxonNicState *s, uint32_t val)
{
    if (val & ~AXON_ETH_CTRL_ENABLE) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "axon-nic: reserved ETH_CTRL bits 0x%x\n", val);
    }
    if ((val & AXON_ETH_CTRL_ENABLE) && !(s->eth.ctrl & AXON_ETH_CTRL_ENABLE)) {
        axon_nic_eth_enable(s);
    } else if (!(val & AXON_ETH_CTRL_ENABLE)) {
        axon_nic_eth_stop(s);
    }
}

static bool axon_nic_eth_doorbell(AxonNicState *s, uint32_t *index,
                                  uint32_t val, uint32_t depth, hwaddr addr)
{
    if (!axon_nic_eth_running(s)) {
        qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: doorbell 0x%" HWADDR_PRIx
                      " while Ethernet is stopped\n", addr);
        trace_axon_nic_err_eth_stopped(addr);
        return false;
    }
    if (val >= depth) {
        qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: doorbell 0x%" HWADDR_PRIx
                      " index %u out of range (depth %u)\n", addr, val, depth);
        trace_axon_nic_err_doorbell(addr, val, depth);
        s->error = AXON_DEV_ERR_DOORBELL;
        return false;
    }
    *index = val;
    return true;
}

static void axon_nic_eth_write_setup(AxonNicState *s, hwaddr addr,
                                     uint32_t val)
{
    AxonEth *e = &s->eth;

    if (!axon_nic_setup_allowed(s, e->ctrl & AXON_ETH_CTRL_ENABLE, addr)) {
        return;
    }
    switch (addr) {
    case AXON_REG_ETH_MTU:
        e->mtu = val;
        break;
    case AXON_REG_ETH_TX_BASE_LO:
        e->tx.base = AXON_REG_SET_LO(e->tx.base, val);
        break;
    case AXON_REG_ETH_TX_BASE_HI:
        e->tx.base = AXON_REG_SET_HI(e->tx.base, val);
        break;
    case AXON_REG_ETH_TX_DEPTH:
        e->tx.depth = val;
        break;
    case AXON_REG_ETH_RX_BASE_LO:
        e->rx.base = AXON_REG_SET_LO(e->rx.base, val);
        break;
    case AXON_REG_ETH_RX_BASE_HI:
        e->rx.base = AXON_REG_SET_HI(e->rx.base, val);
        break;
    case AXON_REG_ETH_RX_DEPTH:
        e->rx.depth = val;
        break;
    default:
        g_assert_not_reached();
    }
}

void axon_nic_eth_mmio_write(AxonNicState *s, hwaddr addr, uint32_t val)
{
    AxonEth *e = &s->eth;

    switch (addr) {
    case AXON_REG_ETH_CTRL:
        axon_nic_eth_write_ctrl(s, val);
        break;
    case AXON_REG_ETH_MTU:
    case AXON_REG_ETH_TX_BASE_LO:
    case AXON_REG_ETH_TX_BASE_HI:
    case AXON_REG_ETH_TX_DEPTH:
    case AXON_REG_ETH_RX_BASE_LO:
    case AXON_REG_ETH_RX_BASE_HI:
    case AXON_REG_ETH_RX_DEPTH:
        axon_nic_eth_write_setup(s, addr, val);
        break;
    /* the multicast filter changes at run time, unlike the rings */
    case AXON_REG_ETH_MC_HASH_LO:
        e->mc_hash = AXON_REG_SET_LO(e->mc_hash, val);
        trace_axon_nic_eth_mc_filter(e->rx_mode, e->mc_hash);
        break;
    case AXON_REG_ETH_MC_HASH_HI:
        e->mc_hash = AXON_REG_SET_HI(e->mc_hash, val);
        trace_axon_nic_eth_mc_filter(e->rx_mode, e->mc_hash);
        break;
    case AXON_REG_ETH_RX_MODE:
        if (val & ~AXON_ETH_RX_ALLMULTI) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "axon-nic: reserved ETH_RX_MODE bits 0x%x\n", val);
        }
        e->rx_mode = val & AXON_ETH_RX_ALLMULTI;
        trace_axon_nic_eth_mc_filter(e->rx_mode, e->mc_hash);
        break;
    case AXON_REG_ETH_IRQ_ARM:
        if (val & ~1U || !axon_nic_eth_running(s)) {
            qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: ETH_IRQ_ARM 0x%x "
                          "ignored (bad value or Ethernet stopped)\n", val);
            trace_axon_nic_err_eth_irq_arm(val);
            break;
        }
        e->irq_armed = val;
        break;
    case AXON_REG_ETH_TX_TAIL:
        if (axon_nic_eth_doorbell(s, &e->tx_tail, val, e->tx.depth, addr)) {
            qemu_bh_schedule(e->tx_bh);
        }
        break;
    case AXON_REG_ETH_RX_TAIL:
        if (axon_nic_eth_doorbell(s, &e->rx_tail, val, e->rx.depth, addr)) {
            axon_nic_eth_flush_rx(s);
        }
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: write to read-only or "
                      "unknown register 0x%" HWADDR_PRIx "\n", addr);
        break;
    }
}

/* ---- realize, exit ------------------------------------------------------ */

static NetClientInfo axon_nic_eth_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .can_receive = axon_nic_eth_can_receive,
    .receive = axon_nic_eth_receive,
    .link_status_changed = axon_nic_eth_link_status_changed,
};

void axon_nic_eth_realize(AxonNicState *s)
{
    DeviceState *dev = DEVICE(s);

    s->eth.tx_bh = qemu_bh_new_guarded(axon_nic_eth_tx_bh, s,
                                       &dev->mem_reentrancy_guard);
    /*
     * Test hook: the most RoCE frames the engine sent while it took one
     * from the wire (a long READ is answered in bursts, not at once);
     * qom-set it to 0 to measure again.
     */
    object_property_add_uint32_ptr(OBJECT(s), "x-rx-tx-max", &s->rx_tx_max,
                                   OBJ_PROP_FLAG_READWRITE);
    if (!s->conf.peers.ncs[0]) {
        return;
    }
    s->nic = qemu_new_nic(&axon_nic_eth_info, &s->conf,
                          object_get_typename(OBJECT(s)), dev->id,
                          &dev->mem_reentrancy_guard, s);
    qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);
    s->link_up = !qemu_get_queue(s->nic)->link_down;
}

void axon_nic_eth_exit(AxonNicState *s)
{
    if (s->nic) {
        qemu_del_nic(s->nic);
        s->nic = NULL;
    }
    qemu_bh_delete(s->eth.tx_bh);
}
