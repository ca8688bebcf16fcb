/*
 * axon simulator: the fabric (see axon-sim-fabric.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-sim-fabric.h"

#include <algorithm>
#include <cstring>

#include "ns3/data-rate.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/ppp-header.h"
#include "ns3/queue-size.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include "axon-trim.h"

using namespace ns3;

namespace axonsim {

/* A link, both its ends; a host's link names its host. */
struct Link {
    Ptr<PointToPointNetDevice> a, b;
    bool up = true;
    int64_t down_since = 0;
    Host *host = nullptr;
    unsigned plane = 0;
};

class Switch {
public:
    struct Port {
        Ptr<PointToPointNetDevice> dev;
        Link *link;
        PortStats st;
    };

    Switch(Fabric &f, const Config &c, bool leaf, unsigned plane,
           unsigned index)
        : f_(f), c_(c), leaf_(leaf), plane_(plane), index_(index)
    {
        node_ = CreateObject<Node>();
    }

    Ptr<Node> node() { return node_; }
    unsigned add_port(Ptr<PointToPointNetDevice> dev, Link *link)
    {
        unsigned i = (unsigned)ports_.size();

        ports_.push_back({ dev, link, {} });
        dev->SetReceiveCallback(NetDevice::ReceiveCallback(
            [this, i](Ptr<NetDevice>, Ptr<const Packet> p, uint16_t,
                      const Address &) {
                receive(i, p);
                return true;
            }));
        return i;
    }
    const Port &port(unsigned i) const { return ports_[i]; }
    unsigned nports() const { return (unsigned)ports_.size(); }
    void set_spines(const std::vector<std::unique_ptr<Switch>> *spines)
    {
        spines_ = spines;
    }

private:
    void receive(unsigned in, Ptr<const Packet> p);
    int route(const uint8_t *f, size_t len);
    void send(unsigned out, std::vector<uint8_t> &f);
    void send_ahead(Port &port, const std::vector<uint8_t> &f);

    Fabric &f_;
    const Config &c_;
    bool leaf_;
    unsigned plane_, index_;
    Ptr<Node> node_;
    std::vector<Port> ports_;
    /* a leaf: every plane's spines, to know which of its own reach a leaf */
    const std::vector<std::unique_ptr<Switch>> *spines_ = nullptr;
};

namespace {

constexpr size_t ETH_LEN = 14, IP_MIN = 20;
constexpr size_t PPP_LEN = 2;   /* ns-3's queues count the link's header */
constexpr uint16_t PPP_IPV4 = 0x0021;

uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

uint32_t fnv1a(uint32_t h, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 16777619u;
    }
    return h;
}

void ipv4_checksum(uint8_t *ip, size_t ihl)
{
    uint32_t sum = 0;

    ip[10] = ip[11] = 0;
    for (size_t i = 0; i < ihl; i += 2) {
        sum += (uint32_t)ip[i] << 8 | ip[i + 1];
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum = ~sum & 0xffff;
    ip[10] = (uint8_t)(sum >> 8);
    ip[11] = (uint8_t)sum;
}

} // namespace

/* The port towards the frame's destination, or -1: no route. */
int Switch::route(const uint8_t *f, size_t len)
{
    const uint8_t *ip = f + ETH_LEN;
    size_t ihl;
    unsigned dst, dst_leaf, hpl = c_.hosts_per_leaf;
    uint32_t h;
    unsigned cand[64], n = 0;

    if (len < ETH_LEN + IP_MIN || f[12] != 0x08 || f[13] != 0x00) {
        return -1;
    }
    ihl = (size_t)(ip[0] & 0xf) * 4;
    dst = rd32(ip + 16) & 0xffff;
    if (dst >= c_.hosts() || len < ETH_LEN + ihl + 8) {
        return -1;
    }
    dst_leaf = dst / hpl;
    if (!leaf_) {
        return (int)dst_leaf;
    }
    if (dst_leaf == index_) {
        return (int)(dst % hpl);
    }
    /* ECMP over the uplinks whose spine still reaches dst's leaf */
    for (unsigned s = 0; s < c_.spines && n < 64; s++) {
        const Port &up = ports_[hpl + s];
        const Switch *sp = (*spines_)[plane_ * c_.spines + s].get();

        if (f_.usable(up.link) && f_.usable(sp->port(dst_leaf).link)) {
            cand[n++] = hpl + s;
        }
    }
    if (!n) {
        return -1;
    }
    /* source and destination address, then the UDP ports */
    h = fnv1a(2166136261u ^ (index_ * 0x9e3779b9u), ip + 12, 8);
    h = fnv1a(h, ip + ihl, 4);
    return (int)cand[h % n];
}

