/*
 * axon engine: the RUD sender's planes, window and timer
 *
 * Which plane a packet goes out on (round robin over the planes the
 * sender trusts; one that loses several in a row is avoided for a while),
 * the round trip estimate, the congestion window after NSCC (delay and
 * ECN), and the one timer that catches what SACKs cannot.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce-rud.h"

/* ---- planes -------------------------------------------------------------- */

/*
 * The plane for the next packet: the next trusted one round robin (up,
 * and not avoided); for a packet sent again, another than its last if
 * one is trusted; if none is, the one up whose avoidance ends first.
 */
unsigned axon_rud_pick_plane(AxonEngine *eng, AxonRud *r, int not)
{
    int64_t now = axon_rud_now(r), soonest = INT64_MAX;
    uint32_t up = axon_env_planes_up(eng->env);
    unsigned n = eng->conf.planes, i, k, best = r->rr % n;
    int pass;

    for (pass = 0; pass < 2; pass++) {
        for (i = 0; i < n; i++) {
            k = (r->rr + i) % n;
            if ((pass || (int)k != not) && (up & (1u << k)) &&
                r->avoid_until[k] <= now) {
                r->rr = k + 1;
                return k;
            }
        }
    }
    for (k = 0; k < n; k++) {
        if ((up & (1u << k)) && r->avoid_until[k] < soonest) {
            soonest = r->avoid_until[k];
            best = k;
        }
    }
    r->rr = best + 1;
    return best;
}

/*
 * A packet sent on plane k was lost. Random loss hits every plane alike
 * and moves nothing; a plane that loses several in a row, with none
 * arriving, is avoided, longer each time it does it again.
 */
static void axon_rud_plane_lost(AxonRud *r, unsigned k)
{
    int64_t now = axon_rud_now(r);

    if (++r->lost_run[k] < AXON_RUD_PLANE_LOSSES ||
        r->avoid_until[k] > now) {
        return;
    }
    r->avoid_ns[k] = r->avoid_ns[k] ?
                     MIN(r->avoid_ns[k] * 2, r->t->avoid_max_ns) :
                     MAX(2 * r->srtt_ns, r->t->avoid_min_ns);
    r->avoid_until[k] = now + r->avoid_ns[k];
}

/*
 * A UDP source port that hashes to plane k (Planes, axon_regs_defs.h) and,
 * within the plane, changes with each PSN: the entropy a switch's ECMP
 * hashes, so that RUD, which needs no order, sprays over every path of the
 * plane too (an RC QP keeps one port, so one path).
 */
static uint16_t axon_rud_sport(AxonEngine *eng, AxonQp *qp, unsigned k,
                               uint32_t psn)
{
    unsigned span = 0x4000 / eng->conf.planes;

    return 0xc000 + k + eng->conf.planes * ((qp->qpn + psn) % span);
}

void axon_rud_xmit(AxonEngine *eng, AxonQp *qp, AxonPkt *pkt,
                   unsigned plane)
{
    AxonPath path;

    pkt->dqpn = le32_to_cpu(qp->attr.dest_qpn);
    axon_roce_qp_path(eng, qp, pkt, &path);
    path.ecn = AXON_ECN_ECT0;   /* the window reacts to marks */
    path.udp_sport = axon_rud_sport(eng, qp, plane, pkt->psn);
    axon_roce_xmit_path(eng, qp, pkt, &path);
}

/* ---- the window and the timer -------------------------------------------- */

static int64_t axon_rud_rto(AxonRud *r)
{
    if (!r->srtt_ns) {
        return r->t->rto_init_ns;
    }
    return MIN(MAX(r->srtt_ns + 4 * r->rttvar_ns, r->t->rto_min_ns),
               r->t->rto_max_ns);
}

void axon_rud_rtt(AxonRud *r, int64_t rtt)
{
    if (!r->srtt_ns) {
        r->srtt_ns = rtt;
        r->rttvar_ns = rtt / 2;
        r->base_rtt_ns = rtt;
        return;
    }
    r->rttvar_ns += (ABS(r->srtt_ns - rtt) - r->rttvar_ns) / 4;
    r->srtt_ns += (rtt - r->srtt_ns) / 8;
    r->base_rtt_ns = MIN(r->base_rtt_ns, rtt);
}

