// SPDX-License-Identifier: GPL-2.0
/*
 * axon-rdma-integrity: RC data integrity through plain libibverbs, on any
 * RoCE device.
 *
 * Two roles: the requester runs every test and prints TAP (tools/lib/tap.h):
 * the plan, then one result per check, why a check failed as a "# " line;
 * the agent owns the remote memory and QPs, and does what the requester asks
 * over a control channel (post receives, fill or check its memory, create
 * MRs). Every byte moved is checked against a pattern from a PRNG seeded
 * per transfer, with background bytes around every region and guard pages
 * outside the MRs checked after every batch.
 *
 * Loopback (default): both roles in one process, QP pairs on one device,
 * the agent in a thread. Two nodes: --server on one, --client HOST on the
 * other; under tools/axon-vm (AXON_NODES=2) node 0 serves and node 1
 * connects to node 0 without options.
 *
 * Usage: axon-rdma-integrity [-d DEV] [-g GID_INDEX] [--quick] [--only GLOB]
 *        [--lossy] [--soak S] [--server | --client HOST] [--tcp-port N]
 *        [--timeout S] [--flow-label N]
 *
 * --lossy: the fabric loses frames. A remote error's NAK may then be lost;
 * the responder's QP is in the error state by then and drops the requests
 * sent again, so the requester's retries run out: RETRY_EXC_ERR is then
 * the right completion where REM_*_ERR is expected (noted in its line).
 *
 * --soak S: instead of the tests, S seconds of mixed traffic (every data
 * operation and atomics, 1 B to 1 MiB) on the same four QPs, checked
 * batch by batch: connections that live long enough for something else
 * to be aimed at them (tools/tests/vm/rdma-forged.sh). One result: how
 * many rounds ran; a failed round is a "# " line.
 *
 * The plan: before anything is sent, the tests run once in a counting
 * pass (counting: no transfer, no QP, no call to the agent) that counts
 * the results they will report, honouring --quick and --only; the names
 * the pass matches --only against take the QPs' capabilities from a QP
 * created for that and destroyed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <axon/axon_admin_cmds_defs.h>

#include "rdma-xfer.h"
#include "tap.h"

#define MAX_QP		16
#define MAX_SGE		16
#define MAX_XFER	256
#define QP_DEPTH	256
#define GUARD		4096
#define AREA		((16u << 20) + (64u << 10))	/* data area of a buffer */
#define MARGIN		64	/* background bytes checked around a region */
#define SGE_GAP		3	/* bytes between scatter/gather pieces */
#define BG_SALT		0x6a09e667f3bcc908ULL
#define GUARD_SEED	0xbb67ae8584caa73bULL
#define TCP_PORT	18779
#define LATE_RECV_MS	300

static struct {
	struct xfer_opts x;
	bool quick;
	bool lossy;
	const char *only;
	double soak;
} opt = { .x = { .gid_index = -1, .timeout = 60, .tcp_port = TCP_PORT } };

/* ---- patterns --------------------------------------------------------- */

/* A message scattered over pieces of a buffer (offsets in its area). */
struct piece {
	int64_t off;
	uint64_t len;
};

/* Split len bytes at off into n pieces of uneven sizes, SGE_GAP apart. */
static unsigned int layout(int64_t off, uint64_t len, unsigned int n,
			   struct piece *p)
{
	uint64_t base, d, sum = 0, l;
	unsigned int i;

	if (!len)
		return 0;
	if (n > len)
		n = len;
	if (n < 1)
		n = 1;
	base = len / n;
	d = base / 3;
	for (i = 0; i < n; i++) {
		l = i + 1 == n ? len - sum : (i % 2 ? base - d : base + d);
		p[i].off = off + (int64_t)(sum + (uint64_t)i * SGE_GAP);
		p[i].len = l;
		sum += l;
	}
	return n;
}

/* Write the first len bytes of stream seed over the pieces; base is the
 * address of area offset base_off. */
static void put_stream(uint8_t *base, int64_t base_off, const struct piece *p,
		       unsigned int n, uint64_t len, uint64_t seed)
{
	struct stream g = stream_at(seed, 0);
	uint64_t l;
	unsigned int i;

	for (i = 0; i < n && len; i++, len -= l) {
		l = p[i].len < len ? p[i].len : len;
		stream_bytes(&g, base + (p[i].off - base_off), l);
	}
}

static void put_bg(uint8_t *dst, uint64_t n, uint64_t seed)
{
	struct stream g = stream_at(seed ^ BG_SALT, 0);

	stream_bytes(&g, dst, n);
}

/* The area span [*lo, *hi) of pieces plus margins (at: where n == 0). */
static void span(const struct piece *p, unsigned int n, int64_t at,
		 int64_t *lo, int64_t *hi)
{
	*lo = (n ? p[0].off : at) - MARGIN;
	*hi = (n ? p[n - 1].off + (int64_t)p[n - 1].len : at) + MARGIN;
	if (*lo < 0)
		*lo = 0;
	if (*hi > (int64_t)AREA)
		*hi = AREA;
	if (*hi < *lo)
		*hi = *lo;
}

/* The pieces lie in the area (an out-of-bounds test's may not). */
static bool inside(const struct piece *p, unsigned int n)
{
	return !n || (p[0].off >= 0 &&
		      p[n - 1].off + (int64_t)p[n - 1].len <= (int64_t)AREA);
}

static bool same(const uint8_t *got, const uint8_t *want, uint64_t n,
		 int64_t at, const char *what, char *why, size_t whylen)
{
	uint64_t i, bad = 0, first = 0;

	if (!memcmp(got, want, n))
		return true;
	for (i = 0; i < n; i++)
		if (got[i] != want[i] && !bad++)
			first = i;
	snprintf(why, whylen, "%s: %" PRIu64 " byte(s) wrong, first at area offset %"
		 PRId64 ": 0x%02x, want 0x%02x", what, bad, at + (int64_t)first,
		 got[first], want[first]);
	return false;
}

/* ---- the control channel ------------------------------------------------ */

enum cmd {
	CMD_HELLO, CMD_CONN, CMD_PREP, CMD_LATE, CMD_CHECK, CMD_MR,
	CMD_DISCONNECT, CMD_QUIT,
};

struct caps {
	uint32_t max_sge, max_sge_rd, max_qp_wr, max_cqe, atomic, rd_atom, mtu;
	uint64_t max_msg;
};

struct qp_info {
	uint32_t qpn[MAX_QP], psn[MAX_QP];
	uint8_t gid[16];
	uint32_t mtu, rkey;
	uint64_t addr;
};

struct conn_opts {
	uint32_t nqp, depth, max_sge, max_inline, rd_atom;
	uint32_t rnr_timer;	/* the agent's min_rnr_timer */
	uint32_t rnr_retry;	/* the requester's */
	uint32_t psn_base;	/* 0: random PSNs */
	uint64_t seed;
};

struct req {
	uint32_t cmd;
	uint32_t n;		/* PREP: xfers that follow; CHECK: the requester
				 * failed (do not wait); LATE: delay in ms;
				 * QUIT: number of failures */
	struct conn_opts conn;
	struct qp_info info;
	uint32_t mr_access, mr_other_pd, mr_dereg;
};

struct reply {
	int32_t ok;
	char why[256];
	struct caps caps;
	struct qp_info info;
	uint32_t rkey, stale_rkey;
};

/* ---- one side: device, PD, the registered area ----------------------------- */

struct side {
	struct rdma_dev d;
	struct ibv_pd *pd, *pd2;
	uint8_t *buf, *area, *scratch, *guard;
	struct ibv_mr *mr;
	int fd;
};

static void side_open(struct side *s)
{
	size_t len = AREA + 2 * GUARD;

	rdma_open(&s->d, &opt.x);
	s->pd = ibv_alloc_pd(s->d.ctx);
	s->pd2 = ibv_alloc_pd(s->d.ctx);
	if (!s->pd || !s->pd2)
		die("setup: ibv_alloc_pd: %s", strerror(errno));
	s->buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	s->scratch = malloc(AREA);
	s->guard = malloc(GUARD);
	if (s->buf == MAP_FAILED || !s->scratch || !s->guard)
		die("setup: out of memory");
	s->area = s->buf + GUARD;
	put_bg(s->guard, GUARD, GUARD_SEED);
	memcpy(s->buf, s->guard, GUARD);
	memcpy(s->area + AREA, s->guard, GUARD);
	s->mr = ibv_reg_mr(s->pd, s->area, AREA, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC);
	if (!s->mr)
		die("setup: ibv_reg_mr of %u bytes: %s", AREA, strerror(errno));
}

static void side_close(struct side *s)
{
	ibv_dereg_mr(s->mr);
	ibv_dealloc_pd(s->pd2);
	ibv_dealloc_pd(s->pd);
	ibv_close_device(s->d.ctx);
	munmap(s->buf, AREA + 2 * GUARD);
	free(s->scratch);
	free(s->guard);
}

static struct caps side_caps(const struct side *s)
{
	return (struct caps){
		.max_sge = s->d.attr.max_sge,
		.max_sge_rd = s->d.attr.max_sge_rd ? s->d.attr.max_sge_rd :
			      s->d.attr.max_sge,
		.max_qp_wr = s->d.attr.max_qp_wr,
		.max_cqe = s->d.attr.max_cqe,
		.atomic = s->d.attr.atomic_cap,
		.rd_atom = s->d.attr.max_qp_rd_atom < s->d.attr.max_qp_init_rd_atom ?
			   s->d.attr.max_qp_rd_atom : s->d.attr.max_qp_init_rd_atom,
		.mtu = s->d.port.active_mtu,
		.max_msg = s->d.port.max_msg_sz,
	};
}

