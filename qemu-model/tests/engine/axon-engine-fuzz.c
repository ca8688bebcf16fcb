/*
 * axon engine tests: a libFuzzer target for the engine's receive path
 *
 * Each input starts from two nodes of the test environment with an RC
 * and a RUD connection between them (a WRITE has gone over each), then
 * is read as a list of commands:
 *
 *   op & 3 == 0: a raw frame to node 1 (length byte, bytes)
 *   op & 3 == 1: a RoCEv2 frame to node 1 from node 0's address: the
 *                fuzzer's BTH and what follows (length byte, bytes), its
 *                destination QP one of the live ones, a correct ICRC
 *   op & 3 == 2: the world runs for (op >> 2) * 10 us of virtual time
 *   op & 3 == 3: node 0 posts a WRITE of 4 KiB on one of its QPs
 *
 * and the world runs until idle (a bounded virtual time). The engines take
 * DSCP 10 as a trimming switch's (rud_trim_dscp), so a frame can reach
 * the trimmed-packet path too. Sanitizers catch
 * memory errors; the target aborts if an engine is re-entered or writes
 * outside the memory it was given (checked by the env's bounds).
 *
 *   make -C qemu-model/tests/engine fuzz
 *   ./axon-engine-fuzz -max_total_time=60 corpus/
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axon-test-drv.h"

#define MS 1000000LL

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct Hdr {
    uint8_t frame[T_ETH_IP_UDP];
    bool have;
} Hdr;

static bool grab(TWorld *w, unsigned from, unsigned to, unsigned plane,
                 uint8_t *frame, size_t len, void *opaque)
{
    Hdr *h = opaque;

    if (!h->have && from == 0 && len > T_ETH_IP_UDP) {
        memcpy(h->frame, frame, T_ETH_IP_UDP);
        h->have = true;
    }
    return true;
}

static void post_write(DNode *a, DQp *q, DNode *b, uint32_t id)
{
    struct axon_send_wqe w = {
        .opcode = AXON_WR_RDMA_WRITE,
        .flags = AXON_WQE_SIGNALED,
        .num_sge = 1,
        .wr_id = htole64(id),
        .remote_addr = htole64(b->iova + 0x100000 + (id % 16) * 4096),
        .rkey = htole32(b->key),
    };
    struct axon_sge sg = d_sge(a, 0, 4096);

    d_post_send(a, q, &w, &sg);
}

static void check(bool ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "axon-engine-fuzz: %s\n", what);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    TWorld *w;
    DNode n[2];
    DQp *qp[2][2];
    Hdr h = {};
    uint8_t frame[T_ETH_IP_UDP + 256 + 4];
    size_t i = 0;
    uint32_t posted = 0;
    int k;

    world_rud_trim_dscp = 10;
    w = world_new(2, 2, D_MEM_SIZE, 1);
    check(w && d_pair(w, &n[0], &n[1]), "setup");
    for (k = 0; k < 2; k++) {
        DCq *cq = d_cq(&n[k], 1024);

        qp[k][0] = d_qp(&n[k], AXON_QPT_RC, cq, cq);
        qp[k][1] = d_qp(&n[k], AXON_QPT_RUD, cq, cq);
    }
    check(d_connect(&n[0], qp[0][0], &n[1], qp[1][0], 1024, 7) &&
          d_connect(&n[0], qp[0][1], &n[1], qp[1][1], 1024, 7), "connect");
    world_set_tap(w, grab, &h);
    post_write(&n[0], qp[0][0], &n[1], posted++);
    post_write(&n[0], qp[0][1], &n[1], posted++);
    world_run_idle(w, world_now(w) + 100 * MS);
    world_set_tap(w, NULL, NULL);
    check(h.have, "no frame to take headers from");

    while (i < size) {
        uint8_t op = data[i++];
        size_t len = 0;

        if ((op & 3) < 2 && i < size) {
            len = data[i++];
            if (len > size - i) {
                len = size - i;
            }
        }
        switch (op & 3) {
        case 0:
            world_inject(w, 0, op >> 7, data + i, len);
            i += len;
            break;
        case 1: {
            size_t flen = T_ETH_IP_UDP + len + 4;
            uint32_t qpn = n[1].qp[(op >> 2) % n[1].nqp].qpn;

            memcpy(frame, h.frame, T_ETH_IP_UDP);
            memcpy(frame + T_ETH_IP_UDP, data + i, len);
            i += len;
            if (len >= 8 && !(op & 0x40)) {
                frame[T_ETH_IP_UDP + 5] = (uint8_t)(qpn >> 16);
                frame[T_ETH_IP_UDP + 6] = (uint8_t)(qpn >> 8);
                frame[T_ETH_IP_UDP + 7] = (uint8_t)qpn;
            }
            frame[14 + 2] = (uint8_t)((flen - 14) >> 8);
            frame[14 + 3] = (uint8_t)(flen - 14);
            frame[34 + 4] = (uint8_t)((flen - 34) >> 8);
            frame[34 + 5] = (uint8_t)(flen - 34);
            if (len >= 12) {
                t_fix_icrc(frame, flen);
            }
            world_inject(w, 0, op >> 7, frame, flen);
            break;
        }
        case 2:
            world_run_to(w, world_now(w) + (op >> 2) * 10000LL);
            break;
        default:
            post_write(&n[0], qp[0][(op >> 2) & 1], &n[1], posted++);
            break;
        }
    }
    world_run_idle(w, world_now(w) + 2000 * MS);
    check(world_stats(w)->reentries == 0, "an engine re-entered");
    world_free(w);
    return 0;
}