/* A round trip: the smoothed one, before the first sample the timeout. */
static int64_t axon_rud_trip(AxonRud *r)
{
    return r->srtt_ns ? r->srtt_ns : r->t->rto_init_ns;
}

static void axon_rud_cwnd_cut(AxonQp *qp, uint32_t num, uint32_t den,
                              const char *why)
{
    AxonRud *r = qp->rud;
    int64_t now = axon_rud_now(r);

    if (!r->cc || now - r->cut_ns < axon_rud_trip(r)) {
        return;                 /* once a round trip */
    }
    r->cut_ns = now;
    r->cwnd = MAX(r->cwnd - (uint64_t)r->cwnd * num / den,
                  AXON_RUD_CWND_MIN * AXON_RUD_CWND_ONE);
    axon_trace_rud_cwnd(r->env, qp->qpn, why, r->cwnd / AXON_RUD_CWND_ONE,
                        r->srtt_ns / SCALE_US, r->base_rtt_ns / SCALE_US);
}

/*
 * n packets acknowledged, ce of them marked: NSCC's four cases, by
 * whether the delay is over its target and whether packets were marked.
 */
void axon_rud_cwnd_acked(AxonQp *qp, unsigned n, unsigned ce)
{
    AxonRud *r = qp->rud;
    int64_t target = r->base_rtt_ns + r->t->target_q_ns;
    int64_t delay = r->srtt_ns, now = axon_rud_now(r);
    uint32_t pkts = MAX(r->cwnd / AXON_RUD_CWND_ONE, 1);

    if (!r->cc || !n) {
        return;
    }
    r->ep_acked += n;
    r->ep_marked += MIN(ce, n);
    if (ce) {
        if (delay > target) {
            /* queues build: back off in proportion to the excess */
            axon_rud_cwnd_cut(qp, MIN(delay - target, delay), 2 * delay,
                              "marked, over the target");
        }
    } else if (delay > target) {
        r->cwnd += n * AXON_RUD_CWND_ONE / pkts;    /* fair: one a trip */
    } else {
        /* up to AXON_RUD_CWND_GAIN a trip, by the room under the target */
        r->cwnd += (int64_t)n * AXON_RUD_CWND_ONE * AXON_RUD_CWND_GAIN *
                   (target - delay) / (target * pkts);
    }
    r->cwnd = MIN(r->cwnd, r->cwnd_max);
    /*
     * Marks under the target: a queue builds somewhere. Once a round trip,
     * by half the share of packets marked in it (as DCTCP does), so that
     * a few marks of a burst cost little and marks on all cost half.
     */
    if (now - r->ep_start_ns >= axon_rud_trip(r)) {
        if (r->ep_marked) {
            axon_rud_cwnd_cut(qp, r->ep_marked, 2 * r->ep_acked, "marked");
        }
        r->ep_start_ns = now;
        r->ep_acked = r->ep_marked = 0;
    }
}

/* When the timer gives up on a slot: the timeout, backed off. */
int64_t axon_rud_due(AxonRud *r, const AxonRudSlot *sl)
{
    return sl->sent_ns + (axon_rud_rto(r) << MIN(sl->expired, 6));
}

void axon_rud_arm(AxonRud *r, int64_t when)
{
    if (!axon_env_timer_pending(r->rto_timer) ||
        axon_env_timer_expires(r->rto_timer) > when) {
        axon_env_timer_mod(r->rto_timer, when);
    }
}

/*
 * SACK's rule, timed as RACK's (RFC 8985): a packet sent before one that
 * was acknowledged should have arrived a round trip of that one after it
 * was sent; it is lost once it is later than that by the reordering the
 * planes show (a quarter of the lowest round trip, late_min_ns at least).
 * A round trip, not counts of later packets: after a tail probe's ACK,
 * the last packets before it are lost at once, not at the timeout. When
 * that is, or 0 if the rule does not apply.
 */
