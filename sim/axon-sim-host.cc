/*
 * axon simulator: a simulated host (see axon-sim-host.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-sim-host.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "ns3/queue.h"
#include "ns3/simulator.h"

#include "axon-sim-frame.h"

using namespace ns3;

namespace axonsim {

namespace {

/* The engine's timers: ns-3 events. */
struct SimTimer {
    AxonTimer base;             /* first: the engine's handle */
    AxonTimerFn *fn;
    void *opaque;
    EventId ev;
    int64_t when;
};

void timer_fire(SimTimer *t)
{
    t->when = -1;
    t->fn(t->opaque);
}

/*
 * Out of ns-3's queue, not just cancelled: the engine re-arms its timers
 * on every packet, and cancelled events would pile up until their time.
 */
void timer_stop(SimTimer *t)
{
    if (t->when >= 0) {
        Simulator::Remove(t->ev);
    }
    t->when = -1;
}

} // namespace

const AxonEnvOps Host::env_ops = {
    .now_ns = env_now,
    .device_clock = env_clock,
    .timer_new = env_timer_new,
    .timer_mod = env_timer_mod,
    .timer_del = env_timer_del,
    .timer_pending = env_timer_pending,
    .timer_expires = env_timer_expires,
    .timer_free = env_timer_free,
    .kick = env_kick,
    .dma_read = env_dma_read,
    .dma_write = env_dma_write,
    .dma_atomic = env_dma_atomic,
    .dma_is_peer = env_dma_is_peer,
    .planes_up = env_planes_up,
    .frame_send = env_frame_send,
    .running = env_running,
    .event = env_event,
    .completion = env_completion,
    .random = env_random,
    .guest_error = env_guest_error,
};

Host::Host(const Config &c, unsigned id, unsigned peers, unsigned max_qp)
    : c_(c), id_(id), max_qp_(max_qp), data_(id, HOST_PEER_SPAN)
{
    uint64_t span = (uint64_t)peers * HOST_PEER_SPAN;
    uint64_t page = 1ULL << SIM_DATA_PAGE_SHIFT;

    env_.env.ops = &env_ops;
    env_.host = this;
    data_len_ = (span + page - 1) & ~(page - 1);
    /* a locally administered MAC and ::ffff:10.0.x.y, both from id */
    mac_[0] = 0x02;
    mac_[1] = 0xa0;
    mac_[4] = (uint8_t)(id >> 8);
    mac_[5] = (uint8_t)id;
    gid_[10] = gid_[11] = 0xff;
    uint32_t ip = ipv4(id);
    for (int i = 0; i < 4; i++) {
        gid_[12 + i] = (uint8_t)(ip >> (24 - 8 * i));
    }
    rng_ = (c.seed + 1) * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)id << 32 | id);
}

Host::~Host()
{
    sim_drv_free(drv_);
    if (eng_) {
        axon_engine_free(eng_);
    }
}

