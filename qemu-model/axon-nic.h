/*
 * axon-nic: model of the axon RoCEv2 RDMA SmartNIC, the device shell
 *
 * The device interface (registers, commands, descriptors) is the uAPI
 * header include/uapi/axon/axon_dev.h, shared with the driver; this file
 * is the shell's own state and services. The shell is QEMU's side of the
 * device; the RDMA engine under it (engine/) is portable C that reaches
 * QEMU only through its environment (engine/axon-env.h):
 *
 *   axon-nic.c        the registers, realize and reset: the top
 *   axon-nic-admin.c  the admin queue and its opcode table (decoded into
 *                     engine calls)
 *   axon-nic-engine.c the engine's environment in QEMU, the doorbell BAR
 *   axon-nic-trace.c  the engine's trace points as QEMU trace events
 *   axon-nic-eth.c    the Ethernet function
 *   axon-nic-plane.c  the port's other planes (RoCEv2 only)
 *   axon-nic-wire.c   the wire, for the engine's frames, both ways
 *   axon-nic-core.c   interrupts, event queues, a fatal stop, the port's
 *                     state and the device clock: what every part calls
 *
 * The shell calls the engine (engine/axon-engine.h); the engine calls the
 * shell only through the environment, which axon-nic-engine.c implements
 * with the core's services below.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AXON_NIC_H
#define HW_AXON_NIC_H

#include "hw/pci/pci.h"
#include "net/net.h"
#include "qom/object.h"

#include "axon/axon_dev.h"
#include "engine/axon-engine.h"

#define TYPE_AXON_NIC "axon-nic"
OBJECT_DECLARE_SIMPLE_TYPE(AxonNicState, AXON_NIC)

#define AXON_NIC_ETH_MAX_FRAME (AXON_ETH_MAX_MTU + AXON_ETH_OVERHEAD)

/* A ring in guest memory, as the device sees it. */
typedef struct AxonRing {
    uint64_t base;
    uint32_t depth;
    uint32_t idx;       /* the device's own index (consumer or producer) */
    bool phase;         /* phase written on the current pass (producer) */
} AxonRing;

/* The Ethernet function. */
typedef struct AxonEth {
    uint32_t ctrl;          /* AXON_ETH_CTRL_* */
    uint32_t mtu;
    bool irq_armed;

    AxonRing tx;            /* idx: device consumer (head) */
    uint32_t tx_tail;       /* driver producer, from the doorbell */
    AxonRing rx;            /* idx: next buffer the device fills (head) */
    uint32_t rx_tail;       /* buffers posted up to here */
    uint32_t rx_mode;       /* AXON_ETH_RX_*, reset AXON_ETH_RX_ALLMULTI */
    uint64_t mc_hash;       /* the multicast hash filter, HI:LO */

    uint32_t stat_rx_nobuf;
    uint32_t stat_rx_runt;
    uint32_t stat_rx_oversize;
    uint32_t stat_rx_roce;
    uint32_t stat_tx_errors;
    uint32_t stat_rx_dma_errors;
    uint32_t stat_rx_mc_filtered;

    uint32_t drop_every;    /* the wire's impairments: x-tx-* at reset, */
    uint32_t reorder_every; /* then WIRE_TEST's */
    uint32_t wire_count;    /* RoCEv2 frames, for the impairments */
    uint32_t held_len;      /* x-tx-reorder-every: a frame held back */
    unsigned held_plane;    /* ... and the plane it goes out on */

    /* each plane's RoCEv2 frames sent and received, other frames dropped */
    uint32_t stat_plane_tx[AXON_MAX_PLANES];
    uint32_t stat_plane_rx[AXON_MAX_PLANES];
    uint32_t stat_plane_drops[AXON_MAX_PLANES];

    /* not cleared by reset: everything above is */
    QEMUBH *tx_bh;
    uint8_t tx_buf[AXON_NIC_ETH_MAX_FRAME];
    uint8_t held[AXON_NIC_ETH_MAX_FRAME];
} AxonEth;

/* A plane other than 0 (axon-nic-plane.c): its own link into its fabric. */
typedef struct AxonPlane {
    NICConf conf;           /* planeN=: its netdev */
    NICState *nic;          /* NULL: the device has fewer planes */
} AxonPlane;

struct AxonNicState {
    PCIDevice parent_obj;

    MemoryRegion bar_regs;  /* BAR 0: the registers, then the clock page */
    MemoryRegion regs;
    MemoryRegion clock_page;
    int64_t clock_base;     /* QEMU_CLOCK_VIRTUAL when the clock was 0 */
    NICState *nic;          /* NULL without netdev= */

    uint32_t ctrl;
    uint32_t status;
    uint32_t error;

    AxonRing aq_sq;         /* idx: device consumer (head) */
    uint32_t aq_sq_tail;    /* driver producer, from the doorbell */
    AxonRing aq_cq;         /* idx: device producer */
    AxonRing eq;            /* idx: device producer */
    uint32_t eq_head;       /* driver consumer */
    AxonRing ceq;           /* completion events; idx: device producer */
    uint32_t ceq_head;      /* driver consumer */

    uint32_t stat_aq_cmds;
    uint32_t stat_aq_errors;
    uint32_t stat_events;
    uint32_t stat_eq_drops;

