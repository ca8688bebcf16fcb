# SPDX-License-Identifier: GPL-2.0
# Helpers for the RDMA data-path tests (sourced after lib.sh).

# The port is ACTIVE and has a RoCE v2 GID for an IPv4 address.
rdma_ready() {
	port=/sys/class/infiniband/$1/ports/1
	grep -q ACTIVE "$port/state" || return 1
	for t in "$port"/gid_attrs/types/*; do
		[ "$(cat "$t" 2>/dev/null)" = "RoCE v2" ] &&
			grep -q '^0000:0000:0000:0000:0000:ffff:' \
				"$port/gids/${t##*/}" && return 0
	done
	return 1
}

# rdma_dev: print the device under test once it is ready: axon0, or with
# AXON_RDMA_DEV=rxe0 Linux's soft RoCE (rdma_rxe) created on the fabric
# NIC (the baseline the tests are validated against).
rdma_dev() {
	dev=${AXON_RDMA_DEV:-axon0}
	if [ "$dev" = rxe0 ] && ! has_ibdev rxe0 && ! { modprobe rdma_rxe &&
		rdma link add rxe0 type rxe netdev "$AXON_NETDEV"; }; then
		echo "Bail out! rxe0 on $AXON_NETDEV" >&2
		return 1
	fi
	wait_for 20 rdma_ready "$dev" ||
		{ echo "Bail out! $dev: port active with an IPv4 RoCE v2 GID" >&2; return 1; }
	echo "$dev"
}

# res_counts: the "rdma res" counts of $RDMA_DEV, with its CQs in use in
# place of all its CQs: the core keeps the CQs of its pool
# (ib_cq_pool_get(), which nvme-rdma and nvmet-rdma use), idle, for the
# device's lifetime
res_counts() {
	rdma res show | grep "$RDMA_DEV:" | sed 's/^[0-9]*: [^ ]* //; s/ cq [0-9]*//'
	echo "cq in use $(rdma res show cq | grep -E "(dev|link) $RDMA_DEV[ /]" | grep -vc ' users 0 ')"
}

# res_back BASELINE: res_counts is BASELINE again (polled for 30 s, while
# ids and QPs wind down); says both
res_is() { [ "$(res_counts)" = "$1" ]; }

res_back() {
	wait_for 30 res_is "$1"
	now=$(res_counts)
	diag "rdma res: at start $(echo $1); now $(echo $now)"
	[ "$now" = "$1" ]
}

# Kernel reports also fail the run in tools/axon-vm; a check here counts
# them as a test failure and names them.
kernel_quiet() {
	! dmesg | grep -E 'WARNING:|BUG:|Oops|Call Trace:|KASAN:|UBSAN:|general protection'
}

# pingpong_pair PORT ITERS LOG: ibv_rc_pingpong of 4096-byte messages
# across two nodes, in the background ($! is it): node 0 serves, node 1
# connects a second later (needs perftest-lib.sh's pt_client)
pingpong_pair() {
	if [ "$AXON_NODE" = 0 ]; then
		ibv_rc_pingpong -d "$RDMA_DEV" -g "$GID_IDX" -p "$1" -n "$2" \
			-s 4096 </dev/null >"$3" 2>&1 &
	else
		sleep 1
		pt_client "$3" "${AXON_PEERS%% *}" ibv_rc_pingpong \
			-d "$RDMA_DEV" -g "$GID_IDX" -p "$1" -n "$2" -s 4096 &
	fi
}
