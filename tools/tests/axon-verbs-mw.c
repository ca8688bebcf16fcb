// SPDX-License-Identifier: GPL-2.0
/*
 * axon-verbs-mw: memory windows through libibverbs, on one device. An RC
 * QP pair connected to each other: the owner registers memory that
 * allows windows (IBV_ACCESS_MW_BIND and local write, no remote right of
 * its own) and binds windows over parts of it; the peer reaches it only
 * through a window's key, with RDMA WRITE and READ whose data is checked.
 *
 * - Type 1: ibv_bind_mw gives the window a new key (ibv_inc_rkey of the
 *   last); a second bind moves it, the old key is refused
 *   (IBV_WC_REM_ACCESS_ERR), so are an access outside the window and a
 *   right it does not grant; a zero-length bind unbinds it.
 *   ibv_dereg_mr of the MR fails with EBUSY while a window is bound.
 * - Type 2: IBV_WR_BIND_MW on the owner's QP, used, then taken away by
 *   its IBV_WR_LOCAL_INV; bound again, used, and taken away by the peer's
 *   IBV_WR_SEND_WITH_INV (the owner's receive completes with
 *   IBV_WC_WITH_INV and the key); bound again and deallocated: each time
 *   the key is refused after. Deallocating finds the window whatever tag
 *   its binds gave its key: the MR deregisters and the PD deallocates at
 *   the end only if every window is gone from the device.
 * - Bad input: ibv_alloc_mw of type 3 (EINVAL); binds to an MR without
 *   IBV_ACCESS_MW_BIND, outside the MR, with remote write over an MR
 *   without local write (IBV_WC_MW_BIND_ERR); a zero-based window and a
 *   new key naming another window (EINVAL, nothing posted).
 *
 * A refused access moves both QPs to ERR (and may raise an async event
 * on the owner's): the pair is reset and connected again after each.
 * Plain libibverbs, with checks of axon's own: EBUSY for the MR (rxe says
 * EINVAL), and the zero-based window and the foreign key refused when
 * posted.
 *
 * Usage: axon-verbs-mw [-g GID_INDEX] [DEVICE]   (default axon0, GID 0)
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axon-test.h"

#define MEM		65536		/* the owner's memory */
#define W_OFF		8192		/* the first window, into it */
#define W_LEN		16384
#define W2_LEN		4096		/* the type 1 window once moved */
#define RECV_OFF	(MEM - 4096)	/* the owner's receive buffer */
#define MSG		3000
#define DEPTH		16

#define SETUP_CHECKS	3
#define TYPE1_CHECKS	13
#define TYPE2_CHECKS	13
#define BAD_CHECKS	6
#define TEARDOWN_CHECKS	2

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *ocq, *pcq;	/* the owner's, the peer's */
	struct ibv_qp *owner, *peer;
	uint8_t *mem, *lbuf, *other;
	struct ibv_mr *mr;		/* mem: local write, MW bind */
	struct ibv_mr *lmr;		/* lbuf: local write only */
	struct ibv_mr *ro_mr;		/* other: MW bind only */
	union ibv_gid gid;
	int gid_index;
};

static uint64_t at(struct env *e, size_t off)
{
	return (uintptr_t)e->mem + off;
}

/* The payload of tag: len bytes of a pattern. */
static void fill(uint8_t *p, size_t len, int tag)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(tag * 37 + i);
}

/* One completion of cq within 10 s. */
static bool wait_wc(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int i, r;

	for (i = 0; i < 100000; i++) {
		r = ibv_poll_cq(cq, 1, wc);
		if (r)
			return r == 1;
		usleep(100);
	}
	return false;
}

static struct ibv_qp *create_qp(struct env *e, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = DEPTH, .max_send_sge = 1,
			 .max_recv_wr = DEPTH, .max_recv_sge = 1 },
	};

	return ibv_create_qp(e->pd, &init);
}

/* RESET -> RTS toward dest_qpn, taking remote writes and reads. */
static int connect_rc(struct env *e, struct ibv_qp *qp, uint32_t dest_qpn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	rtr_attr(dest_qpn, &e->gid, e->gid_index, &a);
	if (ibv_modify_qp(qp, &a, RTR_MASK))
		return -1;
	rts_attr(&a);
	return ibv_modify_qp(qp, &a, RTS_MASK);
}

