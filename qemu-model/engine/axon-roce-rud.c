/*
 * axon engine: the RUD service, reliable unordered delivery over the planes
 *
 * Send: a RUD QP's WQEs are cut into packets at the path MTU (a READ into
 * requests of at most AXON_RUD_READ_PKTS responses), each with a PSN of
 * its own and a RUDETH saying where it goes: its message, the message's
 * length, its offset in it and, for a WRITE, the key and address. Each
 * packet goes out on the next plane the sender trusts (the UDP source
 * port picks the plane), within a congestion window.
 *
 * Receive: each packet is checked (connection key first, then the PSN
 * window, offsets, rkey) and placed as it arrives, whatever its order.
 * The receiver acknowledges selectively: the PSN before which everything
 * arrived and a bitmap of the window after it, with the count of
 * CE-marked packets. A message completes (its receive CQE, if it has one)
 * once all of its bytes are placed.
 *
 * Recovery: the sender sends again only what is missing: a packet three
 * sends older than one acknowledged, or one its timer gives up on, goes
 * again on another plane. A plane that loses packets is avoided for a
 * while (doubling while it keeps losing), one that marks them for a round
 * trip. The window follows delay and ECN, after NSCC: it grows while the
 * round trip stays under its target and nothing is marked, and shrinks in
 * proportion to the excess delay when packets are marked.
 *
 * Keys: every packet carries the 64-bit key of the QP it is sent to,
 * drawn at random when that QP left RESET and given to the peer out of
 * band; a packet without it is dropped before anything else is looked
 * at. Nothing from the wire moves a RUD QP to ERR except a NAK, under its
 * key, for a packet of a message the sender has outstanding. Wire format
 * and rules: Documentation/rud.rst.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */


#include "axon-roce.h"

#define AXON_RUD_WINDOW         1024    /* PSNs in flight; the SACK bitmap */
#define AXON_RUD_MSGS           AXON_RDMA_WINDOW    /* messages in progress */
#define AXON_RUD_READ_PKTS      16      /* responses per READ request */
#define AXON_RUD_ACK_EVERY      256     /* packets before an ACK goes at once */
#define AXON_RUD_ACK_REQ        64      /* PSNs between the sender's AckReqs */
#define AXON_RUD_REORDER        3       /* later sends acknowledged: lost */
#define AXON_RUD_CWND_ONE       256     /* the window in 1/256 packets */
#define AXON_RUD_CWND_MIN       8
/* packets a round trip the window grows by at most: additive, so fair */
#define AXON_RUD_CWND_GAIN      8
#define AXON_RUD_RTO_INIT_NS    (20 * SCALE_MS)
/*
 * The timer only catches what SACKs cannot (the last packets of a burst):
 * a TCG guest stalls for 10 ms and more now and then, and a timer that
 * fires in a stall sends a window again and halves it for nothing.
 */
#define AXON_RUD_RTO_MIN_NS     (40 * SCALE_MS)
/*
 * How late a packet may be, behind one sent after it, before it counts
 * as lost: packets queue for milliseconds in TCG guests' fabric, far
 * more than their round trip samples say, and planes add their own.
 */
#define AXON_RUD_LATE_MIN_NS    (8 * SCALE_MS)
#define AXON_RUD_RTO_MAX_NS     (500 * SCALE_MS)
/* queueing the window allows: TCG guests' fabric queues for ms */
#define AXON_RUD_TARGET_Q_NS    (8 * SCALE_MS)
#define AXON_RUD_PLANE_LOSSES   3       /* in a row: the plane is avoided */
#define AXON_RUD_AVOID_MIN_NS   (5 * SCALE_MS)
#define AXON_RUD_AVOID_MAX_NS   (1000 * SCALE_MS)
/*
 * Packets of the message a slot holds, but not like its first one, that
 * the slot refuses with its message making no progress before it gives
 * the slot up to them (a stray first packet cannot hold it for good).
 */
#define AXON_RUD_SLOT_REFUSALS  3

AXON_BUILD_BUG_ON(AXON_RUD_WINDOW != IB_RUD_SACK_BYTES * 8);
AXON_BUILD_BUG_ON(AXON_RUD_READ_PKTS > 64);

/* A PSN the sender has used: what it carries, and its fate. */
typedef struct AxonRudSlot {
    bool live;                  /* sent, not acknowledged */
    bool read;                  /* a READ request: its responses ack it */
    bool queued;                /* waits in the resend queue */
    uint8_t plane;              /* last sent on */
    uint8_t tries;              /* times sent */
    uint8_t expired;            /* times its timer gave up on it */
    uint16_t wqe;               /* its WQE's index */
    uint32_t off, len;          /* its bytes of the message */
    uint64_t got;               /* READ: responses placed, a bit each */
    uint64_t seq;               /* send order of its last send */
    int64_t sent_ns;
} AxonRudSlot;

/* A message the receiver is placing. */
typedef struct AxonRudMsg {
    bool active;
    bool se;
    uint8_t op;                 /* RUD_OP_* */
    uint8_t refused;            /* packets unlike it since it progressed */
    uint32_t msg_id;
    uint32_t len, placed;
    uint32_t imm;
    uint64_t recv_wr_id;        /* SEND, WRITE_IMM: its receive WQE */
    uint16_t recv_idx;
    uint8_t recv_nsge;
    AxonSge recv_sge[AXON_MAX_SGE];
} AxonRudMsg;

/* A READ request the responder answered: what a duplicate must repeat. */
typedef struct AxonRudRead {
    bool valid;
    uint32_t psn;
    uint32_t msg_id, msg_len;
    uint32_t offset, req_len;
    uint32_t rkey;
    uint64_t va;
} AxonRudRead;

struct AxonRud {
    AxonEnv *env;               /* its clock */
    uint64_t rx_key;            /* this QP's: what arriving packets carry */
    uint64_t tx_key;            /* the peer's: what sent packets carry */

    /* sender */
    uint32_t next_psn, una;     /* PSNs in flight: [una, next_psn) */
    uint32_t msg_next;
    uint32_t inflight;          /* live slots */
    uint32_t cwnd;              /* AXON_RUD_CWND_ONE per packet */
    uint32_t cwnd_max;          /* the wire window, or AXON_RUD_WINDOW */
    bool cc;                    /* cwnd moves; else it stays at its max */
    uint64_t seq, acked_seq;    /* send order: last used, newest acked */
    uint64_t probe_seq;         /* acked_seq when the last probe went */
    int64_t srtt_ns, rttvar_ns, base_rtt_ns;
    int64_t cut_ns;             /* last window decrease */
    int64_t ep_start_ns;        /* this round trip's marks: since, ... */
    uint32_t ep_acked, ep_marked;   /* ... packets acked, marked */
    unsigned rr;                /* next plane to try */
    int64_t avoid_until[AXON_MAX_PLANES];
    int64_t avoid_ns[AXON_MAX_PLANES];  /* next avoidance, 0: none yet */
    uint8_t lost_run[AXON_MAX_PLANES];  /* losses since one arrived */
    uint32_t resend[AXON_RUD_WINDOW];
    unsigned rs_head, rs_count;
    AxonTimer *rto_timer;
    AxonRudSlot slot[AXON_RUD_WINDOW];

