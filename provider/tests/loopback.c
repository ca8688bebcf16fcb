// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * On a device: two RC QPs of one context connected to each other
 * (loopback), driven through what perftest and ibv_rc_pingpong leave
 * out: the extended CQ (ibv_start_poll() and the ibv_wc_read_*()),
 * ibv_post_send() and ibv_wr_*() on the same QP, more messages than SQ
 * slots, sends refused in RTR, create_flags 0 accepted, the flush of both
 * queues in ERR, and reuse of the same QPs after RESET, whose queues
 * restart at slot 0 on both sides.
 *
 * Usage: loopback [DEVICE]   (default: the first device)
 * Prints TAP (tools/lib/tap.h): the plan, one result per check; exits
 * non-zero if a check failed or did not run.
 * Not run by tests/run (it needs a device): see Documentation/provider.rst.
 */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "tap.h"

#define DEPTH		8
#define MSGS		(3 * DEPTH)	/* every SQ and RQ slot used 3 times */
#define MSG_SIZE	64
#define RX_OFF		4096
#define TIMEOUT_S	30
#define ROUNDS		2	/* the second on the QPs reset by the first */

/* One TAP result (tools/lib/tap.h), why it failed as a diagnostic. */
static void result(const char *name, bool ok, const char *why)
{
	if (!tap_ok(ok, "%s", name))
		tap_diag("%s", why);
}

static void fatal(const char *what)
{
	tap_bail("%s: %s", what, strerror(errno));
	exit(1);
}

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	char *buf;
	struct ibv_cq *scq;		/* A's, polled with ibv_poll_cq() */
	struct ibv_cq_ex *rcq;		/* B's, polled with ibv_start_poll() */
	struct ibv_qp *a, *b;
	struct ibv_qp_ex *ax;
	union ibv_gid gid;
	int gid_index;
};

/* The first IPv4-mapped RoCE v2 GID of port 1. */
static void find_gid(struct env *e)
{
	struct ibv_port_attr port;
	struct ibv_gid_entry g;
	int i;

	if (ibv_query_port(e->ctx, 1, &port))
		fatal("query_port");
	for (i = 0; i < port.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(e->ctx, 1, i, &g, 0) ||
		    g.gid_type != IBV_GID_TYPE_ROCE_V2 ||
		    g.gid.raw[10] != 0xff || g.gid.raw[11] != 0xff)
			continue;
		e->gid = g.gid;
		e->gid_index = i;
		return;
	}
	errno = ENOENT;
	fatal("RoCE v2 IPv4 GID");
}

static void set_state(struct ibv_qp *qp, enum ibv_qp_state state)
{
	struct ibv_qp_attr a = { .qp_state = state };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		fatal("modify_qp state");
}

static void connect_qp(struct env *e, struct ibv_qp *qp, uint32_t dest)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND }, *bad;
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
	};
	char name[64];

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		fatal("modify_qp INIT");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = e->gid;
	a.ah_attr.grh.sgid_index = e->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		fatal("modify_qp RTR");
	snprintf(name, sizeof(name), "rtr-send-einval-qp%u", qp->qp_num);
	result(name, ibv_post_send(qp, &wr, &bad) == EINVAL && bad == &wr,
	       "a send posted before RTS");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		fatal("modify_qp RTS");
}

