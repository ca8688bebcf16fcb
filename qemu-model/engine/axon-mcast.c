/*
 * axon engine: multicast groups (AXON_CAP_MCAST, "Multicast groups" in
 * axon_admin_cmds_defs.h; IBA 10.5, the RoCE annex A17.4.5)
 *
 * A group is its GID and the UD QPs attached to it: made by its first
 * ATTACH_MCAST, freed when its last QP leaves. The receive path
 * (axon-roce-rx.c) hands a datagram to AXON_MCAST_QPN to each member of
 * the group its destination GID names.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce.h"

struct AxonMcGroup {
    uint8_t gid[16];
    uint32_t nqps;
    uint32_t qpn[AXON_MAX_MCAST_QP_ATTACH];
    LIST_ENTRY(AxonMcGroup) link;
};

static AxonMcGroup *axon_mcast_find(AxonEngine *eng, const uint8_t *gid)
{
    AxonMcGroup *g;

    LIST_FOREACH(g, &eng->mcast, link) {
        if (!memcmp(g->gid, gid, sizeof(g->gid))) {
            return g;
        }
    }
    return NULL;
}

/* Where qpn is in g's list, or g->nqps. */
static uint32_t axon_mcast_slot(const AxonMcGroup *g, uint32_t qpn)
{
    uint32_t i = 0;

    while (i < g->nqps && g->qpn[i] != qpn) {
        i++;
    }
    return i;
}

/* Takes the QP in slot i out of g, and g out of the engine if it empties. */
static void axon_mcast_leave(AxonEngine *eng, AxonMcGroup *g, uint32_t i)
{
    g->qpn[i] = g->qpn[--g->nqps];
    if (!g->nqps) {
        LIST_REMOVE(g, link);
        eng->mcast_groups--;
        free(g);
    }
}

/* The command's QP and GID, checked; a status, or SUCCESS with *qpp set. */
static uint16_t axon_mcast_cmd(AxonEngine *eng,
                               const struct axon_admin_cmd *cmd, AxonQp **qpp)
{
    const struct axon_admin_mcast *m = &cmd->mcast;
    uint16_t opcode = le16_to_cpu(cmd->opcode);
    AxonQp *qp;

    if (m->reserved0 || !buffer_is_zero(m->reserved, sizeof(m->reserved))) {
        return axon_engine_bad_cmd(eng, opcode, "reserved bytes set");
    }
    if (!axon_gid_is_mcast(m->gid)) {
        return axon_engine_bad_cmd(eng, opcode, "not a multicast GID");
    }
    qp = axon_qp_lookup(eng, le32_to_cpu(m->qpn));
    if (!qp) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (qp->type != AXON_QPT_UD || qp->qpn == AXON_GSI_QPN) {
        return axon_engine_bad_cmd(eng, opcode, "not a UD QP");
    }
    *qpp = qp;
    return AXON_ADMIN_SUCCESS;
}

uint16_t axon_mcast_attach(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                           uint64_t *result)
{
    uint16_t status;
    AxonMcGroup *g;
    AxonQp *qp;

    status = axon_mcast_cmd(eng, cmd, &qp);
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    g = axon_mcast_find(eng, cmd->mcast.gid);
    if (!g) {
        if (eng->mcast_groups == AXON_MAX_MCAST_GRP) {
            return AXON_ADMIN_NO_RESOURCES;
        }
        g = axon_new0(AxonMcGroup, 1);
        if (!g) {
            return AXON_ADMIN_NO_RESOURCES;
        }
        memcpy(g->gid, cmd->mcast.gid, sizeof(g->gid));
        LIST_INSERT_HEAD(&eng->mcast, g, link);
        eng->mcast_groups++;
    }
    if (axon_mcast_slot(g, qp->qpn) < g->nqps) {
        return AXON_ADMIN_SUCCESS;      /* attached already */
    }
    if (g->nqps == AXON_MAX_MCAST_QP_ATTACH) {
        return AXON_ADMIN_NO_RESOURCES;
    }
    g->qpn[g->nqps++] = qp->qpn;
    return AXON_ADMIN_SUCCESS;
}

uint16_t axon_mcast_detach(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                           uint64_t *result)
{
    uint16_t status;
    AxonMcGroup *g;
    uint32_t i;
    AxonQp *qp;

    status = axon_mcast_cmd(eng, cmd, &qp);
    if (status != AXON_ADMIN_SUCCESS) {
        return status;
    }
    g = axon_mcast_find(eng, cmd->mcast.gid);
    i = g ? axon_mcast_slot(g, qp->qpn) : 0;
    if (!g || i == g->nqps) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    axon_mcast_leave(eng, g, i);
    return AXON_ADMIN_SUCCESS;
}

/* A QP going away leaves every group it is in. */
void axon_mcast_qp_gone(AxonEngine *eng, uint32_t qpn)
{
    AxonMcGroup *g = LIST_FIRST(&eng->mcast), *next;
    uint32_t i;

    for (; g; g = next) {
        next = LIST_NEXT(g, link);
        i = axon_mcast_slot(g, qpn);
        if (i < g->nqps) {
            axon_mcast_leave(eng, g, i);
        }
    }
}

/* The QPs attached to the group gid, *n of them; NULL for no group. */
const uint32_t *axon_mcast_members(AxonEngine *eng, const uint8_t *gid,
                                   uint32_t *n)
{
    AxonMcGroup *g = axon_mcast_find(eng, gid);

    *n = g ? g->nqps : 0;
    return g ? g->qpn : NULL;
}
