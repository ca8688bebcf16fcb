/*
 * axon-nic: model of the axon RoCEv2 RDMA SmartNIC
 *
 * This part models the control plane: identity and status registers,
 * the reset and enable handshake, the admin queue (submission and
 * completion rings in guest memory), the async event queue, the port
 * state and MSI-X. Admin commands go, through one opcode table, to the
 * device itself or to the RDMA engine (engine/axon-engine.h), which owns
 * PDs, MRs, GIDs, CQs, SRQs and QPs; the Ethernet function is
 * axon-nic-eth.c (see axon-nic.h for the layers). The device interface is
 * include/uapi/axon/axon_dev.h, shared with the driver.
 *
 * Nothing the guest writes is trusted: queue bases, depths, doorbell
 * indexes and every command field are checked before use, and a bad
 * value yields an error status (AXON_REG_ERROR or a completion status),
 * never an access outside what the guest described.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bitmap.h"
#include "qemu/cutils.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "hw/pci/pci.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "net/net.h"
#include "migration/vmstate.h"
#include "trace.h"

#include "axon-nic.h"

#define AXON_NIC_FW_VERSION AXON_FW_VERSION(1U, 0U, 1U)
#define AXON_NIC_ADMIN_TIMEOUT_MS 5000

/* ---- reset, enable ------------------------------------------------- */

static void axon_nic_reset_state(AxonNicState *s)
{
    s->ctrl = 0;
    s->status = 0;
    s->error = AXON_DEV_ERR_NONE;
    memset(&s->aq_sq, 0, sizeof(s->aq_sq));
    memset(&s->aq_cq, 0, sizeof(s->aq_cq));
    memset(&s->eq, 0, sizeof(s->eq));
    memset(&s->ceq, 0, sizeof(s->ceq));
    s->aq_sq_tail = 0;
    s->eq_head = 0;
    s->ceq_head = 0;
    s->stat_aq_cmds = 0;
    s->stat_aq_errors = 0;
    s->stat_events = 0;
    s->stat_eq_drops = 0;
    axon_nic_eth_reset(s);
    axon_nic_engine_reset(s);
    axon_nic_admin_reset(s);
}

static enum axon_dev_error axon_nic_check_queues(AxonNicState *s)
{
    if (!axon_nic_check_ring(&s->aq_sq, sizeof(struct axon_admin_cmd))) {
        return AXON_DEV_ERR_AQ_SQ_CONFIG;
    }
    /* In-order completion cannot overrun a CQ at least as deep as the SQ. */
    if (!axon_nic_check_ring(&s->aq_cq, sizeof(struct axon_admin_cqe)) ||
        s->aq_cq.depth < s->aq_sq.depth) {
        return AXON_DEV_ERR_AQ_CQ_CONFIG;
    }
    if (!axon_nic_check_ring(&s->eq, sizeof(struct axon_event))) {
        return AXON_DEV_ERR_EQ_CONFIG;
    }
    /* a driver without RDMA leaves the CEQ unprogrammed */
    if ((s->ceq.base || s->ceq.depth) &&
        !axon_nic_check_ring(&s->ceq, sizeof(struct axon_event))) {
        return AXON_DEV_ERR_CEQ_CONFIG;
    }
    return AXON_DEV_ERR_NONE;
}

static void axon_nic_enable(AxonNicState *s)
{
    enum axon_dev_error err = axon_nic_check_queues(s);

    if (err != AXON_DEV_ERR_NONE) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "axon-nic: enable refused, bad queue setup (%d)\n", err);
        trace_axon_nic_err_queue_config(err);
        s->error = err;
        return;
    }
    s->aq_sq.idx = 0;
    s->aq_sq_tail = 0;
    s->aq_cq.idx = 0;
    s->aq_cq.phase = true;
    s->eq.idx = 0;
    s->eq.phase = true;
    s->eq_head = 0;
    s->ceq.idx = 0;
    s->ceq.phase = true;
    s->ceq_head = 0;
    s->error = AXON_DEV_ERR_NONE;
    s->ctrl |= AXON_CTRL_ENABLE;
    s->status |= AXON_STATUS_READY;
    axon_engine_set_ceq_depth(s->engine, s->ceq.depth);
    trace_axon_nic_enabled(s->aq_sq.depth, s->aq_cq.depth, s->eq.depth);
}

