#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The basic verbs through libibverbs and the axon provider, then objects
# changed in place: ibv_resize_cq and ibv_rereg_mr (axon-verbs-change).
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/rdma-lib.sh"

pt_require_rdma
plan 3
subtest "axon-verbs-basic" "$AXON_REPO/tools/tests/axon-verbs-basic" axon0
subtest "axon-verbs-change: ibv_resize_cq, ibv_rereg_mr" \
	"$AXON_REPO/tools/tests/axon-verbs-change" -g "$GID_IDX" axon0
check "no kernel warnings" kernel_quiet
finish
