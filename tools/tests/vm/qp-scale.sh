#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Many QPs on one device (tools/tests/axon-verbs-scale): SCALE_QPS RC QPs
# of one WQE (default 2048; "max": the device's max_qp, 65,536 on axon,
# where the last qpns pass 16 bits and their doorbells carry the high
# bits in the offset), a WRITE and a SEND between the two highest qpns,
# and, at max_qp, one more refused. --nic-model virtio runs the same on
# rdma_rxe.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"

pt_require_rdma
plan 1
# each QP maps its SQ and RQ: two of the process's 65,530 mappings
if [ "${SCALE_QPS:-2048}" = max ] || [ "${SCALE_QPS:-2048}" -gt 30000 ]; then
	sysctl -qw vm.max_map_count=262144
fi
subtest "${SCALE_QPS:-2048} QPs on $RDMA_DEV" \
	"$AXON_REPO/tools/tests/axon-verbs-scale" -g "$GID_IDX" \
	-n "${SCALE_QPS:-2048}" "$RDMA_DEV"
finish
