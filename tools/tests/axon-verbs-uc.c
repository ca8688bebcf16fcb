// SPDX-License-Identifier: GPL-2.0
/*
 * axon-verbs-uc: UC QPs through libibverbs, on one device. Two UC QPs
 * connected to each other, a third on an SRQ fed by a fourth: SENDs of
 * three packets, SEND_WITH_IMM inline, RDMA WRITE and WRITE_WITH_IMM,
 * a batch through the ibv_wr_* API, every byte checked. Their access
 * flags: REMOTE_READ and REMOTE_ATOMIC, asked for as rdma-core's tests
 * do, are dropped (a UC QP is only written to). What UC does not promise:
 * a receive too small completes with IBV_WC_LOC_LEN_ERR, a SEND with no
 * receive posted and a WRITE through an rkey that does not allow it are
 * dropped, and the QPs go on in RTS (uc_drops counts the drops, where the
 * device has the counter). Bad input fails with a precise errno: RDMA
 * READ and atomics at post, RC attributes in modify_qp, READ in
 * ibv_create_qp_ex's send_ops_flags.
 *
 * Usage: axon-verbs-uc [-g GID_INDEX] [DEVICE]   (default axon0, GID 0)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axon-test.h"

#define MSG		3000	/* three packets at the path MTU, 1024 */
#define INLINE_MSG	60
#define WRITE_LEN	5000
#define IMM_LEN		100
#define SLOT		8192
#define SLOTS		16
#define DEPTH		16
#define RO_SLOT		(SLOTS - 1)	/* also registered without remote write */

#define UC_RTR_MASK	(IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | \
			 IBV_QP_DEST_QPN | IBV_QP_RQ_PSN)
#define UC_SEND_OPS	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | \
			 IBV_QP_EX_WITH_RDMA_WRITE | \
			 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
#define ALL_REMOTE	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
			 IBV_ACCESS_REMOTE_ATOMIC)

#define SETUP_CHECKS	4
#define DATA_CHECKS	7
#define DROP_CHECKS	5
#define BAD_CHECKS	4
#define TEARDOWN_CHECKS	1

struct env {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq;		/* every QP's sends */
	struct ibv_mr *mr;		/* local and remote write */
	struct ibv_mr *ro_mr;		/* RO_SLOT, local write only */
	uint8_t *buf;			/* send area, then SLOTS slots */
	union ibv_gid gid;
	int gid_index;
	struct ibv_srq *srq;
};

/* A UC QP and its receive CQ. */
struct ucqp {
	struct ibv_qp *qp;
	struct ibv_cq *rcq;
};

static uint8_t *slot(struct env *e, int i)
{
	return e->buf + SLOT + (size_t)i * SLOT;
}

static uint64_t slot_addr(struct env *e, int i)
{
	return (uintptr_t)slot(e, i);
}

/*
 * A UC QP: with send_ops, through ibv_create_qp_ex() with the ibv_wr_*
 * API; else through ibv_create_qp(). On srq, if not NULL.
 */
static bool create_ucqp(struct env *e, struct ucqp *u, struct ibv_srq *srq,
			uint64_t send_ops)
{
	struct ibv_qp_init_attr_ex init = {
		.qp_type = IBV_QPT_UC, .send_cq = e->scq, .srq = srq,
		.cap = { .max_send_wr = DEPTH, .max_send_sge = 1,
			 .max_recv_wr = srq ? 0 : DEPTH,
			 .max_recv_sge = srq ? 0 : 1,
			 .max_inline_data = INLINE_MSG },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     (send_ops ? IBV_QP_INIT_ATTR_SEND_OPS_FLAGS : 0),
		.pd = e->pd,
		.send_ops_flags = send_ops,
	};
	struct ibv_qp_init_attr legacy;

	u->rcq = ibv_create_cq(e->ctx, DEPTH, NULL, NULL, 0);
	if (!u->rcq)
		return false;
	init.recv_cq = u->rcq;
	if (send_ops) {
		u->qp = ibv_create_qp_ex(e->ctx, &init);
	} else {
		legacy = (struct ibv_qp_init_attr){
			.send_cq = init.send_cq, .recv_cq = init.recv_cq,
			.srq = srq, .cap = init.cap, .qp_type = IBV_QPT_UC,
		};
		u->qp = ibv_create_qp(e->pd, &legacy);
	}
	return u->qp;
}

