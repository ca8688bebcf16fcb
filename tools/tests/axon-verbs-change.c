// SPDX-License-Identifier: GPL-2.0
/*
 * axon-verbs-change: objects changed in place, through libibverbs.
 * ibv_resize_cq() with receive completions waiting: too small a size is
 * EINVAL and changes nothing; growing and shrinking keep the completions
 * in order and the arming; many more than the old size pass afterwards;
 * rings of hundreds of thousands of entries work.
 * ibv_rereg_mr() of access, PD and translation: the keys stay, a peer's
 * WRITE through the rkey succeeds or fails with REM_ACCESS_ERR as the
 * new registration says, and lands in the new memory.
 *
 * Usage: axon-verbs-change [-g GID_INDEX] [DEVICE]   (default axon0, GID 0)
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axon-test.h"

#define DEPTH		16
#define MSG		1024
#define PAGE		4096

#define RESIZE_CHECKS	11
#define BIG_CQE		(128 * 1024 + 1)	/* libfabric's ofi_rxm asks 128 Ki */
#define REREG_CHECKS	11

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *channel;
	struct ibv_cq *scq;		/* both QPs' sends, qp[0]'s receives */
	struct ibv_cq *rcq;		/* qp[1]'s receives: the one resized */
	struct ibv_qp *qp[2];
	struct ibv_mr *mr;		/* buf, local access */
	uint8_t *buf;			/* send area, then one slot per WQE */
	union ibv_gid gid;
	int gid_index;
	int max_cqe;
	int sent, received;		/* messages qp[0] -> qp[1] */
};

static uint8_t *slot(struct env *e, int i)
{
	return e->buf + MSG + (size_t)(i % DEPTH) * MSG;
}

static int post_recv(struct env *e, int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)slot(e, i), .length = MSG,
		.lkey = e->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 },
			   *bad;

	return ibv_post_recv(e->qp[1], &wr, &bad);
}

/*
 * n messages from qp[0], each to a receive posted for it; true once the
 * sender has all n completions, i.e. qp[1]'s receive completions are
 * written (the responder completes a message before it acknowledges it).
 */
static bool send_msgs(struct env *e, int n)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf, .length = MSG, .lkey = e->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc;
	int i;

	for (i = 0; i < n; i++, e->sent++) {
		if (post_recv(e, e->sent))
			return false;
		pattern_fill(e->buf, MSG, e->sent);
		wr.wr_id = e->sent;
		if (ibv_post_send(e->qp[0], &wr, &bad) ||
		    !poll_one(e->scq, &wc, 10000) || wc.status != IBV_WC_SUCCESS)
			return false;
	}
	return true;
}

/* The next n receive completions on rcq: in order, the data right. */
static bool recv_msgs(struct env *e, int n)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < n; i++, e->received++)
		if (!poll_one(e->rcq, &wc, 10000) || wc.status != IBV_WC_SUCCESS ||
		    wc.opcode != IBV_WC_RECV ||
		    wc.wr_id != (uint64_t)e->received || wc.byte_len != MSG ||
		    !pattern_ok(slot(e, e->received), MSG, e->received))
			return false;
	return true;
}

