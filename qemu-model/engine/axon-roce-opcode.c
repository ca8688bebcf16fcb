/*
 * axon engine: what each IB opcode of the RC, XRC, UC, UD and RUD services
 * carries
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce-opcode.h"

/* a request of the kind, carrying f and x (XRC's XRCETH, or nothing) */
#define REQ_OP(kind, f, x) { OP_REQ | (f) | (x), kind }
#define SEND_OP(f, x)  REQ_OP(KIND_SEND, OP_PAYLOAD | (f), x)
#define WRITE_OP(f, x) REQ_OP(KIND_WRITE, OP_PAYLOAD | (f), x)
#define RRESP_OP(f) { OP_PAYLOAD | (f), KIND_RRESP }
#define ACK_OP(f)   { OP_START | OP_END | OP_AETH | (f), KIND_ACK }

/* SENDs and WRITEs, as RC, XRC (x: OP_XRCETH) and UC have them */
#define SEND_WRITE_OPS(x) \
    [IB_SEND_FIRST] = SEND_OP(OP_START, x), \
    [IB_SEND_MIDDLE] = SEND_OP(0, x), \
    [IB_SEND_LAST] = SEND_OP(OP_END, x), \
    [IB_SEND_LAST_IMM] = SEND_OP(OP_END | OP_IMM, x), \
    [IB_SEND_ONLY] = SEND_OP(OP_START | OP_END, x), \
    [IB_SEND_ONLY_IMM] = SEND_OP(OP_START | OP_END | OP_IMM, x), \
    [IB_WRITE_FIRST] = WRITE_OP(OP_START | OP_RETH, x), \
    [IB_WRITE_MIDDLE] = WRITE_OP(0, x), \
    [IB_WRITE_LAST] = WRITE_OP(OP_END, x), \
    [IB_WRITE_LAST_IMM] = WRITE_OP(OP_END | OP_IMM, x), \
    [IB_WRITE_ONLY] = WRITE_OP(OP_START | OP_END | OP_RETH, x), \
    [IB_WRITE_ONLY_IMM] = WRITE_OP(OP_START | OP_END | OP_RETH | OP_IMM, x)

/* RC's others; XRC's are the same with x in every request (IBA A14) */
#define RC_ONLY_OPS(x) \
    [IB_READ_REQ] = REQ_OP(KIND_READ, OP_START | OP_END | OP_RETH, x), \
    [IB_READ_RESP_FIRST] = RRESP_OP(OP_START | OP_AETH), \
    [IB_READ_RESP_MIDDLE] = RRESP_OP(0), \
    [IB_READ_RESP_LAST] = RRESP_OP(OP_END | OP_AETH), \
    [IB_READ_RESP_ONLY] = RRESP_OP(OP_START | OP_END | OP_AETH), \
    [IB_ACK] = ACK_OP(0), \
    [IB_ATOMIC_ACK] = ACK_OP(OP_ATOMIC_ACK), \
    [IB_CMP_SWP] = REQ_OP(KIND_ATOMIC, OP_START | OP_END | OP_ATOMIC, x), \
    [IB_FETCH_ADD] = REQ_OP(KIND_ATOMIC, OP_START | OP_END | OP_ATOMIC, x), \
    [IB_SEND_LAST_INV] = SEND_OP(OP_END | OP_IETH, x), \
    [IB_SEND_ONLY_INV] = SEND_OP(OP_START | OP_END | OP_IETH, x)

const AxonIbOp axon_ib_ops[IB_NUM_OPCODES] = {
    SEND_WRITE_OPS(0),
    RC_ONLY_OPS(0),
};

const AxonIbOp axon_xrc_ops[IB_NUM_OPCODES] = {
    SEND_WRITE_OPS(OP_XRCETH),
    RC_ONLY_OPS(OP_XRCETH),
};

/* RoCEv2's CNP (IBA annex 17): BTH, 16 reserved bytes, ICRC */
const AxonIbOp axon_cnp_op = { OP_START | OP_END | OP_CNP_RSVD, KIND_CNP };

/* UC: RC's SENDs and WRITEs, nothing acknowledged (IBA 9.2.1) */
const AxonIbOp axon_uc_ops[IB_NUM_OPCODES] = {
    SEND_WRITE_OPS(0),
};

/* UD sends one packet per message (IBA 9.8.4) */
const AxonIbOp axon_ud_ops[IB_NUM_OPCODES] = {
    [IB_SEND_ONLY] = SEND_OP(OP_START | OP_END | OP_DETH, 0),
    [IB_SEND_ONLY_IMM] = SEND_OP(OP_START | OP_END | OP_DETH | OP_IMM, 0),
};

/* RUD: every packet a message of its own as far as headers go */
const AxonIbOp axon_rud_ops[4] = {
    [IB_RUD_DATA & 3] = { OP_REQ | OP_START | OP_END | OP_PAYLOAD | OP_RUDETH,
                          KIND_RUD },
    [IB_RUD_READ_REQ & 3] = { OP_REQ | OP_START | OP_END | OP_RUDETH,
                              KIND_RUD },
    [IB_RUD_READ_RESP & 3] = { OP_START | OP_END | OP_PAYLOAD | OP_RUDETH,
                               KIND_RUD },
    [IB_RUD_ACK & 3] = { OP_START | OP_END | OP_PAYLOAD | OP_SACKETH,
                         KIND_RUD },
};
