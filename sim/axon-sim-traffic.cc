/*
 * axon simulator: AI traffic (see axon-sim-traffic.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-sim-traffic.h"

#include <algorithm>
#include <cstring>

#include "ns3/simulator.h"

using namespace ns3;

namespace axonsim {

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

void Traffic::add_conn(unsigned a, unsigned b)
{
    uint64_t k = (uint64_t)std::min(a, b) << 32 | std::max(a, b);

    if (!conn_of_.count(k)) {
        conn_of_[k] = (unsigned)conns_.size();
        conns_.push_back(Conn{ std::min(a, b), std::max(a, b), {} });
    }
}

Traffic::Conn &Traffic::conn(unsigned src, unsigned dst)
{
    return conns_[conn_of_.at((uint64_t)std::min(src, dst) << 32 |
                              std::max(src, dst))];
}

Traffic::Side &Traffic::side_of(unsigned src, unsigned dst)
{
    Conn &k = conn(src, dst);

    return k.side[src == k.a ? 0 : 1];
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
        c_.max_wqe_bytes > HOST_PEER_SPAN / 4 || !c_.qps_per_pair) {
        *why = "traffic: bytes, max_wqe_bytes (at most 16M) and qps_per_pair "
               "must be positive";
        return false;
    }
    switch (c_.workload) {
    case Workload::RING_ALLREDUCE:
        chunk = (uint32_t)std::max<uint64_t>(c_.bytes / n, 1);
        ring_.assign(n, {});
        for (unsigned r = 0; r < n; r++) {
            add_conn(r, (r + 1) % n);
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

                add_conn(a, b);
                msgs_.push_back(Message{ a, b, c_.bytes });
            }
        }
        break;
    case Workload::INCAST: {
        unsigned senders = c_.incast_senders ? c_.incast_senders : n - 1;

        for (unsigned s = 1; s <= std::min(senders, n - 1); s++) {
            add_conn(s, 0);
            for (unsigned m = 0; m < c_.messages; m++) {
                msgs_.push_back(Message{ s, 0, c_.bytes });
            }
        }
        break;
    }
    case Workload::PERMUTATION: {
        std::vector<unsigned> perm(n);
        uint64_t r = c_.seed * 0x9e3779b97f4a7c15ULL + 1;

        for (unsigned i = 0; i < n; i++) {
            perm[i] = i;
        }
        /* Sattolo: one cycle, so nobody sends to itself */
        for (unsigned i = n - 1; i > 0; i--) {
            r ^= r >> 12;
            r ^= r << 25;
            r ^= r >> 27;
            std::swap(perm[i], perm[(r * 0x2545f4914f6cdd1dULL >> 33) % i]);
        }
        for (unsigned i = 0; i < n; i++) {
            add_conn(i, perm[i]);
            for (unsigned m = 0; m < c_.messages; m++) {
                msgs_.push_back(Message{ i, perm[i], c_.bytes });
            }
        }
        break;
    }
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
        return;
    }
    for (uint32_t i = 0; i < msgs_.size(); i++) {
        send(i);
    }
}

void Traffic::send(uint32_t msg)
{
    Message &m = msgs_[msg];
    Side &s = side_of(m.src, m.dst);

    m.start_ns = Simulator::Now().GetNanoSeconds();
    for (uint64_t off = 0; off < m.bytes; off += c_.max_wqe_bytes) {
        uint32_t len = (uint32_t)std::min<uint64_t>(m.bytes - off,
                                                    c_.max_wqe_bytes);

        if (s.cursor + len > HOST_PEER_SPAN) {
            s.cursor = 0;
        }
        s.backlog.push_back(Wqe{ msg, s.cursor, len });
        s.cursor += len;
        m.wqes++;
    }
    pump(m.src, m.dst);
}

/* Posts what waits on src -> dst while its QPs have room. */
void Traffic::pump(unsigned src, unsigned dst)
{
    Side &s = side_of(src, dst);
    Host *h = hosts_[src].get();
    Host *peer = hosts_[dst].get();

    while (!s.backlog.empty()) {
        Wqe w = s.backlog.front();
        SimQp *qp = nullptr;

        /* never two WQEs in flight on the same bytes of the span */
        if (s.inflight + w.len > HOST_PEER_SPAN / 2) {
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
    unsigned peer = side ? k.a : k.b;

    if (wc.status != IBV_WC_SUCCESS) {
        st_.bad_completions++;
        fail("host " + std::to_string(host) + ": " +
             "completion status " + std::to_string(wc.status));
        return;
    }
    if (wc.opcode == IBV_WC_RDMA_WRITE) {
        const Wqe &w = wqe_of_.at(wc.wr_id);

        k.side[side].inflight -= w.len;
        pump(host, peer);
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
    done_msgs_++;
    if (c_.workload == Workload::RING_ALLREDUCE &&
        m.ring_step + 1 < ring_[m.dst].size()) {
        send(ring_[m.dst][m.ring_step + 1]);
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
           hops * c_.link_delay_ns + c_.nic_tx_ns + c_.nic_rx_ns;
}

} // namespace axonsim