bool Host::start(std::string *why)
{
    AxonEngineConf conf = {};
    SimDrvConf dc = {};
    int err;

    memcpy(conf.mac, mac_, 6);
    conf.planes = c_.planes;
    conf.max_pd = 4;
    conf.rud_trim_dscp = c_.trim_dscp;
    conf.cc.dcqcn = c_.transport == Transport::RC_DCQCN;
    conf.cc.rud_window = c_.transport == Transport::RUD_CC;
    conf.cc.line_rate = (uint32_t)(c_.link_gbps * 1000);
    conf.cc.min_rate = 100;
    conf.cc.rai = c_.dcqcn_rai;
    conf.cc.rhai = c_.dcqcn_rhai;
    conf.cc.g_shift = c_.dcqcn_g_shift;
    conf.cc.alpha_us = c_.dcqcn_alpha_us;
    conf.cc.increase_us = c_.dcqcn_increase_us;
    conf.cc.byte_reset = c_.dcqcn_byte_reset;
    conf.cc.cnp_us = c_.dcqcn_cnp_us;
    conf.cc.rud.rto_min_ns = c_.rud_rto_min_ns;
    conf.cc.rud.rto_init_ns = c_.rud_rto_min_ns;
    conf.cc.rud.late_min_ns = c_.rud_late_min_ns;
    conf.cc.rud.target_q_ns = c_.rud_target_q_ns;
    conf.cc.rud.avoid_min_ns = c_.rud_late_min_ns;
    eng_ = axon_engine_new(&env_.env, &conf);
    if (!eng_) {
        *why = "axon_engine_new: out of memory";
        return false;
    }
    axon_engine_set_ceq_depth(eng_, 1024);

    real_.assign(sim_drv_mem_size(max_qp_, c_.wq_depth), 0);
    dc.eng = eng_;
    dc.mem = real_.data();
    dc.mem_bus = HOST_MEM_BUS;
    dc.mem_size = real_.size();
    dc.data_bus = HOST_DATA_BUS;
    dc.data_len = data_len_;
    memcpy(dc.gid, gid_, 16);
    dc.max_qp = max_qp_;
    dc.wq_depth = c_.wq_depth;
    err = sim_drv_new(&dc, &drv_);
    if (err) {
        *why = "host " + std::to_string(id_) + ": driver: " +
               strerror(-err) + (stats_.last_guest_error.empty() ? "" :
               " (" + stats_.last_guest_error + ")");
        return false;
    }
    sim_drv_arm(drv_);
    return true;
}

void Host::attach(unsigned plane, Ptr<PointToPointNetDevice> dev)
{
    if (ports_.size() <= plane) {
        ports_.resize(plane + 1);
    }
    ports_[plane] = dev;
    links_up_ |= 1u << plane;
    dev->SetReceiveCallback(NetDevice::ReceiveCallback(
        [this, plane](Ptr<NetDevice>, Ptr<const Packet> p, uint16_t,
                      const Address &) {
            auto f = std::make_shared<std::vector<uint8_t>>(p->GetSize());

            p->CopyData(f->data(), f->size());
            Simulator::Schedule(NanoSeconds(c_.nic_rx_ns), &Host::deliver,
                                this, plane, f);
            return true;
        }));
}

void Host::set_link(unsigned plane, bool up)
{
    if (up) {
        links_up_ |= 1u << plane;
    } else {
        links_up_ &= ~(1u << plane);
    }
}

void Host::deliver(unsigned plane, std::shared_ptr<std::vector<uint8_t>> f)
{
    if (!axon_engine_rx(eng_, plane, f->data(), f->size())) {
        stats_.frames_foreign++;
    }
}

/* ---- the engine's turns -------------------------------------------------- */

void Host::run()
{
    int64_t now_ps = Simulator::Now().GetNanoSeconds() * 1000;

    run_pending_ = false;
    /* frames waiting for the NIC's message rate: let them in first */
    if (tx_slot_ps_ > now_ps) {
        run_pending_ = true;
        Simulator::Schedule(NanoSeconds((tx_slot_ps_ - now_ps + 999) / 1000),
                            &Host::run, this);
        return;
    }
    /* a port with more queued than the NIC buffers: wait for it to drain */
    for (const auto &dev : ports_) {
        uint32_t queued = dev ? dev->GetQueue()->GetNBytes() : 0;

        if (queued > c_.nic_tx_hold) {
            double bps = c_.link_gbps * 1e9;
            int64_t wait = (int64_t)((queued - c_.nic_tx_hold / 2) * 8e9 / bps);

            run_pending_ = true;
            Simulator::Schedule(NanoSeconds(wait > 0 ? wait : 1), &Host::run,
                                this);
            return;
        }
    }
    axon_engine_run(eng_);
}

/*
 * How long the frame sent now waits in the NIC, in ns: its turn to enter
 * the pipeline (one frame every 1 / nic_mpps, in the order sent), then
 * the pipeline's latency, with the DMA read of its payload if it has one
 * (from host memory, or from GPU memory with gpu_memory).
 * Frames of one latency leave in order; an ACK may pass a data frame.
 */
