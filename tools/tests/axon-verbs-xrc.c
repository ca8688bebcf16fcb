// SPDX-License-Identifier: GPL-2.0
/*
 * axon-verbs-xrc: extended reliable connections through libibverbs, on
 * one device in one process. An XRC domain (fd -1: not shared), an XRC
 * SRQ on a CQ, an XRC_RECV QP of the domain and an XRC_SEND QP, connected
 * to each other by RoCE v2 loopback; the XRC_SEND QP sends a SEND, a
 * SEND_WITH_IMM (ibv_post_send(), remote_srqn), an RDMA WRITE, an RDMA
 * READ and an atomic (ibv_wr_*(), ibv_wr_set_xrc_srqn()), whose bytes
 * are checked, and whose receives complete on the SRQ's CQ naming the
 * XRC_RECV QP. Then bad input: an SRQ number over 24 bits, an XRC SRQ
 * without a domain, a receive posted to an XRC_SEND QP, opening a QP
 * number the domain does not have, closing a domain still in use.
 *
 * Usage: axon-verbs-xrc [-g GID_INDEX] [DEVICE]   (default axon0, GID 0)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axon-test.h"

#define DEPTH		16
#define MSG		2048
#define IMM		0x1234abcd

/* the masks of the XRC QP types' transitions (IBA 11.2 / ib_core) */
#define XRC_INIT_MASK	(IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | \
			 IBV_QP_ACCESS_FLAGS)
#define XRC_SEND_RTR_MASK (IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | \
			   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN)
#define XRC_RECV_RTS_MASK (IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_SQ_PSN)

#define SETUP_CHECKS	5
#define TRAFFIC_CHECKS	10
#define BAD_CHECKS	6
#define TEARDOWN_CHECKS	2

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;		/* the sends' and the SRQ's */
	struct ibv_mr *mr;
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq;
	struct ibv_qp *send_qp;		/* IBV_QPT_XRC_SEND */
	struct ibv_qp *recv_qp;		/* IBV_QPT_XRC_RECV */
	uint32_t srqn;
	uint8_t *buf;	/* src | dst (receives, writes, read source) | atomic */
	union ibv_gid gid;
	int gid_index;
};

static uint8_t *src(struct env *e) { return e->buf; }
static uint8_t *dst(struct env *e) { return e->buf + MSG; }
static uint8_t *rd(struct env *e) { return e->buf + 2 * MSG; }
static uint64_t *atom(struct env *e)
{
	return (uint64_t *)(e->buf + 3 * MSG);
}

static int xrc_init(struct ibv_qp *qp, unsigned int access)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = access,
	};

	return ibv_modify_qp(qp, &a, XRC_INIT_MASK);
}

/* The two QPs in loopback, each toward the other. */
static int xrc_connect(struct env *e)
{
	struct ibv_qp_attr a;

	if (xrc_init(e->recv_qp, IBV_ACCESS_LOCAL_WRITE |
		     IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		     IBV_ACCESS_REMOTE_ATOMIC) ||
	    xrc_init(e->send_qp, 0))
		return -1;
	rtr_attr(e->send_qp->qp_num, &e->gid, e->gid_index, &a);
	if (ibv_modify_qp(e->recv_qp, &a, RTR_MASK))
		return -1;
	rts_attr(&a);
	if (ibv_modify_qp(e->recv_qp, &a, XRC_RECV_RTS_MASK))
		return -1;
	rtr_attr(e->recv_qp->qp_num, &e->gid, e->gid_index, &a);
	if (ibv_modify_qp(e->send_qp, &a, XRC_SEND_RTR_MASK))
		return -1;
	rts_attr(&a);
	return ibv_modify_qp(e->send_qp, &a, RTS_MASK);
}

