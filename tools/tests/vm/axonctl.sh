#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# axonctl and axon.ko's generic netlink family across two nodes (node 0
# serves): the device, then during an ibv_rc_pingpong the QP as axonctl
# shows it, against rdma res show qp -dd and in JSON; the wire's loss
# turned on while a second pingpong runs (it retransmits and completes)
# and off again; an unprivileged user refused; then every bad request of
# axon-nl-badinput. An unprivileged user (nobody) is refused qp show
# (EPERM), sees the device without its wire settings, and in rdma res
# show qp -dd the driver's QPN and queue sizes only; none of what nobody
# runs reaches the device's admin queue (its admin_cmds register, in
# devlink health diagnose) but the core's own QUERY_QP of rdma res.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/rdma-lib.sh"

pt_require_rdma
pt_require_two_nodes
plan 18
axonctl=$AXON_REPO/tools/axonctl
py=/usr/bin/python3
hw=/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters

nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
dl="pci/$(basename "$(readlink -f "/sys/class/infiniband/$RDMA_DEV/device")")"

# admin_cmds: the admin commands the device has taken (a register: devlink
# reads it without one)
admin_cmds() {
	devlink health diagnose "$dl" reporter fw_fatal | sed -n 's/.*admin_cmds: \([0-9]*\).*/\1/p'
}

# drv_keys: the driver's fields (drv_*) of the rdma res lines on stdin,
# sorted, on one line
drv_keys() {
	grep -o 'drv_[a-z0-9_]*' | sort -u | tr '\n' ' '
}

# field NAME: its value in the text $out
field() {
	echo "$out" | tr '\n' ' ' | sed -n "s/.* $1 \([^ ]*\).*/\1/p"
}

# json EXPR: EXPR of the JSON $out (a list), printed by Python
json() {
	echo "$out" | $py -c "import json, sys; j = json.load(sys.stdin); print($1)"
}

out=$("$axonctl" dev show "$RDMA_DEV" 2>&1)
echo "$out" | sed 's/^/# /'
iface=$(axon_interface)
check "dev show: the device, its netdev, PCI function, interface $iface and wire" \
	sh -c "echo '$out' | grep -q '^ifname $RDMA_DEV ifindex [0-9]* netdev $AXON_NETDEV pci 0000:' &&
	       echo '$out' | grep -q 'interface $iface ' &&
	       echo '$out' | grep -q 'wire_drop_every 0 wire_reorder_every 0'"
out=$("$axonctl" -j dev show)
check "dev show -j (a dump of every device) parses as JSON" \
	sh -c "[ \"\$(echo '$out' | $py -c 'import json, sys; print(\" \".join(d[\"ifname\"] + \":\" + str(d[\"qps\"] >= 0) for d in json.load(sys.stdin)))')\" = '$RDMA_DEV:True' ]"

log=$AXON_OUT/pingpong.log
pingpong_pair 18920 15000 "$log"
pp=$!
qp_line() { rdma -dd res show qp | grep "comm ibv_rc_pingpong"; }
wait_for 120 sh -c "rdma -dd res show qp | grep 'comm ibv_rc_pingpong' | grep -q 'drv_hw_state RTS'"
res=$(qp_line)
# what nobody sees of the same QP, while it lives; the raw records too
res_nobody=$($nobody rdma -dd res show qp link "$RDMA_DEV" | grep "comm ibv_rc_pingpong")
raw_nobody=$($nobody rdma -r res show qp link "$RDMA_DEV" 2>&1)
raw_nobody_rc=$?
qpn=$(echo "$res" | sed -n 's/.* lqpn \([0-9]*\) .*/\1/p')
rqpn=$(echo "$res" | sed -n 's/.* rqpn \([0-9]*\) .*/\1/p')
res_tx=$(echo "$res" | sed -n 's/.* drv_tx_pkts \([0-9]*\) .*/\1/p')
echo "# rdma: $res"