static void setup(struct env *e, const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_cq_init_attr_ex cq_attr = {
		.cqe = 2 * DEPTH,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_qp_init_attr_ex qp_attr = {
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM,
	};
	struct ibv_device *dev = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!name || !strcmp(ibv_get_device_name(list[i]), name))
			dev = dev ? dev : list[i];
	if (!dev) {
		errno = ENODEV;
		fatal("device");
	}
	e->ctx = ibv_open_device(dev);
	if (!e->ctx)
		fatal("open_device");
	ibv_free_device_list(list);
	find_gid(e);

	e->pd = ibv_alloc_pd(e->ctx);
	e->buf = calloc(1, 2 * RX_OFF);
	if (!e->pd || !e->buf)
		fatal("alloc_pd");
	e->mr = ibv_reg_mr(e->pd, e->buf, 2 * RX_OFF, IBV_ACCESS_LOCAL_WRITE);
	e->scq = ibv_create_cq(e->ctx, 2 * DEPTH, NULL, NULL, 0);
	e->rcq = ibv_create_cq_ex(e->ctx, &cq_attr);
	if (!e->mr || !e->scq || !e->rcq)
		fatal("reg_mr/create_cq");

	qp_attr.pd = e->pd;
	qp_attr.send_cq = qp_attr.recv_cq = e->scq;
	e->a = ibv_create_qp_ex(e->ctx, &qp_attr);
	qp_attr.send_cq = qp_attr.recv_cq = ibv_cq_ex_to_cq(e->rcq);
	/* No create flags is no request: accepted. */
	qp_attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
	e->b = ibv_create_qp_ex(e->ctx, &qp_attr);
	if (!e->a || !e->b)
		fatal("create_qp_ex");
	e->ax = ibv_qp_to_qp_ex(e->a);
	result("qp-ex", e->ax && !ibv_qp_to_qp_ex(e->b),
	       "ibv_qp_to_qp_ex() only for the QP with send_ops_flags");
}

static bool timed_out(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - start->tv_sec > TIMEOUT_S;
}

/* One completion from A's CQ. */
static bool poll_send(struct env *e, struct ibv_wc *wc)
{
	struct timespec start;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while (!(n = ibv_poll_cq(e->scq, 1, wc)) && !timed_out(&start))
		;
	return n == 1;
}

/* One completion from B's extended CQ, read through ibv_wc_read_*(). */
static bool poll_recv(struct env *e, struct ibv_wc *wc)
{
	struct ibv_poll_cq_attr attr = {};
	struct timespec start;
	int err;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while ((err = ibv_start_poll(e->rcq, &attr)) == ENOENT &&
	       !timed_out(&start))
		;
	if (err)
		return false;
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = e->rcq->wr_id;
	wc->status = e->rcq->status;
	wc->opcode = ibv_wc_read_opcode(e->rcq);
	wc->byte_len = ibv_wc_read_byte_len(e->rcq);
	wc->wc_flags = ibv_wc_read_wc_flags(e->rcq);
	wc->imm_data = ibv_wc_read_imm_data(e->rcq);
	wc->qp_num = ibv_wc_read_qp_num(e->rcq);
	wc->src_qp = ibv_wc_read_src_qp(e->rcq);
	ibv_end_poll(e->rcq);
	return true;
}

static void post_recv(struct env *e, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf + RX_OFF,
		.length = MSG_SIZE,
		.lkey = e->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	if (ibv_post_recv(e->b, &wr, &bad))
		fatal("post_recv");
}

/* Send i with immediate i, through ibv_wr_*() or ibv_post_send(). */
static int send_msg(struct env *e, int i, bool wr_api)
{
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf, .length = MSG_SIZE,
			       .lkey = e->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = i, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED, .imm_data = htobe32(i),
	}, *bad;

	if (!wr_api)
		return ibv_post_send(e->a, &wr, &bad);
	ibv_wr_start(e->ax);
	e->ax->wr_id = i;
	e->ax->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(e->ax, htobe32(i));
	ibv_wr_set_sge(e->ax, e->mr->lkey, (uintptr_t)e->buf, MSG_SIZE);
	return ibv_wr_complete(e->ax);
}

