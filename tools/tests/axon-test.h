/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the test programs in tools/tests share: one "PASS what" or
 * "FAIL what" line per check, counted, and the verdict at the end.
 */
#ifndef AXON_TEST_H
#define AXON_TEST_H

#include <stdbool.h>

struct ibv_context;

/* Prints PASS or FAIL what; a FAIL counts. */
void check(bool ok, const char *what);

/* PASS if the call failed with errno want; prints the errno it saw. */
void expect_errno(bool failed, int err, int want, const char *what);

/* Prints "N failed"; the exit status: 0 if nothing failed, else 1. */
int test_verdict(void);

/* The RDMA device called name, opened; NULL if there is none (-libverbs). */
struct ibv_context *open_device(const char *name);

#endif /* AXON_TEST_H */
