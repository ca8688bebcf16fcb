#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Two nodes, run with --host-cmd tools/tests/eth-link-host: node 0's wire
# goes down and up (QMP set_link on its backend). The device reports it,
# the netdev carrier and the RoCE port follow, and ibv_asyncwatch sees the
# port events. Node 1 just stays up.
set -u
. "$(dirname "$0")/lib.sh"

set -- $AXON_PEERS
if [ "$AXON_NODE" != 0 ]; then
	# stay up until node 0 has pinged us over the restored link
	plan 1
	check "node 0's link came back" wait_for 180 test -e "$AXON_OUT/link-up"
	sleep 15
	finish
	exit
fi

plan 11
dev=$AXON_NETDEV
watch=/tmp/asyncwatch.log
ibv_asyncwatch -d axon0 > $watch 2>&1 &
watcher=$!
sleep 1
carrier() { [ "$(cat /sys/class/net/$dev/carrier)" = "$1" ]; }
port() { ibv_devinfo -d axon0 | grep -q "state:[[:space:]]*$1"; }

touch "$AXON_OUT/ready-for-link"
check "the host took the wire down" wait_for 120 test -e "$AXON_OUT/link-down"
check "carrier lost" wait_for 10 carrier 0
check "port DOWN" wait_for 10 port PORT_DOWN
check "physical state DISABLED" sh -c 'ibv_devinfo -v -d axon0 | grep -q "phys_state:[[:space:]]*DISABLED"'
check "ibv_asyncwatch sees PORT_ERR" wait_for 10 grep -q PORT_ERR $watch
check "no traffic without a wire" sh -c "! ping -q -c 1 -W 2 $2"
touch "$AXON_OUT/checked-down"
check "the host brought the wire back" wait_for 120 test -e "$AXON_OUT/link-up"
check "carrier back" wait_for 10 carrier 1
check "port ACTIVE" wait_for 10 port PORT_ACTIVE
check "ibv_asyncwatch sees PORT_ACTIVE" wait_for 10 grep -q PORT_ACTIVE $watch
check "ping the peer again" ping -q -c 3 -W 10 "$2"
kill $watcher 2>/dev/null
cat $watch
finish
