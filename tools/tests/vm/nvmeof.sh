#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# NVMe over Fabrics (RDMA) over axon0 across two VMs, with the kernel's
# own target and host: node 0 exports a 64 MiB RAM disk (brd) through
# nvmet-rdma; node 1 connects with nvme connect -t rdma (nvme-cli), runs
# fio with verify=crc32c (random 4 KiB and sequential 1 MiB writes, each
# read back and checked), disconnects; node 0 then takes the target
# down, and each node's rdma res counts are back at their start. The
# kernel's nvme-rdma and nvmet-rdma use fast registration (IB_WR_REG_MR)
# and SEND_WITH_INV on axon0.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/rdma-lib.sh"

NQN=nqn.2026-12.org.axon:ram0
TRSVCID=4420
DONE_PORT=18810

pt_require_two_nodes
pt_require_rdma
peer=${AXON_PEERS%% *}

baseline=$(res_counts)

# configfs tree of the target: subsystem NQN with namespace 1 on
# /dev/ram0, port 1 on this node's address
target_up() {
	modprobe brd rd_nr=1 rd_size=65536 && modprobe nvmet &&
		modprobe nvmet-rdma || return 1
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config || return 1
	t=/sys/kernel/config/nvmet
	mkdir "$t/subsystems/$NQN" &&
		echo 1 >"$t/subsystems/$NQN/attr_allow_any_host" &&
		mkdir "$t/subsystems/$NQN/namespaces/1" &&
		echo /dev/ram0 >"$t/subsystems/$NQN/namespaces/1/device_path" &&
		echo 1 >"$t/subsystems/$NQN/namespaces/1/enable" &&
		mkdir "$t/ports/1" &&
		echo rdma >"$t/ports/1/addr_trtype" &&
		echo ipv4 >"$t/ports/1/addr_adrfam" &&
		echo "$AXON_IP" >"$t/ports/1/addr_traddr" &&
		echo $TRSVCID >"$t/ports/1/addr_trsvcid" &&
		ln -s "$t/subsystems/$NQN" "$t/ports/1/subsystems/$NQN"
}

target_down() {
	t=/sys/kernel/config/nvmet
	rm "$t/ports/1/subsystems/$NQN" && rmdir "$t/ports/1" &&
		echo 0 >"$t/subsystems/$NQN/namespaces/1/enable" &&
		rmdir "$t/subsystems/$NQN/namespaces/1" &&
		rmdir "$t/subsystems/$NQN" &&
		modprobe -r nvmet-rdma nvmet
}

# the block device of the namespace node 1 got from the connect (with
# native multipath, the subsystem's head)
host_ns() {
	for b in /sys/block/nvme*n*; do
		case ${b##*/} in nvme*c*n*) continue ;; esac	# a path, no node
		[ "$(cat "$b/device/subsysnqn" 2>/dev/null)" = "$NQN" ] || continue
		echo "/dev/${b##*/}"
		return 0
	done
	return 1
}

# fio_verify NAME ARGS...: a write job that reads its data back and
# checks every block's crc32c
fio_verify() {
	name=$1
	shift
	fio --name="$name" --filename="$ns" --direct=1 --ioengine=libaio \
		--verify=crc32c --do_verify=1 --verify_fatal=1 "$@" \
		--output="$AXON_OUT/fio-$name.log" &&
		! grep -q "verify: bad" "$AXON_OUT/fio-$name.log"
}

if [ "$AXON_NODE" = 0 ]; then
	plan 5
	check "nvmet-rdma exports $NQN on $AXON_IP:$TRSVCID" target_up
	check "the host is done" peer_wait $DONE_PORT 600
	check "target taken down" target_down
	check "rdma res counts back at their baseline" res_back "$baseline"
	check "no kernel warning" kernel_quiet
	finish
	exit
fi

plan 6
modprobe nvme-rdma || echo "# modprobe nvme-rdma failed"
connected() {
	nvme connect -t rdma -a "$peer" -s $TRSVCID -n "$NQN" \
		>"$AXON_OUT/nvme-connect.log" 2>&1 && wait_for 20 host_ns
}
check "nvme connect -t rdma to $peer" wait_for 120 connected
ns=$(host_ns)
diag "namespace $ns; $(nvme list 2>/dev/null | grep -c "$NQN\|Linux") nvme-list lines"
check "fio random 4 KiB writes, verify=crc32c" \
	fio_verify rand4k --rw=randwrite --bs=4k --size=16M --iodepth=16
check "fio sequential 1 MiB writes, verify=crc32c" \
	fio_verify seq1m --rw=write --bs=1M --size=48M --iodepth=4
grep -E "^ *(READ|WRITE):" "$AXON_OUT"/fio-*.log | sed 's/^/# /'
check "nvme disconnect" sh -c "nvme disconnect -n '$NQN' >'$AXON_OUT/nvme-disconnect.log' 2>&1"
peer_tell "$peer" $DONE_PORT
check "rdma res counts back at their baseline" res_back "$baseline"
check "no kernel warning" kernel_quiet
finish
