#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rmmod axon while RDMA traffic runs on axon0 and another process holds
# verbs objects: the unload succeeds (the RDMA core disassociates the open
# contexts), every context gets DEVICE_FATAL, the traffic programs end
# with errors instead of spinning on CQs that nothing completes any more,
# and the reloaded driver works. The harness fails the run on any kernel
# warning (and, on the debug kernel, KASAN, lockdep, kmemleak reports).
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/faults-lib.sh"

pt_require_rdma
plan 18
fl_start
check "rmmod axon under traffic" rmmod axon
check "open contexts get DEVICE_FATAL" wait_for 30 fl_fatal_seen
fl_all_ended
check "axon0 is gone from ibv_devices and rdma link" no_axon_listed
check "reload" insmod "$AXON_KO"
fl_works
finish
