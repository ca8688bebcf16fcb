/*
 * axon engine: the transports' packets on the wire (rxe_net.c, rxe_icrc.c)
 *
 * Transmit: a decoded packet (AxonPkt) for a QP of this same device is
 * handed straight to the receive path (loopback: no Ethernet, IP, UDP or
 * ICRC), through the engine's receive hook; otherwise its IB headers are
 * encoded, the frame built with the ICRC and sent on a plane through the
 * host (axon_env_frame_send). Receive: a frame is classified as RoCEv2
 * (or handed back to the host as not the engine's), its IB headers
 * decoded and checked and its ICRC verified; axon-roce-rx.c takes it
 * from there.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <zlib.h>

#include "axon-roce.h"

#define AXON_ETH_P_IP           0x0800
#define AXON_ETH_P_IPV6         0x86dd
#define AXON_ETH_P_VLAN         0x8100
#define AXON_IP_PROTO_UDP       17
#define AXON_IP_DF              0x4000
#define AXON_IP_MF              0x2000
#define AXON_IP_OFFMASK         0x1fff

/*
 * A received RoCEv2 frame, classified: where its headers are, or why it
 * cannot be taken.
 */
typedef struct AxonRoceFrame {
    const char *why;        /* NULL: well formed */
    const uint8_t *l3;      /* the IPv4 or IPv6 header */
    unsigned l3_len;
    const uint8_t *ib;      /* the UDP payload: BTH ... ICRC */
    size_t ib_len;
    uint8_t sgid[16];       /* the source address, as a GID */
} AxonRoceFrame;

/* The Internet checksum's sum of len bytes at p, seq bytes into the data */
static uint32_t axon_csum_add(uint32_t sum, const uint8_t *p, size_t len,
                              size_t seq)
{
    size_t i;

    for (i = 0; i < len; i++) {
        sum += (seq + i) & 1 ? p[i] : (uint32_t)p[i] << 8;
    }
    return sum;
}

static uint16_t axon_csum_finish(uint32_t sum)
{
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return ~sum;
}