    /* receiver */
    uint32_t epsn;              /* every PSN before it arrived */
    uint32_t rx_high;           /* one after the highest PSN arrived */
    uint64_t seen[AXON_RUD_WINDOW / 64];    /* by PSN % window */
    uint32_t unacked;
    uint8_t ce;
    uint32_t ack_psn;
    uint8_t err_syndrome;       /* a NAK owed: 0, or AETH_NAK << 5 | code */
    uint32_t err_psn, err_msg;
    AxonRudMsg msg[AXON_RUD_MSGS];
    AxonRudRead rd[AXON_RUD_WINDOW];    /* by PSN % window */
};

static AxonRudSlot *axon_rud_slot(AxonRud *r, uint32_t psn)
{
    return &r->slot[psn % AXON_RUD_WINDOW];
}

static int64_t axon_rud_now(const AxonRud *r)
{
    return axon_env_now_ns(r->env);
}

static void axon_rud_drop(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt,
                          const char *why)
{
    axon_trace_err_rud_rx(qp->qpn, pkt->opcode, pkt->psn, why);
    eng->stats.rud_drops++;
    qp->stats.stray++;
}

/* ---- planes -------------------------------------------------------------- */


/*
 * The plane for the next packet: the next trusted one round robin (up,
 * and not avoided); for a packet sent again, another than its last if
 * one is trusted; if none is, the one up whose avoidance ends first.
 */
static unsigned axon_rud_pick_plane(AxonEngine *eng, AxonRud *r, int not)
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
                     MIN(r->avoid_ns[k] * 2, AXON_RUD_AVOID_MAX_NS) :
                     MAX(2 * r->srtt_ns, AXON_RUD_AVOID_MIN_NS);
    r->avoid_until[k] = now + r->avoid_ns[k];
}

/* A UDP source port that hashes to plane k (Planes, axon_regs_defs.h). */
static uint16_t axon_rud_sport(AxonEngine *eng, AxonQp *qp, unsigned k)
{
    unsigned span = 0x4000 / eng->conf.planes;

    return 0xc000 + k + eng->conf.planes * (qp->qpn % span);
}

static void axon_rud_xmit(AxonEngine *eng, AxonQp *qp, AxonPkt *pkt,
                          unsigned plane)
{
    AxonPath path;

    pkt->dqpn = le32_to_cpu(qp->attr.dest_qpn);
    axon_roce_qp_path(eng, qp, pkt, &path);
    path.ecn = AXON_ECN_ECT0;   /* the window reacts to marks */
    path.udp_sport = axon_rud_sport(eng, qp, plane);
    axon_roce_xmit_path(eng, qp, pkt, &path);
}

/* ---- the window and the timer -------------------------------------------- */

static int64_t axon_rud_rto(AxonRud *r)
{
    if (!r->srtt_ns) {
        return AXON_RUD_RTO_INIT_NS;
    }
    return MIN(MAX(r->srtt_ns + 4 * r->rttvar_ns, AXON_RUD_RTO_MIN_NS),
               AXON_RUD_RTO_MAX_NS);
}

static void axon_rud_rtt(AxonRud *r, int64_t rtt)
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
    return r->srtt_ns ? r->srtt_ns : AXON_RUD_RTO_INIT_NS;
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
    axon_trace_rud_cwnd(qp->qpn, why, r->cwnd / AXON_RUD_CWND_ONE,
                        r->srtt_ns / SCALE_US, r->base_rtt_ns / SCALE_US);
}

/*
 * n packets acknowledged, ce of them marked: NSCC's four cases, by
 * whether the delay is over its target and whether packets were marked.
 */
