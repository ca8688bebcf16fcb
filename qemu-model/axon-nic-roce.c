/*
 * axon-nic: the RC transport (RoCEv2)
 *
 * Requester: takes send WQEs into a per-QP window (a send doorbell for
 * its first packets, then the engine bottom half), segments them at the
 * path MTU into packets, and retransmits from the window on a NAK or a
 * timeout (go-back-N). Responder: checks each request's PSN, opcode
 * sequence, key, PD, access rights and bounds before it touches guest
 * memory, places the payload, and answers with coalesced ACKs, NAKs,
 * READ responses and atomic ACKs.
 *
 * Packets travel decoded (AxonPkt). To a QP of this same device they are
 * handed straight to the receive path (loopback: no Ethernet, IP, UDP or
 * ICRC); otherwise they are encoded as RoCEv2 frames, with the ICRC, and
 * sent on the netdev backend, whose received RoCEv2 frames come back
 * through axon_roce_rx_frame().
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/iov.h"
#include "qemu/units.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "hw/pci/pci.h"
#include "net/net.h"
#include "net/eth.h"
#include "net/checksum.h"
#include "sysemu/dma.h"
#include "trace.h"
#include <zlib.h>

#include "axon-nic-rdma.h"

/* ---- IB transport headers ----------------------------------------------- */

/* BTH opcodes of the RC transport (IBA 9.2) */
enum {
    IB_SEND_FIRST = 0x00,
    IB_SEND_MIDDLE = 0x01,
    IB_SEND_LAST = 0x02,
    IB_SEND_LAST_IMM = 0x03,
    IB_SEND_ONLY = 0x04,
    IB_SEND_ONLY_IMM = 0x05,
    IB_WRITE_FIRST = 0x06,
    IB_WRITE_MIDDLE = 0x07,
    IB_WRITE_LAST = 0x08,
    IB_WRITE_LAST_IMM = 0x09,
    IB_WRITE_ONLY = 0x0a,
    IB_WRITE_ONLY_IMM = 0x0b,
    IB_READ_REQ = 0x0c,
    IB_READ_RESP_FIRST = 0x0d,
    IB_READ_RESP_MIDDLE = 0x0e,
    IB_READ_RESP_LAST = 0x0f,
    IB_READ_RESP_ONLY = 0x10,
    IB_ACK = 0x11,
    IB_ATOMIC_ACK = 0x12,
    IB_CMP_SWP = 0x13,
    IB_FETCH_ADD = 0x14,
    IB_NUM_OPCODES,
};

#define IB_NO_OPCODE        0xff

/* what each opcode carries */
#define OP_REQ          0x001   /* requester to responder */
#define OP_START        0x002   /* first packet of a message */
#define OP_END          0x004   /* last packet of a message */
#define OP_PAYLOAD      0x008
#define OP_RETH         0x010
#define OP_AETH         0x020
#define OP_ATOMIC       0x040   /* AtomicETH */
#define OP_ATOMIC_ACK   0x080   /* AtomicAckETH */
#define OP_IMM          0x100

enum { KIND_SEND, KIND_WRITE, KIND_READ, KIND_ATOMIC, KIND_RRESP, KIND_ACK };

typedef struct AxonIbOp {
    uint16_t flags;
    uint8_t kind;
} AxonIbOp;

#define SEND_OP(f)  { OP_REQ | OP_PAYLOAD | (f), KIND_SEND }
#define WRITE_OP(f) { OP_REQ | OP_PAYLOAD | (f), KIND_WRITE }
#define RRESP_OP(f) { OP_PAYLOAD | (f), KIND_RRESP }

static const AxonIbOp axon_ib_ops[IB_NUM_OPCODES] = {
    [IB_SEND_FIRST] = SEND_OP(OP_START),
    [IB_SEND_MIDDLE] = SEND_OP(0),
    [IB_SEND_LAST] = SEND_OP(OP_END),
    [IB_SEND_LAST_IMM] = SEND_OP(OP_END | OP_IMM),
    [IB_SEND_ONLY] = SEND_OP(OP_START | OP_END),
    [IB_SEND_ONLY_IMM] = SEND_OP(OP_START | OP_END | OP_IMM),
    [IB_WRITE_FIRST] = WRITE_OP(OP_START | OP_RETH),
    [IB_WRITE_MIDDLE] = WRITE_OP(0),
    [IB_WRITE_LAST] = WRITE_OP(OP_END),
    [IB_WRITE_LAST_IMM] = WRITE_OP(OP_END | OP_IMM),
    [IB_WRITE_ONLY] = WRITE_OP(OP_START | OP_END | OP_RETH),
    [IB_WRITE_ONLY_IMM] = WRITE_OP(OP_START | OP_END | OP_RETH | OP_IMM),
    [IB_READ_REQ] = { OP_REQ | OP_START | OP_END | OP_RETH, KIND_READ },
    [IB_READ_RESP_FIRST] = RRESP_OP(OP_START | OP_AETH),
    [IB_READ_RESP_MIDDLE] = RRESP_OP(0),
    [IB_READ_RESP_LAST] = RRESP_OP(OP_END | OP_AETH),
    [IB_READ_RESP_ONLY] = RRESP_OP(OP_START | OP_END | OP_AETH),
    [IB_ACK] = { OP_START | OP_END | OP_AETH, KIND_ACK },
    [IB_ATOMIC_ACK] = { OP_START | OP_END | OP_AETH | OP_ATOMIC_ACK,
                        KIND_ACK },
    [IB_CMP_SWP] = { OP_REQ | OP_START | OP_END | OP_ATOMIC, KIND_ATOMIC },
    [IB_FETCH_ADD] = { OP_REQ | OP_START | OP_END | OP_ATOMIC, KIND_ATOMIC },
};

#define IB_BTH_LEN          12
#define IB_RETH_LEN         16
#define IB_AETH_LEN         4
#define IB_ATOMIC_ETH_LEN   28
#define IB_ATOMIC_ACK_LEN   8
#define IB_IMM_LEN          4
#define IB_ICRC_LEN         4
#define IB_MAX_HDR_LEN      (IB_BTH_LEN + IB_ATOMIC_ETH_LEN + IB_AETH_LEN + \
                             IB_ATOMIC_ACK_LEN + IB_IMM_LEN)
#define IB_DEFAULT_PKEY     0xffff

/* AETH syndrome (IBA 9.7.5.1) */
#define AETH_TYPE_SHIFT     5
#define AETH_ACK            0
#define AETH_RNR_NAK        1
#define AETH_RESERVED       2
#define AETH_NAK            3
#define AETH_NO_CREDIT      0x1f    /* no end-to-end credits */
#define NAK_PSN_SEQ         0
#define NAK_INV_REQ         1
#define NAK_REM_ACCESS      2
#define NAK_REM_OP          3

#define AXON_ROCE_MIN_TIMEOUT_NS    (10 * SCALE_MS) /* TCG guests are slow */
#define AXON_ROCE_BH_BUDGET         256             /* packets per run */
#define AXON_ROCE_QP_BUDGET         64
#define AXON_ROCE_DB_BUDGET         64              /* packets per doorbell */

static unsigned axon_ib_hdr_len(uint16_t flags)
{
    return IB_BTH_LEN + (flags & OP_RETH ? IB_RETH_LEN : 0) +
           (flags & OP_ATOMIC ? IB_ATOMIC_ETH_LEN : 0) +
           (flags & OP_AETH ? IB_AETH_LEN : 0) +
           (flags & OP_ATOMIC_ACK ? IB_ATOMIC_ACK_LEN : 0) +
           (flags & OP_IMM ? IB_IMM_LEN : 0);
}

static bool axon_swqe_rd_atomic(const AxonSwqe *e)
{
    return e->opcode >= AXON_WR_RDMA_READ;
}

static AxonSwqe *axon_win(AxonQp *qp, uint16_t idx)
{
    return &qp->win[idx % AXON_RDMA_WINDOW];
}

/* ---- transmit ----------------------------------------------------------- */

static void axon_roce_rx_pkt(AxonNicState *s, const AxonPkt *pkt,
                             const AxonQp *from);

/* Encodes the IB headers of pkt at p; returns their length. */
static unsigned axon_roce_put_hdrs(uint8_t *p, const AxonPkt *pkt)
{
    uint16_t flags = axon_ib_ops[pkt->opcode].flags;
    uint8_t *q = p + IB_BTH_LEN;

    p[0] = pkt->opcode;
    p[1] = (pkt->se ? 0x80 : 0) | (pkt->pad << 4);
    stw_be_p(p + 2, IB_DEFAULT_PKEY);
    stl_be_p(p + 4, pkt->dqpn & AXON_PSN_MASK);
    stl_be_p(p + 8, (pkt->ackreq ? 0x80000000u : 0) | pkt->psn);
    if (flags & (OP_RETH | OP_ATOMIC)) {
        stq_be_p(q, pkt->va);
        stl_be_p(q + 8, pkt->rkey);
        if (flags & OP_RETH) {
            stl_be_p(q + 12, pkt->dmalen);
            q += IB_RETH_LEN;
        } else {
            stq_be_p(q + 12, pkt->swap_add);
            stq_be_p(q + 20, pkt->cmp);
            q += IB_ATOMIC_ETH_LEN;
        }
    }
    if (flags & OP_AETH) {
        stl_be_p(q, (uint32_t)pkt->syndrome << 24 | (pkt->msn & AXON_PSN_MASK));
        q += IB_AETH_LEN;
    }
    if (flags & OP_ATOMIC_ACK) {
        stq_be_p(q, pkt->orig);
        q += IB_ATOMIC_ACK_LEN;
    }
    if (flags & OP_IMM) {
        memcpy(q, &pkt->imm, IB_IMM_LEN);
        q += IB_IMM_LEN;
    }
    return q - p;
}

/*
 * The ICRC (IBA 17.7.6.5 for RoCEv2): a CRC-32 over 8 bytes of ones
 * standing for the LRH, the IP and UDP headers with their variant fields
 * (TOS or traffic class and flow label, TTL or hop limit, checksums) and
 * BTH.resv8a masked to ones, the rest of the IB headers, the payload and
 * its pad. Sent least significant byte first, like the Ethernet FCS.
 */
