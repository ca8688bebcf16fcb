#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# RC data integrity (tools/axon-rdma-integrity): loopback on one node; with
# two nodes, node 0 is the agent and node 1 runs the checks against it.
# AXON_RDMA_DEV=rxe0 runs on rdma_rxe instead of axon0; AXON_RDMA_ARGS
# adds options (e.g. --quick, --only GLOB).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rdma-lib.sh"

dev=$(rdma_dev) || exit 1
plan 2
# with two nodes, node 0's is the agent: it reports nothing itself
# shellcheck disable=SC2086 # a word list
subtest "axon-rdma-integrity" \
	"$AXON_REPO/tools/axon-rdma-integrity" -d "$dev" ${AXON_RDMA_ARGS:-}
check "$dev: no kernel warnings" kernel_quiet
finish
