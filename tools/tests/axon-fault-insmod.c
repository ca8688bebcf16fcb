// SPDX-License-Identifier: GPL-2.0
/*
 * axon-fault-insmod: load a kernel module with fault injection on
 * (tools/tests/vm/fault-inject.sh): the module's init, and the PCI probe
 * it runs, are in this process's context, so with AXON_FAULT_INJECT=1
 * (fault_injection_begin(), axon-test.h) the kernel may fail their
 * allocations. Injection starts right before finit_module(): an insmod
 * started with make-it-fail set would have its exec and dynamic loading
 * fail instead, and die of it (SIGSEGV past exec's point of no return).
 *
 * Usage: axon-fault-insmod MODULE.ko [PARAMS]
 * Prints "insmod MODULE.ko: ok" or "insmod MODULE.ko: <strerror>"; exits
 * 0 if the module loaded, 1 if it did not, 2 on a usage or set-up error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "axon-test.h"

int main(int argc, char **argv)
{
	const char *params = argc > 2 ? argv[2] : "";
	int fd, rc, err;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: axon-fault-insmod MODULE.ko [PARAMS]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	/* strerror's and printf's pages are mapped before the failures start */
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(NULL, 0, "%s", strerror(ENOMEM));
	fault_injection_begin();
	rc = syscall(SYS_finit_module, fd, params, 0);
	err = errno;
	fault_injection_end();
	printf("insmod %s: %s\n", argv[1], rc ? strerror(err) : "ok");
	return rc ? 1 : 0;
}