static void setup(struct env *e)
{
	struct ibv_xrcd_init_attr xa = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = DEPTH, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = e->pd,
		.cq = e->cq,
	};
	struct ibv_qp_init_attr_ex ra = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
	};
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_XRC_SEND,
		.send_cq = e->cq,
		.cap = { .max_send_wr = DEPTH, .max_send_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = e->pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_READ |
				  IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
	};
	int err;

	e->xrcd = ibv_open_xrcd(e->ctx, &xa);
	tap_ok(e->xrcd != NULL, "ibv_open_xrcd fd -1: %s",
	       e->xrcd ? "opened" : strerror(errno));
	if (!e->xrcd)
		tap_bail("no XRC domain");

	sa.xrcd = e->xrcd;
	e->srq = ibv_create_srq_ex(e->ctx, &sa);
	err = e->srq ? ibv_get_srq_num(e->srq, &e->srqn) : errno;
	tap_ok(!err && e->srqn && e->srqn <= 0xffffff,
	       "ibv_create_srq_ex XRC, ibv_get_srq_num %u: %s", e->srqn,
	       strerror(err));

	ra.xrcd = e->xrcd;
	e->recv_qp = ibv_create_qp_ex(e->ctx, &ra);
	tap_ok(e->recv_qp != NULL, "ibv_create_qp_ex XRC_RECV: %s",
	       e->recv_qp ? "created" : strerror(errno));
	e->send_qp = ibv_create_qp_ex(e->ctx, &qa);
	tap_ok(e->send_qp && ibv_qp_to_qp_ex(e->send_qp) &&
	       !qa.cap.max_recv_wr,
	       "ibv_create_qp_ex XRC_SEND with ibv_wr_*(): %s",
	       e->send_qp ? "created" : strerror(errno));
	if (!e->srq || !e->recv_qp || !e->send_qp)
		tap_bail("no XRC SRQ or QPs");
	tap_ok(!xrc_connect(e), "XRC_SEND QP %u and XRC_RECV QP %u connected",
	       e->send_qp->qp_num, e->recv_qp->qp_num);
}

static int post_srq(struct env *e, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)dst(e), .length = MSG, .lkey = e->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_srq_recv(e->srq, &wr, &bad);
}

/* The send's and the receive's completions, in either order. */
static bool two(struct env *e, struct ibv_wc *snd, struct ibv_wc *rcv)
{
	struct ibv_wc wc[2];

	if (!poll_one(e->cq, &wc[0], 5000) || !poll_one(e->cq, &wc[1], 5000))
		return false;
	if (wc[0].opcode & IBV_WC_RECV) {
		*rcv = wc[0];
		*snd = wc[1];
	} else {
		*snd = wc[0];
		*rcv = wc[1];
	}
	return true;
}

/* SEND or SEND_WITH_IMM through ibv_post_send(), to the XRC SRQ. */
static void test_send(struct env *e, bool imm)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)src(e), .length = MSG, .lkey = e->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = imm ? 2 : 1, .sg_list = &sge, .num_sge = 1,
		.opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED, .imm_data = htobe32(IMM),
		.qp_type.xrc.remote_srqn = e->srqn,
	}, *bad;
	struct ibv_wc s = {}, r = {};
	const char *what = imm ? "SEND_WITH_IMM" : "SEND";
	bool ok;

	pattern_fill(src(e), MSG, imm ? 2 : 1);
	memset(dst(e), 0, MSG);
	ok = !post_srq(e, 100 + wr.wr_id) && !ibv_post_send(e->send_qp, &wr, &bad) &&
	     two(e, &s, &r);
	tap_ok(ok && s.status == IBV_WC_SUCCESS && s.wr_id == wr.wr_id &&
	       s.qp_num == e->send_qp->qp_num && r.status == IBV_WC_SUCCESS &&
	       r.opcode == IBV_WC_RECV && r.wr_id == 100 + wr.wr_id &&
	       r.byte_len == MSG && r.qp_num == e->recv_qp->qp_num &&
	       (!imm || ((r.wc_flags & IBV_WC_WITH_IMM) &&
			 r.imm_data == htobe32(IMM))),
	       "%s: the SRQ's WQE completes on its CQ, naming XRC_RECV QP %u (got %u, status %d/%d)",
	       what, e->recv_qp->qp_num, r.qp_num, s.status, r.status);
	tap_ok(pattern_ok(dst(e), MSG, imm ? 2 : 1), "%s: data", what);
}

