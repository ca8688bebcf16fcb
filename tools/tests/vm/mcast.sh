#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# UD multicast across nodes, through the RDMA CM: rdmacm-utils' mckey.
# Every node but node 0 joins the group with two ids (two UD QPs of the
# node attached to it) and waits for each id's datagrams; the join also
# puts the group's MAC on the axon netdev (IGMP), so the Ethernet
# function's filter lets the group's frames in. Node 0 joins and sends
# once every receiver has joined (a TCP barrier: datagrams are not
# retried), and every receiving QP must get them all. --nic-model virtio
# runs the same on rdma_rxe (the reference).
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"

pt_require_ucm
# the sender: the barrier, mckey; a receiver: the join, its MAC, mckey;
# then every node the last barrier
if [ "$AXON_NODE" = 0 ]; then plan 3; else plan 4; fi
group=239.7.0.1
group_mac=01:00:5e:07:00:01
n=50
log=$AXON_OUT/mckey.log
ready_port=18950

if [ "$AXON_NODE" = 0 ]; then
	joined=1
	while [ $joined -lt "$AXON_NODES" ] && peer_wait $ready_port 180; do
		joined=$((joined + 1))
	done
	check "all $((AXON_NODES - 1)) receivers joined $group" \
		[ $joined = "$AXON_NODES" ]
	timeout 120 mckey -m $group -b "$AXON_IP" -s -C $n >"$log" 2>&1
	rc=$?
	sed 's/^/# /' "$log"
	check "mckey sent $n datagrams to $group (status $rc)" \
		sh -c "[ $rc = 0 ] && grep -q '^return status 0' '$log'"
else
	stdbuf -oL timeout 180 mckey -m $group -b "$AXON_IP" -c 2 -C $n \
		>"$log" 2>&1 &
	pid=$!
	wait_for 60 grep -q "receiving data transfers" "$log"
	check "mckey joined $group with 2 ids" [ $? = 0 ]
	ip maddr show dev "$AXON_NETDEV" | sed 's/^/# /'
	check "the join put $group_mac on $AXON_NETDEV" \
		sh -c "ip maddr show dev '$AXON_NETDEV' | grep -q '$group_mac'"
	peer_tell "${AXON_PEERS%% *}" $ready_port
	wait $pid
	rc=$?
	sed 's/^/# /' "$log"
	check "mckey got $n datagrams on each of 2 QPs (status $rc)" \
		sh -c "[ $rc = 0 ] && grep -q 'data transfers complete' '$log' &&
		       grep -q '^return status 0' '$log'"
fi
all_done $((ready_port + 1)) 300
check "every node finished" [ $? = 0 ]