    bool link_up;           /* port state last reported to the driver */

    AxonEth eth;
    AxonPlane plane[AXON_MAX_PLANES];   /* [0] unused: plane 0 is nic */
    unsigned planes;        /* 1 + the planes configured */
    AxonEnv env;            /* the engine's, its ops axon-nic-engine.c */
    AxonEngine *engine;
    QEMUBH *engine_bh;      /* runs the engine's turns ... */
    struct AxonNicEngineThread *engine_thread; /* ... or this, if set */
    MemoryRegion db;        /* the doorbell BAR, written to the engine */

    /* properties */
    NICConf conf;           /* mac=, netdev= */
    uint32_t max_pd;
    bool engine_thread_on;  /* the engine's turns on a thread of its own */
    int64_t sq_poll_ns;     /* sq-poll-ns: SQ doorbell records, 0: never */
    int64_t sq_poll_idle_ns;    /* sq-poll-idle-ns: ... read this long */
    uint32_t admin_stall_after; /* test hook, 0: never */
    uint32_t admin_delay_us;    /* test hook: answer this late, 0: at once */
    QEMUTimer *admin_timer;     /* ... from here */
    bool wire_loopback;     /* test hook: local QPs talk over the wire */
    uint32_t tx_drop_every; /* test hook: lose every Nth RoCE frame */
    uint32_t tx_reorder_every; /* test hook: swap it with the next one */
    uint32_t tx_ce_every;   /* test hook: mark every Nth ECT frame CE */
    uint8_t rud_trim_dscp;  /* rud-trim-dscp: a trimming switch's, 0 none */
    AxonCcConf cc;          /* dcqcn=, dcqcn-* */
    /* test hook x-rx-tx-max: the most RoCE frames one received frame sent */
    uint32_t rx_tx_max;
};

/* axon-nic-core.c: the core services, which call no other part */
bool axon_nic_ready(AxonNicState *s);
uint64_t axon_nic_clock(AxonNicState *s);
void axon_nic_irq(AxonNicState *s, unsigned vector);
void axon_nic_fatal(AxonNicState *s, enum axon_dev_error err);
bool axon_nic_post_event(AxonNicState *s, uint16_t type, uint32_t param,
                         uint64_t data);
bool axon_nic_post_completion(AxonNicState *s, uint32_t cqn);
bool axon_nic_check_ring(const AxonRing *r, size_t entry_size);
bool axon_nic_setup_allowed(AxonNicState *s, bool enabled, hwaddr addr);
void axon_nic_set_port_state(AxonNicState *s, bool up);

/* axon-nic-eth.c */
void axon_nic_eth_realize(AxonNicState *s);
void axon_nic_eth_exit(AxonNicState *s);
void axon_nic_eth_reset(AxonNicState *s);
void axon_nic_eth_stop(AxonNicState *s);
void axon_nic_eth_set_link(AxonNicState *s, bool up);
uint32_t axon_nic_eth_mmio_read(AxonNicState *s, hwaddr addr);
void axon_nic_eth_mmio_write(AxonNicState *s, hwaddr addr, uint32_t val);

/* axon-nic-plane.c */
bool axon_nic_plane_realize(AxonNicState *s, Error **errp);
void axon_nic_plane_exit(AxonNicState *s);
uint32_t axon_nic_plane_reg(AxonNicState *s);
uint32_t axon_nic_plane_stat(AxonNicState *s, hwaddr addr);

/* axon-nic-admin.c: runs the admin queue, in the MMIO write of its tail */
void axon_nic_admin_realize(AxonNicState *s);
void axon_nic_admin_reset(AxonNicState *s);
void axon_nic_admin_exit(AxonNicState *s);
void axon_nic_admin_tail(AxonNicState *s);

/* axon-nic-wire.c */
void axon_nic_wire_send(AxonNicState *s, unsigned plane,
                        const struct iovec *iov, int iovcnt);
uint16_t axon_nic_wire_test(AxonNicState *s, const struct axon_admin_cmd *cmd,
                            uint64_t *result);
bool axon_nic_wire_rx(AxonNicState *s, unsigned plane, const uint8_t *buf,
                      size_t size);

/* axon-nic-engine.c */
bool axon_nic_engine_realize(AxonNicState *s, Error **errp);
void axon_nic_engine_reset(AxonNicState *s);
void axon_nic_engine_exit(AxonNicState *s);

/* The Ethernet function runs: enabled, on a device that is ready. */
static inline bool axon_nic_eth_running(AxonNicState *s)
{
    return (s->eth.ctrl & AXON_ETH_CTRL_ENABLE) && axon_nic_ready(s);
}

static inline uint32_t axon_nic_eth_max_frame(AxonNicState *s)
{
    return s->eth.mtu + AXON_ETH_OVERHEAD;
}

/* Plane k's link (0: the port's netdev); NULL if the device has none. */
static inline NetClientState *axon_nic_plane_queue(AxonNicState *s,
                                                   unsigned plane)
{
    NICState *nic = plane ? s->plane[plane].nic : s->nic;

    return nic ? qemu_get_queue(nic) : NULL;
}

#endif /* HW_AXON_NIC_H */
