#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Incast: every other node WRITEs to node 0 at once (ib_write_bw in
# duration mode, INCAST_SECONDS, 64 KiB messages), through the switch
# fabric's port towards node 0 (tools/axon-vm --fabric switch: its line
# rate, queue and ECN marking make the congestion). Node 0 serves one
# ib_write_bw per sender and reports each sender's goodput, their sum and
# Jain's fairness index (sum x)^2 / (n sum x^2), as "incast:" lines that
# tools/bench/incast reads. Checks that every transfer completed and its
# bandwidth was measured (the figures are the benchmark's), and with
# INCAST_EXPECT_CC=1 (DCQCN on, the switch marking) that node 0 received
# marked packets and answered with CNPs, and every sender received some.
#
# With INCAST_XFER=rc or rud, every sender runs tools/axon-rud-xfer --bw
# instead (one QP of that type, 16 WRITEs of 64 KiB at once, each timed
# from post to completion) and prints "incast-xfer: node K qp Q status S
# goodput_MBps=... p50_us=... p99_us=... msgs=..."; node 0 serves them and
# checks what landed. A RUD sender answers marks with its congestion
# window, not with CNPs: with INCAST_EXPECT_CC=1, node 0 checks the marks.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"

pt_require_rdma
[ "$AXON_NODES" -ge 3 ] || { echo "Bail out! $0 needs 3 or more nodes"; exit 1; }
secs=${INCAST_SECONDS:-10}
cc=${INCAST_EXPECT_CC:-0}
xfer=${INCAST_XFER:-}
senders=$((AXON_NODES - 1))
args="-F -d $RDMA_DEV -x $GID_IDX -s 65536 -D $secs"
PT_TIMEOUT=$((secs + 120))
hw=/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters
case $xfer in
'' | rc | rud) ;;
*) echo "Bail out! INCAST_XFER=$xfer: rc or rud"; exit 1 ;;
esac
# CNPs to check: ib_write_bw's and axon-rud-xfer's RC QPs, not RUD's
cnp_checks=$cc
[ "$xfer" != rud ] || cnp_checks=0

# rud_xfer K ARGS...: axon-rud-xfer for sender K, on its own TCP port
rud_xfer() {
	k=$1
	shift
	timeout "$PT_TIMEOUT" "$AXON_REPO/tools/axon-rud-xfer" -d "$RDMA_DEV" \
		-g "$GID_IDX" --timeout 30 --tcp-port $((18960 + k)) "$@" \
		</dev/null >"$AXON_OUT/incast-$k.log" 2>&1
}

# serve K: node 0's end of sender K's transfer
serve() {
	if [ -n "$xfer" ]; then
		rud_xfer "$1" --server
	else
		# shellcheck disable=SC2086 # a word list
		timeout "$PT_TIMEOUT" ib_write_bw $args -p $((18960 + $1)) \
			</dev/null >"$AXON_OUT/incast-$1.log" 2>&1
	fi
}

if [ "$AXON_NODE" = 0 ]; then
	plan $((senders + cc + cnp_checks))
	pids=
	for k in $(seq 1 "$senders"); do
		serve "$k" &
		pids="$pids $!"
	done
	k=0
	for pid in $pids; do
		k=$((k + 1))
		wait "$pid"
		rc=$?
		if [ -n "$xfer" ]; then
			[ $rc = 0 ] || tail -n 3 "$AXON_OUT/incast-$k.log" | sed 's/^/# /'
			check "node $k's WRITEs landed as they completed (status $rc)" [ $rc = 0 ]
			continue
		fi
		row=$(pt_row "$AXON_OUT/incast-$k.log" 65536)
		echo "incast: sender $k status $rc row $row"
		check "node $k's WRITEs completed (status $rc) and were measured" \
			sh -c "[ $rc = 0 ] && [ -n '$row' ]"
	done
	# BW average, MB/s, is the row's fourth column
	[ -n "$xfer" ] || for k in $(seq 1 "$senders"); do
		pt_row "$AXON_OUT/incast-$k.log" 65536
	done | awk '{ x[NR] = $4; s += $4; q += $4 * $4 }
		END { if (NR && q > 0) printf "incast: senders %d sum %.2f MB/s jain %.3f min %.2f max %.2f\n",
			NR, s, s * s / (NR * q), mn(x), mx(x) }
		function mn(a, i, m) { m = a[1]; for (i in a) if (a[i] < m) m = a[i]; return m }
		function mx(a, i, m) { m = a[1]; for (i in a) if (a[i] > m) m = a[i]; return m }'
	marked=$(cat "$hw/np_ecn_marked_roce_packets")
	cnps=$(cat "$hw/np_cnp_sent")
	echo "incast: receiver marked $marked cnp_sent $cnps out_of_sequence $(cat "$hw/out_of_sequence")"
	[ "$cc" = 0 ] ||
		check "the switch marked packets to node 0 CE ($marked)" [ "$marked" -gt 0 ]
	[ "$cnp_checks" = 0 ] || check "node 0 answered with CNPs ($cnps)" [ "$cnps" -gt 0 ]
	finish
else
	plan $((1 + cnp_checks))
	if [ -n "$xfer" ]; then
		rud_xfer "$AXON_NODE" --client "${AXON_PEERS%% *}" --qp "$xfer" \
			--bw "$secs" --size 65536 --depth 16
		rc=$?
		log=$AXON_OUT/incast-$AXON_NODE.log
		echo "incast-xfer: node $AXON_NODE qp $xfer status $rc $(grep '^goodput_MBps=' "$log" | tail -n 1)"
		[ $rc = 0 ] || grep -v '^goodput_MBps=' "$log" | tail -n 3 | sed 's/^/# /'
	else
		sleep 1
		# shellcheck disable=SC2086 # a word list
		pt_client "$AXON_OUT/incast.log" "${AXON_PEERS%% *}" ib_write_bw \
			$args -p $((18960 + AXON_NODE))
		rc=$?
	fi
	cnps=$(cat "$hw/rp_cnp_received")
	echo "incast: node $AXON_NODE retransmits $(cat "$hw/retransmits") cnp_received $cnps"
	check "WRITEs to node 0 completed (status $rc)" [ $rc = 0 ]
	[ "$cnp_checks" = 0 ] ||
		check "CNPs from node 0 slowed this node ($cnps)" [ "$cnps" -gt 0 ]
	finish
fi
