/*
 * axon-nic: the port's wire, for the RDMA engine's frames
 *
 * Out: a frame the engine sends leaves on the plane it chose, whether the
 * Ethernet function runs or not (the wire is the port's), through the
 * test impairments (x-tx-*, or WIRE_TEST) that make the wire lossy or
 * make a frame overtake the next one. In: a frame any plane receives goes
 * to the engine first; what is not RoCEv2 is the Ethernet function's
 * (plane 0) or dropped (the other planes).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/iov.h"
#include "net/net.h"
#include "trace.h"

#include "axon-nic.h"

/* A frame out on plane, through the test impairments. */
void axon_nic_wire_send(AxonNicState *s, unsigned plane,
                        const struct iovec *iov, int iovcnt)
{
    AxonEth *e = &s->eth;
    NetClientState *nc = axon_nic_plane_queue(s, plane);

    /* nothing leaves a port that is down, nor a plane that is */
    if (!nc || !s->link_up || nc->link_down) {
        return;
    }
    e->wire_count++;
    if (e->drop_every && e->wire_count % e->drop_every == 0) {
        return;
    }
    if (e->reorder_every && !e->held_len &&
        e->wire_count % e->reorder_every == 0) {
        e->held_len = iov_to_buf_full(iov, iovcnt, 0, e->held,
                                      sizeof(e->held));
        e->held_plane = plane;
        return;
    }
    e->stat_plane_tx[plane]++;
    qemu_sendv_packet(nc, iov, iovcnt);
    if (e->held_len) {
        nc = axon_nic_plane_queue(s, e->held_plane);
        if (!nc->link_down) {
            e->stat_plane_tx[e->held_plane]++;
            qemu_send_packet(nc, e->held, e->held_len);
        }
        e->held_len = 0;
    }
}

/* WIRE_TEST: the impairments above, changed while the device runs. */
uint16_t axon_nic_wire_test(AxonNicState *s, const struct axon_admin_cmd *cmd,
                            uint64_t *result)
{
    const struct axon_admin_wire_test *w = &cmd->wire_test;
    uint32_t mask = le32_to_cpu(w->mask);
    AxonEth *e = &s->eth;

    if (mask & ~(AXON_WIRE_TEST_DROP | AXON_WIRE_TEST_REORDER)) {
        return axon_engine_bad_cmd(s->engine, AXON_ADMIN_WIRE_TEST,
                                   "unknown mask bits");
    }
    if (!buffer_is_zero(w->reserved, sizeof(w->reserved))) {
        return axon_engine_bad_cmd(s->engine, AXON_ADMIN_WIRE_TEST,
                                   "reserved bytes set");
    }
    if (mask & AXON_WIRE_TEST_DROP) {
        e->drop_every = le32_to_cpu(w->drop_every);
    }
    if (mask & AXON_WIRE_TEST_REORDER) {
        e->reorder_every = le32_to_cpu(w->reorder_every);
    }
    *result = (uint64_t)e->reorder_every << 32 | e->drop_every;
    return AXON_ADMIN_SUCCESS;
}

/*
 * A frame received on a plane, as far as the RDMA engine is concerned:
 * true when it was taken (a RoCEv2 frame, handed to the engine) or
 * dropped and counted; false when it is for the Ethernet function.
 */
bool axon_nic_wire_rx(AxonNicState *s, unsigned plane, const uint8_t *buf,
                      size_t size)
{
    AxonEth *e = &s->eth;
    uint32_t sent = e->wire_count;

    if (!axon_nic_eth_running(s)) {
        trace_axon_nic_err_eth_rx_stopped(size);
        e->stat_rx_nobuf++;
        return true;
    }
    if (size < AXON_ETH_HLEN) {
        trace_axon_nic_err_eth_rx_runt(size);
        e->stat_rx_runt++;
        return true;
    }
    if (size > axon_nic_eth_max_frame(s)) {
        trace_axon_nic_err_eth_rx_oversize(size, axon_nic_eth_max_frame(s));
        e->stat_rx_oversize++;
        return true;
    }
    if (!axon_engine_rx(s->engine, plane, buf, size)) {
        return false;
    }
    trace_axon_nic_eth_rx_roce(size);
    e->stat_rx_roce++;
    e->stat_plane_rx[plane]++;
    s->rx_tx_max = MAX(s->rx_tx_max, e->wire_count - sent);
    return true;
}
