#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# QPs bound to counters (rdma statistic qp), which are the device's
# counter sets, during ibv_rc_pingpong across two nodes (node 0 serves).
# Auto mode by type: the pingpong's QP gets a counter of its own, which
# counts exactly what the device counts for that QP: a counter sample, the
# QP's own counters (rdma res show qp -dd), then the counter again, must
# come in that order. Once the QP is gone, the counter is released and
# the port's totals went up by no less than the QP sent. Then manual mode:
# bind the QP of a second pingpong, watch its counter grow, unbind.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/rdma-lib.sh"

pt_require_rdma
pt_require_two_nodes
plan 10
link=$RDMA_DEV/1
hw=/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters
log=$AXON_OUT/pingpong.log
py=/usr/bin/python3

qp_line() { rdma -dd res show qp | grep "comm ibv_rc_pingpong"; }
rts() { qp_line | grep -q "drv_hw_state RTS"; }
# qp_pkts: the QP's own packet counters, sent and received
qp_pkts() {
	qp_line | sed -n 's/.* drv_tx_pkts \([0-9]*\) .* drv_rx_pkts \([0-9]*\) .*/\1 \2/p'
}

# counter QPN FIELD...: the FIELDs of the counter QPN is bound to (nothing
# if none), from rdma's JSON, whatever nesting its version prints it with
counter() {
	rdma -j statistic qp show link "$link" | $py -c '
import json, sys
qpn, fields = int(sys.argv[1]), sys.argv[2:]
def walk(o):
    if isinstance(o, dict):
        yield o
        for v in o.values():
            yield from walk(v)
    elif isinstance(o, list):
        for v in o:
            yield from walk(v)
def qpns(o):
    out = set()
    for d in walk(o):
        for k, v in d.items():
            if k.lower() == "lqpn":
                for x in (v if isinstance(v, list) else [v]):
                    out.update(int(y) for y in str(x).replace(",", " ").split()
                               if y.isdigit())
    return out
def value(o, field):
    for d in walk(o):
        if field in d:
            return str(d[field])
    return "?"
for c in json.load(sys.stdin):
    if qpn in qpns(c):
        print(" ".join(value(c, f) for f in fields))
        break
' "$@"
}

rdma statistic qp set link "$link" auto type on
mode=$(rdma statistic qp mode link "$link")
echo "# $mode"
check "auto mode by QP type is on" \
	sh -c "echo '$mode' | grep -q 'auto type on'"

port0=$(cat "$hw/tx_pkts")
pingpong_pair 18930 15000 "$log"
pp=$!
wait_for 120 rts
qpn=$(qp_line | sed -n 's/.* lqpn \([0-9]*\) .*/\1/p')
set -- $(counter "$qpn" tx_pkts rx_pkts) $(qp_pkts)
sleep 1
set -- "$@" $(counter "$qpn" tx_pkts rx_pkts)
c1=${1:-} r1=${2:-} t=${3:-} rt=${4:-} c2=${5:-} r2=${6:-}
cntn=$(counter "$qpn" cntn)
rdma statistic qp show link "$link" | sed 's/^/# /'
check "QP $qpn was bound to a counter of its own (cntn ${cntn:-none})" \
	sh -c "[ -n '$cntn' ]"
check "the counter counts the QP's packets sent: $c1 <= $t (the QP's) <= $c2" \
	sh -c "[ $# = 6 ] && [ $c1 -gt 0 ] && [ $c1 -le $t ] && [ $t -lt $c2 ]"
check "and received: $r1 <= $rt (the QP's) <= $r2" \
	sh -c "[ $# = 6 ] && [ $r1 -gt 0 ] && [ $r1 -le $rt ] && [ $rt -lt $r2 ]"
port1=$(cat "$hw/tx_pkts")
check "the port's tx_pkts (its own and its counters') went on ($port0 -> $port1)" \
	sh -c "[ $((port1 - port0)) -ge $c2 ]"
wait $pp
rc=$?
c3=$(counter "$qpn" tx_pkts)
port2=$(cat "$hw/tx_pkts")
check "the pingpong completed ($rc); its counter is released" \
	sh -c "[ $rc = 0 ] && grep -q '^15000 iters in ' '$log' && [ -n '$cntn' ] &&
	       [ -z '$c3' ] && ! rdma statistic qp show link '$link' | grep -q 'cntn $cntn '"
check "the port keeps what the counter counted: 15000 messages of 4 packets ($port0 -> $port2)" \
	sh -c "[ $((port2 - port0)) -ge 60000 ]"

rdma statistic qp set link "$link" auto off
pingpong_pair 18932 15000 "$log"
pp=$!
wait_for 120 rts
qpn=$(qp_line | sed -n 's/.* lqpn \([0-9]*\) .*/\1/p')
none=$(counter "$qpn" cntn)
rdma statistic qp bind link "$link" lqpn "$qpn"
m1=$(counter "$qpn" tx_pkts)
cntn=$(counter "$qpn" cntn)
sleep 1
m2=$(counter "$qpn" tx_pkts)
check "manual: QP $qpn unbound with auto off ('$none'), bound by hand (cntn $cntn), counting ($m1 -> $m2)" \
	sh -c "[ -z '$none' ] && [ -n '$cntn' ] && [ ${m2:-0} -gt ${m1:-0} ]"
rdma statistic qp unbind link "$link" cntn "$cntn" lqpn "$qpn"
after=$(counter "$qpn" cntn)
wait $pp
rc=$?
check "unbound ('$after'); the pingpong completed ($rc)" \
	sh -c "[ -z '$after' ] && [ $rc = 0 ] && grep -q '^15000 iters in ' '$log'"
check "no kernel warnings" kernel_quiet
all_done 18933
finish
