/*
 * axon engine: what each IB opcode of the RC, UC, UD and RUD services carries
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce-opcode.h"

#define SEND_OP(f)  { OP_REQ | OP_PAYLOAD | (f), KIND_SEND }
#define WRITE_OP(f) { OP_REQ | OP_PAYLOAD | (f), KIND_WRITE }
#define RRESP_OP(f) { OP_PAYLOAD | (f), KIND_RRESP }

/* SENDs and WRITEs, as RC and UC have them */
#define SEND_WRITE_OPS \
    [IB_SEND_FIRST] = SEND_OP(OP_START), \
    [IB_SEND_MIDDLE] = SEND_OP(0), \
    [IB_SEND_LAST] = SEND_OP(OP_END), \
    [IB_SEND_LAST_IMM] = SEND_OP(OP_END | OP_IMM), \
    [IB_SEND_ONLY] = SEND_OP(OP_START | OP_END), \
    [IB_SEND_ONLY_IMM] = SEND_OP(OP_START | OP_END | OP_IMM), \
    [IB_WRITE_FIRST] = WRITE_OP(OP_START | OP_RETH), \
    [IB_WRITE_MIDDLE] = WRITE_OP(0), \
    [IB_WRITE_LAST] = WRITE_OP(OP_END), \
    [IB_WRITE_LAST_IMM] = WRITE_OP(OP_END | OP_IMM), \
    [IB_WRITE_ONLY] = WRITE_OP(OP_START | OP_END | OP_RETH), \
    [IB_WRITE_ONLY_IMM] = WRITE_OP(OP_START | OP_END | OP_RETH | OP_IMM)

const AxonIbOp axon_ib_ops[IB_NUM_OPCODES] = {
    SEND_WRITE_OPS,
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
    [IB_SEND_LAST_INV] = SEND_OP(OP_END | OP_IETH),
    [IB_SEND_ONLY_INV] = SEND_OP(OP_START | OP_END | OP_IETH),
};

/* RoCEv2's CNP (IBA annex 17): BTH, 16 reserved bytes, ICRC */
const AxonIbOp axon_cnp_op = { OP_START | OP_END | OP_CNP_RSVD, KIND_CNP };

/* UC: RC's SENDs and WRITEs, nothing acknowledged (IBA 9.2.1) */
const AxonIbOp axon_uc_ops[IB_NUM_OPCODES] = {
    SEND_WRITE_OPS,
};

/* UD sends one packet per message (IBA 9.8.4) */
const AxonIbOp axon_ud_ops[IB_NUM_OPCODES] = {
    [IB_SEND_ONLY] = SEND_OP(OP_START | OP_END | OP_DETH),
    [IB_SEND_ONLY_IMM] = SEND_OP(OP_START | OP_END | OP_DETH | OP_IMM),
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
