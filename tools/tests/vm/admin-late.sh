#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run with the model's x-admin-delay-us hook: every admin command is
# answered after the driver has stopped polling for it (1 ms), so each
# waiter sleeps until the admin interrupt, which the driver enables only
# while one sleeps (from the driver's load on). The basic verbs pass,
# their waits ended by that interrupt, and the kernel logs no warning (an
# unbalanced enable_irq would).
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/rdma-lib.sh"

pt_require_rdma
plan 3
before=$(admin_irqs)
subtest "axon-verbs-basic, each command answered late" \
	"$AXON_REPO/tools/tests/axon-verbs-basic" axon0
after=$(admin_irqs)
diag "admin interrupts: $before at the start, $after after the verbs"
check "the admin interrupt woke the waiters" [ "$after" -gt "$before" ]
check "no kernel warning" kernel_quiet
finish