/* Encodes the IB headers of pkt at p; returns their length. */
static unsigned axon_roce_put_hdrs(uint8_t *p, const AxonPkt *pkt)
{
    uint16_t flags = axon_ib_op(pkt->opcode)->flags;
    uint8_t *q = p + IB_BTH_LEN;

    p[0] = pkt->opcode;
    p[1] = (pkt->se ? 0x80 : 0) | (pkt->pad << 4);
    stw_be_p(p + 2, IB_DEFAULT_PKEY);
    stl_be_p(p + 4, pkt->dqpn & AXON_QPN_MASK);
    stl_be_p(p + 8, (pkt->ackreq ? 0x80000000u : 0) | pkt->psn);
    if (flags & OP_DETH) {
        stl_be_p(q, pkt->qkey);
        stl_be_p(q + 4, pkt->src_qpn & AXON_QPN_MASK);
        q += IB_DETH_LEN;
    }
    if (flags & OP_XRCETH) {
        stl_be_p(q, pkt->xrc_srqn & AXON_QPN_MASK);
        q += IB_XRCETH_LEN;
    }
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
    if (flags & OP_IETH) {
        stl_be_p(q, pkt->rkey);
        q += IB_IETH_LEN;
    }
    if (flags & OP_CNP_RSVD) {
        memset(q, 0, IB_CNP_RSVD_LEN);
        q += IB_CNP_RSVD_LEN;
    }
    if (flags & OP_RUDETH) {
        memset(q, 0, IB_RUDETH_LEN);
        stq_be_p(q + AXON_RUDETH_KEY, pkt->key);
        stl_be_p(q + AXON_RUDETH_MSG_ID, pkt->msg_id);
        stl_be_p(q + AXON_RUDETH_MSG_LEN, pkt->msg_len);
        stl_be_p(q + AXON_RUDETH_OFFSET, pkt->offset);
        q[AXON_RUDETH_OP] = pkt->rud_op;
        memcpy(q + AXON_RUDETH_IMM, &pkt->imm, IB_IMM_LEN);
        stl_be_p(q + AXON_RUDETH_RKEY, pkt->rkey);
        stl_be_p(q + AXON_RUDETH_REQ_LEN, pkt->req_len);
        stq_be_p(q + AXON_RUDETH_VA, pkt->va);
        q += IB_RUDETH_LEN;
    }
    if (flags & OP_SACKETH) {
        memset(q, 0, IB_SACKETH_LEN);
        stq_be_p(q + AXON_SACKETH_KEY, pkt->key);
        q[AXON_SACKETH_SYNDROME] = pkt->syndrome;
        q[AXON_SACKETH_CE] = pkt->ce;
        stl_be_p(q + AXON_SACKETH_ACK_PSN, pkt->ack_psn);
        stl_be_p(q + AXON_SACKETH_ERR_PSN, pkt->err_psn);
        stl_be_p(q + AXON_SACKETH_ERR_MSG, pkt->err_msg);
        q += IB_SACKETH_LEN;
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

/*
 * The IP header of a packet from sgid along path, with udp_len bytes of
 * UDP datagram after it, at l3; returns its length (20 or 40).
 */
static unsigned axon_roce_put_l3(uint8_t *l3, const AxonPath *path,
                                 const uint8_t *sgid, unsigned udp_len)
{
    uint8_t hop_limit = path->hop_limit ? path->hop_limit : 64;
    uint8_t tclass = (path->tclass & ~AXON_ECN_CE) | path->ecn;

    if (axon_gid_is_v4(sgid) && axon_gid_is_v4(path->dgid)) {
        l3[0] = 0x45;
        l3[1] = tclass;
        stw_be_p(l3 + 2, 20 + udp_len);
        stw_be_p(l3 + 4, 0);
        stw_be_p(l3 + 6, AXON_IP_DF);
        l3[8] = hop_limit;
        l3[9] = AXON_IP_PROTO_UDP;
        stw_be_p(l3 + 10, 0);
        memcpy(l3 + 12, sgid + 12, 4);
        memcpy(l3 + 16, path->dgid + 12, 4);
        stw_be_p(l3 + 10, axon_csum_finish(axon_csum_add(0, l3, 20, 0)));
        return 20;
    }
    stl_be_p(l3, 6u << 28 | (uint32_t)tclass << 20 |
             (path->flow_label & AXON_FLOW_LABEL_MASK));
    stw_be_p(l3 + 4, udp_len);
    l3[6] = AXON_IP_PROTO_UDP;
    l3[7] = hop_limit;
    memcpy(l3 + 8, sgid, 16);
    memcpy(l3 + 24, path->dgid, 16);
    return 40;
}

/* The destination address of an IP header, as a GID. */
static void axon_roce_l3_dgid(const uint8_t *l3, unsigned l3_len,
                              uint8_t *dgid)
{
    memset(dgid, 0, 16);
    if (l3_len == 20) {
        dgid[10] = dgid[11] = 0xff;
        memcpy(dgid + 12, l3 + 16, 4);
    } else {
        memcpy(dgid, l3 + 24, 16);
    }
}

bool axon_roce_dest_is_local(AxonEngine *eng, const uint8_t *dmac,
                             const uint8_t *dgid)
{
    if (eng->conf.wire_loopback) {
        return false;
    }
    return !memcmp(dmac, eng->conf.mac, 6) || axon_gid_is_ours(eng, dgid);
}

/* The UDP source port of the QP's packets: the path's, or from its QPN. */
static uint16_t axon_roce_udp_sport(const AxonQp *qp, const AxonPath *path)
{
    return path->udp_sport ? path->udp_sport : 0xc000 | (qp->qpn & 0x3fff);
}

/*
 * Sends pkt as a RoCEv2 frame along path, on the plane its UDP source port
 * hashes to ("Planes" in axon_regs_defs.h). The x-tx-ce-every test hook
 * plays a congested switch: it marks every Nth ECN-capable frame CE.
 */
static void axon_roce_wire_tx(AxonEngine *eng, AxonQp *qp, AxonPkt *pkt,
                              const AxonPath *in)
{
    AxonPath marked = *in, *path = &marked;
    const uint8_t *sgid = axon_gid_get(eng, path->sgid_index)->gid;
    uint8_t hdr[AXON_ETH_HLEN + 40 + 8 + IB_MAX_HDR_LEN];
    uint8_t ib_hdrs[IB_MAX_HDR_LEN];
    uint8_t *l3 = hdr + AXON_ETH_HLEN, *udp, *ib;
    static const uint8_t zero_pad[4];
    uint8_t icrc[IB_ICRC_LEN];
    unsigned ib_len, udp_len, l3_len;
    uint16_t sport = axon_roce_udp_sport(qp, in);
    uint32_t crc;
    struct iovec iov[4];

    if (eng->conf.tx_ce_every && path->ecn == AXON_ECN_ECT0 &&
        ++eng->stats.ce_count % eng->conf.tx_ce_every == 0) {
        path->ecn = AXON_ECN_CE;
    }
    pkt->pad = -pkt->len & 3;
    ib_len = axon_roce_put_hdrs(ib_hdrs, pkt);
    udp_len = 8 + ib_len + pkt->len + pkt->pad + IB_ICRC_LEN;
    l3_len = axon_roce_put_l3(l3, path, sgid, udp_len);
    udp = l3 + l3_len;
    ib = udp + 8;
    memcpy(ib, ib_hdrs, ib_len);

    memcpy(hdr, path->dmac, 6);
    memcpy(hdr + 6, eng->conf.mac, 6);
    stw_be_p(hdr + 12, l3_len == 20 ? AXON_ETH_P_IP : AXON_ETH_P_IPV6);
    stw_be_p(udp, sport);
    stw_be_p(udp + 2, AXON_ROCEV2_UDP_PORT);
    stw_be_p(udp + 4, udp_len);
    stw_be_p(udp + 6, 0);
    crc = axon_roce_icrc(l3, l3_len, ib, ib_len, pkt->payload, pkt->len);
    stl_le_p(icrc, crc32(crc, zero_pad, pkt->pad));
    if (l3_len == 40) {
        /* IPv6 needs the UDP checksum: pseudo header, then the datagram */
        uint32_t sum = axon_csum_add(0, l3 + 8, 32, 0);
        uint16_t csum;

        sum += udp_len + AXON_IP_PROTO_UDP;
        sum = axon_csum_add(sum, udp, 8 + ib_len, 0);
        sum = axon_csum_add(sum, pkt->payload, pkt->len, 8 + ib_len);
        sum = axon_csum_add(sum, icrc, IB_ICRC_LEN,
                            8 + ib_len + pkt->len + pkt->pad);
        csum = axon_csum_finish(sum);
        stw_be_p(udp + 6, csum ? csum : 0xffff);
    }
    iov[0].iov_base = hdr;
    iov[0].iov_len = AXON_ETH_HLEN + l3_len + 8 + ib_len;
    iov[1].iov_base = (void *)pkt->payload;
    iov[1].iov_len = pkt->len;
    iov[2].iov_base = (void *)zero_pad;
    iov[2].iov_len = pkt->pad;
    iov[3].iov_base = icrc;
    iov[3].iov_len = IB_ICRC_LEN;
    axon_env_frame_send(eng->env, sport % eng->conf.planes, iov, 4);
}

/* A datagram to this device: its GRH is the IP header the wire's had. */
static void axon_roce_ud_local(AxonEngine *eng, AxonQp *qp, AxonPkt *pkt,
                               const AxonPath *path)
{
    const uint8_t *sgid = axon_gid_get(eng, path->sgid_index)->gid;
    uint8_t l3[40];

    pkt->l3_len = axon_roce_put_l3(l3, path, sgid,
                                   8 + axon_ib_hdr_len(OP_DETH) +
                                   pkt->len + IB_ICRC_LEN);
    pkt->l3 = l3;
    memcpy(pkt->sgid, sgid, sizeof(pkt->sgid));
    memcpy(pkt->dgid, path->dgid, sizeof(pkt->dgid));
    eng->rx_local(eng, pkt, qp);
    pkt->l3 = NULL;
}

void axon_roce_xmit_path(AxonEngine *eng, AxonQp *qp, AxonPkt *pkt,
                         const AxonPath *path)
{
    eng->stats.tx_pkts++;
    qp->stats.tx_pkts++;
    qp->stats.tx_bytes += pkt->len;
    axon_trace_roce_tx(eng->env, qp->qpn, pkt->opcode, pkt->dqpn, pkt->psn,
                       pkt->len);
    if (!path->loopback) {
        axon_roce_wire_tx(eng, qp, pkt, path);
        /* a group's members here get it as from a switch (no hairpin) */
        if (pkt->dqpn == AXON_MCAST_QPN && !eng->conf.wire_loopback) {
            axon_roce_ud_local(eng, qp, pkt, path);
        }
    } else if (IB_OPCODE_SERVICE(pkt->opcode) == IB_SERVICE_UD) {
        axon_roce_ud_local(eng, qp, pkt, path);
    } else {
        eng->rx_local(eng, pkt, qp);
    }
}

/* The path of a connected QP's packet, as its attributes say. */
void axon_roce_qp_path(AxonEngine *eng, AxonQp *qp, const AxonPkt *pkt,
                       AxonPath *path)
{
    const struct axon_qp_attr *a = &qp->attr;

    *path = (AxonPath) {
        .dmac = a->dmac,
        .dgid = a->dgid,
        .sgid_index = a->sgid_index,
        .hop_limit = a->hop_limit,
        .tclass = a->tclass,
        .ecn = axon_cc_ecn(eng, qp, pkt),
        .flow_label = le32_to_cpu(a->flow_label),
        .udp_sport = le16_to_cpu(a->udp_sport),
        .loopback = qp->loopback,
    };
}

/* RC, XRC and UC: along the QP's path. */
void axon_roce_xmit(AxonEngine *eng, AxonQp *qp, AxonPkt *pkt)
{
    AxonPath path;

    /* XRC QPs run RC's stages; their packets are XRC's (IBA A14) */
    if ((qp->type == AXON_QPT_XRC_INI || qp->type == AXON_QPT_XRC_TGT) &&
        IB_OPCODE_SERVICE(pkt->opcode) == IB_SERVICE_RC) {
        pkt->opcode |= IB_SERVICE_XRC;
    }
    axon_roce_qp_path(eng, qp, pkt, &path);
    axon_roce_xmit_path(eng, qp, pkt, &path);
}

/* The plane an RC or UC QP's packets go out on (UD: each AV's own). */
unsigned axon_roce_qp_plane(AxonEngine *eng, const AxonQp *qp)
{
    AxonPath path = { .udp_sport = le16_to_cpu(qp->attr.udp_sport) };

    return axon_roce_udp_sport(qp, &path) % eng->conf.planes;
}

/*
 * Decodes the IB headers of a received packet, tail bytes after its
 * payload (the ICRC, or none: trimmed); NULL if they are good.
 */
static const char *axon_roce_check_ib(const uint8_t *ib, size_t len,
                                      unsigned tail, AxonPkt *pkt,
                                      unsigned *hdr_len)
{
    uint16_t flags;
    const uint8_t *q;
    unsigned n;

    if (len < IB_BTH_LEN + tail) {
        return "short";
    }
    pkt->opcode = ib[0];
    if (!axon_ib_op(pkt->opcode)) {
        return "opcode";
    }
    flags = axon_ib_op(pkt->opcode)->flags;
    pkt->se = ib[1] & 0x80;
    pkt->pad = (ib[1] >> 4) & 3;
    if (ib[1] & 0xf) {
        return "transport version";
    }
    pkt->dqpn = ldl_be_p(ib + 4) & AXON_QPN_MASK;
    pkt->ackreq = ib[8] & 0x80;
    pkt->psn = ldl_be_p(ib + 8) & AXON_PSN_MASK;
    n = axon_ib_hdr_len(flags);
    if (len < n + pkt->pad + tail) {
        return "short";
    }
    pkt->len = len - n - pkt->pad - tail;
    if (!(flags & OP_PAYLOAD) && (pkt->len || pkt->pad)) {
        return "payload";
    }
    q = ib + IB_BTH_LEN;
    if (flags & OP_DETH) {
        pkt->qkey = ldl_be_p(q);
        pkt->src_qpn = ldl_be_p(q + 4) & AXON_QPN_MASK;
        q += IB_DETH_LEN;
    }
    if (flags & OP_XRCETH) {
        pkt->xrc_srqn = ldl_be_p(q) & AXON_QPN_MASK;
        q += IB_XRCETH_LEN;
    }
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
        q += IB_IMM_LEN;
    }
    if (flags & OP_IETH) {
        pkt->rkey = ldl_be_p(q);
    }
    if (flags & OP_RUDETH) {
        pkt->key = ldq_be_p(q + AXON_RUDETH_KEY);
        pkt->msg_id = ldl_be_p(q + AXON_RUDETH_MSG_ID);
        pkt->msg_len = ldl_be_p(q + AXON_RUDETH_MSG_LEN);
        pkt->offset = ldl_be_p(q + AXON_RUDETH_OFFSET);
        pkt->rud_op = q[AXON_RUDETH_OP];
        memcpy(&pkt->imm, q + AXON_RUDETH_IMM, IB_IMM_LEN);
        pkt->rkey = ldl_be_p(q + AXON_RUDETH_RKEY);
        pkt->req_len = ldl_be_p(q + AXON_RUDETH_REQ_LEN);
        pkt->va = ldq_be_p(q + AXON_RUDETH_VA);
    }
    if (flags & OP_SACKETH) {
        pkt->key = ldq_be_p(q + AXON_SACKETH_KEY);
        pkt->syndrome = q[AXON_SACKETH_SYNDROME];
        pkt->ce = q[AXON_SACKETH_CE];
        pkt->ack_psn = ldl_be_p(q + AXON_SACKETH_ACK_PSN) & AXON_PSN_MASK;
        pkt->err_psn = ldl_be_p(q + AXON_SACKETH_ERR_PSN) & AXON_PSN_MASK;
        pkt->err_msg = ldl_be_p(q + AXON_SACKETH_ERR_MSG);
    }
    pkt->payload = ib + n;
    *hdr_len = n;
    return NULL;
}

/*
 * RoCEv2: IPv4 (unfragmented) or IPv6 (no extension header), optionally
 * behind one 802.1Q tag, carrying UDP to port 4791. For such a frame,
 * true, with its headers' offsets in f; f->why says why it cannot be
 * taken (another unicast MAC, IPv4 options, lengths that do not add up),
 * for the engine to count. A multicast MAC is taken here, and is for
 * axon_roce_decode() to match with the packet's QPN.
 */
static bool axon_roce_parse(AxonEngine *eng, const uint8_t *buf, size_t size,
                            AxonRoceFrame *f)
{
    size_t l3 = AXON_ETH_HLEN, l4, udp_len;
    uint16_t proto;

    if (size < AXON_ETH_HLEN) {
        return false;
    }
    proto = lduw_be_p(buf + 12);
    if (proto == AXON_ETH_P_VLAN) {
        if (size < l3 + 4) {
            return false;
        }
        proto = lduw_be_p(buf + l3 + 2);
        l3 += 4;
    }
    memset(f, 0, sizeof(*f));
    switch (proto) {
    case AXON_ETH_P_IP:
        if (size < l3 + 20 || buf[l3] >> 4 != 4 || (buf[l3] & 0xf) < 5 ||
            buf[l3 + 9] != AXON_IP_PROTO_UDP ||
            (lduw_be_p(buf + l3 + 6) & (AXON_IP_MF | AXON_IP_OFFMASK))) {
            return false;
        }
        f->l3_len = (buf[l3] & 0xf) * 4;
        /* the source address as an IPv4-mapped GID */
        f->sgid[10] = f->sgid[11] = 0xff;
        memcpy(f->sgid + 12, buf + l3 + 12, 4);
        break;
    case AXON_ETH_P_IPV6:
        if (size < l3 + 40 || buf[l3] >> 4 != 6 ||
            buf[l3 + 6] != AXON_IP_PROTO_UDP) {
            return false;
        }
        f->l3_len = 40;
        memcpy(f->sgid, buf + l3 + 8, 16);
        break;
    default:
        return false;
    }
    l4 = l3 + f->l3_len;
    if (size < l4 + 8 || lduw_be_p(buf + l4 + 2) != AXON_ROCEV2_UDP_PORT) {
        return false;
    }
    f->l3 = buf + l3;
    f->ib = buf + l4 + 8;
    udp_len = lduw_be_p(buf + l4 + 4);
    if (memcmp(buf, eng->conf.mac, 6) && !(buf[0] & 1)) {
        f->why = "not our MAC";
    } else if (proto == AXON_ETH_P_IP &&
               (f->l3_len != 20 || lduw_be_p(buf + l3 + 2) > size - l3)) {
        f->why = "IPv4 header";
    } else if (udp_len > size - l4 || udp_len < 8 ||
               (proto == AXON_ETH_P_IP &&
                lduw_be_p(buf + l3 + 2) != f->l3_len + udp_len) ||
               (proto == AXON_ETH_P_IPV6 &&
                lduw_be_p(buf + l3 + 4) != udp_len)) {
        f->why = "UDP length";
    } else {
        f->ib_len = udp_len - 8;
    }
    return true;
}

/*
 * A RUD DATA packet a switch cut to its headers, as the device was told
 * it marks them: the DSCP and nothing after the RUDETH. Its ICRC went
 * with its payload, so nothing but the connection key vouches for it,
 * and all it can do is have one packet in flight sent again.
 */
static bool axon_roce_trimmed(AxonEngine *eng, const AxonRoceFrame *f)
{
    uint8_t dscp = (f->l3_len == 20 ? f->l3[1] : ldl_be_p(f->l3) >> 20) >> 2;

    return eng->conf.rud_trim_dscp && dscp == eng->conf.rud_trim_dscp &&
           f->ib_len == IB_BTH_LEN + AXON_RUDETH_LEN &&
           f->ib[0] == IB_RUD_DATA;
}

/*
 * A frame from the wire: false if it is not RoCEv2. Else *why says why it
 * is dropped, or is NULL and pkt holds it decoded (pointing into frame).
 */
bool axon_roce_decode(AxonEngine *eng, const uint8_t *frame, size_t len,
                      AxonPkt *pkt, const char **why)
{
    AxonRoceFrame f;
    unsigned hdr_len;
    uint32_t icrc;

    if (!axon_roce_parse(eng, frame, len, &f)) {
        return false;
    }
    *why = f.why;
    if (!*why && !axon_env_running(eng->env)) {
        *why = "device not ready";
    }
    if (!*why) {
        pkt->trimmed = axon_roce_trimmed(eng, &f);
        *why = axon_roce_check_ib(f.ib, f.ib_len,
                                  pkt->trimmed ? 0 : IB_ICRC_LEN, pkt,
                                  &hdr_len);
    }
    if (!*why && pkt->trimmed && pkt->pad) {
        *why = "trimmed packet's pad";
    }
    if (*why) {
        return true;
    }
    icrc = pkt->trimmed ? 0 :
           axon_roce_icrc(f.l3, f.l3_len, f.ib, hdr_len, pkt->payload,
                          pkt->len + pkt->pad);
    if (!pkt->trimmed && icrc != ldl_le_p(f.ib + f.ib_len - IB_ICRC_LEN)) {
        *why = "ICRC";
        return true;
    }
    memcpy(pkt->sgid, f.sgid, sizeof(pkt->sgid));
    axon_roce_l3_dgid(f.l3, f.l3_len, pkt->dgid);
    /* a group's datagram, and only that, comes to a multicast MAC */
    if ((frame[0] & 1) != (pkt->dqpn == AXON_MCAST_QPN) ||
        (pkt->dqpn == AXON_MCAST_QPN && !axon_gid_is_mcast(pkt->dgid))) {
        *why = "multicast MAC, QPN or IP address";
        return true;
    }
    pkt->l3 = f.l3;
    pkt->l3_len = f.l3_len;
    pkt->ecn = (f.l3_len == 20 ? f.l3[1] : ldl_be_p(f.l3) >> 20) &
               AXON_ECN_CE;
    return true;
}
