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
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AXON_SIM_TRAFFIC_H
#define AXON_SIM_TRAFFIC_H

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "axon-sim-config.h"
#include "axon-sim-host.h"

namespace axonsim {

struct Message {
    unsigned src, dst;
    uint64_t bytes;
    int64_t start_ns = -1, end_ns = -1;
    uint32_t wqes = 0, wqes_done = 0;
    uint32_t ring_step = 0;
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
    bool done() const { return done_msgs_ == msgs_.size(); }

    const std::vector<Message> &messages() const { return msgs_; }
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
        uint64_t cursor = 0;            /* next offset in the peer span */
        uint64_t inflight = 0;          /* bytes posted, not completed */
        unsigned next_qp = 0;
    };
    struct Conn {
        unsigned a, b;
        Side side[2];           /* [0]: a's QPs, sending to b */
    };

    Conn &conn(unsigned src, unsigned dst);
    Side &side_of(unsigned src, unsigned dst);
    void add_conn(unsigned a, unsigned b);
    void send(uint32_t msg);
    void pump(unsigned src, unsigned dst);
    void on_wc(unsigned host, const struct ibv_wc &wc);
    void received(uint32_t msg);
    void fail(const std::string &why);

    const Config &c_;
    std::vector<std::unique_ptr<Host>> &hosts_;
    std::vector<Conn> conns_;
    std::map<uint64_t, unsigned> conn_of_;      /* (lo << 32 | hi) */
    std::map<uint64_t, std::pair<unsigned, int>> qp_side_;  /* host, qpn */
    std::vector<Message> msgs_;
    std::vector<Wqe> wqe_of_;           /* by wr_id */
    size_t done_msgs_ = 0;
    TrafficStats st_;
    /* ring: rank r's message for step k */
    std::vector<std::vector<uint32_t>> ring_;
};

} // namespace axonsim

#endif /* AXON_SIM_TRAFFIC_H */
