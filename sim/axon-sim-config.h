/*
 * axon simulator: a scenario, what a run is made of
 *
 * A scenario file (sim/scenarios/) is lines of "key = value" ('#' starts
 * a comment); every key has a default (Documentation/simulator.rst lists
 * them, axon-sim --help too) and the command line overrides any key with
 * key=value.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AXON_SIM_CONFIG_H
#define AXON_SIM_CONFIG_H

#include <cstdint>
#include <string>
#include <vector>

namespace axonsim {

enum class Transport { RC, RC_DCQCN, RUD, RUD_CC };
enum class Workload { RING_ALLREDUCE, ALL_TO_ALL, INCAST, PERMUTATION };
enum class Background { NONE, PERMUTATION };

/* A link or a whole switch that fails at down_ns and comes back at up_ns. */
struct Failure {
    std::string what;           /* "spine:P:S", "leaf:P:L", "uplink:P:L:S",
                                   "host:P:H" (P the plane) */
    int64_t down_ns, up_ns;
};

struct Config {
    std::string name = "default";
    uint64_t seed = 1;

    /* the fabric: per plane, a two-tier Clos */
    unsigned leaves = 4, hosts_per_leaf = 4, spines = 2, planes = 1;
    double link_gbps = 100;             /* host links; uplinks the same */
    double uplink_gbps = 0;             /* 0: link_gbps */
    int64_t link_delay_ns = 1000;
    uint32_t queue_bytes = 1 << 20;     /* each switch port's tail drop */
    uint32_t ecn_kmin = 100 << 10, ecn_kmax = 400 << 10;   /* RED marking */
    double ecn_pmax = 0.2;
    /*
     * 1..63: switches trim the RUD DATA frames they have no room for to
     * their headers, with this DSCP, which the NICs are told; 0: drop
     */
    uint8_t trim_dscp = 0;
    double loss = 0;                    /* per link, each frame */
    int64_t reconverge_ns = 100000;     /* failed uplinks leave ECMP */
    std::vector<Failure> failures;

    /*
     * each NIC's pipeline, a 400 Gb/s RDMA NIC's published figures
     * (Documentation/simulator.rst, "The NIC pipeline", cites them)
     */
    int64_t nic_tx_ns = 300, nic_rx_ns = 300;   /* per packet */
    int64_t nic_dma_ns = 550;           /* + a payload read from host memory */
    /*
     * the data MR in GPU memory (the engine sees peer memory), and what a
     * payload's read from it costs instead: no published figure found,
     * so the host's until one is given (simulator.rst)
     */
    bool gpu_memory = false;
    int64_t nic_dma_gpu_ns = 550;
    int64_t nic_dma() const { return gpu_memory ? nic_dma_gpu_ns : nic_dma_ns; }
    int64_t nic_poll_ns = 200;          /* CQE to the application */
    uint32_t nic_tx_hold = 64 << 10;    /* port queue the engine waits on */
    double nic_mpps = 330;              /* frames its pipeline takes in,
                                           10^6/s; 0: any */
    uint32_t mtu = 4096;

    /* the transport */
    Transport transport = Transport::RC;
    std::string transports = "rc";      /* the runs: a comma list */
    unsigned qps_per_pair = 1;
    uint8_t rc_timeout = 8;             /* IB's: 4.096 us << it, 1 ms */
    /*
     * DCQCN: the device's defaults (congestion-control.rst) but for the
     * additive step and the rate timer, tuned in the simulator for
     * 100 Gb/s and microsecond round trips (simulator.rst)
     */
    uint32_t dcqcn_rai = 400, dcqcn_rhai = 400;  /* Mb/s */
    uint32_t dcqcn_g_shift = 8, dcqcn_alpha_us = 55, dcqcn_increase_us = 25;
    uint32_t dcqcn_byte_reset = 32768, dcqcn_cnp_us = 50;
    /* RUD's timers: a datacenter's, not a TCG guest's (rud.rst) */
    int64_t rud_rto_min_ns = 500000, rud_late_min_ns = 20000;
    int64_t rud_target_q_ns = 8000;
    uint32_t wq_depth = 64;

    /* the traffic */
    Workload workload = Workload::RING_ALLREDUCE;
    uint64_t bytes = 1 << 20;           /* the collective's buffer, or a
                                           message */
    unsigned messages = 1;              /* per flow (incast, permutation) */
    unsigned incast_senders = 0;        /* 0: every other host */
    uint32_t max_wqe_bytes = 1 << 20;   /* a message is cut into WQEs */
    int64_t time_limit_ns = 1000000000; /* simulated */
    /*
     * background traffic while the workload runs: a random permutation,
     * each sender's messages of background_bytes arriving at random
     * (Poisson) at background_load of its links, until the workload is
     * done, or background_messages of them
     */
    Background background = Background::NONE;
    double background_hosts = 1;        /* the fraction of hosts that send */
    uint64_t background_bytes = 64 << 10;
    double background_load = 0.25;      /* of link_gbps * planes */
    unsigned background_messages = 0;   /* per sender; 0: while it runs */

    /* output */
    std::string out_dir = ".";
    /* a port's egress, "leaf:P:L:port" or "spine:P:S:port", or "" */
    std::string pcap;
    bool flows_csv = true;

    unsigned hosts() const { return leaves * hosts_per_leaf; }
};

/* Sets key to value; false with *why for an unknown key or bad value. */
bool config_set(Config &c, const std::string &key, const std::string &value,
                std::string *why);
/* Reads a scenario file; false with *why. */
bool config_load(Config &c, const std::string &path, std::string *why);
const char *transport_name(Transport t);
const char *workload_name(Workload w);
const char *background_name(Background b);
/* Every key and its value, as a scenario file would say it. */
std::string config_dump(const Config &c);

} // namespace axonsim

#endif /* AXON_SIM_CONFIG_H */