static bool guards_ok(struct side *s, char *why, size_t whylen)
{
	return same(s->buf, s->guard, GUARD, -GUARD, "guard below the MR",
		    why, whylen) &&
	       same(s->area + AREA, s->guard, GUARD, AREA,
		    "guard above the MR", why, whylen);
}

/* ---- connections ------------------------------------------------------------ */

struct conn {
	unsigned int n;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp[MAX_QP];
	struct ibv_qp_cap cap;
	uint32_t psn[MAX_QP];
};

static void conn_destroy(struct conn *c)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		if (c->qp[i])
			ibv_destroy_qp(c->qp[i]);
	if (c->scq)
		ibv_destroy_cq(c->scq);
	if (c->rcq)
		ibv_destroy_cq(c->rcq);
	memset(c, 0, sizeof(*c));
}

static bool fail_errno(char *why, size_t whylen, const char *what, int err)
{
	snprintf(why, whylen, "%s: %s", what, strerror(err));
	return false;
}

/* Create the CQs and QPs (in INIT) and describe them in *info. */
static bool conn_create(struct side *s, struct conn *c,
			const struct conn_opts *o, struct qp_info *info,
			char *why, size_t whylen)
{
	struct ibv_qp_init_attr init = {
		.cap = {
			.max_send_wr = o->depth, .max_recv_wr = o->depth,
			.max_send_sge = o->max_sge, .max_recv_sge = o->max_sge,
		},
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};
	int cqe = o->nqp * o->depth, inl = o->max_inline;
	uint64_t seed = o->seed;

	memset(c, 0, sizeof(*c));
	memset(info, 0, sizeof(*info));
	if (o->nqp > MAX_QP) {
		snprintf(why, whylen, "%u QPs", o->nqp);
		return false;
	}
	if (cqe > s->d.attr.max_cqe)
		cqe = s->d.attr.max_cqe;
	c->scq = ibv_create_cq(s->d.ctx, cqe, NULL, NULL, 0);
	c->rcq = ibv_create_cq(s->d.ctx, cqe, NULL, NULL, 0);
	if (!c->scq || !c->rcq)
		return fail_errno(why, whylen, "ibv_create_cq", errno);
	init.send_cq = c->scq;
	init.recv_cq = c->rcq;
	for (c->n = 0; c->n < o->nqp; c->n++) {
		/* the largest inline size the device takes, up to max_inline */
		for (;; inl /= 2) {
			init.cap.max_inline_data = inl;
			c->qp[c->n] = ibv_create_qp(s->pd, &init);
			if (c->qp[c->n] || !inl)
				break;
		}
		if (!c->qp[c->n])
			return fail_errno(why, whylen, "ibv_create_qp", errno);
		if (!c->n)
			c->cap = init.cap;
		if (ibv_modify_qp(c->qp[c->n], &attr, IBV_QP_STATE |
				  IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS))
			return fail_errno(why, whylen, "modify_qp to INIT", errno);
		c->psn[c->n] = o->psn_base ?
			       (o->psn_base + c->n) & AXON_PSN_MASK :
			       splitmix(&seed) & AXON_PSN_MASK;
		info->qpn[c->n] = c->qp[c->n]->qp_num;
		info->psn[c->n] = c->psn[c->n];
	}
	memcpy(info->gid, s->d.gid.raw, 16);
	info->mtu = s->d.port.active_mtu;
	info->addr = (uintptr_t)s->area;
	info->rkey = s->mr->rkey;
	return true;
}

/* INIT -> RTR -> RTS against the peer's QPs. */
static bool conn_connect(struct side *s, struct conn *c,
			 const struct conn_opts *o, const struct qp_info *peer,
			 uint32_t rnr_retry, char *why, size_t whylen)
{
	struct rc_peer p = { .mtu = peer->mtu };
	const char *what;
	unsigned int i;
	int err;

	memcpy(p.gid, peer->gid, 16);
	for (i = 0; i < c->n; i++) {
		p.qpn = peer->qpn[i];
		p.psn = peer->psn[i];
		err = rc_connect(&s->d, c->qp[i], &p, c->psn[i], o->rd_atom,
				 o->rnr_timer, rnr_retry, &what);
		if (err)
			return fail_errno(why, whylen, what, err);
	}
	return true;
}

/* ---- transfers ------------------------------------------------------------- */

enum {
	XF_NOFILL = 1,		/* the source is what the READ before fetched */
	XF_WAIT = 2,		/* post after every earlier completion */
	XF_NORECV = 4,		/* the agent posts no receive */
	XF_LATE_RECV = 8,	/* ... only after LATE_RECV_MS */
	XF_INIT = 16,		/* atomics: the agent stores init first */
	XF_FINAL = 32,		/* atomics: the agent checks final after */
	XF_SCRIBBLE = 64,	/* inline: overwrite the source once posted */
	XF_CHAIN = 128,		/* same seed (data, background) as the one before */
};

enum { KEY_OK, KEY_BAD, KEY_SPECIAL };

struct xfer {
	uint32_t qp, op, send_flags, imm;
	uint32_t lsge, rsge, flags;
	uint32_t expect;	/* ibv_wc_status at the requester */
	uint32_t rxe_expect;	/* ... that rdma_rxe gives instead (0: same) */
	uint32_t rexpect;	/* ... of the agent's receive */
	uint32_t rxe_rexpect;	/* ... that rdma_rxe gives instead (0: same) */
	uint32_t lkey_mode, rkey_mode;
	uint64_t len, loff, seed;
	int64_t roff, rextra;	/* rextra: receive capacity - len */
	uint64_t add_cmp, swap, init, old, final;
};

/* The agent's receive of x completes (with rexpect). */
static bool recv_completes(const struct xfer *x)
{
	return wr_has_recv(x->op) && !(x->flags & XF_NORECV) &&
	       (x->expect == IBV_WC_SUCCESS || x->rexpect != IBV_WC_SUCCESS);
}

/* The pieces of x in the requester's area. */
static unsigned int local_pieces(const struct xfer *x, struct piece *p)
{
	if (wr_is_atomic(x->op)) {
		p[0] = (struct piece){ x->loff, 8 };
		return 1;
	}
	return layout(x->loff, x->len, x->lsge, p);
}

/* The pieces of x in the agent's area. */
static unsigned int remote_pieces(const struct xfer *x, struct piece *p)
{
	if (wr_is_atomic(x->op)) {
		p[0] = (struct piece){ x->roff, 8 };
		return 1;
	}
	if (wr_is_send(x->op))
		return layout(x->roff, x->len + x->rextra, x->rsge, p);
	return layout(x->roff, x->len, 1, p);
}

/* Poll cq once; yield (and after a while sleep) when it is empty. */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, unsigned int *idle)
{
	int n = ibv_poll_cq(cq, 1, wc);

	if (n) {
		*idle = 0;
		return n;
	}
	if (++*idle > 1000)
		usleep(100);
	else
		sched_yield();
	return 0;
}

/* ---- the agent ----------------------------------------------------------- */

struct agent {
	struct side s;
	bool rxe;
	struct conn c;
	struct conn_opts o;
	struct xfer xs[MAX_XFER];
	unsigned int n;
	struct ibv_mr *special;
};

static bool agent_post_recv(struct agent *a, unsigned int i, char *why,
			    size_t whylen)
{
	const struct xfer *x = &a->xs[i];
	struct ibv_recv_wr wr = { .wr_id = i }, *bad;
	struct ibv_sge sge[MAX_SGE];
	struct piece p[MAX_SGE];
	unsigned int n = 0, k;
	int ret;

	if (wr_is_send(x->op))
		n = layout(x->roff, x->len + x->rextra, x->rsge, p);
	for (k = 0; k < n; k++)
		sge[k] = (struct ibv_sge){ (uintptr_t)a->s.area + p[k].off,
					   p[k].len, a->s.mr->lkey };
	wr.sg_list = n ? sge : NULL;
	wr.num_sge = n;
	ret = ibv_post_recv(a->c.qp[x->qp], &wr, &bad);
	if (ret)
		return fail_errno(why, whylen, "ibv_post_recv", ret);
	return true;
}

/* Background around every region; the data a READ fetches; receives. */
static bool agent_prep(struct agent *a, char *why, size_t whylen)
{
	struct piece p[MAX_SGE];
	unsigned int i, n;
	int64_t lo, hi;

	for (i = 0; i < a->n; i++) {
		const struct xfer *x = &a->xs[i];

		if (x->qp >= a->c.n || x->rsge > MAX_SGE) {
			snprintf(why, whylen, "bad transfer %u", i);
			return false;
		}
		if (wr_is_atomic(x->op) && !(x->flags & XF_INIT))
			continue;
		n = remote_pieces(x, p);
		span(p, n, x->roff, &lo, &hi);
		put_bg(a->s.area + lo, hi - lo, x->seed);
		if (x->op == IBV_WR_RDMA_READ && inside(p, n))
			put_stream(a->s.area, 0, p, n, x->len, x->seed);
		if (wr_is_atomic(x->op))
			memcpy(a->s.area + x->roff, &x->init, 8);
		if (wr_has_recv(x->op) &&
		    !(x->flags & (XF_NORECV | XF_LATE_RECV)) &&
		    !agent_post_recv(a, i, why, whylen))
			return false;
	}
	return true;
}

