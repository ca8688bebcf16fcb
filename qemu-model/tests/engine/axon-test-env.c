/*
 * axon engine tests: the test environment (see axon-test-env.h)
 *
 * Implements every function of axon-env.h for the engines of a TWorld:
 * the virtual clock and its timers, memory as a buffer, the lossy wire
 * and the loop that drives it all in time order.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "axon-test-env.h"

#define T_NEVER INT64_MAX
#define T_MAX_FRAME 16384

typedef struct TTimer {
    AxonTimer base;
    TNode *node;
    AxonTimerFn *fn;
    void *opaque;
    int64_t when;
    uint64_t seq;
    bool pending;
    struct TTimer *next;        /* the world's list, by (when, seq) */
} TTimer;

typedef struct TFrame {
    int64_t at;
    uint64_t seq;
    unsigned to, plane;
    size_t len;
    uint8_t data[];
} TFrame;

struct TWorld {
    int64_t now;
    uint64_t seq;
    unsigned nnodes, planes, rr;
    TNode node[T_MAX_NODES];
    TWireConf wire;
    uint32_t plane_down, plane_reported_down;
    uint64_t rng;
    TFrame **heap;              /* min-heap by (at, seq) */
    size_t nheap, cap;
    TTimer *timers;
    TWireTap *tap;
    void *tap_opaque;
    int depth;
    uint64_t hash;
    TWorldStats st;
};

static const AxonEnvOps t_env_ops;

static TNode *t_node(AxonEnv *env)
{
    return (TNode *)env;        /* its first member */
}

static TTimer *t_timer(AxonTimer *t)
{
    return (TTimer *)t;         /* its first member */
}

uint64_t t_trace_count[T_TRACE_COUNT];
uint64_t t_reentries;

void t_trace_reset(void)
{
    memset(t_trace_count, 0, sizeof(t_trace_count));
}

#define T_TRACE_DEFINE(name, params, args) \
    void axon_trace_##name(AxonEnv *env, AXON_ENV_UNPAREN params) \
    { \
        t_trace_count[T_TRACE_##name]++; \
    }
AXON_ENV_TRACE_EVENTS(T_TRACE_DEFINE)
#undef T_TRACE_DEFINE

uint64_t t_rand(uint64_t *s)
{
    uint64_t x = *s;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dULL;
}

static uint64_t splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x ? x : 1;
}

static bool chance(TWorld *w, uint32_t ppm)
{
    return ppm && t_rand(&w->rng) % 1000000 < ppm;
}

/* ---- the world ------------------------------------------------------- */

uint8_t world_rud_trim_dscp;
bool world_deferred_doorbells;
int64_t world_sq_poll_ns, world_sq_poll_idle_ns;

TWorld *world_new(unsigned nodes, unsigned planes, uint64_t mem_size,
                  uint64_t seed)
{
    TWorld *w = calloc(1, sizeof(*w));
    unsigned i;

    if (!w || nodes < 1 || nodes > T_MAX_NODES || planes < 1 ||
        planes > AXON_MAX_PLANES) {
        free(w);
        return NULL;
    }
    w->nnodes = nodes;
    w->planes = planes;
    w->rng = splitmix(seed);
    w->hash = 0xcbf29ce484222325ULL;
    w->now = 1000;              /* not 0: a time of 0 is nothing special */
    w->wire.delay_ns = 2000;
    for (i = 0; i < nodes; i++) {
        TNode *n = &w->node[i];
        AxonEngineConf conf = {
            .mac = { 0x52, 0x54, 0x00, 0xa0, 0x00, (uint8_t)(i + 1) },
            .planes = planes,
            .max_pd = 64,
            .rud_trim_dscp = world_rud_trim_dscp,
            .deferred_doorbells = world_deferred_doorbells,
            .sq_poll_ns = world_sq_poll_ns,
            .sq_poll_idle_ns = world_sq_poll_idle_ns,
        };

        n->w = w;
        n->id = i;
        memcpy(n->mac, conf.mac, 6);
        n->base = 0x40000000ULL;
        n->size = mem_size;
        n->mem = calloc(1, mem_size);
        n->running = true;
        n->rng = splitmix(seed ^ (0x1000u + i));
        if (!n->mem) {
            world_free(w);
            return NULL;
        }
        n->env.ops = &t_env_ops;
        n->eng = axon_engine_new(&n->env, &conf);
        if (!n->eng) {
            world_free(w);
            return NULL;
        }
        axon_engine_set_ceq_depth(n->eng, 64);
    }
    return w;
}

