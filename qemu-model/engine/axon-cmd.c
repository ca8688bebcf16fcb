/*
 * axon engine: what every admin command shares
 *
 * A command the driver got wrong is refused with BAD_PARAM, reported as a
 * guest error and traced, whichever object it names; the guest error is
 * formatted here for the host (AxonEnvOps.guest_error).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <stdarg.h>
#include <stdio.h>

#include "axon-rdma.h"

uint16_t axon_engine_bad_cmd(AxonEngine *eng, uint16_t opcode,
                             const char *why)
{
    axon_env_guest_error(eng->env, "admin opcode %u: %s\n", opcode, why);
    axon_trace_err_rdma_cmd(eng->env, opcode, why);
    return AXON_ADMIN_BAD_PARAM;
}

void axon_env_guest_error(AxonEnv *env, const char *fmt, ...)
{
    char msg[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    env->ops->guest_error(env, msg);
}
