// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The TAP emitter of the axon test programs; see tap.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"

static unsigned int planned, ran, failed, skipped;
static bool have_plan;

void tap_plan(unsigned int n)
{
	planned = n;
	have_plan = true;
	printf("1..%u\n", n);
	fflush(stdout);
}

/* A name on one line, its '#' escaped (it would start a directive). */
static void put_name(const char *fmt, va_list ap)
{
	char name[512], *p;

	vsnprintf(name, sizeof(name), fmt, ap);
	for (p = name; *p; p++) {
		if (*p == '\n')
			*p = ' ';
		if (*p == '#')
			putchar('\\');
		putchar(*p);
	}
}

bool tap_ok(bool ok, const char *fmt, ...)
{
	va_list ap;

	ran++;
	if (!ok)
		failed++;
	printf("%s %u ", ok ? "ok" : "not ok", ran);
	va_start(ap, fmt);
	put_name(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return ok;
}

void tap_skip(const char *why, const char *fmt, ...)
{
	va_list ap;

	ran++;
	skipped++;
	printf("ok %u ", ran);
	va_start(ap, fmt);
	put_name(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s\n", why);
	fflush(stdout);
}

void tap_diag(const char *fmt, ...)
{
	char text[4096], *line, *save;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		printf("# %s\n", line);
	fflush(stdout);
}

void tap_bail(const char *fmt, ...)
{
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

unsigned int tap_failures(void)
{
	return failed;
}

int tap_done(void)
{
	printf("# %u passed, %u failed, %u skipped\n", ran - failed - skipped,
	       failed, skipped);
	if (!have_plan)
		printf("# no plan\n");
	else if (ran != planned)
		printf("# planned %u, ran %u\n", planned, ran);
	fflush(stdout);
	return failed || !have_plan || ran != planned ? 1 : 0;
}
