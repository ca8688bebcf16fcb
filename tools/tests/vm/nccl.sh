#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# NCCL's net plugin, libnccl-net-axon.so (nccl-net/, Documentation/nccl.rst),
# driven without a GPU by nccl-net/tests/axon-nccl-test on every node: rank
# AXON_NODE of a ring of AXON_NODES (one node: a ring of one, its own
# peer). The driver loads the plugin by name, as NCCL does, from
# LD_LIBRARY_PATH; its TAP stream is one subtest per transport and memory:
#  1. RC (AXON_NCCL_TRANSPORT=rc; the plugin's auto picks RUD only with
#     axondv and two planes or more), host memory;
#  2. RUD (AXON_NCCL_TRANSPORT=rud: over the port's planes), host memory;
#  3. RC, axon-gpu dma-bufs (tools/axon-vm --gpu), registered with
#     regMrDmaBuf and flushed with iflush; a SKIP without /dev/axon_gpu0;
#  4. RUD, axon-gpu dma-bufs, the same.
# NCCL_AR_SIZES (bytes, comma-separated) and NCCL_AR_ITERS set the
# all-reduce; its bus bandwidth is in the log ("# allreduce ..." lines).
# NCCL_RUNS picks runs by name (default "rc rud gpu rud-gpu"). With plane 1
# going down for good during the run (axon-vm --plane-down 1:START),
# "rc-down" all-reduces over RC on the plugin's device for plane 1
# (--plane 1) until it stops (an RC connection keeps its plane; the run
# fails if it does not stop within 90 s) and "rud-down" over RUD on the
# virtual device of both planes for NCCL_FOR seconds (20), which must keep
# going on the plane left.
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/rdma-lib.sh"

dev=$(rdma_dev) || exit 1
prog=$AXON_REPO/nccl-net/tests/axon-nccl-test
sizes=${NCCL_AR_SIZES:-65536,1048576,4194304}
iters=${NCCL_AR_ITERS:-3}
export LD_LIBRARY_PATH="$AXON_REPO/nccl-net${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export AXON_NCCL_DEVICE=$dev

runs=${NCCL_RUNS:-rc rud gpu rud-gpu}
plan $(echo $runs | wc -w)
# TRANSPORT: the plugin's transport for the next run. The timeout is a
# hang guard within axon-vm's --timeout; each wait in the driver has its
# own bound (--timeout).
run() {
	AXON_NCCL_TRANSPORT=$TRANSPORT timeout 600 "$prog" \
		--rank "$AXON_NODE" --nranks "$AXON_NODES" \
		--peers "${AXON_PEERS:-$AXON_IP}" --sizes "$sizes" \
		--iters "$iters" --timeout 120 "$@"
}
of="rank $AXON_NODE of $AXON_NODES"
for r in $runs; do
	case $r in
	rc)
		TRANSPORT=rc
		subtest "axon-nccl-test, RC, host memory, $of" run --port 18770
		;;
	rud)
		TRANSPORT=rud
		subtest "axon-nccl-test, RUD, host memory, $of" run --port 18771
		;;
	gpu | rud-gpu)
		TRANSPORT=rc port=18772 name=RC
		[ "$r" = gpu ] || TRANSPORT=rud port=18773 name=RUD
		if wait_for 10 test -c /dev/axon_gpu0; then
			subtest "axon-nccl-test, $name, axon-gpu dma-buf memory, $of" \
				run --port $port --gpu
		else
			skip "axon-nccl-test, $name, axon-gpu dma-buf memory" \
				"no /dev/axon_gpu0 (axon-vm --gpu)"
		fi
		;;
	rc-down)
		# RC on the device of plane 1, which goes down in the
		# middle: both ranks must stop
		TRANSPORT=rc
		subtest "axon-nccl-test, RC on plane 1 stops when it goes down, $of" \
			run --port 18774 --plane 1 --for 90 --expect stop --timeout 30
		;;
	rud-down)
		TRANSPORT=rud
		subtest "axon-nccl-test, RUD keeps going with plane 1 down, $of" \
			run --port 18775 --for "${NCCL_FOR:-20}" --expect go
		;;
	*)
		not_ok "NCCL_RUNS: $r is not rc, rud, gpu, rud-gpu, rc-down or rud-down"
		;;
	esac
done
finish
