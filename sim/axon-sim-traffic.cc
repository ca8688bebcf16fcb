/*
 * axon simulator: AI traffic (see axon-sim-traffic.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-sim-traffic.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "ns3/simulator.h"

using namespace ns3;

namespace axonsim {

namespace {

/* xorshift64*: the traffic's random choices, the same for a seed */
uint64_t next_random(uint64_t *r)
{
    *r ^= *r >> 12;
    *r ^= *r << 25;
    *r ^= *r >> 27;
    return *r * 0x2545f4914f6cdd1dULL;
}

/* A random one-cycle permutation of n (Sattolo): nobody maps to itself. */
std::vector<unsigned> derangement(unsigned n, uint64_t r)
{
    std::vector<unsigned> perm(n);

    for (unsigned i = 0; i < n; i++) {
        perm[i] = i;
    }
    for (unsigned i = n - 1; i > 0; i--) {
        std::swap(perm[i], perm[(next_random(&r) >> 33) % i]);
    }
    return perm;
}

} // namespace

Traffic::Traffic(const Config &c, std::vector<std::unique_ptr<Host>> &hosts)
    : c_(c), hosts_(hosts)
{
}

unsigned Traffic::qps_of(unsigned host) const
{
    unsigned n = 0;

    for (const Conn &k : conns_) {
        n += (k.a == host || k.b == host) ? c_.qps_per_pair : 0;
    }
    return n;
}

uint64_t Traffic::conn_key(unsigned a, unsigned b, bool bg)
{
    return (uint64_t)bg << 63 | (uint64_t)std::min(a, b) << 32 |
           std::max(a, b);
}

/*
 * With a background, the workload's and the background's QPs between two
 * hosts take a half of the pair's span each, so that their WRITEs never
 * land on the same bytes at once; without, the workload has all of it.
 */
void Traffic::add_conn(unsigned a, unsigned b, bool bg)
{
    uint64_t k = conn_key(a, b, bg);
    bool halves = c_.background != Background::NONE;

    if (!conn_of_.count(k)) {
        conn_of_[k] = (unsigned)conns_.size();
        conns_.push_back(Conn{ std::min(a, b), std::max(a, b), bg, {} });
        for (Side &s : conns_.back().side) {
            s.span = halves ? HOST_PEER_SPAN / 2 : HOST_PEER_SPAN;
            s.base = bg ? HOST_PEER_SPAN / 2 : 0;
            s.cursor = s.base;
        }
    }
}

Traffic::Conn &Traffic::conn(unsigned src, unsigned dst, bool bg)
{
    return conns_[conn_of_.at(conn_key(src, dst, bg))];
}

void Traffic::fail(const std::string &why)
{
    if (st_.first_error.empty()) {
        st_.first_error = why;
    }
}

bool Traffic::plan(std::string *why)
{
    unsigned n = c_.hosts();
    uint32_t chunk;

    if (n < 2) {
        *why = "traffic: two hosts at least";
        return false;
    }
    if (c_.bytes == 0 || c_.max_wqe_bytes == 0 ||
        c_.max_wqe_bytes > HOST_PEER_SPAN /
                           (c_.background != Background::NONE ? 8 : 4) ||
        !c_.qps_per_pair) {
        *why = "traffic: bytes, max_wqe_bytes (at most 16M, 8M with a "
               "background) and qps_per_pair must be positive";
        return false;
    }
    switch (c_.workload) {
    case Workload::RING_ALLREDUCE:
        chunk = (uint32_t)std::max<uint64_t>(c_.bytes / n, 1);
        ring_.assign(n, {});
        for (unsigned r = 0; r < n; r++) {
            add_conn(r, (r + 1) % n, false);
            for (unsigned k = 0; k < 2 * (n - 1); k++) {
                ring_[r].push_back((uint32_t)msgs_.size());
                msgs_.push_back(Message{ r, (r + 1) % n, chunk });
                msgs_.back().ring_step = k;
            }
        }
        break;
    case Workload::ALL_TO_ALL:
        for (unsigned a = 0; a < n; a++) {
            for (unsigned i = 1; i < n; i++) {
                unsigned b = (a + i) % n;   /* each its own order */

                add_conn(a, b, false);
                msgs_.push_back(Message{ a, b, c_.bytes });
            }
        }
        break;
    case Workload::INCAST: {
        unsigned senders = c_.incast_senders ? c_.incast_senders : n - 1;

        for (unsigned s = 1; s <= std::min(senders, n - 1); s++) {
            add_conn(s, 0, false);
            for (unsigned m = 0; m < c_.messages; m++) {
                msgs_.push_back(Message{ s, 0, c_.bytes });
            }
        }
        break;
    }
    case Workload::PERMUTATION: {
        std::vector<unsigned> perm =
            derangement(n, c_.seed * 0x9e3779b97f4a7c15ULL + 1);

        for (unsigned i = 0; i < n; i++) {
            add_conn(i, perm[i], false);
            for (unsigned m = 0; m < c_.messages; m++) {
                msgs_.push_back(Message{ i, perm[i], c_.bytes });
            }
        }
        break;
    }
    }
    main_msgs_ = msgs_.size();

    return c_.background == Background::NONE || plan_background(why);
}

