/*
 * axon-sim: the axon engine at datacenter scale, hosted by ns-3
 *
 * Usage: axon-sim [SCENARIO-FILE] [key=value ...]
 *
 * Runs the scenario once for each transport it names (transport = rc,rud
 * runs both) and writes its CSVs to out_dir (axon-sim-report.h). Exits 1
 * when a run placed a wrong byte, completed a WRITE with a byte missing
 * or an immediate naming no message; 2 for a bad scenario. A run that
 * does not complete in time_limit is reported, not failed: RC on a dead
 * plane never does. Documentation/simulator.rst.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ns3/simulator.h"

#include "axon-sim-config.h"
#include "axon-sim-fabric.h"
#include "axon-sim-host.h"
#include "axon-sim-report.h"
#include "axon-sim-traffic.h"

using namespace ns3;
using namespace axonsim;

namespace {

struct Speed {
    double wall_s;
    uint64_t hops, events;
};

void stop_when_done(const Traffic *t)
{
    if (t->done()) {
        Simulator::Stop();
        return;
    }
    Simulator::Schedule(MicroSeconds(10), &stop_when_done, t);
}

/* One run of c; false with *why for a scenario that cannot run. */
bool run(const Config &c, RunResult *r, Speed *sp, std::string *why)
{
    std::vector<std::unique_ptr<Host>> hosts;
    auto t0 = std::chrono::steady_clock::now();
    uint64_t host0_bytes = ~0ULL;
    bool ok;

    {
        Traffic traffic(c, hosts);
        Fabric fabric(c, hosts);

        if (!traffic.plan(why)) {
            return false;
        }
        for (unsigned h = 0; h < c.hosts(); h++) {
            unsigned qps = traffic.qps_of(h);

            if (qps > AXON_RDMA_MAX_QP) {
                *why = "host " + std::to_string(h) + " needs " +
                       std::to_string(qps) + " QPs: the engine holds " +
                       std::to_string(AXON_RDMA_MAX_QP);
                return false;
            }
            hosts.push_back(std::make_unique<Host>(c, h, c.hosts(),
                                                   std::max(qps, 1u)));
        }
        ok = fabric.build(why);
        for (size_t h = 0; ok && h < hosts.size(); h++) {
            ok = hosts[h]->start(why);
        }
        ok = ok && traffic.setup(why);
        /* what host 0 was sent by then: the background's may follow */
        traffic.on_main_done = [&]() {
            host0_bytes = 0;
            for (unsigned p = 0; p < c.planes; p++) {
                host0_bytes += fabric.host_port_sent(p, 0);
            }
        };
        if (ok) {
            Simulator::Schedule(Seconds(0), &Traffic::start, &traffic);
            Simulator::Schedule(MicroSeconds(10), &stop_when_done, &traffic);
            Simulator::Stop(NanoSeconds(c.time_limit_ns));
            Simulator::Run();
            ok = report_run(c, traffic, fabric, hosts, host0_bytes, r, why);
            sp->hops = fabric.totals().frames;
            sp->events = Simulator::GetEventCount();
            if (!traffic.stats().first_error.empty()) {
                fprintf(stderr, "axon-sim: %s %s: %s\n", c.name.c_str(),
                        transport_name(c.transport),
                        traffic.stats().first_error.c_str());
            }
        }
        hosts.clear();
    }
    Simulator::Destroy();
    sp->wall_s = std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - t0).count();
    return ok;
}

/*
 * A run of c, its summary row and its speed (less the memory, which the
 * parent adds) appended: 0, 1 for a memory check that failed, 2 for a
 * scenario that cannot run.
 */
