#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Hot-unplug under traffic, run with axon-vm --hotplug --host-cmd
# tools/tests/hotplug-host: while RDMA traffic runs on axon0 and another
# process holds verbs objects, the host removes the axon-nic (QMP
# device_del). The guest's hotplug driver ejects it, which runs the
# driver's remove: the open contexts get DEVICE_FATAL, the traffic
# programs end with errors, axon0 disappears; the host plugs the NIC back
# (device_add) and RDMA works on the new axon0.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/faults-lib.sh"

pt_require_rdma
plan 19
bdf=$(axon_bdf)
fl_start
touch "$AXON_OUT/ready-for-unplug"
check "the host unplugged the axon-nic under traffic" \
	wait_for 240 test -e "$AXON_OUT/unplugged"
check "open contexts get DEVICE_FATAL" wait_for 30 fl_fatal_seen
fl_all_ended
check "axon0 is gone from ibv_devices and rdma link" no_axon_listed
check "its PCI function is gone" test ! -e "/sys/bus/pci/devices/$bdf"
touch "$AXON_OUT/ready-for-replug"
check "the host plugged it back" wait_for 120 test -e "$AXON_OUT/replugged"
fl_works
finish