/*
 * RESET -> INIT (access) -> RTR -> RTS toward dest_qpn with the attributes
 * UC QPs have, as ibv_uc_pingpong brings them up; 0 or an errno.
 */
static int uc_to_rts(struct env *e, struct ibv_qp *qp, uint32_t dest_qpn,
		     int access)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qp_access_flags = access,
	};
	int err;

	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (err)
		return err;
	rtr_attr(dest_qpn, &e->gid, e->gid_index, &a);
	err = ibv_modify_qp(qp, &a, UC_RTR_MASK);
	if (err)
		return err;
	rts_attr(&a);
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

/* Post receive slot i (len bytes of it) on qp, or on the SRQ. */
static int post_recv(struct env *e, struct ibv_qp *qp, int i, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = slot_addr(e, i), .length = len, .lkey = e->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = 100 + i, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	memset(slot(e, i), 0xee, SLOT);
	return qp ? ibv_post_recv(qp, &wr, &bad) :
		    ibv_post_srq_recv(e->srq, &wr, &bad);
}

/*
 * A signaled work request of len bytes from the send area at off (inline,
 * or as one SGE), to slot rslot through rkey for WRITEs; tag fills the
 * payload and is the wr_id.
 */
static int post_send(struct env *e, struct ibv_qp *qp,
		     enum ibv_wr_opcode opcode, uint32_t off, uint32_t len,
		     int tag, int rslot, uint32_t rkey, unsigned int flags)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf + off, .length = len,
		.lkey = e->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = tag, .sg_list = &sge, .num_sge = 1, .opcode = opcode,
		.send_flags = IBV_SEND_SIGNALED | flags,
		.imm_data = htobe32(0xabc00000u + tag),
		.wr.rdma = { .remote_addr = slot_addr(e, rslot),
			     .rkey = rkey },
	}, *bad;

	pattern_fill(e->buf + off, len, tag);
	return ibv_post_send(qp, &wr, &bad);
}

/* A SEND of len bytes from a to b's next receive; tag fills it. */
static int send_msg(struct env *e, struct ucqp *a, uint32_t len, int tag)
{
	return post_send(e, a->qp, IBV_WR_SEND, 0, len, tag, 0, 0, 0);
}

/* The next send completion: status want. */
static bool sent(struct env *e, enum ibv_wc_status want)
{
	struct ibv_wc wc;

	if (!poll_one(e->scq, &wc, 10000)) {
		tap_diag("no send completion");
		return false;
	}
	if (wc.status != want)
		tap_diag("send completion %llu: %s, wanted %s",
			 (unsigned long long)wc.wr_id,
			 ibv_wc_status_str(wc.status), ibv_wc_status_str(want));
	return wc.status == want;
}

/*
 * A successful receive completion of u of opcode and byte_len len, from
 * its peer's QP src.
 */
static bool received(struct ucqp *u, struct ibv_wc *wc,
		     enum ibv_wc_opcode opcode, uint32_t len, uint32_t src)
{
	if (!poll_one(u->rcq, wc, 10000)) {
		tap_diag("no receive completion");
		return false;
	}
	if (wc->status != IBV_WC_SUCCESS || wc->opcode != opcode ||
	    wc->byte_len != len || wc->qp_num != u->qp->qp_num ||
	    wc->src_qp != src) {
		tap_diag("receive %llu: %s, opcode %d (want %d), byte_len %u (want %u), qp 0x%x, src_qp 0x%x (want 0x%x)",
			 (unsigned long long)wc->wr_id,
			 ibv_wc_status_str(wc->status), wc->opcode, opcode,
			 wc->byte_len, len, wc->qp_num, wc->src_qp, src);
		return false;
	}
	return true;
}

