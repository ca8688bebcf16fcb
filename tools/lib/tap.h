/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * TAP output of the axon test programs (Documentation/testing.rst): the
 * plan first ("1..N"), then one "ok N name" / "not ok N name" /
 * "ok N name # SKIP why" line per result, diagnostics as "# ..." lines,
 * and a verdict that fails the run if a result failed or if the number of
 * results differs from the plan. tools/axon-check compares every stream
 * with its plan, so a program that dies early is seen.
 *
 * Output goes to stdout, flushed line by line; one thread reports.
 */
#ifndef AXON_TAP_H
#define AXON_TAP_H

#include <stdbool.h>

#define TAP_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Print the plan "1..n"; call it once, before the first result. */
void tap_plan(unsigned int n);

/* Report one result: "ok N name" or "not ok N name". Returns ok. */
bool tap_ok(bool ok, const char *fmt, ...) TAP_PRINTF(2, 3);

/* Report a skipped case: "ok N name # SKIP why". */
void tap_skip(const char *why, const char *fmt, ...) TAP_PRINTF(2, 3);

/* A diagnostic: every line of it printed as "# line". */
void tap_diag(const char *fmt, ...) TAP_PRINTF(1, 2);

/* "Bail out! why": the program stops here (it exits afterwards). */
void tap_bail(const char *fmt, ...) TAP_PRINTF(1, 2);

/* The results so far that failed. */
unsigned int tap_failures(void);

/*
 * The verdict: "# N passed, N failed, N skipped" (and "# planned N, ran M"
 * if those differ). Returns the exit status: 0 if every planned result
 * ran and none failed, else 1.
 */
int tap_done(void);

#endif /* AXON_TAP_H */
