#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every node: the axon netdev is up with its address; ping every peer over
# IPv4 and IPv6; ethtool reports the driver, rings and counters.
set -u
. "$(dirname "$0")/lib.sh"

# the peers other than this node: two pings each, and with p2p an
# 8000-byte one and the MTU change
others=$(($(echo $AXON_PEERS | wc -w) - 1))
jumbo=0
[ "$AXON_FABRIC" = p2p ] && jumbo=$((1 + others))
plan $((6 + 2 * others + jumbo))

dev=$AXON_NETDEV
check "netdev $dev is driven by axon" sh -c "ethtool -i $dev | grep -q '^driver: axon'"
check "ethtool -g shows the rings" sh -c "ethtool -g $dev | grep -q 'RX:'"
check "link detected" sh -c "ethtool $dev | grep -q 'Link detected: yes'"
n=0
for peer in $AXON_PEERS; do
	[ "$peer" = "$AXON_IP" ] && { n=$((n + 1)); continue; }
	check "ping $peer" ping -q -c 3 -W 10 "$peer"
	set -- $AXON_PEERS6
	shift $n
	check "ping -6 $1" ping -6 -q -c 3 -W 10 "$1"
	n=$((n + 1))
done

# jumbo frames: the rings are rebuilt for the new MTU while running (the
# harness's bridge has a 1500-byte MTU, so only over the p2p link)
if [ "$AXON_FABRIC" = p2p ]; then
	check "MTU 9000 on a running interface" ip link set "$dev" mtu 9000
	for peer in $AXON_PEERS; do
		[ "$peer" = "$AXON_IP" ] && continue
		# the peer may still be switching its own MTU
		check "8000-byte ping to $peer, no fragmentation" \
			wait_for 60 ping -q -c 1 -W 2 -s 8000 -M do "$peer"
	done
fi

# the driver's counters agree with the stack's
check "ethtool -S rx_packets agrees with sysfs" agrees rx_packets
check "ethtool -S tx_bytes agrees with sysfs" agrees tx_bytes
check "no RX errors" [ "$(stat rx_errors)" = 0 ]
# stay reachable while slower peers finish their pings
[ "$AXON_NODES" -gt 1 ] && sleep 20
finish
