# SPDX-License-Identifier: GPL-2.0
# Faults under load (sourced after lib.sh and perftest-lib.sh): traffic
# on axon0 in one VM that never ends by itself, a process that only holds
# verbs objects, and the checks that every one of them ends with an error
# once the device is gone or failed, instead of spinning on a CQ that
# will never complete anything (Documentation/testing.rst).
# shellcheck shell=sh

# A hang guard per program, not a time limit: far beyond what the checks
# wait, so that a program that hangs is seen hanging (status 124).
FL_GUARD=${FL_GUARD:-400}
# More iterations than a run can ever finish.
FL_ITERS=100000000

# fl_pair NAME PORT PROGRAM ARGS...: a perftest server and its client on
# axon0 over 127.0.0.1, in the background; $AXON_OUT/NAME.{server,client}.log
fl_pair() {
	name=$1
	port=$2
	shift 2
	timeout "$FL_GUARD" "$@" -d axon0 -x "$GID_IDX" -n "$FL_ITERS" \
		-p "$port" </dev/null >"$AXON_OUT/$name.server.log" 2>&1 &
	eval "fl_${name}_srv=\$!"
	wait_for 60 listening "$port"
	timeout "$FL_GUARD" "$@" -d axon0 -x "$GID_IDX" -n "$FL_ITERS" \
		-p "$port" 127.0.0.1 </dev/null >"$AXON_OUT/$name.client.log" 2>&1 &
	eval "fl_${name}_cli=\$!"
}

fl_counter() {
	cat /sys/class/infiniband/axon0/ports/1/hw_counters/"$1"
}

# fl_flowing: the device is sending packets (two reads a second apart)
fl_flowing() {
	a=$(fl_counter tx_pkts)
	sleep 1
	b=$(fl_counter tx_pkts)
	[ "$b" -gt $((a + 10)) ]
}

# fl_start: RDMA WRITE traffic (ib_write_bw) and SEND traffic
# (ib_send_bw: its server polls a receive CQ), a process holding a PD, an
# MR, a CQ and a QP (ibv_rc_pingpong's server before a client connects)
# and ibv_asyncwatch on axon0. Three results.
fl_start() {
	stdbuf -oL ibv_asyncwatch -d axon0 >"$AXON_OUT/asyncwatch.log" 2>&1 &
	fl_watch=$!
	check "ibv_asyncwatch has axon0 open" \
		wait_for 30 grep -q "async event FD" "$AXON_OUT/asyncwatch.log"
	stdbuf -oL ibv_rc_pingpong -d axon0 -g "$GID_IDX" -p 18700 \
		>"$AXON_OUT/holder.log" 2>&1 &
	fl_holder=$!
	check "a process holds a PD, MR, CQ and QP on axon0" \
		wait_for 60 grep -q "local address" "$AXON_OUT/holder.log"
	fl_pair write 18701 ib_write_bw -s 4096
	fl_pair send 18702 ib_send_bw -s 4096
	check "ib_write_bw and ib_send_bw traffic runs" wait_for 120 fl_flowing
}

gone() { ! kill -0 "$1" 2>/dev/null; }

# fl_failed_itself STATUS: a program's own error (exit(-1) is 255), not
# success, not the hang guard's 124, not a signal (129 .. 192)
fl_failed_itself() {
	[ "$1" -ne 0 ] && [ "$1" -ne 124 ] && { [ "$1" -lt 129 ] || [ "$1" -gt 192 ]; }
}

# fl_ended PID NAME: PID exits (a hang guard of 120 s, then its status
# must be an error of its own, not the guard's 124): two results
fl_ended() {
	if wait_for 120 gone "$1"; then
		ok "$2 ends"
	else
		not_ok "$2 ends" "still running: $(tail -n 3 "$3" 2>/dev/null)"
	fi
	wait "$1"
	rc=$?
	diag "$2: exit status $rc"
	check "... with an error" fl_failed_itself "$rc"
}

# fl_kill_peer PID NAME LOG: tell the host (tools/tests/peer-kill-host)
# to kill node 1, then PID, which talks to it, must end with its own
# error: three results
fl_kill_peer() {
	touch "$AXON_OUT/ready-for-kill"
	check "the host killed node 1" wait_for 120 test -e "$AXON_OUT/peer-killed"
	fl_ended "$@"
}

# fl_all_ended: every traffic program ended with an error, the holder
# is unharmed and exits when told: eight results
fl_all_ended() {
	fl_ended "$fl_write_cli" "ib_write_bw client" "$AXON_OUT/write.client.log"
	fl_ended "$fl_send_cli" "ib_send_bw client" "$AXON_OUT/send.client.log"
	fl_ended "$fl_send_srv" "ib_send_bw server" "$AXON_OUT/send.server.log"
	# ib_write_bw's server only waits for its client over TCP: its
	# status says how the client went
	wait_for 120 gone "$fl_write_srv"
	check "ib_write_bw server ends" gone "$fl_write_srv"
	wait "$fl_write_srv" 2>/dev/null
	check "the holding process is unharmed" kill -0 "$fl_holder"
	kill "$fl_holder" 2>/dev/null
	wait "$fl_holder" 2>/dev/null
	kill "$fl_watch" 2>/dev/null
	wait "$fl_watch" 2>/dev/null
}

fl_fatal_seen() {
	grep -q DEVICE_FATAL "$AXON_OUT/asyncwatch.log"
}

no_axon_listed() {
	! ibv_devices | grep -qw axon0 && ! rdma link show | grep -q "axon0/"
}

# fl_works: axon0 is back, its port active, and RDMA moves data: three
# results
fl_works() {
	check "axon0 registered and up" axon_up
	# a new netdev: the address the harness gave the old one
	ip addr add "$AXON_IP/24" dev "$(axon_netdev)" 2>/dev/null
	check "axon0 port active" wait_for 30 port_active axon0
	GID_IDX=
	wait_for 30 gid_index axon0 "$AXON_IP" >/dev/null &&
		GID_IDX=$(gid_index axon0 "$AXON_IP")
	PT_TIMEOUT=180 pt_run after 18710 ib_write_bw -d axon0 -x "${GID_IDX:-0}" -s 4096 -n 200
	check "ib_write_bw loopback runs to the end" \
		[ "$PT_SRV_RC" = 0 ] && [ "$PT_CLI_RC" = 0 ]
}