static void axon_rud_cwnd_acked(AxonQp *qp, unsigned n, unsigned ce)
{
    AxonRud *r = qp->rud;
    int64_t target = r->base_rtt_ns + AXON_RUD_TARGET_Q_NS;
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
static int64_t axon_rud_due(AxonRud *r, const AxonRudSlot *sl)
{
    return sl->sent_ns + (axon_rud_rto(r) << MIN(sl->expired, 6));
}

static void axon_rud_arm(AxonRud *r, int64_t when)
{
    if (!axon_env_timer_pending(r->rto_timer) ||
        axon_env_timer_expires(r->rto_timer) > when) {
        axon_env_timer_mod(r->rto_timer, when);
    }
}

/*
 * SACK's rule: a packet sent before later ones that were acknowledged is
 * lost once it is late by two round trips and four deviations (at least
 * AXON_RUD_LATE_MIN_NS). When that is, or 0 if the rule does not apply.
 */
static int64_t axon_rud_late_at(AxonRud *r, const AxonRudSlot *sl)
{
    if (!sl->live || sl->read || sl->queued ||
        sl->seq + AXON_RUD_REORDER >= r->acked_seq) {
        return 0;
    }
    return sl->sent_ns + MAX(2 * r->srtt_ns + 4 * r->rttvar_ns,
                             AXON_RUD_LATE_MIN_NS);
}

/* The packet at psn goes again, before anything new. */
static void axon_rud_resend(AxonEngine *eng, AxonQp *qp, AxonRudSlot *sl,
                            uint32_t psn)
{
    AxonRud *r = qp->rud;

    sl->queued = true;
    r->resend[(r->rs_head + r->rs_count++) % AXON_RUD_WINDOW] = psn;
    axon_roce_schedule(eng, qp);
}

static void axon_rud_queue(AxonEngine *eng, AxonQp *qp, AxonRudSlot *sl,
                           uint32_t psn, bool timer)
{
    AxonRud *r = qp->rud;

    if (sl->queued) {
        return;
    }
    axon_trace_rud_lost(qp->qpn, psn, timer, sl->plane,
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

static void axon_rud_slot_done(AxonQp *qp, AxonRudSlot *sl)
{
    AxonRud *r = qp->rud;

    sl->live = false;
    r->inflight--;
    r->avoid_ns[sl->plane] = 0;
    r->lost_run[sl->plane] = 0;
    r->acked_seq = MAX(r->acked_seq, sl->seq);
    axon_rud_wqe_acked(qp, axon_win(qp, sl->wqe));
}

static void axon_rud_advance_una(AxonRud *r)
{
    while (r->una != r->next_psn && !axon_rud_slot(r, r->una)->live) {
        r->una = axon_psn_add(r->una, 1);
    }
}

/* A WQE fails; it completes (in order) and the QP goes to ERR. */
static void axon_rud_fail(AxonEngine *eng, AxonQp *qp, AxonSwqe *e,
                          uint8_t status)
{
    axon_roce_fail(qp, e, status);
    axon_roce_complete(eng, qp);
}

/* How long after the last packet sent, with no news, a probe goes. */
static int64_t axon_rud_pto(AxonRud *r)
{
    return MAX(2 * r->srtt_ns, AXON_RUD_LATE_MIN_NS);
}

/*
 * A tail loss probe: a burst lost whole at a full queue leaves no later
 * packet whose SACK could tell, and the timeout is long. So when nothing
 * was acknowledged for a probe time after the last packet sent, that
 * packet goes again, asking for an ACK, whose SACK then names what is
 * missing. Once per ACK that brought news; returns when to look again
 * (INT64_MAX: not before news).
 */
static int64_t axon_rud_probe(AxonEngine *eng, AxonQp *qp, int64_t now)
{
    AxonRud *r = qp->rud;
    uint32_t psn = axon_psn_add(r->next_psn, AXON_PSN_MASK);
    AxonRudSlot *sl = axon_rud_slot(r, psn);
    int64_t at = sl->sent_ns + axon_rud_pto(r);

    if (r->next_psn == r->una || !sl->live || sl->queued || sl->read ||
        r->probe_seq == r->acked_seq) {
        return INT64_MAX;
    }
    if (now < at) {
        return at;
    }
    r->probe_seq = r->acked_seq;
    axon_trace_rud_probe(qp->qpn, psn, (now - sl->sent_ns) / SCALE_US);
    axon_rud_resend(eng, qp, sl, psn);
    return INT64_MAX;
}

static void axon_rud_timer(void *opaque)
{
    AxonQp *qp = opaque;
    AxonEngine *eng = qp->eng;
    AxonRud *r = qp->rud;
    int64_t now = axon_rud_now(r), next = INT64_MAX;
    bool lost = false;
    uint32_t psn;

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
            continue;
        }
        if (++sl->expired > qp->attr.retry_cnt + 1) {
            axon_trace_roce_timeout(qp->qpn, psn, 0);
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
    } else {
        next = MIN(next, axon_rud_probe(eng, qp, now));
    }
    if (next != INT64_MAX) {
        axon_env_timer_mod(r->rto_timer, next);
    }
}

/* ---- sender -------------------------------------------------------------- */

static uint8_t axon_rud_op(uint8_t wr_opcode)
{
    switch (wr_opcode) {
    case AXON_WR_SEND_IMM:
        return RUD_OP_SEND_IMM;
    case AXON_WR_RDMA_WRITE:
        return RUD_OP_WRITE;
    case AXON_WR_RDMA_WRITE_IMM:
        return RUD_OP_WRITE_IMM;
    case AXON_WR_RDMA_READ:
        return RUD_OP_READ;
    default:
        return RUD_OP_SEND;
    }
}

/*
 * The packets in flight reach half the window, or all of it: a window
 * smaller than the AckReq interval would otherwise wait for the probe.
 */
static bool axon_rud_window_mark(AxonRud *r)
{
    uint32_t pkts = MAX(r->cwnd / AXON_RUD_CWND_ONE, 1);

    return r->inflight == pkts / 2 || r->inflight >= pkts;
}

/* Sends (again) the packet at psn; false if its payload is unreadable. */
static bool axon_rud_send_pkt(AxonEngine *eng, AxonQp *qp, uint32_t psn,
                              bool again)
{
    AxonRud *r = qp->rud;
    AxonRudSlot *sl = axon_rud_slot(r, psn);
    AxonSwqe *e = axon_win(qp, sl->wqe);
    AxonPkt pkt = {
        .opcode = sl->read ? IB_RUD_READ_REQ : IB_RUD_DATA,
        .psn = psn,
        .key = r->tx_key,
        .msg_id = e->rud.msg_id,
        .msg_len = e->len,
        .offset = sl->off,
        .rud_op = axon_rud_op(e->opcode),
        .imm = e->imm,
        .rkey = e->rkey,
        .va = e->raddr,
        .se = (e->flags & AXON_WQE_SOLICITED) &&
              e->opcode != AXON_WR_RDMA_WRITE,
        /* an ACK for a message's end, and now and then within one */
        .ackreq = again || sl->off + sl->len >= e->len ||
                  psn % AXON_RUD_ACK_REQ == 0 || axon_rud_window_mark(r),
    };
    unsigned plane;

    if (sl->read) {
        pkt.req_len = sl->len;
    } else if (e->flags & AXON_WQE_INLINE) {
        pkt.payload = e->inline_data + sl->off;
        pkt.len = sl->len;
    } else {
        if (sl->len &&
            !axon_mr_sge_rw(eng, qp->pdn, e->sge, e->num_sge, sl->off,
                            eng->txbuf, sl->len,
                            AXON_DMA_TO_DEVICE)) {
            return false;
        }
        pkt.payload = eng->txbuf;
        pkt.len = sl->len;
    }
    plane = axon_rud_pick_plane(eng, r, again ? sl->plane : -1);
    sl->plane = plane;
    sl->tries++;
    sl->seq = ++r->seq;
    sl->sent_ns = axon_rud_now(r);
    if (again) {
        eng->stats.retrans++;
        qp->stats.retrans++;
    }
    axon_rud_arm(r, MIN(axon_rud_due(r, sl), sl->sent_ns + axon_rud_pto(r)));
    axon_rud_xmit(eng, qp, &pkt, plane);
    return true;
}

/* Takes the next packet of the WQE at the cursor into a slot; its PSN. */
static uint32_t axon_rud_next_pkt(AxonQp *qp, AxonSwqe *e)
{
    AxonRud *r = qp->rud;
    uint32_t psn = r->next_psn, off = qp->req.cur_off;
    AxonRudSlot *sl = axon_rud_slot(r, psn);
    uint32_t max = e->opcode == AXON_WR_RDMA_READ ?
                   AXON_RUD_READ_PKTS * qp->mtu : qp->mtu;

    memset(sl, 0, sizeof(*sl));
    sl->live = true;
    sl->read = e->opcode == AXON_WR_RDMA_READ;
    sl->wqe = e->idx;
    sl->off = off;
    sl->len = MIN(max, e->len - off);
    e->rud.left++;
    r->inflight++;
    r->next_psn = axon_psn_add(psn, 1);
    /* the cursor moves first: a loopback answer may come back at once */
    qp->req.cur_off = off + sl->len;
    if (qp->req.cur_off >= e->len) {
        qp->req.cur++;
        qp->req.cur_off = 0;
    }
    return psn;
}

/* RUD WQEs: what axon_roce_fetch() cannot tell from the opcode alone. */
static bool axon_rud_wqe_ok(const AxonSwqe *e)
{
    return !axon_wr_atomic(e->opcode) && e->opcode != AXON_WR_SEND_INV;
}

unsigned axon_rud_req_run(AxonEngine *eng, AxonQp *qp, unsigned budget)
{
    AxonRud *r = qp->rud;
    unsigned sent = 0;

    while (sent < budget && qp->state == AXON_QPS_RTS) {
        AxonSwqe *e;
        uint32_t psn;

        if (r->rs_count) {
            AxonRudSlot *sl;

            psn = r->resend[r->rs_head];
            r->rs_head = (r->rs_head + 1) % AXON_RUD_WINDOW;
            r->rs_count--;
            sl = axon_rud_slot(r, psn);
            sl->queued = false;
            if (sl->live) {
                if (!axon_rud_send_pkt(eng, qp, psn, true)) {
                    axon_rud_fail(eng, qp, axon_win(qp, sl->wqe),
                                  AXON_WC_LOC_PROT_ERR);
                }
                sent++;
            }
            continue;
        }
        if (r->inflight >= MAX(r->cwnd / AXON_RUD_CWND_ONE, 1) ||
            axon_psn_diff(r->next_psn, r->una) >= AXON_RUD_WINDOW) {
            break;
        }
        if (qp->req.cur == qp->req.sq_fetch) {
            if (qp->req.sq_stopped || qp->req.sq_fetch == qp->sq.pi ||
                (uint16_t)(qp->req.sq_fetch - qp->comp.sq_comp) >=
                AXON_RUD_MSGS) {
                break;
            }
            axon_roce_fetch(eng, qp);
            e = axon_win(qp, qp->req.cur);
            if (!e->done && !axon_rud_wqe_ok(e)) {
                axon_roce_fail(qp, e, AXON_WC_LOC_QP_OP_ERR);
            }
        }
        e = axon_win(qp, qp->req.cur);
        if (e->done) {
            /* failed when fetched; completes in order */
            axon_roce_skip(qp, e);
            axon_roce_complete(eng, qp);
            continue;
        }
        if (!qp->req.cur_off) {
            /* a fence waits for every WQE before it to complete */
            if ((e->flags & AXON_WQE_FENCE) &&
                qp->comp.sq_comp != qp->req.cur) {
                break;
            }
            if (axon_roce_local_op(eng, qp, e)) {
                axon_roce_skip(qp, e);
                axon_roce_complete(eng, qp);
                continue;
            }
            e->rud.msg_id = r->msg_next++;
            e->rud.left = 0;
        }
        psn = axon_rud_next_pkt(qp, e);
        if (!axon_rud_send_pkt(eng, qp, psn, false)) {
            axon_rud_fail(eng, qp, e, AXON_WC_LOC_PROT_ERR);
            continue;
        }
        sent++;
    }
    if (sent == budget && r->rs_count) {
        axon_roce_schedule(eng, qp);
    }
    return sent;
}

/* ---- receiver ------------------------------------------------------------ */

static bool axon_rud_seen(AxonRud *r, uint32_t psn)
{
    unsigned b = psn % AXON_RUD_WINDOW;

    return r->seen[b / 64] & (1ULL << (b % 64));
}

/* psn arrived and is placed: move the cumulative PSN past what has. */
static void axon_rud_mark(AxonRud *r, uint32_t psn)
{
    unsigned b = psn % AXON_RUD_WINDOW;

    r->seen[b / 64] |= 1ULL << (b % 64);
    if (axon_psn_diff(psn, r->rx_high) >= 0) {
        r->rx_high = axon_psn_add(psn, 1);
    }
    while (axon_rud_seen(r, r->epsn)) {
        b = r->epsn % AXON_RUD_WINDOW;
        r->seen[b / 64] &= ~(1ULL << (b % 64));
        r->epsn = axon_psn_add(r->epsn, 1);
    }
}

/*
 * A packet arrived: the receiver owes an ACK when the sender asked for
 * one (a message's last packet, and every AXON_RUD_ACK_REQ PSNs), when
 * the packet came twice (the ACK that answered it was lost) or out of
 * order (the SACK tells the sender of the hole), and at the end of the
 * engine's batch; at once if many wait for it, or with a NAK.
 */
static void axon_rud_ack_owed(AxonEngine *eng, AxonQp *qp,
                              const AxonPkt *pkt, bool dup)
{
    AxonRud *r = qp->rud;

    r->ack_psn = pkt->psn;
    if (pkt->ecn == AXON_ECN_CE && r->ce < UINT8_MAX) {
        r->ce++;
    }
    if (++r->unacked >= AXON_RUD_ACK_EVERY || r->err_syndrome) {
        axon_rud_send_ack(eng, qp);
        return;
    }
    if (pkt->ackreq || dup || r->rx_high != r->epsn || pkt->ecn ==
        AXON_ECN_CE) {
        axon_roce_ack_later(eng, qp);
    }
}

/*
 * The ACK: the cumulative PSN, the bitmap after it as far as the highest
 * PSN that arrived (none when all came in order), marks, a NAK.
 */
void axon_rud_send_ack(AxonEngine *eng, AxonQp *qp)
{
    AxonRud *r = qp->rud;
    int32_t span = axon_psn_diff(r->rx_high, r->epsn);
    uint8_t bitmap[IB_RUD_SACK_BYTES] = {};
    AxonPkt pkt = {
        .opcode = IB_RUD_ACK,
        .psn = r->epsn,
        .key = r->tx_key,
        .syndrome = r->err_syndrome,
        .ce = r->ce,
        .ack_psn = r->ack_psn,
        .err_psn = r->err_psn,
        .err_msg = r->err_msg,
        .payload = bitmap,
    };
    unsigned i, n = MIN(MAX(span, 0), AXON_RUD_WINDOW);

    pkt.len = DIV_ROUND_UP(n, 8);
    for (i = 1; i < n; i++) {
        if (axon_rud_seen(r, axon_psn_add(r->epsn, i))) {
            bitmap[i / 8] |= 1 << (i % 8);
        }
    }
    if (r->err_syndrome) {
        eng->stats.naks++;
        qp->stats.err_naks_sent++;
    }
    r->unacked = 0;
    r->ce = 0;
    r->err_syndrome = 0;
    axon_rud_xmit(eng, qp, &pkt, axon_rud_pick_plane(eng, r, -1));
}

/* The packet at psn is refused: the sender gets a NAK for it. */
static void axon_rud_nak(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt,
                         uint8_t code, const char *why)
{
    AxonRud *r = qp->rud;

    axon_rud_drop(eng, qp, pkt, why);
    r->err_syndrome = AETH_NAK << AETH_TYPE_SHIFT | code;
    r->err_psn = pkt->psn;
    r->err_msg = pkt->msg_id;
    axon_rud_ack_owed(eng, qp, pkt, false);
}

/* The receive WQE of a message, taken now; false if there is none. */
static bool axon_rud_take_recv(AxonEngine *eng, AxonQp *qp, AxonRudMsg *m)
{
    AxonWq *wq = axon_qp_recv_wq(qp);

    if (wq->ci == wq->pi) {
        return false;
    }
    if (!axon_roce_recv_fetch(eng, qp)) {
        /* the consumer's WQE is bad: its QP goes to ERR, as RC's does */
        axon_qp_cqe(eng, qp, true, qp->resp.recv_wr_id, qp->resp.recv_idx,
                    AXON_WC_RECV, AXON_WC_LOC_QP_OP_ERR, 0, 0, 0);
        axon_roce_recv_done(qp);
        axon_qp_error(eng, qp);
        return false;
    }
    m->recv_wr_id = qp->resp.recv_wr_id;
    m->recv_idx = qp->resp.recv_idx;
    m->recv_nsge = qp->resp.recv_nsge;
    memcpy(m->recv_sge, qp->resp.recv_sge, sizeof(m->recv_sge));
    axon_roce_recv_done(qp);    /* the message holds it from now on */
    return true;
}

static bool axon_rud_op_recv(uint8_t op)
{
    return op == RUD_OP_SEND || op == RUD_OP_SEND_IMM ||
           op == RUD_OP_WRITE_IMM;
}

static uint32_t axon_rud_room(const AxonRudMsg *m)
{
    uint64_t room = 0;
    unsigned i;

    for (i = 0; i < m->recv_nsge; i++) {
        room += m->recv_sge[i].length;
    }
    return MIN(room, UINT32_MAX);
}

/* The message's last byte is placed: its receive completes. */
static void axon_rud_msg_done(AxonEngine *eng, AxonQp *qp, AxonRudMsg *m)
{
    m->active = false;
    if (!axon_rud_op_recv(m->op)) {
        return;
    }
    axon_qp_cqe(eng, qp, true, m->recv_wr_id, m->recv_idx,
                m->op == RUD_OP_WRITE_IMM ? AXON_WC_RECV_RDMA_WITH_IMM :
                AXON_WC_RECV, AXON_WC_SUCCESS, m->len, m->imm,
                (m->op != RUD_OP_SEND ? AXON_CQE_WITH_IMM : 0) |
                (m->se ? AXON_CQE_SOLICITED : 0));
}

/*
 * The slot's message will never complete: its receive WQE, if it took
 * one, completes in error (the QP stays in RTS) and the slot is free.
 */
static void axon_rud_abandon(AxonEngine *eng, AxonQp *qp, AxonRudMsg *m,
                             const AxonPkt *pkt, const char *why)
{
    axon_trace_err_rud_rx(qp->qpn, pkt->opcode, pkt->psn, why);
    if (axon_rud_op_recv(m->op)) {
        axon_qp_cqe(eng, qp, true, m->recv_wr_id, m->recv_idx, AXON_WC_RECV,
                    AXON_WC_GENERAL_ERR, 0, 0, 0);
    }
    m->active = false;
}

/*
 * The message a packet belongs to, opened by its first packet to come.
 * A slot (msg_id % AXON_RUD_MSGS) is held by the message that opened it
 * until the message is placed whole, with two exceptions that keep a
 * stray first packet from holding it for good:
 *
 * - a packet of a later message of the slot (msg_id + 128k) takes it at
 *   once: a sender begins message n + 128 only once message n is
 *   acknowledged whole, so the one the slot holds can never complete;
 * - packets of the slot's msg_id that differ from its first packet (in
 *   length, operation or immediate data) are refused, and the
 *   AXON_RUD_SLOT_REFUSALS-th refused without the held message placing
 *   anything in between takes the slot: a sender sends again what is
 *   not acknowledged, a stray packet comes once.
 *
 * Packets of an earlier message of the slot are dropped: that message
 * was acknowledged whole, so they are duplicates.
 */
static AxonRudMsg *axon_rud_msg(AxonEngine *eng, AxonQp *qp,
                                const AxonPkt *pkt, const char **why)
{
    AxonRudMsg *m = &qp->rud->msg[pkt->msg_id % AXON_RUD_MSGS];

    if (m->active) {
        int32_t age = pkt->msg_id - m->msg_id;

        if (age < 0) {
            *why = "packet of an earlier message of its slot";
            return NULL;
        }
        if (!age && m->op == pkt->rud_op && m->len == pkt->msg_len &&
            m->imm == pkt->imm) {
            return m;
        }
        if (!age && ++m->refused < AXON_RUD_SLOT_REFUSALS) {
            *why = "packet of another message";
            return NULL;
        }
        axon_rud_abandon(eng, qp, m, pkt,
                         age ? "slot taken by a later message" :
                         "slot taken from a stalled message");
    }
    memset(m, 0, sizeof(*m));
    m->msg_id = pkt->msg_id;
    m->op = pkt->rud_op;
    m->len = pkt->msg_len;
    m->imm = pkt->imm;
    m->se = pkt->se;
    if (axon_rud_op_recv(m->op) && !axon_rud_take_recv(eng, qp, m)) {
        *why = "no receive WQE";
        return NULL;
    }
    m->active = true;
    return m;
}

/* A SEND's packet into its receive WQE; false (NAKed) if it cannot be. */
static bool axon_rud_place_send(AxonEngine *eng, AxonQp *qp, AxonRudMsg *m,
                                const AxonPkt *pkt)
{
    if (m->len > axon_rud_room(m)) {
        axon_qp_cqe(eng, qp, true, m->recv_wr_id, m->recv_idx, AXON_WC_RECV,
                    AXON_WC_LOC_LEN_ERR, 0, 0, 0);
        m->active = false;
        axon_rud_nak(eng, qp, pkt, NAK_INV_REQ, "SEND longer than its WQE");
        return false;
    }
    if (!axon_mr_sge_rw(eng, axon_roce_recv_pdn(qp), m->recv_sge, m->recv_nsge,
                        pkt->offset, (uint8_t *)pkt->payload, pkt->len,
                        AXON_DMA_FROM_DEVICE)) {
        axon_qp_cqe(eng, qp, true, m->recv_wr_id, m->recv_idx, AXON_WC_RECV,
                    AXON_WC_LOC_PROT_ERR, 0, 0, 0);
        m->active = false;
        axon_rud_nak(eng, qp, pkt, NAK_REM_OP, "receive WQE not writable");
        return false;
    }
    return true;
}

/* A WRITE's packet through its key; false (NAKed) if not allowed. */
static bool axon_rud_place_write(AxonEngine *eng, AxonQp *qp,
                                 const AxonPkt *pkt)
{
    uint64_t va = pkt->va + pkt->offset;
    AxonMr *mr;

    if (!pkt->len) {
        return true;
    }
    mr = axon_mr_check_remote(eng, qp, pkt->rkey, va, pkt->len,
                              AXON_ACCESS_REMOTE_WRITE);
    if (!mr || !(qp->attr.access & cpu_to_le32(AXON_ACCESS_REMOTE_WRITE)) ||
        !axon_mr_rw(eng, mr, va, (uint8_t *)pkt->payload, pkt->len,
                    AXON_DMA_FROM_DEVICE)) {
        axon_rud_nak(eng, qp, pkt, NAK_REM_ACCESS, "WRITE not allowed");
        return false;
    }
    return true;
}

/*
 * A READ request: the responses, sprayed. A new request (nak) that the
 * rkey, the QP's rights or the bounds do not allow is NAKed; a duplicate
 * is answered from what was saved of its first answer, and dropped if
 * the key no longer allows it. False if nothing was sent.
 */
static bool axon_rud_answer_read(AxonEngine *eng, AxonQp *qp,
                                 const AxonRudRead *rq, const AxonPkt *pkt,
                                 bool nak)
{
    uint64_t va = rq->va + rq->offset;
    AxonMr *mr = NULL;
    uint32_t done = 0;

    if (rq->req_len) {
        mr = axon_mr_check_remote(eng, qp, rq->rkey, va, rq->req_len,
                                  AXON_ACCESS_REMOTE_READ);
        if (!mr ||
            !(qp->attr.access & cpu_to_le32(AXON_ACCESS_REMOTE_READ))) {
            if (nak) {
                axon_rud_nak(eng, qp, pkt, NAK_REM_ACCESS, "READ not allowed");
            } else {
                axon_rud_drop(eng, qp, pkt, "duplicate READ no longer allowed");
            }
            return false;
        }
    }
    do {
        uint32_t n = MIN(qp->mtu, rq->req_len - done);
        AxonPkt rsp = {
            .opcode = IB_RUD_READ_RESP,
            .psn = rq->psn,
            .key = qp->rud->tx_key,
            .msg_id = rq->msg_id,
            .msg_len = rq->msg_len,
            .offset = rq->offset + done,
            .rud_op = RUD_OP_READ,
            .payload = eng->rspbuf,
            .len = n,
        };

        if (n && !axon_mr_rw(eng, mr, va + done, eng->rspbuf, n,
                             AXON_DMA_TO_DEVICE)) {
            if (nak) {
                axon_rud_nak(eng, qp, pkt, NAK_REM_ACCESS, "READ unreadable");
            } else {
                axon_rud_drop(eng, qp, pkt, "READ unreadable");
            }
            return false;
        }
        axon_rud_xmit(eng, qp, &rsp, axon_rud_pick_plane(eng, qp->rud, -1));
        done += n;
    } while (done < rq->req_len);
    return true;
}

/* What a READ request asks, as the responder saves it. */
static AxonRudRead axon_rud_read_of(const AxonPkt *pkt)
{
    return (AxonRudRead) {
        .valid = true,
        .psn = pkt->psn,
        .msg_id = pkt->msg_id,
        .msg_len = pkt->msg_len,
        .offset = pkt->offset,
        .req_len = pkt->req_len,
        .rkey = pkt->rkey,
        .va = pkt->va,
    };
}

/* The saved READ request a duplicate repeats exactly, or NULL. */
static const AxonRudRead *axon_rud_read_saved(AxonRud *r, const AxonPkt *pkt)
{
    const AxonRudRead *rq = &r->rd[pkt->psn % AXON_RUD_WINDOW];

    if (!rq->valid || rq->psn != pkt->psn || rq->msg_id != pkt->msg_id ||
        rq->msg_len != pkt->msg_len || rq->offset != pkt->offset ||
        rq->req_len != pkt->req_len || rq->rkey != pkt->rkey ||
        rq->va != pkt->va) {
        return NULL;
    }
    return rq;
}

/* Does the packet fit its message, as RUDETH describes them? */
static const char *axon_rud_check_req(const AxonQp *qp, const AxonPkt *pkt)
{
    bool read = pkt->opcode == IB_RUD_READ_REQ;
    uint64_t end = (uint64_t)pkt->offset + (read ? pkt->req_len : pkt->len);

    if (pkt->rud_op > RUD_OP_MAX || read != (pkt->rud_op == RUD_OP_READ)) {
        return "operation";
    }
    if (pkt->msg_len > AXON_MAX_MSG_SIZE || end > pkt->msg_len) {
        return "offset outside the message";
    }
    if (read) {
        return pkt->req_len > AXON_RUD_READ_PKTS * qp->mtu ||
               pkt->offset % qp->mtu ? "READ request size" : NULL;
    }
    if (pkt->len > qp->mtu || pkt->offset % qp->mtu ||
        (pkt->len != qp->mtu && end != pkt->msg_len)) {
        return "packet size";
    }
    return NULL;
}

/* A DATA packet or READ request, from the peer (its key checked). */
static void axon_rud_req_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt)
{
    AxonRud *r = qp->rud;
    int32_t d = axon_psn_diff(pkt->psn, r->epsn);
    const AxonRudRead *saved = NULL;
    const char *why;
    AxonRudMsg *m;
    bool dup;

    if (qp->state != AXON_QPS_RTR && qp->state != AXON_QPS_RTS) {
        axon_rud_drop(eng, qp, pkt, "QP not receiving");
        return;
    }
    if (d >= AXON_RUD_WINDOW) {
        axon_rud_drop(eng, qp, pkt, "PSN ahead of the window");
        qp->stats.out_of_seq++;
        return;
    }
    /* a sender sends nothing again from before its window */
    if (d < -AXON_RUD_WINDOW) {
        axon_rud_drop(eng, qp, pkt, "PSN behind the window");
        return;
    }
    why = axon_rud_check_req(qp, pkt);
    if (why) {
        axon_rud_drop(eng, qp, pkt, why);
        return;
    }
    dup = d < 0 || axon_rud_seen(r, pkt->psn);
    if (dup && pkt->opcode == IB_RUD_READ_REQ) {
        /* answered again only as it was first answered */
        saved = axon_rud_read_saved(r, pkt);
        if (!saved) {
            axon_rud_drop(eng, qp, pkt, "duplicate READ request unlike any "
                                      "answered");
            return;
        }
    }
    if (dup) {
        eng->stats.rud_dups++;
        qp->stats.dup_reqs++;
    }
    if (qp->state == AXON_QPS_RTR && !qp->comm_est) {
        qp->comm_est = true;
        axon_qp_event(eng, qp, AXON_EVENT_COMM_EST);
    }
    if (pkt->opcode == IB_RUD_READ_REQ) {
        AxonRudRead rq = axon_rud_read_of(pkt);

        if (!axon_rud_answer_read(eng, qp, saved ? saved : &rq, pkt, !dup)) {
            return;
        }
        if (!dup) {
            r->rd[pkt->psn % AXON_RUD_WINDOW] = rq;
        }
    } else if (!dup) {
        m = axon_rud_msg(eng, qp, pkt, &why);
        if (!m) {
            axon_rud_drop(eng, qp, pkt, why);  /* sent again later */
            return;
        }
        if (m->op == RUD_OP_WRITE || m->op == RUD_OP_WRITE_IMM ?
            !axon_rud_place_write(eng, qp, pkt) :
            !axon_rud_place_send(eng, qp, m, pkt)) {
            return;
        }
        m->placed += pkt->len;
        m->refused = 0;
        if (m->placed == m->len) {
            axon_rud_msg_done(eng, qp, m);
        }
    }
    if (!dup) {
        axon_rud_mark(r, pkt->psn);
    }
    axon_rud_ack_owed(eng, qp, pkt, dup);
}

/* ---- the sender's answers ------------------------------------------------ */

/* A READ response, for a READ request outstanding at its PSN. */
static void axon_rud_resp_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt)
{
    AxonRud *r = qp->rud;
    AxonRudSlot *sl = axon_rud_slot(r, pkt->psn);
    AxonSwqe *e = axon_win(qp, sl->wqe);
    uint32_t k, chunks;

    if (qp->state == AXON_QPS_RTS &&
        axon_psn_diff(pkt->psn, r->next_psn) < 0 &&
        axon_psn_diff(pkt->psn, r->next_psn) >= -AXON_RUD_WINDOW &&
        (axon_psn_diff(pkt->psn, r->una) < 0 || !sl->live)) {
        /* a request asked twice, answered twice: one answer is late */
        eng->stats.rud_dups++;
        qp->stats.dup_reqs++;
        return;
    }
    if (qp->state != AXON_QPS_RTS ||
        axon_psn_diff(pkt->psn, r->una) < 0 ||
        axon_psn_diff(pkt->psn, r->next_psn) >= 0 || !sl->live || !sl->read ||
        e->rud.msg_id != pkt->msg_id || pkt->offset < sl->off ||
        (pkt->offset - sl->off) % qp->mtu) {
        axon_rud_drop(eng, qp, pkt, "response for nothing outstanding");
        return;
    }
    k = (pkt->offset - sl->off) / qp->mtu;
    chunks = MAX(DIV_ROUND_UP(sl->len, qp->mtu), 1);
    if (k >= chunks ||
        pkt->len != MIN(qp->mtu, sl->off + sl->len - pkt->offset)) {
        axon_rud_drop(eng, qp, pkt, "response size");
        return;
    }
    if (sl->got & (1ULL << k)) {
        eng->stats.rud_dups++;
        qp->stats.dup_reqs++;
        return;
    }
    if (pkt->len && !axon_mr_sge_rw(eng, qp->pdn, e->sge, e->num_sge,
                                    pkt->offset, (uint8_t *)pkt->payload,
                                    pkt->len, AXON_DMA_FROM_DEVICE)) {
        axon_rud_fail(eng, qp, e, AXON_WC_LOC_PROT_ERR);
        return;
    }
    sl->got |= 1ULL << k;
    if (sl->got != (chunks == 64 ? UINT64_MAX : (1ULL << chunks) - 1)) {
        return;
    }
    if (sl->tries == 1) {
        axon_rud_rtt(r, axon_rud_now(r) - sl->sent_ns);
    }
    axon_rud_slot_done(qp, sl);
    axon_rud_cwnd_acked(qp, 1, pkt->ecn == AXON_ECN_CE);
    axon_rud_advance_una(r);
    axon_roce_complete(eng, qp);
}