/*
 * The background's senders, a background_hosts fraction of the hosts drawn
 * from the seed, each with its destination in another derangement and its
 * own generator for its messages' arrivals. The messages come at run time
 * (bg_arrival).
 */
bool Traffic::plan_background(std::string *why)
{
    unsigned n = c_.hosts();
    std::vector<unsigned> perm, order(n);
    uint64_t r = (c_.seed ^ 0x5bd1e9955bd1e995ULL) * 0x9e3779b97f4a7c15ULL + 1;
    unsigned senders;

    if (!c_.background_bytes || !(c_.background_load > 0) ||
        !(c_.background_hosts > 0) || c_.background_hosts > 1) {
        *why = "traffic: background_bytes and background_load must be "
               "positive, background_hosts in (0, 1]";
        return false;
    }
    perm = derangement(n, r);
    for (unsigned i = 0; i < n; i++) {
        order[i] = i;
    }
    /* Fisher-Yates: the first `senders` of a random order send */
    for (unsigned i = n - 1; i > 0; i--) {
        std::swap(order[i], order[(next_random(&r) >> 33) % (i + 1)]);
    }
    senders = std::max(1u, (unsigned)std::lround(c_.background_hosts * n));
    order.resize(std::min(senders, n));
    std::sort(order.begin(), order.end());
    for (unsigned i : order) {
        uint64_t fr = (c_.seed + 1) * 0x9e3779b97f4a7c15ULL ^
                      (uint64_t)(i + 1) * 0xbf58476d1ce4e5b9ULL;

        add_conn(i, perm[i], true);
        bg_flows_.push_back(BgFlow{ i, perm[i], fr ? fr : 1 });
    }
    return true;
}

bool Traffic::setup(std::string *why)
{
    uint8_t type = (c_.transport == Transport::RUD ||
                    c_.transport == Transport::RUD_CC) ? AXON_QPT_RUD :
                                                         AXON_QPT_RC;

    for (Conn &k : conns_) {
        Host *ha = hosts_[k.a].get(), *hb = hosts_[k.b].get();

        for (unsigned q = 0; q < c_.qps_per_pair; q++) {
            uint64_t ka, kb;
            int err;
            SimQp *qa = sim_drv_qp(ha->drv(), type, &ka, &err);
            SimQp *qb = qa ? sim_drv_qp(hb->drv(), type, &kb, &err) : nullptr;

            if (!qb) {
                *why = "traffic: creating a QP: " +
                       std::string(strerror(-err)) + " (" +
                       (qa ? hb : ha)->stats().last_guest_error + ")";
                return false;
            }
            SimPeer pa = { {}, {}, sim_qp_num(qa), ka };
            SimPeer pb = { {}, {}, sim_qp_num(qb), kb };
            memcpy(pa.mac, ha->mac(), 6);
            memcpy(pa.gid, ha->gid(), 16);
            memcpy(pb.mac, hb->mac(), 6);
            memcpy(pb.gid, hb->gid(), 16);
            if (sim_drv_connect(ha->drv(), qa, &pb, c_.mtu, c_.rc_timeout,
                                0x100, 0x200) ||
                sim_drv_connect(hb->drv(), qb, &pa, c_.mtu, c_.rc_timeout,
                                0x200, 0x100)) {
                *why = "traffic: MODIFY_QP to RTS refused";
                return false;
            }
            k.side[0].qps.push_back(qa);
            k.side[1].qps.push_back(qb);
            qp_side_[(uint64_t)k.a << 32 | sim_qp_num(qa)] =
                { (unsigned)(&k - conns_.data()), 0 };
            qp_side_[(uint64_t)k.b << 32 | sim_qp_num(qb)] =
                { (unsigned)(&k - conns_.data()), 1 };
            for (uint32_t i = 0; i < c_.wq_depth; i++) {
                if (sim_drv_post_recv(ha->drv(), qa, 0) ||
                    sim_drv_post_recv(hb->drv(), qb, 0)) {
                    *why = "traffic: posting receives";
                    return false;
                }
            }
        }
    }
    for (auto &h : hosts_) {
        unsigned id = h->id();

        h->on_wc = [this, id](const struct ibv_wc &wc) { on_wc(id, wc); };
    }
    return true;
}