static void axon_nic_disable(AxonNicState *s)
{
    axon_nic_eth_stop(s);
    s->ctrl &= ~AXON_CTRL_ENABLE;
    s->status &= ~AXON_STATUS_READY;
}

/* ---- MMIO ------------------------------------------------------------ */

/*
 * Each ring has a 16-byte register block: base low, base high, depth,
 * then its doorbell (or, for the admin CQ, the SQ head).
 */
QEMU_BUILD_BUG_ON(AXON_REG_AQ_SQ_BASE_LO & AXON_RING_REG_MASK);
QEMU_BUILD_BUG_ON(AXON_REG_AQ_CQ_DEPTH - AXON_REG_AQ_CQ_BASE_LO !=
                  AXON_RING_DEPTH);
QEMU_BUILD_BUG_ON(AXON_REG_EQ_BASE_HI - AXON_REG_EQ_BASE_LO !=
                  AXON_RING_BASE_HI);
QEMU_BUILD_BUG_ON(AXON_REG_CEQ_DEPTH - AXON_REG_CEQ_BASE_LO !=
                  AXON_RING_DEPTH);

static AxonRing *axon_nic_setup_ring(AxonNicState *s, hwaddr addr)
{
    switch (addr & ~(hwaddr)AXON_RING_REG_MASK) {
    case AXON_REG_AQ_SQ_BASE_LO:
        return &s->aq_sq;
    case AXON_REG_AQ_CQ_BASE_LO:
        return &s->aq_cq;
    case AXON_REG_CEQ_BASE_LO:
        return &s->ceq;
    default:
        return &s->eq;
    }
}

static uint32_t axon_nic_read_setup(const AxonRing *r, unsigned field)
{
    switch (field) {
    case AXON_RING_BASE_LO:
        return AXON_REG_LO(r->base);
    case AXON_RING_BASE_HI:
        return AXON_REG_HI(r->base);
    default:
        return r->depth;
    }
}

static void axon_nic_write_setup(AxonRing *r, unsigned field, uint32_t val)
{
    switch (field) {
    case AXON_RING_BASE_LO:
        r->base = AXON_REG_SET_LO(r->base, val);
        break;
    case AXON_RING_BASE_HI:
        r->base = AXON_REG_SET_HI(r->base, val);
        break;
    default:
        r->depth = val;
        break;
    }
}

