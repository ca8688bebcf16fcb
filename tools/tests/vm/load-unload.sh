#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unload and reload axon.ko, also under an open context and through sysfs
# remove/rescan. The harness fails the run on any kernel warning.
# LOAD_CYCLES: how many plain unload/reload cycles (default 20).
set -u
. "$(dirname "$0")/lib.sh"

plan 13
cycles=${LOAD_CYCLES:-20}
ok=1
i=0
while [ $i -lt $cycles ]; do
	rmmod axon || { ok=0; break; }
	insmod "$AXON_KO" || { ok=0; break; }
	wait_for 10 has_ibdev axon0 || { ok=0; break; }
	ibv_devinfo -d axon0 > /dev/null || { ok=0; break; }
	i=$((i + 1))
done
check "$cycles load/unload cycles ($i done)" [ $ok -eq 1 ]

hold=/tmp/hold.log
"$AXON_REPO/tools/tests/axon-verbs-basic" --hold 60 axon0 > $hold 2>&1 &
holder=$!
check "a process holds axon0 open with a PD" wait_for 30 grep -q holding $hold
watch=/tmp/asyncwatch.log
# Line-buffered, so its start-up line shows when it has the context open
# (a fixed sleep was too short for the debug kernel on a loaded host).
stdbuf -oL ibv_asyncwatch -d axon0 > $watch 2>&1 &
watcher=$!
check "ibv_asyncwatch has axon0 open" wait_for 30 grep -q "async event FD" $watch
check "rmmod with the context open" rmmod axon
check "the open context gets DEVICE_FATAL" wait_for 10 grep -q DEVICE_FATAL $watch
kill $watcher 2>/dev/null
check "axon0 is gone" no_ibdev axon0
check "the holding process is unharmed" kill -0 $holder
kill $holder 2>/dev/null
wait $holder 2>/dev/null
check "reload after forced unload" insmod "$AXON_KO"
check "axon0 back" axon_up
check "verbs work after reload" quietly "$AXON_REPO/tools/tests/axon-verbs-basic" axon0

bdf=$(axon_bdf)
echo 1 > "/sys/bus/pci/devices/$bdf/remove"
check "sysfs remove unregisters axon0" wait_for 10 no_ibdev axon0
echo 1 > /sys/bus/pci/rescan
check "sysfs rescan brings axon0 back" axon_up
check "ibv_devinfo after rescan" sh -c 'ibv_devinfo -d axon0 | grep -q PORT_ACTIVE'
finish
