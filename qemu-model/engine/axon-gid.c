/*
 * axon engine: the GID table
 *
 * The driver sets it (SET_GID) from the port's addresses; it resolves a
 * QP's or an address vector's sgid_index into the source address of its
 * frames, and tells a destination on this device from one on the wire;
 * what kind of address a GID is.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <assert.h>

#include "axon-rdma.h"

uint16_t axon_gid_set(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                      uint64_t *result)
{
    const struct axon_admin_gid *g = &cmd->gid;
    uint32_t port = le32_to_cpu(g->port);
    uint32_t index = le32_to_cpu(g->index);
    uint32_t type = le32_to_cpu(g->type);
    AxonGid *e;

    if (port < 1 || port > AXON_ENGINE_PORTS ||
        index >= AXON_ENGINE_GID_TBL_LEN ||
        type > AXON_GID_TYPE_ROCE_V2 || g->reserved0 ||
        !buffer_is_zero(g->reserved, sizeof(g->reserved))) {
        axon_trace_err_set_gid(eng->env, port, index, type);
        return AXON_ADMIN_BAD_PARAM;
    }
    e = &eng->gid_tbl[index];
    e->type = type;
    if (type == AXON_GID_TYPE_NONE) {
        memset(e->gid, 0, sizeof(e->gid));
    } else {
        memcpy(e->gid, g->gid, sizeof(e->gid));
    }
    axon_trace_set_gid(eng->env, index, type);
    return AXON_ADMIN_SUCCESS;
}

/* The entry a QP's sgid_index names (checked against the table's size). */
const AxonGid *axon_gid_get(AxonEngine *eng, uint32_t index)
{
    assert(index < AXON_ENGINE_GID_TBL_LEN);
    return &eng->gid_tbl[index];
}

bool axon_gid_is_ours(AxonEngine *eng, const uint8_t *gid)
{
    unsigned i;

    for (i = 0; i < AXON_ENGINE_GID_TBL_LEN; i++) {
        if (eng->gid_tbl[i].type != AXON_GID_TYPE_NONE &&
            !memcmp(eng->gid_tbl[i].gid, gid, 16)) {
            return true;
        }
    }
    return false;
}

/* An IPv4 address as a GID: ::ffff:a.b.c.d */
bool axon_gid_is_v4(const uint8_t *gid)
{
    static const uint8_t prefix[12] = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
    };

    return !memcmp(gid, prefix, sizeof(prefix));
}

/* A group's: ff00::/8, or ::ffff:224.0.0.0/4 (rdma_is_multicast_addr()) */
bool axon_gid_is_mcast(const uint8_t *gid)
{
    if (axon_gid_is_v4(gid)) {
        return (gid[12] & 0xf0) == 0xe0;
    }
    return gid[0] == 0xff;
}
