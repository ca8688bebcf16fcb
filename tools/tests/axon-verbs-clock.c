// SPDX-License-Identifier: GPL-2.0
/*
 * axon-verbs-clock: the device clock and completion timestamps, through
 * libibverbs. ibv_query_device_ex() gives the clock's width and rate,
 * ibv_query_rt_values_ex() reads it and it moves at that rate; extended
 * CQs with IBV_WC_EX_WITH_COMPLETION_TIMESTAMP and ..._WALLCLOCK stamp
 * every send and receive completion with a time between two clock reads
 * around the transfer, in order, and as a wallclock close to
 * CLOCK_REALTIME; ibv_poll_cq() reads such a CQ too, and the stamps
 * survive ibv_resize_cq().
 *
 * Usage: axon-verbs-clock [-g GID_INDEX] [DEVICE]   (default axon0, GID 0)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "axon-test.h"

#define DEPTH		64
#define MSG		256
#define ROUNDS		40
#define CHECKS		8
#define NS		1000000000LL

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq_ex *cq[2];	/* qp[i]'s sends and receives */
	struct ibv_qp *qp[2];
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
	int gid_index;
	uint64_t last_ts[2];		/* the newest stamp seen per CQ */
	int bad_order, bad_range, bad_wall;
};

static int64_t now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

static bool raw_clock(struct ibv_context *ctx, uint64_t *now)
{
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };

	if (ibv_query_rt_values_ex(ctx, &v) ||
	    !(v.comp_mask & IBV_VALUES_MASK_RAW_CLOCK))
		return false;
	*now = (uint64_t)v.raw_clock.tv_sec * NS + v.raw_clock.tv_nsec;
	return true;
}

static struct ibv_cq_ex *create_cq(struct env *e, int cqe)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = cqe,
		.wc_flags = IBV_WC_STANDARD_FLAGS |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
	};

	return ibv_create_cq_ex(e->ctx, &attr);
}

static struct ibv_qp *create_qp(struct env *e, struct ibv_cq_ex *cq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = ibv_cq_ex_to_cq(cq), .recv_cq = ibv_cq_ex_to_cq(cq),
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = DEPTH, .max_send_sge = 1,
			 .max_recv_wr = DEPTH, .max_recv_sge = 1 },
	};

	return ibv_create_qp(e->pd, &init);
}

/*
 * One completion from cq i within ms: its stamp must not be older than
 * the CQ's last one, must lie in [lo, hi] of the device clock, and its
 * wallclock must be at most now, and not more than 10 s before.
 */
static bool poll_stamped(struct env *e, int i, uint64_t lo, uint64_t hi,
			 enum ibv_wc_opcode want, int ms)
{
	struct ibv_poll_cq_attr attr = {};
	struct ibv_cq_ex *cq = e->cq[i];
	int64_t deadline = now_ns(CLOCK_MONOTONIC) + (int64_t)ms * 1000000;
	int64_t wall, real;
	uint64_t ts;
	bool ok;
	int ret;

	while ((ret = ibv_start_poll(cq, &attr)) == ENOENT)
		if (now_ns(CLOCK_MONOTONIC) > deadline)
			return false;
	if (ret)
		return false;
	ok = cq->status == IBV_WC_SUCCESS && ibv_wc_read_opcode(cq) == want;
	ts = ibv_wc_read_completion_ts(cq);
	wall = (int64_t)ibv_wc_read_completion_wallclock_ns(cq);
	real = now_ns(CLOCK_REALTIME);
	ibv_end_poll(cq);
	e->bad_order += ts < e->last_ts[i];
	e->bad_range += ts < lo || ts > hi;
	e->bad_wall += wall > real + 1000000 || real - wall > 10 * NS;
	e->last_ts[i] = ts;
	return ok;
}

static int post_recv(struct env *e, int qp, int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf + (size_t)(1 + qp) * DEPTH * MSG +
			(size_t)(i % DEPTH) * MSG,
		.length = MSG, .lkey = e->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 },
			   *bad;

	return ibv_post_recv(e->qp[qp], &wr, &bad);
}

/* n messages qp[0] -> qp[1], each to a receive posted for it */
static bool post_sends(struct env *e, int n)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf, .length = MSG, .lkey = e->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int i;

	for (i = 0; i < n; i++) {
		wr.wr_id = i;
		if (post_recv(e, 1, i) || ibv_post_send(e->qp[0], &wr, &bad))
			return false;
	}
	return true;
}

/* n messages qp[0] -> qp[1], every completion stamped; false on error. */
static bool exchange(struct env *e, int n)
{
	uint64_t lo, hi;
	int i;

	for (i = 0; i < n; i++) {
		if (!raw_clock(e->ctx, &lo) || !post_sends(e, 1))
			return false;
		/* the receive completes before the send's ACK comes */
		if (!poll_stamped(e, 0, lo, UINT64_MAX, IBV_WC_SEND, 10000) ||
		    !raw_clock(e->ctx, &hi))
			return false;
		e->bad_range += e->last_ts[0] > hi;
		if (!poll_stamped(e, 1, lo, hi, IBV_WC_RECV, 10000))
			return false;
	}
	return true;
}

