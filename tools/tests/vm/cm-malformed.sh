#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Malformed MADs from a peer: node 1 sends node 0's QP 1, with the GSI
# Q_Key, MAD_COUNT datagrams of each kind tools/tests/axon-mad-forge
# makes (512 bytes, 24 bytes, bad base version, class, class version,
# attribute, and a flood of REQs to a service nobody listens on). More
# long ones than the MAD layer keeps receive buffers posted (512): were
# each of them to end a receive in error, the MAD layer would never post
# those buffers again and QP 1 would go deaf. The flood waits until node
# 0's counters are still: the malformed ones overrun QP 1 (a TCG guest
# reposts its buffers slower than a peer sends), and a flood sent into
# that backlog can find every buffer taken. Node 0 checks that axon
# dropped the datagrams that are not a MAD's length and counted them,
# that the CM took each REQ that reached it as a REQ and rejected it and
# took nothing else as a CM message, then that the CM still serves: 20
# rdma_cm connections from node 1, each used; then its rdma res counts
# are back at their baseline and the kernel logged no warning.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/rdma-lib.sh"
. "$AXON_REPO/tools/tests/vm/cm-lib.sh"

MAD_COUNT=${MAD_COUNT:-600}
# the long ones first, while all of QP 1's receive buffers are posted
MALFORMED="long short base-version class class-version attribute"

pt_require_two_nodes
pt_require_ucm
srv_ip=${AXON_PEERS%% *}
node1=$(echo "$AXON_PEERS" | cut -d' ' -f2)
go_port=18830
done_port=18831
counted_port=18832
malformed_port=18833
flood_port=18834

if [ "$AXON_NODE" = 1 ]; then
	plan 3
	peer_wait $go_port 120 ||
		{ echo "Bail out! node 0 never became ready"; exit 1; }
	forge() {
		"$AXON_REPO/tools/tests/axon-mad-forge" -d "$RDMA_DEV" \
			-g "$GID_IDX" -n "$MAD_COUNT" "$srv_ip" "$@"
	}
	# shellcheck disable=SC2086 # six kinds
	subtest "axon-mad-forge: $MAD_COUNT of each malformed kind at $srv_ip's QP 1" \
		forge $MALFORMED
	peer_tell "$srv_ip" $malformed_port
	peer_wait $flood_port 120 ||
		{ echo "Bail out! node 0 never settled"; exit 1; }
	subtest "axon-mad-forge: $MAD_COUNT REQs at $srv_ip's QP 1" \
		forge req-flood
	peer_tell "$srv_ip" $done_port
	# REQs of ours to a port with no listener yet would move node 0's
	# counters while it reads them
	peer_wait $counted_port 120 ||
		{ echo "Bail out! node 0 never counted"; exit 1; }
	check "20 rdma_cm connections to node 0 afterwards (client)" \
		cm_cycles cm_after 18809 20
	finish
	exit
fi

cm=/sys/class/infiniband/$RDMA_DEV/ports/1
hw=/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters
# the sum of the CM's counters in DIR (one per message type)
cm_sum() {
	cat "$cm/$1"/* | awk '{ n += $1 } END { print n + 0 }'
}
# counters: axon's drops, the CM's received REQs, sent REJs and all
# messages it received, axon's drops for want of a receive buffer
counters() {
	echo "$(cat "$hw/rx_drops") $(cat "$cm/cm_rx_msgs/req")" \
		"$(cat "$cm/cm_tx_msgs/rej") $(cm_sum cm_rx_msgs)" \
		"$(cat "$hw/ud_nobuf_drops")"
}

plan 6
baseline=$(res_counts)
# shellcheck disable=SC2046 # five numbers
set -- $(counters)
peer_tell "$node1" $go_port
peer_wait $malformed_port 300
# no counter moves for a second: the sender is done and QP 1 drains
still() {
	before=$(counters)
	sleep 1
	[ "$(counters)" = "$before" ]
}
wait_for 60 still
peer_tell "$node1" $flood_port
peer_wait $done_port 300
# The CM answers from its work queue and the counters are read one after
# another, so a REQ taken between two reads would show as a REJ too many:
# wait until no counter moves for a second and each REQ is answered.
settled() {
	before=$(counters)
	sleep 1
	now=$(counters)
	# shellcheck disable=SC2086 # five numbers
	set -- "$@" $now
	drops=$(($6 - $1)) reqs=$(($7 - $2)) rejs=$(($8 - $3)) msgs=$(($9 - $4))
	nobuf=$((${10} - $5))
	[ "$now" = "$before" ] && each_rejected
}
each_rejected() { [ "$reqs" -gt 0 ] && [ "$rejs" = "$reqs" ]; }
quiet=no
wait_for 60 settled "$@" && quiet=yes
peer_tell "$node1" $counted_port
diag "axon: rx_drops +$drops, ud_nobuf_drops +$nobuf (QP 1 busy);" \
	"the CM: REQs +$reqs, REJs sent +$rejs, messages +$msgs;" \
	"counters still for a second: $quiet"
check "axon dropped and counted the datagrams that are not a MAD's length" \
	[ "$drops" -ge $((2 * MAD_COUNT)) ]
flood_answered() { [ "$quiet" = yes ] && each_rejected; }
check "the CM took REQs of the flood, rejecting each" flood_answered
check "... and no malformed MAD as a CM message" [ "$msgs" = "$reqs" ]
check "20 rdma_cm connections from node 1 afterwards (server)" \
	cm_cycles cm_after 18809 20
check "rdma res counts back at their baseline" res_back "$baseline"
check "no kernel warning" kernel_quiet
finish
