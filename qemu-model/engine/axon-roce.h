/*
 * axon engine: the RC, UC, UD and RUD transports over RoCEv2, their stages and
 * what they share
 *
 * One file per protocol stage, in the manner of the kernel's rxe:
 *
 *   axon-roce-opcode.c/.h  what each BTH opcode carries
 *   axon-roce-req.c        requester: WQEs into packets (RC), the send
 *                          WQE fetch both services share
 *   axon-roce-uc.c         the UC service: messages out, in PSN order in
 *   axon-roce-ud.c         the UD service: datagrams out and in
 *   axon-roce-rud*.c       the RUD service: packets sprayed over the
 *                          planes, placed as they come, acknowledged
 *                          selectively (axon-roce-rud.h: its stages)
 *   axon-roce-net.c        packets to and from the wire: encode, ICRC,
 *                          decode, dispatch to the stages below
 *   axon-roce-resp.c       responder: requests in, ACKs, NAKs and READ
 *                          responses out
 *   axon-roce-recv.c       receive WQEs taken for SENDs, every service
 *   axon-roce-comp.c       completer: responses in, CQEs out
 *   axon-roce-sched.c      the engine, the timers, the QP lifecycle
 *   axon-roce-cc.c         congestion control for RC: ECN, CNPs, DCQCN
 *
 * The QP layer (axon-qp.c) calls the entry points at the end of this
 * file; the transport reaches up only through the services of
 * axon-rdma.h (write a CQE, post a QP event, move a QP to ERR) and
 * host memory only through keys (axon-mr.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AXON_ROCE_H
#define HW_AXON_ROCE_H

#include "axon-rdma.h"
#include "axon-roce-opcode.h"

#define AXON_ROCE_BH_BUDGET         256             /* packets per run */
#define AXON_ROCE_QP_BUDGET         64
#define AXON_ROCE_DB_BUDGET         64              /* packets per doorbell */

/*
 * READ responses and atomic ACKs a responder sends while it takes the
 * request that asks for them (RUD's cap on a READ request too); the rest
 * leave from the engine, AXON_ROCE_QP_BUDGET a QP per turn. A READ may
 * ask for 2 GiB: no received frame holds the main loop for longer than
 * this burst (Documentation/wire-security.rst, "READs in bursts").
 */
#define AXON_ROCE_RESP_BURST        16

/*
 * Bytes a QP has in flight on the wire at most: what the fabric's buffers
 * hold (the test fabric's sockets take 4 MiB, see qemu-model/patches); a
 * larger burst only gets lost and sent again. 256 KiB keeps two VMs busy
 * at path MTU 1024; more measured no faster, and a sender whose window
 * covers all it is given sends it from the doorbell, in the vCPU thread
 * that posted it, instead of as ACKs open the window. (Growing RC's
 * window on success and halving it on loss did worse between two loaded
 * VMs.)
 */
#define AXON_ROCE_WIRE_WINDOW       (256 * KiB)

/* A RoCEv2 packet, headers decoded into host order. */
typedef struct AxonPkt {
    uint8_t opcode;             /* IB BTH opcode */
    bool se;
    bool ackreq;
    uint8_t pad;
    uint32_t dqpn;
    uint32_t psn;
    uint64_t va;                /* RETH, AtomicETH */
    uint32_t rkey;              /* RETH, AtomicETH, IETH */
    uint32_t dmalen;
    uint8_t syndrome;           /* AETH */
    uint32_t msn;
    uint64_t swap_add, cmp;     /* AtomicETH */
    uint64_t orig;              /* AtomicAckETH */
    uint32_t imm;               /* network order */
    uint32_t qkey;              /* DETH */
    uint32_t src_qpn;
    uint32_t xrc_srqn;          /* XRCETH: the target's XRC SRQ */
    const uint8_t *payload;
    uint32_t len;
    uint8_t sgid[16];           /* received: the source IP, as a GID */
    uint8_t dgid[16];           /* received: the destination IP, as one */
    const uint8_t *l3;          /* received: its IP header (a UD GRH) */
    unsigned l3_len;
    uint8_t ecn;                /* received: the IP header's ECN field */
    bool trimmed;               /* received: RUD DATA cut to its headers */
    /* RUD (RUDETH, SACKETH) */
    uint64_t key;               /* the receiving QP's */
    uint32_t msg_id;
    uint32_t msg_len;
    uint32_t offset;
    uint32_t req_len;           /* READ request: bytes asked for */
    uint8_t rud_op;             /* RUD_OP_* */
    uint8_t ce;                 /* ACK: CE-marked packets since the last */
    uint32_t ack_psn;           /* ACK: the packet that asked for it */
    uint32_t err_psn;           /* ACK with a NAK syndrome: the refused one */
    uint32_t err_msg;           /* ... and its message */
} AxonPkt;

