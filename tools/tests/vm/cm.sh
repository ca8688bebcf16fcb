#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The RDMA CM on axon0: rdmacm-utils' programs and perftest's -R, which
# connect through rdma_cm, ib_cm and the MADs of QP1 (the GSI QP), each
# checking its own data: rping (every ping validated), ucmatose and
# udaddy (RC and UD ids), rdma_server/rdma_client, ib_write_bw -R and
# ib_send_lat -R. Then cmtime connects and disconnects CM_CYCLES ids at
# once, axon-cm-cycles makes CM_CYCLES connections one after the other,
# and the rdma tool's counts are back at their baseline. One node
# runs server and client side by side, two nodes serve from node 0.
# --nic-model virtio runs the same on rdma_rxe (the reference).
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/rdma-lib.sh"
. "$AXON_REPO/tools/tests/vm/cm-lib.sh"

CM_CYCLES=${CM_CYCLES:-500}

pt_require_ucm
plan 10
side=$PT_SIDE
srv_ip=$AXON_IP
[ "$AXON_NODES" = 1 ] || srv_ip=${AXON_PEERS%% *}
[ "$AXON_NODE" = 0 ] && srv_ip=$AXON_IP

baseline=$(res_counts)

# -V validates every ping's data; -v prints each one, counted below (its
# messages on stderr may break a line)
n=1000
cm_run rping 18800 "rping -s -a @SRV@ -p 18800 -V -v -C $n" \
	rping -c -a @SRV@ -p 18800 -V -v -C $n
ok=0
pt_sides_ok rping && ok=1
[ "$side" = server ] ||
	[ "$(grep -o 'rdma-ping-[0-9]*:' "$PT_CLI_LOG" | sort -u | wc -l)" = $n ] ||
	ok=0
check "rping -V -C $n over rdma_cm ($side)" [ $ok = 1 ]

# 4 RC ids at once, 50 messages each way on each
cm_run ucmatose 18801 "ucmatose -b @SRV@ -p 18801 -c 4 -C 50" \
	ucmatose -s @SRV@ -p 18801 -c 4 -C 50
ok=0
pt_sides_ok ucmatose "^return status 0" && ok=1
check "ucmatose, 4 RC connections ($side)" [ $ok = 1 ]

# UD ids: the address and Q_Key come by SIDR over QP1 (udaddy's port is
# its own, 7174)
cm_run udaddy 7174 "udaddy -b @SRV@ -c 4 -C 50" \
	udaddy -s @SRV@ -c 4 -C 50
ok=0
pt_sides_ok udaddy "^return status 0" && ok=1
check "udaddy, 4 UD ids ($side)" [ $ok = 1 ]

cm_run rdma_cs 18803 "rdma_server -s @SRV@ -p 18803" \
	rdma_client -s @SRV@ -p 18803
ok=0
pt_sides_ok "rdma_server/rdma_client" "end 0" && ok=1
check "rdma_server and rdma_client ($side)" [ $ok = 1 ]

cm_run write_bw_cm 18804 "ib_write_bw -R -d $RDMA_DEV -F -n 200 -p 18804" \
	ib_write_bw -R -d "$RDMA_DEV" -F -n 200 -p 18804 @SRV@
ok=0
pt_sides_ok "ib_write_bw -R" "^ *65536 " && ok=1
check "ib_write_bw -R 64 KiB ($side)" [ $ok = 1 ]

cm_run send_lat_cm 18805 "ib_send_lat -R -d $RDMA_DEV -F -n 200 -p 18805" \
	ib_send_lat -R -d "$RDMA_DEV" -F -n 200 -p 18805 @SRV@
ok=0
pt_sides_ok "ib_send_lat -R" "^ *2 " && ok=1
check "ib_send_lat -R 2 B ($side)" [ $ok = 1 ]

# cmtime's server serves forever: stopped once its client is done
cm_times() {
	if [ "$AXON_NODES" = 1 ]; then
		cmtime -b "$srv_ip" -p 18806 -c "$CM_CYCLES" \
			>"$AXON_OUT/cmtime.server.log" 2>&1 &
		spid=$!
		wait_for 60 cm_listening 18806
		timeout "$PT_TIMEOUT" cmtime -s "$srv_ip" -p 18806 -c "$CM_CYCLES" \
			>"$AXON_OUT/cmtime.client.log" 2>&1
		rc=$?
		kill $spid 2>/dev/null
		wait $spid 2>/dev/null
		[ $rc = 0 ] && grep -q "^disconnect" "$AXON_OUT/cmtime.client.log"
		return
	fi
	if [ "$AXON_NODE" = 0 ]; then
		# the client signals its end by connecting to a TCP port
		cmtime -b "$srv_ip" -p 18806 -c "$CM_CYCLES" \
			>"$AXON_OUT/cmtime.server.log" 2>&1 &
		spid=$!
		peer_wait 18807 "$PT_TIMEOUT"
		rc=$?
		kill $spid 2>/dev/null
		wait $spid 2>/dev/null
		return $rc
	fi
	tries=0
	while :; do
		timeout "$PT_TIMEOUT" cmtime -s "$srv_ip" -p 18806 \
			-c "$CM_CYCLES" >"$AXON_OUT/cmtime.client.log" 2>&1 &&
			rc=0 || rc=$?
		[ $rc != 0 ] && cm_not_yet "$AXON_OUT/cmtime.client.log" &&
			[ $tries -lt 100 ] || break
		tries=$((tries + 1))
		sleep 0.5
	done
	peer_tell "$srv_ip" 18807
	[ $rc = 0 ] && grep -q "^disconnect" "$AXON_OUT/cmtime.client.log"
}
check "cmtime: $CM_CYCLES ids connected and disconnected ($side)" cm_times
sed 's/^/# cmtime: /' "$AXON_OUT/cmtime.client.log" 2>/dev/null | tail -n 8

# CM_CYCLES connections in turn, each used and torn down before the next
check "$CM_CYCLES rdma_cm connections in turn, each used ($side)" \
	cm_cycles cm_cycles 18808 "$CM_CYCLES"

# what the programs created is gone: the counts of the start (the
# kernel's QP1 and its PD and CQ among them)
check "rdma res counts back at their baseline" res_back "$baseline"
check "no kernel warning" kernel_quiet
finish
