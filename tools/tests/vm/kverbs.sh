#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Kernel verbs on axon0 (tools/tests/kverbs/axon-kverbs-test.ko, built with
# the modules): PD with its DMA MR, CQ with a completion handler, RC QPs
# connected on the device, SEND/RECV, inline, events, query_qp, reuse
# after RESET, ib_drain_qp, a kernel SRQ, UD QPs with address handles,
# fast registration (REG_MR, the peer's WRITE and READ through the key,
# SEND_WITH_INV and LOCAL_INV, the stale key refused), UC QPs, teardown.
# The module prints TAP to the kernel log; it is relayed here as a
# subtest.
set -u
. "$(dirname "$0")/lib.sh"

# built next to axon.ko: the work tree's, or the debug kernel's copy
ko=${AXON_KO%/drivers/axon/axon.ko}/tools/tests/kverbs/axon-kverbs-test.ko
# ib_create_ah_from_wc() resolves the sender's MAC through the IP stack,
# which does not know a link-local address still in duplicate address
# detection: the netdev came up just before this command.
no_tentative() {
	[ -z "$(ip -6 addr show dev "$(axon_netdev)" tentative)" ]
}
plan 1
wait_for 30 no_tentative || echo "# $(axon_netdev): an address is still tentative"
echo "axon-kverbs-test: start" > /dev/kmsg
insmod "$ko"
rc=$?
echo "    # Subtest: axon-kverbs-test"
dmesg -t | sed -n '/axon-kverbs-test: start/,$p' |
	grep -E '^(1\.\.[0-9]+$|(not )?ok [0-9]+ |# |Bail out!)' | sed 's/^/    /'
check "axon-kverbs-test" [ $rc -eq 0 ]
finish