void Traffic::start()
{
    if (c_.workload == Workload::RING_ALLREDUCE) {
        for (auto &r : ring_) {
            send(r[0]);
        }
    } else {
        for (uint32_t i = 0; i < main_msgs_; i++) {
            send(i);
        }
    }
    bg_active_ = bg_flows_.size();
    for (unsigned f = 0; f < bg_flows_.size(); f++) {
        bg_flows_[f].next = Simulator::Schedule(
            NanoSeconds(bg_gap_ns(bg_flows_[f])), &Traffic::bg_arrival, this, f);
    }
}

/*
 * The time to a background flow's next message: exponential, its mean the
 * message's time at background_load of the host's links (Poisson arrivals).
 */
int64_t Traffic::bg_gap_ns(BgFlow &f)
{
    double mean = c_.background_bytes * 8.0 /
                  (c_.background_load * c_.link_gbps * c_.planes);
    double u = ((next_random(&f.rng) >> 11) + 1) * 0x1.0p-53;   /* (0, 1] */

    return (int64_t)(-mean * std::log(u) + 0.5);
}

void Traffic::bg_arrival(unsigned flow)
{
    BgFlow &f = bg_flows_[flow];
    uint32_t id = (uint32_t)msgs_.size();

    msgs_.push_back(Message{ f.src, f.dst, c_.background_bytes });
    msgs_.back().bg = true;
    f.sent++;
    bg_started_++;
    send(id);
    if (c_.background_messages && f.sent == c_.background_messages) {
        f.active = false;
        bg_active_--;
        return;
    }
    f.next = Simulator::Schedule(NanoSeconds(bg_gap_ns(f)),
                                 &Traffic::bg_arrival, this, flow);
}

/* The workload is done: no more background messages (those sent finish). */
void Traffic::bg_stop()
{
    for (BgFlow &f : bg_flows_) {
        if (f.active) {
            Simulator::Remove(f.next);
            f.active = false;
        }
    }
    bg_active_ = 0;
}

void Traffic::send(uint32_t msg)
{
    Message &m = msgs_[msg];
    Conn &k = conn(m.src, m.dst, m.bg);
    int side = m.src == k.a ? 0 : 1;
    Side &s = k.side[side];

    m.start_ns = Simulator::Now().GetNanoSeconds();
    for (uint64_t off = 0; off < m.bytes; off += c_.max_wqe_bytes) {
        uint32_t len = (uint32_t)std::min<uint64_t>(m.bytes - off,
                                                    c_.max_wqe_bytes);

        if (s.cursor + len > s.base + s.span) {
            s.cursor = s.base;
        }
        s.backlog.push_back(Wqe{ msg, s.cursor, len });
        s.cursor += len;
        m.wqes++;
    }
    pump(k, side);
}

/* Posts what waits on a side of a connection while its QPs have room. */
void Traffic::pump(Conn &k, int side)
{
    Side &s = k.side[side];
    unsigned src = side ? k.b : k.a, dst = side ? k.a : k.b;
    Host *h = hosts_[src].get();
    Host *peer = hosts_[dst].get();

    while (!s.backlog.empty()) {
        Wqe w = s.backlog.front();
        SimQp *qp = nullptr;

        /* never two WQEs in flight on the same bytes of the span */
        if (s.inflight + w.len > s.span / 2) {
            return;
        }
        for (size_t i = 0; i < s.qps.size() && !qp; i++) {
            SimQp *q = s.qps[(s.next_qp + i) % s.qps.size()];

            if (sim_qp_sq_room(q)) {
                qp = q;
                s.next_qp = (unsigned)((s.next_qp + i + 1) % s.qps.size());
            }
        }
        if (!qp) {
            return;
        }
        uint32_t id = (uint32_t)wqe_of_.size();
        int err = sim_drv_write_imm(h->drv(), qp, id,
                                    (uint64_t)dst * HOST_PEER_SPAN + w.x,
                                    w.len,
                                    sim_drv_iova(peer->drv()) +
                                    (uint64_t)src * HOST_PEER_SPAN + w.x,
                                    sim_drv_key(peer->drv()), id);
        if (err) {
            fail("posting a WRITE: " + std::string(strerror(-err)));
            return;
        }
        wqe_of_.push_back(w);
        s.inflight += w.len;
        s.backlog.pop_front();
    }
}

