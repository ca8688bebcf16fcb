#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# RUD QPs (reliable unordered delivery, provider/axondv.h) across two VMs
# with tools/axon-rud-xfer: node 0 serves, node 1 runs the transfers, by
# phases counted from the start barrier:
#  1. --bw RUD_BW_SECONDS (default 6) of 64 KiB RDMA_WRITEs, 16 at once.
#     It must end without an error, and on node 1 (the sender, which
#     sprays every packet over the planes) each plane's plane<K>_tx_pkts
#     must move. With RUD_DOWN=D RUD_FOR=F (axon-vm --plane-down 1:D:F),
#     plane 1 goes down D s after the start and comes back F s later,
#     while it runs;
#  2. --test (--quick unless RUD_FULL=1): every opcode RUD takes at sizes
#     to 1 MiB (64 MiB), several at once, every byte checked, receive
#     completions matched by wr_id;
#  3. --kv RUD_KV_BLOCKS (default 2048) --rounds RUD_KV_ROUNDS (default 1,
#     3 with RUD_FULL=1): scattered WRITEs, then a fenced WRITE_WITH_IMM
#     whose receive finds every byte in place.
# During phase 1, the RUD QP's key (which axon-rud-xfer exchanges with the
# peer over TCP, and writes to $AXON_RUD_XFER_KEYS for this check) must
# show nowhere in what root sees: rdma res show qp -dd and -r (the raw
# records), axonctl qp show (-j), in hex either way round or decimal;
# axonctl qp show must name its type, RUD.
# RUD_QP=rc runs the same over an RC QP (which keeps to one plane: only
# some plane need move then).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rdma-lib.sh"

t0=$(date +%s)
dev=$(rdma_dev) || exit 1
planes=${AXON_PLANES:-1}
qp=${RUD_QP:-rud}
secs=${RUD_BW_SECONDS:-6}
full=${RUD_FULL:-0}
down=${RUD_DOWN:-}
up=$((${RUD_DOWN:-0} + ${RUD_FOR:-0}))
hw=/sys/class/infiniband/$dev/ports/1/hw_counters
# per_wait: the tool's bound on each of its waits (one 64 MiB transfer at 5%
# loss in the full run); guard: a hang guard per run, within axon-vm's
# --timeout
if [ "$full" = 1 ]; then
	quick=
	rounds=${RUD_KV_ROUNDS:-3}
	per_wait=60
	guard=1200
else
	quick=--quick
	rounds=${RUD_KV_ROUNDS:-1}
	per_wait=30
	guard=240
fi
xfer="timeout $guard $AXON_REPO/tools/axon-rud-xfer -d $dev --qp $qp --timeout $per_wait"
if [ "$AXON_NODES" != 2 ] || { [ -n "$down" ] && [ "$planes" -lt 2 ]; }; then
	echo "Bail out! $0 runs on two nodes (and with RUD_DOWN on two planes or more)"
	exit 1
fi

elapsed() { echo $(($(date +%s) - t0)); }
counter() { cat "$hw/$1" 2>/dev/null || echo 0; }

# tx_all: every plane's tx_pkts, one word each (one plane: the port's
# tx_pkts, as the driver shows plane counters only with two or more)
tx_all() {
	if [ "$planes" -lt 2 ]; then
		counter tx_pkts
		return
	fi
	k=0
	while [ $k -lt "$planes" ]; do
		printf '%s ' "$(counter plane${k}_tx_pkts)"
		k=$((k + 1))
	done
}

# tx_moved BEFORE AFTER (two tx_all): "plane0 N0, plane1 N1, ..." in
# $moved, how many planes sent something in $n_moved
tx_moved() {
	moved=
	n_moved=0
	i=0
	for a in $2; do
		b=$(echo "$1" | cut -d' ' -f$((i + 1)))
		moved="$moved${moved:+, }plane$i $((a - b))"
		[ $((a - b)) -gt 0 ] && n_moved=$((n_moved + 1))
		i=$((i + 1))
	done
}

key_checks=$([ "$qp" = rud ] && echo 2 || echo 0)
if [ "$AXON_NODE" = 0 ]; then
	plan $((4 + key_checks))
else
	plan $((6 + key_checks + $([ -n "$down" ] && echo 1 || echo 0)))
fi