void world_free(TWorld *w)
{
    unsigned i;

    if (!w) {
        return;
    }
    for (i = 0; i < w->nnodes; i++) {
        axon_engine_free(w->node[i].eng);     /* frees its timers */
        free(w->node[i].mem);
    }
    for (size_t k = 0; k < w->nheap; k++) {
        free(w->heap[k]);
    }
    free(w->heap);
    free(w);
}

TNode *world_node(TWorld *w, unsigned i)
{
    return &w->node[i];
}

AxonEngine *world_engine(TWorld *w, unsigned i)
{
    return w->node[i].eng;
}

unsigned world_nodes(TWorld *w)
{
    return w->nnodes;
}

int64_t world_now(TWorld *w)
{
    return w->now;
}

const TWorldStats *world_stats(TWorld *w)
{
    return &w->st;
}

uint64_t world_frame_hash(TWorld *w)
{
    return w->hash;
}

void world_set_wire(TWorld *w, const TWireConf *conf)
{
    w->wire = *conf;
}

void world_set_tap(TWorld *w, TWireTap *tap, void *opaque)
{
    w->tap = tap;
    w->tap_opaque = opaque;
}

void world_set_plane_down(TWorld *w, unsigned plane, bool down, bool report)
{
    uint32_t bit = 1u << plane;

    w->plane_down = down ? w->plane_down | bit : w->plane_down & ~bit;
    w->plane_reported_down = down && report ? w->plane_reported_down | bit
                                            : w->plane_reported_down & ~bit;
}

void world_enter(TWorld *w)
{
    if (w->depth++) {
        w->st.reentries++;
        t_reentries++;
    }
}

void world_leave(TWorld *w)
{
    w->depth--;
}

/* ---- the frame queue -------------------------------------------------- */