/* The ECN field of the IP header (RFC 3168) */
#define AXON_ECN_NOT_ECT    0
#define AXON_ECN_ECT0       2
#define AXON_ECN_CE         3

/* A Q_Key with this bit set in a UD WQE: the QP's own (IBA 10.2.5) */
#define AXON_UD_PRIVILEGED_QKEY 0x80000000u

/* Where a packet goes: the QP's path (RC), or its WQE's address (UD). */
typedef struct AxonPath {
    const uint8_t *dmac;
    const uint8_t *dgid;
    uint8_t sgid_index;
    uint8_t hop_limit;
    uint8_t tclass;
    uint8_t ecn;                /* AXON_ECN_*: into tclass's low bits */
    uint32_t flow_label;        /* host order */
    uint16_t udp_sport;         /* host order; 0: from the QPN */
    bool loopback;              /* the destination is this device */
} AxonPath;

/* What a WQE's opcode (enum axon_wr_opcode) asks of the transport. */
static inline bool axon_wr_atomic(uint8_t opcode)
{
    return opcode == AXON_WR_ATOMIC_CMP_SWP ||
           opcode == AXON_WR_ATOMIC_FETCH_ADD;
}

static inline bool axon_wr_rd_atomic(uint8_t opcode)
{
    return opcode == AXON_WR_RDMA_READ || axon_wr_atomic(opcode);
}

/* REG_MR, LOCAL_INV and BIND_MW: done in the device, nothing sent */
static inline bool axon_wr_local(uint8_t opcode)
{
    return opcode == AXON_WR_REG_MR || opcode == AXON_WR_LOCAL_INV ||
           opcode == AXON_WR_BIND_MW;
}

static inline bool axon_swqe_rd_atomic(const AxonSwqe *e)
{
    return axon_wr_rd_atomic(e->opcode);
}

static inline AxonSwqe *axon_win(AxonQp *qp, uint16_t idx)
{
    return &qp->req.win[idx & (qp->req.win_size - 1)];
}

/* Every window entry holds a WQE taken and not completed. */
static inline bool axon_win_full(const AxonQp *qp)
{
    return (uint16_t)(qp->req.sq_fetch - qp->comp.sq_comp) >=
           qp->req.win_size;
}

/* Sent and not yet completed: WQEs, or packets of one. */
static inline bool axon_roce_outstanding(AxonQp *qp)
{
    return qp->comp.sq_comp != qp->req.cur || qp->req.cur_off;
}

/* Posted WQEs (or packets of one) not sent yet. */
static inline bool axon_roce_unsent(AxonQp *qp)
{
    return qp->req.cur != qp->req.sq_fetch || qp->req.sq_fetch != qp->sq.pi;
}

/* The wire window in packets of the QP's path MTU. */
static inline uint32_t axon_roce_wire_pkts(const AxonQp *qp)
{
    return MAX(AXON_ROCE_WIRE_WINDOW / qp->mtu, 1);
}

/* The responder owes READ responses or atomic ACKs. */
static inline bool axon_roce_answering(const AxonQp *qp)
{
    return qp->resp.answering;
}

/* axon-roce-req.c */
void axon_roce_fetch(AxonEngine *eng, AxonQp *qp);
bool axon_roce_build(AxonEngine *eng, AxonQp *qp, AxonSwqe *e, AxonPkt *pkt);
bool axon_roce_pages_wait(AxonEngine *eng, AxonQp *qp, const AxonSwqe *e);
bool axon_roce_local_op(AxonEngine *eng, AxonQp *qp, AxonSwqe *e);
unsigned axon_roce_req_run(AxonEngine *eng, AxonQp *qp, unsigned budget);

/* axon-roce-uc.c */
unsigned axon_uc_req_run(AxonEngine *eng, AxonQp *qp, unsigned budget);
void axon_uc_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt);

/* axon-roce-ud.c */
unsigned axon_ud_req_run(AxonEngine *eng, AxonQp *qp, unsigned budget);
void axon_ud_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt);

/* axon-roce-rud.c */
void axon_rud_timing_defaults(AxonRudTiming *t);
bool axon_rud_qp_init(AxonQp *qp);
void axon_rud_qp_free(AxonQp *qp);
uint64_t axon_rud_open(AxonQp *qp);
void axon_rud_forget(AxonQp *qp);
void axon_rud_set_peer_key(AxonQp *qp, uint64_t key);
bool axon_rud_key_ok(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt);
void axon_rud_rtr(AxonEngine *eng, AxonQp *qp);
void axon_rud_rts(AxonEngine *eng, AxonQp *qp);
void axon_rud_stop(AxonQp *qp);
void axon_rud_flush(AxonEngine *eng, AxonQp *qp);
unsigned axon_rud_req_run(AxonEngine *eng, AxonQp *qp, unsigned budget);
void axon_rud_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt);
void axon_rud_send_ack(AxonEngine *eng, AxonQp *qp);

