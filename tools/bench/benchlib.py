# SPDX-License-Identifier: GPL-2.0
"""What the perftest benchmarks (rdma-perftest, rdma-scale) share: the
stacks and topologies, the guest's perftest loop, booting the VMs with
tools/axon-vm and reading perftest's logs."""

import os
import re
import subprocess
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))
VM = os.path.join(REPO, "tools", "axon-vm")
CACHE = os.environ.get("AXON_CACHE") or os.path.expanduser("~/.cache/axon")

STACKS = {"axon": "axon", "rxe": "virtio"}     # stack -> --nic-model
TOPOLOGIES = {"loopback": 1, "p2p": 2}          # topology -> nodes

# Runs on every node, after PT_TIMEOUT, PT_MTU and PT_LIST are set: the
# fabric NIC's MTU, the RDMA device, then every "name program size
# perftest-options" line of $PT_LIST, its logs in $AXON_OUT as
# name-size.{server,client}.log and a "result name size server=RC
# client=RC" line each. GUEST_SETUP alone is the first half.
GUEST_SETUP = r'''
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
if [ -n "$PT_MTU" ]; then
	ip link set "$AXON_NETDEV" mtu "$PT_MTU" ||
		{ echo "no rdma device: cannot set MTU $PT_MTU"; exit 1; }
fi
rdma_setup || { echo "no rdma device with a RoCE v2 GID"; exit 1; }
'''
GUEST_PERFTEST = r'''
port=18700
# (pt_run sets name, hence test)
echo "$PT_LIST" | while read -r test prog size opts; do
	[ -n "$prog" ] || continue
	port=$((port + 1))
	extra=
	case $prog in *_bw) extra=--report_gbits ;; esac
	# One node: again while perftest's clock calibration fails (two
	# nodes cannot agree on a retry: reported as such).
	try=0
	while :; do
		# shellcheck disable=SC2086
		pt_run "$test-$size" $port $prog -d "$RDMA_DEV" -x "$GID_IDX" \
			-F -s "$size" $opts $extra
		try=$((try + 1))
		if [ "$AXON_NODES" != 1 ] || [ $try -ge 4 ] ||
			! pt_clock_failed "$PT_CLI_LOG"; then
			break
		fi
		port=$((port + 1))
	done
	echo "result $test $size server=$PT_SRV_RC client=$PT_CLI_RC"
done
# The device's counters (retransmissions, ...) for the logs.
rdma statistic show link "$RDMA_DEV/1" >"$AXON_OUT/rdma-statistic.txt" 2>&1
ethtool -S "$AXON_NETDEV" >"$AXON_OUT/ethtool-S.txt" 2>&1
'''
GUEST = GUEST_SETUP + GUEST_PERFTEST


def guest_env(program_timeout, mtu, plist):
    """The shell assignments GUEST reads, for plist's (name, program,
    size, options) tuples."""
    return "PT_TIMEOUT=%d; PT_MTU=%s; PT_LIST='%s'; " % (
        program_timeout, mtu or "", "\n".join("%s %s %d %s" % t
                                               for t in plist))


def bench_dir(name):
    """A new $AXON_CACHE/bench/<name>-<time>/."""
    d = os.path.join(CACHE, "bench", name + "-" +
                     time.strftime("%Y%m%d-%H%M%S"))
    os.makedirs(d)
    return d


def vm_argv(stack, topo, run_dir, timeout):
    """tools/axon-vm run's options for stack on topo, without CMD."""
    nodes = TOPOLOGIES[topo]
    argv = [VM, "run", "--nodes", str(nodes), "--nic-model", STACKS[stack],
            "--run-dir", run_dir, "--timeout", str(timeout)]
    if nodes == 2:
        argv += ["--fabric", "p2p"]
    else:
        # Server and client poll side by side: one vCPU each (on one
        # vCPU a ping-pong measures the scheduler's time slice).
        argv += ["--smp", "2"]
    return argv


def run_vm(bench, argv, log):
    """Run tools/axon-vm (argv's last word is CMD), its output kept in
    log; returns (exit status, output, seconds)."""
    print("%s: %s" % (bench, " ".join(argv[:-1])), flush=True)
    t0 = time.monotonic()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    with open(log, "w") as f:
        f.write(p.stdout)
    return p.returncode, p.stdout, time.monotonic() - t0


def vm_error(rc, out):
    """Why a run that measured nothing failed, in one line."""
    why = [ln for ln in out.splitlines() if "FAIL:" in ln or
           "no rdma device" in ln]
    last = out.strip().splitlines()[-1:] or ["axon-vm exit %d" % rc]
    return (why or last)[0].replace("axon-vm: ", "")


def read_log(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def perftest_row(text, size):
    """The numbers of perftest's result row for size (bw: #bytes
    #iterations peak average msgrate; lat: #bytes #iterations t_min
    t_max t_typical ...), or None."""
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 5 and f[0] == str(size) and f[1].isdigit():
            try:
                return [float(x) for x in f[:5]]
            except ValueError:
                return None
    return None


def clock_failed(text):
    """perftest could not calibrate its clock (perftest-lib.sh's
    pt_clock_failed)."""
    return "Correlation coefficient" in text


def path_mtu(text):
    m = re.search(r"^\s*Mtu\s*:\s*(\d+)", text, re.M)
    return int(m.group(1)) if m else None


def result_status(out):
    """{(name, size): (server status, client status)} of GUEST's result
    lines."""
    return {(m.group(1), int(m.group(2))): (m.group(3), m.group(4))
            for m in re.finditer(r"result (\S+) (\d+) server=(\d+) "
                                 r"client=(\d+)", out)}


def fmt(v):
    return "-" if v is None else "%.3g" % v if v < 100 else "%.0f" % v


def ratio(a, b):
    return "%.2f" % (a / b) if a is not None and b else "-"