static uint64_t axon_nic_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    AxonNicState *s = opaque;
    uint64_t val = 0;

    switch (addr) {
    case AXON_REG_MAGIC:
        val = AXON_DEV_MAGIC;
        break;
    case AXON_REG_VERSION:
        val = AXON_VERSION(AXON_DEV_VERSION_MAJOR, AXON_DEV_VERSION_MINOR);
        break;
    case AXON_REG_CAPS:
        val = AXON_CAP_ADMIN_QUEUE | AXON_CAP_ASYNC_EVENTS |
              AXON_CAP_ETHERNET | AXON_CAP_RDMA | AXON_CAP_PEER_MR |
              AXON_CAP_SRQ | AXON_CAP_UD | AXON_CAP_UC | AXON_CAP_FAST_REG |
              AXON_CAP_MW | AXON_CAP_GSI | AXON_CAP_RESIZE_CQ |
              AXON_CAP_REREG_MR | AXON_CAP_CQ_PAGES | AXON_CAP_CLOCK |
              AXON_CAP_QP_LIVE | AXON_CAP_WIRE_TEST |
              AXON_CAP_COUNTER_SETS | AXON_CAP_CC |
              AXON_CAP_PLANES | AXON_CAP_RUD | AXON_CAP_RUD_KEYS |
              AXON_CAP_MCAST | AXON_CAP_XRC | AXON_CAP_ODP |
              AXON_CAP_RUD_TRIM | AXON_CAP_QP_CUR_STATE | AXON_CAP_SQ_DBREC;
        break;
    case AXON_REG_FW_VERSION:
        val = AXON_NIC_FW_VERSION;
        break;
    case AXON_REG_CTRL:
        val = s->ctrl;
        break;
    case AXON_REG_STATUS:
        val = s->status;
        break;
    case AXON_REG_ERROR:
        val = s->error;
        break;
    case AXON_REG_ADMIN_TIMEOUT:
        val = AXON_NIC_ADMIN_TIMEOUT_MS;
        break;
    case AXON_REG_AQ_SQ_BASE_LO:
    case AXON_REG_AQ_SQ_BASE_HI:
    case AXON_REG_AQ_SQ_DEPTH:
    case AXON_REG_AQ_CQ_BASE_LO:
    case AXON_REG_AQ_CQ_BASE_HI:
    case AXON_REG_AQ_CQ_DEPTH:
    case AXON_REG_EQ_BASE_LO:
    case AXON_REG_EQ_BASE_HI:
    case AXON_REG_EQ_DEPTH:
    case AXON_REG_CEQ_BASE_LO:
    case AXON_REG_CEQ_BASE_HI:
    case AXON_REG_CEQ_DEPTH:
        val = axon_nic_read_setup(axon_nic_setup_ring(s, addr),
                                  addr & AXON_RING_REG_MASK);
        break;
    case AXON_REG_AQ_SQ_HEAD:
        val = s->aq_sq.idx;
        break;
    case AXON_REG_STAT_AQ_CMDS:
        val = s->stat_aq_cmds;
        break;
    case AXON_REG_STAT_AQ_ERRORS:
        val = s->stat_aq_errors;
        break;
    case AXON_REG_STAT_EVENTS:
        val = s->stat_events;
        break;
    case AXON_REG_STAT_EQ_DROPS:
        val = s->stat_eq_drops;
        break;
    case AXON_REG_DB_PAGES:
        val = AXON_RDMA_DB_PAGES;
        break;
    case AXON_REG_STAT_DB_REJECTS ... AXON_REG_STAT_ECN_MARKED:
    case AXON_REG_STAT_RUD_DROPS:
    case AXON_REG_STAT_RUD_DUPS:
    case AXON_REG_STAT_ODP_FAULTS:
    case AXON_REG_STAT_ODP_WAITS:
        val = axon_engine_stat(s->engine, addr);
        break;
    case AXON_REG_PLANES:
        val = axon_nic_plane_reg(s);
        break;
    case AXON_REG_STAT_PLANE_TX(0) ...
         AXON_REG_STAT_PLANE_DROPS(AXON_MAX_PLANES - 1):
        val = axon_nic_plane_stat(s, addr);
        break;
    case AXON_REG_ETH_CTRL ... AXON_REG_STAT_RX_MC_FILTERED:
        val = axon_nic_eth_mmio_read(s, addr);
        break;
    default:
        /* write-only doorbells and holes read as zero */
        break;
    }
    trace_axon_nic_mmio_read(addr, val);
    return val;
}

static void axon_nic_write_ctrl(AxonNicState *s, uint32_t val)
{
    if (val & ~(AXON_CTRL_ENABLE | AXON_CTRL_RESET)) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "axon-nic: reserved CTRL bits 0x%x\n", val);
    }
    if (val & AXON_CTRL_RESET) {
        axon_nic_reset_state(s);
        return;
    }
    if ((val & AXON_CTRL_ENABLE) && !(s->ctrl & AXON_CTRL_ENABLE)) {
        if (s->status & AXON_STATUS_FATAL) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "axon-nic: enable while fatal, reset first\n");
            return;
        }
        axon_nic_enable(s);
    } else if (!(val & AXON_CTRL_ENABLE) && (s->ctrl & AXON_CTRL_ENABLE)) {
        axon_nic_disable(s);
    }
}

static void axon_nic_doorbell(AxonNicState *s, uint32_t *index, uint32_t val,
                              uint32_t depth, hwaddr addr)
{
    if (!axon_nic_ready(s)) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "axon-nic: doorbell 0x%" HWADDR_PRIx " while not ready\n",
                      addr);
        return;
    }
    if (val >= depth) {
        qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: doorbell 0x%" HWADDR_PRIx
                      " index %u out of range (depth %u)\n", addr, val, depth);
        trace_axon_nic_err_doorbell(addr, val, depth);
        s->error = AXON_DEV_ERR_DOORBELL;
        return;
    }
    *index = val;
}

