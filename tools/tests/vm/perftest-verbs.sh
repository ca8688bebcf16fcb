#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unmodified verbs programs over RoCEv2: ibv_rc_pingpong and perftest's
# ib_{write,read,send,atomic}_bw and ib_{write,read}_lat. One node: server
# and client in the same VM (loopback, TCP exchange over 127.0.0.1); two
# nodes: node 0 serves, node 1 connects. Small iteration counts: this checks
# that they run and report, not how fast (tools/bench/rdma-perftest).
# --nic-model virtio runs the same on rdma_rxe (the reference).
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"

pt_require_rdma
side=$PT_SIDE

# judge NAME SIZE ITERS: both sides exited 0 and the side(s) here printed
# perftest's result row for SIZE and at least ITERS (ITERS per QP) with
# non-zero figures
judge() {
	ok=1
	row=
	while read -r s rc log; do
		if [ "$rc" != 0 ]; then
			ok=0
			echo "$1: $s exit status $rc:"
			tail -n 15 "$log" | sed 's/^/    | /'
			continue
		fi
		r=$(pt_row "$log" "$2")
		[ -n "$r" ] && row=$r
	done <<-SIDES
	$(pt_sides)
	SIDES
	# The result row: "SIZE ITERS figures..." (on the client, and on the
	# server too for some programs); on two nodes the server may have none.
	if [ $ok = 1 ] && [ "$side" != server ]; then
		if pt_clock_failed "$PT_CLI_LOG"; then
			echo "$1: perftest's clock calibration failed (host load): figures void"
		elif ! echo "$row" | awk -v n="$3" '$2 >= n && $3 + 0 > 0 { f = 1 } END { exit !f }'; then
			ok=0
			echo "$1: no result row for $2 B x $3:"
			tail -n 15 "$PT_CLI_LOG" | sed 's/^/    | /'
		fi
	fi
	[ -z "$row" ] || echo "$1: $row"
	check "$1 ($side)" [ $ok = 1 ]
}

# PROGRAM SIZE ITERS PROGRAM-ARGS
progs="ib_write_bw 65536 100
ib_read_bw 65536 100
ib_send_bw 65536 100
ib_atomic_bw 8 200 -A FETCH_AND_ADD
ib_atomic_bw 8 200 -A CMP_AND_SWAP
ib_write_lat 8 200
ib_read_lat 8 200
ib_write_bw 8 200 -q 4
ib_send_bw 4096 100 -q 2"
plan $((1 + $(echo "$progs" | wc -l)))

PT="-d $RDMA_DEV -x $GID_IDX -F"
port=18515

# ibv_rc_pingpong: RC SEND/RECV ping-pong, both sides verify completions;
# it prints "N bytes in S seconds" and "N iters in S seconds" on each side.
n=200
pt_run rc_pingpong $port ibv_rc_pingpong -d "$RDMA_DEV" -g "$GID_IDX" -n $n -s 4096
ok=0
pt_sides_ok ibv_rc_pingpong "^$n iters in " && ok=1
grep -h "iters in" "$PT_SRV_LOG" "$PT_CLI_LOG" 2>/dev/null | sed 's/^/ibv_rc_pingpong: /'
check "ibv_rc_pingpong -g $GID_IDX ($side)" [ $ok = 1 ]

while read -r prog size iters args; do
	port=$((port + 1))
	# shellcheck disable=SC2086 # word lists
	pt_run "$port-$prog" $port $prog $PT -s "$size" -n "$iters" $args
	judge "$prog${args:+ $args}" "$size" "$iters"
done <<EOF
$progs
EOF
finish
