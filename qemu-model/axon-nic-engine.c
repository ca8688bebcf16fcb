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
 * The engine runs under the BQL, like the rest of the device: every call
 * into it comes from an MMIO handler, a timer, a netdev receive, or one
 * of its turns: a bottom half in the main loop, or with x-engine-thread=on
 * a thread of its own that takes the BQL for each turn.
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

/*
 * An engine timer runs with the device's MMIO guarded, as the engine's
 * turns do: DMA the guest aimed at the device's own BARs cannot enter
 * the engine from inside it.
 */
typedef struct AxonNicTimer {
    AxonTimer base;
    QEMUTimer timer;
    AxonTimerFn *fn;
    void *opaque;
} AxonNicTimer;

static QEMUTimer *axon_nic_timer(AxonTimer *t)
{
    return &container_of(t, AxonNicTimer, base)->timer;
}

static int64_t axon_nic_env_now_ns(AxonEnv *env)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static uint64_t axon_nic_env_device_clock(AxonEnv *env)
{
    return axon_nic_clock(axon_nic_of(env));
}

static void axon_nic_timer_fire(void *opaque)
{
    AxonNicTimer *t = opaque;
    MemReentrancyGuard *guard =
        &DEVICE(axon_nic_of(t->base.env))->mem_reentrancy_guard;
    bool engaged = guard->engaged_in_io;

    guard->engaged_in_io = true;
    t->fn(t->opaque);
    guard->engaged_in_io = engaged;
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
    timer_mod(axon_nic_timer(t), when_ns);
}

static void axon_nic_env_timer_del(AxonTimer *t)
{
    timer_del(axon_nic_timer(t));
}

static bool axon_nic_env_timer_pending(AxonTimer *t)
{
    return timer_pending(axon_nic_timer(t));
}

static int64_t axon_nic_env_timer_expires(AxonTimer *t)
{
    return timer_expire_time_ns(axon_nic_timer(t));
}

static void axon_nic_env_timer_free(AxonTimer *t)
{
    timer_del(axon_nic_timer(t));
    g_free(container_of(t, AxonNicTimer, base));
}

/* ---- the engine's turns ------------------------------------------------ */

/*
 * With x-engine-thread=on a thread of its own runs the engine's turns, and
 * a send doorbell only schedules its QP (deferred_doorbells), so the vCPU
 * that rang goes back to the guest while the engine works on another host
 * core. Each turn holds the BQL, as every other entry into the engine
 * does, so the engine never runs concurrently with itself or with an
 * admin command: the thread takes the turns off the vCPUs and the main
 * loop, nothing more. It owns its allocation and frees it when it ends,
 * so a device that goes away only tells it to stop, under the BQL, and
 * never waits for it.
 */
typedef struct AxonNicEngineThread {
    QemuThread thread;
    QemuEvent wake;             /* a turn is due */
    AxonNicState *s;            /* under the BQL; NULL: stop */
} AxonNicEngineThread;

/* One turn, with the device's MMIO guarded as a guarded bottom half's. */
static void axon_nic_engine_turn(AxonNicState *s)
{
    MemReentrancyGuard *guard = &DEVICE(s)->mem_reentrancy_guard;
    bool engaged = guard->engaged_in_io;

    guard->engaged_in_io = true;
    axon_engine_run(s->engine);
    guard->engaged_in_io = engaged;
}

static void *axon_nic_engine_thread_fn(void *opaque)
{
    AxonNicEngineThread *t = opaque;

    rcu_register_thread();
    for (;;) {
        qemu_event_wait(&t->wake);
        /* a kick after this is a turn more: none is lost */
        qemu_event_reset(&t->wake);
        qemu_mutex_lock_iothread();
        if (!t->s) {
            qemu_mutex_unlock_iothread();
            break;
        }
        axon_nic_engine_turn(t->s);
        qemu_mutex_unlock_iothread();
    }
    rcu_unregister_thread();
    qemu_event_destroy(&t->wake);
    g_free(t);
    return NULL;
}

static void axon_nic_engine_thread_start(AxonNicState *s)
{
    AxonNicEngineThread *t = g_new0(AxonNicEngineThread, 1);

    t->s = s;
    qemu_event_init(&t->wake, false);
    s->engine_thread = t;
    qemu_thread_create(&t->thread, "axon-engine", axon_nic_engine_thread_fn,
                       t, QEMU_THREAD_DETACHED);
}

static void axon_nic_engine_thread_stop(AxonNicState *s)
{
    AxonNicEngineThread *t = s->engine_thread;

    s->engine_thread = NULL;
    t->s = NULL;
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
static bool axon_nic_env_dma_read(AxonEnv *env, uint64_t addr, void *buf,
                                  size_t len)
{
    PCIDevice *pdev = PCI_DEVICE(axon_nic_of(env));

    return pci_dma_read(pdev, addr, buf, len) == MEMTX_OK;
}

static bool axon_nic_env_dma_write(AxonEnv *env, uint64_t addr,
                                   const void *buf, size_t len)
{
    PCIDevice *pdev = PCI_DEVICE(axon_nic_of(env));

    return pci_dma_write(pdev, addr, buf, len) == MEMTX_OK;
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
    axon_nic_wire_send(axon_nic_of(env), plane, iov, iovcnt);
}

static bool axon_nic_env_running(AxonEnv *env)
{
    return axon_nic_ready(axon_nic_of(env));
}

static bool axon_nic_env_event(AxonEnv *env, uint16_t type,
                               uint32_t param, uint64_t data)
{
    return axon_nic_post_event(axon_nic_of(env), type, param, data);
}

static bool axon_nic_env_completion(AxonEnv *env, uint32_t cqn)
{
    return axon_nic_post_completion(axon_nic_of(env), cqn);
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

/* ---- the doorbell BAR -------------------------------------------------- */

static void axon_nic_db_write(void *opaque, hwaddr addr, uint64_t val,
                              unsigned size)
{
    AxonNicState *s = opaque;

    axon_engine_doorbell(s->engine, addr / AXON_DB_PAGE_SIZE,
                         addr % AXON_DB_PAGE_SIZE, val);
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
        .sq_poll_ns = s->sq_poll_ns,
        .sq_poll_idle_ns = s->sq_poll_idle_ns,
        .wire_loopback = s->wire_loopback,
        .tx_ce_every = s->tx_ce_every,
        .rud_trim_dscp = s->rud_trim_dscp,
        .cc = s->cc,
    };

    memcpy(conf.mac, s->conf.macaddr.a, sizeof(conf.mac));
    s->env.ops = &axon_nic_env_ops;
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
    /* a turn the thread still owes runs on the empty engine: nothing */
    if (s->engine_bh) {
        qemu_bh_cancel(s->engine_bh);
    }
    axon_engine_reset(s->engine);
    axon_engine_set_ceq_depth(s->engine, 0);
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
