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

#define AXON_NIC_TRACE_FORWARD(name, params, args) \
    void axon_trace_##name params \
    { \
        trace_axon_nic_##name args; \
    }
AXON_ENV_TRACE_EVENTS(AXON_NIC_TRACE_FORWARD)