static bool both_rts(struct ucqp *a, struct ucqp *b)
{
	return qp_state(a->qp) == IBV_QPS_RTS && qp_state(b->qp) == IBV_QPS_RTS;
}

/* uc_drops once it passed before, within ms milliseconds; -1 without. */
static long long drops_after(struct env *e, long long before, int ms)
{
	long long now = hw_counter(e->name, "uc_drops");
	int i;

	for (i = 0; before >= 0 && now <= before && i < ms; i++) {
		usleep(1000);
		now = hw_counter(e->name, "uc_drops");
	}
	return now;
}

static void test_setup(struct env *e, struct ucqp *a, struct ucqp *b,
		       struct ucqp *s, struct ucqp *t)
{
	struct ibv_srq_init_attr sinit = { .attr = { .max_wr = DEPTH,
						     .max_sge = 1 } };
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr qa;
	bool ok;

	e->srq = ibv_create_srq(e->pd, &sinit);
	ok = e->srq && create_ucqp(e, a, NULL, UC_SEND_OPS) &&
	     create_ucqp(e, b, NULL, 0) && create_ucqp(e, s, e->srq, 0) &&
	     create_ucqp(e, t, NULL, 0);
	tap_ok(ok, "four UC QPs, one with the ibv_wr_* API, one on an SRQ: %s",
	       ok ? "created" : strerror(errno));
	if (!ok)
		tap_bail("no UC QPs");
	/* b grants what rdma-core's tests ask of every connected QP */
	tap_ok(!uc_to_rts(e, a->qp, b->qp->qp_num, IBV_ACCESS_REMOTE_WRITE) &&
	       !uc_to_rts(e, b->qp, a->qp->qp_num, ALL_REMOTE) &&
	       !uc_to_rts(e, s->qp, t->qp->qp_num, IBV_ACCESS_REMOTE_WRITE) &&
	       !uc_to_rts(e, t->qp, s->qp->qp_num, 0),
	       "RESET -> INIT -> RTR -> RTS with UC's attributes, pairwise");
	ok = !ibv_query_qp(b->qp, &qa, IBV_QP_STATE | IBV_QP_DEST_QPN |
			   IBV_QP_PATH_MTU | IBV_QP_ACCESS_FLAGS, &init);
	tap_ok(ok && qa.qp_state == IBV_QPS_RTS && init.qp_type == IBV_QPT_UC &&
	       qa.dest_qp_num == a->qp->qp_num && qa.path_mtu == IBV_MTU_1024,
	       "ibv_query_qp: state %d, type %d, dest QPN 0x%x, path MTU %d",
	       qa.qp_state, init.qp_type, qa.dest_qp_num, qa.path_mtu);
	tap_ok(ok && qa.qp_access_flags == IBV_ACCESS_REMOTE_WRITE,
	       "access flags REMOTE_WRITE | READ | ATOMIC: REMOTE_WRITE kept, the others dropped (0x%x)",
	       qa.qp_access_flags);
}

