#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every node: the axon netdev is up with its address; ping every peer over
# IPv4 and IPv6; the multicast filter lets in the groups the node joined;
# ethtool reports the driver, rings and counters.
set -u
. "$(dirname "$0")/lib.sh"

# the peers other than this node: two pings each, and with p2p an
# 8000-byte one and the MTU change
others=$(($(echo $AXON_PEERS | wc -w) - 1))
jumbo=0
[ "$AXON_FABRIC" = p2p ] && jumbo=$((1 + others))
# the multicast filter: 2 checks, and with peers one more and one a peer
mcast=$((2 + (others > 0 ? 1 + others : 0)))
plan $((6 + 2 * others + jumbo + mcast))

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

# The multicast filter (AXON_CAP_MCAST) passes what the stack joined: a
# ping to all nodes (ff02::1) reaches every peer, and a peer's link-local
# address answers after neighbour discovery, whose solicitations go to
# the peer's solicited-node group.
check "ethtool -S shows dev_rx_mc_filtered" \
	sh -c "ethtool -S $dev | grep -q 'dev_rx_mc_filtered: [0-9]'"
check "ip maddr add 01:00:5e:7f:00:01" sh -c \
	"ip maddr add 01:00:5e:7f:00:01 dev $dev &&
	 ip maddr show dev $dev | grep -q 01:00:5e:7f:00:01"
if [ "$others" -gt 0 ]; then
	own=$(ip -6 -o addr show dev "$dev" scope link |
	      awk '{ sub("/.*", "", $4); print $4 }')
	# the echo replies to ff02::1 come from each node's link-local address
	ll=$(ping -6 -n -i 0.5 -w 4 "ff02::1%$dev" 2>/dev/null |
	     sed -n 's/.* from \(fe80:[0-9a-f:]*\)%.*/\1/p' | sort -u |
	     grep -vx "$own")
	check "every peer answers a ping to ff02::1 ($ll)" \
		[ "$(echo "$ll" | grep -c .)" -eq "$others" ]
	set -- $ll
	i=1
	while [ "$i" -le "$others" ]; do
		check "ping -6 link-local ${1:-of peer $i (none answered)}" \
			ping -6 -q -c 3 -W 10 "${1:-fe80::}%$dev"
		[ $# -gt 0 ] && shift
		i=$((i + 1))
	done
fi
quietly ip maddr del 01:00:5e:7f:00:01 dev "$dev"

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