/* One ibv_wr_*() WQE of op to the XRC SRQ; its completion in *wc. */
static bool wr_one(struct env *e, int op, struct ibv_wc *wc)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(e->send_qp);
	uint64_t addr = (uintptr_t)dst(e);
	uint32_t rkey = e->mr->rkey;

	ibv_wr_start(qpx);
	qpx->wr_id = 10 + op;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	switch (op) {
	case IBV_WR_RDMA_WRITE:
		ibv_wr_rdma_write(qpx, rkey, addr);
		ibv_wr_set_xrc_srqn(qpx, e->srqn);
		ibv_wr_set_sge(qpx, e->mr->lkey, (uintptr_t)src(e), MSG);
		break;
	case IBV_WR_RDMA_READ:
		ibv_wr_rdma_read(qpx, rkey, addr);
		ibv_wr_set_xrc_srqn(qpx, e->srqn);
		ibv_wr_set_sge(qpx, e->mr->lkey, (uintptr_t)rd(e), MSG);
		break;
	default:
		ibv_wr_atomic_fetch_add(qpx, rkey, (uintptr_t)&atom(e)[0], 5);
		ibv_wr_set_xrc_srqn(qpx, e->srqn);
		ibv_wr_set_sge(qpx, e->mr->lkey, (uintptr_t)&atom(e)[1], 8);
		break;
	}
	return !ibv_wr_complete(qpx) && poll_one(e->cq, wc, 5000) &&
	       wc->status == IBV_WC_SUCCESS && wc->wr_id == 10u + op;
}

static void test_rdma(struct env *e)
{
	struct ibv_wc wc = {};
	bool ok;

	pattern_fill(src(e), MSG, 3);
	memset(dst(e), 0, MSG);
	ok = wr_one(e, IBV_WR_RDMA_WRITE, &wc);
	tap_ok(ok && wc.opcode == IBV_WC_RDMA_WRITE,
	       "RDMA WRITE (ibv_wr_set_xrc_srqn): status %d", wc.status);
	tap_ok(ok && pattern_ok(dst(e), MSG, 3), "RDMA WRITE: data");

	memset(rd(e), 0, MSG);
	ok = wr_one(e, IBV_WR_RDMA_READ, &wc);
	tap_ok(ok && wc.opcode == IBV_WC_RDMA_READ && wc.byte_len == MSG,
	       "RDMA READ (ibv_wr_set_xrc_srqn): status %d", wc.status);
	tap_ok(ok && pattern_ok(rd(e), MSG, 3), "RDMA READ: data");

	atom(e)[0] = 37;
	atom(e)[1] = 0;
	ok = wr_one(e, IBV_WR_ATOMIC_FETCH_AND_ADD, &wc);
	tap_ok(ok && wc.opcode == IBV_WC_FETCH_ADD && atom(e)[1] == 37 &&
	       atom(e)[0] == 42,
	       "FETCH_ADD (ibv_wr_set_xrc_srqn): status %d, old %llu, now %llu",
	       wc.status, (unsigned long long)atom(e)[1],
	       (unsigned long long)atom(e)[0]);
	tap_ok(!ibv_poll_cq(e->cq, 1, &wc), "no completion left over");
}