int64_t Host::tx_delay(bool reads_mem)
{
    int64_t now_ps = Simulator::Now().GetNanoSeconds() * 1000;
    int64_t slot = std::max(now_ps, tx_slot_ps_);
    int64_t lat = c_.nic_tx_ns + (reads_mem ? c_.nic_dma() : 0);

    if (c_.nic_mpps > 0) {
        tx_slot_ps_ = slot + (int64_t)(1e6 / c_.nic_mpps + 0.5);
    }
    return (slot - now_ps + 999) / 1000 + lat;
}

void Host::poll()
{
    struct ibv_wc wc[64];
    unsigned n;

    poll_pending_ = false;
    do {
        n = sim_drv_poll(drv_, wc, 64);
        for (unsigned i = 0; i < n; i++) {
            if (on_wc) {
                on_wc(wc[i]);
            }
        }
    } while (n);
    sim_drv_arm(drv_);
    /* a CQE written between the last poll and the arm raised no event */
    n = sim_drv_poll(drv_, wc, 64);
    for (unsigned i = 0; i < n; i++) {
        if (on_wc) {
            on_wc(wc[i]);
        }
    }
    if (n && !poll_pending_) {
        poll_pending_ = true;
        Simulator::Schedule(NanoSeconds(c_.nic_poll_ns), &Host::poll, this);
    }
}

void Host::send_now(unsigned plane, Ptr<Packet> p)
{
    ports_[plane]->Send(p, ports_[plane]->GetBroadcast(), 0x0800);
}

/* ---- the environment ----------------------------------------------------- */

int64_t Host::env_now(AxonEnv *)
{
    return Simulator::Now().GetNanoSeconds();
}

uint64_t Host::env_clock(AxonEnv *)
{
    return (uint64_t)Simulator::Now().GetNanoSeconds();
}

AxonTimer *Host::env_timer_new(AxonEnv *env, AxonTimerFn *fn, void *opaque)
{
    SimTimer *t = new SimTimer();

    t->base.env = env;
    t->fn = fn;
    t->opaque = opaque;
    t->when = -1;
    return &t->base;
}

void Host::env_timer_mod(AxonTimer *at, int64_t when)
{
    SimTimer *t = (SimTimer *)at;
    int64_t now = Simulator::Now().GetNanoSeconds();

    timer_stop(t);
    t->when = when;
    t->ev = Simulator::Schedule(NanoSeconds(when > now ? when - now : 0),
                                &timer_fire, t);
}

void Host::env_timer_del(AxonTimer *at)
{
    timer_stop((SimTimer *)at);
}

bool Host::env_timer_pending(AxonTimer *at)
{
    return ((SimTimer *)at)->when >= 0;
}

int64_t Host::env_timer_expires(AxonTimer *at)
{
    return ((SimTimer *)at)->when;
}

void Host::env_timer_free(AxonTimer *at)
{
    SimTimer *t = (SimTimer *)at;

    timer_stop(t);
    delete t;
}

void Host::env_kick(AxonEnv *env)
{
    Host *h = of(env);

    if (!h->run_pending_) {
        h->run_pending_ = true;
        Simulator::ScheduleNow(&Host::run, h);
    }
}

uint8_t *Host::real(uint64_t a, size_t n)
{
    if (a < HOST_MEM_BUS || a - HOST_MEM_BUS > real_.size() ||
        n > real_.size() - (a - HOST_MEM_BUS)) {
        return nullptr;
    }
    return real_.data() + (a - HOST_MEM_BUS);
}

static bool in_data(uint64_t a, size_t n, uint64_t len)
{
    return a >= HOST_DATA_BUS && a - HOST_DATA_BUS <= len &&
           n <= len - (a - HOST_DATA_BUS);
}

