/*
 * axon engine: counter sets (AXON_CAP_COUNTER_SETS, "Counter sets" in
 * axon_admin_cmds_defs.h). A set's counters are computed, not kept by
 * the transport: each QP remembers its counters as they were when it
 * joined its set, and a set keeps what QPs counted in it before they left.
 * What sets counted is taken out of the port's registers when they are
 * read, so every packet is counted once, in the port or in one set.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-rdma.h"

#define AXON_QP_STATS_N (sizeof(AxonQpStats) / sizeof(uint64_t))

AXON_BUILD_BUG_ON(sizeof(AxonQpStats) % sizeof(uint64_t));
AXON_BUILD_BUG_ON(sizeof(AxonQpStats) / sizeof(uint64_t) !=
                  sizeof(struct axon_qp_counters) / sizeof(uint64_t));

/* acc += now - base, counter by counter */
static void axon_cset_add(AxonQpStats *acc, const AxonQpStats *now,
                          const AxonQpStats *base)
{
    uint64_t *a = (uint64_t *)acc;
    const uint64_t *n = (const uint64_t *)now, *b = (const uint64_t *)base;
    size_t i;

    for (i = 0; i < AXON_QP_STATS_N; i++) {
        a[i] += n[i] - b[i];
    }
}

/* What the QP counted since it joined its set goes to the set. */
void axon_cset_leave(AxonEngine *eng, AxonQp *qp)
{
    if (qp->cset) {
        axon_cset_add(&eng->cset[qp->cset].kept, &qp->stats,
                      &qp->cset_base);
        qp->cset = 0;
    }
}

static void axon_cset_join(AxonQp *qp, uint32_t set)
{
    qp->cset = set;
    qp->cset_base = qp->stats;
}

/* The counters of set; for set 0, those of every set, freed ones too. */
static void axon_cset_sum(AxonEngine *eng, uint32_t set, AxonQpStats *out)
{
    static const AxonQpStats zero;
    uint32_t i;
    AxonQp *qp;

    if (set) {
        *out = eng->cset[set].kept;
    } else {
        *out = eng->cset_freed;
        for (i = 1; i < AXON_MAX_COUNTER_SETS; i++) {
            axon_cset_add(out, &eng->cset[i].kept, &zero);
        }
    }
    for (i = 0; (qp = axon_table_next(&eng->qps, &i)) != NULL; i++) {
        if (qp->cset && (!set || qp->cset == set)) {
            axon_cset_add(out, &qp->stats, &qp->cset_base);
        }
    }
}

/* A port register (AXON_REG_STAT_*) the sets' counts leave out. */
uint32_t axon_cset_port_stat(AxonEngine *eng, uint32_t addr, uint32_t raw)
{
    AxonQpStats c;

    switch (addr) {
    case AXON_REG_STAT_TX_PKTS:
    case AXON_REG_STAT_RX_PKTS:
    case AXON_REG_STAT_RETRANS:
    case AXON_REG_STAT_NAKS:
    case AXON_REG_STAT_DUP_REQS:
    case AXON_REG_STAT_OUT_OF_SEQ:
    case AXON_REG_STAT_STRAY:
        break;
    default:
        return raw;
    }
    axon_cset_sum(eng, 0, &c);
    switch (addr) {
    case AXON_REG_STAT_TX_PKTS:
        return raw - c.tx_pkts;
    case AXON_REG_STAT_RX_PKTS:
        return raw - c.rx_pkts;
    case AXON_REG_STAT_RETRANS:
        return raw - c.retrans;
    case AXON_REG_STAT_NAKS:
        return raw - (c.seq_naks_sent + c.rnr_naks_sent + c.err_naks_sent +
                      c.seq_naks_rcvd + c.rnr_naks_rcvd + c.err_naks_rcvd);
    case AXON_REG_STAT_DUP_REQS:
        return raw - c.dup_reqs;
    case AXON_REG_STAT_OUT_OF_SEQ:
        return raw - c.out_of_seq;
    default:
        return raw - c.stray;
    }
}

