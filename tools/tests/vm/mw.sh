#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Memory windows, types 1 and 2, on each node: their semantics and bad
# input on one device (tools/tests/axon-verbs-mw), what ibv_devinfo
# reports, and rdma-core's own window tests, unmodified: pyverbs'
# test_mr.MWTest and test_qpex's ibv_wr_bind_mw, run by name with
# tools/tests/pyverbs-run (the whole suite is tools/tests/vm/pyverbs.sh).
# --nic-model virtio runs the pyverbs tests on rdma_rxe (the reference);
# axon-verbs-mw checks axon's errnos (EBUSY for a busy MR, where rxe says
# EINVAL; binds refused at post time that rxe fails in a completion) and
# is skipped there.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"

PV_TESTS="test_mr.MWTest.test_mw_type1
test_mr.MWTest.test_invalidate_mw_type1
test_mr.MWTest.test_mw_type2
test_mr.MWTest.test_mw_type2_invalidate_local
test_mr.MWTest.test_mw_type2_invalidate_remote
test_mr.MWTest.test_mw_type2_invalidate_dealloc
test_mr.MWTest.test_reg_mw_wrong_type
test_qpex.QpExTestCase.test_qp_ex_rc_bind_mw"
# a hang guard, not a time limit
PV_TIMEOUT=${PV_TIMEOUT:-300}

pt_require_rdma
plan $((2 + $(echo "$PV_TESTS" | wc -l)))

case $RDMA_DEV in
axon*)
	subtest "memory windows on $RDMA_DEV" \
		"$AXON_REPO/tools/tests/axon-verbs-mw" -g "$GID_IDX" "$RDMA_DEV"
	;;
*)
	skip "memory windows on $RDMA_DEV" "axon-verbs-mw checks axon's errnos"
	;;
esac

ibv_devinfo -v -d "$RDMA_DEV" >"$AXON_OUT/mw-devinfo.log" 2>&1
grep -E 'max_mw:|MEM_WINDOW' "$AXON_OUT/mw-devinfo.log" | sed 's/^[[:space:]]*/# /'
check "ibv_devinfo -v: max_mw and MEM_WINDOW_TYPE_2B" sh -c \
	"grep -Eq 'max_mw:[[:space:]]+[1-9]' '$AXON_OUT/mw-devinfo.log' &&
	 grep -q 'MEM_WINDOW_TYPE_2B' '$AXON_OUT/mw-devinfo.log'"

# the pyverbs suite, gunzipped, in a directory of its own
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mw-pyverbs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
res=$AXON_OUT/mw-pyverbs.results
log=$AXON_OUT/mw-pyverbs.log
: >"$res"
if cp -r /usr/share/doc/rdma-core/tests "$tmp/tests" &&
	gunzip -f "$tmp"/tests/*.gz; then
	# shellcheck disable=SC2086 # one test name a word
	(cd "$tmp" && timeout "$PV_TIMEOUT" /usr/bin/python3 \
		"$AXON_REPO/tools/tests/pyverbs-run" tests "$res" \
		--dev "$RDMA_DEV" --port 1 --gid "$GID_IDX" $PV_TESTS) \
		>"$log" 2>&1
else
	diag "cannot copy and gunzip /usr/share/doc/rdma-core/tests (python3-pyverbs)"
fi
for t in $PV_TESTS; do
	got=$(awk -v t="$t" '$1 == t { $1 = ""; sub(/^ /, ""); print; exit }' "$res")
	if [ "$got" = ok ]; then
		ok "pyverbs $t"
	else
		not_ok "pyverbs $t" "${got:-did not run}; the end of $log:
$(tail -n 15 "$log")"
	fi
done
finish
