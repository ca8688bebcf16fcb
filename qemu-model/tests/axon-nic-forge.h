/*
 * RoCEv2 frames as a forger on the fabric writes them: from 10.0.0.1
 * (the fixture QPs' peer) to the device, with a correct ICRC. Used by the
 * wire qtests and the RoCE receive fuzz target (qemu-model/fuzz).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AXON_NIC_FORGE_H
#define AXON_NIC_FORGE_H

#include "qemu/osdep.h"

/* BTH opcodes (IBA 9.2), as a forger writes them */
enum {
    F_SEND_ONLY = 0x04,
    F_WRITE_ONLY = 0x0a,
    F_READ_REQ = 0x0c,
    F_READ_RESP_ONLY = 0x10,
    F_ACK = 0x11,
    F_ATOMIC_ACK = 0x12,
    F_CMP_SWP = 0x13,
    F_FETCH_ADD = 0x14,
    F_UD_SEND_ONLY = 0x64,
    F_UD_SEND_ONLY_IMM = 0x65,
    F_CNP = 0x81,
};

/* AETH syndromes */
#define F_SYN_ACK 0x1f
#define F_SYN_RNR(t) (0x20 | (t))
#define F_SYN_RESERVED 0x40
#define F_SYN_NAK(code) (0x60 | (code))
#define F_NAK_REM_ACCESS 2
#define F_NAK_INV_RD 4

typedef struct Forged {
    uint8_t opcode;
    uint32_t dqpn, psn;
    uint64_t va;                /* RETH, AtomicETH */
    uint32_t rkey, dmalen;
    uint64_t swap_add, cmp;     /* AtomicETH */
    uint8_t syndrome;           /* AETH */
    uint32_t qkey, src_qpn;     /* DETH */
    uint32_t imm;               /* ImmDt, network order */
    const void *payload;
    uint32_t len;
} Forged;

/* The largest frame forge_frame writes: payload up to FORGE_MAX_PAYLOAD */
#define FORGE_MAX_PAYLOAD 4096
#define FORGE_MAX_FRAME (14 + 20 + 8 + 12 + 28 + FORGE_MAX_PAYLOAD + 3 + 4)

/* Writes f as a frame into buf; returns its length. */
size_t forge_frame(const Forged *f, uint8_t *buf);

/*
 * A RUD packet ("RUD headers" in axon_io_defs.h): opcode
 * AXON_RUD_OPCODE_*, the key it carries, its RUDETH fields (an ACK: its
 * SACKETH's, msg_id standing for err_msg), then len bytes of payload (an
 * ACK: of bitmap).
 */
typedef struct ForgedRud {
    uint8_t opcode;
    uint32_t dqpn, psn;
    uint64_t key;
    uint32_t msg_id, msg_len, offset, req_len;
    uint8_t op;                 /* AXON_RUD_OP_* */
    uint32_t imm;               /* network order */
    uint32_t rkey;
    uint64_t va;
    uint8_t syndrome, ce;       /* ACK */
    uint32_t ack_psn, err_psn;  /* ACK */
    const void *payload;
    uint32_t len;
} ForgedRud;

/* Writes f as a frame into buf; returns its length. */
size_t forge_rud_frame(const ForgedRud *f, uint8_t *buf);

#endif /* AXON_NIC_FORGE_H */
