#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Goodput across two VMs, for tools/bench/transport: node 1 WRITEs to node 0
# with ib_write_bw (GOODPUT_QPS QPs, 64 KiB messages, GOODPUT_SECONDS in
# duration mode) and prints "goodput: status S row ROW retransmits R",
# ROW being perftest's result row (BW average, MB/s, is its fourth
# column) and R the port's retransmitted packets.
#
# With GOODPUT_XFER="rc rud" (QP types, in that order), tools/axon-rud-xfer
# --bw then measures one QP of each type the same way (64 KiB RDMA_WRITEs,
# 16 at once, GOODPUT_SECONDS) and node 1 prints "goodput-xfer: qp Q
# status S goodput_MBps=... p50_us=... p99_us=... msgs=..." and the goodput
# of every 100 ms as "goodput-series: qp Q T MBPS" lines.
# GOODPUT_RC_FLOW_LABEL sets the RC QP's flow label, so its plane.
#
# GOODPUT_PHASE=P starts run I (0: ib_write_bw, then those of GOODPUT_XFER)
# P*I s after the start barrier, so that the same --plane-down window can
# be placed in each, and cuts each after P - 5 s; without it the runs
# follow one another.
#
# Checks that each run completed and was measured; with GOODPUT_MAY_FAIL=1
# (a plane taken down under it) nothing: its fate is the benchmark's
# figure.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"

t0=$(date +%s)
pt_require_rdma
pt_require_two_nodes
secs=${GOODPUT_SECONDS:-5}
may_fail=${GOODPUT_MAY_FAIL:-0}
phase=${GOODPUT_PHASE:-0}
xfer_qps=${GOODPUT_XFER:-}
# pt_run's hang guard, and axon-rud-xfer's
if [ "$phase" -gt 0 ]; then
	PT_TIMEOUT=$((phase - 5))
else
	PT_TIMEOUT=$((secs + 120))
fi
hw=/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters

elapsed() { echo $(($(date +%s) - t0)); }

# at_phase I: with GOODPUT_PHASE, wait for run I's start (say if it is late)
at_phase() {
	[ "$phase" -gt 0 ] || return 0
	due=$((phase * $1))
	[ "$(elapsed)" -le "$due" ] ||
		diag "run $1 starts late: at $(elapsed) s, due at $due s"
	while [ "$(elapsed)" -lt "$due" ]; do sleep 0.2; done
}

runs=1
for q in $xfer_qps; do
	runs=$((runs + 1))
done
plan $(((1 - may_fail) * runs))

pt_run goodput 18990 ib_write_bw -F -d "$RDMA_DEV" -x "$GID_IDX" \
	-s 65536 -D "$secs" -q "${GOODPUT_QPS:-1}"
if [ "$AXON_NODE" = 1 ]; then
	rc=$PT_CLI_RC
	row=$(pt_row "$PT_CLI_LOG" 65536)
	echo "goodput: status $rc row $row retransmits $(cat "$hw/retransmits")"
else
	rc=$PT_SRV_RC
	row=$(pt_row "$PT_SRV_LOG" 65536)
fi
[ "$may_fail" = 1 ] ||
	check "ib_write_bw completed and was measured (status $rc)" \
		sh -c "[ $rc = 0 ] && [ -n '$row' ]"

i=1
for q in $xfer_qps; do
	at_phase $i
	label=
	if [ "$q" = rc ] && [ -n "${GOODPUT_RC_FLOW_LABEL:-}" ]; then
		label="--flow-label $GOODPUT_RC_FLOW_LABEL"
	fi
	log=$AXON_OUT/goodput-$q.log
	series=$AXON_OUT/goodput-$q-series.txt
	rm -f "$series"
	# shellcheck disable=SC2086 # a word list
	timeout "$PT_TIMEOUT" "$AXON_REPO/tools/axon-rud-xfer" -d "$RDMA_DEV" \
		-g "$GID_IDX" --qp "$q" --bw "$secs" --size 65536 --depth 16 \
		--timeout 10 --series "$series" --tcp-port $((18990 + i)) \
		$label >"$log" 2>&1
	rc=$?
	line=$(grep '^goodput_MBps=' "$log" | tail -n 1)
	if [ "$AXON_NODE" = 1 ]; then
		echo "goodput-xfer: qp $q status $rc $line"
		[ ! -f "$series" ] || sed "s/^/goodput-series: qp $q /" "$series"
		[ "$rc" = 0 ] || grep -v '^goodput_MBps=' "$log" | tail -n 3 |
			sed 's/^/# /'
	else
		line=server
	fi
	[ "$may_fail" = 1 ] ||
		check "axon-rud-xfer --qp $q --bw $secs completed and was measured (status $rc)" \
			sh -c "[ $rc = 0 ] && [ -n '$line' ]"
	i=$((i + 1))
done
finish
