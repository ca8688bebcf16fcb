/*
 * axon simulator: a simulated host, the engine's environment over ns-3
 *
 * One Host per endpoint: an axon engine (qemu-model/engine, the same
 * object files the QEMU device runs) whose environment (axon-env.h) is
 * implemented over ns-3:
 *   time      ns-3's simulated clock; the engine's timers are ns-3 events
 *   kick      an event that runs the engine, held back while a port's
 *             queue is over nic_tx_hold (the NIC has no more buffer)
 *   memory    real memory for the driver's rings (axon-sim-drv.h) and
 *             the data MR synthesised and checked (axon-sim-mem.h)
 *   wire      one ns-3 PointToPointNetDevice per plane, a frame a packet;
 *             each frame waits nic_tx_ns out (and nic_dma_ns more when
 *             its payload comes from host memory, nic_dma_gpu_ns from
 *             GPU memory with gpu_memory) and nic_rx_ns in, the
 *             NIC's pipeline, which takes a frame in every 1 / nic_mpps
 *             (the engine itself costs no simulated time)
 *   events    completion events poll the CQ nic_poll_ns later and hand
 *             each completion to the application (on_wc)
 * The engine never runs inside one of these calls: everything it is owed
 * is an ns-3 event.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AXON_SIM_HOST_H
#define AXON_SIM_HOST_H

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ns3/event-id.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-net-device.h"

#include "axon-sim-config.h"
#include "axon-sim-drv.h"
#include "axon-sim-mem.h"

namespace axonsim {

/* Where a host's memory is, by bus address. */
constexpr uint64_t HOST_MEM_BUS = 1ULL << 32;
constexpr uint64_t HOST_DATA_BUS = 1ULL << 40;
/* Each peer's part of the data MR: a message fits in it. */
constexpr uint64_t HOST_PEER_SPAN = 1ULL << 26;

struct HostStats {
    /* each a bug if not 0: a frame not RoCEv2, a command or WQE the
     * engine refused, a DMA outside the host's memory */
    uint64_t frames_foreign = 0, guest_errors = 0, dma_faults = 0;
    uint64_t events = 0;        /* asynchronous events: QP errors */
    std::string last_guest_error;
};

class Host {
public:
    Host(const Config &c, unsigned id, unsigned peers, unsigned max_qp);
    ~Host();
    Host(const Host &) = delete;
    Host &operator=(const Host &) = delete;

    /* The engine and its driver; false with *why. */
    bool start(std::string *why);
    /* The NIC's port on plane, joined to the fabric. */
    void attach(unsigned plane, ns3::Ptr<ns3::PointToPointNetDevice> dev);
    /* The port's link: a failed one is down for the engine too. */
    void set_link(unsigned plane, bool up);

    unsigned id() const { return id_; }
    AxonEngine *engine() { return eng_; }
    SimDrv *drv() { return drv_; }
    DataMem &mem() { return data_; }
    const uint8_t *mac() const { return mac_; }
    const uint8_t *gid() const { return gid_; }
    const HostStats &stats() const { return stats_; }
    /* An engine counter (AXON_REG_STAT_*). */
    uint32_t stat(uint32_t reg) { return axon_engine_stat(eng_, reg); }

    /* Each completion, as the application polls it. */
    std::function<void(const struct ibv_wc &)> on_wc;

    /* The IPv4 address of host id: 10.0.id/256.id%256 (in its GID). */
    static uint32_t ipv4(unsigned id) { return 0x0a000000u | (id & 0xffff); }

    /* ---- the environment: axon-env.h's AxonEnvOps, over ns-3 ---- */
    struct Env {
        AxonEnv env;            /* first: the engine's handle */
        Host *host;
    };

private:
    static Host *of(AxonEnv *env) { return ((Env *)env)->host; }
    static const AxonEnvOps env_ops;

    static int64_t env_now(AxonEnv *env);
    static uint64_t env_clock(AxonEnv *env);
    static AxonTimer *env_timer_new(AxonEnv *env, AxonTimerFn *fn, void *o);
    static void env_timer_mod(AxonTimer *t, int64_t when);
    static void env_timer_del(AxonTimer *t);
    static bool env_timer_pending(AxonTimer *t);
    static int64_t env_timer_expires(AxonTimer *t);
    static void env_timer_free(AxonTimer *t);
    static void env_kick(AxonEnv *env);
    static bool env_dma_read(AxonEnv *env, uint64_t a, void *b, size_t n);
    static bool env_dma_write(AxonEnv *env, uint64_t a, const void *b,
                              size_t n);
    static bool env_dma_atomic(AxonEnv *env, uint64_t a, bool cas,
                               uint64_t cmp_add, uint64_t swap,
                               uint64_t *orig);
    static bool env_dma_is_peer(AxonEnv *env, uint64_t a, uint64_t *end);
    static uint32_t env_planes_up(AxonEnv *env);
    static void env_frame_send(AxonEnv *env, unsigned plane,
                               const struct iovec *iov, int iovcnt);
    static bool env_running(AxonEnv *env);
    static bool env_event(AxonEnv *env, uint16_t type, uint32_t param,
                          uint64_t data);
    static bool env_completion(AxonEnv *env, uint32_t cqn);
    static void env_random(AxonEnv *env, void *buf, size_t len);
    static void env_guest_error(AxonEnv *env, const char *msg);

    /* the host memory a bus range is in: real (its offset) or data */
    uint8_t *real(uint64_t a, size_t n);
    void run();
    void poll();
    int64_t tx_delay(bool reads_mem);
    void send_now(unsigned plane, ns3::Ptr<ns3::Packet> p);
    static bool receive(ns3::Ptr<ns3::NetDevice> dev,
                        ns3::Ptr<const ns3::Packet> p, uint16_t proto,
                        const ns3::Address &from);
    void deliver(unsigned plane, std::shared_ptr<std::vector<uint8_t>> f);

    const Config &c_;
    unsigned id_;
    unsigned max_qp_;
    Env env_;
    AxonEngine *eng_ = nullptr;
    SimDrv *drv_ = nullptr;
    std::vector<uint8_t> real_;
    DataMem data_;
    uint64_t data_len_;
    uint8_t mac_[6] = {}, gid_[16] = {};
    uint64_t rng_;
    std::vector<ns3::Ptr<ns3::PointToPointNetDevice>> ports_;
    uint32_t links_up_ = 0;
    bool run_pending_ = false, poll_pending_ = false;
    /* nic_mpps: when the pipeline takes the next frame in, picoseconds */
    int64_t tx_slot_ps_ = 0;
    HostStats stats_;
};

} // namespace axonsim

#endif /* AXON_SIM_HOST_H */
