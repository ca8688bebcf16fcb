/*
 * axon simulator: scenarios (see axon-sim-config.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-sim-config.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

namespace axonsim {

namespace {

const char *const transport_names[] = { "rc", "rc-dcqcn", "rud", "rud-nscc" };
const char *const workload_names[] = { "ring-allreduce", "all-to-all",
                                       "incast", "permutation" };
const char *const background_names[] = { "none", "permutation" };

bool parse_u64(const std::string &v, uint64_t *out)
{
    char *end;
    uint64_t mult = 1;
    std::string s = v;

    if (s.empty()) {
        return false;
    }
    switch (s.back()) {
    case 'K': mult = 1ULL << 10; s.pop_back(); break;
    case 'M': mult = 1ULL << 20; s.pop_back(); break;
    case 'G': mult = 1ULL << 30; s.pop_back(); break;
    }
    errno = 0;
    *out = strtoull(s.c_str(), &end, 0) * mult;
    return !errno && end != s.c_str() && !*end;
}

bool parse_ns(const std::string &v, int64_t *out)
{
    static const std::pair<const char *, int64_t> units[] = {
        { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
    };
    char *end;
    double d;

    errno = 0;
    d = strtod(v.c_str(), &end);
    if (errno || end == v.c_str() || d < 0) {
        return false;
    }
    for (const auto &u : units) {
        if (std::string(end) == u.first) {
            *out = (int64_t)(d * u.second + 0.5);
            return true;
        }
    }
    return false;
}

bool parse_double(const std::string &v, double *out)
{
    char *end;

    errno = 0;
    *out = strtod(v.c_str(), &end);
    return !errno && end != v.c_str() && !*end && *out >= 0;
}

template <typename T>
bool parse_name(const std::string &v, const char *const *names, size_t n,
                T *out)
{
    for (size_t i = 0; i < n; i++) {
        if (v == names[i]) {
            *out = (T)i;
            return true;
        }
    }
    return false;
}

/* "what@down-up": what fails at down and is back at up ("-" never). */
bool parse_failure(const std::string &v, Failure *f)
{
    size_t at = v.find('@'), dash = v.find('-', at);

    if (at == std::string::npos || dash == std::string::npos) {
        return false;
    }
    f->what = v.substr(0, at);
    f->up_ns = INT64_MAX;
    return parse_ns(v.substr(at + 1, dash - at - 1), &f->down_ns) &&
           (v.substr(dash + 1) == "never" ||
            parse_ns(v.substr(dash + 1), &f->up_ns));
}

struct Key {
    std::function<bool(Config &, const std::string &)> set;
    std::function<std::string(const Config &)> get;
};

template <typename T>
Key uint_key(T Config::*m)
{
    return { [m](Config &c, const std::string &v) {
                 uint64_t x;
                 if (!parse_u64(v, &x) || x > (uint64_t)(T)~(T)0) {
                     return false;
                 }
                 c.*m = (T)x;
                 return true;
             },
             [m](const Config &c) { return std::to_string(c.*m); } };
}

Key bool_key(bool Config::*m)
{
    return { [m](Config &c, const std::string &v) {
                 if (v != "0" && v != "1") {
                     return false;
                 }
                 c.*m = v == "1";
                 return true;
             },
             [m](const Config &c) { return std::string(c.*m ? "1" : "0"); } };
}

Key ns_key(int64_t Config::*m)
{
    return { [m](Config &c, const std::string &v) {
                 return parse_ns(v, &(c.*m));
             },
             [m](const Config &c) { return std::to_string(c.*m) + "ns"; } };
}

Key double_key(double Config::*m)
{
    return { [m](Config &c, const std::string &v) {
                 return parse_double(v, &(c.*m));
             },
             [m](const Config &c) {
                 std::ostringstream o;
                 o << c.*m;
                 return o.str();
             } };
}

Key string_key(std::string Config::*m)
{
    return { [m](Config &c, const std::string &v) {
                 c.*m = v;
                 return true;
             },
             [m](const Config &c) { return c.*m; } };
}