# key_shown QPN KEY: whether any half of the 64-bit hex KEY shows in what
# the RDMA and axon tools give root of the QPs: rdma res -dd and raw (the
# dump and QP QPN's own entry: Linux 6.1 leaves driver QPs out of the
# dump), axonctl qp show; raw records are bytes in decimal, made hex
key_shown() {
	lo=$(printf '%s' "$2" | cut -c9-16)
	hi=$(printf '%s' "$2" | cut -c1-8)
	# each half as hex, as its bytes the other way round, and in decimal
	pats="$lo $hi $(printf '%s' "$lo" | sed 's/\(..\)\(..\)\(..\)\(..\)/\4\3\2\1/')"
	pats="$pats $(printf '%s' "$hi" | sed 's/\(..\)\(..\)\(..\)\(..\)/\4\3\2\1/')"
	dec="$(printf '%u' "0x$lo") $(printf '%u' "0x$hi") $(printf '%u' "0x$2")"
	out=$( { rdma -dd -j res show qp; rdma -dd -j res show qp lqpn "$1"
		 rdma -r -j res show qp; rdma -r -j res show qp lqpn "$1"
		 "$AXON_REPO/tools/axonctl" -j qp show "$dev"; } 2>&1)
	raw=$(printf '%s' "$out" | grep -o '"data":\[[0-9,]*\]' |
	      sed 's/[^0-9,]//g' | tr ',' '\n' | grep . |
	      xargs -r printf '%02x')
	flat=$(printf '%s%s' "$out" "$raw" | tr 'A-F' 'a-f' | sed 's/0x//g' |
	       tr -d ' \t\n,:[]"')
	for p in $pats; do
		case $flat in *"$p"*) return 0 ;; esac
	done
	for d in $dec; do
		printf '%s' "$out" | grep -qw "$d" && return 0
	done
	return 1
}

# 1. goodput, a plane going down and up meanwhile
tx_before=$(tx_all)
drops=$(counter rud_drops)
dups=$(counter rud_duplicates)
bw_start=$(elapsed)
keys=$AXON_OUT/rud-keys.txt
rm -f "$keys"
AXON_RUD_XFER_KEYS=$keys \
	$xfer --bw "$secs" --series "$AXON_OUT/rud-bw-series.txt" \
	--tcp-port 18991 >"$AXON_OUT/rud-bw.log" 2>&1 &
pid=$!
if [ "$key_checks" != 0 ]; then
	# the QP has its key once the file has it, and is listed (a driver QP,
	# connected) soon after; the run lasts $secs s more
	for i in $(seq 100); do
		[ -s "$keys" ] && break
		sleep 0.1
	done
	key=$(sed -n 's/.*key=\([0-9a-f]*\).*/\1/p' "$keys" | head -n 1)
	kqpn=$(sed -n 's/^qpn=\([0-9]*\).*/\1/p' "$keys" | head -n 1)
	for i in $(seq 10); do
		rdma res show qp lqpn "$kqpn" 2>/dev/null | grep -q 'state RTS' &&
			break
		sleep 0.5
	done
	# as soon as it is (the key checks below take seconds)
	ctl=$("$AXON_REPO/tools/axonctl" qp show "$dev" qpn "$kqpn" 2>&1)
	diag "while the key was looked for: $(rdma res show qp lqpn "$kqpn" 2>&1)"
	key_hidden() { [ -n "$key" ] && ! key_shown "$kqpn" "$key"; }
	check "bw: the RUD QP's key shows in no rdma res (-dd, -r) or axonctl output" \
		key_hidden
	diag "axonctl: $ctl"
	rud_type() {
		printf '%s\n' "$ctl" | grep -q "^ifname $dev qpn $kqpn type RUD "
	}
	check "bw: axonctl qp show names QP $kqpn's type, RUD" rud_type
fi
wait $pid
rc=$?
bw_end=$(elapsed)
tx_after=$(tx_all)
tx_moved "$tx_before" "$tx_after"
sed 's/^/# /' "$AXON_OUT/rud-bw.log"
diag "bw from $bw_start s to $bw_end s after the start; sent: $moved;" \
	"RUD packets dropped $(($(counter rud_drops) - drops)), duplicates" \
	"$(($(counter rud_duplicates) - dups))"
if [ "$AXON_NODE" = 0 ]; then
	check "bw: the server saw the run end well (status $rc)" [ $rc = 0 ]
else
	line=$(grep '^goodput_MBps=' "$AXON_OUT/rud-bw.log" | tail -n 1)
	check "bw: $secs s of $qp RDMA_WRITEs ended without an error (status $rc)" \
		[ $rc = 0 ]
	check "bw: measured: ${line:-no result line}" \
		sh -c "echo '$line' | grep -q ' msgs=[1-9]'"
	if [ "$qp" = rud ]; then
		check "bw: every one of the $planes plane(s) sent ($moved)" \
			[ "$n_moved" = "$planes" ]
	else
		check "bw: some plane sent ($moved)" [ "$n_moved" -gt 0 ]
	fi
	[ -z "$down" ] ||
		check "bw: ran from $bw_start s to $bw_end s, across plane 1's outage from $down s to $up s" \
			sh -c "[ $bw_start -lt $down ] && [ $bw_end -gt $up ]"
fi
# the plane is back before the checks that follow
if [ -n "$down" ]; then
	while [ "$(elapsed)" -le "$up" ]; do sleep 0.2; done
fi

# 2. every opcode and size
# shellcheck disable=SC2086 # a word list
subtest "axon-rud-xfer --qp $qp --test $quick" $xfer --test $quick --tcp-port 18992

# 3. the KV-cache batch
# shellcheck disable=SC2086 # a word list
subtest "axon-rud-xfer --qp $qp --kv ${RUD_KV_BLOCKS:-2048} --rounds $rounds" \
	$xfer --kv "${RUD_KV_BLOCKS:-2048}" --rounds "$rounds" --tcp-port 18993

check "$dev: no kernel warnings" kernel_quiet
finish
