# SPDX-License-Identifier: GPL-2.0
# Helpers for the RDMA CM suites (sourced after lib.sh and perftest-lib.sh):
# one test's server and client through rdma_cm, on one node side by side
# or served from node 0. The caller sets srv_ip, the server's address.
# shellcheck shell=sh disable=SC2154 # srv_ip is the caller's

# the listening rdma_cm ids of this node on port $1
cm_listening() {
	rdma res show cm_id | grep -qE "state LISTEN .*src-addr [0-9.]+:$1( |\$)"
}

# The client found no listener yet (two nodes: node 0 may be late).
cm_not_yet() {
	grep -qE "REJECTED|UNREACHABLE|[Rr]efused|Couldn't connect|rdma_client function" "$1"
}

# cm_run NAME PORT "SERVER COMMAND" CLIENT COMMAND...: one test; "@SRV@"
# in either command is the server's address. A single node waits for the
# server's listener on PORT; two nodes retry the client while it finds
# none, for as long as a server may run (PT_TIMEOUT). Sets what pt_sides_ok reads.
# shellcheck disable=SC2034 # PT_* are read by pt_sides_ok
cm_run() {
	name=$1
	port=$2
	scmd=$(echo "$3" | sed "s/@SRV@/$srv_ip/g")
	shift 3
	ccmd=$(echo "$*" | sed "s/@SRV@/$srv_ip/g")
	PT_SRV_LOG=$AXON_OUT/$name.server.log
	PT_CLI_LOG=$AXON_OUT/$name.client.log
	PT_SRV_RC=0
	PT_CLI_RC=0
	if [ "$AXON_NODES" = 1 ]; then
		# shellcheck disable=SC2086 # a word list
		timeout "$PT_TIMEOUT" $scmd </dev/null >"$PT_SRV_LOG" 2>&1 &
		spid=$!
		wait_for 60 cm_listening "$port"
		# shellcheck disable=SC2086 # a word list
		timeout "$PT_TIMEOUT" $ccmd </dev/null >"$PT_CLI_LOG" 2>&1 ||
			PT_CLI_RC=$?
		wait $spid || PT_SRV_RC=$?
	elif [ "$AXON_NODE" = 0 ]; then
		# line-buffered: a server killed by the timeout shows how far
		# it got
		# shellcheck disable=SC2086 # a word list
		timeout "$PT_TIMEOUT" stdbuf -oL $scmd </dev/null >"$PT_SRV_LOG" 2>&1 ||
			PT_SRV_RC=$?
	else
		# node 0 may still be closing the previous test's server: as
		# long as that server may live
		t_end=$(($(date +%s) + PT_TIMEOUT))
		# shellcheck disable=SC2086 # a word list
		until timeout "$PT_TIMEOUT" $ccmd </dev/null >"$PT_CLI_LOG" 2>&1; do
			PT_CLI_RC=$?
			cm_not_yet "$PT_CLI_LOG" && [ "$(date +%s)" -lt $t_end ] ||
				return 0
			sleep 0.5
		done
		PT_CLI_RC=0
	fi
}

# cm_cycles NAME PORT COUNT: axon-cm-cycles' COUNT connections one after
# the other, each used, on PORT (its sides placed as cm_run places them);
# fails unless both sides passed
cm_cycles() {
	cycles=$AXON_REPO/tools/tests/axon-cm-cycles
	cm_run "$1" "$2" "$cycles -s @SRV@ -p $2 -n $3" \
		"$cycles" -c @SRV@ -p "$2" -n "$3"
	grep -h "cycles in" "$AXON_OUT/$1".*.log | sed "s/^# /# $1: /"
	pt_sides_ok axon-cm-cycles "^ok 1 "
}
