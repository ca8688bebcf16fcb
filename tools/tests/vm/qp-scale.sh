#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Many QPs, CQs and MRs on one device (tools/tests/axon-verbs-scale):
# SCALE_QPS RC QPs of one WQE and SCALE_CQS CQs and MRs (default 2048 each;
# "max": the device's max_qp, max_cq and max_mr, 65,536 each on axon,
# where the last qpns and cqns pass 16 bits and their doorbells carry the
# high bits in the offset), a WRITE and a SEND between the two highest
# qpns, and, at the maximum, one more of each refused. Then, on axon, the
# completion event queue cut to 32 entries (devlink's io_eq_size, and a
# reload): 64 QP pairs whose 128 CQs, all armed, get one event each.
# --nic-model virtio runs the same on rdma_rxe, the events with its own
# queues.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"

pt_require_rdma
plan 3
# each QP and CQ maps its queues: some of the process's 65,530 mappings
if [ "${SCALE_QPS:-2048}" = max ] || [ "${SCALE_QPS:-2048}" -gt 20000 ]; then
	sysctl -qw vm.max_map_count=262144
fi
# the CQs and MRs the kernel holds: the MAD agents' CQ, and the DMA MR of
# each kernel PD (its local_dma_lkey), which "rdma resource" does not list
res=$(rdma resource show | grep " $RDMA_DEV: ")
res_count() {
	echo "$res" | sed -n "s/.* $1 \([0-9]*\).*/\1/p"
}
held="$(res_count cq),$(($(res_count mr) + $(res_count pd)))"
diag "$RDMA_DEV holds, CQs,MRs: ${held:-?}"
subtest "${SCALE_QPS:-2048} QPs, ${SCALE_CQS:-2048} CQs and MRs on $RDMA_DEV" \
	"$AXON_REPO/tools/tests/axon-verbs-scale" -g "$GID_IDX" \
	-n "${SCALE_QPS:-2048}" -c "${SCALE_CQS:-2048}" -H "${held:-0,0}" \
	"$RDMA_DEV"

# axon's completion event queue cut to 32 entries, the port back up
cut_ceq() {
	devlink dev param set "pci/$(axon_bdf)" name io_eq_size value 32 \
		cmode driverinit &&
		devlink dev reload "pci/$(axon_bdf)" && axon_up &&
		ip addr replace "$AXON_IP/24" dev "$(axon_netdev)" && rdma_setup
}

if [ "$RDMA_DEV" = axon0 ]; then
	check "io_eq_size 32 and a reload: axon0 back" cut_ceq
else
	skip "io_eq_size 32" "rxe has no completion event queue to cut"
fi
subtest "128 armed CQs, an event each (a CEQ of 32 on axon)" \
	"$AXON_REPO/tools/tests/axon-verbs-scale" -g "$GID_IDX" -n 2 -e 64 \
	"$RDMA_DEV"
finish
