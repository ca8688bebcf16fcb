/*
 * axon simulator: AI traffic over the simulated hosts
 *
 * Connections are QP pairs between two hosts (qps_per_pair of them, RC or
 * RUD as the scenario says), used in both directions. A message is RDMA
 * WRITEs with immediate of at most max_wqe_bytes each, spread over the
 * pair's QPs; the receiver counts the immediates and, as each WQE's
 * completion comes, checks that every byte of it was placed
 * (axon-sim-mem.h). The workloads:
 *   ring-allreduce  every host sends to the next in a ring 2(N-1) chunks
 *                   of bytes/N, chunk k+1 once chunk k came in from the
 *                   previous host (NCCL's ring: reduce-scatter, all-gather)
 *   all-to-all      every host sends bytes to every other, all at once
 *   incast          incast_senders hosts (0: all others) send messages of
 *                   bytes each to host 0
 *   permutation     host i sends messages of bytes to host perm(i), a
 *                   random derangement from the seed
 * and, with background = permutation, beside any of them: a fraction of
 * the hosts (background_hosts) each send messages of background_bytes to
 * host bperm(i), another derangement from the seed, on QPs of their own,
 * the messages arriving at random (Poisson) at background_load of the
 * host's links, until the workload is done (or background_messages each);
 * the run ends when the workload and every background message started
 * are done. The workload's figures leave the background's messages out.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AXON_SIM_TRAFFIC_H
#define AXON_SIM_TRAFFIC_H

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ns3/event-id.h"

#include "axon-sim-config.h"
#include "axon-sim-host.h"

namespace axonsim {

struct Message {
    unsigned src, dst;
    uint64_t bytes;
    int64_t start_ns = -1, end_ns = -1;
    uint32_t wqes = 0, wqes_done = 0;
    uint32_t ring_step = 0;
    bool bg = false;            /* background, not the workload */
};

struct TrafficStats {
    uint64_t bytes_placed = 0;          /* messages' bytes, checked */
    uint64_t wqes_unplaced = 0;         /* completed, some byte missing */
    uint64_t bad_completions = 0;       /* a completion with an error */
    uint64_t stray_imm = 0;             /* an immediate naming no message */
    std::string first_error;
};

class Traffic {
public:
    Traffic(const Config &c, std::vector<std::unique_ptr<Host>> &hosts);

    /* The connections and messages; false with *why. */
    bool plan(std::string *why);
    /* The QPs host needs for them. */
    unsigned qps_of(unsigned host) const;
    /* Then, the hosts started: the QPs connected, receives posted. */
    bool setup(std::string *why);
    /* Schedules the workload's first messages at time 0. */
    void start();
    /* The workload's messages all done. */
    bool main_done() const { return main_done_ == main_msgs_; }
    /* ... and the background's: the run is over. */
    bool done() const
    {
        return main_done() && !bg_active_ && bg_done_ == bg_started_;
    }

    /* The workload's messages, then the background's as they came. */
    const std::vector<Message> &messages() const { return msgs_; }
    /* Called once, when the workload's last message is done. */
    std::function<void()> on_main_done;
    const TrafficStats &stats() const { return st_; }
    /* The collective's ideal time: its bytes over the bottleneck. */
    int64_t ideal_ns() const;
    /* A message's: its bytes over the host's link, and the path's delay. */
    int64_t ideal_fct_ns(const Message &m) const;

private:
    struct Wqe {
        uint32_t msg;
        uint64_t x;             /* offset in the peer span */
        uint32_t len;
    };
    struct Side {
        std::vector<SimQp *> qps;
        std::deque<Wqe> backlog;        /* waiting for room */
        uint64_t base = 0, span = 0;    /* its part of the peer span */
        uint64_t cursor = 0;            /* next offset in the peer span */
        uint64_t inflight = 0;          /* bytes posted, not completed */
        unsigned next_qp = 0;
    };
    struct Conn {
        unsigned a, b;
        bool bg;                /* the background's QPs */
        Side side[2];           /* [0]: a's QPs, sending to b */
    };
    /* A background sender: its messages' arrivals. */
    struct BgFlow {
        unsigned src, dst;
        uint64_t rng;                   /* its arrivals' generator */
        unsigned sent = 0;
        bool active = true;             /* a next arrival pending */
        ns3::EventId next;
    };

    static uint64_t conn_key(unsigned a, unsigned b, bool bg);
    Conn &conn(unsigned src, unsigned dst, bool bg);
    void add_conn(unsigned a, unsigned b, bool bg);
    bool plan_background(std::string *why);
    int64_t bg_gap_ns(BgFlow &f);
    void bg_arrival(unsigned flow);
    void bg_stop();
    void send(uint32_t msg);
    void pump(Conn &k, int side);
    void on_wc(unsigned host, const struct ibv_wc &wc);
    void received(uint32_t msg);
    void fail(const std::string &why);

    const Config &c_;
    std::vector<std::unique_ptr<Host>> &hosts_;
    std::vector<Conn> conns_;
    std::map<uint64_t, unsigned> conn_of_;      /* conn_key() */
    std::map<uint64_t, std::pair<unsigned, int>> qp_side_;  /* host, qpn */
    std::vector<Message> msgs_;
    std::vector<Wqe> wqe_of_;           /* by wr_id */
    size_t main_msgs_ = 0, main_done_ = 0;
    size_t bg_started_ = 0, bg_done_ = 0, bg_active_ = 0;
    std::vector<BgFlow> bg_flows_;
    TrafficStats st_;
    /* ring: rank r's message for step k */
    std::vector<std::vector<uint32_t>> ring_;
};

} // namespace axonsim

#endif /* AXON_SIM_TRAFFIC_H */
