#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bad verbs input fails with a precise errno (tools/tests/axon-verbs-badinput),
# then the data path still works (a quick loopback integrity pass).
# AXON_RDMA_DEV=rxe0 runs on rdma_rxe instead of axon0.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rdma-lib.sh"

dev=$(rdma_dev) || exit 1
"$AXON_REPO/tools/tests/axon-verbs-badinput" "$dev" || failures=$((failures + 1))
"$AXON_REPO/tools/axon-rdma-integrity" -d "$dev" --quick --loopback \
	--only 'send 4097*' || failures=$((failures + 1))
check "$dev: no kernel warnings" kernel_quiet
finish
