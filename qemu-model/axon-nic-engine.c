/*
 * axon-nic: the RDMA engine's host in QEMU
 *
 * The engine (engine/axon-engine.h) is portable C; this file is where it
 * meets QEMU. It implements the engine's environment (engine/axon-env.h):
 * DMA through the PCI function, QEMU_CLOCK_VIRTUAL timers, a bottom half
 * for the engine's turns, frames out through the Ethernet function's
 * wire, events and completion events on the device's rings, and the
 * engine's trace points as QEMU trace events. It also owns the doorbell
 * BAR, whose writes it hands to the engine, and the engine's lifecycle.
 *
 * By default the engine runs under the BQL, like the rest of the device:
 * every call into it comes from an MMIO handler, a timer, a netdev
 * receive or its bottom half. With x-engine-thread=on it has a thread and
 * a lock of its own (below, "the engine's thread").
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/atomic.h"
#include "qemu/guest-random.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/rcu.h"
#include "qemu/thread.h"
#include "qemu/timer.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "sysemu/dma.h"
#include "axon-nic.h"

/* ---- time --------------------------------------------------------------- */

/* The device around the environment it gives the engine. */
static AxonNicState *axon_nic_of(AxonEnv *env)
{
    return container_of(env, AxonNicState, env);
}

typedef struct AxonNicTimer {
    AxonTimer base;
    QEMUTimer timer;
    AxonTimerFn *fn;
    void *opaque;
    bool armed;         /* set, and neither deleted nor run since */
} AxonNicTimer;

static void axon_nic_engine_thread_defer_free(AxonNicState *s,
                                              AxonNicTimer *timer);

static AxonNicTimer *axon_nic_timer(AxonTimer *t)
{
    return container_of(t, AxonNicTimer, base);
}

static int64_t axon_nic_env_now_ns(AxonEnv *env)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static uint64_t axon_nic_env_device_clock(AxonEnv *env)
{
    return axon_nic_clock(axon_nic_of(env));
}

/*
 * Timers fire in the main loop. With an engine thread a firing may wait
 * for the engine while the engine deletes or sets the timer again: such
 * a firing is not run (armed, and the timer not pending again).
 */
static void axon_nic_timer_fire(void *opaque)
{
    AxonNicTimer *t = opaque;
    AxonNicState *s = axon_nic_of(t->base.env);

    axon_nic_engine_enter(s);
    if (t->armed && !timer_pending(&t->timer)) {
        t->armed = false;
        t->fn(t->opaque);
    }
    axon_nic_engine_leave(s);
}

static AxonTimer *axon_nic_env_timer_new(AxonEnv *env, AxonTimerFn *fn,
                                         void *opaque)
{
    AxonNicTimer *t = g_new0(AxonNicTimer, 1);

    t->base.env = env;
    t->fn = fn;
    t->opaque = opaque;
    timer_init_ns(&t->timer, QEMU_CLOCK_VIRTUAL, axon_nic_timer_fire, t);
    return &t->base;
}

static void axon_nic_env_timer_mod(AxonTimer *t, int64_t when_ns)
{
    axon_nic_timer(t)->armed = true;
    timer_mod(&axon_nic_timer(t)->timer, when_ns);
}

static void axon_nic_env_timer_del(AxonTimer *t)
{
    axon_nic_timer(t)->armed = false;
    timer_del(&axon_nic_timer(t)->timer);
}

static bool axon_nic_env_timer_pending(AxonTimer *t)
{
    return timer_pending(&axon_nic_timer(t)->timer);
}

static int64_t axon_nic_env_timer_expires(AxonTimer *t)
{
    return timer_expire_time_ns(&axon_nic_timer(t)->timer);
}

static void axon_nic_env_timer_free(AxonTimer *t)
{
    AxonNicState *s = axon_nic_of(t->env);

    axon_nic_env_timer_del(t);
    /* a firing may be waiting for the engine: freed when it cannot be */
    if (s->engine_thread && !qemu_mutex_iothread_locked()) {
        axon_nic_engine_thread_defer_free(s, axon_nic_timer(t));
        return;
    }
    g_free(axon_nic_timer(t));
}

/* ---- the engine's thread (x-engine-thread=on) -------------------------- */

