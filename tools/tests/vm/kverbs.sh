#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Kernel verbs on axon0 (tools/tests/kverbs/axon-kverbs-test.ko, built with
# the modules): PD with its DMA MR, CQ with a completion handler, RC QPs
# connected on the device, SEND/RECV, inline, events, query_qp, reuse
# after RESET, ib_drain_qp, teardown.
set -u
. "$(dirname "$0")/lib.sh"

# built next to axon.ko: the work tree's, or the debug kernel's copy
ko=${AXON_KO%/drivers/axon/axon.ko}/tools/tests/kverbs/axon-kverbs-test.ko
echo "axon-kverbs-test: start" > /dev/kmsg
insmod "$ko" || failures=$((failures + 1))
dmesg | sed -n '/axon-kverbs-test: start/,$p' | grep -E '(PASS|FAIL) ' |
	sed 's/^\[ *[0-9.]*\] //'
failures=$((failures + $(dmesg | sed -n '/axon-kverbs-test: start/,$p' |
	grep -c 'FAIL ')))
finish