const std::map<std::string, Key> &keys()
{
    static const std::map<std::string, Key> k = {
        { "name", string_key(&Config::name) },
        { "seed", uint_key(&Config::seed) },
        { "leaves", uint_key(&Config::leaves) },
        { "hosts_per_leaf", uint_key(&Config::hosts_per_leaf) },
        { "spines", uint_key(&Config::spines) },
        { "planes", uint_key(&Config::planes) },
        { "link_gbps", double_key(&Config::link_gbps) },
        { "uplink_gbps", double_key(&Config::uplink_gbps) },
        { "link_delay", ns_key(&Config::link_delay_ns) },
        { "queue_bytes", uint_key(&Config::queue_bytes) },
        { "ecn_kmin", uint_key(&Config::ecn_kmin) },
        { "ecn_kmax", uint_key(&Config::ecn_kmax) },
        { "ecn_pmax", double_key(&Config::ecn_pmax) },
        { "trim_dscp", uint_key(&Config::trim_dscp) },
        { "loss", double_key(&Config::loss) },
        { "reconverge", ns_key(&Config::reconverge_ns) },
        { "failure",
          { [](Config &c, const std::string &v) {
                Failure f;
                if (!parse_failure(v, &f)) {
                    return false;
                }
                c.failures.push_back(f);
                return true;
            },
            [](const Config &c) {
                std::string s;
                for (const auto &f : c.failures) {
                    s += (s.empty() ? "" : " ") + f.what + "@" +
                         std::to_string(f.down_ns) + "ns-" +
                         (f.up_ns == INT64_MAX ? std::string("never") :
                          std::to_string(f.up_ns) + "ns");
                }
                return s;
            } } },
        { "nic_tx", ns_key(&Config::nic_tx_ns) },
        { "nic_rx", ns_key(&Config::nic_rx_ns) },
        { "nic_dma", ns_key(&Config::nic_dma_ns) },
        { "nic_dma_gpu", ns_key(&Config::nic_dma_gpu_ns) },
        { "gpu_memory", bool_key(&Config::gpu_memory) },
        { "nic_poll", ns_key(&Config::nic_poll_ns) },
        { "nic_tx_hold", uint_key(&Config::nic_tx_hold) },
        { "nic_mpps", double_key(&Config::nic_mpps) },
        { "mtu", uint_key(&Config::mtu) },
        /* a list: each its own run, c.transport the first */
        { "transport",
          { [](Config &c, const std::string &v) {
                std::istringstream in(v);
                std::string t;
                bool any = false;

                while (std::getline(in, t, ',')) {
                    t.erase(0, t.find_first_not_of(" \t"));
                    t.erase(t.find_last_not_of(" \t") + 1);
                    if (!any && !parse_name(t, transport_names, 4,
                                            &c.transport)) {
                        return false;
                    }
                    Transport x;
                    if (!parse_name(t, transport_names, 4, &x)) {
                        return false;
                    }
                    any = true;
                }
                if (any) {
                    c.transports = v;
                }
                return any;
            },
            [](const Config &c) { return c.transports; } } },
        { "qps_per_pair", uint_key(&Config::qps_per_pair) },
        { "rc_timeout", uint_key(&Config::rc_timeout) },
        { "dcqcn_rai", uint_key(&Config::dcqcn_rai) },
        { "dcqcn_rhai", uint_key(&Config::dcqcn_rhai) },
        { "dcqcn_g_shift", uint_key(&Config::dcqcn_g_shift) },
        { "dcqcn_alpha_us", uint_key(&Config::dcqcn_alpha_us) },
        { "dcqcn_increase_us", uint_key(&Config::dcqcn_increase_us) },
        { "dcqcn_byte_reset", uint_key(&Config::dcqcn_byte_reset) },
        { "dcqcn_cnp_us", uint_key(&Config::dcqcn_cnp_us) },
        { "rud_rto_min", ns_key(&Config::rud_rto_min_ns) },
        { "rud_late_min", ns_key(&Config::rud_late_min_ns) },
        { "rud_target_queue", ns_key(&Config::rud_target_q_ns) },
        { "wq_depth", uint_key(&Config::wq_depth) },
        { "workload",
          { [](Config &c, const std::string &v) {
                return parse_name(v, workload_names, 4, &c.workload);
            },
            [](const Config &c) {
                return std::string(workload_name(c.workload));
            } } },
        { "bytes", uint_key(&Config::bytes) },
        { "messages", uint_key(&Config::messages) },
        { "incast_senders", uint_key(&Config::incast_senders) },
        { "max_wqe_bytes", uint_key(&Config::max_wqe_bytes) },
        { "time_limit", ns_key(&Config::time_limit_ns) },
        { "background",
          { [](Config &c, const std::string &v) {
                return parse_name(v, background_names, 2, &c.background);
            },
            [](const Config &c) {
                return std::string(background_name(c.background));
            } } },
        { "background_hosts", double_key(&Config::background_hosts) },
        { "background_bytes", uint_key(&Config::background_bytes) },
        { "background_load", double_key(&Config::background_load) },
        { "background_messages", uint_key(&Config::background_messages) },
        { "out_dir", string_key(&Config::out_dir) },
        { "pcap", string_key(&Config::pcap) },
    };
    return k;
}

} // namespace

const char *transport_name(Transport t)
{
    return transport_names[(int)t];
}

const char *workload_name(Workload w)
{
    return workload_names[(int)w];
}

const char *background_name(Background b)
{
    return background_names[(int)b];
}

bool config_set(Config &c, const std::string &key, const std::string &value,
                std::string *why)
{
    auto it = keys().find(key);

    if (it == keys().end()) {
        *why = "unknown key '" + key + "'";
        return false;
    }
    if (!it->second.set(c, value)) {
        *why = "bad value '" + value + "' for " + key;
        return false;
    }
    return true;
}

bool config_load(Config &c, const std::string &path, std::string *why)
{
    std::ifstream in(path);
    std::string line;
    unsigned n = 0;

    if (!in) {
        *why = path + ": cannot open";
        return false;
    }
    while (std::getline(in, line)) {
        size_t hash = line.find('#'), eq;
        auto trim = [](std::string s) {
            size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
            return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
        };

        n++;
        line = trim(line.substr(0, hash));
        if (line.empty()) {
            continue;
        }
        eq = line.find('=');
        if (eq == std::string::npos ||
            !config_set(c, trim(line.substr(0, eq)), trim(line.substr(eq + 1)),
                        why)) {
            if (eq == std::string::npos) {
                *why = "not key = value";
            }
            *why = path + ":" + std::to_string(n) + ": " + *why;
            return false;
        }
    }
    return true;
}

std::string config_dump(const Config &c)
{
    std::string s;

    for (const auto &k : keys()) {
        s += k.first + " = " + k.second.get(c) + "\n";
    }
    return s;
}

} // namespace axonsim