static bool agent_late(struct agent *a, unsigned int ms, char *why,
		       size_t whylen)
{
	unsigned int i;

	usleep(ms * 1000);
	for (i = 0; i < a->n; i++)
		if ((a->xs[i].flags & XF_LATE_RECV) &&
		    !agent_post_recv(a, i, why, whylen))
			return false;
	return true;
}

static bool agent_check_wc(struct agent *a, const struct ibv_wc *wc,
			   int64_t *last, char *why, size_t whylen)
{
	const struct xfer *x;

	if (wc->wr_id >= a->n) {
		snprintf(why, whylen, "receive completion with unknown wr_id %"
			 PRIu64, wc->wr_id);
		return false;
	}
	x = &a->xs[wc->wr_id];
	if (!recv_completes(x)) {
		if (wc->status == IBV_WC_WR_FLUSH_ERR)
			return true;
		snprintf(why, whylen, "unexpected receive completion for %s #%"
			 PRIu64 ": %s", wr_op_name(x->op), wc->wr_id,
			 ibv_wc_status_str(wc->status));
		return false;
	}
	if (wc->status != x->rexpect &&
	    !(a->rxe && x->rxe_rexpect && wc->status == x->rxe_rexpect)) {
		snprintf(why, whylen, "receive of %s #%" PRIu64 " (%" PRIu64
			 " B): status %s, want %s", wr_op_name(x->op), wc->wr_id,
			 x->len, ibv_wc_status_str(wc->status),
			 ibv_wc_status_str(x->rexpect));
		return false;
	}
	if (wc->qp_num != a->c.qp[x->qp]->qp_num) {
		snprintf(why, whylen, "receive #%" PRIu64 ": qp_num %u, want %u",
			 wc->wr_id, wc->qp_num, a->c.qp[x->qp]->qp_num);
		return false;
	}
	if ((int64_t)wc->wr_id <= last[x->qp]) {
		snprintf(why, whylen, "receive #%" PRIu64 " completed after #%"
			 PRId64 " on QP %u", wc->wr_id, last[x->qp], x->qp);
		return false;
	}
	last[x->qp] = wc->wr_id;
	if (wc->status != IBV_WC_SUCCESS)
		return true;
	if (wc->opcode != wr_recv_wc_opcode(x->op)) {
		snprintf(why, whylen, "receive #%" PRIu64 ": opcode %d",
			 wc->wr_id, wc->opcode);
		return false;
	}
	if (wc->byte_len != x->len) {
		snprintf(why, whylen, "receive of %s #%" PRIu64 ": byte_len %u, want %"
			 PRIu64, wr_op_name(x->op), wc->wr_id, wc->byte_len, x->len);
		return false;
	}
	if (!!(wc->wc_flags & IBV_WC_WITH_IMM) != wr_has_imm(x->op) ||
	    (wr_has_imm(x->op) && ntohl(wc->imm_data) != x->imm)) {
		snprintf(why, whylen, "receive of %s #%" PRIu64 ": immediate %s0x%08x, want 0x%08x",
			 wr_op_name(x->op), wc->wr_id,
			 wc->wc_flags & IBV_WC_WITH_IMM ? "" : "(none) ",
			 ntohl(wc->imm_data), x->imm);
		return false;
	}
	return true;
}

/* The data expected in the agent's area after x. */
static bool agent_check_mem(struct agent *a, const struct xfer *x,
			    char *why, size_t whylen)
{
	bool ok = x->expect == IBV_WC_SUCCESS;
	struct piece p[MAX_SGE];
	unsigned int n;
	int64_t lo, hi;
	uint8_t *img = a->s.scratch;

	if (wr_is_atomic(x->op) && !(x->flags & XF_FINAL))
		return true;
	n = remote_pieces(x, p);
	span(p, n, x->roff, &lo, &hi);
	put_bg(img, hi - lo, x->seed);
	if (wr_is_atomic(x->op))
		memcpy(img + (x->roff - lo), ok ? &x->final : &x->init, 8);
	else if ((x->op == IBV_WR_RDMA_READ || ok) && inside(p, n))
		put_stream(img, lo, p, n, x->len, x->seed);
	return same(a->s.area + lo, img, hi - lo, lo, wr_op_name(x->op), why, whylen);
}

static bool agent_check(struct agent *a, bool quick, char *why, size_t whylen)
{
	int64_t last[MAX_QP];
	unsigned int i, want = 0, got = 0, idle = 0;
	double end = now() + (quick ? 1 : opt.x.timeout);
	struct ibv_wc wc;
	bool ok = true;

	for (i = 0; i < MAX_QP; i++)
		last[i] = -1;
	for (i = 0; i < a->n; i++)
		want += recv_completes(&a->xs[i]);
	while (got < want && now() < end) {
		if (!poll_one(a->c.rcq, &wc, &idle))
			continue;
		if (!agent_check_wc(a, &wc, last, why, whylen) && ok)
			ok = false;
		if (wc.wr_id < a->n && recv_completes(&a->xs[wc.wr_id]))
			got++;
	}
	if (ok && got < want) {
		snprintf(why, whylen, "%u of %u receive completion(s) after %g s",
			 got, want, quick ? 1 : opt.x.timeout);
		ok = false;
	}
	/* nothing more than expected (flushes aside) */
	while (ok && ibv_poll_cq(a->c.rcq, 1, &wc) > 0)
		ok = agent_check_wc(a, &wc, last, why, whylen);
	for (i = 0; ok && i < a->n; i++)
		ok = agent_check_mem(a, &a->xs[i], why, whylen);
	return ok && guards_ok(&a->s, why, whylen);
}

static bool agent_mr(struct agent *a, const struct req *r, struct reply *rep)
{
	struct ibv_pd *pd = r->mr_other_pd ? a->s.pd2 : a->s.pd;
	struct ibv_mr *mr;

	if (a->special)
		ibv_dereg_mr(a->special);
	a->special = NULL;
	if (r->mr_dereg) {
		mr = ibv_reg_mr(pd, a->s.area, AREA, r->mr_access);
		if (!mr)
			return fail_errno(rep->why, sizeof(rep->why), "ibv_reg_mr", errno);
		rep->stale_rkey = mr->rkey;
		if (ibv_dereg_mr(mr))
			return fail_errno(rep->why, sizeof(rep->why), "ibv_dereg_mr", errno);
	}
	if (!r->mr_access)
		return true;
	a->special = ibv_reg_mr(pd, a->s.area, AREA, r->mr_access);
	if (!a->special)
		return fail_errno(rep->why, sizeof(rep->why), "ibv_reg_mr", errno);
	rep->rkey = a->special->rkey;
	return true;
}

/* The agent: arg is its struct agent (an xfer_loopback() agent). */
static int agent_run(void *arg)
{
	struct agent *a = arg;
	struct req r;
	struct reply rep;
	int fd = a->s.fd;

	a->rxe = !strncmp(opt.x.dev, "rxe", 3);
	for (;;) {
		ctl_read(fd, &r, sizeof(r));
		memset(&rep, 0, sizeof(rep));
		rep.ok = 1;
		switch (r.cmd) {
		case CMD_HELLO:
			rep.caps = side_caps(&a->s);
			break;
		case CMD_CONN:
			conn_destroy(&a->c);
			a->o = r.conn;
			rep.ok = conn_create(&a->s, &a->c, &r.conn, &rep.info,
					     rep.why, sizeof(rep.why)) &&
				 conn_connect(&a->s, &a->c, &r.conn, &r.info, 7,
					      rep.why, sizeof(rep.why));
			break;
		case CMD_PREP:
			if (r.n > MAX_XFER)
				die("agent: %u transfers", r.n);
			a->n = r.n;
			ctl_read(fd, a->xs, r.n * sizeof(a->xs[0]));
			rep.ok = agent_prep(a, rep.why, sizeof(rep.why));
			break;
		case CMD_LATE:
			rep.ok = agent_late(a, r.n, rep.why, sizeof(rep.why));
			break;
		case CMD_CHECK:
			rep.ok = agent_check(a, r.n, rep.why, sizeof(rep.why));
			break;
		case CMD_MR:
			rep.ok = agent_mr(a, &r, &rep);
			break;
		case CMD_DISCONNECT:
			conn_destroy(&a->c);
			break;
		case CMD_QUIT:
			ctl_write(fd, &rep, sizeof(rep));
			if (a->special)
				ibv_dereg_mr(a->special);
			side_close(&a->s);
			return r.n ? 1 : 0;
		default:
			die("agent: unknown command %u", r.cmd);
		}
		ctl_write(fd, &rep, sizeof(rep));
	}
}

/* ---- the requester ---------------------------------------------------------- */

struct env {
	struct side s;
	struct caps caps;	/* what both sides can do */
	struct conn c;
	struct conn_opts o;
	struct qp_info remote;
	bool connected;
	bool rxe;		/* rdma_rxe: its documented deviations pass */
	uint32_t special_rkey;	/* the agent's special MR */
	struct ibv_mr *other_pd_mr;	/* the area, in pd2 */
	uint64_t seed;
	char conn_why[320];
	bool group;		/* run() reports to the group, not on its own */
	char group_why[256];	/* a failed run() of the group: why */
};

