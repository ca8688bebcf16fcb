#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A peer VM killed under an RDMA CM connection, run with axon-vm --nodes 2
# --host-kills 1 --host-cmd tools/tests/peer-kill-host: node 0's rping
# client pings node 1's rping server through rdma_cm when the host kills
# node 1's QEMU. The connection's QP retries, then fails; rping ends with
# an error; what it held (its CM id, QP, CQs, MRs, PD) is reclaimed, so
# node 0's rdma res counts are back at their start, its kernel logs
# nothing bad, and a new rdma_cm connection on node 0 (loopback) works.
# Node 1 only serves and dies.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/rdma-lib.sh"
. "$AXON_REPO/tools/tests/vm/faults-lib.sh"

pt_require_rdma
modprobe rdma_ucm || { echo "Bail out! modprobe rdma_ucm"; exit 1; }
set -- $AXON_PEERS
if [ "$AXON_NODE" = 1 ]; then
	timeout "$FL_GUARD" rping -s -a "$AXON_IP" -p 18820 -V \
		</dev/null >"$AXON_OUT/rping.server.log" 2>&1
	echo "node 1 was not killed"
	exit 1
fi

plan 8
res_counts() {
	rdma res show | grep "$RDMA_DEV:" | sed 's/^[0-9]*: [^ ]* //'
}
baseline=$(res_counts)
log=$AXON_OUT/rping.client.log
# rping -C 0 pings until it fails; -V checks every ping
(
	tries=0
	until timeout "$FL_GUARD" rping -c -a "$2" -p 18820 -V -v -C 0 \
		</dev/null >"$log" 2>&1; do
		rc=$?
		grep -q "rdma-ping-" "$log" && exit $rc
		tries=$((tries + 1))
		[ $tries -lt 100 ] || exit $rc
		sleep 0.5
	done
) &
cli=$!
pinging() { [ "$(grep -c 'rdma-ping-' "$log")" -gt 20 ]; }
check "rping to node 1 runs" wait_for 180 pinging
touch "$AXON_OUT/ready-for-kill"
check "the host killed node 1" wait_for 120 test -e "$AXON_OUT/peer-killed"
if wait_for 120 gone "$cli"; then
	ok "rping to the dead peer ends"
else
	not_ok "rping to the dead peer ends"
fi
wait "$cli"
rc=$?
diag "exit status $rc: $(grep -i -m 3 "error\|status" "$log" | tr '\n' ' ')"
check "... with an error" fl_failed_itself "$rc"
# rping: "cq completion failed status 12" (IBV_WC_RETRY_EXC_ERR)
check "... which is IBV_WC_RETRY_EXC_ERR" grep -q "completion failed status 12" "$log"
back() { [ "$(res_counts)" = "$baseline" ]; }
wait_for 30 back
diag "rdma res: at start $baseline; now $(res_counts)"
check "its CM id, QP, CQs and MRs are reclaimed" back
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
