// SPDX-License-Identifier: GPL-2.0
/* The errno check and the fault-injection start of the test programs. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "axon-test.h"

bool expect_errno(bool failed, int err, int want, const char *what)
{
	return tap_ok(failed && err == want, "%s: %s (want %s)", what,
		      failed ? strerror(err) : "succeeded", strerror(want));
}

/* /proc/self/make-it-fail, open while fault injection is on */
static int make_it_fail = -1;

void fault_injection_end(void)
{
	int i;

	if (make_it_fail < 0)
		return;
	/* the write's own copy from user space may be failed: retry */
	for (i = 0; i < 100; i++)
		if (pwrite(make_it_fail, "0", 1, 0) == 1)
			break;
	close(make_it_fail);
	make_it_fail = -1;
}

void fault_injection_begin(void)
{
	const char *on = getenv("AXON_FAULT_INJECT");

	if (!on || strcmp(on, "1") || make_it_fail >= 0)
		return;
	/*
	 * Every page mapped so far (the program and its libraries, on the
	 * VM's 9p root) in memory and kept there: a page fault on a file
	 * page whose read fails kills the process with SIGBUS, which would
	 * be the mm's doing, not the driver's.
	 */
	if (mlockall(MCL_CURRENT)) {
		fprintf(stderr, "fault injection: mlockall: %s\n",
			strerror(errno));
		exit(2);
	}
	make_it_fail = open("/proc/self/make-it-fail", O_WRONLY | O_CLOEXEC);
	if (make_it_fail < 0 || atexit(fault_injection_end) ||
	    write(make_it_fail, "1", 1) != 1) {
		fprintf(stderr, "fault injection: /proc/self/make-it-fail: %s\n",
			strerror(errno));
		exit(2);
	}
}
