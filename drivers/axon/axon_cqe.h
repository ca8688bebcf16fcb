/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon: the completion queue ring: its depth, the CQE at an index, a
 * CQE as an ib_wc, purging a QP's CQEs.
 *
 * No device, no locks, no allocation; axon.ko and the KUnit suites
 * (kunit/) compile the same axon_cqe.c.
 */
#ifndef _AXON_CQE_H_
#define _AXON_CQE_H_

#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include <axon/axon_dev.h>

int axon_cq_depth(int cqe, u32 max_cqe, u32 *depth);
int axon_cqe_to_wc(const struct axon_cqe *cqe, struct ib_wc *wc);
struct axon_cqe *axon_cqe_at(void *ring, u32 depth, u32 idx);
u32 axon_cq_purge(void *ring, u32 depth, u32 cons, u32 qpn, u32 *recv);

#endif /* _AXON_CQE_H_ */
