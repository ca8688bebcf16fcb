// SPDX-License-Identifier: GPL-2.0
/* The errno check of the test programs (axon-test.h). */
#include <string.h>

#include "axon-test.h"

bool expect_errno(bool failed, int err, int want, const char *what)
{
	return tap_ok(failed && err == want, "%s: %s (want %s)", what,
		      failed ? strerror(err) : "succeeded", strerror(want));
}
