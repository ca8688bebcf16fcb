// SPDX-License-Identifier: GPL-2.0
/*
 * axon-verbs-ud: UD QPs and address handles through libibverbs, on one
 * device. Three UD QPs (one on an SRQ) exchange SENDs, with immediate,
 * inline and from SGEs, through an AH made from the port's GID: the data,
 * the 40-byte GRH ahead of it (IPv4 header in its last 20 bytes, or IPv6
 * header), src_qp and IBV_WC_GRH are checked; ibv_create_ah_from_wc()
 * answers a datagram. A wrong Q_Key is not delivered (the receive stays
 * posted for the next good one), a receive buffer too small completes
 * with IBV_WC_LOC_LEN_ERR and the QP goes on, a message over the port MTU
 * is not sent and completes successfully (IB's C10-93.1.1). Bad input fails with a precise errno:
 * an AH without a GRH or with a source GID index beyond the table, an
 * RDMA WRITE on a UD QP, an RC attribute in modify_qp, and a privileged
 * Q_Key set by a process without CAP_NET_RAW (a forked child that drops
 * it; root may). Plain libibverbs, with one check of axon's: qkey_drops
 * is its counter (skipped on a device without it).
 *
 * Usage: axon-verbs-ud [-g GID_INDEX] [DEVICE]   (default axon0, GID 0)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>

#include "axon-test.h"

#define QKEY		0x11111111u
#define BAD_QKEY	0x22222222u
#define PRIV_QKEY	0x80010000u	/* bit 31: privileged */
#define GRH_LEN		40
#define MSG		1000
#define INLINE_MSG	60
#define SLOT		(GRH_LEN + 4096 + 64)
#define SLOTS		8
#define DEPTH		16

#define SETUP_CHECKS	5
#define DATA_CHECKS	10
#define QKEY_CHECKS	3
#define LEN_CHECKS	4
#define BAD_CHECKS	4
#define PRIV_CHECKS	2
#define TEARDOWN_CHECKS	1

struct env {
	const char *name;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq;		/* every QP's sends */
	struct ibv_mr *mr;
	uint8_t *buf;			/* send area, then SLOTS receive slots */
	union ibv_gid gid;
	int gid_index;
	int gid_tbl_len;
	uint32_t mtu;			/* the port's active MTU, bytes */
	struct ibv_srq *srq;
	struct ibv_ah *ah;		/* to the port's own GID */
};

/* A UD QP and its receive CQ. */
struct udqp {
	struct ibv_qp *qp;
	struct ibv_cq *rcq;
};

static uint8_t *slot(struct env *e, int i)
{
	return e->buf + SLOT + (size_t)i * SLOT;
}

static bool gid_is_ipv4(const union ibv_gid *gid)
{
	static const uint8_t v4_mapped[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(gid->raw, v4_mapped, sizeof(v4_mapped));
}

static bool create_udqp(struct env *e, struct udqp *u, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_UD, .send_cq = e->scq, .srq = srq,
		.cap = { .max_send_wr = DEPTH, .max_send_sge = 1,
			 .max_recv_wr = srq ? 0 : DEPTH,
			 .max_recv_sge = srq ? 0 : 1,
			 .max_inline_data = INLINE_MSG },
	};

	u->rcq = ibv_create_cq(e->ctx, DEPTH, NULL, NULL, 0);
	if (!u->rcq)
		return false;
	init.recv_cq = u->rcq;
	u->qp = ibv_create_qp(e->pd, &init);
	return u->qp;
}

/* RESET -> INIT -> RTR -> RTS with Q_Key qkey; 0 or an errno. */
static int ud_to_rts(struct ibv_qp *qp, uint32_t qkey)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qkey = qkey,
	};
	int err;

	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_QKEY);
	if (err)
		return err;
	a.qp_state = IBV_QPS_RTR;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	if (err)
		return err;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

static struct ibv_ah *make_ah(struct env *e, bool global, int sgid_index)
{
	struct ibv_ah_attr a = {
		.is_global = global,
		.port_num = 1,
		.grh = { .dgid = e->gid, .sgid_index = sgid_index,
			 .hop_limit = 64 },
	};