static uint32_t axon_roce_icrc(const uint8_t *l3, unsigned l3_len,
                               const uint8_t *ib, unsigned ib_len,
                               const uint8_t *payload, unsigned len)
{
    uint8_t ph[8 + 40 + 8 + IB_BTH_LEN];
    unsigned n = l3_len + 8;
    uint32_t crc;

    memset(ph, 0xff, 8);
    memcpy(ph + 8, l3, n);
    if (l3_len == 20) {
        ph[8 + 1] = 0xff;               /* TOS */
        ph[8 + 8] = 0xff;               /* TTL */
        stw_be_p(ph + 8 + 10, 0xffff);  /* header checksum */
    } else {
        ph[8] |= 0x0f;                  /* traffic class, flow label */
        ph[8 + 1] = 0xff;
        stw_be_p(ph + 8 + 2, 0xffff);
        ph[8 + 7] = 0xff;               /* hop limit */
    }
    stw_be_p(ph + 8 + l3_len + 6, 0xffff);  /* UDP checksum */
    memcpy(ph + 8 + n, ib, IB_BTH_LEN);
    ph[8 + n + 4] = 0xff;               /* BTH resv8a */
    crc = crc32(0, ph, 8 + n + IB_BTH_LEN);
    crc = crc32(crc, ib + IB_BTH_LEN, ib_len - IB_BTH_LEN);
    /* zlib takes a NULL buffer as a request for the initial value */
    return len ? crc32(crc, payload, len) : crc;
}

static bool axon_gid_is_v4(const uint8_t *gid)
{
    static const uint8_t prefix[12] = {
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
    };

    return !memcmp(gid, prefix, sizeof(prefix));
}

/* Sends pkt as a RoCEv2 frame on the QP's path. */
static void axon_roce_wire_tx(AxonNicState *s, AxonQp *qp, AxonPkt *pkt)
{
    const struct axon_qp_attr *a = &qp->attr;
    const uint8_t *sgid = s->gid_tbl[a->sgid_index].gid;
    bool v4 = axon_gid_is_v4(sgid) && axon_gid_is_v4(a->dgid);
    unsigned l3_len = v4 ? 20 : 40;
    uint8_t hdr[AXON_ETH_HLEN + 40 + 8 + IB_MAX_HDR_LEN];
    uint8_t *l3 = hdr + AXON_ETH_HLEN, *udp = l3 + l3_len, *ib = udp + 8;
    static const uint8_t zero_pad[4];
    uint8_t icrc[IB_ICRC_LEN];
    unsigned ib_len, udp_len;
    uint16_t sport;
    uint32_t crc;
    struct iovec iov[4];

    if (!s->nic || !s->link_up) {
        return;
    }
    s->rdma->tx_count++;
    if (s->tx_drop_every && s->rdma->tx_count % s->tx_drop_every == 0) {
        return;     /* test hook: a lossy wire */
    }
    pkt->pad = -pkt->len & 3;
    ib_len = axon_roce_put_hdrs(ib, pkt);
    udp_len = 8 + ib_len + pkt->len + pkt->pad + IB_ICRC_LEN;

    memcpy(hdr, a->dmac, 6);
    memcpy(hdr + 6, s->conf.macaddr.a, 6);
    stw_be_p(hdr + 12, v4 ? ETH_P_IP : ETH_P_IPV6);
    if (v4) {
        l3[0] = 0x45;
        l3[1] = a->tclass;
        stw_be_p(l3 + 2, l3_len + udp_len);
        stw_be_p(l3 + 4, 0);
        stw_be_p(l3 + 6, IP_DF);
        l3[8] = a->hop_limit ? a->hop_limit : 64;
        l3[9] = IP_PROTO_UDP;
        stw_be_p(l3 + 10, 0);
        memcpy(l3 + 12, sgid + 12, 4);
        memcpy(l3 + 16, a->dgid + 12, 4);
        stw_be_p(l3 + 10, net_checksum_finish(net_checksum_add(20, l3)));
    } else {
        stl_be_p(l3, 6u << 28 | (uint32_t)a->tclass << 20 |
                 (le32_to_cpu(a->flow_label) & 0xfffff));
        stw_be_p(l3 + 4, udp_len);
        l3[6] = IP_PROTO_UDP;
        l3[7] = a->hop_limit ? a->hop_limit : 64;
        memcpy(l3 + 8, sgid, 16);
        memcpy(l3 + 24, a->dgid, 16);
    }
    sport = le16_to_cpu(a->udp_sport);
    stw_be_p(udp, sport ? sport : 0xc000 | (qp->qpn & 0x3fff));
    stw_be_p(udp + 2, AXON_ROCEV2_UDP_PORT);
    stw_be_p(udp + 4, udp_len);
    stw_be_p(udp + 6, 0);
    crc = axon_roce_icrc(l3, l3_len, ib, ib_len, pkt->payload, pkt->len);
    stl_le_p(icrc, crc32(crc, zero_pad, pkt->pad));
    if (!v4) {
        /* IPv6 needs the UDP checksum: pseudo header, then the datagram */
        uint32_t sum = net_checksum_add(32, l3 + 8);

        sum += udp_len + IP_PROTO_UDP;
        sum += net_checksum_add_cont(8 + ib_len, udp, 0);
        sum += net_checksum_add_cont(pkt->len, (uint8_t *)pkt->payload,
                                     8 + ib_len);
        sum += net_checksum_add_cont(IB_ICRC_LEN, icrc,
                                     8 + ib_len + pkt->len + pkt->pad);
        stw_be_p(udp + 6, net_checksum_finish_nozero(sum));
    }
    iov[0].iov_base = hdr;
    iov[0].iov_len = AXON_ETH_HLEN + l3_len + 8 + ib_len;
    iov[1].iov_base = (void *)pkt->payload;
    iov[1].iov_len = pkt->len;
    iov[2].iov_base = (void *)zero_pad;
    iov[2].iov_len = pkt->pad;
    iov[3].iov_base = icrc;
    iov[3].iov_len = IB_ICRC_LEN;
    if (s->tx_reorder_every && !s->rdma->held_len &&
        s->rdma->tx_count % s->tx_reorder_every == 0) {
        /* test hook: this frame overtakes the next one */
        s->rdma->held_len = iov_to_buf_full(iov, 4, 0, s->rdma->held,
                                            sizeof(s->rdma->held));
        return;
    }
    qemu_sendv_packet(qemu_get_queue(s->nic), iov, 4);
    if (s->rdma->held_len) {
        qemu_send_packet(qemu_get_queue(s->nic), s->rdma->held,
                         s->rdma->held_len);
        s->rdma->held_len = 0;
    }
}

static void axon_roce_xmit(AxonNicState *s, AxonQp *qp, AxonPkt *pkt)
{
    s->rdma->stat_tx_pkts++;
    trace_axon_nic_roce_tx(qp->qpn, pkt->opcode, pkt->dqpn, pkt->psn,
                           pkt->len);
    if (qp->loopback) {
        axon_roce_rx_pkt(s, pkt, qp);
    } else {
        axon_roce_wire_tx(s, qp, pkt);
    }
}

/* ---- scheduling and timers ---------------------------------------------- */

void axon_roce_schedule(AxonNicState *s, AxonQp *qp)
{
    if (!qp->scheduled) {
        qp->scheduled = true;
        QTAILQ_INSERT_TAIL(&s->rdma->sched, qp, sched);
    }
    qemu_bh_schedule(s->rdma->bh);
}

static void axon_roce_ack_later(AxonNicState *s, AxonQp *qp)
{
    if (!qp->in_acks) {
        qp->in_acks = true;
        QTAILQ_INSERT_TAIL(&s->rdma->acks, qp, acks);
    }
    /* a running engine sends it when its batch ends */
    if (!s->rdma->engine_busy) {
        qemu_bh_schedule(s->rdma->bh);
    }
}

/* Local ACK timeout: 4.096 us * 2^timeout. */
static int64_t axon_roce_timeout_ns(AxonQp *qp)
{
    return MAX(4096LL << qp->attr.timeout, AXON_ROCE_MIN_TIMEOUT_NS);
}

/*
 * Starts the ACK timer (timeout 0: none). progress (an answer came)
 * restarts the count, lazily: the timer, when it fires, sees the recent
 * progress and goes back to sleep, so answers do not re-arm a timer each.
 */
static void axon_roce_arm_retry(AxonQp *qp, bool progress)
{
    int64_t now;

    if (!qp->attr.timeout) {
        return;
    }
    now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    if (progress) {
        qp->progress_ns = now;
    }
    if (!timer_pending(qp->retry_timer)) {
        qp->progress_ns = now;
        timer_mod(qp->retry_timer, now + axon_roce_timeout_ns(qp));
    }
}

