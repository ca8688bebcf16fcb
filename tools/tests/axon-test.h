/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the test programs in tools/tests share: their results are TAP
 * (tap.h: tap_plan, tap_ok, tap_done), an errno check, opening a device,
 * the start of kernel fault injection.
 */
#ifndef AXON_TEST_H
#define AXON_TEST_H

#include <stdbool.h>

#include "tap.h"

struct ibv_context;

/* ok if the call failed with errno want; names the errno it saw. */
bool expect_errno(bool failed, int err, int want, const char *what);

/* The RDMA device called name, opened; NULL if there is none (-libverbs). */
struct ibv_context *open_device(const char *name);

/*
 * With AXON_FAULT_INJECT=1 in the environment: from here on the kernel's
 * fault injection (failslab, fail_page_alloc, fail_usercopy with
 * task-filter set, tools/tests/vm/fault-inject.sh) may fail this process's
 * allocations, i.e. /proc/self/make-it-fail is 1. Called once the program
 * has started and found its device, so that the failures land in the
 * driver's calls rather than in the dynamic loader; the pages mapped so
 * far are locked in memory first (mlockall), so that no later fault on
 * them has to read a file. Exits with status 2 if either fails: the run
 * would test nothing, or the wrong thing. Without the variable it does
 * nothing. Injection ends with fault_injection_end(), at the latest at
 * exit(): the files the process closes as it exits are on 9p, whose
 * client does not survive failed allocations.
 */
void fault_injection_begin(void);
void fault_injection_end(void);

#endif /* AXON_TEST_H */