	return ibv_create_ah(e->pd, &a);
}

/* Post receive slot i (len bytes of it) on qp, or on the SRQ. */
static int post_recv(struct env *e, struct ibv_qp *qp, int i, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)slot(e, i), .length = len,
		.lkey = e->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = 100 + i, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	memset(slot(e, i), 0xee, SLOT);
	return qp ? ibv_post_recv(qp, &wr, &bad) :
		    ibv_post_srq_recv(e->srq, &wr, &bad);
}

/*
 * A signaled SEND of len bytes from the send area (inline, or as one
 * SGE) to remote_qpn at ah with qkey; tag fills the payload.
 */
static int send_to(struct env *e, struct ibv_qp *qp, struct ibv_ah *ah,
		   uint32_t remote_qpn, uint32_t qkey, uint32_t len, int tag,
		   enum ibv_wr_opcode opcode, unsigned int flags)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)e->buf, .length = len, .lkey = e->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = tag, .sg_list = &sge, .num_sge = 1, .opcode = opcode,
		.send_flags = IBV_SEND_SIGNALED | flags,
		.imm_data = htobe32(0xabc00000u + tag),
		.wr.ud = { .ah = ah, .remote_qpn = remote_qpn,
			   .remote_qkey = qkey },
	}, *bad;

	pattern_fill(e->buf, len, tag);
	return ibv_post_send(qp, &wr, &bad);
}

/* The send's completion: status want. */
static bool sent(struct env *e, enum ibv_wc_status want)
{
	struct ibv_wc wc;

	if (!poll_one(e->scq, &wc, 10000))
		return false;
	if (wc.status != want)
		tap_diag("send completion: %s, wanted %s",
			 ibv_wc_status_str(wc.status), ibv_wc_status_str(want));
	return wc.status == want;
}

/* A receive completion of u: successful, from src, len bytes and a GRH. */
static bool received(struct udqp *u, struct ibv_wc *wc, uint32_t src,
		     uint32_t len)
{
	if (!poll_one(u->rcq, wc, 10000)) {
		tap_diag("no receive completion");
		return false;
	}
	if (wc->status != IBV_WC_SUCCESS || wc->opcode != IBV_WC_RECV ||
	    !(wc->wc_flags & IBV_WC_GRH) || wc->src_qp != src ||
	    wc->byte_len != GRH_LEN + len || wc->qp_num != u->qp->qp_num) {
		tap_diag("receive: %s, opcode %d, wc_flags 0x%x, src_qp 0x%x (want 0x%x), byte_len %u (want %u), qp 0x%x",
			 ibv_wc_status_str(wc->status), wc->opcode,
			 wc->wc_flags, wc->src_qp, src, wc->byte_len,
			 GRH_LEN + len, wc->qp_num);
		return false;
	}
	return true;
}