int64_t axon_rud_late_at(AxonRud *r, const AxonRudSlot *sl)
{
    int64_t trip = r->acked_rtt_ns ? r->acked_rtt_ns : axon_rud_trip(r);

    if (!sl->live || sl->read || sl->queued || sl->seq >= r->acked_seq) {
        return 0;
    }
    return sl->sent_ns + trip + MAX(r->base_rtt_ns / 4, r->t->late_min_ns);
}

/* The packet at psn goes again, before anything new. */
static void axon_rud_resend(AxonEngine *eng, AxonQp *qp, AxonRudSlot *sl,
                            uint32_t psn)
{
    AxonRud *r = qp->rud;

    sl->queued = true;
    r->resend[(r->rs_head + r->rs_count++) & (r->nslots - 1)] = psn;
    axon_roce_schedule(eng, qp);
}

/*
 * A switch trimmed the packet: its plane queues, so it is avoided for a
 * round trip as for a mark, the window takes it as a packet marked (a
 * full queue's signal, as NSCC takes a trim), and it goes again now.
 */
void axon_rud_trimmed(AxonEngine *eng, AxonQp *qp, AxonRudSlot *sl,
                      uint32_t psn)
{
    AxonRud *r = qp->rud;

    if (sl->queued) {
        return;
    }
    axon_trace_rud_trimmed(eng->env, qp->qpn, psn, sl->plane);
    r->avoid_until[sl->plane] = MAX(r->avoid_until[sl->plane],
                                    axon_rud_now(r) + r->srtt_ns);
    axon_rud_cwnd_acked(qp, 1, 1);
    axon_rud_resend(eng, qp, sl, psn);
}

void axon_rud_queue(AxonEngine *eng, AxonQp *qp, AxonRudSlot *sl,
                    uint32_t psn, bool timer)
{
    AxonRud *r = qp->rud;

    if (sl->queued) {
        return;
    }
    axon_trace_rud_lost(eng->env, qp->qpn, psn, timer, sl->plane,
                        (axon_rud_now(r) - sl->sent_ns) / SCALE_US,
                        r->srtt_ns / SCALE_US, r->rttvar_ns / SCALE_US);
    axon_rud_plane_lost(r, sl->plane);
    axon_rud_resend(eng, qp, sl, psn);
}

/* A WQE is done once it is all sent and every packet of it answered. */
static void axon_rud_wqe_acked(AxonQp *qp, AxonSwqe *e)
{
    if (!--e->rud.left && e->idx != qp->req.cur && !e->done) {
        e->done = true;
        e->status = AXON_WC_SUCCESS;
    }
}

void axon_rud_slot_done(AxonQp *qp, AxonRudSlot *sl)
{
    AxonRud *r = qp->rud;

    sl->live = false;
    r->inflight--;
    r->avoid_ns[sl->plane] = 0;
    r->lost_run[sl->plane] = 0;
    if (sl->seq > r->acked_seq) {
        r->acked_seq = sl->seq;
        if (sl->tries == 1) {   /* a resent packet's trip is ambiguous */
            r->acked_rtt_ns = axon_rud_now(r) - sl->sent_ns;
        }
    }
    axon_rud_wqe_acked(qp, axon_win(qp, sl->wqe));
}

void axon_rud_advance_una(AxonRud *r)
{
    while (r->una != r->next_psn && !axon_rud_slot(r, r->una)->live) {
        r->una = axon_psn_add(r->una, 1);
    }
}

/*
 * The PSNs in flight fill the slots: twice as many, each slot in flight
 * moved to its PSN's place in the larger ring, the resend queue laid out
 * afresh. False at AXON_RUD_WINDOW or out of memory: the sender waits.
 */
bool axon_rud_grow(AxonRud *r)
{
    uint32_t n = r->nslots * 2, psn;
    AxonRudSlot *slot;
    uint32_t *resend;
    unsigned i;

    if (n > AXON_RUD_WINDOW) {
        return false;
    }
    slot = axon_new0(AxonRudSlot, n);
    resend = axon_new0(uint32_t, n);
    if (!slot || !resend) {
        free(slot);
        free(resend);
        return false;
    }
    for (psn = r->una; psn != r->next_psn; psn = axon_psn_add(psn, 1)) {
        slot[psn & (n - 1)] = *axon_rud_slot(r, psn);
    }
    for (i = 0; i < r->rs_count; i++) {
        resend[i] = r->resend[(r->rs_head + i) & (r->nslots - 1)];
    }
    free(r->slot);
    free(r->resend);
    r->slot = slot;
    r->resend = resend;
    r->nslots = n;
    r->rs_head = 0;
    return true;
}

