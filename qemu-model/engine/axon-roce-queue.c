/*
 * axon engine: the engine's queues of QPs
 *
 * A QP with work to do is scheduled (the host is asked to run the
 * engine); a QP whose responder owes an ACK waits on the ACK queue until
 * the engine's batch ends, so ACKs coalesce. Both are only lists: the
 * engine's run (axon-roce-sched.c) does the work.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce.h"

void axon_roce_schedule(AxonEngine *eng, AxonQp *qp)
{
    if (!qp->scheduled) {
        qp->scheduled = true;
        TAILQ_INSERT_TAIL(&eng->sched, qp, sched);
    }
    axon_env_kick(eng->env);
}

void axon_roce_ack_later(AxonEngine *eng, AxonQp *qp)
{
    if (!qp->in_acks) {
        qp->in_acks = true;
        TAILQ_INSERT_TAIL(&eng->acks, qp, acks);
    }
    /* a running engine sends it when its batch ends */
    if (!eng->engine_busy) {
        axon_env_kick(eng->env);
    }
}

/* Takes the QP off both queues (it stops, or is destroyed). */
void axon_roce_unqueue(AxonEngine *eng, AxonQp *qp)
{
    if (qp->scheduled) {
        TAILQ_REMOVE(&eng->sched, qp, sched);
        qp->scheduled = false;
    }
    if (qp->in_acks) {
        TAILQ_REMOVE(&eng->acks, qp, acks);
        qp->in_acks = false;
    }
}