static uint16_t ipv4_checksum(const uint8_t *h)
{
	uint32_t sum = 0;
	int i;

	for (i = 0; i < 20; i += 2)
		sum += h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/*
 * The GRH the device wrote: for IPv4, 20 zero bytes and the IPv4 header
 * (UDP, a valid checksum, from and to the port's address); for IPv6, the
 * IPv6 header (UDP, from and to the port's GID).
 */
static bool grh_ok(struct env *e, const uint8_t *g)
{
	static const uint8_t zero[20];
	const uint8_t *ip = g + 20;

	if (gid_is_ipv4(&e->gid))
		return !memcmp(g, zero, 20) && ip[0] == 0x45 && ip[9] == 17 &&
		       ipv4_checksum(ip) == 0xffff &&
		       !memcmp(ip + 12, e->gid.raw + 12, 4) &&
		       !memcmp(ip + 16, e->gid.raw + 12, 4);
	return g[0] >> 4 == 6 && g[6] == 17 &&
	       !memcmp(g + 8, e->gid.raw, 16) && !memcmp(g + 24, e->gid.raw, 16);
}

static void test_setup(struct env *e, struct udqp *a, struct udqp *b,
		       struct udqp *c)
{
	struct ibv_srq_init_attr sinit = { .attr = { .max_wr = DEPTH,
						     .max_sge = 1 } };
	struct ibv_device_attr dattr;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr qa;
	bool ok;

	ok = !ibv_query_device(e->ctx, &dattr) && dattr.max_ah > 0;
	tap_ok(ok, "ibv_query_device: max_ah %d", ok ? dattr.max_ah : -1);

	e->srq = ibv_create_srq(e->pd, &sinit);
	ok = e->srq && create_udqp(e, a, NULL) && create_udqp(e, b, NULL) &&
	     create_udqp(e, c, e->srq);
	tap_ok(ok, "three UD QPs, one on an SRQ: %s",
	       ok ? "created" : strerror(errno));
	if (!ok)
		tap_bail("no UD QPs");
	tap_ok(!ud_to_rts(a->qp, QKEY) && !ud_to_rts(b->qp, QKEY) &&
	       !ud_to_rts(c->qp, QKEY),
	       "RESET -> INIT (Q_Key 0x%x) -> RTR -> RTS", QKEY);
	ok = !ibv_query_qp(b->qp, &qa, IBV_QP_STATE | IBV_QP_QKEY, &init);
	tap_ok(ok && qa.qp_state == IBV_QPS_RTS && qa.qkey == QKEY &&
	       init.qp_type == IBV_QPT_UD,
	       "ibv_query_qp: state %d, qkey 0x%x, type %d", qa.qp_state,
	       qa.qkey, init.qp_type);
	e->ah = make_ah(e, true, e->gid_index);
	tap_ok(e->ah, "ibv_create_ah to GID %d (%s): %s", e->gid_index,
	       gid_is_ipv4(&e->gid) ? "IPv4" : "IPv6",
	       e->ah ? "created" : strerror(errno));
	if (!e->ah)
		tap_bail("no AH");
}

static void test_data(struct env *e, struct udqp *a, struct udqp *b,
		      struct udqp *c)
{
	struct ibv_ah *reply_ah;
	struct ibv_wc wc;
	bool ok;

	/* a -> b, SEND from an SGE */
	post_recv(e, b->qp, 0, SLOT);
	ok = !send_to(e, a->qp, e->ah, b->qp->qp_num, QKEY, MSG, 1,
		      IBV_WR_SEND, 0);
	tap_ok(ok && sent(e, IBV_WC_SUCCESS), "SEND %d bytes: sent", MSG);
	ok = received(b, &wc, a->qp->qp_num, MSG);
	tap_ok(ok && wc.wr_id == 100 && !(wc.wc_flags & IBV_WC_WITH_IMM),
	       "SEND: received with IBV_WC_GRH, src_qp, byte_len 40 + %d",
	       MSG);
	tap_ok(ok && pattern_ok(slot(e, 0) + GRH_LEN, MSG, 1),
	       "SEND: the data after the GRH");
	tap_ok(ok && grh_ok(e, slot(e, 0)), "SEND: the GRH holds the %s",
	       gid_is_ipv4(&e->gid) ?
	       "IPv4 header at offset 20 (UDP, checksum, addresses)" :
	       "IPv6 header (UDP, GIDs)");

	/* a -> b, SEND_WITH_IMM inline */
	post_recv(e, b->qp, 1, SLOT);
	ok = !send_to(e, a->qp, e->ah, b->qp->qp_num, QKEY, INLINE_MSG, 2,
		      IBV_WR_SEND_WITH_IMM, IBV_SEND_INLINE) &&
	     sent(e, IBV_WC_SUCCESS) &&
	     received(b, &wc, a->qp->qp_num, INLINE_MSG);
	tap_ok(ok && (wc.wc_flags & IBV_WC_WITH_IMM) &&
	       be32toh(wc.imm_data) == 0xabc00002u,
	       "SEND_WITH_IMM inline %d bytes: received with the immediate",
	       INLINE_MSG);
	tap_ok(ok && pattern_ok(slot(e, 1) + GRH_LEN, INLINE_MSG, 2),
	       "SEND_WITH_IMM inline: the data");

	/* a -> c, the QP on the SRQ */
	post_recv(e, NULL, 2, SLOT);
	ok = !send_to(e, a->qp, e->ah, c->qp->qp_num, QKEY, MSG, 3,
		      IBV_WR_SEND, 0) && sent(e, IBV_WC_SUCCESS) &&
	     received(c, &wc, a->qp->qp_num, MSG);
	tap_ok(ok && wc.wr_id == 102,
	       "SEND to the QP on the SRQ: the SRQ's WQE, src_qp");
	tap_ok(ok && pattern_ok(slot(e, 2) + GRH_LEN, MSG, 3),
	       "SEND to the QP on the SRQ: the data");

	/* c answers a through an AH made from its receive's GRH */
	reply_ah = ok ? ibv_create_ah_from_wc(e->pd, &wc,
					      (struct ibv_grh *)slot(e, 2), 1) :
			NULL;
	tap_ok(reply_ah, "ibv_create_ah_from_wc: %s",
	       reply_ah ? "created" : strerror(errno));
	post_recv(e, a->qp, 3, SLOT);
	ok = reply_ah &&
	     !send_to(e, c->qp, reply_ah, wc.src_qp, QKEY, MSG, 4,
		      IBV_WR_SEND, 0) &&
	     sent(e, IBV_WC_SUCCESS) && received(a, &wc, c->qp->qp_num, MSG);
	tap_ok(ok && pattern_ok(slot(e, 3) + GRH_LEN, MSG, 4),
	       "a reply to wc.src_qp over that AH arrives, with its data");
	if (reply_ah)
		ibv_destroy_ah(reply_ah);
}

static void test_qkey(struct env *e, struct udqp *a, struct udqp *b)
{
	long long drops = hw_counter(e->name, "qkey_drops"), after;
	struct ibv_wc wc;
	bool ok;

	post_recv(e, b->qp, 4, SLOT);
	ok = !send_to(e, a->qp, e->ah, b->qp->qp_num, BAD_QKEY, MSG, 5,
		      IBV_WR_SEND, 0) && sent(e, IBV_WC_SUCCESS);
	tap_ok(ok && !poll_one(b->rcq, &wc, 1000),
	       "a SEND with the wrong Q_Key is sent, not delivered");
	ok = !send_to(e, a->qp, e->ah, b->qp->qp_num, QKEY, MSG, 6,
		      IBV_WR_SEND, 0) && sent(e, IBV_WC_SUCCESS) &&
	     received(b, &wc, a->qp->qp_num, MSG);
	tap_ok(ok && wc.wr_id == 104 && pattern_ok(slot(e, 4) + GRH_LEN, MSG, 6),
	       "the receive stayed posted: the next good SEND lands in it");
	after = hw_counter(e->name, "qkey_drops");
	if (drops < 0)
		tap_skip("no qkey_drops counter", "qkey_drops counts the drop");
	else
		tap_ok(after > drops, "qkey_drops counts the drop: %lld -> %lld",
		       drops, after);
}

static void test_lengths(struct env *e, struct udqp *a, struct udqp *b)
{
	struct ibv_wc wc;
	bool ok;

	/* room for the GRH and 16 bytes: 100 do not fit */
	post_recv(e, b->qp, 5, GRH_LEN + 16);
	ok = !send_to(e, a->qp, e->ah, b->qp->qp_num, QKEY, 100, 7,
		      IBV_WR_SEND, 0) && sent(e, IBV_WC_SUCCESS) &&
	     poll_one(b->rcq, &wc, 10000);
	tap_ok(ok && wc.status == IBV_WC_LOC_LEN_ERR && wc.wr_id == 105,
	       "a receive buffer too small completes with IBV_WC_LOC_LEN_ERR: %s",
	       ok ? ibv_wc_status_str(wc.status) : "no completion");
	post_recv(e, b->qp, 6, SLOT);
	ok = !send_to(e, a->qp, e->ah, b->qp->qp_num, QKEY, MSG, 8,
		      IBV_WR_SEND, 0) && sent(e, IBV_WC_SUCCESS) &&
	     received(b, &wc, a->qp->qp_num, MSG);
	tap_ok(ok && pattern_ok(slot(e, 6) + GRH_LEN, MSG, 8),
	       "the QP goes on: the next message is received");

	/* one byte over the MTU: not sent, no error (C10-93.1.1) */
	post_recv(e, b->qp, 7, SLOT);
	ok = !send_to(e, a->qp, e->ah, b->qp->qp_num, QKEY, e->mtu + 1, 9,
		      IBV_WR_SEND, 0) && sent(e, IBV_WC_SUCCESS);
	tap_ok(ok, "a SEND of MTU + 1 = %u bytes completes successfully",
	       e->mtu + 1);
	ok = !send_to(e, a->qp, e->ah, b->qp->qp_num, QKEY, MSG, 10,
		      IBV_WR_SEND, 0) && sent(e, IBV_WC_SUCCESS) &&
	     received(b, &wc, a->qp->qp_num, MSG);
	tap_ok(ok && wc.wr_id == 107 && pattern_ok(slot(e, 7) + GRH_LEN, MSG, 10),
	       "... and is not delivered: the next message takes the receive");
}

/* Drop CAP_NET_RAW from every set of this process. */
static int drop_net_raw(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_TO_INDEX(CAP_NET_RAW)].effective &= ~CAP_TO_MASK(CAP_NET_RAW);
	d[CAP_TO_INDEX(CAP_NET_RAW)].permitted &= ~CAP_TO_MASK(CAP_NET_RAW);
	d[CAP_TO_INDEX(CAP_NET_RAW)].inheritable &= ~CAP_TO_MASK(CAP_NET_RAW);
	return syscall(SYS_capset, &h, d);
}