static void traffic(struct env *e, int round, bool wr_api)
{
	char name[64], why[128] = "";
	struct ibv_wc wc;
	int i;

	for (i = 0; i < MSGS && !why[0]; i++) {
		snprintf(e->buf, MSG_SIZE, "round %d message %d", round, i);
		post_recv(e, 1000 + i);
		if (send_msg(e, i, wr_api))
			snprintf(why, sizeof(why), "message %d not posted", i);
		else if (!poll_send(e, &wc) || wc.status != IBV_WC_SUCCESS ||
			 wc.wr_id != (uint64_t)i || wc.opcode != IBV_WC_SEND)
			snprintf(why, sizeof(why), "message %d: send status %d",
				 i, wc.status);
		else if (!poll_recv(e, &wc) || wc.status != IBV_WC_SUCCESS ||
			 wc.wr_id != 1000u + i || wc.opcode != IBV_WC_RECV ||
			 wc.byte_len != MSG_SIZE ||
			 !(wc.wc_flags & IBV_WC_WITH_IMM) ||
			 be32toh(wc.imm_data) != (uint32_t)i ||
			 wc.qp_num != e->b->qp_num ||
			 wc.src_qp != e->a->qp_num ||
			 strcmp(e->buf + RX_OFF, e->buf))
			snprintf(why, sizeof(why),
				 "message %d: receive status %d, wr_id %llu",
				 i, wc.status, (unsigned long long)wc.wr_id);
	}
	snprintf(name, sizeof(name), "round-%d-%s-%d-messages", round,
		 wr_api ? "wr-api" : "post-send", MSGS);
	result(name, !why[0], why);
}

/* ERR flushes what both queues hold; RESET then empties them. */
static void flush_and_reset(struct env *e, int round)
{
	struct ibv_send_wr wr = { .wr_id = 77, .opcode = IBV_WR_SEND }, *bad;
	struct ibv_wc wc[3];
	char name[64];
	bool ok;
	int i;

	for (i = 0; i < 3; i++)
		post_recv(e, 2000 + i);
	set_state(e->a, IBV_QPS_ERR);
	ok = !ibv_post_send(e->a, &wr, &bad) && poll_send(e, &wc[0]) &&
	     wc[0].status == IBV_WC_WR_FLUSH_ERR && wc[0].wr_id == 77;
	set_state(e->b, IBV_QPS_ERR);
	for (i = 0; i < 3; i++)
		ok = ok && poll_recv(e, &wc[i]) &&
		     wc[i].status == IBV_WC_WR_FLUSH_ERR &&
		     wc[i].wr_id == 2000u + i;
	snprintf(name, sizeof(name), "round-%d-flush", round);
	result(name, ok, "one send and three receives flushed in order");

	set_state(e->a, IBV_QPS_RESET);
	set_state(e->b, IBV_QPS_RESET);
	snprintf(name, sizeof(name), "round-%d-reset-einval", round);
	result(name, ibv_post_send(e->a, &wr, &bad) == EINVAL && bad == &wr,
	       "posted in RESET");
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct env e = {};
	int round;

	/* setup's qp-ex; per round 2 connects, traffic, flush and reset */
	tap_plan(1 + ROUNDS * 5 + 2);
	setup(&e, argc > 1 ? argv[1] : NULL);
	for (round = 0; round < ROUNDS; round++) {
		connect_qp(&e, e.a, e.b->qp_num);
		connect_qp(&e, e.b, e.a->qp_num);
		traffic(&e, round, round == 1);
		flush_and_reset(&e, round);
	}

	result("query-qp",
	       !ibv_query_qp(e.a, &attr, IBV_QP_STATE | IBV_QP_CAP, &init) &&
	       attr.qp_state == IBV_QPS_RESET &&
	       init.cap.max_send_wr >= DEPTH && init.cap.max_send_sge >= 1,
	       "state or capabilities");
	result("teardown",
	       !ibv_destroy_qp(e.a) && !ibv_destroy_qp(e.b) &&
	       !ibv_destroy_cq(e.scq) &&
	       !ibv_destroy_cq(ibv_cq_ex_to_cq(e.rcq)) &&
	       !ibv_dereg_mr(e.mr) && !ibv_dealloc_pd(e.pd) &&
	       !ibv_close_device(e.ctx), strerror(errno));
	free(e.buf);
	return tap_done();
}