void Switch::receive(unsigned in, Ptr<const Packet> p)
{
    std::vector<uint8_t> f(p->GetSize());
    FabricTotals &t = f_.counters();
    int out;

    if (!ports_[in].link->up) {
        t.down_drops++;
        return;
    }
    if (f_.lose()) {
        t.loss_drops++;
        return;
    }
    p->CopyData(f.data(), f.size());
    out = route(f.data(), f.size());
    if (out < 0) {
        t.no_route++;
        return;
    }
    send((unsigned)out, f);
}

void Switch::send(unsigned out, std::vector<uint8_t> &f)
{
    Port &port = ports_[out];
    FabricTotals &t = f_.counters();
    uint8_t *ip = f.data() + ETH_LEN;
    uint32_t q = port.dev->GetQueue()->GetNBytes();
    uint8_t ecn = ip[1] & 3;
    Pcap *cap;

    t.frames++;
    if (!port.link->up) {
        t.down_drops++;
        return;
    }
    /* a host's link: its one hop with no switch at the far end */
    if (port.link->host && f_.lose()) {
        t.loss_drops++;
        return;
    }
    if ((ecn == 1 || ecn == 2) && q > c_.ecn_kmin) {
        double pm = q >= c_.ecn_kmax ? 1.0 :
                    c_.ecn_pmax * (q - c_.ecn_kmin) /
                    (double)(c_.ecn_kmax - c_.ecn_kmin);

        if (f_.uniform() < pm) {
            ip[1] |= 3;
            ipv4_checksum(ip, (size_t)(ip[0] & 0xf) * 4);
            port.st.marks++;
            t.marks++;
        }
    }
    port.st.queue_sum += q;
    port.st.queue_samples++;
    if (q > port.st.max_queue) {
        port.st.max_queue = q;
    }
    /* trimming: a RUD DATA frame the queue has no room for goes on cut */
    if (c_.trim_dscp && q + f.size() + PPP_LEN > c_.queue_bytes) {
        size_t n = axon_trim_frame(f.data(), f.size(), c_.trim_dscp);

        if (!n) {
            port.st.queue_drops++;
            t.queue_drops++;
            return;
        }
        f.resize(n);
        port.st.trims++;
        t.trims++;
        send_ahead(port, f);
        return;
    }
    if (!port.dev->Send(Create<Packet>(f.data(), f.size()),
                        port.dev->GetBroadcast(), 0x0800)) {
        port.st.queue_drops++;
        t.queue_drops++;
        return;
    }
    port.st.tx_bytes += f.size();
    port.st.tx_frames++;
    if ((cap = f_.pcap_of(this, out))) {
        cap->frame(Simulator::Now().GetNanoSeconds(), f.data(), f.size());
    }
}

/*
 * A trimmed frame goes at strict priority, as trimming switches send them:
 * past the port's queue, arriving after its own transmission time and the
 * link's delay (the frame on the wire when it came is not waited for).
 * Its bytes take no time from the queue's frames and count in no port's
 * utilization: 98 bytes against a 4 KiB frame's.
 */
void Switch::send_ahead(Port &port, const std::vector<uint8_t> &f)
{
    Ptr<PointToPointNetDevice> far =
        port.link->a == port.dev ? port.link->b : port.link->a;
    Ptr<Packet> p = Create<Packet>(f.data(), f.size());
    PppHeader ppp;
    DataRateValue rate;
    Pcap *cap;

    ppp.SetProtocol(PPP_IPV4);
    p->AddHeader(ppp);
    port.dev->GetAttribute("DataRate", rate);
    Simulator::Schedule(rate.Get().CalculateBytesTxTime(p->GetSize()) +
                            NanoSeconds(c_.link_delay_ns),
                        &PointToPointNetDevice::Receive, far, p);
    if ((cap = f_.pcap_of(this, (unsigned)(&port - ports_.data())))) {
        cap->frame(Simulator::Now().GetNanoSeconds(), f.data(), f.size());
    }
}

Fabric::Fabric(const Config &c, std::vector<std::unique_ptr<Host>> &hosts)
    : c_(c), hosts_(hosts)
{
    rng_ = c.seed * 0xd1342543de82ef95ULL + 0x632be59bd9b4e019ULL;
}

Fabric::~Fabric() = default;

bool Fabric::lose()
{
    return c_.loss > 0 && uniform() < c_.loss;
}

