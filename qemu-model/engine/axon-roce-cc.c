/*
 * axon engine: congestion control for RC, DCQCN (Zhu et al., SIGCOMM 2015)
 *
 * With the dcqcn property on, the device marks the RC packets it sends
 * ECN-capable (ECT(0)). As notification point, a responder or completer
 * that receives a packet the fabric marked Congestion Experienced
 * answers its peer QP with a CNP, at most one per QP every dcqcn-cnp-us.
 * As reaction point, a QP that receives a CNP cuts its sending rate by
 * alpha / 2, its estimate of how congested the path is, and raises
 * alpha; without CNPs, alpha decays every dcqcn-alpha-us, and the rate
 * climbs back, every dcqcn-increase-us and every dcqcn-byte-reset bytes
 * sent: halfway to the rate before the cut for five steps (fast
 * recovery), then with its target raised by dcqcn-rai (additive) and,
 * once both counts passed five, by dcqcn-rhai (hyper). A QP back at
 * dcqcn-line-rate is not paced at all.
 *
 * The timers are kept lazily: each is brought up to date from the time
 * of its last step when the QP sends or takes a CNP, so an idle QP costs
 * nothing. The pacing is a virtual-time schedule per QP: a packet of L
 * bytes moves the QP's next departure L * 8 / rate later; the engine
 * gives a paced QP only the packets that are due, and its pace timer
 * puts it back on the engine when the next one is.
 *
 * A CNP carries nothing a forger could not guess (IBA A17.9.3): it is
 * taken only from the QP's peer (its source address), for an RC QP in
 * RTR or RTS, and can only slow the QP down to dcqcn-min-rate; it never changes
 * the QP's state or touches memory. A QP cuts its rate for at most one CNP
 * every dcqcn-cnp-us (what DCQCN NICs call the rate reduce monitor
 * period): the peer's notification point sends no more often than that,
 * so a flood of forged CNPs cuts no deeper than the peer's own would.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce.h"

#define AXON_CC_ALPHA_ONE       (1u << 16)      /* alpha's fixed point 1.0 */
#define AXON_CC_RECOVERY_STEPS  5               /* DCQCN's F */
#define AXON_CC_BURST           16              /* packets due at once */
#define AXON_CC_WIRE_OVERHEAD   66              /* Ethernet to ICRC, IPv4 */
/* Steps a timer takes at once; after more, alpha or the rate has settled */
#define AXON_CC_MAX_STEPS       64
#define AXON_CC_MAX_ALPHA_STEPS (16 << 16)

static const AxonCcConf *axon_cc_conf(AxonEngine *eng)
{
    return &eng->conf.cc;
}

/* ns for @bytes at @rate_mbps */
static int64_t axon_cc_time_ns(uint64_t bytes, uint32_t rate_mbps)
{
    return bytes * 8000 / MAX(rate_mbps, 1);
}

/*
 * One rate increase (the timer's or the byte counter's): fast recovery
 * towards the target, then additive or hyper increase of the target.
 */
static void axon_cc_increase(const AxonCcConf *c, AxonCcQp *cc)
{
    uint32_t lo = MIN(cc->timer_steps, cc->byte_steps);
    uint32_t hi = MAX(cc->timer_steps, cc->byte_steps);
    uint64_t target = cc->target;

    if (lo > AXON_CC_RECOVERY_STEPS) {
        target += c->rhai;
    } else if (hi > AXON_CC_RECOVERY_STEPS) {
        target += c->rai;
    }
    cc->target = MIN(target, c->line_rate);
    /* rounded up, so that it reaches the target */
    cc->rate = ((uint64_t)cc->rate + cc->target + 1) / 2;
    if (cc->rate >= c->line_rate) {
        cc->limited = false;
    }
}

/* Brings alpha's decay and the rate increase timer up to @now. */
static void axon_cc_catch_up(const AxonCcConf *c, AxonCcQp *cc, int64_t now)
{
    int64_t alpha_ns = MAX((int64_t)c->alpha_us * SCALE_US, 1);
    int64_t incr_ns = MAX((int64_t)c->increase_us * SCALE_US, 1);
    int64_t n;

    n = (now - cc->alpha_ns) / alpha_ns;
    cc->alpha_ns += n * alpha_ns;
    if (n > AXON_CC_MAX_ALPHA_STEPS) {
        cc->alpha = 0;
    }
    for (; n > 0 && cc->alpha; n--) {
        cc->alpha -= MAX(cc->alpha >> c->g_shift, 1);
    }
    n = (now - cc->incr_ns) / incr_ns;
    cc->incr_ns += n * incr_ns;
    for (n = MIN(n, AXON_CC_MAX_STEPS); n > 0 && cc->limited; n--) {
        cc->timer_steps++;
        axon_cc_increase(c, cc);
    }
}

/*
 * Reaction point: a CNP for @qp (RTR or RTS) from its peer. Only a QP in
 * RTS sends requests to pace; in RTR (a responder only) it is counted.
 */
