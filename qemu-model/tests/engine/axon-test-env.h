/*
 * axon engine tests: the test environment, a host of axon-env.h
 *
 * A world of 2..T_MAX_NODES engines on one deterministic virtual clock
 * (nanoseconds, moved only by the loop below, never by wall time). Each
 * node is a TNode, an AxonEnv and its ops: host memory as a plain buffer (bus address = base +
 * offset, bounds-checked), a seeded PRNG for the engine's random bytes,
 * the events and completion events it raised. Between the nodes a wire:
 * frames routed by destination MAC, planes 0..planes-1 each with a 'down'
 * switch, and impairments drawn from the world's seeded PRNG: drop,
 * duplicate, reorder (an extra random delay), corrupt (one byte flipped).
 *
 * The engine is never re-entered from an env call: kicks and frames are
 * queued and the loop (world_step/world_run*) runs kicked engines,
 * delivers frames and fires timers in time order, moving the clock only
 * when nothing else is due. Same seed, same run: same frames, same clock.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AXON_TEST_ENV_H
#define AXON_TEST_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "axon-engine.h"

#define T_MAX_NODES 4
#define T_MAX_EVENTS 64

typedef struct TWorld TWorld;
typedef struct TNode TNode;

/* The wire's impairments: probabilities in parts per million. */
typedef struct TWireConf {
    uint32_t drop_ppm, dup_ppm, reorder_ppm, corrupt_ppm;
    int64_t delay_ns;           /* every frame's flight time */
    int64_t reorder_ns;         /* a reordered frame: up to this much more */
} TWireConf;

/*
 * Sees every frame put on the wire (before impairments); false drops it.
 * The frame may be changed in place (len bytes).
 */
typedef bool TWireTap(TWorld *w, unsigned from, unsigned to, unsigned plane,
                      uint8_t *frame, size_t len, void *opaque);

typedef struct TEvent {
    uint16_t type;
    uint32_t param;
    uint64_t data;
} TEvent;

/* A node: an engine's host, its AxonEnv first. */
struct TNode {
    AxonEnv env;
    TWorld *w;
    unsigned id;
    AxonEngine *eng;
    uint8_t mac[6];
    uint8_t *mem;               /* bus [base, base + size) */
    uint64_t base, size;
    bool running;
    bool kicked;
    uint64_t rng;
    TEvent events[T_MAX_EVENTS];
    unsigned nevents;           /* may exceed T_MAX_EVENTS: those are lost */
    bool eq_full;               /* refuse async events, as a full queue */
    uint64_t completions;       /* completion events taken */
    uint32_t completion_cqn[16];    /* ... event n's CQ at [n % 16] */
    bool ceq_full;              /* refuse completion events, as a full CEQ */
    uint64_t completions_refused;
    uint64_t guest_errors;
    uint64_t dma_faults;        /* accesses out of range */
    uint64_t frames_tx, frames_rx, frames_rx_foreign;
    /* test hook: after each DMA write of the engine, len bytes at addr */
    void (*dma_written)(TNode *n, uint64_t addr, size_t len);
};

typedef struct TWorldStats {
    uint64_t sent, delivered, dropped, duplicated, reordered, corrupted;
    uint64_t unroutable, plane_down_drops, tap_drops;
    uint64_t timers_fired, runs;
    uint64_t timer_mods;        /* timers set (QEMU: may wake its loop) */
    uint64_t reentries;         /* an engine entered while inside it: a bug */
} TWorldStats;

/* ---- the world ------------------------------------------------------- */

/* nodes engines with planes planes each and mem_size bytes of memory. */
TWorld *world_new(unsigned nodes, unsigned planes, uint64_t mem_size,
                  uint64_t seed);
void world_free(TWorld *w);
/* The DSCP of trimmed frames the engines made from now on are told */
extern uint8_t world_rud_trim_dscp;
/* ... and whether they leave a send doorbell's work to their next run */
extern bool world_deferred_doorbells;
/* ... and how they poll send queue doorbell records (AxonEngineConf) */
extern int64_t world_sq_poll_ns, world_sq_poll_idle_ns;

TNode *world_node(TWorld *w, unsigned i);
AxonEngine *world_engine(TWorld *w, unsigned i);
unsigned world_nodes(TWorld *w);
int64_t world_now(TWorld *w);
const TWorldStats *world_stats(TWorld *w);
/* FNV-1a over every frame put on the wire: (from, plane, bytes), in order. */
uint64_t world_frame_hash(TWorld *w);

void world_set_wire(TWorld *w, const TWireConf *conf);
void world_set_tap(TWorld *w, TWireTap *tap, void *opaque);
/* Plane p silently loses every frame (report: planes_up says so too). */
void world_set_plane_down(TWorld *w, unsigned plane, bool down, bool report);

/* Puts a frame on the wire from node from, impairments and all. */
void world_inject(TWorld *w, unsigned from, unsigned plane,
                  const uint8_t *frame, size_t len);
/* Delivers a frame to node to now, bypassing the wire (not via a queue). */
bool world_rx_now(TWorld *w, unsigned to, unsigned plane,
                  const uint8_t *frame, size_t len);

/* ---- the loop -------------------------------------------------------- */

/*
 * One unit of work due at or before limit_ns: a kicked engine run, a
 * frame delivered or a timer fired, the clock moved to the next one if
 * needed. false: nothing is due before limit_ns (the clock is left).
 */
bool world_step(TWorld *w, int64_t limit_ns);
/* Until nothing is queued or limit_ns; true: idle. */
bool world_run_idle(TWorld *w, int64_t limit_ns);
/* Until done(arg) or nothing due before limit_ns; returns done(arg). */
bool world_run_until(TWorld *w, bool (*done)(void *arg), void *arg,
                     int64_t limit_ns);
/* Every due event up to t, then the clock at t. */
void world_run_to(TWorld *w, int64_t t);

/* Calls into an engine from the test, guarded against re-entry. */
void world_enter(TWorld *w);
void world_leave(TWorld *w);

/* ---- the events a node raised ---------------------------------------- */

/* How many events of type (with param, or any param if any) node raised. */
unsigned node_events(TNode *n, uint16_t type, bool any, uint32_t param);

/* ---- trace points, counted over the process ------------------------- */

#define T_TRACE_ENUM(name, params, args) T_TRACE_##name,
enum { AXON_ENV_TRACE_EVENTS(T_TRACE_ENUM) T_TRACE_COUNT };
#undef T_TRACE_ENUM

extern uint64_t t_trace_count[T_TRACE_COUNT];
/* Engines entered from inside an engine call, over the process: a bug. */
extern uint64_t t_reentries;
void t_trace_reset(void);

/* An untagged IPv4 RoCEv2 frame's bytes before its BTH */
#define T_ETH_IP_UDP (14 + 20 + 8)

/* The ICRC of an IPv4 RoCEv2 frame of len bytes, after a forger's edits. */
void t_fix_icrc(uint8_t *f, size_t len);

/* A seeded PRNG (xorshift64*): same seed, same numbers. */
uint64_t t_rand(uint64_t *state);

#endif /* AXON_TEST_ENV_H */