/* A WQE fails; it completes (in order) and the QP goes to ERR. */
void axon_rud_fail(AxonEngine *eng, AxonQp *qp, AxonSwqe *e,
                   uint8_t status)
{
    axon_roce_fail(qp, e, status);
    axon_roce_complete(eng, qp);
}

/* How long after the last packet sent, with no news, a probe goes. */
int64_t axon_rud_pto(AxonRud *r)
{
    return MAX(2 * r->srtt_ns, r->t->late_min_ns);
}

/*
 * A tail loss probe: a burst lost whole at a full queue leaves no later
 * packet whose SACK could tell, and the timeout is long. So when nothing
 * was acknowledged for a probe time after the last packet sent (psn, the
 * newest send in flight, when no later one was acknowledged: a packet
 * sent again counts, so one lost again at a message's end is found too),
 * that packet goes again, asking for an ACK, whose SACK then names what
 * is missing. Once per ACK that brought news; returns when to look again
 * (INT64_MAX: not before news).
 */
static int64_t axon_rud_probe(AxonEngine *eng, AxonQp *qp, int64_t now,
                              uint32_t psn)
{
    AxonRud *r = qp->rud;
    AxonRudSlot *sl = axon_rud_slot(r, psn);
    int64_t at = sl->sent_ns + axon_rud_pto(r);

    if (r->probe_seq == r->acked_seq) {
        return INT64_MAX;
    }
    if (now < at) {
        return at;
    }
    r->probe_seq = r->acked_seq;
    axon_trace_rud_probe(eng->env, qp->qpn, psn,
                         (now - sl->sent_ns) / SCALE_US);
    axon_rud_resend(eng, qp, sl, psn);
    return INT64_MAX;
}

void axon_rud_timer(void *opaque)
{
    AxonQp *qp = opaque;
    AxonEngine *eng = qp->eng;
    AxonRud *r = qp->rud;
    int64_t now = axon_rud_now(r), next = INT64_MAX;
    bool lost = false;
    uint32_t psn, newest_psn = 0;
    uint64_t newest_seq = 0;

    if (!axon_env_running(eng->env) || qp->state != AXON_QPS_RTS) {
        return;
    }
    for (psn = r->una; psn != r->next_psn; psn = axon_psn_add(psn, 1)) {
        AxonRudSlot *sl = axon_rud_slot(r, psn);
        int64_t due = axon_rud_due(r, sl), late = axon_rud_late_at(r, sl);

        if (!sl->live || sl->queued) {
            continue;
        }
        if (late && now > late) {
            axon_rud_queue(eng, qp, sl, psn, false);
            continue;
        }
        if (now < due) {
            next = MIN(next, late ? MIN(due, late + 1) : due);
            if (!sl->read && sl->seq > newest_seq) {
                newest_seq = sl->seq;
                newest_psn = psn;
            }
            continue;
        }
        if (++sl->expired > qp->attr.retry_cnt + 1) {
            axon_trace_roce_timeout(eng->env, qp->qpn, psn, 0);
            axon_rud_fail(eng, qp, axon_win(qp, sl->wqe),
                          AXON_WC_RETRY_EXC_ERR);
            return;
        }
        lost = true;
        axon_rud_queue(eng, qp, sl, psn, true);
    }
    if (lost) {
        qp->stats.timeouts++;
        axon_rud_cwnd_cut(qp, 1, 2, "timeout");
    } else if (newest_seq > r->acked_seq) {
        next = MIN(next, axon_rud_probe(eng, qp, now, newest_psn));
    }
    if (next != INT64_MAX) {
        axon_env_timer_mod(r->rto_timer, next);
    }
}