static bool comp_event(struct env *e, int ms)
{
	struct pollfd p = { .fd = e->channel->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *cq_ctx;

	if (poll(&p, 1, ms) != 1 || ibv_get_cq_event(e->channel, &cq, &cq_ctx))
		return false;
	ibv_ack_cq_events(cq, 1);
	return cq == e->rcq;
}

static void test_resize(struct env *e)
{
	bool ok;
	int err;

	tap_ok(send_msgs(e, 3), "3 messages wait on a CQ of %d", e->rcq->cqe);
	err = ibv_resize_cq(e->rcq, 2);
	expect_errno(err, err, EINVAL, "ibv_resize_cq to 2 with 3 waiting");
	err = ibv_resize_cq(e->rcq, 0);
	expect_errno(err, err, EINVAL, "ibv_resize_cq to 0");
	err = ibv_resize_cq(e->rcq, e->max_cqe + 1);
	expect_errno(err, err, EINVAL, "ibv_resize_cq beyond max_cqe");
	err = ibv_resize_cq(e->rcq, 64);
	tap_ok(!err && e->rcq->cqe >= 64, "ibv_resize_cq to 64: %s, cqe %d",
	       strerror(err), e->rcq->cqe);
	tap_ok(recv_msgs(e, 3), "the 3 waiting completions, in order, data");
	tap_ok(send_msgs(e, 12) && recv_msgs(e, 12) && send_msgs(e, 12) &&
	       recv_msgs(e, 12) && send_msgs(e, 12) && recv_msgs(e, 12),
	       "36 more messages through it, in order, data");

	ok = send_msgs(e, 2) && !ibv_resize_cq(e->rcq, 4);
	tap_ok(ok && e->rcq->cqe >= 4 && recv_msgs(e, 2),
	       "shrunk to %d with 2 waiting: they come, in order", e->rcq->cqe);
	/* the arming survives a resize */
	ok = !ibv_req_notify_cq(e->rcq, 0) && !ibv_resize_cq(e->rcq, 16);
	tap_ok(ok && send_msgs(e, 1) && comp_event(e, 5000),
	       "armed, resized to %d: the next completion raises the event",
	       e->rcq->cqe);
	tap_ok(recv_msgs(e, 1) && send_msgs(e, 14) && recv_msgs(e, 14),
	       "15 messages through the resized CQ");
	/* rings of megabytes: in pages, no large allocation */
	ok = !ibv_resize_cq(e->rcq, BIG_CQE) && e->rcq->cqe >= BIG_CQE &&
	     send_msgs(e, 3) && recv_msgs(e, 3) &&
	     !ibv_resize_cq(e->rcq, 4 * BIG_CQE) && send_msgs(e, 3) &&
	     recv_msgs(e, 3);
	tap_ok(ok, "resized to %d, then %d entries: messages pass", BIG_CQE,
	       e->rcq->cqe);
}

/* qp[0]'s WRITE of 8 bytes at remote_addr with rkey; its status. */
static enum ibv_wc_status write_to(struct env *e, uint64_t remote_addr,
				   uint32_t rkey, uint64_t value)
{
	struct ibv_sge sge = { .addr = (uintptr_t)&value, .length = 8 };
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
		.wr.rdma = { .remote_addr = remote_addr, .rkey = rkey },
	}, *bad;
	struct ibv_wc wc;

	if (ibv_post_send(e->qp[0], &wr, &bad) || !poll_one(e->scq, &wc, 10000))
		return IBV_WC_GENERAL_ERR;
	return wc.status;
}

/* Both QPs through RESET and connected again, after an error. */
static bool reconnect(struct env *e)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };
	struct ibv_wc wc[DEPTH];
	int i;

	for (i = 0; i < 2; i++)
		if (ibv_modify_qp(e->qp[i], &a, IBV_QP_STATE))
			return false;
	/* what the error flushed */
	while (ibv_poll_cq(e->scq, DEPTH, wc) > 0)
		;
	for (i = 0; i < 2; i++)
		if (qp_connect(e->qp[i], e->qp[!i]->qp_num, &e->gid,
			       e->gid_index))
			return false;
	return true;
}

