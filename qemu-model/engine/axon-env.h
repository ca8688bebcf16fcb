/*
 * axon engine: the environment interface, the one way the engine reaches
 * its host
 *
 * The engine (this folder) is the device's RDMA engine in portable C: it
 * includes the C library, the device interface (include/uapi/axon) and
 * its own headers, nothing else. Everything that depends on where it runs
 * is reached through this header, implemented once by each host:
 *
 *   qemu-model/axon-nic-engine.c  the QEMU device: DMA through the PCI
 *                                 function, QEMU_CLOCK_VIRTUAL timers, a
 *                                 bottom half, the netdev planes, the
 *                                 device's event queues
 *   qemu-model/axon-nic-trace.c   ... and its trace events
 *   qemu-model/tests/engine/      the engine tests: a deterministic
 *                                 clock, memory as a buffer, a lossy wire
 *
 * The host fills a table of functions (AxonEnvOps) and hands the engine
 * its AxonEnv; the engine calls through the table, so it never calls its
 * host directly and the host's files stay above the engine's. The engine
 * calls them from its own entry points only (axon-engine.h), never from
 * another thread, so a host needs no locking beyond its own. None of them
 * calls back into the engine: work a host owes the engine (a timer, a
 * kick) runs later, from the host's own loop. Trace points are the one
 * exception to the table: functions the host links in (below), so a
 * host that does not trace costs nothing but an empty call.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AXON_ENV_H
#define AXON_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "axon/axon_admin_defs.h"


typedef struct AxonEnv AxonEnv;
typedef struct AxonTimer AxonTimer;
typedef void AxonTimerFn(void *opaque);

/*
 * What a host implements: one table of functions, reached through the
 * AxonEnv it gives axon_engine_new(). The engine calls them through the
 * axon_env_*() wrappers below.
 */
typedef struct AxonEnvOps {
    /* ---- time ---- */
    /* Nanoseconds on the timers' clock: monotonic, from any origin. */
    int64_t (*now_ns)(AxonEnv *env);
    /* The device clock (AXON_REG_CLOCK), for CQE timestamps. */
    uint64_t (*device_clock)(AxonEnv *env);
    /*
     * A timer calls fn(opaque) once at or after the time it is set to;
     * the host's timer begins with an AxonTimer naming its env.
     */
    AxonTimer *(*timer_new)(AxonEnv *env, AxonTimerFn *fn, void *opaque);
    void (*timer_mod)(AxonTimer *t, int64_t when_ns);
    void (*timer_del)(AxonTimer *t);
    bool (*timer_pending)(AxonTimer *t);
    int64_t (*timer_expires)(AxonTimer *t);     /* -1: not pending */
    void (*timer_free)(AxonTimer *t);
    /* Call axon_engine_run() soon, from the host's loop, not from here. */
    void (*kick)(AxonEnv *env);

    /* ---- host memory, by bus address ---- */
    /*
     * false: some of it is not memory the device may reach. Accesses are
     * done in the order they are made and each is seen by the host
     * before the next (a CQE's phase is written after its body).
     */
    bool (*dma_read)(AxonEnv *env, uint64_t addr, void *buf, size_t len);
    bool (*dma_write)(AxonEnv *env, uint64_t addr, const void *buf,
                      size_t len);
    /*
     * An atomic on the 8 little-endian bytes at addr (8-byte aligned),
     * atomic also for the host's CPUs: compare and swap (cas), or fetch
     * and add. *orig is the value before, in host order.
     */
    bool (*dma_atomic)(AxonEnv *env, uint64_t addr, bool cas,
                       uint64_t cmp_add, uint64_t swap, uint64_t *orig);
    /*
     * Whether addr is another device's memory (a GPU's BAR: peer to
     * peer) rather than host RAM, and how far from addr that holds.
     */
    bool (*dma_is_peer)(AxonEnv *env, uint64_t addr, uint64_t *end);

    /* ---- the wire ---- */
    /* The planes whose link is up: bit k for plane k. */
    uint32_t (*planes_up)(AxonEnv *env);
    /*
     * A whole Ethernet frame out on plane (below conf.planes). An entry
     * of iov may be empty, its base NULL.
     */
    void (*frame_send)(AxonEnv *env, unsigned plane,
                       const struct iovec *iov, int iovcnt);

    /* ---- the device around the engine ---- */
    /* The device runs: its queues may be used and frames sent. */
    bool (*running)(AxonEnv *env);
    /*
     * An asynchronous event (enum axon_event_type) for the driver, with
     * its data (0 but for AXON_EVENT_PAGE_FAULT). false: the event queue
     * was full and the event is lost.
     */
    bool (*event)(AxonEnv *env, uint16_t type, uint32_t param,
                  uint64_t data);
    /*
     * A completion event for a CQ, and its vector. false: the completion
     * event queue is full; axon_cq_ceq_room() is called when it has room.
     */
    bool (*completion)(AxonEnv *env, uint32_t cqn);
    /* Unpredictable bytes, for keys and initial PSNs. */
    void (*random)(AxonEnv *env, void *buf, size_t len);
    /* The driver programmed the device wrongly (QEMU's LOG_GUEST_ERROR). */
    void (*guest_error)(AxonEnv *env, const char *msg);
} AxonEnvOps;

