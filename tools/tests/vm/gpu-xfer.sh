#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# RDMA to and from GPU memory (tools/axon-gpu-xfer; tools/axon-vm --gpu).
#   gpu-xfer.sh            transfers: loopback on one node; with two nodes,
#                          node 0 serves and node 1 runs the cases
#   gpu-xfer.sh safety     dma-buf lifetime and eviction under MRs, and
#                          rmmod axon_gpu while an MR holds a buffer
# AXON_GPU_XFER_ARGS adds options (e.g. --quick, --kv-blocks N).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rdma-lib.sh"

prog=$AXON_REPO/tools/axon-gpu-xfer
dev=$(rdma_dev) || exit 1
case ${1:-xfer} in
xfer) plan 3 ;;
safety) plan 9 ;;
esac
check "/dev/axon_gpu0 exists" wait_for 10 test -c /dev/axon_gpu0

case ${1:-xfer} in
xfer)
	# shellcheck disable=SC2086 # a word list
	subtest "axon-gpu-xfer" "$prog" -d "$dev" ${AXON_GPU_XFER_ARGS:-}
	;;
safety)
	subtest "axon-gpu-xfer --safety" "$prog" -d "$dev" --safety
	# A dma-buf MR holds axon_gpu (the buffer's exporter) in memory.
	hold=/tmp/gpu-hold.log
	"$prog" -d "$dev" --hold 120 >$hold 2>&1 &
	holder=$!
	check "an MR holds a GPU buffer whose fd is closed" \
		wait_for 30 grep -q holding $hold
	rmmod_refused axon_gpu "with an MR on its buffer"
	kill -USR1 $holder
	wait $holder
	rc=$?
	diag "$(cat $hold)"
	check "the MR deregisters after the refused rmmod" [ $rc -eq 0 ]
	check "rmmod axon_gpu once the MR is gone" rmmod axon_gpu
	check "insmod axon_gpu again" insmod "$AXON_GPU_KO"
	;;
*)
	echo "usage: gpu-xfer.sh [safety]" >&2
	exit 2
	;;
esac
check "$dev: no kernel warnings" kernel_quiet
finish
