#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Two planes across two VMs (axon-vm --planes 2 --plane-down 1:DOWN:FOR,
# with PLANES_DOWN=DOWN and PLANES_FOR=FOR here): an RC QP keeps to the
# plane of its UDP source port, which its flow label sets ("Planes" in
# Documentation/device-interface.rst): flow label 2 is plane 0, 1 is
# plane 1. Node 1 runs tools/axon-rdma-integrity against node 0 (every
# byte checked), by phases counted from the start barrier:
#  1. both planes up: a soak on each plane at once; both verify, rdma res
#     shows a QP on each plane, and each plane's counters moved;
#  2. plane 1 down (DOWN + 1 s on): the soak on plane 0 verifies, the run
#     on plane 1 fails (its QPs' retries run out) and plane 1 sent nothing;
#  3. plane 1 up again (DOWN + FOR + 1 s on): a soak on plane 1 verifies.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rdma-lib.sh"

t0=$(date +%s)
down=${PLANES_DOWN:?}
up=$((down + ${PLANES_FOR:?}))
dev=$(rdma_dev) || exit 1
hw=/sys/class/infiniband/$dev/ports/1/hw_counters
# a hang guard: a side whose peer failed must not wait for ever
xfer="timeout 120 $AXON_REPO/tools/axon-rdma-integrity -d $dev --timeout 20"
if [ "$AXON_NODES" != 2 ] || [ "${AXON_PLANES:-1}" != 2 ]; then
	echo "Bail out! $0 runs on two nodes with two planes"
	exit 1
fi

elapsed() { echo $(($(date +%s) - t0)); }
counter() { cat "$hw/$1"; }

# until T: sleep until T seconds after the start; fails if T has passed
until_t() {
	[ "$(elapsed)" -lt "$1" ] || return 1
	while [ "$(elapsed)" -lt "$1" ]; do sleep 0.2; done
}

# soak NAME FLOW_LABEL PORT SECONDS: one axon-rdma-integrity run on the
# plane of FLOW_LABEL, in the background; its log is $AXON_OUT/NAME.log
soak() {
	# shellcheck disable=SC2086 # a word list
	$xfer --flow-label "$2" --tcp-port "$3" --soak "$4" \
		>"$AXON_OUT/$1.log" 2>&1 &
}

# soak_start PHASE PORT SECONDS: a soak on plane 0 (PORT) and one on
# plane 1 (PORT + 1) at once; soak_wait: wait for both, their statuses in
# rc0 and rc1, the packets each plane sent meanwhile in n0 and n1
soak_start() {
	tx0=$(counter plane0_tx_pkts)
	tx1=$(counter plane1_tx_pkts)
	soak "$1-plane0" 2 "$2" "$3"
	p0=$!
	soak "$1-plane1" 1 $(($2 + 1)) "$3"
	p1=$!
}
soak_wait() {
	wait $p0
	rc0=$?
	wait $p1
	rc1=$?
	n0=$(($(counter plane0_tx_pkts) - tx0))
	n1=$(($(counter plane1_tx_pkts) - tx1))
}

# planes_seen: the hw_plane of this node's QPs on $dev (RC and UC have
# one), sorted
planes_seen() {
	rdma -dd res show qp link "$dev/1" 2>/dev/null |
		grep -o 'hw_plane [0-9]' | sort -u | cut -d' ' -f2 | xargs
}

if [ "$AXON_NODE" = 0 ]; then
	plan 8
else
	plan 11
fi

# 1. both planes up
soak_start both 18981 4
if [ "$AXON_NODE" = 1 ]; then
	seen() { [ "$(planes_seen)" = "0 1" ]; }
	check "rdma res: QPs on plane 0 and on plane 1" wait_for 20 seen
	diag "planes of the QPs: $(planes_seen)"
fi
soak_wait
check "plane 0: soak verified (status $rc0)" [ $rc0 = 0 ]
check "plane 1: soak verified (status $rc1)" [ $rc1 = 0 ]
check "both planes sent: plane 0 $n0, plane 1 $n1 packets" \
	sh -c "[ $n0 -gt 100 ] && [ $n1 -gt 100 ]"

# 2. plane 1 down
check "phase 1 ended before plane 1 went down ($(elapsed) s < $down s)" \
	until_t $((down + 1))
soak_start down 18983 3
soak_wait
check "plane 1 down: the soak on plane 0 verified (status $rc0)" [ $rc0 = 0 ]
if [ "$AXON_NODE" = 1 ]; then
	check "plane 1 down: the run on plane 1 failed (status $rc1)" [ $rc1 != 0 ]
	check "... with its transfers' retries exhausted" \
		grep -qi "retry_exc\|retry exceeded\|transport retry" \
		"$AXON_OUT/down-plane1.log"
	tail -n 3 "$AXON_OUT/down-plane1.log" | sed 's/^/# /'
fi
check "plane 1 down: plane 0 sent $n0, plane 1 sent $n1 packets" \
	sh -c "[ $n0 -gt 100 ] && [ $n1 = 0 ]"

# 3. plane 1 up again
check "phase 2 ended before plane 1 came back ($(elapsed) s < $up s)" \
	until_t $((up + 1))
soak up-plane1 1 18986 3
wait $!
rc=$?
check "plane 1 up again: soak verified (status $rc)" [ $rc = 0 ]
finish