static bool connect_pair(struct env *e)
{
	return !connect_rc(e, e->owner, e->peer->qp_num) &&
	       !connect_rc(e, e->peer, e->owner->qp_num);
}

/*
 * Ack the async events a refused request raised (ibv_destroy_qp waits
 * for them), until none came for 300 ms.
 */
static void ack_events(struct env *e)
{
	struct pollfd p = { .fd = e->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	while (poll(&p, 1, 300) == 1 && !ibv_get_async_event(e->ctx, &ev)) {
		tap_diag("async event: %s", ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	}
}

/*
 * After a refused request both QPs are in ERR: ack its events, drop what
 * is left in the CQs and connect the pair again; the run cannot go on
 * without it.
 */
static void recover(struct env *e)
{
	struct ibv_wc wc;

	ack_events(e);
	while (ibv_poll_cq(e->ocq, 1, &wc) > 0 ||
	       ibv_poll_cq(e->pcq, 1, &wc) > 0)
		;
	if (!connect_pair(e)) {
		tap_bail("connecting the QPs again: %s", strerror(errno));
		exit(1);
	}
}

/*
 * The peer's signaled RDMA WRITE or READ of len bytes between lbuf and
 * the owner's memory at off, through rkey; its completion status, or -1
 * when none came.
 */
static int peer_rdma(struct env *e, enum ibv_wr_opcode op, uint32_t rkey,
		     size_t off, uint32_t len)
{
	struct ibv_sge sge = { .addr = (uintptr_t)e->lbuf, .length = len,
			       .lkey = e->lmr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 0x100 + op, .sg_list = &sge, .num_sge = 1,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = at(e, off), .rkey = rkey },
	}, *bad;
	struct ibv_wc wc;

	if (ibv_post_send(e->peer, &wr, &bad) || !wait_wc(e->pcq, &wc))
		return -1;
	return wc.wr_id == wr.wr_id ? (int)wc.status : -1;
}

/* The peer WRITEs a pattern at off through rkey: done, and in memory. */
static bool write_ok(struct env *e, uint32_t rkey, size_t off, int tag)
{
	fill(e->lbuf, MSG, tag);
	memset(e->mem + off, 0, MSG);
	if (peer_rdma(e, IBV_WR_RDMA_WRITE, rkey, off, MSG) != IBV_WC_SUCCESS)
		return false;
	return !memcmp(e->mem + off, e->lbuf, MSG);
}

/* The peer READs the owner's pattern at off through rkey back. */
static bool read_ok(struct env *e, uint32_t rkey, size_t off, int tag)
{
	fill(e->mem + off, MSG, tag);
	memset(e->lbuf, 0, MSG);
	if (peer_rdma(e, IBV_WR_RDMA_READ, rkey, off, MSG) != IBV_WC_SUCCESS)
		return false;
	return !memcmp(e->mem + off, e->lbuf, MSG);
}

/*
 * One TAP result: the peer's op through rkey at off is refused with
 * IBV_WC_REM_ACCESS_ERR and the owner's memory is untouched; then the
 * pair is connected again.
 */
static void expect_refused(struct env *e, enum ibv_wr_opcode op,
			   uint32_t rkey, size_t off, const char *what)
{
	uint8_t before[MSG];
	int st;

	fill(e->lbuf, MSG, 0x55);
	memcpy(before, e->mem + off, MSG);
	st = peer_rdma(e, op, rkey, off, MSG);
	tap_ok(st == IBV_WC_REM_ACCESS_ERR && !memcmp(before, e->mem + off, MSG),
	       "%s: %s (want %s)", what,
	       st < 0 ? "no completion" : ibv_wc_status_str(st),
	       ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR));
	recover(e);
}

/* The owner's next completion: wr_id, opcode and status as wanted. */
static bool owner_wc(struct env *e, uint64_t wr_id, enum ibv_wc_opcode op,
		     enum ibv_wc_status status, struct ibv_wc *wc)
{
	if (!wait_wc(e->ocq, wc))
		return false;
	if (wc->status != IBV_WC_SUCCESS)
		tap_diag("owner's completion: %s", ibv_wc_status_str(wc->status));
	return wc->wr_id == wr_id && wc->status == status &&
	       (status != IBV_WC_SUCCESS || wc->opcode == op);
}

