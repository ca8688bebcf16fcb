#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A peer VM killed under an RDMA CM connection, run with axon-vm --nodes 2
# --host-kills 1 --host-cmd tools/tests/peer-kill-host: node 0 writes to
# node 1 over a connection rdma_cm made (ib_write_bw -R) when the host
# kills node 1's QEMU. The connection's QP retries, then fails with
# IBV_WC_RETRY_EXC_ERR; the program ends with that error, and what it held
# (its CM id, QP, CQs, MRs, PD) is reclaimed: node 0's rdma res counts are
# back at their start, its kernel logs nothing bad, and a new rdma_cm
# connection on node 0 (rping, loopback) works. Node 1 only serves and
# dies. (An idle RC connection would notice nothing: RC has no keepalive,
# so the survivor here keeps writing.)
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/rdma-lib.sh"
. "$AXON_REPO/tools/tests/vm/faults-lib.sh"

pt_require_ucm
set -- $AXON_PEERS
if [ "$AXON_NODE" = 1 ]; then
	timeout "$FL_GUARD" ib_write_bw -R -d "$RDMA_DEV" -n "$FL_ITERS" \
		-s 4096 -p 18820 </dev/null >"$AXON_OUT/write.server.log" 2>&1
	echo "node 1 was not killed"
	exit 1
fi

plan 8
baseline=$(res_counts)
log=$AXON_OUT/write.client.log
pt_client "$log" "$2" timeout "$FL_GUARD" ib_write_bw -R -d "$RDMA_DEV" \
	-n "$FL_ITERS" -s 4096 -p 18820 &
cli=$!
check "RC traffic to node 1 over rdma_cm runs" wait_for 180 fl_flowing
fl_kill_peer "$cli" "ib_write_bw -R to the dead peer" "$log"
# perftest: "Failed status 12: ..." (IBV_WC_RETRY_EXC_ERR)
check "... which is IBV_WC_RETRY_EXC_ERR" grep -q "Failed status 12:" "$log"
check "its CM id, QP, CQs and MRs are reclaimed" res_back "$baseline"
timeout 120 rping -s -a "$AXON_IP" -p 18822 -V -C 10 </dev/null \
	>"$AXON_OUT/after.server.log" 2>&1 &
spid=$!
wait_for 60 sh -c "rdma res show cm_id | grep -q 'state LISTEN'"
timeout 120 rping -c -a "$AXON_IP" -p 18822 -V -C 10 </dev/null \
	>"$AXON_OUT/after.client.log" 2>&1
crc=$?
wait $spid
src=$?
check "a new rdma_cm connection on node 0 works" [ "$crc$src" = 00 ]
check "no kernel warning" kernel_quiet
finish