/* The slot at psn is acknowledged by an ACK; true if that is news. */
static bool axon_rud_sacked(AxonQp *qp, uint32_t psn)
{
    AxonRudSlot *sl = axon_rud_slot(qp->rud, psn);

    if (!sl->live || sl->read) {
        return false;           /* a READ waits for its responses */
    }
    axon_rud_slot_done(qp, sl);
    return true;
}

static uint8_t axon_rud_nak_status(uint8_t syndrome)
{
    switch (syndrome & 0x1f) {
    case NAK_INV_REQ:
        return AXON_WC_REM_INV_REQ_ERR;
    case NAK_REM_ACCESS:
        return AXON_WC_REM_ACCESS_ERR;
    default:
        return AXON_WC_REM_OP_ERR;
    }
}

static void axon_rud_ack_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt)
{
    AxonRud *r = qp->rud;
    AxonRudSlot *trig = axon_rud_slot(r, pkt->ack_psn);
    bool trig_live = trig->live && trig->tries == 1 &&
                     axon_psn_diff(pkt->ack_psn, r->una) >= 0 &&
                     axon_psn_diff(pkt->ack_psn, r->next_psn) < 0;
    int64_t trig_sent = trig->sent_ns, now, late;
    unsigned n = 0, i;
    uint32_t psn, high;

    if (qp->state != AXON_QPS_RTS ||
        axon_psn_diff(pkt->psn, r->una) < -AXON_RUD_WINDOW ||
        axon_psn_diff(pkt->psn, r->next_psn) > 0 ||
        pkt->len > IB_RUD_SACK_BYTES) {
        axon_rud_drop(eng, qp, pkt, "ACK for nothing sent");
        return;
    }
    if (pkt->syndrome >> AETH_TYPE_SHIFT == AETH_NAK) {
        AxonRudSlot *sl = axon_rud_slot(r, pkt->err_psn);

        /* only a packet of a message outstanding, as the NAK names it */
        if (sl->live && axon_psn_diff(pkt->err_psn, r->una) >= 0 &&
            axon_psn_diff(pkt->err_psn, r->next_psn) < 0 &&
            axon_win(qp, sl->wqe)->rud.msg_id == pkt->err_msg) {
            qp->stats.err_naks_rcvd++;
            axon_rud_fail(eng, qp, axon_win(qp, sl->wqe),
                          axon_rud_nak_status(pkt->syndrome));
            return;
        }
    }
    for (psn = r->una; axon_psn_diff(psn, pkt->psn) < 0;
         psn = axon_psn_add(psn, 1)) {
        n += axon_rud_sacked(qp, psn);
    }
    high = pkt->psn;
    for (i = 1; i < pkt->len * 8; i++) {
        psn = axon_psn_add(pkt->psn, i);
        if (axon_psn_diff(psn, r->next_psn) >= 0) {
            break;
        }
        /* a late ACK's bits before una: their slots hold newer PSNs */
        if (axon_psn_diff(psn, r->una) < 0) {
            continue;
        }
        if (pkt->payload[i / 8] & (1 << (i % 8))) {
            n += axon_rud_sacked(qp, psn);
            high = psn;
        }
    }
    now = axon_rud_now(r);
    if (trig_live && !trig->live) {
        axon_rud_rtt(r, now - trig_sent);
    }
    if (pkt->ce) {
        /* the plane that carried the marked packet queues: avoid it */
        r->avoid_until[trig->plane] = MAX(r->avoid_until[trig->plane],
                                          now + r->srtt_ns);
    }
    axon_rud_cwnd_acked(qp, n, pkt->ce);
    axon_rud_advance_una(r);
    for (psn = r->una; axon_psn_diff(psn, high) < 0;
         psn = axon_psn_add(psn, 1)) {
        AxonRudSlot *sl = axon_rud_slot(r, psn);

        late = axon_rud_late_at(r, sl);
        if (late && now > late) {
            axon_rud_queue(eng, qp, sl, psn, false);
        } else if (late) {
            /* a full window may bring no further ACK to tell */
            axon_rud_arm(r, late + 1);
        }
    }
    axon_roce_complete(eng, qp);
}