/* ibv_bind_mw of a type 1 window on the owner's QP, signaled. */
static int bind1(struct env *e, struct ibv_mw *mw, struct ibv_mr *mr,
		 uint64_t addr, uint64_t len, unsigned int access,
		 uint64_t wr_id)
{
	struct ibv_mw_bind b = {
		.wr_id = wr_id, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = mr, .addr = addr, .length = len,
			       .mw_access_flags = access },
	};

	return ibv_bind_mw(e->owner, mw, &b);
}

/* IBV_WR_BIND_MW of a window under rkey on the owner's QP, signaled. */
static int bind2(struct env *e, struct ibv_mw *mw, uint32_t rkey,
		 struct ibv_mr *mr, uint64_t addr, uint64_t len,
		 unsigned int access, uint64_t wr_id)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
		.bind_mw = { .mw = mw, .rkey = rkey,
			     .bind_info = { .mr = mr, .addr = addr,
					    .length = len,
					    .mw_access_flags = access } },
	}, *bad;

	return ibv_post_send(e->owner, &wr, &bad);
}

#define RW (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

static void test_type1(struct env *e)
{
	struct ibv_mw *mw = ibv_alloc_mw(e->pd, IBV_MW_TYPE_1);
	uint32_t first, second;
	struct ibv_wc wc;
	int err;

	tap_ok(mw && mw->type == IBV_MW_TYPE_1, "ibv_alloc_mw type 1: %s",
	       mw ? "allocated" : strerror(errno));
	if (!mw) {
		tap_bail("no type 1 window");
		exit(1);
	}
	first = mw->rkey;
	err = bind1(e, mw, e->mr, at(e, W_OFF), W_LEN, RW, 1);
	tap_ok(!err && mw->rkey == ibv_inc_rkey(first) &&
	       owner_wc(e, 1, IBV_WC_BIND_MW, IBV_WC_SUCCESS, &wc),
	       "ibv_bind_mw: rkey 0x%x after 0x%x, IBV_WC_BIND_MW (%s)",
	       mw->rkey, first, strerror(err));
	first = mw->rkey;
	tap_ok(write_ok(e, first, W_OFF + 100, 1),
	       "RDMA WRITE through the window: data in the owner's memory");
	tap_ok(read_ok(e, first, W_OFF + W_LEN - MSG, 2),
	       "RDMA READ through the window, up to its end: the data");
	err = ibv_dereg_mr(e->mr);
	expect_errno(err, err, EBUSY, "ibv_dereg_mr of the MR of a bound window");

	/* moved, write only: the old key is refused from then on */
	err = bind1(e, mw, e->mr, at(e, W_OFF), W2_LEN,
		    IBV_ACCESS_REMOTE_WRITE, 2);
	second = mw->rkey;
	tap_ok(!err && second == ibv_inc_rkey(first) &&
	       owner_wc(e, 2, IBV_WC_BIND_MW, IBV_WC_SUCCESS, &wc),
	       "second ibv_bind_mw: rkey 0x%x", second);
	tap_ok(write_ok(e, second, W_OFF, 3), "the new key works");
	expect_refused(e, IBV_WR_RDMA_WRITE, first, W_OFF,
		       "RDMA WRITE through the old key");
	expect_refused(e, IBV_WR_RDMA_WRITE, second, W_OFF + W2_LEN,
		       "RDMA WRITE past the window's end, inside the MR");
	expect_refused(e, IBV_WR_RDMA_READ, second, W_OFF,
		       "RDMA READ of a write-only window");

	/* length 0 unbinds it (under a new key) */
	err = bind1(e, mw, e->mr, at(e, W_OFF), 0, 0, 3);
	tap_ok(!err && owner_wc(e, 3, IBV_WC_BIND_MW, IBV_WC_SUCCESS, &wc),
	       "zero-length ibv_bind_mw: %s", strerror(err));
	expect_refused(e, IBV_WR_RDMA_WRITE, second, W_OFF,
		       "RDMA WRITE through an unbound window's last key");
	err = ibv_dealloc_mw(mw);
	tap_ok(!err, "ibv_dealloc_mw type 1: %s", strerror(err));
}