/* The IB RNR timer encoding (IBA table 45), in microseconds. */
static const uint32_t axon_rnr_us[32] = {
    655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
    1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
    40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static bool axon_roce_outstanding(AxonQp *qp)
{
    return qp->sq_comp != qp->cur || qp->cur_off;
}

/* Posted WQEs (or packets of one) not sent yet. */
static bool axon_roce_unsent(AxonQp *qp)
{
    return qp->cur != qp->sq_fetch || qp->sq_fetch != qp->sq.pi;
}

/*
 * PSNs in flight on the wire at most: what the fabric's buffers hold (the
 * test fabric's sockets take 4 MiB, see qemu-model/patches); a larger
 * burst only gets lost and sent again. 256 KiB keeps two VMs busy at
 * path MTU 1024; more measured no faster. (Growing the window on success
 * and halving it on loss did worse between two loaded VMs.) Loopback is
 * not limited.
 */
#define AXON_ROCE_WIRE_WINDOW   (256 * KiB)

static uint32_t axon_roce_window(AxonQp *qp)
{
    return qp->loopback ? AXON_PSN_MASK / 2 :
           MAX(AXON_ROCE_WIRE_WINDOW / qp->mtu, 1);
}

/* Everything before una is acknowledged: progress, for the ACK timer. */
static void axon_roce_set_una(AxonQp *qp, uint32_t una)
{
    if (axon_psn_diff(una, qp->una_psn) > 0) {
        qp->una_psn = una;
        qp->progress_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    }
}

void axon_roce_qp_stop(AxonNicState *s, AxonQp *qp)
{
    timer_del(qp->retry_timer);
    qp->rnr_wait = false;
    if (qp->scheduled) {
        QTAILQ_REMOVE(&s->rdma->sched, qp, sched);
        qp->scheduled = false;
    }
    if (qp->in_acks) {
        QTAILQ_REMOVE(&s->rdma->acks, qp, acks);
        qp->in_acks = false;
    }
}

/* ---- requester: completions and retransmission -------------------------- */

static uint8_t axon_wc_opcode(uint8_t wr_opcode)
{
    switch (wr_opcode) {
    case AXON_WR_RDMA_WRITE:
    case AXON_WR_RDMA_WRITE_IMM:
        return AXON_WC_RDMA_WRITE;
    case AXON_WR_RDMA_READ:
        return AXON_WC_RDMA_READ;
    case AXON_WR_ATOMIC_CMP_SWP:
        return AXON_WC_COMP_SWAP;
    case AXON_WR_ATOMIC_FETCH_ADD:
        return AXON_WC_FETCH_ADD;
    default:
        return AXON_WC_SEND;
    }
}

static void axon_roce_swqe_cqe(AxonNicState *s, AxonQp *qp, AxonSwqe *e)
{
    if (e->signaled || e->status != AXON_WC_SUCCESS) {
        axon_rdma_cqe(s, qp, false, e->wr_id, e->idx,
                      axon_wc_opcode(e->opcode), e->status, e->len, 0, 0);
    }
}

/* The cursor passes e, which completed before it was (re)sent. */
static void axon_roce_skip(AxonQp *qp, AxonSwqe *e)
{
    qp->cur++;
    qp->cur_off = 0;
    if (e->npkts) {
        qp->cur_psn = axon_psn_add(e->first_psn, e->npkts);
    }
}

/* Completes finished WQEs in order; a failed one puts the QP in ERR. */
static void axon_roce_complete(AxonNicState *s, AxonQp *qp)
{
    while (qp->sq_comp != qp->sq_fetch && qp->state == AXON_QPS_RTS) {
        AxonSwqe *e = axon_win(qp, qp->sq_comp);

        if (!e->done) {
            break;
        }
        if (qp->cur == qp->sq_comp) {
            axon_roce_skip(qp, e);
        }
        qp->sq_comp++;
        axon_roce_swqe_cqe(s, qp, e);
        if (e->status != AXON_WC_SUCCESS) {
            axon_rdma_qp_error(s, qp);
        }
    }
    if (qp->state == AXON_QPS_RTS) {
        /* the timer also times an RNR wait, with nothing in flight */
        if (!axon_roce_outstanding(qp) && !qp->rnr_wait) {
            timer_del(qp->retry_timer);
        }
        if (axon_roce_unsent(qp)) {
            axon_roce_schedule(s, qp);
        }
    }
}

/* Next transmission restarts at psn (go-back-N). */
static void axon_roce_rewind(AxonQp *qp, uint32_t psn)
{
    uint16_t i;

    for (i = qp->sq_comp; i != qp->sq_fetch; i++) {
        AxonSwqe *e = axon_win(qp, i);
        int32_t d = axon_psn_diff(psn, e->first_psn);

        if (e->done) {
            if (e->status != AXON_WC_SUCCESS) {
                break;
            }
            continue;
        }
        if (axon_psn_diff(psn, axon_psn_add(e->first_psn, e->npkts)) >= 0) {
            continue;
        }
        qp->cur = i;
        if (axon_swqe_rd_atomic(e)) {
            d = axon_psn_diff(e->resp_psn, e->first_psn);
        } else if (d < 0) {
            d = 0;
        }
        qp->cur_off = d * qp->mtu;
        qp->cur_psn = axon_psn_add(e->first_psn, d);
        return;
    }
    qp->cur = i;
    qp->cur_off = 0;
    qp->cur_psn = qp->psn_hi;
}

/* A READ or atomic lost (part of) its answer: ask again, once. */
static void axon_roce_reask(AxonQp *qp, AxonSwqe *e)
{
    if (e->reasked && e->reask_psn == e->resp_psn) {
        return;
    }
    e->reasked = true;
    e->reask_psn = e->resp_psn;
    axon_roce_rewind(qp, e->resp_psn);
}

/*
 * Everything up to and including psn was received by the responder. The
 * acknowledgement stops at a READ or atomic still waiting for answers; if
 * it covers PSNs whose answers did not come, they were lost.
 */
static void axon_roce_acked(AxonQp *qp, uint32_t psn)
{
    uint32_t una = axon_psn_add(psn, 1);
    uint16_t i;

    for (i = qp->sq_comp; i != qp->sq_fetch; i++) {
        AxonSwqe *e = axon_win(qp, i);
        uint32_t last = axon_psn_add(e->first_psn, e->npkts - 1);

        if (e->done) {
            continue;
        }
        if (axon_swqe_rd_atomic(e)) {
            if (axon_psn_diff(psn, e->resp_psn) >= 0) {
                axon_roce_reask(qp, e);
                una = e->resp_psn;
            }
            break;
        }
        if (axon_psn_diff(last, psn) > 0) {
            break;
        }
        e->done = true;
        e->status = AXON_WC_SUCCESS;
    }
    if (axon_psn_diff(una, qp->una_psn) > 0) {
        axon_roce_set_una(qp, una);
        qp->retry_left = qp->attr.retry_cnt;
        qp->rnr_left = qp->attr.rnr_retry;
    }
    if (axon_psn_diff(qp->cur_psn, qp->una_psn) < 0) {
        axon_roce_rewind(qp, qp->una_psn);
    }
}

/* The WQE that sent psn, if it is still outstanding. */
static AxonSwqe *axon_roce_swqe_of(AxonQp *qp, uint32_t psn)
{
    uint16_t i;

    for (i = qp->sq_comp; i != qp->sq_fetch; i++) {
        AxonSwqe *e = axon_win(qp, i);

        if (!e->done && axon_psn_diff(psn, e->first_psn) >= 0 &&
            axon_psn_diff(psn, axon_psn_add(e->first_psn, e->npkts)) < 0) {
            return e;
        }
    }
    return NULL;
}

static void axon_roce_fail(AxonQp *qp, AxonSwqe *e, uint8_t status)
{
    e->done = true;
    e->status = status;
    qp->sq_stopped = true;
}

static void axon_roce_retry_timer(void *opaque)
{
    AxonQp *qp = opaque;
    AxonNicState *s = qp->s;
    AxonSwqe *e;

    if (!axon_nic_ready(s) || qp->state != AXON_QPS_RTS) {
        return;
    }
    if (qp->rnr_wait) {
        qp->rnr_wait = false;
        axon_roce_schedule(s, qp);
        return;
    }
    if (!axon_roce_outstanding(qp)) {
        return;
    }
    if (qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) <
        qp->progress_ns + axon_roce_timeout_ns(qp)) {
        timer_mod(qp->retry_timer,
                  qp->progress_ns + axon_roce_timeout_ns(qp));
        return;
    }
    e = axon_win(qp, qp->sq_comp);
    trace_axon_nic_roce_timeout(qp->qpn, qp->una_psn, qp->retry_left);
    if (!qp->retry_left) {
        axon_roce_fail(qp, e, AXON_WC_RETRY_EXC_ERR);
        axon_roce_complete(s, qp);
        return;
    }
    qp->retry_left--;
    axon_roce_rewind(qp, qp->una_psn);
    axon_roce_arm_retry(qp, true);
    axon_roce_schedule(s, qp);
}

/* ---- requester: responses ----------------------------------------------- */

/* Moves len bytes at message offset off between buf and a WQE's SGEs. */
static bool axon_roce_sge_rw(AxonNicState *s, AxonQp *qp, const AxonSge *sge,
                             unsigned nsge, uint32_t off, uint8_t *buf,
                             uint32_t len, DMADirection dir)
{
    uint32_t access = dir == DMA_DIRECTION_FROM_DEVICE ?
                      AXON_ACCESS_LOCAL_WRITE : 0;
    unsigned i;

    for (i = 0; i < nsge && len; i++) {
        uint32_t n;
        AxonMr *mr;

        if (off >= sge[i].length) {
            off -= sge[i].length;
            continue;
        }
        n = MIN(sge[i].length - off, len);
        mr = axon_rdma_mr_check(s, sge[i].lkey, qp->pdn, sge[i].addr + off,
                                n, access);
        if (!mr || !axon_rdma_mr_rw(s, mr, sge[i].addr + off, buf, n, dir)) {
            return false;
        }
        buf += n;
        len -= n;
        off = 0;
    }
    return !len;
}

/*
 * e got an answer up to its resp_psn: that is acknowledged too, unless an
 * older READ or atomic still waits for its answer (which was lost).
 */
static void axon_roce_answered(AxonQp *qp, AxonSwqe *e)
{
    uint16_t i;

    for (i = qp->sq_comp; axon_win(qp, i) != e; i++) {
        AxonSwqe *o = axon_win(qp, i);

        if (!o->done && axon_swqe_rd_atomic(o)) {
            return;
        }
    }
    axon_roce_set_una(qp, e->resp_psn);
}

static void axon_roce_read_resp_rx(AxonNicState *s, AxonQp *qp,
                                   const AxonPkt *pkt)
{
    AxonSwqe *e = axon_roce_swqe_of(qp, pkt->psn);
    uint32_t k, off, want;
    bool last;

    if (!e || e->opcode != AXON_WR_RDMA_READ ||
        axon_psn_diff(pkt->psn, e->resp_psn) < 0) {
        s->rdma->stat_stray++;      /* a duplicate, or not a READ's */
        return;
    }
    axon_roce_acked(qp, axon_psn_add(e->first_psn, -1));
    if (pkt->psn != e->resp_psn) {
        /* a response was lost */
        axon_roce_reask(qp, e);
        axon_roce_schedule(s, qp);
        return;
    }
    k = axon_psn_diff(pkt->psn, e->first_psn);
    off = k * qp->mtu;
    last = k + 1 == e->npkts;
    want = last ? e->len - off : qp->mtu;
    /*
     * READs asked in parts, or again, answer FIRST ... LAST for each
     * part: only the lengths tell where the message ends.
     */
    if (pkt->len != want) {
        axon_roce_fail(qp, e, AXON_WC_BAD_RESP_ERR);
        return;
    }
    if (!axon_roce_sge_rw(s, qp, e->sge, e->num_sge, off,
                          (uint8_t *)pkt->payload, pkt->len,
                          DMA_DIRECTION_FROM_DEVICE)) {
        axon_roce_fail(qp, e, AXON_WC_LOC_PROT_ERR);
        return;
    }
    e->resp_psn = axon_psn_add(e->resp_psn, 1);
    e->reasked = false;
    qp->progress_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    axon_roce_answered(qp, e);
    qp->retry_left = qp->attr.retry_cnt;
    if (last) {
        e->done = true;
        e->status = AXON_WC_SUCCESS;
    }
}