double Fabric::uniform()
{
    rng_ ^= rng_ >> 12;
    rng_ ^= rng_ << 25;
    rng_ ^= rng_ >> 27;
    return ((rng_ * 0x2545f4914f6cdd1dULL) >> 11) * 0x1.0p-53;
}

bool Fabric::usable(const Link *l) const
{
    return l->up || Simulator::Now().GetNanoSeconds() <
                    l->down_since + c_.reconverge_ns;
}

Pcap *Fabric::pcap_of(const Switch *sw, unsigned port)
{
    return sw == pcap_sw_ && port == pcap_port_ ? &pcap_ : nullptr;
}

const PortStats &Fabric::host_port(unsigned plane, unsigned h) const
{
    const Switch *leaf = leaves_[plane * c_.leaves + h / c_.hosts_per_leaf]
                             .get();

    return leaf->port(h % c_.hosts_per_leaf).st;
}

uint64_t Fabric::host_port_sent(unsigned plane, unsigned h) const
{
    const Switch *leaf = leaves_[plane * c_.leaves + h / c_.hosts_per_leaf]
                             .get();
    const Switch::Port &port = leaf->port(h % c_.hosts_per_leaf);

    return port.st.tx_bytes - port.dev->GetQueue()->GetNBytes();
}

FabricTotals Fabric::totals() const
{
    FabricTotals t = totals_;

    for (const auto *group : { &leaves_, &spines_ }) {
        for (const auto &sw : *group) {
            for (unsigned i = 0; i < sw->nports(); i++) {
                const PortStats &st = sw->port(i).st;

                t.max_queue = std::max(t.max_queue, st.max_queue);
                if (st.queue_samples) {
                    t.mean_queue = std::max(t.mean_queue, st.queue_sum /
                                                          st.queue_samples);
                }
            }
        }
    }
    return t;
}

void Fabric::set_link(Link *l, bool up)
{
    if (l->up == up) {
        return;
    }
    l->up = up;
    if (!up) {
        l->down_since = Simulator::Now().GetNanoSeconds();
    }
    if (l->host) {
        l->host->set_link(l->plane, up);
    }
}

void Fabric::set_failure(size_t i, bool up)
{
    for (Link *l : failing_[i]) {
        set_link(l, up);
    }
}

/* The links a failure takes down: "spine:P:S", "leaf:P:L", "uplink:P:L:S",
 * "host:P:H". */
std::vector<Link *> Fabric::failure_links(const Failure &f, std::string *why)
{
    std::vector<Link *> out;
    unsigned a[3] = {}, n = 0;
    std::string kind = f.what.substr(0, f.what.find(':'));
    size_t pos = f.what.find(':');

    while (pos != std::string::npos && n < 3) {
        a[n++] = (unsigned)strtoul(f.what.c_str() + pos + 1, nullptr, 10);
        pos = f.what.find(':', pos + 1);
    }
    if (n < 2 || a[0] >= c_.planes) {
        *why = "failure '" + f.what + "': which plane and switch?";
        return out;
    }
    auto all_of = [&](Switch *sw) {
        for (unsigned i = 0; i < sw->nports(); i++) {
            out.push_back(sw->port(i).link);
        }
    };
    if (kind == "spine" && a[1] < c_.spines) {
        all_of(spines_[a[0] * c_.spines + a[1]].get());
    } else if (kind == "leaf" && a[1] < c_.leaves) {
        all_of(leaves_[a[0] * c_.leaves + a[1]].get());
    } else if (kind == "uplink" && n == 3 && a[1] < c_.leaves &&
               a[2] < c_.spines) {
        out.push_back(leaves_[a[0] * c_.leaves + a[1]]
                          ->port(c_.hosts_per_leaf + a[2]).link);
    } else if (kind == "host" && a[1] < c_.hosts()) {
        out.push_back(leaves_[a[0] * c_.leaves + a[1] / c_.hosts_per_leaf]
                          ->port(a[1] % c_.hosts_per_leaf).link);
    } else {
        *why = "failure '" + f.what + "': no such link or switch";
    }
    return out;
}

