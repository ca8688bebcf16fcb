#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rdma-core's pyverbs suite on axon0 once per GID its port lists, with
# --gid N (pyverbs.sh runs it without --gid, where the suite picks GIDs
# itself, and compares each test's outcome with pyverbs-expected). The
# indexes are those of /sys/class/infiniband/axon0/ports/1/gids/* that
# are not all zero, read once the port is active with its IPv4 GID and
# its IPv6 link-local one (if the latter comes within 10 s). Per index
# two results: the suite ran to the end, and no test failed or errored
# (skips are fine), with the counts in the name and the tests that failed
# or errored named.
# The whole suite each time (about a minute on TCG): every test that
# makes traffic or an address handle takes the GID.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/pyverbs-lib.sh"

port=/sys/class/infiniband/axon0/ports/1
zero=0000:0000:0000:0000:0000:0000:0000:0000

# gids: the indexes of the GIDs the port lists, in order, one a line
gids() {
	for g in "$port"/gids/*; do
		v=$(cat "$g" 2>/dev/null) || continue
		[ -n "$v" ] && [ "$v" != "$zero" ] && echo "${g##*/}"
	done | sort -n
}

link_local() { gids | while read -r i; do cat "$port/gids/$i"; done | grep -q '^fe80:'; }

pt_require_rdma
[ "$RDMA_DEV" = axon0 ] || { echo "Bail out! no axon0 (--nic-model axon)"; exit 1; }
wait_for 10 link_local || diag "no IPv6 link-local GID after 10 s"
pv_setup

idx=$(gids)
n=$(echo "$idx" | grep -c .)
[ "$n" -gt 0 ] || { echo "Bail out! axon0 lists no GID"; exit 1; }
plan $((2 * n))
for i in $idx; do
	diag "GID $i: $(cat "$port/gids/$i") ($(cat "$port/gid_attrs/types/$i" 2>/dev/null), $(cat "$port/gid_attrs/ndevs/$i" 2>/dev/null))"
done

summary="index passed failed errors skipped tests"
for i in $idx; do
	what="GID $i, $(cat "$port/gids/$i") ($(cat "$port/gid_attrs/types/$i" 2>/dev/null))"
	pv_run axon0 "$i"
	set -- $PV_COUNTS
	summary="$summary
$i $PV_COUNTS"
	name="$what: no failures, no errors ($1 passed, $2 failed, $3 errors, $4 skipped)"
	bad=$(awk '$2 == "fail" || $2 == "xpass" || $2 == "error" { print $1 " " $2 }' "$PV_RES")
	if [ "$5" -gt 0 ] && [ -z "$bad" ]; then
		ok "$name"
	else
		not_ok "$name" "${bad:-no test ran}"
	fi
done
diag "pyverbs with --gid, per GID index of axon0:"
echo "$summary" | awk '{ printf "%-6s %7s %7s %7s %7s %7s\n", $1, $2, $3, $4, $5, $6 }' |
	while IFS= read -r l; do diag "$l"; done
finish
