/*
 * axon-nic: the port's planes ("Planes" in axon_regs_defs.h)
 *
 * Plane 0 is the port's netdev (axon-nic-eth.c). Planes 1 to 3 are the
 * properties plane1..plane3, each a netdev of its own: another link, into
 * another network, with the same MAC. They carry RoCEv2 only; anything
 * else they receive is dropped and counted. The RDMA engine picks a
 * frame's plane (engine/axon-roce-net.c); axon-nic-eth.c sends it and takes in
 * what a plane receives. A plane's link is its netdev's (set_link).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "hw/qdev-core.h"
#include "net/net.h"
#include "trace.h"

#include "axon-nic.h"

static ssize_t axon_nic_plane_receive(NetClientState *nc, const uint8_t *buf,
                                      size_t size)
{
    AxonNicState *s = qemu_get_nic_opaque(nc);
    unsigned k;

    for (k = 1; k < s->planes; k++) {
        if (s->plane[k].nic && qemu_get_queue(s->plane[k].nic) == nc) {
            break;
        }
    }
    if (k == s->planes) {
        return size;
    }
    if (!axon_nic_wire_rx(s, k, buf, size)) {
        trace_axon_nic_err_plane_rx_not_roce(k, size);
        s->eth.stat_plane_drops[k]++;
    }
    return size;
}

static NetClientInfo axon_nic_plane_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .receive = axon_nic_plane_receive,
};

/*
 * The planes in use: 1 (the port's netdev, or none), then plane1.. as long
 * as they are set. A plane after a missing one is a configuration error.
 */
bool axon_nic_plane_realize(AxonNicState *s, Error **errp)
{
    DeviceState *dev = DEVICE(s);
    unsigned k;

    s->planes = 1;
    for (k = 1; k < AXON_MAX_PLANES; k++) {
        AxonPlane *p = &s->plane[k];
        g_autofree char *id = NULL;

        if (!p->conf.peers.ncs[0]) {
            continue;
        }
        if (k != s->planes || !s->nic) {
            error_setg(errp, "axon-nic: plane%u needs netdev= and plane1.."
                       "plane%u", k, k - 1);
            return false;
        }
        p->conf.macaddr = s->conf.macaddr;
        id = g_strdup_printf("%s.plane%u", dev->id ? dev->id : "axon-nic", k);
        p->nic = qemu_new_nic(&axon_nic_plane_info, &p->conf,
                              object_get_typename(OBJECT(s)), id,
                              &dev->mem_reentrancy_guard, s);
        qemu_format_nic_info_str(qemu_get_queue(p->nic), p->conf.macaddr.a);
        s->planes++;
    }
    return true;
}

void axon_nic_plane_exit(AxonNicState *s)
{
    unsigned k;

    for (k = 1; k < AXON_MAX_PLANES; k++) {
        if (s->plane[k].nic) {
            qemu_del_nic(s->plane[k].nic);
            s->plane[k].nic = NULL;
        }
    }
}

/* AXON_REG_PLANES: how many, and whose link is up. */
uint32_t axon_nic_plane_reg(AxonNicState *s)
{
    uint32_t up = s->link_up;
    unsigned k;

    for (k = 1; k < s->planes; k++) {
        up |= (uint32_t)!qemu_get_queue(s->plane[k].nic)->link_down << k;
    }
    return AXON_PLANES(s->planes, up);
}

/* AXON_REG_STAT_PLANE_*(k); a plane the device does not have reads 0. */
uint32_t axon_nic_plane_stat(AxonNicState *s, hwaddr addr)
{
    unsigned k = (addr - AXON_REG_STAT_PLANE_BASE) / 0x10;

    if (k >= s->planes) {
        return 0;
    }
    if (addr == AXON_REG_STAT_PLANE_TX(k)) {
        return s->eth.stat_plane_tx[k];
    }
    if (addr == AXON_REG_STAT_PLANE_RX(k)) {
        return s->eth.stat_plane_rx[k];
    }
    if (addr == AXON_REG_STAT_PLANE_DROPS(k)) {
        return s->eth.stat_plane_drops[k];
    }
    return 0;
}
