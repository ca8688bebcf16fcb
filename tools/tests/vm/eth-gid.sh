#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# RoCE addressing: the port's GIDs follow the netdev's addresses, and its
# state follows the netdev (ibv_asyncwatch sees the port events).
set -u
. "$(dirname "$0")/lib.sh"

dev=$AXON_NETDEV
port=/sys/class/infiniband/axon0/ports/1
ipv4_gid() {
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' $(echo "$1" | tr . ' ')
}
gid4=$(ipv4_gid "$AXON_IP")
# has_gid GID TYPE: the GID is in the table with that type
has_gid() {
	for g in "$port"/gids/*; do
		i=${g##*/}
		if [ "$(cat "$g")" = "$1" ] &&
		   [ "$(cat "$port/gid_attrs/types/$i" 2>/dev/null)" = "$2" ]; then
			return 0
		fi
	done
	return 1
}
no_gid() { ! has_gid "$1" "$2"; }

plan 13
check "IPv4 RoCE v2 GID $gid4" wait_for 10 has_gid "$gid4" "RoCE v2"
# the port carries RoCE v2 only: a v1 GID would be one that cannot work
check "no RoCE v1 GID listed" sh -c "! grep -qx 'IB/RoCE v1' $port/gid_attrs/types/*"
check "link-local default GID" sh -c "grep -q '^fe80:' $port/gids/0"
check "IPv6 GID of $AXON_IP6" sh -c "grep -q '^fd00:00a0:' $port/gids/*"
check "gid netdev attribute" sh -c "grep -qx $dev $port/gid_attrs/ndevs/0"
check "ibv_devinfo -v lists the IPv4 GID" sh -c "ibv_devinfo -v -d axon0 | grep -q '::ffff:$AXON_IP, RoCE v2'"
check "rdma link names the netdev" sh -c "rdma link show axon0/1 | grep -q 'netdev $dev'"

ip addr del "$AXON_IP/24" dev "$dev"
check "address removed: GID gone" wait_for 10 no_gid "$gid4" "RoCE v2"
ip addr add "$AXON_IP/24" dev "$dev"
check "address back: GID back" wait_for 10 has_gid "$gid4" "RoCE v2"

watch=/tmp/asyncwatch.log
ibv_asyncwatch -d axon0 > $watch 2>&1 &
watcher=$!
sleep 1
ip link set "$dev" down
check "netdev down: port DOWN" wait_for 10 sh -c "ibv_devinfo -d axon0 | grep -q PORT_DOWN"
check "ibv_asyncwatch sees PORT_ERR" wait_for 10 grep -q PORT_ERR $watch
ip link set "$dev" up
check "netdev up: port ACTIVE" wait_for 10 sh -c "ibv_devinfo -d axon0 | grep -q PORT_ACTIVE"
check "ibv_asyncwatch sees PORT_ACTIVE" wait_for 10 grep -q PORT_ACTIVE $watch
kill $watcher 2>/dev/null
cat $watch
# the address configuration is restored for whatever runs next
ip addr add "$AXON_IP6/64" dev "$dev" nodad 2>/dev/null
finish
