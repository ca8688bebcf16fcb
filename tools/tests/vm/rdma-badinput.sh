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
case $dev in
axon*) plan 4 ;;
*) plan 3 ;;
esac
tx0=$(cat "$hw/tx_pkts" 2>/dev/null)
subtest "axon-verbs-badinput" "$AXON_REPO/tools/tests/axon-verbs-badinput" "$dev"
subtest "axon-rdma-integrity --only 'send 4097*'" \
	"$AXON_REPO/tools/axon-rdma-integrity" -d "$dev" --quick --loopback \
	--only 'send 4097*'
case $dev in
axon*)
	tx1=$(cat "$hw/tx_pkts")
	diag "tx_pkts $tx0 -> $tx1"
	check "$dev: hw counter tx_pkts grew with the traffic" \
		[ "${tx1:-0}" -gt "${tx0:-0}" ]
	;;
esac
check "$dev: no kernel warnings" kernel_quiet
finish