static void axon_roce_atomic_ack_rx(AxonNicState *s, AxonQp *qp,
                                    const AxonPkt *pkt)
{
    AxonSwqe *e = axon_roce_swqe_of(qp, pkt->psn);
    uint64_t orig = cpu_to_le64(pkt->orig);

    if (!e || e->opcode < AXON_WR_ATOMIC_CMP_SWP) {
        s->rdma->stat_stray++;      /* a duplicate, or not an atomic's */
        return;
    }
    axon_roce_acked(qp, axon_psn_add(e->first_psn, -1));
    if (!axon_roce_sge_rw(s, qp, e->sge, e->num_sge, 0, (uint8_t *)&orig, 8,
                          DMA_DIRECTION_FROM_DEVICE)) {
        axon_roce_fail(qp, e, AXON_WC_LOC_PROT_ERR);
        return;
    }
    e->resp_psn = axon_psn_add(e->resp_psn, 1);
    axon_roce_answered(qp, e);
    e->done = true;
    e->status = AXON_WC_SUCCESS;
}

/*
 * A NAK names the PSN of a request not yet acknowledged, sent by a WQE
 * still outstanding, with a syndrome the spec defines; anything else is
 * dropped, so only the peer can make a WQE fail.
 */
static AxonSwqe *axon_roce_check_nak(AxonQp *qp, const AxonPkt *pkt)
{
    uint8_t type = pkt->syndrome >> AETH_TYPE_SHIFT & 3;
    uint8_t code = pkt->syndrome & 0x1f;

    if (axon_psn_diff(pkt->psn, qp->una_psn) < 0 ||
        (type == AETH_NAK && code > NAK_REM_OP) || type == AETH_RESERVED) {
        return NULL;
    }
    return axon_roce_swqe_of(qp, pkt->psn);
}

static void axon_roce_ack_rx(AxonNicState *s, AxonQp *qp, const AxonPkt *pkt)
{
    uint8_t type = pkt->syndrome >> AETH_TYPE_SHIFT & 3;
    uint8_t code = pkt->syndrome & 0x1f;
    AxonSwqe *e;

    if (type == AETH_ACK) {
        axon_roce_acked(qp, pkt->psn);
        return;
    }
    e = axon_roce_check_nak(qp, pkt);
    if (!e) {
        s->rdma->stat_stray++;
        return;
    }
    s->rdma->stat_naks++;
    axon_roce_acked(qp, axon_psn_add(pkt->psn, -1));
    if (type == AETH_RNR_NAK) {
        trace_axon_nic_roce_rnr(qp->qpn, pkt->psn, qp->rnr_left);
        if (qp->attr.rnr_retry != 7) {
            if (!qp->rnr_left) {
                axon_roce_fail(qp, e, AXON_WC_RNR_RETRY_EXC_ERR);
                return;
            }
            qp->rnr_left--;
        }
        axon_roce_rewind(qp, pkt->psn);
        qp->rnr_wait = true;
        timer_mod(qp->retry_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                  axon_rnr_us[code] * SCALE_US);
        return;
    }
    trace_axon_nic_roce_nak(qp->qpn, pkt->psn, code);
    switch (code) {
    case NAK_PSN_SEQ:
        axon_roce_rewind(qp, pkt->psn);
        break;
    case NAK_REM_ACCESS:
        axon_roce_fail(qp, e, AXON_WC_REM_ACCESS_ERR);
        break;
    case NAK_REM_OP:
        axon_roce_fail(qp, e, AXON_WC_REM_OP_ERR);
        break;
    default:
        axon_roce_fail(qp, e, AXON_WC_REM_INV_REQ_ERR);
        break;
    }
}

/* A response for a QP acting as requester. */
static void axon_roce_req_rx(AxonNicState *s, AxonQp *qp, const AxonPkt *pkt)
{
    if (qp->state != AXON_QPS_RTS) {
        s->rdma->stat_rx_drops++;
        return;
    }
    /* only PSNs that were sent and are not yet acknowledged count */
    if (axon_psn_diff(pkt->psn, qp->psn_hi) >= 0 ||
        axon_psn_diff(pkt->psn, axon_psn_add(qp->una_psn, -1)) < 0) {
        trace_axon_nic_err_roce_psn(qp->qpn, pkt->psn, qp->una_psn,
                                    qp->psn_hi);
        s->rdma->stat_stray++;
        return;
    }
    switch (pkt->opcode) {
    case IB_ACK:
        axon_roce_ack_rx(s, qp, pkt);
        break;
    case IB_ATOMIC_ACK:
        axon_roce_atomic_ack_rx(s, qp, pkt);
        break;
    default:
        axon_roce_read_resp_rx(s, qp, pkt);
        break;
    }
    if (axon_roce_outstanding(qp)) {
        axon_roce_arm_retry(qp, false);
    }
    axon_roce_complete(s, qp);
}

/* ---- requester: sending ------------------------------------------------- */

/* Takes the next WQE from the SQ into the window and checks it. */
static void axon_roce_fetch(AxonNicState *s, AxonQp *qp)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    uint16_t idx = qp->sq_fetch++;
    AxonSwqe *e = axon_win(qp, idx);
    uint64_t addr = qp->sq.base +
                    ((uint64_t)(idx & (qp->sq.depth - 1)) << qp->sq.shift);
    uint32_t slot = 1u << qp->sq.shift, access = 0, i, inl;
    struct axon_send_wqe w;
    uint64_t len = 0;

    memset(e, 0, sizeof(*e));
    e->idx = idx;
    e->first_psn = e->resp_psn = qp->cur_psn;
    if (pci_dma_read(pdev, addr, &w, sizeof(w)) != MEMTX_OK) {
        axon_roce_fail(qp, e, AXON_WC_LOC_QP_OP_ERR);
        return;
    }
    e->opcode = w.opcode;
    e->flags = w.flags;
    e->num_sge = w.num_sge;
    e->imm = w.imm_data;
    e->wr_id = le64_to_cpu(w.wr_id);
    e->raddr = le64_to_cpu(w.remote_addr);
    e->rkey = le32_to_cpu(w.rkey);
    e->cmp = le64_to_cpu(w.compare_add);
    e->swap = le64_to_cpu(w.swap);
    e->signaled = (w.flags & AXON_WQE_SIGNALED) || qp->sig_all;
    inl = le32_to_cpu(w.inline_len);

    if (w.opcode > AXON_WR_ATOMIC_FETCH_ADD || w.reserved0 ||
        (w.flags & ~(AXON_WQE_SIGNALED | AXON_WQE_SOLICITED |
                     AXON_WQE_FENCE | AXON_WQE_INLINE)) ||
        !buffer_is_zero(w.reserved, sizeof(w.reserved))) {
        goto bad_wqe;
    }
    if (w.flags & AXON_WQE_INLINE) {
        if (w.num_sge || w.opcode >= AXON_WR_RDMA_READ ||
            inl > AXON_MAX_INLINE || sizeof(w) + inl > slot) {
            goto bad_wqe;
        }
        if (pci_dma_read(pdev, addr + sizeof(w), e->inline_data, inl) !=
            MEMTX_OK) {
            goto bad_wqe;
        }
        len = inl;
    } else {
        struct axon_sge sge[AXON_MAX_SGE];

        if (inl || w.num_sge > AXON_MAX_SGE ||
            sizeof(w) + w.num_sge * sizeof(sge[0]) > slot ||
            pci_dma_read(pdev, addr + sizeof(w), sge,
                         w.num_sge * sizeof(sge[0])) != MEMTX_OK) {
            goto bad_wqe;
        }
        if (w.opcode >= AXON_WR_RDMA_READ) {
            access = AXON_ACCESS_LOCAL_WRITE;
        }
        for (i = 0; i < w.num_sge; i++) {
            e->sge[i].addr = le64_to_cpu(sge[i].addr);
            e->sge[i].length = le32_to_cpu(sge[i].length);
            e->sge[i].lkey = le32_to_cpu(sge[i].lkey);
            len += e->sge[i].length;
            if (e->sge[i].length &&
                !axon_rdma_mr_check(s, e->sge[i].lkey, qp->pdn,
                                    e->sge[i].addr, e->sge[i].length,
                                    access)) {
                axon_roce_fail(qp, e, AXON_WC_LOC_PROT_ERR);
                return;
            }
        }
    }
    if (len > AXON_MAX_MSG_SIZE ||
        (w.opcode >= AXON_WR_ATOMIC_CMP_SWP && len != 8)) {
        e->len = 0;
        axon_roce_fail(qp, e, AXON_WC_LOC_LEN_ERR);
        return;
    }
    e->len = len;
    if (w.opcode >= AXON_WR_ATOMIC_CMP_SWP) {
        e->npkts = 1;
    } else {
        e->npkts = len ? DIV_ROUND_UP(len, qp->mtu) : 1;
    }
    return;

bad_wqe:
    qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: QP %u: bad send WQE %u\n",
                  qp->qpn, idx);
    trace_axon_nic_err_roce_wqe(qp->qpn, idx, w.opcode, w.num_sge);
    axon_roce_fail(qp, e, AXON_WC_LOC_QP_OP_ERR);
}

/*
 * Does the packet at cur_psn ask for an ACK inside a message? Every half
 * window does: were only a message's last packet to ask, a message longer
 * than the window would stall until the retransmit timer fired.
 */
static bool axon_roce_ack_point(AxonQp *qp)
{
    uint32_t half = MAX(axon_roce_window(qp) / 2, 1);

    return axon_psn_add(qp->cur_psn, 1) % half == 0;
}

