/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the test programs in tools/tests share: their results are TAP
 * (tap.h: tap_plan, tap_ok, tap_done), an errno check, opening a device,
 * the start of kernel fault injection.
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
 * The command line of the verbs tests, [-g GID_INDEX] [DEVICE], into
 * *gid_index and *name (left as they are when not given); false, with
 * the usage printed, for anything else.
 */
bool dev_args(int argc, char **argv, int *gid_index, const char **name);

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

/* One completion of cq within ms milliseconds; false if none came. */
bool poll_one(struct ibv_cq *cq, struct ibv_wc *wc, int ms);

/* Message tag's payload: len bytes of a pattern; whether p holds it. */
void pattern_fill(uint8_t *p, uint32_t len, int tag);
bool pattern_ok(const uint8_t *p, uint32_t len, int tag);

/* Device dev's hw counter name, -1 if it has none of that name. */
long long hw_counter(const char *dev, const char *name);

/*
 * With AXON_FAULT_INJECT=1 in the environment: from here on the kernel's
 * fault injection (failslab, fail_page_alloc, fail_usercopy with
 * task-filter set, tools/tests/vm/fault-inject.sh) may fail this process's
 * allocations, i.e. /proc/self/make-it-fail is 1. Called once the program
 * has started and found its device, so that the failures land in the
 * driver's calls rather than in the dynamic loader; the pages mapped so
 * far are locked in memory first (mlockall), so that no later fault on
 * them has to read a file. Exits with status 2 if either fails: the run
 * would test nothing, or the wrong thing. Without the variable it does
 * nothing. Injection ends with fault_injection_end(), at the latest at
 * exit(): the files the process closes as it exits are on 9p, whose
 * client does not survive failed allocations.
 */
void fault_injection_begin(void);
void fault_injection_end(void);

#endif /* AXON_TEST_H */