/* The set a command names: allocated, or 0 where allow_port. */
static bool axon_cset_valid(AxonEngine *eng, uint32_t set, bool allow_port)
{
    if (set == 0) {
        return allow_port;
    }
    return set < AXON_MAX_COUNTER_SETS && eng->cset[set].used;
}

static bool axon_cset_cmd_ok(const struct axon_admin_counter_set *c,
                             bool set, bool qpn, bool resp)
{
    return (set || !c->set) && (qpn || !c->qpn) &&
           (resp || !c->resp_addr) &&
           buffer_is_zero(c->reserved, sizeof(c->reserved));
}

uint16_t axon_cset_alloc(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                         uint64_t *result)
{
    uint32_t i;

    if (!axon_cset_cmd_ok(&cmd->counter_set, false, false, false)) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_ALLOC_COUNTER_SET,
                                   "reserved bytes set");
    }
    for (i = 1; i < AXON_MAX_COUNTER_SETS; i++) {
        if (!eng->cset[i].used) {
            eng->cset[i] = (AxonCounterSet) { .used = true };
            *result = i;
            return AXON_ADMIN_SUCCESS;
        }
    }
    return AXON_ADMIN_NO_RESOURCES;
}

uint16_t axon_cset_free(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                        uint64_t *result)
{
    const struct axon_admin_counter_set *c = &cmd->counter_set;
    uint32_t set = le32_to_cpu(c->set);
    uint32_t i;
    AxonQp *qp;

    if (!axon_cset_cmd_ok(c, true, false, false)) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_FREE_COUNTER_SET,
                                   "reserved bytes set");
    }
    if (!axon_cset_valid(eng, set, false)) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    for (i = 0; (qp = axon_table_next(&eng->qps, &i)) != NULL; i++) {
        if (qp->cset == set) {
            return AXON_ADMIN_BUSY;
        }
    }
    axon_cset_add(&eng->cset_freed, &eng->cset[set].kept,
                  &(AxonQpStats) {});
    eng->cset[set] = (AxonCounterSet) {};
    return AXON_ADMIN_SUCCESS;
}

uint16_t axon_cset_bind(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                        uint64_t *result)
{
    const struct axon_admin_counter_set *c = &cmd->counter_set;
    uint32_t set = le32_to_cpu(c->set);
    AxonQp *qp;

    if (!axon_cset_cmd_ok(c, true, true, false)) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_BIND_COUNTER_SET,
                                   "reserved bytes set");
    }
    qp = axon_qp_lookup(eng, le32_to_cpu(c->qpn));
    if (!qp || !axon_cset_valid(eng, set, true)) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    if (qp->cset != set) {
        axon_cset_leave(eng, qp);
        if (set) {
            axon_cset_join(qp, set);
        }
    }
    return AXON_ADMIN_SUCCESS;
}

uint16_t axon_cset_query(AxonEngine *eng, const struct axon_admin_cmd *cmd,
                         uint64_t *result)
{
    const struct axon_admin_counter_set *c = &cmd->counter_set;
    uint32_t set = le32_to_cpu(c->set);
    struct axon_qp_counters out;
    AxonQpStats sum;

    if (!axon_cset_cmd_ok(c, true, false, true)) {
        return axon_engine_bad_cmd(eng, AXON_ADMIN_QUERY_COUNTER_SET,
                                   "reserved bytes set");
    }
    if (!axon_cset_valid(eng, set, false)) {
        return AXON_ADMIN_BAD_HANDLE;
    }
    axon_cset_sum(eng, set, &sum);
    axon_qp_counters_le(&sum, &out);
    if (!axon_env_dma_write(eng->env, le64_to_cpu(c->resp_addr), &out,
                            sizeof(out))) {
        return AXON_ADMIN_DMA_ERROR;
    }
    return AXON_ADMIN_SUCCESS;
}

void axon_cset_reset(AxonEngine *eng)
{
    memset(eng->cset, 0, sizeof(eng->cset));
    memset(&eng->cset_freed, 0, sizeof(eng->cset_freed));
}
