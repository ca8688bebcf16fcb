/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the test programs in tools/tests share: their results are TAP
 * (tap.h: tap_plan, tap_ok, tap_done), an errno check, opening a device.
 */
#ifndef AXON_TEST_H
#define AXON_TEST_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "tap.h"

/* ok if the call failed with errno want; names the errno it saw. */
bool expect_errno(bool failed, int err, int want, const char *what);

/* The RDMA device called name, opened; NULL if there is none (-libverbs). */
struct ibv_context *open_device(const char *name);

/*
 * RC QPs on port 1, connected by RoCE v2 (axon-test-verbs.c): RESET ->
 * INIT with remote write; the RTR attributes toward dest_qpn at gid (an
 * IPv4-mapped GID of sgid index gid_index) under RTR_MASK; RTS ones,
 * retrying forever on RNR, under RTS_MASK; all three steps; the state.
 */
#define RTR_MASK (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | \
		  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | \
		  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)
#define RTS_MASK (IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | \
		  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)
int to_init(struct ibv_qp *qp);
void rtr_attr(uint32_t dest_qpn, const union ibv_gid *gid, int gid_index,
	      struct ibv_qp_attr *a);
void rts_attr(struct ibv_qp_attr *a);
int qp_connect(struct ibv_qp *qp, uint32_t dest_qpn, const union ibv_gid *gid,
	       int gid_index);
enum ibv_qp_state qp_state(struct ibv_qp *qp);

#endif /* AXON_TEST_H */