int run_one(const Config &c, FILE *sum, FILE *speed)
{
    std::string why;
    RunResult r;
    Speed sp = {};

    if (!run(c, &r, &sp, &why)) {
        fprintf(stderr, "axon-sim: %s %s: %s\n", c.name.c_str(),
                transport_name(c.transport), why.c_str());
        return 2;
    }
    fprintf(sum, "%s\n", r.summary_row.c_str());
    fflush(sum);
    fprintf(speed, "%s,%s,%u,%.3f,%llu,%.0f,%llu,%.0f,", c.name.c_str(),
            transport_name(c.transport), c.hosts(), sp.wall_s,
            (unsigned long long)sp.events, sp.events / sp.wall_s,
            (unsigned long long)sp.hops, sp.hops / sp.wall_s);
    fflush(speed);
    printf("axon-sim: %s %s: %s in %.3f ms simulated, memory %s%s "
           "(%.1f s wall, %.0f events/s)\n", c.name.c_str(),
           transport_name(c.transport),
           r.complete ? "complete" : "NOT complete", r.completion_ns / 1e6,
           r.memory_ok ? "checked" : "WRONG", r.background.c_str(), sp.wall_s,
           sp.events / sp.wall_s);
    fflush(stdout);
    return r.memory_ok ? 0 : 1;
}

std::vector<std::string> split(const std::string &s, char sep)
{
    std::vector<std::string> out;
    size_t a = 0, b;

    while ((b = s.find(sep, a)) != std::string::npos) {
        out.push_back(s.substr(a, b - a));
        a = b + 1;
    }
    out.push_back(s.substr(a));
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    Config base;
    std::string why;
    std::vector<std::pair<std::string, std::string>> sets;
    bool bad_memory = false;

    for (int i = 1; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');

        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            printf("usage: axon-sim [SCENARIO-FILE] [key=value ...]\n"
                   "keys and their defaults:\n%s",
                   config_dump(base).c_str());
            return 0;
        }
        if (!eq) {
            if (!config_load(base, argv[i], &why)) {
                fprintf(stderr, "axon-sim: %s\n", why.c_str());
                return 2;
            }
            continue;
        }
        sets.push_back({ std::string(argv[i], eq - argv[i]), eq + 1 });
    }
    for (const auto &kv : sets) {
        if (!config_set(base, kv.first, kv.second, &why)) {
            fprintf(stderr, "axon-sim: %s\n", why.c_str());
            return 2;
        }
    }

    std::string sum_path = base.out_dir + "/" + base.name + "-summary.csv";
    std::string speed_path = base.out_dir + "/" + base.name + "-speed.csv";
    FILE *sum = fopen(sum_path.c_str(), "w");
    FILE *speed = fopen(speed_path.c_str(), "w");
    if (!sum || !speed) {
        fprintf(stderr, "axon-sim: %s: %s\n", sum_path.c_str(),
                strerror(errno));
        return 2;
    }
    fprintf(sum, "%s\n", report_header().c_str());
    fprintf(speed, "scenario,transport,hosts,wall_s,events,events_per_wall_s,"
                   "switch_hops,hops_per_wall_s,max_rss_kib\n");
    /*
     * Each run in a child of its own: nothing of one run (ns-3's state,
     * the allocator's) is left for the next, and its peak memory is its
     * own (wait4).
     */
    for (std::string tr : split(base.transports, ',')) {
        Config c = base;
        struct rusage ru;
        int status;
        pid_t pid;

        tr.erase(0, tr.find_first_not_of(" \t"));
        tr.erase(tr.find_last_not_of(" \t") + 1);
        if (!config_set(c, "transport", tr, &why)) {
            fprintf(stderr, "axon-sim: %s\n", why.c_str());
            return 2;
        }
        fflush(NULL);   /* no buffered line written twice */
        pid = fork();
        if (pid < 0) {
            perror("axon-sim: fork");
            return 2;
        }
        if (!pid) {
            _exit(run_one(c, sum, speed));
        }
        if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
            WEXITSTATUS(status) == 2) {
            fprintf(stderr, "axon-sim: %s %s: the run failed\n",
                    c.name.c_str(), tr.c_str());
            return 2;
        }
        bad_memory |= WEXITSTATUS(status) == 1;
        fprintf(speed, "%ld\n", ru.ru_maxrss);
        fflush(speed);
    }
    fclose(sum);
    fclose(speed);
    printf("axon-sim: %s and %s\n", sum_path.c_str(), speed_path.c_str());
    return bad_memory ? 1 : 0;
}