out=$("$axonctl" qp show "$RDMA_DEV")
echo "$out" | sed 's/^/# /'
check "qp show (the dump) lists QP $qpn: RC, RTS, in the device too" \
	sh -c "echo '$out' | grep -q '^ifname $RDMA_DEV qpn $qpn type RC state RTS dest_qpn $rqpn ' &&
	       echo '$out' | grep -A1 '^ifname $RDMA_DEV qpn $qpn ' | grep -q 'hw_state RTS'"

out=$("$axonctl" qp show "$RDMA_DEV" qpn "$qpn")
echo "$out" | sed 's/^/# /'
ctl_tx=$(field tx_pkts)
check "qp show qpn $qpn agrees with rdma res -dd (dest $rqpn, tx_pkts $res_tx then $ctl_tx)" \
	sh -c "[ '$(field dest_qpn)' = '$rqpn' ] && [ '$(field hw_state)' = RTS ] &&
	       [ '$(field hw_sq_psn)' != '' ] && [ ${ctl_tx:-0} -ge ${res_tx:-1} ] &&
	       [ '$(field err_naks_rcvd)' = 0 ] && [ '$(field remote_errs)' = 0 ]"

# the device's records (-r, admins only; rdma prints no QPN with them,
# and filters none): struct axon_qp_attr (80 bytes: state at 0, dest_qpn
# at 8), then struct axon_qp_live (168: state at 0); the one whose peer
# is the pingpong's
out=$(rdma -r -j res show qp link "$RDMA_DEV")
raw=$(echo "$out" | $py -c '
import json, sys
for e in json.load(sys.stdin):
    b = bytes(int(x, 16) if isinstance(x, str) else int(x) for x in e.get("data", []))
    word = lambda o: int.from_bytes(b[o:o + 4], "little")
    if len(b) >= 12 and word(8) == int(sys.argv[1]):
        print(len(b), word(0), word(8), word(80))
        break
' "$rqpn")
check "rdma res show qp -r: the device's records of QP $qpn ($raw: length, RTS, peer, RTS)" \
	sh -c "[ '$raw' = '248 3 $rqpn 3' ]"

out=$("$axonctl" -j qp show "$RDMA_DEV" qpn "$qpn")
check "qp show -j parses as JSON: the same QP, its PSNs and counters as numbers" \
	sh -c "[ \"\$(echo '$out' | $py -c 'import json, sys; q = json.load(sys.stdin)[0]; print(q[\"qpn\"], q[\"type\"], q[\"hw_state\"], q[\"tx_pkts\"] > 0, type(q[\"hw_sq_psn\"]).__name__, q[\"kernel\"])')\" = '$qpn RC RTS True int False' ]"
echo "# nobody's rdma: $res_nobody"
keys=$(echo "$res_nobody" | drv_keys)
root_psn=$(echo "$res" | drv_keys | grep -c drv_hw_sq_psn)
check "rdma res -dd as nobody: QP $qpn, core fields, the driver's QPN and sizes only ($keys)" \
	sh -c "echo '$res_nobody' | grep -q ' lqpn $qpn .* sq-psn ' &&
	       [ '$keys' = 'drv_hw_qpn drv_rq_depth drv_sq_depth drv_sq_wqe_size ' ] &&
	       [ $root_psn = 1 ]"
echo "# nobody's rdma -r: $raw_nobody"
check "rdma res show qp -r as nobody: refused by the core (EPERM)" \
	sh -c "[ $raw_nobody_rc != 0 ] && echo '$raw_nobody' | grep -q 'Operation not permitted'"
err=$($nobody "$axonctl" qp show "$RDMA_DEV" 2>&1; echo "status $?")
err=$(echo "$err" | tr '\n' ' ')
err1=$($nobody "$axonctl" qp show "$RDMA_DEV" qpn "$qpn" 2>&1; echo "status $?")
err1=$(echo "$err1" | tr '\n' ' ')
echo "# nobody: $err/ $err1"
check "qp show as nobody: the dump and QP $qpn refused (EPERM)" \
	sh -c "[ '$err' = 'axonctl: Operation not permitted status 1 ' ] &&
	       [ '$err1' = 'axonctl: Operation not permitted status 1 ' ]"
wait $pp
rc=$?
check "the pingpong completed (status $rc)" sh -c "[ $rc = 0 ] && grep -q '^15000 iters in ' '$log'"

# Nothing nobody runs reaches the admin queue: 100 each of qp show (dump
# and one QP) and dev show; root's one dump does (a QUERY_QP_LIVE a QP).
a0=$(admin_cmds)
i=0
while [ $i -lt 100 ]; do
	$nobody "$axonctl" qp show "$RDMA_DEV" >/dev/null 2>&1
	$nobody "$axonctl" qp show "$RDMA_DEV" qpn 1 >/dev/null 2>&1
	$nobody "$axonctl" dev show "$RDMA_DEV" >/dev/null 2>&1
	i=$((i + 1))
done
a1=$(admin_cmds)
"$axonctl" qp show "$RDMA_DEV" >/dev/null
a2=$(admin_cmds)
check "300 axonctl requests of nobody: no admin command ($a0 -> $a1); root's qp show (-> $a2)" \
	sh -c "[ -n '$a0' ] && [ '$a1' = '$a0' ] && [ ${a2:-0} -gt ${a1:-0} ]"
# rdma res as nobody: the core's QUERY_QP of each QP, none of the
# driver's (with a port, rdma makes one dump; without, one more per port)
listed=0
i=0
while [ $i -lt 20 ]; do
	n=$($nobody rdma -dd res show qp link "$RDMA_DEV/1" | grep -c ' lqpn ')
	listed=$((listed + n))
	i=$((i + 1))
done
a3=$(admin_cmds)
check "20 rdma res -dd of nobody: at most one admin command a QP ($((a3 - a2)) for $listed)" \
	sh -c "[ $listed -gt 0 ] && [ $((a3 - a2)) -le $listed ]"

# Loss on the wire, while both nodes WRITE to each other. Not a pingpong:
# ibv_rc_pingpong exits as soon as its last message arrives, so when the
# ACK of that message is lost, its peer retransmits to a QP that is gone.
# perftest meets over TCP before either side destroys its QP. The loss
# is periodic, so its period must be longer than what can go out between
# a frame and its resending (a window of 8 WRITEs, 32 frames, and the
# ACKs of the other direction): else go-back-N can resend the lost PSN
# into the next drop every time, exhausting the retries
# (IBV_WC_RETRY_EXC_ERR), as every 23rd frame with perftest's 128 WRITEs
# in flight sometimes did.
retrans0=$(cat "$hw/retransmits")
"$axonctl" dev set "$RDMA_DEV" wire drop-every 101
out=$("$axonctl" dev show "$RDMA_DEV")
check "dev set wire drop-every 101: dev show has it" \
	sh -c "echo '$out' | grep -q 'wire_drop_every 101 '"
pt_run lossy-write 18922 ib_write_bw -b -F -d "$RDMA_DEV" -x "$GID_IDX" \
	-s 4096 -n 500 -t 8
retrans1=$(cat "$hw/retransmits")
"$axonctl" dev set "$RDMA_DEV" wire drop-every 0
out=$("$axonctl" dev show "$RDMA_DEV")
written=0
pt_sides_ok "ib_write_bw -b" '^ *4096 *500 ' && written=1
check "WRITEs both ways over the lossy wire retransmitted ($retrans0 -> $retrans1) and completed" \
	sh -c "[ $written = 1 ] && [ $retrans1 -gt $retrans0 ]"
check "dev set wire drop-every 0: the loss is off" \
	sh -c "echo '$out' | grep -q 'wire_drop_every 0 '"

err=$($nobody "$axonctl" dev set "$RDMA_DEV" wire drop-every 3 2>&1)
echo "# nobody: $err"
out=$($nobody "$axonctl" dev show "$RDMA_DEV")
check "an unprivileged user can show (not the wire settings) but not set (EPERM)" \
	sh -c "echo '$err' | grep -q 'Operation not permitted' &&
	       echo '$out' | grep -q '^ifname $RDMA_DEV ' &&
	       ! echo '$out' | grep -q wire_"

subtest "axon-nl-badinput: bad requests to the netlink family" \
	"$AXON_REPO/tools/tests/axon-nl-badinput" "$RDMA_DEV"
check "no kernel warnings" kernel_quiet
all_done 18923
finish