/*
 * A thread of its own runs the engine's turns, under a lock of the
 * engine's own instead of the BQL, so that the vCPU that rang a doorbell
 * runs the guest on one host core while the engine works on another.
 *
 * Every other entry into the engine (admin commands, received frames,
 * timers, the other doorbells, register reads) takes the lock as well,
 * after the BQL, between axon_nic_engine_enter() and _leave(). The
 * thread never waits for the BQL while it holds the lock, so that order
 * cannot deadlock; hence, with the thread, the engine reaches guest RAM
 * only (no MMIO: that would take the BQL), and what it does that needs
 * the BQL, sending frames and posting events and completion events, goes
 * into an outbox, in order, that whoever holds the BQL next empties (the
 * thread after its turn, or an entry's _leave()).
 *
 * A send doorbell does not wait for the lock: it queues its write for the
 * thread's next turn and wakes the thread. Other doorbells, rare, are
 * applied at once, after the queued ones.
 *
 * The thread owns this structure and frees it when it ends, so a device
 * that goes away only tells it to stop (under the BQL and the lock).
 */
#define AXON_NIC_DB_QUEUE 1024

typedef struct AxonNicDoorbell {
    uint32_t page, offset, val;
} AxonNicDoorbell;

typedef enum AxonNicOutKind {
    AXON_NIC_OUT_FRAME,
    AXON_NIC_OUT_EVENT,
    AXON_NIC_OUT_COMPLETION,
} AxonNicOutKind;

typedef struct AxonNicOut {
    QSIMPLEQ_ENTRY(AxonNicOut) next;
    AxonNicOutKind kind;
    unsigned plane;             /* a frame's */
    uint16_t type;              /* an event's */
    uint32_t param;             /* an event's; a completion's CQ */
    uint64_t data;
    size_t len;
    uint8_t frame[];
} AxonNicOut;

typedef QSIMPLEQ_HEAD(, AxonNicOut) AxonNicOutbox;

typedef struct AxonNicEngineThread {
    QemuThread thread;
    QemuEvent wake;             /* a turn is due */
    QemuMutex lock;             /* the engine's: after the BQL */
    AxonNicState *s;            /* under the BQL and lock; NULL: stop */
    AxonNicOutbox out;          /* under lock */
    uint32_t ceq_taken;         /* completions in out: CEQ slots taken */
    GSList *dead_timers;        /* under lock: freed under the BQL */
    QemuSpin db_lock;           /* db_queued: send doorbells rung */
    uint32_t db_queued;
    AxonNicDoorbell db[AXON_NIC_DB_QUEUE];
} AxonNicEngineThread;

static void axon_nic_out_push(AxonNicEngineThread *t, AxonNicOut *o)
{
    QSIMPLEQ_INSERT_TAIL(&t->out, o, next);
}

static bool axon_nic_db_queue(AxonNicEngineThread *t, uint32_t page,
                              uint32_t offset, uint32_t val)
{
    bool queued = false;

    qemu_spin_lock(&t->db_lock);
    if (t->db_queued < AXON_NIC_DB_QUEUE) {
        t->db[t->db_queued++] = (AxonNicDoorbell){ page, offset, val };
        queued = true;
    }
    qemu_spin_unlock(&t->db_lock);
    return queued;
}

/* The queued send doorbells, in the order they were rung; lock held. */
static void axon_nic_db_drain(AxonNicEngineThread *t, AxonNicState *s)
{
    AxonNicDoorbell db[AXON_NIC_DB_QUEUE];
    uint32_t n, i;

    qemu_spin_lock(&t->db_lock);
    n = t->db_queued;
    memcpy(db, t->db, n * sizeof(db[0]));
    t->db_queued = 0;
    qemu_spin_unlock(&t->db_lock);
    for (i = 0; i < n; i++) {
        axon_engine_doorbell(s->engine, db[i].page, db[i].offset, db[i].val);
    }
}

/*
 * Empties the outbox: BQL and lock held; returns with the lock released.
 * Events and completion events are posted under both (the CEQ's state is
 * the lock's too), frames sent after the lock is released (a netdev may
 * deliver one back to this device at once); the BQL keeps them in order.
 * The device's reentrancy guard keeps the event rings' DMA off its own
 * registers, which would take the lock again.
 */