static void test_rereg(struct env *e)
{
	uint8_t *area = aligned_alloc(PAGE, 2 * PAGE);
	uint8_t *moved = aligned_alloc(PAGE, PAGE);
	int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	uint64_t *at_area = (uint64_t *)area, *at_moved = (uint64_t *)moved;
	struct ibv_pd *pd2 = ibv_alloc_pd(e->ctx);
	struct ibv_mr *mr;
	uint32_t lkey, rkey;
	int err;

	mr = area && moved ? ibv_reg_mr(e->pd, area, 2 * PAGE, rw) : NULL;
	tap_ok(mr && pd2 && write_to(e, (uintptr_t)area, mr->rkey, 1) ==
	       IBV_WC_SUCCESS && *at_area == 1,
	       "a WRITE through a remote-write MR");
	if (!mr || !pd2)
		goto out;
	lkey = mr->lkey;
	rkey = mr->rkey;

	err = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_LOCAL_WRITE);
	tap_ok(!err && mr->lkey == lkey && mr->rkey == rkey,
	       "rereg to local access only: %d, the keys stay", err);
	tap_ok(write_to(e, (uintptr_t)area, rkey, 2) == IBV_WC_REM_ACCESS_ERR &&
	       *at_area == 1, "a WRITE through it now: REM_ACCESS_ERR");
	tap_ok(reconnect(e) &&
	       !ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, rw) &&
	       write_to(e, (uintptr_t)area, rkey, 3) == IBV_WC_SUCCESS &&
	       *at_area == 3, "rereg to remote write again: the WRITE lands");
	err = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_REMOTE_WRITE);
	tap_ok(err == IBV_REREG_MR_ERR_CMD && errno == EINVAL,
	       "rereg to remote write without local write: EINVAL (%s)",
	       strerror(errno));

	err = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, pd2, NULL, 0, 0);
	tap_ok(!err && mr->pd == pd2 && mr->rkey == rkey,
	       "rereg to another PD: %d, the keys stay", err);
	tap_ok(write_to(e, (uintptr_t)area, rkey, 4) == IBV_WC_REM_ACCESS_ERR &&
	       *at_area == 3, "a WRITE from a QP of the old PD: REM_ACCESS_ERR");
	tap_ok(reconnect(e) &&
	       !ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_PD, e->pd, NULL, 0, 0) &&
	       write_to(e, (uintptr_t)area, rkey, 5) == IBV_WC_SUCCESS &&
	       *at_area == 5, "rereg back to the QP's PD: the WRITE lands");

	err = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_TRANSLATION, NULL, moved,
			   PAGE, 0);
	tap_ok(!err && mr->addr == moved && mr->length == PAGE &&
	       mr->rkey == rkey &&
	       write_to(e, (uintptr_t)moved + 8, rkey, 6) == IBV_WC_SUCCESS &&
	       at_moved[1] == 6 && *at_area == 5,
	       "rereg to other memory: %d, the WRITE lands there", err);
	tap_ok(write_to(e, (uintptr_t)area + PAGE, rkey, 7) ==
	       IBV_WC_REM_ACCESS_ERR && reconnect(e),
	       "a WRITE to the old range: REM_ACCESS_ERR");
out:
	tap_ok(mr && !ibv_dereg_mr(mr) && pd2 && !ibv_dealloc_pd(pd2),
	       "ibv_dereg_mr, then the other PD is free");
	free(area);
	free(moved);
}

static struct ibv_qp *create_qp(struct env *e, struct ibv_cq *rcq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = e->scq, .recv_cq = rcq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = DEPTH, .max_send_sge = 1,
			 .max_recv_wr = DEPTH, .max_recv_sge = 1,
			 .max_inline_data = 8 },
	};

	return ibv_create_qp(e->pd, &init);
}

int main(int argc, char **argv)
{
	const char *name = "axon0";
	struct env e = { .gid_index = 0 };
	struct ibv_device_attr attr;

	if (!dev_args(argc, argv, &e.gid_index, &name))
		return 2;

	tap_plan(RESIZE_CHECKS + REREG_CHECKS);
	e.ctx = open_device(name);
	if (!e.ctx)
		tap_bail("no device %s", name);
	e.buf = calloc(DEPTH + 1, MSG);
	if (ibv_query_device(e.ctx, &attr) ||
	    ibv_query_gid(e.ctx, 1, e.gid_index, &e.gid) ||
	    !(e.pd = ibv_alloc_pd(e.ctx)) ||
	    !(e.channel = ibv_create_comp_channel(e.ctx)) ||
	    !(e.scq = ibv_create_cq(e.ctx, 4 * DEPTH, NULL, NULL, 0)) ||
	    !(e.rcq = ibv_create_cq(e.ctx, 4, NULL, e.channel, 0)) || !e.buf ||
	    !(e.mr = ibv_reg_mr(e.pd, e.buf, (DEPTH + 1) * MSG,
				IBV_ACCESS_LOCAL_WRITE)) ||
	    !(e.qp[0] = create_qp(&e, e.scq)) ||
	    !(e.qp[1] = create_qp(&e, e.rcq)) ||
	    qp_connect(e.qp[0], e.qp[1]->qp_num, &e.gid, e.gid_index) ||
	    qp_connect(e.qp[1], e.qp[0]->qp_num, &e.gid, e.gid_index))
		tap_bail("device set-up: %s", strerror(errno));
	e.max_cqe = attr.max_cqe;

	test_resize(&e);
	test_rereg(&e);

	ibv_destroy_qp(e.qp[1]);
	ibv_destroy_qp(e.qp[0]);
	ibv_dereg_mr(e.mr);
	ibv_destroy_cq(e.rcq);
	ibv_destroy_cq(e.scq);
	ibv_destroy_comp_channel(e.channel);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	free(e.buf);
	return tap_done();
}
