/*
 * axon simulator: a run's figures (see axon-sim-report.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-sim-report.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>

namespace axonsim {

namespace {

double percentile(std::vector<double> v, double p)
{
    size_t i;

    if (v.empty()) {
        return 0;
    }
    std::sort(v.begin(), v.end());
    i = (size_t)(p * (v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

/* Jain's fairness index of xs: 1 when all are equal. */
double jain(const std::vector<double> &xs)
{
    double s = 0, s2 = 0;

    for (double x : xs) {
        s += x;
        s2 += x * x;
    }
    return s2 > 0 ? s * s / (xs.size() * s2) : 0;
}

std::string fmt(double v)
{
    char b[64];

    snprintf(b, sizeof(b), "%.4f", v);
    return b;
}

FILE *open_flows(const std::string &path, std::string *why)
{
    FILE *f = fopen(path.c_str(), "w");

    if (!f) {
        *why = path + ": " + strerror(errno);
        return nullptr;
    }
    fprintf(f, "src,dst,bytes,start_ns,end_ns,fct_ns,slowdown\n");
    return f;
}

/* The background's messages: how many, how slow, at what rate. */
struct BgFigures {
    size_t messages = 0, done = 0;
    uint64_t end_bytes = 0;     /* done when the workload's last one was */
    std::vector<double> slow;
};

/* When the workload's last message was done: its completion, or 0. */
int64_t workload_end(const std::vector<Message> &msgs)
{
    int64_t end = 0;

    for (const Message &m : msgs) {
        end = m.bg ? end : std::max(end, m.end_ns);
    }
    return end;
}

} // namespace

std::string report_header()
{
    return "scenario,transport,workload,hosts,planes,bytes,messages,"
           "messages_done,completion_ns,ideal_ns,completion_over_ideal,"
           "slowdown_p50,slowdown_p99,goodput_gbps,jain,bottleneck_util,"
           "queue_drops,trimmed,loss_drops,down_drops,no_route,ecn_marks,"
           "max_queue_bytes,mean_queue_bytes,switch_hops,engine_tx_pkts,"
           "retransmits,"
           "cnp_sent,bytes_placed,wqes_unplaced,bytes_wrong,bad_completions,"
           "qp_events,engine_errors,background,bg_messages,bg_messages_done,"
           "bg_slowdown_p50,bg_slowdown_p99,bg_goodput_gbps";
}

