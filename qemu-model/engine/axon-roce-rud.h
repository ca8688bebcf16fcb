/*
 * axon engine: the RUD service's state, shared by its stages
 *
 *   axon-roce-rud.c         the QP's lifecycle, keys, the entry points
 *   axon-roce-rud-tx.c      the sender
 *   axon-roce-rud-window.c  planes, round trip, congestion window, timer
 *   axon-roce-rud-rx.c      the receiver and placement
 *   axon-roce-rud-ack.c     acknowledgements, SACK and NAK, both ways
 *
 * Wire format and rules: Documentation/rud.rst.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AXON_ROCE_RUD_H
#define AXON_ROCE_RUD_H

#include "axon-roce.h"

#define AXON_RUD_WINDOW         1024    /* PSNs in flight; the SACK bitmap */
/*
 * A sender's slots and resend ring start this large and double, up to
 * AXON_RUD_WINDOW, when the PSNs in flight fill them: a QP costs what it
 * has in flight, so a host can hold a QP for each of a thousand peers.
 */
#define AXON_RUD_SLOTS_MIN      16
#define AXON_RUD_MSGS           AXON_RDMA_WINDOW    /* messages in progress */
#define AXON_RUD_READ_PKTS      16      /* responses per READ request */
#define AXON_RUD_ACK_EVERY      256     /* packets before an ACK goes at once */
#define AXON_RUD_ACK_REQ        64      /* PSNs between the sender's AckReqs */
#define AXON_RUD_CWND_ONE       256     /* the window in 1/256 packets */
#define AXON_RUD_CWND_MIN       8
/* packets a round trip the window grows by at most: additive, so fair */
#define AXON_RUD_CWND_GAIN      8
#define AXON_RUD_RTO_INIT_DEFAULT_NS    (20 * SCALE_MS)
/*
 * The timer only catches what SACKs cannot (the last packets of a burst):
 * a TCG guest stalls for 10 ms and more now and then, and a timer that
 * fires in a stall sends a window again and halves it for nothing.
 */
#define AXON_RUD_RTO_MIN_DEFAULT_NS     (40 * SCALE_MS)
/*
 * How much later than a round trip a packet may be, behind one sent
 * after it that arrived, before it counts as lost: the reordering the
 * planes show. A TCG guest's planes are sockets of one QEMU main loop,
 * read a batch at a time, each wire a process of its own.
 */
#define AXON_RUD_LATE_MIN_DEFAULT_NS    (2 * SCALE_MS)
#define AXON_RUD_RTO_MAX_DEFAULT_NS     (500 * SCALE_MS)
/* queueing the window allows: TCG guests' fabric queues for ms */
#define AXON_RUD_TARGET_Q_DEFAULT_NS    (8 * SCALE_MS)
#define AXON_RUD_PLANE_LOSSES   3       /* in a row: the plane is avoided */
#define AXON_RUD_AVOID_MIN_DEFAULT_NS   (5 * SCALE_MS)
#define AXON_RUD_AVOID_MAX_DEFAULT_NS   (1000 * SCALE_MS)
/*
 * Packets of the message a slot holds, but not like its first one, that
 * the slot refuses with its message making no progress before it gives
 * the slot up to them (a stray first packet cannot hold it for good).
 */
#define AXON_RUD_SLOT_REFUSALS  3

AXON_BUILD_BUG_ON(AXON_RUD_WINDOW != IB_RUD_SACK_BYTES * 8);
AXON_BUILD_BUG_ON(AXON_RUD_SLOTS_MIN & (AXON_RUD_SLOTS_MIN - 1));
AXON_BUILD_BUG_ON(AXON_RUD_SLOTS_MIN < AXON_RUD_CWND_MIN);
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
    const AxonRudTiming *t;     /* the engine's conf.cc.rud */
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
    int64_t acked_rtt_ns;       /* the newest acked send's round trip */
    uint64_t probe_seq;         /* acked_seq when the last probe went */
    int64_t srtt_ns, rttvar_ns, base_rtt_ns;
    int64_t cut_ns;             /* last window decrease */
    int64_t ep_start_ns;        /* this round trip's marks: since, ... */
    uint32_t ep_acked, ep_marked;   /* ... packets acked, marked */
    unsigned rr;                /* next plane to try */
    int64_t avoid_until[AXON_MAX_PLANES];
    int64_t avoid_ns[AXON_MAX_PLANES];  /* next avoidance, 0: none yet */
    uint8_t lost_run[AXON_MAX_PLANES];  /* losses since one arrived */
    uint32_t nslots;            /* a power of 2: the most PSNs in flight */
    AxonRudSlot *slot;          /* by PSN % nslots */
    uint32_t *resend;           /* a ring of nslots PSNs */
    unsigned rs_head, rs_count;
    AxonTimer *rto_timer;

    /* receiver */
    uint32_t epsn;              /* every PSN before it arrived */
    uint32_t rx_high;           /* one after the highest PSN arrived */
    uint64_t seen[AXON_RUD_WINDOW / 64];    /* by PSN % window */
    uint32_t unacked;
    uint8_t ce;
    uint32_t ack_psn;
    uint8_t err_syndrome;       /* a NAK owed: 0, or AETH_NAK << 5 | code */
    uint32_t err_psn, err_msg;
    AxonRudMsg *msg[AXON_RUD_MSGS];     /* made when a packet opens one */
    AxonRudRead *rd;            /* by PSN % window: from the first READ */
};

static inline AxonRudSlot *axon_rud_slot(AxonRud *r, uint32_t psn)
{
    return &r->slot[psn & (r->nslots - 1)];
}

static inline int64_t axon_rud_now(const AxonRud *r)
{
    return axon_env_now_ns(r->env);
}

static inline void axon_rud_drop(AxonEngine *eng, AxonQp *qp,
                                 const AxonPkt *pkt, const char *why)
{
    axon_trace_err_rud_rx(eng->env, qp->qpn, pkt->opcode, pkt->psn, why);
    eng->stats.rud_drops++;
    qp->stats.stray++;
}

/* axon-roce-rud-rx.c */
bool axon_rud_op_recv(uint8_t op);
void axon_rud_req_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt);

/* axon-roce-rud-window.c */
unsigned axon_rud_pick_plane(AxonEngine *eng, AxonRud *r, int not);
void axon_rud_xmit(AxonEngine *eng, AxonQp *qp, AxonPkt *pkt,
                   unsigned plane);
void axon_rud_rtt(AxonRud *r, int64_t rtt);
void axon_rud_cwnd_acked(AxonQp *qp, unsigned n, unsigned ce);
int64_t axon_rud_due(AxonRud *r, const AxonRudSlot *sl);
void axon_rud_arm(AxonRud *r, int64_t when);
int64_t axon_rud_late_at(AxonRud *r, const AxonRudSlot *sl);
void axon_rud_queue(AxonEngine *eng, AxonQp *qp, AxonRudSlot *sl,
                    uint32_t psn, bool timer);
void axon_rud_trimmed(AxonEngine *eng, AxonQp *qp, AxonRudSlot *sl,
                      uint32_t psn);
void axon_rud_slot_done(AxonQp *qp, AxonRudSlot *sl);
void axon_rud_advance_una(AxonRud *r);
bool axon_rud_grow(AxonRud *r);
void axon_rud_fail(AxonEngine *eng, AxonQp *qp, AxonSwqe *e,
                   uint8_t status);
int64_t axon_rud_pto(AxonRud *r);
void axon_rud_timer(void *opaque);

#endif /* AXON_ROCE_RUD_H */