/*
 * In a child without CAP_NET_RAW, on a context of its own (the kernel
 * refuses commands on a file opened with other credentials): the errno
 * of setting the privileged Q_Key, as exit status; 0 if it was allowed,
 * 100 and up if the set-up failed.
 */
static int unprivileged_qkey(struct env *e)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = PRIV_QKEY,
	};
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_qp *qp;

	if (drop_net_raw())
		return 100;
	ctx = open_device(e->name);
	if (!ctx)
		return 101;
	pd = ibv_alloc_pd(ctx);
	init.send_cq = ibv_create_cq(ctx, 2, NULL, NULL, 0);
	init.recv_cq = init.send_cq;
	qp = pd && init.send_cq ? ibv_create_qp(pd, &init) : NULL;
	if (!qp)
		return 102;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_QKEY);
}

static void test_bad_input(struct env *e, struct udqp *a, struct udqp *b)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_RTS,
				  .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf, .length = 8,
			       .lkey = e->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = { .remote_addr = (uintptr_t)slot(e, 7),
			     .rkey = e->mr->rkey },
	}, *bad = NULL;
	struct ibv_ah *ah;
	int err;

	errno = 0;
	ah = make_ah(e, false, e->gid_index);
	expect_errno(!ah, errno, EINVAL, "ibv_create_ah without a GRH");
	if (ah)
		ibv_destroy_ah(ah);
	if (e->gid_tbl_len > UINT8_MAX) {
		tap_skip("the GID table is larger than sgid_index reaches",
			 "ibv_create_ah with sgid_index = gid_tbl_len");
	} else {
		errno = 0;
		ah = make_ah(e, true, e->gid_tbl_len);
		expect_errno(!ah, errno, EINVAL,
			     "ibv_create_ah with sgid_index = gid_tbl_len");
		if (ah)
			ibv_destroy_ah(ah);
	}

	err = ibv_post_send(a->qp, &wr, &bad);
	expect_errno(err && bad == &wr, err, EINVAL,
		     "RDMA WRITE on a UD QP, at post (bad_wr set)");
	err = ibv_modify_qp(b->qp, &qa, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS);
	expect_errno(err, err, EINVAL,
		     "ibv_modify_qp RTS -> RTS of a UD QP with access flags (RC only)");
}

