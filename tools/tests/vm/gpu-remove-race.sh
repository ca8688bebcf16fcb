#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# axon_gpu.ko: device removal racing the last close of dma-bufs (issue 35,
# point 7; Documentation/gpu-driver.rst, "Lifetime and removal"). Each
# round a process drops the last references of many buffers (fds, and
# mappings whose fd is already closed) at idle priority on CPU 0 next to
# a CPU hog, so that it is often descheduled half way through a release
# (after the dentry has dropped the dma-buf's inode, before the driver's
# release has the buffer's lock), while CPU 1 unbinds the device or
# removes it from the PCI bus, which revokes first the buffer being
# released, then the others; then it unloads the module as soon as the
# last buffer is gone. For the debug kernel (KASAN, lockdep; two CPUs):
# the harness fails the run on any report. GPU_RACE_ROUNDS (default 20)
# rounds of GPU_RACE_BUFS (128) buffers.
set -u
. "$(dirname "$0")/lib.sh"

test=$AXON_REPO/tools/tests/axon-gpu-basic
dev=/dev/axon_gpu0
rounds=${GPU_RACE_ROUNDS:-20}
bufs=${GPU_RACE_BUFS:-128}

gpu_bdf() {
	basename "$(readlink -f /sys/class/misc/axon_gpu0/device)"
}

# until_rmmod S: rmmod axon_gpu from CPU 1 as soon as it can (it fails
# while a buffer lives), for at most S seconds
until_rmmod() {
	taskset -c 1 sh -c "end=\$((\$(date +%s) + $1))
		until rmmod axon_gpu 2>/dev/null; do
			[ \$(date +%s) -lt \$end ] || exit 1
			sleep 0.01
		done"
}

plan $((rounds * 3 + 2))
check "two CPUs" [ "$(nproc)" -ge 2 ]
check "$dev exists" wait_for 10 test -c $dev

for r in $(seq 1 "$rounds"); do
	bdf=$(gpu_bdf)
	log=/tmp/close-race-$r.log
	taskset -c 0 chrt --idle 0 "$test" --close-race "$bufs" $dev >"$log" 2>&1 &
	closer=$!
	if ! wait_for 120 grep -q ready "$log"; then
		diag "$(cat "$log")"
		kill $closer 2>/dev/null
	fi
	taskset -c 0 sh -c 'while :; do :; done' &
	hog=$!
	kill -USR1 $closer
	# 0 to 40 ms into the closes, then the device goes
	sleep "0.0$((r % 5))"
	if [ $((r % 2)) -eq 1 ]; then
		how=unbind
		taskset -c 1 sh -c "echo $bdf >/sys/bus/pci/drivers/axon_gpu/unbind"
	else
		how="PCI remove"
		taskset -c 1 sh -c "echo 1 >/sys/bus/pci/devices/$bdf/remove"
	fi
	# every buffer is revoked: the rest of the closes at full speed
	kill $hog
	wait $hog 2>/dev/null
	until_rmmod 300 &
	unloader=$!
	wait $closer
	check "round $r ($how): $bufs buffers' last references dropped" \
		grep -q "closed $bufs" "$log"
	wait $unloader
	check "round $r: rmmod as soon as the last buffer is gone" [ $? -eq 0 ]
	insmod "$AXON_GPU_KO"
	[ "$how" = unbind ] || echo 1 >/sys/bus/pci/rescan
	check "round $r: $dev is back" wait_for 10 test -c $dev
done
finish
