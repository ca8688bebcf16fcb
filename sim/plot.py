# SPDX-License-Identifier: GPL-2.0
"""Plots of axon-sim's CSVs: for each NAME-summary.csv in DIR, NAME.png
with each transport's completion time over the ideal and the CDF of its
messages' slowdown (NAME-TRANSPORT-flows.csv), and of its background
messages', dashed, when the scenario has a background
(NAME-TRANSPORT-bg-flows.csv).

Usage: /usr/bin/python3 sim/plot.py DIR   (matplotlib: tools/axon-deps --bench)
"""
import csv
import glob
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def plot(summary):
    name = os.path.basename(summary)[: -len("-summary.csv")]
    rows = list(csv.DictReader(open(summary)))
    if not rows:
        return None
    fig, (bars, cdf) = plt.subplots(1, 2, figsize=(11, 4))
    labels = [r["transport"] for r in rows]
    ratios = [float(r["completion_over_ideal"] or 0) for r in rows]
    bars.bar(labels, ratios, color="tab:blue")
    for i, v in enumerate(ratios):
        bars.annotate(f"{v:.2f}" if v else "not complete", (i, v),
                      ha="center", va="bottom")
    bars.set_ylim(0, max(ratios + [1]) * 1.15)
    bars.set_ylabel("completion / ideal")
    bars.set_title(f"{name}: {rows[0]['workload']}, {rows[0]['hosts']} hosts, "
                   f"{rows[0]['planes']} plane(s)")
    for n, r in enumerate(rows):
        for kind, style, label in (("flows", "-", r["transport"]),
                                   ("bg-flows", "--",
                                    r["transport"] + " background")):
            flows = os.path.join(os.path.dirname(summary),
                                 f"{name}-{r['transport']}-{kind}.csv")
            if not os.path.exists(flows):
                continue
            sd = sorted(float(f["slowdown"])
                        for f in csv.DictReader(open(flows)))
            if sd:
                cdf.plot(sd, [(i + 1) / len(sd) for i in range(len(sd))],
                         style, color=f"C{n}", label=label)
    cdf.set_xscale("log")
    cdf.set_xlabel("message slowdown (completion / ideal)")
    cdf.set_ylabel("fraction of messages")
    cdf.legend(fontsize="small")
    fig.tight_layout()
    out = os.path.join(os.path.dirname(summary), f"{name}.png")
    fig.savefig(out, dpi=90)
    plt.close(fig)
    return out


def main():
    for s in sorted(glob.glob(os.path.join(sys.argv[1], "*-summary.csv"))):
        out = plot(s)
        if out:
            print(out)


main()
