/*
 * axon simulator: the fabric, P planes of a two-tier Clos
 *
 * Each plane is its own leaf-spine network: leaves switches of
 * hosts_per_leaf host ports and one uplink to each of spines spine
 * switches; host h hangs off leaf h / hosts_per_leaf on every plane,
 * through its NIC's port for that plane. Links are ns-3 point-to-point
 * links (rate, delay, a tail-drop queue at each end). A switch forwards by
 * the destination IPv4 address (every host's GID is ::ffff:10.0.x.y):
 * down to its host, or up by ECMP, a hash of the addresses and UDP ports,
 * so an RC QP keeps its path and RUD, whose source port changes with
 * each packet, sprays.
 * At each egress queue ECT frames are marked CE with RED's probability
 * between ecn_kmin and ecn_kmax; a full queue drops. Each link loses
 * frames at random (loss, from the run's seed), and links or whole
 * switches fail and come back at set times; routing stops choosing a
 * failed uplink reconverge after it failed.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AXON_SIM_FABRIC_H
#define AXON_SIM_FABRIC_H

#include <memory>
#include <string>
#include <vector>

#include "ns3/node.h"
#include "ns3/point-to-point-net-device.h"

#include "axon-sim-config.h"
#include "axon-sim-host.h"
#include "axon-sim-pcap.h"

namespace axonsim {

struct PortStats {
    uint64_t tx_bytes = 0, tx_frames = 0;
    uint64_t queue_drops = 0, marks = 0, trims = 0;
    uint64_t max_queue = 0, queue_sum = 0, queue_samples = 0;
};

struct FabricTotals {
    uint64_t frames = 0;                /* switch hops */
    uint64_t queue_drops = 0, loss_drops = 0, down_drops = 0, no_route = 0;
    uint64_t marks = 0, max_queue = 0;
    uint64_t trims = 0;                 /* frames trimmed, not dropped */
    /* the busiest port's mean queue, as the frames arriving there saw it */
    uint64_t mean_queue = 0;
};

struct Link;
class Switch;

class Fabric {
public:
    Fabric(const Config &c, std::vector<std::unique_ptr<Host>> &hosts);
    ~Fabric();

    /* Switches, links, the hosts' ports, the failures; false with *why. */
    bool build(std::string *why);
    FabricTotals totals() const;
    /* The leaf's port down to host h on plane p. */
    const PortStats &host_port(unsigned plane, unsigned h) const;
    /* ... the bytes it has sent by now: tx_bytes less its queue's. */
    uint64_t host_port_sent(unsigned plane, unsigned h) const;

    /* the switches' shared services */
    bool lose();                        /* this frame lost on its link? */
    double uniform();
    FabricTotals &counters() { return totals_; }
    Pcap *pcap_of(const Switch *sw, unsigned port);
    bool usable(const Link *l) const;

private:
    void set_link(Link *l, bool up);
    void set_failure(size_t i, bool up);
    std::vector<Link *> failure_links(const Failure &f, std::string *why);

    const Config &c_;
    std::vector<std::unique_ptr<Host>> &hosts_;
    std::vector<std::unique_ptr<Switch>> leaves_, spines_;      /* by plane */
    std::vector<std::unique_ptr<Link>> links_;
    std::vector<std::vector<Link *>> failing_;  /* per failure */
    std::vector<ns3::Ptr<ns3::Node>> host_nodes_;
    FabricTotals totals_;
    uint64_t rng_;
    Pcap pcap_;
    const Switch *pcap_sw_ = nullptr;
    unsigned pcap_port_ = 0;
};

} // namespace axonsim

#endif /* AXON_SIM_FABRIC_H */