void Traffic::on_wc(unsigned host, const struct ibv_wc &wc)
{
    auto it = qp_side_.find((uint64_t)host << 32 | wc.qp_num);

    if (it == qp_side_.end()) {
        st_.stray_imm++;
        return;
    }
    Conn &k = conns_[it->second.first];
    int side = it->second.second;

    if (wc.status != IBV_WC_SUCCESS) {
        st_.bad_completions++;
        fail("host " + std::to_string(host) + ": " +
             "completion status " + std::to_string(wc.status));
        return;
    }
    if (wc.opcode == IBV_WC_RDMA_WRITE) {
        const Wqe &w = wqe_of_.at(wc.wr_id);

        k.side[side].inflight -= w.len;
        pump(k, side);
        return;
    }
    /* a WRITE with immediate arrived: the receive goes back at once */
    SimQp *qp = nullptr;
    for (SimQp *q : k.side[side].qps) {
        if (sim_qp_num(q) == wc.qp_num) {
            qp = q;
        }
    }
    if (qp && sim_drv_post_recv(hosts_[host]->drv(), qp, 0)) {
        fail("reposting a receive");
    }
    uint32_t id = be32toh(wc.imm_data);
    if (wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM || id >= wqe_of_.size() ||
        msgs_[wqe_of_[id].msg].dst != host) {
        st_.stray_imm++;
        return;
    }
    const Wqe &w = wqe_of_[id];
    Message &m = msgs_[w.msg];

    if (wc.byte_len != w.len ||
        !hosts_[host]->mem().take(m.src, w.x, w.len)) {
        st_.wqes_unplaced++;
        fail("host " + std::to_string(host) + ": a WRITE from " +
             std::to_string(m.src) + " completed without all its bytes");
    } else {
        st_.bytes_placed += w.len;
    }
    if (++m.wqes_done == m.wqes) {
        received(w.msg);
    }
}

void Traffic::received(uint32_t msg)
{
    Message &m = msgs_[msg];

    m.end_ns = Simulator::Now().GetNanoSeconds();
    if (m.bg) {
        bg_done_++;
        return;
    }
    main_done_++;
    if (c_.workload == Workload::RING_ALLREDUCE &&
        m.ring_step + 1 < ring_[m.dst].size()) {
        send(ring_[m.dst][m.ring_step + 1]);
    }
    if (!main_done()) {
        return;
    }
    if (on_main_done) {
        on_main_done();
    }
    if (!c_.background_messages) {
        bg_stop();
    }
}

int64_t Traffic::ideal_ns() const
{
    unsigned n = c_.hosts();
    double bits_per_ns = c_.link_gbps * c_.planes;
    double bytes;

    switch (c_.workload) {
    case Workload::RING_ALLREDUCE:
        bytes = 2.0 * (n - 1) * (double)std::max<uint64_t>(c_.bytes / n, 1);
        break;
    case Workload::ALL_TO_ALL:
        bytes = (double)(n - 1) * c_.bytes;
        break;
    case Workload::INCAST:
        bytes = (double)std::min(c_.incast_senders ? c_.incast_senders : n - 1,
                                 n - 1) * c_.messages * c_.bytes;
        break;
    default:
        bytes = (double)c_.messages * c_.bytes;
        break;
    }
    return (int64_t)(bytes * 8 / bits_per_ns);
}

int64_t Traffic::ideal_fct_ns(const Message &m) const
{
    bool same_leaf = m.src / c_.hosts_per_leaf == m.dst / c_.hosts_per_leaf;
    int64_t hops = same_leaf ? 2 : 4;

    return (int64_t)(m.bytes * 8 / (c_.link_gbps * c_.planes)) +
           hops * c_.link_delay_ns + c_.nic_tx_ns + c_.nic_dma() +
           c_.nic_rx_ns;
}

} // namespace axonsim
