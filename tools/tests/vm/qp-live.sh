#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A QP's live transport state and counters in rdma res show qp -dd, read
# from the device (QUERY_QP_LIVE) during ibv_rc_pingpong across two
# nodes: node 0 serves. On each node, two samples a second apart show the
# QP in RTS with its PSNs, its counters growing by whole packets of the
# path MTU (4096-byte messages at MTU 1024: every data packet carries
# 1024 bytes, ACKs none), and no retransmission or error on a clean
# fabric; then the pingpong completes.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/rdma-lib.sh"

pt_require_rdma
pt_require_two_nodes
plan 6
n=15000
log=$AXON_OUT/pingpong.log

# drv FIELD: the value of drv_FIELD in the pingpong QP's line of $sample
drv() {
	echo "$sample" | sed -n "s/.* drv_$1 \([^ ]*\).*/\1/p"
}

qp_line() {
	rdma -dd res show qp | grep "comm ibv_rc_pingpong"
}

rts() { qp_line | grep -q "drv_hw_state RTS"; }

if [ "$AXON_NODE" = 0 ]; then
	ibv_rc_pingpong -d "$RDMA_DEV" -g "$GID_IDX" -p 18900 -n $n -s 4096 \
		</dev/null >"$log" 2>&1 &
else
	sleep 1
	pt_client "$log" "${AXON_PEERS%% *}" ibv_rc_pingpong -d "$RDMA_DEV" \
		-g "$GID_IDX" -p 18900 -n $n -s 4096 &
fi
pp=$!

wait_for 120 rts
sample=$(qp_line)
echo "# first: $sample"
t1=$(drv tx_pkts) r1=$(drv rx_pkts) b1=$(drv tx_bytes) rb1=$(drv rx_bytes)
psn1=$(drv hw_sq_psn)
sleep 1
sample=$(qp_line)
echo "# then:  $sample"
t2=$(drv tx_pkts) r2=$(drv rx_pkts) b2=$(drv tx_bytes) rb2=$(drv rx_bytes)
psn2=$(drv hw_sq_psn)

check "rdma res show qp -dd: the device's QP in RTS, its PSNs" \
	sh -c "[ -n '$psn1' ] && [ '$psn1' != '$psn2' ] && echo '$sample' | grep -q 'drv_hw_state RTS .*drv_hw_una_psn 0x[0-9a-f]* drv_hw_rq_psn 0x'"
check "its packet counters grew between the samples ($t1 -> $t2 sent, $r1 -> $r2 received)" \
	sh -c "[ ${t2:-0} -gt ${t1:-0} ] && [ ${r2:-0} -gt ${r1:-0} ]"
check "its byte counters grew by whole 1024-byte packets ($b1 -> $b2, $rb1 -> $rb2)" \
	sh -c "[ ${b2:-0} -gt ${b1:-0} ] && [ $(( (${b2:-1} - ${b1:-0}) % 1024 )) = 0 ] && [ $(( (${rb2:-1} - ${rb1:-0}) % 1024 )) = 0 ]"
check "no retransmission, NAK or error on a clean fabric" \
	sh -c "echo '$sample' | grep -q 'drv_retrans 0 drv_timeouts 0 drv_seq_naks_sent 0 drv_rnr_naks_sent 0 drv_err_naks_sent 0 drv_seq_naks_rcvd 0 drv_rnr_naks_rcvd 0 drv_err_naks_rcvd 0 drv_out_of_seq 0 drv_dup_reqs 0 drv_stray 0 drv_local_errs 0 drv_remote_errs 0'"
wait $pp
rc=$?
grep "iters in" "$log" | sed 's/^/# /'
check "ibv_rc_pingpong completed ($n iterations, status $rc)" \
	sh -c "[ $rc = 0 ] && grep -q '^$n iters in ' '$log'"
check "no kernel warnings" kernel_quiet
all_done 18901
finish