/* The owner's signaled LOCAL_INV of rkey. */
static int local_inv(struct env *e, uint32_t rkey, uint64_t wr_id)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .opcode = IBV_WR_LOCAL_INV,
		.send_flags = IBV_SEND_SIGNALED, .invalidate_rkey = rkey,
	}, *bad;

	return ibv_post_send(e->owner, &wr, &bad);
}

/*
 * The peer's SEND_WITH_INV of rkey with MSG bytes into the owner's
 * receive: the send completes, the receive has IBV_WC_WITH_INV and rkey.
 */
static bool send_inv(struct env *e, uint32_t rkey)
{
	struct ibv_sge rsge = { .addr = at(e, RECV_OFF), .length = 4096,
				.lkey = e->mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 0x300, .sg_list = &rsge,
				   .num_sge = 1 }, *rbad;
	struct ibv_sge sge = { .addr = (uintptr_t)e->lbuf, .length = MSG,
			       .lkey = e->lmr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 0x301, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_INV, .send_flags = IBV_SEND_SIGNALED,
		.invalidate_rkey = rkey,
	}, *bad;
	struct ibv_wc swc, rwc;
	bool ok;

	fill(e->lbuf, MSG, 7);
	if (ibv_post_recv(e->owner, &rwr, &rbad) ||
	    ibv_post_send(e->peer, &wr, &bad))
		return false;
	ok = wait_wc(e->pcq, &swc) && swc.wr_id == 0x301 &&
	     swc.status == IBV_WC_SUCCESS && swc.opcode == IBV_WC_SEND;
	ok = ok && wait_wc(e->ocq, &rwc);
	if (!ok)
		return false;
	tap_diag("receive: %s, opcode %d, wc_flags 0x%x, invalidated_rkey 0x%x",
		 ibv_wc_status_str(rwc.status), rwc.opcode, rwc.wc_flags,
		 rwc.invalidated_rkey);
	return rwc.wr_id == 0x300 && rwc.status == IBV_WC_SUCCESS &&
	       rwc.opcode == IBV_WC_RECV && rwc.byte_len == MSG &&
	       (rwc.wc_flags & IBV_WC_WITH_INV) &&
	       rwc.invalidated_rkey == rkey &&
	       !memcmp(e->mem + RECV_OFF, e->lbuf, MSG);
}

static void test_type2(struct env *e)
{
	struct ibv_mw *mw = ibv_alloc_mw(e->pd, IBV_MW_TYPE_2);
	struct ibv_wc wc;
	uint32_t key;
	int err;

	tap_ok(mw && mw->type == IBV_MW_TYPE_2, "ibv_alloc_mw type 2: %s",
	       mw ? "allocated" : strerror(errno));
	if (!mw) {
		tap_bail("no type 2 window");
		exit(1);
	}
	key = ibv_inc_rkey(mw->rkey);
	err = bind2(e, mw, key, e->mr, at(e, W_OFF), W_LEN, RW, 11);
	tap_ok(!err && owner_wc(e, 11, IBV_WC_BIND_MW, IBV_WC_SUCCESS, &wc),
	       "IBV_WR_BIND_MW under 0x%x: %s", key, strerror(err));
	tap_ok(write_ok(e, key, W_OFF, 11),
	       "RDMA WRITE through the type 2 window: the data");
	tap_ok(read_ok(e, key, W_OFF + 1000, 12),
	       "RDMA READ through the type 2 window: the data");
	err = ibv_dereg_mr(e->mr);
	expect_errno(err, err, EBUSY,
		     "ibv_dereg_mr of the MR of a bound type 2 window");

	err = local_inv(e, key, 12);
	tap_ok(!err && owner_wc(e, 12, IBV_WC_LOCAL_INV, IBV_WC_SUCCESS, &wc),
	       "IBV_WR_LOCAL_INV of the window's key: IBV_WC_LOCAL_INV");
	expect_refused(e, IBV_WR_RDMA_WRITE, key, W_OFF,
		       "RDMA WRITE after LOCAL_INV");

	/* another round, taken away by the peer */
	key = ibv_inc_rkey(key);
	err = bind2(e, mw, key, e->mr, at(e, W_OFF), W_LEN, RW, 13);
	tap_ok(!err && owner_wc(e, 13, IBV_WC_BIND_MW, IBV_WC_SUCCESS, &wc) &&
	       write_ok(e, key, W_OFF + 10, 13),
	       "bound again under 0x%x, and used", key);
	tap_ok(send_inv(e, key),
	       "IBV_WR_SEND_WITH_INV: the receive has IBV_WC_WITH_INV, 0x%x",
	       key);
	expect_refused(e, IBV_WR_RDMA_READ, key, W_OFF,
		       "RDMA READ after the peer's SEND_WITH_INV");

	/* and once more, deallocated while bound */
	key = ibv_inc_rkey(key);
	err = bind2(e, mw, key, e->mr, at(e, W_OFF), W_LEN, RW, 14);
	tap_ok(!err && owner_wc(e, 14, IBV_WC_BIND_MW, IBV_WC_SUCCESS, &wc) &&
	       write_ok(e, key, W_OFF, 14), "bound a third time, and used");
	err = ibv_dealloc_mw(mw);
	tap_ok(!err, "ibv_dealloc_mw of the bound type 2 window: %s",
	       strerror(err));
	expect_refused(e, IBV_WR_RDMA_WRITE, key, W_OFF,
		       "RDMA WRITE after the window is deallocated");
}