static void axon_nic_out_flush(AxonNicEngineThread *t, AxonNicState *s)
{
    MemReentrancyGuard *guard = &DEVICE(s)->mem_reentrancy_guard;
    bool engaged = guard->engaged_in_io;
    AxonNicOutbox frames = QSIMPLEQ_HEAD_INITIALIZER(frames);
    AxonNicOut *o;

    guard->engaged_in_io = true;
    while ((o = QSIMPLEQ_FIRST(&t->out))) {
        QSIMPLEQ_REMOVE_HEAD(&t->out, next);
        switch (o->kind) {
        case AXON_NIC_OUT_FRAME:
            QSIMPLEQ_INSERT_TAIL(&frames, o, next);
            continue;
        case AXON_NIC_OUT_EVENT:
            axon_nic_post_event(s, o->type, o->param, o->data);
            break;
        case AXON_NIC_OUT_COMPLETION:
            t->ceq_taken--;
            axon_nic_post_completion(s, o->param);
            break;
        }
        g_free(o);
    }
    g_slist_free_full(t->dead_timers, g_free);
    t->dead_timers = NULL;
    qemu_mutex_unlock(&t->lock);
    while ((o = QSIMPLEQ_FIRST(&frames))) {
        struct iovec iov = { .iov_base = o->frame, .iov_len = o->len };

        QSIMPLEQ_REMOVE_HEAD(&frames, next);
        axon_nic_wire_send(s, o->plane, &iov, 1);
        g_free(o);
    }
    guard->engaged_in_io = engaged;
}

static void axon_nic_out_free(AxonNicEngineThread *t)
{
    AxonNicOut *o;

    while ((o = QSIMPLEQ_FIRST(&t->out))) {
        QSIMPLEQ_REMOVE_HEAD(&t->out, next);
        g_free(o);
    }
    t->ceq_taken = 0;
}

void axon_nic_engine_enter(AxonNicState *s)
{
    AxonNicEngineThread *t = s->engine_thread;

    if (t) {
        qemu_mutex_lock(&t->lock);
        axon_nic_db_drain(t, s);
    }
}

void axon_nic_engine_leave(AxonNicState *s)
{
    AxonNicEngineThread *t = s->engine_thread;

    if (t) {
        axon_nic_out_flush(t, s);
    }
}

static void axon_nic_engine_thread_defer_free(AxonNicState *s,
                                              AxonNicTimer *timer)
{
    AxonNicEngineThread *t = s->engine_thread;

    t->dead_timers = g_slist_prepend(t->dead_timers, timer);
}

static void *axon_nic_engine_thread_fn(void *opaque)
{
    AxonNicEngineThread *t = opaque;
    AxonNicState *s;
    bool owed;

    rcu_register_thread();
    for (;;) {
        qemu_event_wait(&t->wake);
        /* a kick after this is a turn more: none is lost */
        qemu_event_reset(&t->wake);
        qemu_mutex_lock(&t->lock);
        s = t->s;
        if (!s) {
            qemu_mutex_unlock(&t->lock);
            break;
        }
        axon_nic_db_drain(t, s);
        axon_engine_run(s->engine);
        owed = !QSIMPLEQ_EMPTY(&t->out) || t->dead_timers;
        qemu_mutex_unlock(&t->lock);
        if (owed) {
            qemu_mutex_lock_iothread();
            qemu_mutex_lock(&t->lock);
            if (t->s) {
                axon_nic_out_flush(t, t->s);
            } else {
                qemu_mutex_unlock(&t->lock);
            }
            qemu_mutex_unlock_iothread();
        }
    }
    rcu_unregister_thread();
    axon_nic_out_free(t);
    g_slist_free_full(t->dead_timers, g_free);
    qemu_mutex_destroy(&t->lock);
    qemu_event_destroy(&t->wake);
    g_free(t);
    return NULL;
}

static void axon_nic_engine_thread_start(AxonNicState *s)
{
    AxonNicEngineThread *t = g_new0(AxonNicEngineThread, 1);

    t->s = s;
    QSIMPLEQ_INIT(&t->out);
    qemu_mutex_init(&t->lock);
    qemu_spin_init(&t->db_lock);
    qemu_event_init(&t->wake, false);
    s->engine_thread = t;
    qemu_thread_create(&t->thread, "axon-engine", axon_nic_engine_thread_fn,
                       t, QEMU_THREAD_DETACHED);
}

static void axon_nic_engine_thread_stop(AxonNicState *s)
{
    AxonNicEngineThread *t = s->engine_thread;

    qemu_mutex_lock(&t->lock);
    s->engine_thread = NULL;
    t->s = NULL;
    qemu_mutex_unlock(&t->lock);
    qemu_event_set(&t->wake);
}

