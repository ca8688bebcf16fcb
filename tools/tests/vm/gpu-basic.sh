#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# axon_gpu.ko (tools/axon-vm --gpu): the /dev/axon_gpu0 ioctls and CPU
# access (tools/tests/axon-gpu-basic), VRAM scrubbing (no buffer shows an
# earlier one's data, after a free, a MOVE or a driver rebind), rmmod while
# a buffer lives, and sysfs unbind and PCI remove under a CPU mapping. The
# harness fails the run on any kernel warning.
set -u
. "$(dirname "$0")/lib.sh"

test=$AXON_REPO/tools/tests/axon-gpu-basic
dev=/dev/axon_gpu0

gpu_bdf() {
	basename "$(readlink -f /sys/class/misc/axon_gpu0/device)"
}

plan 28
check "axon_gpu.ko is loaded" grep -q '^axon_gpu ' /proc/modules
check "$dev exists" wait_for 10 test -c $dev
subtest "axon-gpu-basic" "$test" $dev
subtest "VRAM is scrubbed (axon-gpu-basic --scrub)" "$test" --scrub $dev

# A live buffer holds the module (the dma-buf's owner): the holder keeps
# only the buffer's fd and mapping, not the device.
hold=/tmp/hold.log
"$test" --hold 120 $dev >$hold 2>&1 &
holder=$!
check "a process holds a mapped buffer" wait_for 30 grep -q holding $hold
check "the buffer holds a module reference" \
	[ "$(cat /sys/module/axon_gpu/refcnt)" -ge 1 ]
rmmod_refused axon_gpu "with a buffer alive"
kill -USR1 $holder
check "the buffer is intact" wait_for 10 grep -q 'touch: ok' $hold
wait $holder
check "rmmod axon_gpu once the buffer is gone" rmmod axon_gpu
check "$dev is gone" test ! -e $dev
check "insmod axon_gpu" insmod "$AXON_GPU_KO"
check "$dev is back" wait_for 10 test -c $dev

# Unbind under a mapped buffer: the mapping is revoked (SIGBUS), nothing
# else happens; the buffer is freed when its holder lets go.
bdf=$(gpu_bdf)
"$test" --hold 120 $dev >$hold 2>&1 &
holder=$!
check "a process holds a mapped buffer" wait_for 30 grep -q holding $hold
check "unbind $bdf via sysfs" sh -c "echo $bdf >/sys/bus/pci/drivers/axon_gpu/unbind"
check "$dev is gone after unbind" test ! -e $dev
kill -USR1 $holder
check "the mapping faults with SIGBUS" wait_for 10 grep -q 'touch: SIGBUS' $hold
wait $holder
diag "$(cat $hold)"
check "rmmod after unbind" rmmod axon_gpu
check "insmod after unbind" insmod "$AXON_GPU_KO"
check "$dev is back after rebind" wait_for 10 test -c $dev
# the revoked buffer's data is still in the VRAM: a new buffer there is zero
subtest "VRAM is scrubbed after rebind" "$test" --scrub $dev
"$test" $dev >/tmp/again.log 2>&1
check "axon-gpu-basic after rebind" [ $? -eq 0 ]

# The same through PCI remove and rescan.
bdf=$(gpu_bdf)
"$test" --hold 120 $dev >$hold 2>&1 &
holder=$!
check "a process holds a mapped buffer" wait_for 30 grep -q holding $hold
echo 1 >"/sys/bus/pci/devices/$bdf/remove"
check "$dev is gone after PCI remove" test ! -e $dev
kill -USR1 $holder
check "the mapping faults with SIGBUS" wait_for 10 grep -q 'touch: SIGBUS' $hold
wait $holder
echo 1 >/sys/bus/pci/rescan
check "$dev is back after rescan" wait_for 10 test -c $dev
subtest "VRAM is scrubbed after rescan" "$test" --scrub $dev
"$test" $dev >/tmp/again.log 2>&1
check "axon-gpu-basic after rescan" [ $? -eq 0 ]
finish
