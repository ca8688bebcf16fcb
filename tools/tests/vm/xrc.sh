#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# XRC: domains, XRC SRQs, initiator and target QPs. On each node
# tools/tests/axon-verbs-xrc checks their semantics and bad input in one
# process (an initiator sending to its own target's SRQ); then
# rdma-core's ibv_xsrq_pingpong, unmodified, polling and on completion
# events: one node runs server and client side by side, two nodes serve
# from node 0.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"

pt_require_rdma
plan 3
side=$PT_SIDE

subtest "XRC verbs on $RDMA_DEV" \
	"$AXON_REPO/tools/tests/axon-verbs-xrc" -g "$GID_IDX" "$RDMA_DEV"

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
