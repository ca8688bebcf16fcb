/*
 * axon-nic: model of the axon RoCEv2 RDMA SmartNIC, shared device state
 *
 * The device interface (registers, commands, descriptors) is the uAPI
 * header include/uapi/axon/axon_dev.h, shared with the driver; this file
 * is the emulator's own state and the core's services. The layers, each
 * calling only the ones below it:
 *
 *   axon-nic.c       the core: registers, the admin queue and its opcode
 *                    table, event queues, MSI-X
 *   axon-nic-qp.c    CQs, QPs, their state machine and doorbells
 *   axon-roce*.c     the RC transport over RoCEv2 (axon-roce.h)
 *   axon-nic-mr.c    PDs, MRs and keys, the GID table (axon-nic-rdma.h)
 *   axon-nic-eth.c   the Ethernet function and the wire, both ways
 *   axon-nic-plane.c the wire's other planes (RoCEv2 only)
 *
 * Calls go up only through named services: the core's below (raise an
 * interrupt, post an event or a completion event, stop the device), the
 * QP layer's (write a CQE, post a QP event, move a QP to ERR:
 * axon-nic-rdma.h), and the engine's for a received RoCEv2 frame
 * (axon_roce_rx_frame).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AXON_NIC_H
#define HW_AXON_NIC_H

#include "hw/pci/pci.h"
#include "net/net.h"
#include "qom/object.h"

#include "axon/axon_dev.h"

#define TYPE_AXON_NIC "axon-nic"
OBJECT_DECLARE_SIMPLE_TYPE(AxonNicState, AXON_NIC)

#define AXON_NIC_PORTS 1
#define AXON_NIC_GID_TBL_LEN 16
#define AXON_NIC_ACTIVE_MTU 1024     /* the port's, so UD's message size */
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

    uint32_t stat_rx_nobuf;
    uint32_t stat_rx_runt;
    uint32_t stat_rx_oversize;
    uint32_t stat_rx_roce;
    uint32_t stat_tx_errors;
    uint32_t stat_rx_dma_errors;

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

/*
 * A received RoCEv2 frame, as the Ethernet function classified it: where
 * its headers are, or why it cannot be taken.
 */
typedef struct AxonRoceFrame {
    const char *why;        /* NULL: well formed */
    const uint8_t *l3;      /* the IPv4 or IPv6 header */
    unsigned l3_len;
    const uint8_t *ib;      /* the UDP payload: BTH ... ICRC */
    size_t ib_len;
    uint8_t sgid[16];       /* the source address, as a GID */
} AxonRoceFrame;

typedef struct AxonRdma AxonRdma;

/* A plane other than 0 (axon-nic-plane.c): its own link into its fabric. */
typedef struct AxonPlane {
    NICConf conf;           /* planeN=: its netdev */
    NICState *nic;          /* NULL: the device has fewer planes */
} AxonPlane;

/* DCQCN's parameters (axon-roce-cc.c, Documentation/congestion-control.rst) */
typedef struct AxonCcConf {
    bool dcqcn;
    uint32_t line_rate, min_rate;       /* Mb/s */
    uint32_t rai, rhai;                 /* Mb/s, additive and hyper */
    uint32_t g_shift;                   /* alpha's gain: 1 / 2^g_shift */
    uint32_t alpha_us, increase_us;     /* the two timers */
    uint32_t byte_reset;                /* the byte counter, bytes */
    uint32_t cnp_us;                    /* a QP's CNPs at most this often */
    bool rud_window;                    /* RUD's congestion window */
} AxonCcConf;

struct AxonNicState {
    PCIDevice parent_obj;

    MemoryRegion bar_regs;  /* BAR 0: the registers, then the clock page */
    MemoryRegion regs;
    MemoryRegion clock_page;
    int64_t clock_base;     /* QEMU_CLOCK_VIRTUAL when the clock was 0 */
    QEMUBH *admin_bh;
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
    AxonRdma *rdma;

    /* properties */
    NICConf conf;           /* mac=, netdev= */
    uint32_t max_pd;
    uint32_t admin_stall_after; /* test hook, 0: never */
    bool wire_loopback;     /* test hook: local QPs talk over the wire */
    uint32_t tx_drop_every; /* test hook: lose every Nth RoCE frame */
    uint32_t tx_reorder_every; /* test hook: swap it with the next one */
    uint32_t tx_ce_every;   /* test hook: mark every Nth ECT frame CE */
    AxonCcConf cc;          /* dcqcn=, dcqcn-* */
    /* test hook x-rx-tx-max: the most RoCE frames one received frame sent */
    uint32_t rx_tx_max;
};

/* axon-nic.c: the core's services */
bool axon_nic_ready(AxonNicState *s);
uint64_t axon_nic_clock(AxonNicState *s);
void axon_nic_irq(AxonNicState *s, unsigned vector);
void axon_nic_fatal(AxonNicState *s, enum axon_dev_error err);
void axon_nic_post_event(AxonNicState *s, uint16_t type, uint32_t param);
bool axon_nic_post_completion(AxonNicState *s, uint32_t cqn);
uint16_t axon_nic_bad_cmd(uint16_t opcode, const char *why);
bool axon_nic_check_ring(const AxonRing *r, size_t entry_size);
bool axon_nic_setup_allowed(AxonNicState *s, bool enabled, hwaddr addr);
void axon_nic_set_port_state(AxonNicState *s, bool up);

/* axon-nic-eth.c */
void axon_nic_eth_realize(AxonNicState *s);
void axon_nic_eth_exit(AxonNicState *s);
void axon_nic_eth_reset(AxonNicState *s);
void axon_nic_eth_stop(AxonNicState *s);
void axon_nic_eth_halt(AxonNicState *s);
void axon_nic_eth_set_link(AxonNicState *s, bool up);
uint32_t axon_nic_eth_mmio_read(AxonNicState *s, hwaddr addr);
void axon_nic_eth_mmio_write(AxonNicState *s, hwaddr addr, uint32_t val);
uint16_t axon_nic_eth_wire_test(AxonNicState *s,
                                const struct axon_admin_cmd *cmd,
                                uint64_t *result);
void axon_nic_eth_wire_send(AxonNicState *s, unsigned plane,
                            const struct iovec *iov, int iovcnt);
bool axon_nic_eth_rx_roce(AxonNicState *s, unsigned plane,
                          const uint8_t *buf, size_t size);

/* axon-nic-plane.c */
bool axon_nic_plane_realize(AxonNicState *s, Error **errp);
void axon_nic_plane_exit(AxonNicState *s);
NetClientState *axon_nic_plane_queue(AxonNicState *s, unsigned plane);
uint32_t axon_nic_plane_reg(AxonNicState *s);
uint32_t axon_nic_plane_stat(AxonNicState *s, hwaddr addr);

/* axon-roce-net.c: the engine takes a received RoCEv2 frame */
void axon_roce_rx_frame(AxonNicState *s, const AxonRoceFrame *f);

#endif /* HW_AXON_NIC_H */