bool report_run(const Config &c, const Traffic &t, const Fabric &f,
                std::vector<std::unique_ptr<Host>> &hosts,
                uint64_t host0_bytes, RunResult *r, std::string *why)
{
    const auto &msgs = t.messages();
    std::vector<double> slow;
    std::map<uint64_t, std::pair<uint64_t, std::pair<int64_t, int64_t>>> flow;
    int64_t end = 0;
    size_t main_msgs = 0, done = 0;
    uint64_t bytes = 0, tx = 0, retx = 0, cnp = 0, wrong = 0, events = 0;
    uint64_t errors = 0;
    std::string base = c.out_dir + "/" + c.name + "-" +
                       transport_name(c.transport);
    bool bg_on = c.background != Background::NONE;
    FILE *fl = nullptr, *bgf = nullptr;
    BgFigures bg;
    int64_t main_end = workload_end(msgs);

    if (c.flows_csv && (!(fl = open_flows(base + "-flows.csv", why)) ||
                        (bg_on && !(bgf = open_flows(base + "-bg-flows.csv",
                                                     why))))) {
        if (fl) {
            fclose(fl);
        }
        return false;
    }
    for (const Message &m : msgs) {
        main_msgs += !m.bg;
        bg.messages += m.bg;
        if (m.end_ns < 0) {
            continue;
        }
        int64_t fct = m.end_ns - m.start_ns;
        double sd = (double)fct / t.ideal_fct_ns(m);
        FILE *out = m.bg ? bgf : fl;

        if (out) {
            fprintf(out, "%u,%u,%llu,%lld,%lld,%lld,%s\n", m.src, m.dst,
                    (unsigned long long)m.bytes, (long long)m.start_ns,
                    (long long)m.end_ns, (long long)fct, fmt(sd).c_str());
        }
        if (m.bg) {
            bg.done++;
            bg.end_bytes += m.end_ns <= main_end ? m.bytes : 0;
            bg.slow.push_back(sd);
            continue;
        }
        auto &fw = flow[(uint64_t)m.src << 32 | m.dst];

        done++;
        bytes += m.bytes;
        end = std::max(end, m.end_ns);
        slow.push_back(sd);
        if (!fw.first) {
            fw.second = { m.start_ns, m.end_ns };
        }
        fw.first += m.bytes;
        fw.second.first = std::min(fw.second.first, m.start_ns);
        fw.second.second = std::max(fw.second.second, m.end_ns);
    }
    if (fl) {
        fclose(fl);
    }
    if (bgf) {
        fclose(bgf);
    }
    std::vector<double> rates;
    for (const auto &fw : flow) {
        int64_t d = fw.second.second.second - fw.second.second.first;

        rates.push_back(d > 0 ? (double)fw.second.first / d : 0);
    }
    for (auto &h : hosts) {
        tx += h->stat(AXON_REG_STAT_TX_PKTS);
        retx += h->stat(AXON_REG_STAT_RETRANS);
        cnp += h->stat(AXON_REG_STAT_CNP_SENT);
        wrong += h->mem().bytes_wrong();
        events += h->stats().events;
        errors += h->stats().frames_foreign + h->stats().guest_errors +
                  h->stats().dma_faults;
        if (h->mem().bytes_wrong()) {
            fprintf(stderr, "axon-sim: host %u: %llu bytes wrong, the first "
                    "at data offset %#llx\n", h->id(),
                    (unsigned long long)h->mem().bytes_wrong(),
                    (unsigned long long)h->mem().first_wrong());
        }
        if (h->stats().guest_errors) {
            fprintf(stderr, "axon-sim: host %u: %s\n", h->id(),
                    h->stats().last_guest_error.c_str());
        }
    }
    FabricTotals ft = f.totals();
    std::string util = "";
    if (c.workload == Workload::INCAST && end > 0) {
        uint64_t b = 0;

        for (unsigned p = 0; p < c.planes; p++) {
            b += f.host_port(p, 0).tx_bytes;
        }
        b = host0_bytes != ~0ULL ? host0_bytes : b;
        util = fmt(b * 8.0 / (end * c.link_gbps * c.planes));
    }

    r->complete = done == main_msgs;
    r->completion_ns = r->complete ? end : -1;
    r->memory_ok = !wrong && !t.stats().wqes_unplaced &&
                   !t.stats().stray_imm && !errors;
    std::ostringstream o;
    o << c.name << ',' << transport_name(c.transport) << ','
      << workload_name(c.workload) << ',' << c.hosts() << ',' << c.planes
      << ',' << c.bytes << ',' << main_msgs << ',' << done << ','
      << (r->complete ? std::to_string(end) : "") << ',' << t.ideal_ns()
      << ',' << (r->complete ? fmt((double)end / t.ideal_ns()) : "") << ','
      << fmt(percentile(slow, 0.5)) << ',' << fmt(percentile(slow, 0.99))
      << ',' << (end ? fmt(bytes * 8.0 / end) : "0") << ','
      << fmt(jain(rates)) << ',' << util << ',' << ft.queue_drops << ','
      << ft.trims << ',' << ft.loss_drops << ',' << ft.down_drops << ',' << ft.no_route << ','
      << ft.marks << ',' << ft.max_queue << ',' << ft.mean_queue << ','
      << ft.frames << ',' << tx
      << ',' << retx << ',' << cnp << ',' << t.stats().bytes_placed << ','
      << t.stats().wqes_unplaced << ',' << wrong << ','
      << t.stats().bad_completions << ',' << events << ',' << errors;
    /* the background's, empty without one: its rate beside the workload */
    double bg_gbps = end ? bg.end_bytes * 8.0 / end : 0;

    o << ',' << background_name(c.background) << ',' << bg.messages << ','
      << bg.done << ',';
    if (bg_on) {
        char b[160];

        o << fmt(percentile(bg.slow, 0.5)) << ','
          << fmt(percentile(bg.slow, 0.99)) << ',' << fmt(bg_gbps);
        snprintf(b, sizeof(b), "; background: %zu of %zu messages, slowdown "
                 "p50 %.2f p99 %.2f, %.1f Gb/s", bg.done, bg.messages,
                 percentile(bg.slow, 0.5), percentile(bg.slow, 0.99),
                 bg_gbps);
        r->background = b;
    } else {
        o << ",,";
    }
    r->summary_row = o.str();
    return true;
}

} // namespace axonsim