/*
 * Root may set a privileged Q_Key; a process without CAP_NET_RAW may not.
 * It runs last: the child it forks gets a copy of registered memory the
 * data tests are done with.
 */
static void test_privileged_qkey(struct env *e)
{
	struct udqp priv = {};
	int err, status;
	pid_t pid;

	err = create_udqp(e, &priv, NULL) ? ud_to_rts(priv.qp, PRIV_QKEY) :
					    errno;
	tap_ok(!err, "a privileged Q_Key (0x%x) with CAP_NET_RAW: %s",
	       PRIV_QKEY, err ? strerror(err) : "set");
	if (priv.qp)
		ibv_destroy_qp(priv.qp);
	if (priv.rcq)
		ibv_destroy_cq(priv.rcq);

	fflush(stdout);
	pid = fork();
	if (!pid)
		_exit(unprivileged_qkey(e));
	status = 0;
	err = pid < 0 || waitpid(pid, &status, 0) != pid ||
	      !WIFEXITED(status) ? -1 : WEXITSTATUS(status);
	if (err >= 100 || err < 0)
		tap_diag("child: %s", err < 0 ? "did not exit" :
			 err == 100 ? "capset failed" : "no UD QP");
	expect_errno(err > 0 && err < 100, err, EPERM,
		     "a privileged Q_Key without CAP_NET_RAW");
}

