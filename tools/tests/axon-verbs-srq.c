// SPDX-License-Identifier: GPL-2.0
/*
 * axon-verbs-srq: shared receive queues through libibverbs. Bad attributes
 * fail with a precise errno; two RC QPs in loopback, one receiving from an
 * SRQ, move messages whose data and completions are checked; the limit
 * event arrives once and disarms the limit; an SRQ in use cannot be
 * destroyed. Plain libibverbs; two checks are axon's (as mlx5's): a limit
 * must be below max_wr, and no more than max_wr WQEs can be posted (rxe
 * has room for one more).
 *
 * Usage: axon-verbs-srq [-g GID_INDEX] [DEVICE]   (default axon0, GID 0)
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axon-test.h"

#define DEPTH		16
#define MSG		3000
#define MSGS		6
#define LIMIT		4

#define BAD_CHECKS	4
#define QUERY_CHECKS	2
#define RECV_CHECKS	(4 + MSGS * 2 + 1)
#define LIMIT_CHECKS	3
#define BUSY_CHECKS	3

struct env {
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;			/* send area, then one slot per WQE */
	union ibv_gid gid;
	int gid_index;
};

static uint8_t *slot(struct env *e, int i)
{
	return e->buf + MSG + (size_t)i * MSG;
}

static void test_bad_attrs(struct env *e)
{
	struct ibv_srq_init_attr init = { .attr = { .max_wr = DEPTH,
						    .max_sge = 1 } };
	struct ibv_srq_attr a = {};
	struct ibv_srq *srq;
	int err;

	init.attr.max_wr = e->attr.max_srq_wr + 1;
	errno = 0;
	srq = ibv_create_srq(e->pd, &init);
	expect_errno(!srq, errno, EINVAL, "ibv_create_srq max_wr > max_srq_wr");
	init.attr.max_wr = DEPTH;
	init.attr.max_sge = e->attr.max_srq_sge + 1;
	errno = 0;
	srq = ibv_create_srq(e->pd, &init);
	expect_errno(!srq, errno, EINVAL,
		     "ibv_create_srq max_sge > max_srq_sge");
	init.attr.max_sge = 1;
	srq = ibv_create_srq(e->pd, &init);
	if (!srq) {
		tap_ok(false, "ibv_create_srq: %s", strerror(errno));
		tap_ok(false, "modify_srq limit beyond max_wr: no SRQ");
		return;
	}
	a.srq_limit = init.attr.max_wr;
	err = ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT);
	expect_errno(err, err, EINVAL, "ibv_modify_srq srq_limit = max_wr");
	tap_ok(!ibv_destroy_srq(srq), "ibv_destroy_srq of an unused SRQ");
}

static struct ibv_qp *create_qp(struct env *e, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = e->cq, .recv_cq = e->cq, .srq = srq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = DEPTH, .max_send_sge = 1,
			 .max_recv_wr = srq ? 0 : DEPTH,
			 .max_recv_sge = srq ? 0 : 1 },
	};

	return ibv_create_qp(e->pd, &init);
}

static int post_srq(struct env *e, struct ibv_srq *srq, int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)slot(e, i), .length = MSG, .lkey = e->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = 100 + i, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_srq_recv(srq, &wr, &bad);
}

static int send_msg(struct env *e, struct ibv_qp *qp, int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf, .length = MSG, .lkey = e->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = i, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	memset(e->buf, 'a' + i, MSG);
	return ibv_post_send(qp, &wr, &bad);
}

/* The next n completions; false after about 10 s without one. */
static bool poll_n(struct env *e, struct ibv_wc *wc, int n)
{
	int got = 0, tries = 0, r;

	while (got < n && tries++ < 100000) {
		r = ibv_poll_cq(e->cq, n - got, wc + got);
		if (r < 0)
			return false;
		got += r;
		if (!r)
			usleep(100);
	}
	return got == n;
}

/* An async event of type within ms; its SRQ in *srq. */
static bool async_event(struct env *e, enum ibv_event_type type, int ms,
			struct ibv_srq **srq)
{
	struct pollfd p = { .fd = e->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	bool ok;

