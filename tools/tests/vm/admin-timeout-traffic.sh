#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# An admin timeout under traffic, run with the model's hook
# -global axon-nic.x-admin-stall-after=N: RDMA traffic runs on axon0 and
# another process holds verbs objects when the device stops answering
# admin commands. The command that waits times out, the device is marked
# failed and reported so (DEVICE_FATAL, its CQs dead): the traffic
# programs end with errors, rmmod of the failed device succeeds and a
# reload resets it.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/faults-lib.sh"

pt_require_rdma
plan 19
fl_start
# allocate PDs until the device stalls: the stall hits while the traffic
# set up above runs
out=$("$AXON_REPO/tools/tests/axon-verbs-basic" --until-failure axon0 2>&1)
diag "$out"
check "the stalled command times out (ETIMEDOUT)" \
	sh -c "echo '$out' | grep -q 'failed: Connection timed out'"
check "the timeout is logged" \
	sh -c 'dmesg | grep -q "timed out after .* ms, device marked failed"'
check "open contexts get DEVICE_FATAL" wait_for 30 fl_fatal_seen
fl_all_ended
check "rmmod of the failed device" rmmod axon
check "reload resets the device" insmod "$AXON_KO"
fl_works
finish