int main(int argc, char **argv)
{
	struct env e = { .name = "axon0", .gid_index = 0 };
	struct udqp a = {}, b = {}, c = {};
	struct ibv_port_attr port;

	if (!dev_args(argc, argv, &e.gid_index, &e.name))
		return 2;

	tap_plan(SETUP_CHECKS + DATA_CHECKS + QKEY_CHECKS + BAD_CHECKS +
		 LEN_CHECKS + PRIV_CHECKS + TEARDOWN_CHECKS);
	e.ctx = open_device(e.name);
	if (!e.ctx)
		tap_bail("no device %s", e.name);
	e.buf = calloc(SLOTS + 1, SLOT);
	if (ibv_query_port(e.ctx, 1, &port) ||
	    ibv_query_gid(e.ctx, 1, e.gid_index, &e.gid) ||
	    !(e.pd = ibv_alloc_pd(e.ctx)) ||
	    !(e.scq = ibv_create_cq(e.ctx, 4 * DEPTH, NULL, NULL, 0)) ||
	    !e.buf ||
	    !(e.mr = ibv_reg_mr(e.pd, e.buf, (SLOTS + 1) * SLOT,
				IBV_ACCESS_LOCAL_WRITE)))
		tap_bail("device set-up: %s", strerror(errno));
	e.mtu = 128u << port.active_mtu;
	e.gid_tbl_len = port.gid_tbl_len;
	tap_diag("%s: active MTU %u, %d GIDs, GID %d", e.name, e.mtu,
		 e.gid_tbl_len, e.gid_index);

	test_setup(&e, &a, &b, &c);
	test_data(&e, &a, &b, &c);
	test_qkey(&e, &a, &b);
	test_bad_input(&e, &a, &b);
	test_lengths(&e, &a, &b);
	test_privileged_qkey(&e);

	tap_ok(!ibv_destroy_ah(e.ah) && !ibv_destroy_qp(c.qp) &&
	       !ibv_destroy_qp(b.qp) && !ibv_destroy_qp(a.qp) &&
	       !ibv_destroy_srq(e.srq) && !ibv_destroy_cq(c.rcq) &&
	       !ibv_destroy_cq(b.rcq) && !ibv_destroy_cq(a.rcq),
	       "destroy the AH, the QPs, the SRQ and the CQs");
	ibv_dereg_mr(e.mr);
	ibv_destroy_cq(e.scq);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	free(e.buf);
	return tap_done();
}