void axon_rud_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt)
{
    switch (pkt->opcode) {
    case IB_RUD_ACK:
        axon_rud_ack_rx(eng, qp, pkt);
        break;
    case IB_RUD_READ_RESP:
        axon_rud_resp_rx(eng, qp, pkt);
        break;
    default:
        axon_rud_req_rx(eng, qp, pkt);
    }
}

/* ---- lifecycle ----------------------------------------------------------- */

bool axon_rud_qp_init(AxonQp *qp)
{
    qp->rud = axon_new0(AxonRud, 1);
    if (!qp->rud) {
        return false;
    }
    qp->rud->env = qp->eng->env;
    qp->rud->rto_timer = axon_env_timer_new(qp->rud->env, axon_rud_timer, qp);
    return true;
}

void axon_rud_qp_free(AxonQp *qp)
{
    if (qp->rud) {
        axon_env_timer_free(qp->rud->rto_timer);
        free(qp->rud);
        qp->rud = NULL;
    }
}

void axon_rud_stop(AxonQp *qp)
{
    if (qp->rud) {
        axon_env_timer_del(qp->rud->rto_timer);
    }
}

/*
 * Leaving RESET: a new receive key, from the host's random source (as MR
 * keys are: axon_env_random).
 * Returned to the QP's owner only, as the result of its MODIFY_QP.
 */
