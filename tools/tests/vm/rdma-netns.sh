#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The RDMA core's device management honoured for axon0: rdma dev set
# name (verbs open the device by its new name), and rdma system netns
# exclusive: axon0 and its interface moved into a network namespace, where
# alone they are seen and a RoCE v2 ibv_rc_pingpong runs; then both moved
# back and the mode restored.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/rdma-lib.sh"

plan 8
ns=axonns
ip=198.18.0.1

# loopback pingpong in namespace $1 (or here) over the RoCE v2 GID of $ip
pingpong() {
	run=${1:+ip netns exec $1}
	$run sh -c "ip link set $nd up && ip addr replace $ip/24 dev $nd" || return 1
	g=
	for i in $(seq 100); do
		g=$($run sh -c ". $AXON_REPO/tools/tests/vm/perftest-lib.sh; gid_index axon0 $ip") && break
		sleep 0.1
	done
	[ -n "$g" ] || return 1
	$run timeout 60 ibv_rc_pingpong -d axon0 -g "$g" -n 20 -p 18970 \
		>/tmp/ns-srv.log 2>&1 &
	s=$!
	sleep 1
	$run timeout 60 ibv_rc_pingpong -d axon0 -g "$g" -n 20 -p 18970 \
		127.0.0.1 >/tmp/ns-cli.log 2>&1
	c=$?
	wait $s && [ $c = 0 ]
}

nd=$(axon_netdev)
rdma dev set axon0 name axren0
check "rdma dev set axon0 name axren0: ibv_devices and ibv_devinfo use it" \
	sh -c "ibv_devices | grep -q axren0 && ibv_devinfo -d axren0 | grep -q 'hca_id:.axren0'"
rdma dev set axren0 name axon0
check "... and the name back" sh -c "ibv_devinfo -d axon0 | grep -q PORT_"

check "rdma system set netns exclusive" rdma system set netns exclusive
ip netns add $ns
ip -n $ns link set lo up
ip netns attach axoninit 1
rdma dev set axon0 netns $ns && ip link set "$nd" netns $ns
check "axon0 and $nd moved: gone here, seen in $ns" \
	sh -c "! rdma dev | grep -q axon0 && ip netns exec $ns rdma dev | grep -q axon0 &&
	       ip netns exec $ns ibv_devices | grep -q axon0"
check "a RoCE v2 ibv_rc_pingpong inside $ns" pingpong $ns
ip netns exec $ns rdma dev set axon0 netns axoninit &&
	ip netns exec $ns ip link set "$nd" netns axoninit
check "both moved back" sh -c "rdma dev | grep -q axon0 && ip link show $nd >/dev/null"
# the mode changes only while no other namespace exists
ip netns del $ns
ip netns del axoninit
rdma system set netns shared
shared_again() { rdma system | grep -q 'netns shared' && pingpong; }
check "the shared mode again, the pingpong here" shared_again
check "no kernel warnings" kernel_quiet
finish
