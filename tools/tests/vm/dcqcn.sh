#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# RC congestion control (DCQCN) across two nodes whose devices run it and
# whose wires mark every Nth ECN-capable frame Congestion Experienced
# (axon-nic's dcqcn=on and x-tx-ce-every, set with -global by the suite:
# Documentation/congestion-control.rst). Node 1 WRITEs to node 0 with
# ib_write_bw: node 0 receives marked WRITEs and answers with CNPs, node 1
# receives them (and, as both directions are marked, the other way round
# for the ACKs); the transfer completes, and the port counters show it.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"

pt_require_rdma
pt_require_two_nodes
plan 5
hw=/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters
counter() { cat "$hw/$1"; }

marked0=$(counter np_ecn_marked_roce_packets)
sent0=$(counter np_cnp_sent)
rcvd0=$(counter rp_cnp_received)
pt_run dcqcn-write 18940 ib_write_bw -F -d "$RDMA_DEV" -x "$GID_IDX" \
	-s 65536 -n 2000
marked=$(($(counter np_ecn_marked_roce_packets) - marked0))
sent=$(($(counter np_cnp_sent) - sent0))
rcvd=$(($(counter rp_cnp_received) - rcvd0))
diag "$(pt_row "$PT_SRV_LOG" 65536)$(pt_row "$PT_CLI_LOG" 65536)"
diag "packets marked CE $marked, CNPs sent $sent, received $rcvd"

written=0
pt_sides_ok "ib_write_bw" '^ *65536 *2000 ' && written=1
check "ib_write_bw of 2000 x 64 KiB completed under CNPs" [ $written = 1 ]
check "packets arrived marked CE ($marked)" [ "$marked" -gt 0 ]
check "CNPs answered them, at most one per marked packet ($sent)" \
	sh -c "[ $sent -gt 0 ] && [ $sent -le $marked ]"
check "CNPs came from the peer ($rcvd)" [ "$rcvd" -gt 0 ]
check "no RoCE packet dropped" [ "$(counter rx_drops)" = 0 ]
finish