/* The counting pass (see the top of the file): what would be reported. */
static bool counting;
static unsigned int counted;

static void report(struct env *e, bool ok, const char *name, const char *why)
{
	if (counting) {
		counted++;
		return;
	}
	if (e->group) {
		if (!ok)
			snprintf(e->group_why, sizeof(e->group_why), "%s: %s",
				 name, why);
		return;
	}
	if (!tap_ok(ok, "%s", name))
		tap_diag("%s", why);
}

static void skip(struct env *e, const char *name, const char *why)
{
	(void)e;
	if (opt.only && fnmatch(opt.only, name, 0))
		return;
	if (counting)
		counted++;
	else
		tap_skip(why, "%s", name);
}

static struct reply call(struct env *e, struct req *r, const void *extra,
			 size_t len)
{
	struct reply rep;

	ctl_write(e->s.fd, r, sizeof(*r));
	if (len)
		ctl_write(e->s.fd, extra, len);
	ctl_read(e->s.fd, &rep, sizeof(rep));
	rep.why[sizeof(rep.why) - 1] = 0;
	return rep;
}

static void disconnect(struct env *e)
{
	struct req r = { .cmd = CMD_DISCONNECT };

	if (!e->connected)
		return;
	call(e, &r, NULL, 0);
	conn_destroy(&e->c);
	e->connected = false;
}

/* Fresh QPs on both sides. */
static bool connect_qps(struct env *e, unsigned int nqp, uint32_t rnr_retry,
			uint32_t rnr_timer, uint32_t psn_base)
{
	struct req r = { .cmd = CMD_CONN };
	struct reply rep;

	disconnect(e);
	e->o = (struct conn_opts){
		.nqp = nqp, .depth = QP_DEPTH, .rd_atom = e->caps.rd_atom,
		.max_sge = e->caps.max_sge < MAX_SGE ? e->caps.max_sge : MAX_SGE,
		.max_inline = 256,
		.rnr_timer = rnr_timer, .rnr_retry = rnr_retry,
		.psn_base = psn_base, .seed = splitmix(&e->seed),
	};
	if (e->o.depth > e->caps.max_qp_wr)
		e->o.depth = e->caps.max_qp_wr;
	if (counting)
		return true;
	if (!conn_create(&e->s, &e->c, &e->o, &r.info, e->conn_why,
			 sizeof(e->conn_why))) {
		conn_destroy(&e->c);
		return false;
	}
	r.conn = e->o;
	r.conn.seed ^= 1;
	rep = call(e, &r, NULL, 0);
	e->connected = true;
	if (!rep.ok) {
		snprintf(e->conn_why, sizeof(e->conn_why), "agent: %s", rep.why);
		disconnect(e);
		return false;
	}
	e->remote = rep.info;
	if (!conn_connect(&e->s, &e->c, &e->o, &rep.info, rnr_retry,
			  e->conn_why, sizeof(e->conn_why))) {
		disconnect(e);
		return false;
	}
	return true;
}

static uint32_t lkey_of(struct env *e, const struct xfer *x)
{
	switch (x->lkey_mode) {
	case KEY_BAD: return e->s.mr->lkey ^ 0xa5;
	case KEY_SPECIAL: return e->other_pd_mr->lkey;
	}
	return e->s.mr->lkey;
}

static uint32_t rkey_of(struct env *e, const struct xfer *x)
{
	switch (x->rkey_mode) {
	case KEY_BAD: return e->remote.rkey ^ 0xa5;
	case KEY_SPECIAL: return e->special_rkey;
	}
	return e->remote.rkey;
}

static bool post(struct env *e, const struct xfer *x, unsigned int id,
		 char *why, size_t whylen)
{
	struct ibv_send_wr wr = { .wr_id = id }, *bad;
	struct ibv_sge sge[MAX_SGE];
	struct piece p[MAX_SGE];
	uint64_t raddr = e->remote.addr + x->roff;
	unsigned int n, k;
	int ret;

	n = local_pieces(x, p);
	for (k = 0; k < n; k++)
		sge[k] = (struct ibv_sge){ (uintptr_t)e->s.area + p[k].off,
					   p[k].len, lkey_of(e, x) };
	wr.sg_list = n ? sge : NULL;
	wr.num_sge = n;
	wr.opcode = x->op;
	wr.send_flags = x->send_flags;
	if (wr_has_imm(x->op))
		wr.imm_data = htonl(x->imm);
	if (wr_is_atomic(x->op)) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.compare_add = x->add_cmp;
		wr.wr.atomic.swap = x->swap;
		wr.wr.atomic.rkey = rkey_of(e, x);
	} else if (!wr_is_send(x->op)) {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey_of(e, x);
	}
	ret = ibv_post_send(e->c.qp[x->qp], &wr, &bad);
	if (ret) {
		snprintf(why, whylen, "ibv_post_send of %s #%u: %s",
			 wr_op_name(x->op), id, strerror(ret));
		return false;
	}
	if (x->flags & XF_SCRIBBLE)
		for (k = 0; k < n; k++)
			memset(e->s.area + p[k].off, 0xee, p[k].len);
	return true;
}

/* Local sources and destinations, before posting. */
static void local_prep(struct env *e, const struct xfer *x)
{
	struct piece p[MAX_SGE];
	unsigned int n = local_pieces(x, p);
	int64_t lo, hi;

	if (x->flags & XF_NOFILL)
		return;
	span(p, n, x->loff, &lo, &hi);
	put_bg(e->s.area + lo, hi - lo, x->seed ^ 1);
	if (!wr_is_atomic(x->op) && x->op != IBV_WR_RDMA_READ)
		put_stream(e->s.area, 0, p, n, x->len, x->seed);
}

/* A READ's data or an atomic's old value landed, and nothing else. */
static bool local_check(struct env *e, const struct xfer *x, char *why,
			size_t whylen)
{
	bool ok = x->expect == IBV_WC_SUCCESS;
	struct piece p[MAX_SGE];
	unsigned int n;
	int64_t lo, hi;
	uint8_t *img = e->s.scratch;

	if (x->op != IBV_WR_RDMA_READ && !wr_is_atomic(x->op))
		return true;
	n = local_pieces(x, p);
	span(p, n, x->loff, &lo, &hi);
	put_bg(img, hi - lo, x->seed ^ 1);
	if (ok && wr_is_atomic(x->op))
		memcpy(img + (x->loff - lo), &x->old, 8);
	else if (ok)
		put_stream(img, lo, p, n, x->len, x->seed);
	if (ok && wr_is_atomic(x->op) && memcmp(e->s.area + x->loff, &x->old, 8)) {
		uint64_t got;

		memcpy(&got, e->s.area + x->loff, 8);
		snprintf(why, whylen, "%s returned 0x%" PRIx64 ", want 0x%" PRIx64,
			 wr_op_name(x->op), got, x->old);
		return false;
	}
	return same(e->s.area + lo, img, hi - lo, lo, "local", why, whylen);
}

struct batch {
	struct xfer *xs;
	unsigned int n, posted, expected, got;
	double timeout;		/* --timeout, plus 1 s per 64 KiB moved */
	int64_t last[MAX_QP];
	bool ok;
	char why[320], note[80];
};

static void batch_fail(struct batch *b, const char *fmt, ...)
{
	va_list ap;

	if (!b->ok)
		return;
	b->ok = false;
	va_start(ap, fmt);
	vsnprintf(b->why, sizeof(b->why), fmt, ap);
	va_end(ap);
}

/* A status the responder reports in a NAK. */
static bool remote_error(uint32_t status)
{
	return status == IBV_WC_REM_ACCESS_ERR ||
	       status == IBV_WC_REM_INV_REQ_ERR || status == IBV_WC_REM_OP_ERR;
}

static void on_wc(struct env *e, struct batch *b, const struct ibv_wc *wc)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	const struct xfer *x;

	if (wc->wr_id >= b->posted) {
		batch_fail(b, "completion with unknown wr_id %" PRIu64, wc->wr_id);
		return;
	}
	x = &b->xs[wc->wr_id];
	if ((int64_t)wc->wr_id <= b->last[x->qp])
		batch_fail(b, "%s #%" PRIu64 " completed after #%" PRId64 " on QP %u",
			   wr_op_name(x->op), wc->wr_id, b->last[x->qp], x->qp);
	b->last[x->qp] = wc->wr_id;
	if (e->rxe && x->rxe_expect && wc->status == x->rxe_expect) {
		snprintf(b->note, sizeof(b->note), " [rxe deviation: %s]",
			 ibv_wc_status_str(wc->status));
	} else if (opt.lossy && wc->status == IBV_WC_RETRY_EXC_ERR &&
		   remote_error(x->expect)) {
		snprintf(b->note, sizeof(b->note), " [%s lost on the fabric: "
			 "%s]", ibv_wc_status_str(x->expect),
			 ibv_wc_status_str(wc->status));
	} else if (wc->status != x->expect) {
		batch_fail(b, "%s #%" PRIu64 " (%" PRIu64 " B, QP %u): status %s, want %s",
			   wr_op_name(x->op), wc->wr_id, x->len, x->qp,
			   ibv_wc_status_str(wc->status),
			   ibv_wc_status_str(x->expect));
		return;
	}
	if (wc->qp_num != e->c.qp[x->qp]->qp_num)
		batch_fail(b, "%s #%" PRIu64 ": qp_num %u, want %u", wr_op_name(x->op),
			   wc->wr_id, wc->qp_num, e->c.qp[x->qp]->qp_num);
	if (wc->status == IBV_WC_SUCCESS) {
		if (!(x->send_flags & IBV_SEND_SIGNALED))
			batch_fail(b, "a completion for unsignaled %s #%" PRIu64,
				   wr_op_name(x->op), wc->wr_id);
		if (wc->opcode != wr_wc_opcode(x->op))
			batch_fail(b, "%s #%" PRIu64 ": completion opcode %d, want %d",
				   wr_op_name(x->op), wc->wr_id, wc->opcode,
				   wr_wc_opcode(x->op));
		return;
	}
	/* an error completion moves the QP to the error state */
	if (ibv_query_qp(e->c.qp[x->qp], &attr, IBV_QP_STATE, &init))
		batch_fail(b, "ibv_query_qp: %s", strerror(errno));
	else if (attr.qp_state != IBV_QPS_ERR)
		batch_fail(b, "QP %u in state %d after %s, want ERR (%d)", x->qp,
			   attr.qp_state, ibv_wc_status_str(wc->status),
			   IBV_QPS_ERR);
}