static void axon_nic_mmio_write(void *opaque, hwaddr addr, uint64_t val64,
                                unsigned size)
{
    AxonNicState *s = opaque;
    uint32_t val = val64;

    trace_axon_nic_mmio_write(addr, val);
    switch (addr) {
    case AXON_REG_CTRL:
        axon_nic_write_ctrl(s, val);
        break;
    case AXON_REG_AQ_SQ_BASE_LO:
    case AXON_REG_AQ_SQ_BASE_HI:
    case AXON_REG_AQ_SQ_DEPTH:
    case AXON_REG_AQ_CQ_BASE_LO:
    case AXON_REG_AQ_CQ_BASE_HI:
    case AXON_REG_AQ_CQ_DEPTH:
    case AXON_REG_EQ_BASE_LO:
    case AXON_REG_EQ_BASE_HI:
    case AXON_REG_EQ_DEPTH:
    case AXON_REG_CEQ_BASE_LO:
    case AXON_REG_CEQ_BASE_HI:
    case AXON_REG_CEQ_DEPTH:
        if (axon_nic_setup_allowed(s, s->ctrl & AXON_CTRL_ENABLE, addr)) {
            axon_nic_write_setup(axon_nic_setup_ring(s, addr),
                                 addr & AXON_RING_REG_MASK, val);
        }
        break;
    case AXON_REG_AQ_SQ_TAIL:
        axon_nic_doorbell(s, &s->aq_sq_tail, val, s->aq_sq.depth, addr);
        axon_nic_admin_tail(s);
        break;
    case AXON_REG_EQ_HEAD:
        axon_nic_doorbell(s, &s->eq_head, val, s->eq.depth, addr);
        break;
    case AXON_REG_CEQ_HEAD:
        axon_nic_doorbell(s, &s->ceq_head, val, s->ceq.depth, addr);
        axon_cq_ceq_room(s->engine);
        break;
    case AXON_REG_ETH_CTRL ... AXON_REG_STAT_RX_MC_FILTERED:
        axon_nic_eth_mmio_write(s, addr, val);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: write to read-only or "
                      "unknown register 0x%" HWADDR_PRIx "\n", addr);
        break;
    }
}

static const MemoryRegionOps axon_nic_mmio_ops = {
    .read = axon_nic_mmio_read,
    .write = axon_nic_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

/* ---- the device clock ---------------------------------------------------- */

static uint64_t axon_nic_clock_read(void *opaque, hwaddr addr, unsigned size)
{
    uint64_t now = axon_nic_clock(opaque);

    switch (addr) {
    case AXON_CLOCK_LO:
        return size == 8 ? now : (uint32_t)now;
    case AXON_CLOCK_HI:
        return size == 4 ? now >> 32 : 0;
    default:
        return 0;
    }
}

static void axon_nic_clock_write(void *opaque, hwaddr addr, uint64_t val,
                                 unsigned size)
{
    qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: write to the clock page at "
                  "0x%" HWADDR_PRIx " ignored\n", addr);
}

static const MemoryRegionOps axon_nic_clock_ops = {
    .read = axon_nic_clock_read,
    .write = axon_nic_clock_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 8,
    },
};

/* ---- port state -------------------------------------------------------- */

static bool axon_nic_get_link_up(Object *obj, Error **errp)
{
    return AXON_NIC(obj)->link_up;
}

static void axon_nic_set_link_up(Object *obj, bool value, Error **errp)
{
    axon_nic_eth_set_link(AXON_NIC(obj), value);
}

/* ---- realize, reset, type -------------------------------------------- */

