#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# UC QPs: their semantics and bad input on each node
# (tools/tests/axon-verbs-uc), then unmodified programs: ibv_uc_pingpong
# -c (every buffer checked), perftest's ib_write_bw -c UC and
# ib_send_bw -c UC, through the ibv_wr_* API (perftest's default) and
# ib_send_bw through ibv_post_send too, as in perftest-verbs.sh: one node
# runs server and client side by side, two nodes serve from node 0.
# --nic-model virtio runs the same on rdma_rxe (the reference).
#
# UC messages are not retried: the programs post every receive before the
# peer may send (ibv_uc_pingpong answers each message; ib_send_bw's
# receive depth covers all its iterations), so no message can be dropped
# for want of a receive and stall them.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"

pt_require_rdma
plan 6
side=$PT_SIDE

subtest "UC verbs on $RDMA_DEV" \
	"$AXON_REPO/tools/tests/axon-verbs-uc" -g "$GID_IDX" "$RDMA_DEV"

# a UC QP is a resource the rdma tool lists: ibv_uc_pingpong's server
# holds one while it waits for a client
stdbuf -oL ibv_uc_pingpong -d "$RDMA_DEV" -g "$GID_IDX" -p 18799 \
	>"$AXON_OUT/uc-holder.log" 2>&1 &
holder=$!
wait_for 30 grep -q "local address" "$AXON_OUT/uc-holder.log"
rdma res show qp | sed 's/^/# /'
check "rdma res show qp lists its UC QP" \
	sh -c "rdma res show qp | grep -q 'link $RDMA_DEV/1 lqpn [0-9]* .*type UC .*comm ibv_uc_pingpong'"
kill $holder 2>/dev/null
wait $holder 2>/dev/null

# "N iters in S seconds" on each side means every exchange completed;
# -c makes each side check the bytes it received. 4096 bytes: four
# packets at the path MTU.
n=100
pt_run uc_pingpong 18800 ibv_uc_pingpong -d "$RDMA_DEV" -g "$GID_IDX" \
	-n $n -r 64 -s 4096 -c
ok=0
pt_sides_ok ibv_uc_pingpong "^$n iters in " && ok=1
grep -h "iters in" "$PT_SRV_LOG" "$PT_CLI_LOG" 2>/dev/null | sed 's/^/# ibv_uc_pingpong: /'
check "ibv_uc_pingpong -s 4096 -c ($side)" [ $ok = 1 ]

pt_run write_bw_uc 18801 ib_write_bw -d "$RDMA_DEV" -x "$GID_IDX" -F \
	-c UC -s 65536 -n 200
ok=0
pt_sides_ok "ib_write_bw -c UC" "^ *65536 " && ok=1
check "ib_write_bw -c UC 64 KiB, ibv_wr_* ($side)" [ $ok = 1 ]

pt_run send_bw_uc 18802 ib_send_bw -d "$RDMA_DEV" -x "$GID_IDX" -F \
	-c UC -s 4096 -n 100 -r 128
ok=0
pt_sides_ok "ib_send_bw -c UC" "^ *4096 " && ok=1
check "ib_send_bw -c UC 4 KiB, ibv_wr_* ($side)" [ $ok = 1 ]

pt_run send_bw_uc_post 18803 ib_send_bw -d "$RDMA_DEV" -x "$GID_IDX" -F \
	-c UC -s 4096 -n 100 -r 128 --use_old_post_send
ok=0
pt_sides_ok "ib_send_bw -c UC --use_old_post_send" "^ *4096 " && ok=1
check "ib_send_bw -c UC 4 KiB, ibv_post_send ($side)" [ $ok = 1 ]
finish
