/*
 * axon engine: the IB transport's opcodes and headers, as RC, UC and UD use
 * them (IBA 9.2-9.4; rxe_opcode.h)
 *
 * One table per service says what each opcode carries (axon_ib_ops for
 * RC, axon_xrc_ops for XRC: RC's with an XRCETH in every request), and
 * axon_ib_op() what an opcode of any service the device speaks does;
 * encoding, decoding and the protocol stages read it rather than switch
 * on opcodes. An opcode's top 3 bits name the service (IBA 9.2.1), its
 * low 5 the operation, numbered alike across services.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_AXON_ROCE_OPCODE_H
#define HW_AXON_ROCE_OPCODE_H

#include "axon/axon_dev.h"
#include "axon-util.h"

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
    IB_SEND_LAST_INV = 0x16,
    IB_SEND_ONLY_INV = 0x17,
    IB_NUM_OPCODES,
};

#define IB_NO_OPCODE        0xff

#define IB_OPCODE_SERVICE(op)   ((op) & 0xe0)
#define IB_SERVICE_RC       0x00
#define IB_SERVICE_UC       0x20
#define IB_SERVICE_UD       0x60
#define IB_SERVICE_CNP      0x80    /* RoCEv2 congestion notification */
#define IB_CNP              (IB_SERVICE_CNP | 0x01)
#define IB_SERVICE_XRC      0xa0    /* extended reliable connected (A14) */
#define IB_SERVICE_RUD      0xc0    /* manufacturer specific: axon's RUD */
#define IB_UD_SEND_ONLY     (IB_SERVICE_UD | IB_SEND_ONLY)
#define IB_UD_SEND_ONLY_IMM (IB_SERVICE_UD | IB_SEND_ONLY_IMM)

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
#define OP_DETH         0x200   /* UD: Q_Key and source QP */
#define OP_IETH         0x400   /* the rkey a SEND invalidates */
#define OP_CNP_RSVD     0x800   /* a CNP's 16 reserved bytes */
#define OP_RUDETH       0x1000  /* RUD: key, message, offset, rkey */
#define OP_SACKETH      0x2000  /* RUD: key, ECN echo, error */
#define OP_XRCETH       0x4000  /* XRC requests: the target's SRQ */

/* The RUD service's operations ("RUD headers" in axon_io_defs.h) */
enum {
    IB_RUD_DATA = AXON_RUD_OPCODE_DATA,         /* SEND or WRITE payload */
    IB_RUD_READ_REQ = AXON_RUD_OPCODE_READ_REQ,
    IB_RUD_READ_RESP = AXON_RUD_OPCODE_READ_RESP,
    IB_RUD_ACK = AXON_RUD_OPCODE_ACK,           /* SACK bitmap as payload */
};

/* RUDETH's operation: what the message is */
enum {
    RUD_OP_SEND = AXON_RUD_OP_SEND,
    RUD_OP_SEND_IMM = AXON_RUD_OP_SEND_IMM,
    RUD_OP_WRITE = AXON_RUD_OP_WRITE,
    RUD_OP_WRITE_IMM = AXON_RUD_OP_WRITE_IMM,
    RUD_OP_READ = AXON_RUD_OP_READ,
    RUD_OP_MAX = RUD_OP_READ,
};

enum {
    KIND_SEND, KIND_WRITE, KIND_READ, KIND_ATOMIC, KIND_RRESP, KIND_ACK,
    KIND_CNP, KIND_RUD,
};

typedef struct AxonIbOp {
    uint16_t flags;
    uint8_t kind;
} AxonIbOp;

#define IB_BTH_LEN          12
#define IB_RETH_LEN         16
#define IB_AETH_LEN         4
#define IB_ATOMIC_ETH_LEN   28
#define IB_ATOMIC_ACK_LEN   8
#define IB_IMM_LEN          4
#define IB_DETH_LEN         8
#define IB_IETH_LEN         4
#define IB_ICRC_LEN         4
#define IB_CNP_RSVD_LEN     16
#define IB_RUDETH_LEN       AXON_RUDETH_LEN
#define IB_SACKETH_LEN      AXON_SACKETH_LEN
#define IB_XRCETH_LEN       4
#define IB_RUD_SACK_BYTES   AXON_RUD_SACK_BYTES /* an ACK's bitmap: 1024 PSNs */
#define IB_MAX_HDR_LEN      (IB_BTH_LEN + IB_ATOMIC_ETH_LEN + IB_AETH_LEN + \
                             IB_ATOMIC_ACK_LEN + IB_IMM_LEN + IB_DETH_LEN + \
                             IB_XRCETH_LEN)
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

extern const AxonIbOp axon_ib_ops[IB_NUM_OPCODES];
extern const AxonIbOp axon_xrc_ops[IB_NUM_OPCODES];
extern const AxonIbOp axon_uc_ops[IB_NUM_OPCODES];
extern const AxonIbOp axon_ud_ops[IB_NUM_OPCODES];
extern const AxonIbOp axon_cnp_op;
extern const AxonIbOp axon_rud_ops[4];

/* What opcode carries, NULL if no service of the device sends it. */
static inline const AxonIbOp *axon_ib_op(uint8_t opcode)
{
    uint8_t operation = opcode & ~IB_OPCODE_SERVICE(opcode);
    const AxonIbOp *op;

    if (operation >= IB_NUM_OPCODES) {
        return NULL;
    }
    switch (IB_OPCODE_SERVICE(opcode)) {
    case IB_SERVICE_RC:
        op = &axon_ib_ops[operation];
        break;
    case IB_SERVICE_XRC:
        op = &axon_xrc_ops[operation];
        break;
    case IB_SERVICE_UC:
        op = &axon_uc_ops[operation];
        break;
    case IB_SERVICE_UD:
        op = &axon_ud_ops[operation];
        break;
    case IB_SERVICE_CNP:
        return opcode == IB_CNP ? &axon_cnp_op : NULL;
    case IB_SERVICE_RUD:
        return operation < ARRAY_SIZE(axon_rud_ops) ?
               &axon_rud_ops[operation] : NULL;
    default:
        return NULL;
    }
    return op->flags ? op : NULL;
}

/* The IB headers of a packet with these flags, BTH included. */
static inline unsigned axon_ib_hdr_len(uint16_t flags)
{
    return IB_BTH_LEN + (flags & OP_DETH ? IB_DETH_LEN : 0) +
           (flags & OP_XRCETH ? IB_XRCETH_LEN : 0) +
           (flags & OP_RETH ? IB_RETH_LEN : 0) +
           (flags & OP_ATOMIC ? IB_ATOMIC_ETH_LEN : 0) +
           (flags & OP_AETH ? IB_AETH_LEN : 0) +
           (flags & OP_ATOMIC_ACK ? IB_ATOMIC_ACK_LEN : 0) +
           (flags & OP_IMM ? IB_IMM_LEN : 0) +
           (flags & OP_IETH ? IB_IETH_LEN : 0) +
           (flags & OP_CNP_RSVD ? IB_CNP_RSVD_LEN : 0) +
           (flags & OP_RUDETH ? IB_RUDETH_LEN : 0) +
           (flags & OP_SACKETH ? IB_SACKETH_LEN : 0);
}

#endif /* HW_AXON_ROCE_OPCODE_H */
