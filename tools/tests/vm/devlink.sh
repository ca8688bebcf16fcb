#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# devlink: what the device is (devlink dev info, also as JSON), and its
# fw_fatal health reporter across a device failure injected through the
# model: its admin queue stalls after a number of commands
# (x-admin-stall-after). With automatic recovery off, the failure is
# reported with a dump of the device's state, an open context gets
# DEVICE_FATAL, and devlink health recover brings axon0 back; a transfer
# on it succeeds. With it on (the default), a second failure is recovered
# by itself. Then the enable_roce parameter and devlink dev reload: with
# it false, a reload leaves the Ethernet function only (no axon0); with it
# true again, axon0 comes back and a transfer succeeds. The event queues'
# depths (event_eq_size, io_eq_size) out of range are refused, and set
# and reloaded they show in diagnose; max_cq stays (qp-scale.sh has CQs'
# events through a completion event queue of 32). The
# harness fails the run on any kernel warning.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/rdma-lib.sh"

plan 20
dl=pci/$(axon_bdf)
rep="$dl reporter fw_fatal"

# a loopback transfer on the (new) axon0, its port up with our address
transfer() {
	axon_up && ip addr replace "$AXON_IP/24" dev "$(axon_netdev)" &&
		wait_for 30 port_active axon0 &&
		wait_for 10 gid_index axon0 "$AXON_IP" >/dev/null || return 1
	g=$(gid_index axon0 "$AXON_IP")
	ibv_rc_pingpong -d axon0 -g "$g" -n 20 -p 18960 >/tmp/pp-srv.log 2>&1 &
	s=$!
	sleep 1
	ibv_rc_pingpong -d axon0 -g "$g" -n 20 -p 18960 127.0.0.1 >/tmp/pp-cli.log 2>&1
	c=$?
	wait $s && [ $c = 0 ]
}

# fail the device: PDs until the stalled command times out
fail_device() {
	"$AXON_REPO/tools/tests/axon-verbs-basic" --until-failure axon0 2>&1 |
		grep -q 'failed: Connection timed out'
}

iface=$(axon_interface)
info=$(devlink dev info "$dl")
echo "$info" | sed 's/^/# /'
check "devlink dev info: driver, serial, ASIC id and revision, firmware, interface $iface" \
	sh -c "echo '$info' | grep -q 'driver axon' && echo '$info' | grep -q 'serial_number [0-9a-f]\{16\}' &&
	       echo '$info' | grep -q 'asic.id a0c0' && echo '$info' | grep -q 'asic.rev [0-9]' &&
	       echo '$info' | grep -q 'fw [0-9]*\.[0-9]*\.[0-9]*' && echo '$info' | grep -qx ' *fw.interface $iface'"
check "devlink -j dev info parses as JSON" \
	sh -c "devlink -j dev info $dl | /usr/bin/python3 -c 'import json, sys; d = json.load(sys.stdin); assert d[\"info\"][\"$dl\"][\"driver\"] == \"axon\"'"
check "fw_fatal healthy, automatic recovery on" \
	sh -c "devlink health show $rep | grep -q 'state healthy error 0 recover 0.*auto_recover true'"
check "devlink health diagnose: the device's state" \
	sh -c "devlink health diagnose $rep | grep -q 'admin_failed: false status: 1 error: 0'"

devlink health set $rep auto_recover false
stdbuf -oL ibv_asyncwatch -d axon0 >/tmp/watch.log 2>&1 &
watch=$!
wait_for 30 grep -q "async event FD" /tmp/watch.log
check "the stalled admin queue fails the device" fail_device
check "the open context gets DEVICE_FATAL" wait_for 30 grep -q DEVICE_FATAL /tmp/watch.log
kill $watch 2>/dev/null
devlink health show $rep | sed 's/^/# /'
check "fw_fatal in error, one error, not recovered" \
	wait_for 30 sh -c "devlink health show $rep | grep -q 'state error error 1 recover 0'"
dump=$(devlink health dump show $rep)
echo "$dump" | sed 's/^/# /'
check "its dump: the reason and the device's state" \
	sh -c "echo '$dump' | grep -q 'reason: an admin command timed out' && echo '$dump' | grep -q 'admin_failed: true'"
check "devlink health recover" devlink health recover $rep
check "axon0 back, a transfer on it succeeds" transfer

# the new instance recovers by itself: the old one goes, a new one, its
# reporter fresh, comes
recovered() {
	wait_for 60 sh -c "devlink health show $rep 2>/dev/null | grep -q 'error 0 recover 0'" &&
		wait_for 60 has_ibdev axon0 && transfer
}
check "a second failure" fail_device
check "... is recovered automatically: axon0 back, a transfer succeeds" recovered

param=$(devlink dev param show "$dl" name enable_roce)
echo "$param" | sed 's/^/# /'
check "enable_roce: a driverinit parameter, true" \
	sh -c "echo '$param' | grep -q 'cmode driverinit value true'"
devlink dev param set "$dl" name enable_roce value false cmode driverinit
devlink dev reload "$dl"
reload=$(devlink -s dev show "$dl")
echo "$reload" | sed 's/^/# /'
check "reload with enable_roce false: a driver_reinit, no axon0, the netdev there" \
	sh -c "echo '$reload' | grep -q driver_reinit && ! rdma link | grep -q axon0 &&
	       [ -n \"\$(ls /sys/bus/pci/devices/${dl#pci/}/net/)\" ]"
check "the instance still answers: info, health, the parameter now false" \
	sh -c "devlink dev info $dl | grep -q 'driver axon' &&
	       devlink health show $rep | grep -q 'state healthy' &&
	       devlink dev param show $dl name enable_roce | grep -q 'value false'"
devlink dev param set "$dl" name enable_roce value true cmode driverinit
check "reload with enable_roce true: axon0 back" \
	sh -c "devlink dev reload $dl && rdma link | grep -q axon0"
check "a transfer on it succeeds" transfer

check "event_eq_size 1 and io_eq_size 4097 refused" \
	sh -c "! devlink dev param set $dl name event_eq_size value 1 cmode driverinit 2>/dev/null &&
	       ! devlink dev param set $dl name io_eq_size value 4097 cmode driverinit 2>/dev/null &&
	       devlink dev param show $dl name io_eq_size | grep -q 'value 4096'"
devlink dev param set "$dl" name event_eq_size value 16 cmode driverinit
devlink dev param set "$dl" name io_eq_size value 32 cmode driverinit
devlink dev reload "$dl"
diag=$(devlink health diagnose $rep)
echo "$diag" | sed 's/^/# /'
check "event_eq_size 16 and io_eq_size 32 reloaded: the queues, max_cq 65536" \
	sh -c "echo '$diag' | grep -q 'event_eq_depth: 16 io_eq_depth: 32 max_cq: 65536' &&
	       ibv_devinfo -v -d axon0 | grep -q 'max_cq:[[:space:]]*65536\$'"
check "a transfer with them succeeds" transfer
finish