static void axon_nic_realize(PCIDevice *pdev, Error **errp)
{
    AxonNicState *s = AXON_NIC(pdev);
    unsigned v;

    if (!s->max_pd || s->max_pd > (1U << 24)) {
        error_setg(errp, "axon-nic: max-pd must be in 1..%u", 1U << 24);
        return;
    }
    if (!s->cc.min_rate || s->cc.min_rate > s->cc.line_rate ||
        !s->cc.g_shift || s->cc.g_shift > 16) {
        error_setg(errp, "axon-nic: dcqcn-min-rate must be in "
                   "1..dcqcn-line-rate, dcqcn-g-shift in 1..16");
        return;
    }
    if ((s->sq_poll_ns && s->sq_poll_ns < 1000) ||
        s->sq_poll_ns < 0 || s->sq_poll_ns > NANOSECONDS_PER_SECOND ||
        s->sq_poll_idle_ns < 0 ||
        s->sq_poll_idle_ns > NANOSECONDS_PER_SECOND) {
        error_setg(errp, "axon-nic: sq-poll-ns must be 0 or in "
                   "1000..1000000000, sq-poll-idle-ns in 0..1000000000");
        return;
    }
    if (s->rud_trim_dscp > 63) {
        error_setg(errp, "axon-nic: rud-trim-dscp must be in 0..63");
        return;
    }
    if (s->cc.rud.rto_min_ns < 0 || s->cc.rud.late_min_ns < 0 ||
        s->cc.rud.target_q_ns < 0) {
        error_setg(errp, "axon-nic: rud-rto-min-ns, rud-late-min-ns and "
                   "rud-target-queue-ns must not be negative");
        return;
    }
    pci_config_set_interrupt_pin(pdev->config, 1);
    memory_region_init(&s->bar_regs, OBJECT(s), "axon-nic-bar0",
                       AXON_BAR_REGS_SIZE);
    memory_region_init_io(&s->regs, OBJECT(s), &axon_nic_mmio_ops, s,
                          "axon-nic-regs", AXON_REGS_SIZE);
    memory_region_add_subregion(&s->bar_regs, 0, &s->regs);
    s->clock_base = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    memory_region_init_io(&s->clock_page, OBJECT(s), &axon_nic_clock_ops, s,
                          "axon-nic-clock", AXON_REGS_SIZE);
    memory_region_add_subregion(&s->bar_regs, AXON_CLOCK_PAGE,
                                &s->clock_page);
    pci_register_bar(pdev, AXON_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->bar_regs);
    if (msix_init_exclusive_bar(pdev, AXON_MSIX_NUM_VECTORS, AXON_BAR_MSIX,
                                errp)) {
        return;
    }
    for (v = 0; v < AXON_MSIX_NUM_VECTORS; v++) {
        msix_vector_use(pdev, v);
    }
    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    axon_nic_eth_realize(s);
    if (!axon_nic_plane_realize(s, errp)) {
        axon_nic_plane_exit(s);
        axon_nic_eth_exit(s);
        msix_uninit_exclusive_bar(pdev);
        return;
    }
    if (!axon_nic_engine_realize(s, errp)) {
        axon_nic_plane_exit(s);
        axon_nic_eth_exit(s);
        msix_uninit_exclusive_bar(pdev);
        return;
    }
    axon_nic_admin_realize(s);
}

static void axon_nic_exit(PCIDevice *pdev)
{
    AxonNicState *s = AXON_NIC(pdev);

    axon_nic_engine_exit(s);
    axon_nic_admin_exit(s);
    axon_nic_plane_exit(s);
    axon_nic_eth_exit(s);
    msix_uninit_exclusive_bar(pdev);
}

static void axon_nic_qdev_reset(DeviceState *dev)
{
    axon_nic_reset_state(AXON_NIC(dev));
}

static void axon_nic_instance_init(Object *obj)
{
    /* before properties are set, so that link-up=off sticks */
    AXON_NIC(obj)->link_up = true;
    object_property_add_bool(obj, "link-up", axon_nic_get_link_up,
                             axon_nic_set_link_up);
}