static bool signaled(const struct xfer *x)
{
	return x->send_flags & IBV_SEND_SIGNALED;
}

/* Poll until every signaled transfer posted so far has completed. */
static void drain(struct env *e, struct batch *b)
{
	double end = now() + b->timeout;
	unsigned int idle = 0;
	struct ibv_wc wc;

	while (b->got < b->expected) {
		if (now() > end) {
			batch_fail(b, "%u of %u completion(s) after %.0f s", b->got,
				   b->expected, b->timeout);
			return;
		}
		if (!poll_one(e->c.scq, &wc, &idle))
			continue;
		on_wc(e, b, &wc);
		if (wc.wr_id < b->posted && (signaled(&b->xs[wc.wr_id]) ||
					     wc.status != IBV_WC_SUCCESS))
			b->got++;
	}
}

static bool wanted(const char *name)
{
	return !opt.only || !fnmatch(opt.only, name, 0);
}

/*
 * Run a batch of transfers on the connected QPs and report it as one check
 * (in a group: only a failure, as the group's why). Returns the verdict.
 */
static bool run(struct env *e, struct xfer *xs, unsigned int n,
		const char *fmt, ...)
{
	struct batch b = { .xs = xs, .n = n, .ok = true };
	struct req r = { .cmd = CMD_PREP, .n = n };
	struct reply rep;
	unsigned int i;
	bool late = false;
	char name[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (!e->group && !wanted(name))
		return true;
	if (counting) {
		counted++;
		return true;
	}
	if (!e->connected) {
		report(e, false, name, e->conn_why);
		return false;
	}
	for (i = 0; i < MAX_QP; i++)
		b.last[i] = -1;
	b.timeout = opt.x.timeout;
	for (i = 0; i < n; i++) {
		b.timeout += xs[i].len / 65536.0;
		xs[i].seed = i && (xs[i].flags & XF_CHAIN) ? xs[i - 1].seed :
			     splitmix(&e->seed);
		if (xs[i].expect != IBV_WC_SUCCESS)
			xs[i].send_flags |= IBV_SEND_SIGNALED;
		late |= xs[i].flags & XF_LATE_RECV;
	}
	rep = call(e, &r, xs, n * sizeof(*xs));
	if (!rep.ok) {
		report(e, false, name, rep.why);
		return false;
	}
	for (i = 0; i < n; i++)
		local_prep(e, &xs[i]);
	for (i = 0; i < n && b.ok; i++) {
		if (xs[i].flags & XF_WAIT)
			drain(e, &b);
		if (!post(e, &xs[i], i, b.why, sizeof(b.why))) {
			b.ok = false;
			break;
		}
		b.posted++;
		b.expected += signaled(&xs[i]);
	}
	if (late) {
		r = (struct req){ .cmd = CMD_LATE, .n = LATE_RECV_MS };
		rep = call(e, &r, NULL, 0);
		if (!rep.ok)
			batch_fail(&b, "agent: %s", rep.why);
	}
	if (b.ok)
		drain(e, &b);
	for (i = 0; i < n && b.ok; i++)
		b.ok = local_check(e, &xs[i], b.why, sizeof(b.why));
	if (b.ok)
		b.ok = guards_ok(&e->s, b.why, sizeof(b.why));
	r = (struct req){ .cmd = CMD_CHECK, .n = !b.ok };
	rep = call(e, &r, NULL, 0);
	if (b.ok && !rep.ok)
		batch_fail(&b, "agent: %s", rep.why);
	strncat(name, b.note, sizeof(name) - strlen(name) - 1);
	report(e, b.ok, name, b.why);
	/* the checks after a failure get QPs of their own */
	if (!b.ok)
		connect_qps(e, e->o.nqp, e->o.rnr_retry, e->o.rnr_timer,
			    e->o.psn_base);
	return b.ok;
}

/* ---- the tests -------------------------------------------------------------- */

/* Lay out transfers one after the other in both areas. */
struct cursor {
	int64_t l, r;
};

static unsigned int sge_max(struct env *e, uint32_t op);

/* A transfer of len bytes at the next free offsets plus lmis/rmis, with up
 * to lsge/rsge pieces (as many as the QPs take). */
static struct xfer xf(struct env *e, struct cursor *cur, uint32_t qp,
		      uint32_t op, uint64_t len, unsigned int lmis,
		      unsigned int rmis, unsigned int lsge, unsigned int rsge)
{
	struct xfer x = {
		.qp = qp, .op = op, .len = len, .lsge = lsge, .rsge = rsge,
		.send_flags = IBV_SEND_SIGNALED, .imm = 0xa0000000 | (uint32_t)len,
	};
	uint64_t lext, rext;

	if (lsge > sge_max(e, op))
		x.lsge = lsge = sge_max(e, op);
	if (rsge > sge_max(e, IBV_WR_SEND))
		x.rsge = rsge = sge_max(e, IBV_WR_SEND);
	lext = len + (uint64_t)(lsge ? lsge - 1 : 0) * SGE_GAP;
	rext = len + (uint64_t)(rsge ? rsge - 1 : 0) * SGE_GAP;

	if (wr_is_atomic(op)) {
		lmis = rmis = 0;
		lext = rext = 8;
	}
	x.loff = ((cur->l + MARGIN + 63) & ~63) + lmis;
	x.roff = ((cur->r + MARGIN + 63) & ~63) + rmis;
	cur->l = x.loff + lext + MARGIN;
	cur->r = x.roff + rext + MARGIN;
	if (cur->l > (int64_t)AREA || cur->r > (int64_t)AREA)
		die("test layout: transfers do not fit the area");
	return x;
}

static const uint32_t data_ops[] = {
	IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
	IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
};

static unsigned int sge_max(struct env *e, uint32_t op)
{
	unsigned int m = op == IBV_WR_RDMA_READ ? e->caps.max_sge_rd :
			 e->c.cap.max_send_sge;

	if (m > e->c.cap.max_recv_sge)
		m = e->c.cap.max_recv_sge;
	return m < MAX_SGE ? m : MAX_SGE;
}

static void t_sizes(struct env *e)
{
	static const uint64_t full[] = {
		0, 1, 7, 63, 64, 4095, 4096, 4097, 65536 + 13, 1 << 20,
		(1 << 20) + 3, 16 << 20,
	};
	static const uint64_t quick[] = {
		0, 1, 7, 63, 4095, 4096, 4097, 65536 + 13, 1 << 20,
	};
	const uint64_t *sizes = opt.quick ? quick : full;
	unsigned int ns = opt.quick ? sizeof(quick) / sizeof(quick[0]) :
			  sizeof(full) / sizeof(full[0]);
	unsigned int o, k, lm, rm;
	struct cursor cur;
	char name[80], why[80];
	struct xfer x;
	uint64_t len;

	/* PSNs start just below the 24-bit wrap */
	connect_qps(e, 1, 7, 12, AXON_PSN_MASK - 20);
	for (o = 0; o < sizeof(data_ops) / sizeof(data_ops[0]); o++) {
		for (k = 0; k < ns; k++) {
			len = sizes[k];
			if (len > e->caps.max_msg) {
				snprintf(name, sizeof(name), "%s %" PRIu64 " B",
					 wr_op_name(data_ops[o]), len);
				snprintf(why, sizeof(why), "above max_msg_sz, "
					 "%" PRIu64 " B instead", e->caps.max_msg);
				skip(e, name, why);
				len = e->caps.max_msg;
			}
			cur = (struct cursor){ 0, 0 };
			lm = (k * 7) % 61;
			rm = (k * 11 + o) % 59;
			x = xf(e, &cur, 0, data_ops[o], len, lm, rm, 1, 1);
			run(e, &x, 1, "%s %" PRIu64 " B (offsets +%u/+%u)",
			    wr_op_name(data_ops[o]), len, lm, rm);
		}
	}
}

static void t_offsets(struct env *e)
{
	static const unsigned int mis[][2] = {
		{ 1, 0 }, { 0, 1 }, { 2, 3 }, { 5, 7 }, { 8, 9 }, { 31, 33 },
		{ 63, 1 }, { 4095 % 64, 17 },
	};
	struct xfer xs[MAX_XFER];
	unsigned int o, i, n;
	struct cursor cur;

	connect_qps(e, 1, 7, 12, 0);
	for (o = 0; o < sizeof(data_ops) / sizeof(data_ops[0]); o++) {
		cur = (struct cursor){ 0, 0 };
		for (n = 0, i = 0; i < sizeof(mis) / sizeof(mis[0]); i++) {
			xs[n++] = xf(e, &cur, 0, data_ops[o], 129, mis[i][0],
				     mis[i][1], 1, 1);
			xs[n++] = xf(e, &cur, 0, data_ops[o], 4097 + i, mis[i][1],
				     mis[i][0], 1, 1);
		}
		run(e, xs, n, "%s: %u transfers at unaligned offsets",
		    wr_op_name(data_ops[o]), n);
	}
}

static void t_sge(struct env *e)
{
	static const uint64_t sizes[] = { 16, 4097, 65536 + 13, 1 << 20 };
	/* local SGEs, and for sends the receive's */
	static const unsigned int combos[][2] = {
		{ 16, 16 }, { 16, 1 }, { 1, 16 }, { 3, 7 }, { 2, 2 },
	};
	unsigned int ns = opt.quick ? 3 : 4, nc, o, k, c, ls, rs, m;
	struct cursor cur;
	struct xfer x;

	connect_qps(e, 1, 7, 12, 0);
	for (o = 0; o < sizeof(data_ops) / sizeof(data_ops[0]); o++) {
		m = sge_max(e, data_ops[o]);
		/* the remote side of RDMA is one contiguous range */
		nc = wr_is_send(data_ops[o]) ? 5 : 1;
		for (c = 0; c < nc; c++) {
			ls = combos[c][0] < m ? combos[c][0] : m;
			rs = wr_is_send(data_ops[o]) ? combos[c][1] < m ?
			     combos[c][1] : m : 1;
			for (k = 0; k < ns; k++) {
				cur = (struct cursor){ 0, 0 };
				x = xf(e, &cur, 0, data_ops[o], sizes[k], k + c,
				       2 * k + 1, ls, rs);
				run(e, &x, 1, "%s %" PRIu64 " B, %u/%u SGEs",
				    wr_op_name(data_ops[o]), sizes[k], ls, rs);
			}
		}
	}
	/* receive buffers larger than the message */
	cur = (struct cursor){ 0, 0 };
	x = xf(e, &cur, 0, IBV_WR_SEND, 1000, 3, 5, 1, sge_max(e, IBV_WR_SEND));
	x.rextra = 3000;
	run(e, &x, 1, "send 1000 B into a 4000 B receive");
}

static void t_inline(struct env *e)
{
	static const uint32_t ops[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM,
	};
	uint64_t sizes[3];
	unsigned int o, k, sge;
	struct cursor cur;
	struct xfer x;
	bool none;
	char name[80];

	connect_qps(e, 1, 7, 12, 0);
	/* not connected: run() fails each one with the reason */
	none = (counting || e->connected) && !e->c.cap.max_inline_data;
	sizes[0] = 1;
	sizes[1] = 13;
	sizes[2] = e->c.cap.max_inline_data;
	for (o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
		for (k = 0; k < 3; k++) {
			sge = k == 2 ? 3 : 1;
			if (sge > e->c.cap.max_send_sge)
				sge = 1;
			snprintf(name, sizeof(name), "%s inline %" PRIu64
				 " B, %u SGE(s)", wr_op_name(ops[o]), sizes[k], sge);
			if (none) {
				skip(e, name, "the device takes no inline data");
				continue;
			}
			cur = (struct cursor){ 0, 0 };
			x = xf(e, &cur, 0, ops[o], sizes[k], 5 + k, 3, sge, 1);
			x.send_flags |= IBV_SEND_INLINE;
			x.flags |= XF_SCRIBBLE;
			run(e, &x, 1, "%s", name);
		}
	}
}

static void t_many_qps(struct env *e)
{
	static const uint64_t sizes[] = { 1, 100, 4097, 9000, 0, 65, 2048, 333 };
	static const uint32_t ops[] = {
		IBV_WR_SEND, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_READ, IBV_WR_SEND_WITH_IMM,
		IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_RDMA_READ, IBV_WR_SEND,
	};
	bool atomics = e->caps.atomic != IBV_ATOMIC_NONE;
	struct xfer xs[MAX_XFER];
	unsigned int nqp = MAX_QP, q, k, n = 0;
	struct cursor cur = { 0, 0 };
	uint32_t op;

	connect_qps(e, nqp, 7, 12, 0);
	for (k = 0; k < 8; k++) {
		for (q = 0; q < nqp; q++) {
			op = ops[(k + q) % 8];
			if (wr_is_atomic(op) && !atomics)
				op = IBV_WR_RDMA_WRITE;
			xs[n] = xf(e, &cur, q, op, sizes[(k * 3 + q) % 8], q % 5,
				   k % 3, 1 + (q + k) % 3, 1 + q % 2);
			xs[n].init = 1000 * q;
			xs[n].add_cmp = k + 1;
			xs[n].old = 1000 * q;
			xs[n].final = 1000 * q + k + 1;
			xs[n].flags |= XF_INIT | XF_FINAL;
			n++;
		}
	}
	run(e, xs, n, "%u QPs interleaved, %u mixed WRs", nqp, n);

	/* per-QP ordering of many sends */
	n = 0;
	cur = (struct cursor){ 0, 0 };
	for (k = 0; k < 8; k++)
		for (q = 0; q < nqp; q++)
			xs[n++] = xf(e, &cur, q, k % 2 ? IBV_WR_SEND_WITH_IMM :
				     IBV_WR_SEND, 2000 + 37 * k, 1, 2, 1, 1);
	run(e, xs, n, "%u QPs interleaved, %u sends in order", nqp, n);
}

static void t_soak(struct env *e)
{
	static const uint64_t sizes[] = {
		1, 64, 1024, 4097, 65536, 100000, 1 << 20, 0, 333, 262144,
	};
	static const uint32_t ops[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ, IBV_WR_SEND,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_READ,
	};
	bool atomics = e->caps.atomic != IBV_ATOMIC_NONE;
	double end = now() + opt.soak;
	unsigned int nqp = 4, round = 0, failed = 0, q, k, n;
	struct xfer xs[32];
	struct cursor cur;
	uint32_t op;
	char why[300] = "";

	if (counting) {
		counted++;
		return;
	}
	connect_qps(e, nqp, 7, 12, 0);
	e->group = true;
	do {
		n = 0;
		cur = (struct cursor){ 0, 0 };
		for (k = 0; k < 7; k++) {
			for (q = 0; q < nqp; q++) {
				op = ops[(k + q + round) % 7];
				if (wr_is_atomic(op) && !atomics)
					op = IBV_WR_RDMA_WRITE;
				xs[n] = xf(e, &cur, q, op,
					   sizes[(k * 3 + q + round) % 10],
					   q % 5, k % 3, 1 + (q + k) % 3, 1);
				xs[n].init = xs[n].old = 1000 * q;
				xs[n].add_cmp = k + 1;
				xs[n].final = 1000 * q + k + 1;
				xs[n].flags |= XF_INIT | XF_FINAL;
				n++;
			}
		}
		if (!run(e, xs, n, "soak round %u: %u QPs, %u mixed WRs", round,
			 nqp, n)) {
			tap_diag("%s", e->group_why);
			if (!failed++)
				snprintf(why, sizeof(why), "first: %s",
					 e->group_why);
		}
		round++;
	} while (now() < end);
	e->group = false;
	report(e, !failed, "soak: mixed traffic on 4 QPs, every round checked",
	       why);
	tap_diag("soak: %u rounds of 28 WRs in %.0f s, %u failed", round,
		 opt.soak, failed);
}

static void t_fence(struct env *e)
{
	static const uint64_t sizes[] = { 4097, 65536 + 13, 1 << 20 };
	unsigned int ns = opt.quick ? 2 : 3, k, i;
	uint32_t then[] = { IBV_WR_SEND, IBV_WR_RDMA_WRITE };
	struct cursor cur;
	struct xfer xs[2];

	connect_qps(e, 1, 7, 12, 0);
	for (k = 0; k < ns; k++) {
		for (i = 0; i < 2; i++) {
			cur = (struct cursor){ 0, 0 };
			xs[0] = xf(e, &cur, 0, IBV_WR_RDMA_READ, sizes[k], 3, 1, 4, 1);
			xs[1] = xs[0];
			xs[1].op = then[i];
			xs[1].roff = xf(e, &cur, 0, then[i], sizes[k], 0, 7, 4, 2).roff;
			xs[1].rsge = 2;
			xs[1].send_flags |= IBV_SEND_FENCE;
			xs[1].flags |= XF_NOFILL | XF_CHAIN;
			run(e, xs, 2, "rdma_read then fenced %s of the data read, %"
			    PRIu64 " B", wr_op_name(then[i]), sizes[k]);
		}
	}
}

static void t_unsignaled(struct env *e)
{
	struct xfer xs[MAX_XFER];
	struct cursor cur = { 0, 0 };
	unsigned int i, n = 192;

	connect_qps(e, 1, 7, 12, 0);
	for (i = 0; i < n; i++) {
		xs[i] = xf(e, &cur, 0, IBV_WR_RDMA_WRITE, 64 + i * 21, i % 4, i % 3,
			   1, 1);
		if (i % 16 != 15 && i != n - 1)
			xs[i].send_flags = 0;
	}
	run(e, xs, n, "%u rdma_writes, every 16th signaled", n);
	cur = (struct cursor){ 0, 0 };
	n = 64;
	for (i = 0; i < n; i++) {
		xs[i] = xf(e, &cur, 0, IBV_WR_SEND, 1 + i * 61, 1, 2, 1, 1);
		if (i != n - 1)
			xs[i].send_flags = 0;
	}
	run(e, xs, n, "%u sends, only the last signaled", n);
}

static void t_atomics(struct env *e)
{
	struct xfer xs[MAX_XFER];
	struct cursor cur = { 0, 0 };
	uint64_t v;
	unsigned int i, n = 0;

	if (e->caps.atomic == IBV_ATOMIC_NONE) {
		skip(e, "cmp_swap (equal, different) and fetch_add (carry, wrap)",
		     "the device reports no atomics");
		skip(e, "40 atomics in a row on one address",
		     "the device reports no atomics");
		return;
	}
	connect_qps(e, 1, 7, 12, 0);
	/* compare and swap: equal, different */
	xs[n] = xf(e, &cur, 0, IBV_WR_ATOMIC_CMP_AND_SWP, 8, 0, 0, 1, 1);
	xs[n].init = xs[n].add_cmp = xs[n].old = 0x0123456789abcdefULL;
	xs[n].swap = xs[n].final = 0xfedcba9876543210ULL;
	n++;
	xs[n] = xf(e, &cur, 0, IBV_WR_ATOMIC_CMP_AND_SWP, 8, 0, 0, 1, 1);
	xs[n].init = xs[n].old = xs[n].final = 0x1111222233334444ULL;
	xs[n].add_cmp = 0x1111222233334445ULL;
	xs[n].swap = 0xdeadbeefULL;
	n++;
	/* fetch and add, with a carry across the wrap */
	xs[n] = xf(e, &cur, 0, IBV_WR_ATOMIC_FETCH_AND_ADD, 8, 0, 0, 1, 1);
	xs[n].init = xs[n].old = 0x00000000ffffffffULL;
	xs[n].add_cmp = 1;
	xs[n].final = 0x0000000100000000ULL;
	n++;
	xs[n] = xf(e, &cur, 0, IBV_WR_ATOMIC_FETCH_AND_ADD, 8, 0, 0, 1, 1);
	xs[n].init = xs[n].old = ~0ULL - 2;
	xs[n].add_cmp = 5;
	xs[n].final = 2;
	n++;
	for (i = 0; i < n; i++)
		xs[i].flags |= XF_INIT | XF_FINAL;
	run(e, xs, n, "cmp_swap (equal, different) and fetch_add (carry, wrap)");

	/* 32 fetch_adds then 8 cmp_swaps in a row on one address */
	cur = (struct cursor){ 0, 0 };
	v = 0x7ffffffffffffff0ULL;
	for (n = 0; n < 32; n++) {
		xs[n] = xf(e, &cur, 0, IBV_WR_ATOMIC_FETCH_AND_ADD, 8, 0, 0, 1, 1);
		xs[n].roff = xs[0].roff;
		xs[n].init = 0x7ffffffffffffff0ULL;
		xs[n].old = v;
		xs[n].add_cmp = n * 3 + 1;
		v += n * 3 + 1;
	}
	for (; n < 40; n++) {
		xs[n] = xf(e, &cur, 0, IBV_WR_ATOMIC_CMP_AND_SWP, 8, 0, 0, 1, 1);
		xs[n].roff = xs[0].roff;
		xs[n].old = xs[n].add_cmp = v;
		xs[n].swap = v * 7 + n;
		v = xs[n].swap;
	}
	for (i = 1; i < n; i++)
		xs[i].flags |= XF_CHAIN;
	xs[0].flags |= XF_INIT;
	xs[n - 1].flags |= XF_FINAL;
	xs[n - 1].final = v;
	xs[n - 1].init = xs[0].init;
	run(e, xs, n, "%u atomics in a row on one address", n);
}

/* ---- error paths: one per fresh connection ------------------------------------ */

/* An erroneous transfer, then a probe that must be flushed. */
static void run_error(struct env *e, struct xfer *x, const char *name)
{
	struct cursor cur = { 1 << 20, 1 << 20 };
	struct xfer xs[2];

	if (!wanted(name))
		return;
	xs[0] = *x;
	xs[1] = xf(e, &cur, 0, IBV_WR_RDMA_WRITE, 100, 1, 1, 1, 1);
	xs[1].expect = IBV_WC_WR_FLUSH_ERR;
	xs[1].flags |= XF_WAIT;
	run(e, xs, 2, "%s", name);
}

static bool agent_special_mr(struct env *e, uint32_t access, bool other_pd,
			     bool dereg, uint32_t *stale, const char *name)
{
	struct req r = { .cmd = CMD_MR, .mr_access = access,
			 .mr_other_pd = other_pd, .mr_dereg = dereg };
	struct reply rep;

	if (counting)
		return true;
	rep = call(e, &r, NULL, 0);
	if (!rep.ok) {
		report(e, false, name, rep.why);
		return false;
	}
	e->special_rkey = rep.rkey;
	if (stale)
		*stale = rep.stale_rkey;
	return true;
}

static void t_errors(struct env *e)
{
	static const struct {
		const char *name;
		uint32_t op, access, expect, lkey, rkey;
		bool other_pd;
	} cases[] = {
		{ "error: bad lkey (rdma_write) -> LOC_PROT_ERR",
		  IBV_WR_RDMA_WRITE, 0, IBV_WC_LOC_PROT_ERR, KEY_BAD, KEY_OK, false },
		{ "error: bad lkey (send) -> LOC_PROT_ERR",
		  IBV_WR_SEND, 0, IBV_WC_LOC_PROT_ERR, KEY_BAD, KEY_OK, false },
		{ "error: bad lkey (rdma_read) -> LOC_PROT_ERR",
		  IBV_WR_RDMA_READ, 0, IBV_WC_LOC_PROT_ERR, KEY_BAD, KEY_OK, false },
		{ "error: bad rkey (rdma_write) -> REM_ACCESS_ERR",
		  IBV_WR_RDMA_WRITE, 0, IBV_WC_REM_ACCESS_ERR, KEY_OK, KEY_BAD, false },
		{ "error: bad rkey (rdma_read) -> REM_ACCESS_ERR",
		  IBV_WR_RDMA_READ, 0, IBV_WC_REM_ACCESS_ERR, KEY_OK, KEY_BAD, false },
		{ "error: bad rkey (fetch_add) -> REM_ACCESS_ERR",
		  IBV_WR_ATOMIC_FETCH_AND_ADD, 0, IBV_WC_REM_ACCESS_ERR,
		  KEY_OK, KEY_BAD, false },
		{ "error: local MR of another PD (rdma_write) -> LOC_PROT_ERR",
		  IBV_WR_RDMA_WRITE, 0, IBV_WC_LOC_PROT_ERR, KEY_SPECIAL, KEY_OK, false },
		{ "error: remote MR of another PD (rdma_write) -> REM_ACCESS_ERR",
		  IBV_WR_RDMA_WRITE, IBV_ACCESS_LOCAL_WRITE |
		  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
		  IBV_WC_REM_ACCESS_ERR, KEY_OK, KEY_SPECIAL, true },
		{ "error: rdma_write to an MR without REMOTE_WRITE -> REM_ACCESS_ERR",
		  IBV_WR_RDMA_WRITE, IBV_ACCESS_LOCAL_WRITE |
		  IBV_ACCESS_REMOTE_READ, IBV_WC_REM_ACCESS_ERR, KEY_OK,
		  KEY_SPECIAL, false },
		{ "error: rdma_read of an MR without REMOTE_READ -> REM_ACCESS_ERR",
		  IBV_WR_RDMA_READ, IBV_ACCESS_LOCAL_WRITE |
		  IBV_ACCESS_REMOTE_WRITE, IBV_WC_REM_ACCESS_ERR, KEY_OK,
		  KEY_SPECIAL, false },
		{ "error: fetch_add on an MR without REMOTE_ATOMIC -> REM_ACCESS_ERR",
		  IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_ACCESS_LOCAL_WRITE |
		  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
		  IBV_WC_REM_ACCESS_ERR, KEY_OK, KEY_SPECIAL, false },
		{ "control: rdma_read of the MR without REMOTE_WRITE works",
		  IBV_WR_RDMA_READ, IBV_ACCESS_LOCAL_WRITE |
		  IBV_ACCESS_REMOTE_READ, IBV_WC_SUCCESS, KEY_OK, KEY_SPECIAL, false },
	};
	bool atomics = e->caps.atomic != IBV_ATOMIC_NONE;
	struct cursor cur;
	struct xfer x;
	unsigned int i;
	uint32_t stale;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!wanted(cases[i].name))
			continue;
		if (wr_is_atomic(cases[i].op) && !atomics) {
			skip(e, cases[i].name, "the device reports no atomics");
			continue;
		}
		connect_qps(e, 1, 7, 12, 0);
		if (cases[i].access && !agent_special_mr(e, cases[i].access,
							 cases[i].other_pd,
							 false, NULL,
							 cases[i].name))
			continue;
		cur = (struct cursor){ 0, 0 };
		x = xf(e, &cur, 0, cases[i].op, 3000, 1, 5, 2, 1);
		x.expect = cases[i].expect;
		/* rdma_rxe (Linux 6.1) fails the payload of a send or write
		 * with a bad lkey as a QP operation error */
		if (cases[i].lkey != KEY_OK && cases[i].op != IBV_WR_RDMA_READ)
			x.rxe_expect = IBV_WC_LOC_QP_OP_ERR;
		x.lkey_mode = cases[i].lkey;
		x.rkey_mode = cases[i].rkey;
		x.init = x.old = x.final = 42;
		x.add_cmp = 1;
		x.flags |= XF_INIT | XF_FINAL;
		if (x.expect == IBV_WC_SUCCESS) {
			x.final = 43;
			run(e, &x, 1, "%s", cases[i].name);
		} else {
			run_error(e, &x, cases[i].name);
		}
	}

	/* addresses outside the MR: nothing beyond it may change */
	connect_qps(e, 1, 7, 12, 0);
	x = (struct xfer){ .op = IBV_WR_RDMA_WRITE, .len = 64, .lsge = 1,
			   .rsge = 1, .roff = AREA - 8, .loff = 4096,
			   .expect = IBV_WC_REM_ACCESS_ERR };
	run_error(e, &x, "error: rdma_write across the end of the MR -> REM_ACCESS_ERR");
	connect_qps(e, 1, 7, 12, 0);
	x.roff = -16;
	run_error(e, &x, "error: rdma_write from before the start of the MR -> REM_ACCESS_ERR");
	connect_qps(e, 1, 7, 12, 0);
	x.op = IBV_WR_RDMA_READ;
	x.roff = AREA + 100;
	run_error(e, &x, "error: rdma_read of the guard beyond the MR -> REM_ACCESS_ERR");

	/* a deregistered MR's rkey fails, even once the memory is
	 * registered again; the new rkey works */
	connect_qps(e, 1, 7, 12, 0);
	if (wanted("error: rkey of a deregistered MR -> REM_ACCESS_ERR") &&
	    agent_special_mr(e, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ, false, true, &stale,
			     "error: rkey of a deregistered MR -> REM_ACCESS_ERR")) {
		uint32_t fresh = e->special_rkey;

		cur = (struct cursor){ 0, 0 };
		x = xf(e, &cur, 0, IBV_WR_RDMA_WRITE, 3000, 1, 5, 1, 1);
		x.expect = IBV_WC_REM_ACCESS_ERR;
		x.rkey_mode = KEY_SPECIAL;
		e->special_rkey = stale;
		run_error(e, &x, "error: rkey of a deregistered MR -> REM_ACCESS_ERR");
		connect_qps(e, 1, 7, 12, 0);
		e->special_rkey = fresh;
		x.expect = IBV_WC_SUCCESS;
		run(e, &x, 1, "the re-registered MR's new rkey (0x%x, old 0x%x) works",
		    fresh, stale);
	}

	/* receiver not ready */
	connect_qps(e, 1, 1, 1, 0);
	cur = (struct cursor){ 0, 0 };
	x = xf(e, &cur, 0, IBV_WR_SEND, 500, 1, 1, 1, 1);
	x.expect = IBV_WC_RNR_RETRY_EXC_ERR;
	x.flags |= XF_NORECV;
	run_error(e, &x, "error: send with no receive posted, rnr_retry 1 -> RNR_RETRY_EXC_ERR");
	connect_qps(e, 1, 7, 12, 0);
	x.expect = IBV_WC_SUCCESS;
	x.flags = XF_LATE_RECV;
	run(e, &x, 1, "send with rnr_retry 7, receive posted %u ms late",
	    LATE_RECV_MS);

	/* a receive too small for a (single-packet) message */
	connect_qps(e, 1, 7, 12, 0);
	x = xf(e, &cur, 0, IBV_WR_SEND, 200, 1, 1, 1, 1);
	x.rextra = -100;
	x.expect = IBV_WC_REM_INV_REQ_ERR;
	x.rexpect = IBV_WC_LOC_LEN_ERR;
	/* rdma_rxe: a remote operation error NAK, its receive a QP error */
	x.rxe_expect = IBV_WC_REM_OP_ERR;
	x.rxe_rexpect = IBV_WC_LOC_QP_OP_ERR;
	run_error(e, &x, "error: send into a short receive -> REM_INV_REQ_ERR / LOC_LEN_ERR");
	disconnect(e);
}

