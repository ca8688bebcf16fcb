#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A peer VM killed mid-transfer, run with axon-vm --nodes 2 --host-kills 1
# --host-cmd tools/tests/peer-kill-host: node 0 writes to node 1 over RC
# (ib_write_bw) when the host kills node 1's QEMU. Node 0's requester
# retries, then completes the WQE with IBV_WC_RETRY_EXC_ERR; the program
# ends with that error, node 0's kernel logs nothing bad, and its axon0
# still runs a loopback transfer. Node 1 only serves, reports nothing
# (it dies) and is not judged beyond its kernel log.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/faults-lib.sh"

pt_require_rdma
set -- $AXON_PEERS
if [ "$AXON_NODE" = 1 ]; then
	timeout "$FL_GUARD" ib_write_bw -d axon0 -x "$GID_IDX" -n "$FL_ITERS" \
		-s 4096 -p 18720 </dev/null >"$AXON_OUT/write.server.log" 2>&1
	echo "node 1 was not killed"
	exit 1
fi

plan 7
log=$AXON_OUT/write.client.log
pt_client "$log" "$2" timeout "$FL_GUARD" ib_write_bw -d axon0 \
	-x "$GID_IDX" -n "$FL_ITERS" -s 4096 -p 18720 &
cli=$!
check "RC traffic to node 1 runs" wait_for 180 fl_flowing
fl_kill_peer "$cli" "ib_write_bw to the dead peer" "$log"
# perftest: "Failed status 12: ..." (IBV_WC_RETRY_EXC_ERR)
check "... which is IBV_WC_RETRY_EXC_ERR" grep -q "Failed status 12:" "$log"
check "axon0 port still active" port_active axon0
AXON_NODES=1 PT_TIMEOUT=180 pt_run after 18721 ib_write_bw -d axon0 \
	-x "$GID_IDX" -s 4096 -n 200
check "ib_write_bw loopback on node 0 runs to the end" \
	[ "$PT_SRV_RC$PT_CLI_RC" = 00 ]
finish