void axon_cc_cnp_rx(AxonEngine *eng, AxonQp *qp)
{
    const AxonCcConf *c = axon_cc_conf(eng);
    AxonCcQp *cc = &qp->cc;
    int64_t now = axon_env_now_ns(eng->env);

    eng->stats.cnp_rcvd++;
    if (!axon_cc_enabled(eng) || qp->type != AXON_QPT_RC ||
        qp->state != AXON_QPS_RTS) {
        return;
    }
    if (cc->limited && now - cc->cut_ns < (int64_t)c->cnp_us * SCALE_US) {
        axon_trace_cc_cnp_ignored(eng->env, qp->qpn, now - cc->cut_ns);
        return;
    }
    if (!cc->limited) {
        /* the first cut since line rate: alpha starts at 1, a halving */
        cc->limited = true;
        cc->rate = c->line_rate;
        cc->alpha = AXON_CC_ALPHA_ONE;
        cc->next_tx_ns = now;
    } else {
        axon_cc_catch_up(c, cc, now);
    }
    cc->target = cc->rate;
    cc->rate -= (uint64_t)cc->rate * cc->alpha / (2 * AXON_CC_ALPHA_ONE);
    cc->rate = MAX(cc->rate, c->min_rate);
    cc->alpha += (AXON_CC_ALPHA_ONE - cc->alpha) >> c->g_shift;
    cc->alpha_ns = cc->incr_ns = cc->cut_ns = now;
    cc->timer_steps = cc->byte_steps = 0;
    cc->bytes = 0;
    axon_trace_cc_cnp(eng->env, qp->qpn, cc->rate, cc->alpha);
}

/*
 * Notification point: @pkt arrived for @qp from its peer. A packet the
 * fabric marked CE is counted, and answered with a CNP to the sending QP
 * unless this QP sent one within dcqcn-cnp-us.
 */
void axon_cc_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt)
{
    int64_t now, gap;
    AxonPkt cnp = {
        .opcode = IB_CNP,
        .dqpn = le32_to_cpu(qp->attr.dest_qpn),
    };

    if (pkt->ecn != AXON_ECN_CE) {
        return;
    }
    eng->stats.ecn_marked++;
    if (!axon_cc_enabled(eng) || qp->type != AXON_QPT_RC ||
        (qp->state != AXON_QPS_RTR && qp->state != AXON_QPS_RTS)) {
        return;
    }
    now = axon_env_now_ns(eng->env);
    gap = (int64_t)eng->conf.cc.cnp_us * SCALE_US;
    if (qp->cc.cnp_sent && now - qp->cc.last_cnp_ns < gap) {
        return;
    }
    qp->cc.cnp_sent = true;
    qp->cc.last_cnp_ns = now;
    eng->stats.cnp_sent++;
    axon_roce_xmit(eng, qp, &cnp);
}

/* Packets @qp may send now, of the @budget the engine gives it. */
unsigned axon_cc_allowance(AxonEngine *eng, AxonQp *qp, unsigned budget)
{
    const AxonCcConf *c = axon_cc_conf(eng);
    AxonCcQp *cc = &qp->cc;
    int64_t now, pkt_ns;

    if (!cc->limited) {
        return budget;
    }
    now = axon_env_now_ns(eng->env);
    axon_cc_catch_up(c, cc, now);
    if (!cc->limited) {
        return budget;
    }
    pkt_ns = MAX(axon_cc_time_ns(qp->mtu + AXON_CC_WIRE_OVERHEAD, cc->rate),
                 1);
    /* an idle QP does not save up more than a burst */
    cc->next_tx_ns = MAX(cc->next_tx_ns, now - AXON_CC_BURST * pkt_ns);
    if (cc->next_tx_ns > now) {
        return 0;
    }
    return MIN(budget, 1 + (now - cc->next_tx_ns) / pkt_ns);
}

/*
 * @qp sent @pkts packets of @bytes payload: its next departure moves on,
 * the byte counter counts them; with @more to send, the pace timer
 * brings it back to the engine when the next packet is due.
 */
void axon_cc_sent(AxonEngine *eng, AxonQp *qp, unsigned pkts, uint64_t bytes,
                  bool more)
{
    const AxonCcConf *c = axon_cc_conf(eng);
    AxonCcQp *cc = &qp->cc;

    if (!cc->limited) {
        return;
    }
    bytes += (uint64_t)pkts * AXON_CC_WIRE_OVERHEAD;
    cc->next_tx_ns += axon_cc_time_ns(bytes, cc->rate);
    cc->bytes += bytes;
    while (c->byte_reset && cc->bytes >= c->byte_reset && cc->limited) {
        cc->bytes -= c->byte_reset;
        cc->byte_steps++;
        axon_cc_increase(c, cc);
    }
    if (more && cc->limited) {
        axon_env_timer_mod(cc->pace_timer, cc->next_tx_ns);
    }
}

static void axon_cc_pace_timer(void *opaque)
{
    AxonQp *qp = opaque;

    if (axon_env_running(qp->eng->env) && qp->state == AXON_QPS_RTS) {
        axon_roce_schedule(qp->eng, qp);
    }
}

/* Is @qp paced, its timers brought up to now (QUERY_QP_LIVE)? */
bool axon_cc_paced(AxonEngine *eng, AxonQp *qp)
{
    if (qp->cc.limited) {
        axon_cc_catch_up(axon_cc_conf(eng), &qp->cc,
                         axon_env_now_ns(eng->env));
    }
    return qp->cc.limited;
}

void axon_cc_qp_init(AxonQp *qp)
{
    qp->cc.pace_timer = axon_env_timer_new(qp->eng->env, axon_cc_pace_timer,
                                           qp);
}

/* To line rate, as a QP starts sending (RTS) */
void axon_cc_qp_reset(AxonQp *qp)
{
    AxonTimer *t = qp->cc.pace_timer;

    axon_env_timer_del(t);
    memset(&qp->cc, 0, sizeof(qp->cc));
    qp->cc.pace_timer = t;
}

void axon_cc_qp_free(AxonQp *qp)
{
    axon_env_timer_free(qp->cc.pace_timer);
}
