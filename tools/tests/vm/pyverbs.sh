#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Conformance: rdma-core's own pyverbs test suite (python3-pyverbs's
# /usr/share/doc/rdma-core/tests, copied and gunzipped here) on axon0, each
# test's outcome compared with tools/tests/pyverbs-expected
# (Documentation/conformance.rst). One result per test file and expected
# outcome: "test_qp: 6 tests pass" passes when all six still pass, a group
# of expected skips or expected errors reports as skipped; any test whose
# outcome differs (a pass now failing, a new skip or a changed skip reason,
# a new error, an expected test that did not run, a test the file does not
# list, a test that now passes where the file expects otherwise) fails its
# group, named in the message.
#
# With --nic-model virtio the suite also runs on rdma_rxe over the
# virtio-net interface (the reference), axon0 on the axon-nic left
# unconnected (its loopback needs no wire), and both counts are printed
# side by side.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/pyverbs-lib.sh"

expected=$AXON_REPO/tools/tests/pyverbs-expected

# pv_groups EXPECTED RESULTS: compare. The tests of EXPECTED fall into
# groups: per test file (in their order), those that pass, then those that
# fail, error or skip for one same reason. Each group is a line
# "G<TAB>FILE<TAB>OUTCOME<TAB>COUNT<TAB>REASON" followed by a line
# "D<TAB>TEXT" per test of the group whose result differs; last comes the
# group of the tests RESULTS has and EXPECTED does not (FILE "-").
pv_groups() {
	awk '
	function rest(s, n) {	# s without its first n words
		for (; n > 0; n--)
			sub(/^[^ ]+ +/, "", s)
		return s
	}
	function got(id) {
		if (!(id in aout))
			return "it did not run"
		if (aout[id] == "skip")
			return "skipped (" awhy[id] ")"
		return "got " aout[id]
	}
	FNR == 1 { f++ }
	f == 1 {
		if ($0 ~ /^[ \t]*(#|$)/)
			next
		id = $1; out = $2; why = NF > 2 ? rest($0, 2) : ""
		if (out !~ /^(ok|skip|error|fail)$/ || (out != "ok" && why == "")) {
			bad[++nbad] = "pyverbs-expected line " FNR ": " $0
			next
		}
		mod = id; sub(/\..*/, "", mod)
		if (!(mod in seen))
			mods[++nm] = mod
		seen[mod] = 1
		rank = out == "ok" ? 0 : out == "fail" ? 1 : out == "error" ? 2 : 3
		g = mod SUBSEP rank SUBSEP why
		if (!(g in gcount)) {
			k = ++ngm[mod SUBSEP rank]
			gm[mod SUBSEP rank SUBSEP k] = g
			gout[g] = out
		}
		gcount[g]++
		eout[id] = out; ewhy[id] = why; egroup[id] = g
		eorder[++ne] = id
		next
	}
	{
		id = $1; aout[id] = $2; awhy[id] = NF > 2 ? rest($0, 2) : ""
		aorder[++na] = id
	}
	END {
		for (i = 1; i <= ne; i++) {
			id = eorder[i]
			if (id in aout && aout[id] == eout[id] &&
			    (eout[id] != "skip" || awhy[id] == ewhy[id]))
				continue
			want = eout[id] == "skip" ? "skip (" ewhy[id] ")" : eout[id]
			diff[egroup[id]] = diff[egroup[id]] "\nD\t" id ": expected " \
				want ", " got(id)
		}
		for (m = 1; m <= nm; m++)
			for (r = 0; r <= 3; r++)
				for (k = 1; k <= ngm[mods[m] SUBSEP r]; k++) {
					g = gm[mods[m] SUBSEP r SUBSEP k]
					split(g, p, SUBSEP)
					printf "G\t%s\t%s\t%d\t%s%s\n", mods[m], gout[g], \
						gcount[g], p[3], diff[g]
				}
		printf "G\t-\tnew\t0\t"
		for (i = 1; i <= nbad; i++)
			printf "\nD\t%s", bad[i]
		for (i = 1; i <= na; i++)
			if (!(aorder[i] in eout))
				printf "\nD\t%s: not in pyverbs-expected, %s", \
					aorder[i], got(aorder[i])
		printf "\n"
	}' "$1" "$2"
}

# pv_report GROUPS: one TAP result per group line of pv_groups
pv_report() {
	while IFS="$(printf '\t')" read -r kind a b c d; do
		if [ "$kind" = D ]; then
			pv_diffs="$pv_diffs$a
"
			continue
		fi
		pv_result
		pv_file=$a pv_out=$b pv_count=$c pv_why=$d pv_diffs=
	done <"$1"
	pv_result
}

pv_result() {
	[ -n "${pv_file:-}" ] || return 0
	tests="$pv_count tests"
	[ "$pv_count" != 1 ] || tests="1 test"
	case $pv_out in
	ok) name="$pv_file: $tests pass" ;;
	skip) name="$pv_file: $tests skip" ;;
	error) name="$pv_file: $tests error" ;;
	fail) name="$pv_file: $tests fail" ;;
	new) name="every test that ran is in pyverbs-expected" ;;
	esac
	if [ -n "$pv_diffs" ]; then
		[ -z "$pv_why" ] || name="$name ($pv_why)"
		not_ok "$name" "$(printf '%s' "$pv_diffs")"
		return
	fi
	case $pv_out in
	ok|new) ok "$name" ;;
	skip) skip "$name" "$pv_why" ;;
	error) skip "$name" "expected errors: $pv_why" ;;
	fail) skip "$name" "known failures: $pv_why" ;;
	esac
}