/*
 * The PSNs of the READ request e sends at the cursor. On the wire a long
 * READ is asked for a window at a time; asked again from a lost response
 * on, only to the end of that window's request: the responder answers a
 * duplicate only inside a request it saved.
 */
static uint32_t axon_roce_read_part(AxonQp *qp, AxonSwqe *e)
{
    uint32_t k = axon_psn_diff(qp->cur_psn, e->first_psn);
    uint32_t w = axon_roce_window(qp);

    return MIN(e->npkts - k, w - k % w);
}

/* Would the next packet of e put too many PSNs in flight? */
static bool axon_roce_window_full(AxonQp *qp, AxonSwqe *e)
{
    uint32_t n = 1;

    if (axon_psn_diff(qp->psn_hi, qp->una_psn) <= 0 ||
        axon_psn_diff(qp->cur_psn, qp->psn_hi) < 0) {
        return false;   /* nothing in flight, or a retransmission */
    }
    if (e->opcode == AXON_WR_RDMA_READ) {
        n = axon_roce_read_part(qp, e);
    }
    return axon_psn_diff(axon_psn_add(qp->cur_psn, n), qp->una_psn) >
           (int32_t)axon_roce_window(qp);
}

/* READ and atomic WQEs sent and not completed. */
static unsigned axon_roce_rd_outstanding(AxonQp *qp)
{
    unsigned n = 0;
    uint16_t i;

    for (i = qp->sq_comp; i != qp->cur; i++) {
        AxonSwqe *e = axon_win(qp, i);

        n += axon_swqe_rd_atomic(e) && !e->done;
    }
    return n;
}

static const uint8_t axon_send_ops[2][2][2] = {
    /* [first][last][imm] */
    { { IB_SEND_MIDDLE, IB_SEND_MIDDLE }, { IB_SEND_LAST, IB_SEND_LAST_IMM } },
    { { IB_SEND_FIRST, IB_SEND_FIRST }, { IB_SEND_ONLY, IB_SEND_ONLY_IMM } },
};

static const uint8_t axon_write_ops[2][2][2] = {
    { { IB_WRITE_MIDDLE, IB_WRITE_MIDDLE },
      { IB_WRITE_LAST, IB_WRITE_LAST_IMM } },
    { { IB_WRITE_FIRST, IB_WRITE_FIRST },
      { IB_WRITE_ONLY, IB_WRITE_ONLY_IMM } },
};

/*
 * Builds the next packet of e at the QP's cursor and moves the cursor.
 * Returns false if the payload could not be gathered.
 */
static bool axon_roce_build(AxonNicState *s, AxonQp *qp, AxonSwqe *e,
                            AxonPkt *pkt)
{
    uint32_t off = qp->cur_off, n;
    bool first, last, imm;

    memset(pkt, 0, sizeof(*pkt));
    pkt->dqpn = le32_to_cpu(qp->attr.dest_qpn);
    pkt->psn = qp->cur_psn;
    pkt->ackreq = true;
    switch (e->opcode) {
    case AXON_WR_RDMA_READ:
        n = axon_roce_read_part(qp, e);
        pkt->opcode = IB_READ_REQ;
        pkt->va = e->raddr + off;
        pkt->rkey = e->rkey;
        pkt->dmalen = MIN(e->len - off, n * qp->mtu);
        qp->cur_psn = axon_psn_add(qp->cur_psn, n);
        qp->cur_off = off + n * qp->mtu;
        if (qp->cur_off >= e->len) {
            qp->cur++;
            qp->cur_off = 0;
        }
        return true;
    case AXON_WR_ATOMIC_CMP_SWP:
    case AXON_WR_ATOMIC_FETCH_ADD:
        pkt->opcode = e->opcode == AXON_WR_ATOMIC_CMP_SWP ? IB_CMP_SWP :
                      IB_FETCH_ADD;
        pkt->va = e->raddr;
        pkt->rkey = e->rkey;
        pkt->swap_add = e->opcode == AXON_WR_ATOMIC_CMP_SWP ? e->swap : e->cmp;
        pkt->cmp = e->cmp;
        qp->cur_psn = axon_psn_add(qp->cur_psn, 1);
        qp->cur++;
        qp->cur_off = 0;
        return true;
    }
    n = MIN(qp->mtu, e->len - off);
    first = !off;
    last = off + n == e->len;
    imm = e->opcode == AXON_WR_RDMA_WRITE_IMM || e->opcode == AXON_WR_SEND_IMM;
    if (e->opcode <= AXON_WR_RDMA_WRITE_IMM) {
        pkt->opcode = axon_write_ops[first][last][imm];
        if (first) {
            pkt->va = e->raddr;
            pkt->rkey = e->rkey;
            pkt->dmalen = e->len;
        }
    } else {
        pkt->opcode = axon_send_ops[first][last][imm];
    }
    pkt->imm = e->imm;
    pkt->se = last && (e->flags & AXON_WQE_SOLICITED) &&
              e->opcode != AXON_WR_RDMA_WRITE;
    pkt->ackreq = last || axon_roce_ack_point(qp);
    pkt->len = n;
    if (e->flags & AXON_WQE_INLINE) {
        pkt->payload = e->inline_data + off;
    } else {
        if (!axon_roce_sge_rw(s, qp, e->sge, e->num_sge, off, s->rdma->txbuf,
                              n, DMA_DIRECTION_TO_DEVICE)) {
            return false;
        }
        pkt->payload = s->rdma->txbuf;
    }
    qp->cur_psn = axon_psn_add(qp->cur_psn, 1);
    qp->cur_off = off + n;
    if (last) {
        qp->cur++;
        qp->cur_off = 0;
    }
    return true;
}

/* Sends up to budget packets; returns how many. */
static unsigned axon_roce_requester(AxonNicState *s, AxonQp *qp,
                                    unsigned budget)
{
    unsigned sent = 0;
    unsigned max_rd = MAX(qp->attr.max_rd_atomic, 1);

    while (sent < budget && qp->state == AXON_QPS_RTS && !qp->rnr_wait) {
        AxonSwqe *e;
        AxonPkt pkt;

        if (qp->cur == qp->sq_fetch) {
            if (qp->sq_stopped || qp->sq_fetch == qp->sq.pi ||
                (uint16_t)(qp->sq_fetch - qp->sq_comp) >= AXON_RDMA_WINDOW) {
                break;
            }
            axon_roce_fetch(s, qp);
        }
        e = axon_win(qp, qp->cur);
        if (e->done) {
            /* failed locally, or answered meanwhile; completes in order */
            axon_roce_skip(qp, e);
            axon_roce_complete(s, qp);
            continue;
        }
        if (!qp->cur_off && axon_swqe_rd_atomic(e) &&
            axon_roce_rd_outstanding(qp) >= max_rd) {
            break;
        }
        if (!qp->cur_off && (e->flags & AXON_WQE_FENCE) &&
            axon_roce_rd_outstanding(qp)) {
            break;
        }
        if (axon_roce_window_full(qp, e)) {
            break;
        }
        if (!axon_roce_build(s, qp, e, &pkt)) {
            axon_roce_fail(qp, e, AXON_WC_LOC_PROT_ERR);
            axon_roce_complete(s, qp);
            continue;
        }
        if (axon_psn_diff(pkt.psn, qp->psn_hi) < 0) {
            s->rdma->stat_retrans++;
        }
        if (axon_psn_diff(qp->cur_psn, qp->psn_hi) > 0) {
            qp->psn_hi = qp->cur_psn;
        }
        axon_roce_arm_retry(qp, false);
        axon_roce_xmit(s, qp, &pkt);
        sent++;
    }
    return sent;
}

/* ---- responder ---------------------------------------------------------- */

static void axon_roce_send_ack(AxonNicState *s, AxonQp *qp, uint8_t syndrome,
                               uint32_t psn)
{
    AxonPkt pkt = {
        .opcode = IB_ACK,
        .dqpn = le32_to_cpu(qp->attr.dest_qpn),
        .psn = psn,
        .syndrome = syndrome,
        .msn = qp->msn,
    };

    if (syndrome >> AETH_TYPE_SHIFT != AETH_ACK) {
        s->rdma->stat_naks++;
    }
    axon_roce_xmit(s, qp, &pkt);
}

static void axon_roce_flush_acks(AxonNicState *s)
{
    AxonQp *qp;

    while ((qp = QTAILQ_FIRST(&s->rdma->acks))) {
        QTAILQ_REMOVE(&s->rdma->acks, qp, acks);
        qp->in_acks = false;
        if (qp->state == AXON_QPS_RTR || qp->state == AXON_QPS_RTS) {
            axon_roce_send_ack(s, qp, AETH_NO_CREDIT,
                               axon_psn_add(qp->epsn, -1));
        }
    }
}

/* A request the responder cannot accept: NAK it, the QP goes to ERR. */
static void axon_roce_resp_fail(AxonNicState *s, AxonQp *qp, uint8_t nak,
                                uint16_t event, const char *why)
{
    qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: QP %u: request PSN %u "
                  "refused (%s), NAK %u\n", qp->qpn, qp->epsn, why, nak);
    trace_axon_nic_err_roce_resp(qp->qpn, qp->epsn, nak, why);
    axon_roce_send_ack(s, qp, AETH_NAK << AETH_TYPE_SHIFT | nak, qp->epsn);
    if (event) {
        axon_rdma_qp_event(s, qp, event);
    }
    axon_rdma_qp_error(s, qp);
}

/* A receive WQE completes with an error; the requester gets nak. */
static void axon_roce_recv_fail(AxonNicState *s, AxonQp *qp, uint8_t status,
                                uint8_t nak, const char *why)
{
    axon_rdma_cqe(s, qp, true, qp->recv_wr_id, qp->recv_idx, AXON_WC_RECV,
                  status, 0, 0, 0);
    qp->rq.ci++;
    qp->recv_active = false;
    axon_roce_resp_fail(s, qp, nak, 0, why);
}