/* A host's environment: the structure it keeps begins with this. */
struct AxonEnv {
    const AxonEnvOps *ops;
};

/* A host's timer begins with this. */
struct AxonTimer {
    AxonEnv *env;
};

static inline int64_t axon_env_now_ns(AxonEnv *env)
{
    return env->ops->now_ns(env);
}

static inline uint64_t axon_env_device_clock(AxonEnv *env)
{
    return env->ops->device_clock(env);
}

static inline AxonTimer *axon_env_timer_new(AxonEnv *env, AxonTimerFn *fn,
                                            void *opaque)
{
    return env->ops->timer_new(env, fn, opaque);
}

static inline void axon_env_timer_mod(AxonTimer *t, int64_t when_ns)
{
    t->env->ops->timer_mod(t, when_ns);
}

static inline void axon_env_timer_del(AxonTimer *t)
{
    t->env->ops->timer_del(t);
}

static inline bool axon_env_timer_pending(AxonTimer *t)
{
    return t->env->ops->timer_pending(t);
}

static inline int64_t axon_env_timer_expires(AxonTimer *t)
{
    return t->env->ops->timer_expires(t);
}

static inline void axon_env_timer_free(AxonTimer *t)
{
    if (t) {
        t->env->ops->timer_free(t);
    }
}

static inline void axon_env_kick(AxonEnv *env)
{
    env->ops->kick(env);
}

static inline bool axon_env_dma_read(AxonEnv *env, uint64_t addr, void *buf,
                                     size_t len)
{
    return env->ops->dma_read(env, addr, buf, len);
}

static inline bool axon_env_dma_write(AxonEnv *env, uint64_t addr,
                                      const void *buf, size_t len)
{
    return env->ops->dma_write(env, addr, buf, len);
}

static inline bool axon_env_dma_atomic(AxonEnv *env, uint64_t addr, bool cas,
                                       uint64_t cmp_add, uint64_t swap,
                                       uint64_t *orig)
{
    return env->ops->dma_atomic(env, addr, cas, cmp_add, swap, orig);
}

static inline bool axon_env_dma_is_peer(AxonEnv *env, uint64_t addr,
                                        uint64_t *end)
{
    return env->ops->dma_is_peer(env, addr, end);
}

static inline uint32_t axon_env_planes_up(AxonEnv *env)
{
    return env->ops->planes_up(env);
}

static inline void axon_env_frame_send(AxonEnv *env, unsigned plane,
                                       const struct iovec *iov, int iovcnt)
{
    env->ops->frame_send(env, plane, iov, iovcnt);
}

static inline bool axon_env_running(AxonEnv *env)
{
    return env->ops->running(env);
}

static inline void axon_env_event(AxonEnv *env, uint16_t type,
                                  uint32_t param)
{
    env->ops->event(env, type, param, 0);
}

