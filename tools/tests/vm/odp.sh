#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# On-demand paging MRs (IBV_ACCESS_ON_DEMAND) in one VM: their semantics
# and bad input on one device (tools/tests/axon-verbs-odp: every RC
# operation on untouched memory, MADV_DONTNEED and MAP_FIXED under the
# device, ibv_advise_mr's three advices, errnos and error completions);
# the ODP capabilities ibv_devinfo shows; rdma-core's ibv_rc_pingpong,
# unmodified, with its ODP MRs (-o), faulted in and prefetched (-P), every
# message checked (-c); the page faults in rdma statistic.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"

pt_require_rdma
plan 5

subtest "on-demand paging verbs on $RDMA_DEV" \
	"$AXON_REPO/tools/tests/axon-verbs-odp" -g "$GID_IDX" "$RDMA_DEV"

info=$(ibv_devinfo -v -d "$RDMA_DEV" 2>&1)
echo "$info" >"$AXON_OUT/odp-devinfo.log"
caps=$(echo "$info" | sed -n '/general_odp_caps:/,/completion_timestamp_mask\|hca_core_clock\|device_cap_flags_ex/p')
diag "$caps"
# odp_caps: supported, not implicit; RC: every operation
odp_caps_ok() {
	echo "$caps" | grep -qx '[[:space:]]*ODP_SUPPORT' &&
		! echo "$caps" | grep -q 'ODP_SUPPORT_IMPLICIT' &&
		for op in SEND RECV WRITE READ ATOMIC SRQ; do
			echo "$caps" | sed -n '/rc_odp_caps:/,/uc_odp_caps:/p' |
				grep -q "SUPPORT_$op\$" || return 1
		done
}
check "ibv_devinfo -v: ODP_SUPPORT (not implicit), RC every operation" \
	odp_caps_ok

faults=$(cat "/sys/class/infiniband/$RDMA_DEV/ports/1/hw_counters/odp_page_faults")
n=200
pt_run odp_pingpong 18740 ibv_rc_pingpong -d "$RDMA_DEV" -g "$GID_IDX" \
	-s 16384 -n $n -o -c
ok=0
pt_sides_ok "ibv_rc_pingpong -o" "iters in" && ok=1
check "ibv_rc_pingpong -o -c: ODP MRs, 16 KiB messages ($PT_SIDE)" [ $ok = 1 ]

pt_run odp_prefetch_pingpong 18741 ibv_rc_pingpong -d "$RDMA_DEV" \
	-g "$GID_IDX" -s 16384 -n $n -o -P -c
ok=0
pt_sides_ok "ibv_rc_pingpong -o -P" "iters in" && ok=1
check "ibv_rc_pingpong -o -P -c: ODP MRs prefetched ($PT_SIDE)" [ $ok = 1 ]

stat=$(rdma statistic show link "$RDMA_DEV/1" 2>&1)
diag "$(echo "$stat" | tr ' ' '\n' | grep -A1 '^odp_' | paste -sd ' ')"
now=$(echo "$stat" | sed -n 's/.* odp_page_faults \([0-9]*\).*/\1/p')
check "rdma statistic: odp_page_faults grew ($faults -> ${now:-none})" \
	[ "${now:-0}" -gt "$faults" ]
finish
