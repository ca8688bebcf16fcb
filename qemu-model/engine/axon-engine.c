/*
 * axon engine: the engine as a whole
 *
 * Created and freed by its host, reset with the device, its port counters
 * read through the host's registers; a command refused for bad parameters
 * is reported here.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce.h"

/* What axon_engine_new() allocated, with no object left in it. */
static void axon_engine_unmake(AxonEngine *eng)
{
    axon_sq_poll_exit(eng);
    axon_srq_exit(eng);
    axon_mr_exit(eng);
    axon_table_free(&eng->cqs);
    axon_table_free(&eng->qps);
    free(eng);
}

AxonEngine *axon_engine_new(AxonEnv *env, const AxonEngineConf *conf)
{
    AxonEngine *eng = axon_new0(AxonEngine, 1);

    if (!eng) {
        return NULL;
    }
    eng->env = env;
    eng->conf = *conf;
    axon_rud_timing_defaults(&eng->conf.cc.rud);
    eng->rx_local = axon_roce_rx_pkt;
    axon_table_init(&eng->qps, AXON_RDMA_QP_SLOTS);
    axon_table_init(&eng->cqs, AXON_RDMA_MAX_CQ + 1);
    TAILQ_INIT(&eng->sched);
    TAILQ_INIT(&eng->acks);
    TAILQ_INIT(&eng->ev_owed);
    TAILQ_INIT(&eng->sq_polls);
    LIST_INIT(&eng->mcast);
    if (!axon_mr_realize(eng) || !axon_srq_realize(eng) ||
        !axon_sq_poll_realize(eng)) {
        axon_engine_unmake(eng);
        return NULL;
    }
    return eng;
}

void axon_engine_free(AxonEngine *eng)
{
    if (eng) {
        axon_engine_reset(eng);
        axon_engine_unmake(eng);
    }
}

/* Tears every object down; the device forgets them. */
void axon_engine_reset(AxonEngine *eng)
{
    axon_qp_reset(eng);
    axon_srq_reset(eng);      /* before the CQs: an XRC SRQ holds one */
    axon_cq_reset(eng);
    axon_mr_reset(eng);
    axon_cset_reset(eng);
    eng->cq_last = eng->qp_last = 0;
    memset(&eng->stats, 0, sizeof(eng->stats));
}

void axon_engine_set_ceq_depth(AxonEngine *eng, uint32_t depth)
{
    eng->ceq_depth = depth;
}

/* ---- port counters ------------------------------------------------------ */

static uint32_t axon_engine_stat_raw(AxonEngine *eng, uint32_t reg)
{
    switch (reg) {
    case AXON_REG_STAT_DB_REJECTS:
        return eng->stats.db_rejects;
    case AXON_REG_STAT_TX_PKTS:
        return eng->stats.tx_pkts;
    case AXON_REG_STAT_RX_PKTS:
        return eng->stats.rx_pkts;
    case AXON_REG_STAT_RX_DROPS:
        return eng->stats.rx_drops;
    case AXON_REG_STAT_RETRANS:
        return eng->stats.retrans;
    case AXON_REG_STAT_NAKS:
        return eng->stats.naks;
    case AXON_REG_STAT_PEER_RD_LO:
        return AXON_REG_LO(eng->stats.peer_rd);
    case AXON_REG_STAT_PEER_RD_HI:
        return AXON_REG_HI(eng->stats.peer_rd);
    case AXON_REG_STAT_PEER_WR_LO:
        return AXON_REG_LO(eng->stats.peer_wr);
    case AXON_REG_STAT_PEER_WR_HI:
        return AXON_REG_HI(eng->stats.peer_wr);
    case AXON_REG_STAT_MR_INVALID:
        return eng->stats.mr_invalid;
    case AXON_REG_STAT_DUP_REQS:
        return eng->stats.dup_reqs;
    case AXON_REG_STAT_OUT_OF_SEQ:
        return eng->stats.out_of_seq;
    case AXON_REG_STAT_STRAY:
        return eng->stats.stray;
    case AXON_REG_STAT_QKEY_DROPS:
        return eng->stats.qkey_drops;
    case AXON_REG_STAT_UD_NOBUF:
        return eng->stats.ud_nobuf;
    case AXON_REG_STAT_UC_DROPS:
        return eng->stats.uc_drops;
    case AXON_REG_STAT_CNP_SENT:
        return eng->stats.cnp_sent;
    case AXON_REG_STAT_CNP_RCVD:
        return eng->stats.cnp_rcvd;
    case AXON_REG_STAT_RUD_DROPS:
        return eng->stats.rud_drops;
    case AXON_REG_STAT_RUD_DUPS:
        return eng->stats.rud_dups;
    case AXON_REG_STAT_RUD_TRIMS:
        return eng->stats.rud_trims;
    case AXON_REG_STAT_ODP_FAULTS:
        return eng->stats.odp_faults;
    case AXON_REG_STAT_ODP_WAITS:
        return eng->stats.odp_waits;
    case AXON_REG_STAT_ECN_MARKED:
        return eng->stats.ecn_marked;
    default:
        return 0;
    }
}

/* A port counter: what counter sets counted is theirs, not the port's. */
uint32_t axon_engine_stat(AxonEngine *eng, uint32_t reg)
{
    return axon_cset_port_stat(eng, reg, axon_engine_stat_raw(eng, reg));
}