/* Takes the RQ's next WQE; false (and the QP in ERR) if it is bad. */
static bool axon_roce_take_recv(AxonNicState *s, AxonQp *qp)
{
    uint16_t idx = qp->rq.ci;
    uint64_t addr = qp->rq.base +
                    ((uint64_t)(idx & (qp->rq.depth - 1)) << qp->rq.shift);
    struct axon_recv_wqe w;
    struct axon_sge sge[AXON_MAX_SGE];
    unsigned i;

    qp->recv_idx = idx;
    qp->recv_off = 0;
    qp->recv_active = true;
    qp->recv_wr_id = 0;
    if (pci_dma_read(PCI_DEVICE(s), addr, &w, sizeof(w)) == MEMTX_OK) {
        qp->recv_wr_id = le64_to_cpu(w.wr_id);
        if (w.num_sge <= AXON_MAX_SGE &&
            buffer_is_zero(w.reserved, sizeof(w.reserved)) &&
            sizeof(w) + w.num_sge * sizeof(sge[0]) <= 1u << qp->rq.shift &&
            pci_dma_read(PCI_DEVICE(s), addr + sizeof(w), sge,
                         w.num_sge * sizeof(sge[0])) == MEMTX_OK) {
            qp->recv_nsge = w.num_sge;
            for (i = 0; i < w.num_sge; i++) {
                qp->recv_sge[i].addr = le64_to_cpu(sge[i].addr);
                qp->recv_sge[i].length = le32_to_cpu(sge[i].length);
                qp->recv_sge[i].lkey = le32_to_cpu(sge[i].lkey);
            }
            return true;
        }
    }
    qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: QP %u: bad receive WQE %u\n",
                  qp->qpn, idx);
    trace_axon_nic_err_roce_wqe(qp->qpn, idx, 0xff, w.num_sge);
    axon_roce_recv_fail(s, qp, AXON_WC_LOC_QP_OP_ERR, NAK_REM_OP,
                        "bad receive WQE");
    return false;
}

static uint32_t axon_roce_recv_room(AxonQp *qp)
{
    uint64_t room = 0;
    unsigned i;

    for (i = 0; i < qp->recv_nsge; i++) {
        room += qp->recv_sge[i].length;
    }
    return MIN(room, UINT32_MAX);
}

/*
 * Sends READ responses for [va, va + len) of mr (NULL if len is 0)
 * starting at psn; false if the memory could not be read.
 */
static bool axon_roce_read_resp(AxonNicState *s, AxonQp *qp, uint32_t psn,
                                AxonMr *mr, uint64_t va, uint32_t len)
{
    uint32_t n = len ? DIV_ROUND_UP(len, qp->mtu) : 1, k;

    for (k = 0; k < n; k++) {
        uint32_t chunk = MIN(qp->mtu, len - k * qp->mtu);
        AxonPkt pkt = {
            .dqpn = le32_to_cpu(qp->attr.dest_qpn),
            .psn = axon_psn_add(psn, k),
            .syndrome = AETH_NO_CREDIT,
            .msn = qp->msn,
            .payload = s->rdma->rspbuf,
            .len = chunk,
        };

        if (n == 1) {
            pkt.opcode = IB_READ_RESP_ONLY;
        } else if (!k) {
            pkt.opcode = IB_READ_RESP_FIRST;
        } else if (k + 1 == n) {
            pkt.opcode = IB_READ_RESP_LAST;
        } else {
            pkt.opcode = IB_READ_RESP_MIDDLE;
        }
        if (chunk && !axon_rdma_mr_rw(s, mr, va + (uint64_t)k * qp->mtu,
                                      s->rdma->rspbuf, chunk,
                                      DMA_DIRECTION_TO_DEVICE)) {
            return false;
        }
        axon_roce_xmit(s, qp, &pkt);
        if (qp->state != AXON_QPS_RTR && qp->state != AXON_QPS_RTS) {
            return true;
        }
    }
    return true;
}

static void axon_roce_atomic_ack(AxonNicState *s, AxonQp *qp, uint32_t psn,
                                 uint64_t orig)
{
    AxonPkt pkt = {
        .opcode = IB_ATOMIC_ACK,
        .dqpn = le32_to_cpu(qp->attr.dest_qpn),
        .psn = psn,
        .syndrome = AETH_NO_CREDIT,
        .msn = qp->msn,
        .orig = orig,
    };

    axon_roce_xmit(s, qp, &pkt);
}

/*
 * The saved READ or atomic a duplicate repeats: one whose PSNs hold the
 * duplicate's, asked with the same key at the same place (a READ asked
 * again from a lost response on: the rest of the saved one, or less).
 */
static AxonRdRes *axon_roce_saved(AxonQp *qp, const AxonPkt *pkt, bool atomic)
{
    unsigned i;

    for (i = 0; i < AXON_MAX_RD_ATOMIC; i++) {
        AxonRdRes *res = &qp->res[i];
        uint32_t k = axon_psn_diff(pkt->psn, res->psn);
        uint64_t off = (uint64_t)k * qp->mtu;

        if (!res->valid || res->atomic != atomic || k >= res->npkts ||
            pkt->rkey != res->rkey || pkt->va != res->va + off) {
            continue;
        }
        if (atomic || pkt->dmalen <= res->len - off) {
            return res;
        }
    }
    return NULL;
}

/*
 * A request with a PSN already executed: answered again from what was
 * saved of it, never executed again. A READ or atomic matching nothing
 * saved (forged, or too old) is dropped, and nothing it names is checked
 * or touched: a duplicate never moves the QP to ERR.
 */
static void axon_roce_duplicate(AxonNicState *s, AxonQp *qp,
                                const AxonPkt *pkt)
{
    uint8_t kind = axon_ib_ops[pkt->opcode].kind;
    AxonRdRes *res;
    AxonMr *mr = NULL;

    s->rdma->stat_dup_reqs++;
    if (kind != KIND_READ && kind != KIND_ATOMIC) {
        axon_roce_ack_later(s, qp);
        return;
    }
    res = axon_roce_saved(qp, pkt, kind == KIND_ATOMIC);
    if (!res) {
        trace_axon_nic_err_roce_dup(qp->qpn, pkt->psn, pkt->opcode);
        s->rdma->stat_stray++;
        return;
    }
    if (kind == KIND_ATOMIC) {
        axon_roce_atomic_ack(s, qp, pkt->psn, res->orig);
        return;
    }
    /* the data is read again: the MR may be gone since */
    if (pkt->dmalen) {
        mr = axon_rdma_mr_check(s, pkt->rkey, qp->pdn, pkt->va, pkt->dmalen,
                                AXON_ACCESS_REMOTE_READ);
    }
    if (!(qp->attr.access & cpu_to_le32(AXON_ACCESS_REMOTE_READ)) ||
        (pkt->dmalen && !mr) ||
        !axon_roce_read_resp(s, qp, pkt->psn, mr, pkt->va, pkt->dmalen)) {
        s->rdma->stat_stray++;
    }
}

/* Does op continue the message of the previous request? */
static bool axon_roce_check_sequence(AxonQp *qp, uint8_t op)
{
    uint16_t flags = axon_ib_ops[op].flags;

    switch (qp->last_op) {
    case IB_SEND_FIRST:
    case IB_SEND_MIDDLE:
        return axon_ib_ops[op].kind == KIND_SEND && !(flags & OP_START);
    case IB_WRITE_FIRST:
    case IB_WRITE_MIDDLE:
        return axon_ib_ops[op].kind == KIND_WRITE && !(flags & OP_START);
    default:
        return flags & OP_START;
    }
}

static void axon_roce_resp_send(AxonNicState *s, AxonQp *qp,
                                const AxonPkt *pkt, uint16_t flags)
{
    if (flags & OP_START && !axon_roce_take_recv(s, qp)) {
        return;
    }
    if (pkt->len > axon_roce_recv_room(qp) - qp->recv_off) {
        axon_roce_recv_fail(s, qp, AXON_WC_LOC_LEN_ERR, NAK_INV_REQ,
                            "SEND longer than the receive WQE");
        return;
    }
    if (!axon_roce_sge_rw(s, qp, qp->recv_sge, qp->recv_nsge, qp->recv_off,
                          (uint8_t *)pkt->payload, pkt->len,
                          DMA_DIRECTION_FROM_DEVICE)) {
        axon_roce_recv_fail(s, qp, AXON_WC_LOC_PROT_ERR, NAK_REM_OP,
                            "receive WQE lkey");
        return;
    }
    qp->recv_off += pkt->len;
    if (flags & OP_END) {
        axon_rdma_cqe(s, qp, true, qp->recv_wr_id, qp->recv_idx,
                      AXON_WC_RECV, AXON_WC_SUCCESS, qp->recv_off, pkt->imm,
                      (flags & OP_IMM ? AXON_CQE_WITH_IMM : 0) |
                      (pkt->se ? AXON_CQE_SOLICITED : 0));
        qp->rq.ci++;
        qp->recv_active = false;
    }
}

static void axon_roce_resp_write(AxonNicState *s, AxonQp *qp,
                                 const AxonPkt *pkt, uint16_t flags)
{
    bool allowed = qp->attr.access & cpu_to_le32(AXON_ACCESS_REMOTE_WRITE);
    AxonMr *mr;

    if (flags & OP_START) {
        qp->wr_va = pkt->va;
        qp->wr_rkey = pkt->rkey;
        qp->wr_left = pkt->dmalen;
        qp->wr_len = pkt->dmalen;
        if (pkt->dmalen &&
            (!allowed || !axon_rdma_mr_check(s, pkt->rkey, qp->pdn, pkt->va,
                                             pkt->dmalen,
                                             AXON_ACCESS_REMOTE_WRITE))) {
            axon_roce_resp_fail(s, qp, NAK_REM_ACCESS, AXON_EVENT_QP_ACCESS_ERR,
                                "WRITE outside the MR");
            return;
        }
    }
    if (pkt->len > qp->wr_left ||
        ((flags & OP_END) && pkt->len != qp->wr_left)) {
        axon_roce_resp_fail(s, qp, NAK_INV_REQ, AXON_EVENT_QP_REQ_ERR,
                            "WRITE length");
        return;
    }
    if (pkt->len) {
        /* checked per packet: the MR may be gone since the first */
        mr = axon_rdma_mr_check(s, qp->wr_rkey, qp->pdn, qp->wr_va, pkt->len,
                                AXON_ACCESS_REMOTE_WRITE);
        if (!mr || !allowed) {
            axon_roce_resp_fail(s, qp, NAK_REM_ACCESS, AXON_EVENT_QP_ACCESS_ERR,
                                "WRITE outside the MR");
            return;
        }
        if (!axon_rdma_mr_rw(s, mr, qp->wr_va, (uint8_t *)pkt->payload,
                             pkt->len, DMA_DIRECTION_FROM_DEVICE)) {
            axon_roce_resp_fail(s, qp, NAK_REM_OP, AXON_EVENT_QP_FATAL,
                                "WRITE target not writable");
            return;
        }
    }
    qp->wr_va += pkt->len;
    qp->wr_left -= pkt->len;
    if (flags & OP_IMM) {
        if (!axon_roce_take_recv(s, qp)) {
            return;
        }
        axon_rdma_cqe(s, qp, true, qp->recv_wr_id, qp->recv_idx,
                      AXON_WC_RECV_RDMA_WITH_IMM, AXON_WC_SUCCESS, qp->wr_len,
                      pkt->imm, AXON_CQE_WITH_IMM |
                      (pkt->se ? AXON_CQE_SOLICITED : 0));
        qp->rq.ci++;
        qp->recv_active = false;
    }
}

