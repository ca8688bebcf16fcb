#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Two nodes (p2p fabric), run with --host-cmd tools/tests/forge-host: while
# node 1 runs tools/axon-rdma-integrity against node 0 (every byte moved
# checked), the host forges RoCEv2 frames at node 0's live QPs with correct
# ICRCs and node 1's address but no PSN or key it could know: duplicate,
# out-of-sequence and stray requests and responses
# (Documentation/wire-security.rst). The transfers must all verify and
# complete as expected, and node 0's counters show what it dropped.
# AXON_RDMA_ARGS: axon-rdma-integrity's options (default --soak 30: the same QPs
# for 30 s, so that the forger finds them).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rdma-lib.sh"

dev=$(rdma_dev) || exit 1
hw=/sys/class/infiniband/$dev/ports/1/hw_counters
counter() { cat "$hw/$1"; }

# list_qpns: the QPs of $dev now, for the forger (an attacker may guess)
list_qpns() {
	while :; do
		rdma res show qp link "$dev/1" 2>/dev/null |
			sed -n 's/.* lqpn \([0-9]*\) .*/\1/p' > "$AXON_OUT/qpns.new"
		mv "$AXON_OUT/qpns.new" "$AXON_OUT/qpns"
		sleep 0.3
	done
}

counters="duplicate_requests out_of_sequence stray_drops rx_drops"
if [ "$AXON_NODE" = 0 ]; then
	# the subtest, the forger's two, one a counter, kernel_quiet
	plan $((4 + $(echo $counters | wc -w)))
	for c in $counters; do
		eval "before_$c=\$(counter $c)"
	done
	list_qpns &
	lister=$!
	touch "$AXON_OUT/ready-for-frames"
else
	plan 2
fi
# shellcheck disable=SC2086 # a word list
subtest "axon-rdma-integrity" \
	"$AXON_REPO/tools/axon-rdma-integrity" -d "$dev" ${AXON_RDMA_ARGS:---soak 30}
if [ "$AXON_NODE" = 0 ]; then
	kill "$lister"
	touch "$AXON_OUT/forge-stop"
	check "the host forged frames" wait_for 60 test -s "$AXON_OUT/forged"
	diag "$(cat "$AXON_OUT/forged")"
	live=$(sed -n 's/^forged_live=//p' "$AXON_OUT/forged")
	check "frames were aimed at live QPs (${live:-0})" [ "${live:-0}" -gt 0 ]
	for c in $counters; do
		eval "b=\$before_$c"
		n=$(($(counter "$c") - b))
		check "$c counted forged frames ($n)" [ "$n" -gt 0 ]
	done
fi
check "$dev: no kernel warnings" kernel_quiet
finish
