/*
 * axon simulator: a run's figures, as CSV
 *
 * <out_dir>/<name>-summary.csv: one row a transport, every figure a
 * function of the scenario and its seed alone (the determinism check
 * compares these files byte for byte); <name>-<transport>-flows.csv: one
 * row a message of the workload, <name>-<transport>-bg-flows.csv one a
 * background message. Wall time and events per second, which vary, go
 * to <name>-speed.csv and the standard output only.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AXON_SIM_REPORT_H
#define AXON_SIM_REPORT_H

#include <memory>
#include <string>
#include <vector>

#include "axon-sim-config.h"
#include "axon-sim-fabric.h"
#include "axon-sim-host.h"
#include "axon-sim-traffic.h"

namespace axonsim {

struct RunResult {
    bool complete = false;
    bool memory_ok = false;             /* every byte checked and placed */
    int64_t completion_ns = -1;
    std::string summary_row;
    std::string background;             /* for the run's line: or "" */
};

/* The summary's header line. */
std::string report_header();
/*
 * Figures of a finished run; writes its flows CSVs (false with *why).
 * host0_bytes: what host 0's ports had been sent when the workload was
 * done (incast's bottleneck_util; ~0: it never was, count them all).
 */
bool report_run(const Config &c, const Traffic &t, const Fabric &f,
                std::vector<std::unique_ptr<Host>> &hosts,
                uint64_t host0_bytes, RunResult *r, std::string *why);

} // namespace axonsim

#endif /* AXON_SIM_REPORT_H */