uint64_t axon_rud_open(AxonQp *qp)
{
    AxonRud *r = qp->rud;

    do {
        axon_env_random(r->env, &r->rx_key, sizeof(r->rx_key));
    } while (!r->rx_key);
    r->tx_key = 0;
    return r->rx_key;
}

/* Back in RESET: no key, so every packet for the QP is dropped. */
void axon_rud_forget(AxonQp *qp)
{
    qp->rud->rx_key = qp->rud->tx_key = 0;
}

/* INIT -> RTR: the peer's key, which every packet sent carries. */
void axon_rud_set_peer_key(AxonQp *qp, uint64_t key)
{
    qp->rud->tx_key = key;
}

/* Equal, in a time that does not depend on where the keys differ. */
static bool axon_rud_key_eq(uint64_t a, uint64_t b)
{
    uint64_t d = a ^ b;

    return !((d | (0 - d)) >> 63);
}

/*
 * A RUD packet for the QP must carry its key: anything else is dropped
 * and counted before the packet's state, PSN or contents are looked at.
 */
bool axon_rud_key_ok(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt)
{
    uint64_t key = qp->rud->rx_key;

    if (axon_rud_key_eq(pkt->key, key) & (key != 0)) {
        return true;
    }
    axon_rud_drop(eng, qp, pkt, "connection key");
    return false;
}

