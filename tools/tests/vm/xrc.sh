#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# XRC: domains, XRC SRQs, initiator and target QPs. On each node
# tools/tests/axon-verbs-xrc checks their semantics and bad input in one
# process (an initiator sending to its own target's SRQ); then
# rdma-core's ibv_xsrq_pingpong, unmodified, polling and on completion
# events: one node runs server and client side by side, two nodes serve
# from node 0. A server that waits for its client holds an XRC_RECV and an
# XRC_SEND QP in INIT: axonctl qp show names their types.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"

pt_require_rdma
plan 4
side=$PT_SIDE

subtest "XRC verbs on $RDMA_DEV" \
	"$AXON_REPO/tools/tests/axon-verbs-xrc" -g "$GID_IDX" "$RDMA_DEV"

# xrc_types: both QP types of the waiting server, in INIT, in $out
xrc_types() {
	out=$("$AXON_REPO/tools/axonctl" qp show "$RDMA_DEV")
	echo "$out" | grep -q "^ifname $RDMA_DEV qpn [0-9]* type XRC_TGT state INIT " &&
		echo "$out" | grep -q "^ifname $RDMA_DEV qpn [0-9]* type XRC_INI state INIT "
}
stdbuf -oL ibv_xsrq_pingpong -d "$RDMA_DEV" -g "$GID_IDX" -p 18722 \
	>"$AXON_OUT/xsrq-holder.log" 2>&1 &
holder=$!
shown=0
wait_for 30 xrc_types && shown=1
echo "$out" | sed 's/^/# axonctl: /'
kill $holder 2>/dev/null
wait $holder 2>/dev/null
check "axonctl qp show: a waiting ibv_xsrq_pingpong's XRC_TGT and XRC_INI QPs" \
	[ $shown = 1 ]

# "success" is printed once every message of every client was received
# and answered; -s 4096 at MTU 1024 makes each SEND four packets
n=50
pt_run xsrq 18720 ibv_xsrq_pingpong -d "$RDMA_DEV" -g "$GID_IDX" \
	-m 1024 -s 4096 -n $n
ok=0
pt_sides_ok ibv_xsrq_pingpong "^success" && ok=1
check "ibv_xsrq_pingpong -s 4096 -n $n ($side)" [ $ok = 1 ]

pt_run xsrq_events 18721 ibv_xsrq_pingpong -d "$RDMA_DEV" -g "$GID_IDX" \
	-m 1024 -s 100 -n $n -e
ok=0
pt_sides_ok "ibv_xsrq_pingpong -e" "^success" && ok=1
check "ibv_xsrq_pingpong -e, completion events ($side)" [ $ok = 1 ]
finish