bool Host::env_dma_read(AxonEnv *env, uint64_t a, void *buf, size_t n)
{
    Host *h = of(env);
    uint8_t *p = h->real(a, n);

    if (p) {
        memcpy(buf, p, n);
    } else if (in_data(a, n, h->data_len_)) {
        h->data_.read(a - HOST_DATA_BUS, (uint8_t *)buf, n);
    } else {
        h->stats_.dma_faults++;
        return false;
    }
    return true;
}

bool Host::env_dma_write(AxonEnv *env, uint64_t a, const void *buf, size_t n)
{
    Host *h = of(env);
    uint8_t *p = h->real(a, n);

    if (p) {
        memcpy(p, buf, n);
    } else if (in_data(a, n, h->data_len_)) {
        h->data_.write(a - HOST_DATA_BUS, (const uint8_t *)buf, n);
    } else {
        h->stats_.dma_faults++;
        return false;
    }
    return true;
}

bool Host::env_dma_atomic(AxonEnv *env, uint64_t a, bool cas,
                          uint64_t cmp_add, uint64_t swap, uint64_t *orig)
{
    Host *h = of(env);
    uint8_t *p = h->real(a, 8);
    uint64_t v;

    /* the workloads use no atomics: only real memory takes them */
    if (!p) {
        h->stats_.dma_faults++;
        return false;
    }
    memcpy(&v, p, 8);
    *orig = le64toh(v);
    v = htole64(cas ? (*orig == cmp_add ? swap : *orig) : *orig + cmp_add);
    memcpy(p, &v, 8);
    return true;
}

/* With gpu_memory the data MR is a GPU's: the engine counts peer bytes. */
bool Host::env_dma_is_peer(AxonEnv *env, uint64_t a, uint64_t *end)
{
    Host *h = of(env);
    bool data = in_data(a, 1, h->data_len_);

    *end = data ? HOST_DATA_BUS + h->data_len_ : a + 1;
    return data && h->c_.gpu_memory;
}

uint32_t Host::env_planes_up(AxonEnv *env)
{
    return of(env)->links_up_;
}

void Host::env_frame_send(AxonEnv *env, unsigned plane,
                          const struct iovec *iov, int iovcnt)
{
    Host *h = of(env);
    std::vector<uint8_t> f;

    if (plane >= h->ports_.size() || !h->ports_[plane]) {
        return;
    }
    for (int i = 0; i < iovcnt; i++) {
        const uint8_t *b = (const uint8_t *)iov[i].iov_base;

        if (iov[i].iov_len) {
            f.insert(f.end(), b, b + iov[i].iov_len);
        }
    }
    Simulator::Schedule(NanoSeconds(h->tx_delay(sim_frame_reads_host(f.data(),
                                                                     f.size()))),
                        &Host::send_now, h, plane,
                        Create<Packet>(f.data(), f.size()));
}

bool Host::env_running(AxonEnv *)
{
    return true;
}

bool Host::env_event(AxonEnv *env, uint16_t, uint32_t, uint64_t)
{
    of(env)->stats_.events++;
    return true;
}

bool Host::env_completion(AxonEnv *env, uint32_t)
{
    Host *h = of(env);

    if (!h->poll_pending_) {
        h->poll_pending_ = true;
        Simulator::Schedule(NanoSeconds(h->c_.nic_poll_ns), &Host::poll, h);
    }
    return true;
}

void Host::env_random(AxonEnv *env, void *buf, size_t len)
{
    Host *h = of(env);
    uint8_t *p = (uint8_t *)buf;

    for (size_t i = 0; i < len; i++) {
        /* xorshift64*: same seed, same keys and PSNs */
        h->rng_ ^= h->rng_ >> 12;
        h->rng_ ^= h->rng_ << 25;
        h->rng_ ^= h->rng_ >> 27;
        p[i] = (uint8_t)((h->rng_ * 0x2545f4914f6cdd1dULL) >> 56);
    }
}

void Host::env_guest_error(AxonEnv *env, const char *msg)
{
    Host *h = of(env);

    h->stats_.guest_errors++;
    h->stats_.last_guest_error = msg;
}

} // namespace axonsim
