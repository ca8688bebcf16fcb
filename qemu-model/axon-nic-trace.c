/*
 * axon-nic: the RDMA engine's trace points as QEMU trace events
 *
 * The engine names its trace points in engine/axon-env.h
 * (AXON_ENV_TRACE_EVENTS); each one here forwards to the QEMU trace
 * event of the same name with the prefix axon_nic_ (trace-events), so
 * -trace axon_nic_roce_* and the other backends see them as before.
 * Nothing here calls the engine.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "trace.h"

#include "engine/axon-env.h"

/* A device has one engine: env adds nothing QEMU's trace needs. */
#define AXON_NIC_TRACE_FORWARD(name, params, args) \
    void axon_trace_##name(AxonEnv *env, AXON_ENV_UNPAREN params) \
    { \
        trace_axon_nic_##name args; \
    }
AXON_ENV_TRACE_EVENTS(AXON_NIC_TRACE_FORWARD)