/* A page fault for the driver; false if the event queue lost it. */
static inline bool axon_env_page_fault(AxonEnv *env, uint32_t qpn,
                                       uint64_t data)
{
    return env->ops->event(env, AXON_EVENT_PAGE_FAULT, qpn, data);
}

static inline bool axon_env_completion(AxonEnv *env, uint32_t cqn)
{
    return env->ops->completion(env, cqn);
}

static inline void axon_env_random(AxonEnv *env, void *buf, size_t len)
{
    env->ops->random(env, buf, len);
}

/* ops->guest_error, formatted (engine/axon-cmd.c) */
void axon_env_guest_error(AxonEnv *env, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Trace points: X(name, (parameters), (arguments)) for each, defined by
 * the host as void axon_trace_<name>(AxonEnv *env, parameters): env says
 * which engine traced, for a host that runs several. The QEMU device
 * forwards them to its trace events axon_nic_<name> (trace-events).
 */
#define AXON_ENV_TRACE_EVENTS(X) \
    X(cc_cnp, \
      (uint32_t qpn, uint32_t rate, uint32_t alpha), (qpn, rate, alpha)) \
    X(cc_cnp_ignored, \
      (uint32_t qpn, int64_t since_cut_ns), (qpn, since_cut_ns)) \
    X(err_rdma_cmd, (uint16_t opcode, const char *why), (opcode, why)) \
    X(err_rdma_cq_overflow, (uint32_t cqn, uint32_t prod), (cqn, prod)) \
    X(err_rdma_db, \
      (uint32_t page, uint32_t reg, uint32_t val, const char *why), \
      (page, reg, val, why)) \
    X(err_rdma_dma, (uint64_t addr, uint64_t len), (addr, len)) \
    X(err_rdma_key, \
      (uint32_t key, uint32_t pdn, uint64_t va, uint64_t len, \
       uint32_t access), (key, pdn, va, len, access)) \
    X(err_rdma_mr_invalid, \
      (uint32_t key, uint64_t va, uint64_t len), (key, va, len)) \
    X(err_rdma_mr_windows, (uint32_t key, uint32_t windows), (key, windows)) \
    X(err_rdma_qp_state, \
      (uint32_t qpn, uint32_t cur, uint32_t next, uint32_t mask), \
      (qpn, cur, next, mask)) \
    X(err_roce_dup, \
      (uint32_t qpn, uint32_t psn, uint8_t opcode), (qpn, psn, opcode)) \
    X(err_roce_peer, (uint32_t qpn, uint32_t from), (qpn, from)) \
    X(err_roce_psn, \
      (uint32_t qpn, uint32_t psn, uint32_t una, uint32_t hi), \
      (qpn, psn, una, hi)) \
    X(err_roce_qpn, (uint32_t qpn), (qpn)) \
    X(err_roce_resp, \
      (uint32_t qpn, uint32_t psn, uint8_t nak, const char *why), \
      (qpn, psn, nak, why)) \
    X(err_roce_rx, (const char *why), (why)) \
    X(err_roce_wqe, \
      (uint32_t qpn, uint16_t idx, uint8_t opcode, uint8_t num_sge), \
      (qpn, idx, opcode, num_sge)) \
    X(err_rud_rx, \
      (uint32_t qpn, uint8_t opcode, uint32_t psn, const char *why), \
      (qpn, opcode, psn, why)) \
    X(err_set_gid, \
      (uint32_t port, uint32_t index, uint32_t type), (port, index, type)) \
    X(err_uc_rx, \
      (uint32_t qpn, uint32_t epsn, const char *why), (qpn, epsn, why)) \
    X(err_ud_rx, \
      (uint32_t qpn, uint32_t src_qpn, const char *why), \
      (qpn, src_qpn, why)) \
    X(err_ud_tx, (uint32_t qpn, uint16_t idx, uint32_t len), (qpn, idx, len)) \
    X(rdma_cq, \
      (uint32_t cqn, uint32_t depth, uint32_t npages, uint32_t uar, \
       uint8_t flags), (cqn, depth, npages, uar, flags)) \
    X(rdma_cq_resize, \
      (uint32_t cqn, uint32_t from, uint32_t to, uint32_t waiting), \
      (cqn, from, to, waiting)) \
    X(rdma_cqe, \
      (uint32_t cqn, uint32_t qpn, int recv, uint16_t idx, uint8_t status), \
      (cqn, qpn, recv, idx, status)) \
    X(rdma_mr, \
      (uint32_t index, uint8_t tag, uint64_t iova, uint64_t length, \
       uint32_t access, int peer), (index, tag, iova, length, access, peer)) \
    X(rdma_mr_invalidate, (uint32_t key), (key)) \
    X(rdma_odp_fault, \
      (uint32_t qpn, uint32_t key, uint32_t first, uint32_t count), \
      (qpn, key, first, count)) \
    X(rdma_odp_pages, \
      (uint32_t key, uint32_t first, uint32_t npages, int map), \
      (key, first, npages, map)) \
    X(rdma_odp_resume, (uint32_t qpn, uint32_t status), (qpn, status)) \
    X(rdma_mr_remap, \
      (uint32_t key, uint32_t npages, int peer), (key, npages, peer)) \
    X(rdma_mr_rereg, \
      (uint32_t key, uint32_t pdn, uint64_t iova, uint64_t length, \
       uint32_t access), (key, pdn, iova, length, access)) \
    X(rdma_peer_dma, (int write, uint64_t len), (write, len)) \
    X(rdma_qp, \
      (uint32_t qpn, uint16_t sq_depth, uint16_t rq_depth, uint32_t uar), \
      (qpn, sq_depth, rq_depth, uar)) \
    X(rdma_qp_state, \
      (uint32_t qpn, uint32_t cur, uint32_t next), (qpn, cur, next)) \
    X(rdma_srq, \
      (uint32_t srqn, uint32_t depth, uint32_t uar), (srqn, depth, uar)) \
    X(roce_nak, (uint32_t qpn, uint32_t psn, uint8_t code), (qpn, psn, code)) \
    X(roce_rnr, \
      (uint32_t qpn, uint32_t psn, uint8_t retry_left), \
      (qpn, psn, retry_left)) \
    X(roce_rx, \
      (uint8_t opcode, uint32_t dqpn, uint32_t psn, uint32_t len), \
      (opcode, dqpn, psn, len)) \
    X(roce_timeout, \
      (uint32_t qpn, uint32_t psn, uint8_t retry_left), \
      (qpn, psn, retry_left)) \
    X(roce_tx, \
      (uint32_t qpn, uint8_t opcode, uint32_t dqpn, uint32_t psn, \
       uint32_t len), (qpn, opcode, dqpn, psn, len)) \
    X(rud_cwnd, \
      (uint32_t qpn, const char *why, uint32_t cwnd, int64_t srtt_us, \
       int64_t base_rtt_us), (qpn, why, cwnd, srtt_us, base_rtt_us)) \
    X(rud_lost, \
      (uint32_t qpn, uint32_t psn, bool timer, uint8_t plane, \
       int64_t age_us, int64_t srtt_us, int64_t rttvar_us), \
      (qpn, psn, timer, plane, age_us, srtt_us, rttvar_us)) \
    X(rud_probe, \
      (uint32_t qpn, uint32_t psn, int64_t age_us), (qpn, psn, age_us)) \
    X(rud_trimmed, \
      (uint32_t qpn, uint32_t psn, uint8_t plane), (qpn, psn, plane)) \
    X(set_gid, (uint32_t index, uint32_t type), (index, type))

#define AXON_ENV_UNPAREN(...) __VA_ARGS__
#define AXON_ENV_TRACE_DECLARE(name, params, args) \
    void axon_trace_##name(AxonEnv *env, AXON_ENV_UNPAREN params);
AXON_ENV_TRACE_EVENTS(AXON_ENV_TRACE_DECLARE)
#undef AXON_ENV_TRACE_DECLARE

#endif /* AXON_ENV_H */