pv_setup

# axon_alone IP: axon0 on the unconnected axon-nic, its netdev up with IP
# (RoCE GIDs come from the netdev's addresses), its port active
axon_alone() {
	axon_up || return 1
	ip addr add "$1/24" dev "$(axon_netdev)" || return 1
	wait_for 30 port_active axon0 || return 1
	wait_for 10 gid_index axon0 "$1" >/dev/null
}

pt_require_rdma
REF_DEV=
if [ "$AXON_NIC_MODEL" = virtio ]; then
	# rxe0 on the fabric's virtio-net; axon0 beside it, on an address of
	# its own
	REF_DEV=$RDMA_DEV REF_GID=$GID_IDX
	if ! axon_alone 198.51.100.1; then
		echo "Bail out! axon0 with an active port and a RoCE v2 GID of 198.51.100.1"
		exit 1
	fi
	RDMA_DEV=axon0 GID_IDX=$(gid_index axon0 198.51.100.1)
	echo "rdma device axon0 (unconnected axon-nic), GID index $GID_IDX of 198.51.100.1"
fi
[ "$RDMA_DEV" = axon0 ] || { echo "Bail out! no axon0"; exit 1; }

groups=$(pv_groups "$expected" /dev/null | grep -c '^G')
nref=0
[ -z "$REF_DEV" ] || nref=1
plan $((groups + 1 + nref))

pv_run axon0
axon_counts=$PV_COUNTS
axon_res=$PV_RES
pv_groups "$expected" "$axon_res" >"$tmp/groups"
pv_report "$tmp/groups"

if [ -n "$REF_DEV" ]; then
	pv_run "$REF_DEV" "$REF_GID"
	diag "pyverbs, in this VM:"
	{
		echo "device passed failed errors skipped tests"
		echo "axon0 $axon_counts"
		echo "$REF_DEV $PV_COUNTS"
	} | awk '{ printf "%-8s %7s %7s %7s %7s %7s\n", $1, $2, $3, $4, $5, $6 }' |
		while IFS= read -r l; do diag "$l"; done
	# what the reference passes and axon does not
	awk 'FNR == 1 { f++ }
		f == 1 && $2 == "ok" { ref[$1] = 1; next }
		f == 2 && ($1 in ref) && $2 != "ok" { print }' \
		"$PV_RES" "$axon_res" |
		sed "s/^/$REF_DEV passes, axon0: /" | while IFS= read -r l; do diag "$l"; done
fi
finish
