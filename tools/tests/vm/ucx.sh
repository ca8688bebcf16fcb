#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# UCX (Debian's 1.13) over axon0 across two VMs, with UCX's own transport
# selection (no UCX_TLS): ucx_info lists axon0 under rc_verbs and
# ud_verbs; io_demo moves data with its integrity check (-q) through the
# tag and the active-message APIs, connecting through rdma_cm; then
# ucx_perftest's put, get, tag and active-message bandwidths at 64 KiB and
# tag latency at 8 B run to their end (their numbers are printed, not
# checked). Each test checks that the traffic went through axon0: its
# packet counters moved. Node 0 serves, node 1 is the client.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/rdma-lib.sh"

pt_require_two_nodes
pt_require_ucm
plan 9
# rxe (the reference, --nic-model virtio) reports a datagram's SL as 0,
# where UCX 1.13 reads its IP version; axon reports it as mlx5 does
[ "$RDMA_DEV" = rxe0 ] && export UCX_UD_ETH_DGID_CHECK=n
side=$PT_SIDE
peer=${AXON_PEERS%% *}

# ucx_run NAME PORT MIN_PKTS once|forever "SERVER COMMAND" CLIENT COMMAND...:
# node 0 runs the server, node 1 the client (retrying while the server
# does not listen); fails unless both exit 0 and at least MIN_PKTS packets
# went through axon0 here. A server that serves "forever" (io_demo) is stopped once
# the client tells it is done.
ucx_run() {
	name=$1
	port=$2
	min=$3
	serves=$4
	sargs=$5
	shift 5
	log=$AXON_OUT/$name.$side.log
	before=$(pt_pkts)
	if [ "$AXON_NODE" = 0 ] && [ "$serves" = forever ]; then
		# shellcheck disable=SC2086 # a word list
		$sargs -p "$port" </dev/null >"$log" 2>&1 &
		spid=$!
		peer_wait $((port + 100)) "$PT_TIMEOUT"
		rc=$?
		kill $spid 2>/dev/null
		wait $spid 2>/dev/null
	elif [ "$AXON_NODE" = 0 ]; then
		# shellcheck disable=SC2086 # a word list
		timeout "$PT_TIMEOUT" $sargs -p "$port" </dev/null >"$log" 2>&1
		rc=$?
	else
		tries=0
		while :; do
			timeout "$PT_TIMEOUT" "$@" -p "$port" "$peer" </dev/null \
				>"$log" 2>&1 && rc=0 || rc=$?
			[ $rc != 0 ] && [ $tries -lt 100 ] &&
				grep -qiE "refused|connect\(\) failed|failed to connect" "$log" ||
				break
			tries=$((tries + 1))
			sleep 0.5
		done
		[ "$serves" = once ] || peer_tell "$peer" $((port + 100))
	fi
	moved=$(($(pt_pkts) - before))
	echo "# $name: exit $rc, $moved packets through $RDMA_DEV"
	if [ $rc != 0 ] || [ $moved -lt "$min" ]; then
		tail -n 15 "$log" | sed 's/^/#   | /'
		return 1
	fi
}

ucx_info -d >"$AXON_OUT/ucx_info.log" 2>&1
for tl in rc_verbs ud_verbs; do
	check "ucx_info -d lists $RDMA_DEV:1 for $tl" \
		awk -v tl="$tl" -v dev="$RDMA_DEV:1" '
		$2 == "Transport:" { t = $3 }
		$2 == "Device:" && t == tl && $3 == dev { found = 1 }
		END { exit !found }' "$AXON_OUT/ucx_info.log"
done

# io_demo -q: every read and write checked, 1 KiB to 64 KiB
check "io_demo -q, tag API, read and write ($side)" \
	ucx_run io_demo_tag 13380 100 forever "io_demo -q -o read,write -d 1024:65536 -i 200" \
	io_demo -q -o read,write -d 1024:65536 -i 200
check "io_demo -q -A, active messages, read and write ($side)" \
	ucx_run io_demo_am 13381 100 forever "io_demo -q -A -o read,write -d 1024:65536 -i 200" \
	io_demo -q -A -o read,write -d 1024:65536 -i 200

n=0
for t in "ucp_put_bw 65536" "ucp_get 65536" "tag_bw 65536" "ucp_am_bw 65536" \
	"tag_lat 8"; do
	set -- $t
	n=$((n + 1))
	# 200 iterations of 64 KiB are over 3000 packets; tag_lat's 200 pings
	min=$([ "$2" = 8 ] && echo 100 || echo 1000)
	check "ucx_perftest -t $1 -s $2 ($side)" \
		ucx_run "perftest_$1" $((13390 + n)) "$min" once ucx_perftest \
		ucx_perftest -t "$1" -s "$2" -n 200
	[ "$side" = client ] &&
		grep -E "^(Final:| *\| *Final)" "$AXON_OUT/perftest_$1.$side.log" | sed "s/^/# $1: /"
done
finish