static void test_data(struct env *e, struct ucqp *a, struct ucqp *b,
		      struct ucqp *s, struct ucqp *t)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(a->qp);
	uint32_t src = a->qp->qp_num;
	struct ibv_wc wc;
	bool ok;

	/* SEND of three packets */
	post_recv(e, b->qp, 0, SLOT);
	ok = !send_msg(e, a, MSG, 1);
	tap_ok(ok && sent(e, IBV_WC_SUCCESS), "SEND %d bytes: sent", MSG);
	ok = received(b, &wc, IBV_WC_RECV, MSG, src);
	tap_ok(ok && wc.wr_id == 100 && !(wc.wc_flags & IBV_WC_WITH_IMM) &&
	       pattern_ok(slot(e, 0), MSG, 1),
	       "SEND: received whole, src_qp, the data");

	/* SEND_WITH_IMM inline */
	post_recv(e, b->qp, 1, SLOT);
	ok = !post_send(e, a->qp, IBV_WR_SEND_WITH_IMM, 0, INLINE_MSG, 2, 0, 0,
			IBV_SEND_INLINE) &&
	     sent(e, IBV_WC_SUCCESS) &&
	     received(b, &wc, IBV_WC_RECV, INLINE_MSG, src);
	tap_ok(ok && (wc.wc_flags & IBV_WC_WITH_IMM) &&
	       be32toh(wc.imm_data) == 0xabc00002u &&
	       pattern_ok(slot(e, 1), INLINE_MSG, 2),
	       "SEND_WITH_IMM inline %d bytes: the immediate and the data",
	       INLINE_MSG);

	/*
	 * A WRITE, then a WRITE_WITH_IMM: its receive completes after both
	 * are placed (one QP's messages are taken in order).
	 */
	post_recv(e, b->qp, 4, SLOT);
	ok = !post_send(e, a->qp, IBV_WR_RDMA_WRITE, 0, WRITE_LEN, 3, 2,
			e->mr->rkey, 0) &&
	     !post_send(e, a->qp, IBV_WR_RDMA_WRITE_WITH_IMM, 6144, IMM_LEN,
			4, 3, e->mr->rkey, 0) &&
	     sent(e, IBV_WC_SUCCESS) && sent(e, IBV_WC_SUCCESS) &&
	     received(b, &wc, IBV_WC_RECV_RDMA_WITH_IMM, IMM_LEN, src);
	tap_ok(ok && wc.wr_id == 104 && (wc.wc_flags & IBV_WC_WITH_IMM) &&
	       be32toh(wc.imm_data) == 0xabc00004u,
	       "WRITE_WITH_IMM: IBV_WC_RECV_RDMA_WITH_IMM, byte_len %d, the immediate",
	       IMM_LEN);
	tap_ok(ok && pattern_ok(slot(e, 2), WRITE_LEN, 3) &&
	       pattern_ok(slot(e, 3), IMM_LEN, 4) && slot(e, 4)[0] == 0xee,
	       "WRITE of %d and WRITE_WITH_IMM of %d bytes in place, the receive buffer untouched",
	       WRITE_LEN, IMM_LEN);

	/* the same through ibv_wr_*: a WRITE and a SEND_WITH_IMM, one batch */
	post_recv(e, b->qp, 6, SLOT);
	pattern_fill(e->buf, 4000, 5);
	pattern_fill(e->buf + 4096, 200, 6);
	ibv_wr_start(qpx);
	qpx->wr_id = 5;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, e->mr->rkey, slot_addr(e, 5));
	ibv_wr_set_sge(qpx, e->mr->lkey, (uintptr_t)e->buf, 4000);
	qpx->wr_id = 6;
	ibv_wr_send_imm(qpx, htobe32(0xabc00006u));
	ibv_wr_set_sge(qpx, e->mr->lkey, (uintptr_t)e->buf + 4096, 200);
	ok = !ibv_wr_complete(qpx) && sent(e, IBV_WC_SUCCESS) &&
	     sent(e, IBV_WC_SUCCESS) &&
	     received(b, &wc, IBV_WC_RECV, 200, src);
	tap_ok(ok && be32toh(wc.imm_data) == 0xabc00006u &&
	       pattern_ok(slot(e, 5), 4000, 5) &&
	       pattern_ok(slot(e, 6), 200, 6),
	       "ibv_wr_rdma_write and ibv_wr_send_imm in one batch: both arrive");

	/* t -> s, the QP on the SRQ */
	post_recv(e, NULL, 7, SLOT);
	ok = !send_msg(e, t, MSG, 7) && sent(e, IBV_WC_SUCCESS) &&
	     received(s, &wc, IBV_WC_RECV, MSG, t->qp->qp_num);
	tap_ok(ok && wc.wr_id == 107 && pattern_ok(slot(e, 7), MSG, 7),
	       "SEND to the QP on the SRQ: the SRQ's WQE, its data");
}

