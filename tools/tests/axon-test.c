// SPDX-License-Identifier: GPL-2.0
/* PASS/FAIL lines and the verdict of the test programs (axon-test.h). */
#include <stdio.h>
#include <string.h>

#include "axon-test.h"

static int failures;

void check(bool ok, const char *what)
{
	printf("%s %s\n", ok ? "PASS" : "FAIL", what);
	if (!ok)
		failures++;
}

void expect_errno(bool failed, int err, int want, const char *what)
{
	bool ok = failed && err == want;

	printf("%s %s: %s (want %s)\n", ok ? "PASS" : "FAIL", what,
	       failed ? strerror(err) : "succeeded", strerror(want));
	if (!ok)
		failures++;
}

int test_verdict(void)
{
	printf("%d failed\n", failures);
	return failures ? 1 : 0;
}