static bool frame_before(const TFrame *a, const TFrame *b)
{
    return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static void heap_push(TWorld *w, TFrame *f)
{
    size_t i;

    if (w->nheap == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 256;
        TFrame **h = realloc(w->heap, cap * sizeof(*h));

        if (!h) {
            free(f);
            w->st.dropped++;
            return;
        }
        w->heap = h;
        w->cap = cap;
    }
    i = w->nheap++;
    while (i && frame_before(f, w->heap[(i - 1) / 2])) {
        w->heap[i] = w->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    w->heap[i] = f;
}

static TFrame *heap_pop(TWorld *w)
{
    TFrame *top = w->heap[0], *last = w->heap[--w->nheap];
    size_t i = 0;

    for (;;) {
        size_t c = 2 * i + 1;

        if (c >= w->nheap) {
            break;
        }
        if (c + 1 < w->nheap && frame_before(w->heap[c + 1], w->heap[c])) {
            c++;
        }
        if (!frame_before(w->heap[c], last)) {
            break;
        }
        w->heap[i] = w->heap[c];
        i = c;
    }
    if (w->nheap) {
        w->heap[i] = last;
    }
    return top;
}

static void hash_bytes(TWorld *w, const void *p, size_t n)
{
    const uint8_t *b = p;

    while (n--) {
        w->hash = (w->hash ^ *b++) * 0x100000001b3ULL;
    }
}

/* A copy of the frame on its way to node to, arriving delay_ns from now. */
static void wire_queue(TWorld *w, unsigned to, unsigned plane,
                       const uint8_t *frame, size_t len, int64_t delay_ns)
{
    TFrame *f = malloc(sizeof(*f) + len);

    if (!f) {
        w->st.dropped++;
        return;
    }
    f->at = w->now + delay_ns;
    f->seq = ++w->seq;
    f->to = to;
    f->plane = plane;
    f->len = len;
    memcpy(f->data, frame, len);
    if (w->wire.corrupt_ppm && chance(w, w->wire.corrupt_ppm) && len) {
        f->data[t_rand(&w->rng) % len] ^= 1 + t_rand(&w->rng) % 255;
        w->st.corrupted++;
    }
    heap_push(w, f);
}

static int64_t wire_delay(TWorld *w)
{
    int64_t d = w->wire.delay_ns;

    if (chance(w, w->wire.reorder_ppm) && w->wire.reorder_ns > 0) {
        d += 1 + t_rand(&w->rng) % (uint64_t)w->wire.reorder_ns;
        w->st.reordered++;
    }
    return d;
}

static void wire_deliver(TWorld *w, unsigned from, unsigned to,
                         unsigned plane, uint8_t *frame, size_t len)
{
    if (w->tap && !w->tap(w, from, to, plane, frame, len, w->tap_opaque)) {
        w->st.tap_drops++;
        return;
    }
    if (to == w->nnodes) {
        w->st.unroutable++;
        return;
    }
    if (plane >= w->planes || (w->plane_down & (1u << plane))) {
        w->st.plane_down_drops++;
        return;
    }
    if (chance(w, w->wire.drop_ppm)) {
        w->st.dropped++;
        return;
    }
    wire_queue(w, to, plane, frame, len, wire_delay(w));
    if (chance(w, w->wire.dup_ppm)) {
        w->st.duplicated++;
        wire_queue(w, to, plane, frame, len, wire_delay(w));
    }
}

/* To the node of the frame's MAC; a group's frame, like a switch, to all. */
static void wire_send(TWorld *w, unsigned from, unsigned plane,
                      uint8_t *frame, size_t len)
{
    unsigned to;
    uint8_t meta[3] = { (uint8_t)from, (uint8_t)plane, 0 };

    w->st.sent++;
    hash_bytes(w, meta, sizeof(meta));
    hash_bytes(w, frame, len);
    if (len >= 6 && (frame[0] & 1)) {
        for (to = 0; to < w->nnodes; to++) {
            if (to != from) {
                wire_deliver(w, from, to, plane, frame, len);
            }
        }
        return;
    }
    for (to = 0; to < w->nnodes; to++) {
        if (len >= 6 && !memcmp(frame, w->node[to].mac, 6)) {
            break;
        }
    }
    wire_deliver(w, from, to, plane, frame, len);
}

void world_inject(TWorld *w, unsigned from, unsigned plane,
                  const uint8_t *frame, size_t len)
{
    uint8_t *copy = malloc(len ? len : 1);

    if (copy) {
        memcpy(copy, frame, len);
        wire_send(w, from, plane, copy, len);
        free(copy);
    }
}

bool world_rx_now(TWorld *w, unsigned to, unsigned plane,
                  const uint8_t *frame, size_t len)
{
    bool took;

    world_enter(w);
    took = axon_engine_rx(w->node[to].eng, plane, frame, len);
    world_leave(w);
    return took;
}

/* ---- the loop -------------------------------------------------------- */

static void deliver(TWorld *w, TFrame *f)
{
    TNode *n = &w->node[f->to];

    w->st.delivered++;
    n->frames_rx++;
    world_enter(w);
    if (!axon_engine_rx(n->eng, f->plane, f->data, f->len)) {
        n->frames_rx_foreign++;
    }
    world_leave(w);
    free(f);
}

static void fire(TWorld *w)
{
    TTimer *t = w->timers;

    w->timers = t->next;
    t->next = NULL;
    t->pending = false;
    w->st.timers_fired++;
    world_enter(w);
    t->fn(t->opaque);
    world_leave(w);
}

bool world_step(TWorld *w, int64_t limit_ns)
{
    int64_t tf, tt, t;
    unsigned k;

    for (k = 0; k < w->nnodes; k++) {
        TNode *n = &w->node[(w->rr + k) % w->nnodes];

        if (n->kicked) {
            n->kicked = false;
            w->rr = n->id + 1;
            w->st.runs++;
            world_enter(w);
            axon_engine_run(n->eng);
            world_leave(w);
            return true;
        }
    }
    tf = w->nheap ? w->heap[0]->at : T_NEVER;
    tt = w->timers ? w->timers->when : T_NEVER;
    t = tf < tt ? tf : tt;
    if (t == T_NEVER || t > limit_ns) {
        return false;
    }
    if (t > w->now) {
        w->now = t;
    }
    if (tf <= tt) {
        deliver(w, heap_pop(w));
    } else {
        fire(w);
    }
    return true;
}

bool world_run_idle(TWorld *w, int64_t limit_ns)
{
    while (world_step(w, limit_ns)) {
    }
    return !w->nheap && !w->timers;
}

bool world_run_until(TWorld *w, bool (*done)(void *arg), void *arg,
                     int64_t limit_ns)
{
    while (!done(arg)) {
        if (!world_step(w, limit_ns)) {
            return done(arg);
        }
    }
    return true;
}

void world_run_to(TWorld *w, int64_t t)
{
    while (world_step(w, t)) {
    }
    if (w->now < t) {
        w->now = t;
    }
}

unsigned node_events(TNode *n, uint16_t type, bool any, uint32_t param)
{
    unsigned i, c = 0;

    for (i = 0; i < n->nevents && i < T_MAX_EVENTS; i++) {
        if (n->events[i].type == type && (any || n->events[i].param == param)) {
            c++;
        }
    }
    return c;
}

/* ---- axon-env.h: time ------------------------------------------------- */

static int64_t t_env_now_ns(AxonEnv *e)
{
    TNode *env = t_node(e);

    return env->w->now;
}

static uint64_t t_env_device_clock(AxonEnv *e)
{
    TNode *env = t_node(e);

    return env->w->now;
}

static AxonTimer *t_env_timer_new(AxonEnv *e, AxonTimerFn *fn, void *opaque)
{
    TTimer *t = calloc(1, sizeof(*t));

    if (!t) {
        return NULL;
    }
    t->base.env = e;
    t->node = t_node(e);
    t->fn = fn;
    t->opaque = opaque;
    t->when = -1;
    return &t->base;
}

static void t_timer_del(TTimer *t)
{
    TTimer **p;

    if (!t || !t->pending) {
        return;
    }
    for (p = &t->node->w->timers; *p; p = &(*p)->next) {
        if (*p == t) {
            *p = t->next;
            break;
        }
    }
    t->next = NULL;
    t->pending = false;
}

static void t_env_timer_del(AxonTimer *bt)
{
    t_timer_del(t_timer(bt));
}

static void t_env_timer_mod(AxonTimer *bt, int64_t when_ns)
{
    TTimer *t = t_timer(bt);
    TWorld *w = t->node->w;
    TTimer **p;

    w->st.timer_mods++;
    t_timer_del(t);
    t->when = when_ns;
    t->seq = ++w->seq;
    t->pending = true;
    for (p = &w->timers; *p; p = &(*p)->next) {
        if ((*p)->when > when_ns) {
            break;
        }
    }
    t->next = *p;
    *p = t;
}

static bool t_env_timer_pending(AxonTimer *bt)
{
    return t_timer(bt)->pending;
}

static int64_t t_env_timer_expires(AxonTimer *bt)
{
    TTimer *t = t_timer(bt);

    return t->pending ? t->when : -1;
}

static void t_env_timer_free(AxonTimer *bt)
{
    TTimer *t = t_timer(bt);

    t_timer_del(t);
    free(t);
}

static void t_env_kick(AxonEnv *e)
{
    TNode *env = t_node(e);

    env->kicked = true;
}

/* ---- axon-env.h: memory ----------------------------------------------- */

static uint8_t *env_mem(TNode *env, uint64_t addr, size_t len)
{
    if (addr < env->base || addr - env->base > env->size ||
        len > env->size - (addr - env->base)) {
        env->dma_faults++;
        return NULL;
    }
    return env->mem + (addr - env->base);
}

static bool t_env_dma_read(AxonEnv *e, uint64_t addr, void *buf, size_t len)
{
    TNode *env = t_node(e);

    uint8_t *p = env_mem(env, addr, len);

    if (!p) {
        return false;
    }
    memcpy(buf, p, len);
    return true;
}

static bool t_env_dma_write(AxonEnv *e, uint64_t addr, const void *buf,
                        size_t len)
{
    TNode *env = t_node(e);

    uint8_t *p = env_mem(env, addr, len);

    if (!p) {
        return false;
    }
    memcpy(p, buf, len);
    if (env->dma_written) {
        env->dma_written(env, addr, len);
    }
    return true;
}

static bool t_env_dma_atomic(AxonEnv *e, uint64_t addr, bool cas,
                         uint64_t cmp_add, uint64_t swap, uint64_t *orig)
{
    TNode *env = t_node(e);

    uint8_t *p = (addr & 7) ? NULL : env_mem(env, addr, 8);
    uint64_t v = 0, n;
    int i;

    if (!p) {
        return false;
    }
    for (i = 7; i >= 0; i--) {
        v = v << 8 | p[i];
    }
    n = cas ? (v == cmp_add ? swap : v) : v + cmp_add;
    for (i = 0; i < 8; i++) {
        p[i] = (uint8_t)(n >> (8 * i));
    }
    *orig = v;
    return true;
}

static bool t_env_dma_is_peer(AxonEnv *e, uint64_t addr, uint64_t *end)
{
    TNode *env = t_node(e);

    *end = addr >= env->base && addr - env->base < env->size
           ? env->base + env->size : UINT64_MAX;
    return false;
}

/* ---- axon-env.h: the wire --------------------------------------------- */

static uint32_t t_env_planes_up(AxonEnv *e)
{
    TNode *env = t_node(e);

    TWorld *w = env->w;
    uint32_t all = w->planes >= 32 ? ~0u : (1u << w->planes) - 1;

    return all & ~w->plane_reported_down;
}

static void t_env_frame_send(AxonEnv *e, unsigned plane,
                         const struct iovec *iov, int iovcnt)
{
    TNode *env = t_node(e);

    uint8_t buf[T_MAX_FRAME];
    size_t len = 0;
    int i;

    for (i = 0; i < iovcnt; i++) {
        if (iov[i].iov_len > sizeof(buf) - len) {
            env->w->st.dropped++;
            return;
        }
        if (iov[i].iov_len) {           /* an empty one may be NULL */
            memcpy(buf + len, iov[i].iov_base, iov[i].iov_len);
            len += iov[i].iov_len;
        }
    }
    env->frames_tx++;
    wire_send(env->w, env->id, plane, buf, len);
}

/* ---- axon-env.h: the device ------------------------------------------- */

static bool t_env_running(AxonEnv *e)
{
    TNode *env = t_node(e);

    return env->running;
}

static bool t_env_event(AxonEnv *e, uint16_t type, uint32_t param,
                        uint64_t data)
{
    TNode *env = t_node(e);

    if (env->eq_full) {
        return false;
    }
    if (env->nevents < T_MAX_EVENTS) {
        env->events[env->nevents].type = type;
        env->events[env->nevents].param = param;
        env->events[env->nevents].data = data;
    }
    env->nevents++;
    return true;
}

static bool t_env_completion(AxonEnv *e, uint32_t cqn)
{
    TNode *env = t_node(e);

    if (env->ceq_full) {
        env->completions_refused++;
        return false;
    }
    env->completion_cqn[env->completions++ % 16] = cqn;
    return true;
}

static void t_env_random(AxonEnv *e, void *buf, size_t len)
{
    TNode *env = t_node(e);

    uint8_t *p = buf;

    while (len) {
        uint64_t r = t_rand(&env->rng);
        size_t n = len < 8 ? len : 8;

        memcpy(p, &r, n);
        p += n;
        len -= n;
    }
}

static void t_env_guest_error(AxonEnv *e, const char *msg)
{
    TNode *env = t_node(e);

    env->guest_errors++;
    if (getenv("AXON_TEST_VERBOSE")) {
        fprintf(stderr, "# node %u: %s", env->id, msg);
    }
}

static const AxonEnvOps t_env_ops = {
    .now_ns = t_env_now_ns,
    .device_clock = t_env_device_clock,
    .timer_new = t_env_timer_new,
    .timer_mod = t_env_timer_mod,
    .timer_del = t_env_timer_del,
    .timer_pending = t_env_timer_pending,
    .timer_expires = t_env_timer_expires,
    .timer_free = t_env_timer_free,
    .kick = t_env_kick,
    .dma_read = t_env_dma_read,
    .dma_write = t_env_dma_write,
    .dma_atomic = t_env_dma_atomic,
    .dma_is_peer = t_env_dma_is_peer,
    .planes_up = t_env_planes_up,
    .frame_send = t_env_frame_send,
    .running = t_env_running,
    .event = t_env_event,
    .completion = t_env_completion,
    .random = t_env_random,
    .guest_error = t_env_guest_error,
};

/* ---- forging frames ---------------------------------------------------- */

/* The ICRC of an IPv4 RoCEv2 frame, recomputed after the forger's edits. */
void t_fix_icrc(uint8_t *f, size_t len)
{
    uint8_t ph[8 + 20 + 8 + 12];
    uint8_t *ip = f + 14;
    uLong crc;

    memset(ph, 0xff, 8);
    memcpy(ph + 8, ip, 20 + 8 + 12);
    ph[8 + 1] = ph[8 + 8] = 0xff;               /* TOS, TTL */
    ph[8 + 10] = ph[8 + 11] = 0xff;             /* IP checksum */
    ph[8 + 20 + 6] = ph[8 + 20 + 7] = 0xff;     /* UDP checksum */
    ph[8 + 28 + 4] = 0xff;                      /* BTH resv8a */
    crc = crc32(0, ph, sizeof(ph));
    crc = crc32(crc, f + T_ETH_IP_UDP + 12, len - T_ETH_IP_UDP - 12 - 4);
    f[len - 4] = (uint8_t)crc;
    f[len - 3] = (uint8_t)(crc >> 8);
    f[len - 2] = (uint8_t)(crc >> 16);
    f[len - 1] = (uint8_t)(crc >> 24);
}
