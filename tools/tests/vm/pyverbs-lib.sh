# SPDX-License-Identifier: GPL-2.0
# rdma-core's pyverbs suite in a VM, as pyverbs.sh and pyverbs-every-gid.sh
# run it (sourced after lib.sh): pv_setup copies it here, pv_run runs it
# through tools/tests/pyverbs-run and counts its outcomes.

pv_runner=$AXON_REPO/tools/tests/pyverbs-run
pv_src=/usr/share/doc/rdma-core/tests
# a hang guard, not a time limit (the whole suite takes about a minute)
PV_TIMEOUT=${PV_TIMEOUT:-420}

# pv_setup: the suite, gunzipped, in a directory of its own ($tmp, removed
# on exit), or stop the run here. Tests of huge-page memory skip without
# 2 MiB pages reserved, whatever the device: with some, they reach the
# verbs they are about (ODP, parent domains) and skip, if they do, for the
# device's reason.
pv_setup() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/pyverbs.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	if ! cp -r "$pv_src" "$tmp/tests" || ! gunzip -f "$tmp"/tests/*.gz ||
		! [ -e "$tmp/tests/run_tests.py" ]; then
		echo "Bail out! cannot copy and gunzip $pv_src (python3-pyverbs)"
		exit 1
	fi
	hp=/proc/sys/vm/nr_hugepages
	[ "$(cat $hp)" -gt 0 ] || echo 16 >$hp ||
		diag "cannot reserve huge pages: the huge-page tests will skip"
}

# pv_run DEV [GID]: the suite on DEV with GID index GID, or without
# --gid (the suite then picks GIDs from the table itself, as its README
# runs it: every GID axon lists must work); its verbose log in
# $AXON_OUT/pyverbs-DEV[-gidGID].log, the outcomes in PV_RES,
# $AXON_OUT/pyverbs-DEV[-gidGID].results (tools/tests/pyverbs-run), the
# counts in PV_COUNTS ("passed failed errors skipped total"); a result for
# whether it ran to the end
pv_run() {
	pv_what="$1${2:+ with --gid $2}"
	log=$AXON_OUT/pyverbs-$1${2:+-gid$2}.log
	PV_RES=$AXON_OUT/pyverbs-$1${2:+-gid$2}.results
	(cd "$tmp" && timeout "$PV_TIMEOUT" /usr/bin/python3 "$pv_runner" tests \
		"$PV_RES" --dev "$1" --port 1 ${2:+--gid "$2"}) >"$log" 2>&1
	rc=$?
	: >>"$PV_RES"
	ran=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in .*/\1/p' "$log")
	PV_COUNTS=$(awk '{ n[$2]++ } END {
		printf "%d %d %d %d %d\n", n["ok"] + n["xfail"],
			n["fail"] + n["xpass"], n["error"], n["skip"], NR }' "$PV_RES")
	sort -k2 -rn "$PV_RES.times" 2>/dev/null | head -n 3 |
		sed "s/^/$pv_what: slowest: /;s/\$/ s/" | while IFS= read -r l; do diag "$l"; done
	diag "$pv_what: $(echo "$PV_COUNTS" | awk '{ printf "%d passed, %d failed, %d errors, %d skipped (%d tests)", $1, $2, $3, $4, $5 }')"
	diag "$pv_what: outside the rdmacm tests: $(awk '$1 !~ /^test_(mlx5_)?rdmacm\./ {
		n[$2]++ } END { printf "%d failed, %d errors", n["fail"] + n["xpass"],
		n["error"] }' "$PV_RES")"
	if [ "$rc" -gt 1 ] || [ -z "$ran" ]; then
		not_ok "the pyverbs suite ran to the end on $pv_what" \
			"exit status $rc; the end of $log:
$(tail -n 20 "$log")"
		return 1
	fi
	check "the pyverbs suite ran to the end on $pv_what ($ran tests)" \
		[ "$(wc -l <"$PV_RES")" -ge "$ran" ]
}