/* axon-roce-net.c */
void axon_roce_xmit(AxonEngine *eng, AxonQp *qp, AxonPkt *pkt);
void axon_roce_xmit_path(AxonEngine *eng, AxonQp *qp, AxonPkt *pkt,
                         const AxonPath *path);
void axon_roce_qp_path(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt,
                       AxonPath *path);
unsigned axon_roce_qp_plane(AxonEngine *eng, const AxonQp *qp);
bool axon_roce_dest_is_local(AxonEngine *eng, const uint8_t *dmac,
                             const uint8_t *dgid);
bool axon_roce_decode(AxonEngine *eng, const uint8_t *frame, size_t len,
                      AxonPkt *pkt, const char **why);

/* axon-roce-rx.c: a packet for this device, to its QP's stage */
void axon_roce_rx_pkt(AxonEngine *eng, const AxonPkt *pkt,
                      const AxonQp *from);

/* axon-roce-resp.c */
void axon_roce_resp_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt);
void axon_roce_send_ack(AxonEngine *eng, AxonQp *qp, uint8_t syndrome,
                        uint32_t psn);
void axon_roce_resp_ack(AxonEngine *eng, AxonQp *qp);
unsigned axon_roce_resp_run(AxonEngine *eng, AxonQp *qp, unsigned budget);
void axon_roce_resp_stop(AxonQp *qp);

/* axon-roce-recv.c */
bool axon_roce_recv_fetch(AxonEngine *eng, AxonQp *qp);
uint32_t axon_roce_recv_pdn(AxonQp *qp);
uint32_t axon_roce_recv_room(AxonQp *qp);
void axon_roce_recv_done(AxonQp *qp);

/* axon-roce-comp.c: completions, and the timer that waits for them */
void axon_roce_comp_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt);
void axon_roce_complete(AxonEngine *eng, AxonQp *qp);
void axon_roce_fail(AxonQp *qp, AxonSwqe *e, uint8_t status);
void axon_roce_skip(AxonQp *qp, AxonSwqe *e);
void axon_roce_rewind(AxonQp *qp, uint32_t psn);
void axon_roce_swqe_cqe(AxonEngine *eng, AxonQp *qp, AxonSwqe *e);
uint8_t axon_wc_opcode(uint8_t wr_opcode);
int64_t axon_roce_timeout_ns(AxonQp *qp);
void axon_roce_arm_retry(AxonQp *qp, bool progress);
void axon_roce_rnr_wait(AxonQp *qp, uint8_t timer);

/* axon-roce-cc.c */
static inline bool axon_cc_enabled(AxonEngine *eng)
{
    return eng->conf.cc.dcqcn;
}

/* The ECN field of a packet: with DCQCN on, RC's data is ECN-capable. */
static inline uint8_t axon_cc_ecn(AxonEngine *eng, const AxonQp *qp,
                                  const AxonPkt *pkt)
{
    if (!axon_cc_enabled(eng) || qp->type != AXON_QPT_RC ||
        pkt->opcode == IB_CNP) {
        return AXON_ECN_NOT_ECT;
    }
    return AXON_ECN_ECT0;
}

void axon_cc_rx(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt);
void axon_cc_cnp_rx(AxonEngine *eng, AxonQp *qp);
unsigned axon_cc_allowance(AxonEngine *eng, AxonQp *qp, unsigned budget);
void axon_cc_sent(AxonEngine *eng, AxonQp *qp, unsigned pkts, uint64_t bytes,
                  bool more);
bool axon_cc_paced(AxonEngine *eng, AxonQp *qp);
void axon_cc_qp_init(AxonQp *qp);
void axon_cc_qp_reset(AxonQp *qp);
void axon_cc_qp_free(AxonQp *qp);

/* axon-roce-queue.c: QPs with work, QPs owing an ACK */
void axon_roce_schedule(AxonEngine *eng, AxonQp *qp);
void axon_roce_ack_later(AxonEngine *eng, AxonQp *qp);
void axon_roce_unqueue(AxonEngine *eng, AxonQp *qp);

/* axon-roce-sched.c: the entry points for the QP layer and doorbells */
void axon_roce_kick(AxonEngine *eng, AxonQp *qp);
bool axon_roce_qp_init(AxonEngine *eng, AxonQp *qp);
void axon_roce_qp_rtr(AxonEngine *eng, AxonQp *qp);
void axon_roce_qp_rts(AxonEngine *eng, AxonQp *qp);
void axon_roce_qp_stop(AxonEngine *eng, AxonQp *qp);
/*
 * Send now the coalesced ACK @qp's responder owes, if any (before it
 * leaves RTR/RTS or goes): its consumer may have seen the completions the
 * ACK covers, and the requester would retry into a QP that no longer
 * answers.
 */
void axon_roce_ack_owed(AxonEngine *eng, AxonQp *qp);
void axon_roce_flush(AxonEngine *eng, AxonQp *qp);

#endif /* HW_AXON_ROCE_H */