static void test_bad(struct env *e)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)src(e), .length = 8, .lkey = e->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 50, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.qp_type.xrc.remote_srqn = 1u << 24,
	}, *bad = NULL;
	struct ibv_recv_wr rwr = { .wr_id = 51, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *rbad = NULL;
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = DEPTH, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			     IBV_SRQ_INIT_ATTR_CQ,
		.srq_type = IBV_SRQT_XRC,
		.pd = e->pd,
		.cq = e->cq,
	};
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.xrcd = e->xrcd,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	struct ibv_wc wc;
	int err;

	err = ibv_post_send(e->send_qp, &wr, &bad);
	expect_errno(err, err, EINVAL,
		     "ibv_post_send remote_srqn of 25 bits");
	tap_ok(bad == &wr && !poll_one(e->cq, &wc, 100),
	       "the WR is refused and sends nothing");

	errno = 0;
	srq = ibv_create_srq_ex(e->ctx, &sa);
	expect_errno(!srq, errno, EINVAL, "ibv_create_srq_ex XRC without XRCD");
	if (srq)
		ibv_destroy_srq(srq);

	err = ibv_post_recv(e->send_qp, &rwr, &rbad);
	expect_errno(err, err, EINVAL, "ibv_post_recv on an XRC_SEND QP");

	/* the XRC_SEND QP is not the domain's, nor is a made-up number */
	oa.qp_num = e->send_qp->qp_num;
	errno = 0;
	qp = ibv_open_qp(e->ctx, &oa);
	tap_ok(!qp, "ibv_open_qp of QP %u, not in the XRC domain: %s",
	       oa.qp_num, qp ? "opened" : strerror(errno));
	if (qp)
		ibv_destroy_qp(qp);

	err = ibv_close_xrcd(e->xrcd);
	expect_errno(err, err, EBUSY, "ibv_close_xrcd while in use");
}

/* ibv_open_qp() of the XRC_RECV QP, then everything goes. */
static void teardown(struct env *e)
{
	struct ibv_qp_open_attr oa = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |
			     IBV_QP_OPEN_ATTR_TYPE,
		.xrcd = e->xrcd,
		.qp_num = e->recv_qp->qp_num,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_qp *opened;

	opened = ibv_open_qp(e->ctx, &oa);
	tap_ok(opened && opened->qp_num == e->recv_qp->qp_num &&
	       !ibv_destroy_qp(opened),
	       "ibv_open_qp of the XRC_RECV QP by number, then closed: %s",
	       opened ? "ok" : strerror(errno));
	tap_ok(!ibv_destroy_qp(e->send_qp) && !ibv_destroy_qp(e->recv_qp) &&
	       !ibv_destroy_srq(e->srq) && !ibv_close_xrcd(e->xrcd),
	       "destroy both QPs and the SRQ, close the XRC domain");
}

int main(int argc, char **argv)
{
	const char *name = "axon0";
	struct env e = { .gid_index = 0 };
	size_t len = 3 * MSG + 16;

	if (!dev_args(argc, argv, &e.gid_index, &name))
		return 2;

	tap_plan(SETUP_CHECKS + TRAFFIC_CHECKS + BAD_CHECKS + TEARDOWN_CHECKS);
	e.ctx = open_device(name);
	if (!e.ctx)
		tap_bail("no device %s", name);
	e.buf = aligned_alloc(64, 4 * MSG);
	if (!e.buf || ibv_query_gid(e.ctx, 1, e.gid_index, &e.gid) ||
	    !(e.pd = ibv_alloc_pd(e.ctx)) ||
	    !(e.cq = ibv_create_cq(e.ctx, 4 * DEPTH, NULL, NULL, 0)) ||
	    !(e.mr = ibv_reg_mr(e.pd, e.buf, len, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE |
				IBV_ACCESS_REMOTE_READ |
				IBV_ACCESS_REMOTE_ATOMIC)))
		tap_bail("device set-up: %s", strerror(errno));

	setup(&e);
	test_send(&e, false);
	test_send(&e, true);
	test_rdma(&e);
	test_bad(&e);
	teardown(&e);

	ibv_dereg_mr(e.mr);
	ibv_destroy_cq(e.cq);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	free(e.buf);
	return tap_done();
}