/*
 * A bind the device refuses: the owner's completion is
 * IBV_WC_MW_BIND_ERR and its QP goes to ERR (connected again after).
 */
static void expect_bind_err(struct env *e, struct ibv_mr *mr, uint64_t addr,
			    uint64_t len, unsigned int access,
			    const char *what)
{
	struct ibv_mw *mw = ibv_alloc_mw(e->pd, IBV_MW_TYPE_1);
	struct ibv_wc wc = { .status = IBV_WC_SUCCESS };
	bool got = false;
	int err = -1;

	if (mw) {
		err = bind1(e, mw, mr, addr, len, access, 21);
		got = !err && wait_wc(e->ocq, &wc);
	}
	tap_ok(got && wc.wr_id == 21 && wc.status == IBV_WC_MW_BIND_ERR,
	       "%s: %s (want %s)", what,
	       !mw ? strerror(errno) : err ? strerror(err) :
	       !got ? "no completion" : ibv_wc_status_str(wc.status),
	       ibv_wc_status_str(IBV_WC_MW_BIND_ERR));
	recover(e);
	if (mw)
		ibv_dealloc_mw(mw);
}

static void test_bad(struct env *e)
{
	struct ibv_mw *mw1, *mw2;
	struct ibv_send_wr wr = {}, *bad = NULL;
	uint32_t rkey;
	int err;

	errno = 0;
	mw1 = ibv_alloc_mw(e->pd, (enum ibv_mw_type)3);
	expect_errno(!mw1, errno, EINVAL, "ibv_alloc_mw type 3");
	if (mw1)
		ibv_dealloc_mw(mw1);

	expect_bind_err(e, e->lmr, (uintptr_t)e->lbuf, 4096, RW,
			"bind to an MR without IBV_ACCESS_MW_BIND");
	expect_bind_err(e, e->mr, at(e, MEM - 4096), 8192, RW,
			"bind of a window reaching past the MR's end");
	expect_bind_err(e, e->ro_mr, (uintptr_t)e->other, 4096,
			IBV_ACCESS_REMOTE_WRITE,
			"remote write window over an MR without local write");

	mw1 = ibv_alloc_mw(e->pd, IBV_MW_TYPE_1);
	mw2 = ibv_alloc_mw(e->pd, IBV_MW_TYPE_2);
	if (!mw1 || !mw2) {
		tap_bail("ibv_alloc_mw: %s", strerror(errno));
		exit(1);
	}
	rkey = mw1->rkey;
	err = bind1(e, mw1, e->mr, at(e, W_OFF), W_LEN,
		    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_ZERO_BASED, 22);
	tap_ok(err == EINVAL && mw1->rkey == rkey,
	       "ibv_bind_mw of a zero-based window: %s (want %s), key kept",
	       strerror(err), strerror(EINVAL));
	wr = (struct ibv_send_wr){
		.wr_id = 23, .opcode = IBV_WR_BIND_MW,
		.bind_mw = { .mw = mw2, .rkey = ibv_inc_rkey(mw1->rkey),
			     .bind_info = { .mr = e->mr, .addr = at(e, W_OFF),
					    .length = W_LEN,
					    .mw_access_flags = RW } },
	};
	err = ibv_post_send(e->owner, &wr, &bad);
	tap_ok(err == EINVAL && bad == &wr,
	       "IBV_WR_BIND_MW under another window's key: %s (want %s)",
	       strerror(err), strerror(EINVAL));
	ibv_dealloc_mw(mw2);
	ibv_dealloc_mw(mw1);
}

