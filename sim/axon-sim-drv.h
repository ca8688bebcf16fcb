/*
 * axon simulator: a simulated host's driver, what the provider does
 *
 * The admin commands a host's kernel driver would send (GID, PD, the data
 * MR, a CQ, QPs and their MODIFY_QP to RTS), then posting and polling the
 * way libaxon does it: WQEs encoded from struct ibv_send_wr by the
 * provider's own ring code (provider/wq.h), doorbells rung through the
 * engine, CQEs read by their phase bit and turned into struct ibv_wc.
 *
 * The host's memory, as the engine reaches it by bus address:
 *   [mem_bus, mem_bus + mem_size)    real memory the driver lays out: the
 *                                    attribute scratch, the page list, the
 *                                    CQ ring and every QP's two rings
 *   [data_bus, data_bus + data_len)  the data MR's pages, 1 GiB each; what
 *                                    backs them is the host's business
 *                                    (the simulator synthesises and checks
 *                                    them: sim/axon-sim-mem.h)
 *
 * Written in C because the provider's ring code is C.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AXON_SIM_DRV_H
#define AXON_SIM_DRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* the engine's headers are C: a C++ file includes them through here */
#ifdef __cplusplus
extern "C" {
#endif

#include "axon-engine.h"

typedef struct SimDrv SimDrv;
typedef struct SimQp SimQp;

#define SIM_DATA_PAGE_SHIFT 30

typedef struct SimDrvConf {
    AxonEngine *eng;
    uint8_t *mem;               /* real memory, at bus address mem_bus */
    uint64_t mem_bus, mem_size;
    uint64_t data_bus, data_len;        /* 1 GiB aligned, whole pages */
    uint8_t gid[16];            /* the port's GID 0 (RoCE v2) */
    unsigned max_qp;
    uint32_t wq_depth;          /* each QP's SQ and RQ: a power of 2 */
} SimDrvConf;

/* The real memory a driver with these limits needs. */
uint64_t sim_drv_mem_size(unsigned max_qp, uint32_t wq_depth);

/* 0, or a negative errno (*drv NULL): the admin command that failed. */
int sim_drv_new(const SimDrvConf *conf, SimDrv **drv);
void sim_drv_free(SimDrv *d);

/* The data MR's key (lkey and rkey) and the iova of its first byte. */
uint32_t sim_drv_key(const SimDrv *d);
uint64_t sim_drv_iova(const SimDrv *d);

/*
 * A QP of type AXON_QPT_RC or AXON_QPT_RUD moved to INIT with remote
 * write; *key its RUD receive key (for the peer's MODIFY_QP). NULL: out
 * of QPs, or the engine refused (errno in *err).
 */
SimQp *sim_drv_qp(SimDrv *d, uint8_t type, uint64_t *key, int *err);
uint32_t sim_qp_num(const SimQp *qp);

typedef struct SimPeer {
    uint8_t mac[6];
    uint8_t gid[16];
    uint32_t qpn;
    uint64_t key;               /* RUD: the peer QP's receive key */
} SimPeer;

/*
 * INIT -> RTR -> RTS towards peer, RC's ACK timeout 4.096 us << timeout;
 * 0 or -EINVAL.
 */
int sim_drv_connect(SimDrv *d, SimQp *qp, const SimPeer *peer,
                    uint32_t mtu, uint8_t timeout, uint32_t sq_psn,
                    uint32_t rq_psn);

/*
 * An RDMA WRITE with immediate of len bytes from the data MR at local_off
 * to the peer's data MR at iova remote, rkey; signalled. 0, -ENOSPC when
 * the SQ is full, -EINVAL when the provider's encoder refuses it.
 */
int sim_drv_write_imm(SimDrv *d, SimQp *qp, uint64_t wr_id,
                      uint64_t local_off, uint32_t len, uint64_t remote,
                      uint32_t rkey, uint32_t imm);
/* A receive with no buffer, for a WRITE with immediate; 0 or -ENOSPC. */
int sim_drv_post_recv(SimDrv *d, SimQp *qp, uint64_t wr_id);
/* Free slots in the QP's send queue. */
uint32_t sim_qp_sq_room(const SimQp *qp);

/*
 * Up to max completions, retired from their queues and handed back to
 * the device; then the CQ armed for its next CQE. The count.
 */
unsigned sim_drv_poll(SimDrv *d, struct ibv_wc *wc, unsigned max);
void sim_drv_arm(SimDrv *d);

#ifdef __cplusplus
}
#endif

#endif /* AXON_SIM_DRV_H */
