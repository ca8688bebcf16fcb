// SPDX-License-Identifier: GPL-2.0
/* The wire programs' clock and stop (axon-wire.h). */

#include <time.h>

#include "axon-wire.h"

volatile sig_atomic_t axon_wire_stopping;

double axon_wire_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void on_signal(int sig)
{
	(void)sig;
	axon_wire_stopping = 1;
}

void axon_wire_stop_on_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}