bool Fabric::build(std::string *why)
{
    PointToPointHelper p2p;
    double up_gbps = c_.uplink_gbps > 0 ? c_.uplink_gbps : c_.link_gbps;
    const uint32_t mtu = 9216;

    if (!c_.leaves || !c_.hosts_per_leaf || !c_.spines || !c_.planes ||
        c_.planes > AXON_MAX_PLANES || c_.spines > 64 ||
        c_.hosts() > 65535) {
        *why = "fabric: 1-64 spines, 1-" + std::to_string(AXON_MAX_PLANES) +
               " planes, at most 65535 hosts";
        return false;
    }
    for (unsigned h = 0; h < c_.hosts(); h++) {
        host_nodes_.push_back(CreateObject<Node>());
    }
    p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(c_.link_delay_ns)));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(mtu));
    if (c_.trim_dscp > 63) {
        *why = "fabric: trim_dscp 0-63";
        return false;
    }
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize",
                 QueueSizeValue(QueueSize(QueueSizeUnit::BYTES,
                                          c_.queue_bytes)));
    auto link = [&](Ptr<Node> a, Ptr<Node> b, double gbps) {
        auto l = std::make_unique<Link>();

        p2p.SetDeviceAttribute("DataRate",
                               DataRateValue(DataRate((uint64_t)(gbps * 1e9))));
        NetDeviceContainer d = p2p.Install(a, b);
        l->a = DynamicCast<PointToPointNetDevice>(d.Get(0));
        l->b = DynamicCast<PointToPointNetDevice>(d.Get(1));
        links_.push_back(std::move(l));
        return links_.back().get();
    };

    for (unsigned p = 0; p < c_.planes; p++) {
        for (unsigned s = 0; s < c_.spines; s++) {
            spines_.push_back(std::make_unique<Switch>(*this, c_, false, p, s));
        }
        for (unsigned l = 0; l < c_.leaves; l++) {
            auto leaf = std::make_unique<Switch>(*this, c_, true, p, l);

            for (unsigned i = 0; i < c_.hosts_per_leaf; i++) {
                unsigned h = l * c_.hosts_per_leaf + i;
                Link *k = link(host_nodes_[h], leaf->node(), c_.link_gbps);

                /* the NIC's own queue: it never drops (the engine waits) */
                k->a->GetQueue()->SetMaxSize(
                    QueueSize(QueueSizeUnit::BYTES, 64u << 20));
                k->host = hosts_[h].get();
                k->plane = p;
                hosts_[h]->attach(p, k->a);
                leaf->add_port(k->b, k);
            }
            leaves_.push_back(std::move(leaf));
        }
    }
    /* uplinks: leaf port hosts_per_leaf + s is spine s's port l */
    for (unsigned p = 0; p < c_.planes; p++) {
        for (unsigned l = 0; l < c_.leaves; l++) {
            Switch *leaf = leaves_[p * c_.leaves + l].get();

            for (unsigned s = 0; s < c_.spines; s++) {
                Switch *spine = spines_[p * c_.spines + s].get();
                Link *k = link(leaf->node(), spine->node(), up_gbps);

                k->plane = p;
                leaf->add_port(k->a, k);
                spine->add_port(k->b, k);
            }
        }
    }
    for (unsigned p = 0; p < c_.planes; p++) {
        for (unsigned l = 0; l < c_.leaves; l++) {
            leaves_[p * c_.leaves + l]->set_spines(&spines_);
        }
    }

    for (size_t i = 0; i < c_.failures.size(); i++) {
        const Failure &f = c_.failures[i];

        failing_.push_back(failure_links(f, why));
        if (failing_.back().empty()) {
            return false;
        }
        Simulator::Schedule(NanoSeconds(f.down_ns), &Fabric::set_failure,
                            this, i, false);
        if (f.up_ns != INT64_MAX) {
            Simulator::Schedule(NanoSeconds(f.up_ns), &Fabric::set_failure,
                                this, i, true);
        }
    }
    if (!c_.pcap.empty()) {
        unsigned p, sw, port;
        char kind[8];

        if (sscanf(c_.pcap.c_str(), "%7[a-z]:%u:%u:%u", kind, &p, &sw,
                   &port) != 4 || p >= c_.planes ||
            !((!strcmp(kind, "leaf") && sw < c_.leaves &&
               port < c_.hosts_per_leaf + c_.spines) ||
              (!strcmp(kind, "spine") && sw < c_.spines &&
               port < c_.leaves))) {
            *why = "pcap: leaf:PLANE:LEAF:PORT or spine:PLANE:SPINE:PORT";
            return false;
        }
        pcap_sw_ = !strcmp(kind, "leaf") ? leaves_[p * c_.leaves + sw].get()
                                          : spines_[p * c_.spines + sw].get();
        pcap_port_ = port;
        if (!pcap_.open(c_.out_dir + "/" + c_.name + "-" +
                        transport_name(c_.transport) + ".pcap", why)) {
            return false;
        }
    }
    return true;
}

} // namespace axonsim
