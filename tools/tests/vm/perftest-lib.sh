# SPDX-License-Identifier: GPL-2.0
# Helpers for the perftest suites and tools/bench/rdma-perftest, in the
# guest (sourced after lib.sh). Node 0 serves, node 1 is the client; on a
# single node both run side by side over 127.0.0.1 (loopback).
# shellcheck shell=sh disable=SC2034 # PT_* are read by the sourcing script

# A hang guard per program, not a time limit: well below axon-vm's
# default --timeout, so that a hung program fails with its log.
PT_TIMEOUT=${PT_TIMEOUT:-180}

port_active() {
	grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state"
}

# gid_index DEV IPV4: the index of DEV's RoCE v2 GID for IPV4
gid_index() {
	want=$(echo "$2" | awk -F. '{ printf "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", $1, $2, $3, $4 }')
	for g in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		i=${g##*/}
		[ "$(cat "$g" 2>/dev/null)" = "$want" ] || continue
		[ "$(cat "/sys/class/infiniband/$1/ports/1/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ] || continue
		echo "$i"
		return 0
	done
	return 1
}

# rdma_setup: RDMA_DEV (the RDMA device on the fabric NIC: axon0, or rxe0
# on the virtio-net interface with --nic-model virtio) with its port
# active, and GID_IDX (its RoCE v2 GID of $AXON_IP)
rdma_setup() {
	if [ "$AXON_NIC_MODEL" = virtio ]; then
		modprobe ib_uverbs && modprobe rdma_rxe || return 1
		rdma link add rxe0 type rxe netdev "$AXON_NETDEV" || return 1
		RDMA_DEV=rxe0
	else
		wait_for 10 has_ibdev axon0 || return 1
		RDMA_DEV=axon0
	fi
	wait_for 30 port_active "$RDMA_DEV" || return 1
	GID_IDX=
	wait_for 10 gid_index "$RDMA_DEV" "$AXON_IP" >/dev/null || return 1
	GID_IDX=$(gid_index "$RDMA_DEV" "$AXON_IP")
	echo "rdma device $RDMA_DEV ($AXON_NIC_MODEL), GID index $GID_IDX of $AXON_IP"
}

# pt_require_rdma: rdma_setup, or stop the run here (before the plan)
pt_require_rdma() {
	rdma_setup && return 0
	echo "Bail out! rdma device with an active port and a RoCE v2 GID of $AXON_IP"
	exit 1
}

# pt_require_ucm: pt_require_rdma, and rdma_ucm loaded (user space's
# RDMA CM), or stop the run here
pt_require_ucm() {
	pt_require_rdma
	modprobe rdma_ucm && return 0
	echo "Bail out! modprobe rdma_ucm"
	exit 1
}

# pt_require_two_nodes: a run of two nodes, or stop it here
pt_require_two_nodes() {
	[ "$AXON_NODES" = 2 ] && return 0
	echo "Bail out! $0 runs on two nodes"
	exit 1
}

# pt_pkts: the RoCE packets RDMA_DEV sent and received so far (its port's
# hardware counters: axon's tx_pkts and rx_pkts, rxe's sent_pkts and
# rcvd_pkts)
pt_pkts() {
	c=/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters
	if [ -e "$c/tx_pkts" ]; then
		echo $(($(cat "$c/tx_pkts") + $(cat "$c/rx_pkts")))
	else
		echo $(($(cat "$c/sent_pkts") + $(cat "$c/rcvd_pkts")))
	fi
}

# PT_SIDE: what this node runs of each pt_run test
PT_SIDE=server
[ "$AXON_NODES" = 1 ] || [ "$AXON_NODE" = 0 ] || PT_SIDE=client
[ "$AXON_NODES" = 1 ] && PT_SIDE="server+client"

# pt_sides: one line "NAME STATUS LOG" per side of the last pt_run that
# ran on this node (NAME is srv or cli)
pt_sides() {
	[ "$PT_SIDE" = client ] || echo "srv $PT_SRV_RC $PT_SRV_LOG"
	[ "$PT_SIDE" = server ] || echo "cli $PT_CLI_RC $PT_CLI_LOG"
}

# pt_sides_ok NAME [PATTERN]: every side of the last pt_run on this node
# exited 0 and, with PATTERN, its log has a line matching it; else says
# which side failed, with the tail of its log
pt_sides_ok() {
	pt_failed=0
	while read -r s rc log; do
		if [ "$rc" != 0 ] || { [ -n "${2:-}" ] && ! grep -q "$2" "$log"; }; then
			pt_failed=1
			echo "$1: $s exit status $rc:"
			tail -n 15 "$log" | sed 's/^/    | /'
		fi
	done <<-SIDES
	$(pt_sides)
	SIDES
	return $pt_failed
}

listening() {
	ss -Hltn "sport = :$1" | grep -q .
}

# pt_client LOG SERVER PROGRAM ARGS...: run the client side (prefixed with
# the command words in $PT_CLIENT_WRAP, if any); retry while the server
# does not listen yet (two nodes). Status of the last try.
pt_client() {
	log=$1
	srv=$2
	shift 2
	tries=0
	while :; do
		# shellcheck disable=SC2086 # a word list
		timeout "$PT_TIMEOUT" ${PT_CLIENT_WRAP:-} "$@" "$srv" </dev/null >"$log" 2>&1 &&
			return 0
		rc=$?
		grep -q "Couldn't connect\|Unable to open file descriptor\|rdma_client function" "$log" ||
			return $rc
		tries=$((tries + 1))
		[ $tries -lt 200 ] || return $rc
		sleep 0.3
	done
}

# pt_run NAME PORT PROGRAM ARGS...: one perftest-style test (the program
# takes "-p PORT", and the server's address as last argument on the
# client). Node 0 (or the background process on a single node) serves.
# Sets PT_SRV_LOG, PT_CLI_LOG, PT_SRV_RC, PT_CLI_RC; logs in $AXON_OUT.
pt_run() {
	name=$1
	port=$2
	shift 2
	PT_SRV_LOG=$AXON_OUT/$name.server.log
	PT_CLI_LOG=$AXON_OUT/$name.client.log
	PT_SRV_RC=0
	PT_CLI_RC=0
	if [ "$AXON_NODES" = 1 ]; then
		# With two vCPUs, one each: no migration between vCPUs, whose
		# TSCs (perftest's clock) need not agree under TCG.
		pin0=''
		pin1=''
		if [ "$(nproc)" -ge 2 ]; then
			pin0="taskset -c 0" pin1="taskset -c 1"
		fi
		# shellcheck disable=SC2086 # a word list
		timeout "$PT_TIMEOUT" $pin0 "$@" -p "$port" </dev/null >"$PT_SRV_LOG" 2>&1 &
		spid=$!
		wait_for 60 listening "$port"
		PT_CLIENT_WRAP="$pin1 ${PT_CLIENT_WRAP:-}" \
			pt_client "$PT_CLI_LOG" 127.0.0.1 "$@" -p "$port" || PT_CLI_RC=$?
		wait $spid || PT_SRV_RC=$?
	elif [ "$AXON_NODE" = 0 ]; then
		timeout "$PT_TIMEOUT" "$@" -p "$port" </dev/null >"$PT_SRV_LOG" 2>&1 ||
			PT_SRV_RC=$?
	else
		pt_client "$PT_CLI_LOG" "${AXON_PEERS%% *}" "$@" -p "$port" ||
			PT_CLI_RC=$?
	fi
}

# pt_row LOG SIZE: the numbers of perftest's result row for SIZE
pt_row() {
	awk -v s="$2" '$1 == s && $2 ~ /^[0-9]+$/ && $3 ~ /^[0-9.]+$/ { print; exit }' "$1"
}

# pt_clock_failed LOG: perftest could not calibrate its clock (its linear
# fit of TSC against gettimeofday is too noisy on a loaded TCG host): it
# still runs, but reports zeros or "inf"
pt_clock_failed() {
	grep -q "Correlation coefficient" "$1"
}
