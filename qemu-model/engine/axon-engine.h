/*
 * axon engine: what a host calls
 *
 * The RDMA engine of the axon NIC: PDs, MRs, windows and keys, GIDs, CQs,
 * SRQs and QPs, and the RC, UC, UD and RUD transports over RoCEv2 with
 * their congestion control. A host (the QEMU device shell, the engine
 * tests, a simulator) creates one engine per device, decodes the device
 * interface's admin commands into the calls below, hands it doorbell
 * writes and received frames, runs it when it asks to be run
 * (axon_env_kick), and implements the environment it reaches out through
 * (axon-env.h). The engine's view of commands, WQEs and CQEs is the
 * device interface itself, include/uapi/axon/axon_dev.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AXON_ENGINE_H
#define AXON_ENGINE_H

#include "axon/axon_dev.h"
#include "axon-env.h"


typedef struct AxonEngine AxonEngine;

/* What the engine holds: QUERY_DEVICE's limits and the port's. */
#define AXON_RDMA_MAX_QP        65536   /* qpn 2 .. 65537 */
#define AXON_RDMA_MAX_CQ        65536   /* cqn 1 .. 65536 */
#define AXON_RDMA_MAX_SRQ       1024    /* srqn 1 .. 1024 */
#define AXON_RDMA_MAX_MR        65536   /* key index 1 .. 65536 */
#define AXON_RDMA_MAX_MR_SIZE   (1ULL << 40)
#define AXON_RDMA_DB_PAGES      256     /* doorbell pages: UARs */
#define AXON_ENGINE_PORTS       1
#define AXON_ENGINE_GID_TBL_LEN 16
#define AXON_ENGINE_ACTIVE_MTU  1024    /* the port's, so UD's message size */

/*
 * RUD's timers (axon-roce-rud-window.c), in ns; a field left 0 takes its
 * default, made for TCG guests whose fabric queues for milliseconds
 * (axon-roce-rud.h). A datacenter's round trips are microseconds.
 */
typedef struct AxonRudTiming {
    int64_t rto_init_ns, rto_min_ns, rto_max_ns;        /* retransmit timer */
    int64_t late_min_ns;        /* SACK: reordering beyond a trip, at least */
    int64_t target_q_ns;        /* the window: queueing delay it allows */
    int64_t avoid_min_ns, avoid_max_ns;         /* a lossy plane's rest */
} AxonRudTiming;

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
    AxonRudTiming rud;
} AxonCcConf;

/* What the device is: fixed when the engine is created. */
typedef struct AxonEngineConf {
    uint8_t mac[6];             /* the port's address: frames' source */
    unsigned planes;            /* 1 .. AXON_MAX_PLANES */
    uint32_t max_pd;
    /*
     * A send doorbell only schedules its QP, for the next axon_engine_run():
     * the host runs the engine on a thread of its own, and the doorbell's
     * writer (a vCPU) goes back to posting at once. false: the doorbell
     * runs its QP's first packets itself (axon-roce-sched.c).
     */
    bool deferred_doorbells;
    /*
     * Send queue doorbell records (AXON_QP_SQ_DBREC): a QP's is read every
     * sq_poll_ns from its doorbell on, until sq_poll_idle_ns pass without
     * a new index. 0: records are never read, every post rings.
     */
    int64_t sq_poll_ns;
    int64_t sq_poll_idle_ns;
    bool wire_loopback;         /* test hook: local QPs talk over the wire */
    uint32_t tx_ce_every;       /* test hook: mark every Nth ECT frame CE */
    /*
     * The DSCP a switch gives a RUD DATA packet it trimmed to its
     * headers (1..63), 0: none is taken as trimmed (axon-roce-net.c).
     */
    uint8_t rud_trim_dscp;
    AxonCcConf cc;
} AxonEngineConf;

/* ---- lifecycle ---------------------------------------------------------- */

/* NULL: out of memory. */
AxonEngine *axon_engine_new(AxonEnv *env, const AxonEngineConf *conf);
void axon_engine_free(AxonEngine *eng);
/* Tears every object down, as a device reset does. */
void axon_engine_reset(AxonEngine *eng);
/*
 * CQs the host's completion event queue can take events for; none until
 * the host sets it (the driver sets the queue up first).
 */
void axon_engine_set_ceq_depth(AxonEngine *eng, uint32_t depth);

/* ---- what drives it ----------------------------------------------------- */

/* The work axon_env_kick() asked for: a bounded turn of the scheduler. */
void axon_engine_run(AxonEngine *eng);
/*
 * A write of val at offset offset of doorbell page page (a context's
 * UAR); the offset carries the id's high bits (AXON_DB_OFFSET).
 */
void axon_engine_doorbell(AxonEngine *eng, uint32_t page, uint32_t offset,
                          uint32_t val);
/*
 * A frame received on plane: true when it was the engine's (a RoCEv2
 * frame, taken or dropped and counted), false when it is not RoCEv2.
 */
bool axon_engine_rx(AxonEngine *eng, unsigned plane, const uint8_t *frame,
                    size_t len);
/* The completion event queue has room again. */
void axon_cq_ceq_room(AxonEngine *eng);
/* A port counter register (AXON_REG_STAT_*). */
uint32_t axon_engine_stat(AxonEngine *eng, uint32_t reg);

/* ---- admin commands: a device status (AXON_ADMIN_*) and a result -------- */

typedef uint16_t AxonEngineCmd(AxonEngine *eng,
                               const struct axon_admin_cmd *cmd,
                               uint64_t *result);

AxonEngineCmd axon_mr_create_pd, axon_mr_destroy_pd;
AxonEngineCmd axon_gid_set;
AxonEngineCmd axon_mr_create, axon_mr_destroy, axon_mr_invalidate,
              axon_mr_remap, axon_mr_rereg;
AxonEngineCmd axon_cq_create, axon_cq_destroy, axon_cq_resize;
AxonEngineCmd axon_qp_create, axon_qp_modify, axon_qp_query,
              axon_qp_query_live, axon_qp_destroy;
AxonEngineCmd axon_srq_create, axon_srq_modify, axon_srq_query,
              axon_srq_destroy;
AxonEngineCmd axon_cset_alloc, axon_cset_free, axon_cset_bind,
              axon_cset_query;
AxonEngineCmd axon_mcast_attach, axon_mcast_detach;
AxonEngineCmd axon_odp_map, axon_odp_unmap, axon_odp_resume;

/* A command refused for bad parameters: reported, AXON_ADMIN_BAD_PARAM. */
uint16_t axon_engine_bad_cmd(AxonEngine *eng, uint16_t opcode,
                             const char *why);

#endif /* AXON_ENGINE_H */