/*
 * What UC does not promise: a message that cannot be placed is dropped
 * whole, or completes its receive in error, and neither QP leaves RTS.
 */
static void test_drops(struct env *e, struct ucqp *a, struct ucqp *b)
{
	uint32_t src = a->qp->qp_num;
	long long before, after;
	struct ibv_wc wc;
	bool ok;

	/* a receive of 16 bytes for 100 */
	post_recv(e, b->qp, 8, 16);
	ok = !send_msg(e, a, 100, 8) && sent(e, IBV_WC_SUCCESS) &&
	     poll_one(b->rcq, &wc, 10000);
	tap_ok(ok && wc.status == IBV_WC_LOC_LEN_ERR && wc.wr_id == 108,
	       "a receive too small completes with IBV_WC_LOC_LEN_ERR: %s",
	       ok ? ibv_wc_status_str(wc.status) : "no completion");
	post_recv(e, b->qp, 9, SLOT);
	ok = !send_msg(e, a, MSG, 9) && sent(e, IBV_WC_SUCCESS) &&
	     received(b, &wc, IBV_WC_RECV, MSG, src);
	tap_ok(ok && wc.wr_id == 109 && pattern_ok(slot(e, 9), MSG, 9) &&
	       both_rts(a, b),
	       "the QPs go on in RTS: the next SEND is received whole");

	/* no receive posted: sent, and dropped */
	before = hw_counter(e->name, "uc_drops");
	ok = !send_msg(e, a, MSG, 10) && sent(e, IBV_WC_SUCCESS);
	after = drops_after(e, before, 2000);
	if (before < 0) {
		/* no counter to wait for: give the message time to be dropped */
		usleep(200 * 1000);
		tap_skip("no uc_drops counter",
			 "a SEND with no receive posted is dropped, uc_drops counts it");
	} else {
		tap_ok(ok && after == before + 1,
		       "a SEND with no receive posted is dropped, uc_drops counts it: %lld -> %lld",
		       before, after);
	}
	post_recv(e, b->qp, 10, SLOT);
	ok = !send_msg(e, a, MSG, 11) && sent(e, IBV_WC_SUCCESS) &&
	     received(b, &wc, IBV_WC_RECV, MSG, src);
	tap_ok(ok && wc.wr_id == 110 && pattern_ok(slot(e, 10), MSG, 11) &&
	       both_rts(a, b),
	       "the next SEND takes the receive posted after it, the QPs in RTS");

	/*
	 * A WRITE through an rkey without remote write: no NAK on UC, the
	 * send completes; the SEND after it tells it was taken (in order).
	 */
	memset(slot(e, RO_SLOT), 0x5a, SLOT);
	before = hw_counter(e->name, "uc_drops");
	post_recv(e, b->qp, 11, SLOT);
	ok = !post_send(e, a->qp, IBV_WR_RDMA_WRITE, 0, 64, 12, RO_SLOT,
			e->ro_mr->rkey, 0) &&
	     sent(e, IBV_WC_SUCCESS) && !send_msg(e, a, 64, 13) &&
	     sent(e, IBV_WC_SUCCESS) &&
	     received(b, &wc, IBV_WC_RECV, 64, src);
	/* the kernel caches hw counters for a moment: wait for the new one */
	after = drops_after(e, before, 2000);
	tap_ok(ok && slot(e, RO_SLOT)[0] == 0x5a && slot(e, RO_SLOT)[63] == 0x5a &&
	       both_rts(a, b) && (before < 0 || after == before + 1),
	       "a WRITE through an rkey without remote write: completes, writes nothing, is counted (%lld -> %lld), the QPs in RTS",
	       before, after);
}