static void axon_nic_env_kick(AxonEnv *env)
{
    AxonNicState *s = axon_nic_of(env);

    if (s->engine_thread) {
        qemu_event_set(&s->engine_thread->wake);
    } else {
        qemu_bh_schedule(s->engine_bh);
    }
}

static void axon_nic_engine_bh(void *opaque)
{
    AxonNicState *s = opaque;

    axon_engine_run(s->engine);
}

/* ---- host memory -------------------------------------------------------- */

/*
 * pci_dma_rw() translates once per run and memcpy()s RAM (marking it
 * dirty, so TCG sees code it overwrites), with a barrier before each
 * access: they are seen in order. Anything but RAM or MMIO is an error.
 */
/*
 * With the engine's thread: RAM only, through a MemoryRegionCache run by
 * run (it marks what it writes dirty as pci_dma_write() does), so that no
 * access dispatches MMIO, which would take the BQL under the engine's
 * lock. Another device's RAM BAR (axon-gpu VRAM) is RAM too.
 */
static bool axon_nic_dma_ram(AxonNicState *s, uint64_t addr, void *buf,
                             size_t len, bool write)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(s));
    uint8_t *p = buf;

    while (len) {
        MemoryRegionCache cache = MEMORY_REGION_CACHE_INVALID;
        int64_t l = address_space_cache_init(&cache, as, addr, len, write);
        bool ram = l > 0 && cache.ptr;

        if (ram) {
            /* seen in order, as dma_memory_rw()'s barrier has it */
            smp_mb();
            if (write) {
                address_space_write_cached(&cache, 0, p, l);
            } else {
                address_space_read_cached(&cache, 0, p, l);
            }
        }
        address_space_cache_destroy(&cache);
        if (!ram) {
            return false;
        }
        addr += l;
        p += l;
        len -= l;
    }
    return true;
}

static bool axon_nic_env_dma_read(AxonEnv *env, uint64_t addr, void *buf,
                                  size_t len)
{
    AxonNicState *s = axon_nic_of(env);

    if (s->engine_thread) {
        return axon_nic_dma_ram(s, addr, buf, len, false);
    }
    return pci_dma_read(PCI_DEVICE(s), addr, buf, len) == MEMTX_OK;
}

static bool axon_nic_env_dma_write(AxonEnv *env, uint64_t addr,
                                   const void *buf, size_t len)
{
    AxonNicState *s = axon_nic_of(env);

    if (s->engine_thread) {
        return axon_nic_dma_ram(s, addr, (void *)buf, len, true);
    }
    return pci_dma_write(PCI_DEVICE(s), addr, buf, len) == MEMTX_OK;
}

static bool axon_nic_env_dma_atomic(AxonEnv *env, uint64_t addr, bool cas,
                                    uint64_t cmp_add, uint64_t swap,
                                    uint64_t *orig)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(axon_nic_of(env)));
    dma_addr_t plen = 8;
    hwaddr xlat, l = 8;
    uint64_t *p, old, new;
    MemoryRegion *mr;

    /* only RAM can be updated atomically in place */
    RCU_READ_LOCK_GUARD();
    mr = address_space_translate(as, addr, &xlat, &l, true,
                                 MEMTXATTRS_UNSPECIFIED);
    if (l < 8 || !memory_region_is_ram(mr) || mr->readonly) {
        return false;
    }
    p = dma_memory_map(as, addr, &plen, DMA_DIRECTION_FROM_DEVICE,
                       MEMTXATTRS_UNSPECIFIED);
    if (!p || plen < 8) {
        if (p) {
            dma_memory_unmap(as, p, plen, DMA_DIRECTION_FROM_DEVICE, 0);
        }
        return false;
    }
    /* vCPUs may touch the word concurrently: compare-and-swap on it */
    old = qatomic_read__nocheck(p);
    for (;;) {
        uint64_t cur = le64_to_cpu(old), seen;

        new = cas ? (cur == cmp_add ? swap : cur) : cur + cmp_add;
        seen = qatomic_cmpxchg__nocheck(p, old, cpu_to_le64(new));
        if (seen == old) {
            *orig = cur;
            break;
        }
        old = seen;
    }
    dma_memory_unmap(as, p, plen, DMA_DIRECTION_FROM_DEVICE, 8);
    return true;
}

