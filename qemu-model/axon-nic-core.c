/*
 * axon-nic: the device's core services
 *
 * What every part of the device shell calls: raise an interrupt, post an
 * async event or a completion event on the driver's rings, stop the
 * device on a fatal error, check a queue's setup, the port's state and
 * the device clock. Nothing here calls another part of the device.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "hw/pci/pci.h"
#include "hw/pci/msix.h"
#include "sysemu/dma.h"
#include "trace.h"

#include "axon-nic.h"

/* ---- interrupts and events ----------------------------------------------- */

void axon_nic_irq(AxonNicState *s, unsigned vector)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    if (msix_enabled(pdev)) {
        trace_axon_nic_irq(vector);
        msix_notify(pdev, vector);
    }
}

bool axon_nic_ready(AxonNicState *s)
{
    return (s->status & AXON_STATUS_READY) && !(s->status & AXON_STATUS_FATAL);
}

/*
 * Queue an event on a validated event ring (the async one or the CEQ),
 * even on a dead device; false if the ring was full or not reachable.
 */
static bool axon_nic_write_event(AxonNicState *s, AxonRing *eq,
                                 uint32_t head, unsigned vector,
                                 uint16_t type, uint32_t param, uint64_t data)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    struct axon_event ev = {};

    if ((eq->idx + 1) % eq->depth == head) {
        trace_axon_nic_err_eq_full(type, param);
        s->stat_eq_drops++;
        return false;
    }

    ev.type = cpu_to_le16(type);
    ev.flags = cpu_to_le16(eq->phase ? AXON_EVENT_PHASE : 0);
    ev.param = cpu_to_le32(param);
    ev.data = cpu_to_le64(data);
    if (pci_dma_write(pdev, eq->base + (uint64_t)eq->idx * sizeof(ev),
                      &ev, sizeof(ev)) != MEMTX_OK) {
        axon_nic_fatal(s, AXON_DEV_ERR_DMA);
        return false;
    }
    trace_axon_nic_event(type, param);
    s->stat_events++;
    if (++eq->idx == eq->depth) {
        eq->idx = 0;
        eq->phase = !eq->phase;
    }
    axon_nic_irq(s, vector);
    return true;
}

bool axon_nic_post_event(AxonNicState *s, uint16_t type, uint32_t param,
                         uint64_t data)
{
    return axon_nic_ready(s) &&
           axon_nic_write_event(s, &s->eq, s->eq_head, AXON_MSIX_ASYNC, type,
                                param, data);
}

/*
 * A CQ armed through its doorbell got the CQE it waited for. False if the
 * CEQ is full: the caller posts the event again when it has room.
 */
bool axon_nic_post_completion(AxonNicState *s, uint32_t cqn)
{
    if (!axon_nic_ready(s) || !s->ceq.depth) {
        return true;
    }
    if ((s->ceq.idx + 1) % s->ceq.depth == s->ceq_head) {
        return false;
    }
    axon_nic_write_event(s, &s->ceq, s->ceq_head, AXON_MSIX_COMP,
                         AXON_EVENT_COMPLETION, cqn, 0);
    return true;
}

/* ---- a fatal error ------------------------------------------------------- */

/* The Ethernet function stops with the device. */
/*
 * The device died: the function stops at once. Frames held for RX buffers
 * stay queued (flushing from inside a receive callback could re-enter it)
 * until the reset that a dead device needs anyway.
 */
static void axon_nic_eth_halt(AxonNicState *s)
{
    AxonEth *e = &s->eth;

    qemu_bh_cancel(e->tx_bh);
    e->ctrl &= ~AXON_ETH_CTRL_ENABLE;
    e->irq_armed = false;
}

void axon_nic_fatal(AxonNicState *s, enum axon_dev_error err)
{
    if (s->status & AXON_STATUS_FATAL) {
        return;
    }
    trace_axon_nic_fatal(err);
    s->status |= AXON_STATUS_FATAL;
    s->error = err;
    axon_nic_eth_halt(s);
    /* tell the driver, if the event ring itself still works */
    if (s->status & AXON_STATUS_READY) {
        axon_nic_write_event(s, &s->eq, s->eq_head, AXON_MSIX_ASYNC,
                             AXON_EVENT_FATAL, 0, 0);
    }
}

/* ---- queue setup --------------------------------------------------------- */

bool axon_nic_check_ring(const AxonRing *r, size_t entry_size)
{
    uint64_t bytes = (uint64_t)r->depth * entry_size;

    return r->depth >= AXON_QUEUE_MIN_DEPTH &&
           r->depth <= AXON_QUEUE_MAX_DEPTH && is_power_of_2(r->depth) &&
           r->base && QEMU_IS_ALIGNED(r->base, AXON_QUEUE_ALIGN) &&
           r->base + bytes > r->base;
}

/* Queue setup registers may change only while the queues are stopped. */
bool axon_nic_setup_allowed(AxonNicState *s, bool enabled, hwaddr addr)
{
    if (enabled) {
        qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: write to queue register "
                      "0x%" HWADDR_PRIx " while enabled ignored\n", addr);
        trace_axon_nic_err_setup_while_enabled(addr);
        return false;
    }
    return true;
}

/* ---- the port and the clock ---------------------------------------------- */

/*
 * The port is the netdev backend's link (set_link, or the QOM property
 * "link-up" as an alias); without netdev= it starts up.
 */
void axon_nic_set_port_state(AxonNicState *s, bool up)
{
    if (s->link_up == up) {
        return;
    }
    s->link_up = up;
    trace_axon_nic_port_state(up);
    axon_nic_post_event(s, up ? AXON_EVENT_PORT_ACTIVE : AXON_EVENT_PORT_DOWN,
                        1, 0);
}

/* Nanoseconds since the device was created; a reset does not touch it. */
uint64_t axon_nic_clock(AxonNicState *s)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) - s->clock_base;
}