static AxonRdRes *axon_roce_new_res(AxonQp *qp)
{
    AxonRdRes *res = &qp->res[qp->res_next];

    qp->res_next = (qp->res_next + 1) % AXON_MAX_RD_ATOMIC;
    memset(res, 0, sizeof(*res));
    return res;
}

static void axon_roce_resp_atomic(AxonNicState *s, AxonQp *qp,
                                  const AxonPkt *pkt)
{
    AxonRdRes *res;
    AxonMr *mr;
    uint64_t orig;

    if (pkt->va & 7) {
        axon_roce_resp_fail(s, qp, NAK_INV_REQ, AXON_EVENT_QP_REQ_ERR,
                            "misaligned atomic");
        return;
    }
    mr = axon_rdma_mr_check(s, pkt->rkey, qp->pdn, pkt->va, 8,
                            AXON_ACCESS_REMOTE_ATOMIC);
    if (!mr || !(qp->attr.access & cpu_to_le32(AXON_ACCESS_REMOTE_ATOMIC))) {
        axon_roce_resp_fail(s, qp, NAK_REM_ACCESS, AXON_EVENT_QP_ACCESS_ERR,
                            "atomic outside the MR");
        return;
    }
    if (!axon_rdma_mr_atomic(s, mr, pkt->va, pkt->opcode == IB_CMP_SWP,
                             pkt->opcode == IB_CMP_SWP ? pkt->cmp :
                             pkt->swap_add, pkt->swap_add, &orig)) {
        axon_roce_resp_fail(s, qp, NAK_REM_OP, AXON_EVENT_QP_FATAL,
                            "atomic target not readable");
        return;
    }
    res = axon_roce_new_res(qp);
    res->valid = true;
    res->atomic = true;
    res->psn = pkt->psn;
    res->npkts = 1;
    res->va = pkt->va;
    res->rkey = pkt->rkey;
    res->orig = orig;
    qp->epsn = axon_psn_add(qp->epsn, 1);
    qp->msn++;
    axon_roce_atomic_ack(s, qp, pkt->psn, orig);
}

static void axon_roce_resp_read(AxonNicState *s, AxonQp *qp,
                                const AxonPkt *pkt)
{
    uint32_t n = pkt->dmalen ? DIV_ROUND_UP(pkt->dmalen, qp->mtu) : 1;
    AxonRdRes *res;
    AxonMr *mr = NULL;

    if (pkt->dmalen) {
        mr = axon_rdma_mr_check(s, pkt->rkey, qp->pdn, pkt->va, pkt->dmalen,
                                AXON_ACCESS_REMOTE_READ);
    }
    if (!(qp->attr.access & cpu_to_le32(AXON_ACCESS_REMOTE_READ)) ||
        (pkt->dmalen && !mr)) {
        axon_roce_resp_fail(s, qp, NAK_REM_ACCESS, AXON_EVENT_QP_ACCESS_ERR,
                            "READ outside the MR");
        return;
    }
    if (pkt->dmalen > AXON_MAX_MSG_SIZE) {
        axon_roce_resp_fail(s, qp, NAK_INV_REQ, AXON_EVENT_QP_REQ_ERR,
                            "READ too long");
        return;
    }
    res = axon_roce_new_res(qp);
    res->valid = true;
    res->psn = pkt->psn;
    res->npkts = n;
    res->va = pkt->va;
    res->rkey = pkt->rkey;
    res->len = pkt->dmalen;
    qp->epsn = axon_psn_add(qp->epsn, n);
    qp->msn++;
    if (!axon_roce_read_resp(s, qp, pkt->psn, mr, pkt->va, pkt->dmalen)) {
        axon_roce_resp_fail(s, qp, NAK_REM_OP, AXON_EVENT_QP_FATAL,
                            "READ source not readable");
    }
}

/* A request for a QP acting as responder. */
static void axon_roce_resp_rx(AxonNicState *s, AxonQp *qp, const AxonPkt *pkt)
{
    uint16_t flags = axon_ib_ops[pkt->opcode].flags;
    uint8_t kind = axon_ib_ops[pkt->opcode].kind;
    int32_t d;

    if (qp->state != AXON_QPS_RTR && qp->state != AXON_QPS_RTS) {
        s->rdma->stat_rx_drops++;
        return;
    }
    d = axon_psn_diff(pkt->psn, qp->epsn);
    if (d < 0) {
        axon_roce_duplicate(s, qp, pkt);
        return;
    }
    if (d > 0) {
        /* one NAK for the expected PSN (the spec's), nothing else */
        s->rdma->stat_out_of_seq++;
        if (!qp->nak_sent) {
            qp->nak_sent = true;
            axon_roce_send_ack(s, qp, AETH_NAK << AETH_TYPE_SHIFT |
                               NAK_PSN_SEQ, qp->epsn);
        }
        return;
    }
    qp->nak_sent = false;
    if (qp->state == AXON_QPS_RTR && !qp->comm_est) {
        qp->comm_est = true;
        axon_rdma_qp_event(s, qp, AXON_EVENT_COMM_EST);
    }
    if (!axon_roce_check_sequence(qp, pkt->opcode) ||
        ((flags & OP_PAYLOAD) &&
         (pkt->len > qp->mtu || (!(flags & OP_END) && pkt->len != qp->mtu)))) {
        axon_roce_resp_fail(s, qp, NAK_INV_REQ, AXON_EVENT_QP_REQ_ERR,
                            "opcode sequence or length");
        return;
    }
    /* a message needing a receive WQE waits for one: RNR */
    if (((kind == KIND_SEND && (flags & OP_START)) ||
         (kind == KIND_WRITE && (flags & OP_IMM))) && qp->rq.ci == qp->rq.pi) {
        trace_axon_nic_roce_rnr(qp->qpn, pkt->psn, 0);
        axon_roce_send_ack(s, qp, AETH_RNR_NAK << AETH_TYPE_SHIFT |
                           qp->attr.min_rnr_timer, pkt->psn);
        return;
    }
    switch (kind) {
    case KIND_SEND:
        axon_roce_resp_send(s, qp, pkt, flags);
        break;
    case KIND_WRITE:
        axon_roce_resp_write(s, qp, pkt, flags);
        break;
    case KIND_READ:
        axon_roce_resp_read(s, qp, pkt);
        qp->last_op = pkt->opcode;
        return;
    default:
        axon_roce_resp_atomic(s, qp, pkt);
        qp->last_op = pkt->opcode;
        return;
    }
    if (qp->state != AXON_QPS_RTR && qp->state != AXON_QPS_RTS) {
        return;
    }
    qp->last_op = pkt->opcode;
    qp->epsn = axon_psn_add(qp->epsn, 1);
    if (flags & OP_END) {
        qp->msn++;
    }
    if (pkt->ackreq) {
        axon_roce_ack_later(s, qp);
    }
}

/* ---- receive ------------------------------------------------------------ */

/*
 * Is the packet from the QP's peer? In loopback, from (the sending QP)
 * must be its destination QP; on the wire the source IP must be its dgid.
 */
static bool axon_roce_from_peer(const AxonQp *qp, const AxonPkt *pkt,
                                const AxonQp *from)
{
    if (from) {
        return qp->loopback && from->qpn == le32_to_cpu(qp->attr.dest_qpn);
    }
    return !qp->loopback && !memcmp(pkt->sgid, qp->attr.dgid, 16);
}

/* A packet for this device: from its wire, or (from) one of its QPs. */
static void axon_roce_rx_pkt(AxonNicState *s, const AxonPkt *pkt,
                             const AxonQp *from)
{
    AxonQp *qp = axon_rdma_qp(s, pkt->dqpn);

    if (!qp) {
        trace_axon_nic_err_roce_qpn(pkt->dqpn);
        s->rdma->stat_rx_drops++;
        return;
    }
    if (!axon_roce_from_peer(qp, pkt, from)) {
        trace_axon_nic_err_roce_peer(qp->qpn, from ? from->qpn : 0);
        s->rdma->stat_rx_drops++;
        return;
    }
    s->rdma->stat_rx_pkts++;
    if (axon_ib_ops[pkt->opcode].flags & OP_REQ) {
        axon_roce_resp_rx(s, qp, pkt);
    } else {
        axon_roce_req_rx(s, qp, pkt);
    }
}

