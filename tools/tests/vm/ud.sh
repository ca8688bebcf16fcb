#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# UD QPs and address handles: their semantics and bad input on each node
# (tools/tests/axon-verbs-ud), then unmodified programs: ibv_ud_pingpong
# -c (every buffer checked) and perftest's ib_send_bw -c UD, through the
# ibv_wr_* API (perftest's default) and through ibv_post_send, as in
# perftest-verbs.sh: one node runs server and client side by side, two
# nodes serve from node 0. --nic-model virtio runs the same on rdma_rxe
# (the reference).
#
# Datagrams are not retried: the programs post every receive before the
# peer may send (ibv_ud_pingpong answers each message; ib_send_bw's
# receive depth covers all its iterations), so no loss can stall them.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"

pt_require_rdma
plan 9
side=$PT_SIDE

subtest "UD verbs on $RDMA_DEV" \
	"$AXON_REPO/tools/tests/axon-verbs-ud" -g "$GID_IDX" "$RDMA_DEV"

# a UD QP is a resource the rdma tool lists: ibv_ud_pingpong's server
# holds one while it waits for a client
stdbuf -oL ibv_ud_pingpong -d "$RDMA_DEV" -g "$GID_IDX" -p 18699 \
	>"$AXON_OUT/ud-holder.log" 2>&1 &
holder=$!
wait_for 30 grep -q "local address" "$AXON_OUT/ud-holder.log"
rdma res show qp | sed 's/^/# /'
check "rdma res show qp lists its UD QP" \
	sh -c "rdma res show qp | grep -q 'link $RDMA_DEV/1 lqpn [0-9]* type UD .*comm ibv_ud_pingpong'"
kill $holder 2>/dev/null
wait $holder 2>/dev/null

# "N iters in S seconds" on each side means every exchange completed;
# -c makes each side check the bytes it received. 1024 bytes: the port
# MTU of a 1500-byte Ethernet MTU, the largest datagram.
n=100
pt_run ud_pingpong 18700 ibv_ud_pingpong -d "$RDMA_DEV" -g "$GID_IDX" \
	-n $n -r 64 -s 1024 -c
ok=0
pt_sides_ok ibv_ud_pingpong "^$n iters in " && ok=1
grep -h "iters in" "$PT_SRV_LOG" "$PT_CLI_LOG" 2>/dev/null | sed 's/^/# ibv_ud_pingpong: /'
check "ibv_ud_pingpong -s 1024 -c ($side)" [ $ok = 1 ]

pt_run send_bw_ud 18701 ib_send_bw -d "$RDMA_DEV" -x "$GID_IDX" -F \
	-c UD -s 1024 -n 100 -r 128
ok=0
pt_sides_ok "ib_send_bw -c UD" "^ *1024 " && ok=1
check "ib_send_bw -c UD 1 KiB, ibv_wr_* ($side)" [ $ok = 1 ]

pt_run send_bw_ud_post 18702 ib_send_bw -d "$RDMA_DEV" -x "$GID_IDX" -F \
	-c UD -s 1024 -n 100 -r 128 --use_old_post_send
ok=0
pt_sides_ok "ib_send_bw -c UD --use_old_post_send" "^ *1024 " && ok=1
check "ib_send_bw -c UD 1 KiB, ibv_post_send ($side)" [ $ok = 1 ]

# Every GID the table lists works, index 0 (the link-local one) as well
# as the address's: when the port listed RoCE v1 GIDs, -g 0 was one and
# ibv_ud_pingpong failed to create its AH while ibv_rc_pingpong ran RoCE
# v2 frames on it.
pt_run ud_pingpong_gid0 18703 ibv_ud_pingpong -d "$RDMA_DEV" -g 0 \
	-n 20 -s 512 -c
ok=0
pt_sides_ok ibv_ud_pingpong "^20 iters in " && ok=1
check "ibv_ud_pingpong -g 0, the link-local GID ($side)" [ $ok = 1 ]
pt_run rc_pingpong_gid0 18704 ibv_rc_pingpong -d "$RDMA_DEV" -g 0 \
	-n 20 -s 4096 -c
ok=0
pt_sides_ok ibv_rc_pingpong "^20 iters in " && ok=1
check "ibv_rc_pingpong -g 0, the link-local GID ($side)" [ $ok = 1 ]
# perftest with no -x takes GID index 0 too
pt_run write_bw_gid0 18705 ib_write_bw -d "$RDMA_DEV" -F -s 4096 -n 200
ok=0
pt_sides_ok "ib_write_bw, no -x" "^ *4096 *200 " && ok=1
check "ib_write_bw with no -x ($side)" [ $ok = 1 ]
pt_run send_lat_gid0 18706 ib_send_lat -d "$RDMA_DEV" -F -s 64 -n 200
ok=0
pt_sides_ok "ib_send_lat, no -x" "^ *64 *200 " && ok=1
check "ib_send_lat with no -x ($side)" [ $ok = 1 ]
finish
