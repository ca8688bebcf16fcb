#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Two nodes (p2p fabric), run with --host-cmd tools/tests/eth-inject-host:
# the host injects malformed frames into node 0's wire; node 0's device
# drops and counts exactly the bad ones, and both nodes still talk.
set -u
. "$(dirname "$0")/lib.sh"

runt0=$(stat dev_rx_runt)
over0=$(stat dev_rx_oversize)
roce0=$(stat dev_rx_rocev2)
if [ "$AXON_NODE" = 0 ]; then plan 6; else plan 2; fi
touch "$AXON_OUT/ready-for-frames"
check "the host injected the frames" wait_for 180 test -s "$AXON_OUT/injected"
expect=$(cat "$AXON_OUT/injected")
diag "host: $expect"
field() { echo "$expect" | sed -n "s/.*$1=\([0-9]*\).*/\1/p"; }

if [ "$AXON_NODE" = 0 ]; then
	check "runts dropped and counted ($(field rx_runt))" \
		[ $(($(stat dev_rx_runt) - runt0)) -eq "$(field rx_runt)" ]
	check "oversize frames dropped and counted ($(field rx_oversize))" \
		[ $(($(stat dev_rx_oversize) - over0)) -eq "$(field rx_oversize)" ]
	check "RoCEv2 frames steered away from the netdev ($(field rx_roce))" \
		[ $(($(stat dev_rx_rocev2) - roce0)) -eq "$(field rx_roce)" ]
	check "the driver saw no bad length" [ "$(stat rx_errors)" = 0 ]
fi
set -- $AXON_PEERS
peer=$1
[ "$AXON_NODE" = 0 ] && peer=$2
check "node $AXON_NODE still reaches $peer" ping -q -c 3 -W 10 "$peer"
# stay up while the peer pings us
sleep 5
finish