/* INIT -> RTR: the receiver starts at the RQ PSN. */
void axon_rud_rtr(AxonEngine *eng, AxonQp *qp)
{
    AxonRud *r = qp->rud;
    uint32_t rq_psn = le32_to_cpu(qp->attr.rq_psn);

    r->epsn = r->rx_high = rq_psn;
    memset(r->seen, 0, sizeof(r->seen));
    memset(r->msg, 0, sizeof(r->msg));
    memset(r->rd, 0, sizeof(r->rd));
    r->unacked = 0;
    r->ce = 0;
    r->err_syndrome = 0;
}

/* RTR -> RTS: the sender starts at the SQ PSN, with a full window. */
void axon_rud_rts(AxonEngine *eng, AxonQp *qp)
{
    AxonRud *r = qp->rud;
    uint32_t sq_psn = le32_to_cpu(qp->attr.sq_psn);
    unsigned k;

    r->next_psn = r->una = sq_psn;
    r->msg_next = 0;
    r->inflight = 0;
    /* as RC's: the fabric's buffers, and the doorbell stays short */
    r->cwnd_max = MAX(MIN(axon_roce_wire_pkts(qp), AXON_RUD_WINDOW),
                      AXON_RUD_CWND_MIN) * AXON_RUD_CWND_ONE;
    r->cwnd = r->cwnd_max;
    r->cc = eng->conf.cc.rud_window;
    r->seq = r->acked_seq = r->probe_seq = 0;
    r->srtt_ns = r->rttvar_ns = r->base_rtt_ns = 0;
    r->cut_ns = r->ep_start_ns = 0;
    r->ep_acked = r->ep_marked = 0;
    r->rs_head = r->rs_count = 0;
    for (k = 0; k < AXON_MAX_PLANES; k++) {
        r->avoid_until[k] = 0;
        r->avoid_ns[k] = 0;
        r->lost_run[k] = 0;
    }
    memset(r->slot, 0, sizeof(r->slot));
}

/* In ERR: the receive WQEs messages had taken complete flushed too. */
void axon_rud_flush(AxonEngine *eng, AxonQp *qp)
{
    AxonRud *r = qp->rud;
    unsigned i;

    for (i = 0; i < AXON_RUD_MSGS; i++) {
        AxonRudMsg *m = &r->msg[i];

        if (m->active && axon_rud_op_recv(m->op)) {
            axon_qp_cqe(eng, qp, true, m->recv_wr_id, m->recv_idx, AXON_WC_RECV,
                        AXON_WC_WR_FLUSH_ERR, 0, 0, 0);
        }
        m->active = false;
    }
    memset(r->slot, 0, sizeof(r->slot));
    r->inflight = 0;
    r->rs_count = 0;
    axon_env_timer_del(r->rto_timer);
}