/* Memory owned by another PCI device (a peer's BAR) is a peer's. */
static bool axon_nic_env_dma_is_peer(AxonEnv *env, uint64_t addr,
                                     uint64_t *end)
{
    AddressSpace *as = pci_get_address_space(PCI_DEVICE(axon_nic_of(env)));
    hwaddr xlat, len = UINT64_MAX - addr;
    MemoryRegion *mr;
    Object *owner;

    RCU_READ_LOCK_GUARD();
    mr = address_space_translate(as, addr, &xlat, &len, false,
                                 MEMTXATTRS_UNSPECIFIED);
    *end = addr + MAX(len, 1);
    owner = memory_region_owner(mr);
    return owner && owner != OBJECT(axon_nic_of(env)) &&
           object_dynamic_cast(owner, TYPE_PCI_DEVICE);
}

/* ---- the wire and the device ------------------------------------------- */

static uint32_t axon_nic_env_planes_up(AxonEnv *env)
{
    return axon_nic_plane_reg(axon_nic_of(env)) >> AXON_PLANES_LINK_UP_SHIFT &
           AXON_PLANES_LINK_UP_MASK;
}

static void axon_nic_env_frame_send(AxonEnv *env, unsigned plane,
                                    const struct iovec *iov, int iovcnt)
{
    AxonNicState *s = axon_nic_of(env);
    AxonNicOut *o;
    size_t len;

    if (!s->engine_thread) {
        axon_nic_wire_send(s, plane, iov, iovcnt);
        return;
    }
    len = iov_size(iov, iovcnt);
    o = g_malloc(sizeof(*o) + len);
    o->kind = AXON_NIC_OUT_FRAME;
    o->plane = plane;
    o->len = iov_to_buf(iov, iovcnt, 0, o->frame, len);
    axon_nic_out_push(s->engine_thread, o);
}

static bool axon_nic_env_running(AxonEnv *env)
{
    return axon_nic_ready(axon_nic_of(env));
}

static bool axon_nic_env_event(AxonEnv *env, uint16_t type,
                               uint32_t param, uint64_t data)
{
    AxonNicState *s = axon_nic_of(env);
    AxonNicOut *o;

    if (!s->engine_thread) {
        return axon_nic_post_event(s, type, param, data);
    }
    o = g_new0(AxonNicOut, 1);
    o->kind = AXON_NIC_OUT_EVENT;
    o->type = type;
    o->param = param;
    o->data = data;
    axon_nic_out_push(s->engine_thread, o);
    return true;
}

/*
 * With the engine's thread the completion event waits in the outbox with
 * its CEQ slot taken, so that the engine learns now, as it must, whether
 * the CEQ has room (the CEQ's state changes under the engine's lock).
 */
static bool axon_nic_env_completion(AxonEnv *env, uint32_t cqn)
{
    AxonNicState *s = axon_nic_of(env);
    AxonNicEngineThread *t = s->engine_thread;
    AxonNicOut *o;

    if (!t) {
        return axon_nic_post_completion(s, cqn);
    }
    if (axon_nic_ready(s) && s->ceq.depth &&
        (s->ceq.idx + t->ceq_taken + 1) % s->ceq.depth == s->ceq_head) {
        return false;
    }
    o = g_new0(AxonNicOut, 1);
    o->kind = AXON_NIC_OUT_COMPLETION;
    o->param = cqn;
    t->ceq_taken++;
    axon_nic_out_push(t, o);
    return true;
}

/* Cryptographic, unless QEMU's -seed makes it repeatable. */
static void axon_nic_env_random(AxonEnv *env, void *buf, size_t len)
{
    qemu_guest_getrandom_nofail(buf, len);
}

static void axon_nic_env_guest_error(AxonEnv *env, const char *msg)
{
    qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: %s", msg);
}

