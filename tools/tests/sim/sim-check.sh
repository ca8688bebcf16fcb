#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The simulator (Documentation/simulator.rst) in make check: it builds, its
# small scenario runs every transport with loss and a failing spine and
# every byte placed where it belongs, twice with the same CSVs; a pcap of
# a link decodes as RoCE v2 with valid ICRCs; a dead plane stalls RC and
# not RUD; the NIC's message rate holds; a background permutation beside
# a ring all-reduce completes, checked, with the same CSVs twice; payloads
# read from GPU memory wait its DMA latency; RUD through switches that
# trim loses no frame.
#
# Usage: tools/tests/sim/sim-check.sh   (TAP)
set -u

repo=$(cd "$(dirname "$0")/../../.." && pwd)
. "$repo/tools/lib/tap.sh"
sim=$repo/sim/axon-sim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

plan 16

check "axon-sim builds" sh -c "make -C '$repo/sim' > '$work/build.log' 2>&1" ||
	tail -n 20 "$work/build.log" | sed 's/^/# /'

run() {
	mkdir -p "$work/$1"
	"$sim" "$repo/sim/scenarios/$2.scn" out_dir="$work/$1" \
		> "$work/$1/log" 2>&1
}

# column NAME of every row of summary CSV
col() {
	awk -F, -v name="$2" 'NR == 1 { for (i = 1; i <= NF; i++)
		if ($i == name) c = i; next } { print $1 "," $2 "," $c }' "$1"
}

check "check.scn: every transport runs, every byte checked (exit 0)" run a check
sed 's/^/# /' "$work/a/log"
check "check.scn again: same exit" run b check
check "same seed, same summary CSV" cmp "$work/a/check-summary.csv" \
	"$work/b/check-summary.csv"
check "same seed, same flows CSVs" sh -c "for t in rc rc-dcqcn rud rud-nscc; do
	cmp '$work/a/check-'\$t'-flows.csv' '$work/b/check-'\$t'-flows.csv' || exit 1; done"

s=$work/a/check-summary.csv
check "every transport completes every message through loss and the failure" \
	sh -c "awk -F, 'NR > 1 && (\$7 != \$8 || \$7 == 0) { bad = 1 }
		END { exit NR != 5 || bad }' '$s'"
check "no byte wrong or missing, no error completion" sh -c "
	col() { awk -F, -v name=\"\$1\" 'NR == 1 { for (i = 1; i <= NF; i++)
		if (\$i == name) c = i; next } \$c != 0 { bad = 1 } END { exit bad }' '$s'; }
	col bytes_wrong && col wqes_unplaced && col bad_completions"
col "$s" loss_drops | sed 's/^/# loss drops: /'

counts=$(/usr/bin/python3 "$repo/tools/tests/sim/icrc.py" "$work/a/check-rc.pcap")
diag "rc pcap: $counts (RoCEv2 frames, bad ICRCs)"
decoded=$(tshark -r "$work/a/check-rc.pcap" -Y 'infiniband.bth.opcode' 2>/dev/null |
	wc -l)
check "the pcap decodes as RoCE v2 ($decoded frames), every ICRC valid" \
	sh -c "set -- $counts; [ \$1 -gt 0 ] && [ \$2 = 0 ] && [ $decoded = \$1 ]"

run d check-plane-down
p=$work/d/check-plane-down-summary.csv
col "$p" messages_done | sed 's/^/# messages done: /'
check "a dead plane: RC stalls, RUD completes on the other" sh -c "
	awk -F, 'NR > 1 { done[\$2] = (\$7 == \$8) }
		END { exit !(done[\"rud\"] && !done[\"rc\"]) }' '$p'"

run r check-rate
r=$work/r/check-rate-summary.csv
col "$r" completion_ns | sed 's/^/# completion ns: /'
check "100 frames at 100,000 a second take 990 us at least, every run" sh -c "
	awk -F, 'NR > 1 && (\$9 == \"\" || \$9 < 990000) { bad = 1 }
		END { exit NR != 3 || bad }' '$r'"
check "check-bg.scn: a ring beside a background permutation, every byte checked (exit 0)" \
	run g1 check-bg
sed 's/^/# /' "$work/g1/log"
run g2 check-bg
g=$work/g1/check-bg-summary.csv
check "check-bg.scn: the ring and every background message complete" \
	sh -c "awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if (\$i == \"bg_messages\") m = i
			if (\$i == \"bg_messages_done\") d = i } next }
		\$7 != \$8 || \$m == 0 || \$m != \$d { bad = 1 }
		END { exit NR != 5 || bad }' '$g'"
check "check-bg.scn again: the same summary and flows CSVs" sh -c "
	cmp '$g' '$work/g2/check-bg-summary.csv' || exit 1
	for t in rc rc-dcqcn rud rud-nscc; do for k in flows bg-flows; do
		cmp '$work/g1/check-bg-'\$t-\$k.csv '$work/g2/check-bg-'\$t-\$k.csv || exit 1
	done; done"
# the data MR in GPU memory: each payload's read waits nic_dma_gpu (1 ms
# here: a run takes at least that), and without gpu_memory it does not
for g in 0 1; do
	mkdir -p "$work/gpu$g"
	"$sim" "$repo/sim/scenarios/check-rate.scn" nic_mpps=0 gpu_memory=$g \
		nic_dma_gpu=1ms out_dir="$work/gpu$g" > "$work/gpu$g/log" 2>&1
done
col "$work/gpu1/check-rate-summary.csv" completion_ns |
	sed 's/^/# completion ns, GPU memory at 1 ms a read: /'
check "GPU memory: payload reads take nic_dma_gpu (1 ms), host memory's do not" sh -c "
	awk -F, 'NR > 1 && (\$9 == \"\" || \$9 < 1000000) { bad = 1 }
		END { exit NR != 3 || bad }' '$work/gpu1/check-rate-summary.csv' &&
	awk -F, 'NR > 1 && (\$9 == \"\" || \$9 >= 1000000) { bad = 1 }
		END { exit NR != 3 || bad }' '$work/gpu0/check-rate-summary.csv'"
check "check-trim.scn: RUD through trimming switches, every byte checked (exit 0)" \
	run t check-trim
sed 's/^/# /' "$work/t/log"
tr=$work/t/check-trim-summary.csv
col "$tr" trimmed | sed 's/^/# trimmed: /'
# simulated time: each trimmed packet sent again at the notice, the run
# takes 1.09 times the ideal; found by SACKs and timers, 53 times
check "check-trim.scn: frames trimmed, none dropped, done under twice the ideal" sh -c "
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if (\$i == \"trimmed\") t = i
			if (\$i == \"queue_drops\") q = i
			if (\$i == \"completion_over_ideal\") x = i } next }
		\$7 != \$8 || \$t == 0 || \$q != 0 || \$x == \"\" || \$x >= 2 { bad = 1 }
		END { exit NR != 3 || bad }' '$tr'"
finish
