/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the VM fabric's wire programs (axon-switch, axon-relay) share: the
 * clock they time frames by, and a stop asked for by SIGTERM or SIGINT
 * (the harness's), after which they write their counters.
 */
#ifndef AXON_WIRE_H
#define AXON_WIRE_H

#include <signal.h>

/* set once SIGTERM or SIGINT came, after axon_wire_stop_on_signals() */
extern volatile sig_atomic_t axon_wire_stopping;

/* seconds on CLOCK_MONOTONIC */
double axon_wire_now(void);
void axon_wire_stop_on_signals(void);

#endif /* AXON_WIRE_H */