static const AxonEnvOps axon_nic_env_ops = {
    .now_ns = axon_nic_env_now_ns,
    .device_clock = axon_nic_env_device_clock,
    .timer_new = axon_nic_env_timer_new,
    .timer_mod = axon_nic_env_timer_mod,
    .timer_del = axon_nic_env_timer_del,
    .timer_pending = axon_nic_env_timer_pending,
    .timer_expires = axon_nic_env_timer_expires,
    .timer_free = axon_nic_env_timer_free,
    .kick = axon_nic_env_kick,
    .dma_read = axon_nic_env_dma_read,
    .dma_write = axon_nic_env_dma_write,
    .dma_atomic = axon_nic_env_dma_atomic,
    .dma_is_peer = axon_nic_env_dma_is_peer,
    .planes_up = axon_nic_env_planes_up,
    .frame_send = axon_nic_env_frame_send,
    .running = axon_nic_env_running,
    .event = axon_nic_env_event,
    .completion = axon_nic_env_completion,
    .random = axon_nic_env_random,
    .guest_error = axon_nic_env_guest_error,
};

/*
 * A RoCEv2 frame from the wire (axon-nic-wire.c hands it up through
 * s->engine_rx), under the engine's lock.
 */
static bool axon_nic_engine_rx(AxonNicState *s, unsigned plane,
                               const uint8_t *frame, size_t len)
{
    bool taken;

    axon_nic_engine_enter(s);
    taken = axon_engine_rx(s->engine, plane, frame, len);
    axon_nic_engine_leave(s);
    return taken;
}

/* ---- the doorbell BAR -------------------------------------------------- */

static void axon_nic_db_write(void *opaque, hwaddr addr, uint64_t val,
                              unsigned size)
{
    AxonNicState *s = opaque;
    uint32_t page = addr / AXON_DB_PAGE_SIZE;
    uint32_t offset = addr % AXON_DB_PAGE_SIZE;

    if (s->engine_thread && AXON_DB_REG(offset) == AXON_DB_SQ &&
        axon_nic_db_queue(s->engine_thread, page, offset, val)) {
        qemu_event_set(&s->engine_thread->wake);
        return;
    }
    axon_nic_engine_enter(s);
    axon_engine_doorbell(s->engine, page, offset, val);
    axon_nic_engine_leave(s);
}

static uint64_t axon_nic_db_read(void *opaque, hwaddr addr, unsigned size)
{
    return 0;
}

static const MemoryRegionOps axon_nic_db_ops = {
    .read = axon_nic_db_read,
    .write = axon_nic_db_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

/* ---- lifecycle ---------------------------------------------------------- */

bool axon_nic_engine_realize(AxonNicState *s, Error **errp)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    AxonEngineConf conf = {
        .planes = s->planes,
        .max_pd = s->max_pd,
        .deferred_doorbells = s->engine_thread_on,
        .wire_loopback = s->wire_loopback,
        .tx_ce_every = s->tx_ce_every,
        .rud_trim_dscp = s->rud_trim_dscp,
        .cc = s->cc,
    };

    memcpy(conf.mac, s->conf.macaddr.a, sizeof(conf.mac));
    s->env.ops = &axon_nic_env_ops;
    s->engine_rx = axon_nic_engine_rx;
    s->engine = axon_engine_new(&s->env, &conf);
    if (!s->engine) {
        error_setg(errp, "axon-nic: no memory for the RDMA engine");
        return false;
    }
    if (s->engine_thread_on) {
        axon_nic_engine_thread_start(s);
    } else {
        s->engine_bh = qemu_bh_new_guarded(axon_nic_engine_bh, s,
                                           &DEVICE(pdev)->mem_reentrancy_guard);
    }
    memory_region_init_io(&s->db, OBJECT(s), &axon_nic_db_ops, s,
                          "axon-nic-doorbells",
                          AXON_RDMA_DB_PAGES * AXON_DB_PAGE_SIZE);
    pci_register_bar(pdev, AXON_BAR_DB, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->db);
    return true;
}

void axon_nic_engine_reset(AxonNicState *s)
{
    AxonNicEngineThread *t = s->engine_thread;

    if (s->engine_bh) {
        qemu_bh_cancel(s->engine_bh);
    }
    /* what the engine had rung or owed goes with it */
    axon_nic_engine_enter(s);
    if (t) {
        axon_nic_out_free(t);
    }
    axon_engine_reset(s->engine);
    axon_engine_set_ceq_depth(s->engine, 0);
    axon_nic_engine_leave(s);
}

void axon_nic_engine_exit(AxonNicState *s)
{
    if (s->engine_thread) {
        axon_nic_engine_thread_stop(s);
    } else {
        qemu_bh_delete(s->engine_bh);
    }
    axon_engine_free(s->engine);
    s->engine = NULL;
}