/* Decodes the IB headers of a received packet; NULL if they are good. */
static const char *axon_roce_check_ib(const uint8_t *ib, size_t len,
                                      AxonPkt *pkt, unsigned *hdr_len)
{
    uint16_t flags;
    const uint8_t *q;
    unsigned n;

    if (len < IB_BTH_LEN + IB_ICRC_LEN) {
        return "short";
    }
    pkt->opcode = ib[0];
    if (pkt->opcode >= IB_NUM_OPCODES) {
        return "opcode";
    }
    flags = axon_ib_ops[pkt->opcode].flags;
    pkt->se = ib[1] & 0x80;
    pkt->pad = (ib[1] >> 4) & 3;
    if (ib[1] & 0xf) {
        return "transport version";
    }
    pkt->dqpn = ldl_be_p(ib + 4) & AXON_PSN_MASK;
    pkt->ackreq = ib[8] & 0x80;
    pkt->psn = ldl_be_p(ib + 8) & AXON_PSN_MASK;
    n = axon_ib_hdr_len(flags);
    if (len < n + pkt->pad + IB_ICRC_LEN) {
        return "short";
    }
    pkt->len = len - n - pkt->pad - IB_ICRC_LEN;
    if (!(flags & OP_PAYLOAD) && (pkt->len || pkt->pad)) {
        return "payload";
    }
    q = ib + IB_BTH_LEN;
    if (flags & (OP_RETH | OP_ATOMIC)) {
        pkt->va = ldq_be_p(q);
        pkt->rkey = ldl_be_p(q + 8);
        if (flags & OP_RETH) {
            pkt->dmalen = ldl_be_p(q + 12);
            q += IB_RETH_LEN;
        } else {
            pkt->swap_add = ldq_be_p(q + 12);
            pkt->cmp = ldq_be_p(q + 20);
            q += IB_ATOMIC_ETH_LEN;
        }
    }
    if (flags & OP_AETH) {
        pkt->syndrome = q[0];
        pkt->msn = ldl_be_p(q) & AXON_PSN_MASK;
        q += IB_AETH_LEN;
    }
    if (flags & OP_ATOMIC_ACK) {
        pkt->orig = ldq_be_p(q);
        q += IB_ATOMIC_ACK_LEN;
    }
    if (flags & OP_IMM) {
        memcpy(&pkt->imm, q, IB_IMM_LEN);
    }
    pkt->payload = ib + n;
    *hdr_len = n;
    return NULL;
}

/* A RoCEv2 frame from the wire, already recognised by the Ethernet part. */
void axon_roce_rx_frame(AxonNicState *s, const uint8_t *buf, size_t size)
{
    size_t l3 = AXON_ETH_HLEN, l3_len, udp_len;
    const uint8_t *ib;
    AxonPkt pkt = {};
    const char *why;
    unsigned hdr_len;
    uint16_t proto = lduw_be_p(buf + 12);
    uint32_t icrc;

    if (!axon_nic_ready(s)) {
        why = "device not ready";
        goto drop;
    }
    if (memcmp(buf, s->conf.macaddr.a, 6)) {
        why = "not our MAC";
        goto drop;
    }
    if (proto == ETH_P_VLAN) {
        proto = lduw_be_p(buf + 16);
        l3 += 4;
    }
    /* the Ethernet part checked the IP and UDP headers are present */
    if (proto == ETH_P_IP) {
        l3_len = (buf[l3] & 0xf) * 4;
        if (l3_len != 20 || lduw_be_p(buf + l3 + 2) > size - l3) {
            why = "IPv4 header";
            goto drop;
        }
        udp_len = lduw_be_p(buf + l3 + 2) - l3_len;
        /* the source address as an IPv4-mapped GID */
        pkt.sgid[10] = pkt.sgid[11] = 0xff;
        memcpy(pkt.sgid + 12, buf + l3 + 12, 4);
    } else {
        l3_len = 40;
        udp_len = lduw_be_p(buf + l3 + 4);
        memcpy(pkt.sgid, buf + l3 + 8, 16);
    }
    if (udp_len > size - l3 - l3_len || udp_len < 8 ||
        lduw_be_p(buf + l3 + l3_len + 4) != udp_len) {
        why = "UDP length";
        goto drop;
    }
    ib = buf + l3 + l3_len + 8;
    why = axon_roce_check_ib(ib, udp_len - 8, &pkt, &hdr_len);
    if (why) {
        goto drop;
    }
    icrc = axon_roce_icrc(buf + l3, l3_len, ib, hdr_len, pkt.payload,
                          pkt.len + pkt.pad);
    if (icrc != ldl_le_p(ib + udp_len - 8 - IB_ICRC_LEN)) {
        why = "ICRC";
        goto drop;
    }
    trace_axon_nic_roce_rx(pkt.opcode, pkt.dqpn, pkt.psn, pkt.len);
    axon_roce_rx_pkt(s, &pkt, NULL);
    return;

drop:
    trace_axon_nic_err_roce_rx(why);
    s->rdma->stat_rx_drops++;
}

/* ---- QP lifecycle and the engine ---------------------------------------- */

void axon_roce_qp_init(AxonNicState *s, AxonQp *qp)
{
    qp->s = s;
    qp->last_op = IB_NO_OPCODE;
    qp->retry_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, axon_roce_retry_timer,
                                   qp);
}

static bool axon_roce_is_local(AxonNicState *s, AxonQp *qp)
{
    unsigned i;

    if (s->wire_loopback) {
        return false;
    }
    if (!memcmp(qp->attr.dmac, s->conf.macaddr.a, 6)) {
        return true;
    }
    for (i = 0; i < AXON_NIC_GID_TBL_LEN; i++) {
        if (s->gid_tbl[i].type != AXON_GID_TYPE_NONE &&
            !memcmp(s->gid_tbl[i].gid, qp->attr.dgid, 16)) {
            return true;
        }
    }
    return false;
}

/* INIT -> RTR: the path, MTU and PSN are set, once (never in flight). */
void axon_roce_qp_rtr(AxonNicState *s, AxonQp *qp)
{
    qp->loopback = axon_roce_is_local(s, qp);
    qp->mtu = le32_to_cpu(qp->attr.path_mtu);
    qp->epsn = le32_to_cpu(qp->attr.rq_psn);
    qp->msn = 0;
    qp->nak_sent = false;
    qp->last_op = IB_NO_OPCODE;
    qp->recv_active = false;
}

void axon_roce_qp_rts(AxonNicState *s, AxonQp *qp)
{
    qp->cur_psn = qp->psn_hi = qp->una_psn = le32_to_cpu(qp->attr.sq_psn);
    qp->cur = qp->sq_comp = qp->sq_fetch;
    qp->cur_off = 0;
    qp->retry_left = qp->attr.retry_cnt;
    qp->rnr_left = qp->attr.rnr_retry;
    axon_roce_schedule(s, qp);
}

/* In ERR: every outstanding and newly posted WQE completes flushed. */
void axon_roce_flush(AxonNicState *s, AxonQp *qp)
{
    PCIDevice *pdev = PCI_DEVICE(s);

    while (qp->sq_comp != qp->sq_fetch) {
        AxonSwqe *e = axon_win(qp, qp->sq_comp++);

        if (!e->done) {
            e->status = AXON_WC_WR_FLUSH_ERR;
        }
        axon_roce_swqe_cqe(s, qp, e);
    }
    while (qp->sq_comp != qp->sq.pi) {
        uint16_t idx = qp->sq_comp++;
        struct axon_send_wqe w = {};

        pci_dma_read(pdev, qp->sq.base + ((uint64_t)(idx & (qp->sq.depth - 1))
                                          << qp->sq.shift), &w, 16);
        axon_rdma_cqe(s, qp, false, le64_to_cpu(w.wr_id), idx,
                      axon_wc_opcode(w.opcode), AXON_WC_WR_FLUSH_ERR, 0, 0, 0);
    }
    qp->sq_fetch = qp->cur = qp->sq_comp;
    qp->cur_off = 0;
    while (qp->rq.ci != qp->rq.pi) {
        uint16_t idx = qp->rq.ci++;
        uint64_t wr_id = 0;

        ldq_le_pci_dma(pdev, qp->rq.base + ((uint64_t)(idx &
                       (qp->rq.depth - 1)) << qp->rq.shift), &wr_id,
                       MEMTXATTRS_UNSPECIFIED);
        axon_rdma_cqe(s, qp, true, wr_id, idx, AXON_WC_RECV,
                      AXON_WC_WR_FLUSH_ERR, 0, 0, 0);
    }
    qp->recv_active = false;
}

/*
 * A send doorbell runs its QP's requester at once, for up to
 * AXON_ROCE_DB_BUDGET packets, in the thread that rang it (a vCPU's), and
 * leaves the rest to the engine bottom half. Under TCG, with vCPUs busy
 * polling, waking the main loop for one small message costs tens of
 * microseconds (e1000 transmits from its tail register write for the
 * same reason). The budget bounds how long a doorbell write can take;
 * engine_busy keeps a doorbell reached through the engine's own DMA from
 * running it re-entrantly.
 */
void axon_roce_kick(AxonNicState *s, AxonQp *qp)
{
    AxonRdma *r = s->rdma;
    unsigned n;

    if (qp->state != AXON_QPS_RTS || r->engine_busy) {
        axon_roce_schedule(s, qp);
        return;
    }
    r->engine_busy = true;
    n = axon_roce_requester(s, qp, AXON_ROCE_DB_BUDGET);
    axon_roce_flush_acks(s);
    r->engine_busy = false;
    /* waking the main loop for nothing would only contend for the lock */
    if (n == AXON_ROCE_DB_BUDGET && axon_roce_unsent(qp)) {
        axon_roce_schedule(s, qp);
    }
}

/*
 * The engine: runs the scheduled QPs round robin within a budget, so a
 * busy QP neither starves the others nor the vCPUs, then sends the ACKs
 * its responders owe (one per batch: coalesced).
 */
void axon_roce_bh(void *opaque)
{
    AxonNicState *s = opaque;
    AxonRdma *r = s->rdma;
    unsigned budget = AXON_ROCE_BH_BUDGET;
    AxonQp *qp;

    if (!axon_nic_ready(s)) {
        return;
    }
    r->engine_busy = true;
    while (budget && (qp = QTAILQ_FIRST(&r->sched))) {
        unsigned n, quota = MIN(budget, AXON_ROCE_QP_BUDGET);

        QTAILQ_REMOVE(&r->sched, qp, sched);
        qp->scheduled = false;
        if (qp->state == AXON_QPS_ERR) {
            axon_roce_flush(s, qp);
            continue;
        }
        n = axon_roce_requester(s, qp, quota);
        budget -= n;
        axon_roce_flush_acks(s);
        /* stopped by the quota, not for want of work: not done yet */
        if (n == quota && axon_roce_unsent(qp)) {
            axon_roce_schedule(s, qp);
        }
    }
    axon_roce_flush_acks(s);
    r->engine_busy = false;
    if (!QTAILQ_EMPTY(&r->sched)) {
        qemu_bh_schedule(r->bh);
    }
}
