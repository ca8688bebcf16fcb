/*
 * axon simulator: what a frame carries (see axon-sim-frame.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-sim-frame.h"

#include "axon-roce-opcode.h"

#define ETH_HLEN        14
#define ETH_P_IPV4      0x0800
#define IPV4_UDP        17
#define UDP_HLEN        8
#define ROCE_V2_PORT    4791

bool sim_frame_reads_host(const uint8_t *f, size_t len)
{
    const AxonIbOp *op;
    size_t ihl, bth;

    if (len < ETH_HLEN + 20 || (f[12] << 8 | f[13]) != ETH_P_IPV4 ||
        f[ETH_HLEN + 9] != IPV4_UDP) {
        return false;
    }
    ihl = (size_t)(f[ETH_HLEN] & 0xf) * 4;
    bth = ETH_HLEN + ihl + UDP_HLEN;
    if (ihl < 20 || len < bth + IB_BTH_LEN ||
        (f[ETH_HLEN + ihl + 2] << 8 | f[ETH_HLEN + ihl + 3]) != ROCE_V2_PORT) {
        return false;
    }
    op = axon_ib_op(f[bth]);
    return op && (op->flags & OP_PAYLOAD) && !(op->flags & OP_SACKETH);
}
