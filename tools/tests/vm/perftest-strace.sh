#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Kernel bypass: the posting and polling loop of ib_write_bw makes no
# system call. The client runs twice under "strace -f -c", with N and 10 N
# iterations, every work request signaled (--cq-mod 1: one post and one
# completion per message); everything outside the data phase (device
# open, memory registration, QP set-up, the TCP exchange, teardown) is
# the same in both runs, so any system call made per post, per poll or per
# completion shows up as growth of about 9 N calls. The check allows at
# most one call per 1000 messages.
# With --nic-model virtio (rdma_rxe, whose provider makes a system call
# to kick the kernel on every post) the same measurement must see that
# growth: a control that the check can fail.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"

pt_require_rdma

# the counting node (the client, or the only one) checks two more
if [ "$AXON_NODES" = 1 ] || [ "$AXON_NODE" = 1 ]; then plan 4; else plan 2; fi
n1=${PT_STRACE_N:-1000}
n2=$((n1 * 10))
port=18600
for n in $n1 $n2; do
	port=$((port + 1))
	PT_CLIENT_WRAP="strace -f -c -o $AXON_OUT/strace-$n.txt" \
		pt_run "strace-ib_write_bw-$n" $port ib_write_bw -d "$RDMA_DEV" \
		-x "$GID_IDX" -F -s 64 -n "$n" --cq-mod 1
	check "ib_write_bw -n $n under strace (server $PT_SRV_RC, client $PT_CLI_RC)" \
		[ "$PT_SRV_RC$PT_CLI_RC" = 00 ] ||
		tail -n 15 "$PT_SRV_LOG" "$PT_CLI_LOG" 2>/dev/null | sed 's/^/    | /'

done
[ "$AXON_NODES" = 1 ] || [ "$AXON_NODE" = 1 ] || { finish; exit; }

# calls FILE: strace -c's total number of calls
calls() {
	awk '$NF == "total" { print $4 }' "$1"
}
c1=$(calls "$AXON_OUT/strace-$n1.txt")
c2=$(calls "$AXON_OUT/strace-$n2.txt")
check "strace -c summaries of the client" test -n "$c1" -a -n "$c2" ||
	{ finish; exit; }
growth=$((c2 - c1))
echo "system calls of the ib_write_bw client: $c1 with $n1 messages, $c2 with $n2 (growth $growth)"
# The calls that grew, by name.
awk 'FNR == NR { if ($NF != "total" && $4 ~ /^[0-9]+$/) a[$NF] = $4; next }
     $NF != "total" && $4 ~ /^[0-9]+$/ && $4 > a[$NF] + 0 {
	printf "    %s: %d -> %d\n", $NF, a[$NF], $4 }' \
	"$AXON_OUT/strace-$n1.txt" "$AXON_OUT/strace-$n2.txt"
limit=$(((n2 - n1) / 1000))
if [ "$RDMA_DEV" = rxe0 ]; then
	# The control: rxe's provider kicks the kernel on every post.
	check "strace sees rxe's per-post system calls (growth $growth >= $((n2 - n1)))" \
		[ "$growth" -ge $((n2 - n1)) ]
else
	check "no system call in ib_write_bw's post/poll loop (growth $growth <= $limit for $((n2 - n1)) more messages)" \
		[ "$growth" -le "$limit" ]
fi
finish