static void tests(struct env *e)
{
	if (opt.soak) {
		t_soak(e);
		return;
	}
	t_sizes(e);
	t_offsets(e);
	t_sge(e);
	t_inline(e);
	t_many_qps(e);
	t_fence(e);
	t_unsignaled(e);
	t_atomics(e);
	t_errors(e);
}

/* The counting pass: the results tests() will report (the plan). */
static unsigned int count_tests(struct env *e)
{
	uint64_t seed = e->seed;
	struct qp_info info;
	struct conn c;
	char why[320];

	counting = true;
	counted = 0;
	connect_qps(e, 1, 7, 12, 0);	/* e->o only */
	if (conn_create(&e->s, &c, &e->o, &info, why, sizeof(why)))
		e->c.cap = c.cap;	/* the caps the names show */
	conn_destroy(&c);
	tests(e);
	memset(&e->c, 0, sizeof(e->c));
	e->seed = seed;
	counting = false;
	return counted;
}

/* The requester: arg is its struct env (an xfer_loopback() requester). */
static int requester(void *arg)
{
	struct env *e = arg;
	struct req r = { .cmd = CMD_HELLO };
	struct reply rep = call(e, &r, NULL, 0);
	struct caps me = side_caps(&e->s), *p = &rep.caps;

#define MIN(f) (e->caps.f = me.f < p->f ? me.f : p->f)
	MIN(max_sge);
	MIN(max_sge_rd);
	MIN(max_qp_wr);
	MIN(max_cqe);
	MIN(atomic);
	MIN(rd_atom);
	MIN(mtu);
	MIN(max_msg);
#undef MIN
	if (e->caps.rd_atom > 16)
		e->caps.rd_atom = 16;
	e->seed = 0x243f6a8885a308d3ULL;
	e->rxe = !strncmp(opt.x.dev, "rxe", 3);
	e->other_pd_mr = ibv_reg_mr(e->s.pd2, e->s.area, AREA,
				    IBV_ACCESS_LOCAL_WRITE);
	if (!e->other_pd_mr)
		die("setup: ibv_reg_mr in a second PD: %s", strerror(errno));
	tap_diag("%s, GID index %d, MTU %d, max_sge %u, atomics %s, %s",
		 opt.x.dev, e->s.d.gid_index, 128 << e->caps.mtu, e->caps.max_sge,
		 e->caps.atomic ? "yes" : "no", opt.quick ? "quick" : "full");

	tap_plan(count_tests(e));
	tests(e);
	disconnect(e);

	r = (struct req){ .cmd = CMD_QUIT, .n = tap_failures() };
	call(e, &r, NULL, 0);
	ibv_dereg_mr(e->other_pd_mr);
	side_close(&e->s);
	return tap_done();
}

