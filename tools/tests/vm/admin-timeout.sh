#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run with the model's x-admin-stall-after hook: once the device stops
# answering, the command that waits times out, the device is marked failed,
# later commands fail at once, and the driver still unloads and reloads.
set -u
. "$(dirname "$0")/lib.sh"

plan 11
out=$("$AXON_REPO/tools/tests/axon-verbs-basic" --until-failure axon0 2>&1)
diag "$out"
check "the stalled command times out (ETIMEDOUT)" \
	sh -c "echo '$out' | grep -q 'failed: Connection timed out'"
check "later commands fail with EIO, not another timeout" \
	sh -c "echo '$out' | grep -q '^next alloc_pd failed: Input/output error'"
check "the timeout is logged" sh -c 'dmesg | grep -q "timed out after .* ms, device marked failed"'
check "rmmod of the failed device" rmmod axon
check "reload resets the device" insmod "$AXON_KO"
check "axon0 registered again" axon_up
check "the device answers after the reset" sh -c 'ibv_devinfo -d axon0 | grep -q PORT_ACTIVE'
# Again, the stalled command a registration this time: the device may
# have mapped its pages, so the driver keeps them pinned until the reset
# of the unload releases them (the debug kernel's kmemleak scan fails
# the run on a leak, KASAN on a use after free).
out=$("$AXON_REPO/tools/tests/axon-verbs-basic" --reg-until-failure axon0 2>&1)
diag "$out"
check "a stalled registration times out (ETIMEDOUT)" \
	sh -c "echo '$out' | grep -q '^reg_mr [0-9]* failed: Connection timed out'"
check "rmmod releases the pages the device may have mapped" rmmod axon
check "reload resets the device again" insmod "$AXON_KO"
check "axon0 registered after the second reset" axon_up
finish