	if (poll(&p, 1, ms) != 1 || ibv_get_async_event(e->ctx, &ev))
		return false;
	ok = ev.event_type == type;
	if (ok && srq)
		*srq = ev.element.srq;
	ibv_ack_async_event(&ev);
	return ok;
}

static void test_srq(struct env *e)
{
	struct ibv_srq_init_attr init = { .attr = { .max_wr = DEPTH,
						    .max_sge = 1 } };
	struct ibv_qp *sender = NULL, *receiver = NULL;
	struct ibv_recv_wr rwr = {}, *bad;
	struct ibv_srq_attr a = {};
	struct ibv_wc wc[2];
	struct ibv_srq *srq, *ev_srq = NULL;
	int i, posted = 0, err;
	bool ok, got = false;

	srq = ibv_create_srq(e->pd, &init);
	tap_ok(srq && init.attr.max_wr >= DEPTH, "ibv_create_srq %d WQEs: %s",
	       DEPTH, srq ? "created" : strerror(errno));
	if (!srq)
		goto out;
	tap_ok(!ibv_query_srq(srq, &a) && a.max_wr >= DEPTH && !a.srq_limit,
	       "ibv_query_srq: max_wr %u, srq_limit %u", a.max_wr, a.srq_limit);

	sender = create_qp(e, NULL);
	receiver = create_qp(e, srq);
	tap_ok(sender && receiver &&
	       !qp_connect(sender, receiver->qp_num, &e->gid, e->gid_index) &&
	       !qp_connect(receiver, sender->qp_num, &e->gid, e->gid_index),
	       "a QP on the SRQ, connected to one with its own RQ");
	if (!sender || !receiver)
		goto out;
	err = ibv_post_recv(receiver, &rwr, &bad);
	tap_ok(err == EINVAL, "ibv_post_recv on a QP with an SRQ: %s",
	       strerror(err));
	while (posted < (int)init.attr.max_wr && !post_srq(e, srq, posted))
		posted++;
	err = post_srq(e, srq, posted);
	tap_ok(posted == (int)init.attr.max_wr && err == ENOMEM,
	       "ibv_post_srq_recv: %d WQEs, then %s", posted, strerror(err));
	posted += !err;
	tap_ok(!async_event(e, IBV_EVENT_SRQ_LIMIT_REACHED, 500, NULL),
	       "no limit event before the limit is armed");

	for (i = 0; i < MSGS; i++) {
		ok = !send_msg(e, sender, i) && poll_n(e, wc, 2);
		/* the send's and the receive's, in either order */
		if (ok && wc[0].opcode != IBV_WC_RECV)
			wc[0] = wc[1];
		tap_ok(ok && wc[0].status == IBV_WC_SUCCESS &&
		       wc[0].opcode == IBV_WC_RECV && wc[0].wr_id == 100u + i &&
		       wc[0].byte_len == MSG && wc[0].qp_num == receiver->qp_num,
		       "message %d: the SRQ's WQE %d, on the receiving QP", i, i);
		memset(e->buf, 'a' + i, MSG);
		tap_ok(!memcmp(slot(e, i), e->buf, MSG), "message %d: data", i);
	}
	/* the slots of completed WQEs are free again */
	tap_ok(!post_srq(e, srq, 0), "ibv_post_srq_recv after completions");
	posted = posted - MSGS + 1;

	/* armed at LIMIT: fires when a WQE taken leaves fewer, not before */
	a.srq_limit = LIMIT;
	tap_ok(!ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT),
	       "ibv_modify_srq srq_limit %d", LIMIT);
	for (i = 0; posted > 0 && !got; i++) {
		if (send_msg(e, sender, i) || !poll_n(e, wc, 2))
			break;
		posted--;
		got = async_event(e, IBV_EVENT_SRQ_LIMIT_REACHED,
				  posted < LIMIT ? 5000 : 0, &ev_srq);
	}
	tap_ok(got && ev_srq == srq && posted == LIMIT - 1,
	       "IBV_EVENT_SRQ_LIMIT_REACHED for the SRQ at %d WQEs left (want %d)",
	       posted, LIMIT - 1);
	tap_ok(!ibv_query_srq(srq, &a) && !a.srq_limit,
	       "the limit is disarmed: srq_limit %u", a.srq_limit);
out:
	/* the kernel holds an SRQ while a QP uses it */
	err = srq ? ibv_destroy_srq(srq) : 0;
	tap_ok(err == EBUSY, "ibv_destroy_srq while a QP uses it: %s",
	       strerror(err));
	tap_ok(receiver && !ibv_destroy_qp(receiver) && sender &&
	       !ibv_destroy_qp(sender), "ibv_destroy_qp both");
	tap_ok(srq && !ibv_destroy_srq(srq), "ibv_destroy_srq then");
}

int main(int argc, char **argv)
{
	const char *name = "axon0";
	struct env e = { .gid_index = 0 };

	if (!dev_args(argc, argv, &e.gid_index, &name))
		return 2;

	tap_plan(BAD_CHECKS + QUERY_CHECKS + RECV_CHECKS + LIMIT_CHECKS +
		 BUSY_CHECKS);
	e.ctx = open_device(name);
	if (!e.ctx)
		tap_bail("no device %s", name);
	e.buf = calloc(DEPTH + 2, MSG);
	if (ibv_query_device(e.ctx, &e.attr) ||
	    ibv_query_gid(e.ctx, 1, e.gid_index, &e.gid) ||
	    !(e.pd = ibv_alloc_pd(e.ctx)) ||
	    !(e.cq = ibv_create_cq(e.ctx, 4 * DEPTH, NULL, NULL, 0)) || !e.buf ||
	    !(e.mr = ibv_reg_mr(e.pd, e.buf, (DEPTH + 2) * MSG,
				IBV_ACCESS_LOCAL_WRITE)))
		tap_bail("device set-up: %s", strerror(errno));
	tap_diag("%s: max_srq %d, max_srq_wr %d, max_srq_sge %d", name,
		 e.attr.max_srq, e.attr.max_srq_wr, e.attr.max_srq_sge);

	test_bad_attrs(&e);
	test_srq(&e);

	ibv_dereg_mr(e.mr);
	ibv_destroy_cq(e.cq);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	free(e.buf);
	return tap_done();
}
