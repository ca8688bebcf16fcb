#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bad verbs input fails with a precise errno (tools/tests/axon-verbs-badinput),
# then the data path still works (a quick loopback integrity pass).
# AXON_RDMA_DEV=rxe0 runs on rdma_rxe instead of axon0.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rdma-lib.sh"

dev=$(rdma_dev) || exit 1
hw=/sys/class/infiniband/$dev/ports/1/hw_counters
tx0=$(cat "$hw/tx_pkts" 2>/dev/null)
"$AXON_REPO/tools/tests/axon-verbs-badinput" "$dev" || failures=$((failures + 1))
"$AXON_REPO/tools/axon-rdma-integrity" -d "$dev" --quick --loopback \
	--only 'send 4097*' || failures=$((failures + 1))
case $dev in
axon*)
	tx1=$(cat "$hw/tx_pkts")
	echo "tx_pkts $tx0 -> $tx1"
	check "$dev: hw counter tx_pkts grew with the traffic" \
		[ "${tx1:-0}" -gt "${tx0:-0}" ]
	;;
esac
check "$dev: no kernel warnings" kernel_quiet
finish
