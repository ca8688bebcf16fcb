#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Goodput across two VMs, for tools/bench/transport: node 1 WRITEs to node 0
# with ib_write_bw (GOODPUT_QPS QPs, 64 KiB messages, GOODPUT_SECONDS in
# duration mode) and prints "goodput: status S row ROW retransmits R",
# ROW being perftest's result row (BW average, MB/s, is its fourth
# column) and R the port's retransmitted packets. Checks that the transfer
# ran and was measured; with GOODPUT_MAY_FAIL=1 (a plane taken down under
# it) nothing: its fate is the benchmark's figure.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"

pt_require_rdma
pt_require_two_nodes
secs=${GOODPUT_SECONDS:-5}
may_fail=${GOODPUT_MAY_FAIL:-0}
# shellcheck disable=SC2034 # pt_run's hang guard
PT_TIMEOUT=$((secs + 120))
hw=/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters

plan $((1 - may_fail))
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
finish
