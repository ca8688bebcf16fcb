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

#include "axon-roce-rud.h"

/* ---- lifecycle ----------------------------------------------------------- */

static int64_t or_default(int64_t v, int64_t def)
{
    return v ? v : def;
}

/* The timers a host left 0: the TCG guests' (axon-roce-rud.h). */
void axon_rud_timing_defaults(AxonRudTiming *t)
{
    t->rto_init_ns = or_default(t->rto_init_ns,
                                AXON_RUD_RTO_INIT_DEFAULT_NS);
    t->rto_min_ns = or_default(t->rto_min_ns, AXON_RUD_RTO_MIN_DEFAULT_NS);
    t->rto_max_ns = MAX(or_default(t->rto_max_ns,
                                   AXON_RUD_RTO_MAX_DEFAULT_NS),
                        t->rto_min_ns);
    t->late_min_ns = or_default(t->late_min_ns,
                                AXON_RUD_LATE_MIN_DEFAULT_NS);
    t->target_q_ns = or_default(t->target_q_ns,
                                AXON_RUD_TARGET_Q_DEFAULT_NS);
    t->avoid_min_ns = or_default(t->avoid_min_ns,
                                 AXON_RUD_AVOID_MIN_DEFAULT_NS);
    t->avoid_max_ns = MAX(or_default(t->avoid_max_ns,
                                     AXON_RUD_AVOID_MAX_DEFAULT_NS),
                          t->avoid_min_ns);
}

bool axon_rud_qp_init(AxonQp *qp)
{
    AxonRud *r = axon_new0(AxonRud, 1);

    qp->rud = r;
    if (!r) {
        return false;
    }
    r->env = qp->eng->env;
    r->t = &qp->eng->conf.cc.rud;
    r->nslots = AXON_RUD_SLOTS_MIN;
    r->slot = axon_new0(AxonRudSlot, r->nslots);
    r->resend = axon_new0(uint32_t, r->nslots);
    r->rto_timer = axon_env_timer_new(r->env, axon_rud_timer, qp);
    if (!r->slot || !r->resend) {
        axon_rud_qp_free(qp);
        return false;
    }
    return true;
}

/* The messages the receiver made room for, gone: a QP back to its start. */
static void axon_rud_msgs_free(AxonRud *r)
{
    unsigned i;

    for (i = 0; i < AXON_RUD_MSGS; i++) {
        free(r->msg[i]);
        r->msg[i] = NULL;
    }
}

void axon_rud_qp_free(AxonQp *qp)
{
    AxonRud *r = qp->rud;

    if (r) {
        axon_env_timer_free(r->rto_timer);
        axon_rud_msgs_free(r);
        free(r->rd);
        free(r->slot);
        free(r->resend);
        free(r);
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
    axon_rud_msgs_free(r);
    free(r->rd);
    r->rd = NULL;
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
    r->acked_rtt_ns = 0;
    r->srtt_ns = r->rttvar_ns = r->base_rtt_ns = 0;
    r->cut_ns = r->ep_start_ns = 0;
    r->ep_acked = r->ep_marked = 0;
    r->rs_head = r->rs_count = 0;
    for (k = 0; k < AXON_MAX_PLANES; k++) {
        r->avoid_until[k] = 0;
        r->avoid_ns[k] = 0;
        r->lost_run[k] = 0;
    }
    memset(r->slot, 0, r->nslots * sizeof(*r->slot));
}

/* In ERR: the receive WQEs messages had taken complete flushed too. */
void axon_rud_flush(AxonEngine *eng, AxonQp *qp)
{
    AxonRud *r = qp->rud;
    unsigned i;

    for (i = 0; i < AXON_RUD_MSGS; i++) {
        AxonRudMsg *m = r->msg[i];

        if (!m) {
            continue;
        }
        if (m->active && axon_rud_op_recv(m->op)) {
            axon_qp_cqe(eng, qp, true, m->recv_wr_id, m->recv_idx, AXON_WC_RECV,
                        AXON_WC_WR_FLUSH_ERR, 0, 0, 0);
        }
        m->active = false;
    }
    memset(r->slot, 0, r->nslots * sizeof(*r->slot));
    r->inflight = 0;
    r->rs_count = 0;
    axon_env_timer_del(r->rto_timer);
}
