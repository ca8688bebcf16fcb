#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Two nodes: node 0 sends 100 MiB over TCP to node 1, which checks every
# byte against the same deterministic stream; then the counters agree.
set -u
. "$(dirname "$0")/lib.sh"

mib=${AXON_TCP_MIB:-100}
set -- $AXON_PEERS
if [ "$AXON_NODE" = 0 ]; then
	role="send $2"
else
	role="recv $AXON_IP"
fi
plan 4
out=$(/usr/bin/python3 "$(dirname "$0")/tcp-stream.py" $role "$mib" 2>&1)
diag "$out"
check "TCP transfer of $mib MiB verified ($AXON_NODE)" sh -c "echo '$out' | grep -q '^ok '"

bytes=$((mib * 1024 * 1024))
if [ "$AXON_NODE" = 0 ]; then
	check "sender tx_bytes covers the payload" [ "$(stat tx_bytes)" -gt $bytes ]
else
	check "receiver rx_bytes covers the payload" [ "$(stat rx_bytes)" -gt $bytes ]
fi
check "ethtool -S rx_bytes agrees with sysfs" agrees rx_bytes
check "ethtool -S tx_packets agrees with sysfs" agrees tx_packets
finish
