#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Shared receive queues: their semantics and bad input on each node
# (tools/tests/axon-verbs-srq), then unmodified programs: ibv_srq_pingpong
# (8 RC QPs on one SRQ, every buffer checked) and perftest's ib_send_bw
# --use-srq, as in perftest-verbs.sh: one node runs server and client side
# by side, two nodes serve from node 0. --nic-model virtio runs the same
# on rdma_rxe (the reference).
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"

pt_require_rdma
plan 4
side=$PT_SIDE

subtest "SRQ verbs on $RDMA_DEV" \
	"$AXON_REPO/tools/tests/axon-verbs-srq" -g "$GID_IDX" "$RDMA_DEV"

# an SRQ is a resource the rdma tool lists: ibv_srq_pingpong's server
# holds one while it waits for a client
stdbuf -oL ibv_srq_pingpong -d "$RDMA_DEV" -g "$GID_IDX" -p 18599 \
	>"$AXON_OUT/srq-holder.log" 2>&1 &
holder=$!
wait_for 30 grep -q "local address" "$AXON_OUT/srq-holder.log"
rdma res show srq | sed 's/^/# /'
check "rdma res show srq lists it" \
	sh -c "rdma res show srq | grep -q 'dev $RDMA_DEV srqn [0-9]* type BASIC'"
kill $holder 2>/dev/null
wait $holder 2>/dev/null

# "N iters in S seconds" on each side means every exchange completed;
# -c makes each side check the bytes it received.
n=100
pt_run srq_pingpong 18600 ibv_srq_pingpong -d "$RDMA_DEV" -g "$GID_IDX" \
	-n $n -q 8 -r 64 -s 2048 -c
ok=0
pt_sides_ok ibv_srq_pingpong "^$n iters in " && ok=1
grep -h "iters in" "$PT_SRV_LOG" "$PT_CLI_LOG" 2>/dev/null | sed 's/^/# ibv_srq_pingpong: /'
check "ibv_srq_pingpong -q 8 -c ($side)" [ $ok = 1 ]

pt_run send_bw_srq 18601 ib_send_bw -d "$RDMA_DEV" -x "$GID_IDX" -F \
	--use-srq -r 64 -s 65536 -n 200
ok=0
pt_sides_ok "ib_send_bw --use-srq" "^ *65536 " && ok=1
check "ib_send_bw --use-srq 64 KiB ($side)" [ $ok = 1 ]
finish
