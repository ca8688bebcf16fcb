/*
 * RoCEv2 frame forging (see axon-nic-forge.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-nic-forge.h"
#include "qemu/bswap.h"
#include "axon/axon_dev.h"

/* CRC-32 as zlib computes it: the ICRC's */
static uint32_t crc32_le(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++) {
            crc = crc >> 1 ^ (0xedb88320u & -(crc & 1));
        }
    }
    return ~crc;
}

/* f as a RoCEv2 frame from 10.0.0.1 (the QPs' peer) to this device. */
size_t forge_frame(const Forged *f, uint8_t *buf)
{
    uint8_t *ip = buf + 14, *udp = ip + 20, *ib = udp + 8, *q = ib + 12;
    uint8_t pad = -f->len & 3, ph[8 + 20 + 8 + 12];
    uint32_t sum = 0, crc;
    size_t ib_len, udp_len;
    int i;

    memset(buf, 0, 14 + 20 + 8 + 12);
    memcpy(buf, "\x52\x54\x00\x12\x34\x56", 6);
    memcpy(buf + 6, "\x52\x54\x00\x66\x66\x66", 6);
    stw_be_p(buf + 12, 0x0800);
    ib[0] = f->opcode;
    ib[1] = pad << 4;
    stw_be_p(ib + 2, 0xffff);
    stl_be_p(ib + 4, f->dqpn);
    stl_be_p(ib + 8, 0x80000000u | (f->psn & AXON_PSN_MASK));
    switch (f->opcode) {
    case F_WRITE_ONLY:
    case F_READ_REQ:
        stq_be_p(q, f->va);
        stl_be_p(q + 8, f->rkey);
        stl_be_p(q + 12, f->dmalen);
        q += 16;
        break;
    case F_CMP_SWP:
    case F_FETCH_ADD:
        stq_be_p(q, f->va);
        stl_be_p(q + 8, f->rkey);
        stq_be_p(q + 12, f->swap_add);
        stq_be_p(q + 20, f->cmp);
        q += 28;
        break;
    case F_UD_SEND_ONLY:
    case F_UD_SEND_ONLY_IMM:
        stl_be_p(q, f->qkey);
        stl_be_p(q + 4, f->src_qpn);
        q += 8;
        if (f->opcode == F_UD_SEND_ONLY_IMM) {
            memcpy(q, &f->imm, 4);
            q += 4;
        }
        break;
    case F_CNP:
        memset(q, 0, 16);       /* reserved */
        q += 16;
        break;
    case F_READ_RESP_ONLY:
    case F_ACK:
    case F_ATOMIC_ACK:
        stl_be_p(q, (uint32_t)f->syndrome << 24 | 1);
        q += 4;
        if (f->opcode == F_ATOMIC_ACK) {
            stq_be_p(q, 0x1234);
            q += 8;
        }
        break;
    }
    ib_len = q - ib;
    memcpy(q, f->payload, f->len);
    memset(q + f->len, 0, pad);
    udp_len = 8 + ib_len + f->len + pad + 4;
    ip[0] = 0x45;
    stw_be_p(ip + 2, 20 + udp_len);
    ip[8] = 64;
    ip[9] = 17;
    ip[12] = ip[16] = 10;
    ip[15] = ip[19] = 1;
    for (i = 0; i < 20; i += 2) {
        sum += lduw_be_p(ip + i);
    }
    sum = (sum & 0xffff) + (sum >> 16);
    stw_be_p(ip + 10, ~(sum + (sum >> 16)));
    stw_be_p(udp, 0xc123);
    stw_be_p(udp + 2, AXON_ROCEV2_UDP_PORT);
    stw_be_p(udp + 4, udp_len);
    /* the ICRC's pseudo header: variant fields masked to ones */
    memset(ph, 0xff, 8);
    memcpy(ph + 8, ip, 20 + 8 + 12);
    ph[8 + 1] = ph[8 + 8] = 0xff;
    stw_be_p(ph + 8 + 10, 0xffff);
    stw_be_p(ph + 8 + 20 + 6, 0xffff);
    ph[8 + 28 + 4] = 0xff;
    crc = crc32_le(0, ph, sizeof(ph));
    crc = crc32_le(crc, ib + 12, ib_len - 12 + f->len + pad);
    stl_le_p(q + f->len + pad, crc);
    return 14 + 20 + udp_len;
}

/* f as a RUD frame: its RUDETH or SACKETH, then its payload or bitmap. */
size_t forge_rud_frame(const ForgedRud *f, uint8_t *buf)
{
    uint8_t p[FORGE_MAX_PAYLOAD] = {};
    bool ack = f->opcode == AXON_RUD_OPCODE_ACK;
    uint32_t hdr = ack ? AXON_SACKETH_LEN : AXON_RUDETH_LEN;
    Forged g = {
        .opcode = f->opcode, .dqpn = f->dqpn, .psn = f->psn,
        .payload = p, .len = hdr + MIN(f->len, FORGE_MAX_PAYLOAD - hdr),
    };

    if (ack) {
        stq_be_p(p + AXON_SACKETH_KEY, f->key);
        p[AXON_SACKETH_SYNDROME] = f->syndrome;
        p[AXON_SACKETH_CE] = f->ce;
        stl_be_p(p + AXON_SACKETH_ACK_PSN, f->ack_psn);
        stl_be_p(p + AXON_SACKETH_ERR_PSN, f->err_psn);
        stl_be_p(p + AXON_SACKETH_ERR_MSG, f->msg_id);
    } else {
        stq_be_p(p + AXON_RUDETH_KEY, f->key);
        stl_be_p(p + AXON_RUDETH_MSG_ID, f->msg_id);
        stl_be_p(p + AXON_RUDETH_MSG_LEN, f->msg_len);
        stl_be_p(p + AXON_RUDETH_OFFSET, f->offset);
        p[AXON_RUDETH_OP] = f->op;
        memcpy(p + AXON_RUDETH_IMM, &f->imm, 4);
        stl_be_p(p + AXON_RUDETH_RKEY, f->rkey);
        stl_be_p(p + AXON_RUDETH_REQ_LEN, f->req_len);
        stq_be_p(p + AXON_RUDETH_VA, f->va);
    }
    if (f->payload) {
        memcpy(p + hdr, f->payload, g.len - hdr);
    }
    return forge_frame(&g, buf);
}
