#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The basic verbs through libibverbs and the axon provider (their admin
# commands polled, no admin interrupt taken), then objects
# changed in place: ibv_resize_cq and ibv_rereg_mr (axon-verbs-change),
# the device clock and completion timestamps (axon-verbs-clock), then the
# driver's details in rdma res show -dd, the same QP in axonctl and bound
# to a counter by hand, and bad requests to axon's netlink family
# (axon-nl-badinput), and a devlink reload: on the debug kernel too, with
# its checkers.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/rdma-lib.sh"

# res_dd OBJECT PATTERN...: rdma res show OBJECT -dd has, on the line of
# the pingpong server below, every PATTERN
res_dd() {
	line=$(rdma -dd res show "$1" | grep "comm ibv_rc_pingpong")
	shift
	for pat; do
		echo "$line" | grep -qE "$pat" || return 1
	done
}

pt_require_rdma
plan 12
subtest "axon-verbs-basic" "$AXON_REPO/tools/tests/axon-verbs-basic" axon0
# the model answers in the doorbell write: every waiter polls its answer
no_admin_irq() { n=$(admin_irqs) && [ "$n" = 0 ]; }
check "no admin interrupt: the driver polled every command" no_admin_irq
subtest "axon-verbs-change: ibv_resize_cq, ibv_rereg_mr" \
	"$AXON_REPO/tools/tests/axon-verbs-change" -g "$GID_IDX" axon0
subtest "axon-verbs-clock: completion timestamps" \
	"$AXON_REPO/tools/tests/axon-verbs-clock" -g "$GID_IDX" axon0

# the driver's details in the rdma tool: a pingpong server holds a QP in
# INIT (RQ of 500), its CQ and MR while it waits for a client
stdbuf -oL ibv_rc_pingpong -d axon0 -g "$GID_IDX" -p 18598 -r 500 \
	>"$AXON_OUT/holder.log" 2>&1 &
holder=$!
wait_for 30 grep -q "local address" "$AXON_OUT/holder.log"
for o in qp cq mr; do
	rdma -dd res show $o | grep "comm ibv_rc_pingpong" | sed "s/^/# $o: /"
done
check "rdma res show qp -dd: the device's state, the queues" \
	res_dd qp "hw_state INIT" "hw_qpn [0-9]+" "sq_depth [0-9]+" "rq_depth 512"
check "rdma res show cq -dd: the device's CQ, a ring in pages" \
	res_dd cq "hw_cqn [0-9]+" "depth [0-9]+" "ring_pages [1-9]" "cqe_size 32"
check "rdma res show mr -dd: a user MR in 4 KiB pages" \
	res_dd mr "kind user" "page_size 4096" "npages [1-9]"
qpn=$(rdma res show qp | sed -n 's/.* lqpn \([0-9]*\) .*comm ibv_rc_pingpong.*/\1/p')
out=$("$AXON_REPO/tools/axonctl" qp show axon0 qpn "$qpn" 2>&1)
echo "$out" | sed 's/^/# axonctl: /'
check "axonctl qp show: QP $qpn in INIT, in the device too, RQ of 512" \
	sh -c "echo '$out' | grep -q '^ifname axon0 qpn $qpn type RC state INIT .*rq_depth 512' &&
	       echo '$out' | grep -q 'hw_state INIT'"
rdma statistic qp bind link axon0/1 lqpn "$qpn"
bound=$(rdma statistic qp show link axon0/1)
rdma statistic qp unbind link axon0/1 \
	cntn "$(echo "$bound" | sed -n 's/.* cntn \([0-9]*\) .*/\1/p')" lqpn "$qpn"
echo "$bound" | sed 's/^/# /'
check "the QP bound to a counter by hand and unbound" \
	sh -c "echo '$bound' | grep -q 'LQPN: <$qpn>' &&
	       ! rdma statistic qp show link axon0/1 | grep -q cntn"
kill $holder 2>/dev/null
wait $holder 2>/dev/null
subtest "axon-nl-badinput: bad requests to the netlink family" \
	"$AXON_REPO/tools/tests/axon-nl-badinput" axon0
dl=pci/$(axon_bdf)
devlink dev reload "$dl"
check "devlink dev reload: a driver_reinit, axon0 back" \
	sh -c "devlink -s dev show $dl | grep -q driver_reinit &&
	       rdma link | grep -q axon0"
check "no kernel warnings" kernel_quiet
finish