int main(int argc, char **argv)
{
	const char *name = "axon0";
	struct env e = { .gid_index = 0 };
	struct ibv_device_attr attr;
	int err;

	if (!dev_args(argc, argv, &e.gid_index, &name))
		return 2;

	tap_plan(SETUP_CHECKS + TYPE1_CHECKS + TYPE2_CHECKS + BAD_CHECKS +
		 TEARDOWN_CHECKS);
	e.ctx = open_device(name);
	if (!e.ctx) {
		tap_bail("no device %s", name);
		return 1;
	}
	e.mem = aligned_alloc(4096, MEM);
	e.lbuf = aligned_alloc(4096, MEM);
	e.other = aligned_alloc(4096, 4096);
	if (!e.mem || !e.lbuf || !e.other ||
	    ibv_query_device(e.ctx, &attr) ||
	    ibv_query_gid(e.ctx, 1, e.gid_index, &e.gid) ||
	    !(e.pd = ibv_alloc_pd(e.ctx)) ||
	    !(e.ocq = ibv_create_cq(e.ctx, 2 * DEPTH, NULL, NULL, 0)) ||
	    !(e.pcq = ibv_create_cq(e.ctx, 2 * DEPTH, NULL, NULL, 0)) ||
	    !(e.lmr = ibv_reg_mr(e.pd, e.lbuf, MEM, IBV_ACCESS_LOCAL_WRITE))) {
		tap_bail("device set-up: %s", strerror(errno));
		return 1;
	}
	tap_ok((attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW) &&
	       (attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B) &&
	       attr.max_mw > 0,
	       "%s: IBV_DEVICE_MEM_WINDOW and _TYPE_2B, max_mw %d", name,
	       attr.max_mw);
	e.mr = ibv_reg_mr(e.pd, e.mem, MEM, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_MW_BIND);
	e.ro_mr = ibv_reg_mr(e.pd, e.other, 4096, IBV_ACCESS_MW_BIND);
	tap_ok(e.mr && e.ro_mr, "ibv_reg_mr with IBV_ACCESS_MW_BIND: %s",
	       e.mr && e.ro_mr ? "registered" : strerror(errno));
	if (!e.mr || !e.ro_mr) {
		tap_bail("no MR for windows");
		return 1;
	}
	e.owner = create_qp(&e, e.ocq);
	e.peer = create_qp(&e, e.pcq);
	tap_ok(e.owner && e.peer && connect_pair(&e),
	       "two RC QPs connected to each other");
	if (!e.owner || !e.peer) {
		tap_bail("no QPs");
		return 1;
	}

	test_type1(&e);
	test_type2(&e);
	test_bad(&e);

	/* no window left: the device lets the MRs and the PD go */
	err = ibv_dereg_mr(e.mr);
	err = err ?: ibv_dereg_mr(e.ro_mr);
	tap_ok(!err, "ibv_dereg_mr once the windows are gone: %s",
	       strerror(err));
	ack_events(&e);
	ibv_destroy_qp(e.owner);
	ibv_destroy_qp(e.peer);
	ibv_dereg_mr(e.lmr);
	err = ibv_dealloc_pd(e.pd);
	tap_ok(!err, "ibv_dealloc_pd: no window left in it (%s)",
	       strerror(err));
	ibv_destroy_cq(e.ocq);
	ibv_destroy_cq(e.pcq);
	ibv_close_device(e.ctx);
	free(e.mem);
	free(e.lbuf);
	free(e.other);
	return tap_done();
}
