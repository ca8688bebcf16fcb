# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# TAP output of the axon test scripts (sourced; tools/lib/tap.h is the C
# one): the plan first, then one line per result, then the verdict.
#
#   plan N               "1..N": before the first result
#   ok NAME              "ok K NAME"
#   not_ok NAME [WHY]    "not ok K NAME", WHY as a "# " line
#   skip NAME WHY        "ok K NAME # SKIP WHY"
#   check NAME CMD...    ok NAME if CMD succeeds, else not_ok NAME (and
#                        a non-zero status)
#   subtest NAME CMD...  CMD's output (its own TAP stream) indented by four
#                        spaces, then ok/not_ok NAME from its exit status
#   diag TEXT...         "# TEXT"
#   finish               the verdict line; its status is non-zero if a
#                        result failed or the results differ from the plan
#
# tools/axon-check compares each stream with its plan: results that never
# ran count as failed.

tap_n=0
tap_failed=0
tap_skipped=0
tap_planned=

plan() {
	tap_planned=$1
	echo "1..$1"
}

# NAME on one line, '#' escaped (it would start a directive)
tap_name() {
	printf '%s' "$*" | tr '\n' ' ' | sed 's/#/\\#/g'
}

ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n $(tap_name "$1")"
}

not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n $(tap_name "$1")"
	[ $# -lt 2 ] || diag "$2"
}

skip() {
	tap_n=$((tap_n + 1))
	tap_skipped=$((tap_skipped + 1))
	echo "ok $tap_n $(tap_name "$1") # SKIP $2"
}

diag() {
	printf '%s\n' "$*" | sed 's/^/# /'
}

check() {
	tap_check_name=$1
	shift
	if "$@"; then
		ok "$tap_check_name"
	else
		not_ok "$tap_check_name"
		return 1
	fi
}

subtest() {
	tap_sub_name=$1
	shift
	tap_rc=$(mktemp "${TMPDIR:-/tmp}/tap-rc.XXXXXX")
	echo "    # Subtest: $(tap_name "$tap_sub_name")"
	{ "$@" 2>&1; echo $? >"$tap_rc"; } | sed -u 's/^/    /'
	tap_sub_rc=$(cat "$tap_rc")
	rm -f "$tap_rc"
	if [ "$tap_sub_rc" = 0 ]; then
		ok "$tap_sub_name"
	else
		not_ok "$tap_sub_name" "exit status $tap_sub_rc"
	fi
}

finish() {
	echo "# $((tap_n - tap_failed - tap_skipped)) passed, $tap_failed failed, $tap_skipped skipped"
	if [ -z "$tap_planned" ]; then
		echo "# no plan"
		return 1
	fi
	if [ "$tap_n" -ne "$tap_planned" ]; then
		echo "# planned $tap_planned, ran $tap_n"
		return 1
	fi
	[ "$tap_failed" -eq 0 ]
}