static Property axon_nic_properties[] = {
    DEFINE_PROP_UINT32("max-pd", AxonNicState, max_pd, 1024),
    DEFINE_PROP_BOOL("x-engine-thread", AxonNicState, engine_thread_on, false),
    DEFINE_PROP_INT64("sq-poll-ns", AxonNicState, sq_poll_ns, 0),
    DEFINE_PROP_INT64("sq-poll-idle-ns", AxonNicState, sq_poll_idle_ns, 50000),
    DEFINE_PROP_NETDEV("plane1", AxonNicState, plane[1].conf.peers),
    DEFINE_PROP_NETDEV("plane2", AxonNicState, plane[2].conf.peers),
    DEFINE_PROP_NETDEV("plane3", AxonNicState, plane[3].conf.peers),
    DEFINE_NIC_PROPERTIES(AxonNicState, conf), /* mac=, netdev= */
    /* Test hook: stop completing admin commands after this many. */
    DEFINE_PROP_UINT32("x-admin-stall-after", AxonNicState,
                       admin_stall_after, 0),
    /* Test hook: answer admin commands this many microseconds late. */
    DEFINE_PROP_UINT32("x-admin-delay-us", AxonNicState, admin_delay_us, 0),
    /* Test hooks: RoCE to this device over netdev=; a lossy wire. */
    DEFINE_PROP_BOOL("x-wire-loopback", AxonNicState, wire_loopback, false),
    DEFINE_PROP_UINT32("x-tx-drop-every", AxonNicState, tx_drop_every, 0),
    DEFINE_PROP_UINT32("x-tx-ce-every", AxonNicState, tx_ce_every, 0),
    DEFINE_PROP_BOOL("dcqcn", AxonNicState, cc.dcqcn, false),
    DEFINE_PROP_UINT32("dcqcn-line-rate", AxonNicState, cc.line_rate, 100000),
    DEFINE_PROP_UINT32("dcqcn-min-rate", AxonNicState, cc.min_rate, 100),
    DEFINE_PROP_UINT32("dcqcn-rai", AxonNicState, cc.rai, 40),
    DEFINE_PROP_UINT32("dcqcn-rhai", AxonNicState, cc.rhai, 400),
    DEFINE_PROP_UINT32("dcqcn-g-shift", AxonNicState, cc.g_shift, 8),
    DEFINE_PROP_UINT32("dcqcn-alpha-us", AxonNicState, cc.alpha_us, 55),
    DEFINE_PROP_UINT32("dcqcn-increase-us", AxonNicState, cc.increase_us, 300),
    DEFINE_PROP_UINT32("dcqcn-byte-reset", AxonNicState, cc.byte_reset,
                       32768),
    DEFINE_PROP_UINT32("dcqcn-cnp-us", AxonNicState, cc.cnp_us, 50),
    DEFINE_PROP_BOOL("rud-window", AxonNicState, cc.rud_window, true),
    /* RUD's timers; 0: the engine's defaults, for TCG guests */
    DEFINE_PROP_INT64("rud-rto-min-ns", AxonNicState, cc.rud.rto_min_ns, 0),
    DEFINE_PROP_INT64("rud-late-min-ns", AxonNicState, cc.rud.late_min_ns, 0),
    DEFINE_PROP_INT64("rud-target-queue-ns", AxonNicState,
                      cc.rud.target_q_ns, 0),
    DEFINE_PROP_UINT8("rud-trim-dscp", AxonNicState, rud_trim_dscp, 0),
    DEFINE_PROP_UINT32("x-tx-reorder-every", AxonNicState, tx_reorder_every,
                       0),
    DEFINE_PROP_END_OF_LIST(),
};

static const VMStateDescription axon_nic_vmstate = {
    .name = TYPE_AXON_NIC,
    .unmigratable = 1,
};

static void axon_nic_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = axon_nic_realize;
    k->exit = axon_nic_exit;
    k->vendor_id = AXON_PCI_VENDOR_ID;
    k->device_id = AXON_PCI_DEVICE_ID_NIC;
    k->revision = 1;
    k->class_id = PCI_CLASS_NETWORK_ETHERNET;
    dc->desc = "axon RoCEv2 RDMA SmartNIC";
    dc->reset = axon_nic_qdev_reset;
    dc->vmsd = &axon_nic_vmstate;
    device_class_set_props(dc, axon_nic_properties);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo axon_nic_info = {
    .name = TYPE_AXON_NIC,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(AxonNicState),
    .instance_init = axon_nic_instance_init,
    .class_init = axon_nic_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void axon_nic_register_types(void)
{
    type_register_static(&axon_nic_info);
}

type_init(axon_nic_register_types)