/* ---- modes ---------------------------------------------------------------- */

static int loopback(void)
{
	static struct agent a;
	static struct env e;

	side_open(&e.s);
	side_open(&a.s);
	tap_diag("loopback on %s", opt.x.dev);
	return xfer_loopback(agent_run, &a, &a.s.fd, requester, &e, &e.s.fd);
}

static int server(void)
{
	static struct agent a;

	side_open(&a.s);
	a.s.fd = ctl_accept(opt.x.tcp_port);
	return agent_run(&a);
}

static int client(const char *host)
{
	static struct env e;
	int fd = ctl_connect(host, opt.x.tcp_port);

	side_open(&e.s);
	e.s.fd = fd;
	tap_diag("requester on %s, agent at %s", opt.x.dev, host);
	return requester(&e);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: axon-rdma-integrity [-d DEV] [-g GID_INDEX] [--quick] [--only GLOB]\n"
		"                           [--lossy] [--soak S] [--server | --client HOST]\n"
		"                           [--tcp-port N] [--timeout S] [--flow-label N]\n"
		"  default: loopback on one device; under tools/axon-vm with 2 nodes\n"
		"  (AXON_NODES=2), node 0 is the server and node 1 its client\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "lossy", no_argument, NULL, 'L' },
		{ "full", no_argument, NULL, 'F' },
		{ "only", required_argument, NULL, 'o' },
		{ "soak", required_argument, NULL, 'S' },
		XFER_LONG_OPTS,
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, XFER_SHORT_OPTS, lopts, NULL)) != -1) {
		if (xfer_opt(&opt.x, c, optarg))
			continue;
		switch (c) {
		case 'q': opt.quick = true; break;
		case 'L': opt.lossy = true; break;
		case 'F': opt.quick = false; break;
		case 'o': opt.only = optarg; break;
		case 'S': opt.soak = atof(optarg); break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	xfer_role(&opt.x);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (opt.x.mode == 's')
		return server();
	if (opt.x.mode == 'c')
		return client(opt.x.peer);
	return loopback();
}
