/*
 * axon simulator: the engine's trace points, which the simulator does not
 * trace (its figures come from the engine's counters and its own)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-env.h"

#define SIM_TRACE_DEFINE(name, params, args) \
    void axon_trace_##name(AxonEnv *env, AXON_ENV_UNPAREN params) {}
AXON_ENV_TRACE_EVENTS(SIM_TRACE_DEFINE)
#undef SIM_TRACE_DEFINE