static void test_bad_input(struct env *e, struct ucqp *a, struct ucqp *b)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_RTS, .timeout = 14 };
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf, .length = 8,
			       .lkey = e->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
		.wr.rdma = { .remote_addr = slot_addr(e, 12),
			     .rkey = e->mr->rkey },
	}, *bad = NULL;
	struct ibv_qp_init_attr_ex init = {
		.qp_type = IBV_QPT_UC, .send_cq = e->scq, .recv_cq = e->scq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = e->pd,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_READ,
	};
	struct ibv_qp *qp;
	int err;

	err = ibv_post_send(a->qp, &wr, &bad);
	expect_errno(err && bad == &wr, err, EINVAL,
		     "RDMA READ on a UC QP, at post (bad_wr set)");
	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = slot_addr(e, 12);
	wr.wr.atomic.rkey = e->mr->rkey;
	wr.wr.atomic.compare_add = 1;
	bad = NULL;
	err = ibv_post_send(a->qp, &wr, &bad);
	expect_errno(err && bad == &wr, err, EINVAL,
		     "ATOMIC_FETCH_AND_ADD on a UC QP, at post (bad_wr set)");
	err = ibv_modify_qp(b->qp, &qa, IBV_QP_STATE | IBV_QP_TIMEOUT);
	expect_errno(err, err, EINVAL,
		     "ibv_modify_qp RTS -> RTS of a UC QP with a timeout (RC only)");
	errno = 0;
	qp = ibv_create_qp_ex(e->ctx, &init);
	expect_errno(!qp, errno, EOPNOTSUPP,
		     "ibv_create_qp_ex of a UC QP with IBV_QP_EX_WITH_RDMA_READ");
	if (qp)
		ibv_destroy_qp(qp);
}

int main(int argc, char **argv)
{
	struct env e = { .name = "axon0", .gid_index = 0 };
	struct ucqp a = {}, b = {}, s = {}, t = {};

	if (!dev_args(argc, argv, &e.gid_index, &e.name))
		return 2;

	tap_plan(SETUP_CHECKS + DATA_CHECKS + DROP_CHECKS + BAD_CHECKS +
		 TEARDOWN_CHECKS);
	e.ctx = open_device(e.name);
	if (!e.ctx)
		tap_bail("no device %s", e.name);
	e.buf = calloc(SLOTS + 1, SLOT);
	if (ibv_query_gid(e.ctx, 1, e.gid_index, &e.gid) ||
	    !(e.pd = ibv_alloc_pd(e.ctx)) ||
	    !(e.scq = ibv_create_cq(e.ctx, 4 * DEPTH, NULL, NULL, 0)) ||
	    !e.buf ||
	    !(e.mr = ibv_reg_mr(e.pd, e.buf, (SLOTS + 1) * SLOT,
				IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE)) ||
	    !(e.ro_mr = ibv_reg_mr(e.pd, slot(&e, RO_SLOT), SLOT,
				   IBV_ACCESS_LOCAL_WRITE)))
		tap_bail("device set-up: %s", strerror(errno));

	test_setup(&e, &a, &b, &s, &t);
	test_data(&e, &a, &b, &s, &t);
	test_drops(&e, &a, &b);
	test_bad_input(&e, &a, &b);

	tap_ok(!ibv_destroy_qp(t.qp) && !ibv_destroy_qp(s.qp) &&
	       !ibv_destroy_qp(b.qp) && !ibv_destroy_qp(a.qp) &&
	       !ibv_destroy_srq(e.srq) && !ibv_destroy_cq(t.rcq) &&
	       !ibv_destroy_cq(s.rcq) && !ibv_destroy_cq(b.rcq) &&
	       !ibv_destroy_cq(a.rcq),
	       "destroy the QPs, the SRQ and the CQs");
	ibv_dereg_mr(e.ro_mr);
	ibv_dereg_mr(e.mr);
	ibv_destroy_cq(e.scq);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	free(e.buf);
	return tap_done();
}
