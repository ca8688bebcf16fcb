#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ibv_devinfo, rdma dev and rdma link see axon0 with what the device reports.
set -u
. "$(dirname "$0")/lib.sh"

counters="tx_pkts rx_pkts rx_drops retransmits naks db_rejects
	mr_invalid_accesses duplicate_requests out_of_sequence stray_drops
	uc_drops np_cnp_sent rp_cnp_received np_ecn_marked_roce_packets
	rud_drops rud_duplicates rud_trimmed
	peer_read_bytes peer_write_bytes
	odp_page_faults odp_faulted_pages odp_failed_faults odp_invalidations
	odp_prefetches"
plan $((13 + 2 * $(echo $counters | wc -w)))

info=$(ibv_devinfo -v -d axon0 2>&1)
diag "$info"
has() { echo "$info" | grep -Eq "$1"; }

check "ibv_devinfo lists axon0" has '^hca_id:[[:space:]]+axon0'
check "transport InfiniBand (RoCE)" has 'transport:[[:space:]]+InfiniBand'
check "link layer Ethernet" has 'link_layer:[[:space:]]+Ethernet'
check "port 1 active" has 'state:[[:space:]]+PORT_ACTIVE'
check "firmware version 1.0.1" has 'fw_ver:[[:space:]]+1\.0\.1'
check "vendor id 0x1234" has 'vendor_id:[[:space:]]+0x1234'
check "vendor part id 0xa0c0" has 'vendor_part_id:[[:space:]]+41152'
check "max_pd from the device" has 'max_pd:[[:space:]]+1024'
check "active MTU 1024" has 'active_mtu:[[:space:]]+1024'

dev=$(rdma dev 2>&1)
diag "$dev"
check "rdma dev lists axon0" sh -c "echo '$dev' | grep -q '^[0-9]*: axon0: node_type ca fw 1.0.1'"
link=$(rdma link 2>&1)
diag "$link"
check "rdma link: axon0/1 ACTIVE" sh -c "echo '$link' | grep -q 'link axon0/1 state ACTIVE'"
check "sysfs fw_ver" grep -qx '1.0.1' /sys/class/infiniband/axon0/fw_ver
check "sysfs node_type" grep -q '^1: CA' /sys/class/infiniband/axon0/node_type

# rdma hw counters: the same names in sysfs and in rdma statistic
stat=$(rdma statistic show link axon0/1 2>&1)
diag "$stat"
hw=/sys/class/infiniband/axon0/ports/1/hw_counters
for c in $counters; do
	check "hw counter $c in sysfs" grep -Eqx '[0-9]+' "$hw/$c"
	check "hw counter $c in rdma statistic" \
		sh -c "echo '$stat' | grep -Eq ' $c [0-9]+'"
done
finish