static void test_clock(struct env *e)
{
	struct ibv_device_attr_ex attr;
	uint64_t d0, d1;
	int64_t m0, m1;
	double rate;
	int err;

	err = ibv_query_device_ex(e->ctx, NULL, &attr);
	tap_ok(!err && attr.completion_timestamp_mask == UINT64_MAX &&
	       attr.hca_core_clock == NS / 1000,
	       "ibv_query_device_ex: timestamp mask 0x%llx, core clock %llu kHz",
	       (unsigned long long)attr.completion_timestamp_mask,
	       (unsigned long long)attr.hca_core_clock);
	/* the device counts at the rate it says, as the system clock does */
	m0 = now_ns(CLOCK_MONOTONIC);
	err = !raw_clock(e->ctx, &d0);
	usleep(200000);
	err |= !raw_clock(e->ctx, &d1);
	m1 = now_ns(CLOCK_MONOTONIC);
	rate = (double)(d1 - d0) / (double)(m1 - m0);
	tap_ok(!err && rate > 0.5 && rate < 2,
	       "ibv_query_rt_values_ex: %llu ns over %lld ns of CLOCK_MONOTONIC",
	       (unsigned long long)(d1 - d0), (long long)(m1 - m0));
}

static void test_stamps(struct env *e)
{
	struct ibv_values_ex bad = { .comp_mask = 0x80 };
	struct ibv_wc wc;
	uint64_t lo;
	bool ok;
	int i;

	tap_ok(exchange(e, ROUNDS), "%d sends, send and receive completions "
	       "stamped", ROUNDS);
	tap_ok(!e->bad_order && !e->bad_range,
	       "stamps in order (%d not) and between the clock reads around "
	       "each message (%d not)", e->bad_order, e->bad_range);
	tap_ok(!e->bad_wall, "wallclock stamps at most now and within 10 s of "
	       "CLOCK_REALTIME (%d not)", e->bad_wall);

	/* ibv_poll_cq() steps over the 64-byte entries of the same CQs */
	ok = post_sends(e, 2);
	for (i = 0; i < 2; i++) {
		ok &= poll_one(ibv_cq_ex_to_cq(e->cq[0]), &wc, 10000) &&
		      wc.wr_id == (uint64_t)i && wc.status == IBV_WC_SUCCESS &&
		      wc.opcode == IBV_WC_SEND;
		ok &= poll_one(ibv_cq_ex_to_cq(e->cq[1]), &wc, 10000) &&
		      wc.wr_id == (uint64_t)i && wc.opcode == IBV_WC_RECV &&
		      wc.byte_len == MSG;
	}
	tap_ok(ok, "ibv_poll_cq() reads timestamped CQs");

	/* grow the receive CQ with two completions waiting: stamps carry on */
	ok = raw_clock(e->ctx, &lo) && post_sends(e, 2);
	for (i = 0; i < 2; i++)
		ok &= poll_stamped(e, 0, lo, UINT64_MAX, IBV_WC_SEND, 10000);
	ok &= !ibv_resize_cq(ibv_cq_ex_to_cq(e->cq[1]), 4 * DEPTH);
	for (i = 0; i < 2; i++)
		ok &= poll_stamped(e, 1, lo, UINT64_MAX, IBV_WC_RECV, 10000);
	ok &= exchange(e, 3);
	tap_ok(ok && !e->bad_order && !e->bad_range && !e->bad_wall,
	       "ibv_resize_cq() keeps the stamps of the completions waiting");

	tap_ok(ibv_query_rt_values_ex(e->ctx, &bad) == EOPNOTSUPP,
	       "ibv_query_rt_values_ex with an unknown mask: EOPNOTSUPP");
}

int main(int argc, char **argv)
{
	const char *name = "axon0";
	struct env e = { .gid_index = 0 };
	int i;

	if (!dev_args(argc, argv, &e.gid_index, &name))
		return 2;

	tap_plan(CHECKS);
	e.ctx = open_device(name);
	if (!e.ctx)
		tap_bail("no device %s", name);
	e.buf = calloc(3 * DEPTH, MSG);
	if (ibv_query_gid(e.ctx, 1, e.gid_index, &e.gid) ||
	    !(e.pd = ibv_alloc_pd(e.ctx)) || !e.buf ||
	    !(e.mr = ibv_reg_mr(e.pd, e.buf, 3 * DEPTH * MSG,
				IBV_ACCESS_LOCAL_WRITE)))
		tap_bail("device set-up: %s", strerror(errno));
	for (i = 0; i < 2; i++)
		if (!(e.cq[i] = create_cq(&e, 2 * DEPTH)) ||
		    !(e.qp[i] = create_qp(&e, e.cq[i])))
			tap_bail("timestamped CQ and QP %d: %s", i,
				 strerror(errno));
	if (qp_connect(e.qp[0], e.qp[1]->qp_num, &e.gid, e.gid_index) ||
	    qp_connect(e.qp[1], e.qp[0]->qp_num, &e.gid, e.gid_index))
		tap_bail("connect: %s", strerror(errno));

	test_clock(&e);
	test_stamps(&e);

	for (i = 0; i < 2; i++) {
		ibv_destroy_qp(e.qp[i]);
		ibv_destroy_cq(ibv_cq_ex_to_cq(e.cq[i]));
	}
	ibv_dereg_mr(e.mr);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	free(e.buf);
	return tap_done();
}
