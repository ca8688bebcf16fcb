// SPDX-License-Identifier: GPL-2.0
/*
 * axon-rud-xfer: data integrity, a KV-cache batch and goodput over one RUD
 * QP (reliable unordered delivery: axondv_create_qp_ex(), provider/axondv.h)
 * or, with --qp rc, over one RC QP for comparison.
 *
 * Two roles: the client runs the transfers and reports; the server owns
 * the remote memory, posts receives and checks what arrived, as the client
 * asks over a TCP control channel (tools/lib/rdma-xfer.h). The server
 * takes the mode and its parameters from the client. Loopback (--loopback,
 * or no role outside tools/axon-vm): both in one process, the server in a
 * thread. Under tools/axon-vm with two nodes, node 0 serves and node 1
 * connects to it.
 *
 * Modes:
 *
 * --test (default): TAP (tools/lib/tap.h). Every opcode RUD takes (SEND,
 * SEND_WITH_IMM, RDMA_WRITE, RDMA_WRITE_WITH_IMM, RDMA_READ) at 1, 4095,
 * 4096, 65537 B, 1 MiB and, unless --quick, 16 and 64 MiB, up to eight of
 * a size outstanding at once, then 16 of mixed sizes (the largest first,
 * so that later ones can overtake it), eight at a time. Each transfer's
 * payload is a splitmix64 stream of its own seed, with background bytes
 * around every region and guard pages outside both MRs; the receiver
 * checks what landed (the requester, for a READ), and that nothing else
 * changed. A RUD receiver takes its receive WQEs in the order messages
 * begin to arrive: each receive completion is matched to its message by
 * wr_id (the buffer), immediate data and content, never by position. Send
 * completions must come in posting order; with RC, receives must too.
 *
 * --kv N: a KV-cache batch, --rounds R times (default 3): the client
 * WRITEs N blocks of 512 B to 64 KiB to scattered, non-overlapping offsets
 * of the server's MR (one WRITE in 16 signaled), then a zero-length
 * RDMA_WRITE_WITH_IMM posted with IBV_SEND_FENCE as the notification; the
 * server checks every byte of every block the moment it polls the
 * notification's receive completion. One TAP result a round.
 *
 * --bw SECONDS: goodput of RDMA_WRITEs of --size bytes (default 65536),
 * --depth of them outstanding (default 16), from the client to the
 * server; each WR signaled and timed from its post to its completion. The
 * last line on stdout is "goodput_MBps=X p50_us=Y p99_us=Z msgs=N" (MB:
 * 10^6 bytes, of completed WRs); --series FILE writes "t_seconds
 * goodput_MBps" for every 100 ms. A failed completion (or none within
 * --timeout) is reported on stderr and ends the run with status 1, after
 * that line for what was measured until then. The server checks that the
 * data of the WRs that completed landed.
 *
 * --timeout S (default 60) bounds every wait: for a completion, since the
 * last one; for a KV notification, S plus a second per MiB of the batch;
 * on the control channel, what the peer may take at most for its part.
 * The initial PSNs are drawn at random (getrandom()). A RUD QP's key
 * (axondv_query_qp()) goes to the peer over the control channel with the
 * QPN and the PSN, and the peer's comes back for axondv_modify_qp() to
 * RTR. For the VM tests that check that nothing else shows the keys,
 * $AXON_RUD_XFER_KEYS names a file (created 0600) that each QP's number
 * and key are appended to: a test's hook, for no other use.
 *
 * Usage: axon-rud-xfer [-d DEV] [-g GID_INDEX] [--qp rc|rud]
 *        [--test [--quick] | --kv N [--rounds R] |
 *         --bw SECONDS [--size BYTES] [--depth D] [--series FILE]]
 *        [--server | --client HOST | --loopback] [--tcp-port N]
 *        [--timeout S] [--flow-label N]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <axon/axon_admin_cmds_defs.h>

#include "axondv.h"
#include "rdma-xfer.h"
#include "tap.h"

#define TCP_PORT	18781
#define MARGIN		64	/* background bytes checked around a region */
#define GUARD		4096	/* pages outside the MR, checked */
#define IN_FLIGHT	8	/* --test: WRs outstanding at once */
#define MAX_BATCH	16
#define TEST_PAD	(256u << 10)	/* --test: area beyond 8 or 64 MiB */
#define TEST_SQ		64
#define KV_SQ		256
#define KV_MIN		512
#define KV_MAX		(64u << 10)
#define KV_SLACK	2048	/* up to this much more between two blocks */
#define SIGNAL_EVERY	16	/* --kv: one signaled WRITE in this many */
#define SERIES_STEP	0.1	/* s */
#define BG_SALT		0x6a09e667f3bcc908ULL
#define GUARD_SEED	0xbb67ae8584caa73bULL
#define KV_SALT		0x3c6ef372fe94f82bULL
#define BW_SALT		0xa54ff53a5f1d36f1ULL
#define BASE_SEED	0x243f6a8885a308d3ULL

enum mode { MODE_TEST, MODE_KV, MODE_BW };

/* What the client runs; the server gets it with CMD_HELLO. */
struct params {
	uint32_t mode;		/* enum mode */
	uint32_t rud;		/* else RC */
	uint32_t quick;
	uint32_t kv_n, rounds;
	uint32_t size, depth;
	uint32_t reserved;
	double bw_secs, timeout;
	uint64_t seed;		/* of every pattern */
};

static struct {
	struct xfer_opts x;
	struct params p;
	const char *series;
} opt = {
	.x = { .gid_index = -1, .timeout = 60, .tcp_port = TCP_PORT },
	.p = { .mode = MODE_TEST, .rud = 1, .rounds = 3, .size = 65536,
	       .depth = 16, .seed = BASE_SEED },
};

static const char *qp_name(const struct params *p)
{
	return p->rud ? "rud" : "rc";
}

/* ---- patterns ------------------------------------------------------------ */

/* Payloads and backgrounds are streams (rdma-xfer.h) of their seeds. */
static void fill(uint8_t *p, uint64_t n, uint64_t seed)
{
	struct stream g = stream_at(seed, 0);

	stream_bytes(&g, p, n);
}

/*
 * p holds bytes [pos, pos + n) of stream seed; else why says how many
 * bytes are wrong and where the first is (what: where p is).
 */
static bool holds(const uint8_t *p, uint64_t n, uint64_t seed, uint64_t pos,
		  const char *what, char *why, size_t whylen)
{
	struct stream g = stream_at(seed, pos);
	uint64_t done, l, i, bad = 0, first = 0;
	uint8_t want[4096], got = 0, exp = 0;

	for (done = 0; done < n; done += l) {
		l = n - done < sizeof(want) ? n - done : sizeof(want);
		stream_bytes(&g, want, l);
		if (!memcmp(p + done, want, l))
			continue;
		for (i = 0; i < l; i++) {
			if (p[done + i] == want[i] || bad++)
				continue;
			first = done + i;
			got = p[first];
			exp = want[i];
		}
	}
	if (!bad)
		return true;
	snprintf(why, whylen, "%s: %" PRIu64 " of %" PRIu64 " byte(s) wrong, "
		 "the first at +%" PRIu64 ": 0x%02x, want 0x%02x", what, bad, n,
		 first, got, exp);
	return false;
}

/*
 * A region of an area: cap bytes at off, MARGIN bytes of background
 * either side. A source holds its payload, stream seed; a target is
 * filled with a stream of its own first, so that nothing stale passes.
 */
static void prep_target(uint8_t *area, uint64_t off, uint64_t cap,
			uint64_t seed)
{
	fill(area + off - MARGIN, MARGIN, seed ^ BG_SALT);
	fill(area + off, cap, seed ^ BG_SALT ^ 2);
	fill(area + off + cap, MARGIN, seed ^ BG_SALT ^ 1);
}

static void prep_source(uint8_t *area, uint64_t off, uint64_t len,
			uint64_t seed)
{
	fill(area + off - MARGIN, MARGIN, seed ^ BG_SALT);
	fill(area + off, len, seed);
	fill(area + off + len, MARGIN, seed ^ BG_SALT ^ 1);
}

/*
 * The region at off (prepared with seed) holds len bytes of stream pseed,
 * the rest of its cap bytes and its margins unchanged. A source prepared
 * with seed passes with cap == len and pseed == seed.
 */
static bool check_region(const uint8_t *area, uint64_t off, uint64_t cap,
			 uint64_t seed, uint64_t len, uint64_t pseed,
			 const char *what, char *why, size_t whylen)
{
	char w[96];

	snprintf(w, sizeof(w), "%s, the background below", what);
	if (!holds(area + off - MARGIN, MARGIN, seed ^ BG_SALT, 0, w, why,
		   whylen))
		return false;
	snprintf(w, sizeof(w), "%s, the payload", what);
	if (!holds(area + off, len, pseed, 0, w, why, whylen))
		return false;
	snprintf(w, sizeof(w), "%s, the buffer after the payload", what);
	if (!holds(area + off + len, cap - len, seed ^ BG_SALT ^ 2, len, w,
		   why, whylen))
		return false;
	snprintf(w, sizeof(w), "%s, the background above", what);
	return holds(area + off + cap, MARGIN, seed ^ BG_SALT ^ 1, 0, w, why,
		     whylen);
}

/* ---- the KV-cache layout ---------------------------------------------------- */

struct kv_block {
	uint64_t src, dst, len, seed;
};

/*
 * n blocks of KV_MIN..KV_MAX bytes, one after the other in the source
 * area, and in a shuffled order, with random gaps, in the target area
 * (margins apart). The extents of both areas in *src_end and *dst_end.
 */
static struct kv_block *kv_layout(unsigned int n, uint64_t seed,
				  uint64_t *src_end, uint64_t *dst_end)
{
	struct kv_block *b = calloc(n, sizeof(*b));
	unsigned int *ord = calloc(n, sizeof(*ord));
	uint64_t at = 0;
	unsigned int i;

	if (!b || !ord)
		die("out of memory");
	for (i = 0; i < n; i++) {
		b[i].len = KV_MIN + splitmix(&seed) % (KV_MAX - KV_MIN + 1);
		b[i].seed = splitmix(&seed);
		b[i].src = ((at + MARGIN + 63) & ~63ULL) + i % 61;
		at = b[i].src + b[i].len + MARGIN;
		ord[i] = i;
	}
	*src_end = at;
	shuffle(ord, n, &seed);
	for (at = 0, i = 0; i < n; i++) {
		b[ord[i]].dst = at + MARGIN + splitmix(&seed) % KV_SLACK;
		at = b[ord[i]].dst + b[ord[i]].len + MARGIN;
	}
	*dst_end = at;
	free(ord);
	return b;
}

static uint64_t kv_seed(const struct params *p, unsigned int round)
{
	uint64_t s = p->seed ^ KV_SALT ^ ((uint64_t)round << 32);

	return splitmix(&s);
}

/* ---- one side: device, the registered area, the QP ------------------------- */

/* The bytes of the MR of each side. */
static uint64_t area_len(const struct params *p)
{
	uint64_t len = 0, s, d;
	unsigned int r;

	switch (p->mode) {
	case MODE_KV:
		for (r = 0; r < p->rounds; r++) {
			free(kv_layout(p->kv_n, kv_seed(p, r), &s, &d));
			len = s > len ? s : len;
			len = d > len ? d : len;
		}
		return len;
	case MODE_BW:
		return (uint64_t)p->depth * p->size;
	}
	return ((p->quick ? 8ULL : 64ULL) << 20) + TEST_PAD;
}

struct qp_info {
	struct rc_peer p;
	uint64_t addr;
	uint32_t rkey;
	uint32_t reserved;
	uint64_t key;		/* RUD: the QP's key, which its peer sends */
};

struct side {
	struct rdma_dev d;
	struct ibv_pd *pd;
	uint8_t *buf, *area;
	uint64_t len;		/* of the area, which the MR covers */
	uint8_t guard[GUARD];
	struct ibv_mr *mr;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	uint32_t psn, sq_depth;
	int fd;			/* control channel */
};

static void side_open(struct side *s, uint64_t len)
{
	rdma_open(&s->d, &opt.x);
	s->pd = ibv_alloc_pd(s->d.ctx);
	if (!s->pd)
		die("setup: ibv_alloc_pd: %s", strerror(errno));
	s->len = len;
	s->buf = mmap(NULL, len + 2 * GUARD, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->buf == MAP_FAILED)
		die("setup: %" PRIu64 " bytes: out of memory", len);
	s->area = s->buf + GUARD;
	fill(s->guard, GUARD, GUARD_SEED);
	memcpy(s->buf, s->guard, GUARD);
	memcpy(s->area + len, s->guard, GUARD);
	s->mr = ibv_reg_mr(s->pd, s->area, len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!s->mr)
		die("setup: ibv_reg_mr of %" PRIu64 " bytes: %s", len,
		    strerror(errno));
}

static void qp_destroy(struct side *s)
{
	if (s->qp)
		ibv_destroy_qp(s->qp);
	if (s->scq)
		ibv_destroy_cq(s->scq);
	if (s->rcq)
		ibv_destroy_cq(s->rcq);
	s->qp = NULL;
	s->scq = s->rcq = NULL;
}

static void side_close(struct side *s)
{
	qp_destroy(s);
	ibv_dereg_mr(s->mr);
	ibv_dealloc_pd(s->pd);
	ibv_close_device(s->d.ctx);
	munmap(s->buf, s->len + 2 * GUARD);
}

static bool guards_ok(const struct side *s, char *why, size_t whylen)
{
	return holds(s->buf, GUARD, GUARD_SEED, 0, "the guard below the MR",
		     why, whylen) &&
	       holds(s->area + s->len, GUARD, GUARD_SEED, 0,
		     "the guard above the MR", why, whylen);
}

/*
 * A random initial PSN: what RC's connection rests on, and good practice
 * for RUD, whose packets carry the receiving QP's key besides.
 */
static uint32_t random_psn(void)
{
	uint32_t v;

	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v))
		v = (uint32_t)lrand48() ^ ((uint32_t)lrand48() << 12);
	return v & AXON_PSN_MASK;
}

/* $AXON_RUD_XFER_KEYS: the VM tests' look at a key (see the top). */
static void note_key(uint32_t qpn, uint64_t key)
{
	const char *path = getenv("AXON_RUD_XFER_KEYS");
	FILE *f;
	int fd;

	if (!path || !*path)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	f = fd < 0 ? NULL : fdopen(fd, "a");
	if (!f)
		die("AXON_RUD_XFER_KEYS=%s: %s", path, strerror(errno));
	fprintf(f, "qpn=%u key=%016" PRIx64 "\n", qpn, key);
	fclose(f);
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/*
 * New CQs and a new QP of p's type in INIT on s, described in *info.
 * Returns 0 or an errno, *what naming the step that failed.
 */
static int qp_create(struct side *s, const struct params *p,
		     struct qp_info *info, const char **what)
{
	uint32_t sq = p->mode == MODE_KV ? KV_SQ : p->mode == MODE_BW ?
		      p->depth : TEST_SQ;
	uint32_t rq = p->mode == MODE_TEST ? TEST_SQ : 4;
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_RC,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = s->pd,
	};
	struct axondv_qp_init_attr dv = {
		.driver_qp_type = AXONDV_QP_DRIVER_TYPE_RUD,
	};
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	int cqe;

	qp_destroy(s);
	sq = min_u32(sq, s->d.attr.max_qp_wr);
	rq = min_u32(rq, s->d.attr.max_qp_wr);
	cqe = sq + rq < (uint32_t)s->d.attr.max_cqe ? (int)(sq + rq) :
	      s->d.attr.max_cqe;
	s->scq = ibv_create_cq(s->d.ctx, cqe, NULL, NULL, 0);
	s->rcq = ibv_create_cq(s->d.ctx, cqe, NULL, NULL, 0);
	if (!s->scq || !s->rcq) {
		*what = "ibv_create_cq";
		return errno;
	}
	a.send_cq = s->scq;
	a.recv_cq = s->rcq;
	a.cap = (struct ibv_qp_cap){
		.max_send_wr = sq, .max_recv_wr = rq,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	if (p->rud) {
		a.qp_type = IBV_QPT_DRIVER;
		s->qp = axondv_create_qp_ex(s->d.ctx, &a, &dv, sizeof(dv));
		*what = "axondv_create_qp_ex (RUD)";
	} else {
		s->qp = ibv_create_qp_ex(s->d.ctx, &a);
		*what = "ibv_create_qp_ex (RC)";
	}
	if (!s->qp)
		return errno;
	s->sq_depth = a.cap.max_send_wr;
	if (ibv_modify_qp(s->qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
		*what = "modify_qp to INIT";
		return errno;
	}
	s->psn = random_psn();
	memset(info, 0, sizeof(*info));
	if (p->rud) {
		struct axondv_qp_attr k;
		int err = axondv_query_qp(s->qp, &k, sizeof(k));

		if (err || !(k.comp_mask & AXONDV_QP_ATTR_RUD_KEY)) {
			*what = "axondv_query_qp (the RUD key)";
			return err ? err : EPROTO;
		}
		/* to the peer over the control channel, with the QPN */
		info->key = k.rud_key;
		note_key(s->qp->qp_num, k.rud_key);
	}
	info->p.qpn = s->qp->qp_num;
	info->p.psn = s->psn;
	info->p.mtu = s->d.port.active_mtu;
	memcpy(info->p.gid, s->d.gid.raw, 16);
	info->addr = (uintptr_t)s->area;
	info->rkey = s->mr->rkey;
	return 0;
}

/*
 * INIT -> RTR -> RTS against the peer: RUD takes RC's attributes, and the
 * peer's key on the way to RTR.
 */
static int qp_connect(struct side *s, const struct qp_info *peer,
		      const char **what)
{
	uint32_t rd = min_u32(min_u32(s->d.attr.max_qp_rd_atom,
				      s->d.attr.max_qp_init_rd_atom), 16);
	struct axondv_modify_qp_attr dv = {
		.comp_mask = AXONDV_MODIFY_QP_RUD_PEER_KEY,
		.rud_peer_key = peer->key,
	};
	struct ibv_qp_attr a;
	int mask, err;

	if (s->qp->qp_type != IBV_QPT_DRIVER)
		return rc_connect(&s->d, s->qp, &peer->p, s->psn, rd, 12, 7,
				  what);
	mask = rc_rtr_attr(&s->d, &peer->p, rd, 12, &a);
	err = axondv_modify_qp(s->qp, &a, mask, &dv, sizeof(dv));
	if (err) {
		*what = "axondv_modify_qp to RTR (the peer's key)";
		return err;
	}
	return rc_rts(s->qp, s->psn, rd, 7, what);
}

/* ---- the control channel ----------------------------------------------------- */

enum cmd {
	CMD_HELLO,	/* p: what the client runs; reply: max_msg */
	CMD_CONN,	/* a new QP, connected to info; reply: ours */
	CMD_PREP,	/* n xfers follow: prepare memory, post receives */
	CMD_CHECK,	/* receive completions and memory of the xfers (n:
			 * the client failed, do not wait) */
	CMD_KV,		/* a KV round of n blocks (seed, imm): prepare, post
			 * the receive, reply, then wait for the notification
			 * and check every block */
	CMD_KV_WAIT,	/* the verdict of the round */
	CMD_KV_ABORT,	/* the client gave up on the round; the verdict */
	CMD_BW_DONE,	/* --bw ended, the first n WRITEs completed: check */
	CMD_QUIT,	/* n: the client's failures */
};

struct req {
	uint32_t cmd, n;
	uint64_t seed;
	uint32_t imm;
	uint32_t reserved;
	struct params p;
	struct qp_info info;
};

struct reply {
	int32_t ok;
	uint32_t max_msg;
	char why[320];
	struct qp_info info;
};

/* The longest either side may take before its next word. */
static double ctl_secs = 120;

static void ctl_recv(int fd, void *p, size_t n)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	double end = now() + ctl_secs;
	int r;

	for (;;) {
		r = poll(&pfd, 1, 1000);
		if (r > 0)
			break;
		if (r < 0 && errno != EINTR)
			die("control channel: poll: %s", strerror(errno));
		if (now() > end)
			die("control channel: nothing from the peer in %.0f s",
			    ctl_secs);
	}
	ctl_read(fd, p, n);
}

static bool ctl_ready(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) > 0;
}

/* Every wait of a run with p, with some room: see the top of the file. */
static void ctl_bound(const struct params *p, uint64_t area)
{
	ctl_secs = 3 * p->timeout + area / (1 << 20) + p->bw_secs + 60;
}

/* ---- transfers --------------------------------------------------------------- */

struct xfer {
	uint32_t op, imm;
	uint64_t len;
	uint64_t loff, roff;	/* the payload's offsets in the two areas */
	uint64_t cap;		/* SEND: the receive buffer at roff, bytes */
	uint64_t seed;
};

/* ---- the server (agent) -------------------------------------------------------- */

struct agent {
	struct side s;
	struct params p;
	struct xfer xs[MAX_BATCH];
	unsigned int n;
};

static bool agent_prep(struct agent *a, char *why, size_t whylen)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	unsigned int i;
	int ret;

	for (i = 0; i < a->n; i++) {
		const struct xfer *x = &a->xs[i];
		uint64_t ext = wr_is_send(x->op) ? x->cap : x->len;

		if (x->roff < MARGIN || ext > a->s.len ||
		    x->roff + ext + MARGIN > a->s.len || x->len > ext) {
			snprintf(why, whylen, "transfer %u out of the area", i);
			return false;
		}
		if (x->op == IBV_WR_RDMA_READ)
			prep_source(a->s.area, x->roff, x->len, x->seed);
		else
			prep_target(a->s.area, x->roff, ext, x->seed);
		if (!wr_has_recv(x->op))
			continue;
		sge = (struct ibv_sge){ .addr = (uintptr_t)a->s.area + x->roff,
					.length = x->cap, .lkey = a->s.mr->lkey };
		wr = (struct ibv_recv_wr){ .wr_id = i, .sg_list = &sge,
					   .num_sge = wr_is_send(x->op) };
		ret = ibv_post_recv(a->s.qp, &wr, &bad);
		if (ret) {
			snprintf(why, whylen, "ibv_post_recv: %s", strerror(ret));
			return false;
		}
	}
	return true;
}

/*
 * Which message landed in receive j (wc)? A RUD receiver takes its
 * receive WQEs in the order messages begin to arrive, so receive j's
 * buffer may hold any message of the batch: the immediate data tells,
 * else the length and the content. RC's message j is receive j's.
 */
static int agent_match(struct agent *a, const struct ibv_wc *wc,
		       const bool *taken, char *why, size_t whylen)
{
	const struct xfer *r = &a->xs[wc->wr_id], *x;
	char w[64], diff[320] = "", other[320];
	unsigned int k, i;
	int l;

	for (k = 0; k < a->n; k++) {
		/* receive j's own message first */
		i = k ? k - (k <= wc->wr_id) : wc->wr_id;
		x = &a->xs[i];
		if (taken[i] || !wr_has_recv(x->op) || x->op != r->op ||
		    wc->byte_len != x->len)
			continue;
		if (wr_has_imm(x->op) && ntohl(wc->imm_data) != x->imm)
			continue;
		snprintf(w, sizeof(w), "against %s #%u", wr_op_name(x->op), i);
		if (x->op == IBV_WR_RDMA_WRITE_WITH_IMM ||
		    holds(a->s.area + r->roff, x->len, x->seed, 0, w,
			  diff[0] ? other : diff, sizeof(diff)))
			return i;
	}
	l = snprintf(why, whylen, "receive #%" PRIu64 " (%s, byte_len %u, imm "
		     "%s0x%08x) matches no message of the batch",
		     wc->wr_id, wr_op_name(r->op), wc->byte_len,
		     wc->wc_flags & IBV_WC_WITH_IMM ? "" : "(none) ",
		     ntohl(wc->imm_data));
	/* the closest: the first message of its length (and immediate) */
	if (diff[0] && l > 0 && (size_t)l < whylen)
		snprintf(why + l, whylen - l, "; %s", diff);
	return -1;
}

static bool agent_check_wc(struct agent *a, const struct ibv_wc *wc,
			   bool *seen, bool *taken, int *msg, int64_t *last,
			   char *why, size_t whylen)
{
	const struct xfer *r;
	int i;

	if (wc->wr_id >= a->n || !wr_has_recv(a->xs[wc->wr_id].op)) {
		snprintf(why, whylen, "a receive completion with unknown wr_id %"
			 PRIu64 " (%s)", wc->wr_id, ibv_wc_status_str(wc->status));
		return false;
	}
	r = &a->xs[wc->wr_id];
	if (seen[wc->wr_id]) {
		snprintf(why, whylen, "receive #%" PRIu64 " completed twice",
			 wc->wr_id);
		return false;
	}
	seen[wc->wr_id] = true;
	if (wc->status != IBV_WC_SUCCESS) {
		snprintf(why, whylen, "receive #%" PRIu64 " of %s: %s (vendor error 0x%x)",
			 wc->wr_id, wr_op_name(r->op), ibv_wc_status_str(wc->status),
			 wc->vendor_err);
		return false;
	}
	if (wc->qp_num != a->s.qp->qp_num) {
		snprintf(why, whylen, "receive #%" PRIu64 ": qp_num 0x%x, want 0x%x",
			 wc->wr_id, wc->qp_num, a->s.qp->qp_num);
		return false;
	}
	if (wc->opcode != wr_recv_wc_opcode(r->op)) {
		snprintf(why, whylen, "receive #%" PRIu64 " of %s: opcode %d",
			 wc->wr_id, wr_op_name(r->op), wc->opcode);
		return false;
	}
	if (!(wc->wc_flags & IBV_WC_WITH_IMM) != !wr_has_imm(r->op)) {
		snprintf(why, whylen, "receive #%" PRIu64 " of %s: %s immediate data",
			 wc->wr_id, wr_op_name(r->op), wr_has_imm(r->op) ? "no" : "with");
		return false;
	}
	/* RC: receives complete in order, each with its own message */
	if (!a->p.rud && (int64_t)wc->wr_id <= *last) {
		snprintf(why, whylen, "RC receive #%" PRIu64 " completed after #%"
			 PRId64, wc->wr_id, *last);
		return false;
	}
	*last = wc->wr_id;
	i = agent_match(a, wc, taken, why, whylen);
	if (i < 0)
		return false;
	if (!a->p.rud && i != (int)wc->wr_id) {
		snprintf(why, whylen, "RC receive #%" PRIu64 " holds message #%d",
			 wc->wr_id, i);
		return false;
	}
	taken[i] = true;
	msg[wc->wr_id] = i;
	return true;
}

/* The receive completions of the batch, then every region and the guards. */
static bool agent_check(struct agent *a, bool failed, char *why, size_t whylen)
{
	bool seen[MAX_BATCH] = { false }, taken[MAX_BATCH] = { false };
	unsigned int i, want = 0, got = 0;
	int msg[MAX_BATCH];
	int64_t last = -1;
	struct ibv_wc wc;
	char w[64];

	for (i = 0; i < a->n; i++) {
		want += wr_has_recv(a->xs[i].op);
		msg[i] = -1;
	}
	while (got < want) {
		if (!wait_wc(a->s.rcq, &wc, failed ? 1 : a->p.timeout)) {
			snprintf(why, whylen, "%u of %u receive completion(s), "
				 "none more in %.0f s", got, want,
				 failed ? 1 : a->p.timeout);
			return false;
		}
		got++;
		if (!agent_check_wc(a, &wc, seen, taken, msg, &last, why,
				    whylen))
			return false;
	}
	if (ibv_poll_cq(a->s.rcq, 1, &wc) > 0) {
		snprintf(why, whylen, "a receive completion too many: wr_id %"
			 PRIu64 ", %s", wc.wr_id, ibv_wc_status_str(wc.status));
		return false;
	}
	for (i = 0; i < a->n; i++) {
		const struct xfer *x = &a->xs[i], *m = x;

		snprintf(w, sizeof(w), "%s #%u", wr_op_name(x->op), i);
		if (wr_is_send(x->op)) {
			if (msg[i] < 0) {
				snprintf(why, whylen, "receive #%u never completed", i);
				return false;
			}
			m = &a->xs[msg[i]];
			snprintf(w, sizeof(w), "receive #%u (%s #%d)", i,
				 wr_op_name(x->op), msg[i]);
		}
		if (!check_region(a->s.area, x->roff, wr_is_send(x->op) ? x->cap :
				  x->len, x->seed, m->len, m->seed, w, why,
				  whylen))
			return false;
	}
	return guards_ok(&a->s, why, whylen);
}

/*
 * Wait for a KV round's notification. Meanwhile the client may ask for the
 * verdict (CMD_KV_WAIT: *asked, the answer comes after) or give up
 * (CMD_KV_ABORT).
 */
static bool agent_kv_wait(struct agent *a, struct ibv_wc *wc, double secs,
			  bool *asked, char *why, size_t whylen)
{
	double end = now() + secs;
	unsigned int idle = 0;
	struct req q;
	int n;

	for (;;) {
		n = ibv_poll_cq(a->s.rcq, 1, wc);
		if (n < 0)
			die("ibv_poll_cq: %d", n);
		if (n)
			return true;
		if (++idle % 256) {
			sched_yield();
			continue;
		}
		if (!*asked && ctl_ready(a->s.fd)) {
			ctl_read(a->s.fd, &q, sizeof(q));
			*asked = true;
			if (q.cmd == CMD_KV_ABORT) {
				snprintf(why, whylen, "the client gave up "
					 "before the notification");
				return false;
			}
			if (q.cmd != CMD_KV_WAIT)
				die("server: command %u during a KV round", q.cmd);
		}
		if (now() > end) {
			snprintf(why, whylen, "no notification in %.0f s", secs);
			return false;
		}
		if (idle > 65536)
			usleep(100);
	}
}

static bool agent_kv(struct agent *a, const struct req *r, bool *asked,
		     char *why, size_t whylen)
{
	uint64_t se, de, total = 0;
	struct kv_block *b = kv_layout(r->n, r->seed, &se, &de);
	unsigned int i, bad = 0;
	struct ibv_wc wc;
	char w[96], first[320] = "", other[320];
	bool ok;

	for (i = 0; i < r->n; i++)
		total += b[i].len;
	ok = agent_kv_wait(a, &wc, a->p.timeout + total / (1 << 20), asked,
			   why, whylen);
	if (ok && (wc.status != IBV_WC_SUCCESS ||
		   wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
		   !(wc.wc_flags & IBV_WC_WITH_IMM) ||
		   ntohl(wc.imm_data) != r->imm || wc.byte_len)) {
		snprintf(why, whylen, "the notification: %s (vendor error 0x%x), "
			 "opcode %d, imm 0x%08x (want 0x%08x), byte_len %u",
			 ibv_wc_status_str(wc.status), wc.vendor_err, wc.opcode,
			 ntohl(wc.imm_data), r->imm, wc.byte_len);
		ok = false;
	}
	/*
	 * Now, at the notification: the data must be there before it. The
	 * blocks posted last first: those are the ones a notification that
	 * overtook the data would beat, and they are checked before they
	 * could land meanwhile.
	 */
	for (i = r->n; ok && i-- > 0; ) {
		snprintf(w, sizeof(w), "block %u (%" PRIu64 " B at +%" PRIu64 ")",
			 i, b[i].len, b[i].dst);
		/* the first wrong block tells; the others are counted */
		if (!check_region(a->s.area, b[i].dst, b[i].len, b[i].seed,
				  b[i].len, b[i].seed, w, bad ? other : first,
				  sizeof(first)))
			bad++;
	}
	if (bad) {
		snprintf(why, whylen, "%u of %u blocks wrong at the notification; "
			 "%s", bad, r->n, first);
		ok = false;
	}
	if (ok && ibv_poll_cq(a->s.rcq, 1, &wc) > 0) {
		snprintf(why, whylen, "a receive completion too many: %s",
			 ibv_wc_status_str(wc.status));
		ok = false;
	}
	free(b);
	return ok && guards_ok(&a->s, why, whylen);
}

static void agent_kv_prep(struct agent *a, const struct req *r)
{
	struct ibv_recv_wr wr = { .wr_id = r->seed }, *bad;
	uint64_t se, de;
	struct kv_block *b = kv_layout(r->n, r->seed, &se, &de);
	unsigned int i;
	int ret;

	if (de > a->s.len)
		die("server: a KV round beyond the area");
	for (i = 0; i < r->n; i++)
		prep_target(a->s.area, b[i].dst, b[i].len, b[i].seed);
	free(b);
	ret = ibv_post_recv(a->s.qp, &wr, &bad);
	if (ret)
		die("server: ibv_post_recv: %s", strerror(ret));
}

/* The slots the first n WRITEs of --bw went to hold their data. */
static bool agent_bw_check(struct agent *a, const struct req *r, char *why,
			   size_t whylen)
{
	uint64_t seed = r->seed;
	unsigned int k;
	char w[64];

	for (k = 0; k < a->p.depth; k++) {
		uint64_t s = splitmix(&seed);

		if (k >= r->n)
			break;
		snprintf(w, sizeof(w), "slot %u", k);
		if (!holds(a->s.area + (uint64_t)k * a->p.size, a->p.size, s, 0,
			   w, why, whylen))
			return false;
	}
	return guards_ok(&a->s, why, whylen);
}

/* The server: arg is its struct agent (an xfer_loopback() agent). */
static int agent_run(void *arg)
{
	struct agent *a = arg;
	struct reply rep, kv;
	const char *what;
	struct req r;
	bool asked;
	int fd = a->s.fd, err;

	ctl_recv(fd, &r, sizeof(r));
	if (r.cmd != CMD_HELLO)
		die("server: command %u before hello", r.cmd);
	a->p = r.p;
	side_open(&a->s, area_len(&a->p));
	ctl_bound(&a->p, a->s.len);
	memset(&rep, 0, sizeof(rep));
	rep.ok = 1;
	rep.max_msg = a->s.d.port.max_msg_sz;
	ctl_write(fd, &rep, sizeof(rep));
	for (;;) {
		ctl_recv(fd, &r, sizeof(r));
		memset(&rep, 0, sizeof(rep));
		rep.ok = 1;
		switch (r.cmd) {
		case CMD_CONN:
			err = qp_create(&a->s, &a->p, &rep.info, &what);
			if (!err)
				err = qp_connect(&a->s, &r.info, &what);
			if (err) {
				rep.ok = 0;
				snprintf(rep.why, sizeof(rep.why), "%s: %s",
					 what, strerror(err));
			}
			break;
		case CMD_PREP:
			if (r.n > MAX_BATCH)
				die("server: %u transfers", r.n);
			a->n = r.n;
			ctl_read(fd, a->xs, r.n * sizeof(a->xs[0]));
			rep.ok = agent_prep(a, rep.why, sizeof(rep.why));
			break;
		case CMD_CHECK:
			rep.ok = agent_check(a, r.n, rep.why, sizeof(rep.why));
			break;
		case CMD_KV:
			agent_kv_prep(a, &r);
			ctl_write(fd, &rep, sizeof(rep));
			asked = false;
			kv = (struct reply){ .ok = 1 };
			kv.ok = agent_kv(a, &r, &asked, kv.why, sizeof(kv.why));
			if (!asked)
				ctl_recv(fd, &r, sizeof(r));
			if (!asked && r.cmd != CMD_KV_WAIT && r.cmd != CMD_KV_ABORT)
				die("server: command %u during a KV round", r.cmd);
			rep = kv;
			break;
		case CMD_BW_DONE:
			rep.ok = agent_bw_check(a, &r, rep.why, sizeof(rep.why));
			break;
		case CMD_QUIT:
			ctl_write(fd, &rep, sizeof(rep));
			side_close(&a->s);
			return r.n ? 1 : 0;
		default:
			die("server: unknown command %u", r.cmd);
		}
		ctl_write(fd, &rep, sizeof(rep));
	}
}

/* ---- the client ---------------------------------------------------------------- */

struct env {
	struct side s;
	struct qp_info remote;
	uint32_t max_msg;
	uint64_t seed;
};

static struct reply call(struct env *e, const struct req *r, const void *extra,
			 size_t len)
{
	struct reply rep;

	ctl_write(e->s.fd, r, sizeof(*r));
	if (len)
		ctl_write(e->s.fd, extra, len);
	ctl_recv(e->s.fd, &rep, sizeof(rep));
	rep.why[sizeof(rep.why) - 1] = 0;
	return rep;
}

/* Fresh CQs and QPs on both sides, connected. */
static void connect_qps(struct env *e)
{
	struct req r = { .cmd = CMD_CONN };
	struct reply rep;
	const char *what;
	int err;

	err = qp_create(&e->s, &opt.p, &r.info, &what);
	if (err)
		die("setup: %s: %s", what, strerror(err));
	rep = call(e, &r, NULL, 0);
	if (!rep.ok)
		die("setup: server: %s", rep.why);
	e->remote = rep.info;
	err = qp_connect(&e->s, &e->remote, &what);
	if (err)
		die("setup: %s: %s", what, strerror(err));
}

static int post_xfer(struct env *e, const struct xfer *x, unsigned int id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)e->s.area + x->loff,
			       .length = x->len, .lkey = e->s.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = x->op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (wr_has_imm(x->op))
		wr.imm_data = htonl(x->imm);
	if (!wr_is_send(x->op)) {
		wr.wr.rdma.remote_addr = e->remote.addr + x->roff;
		wr.wr.rdma.rkey = e->remote.rkey;
	}
	return ibv_post_send(e->s.qp, &wr, &bad);
}

/*
 * Run a batch: post the transfers, IN_FLIGHT at a time, take their
 * completions (in posting order), check what READs fetched, then have the
 * server check its receives and memory. Returns the verdict; why says
 * what failed.
 */
static bool run_batch(struct env *e, struct xfer *xs, unsigned int n,
		      char *why, size_t whylen)
{
	struct req r = { .cmd = CMD_PREP, .n = n };
	unsigned int posted = 0, done = 0, i;
	struct ibv_wc wc;
	struct reply rep;
	bool ok = true;
	char w[64];
	int ret;

	for (i = 0; i < n; i++) {
		xs[i].seed = splitmix(&e->seed);
		/* distinct in the batch: they tell the messages apart */
		xs[i].imm = ((uint32_t)(xs[i].seed >> 32) & ~0xffu) | i;
		if (xs[i].op == IBV_WR_RDMA_READ)
			prep_target(e->s.area, xs[i].loff, xs[i].len,
				    xs[i].seed);
		else
			prep_source(e->s.area, xs[i].loff, xs[i].len,
				    xs[i].seed);
	}
	rep = call(e, &r, xs, n * sizeof(*xs));
	if (!rep.ok) {
		snprintf(why, whylen, "server: %s", rep.why);
		return false;
	}
	while (ok && done < n) {
		while (posted < n && posted - done < IN_FLIGHT) {
			ret = post_xfer(e, &xs[posted], posted);
			if (ret) {
				snprintf(why, whylen, "ibv_post_send of %s #%u: %s",
					 wr_op_name(xs[posted].op), posted,
					 strerror(ret));
				ok = false;
				break;
			}
			posted++;
		}
		if (!ok)
			break;
		if (!wait_wc(e->s.scq, &wc, opt.p.timeout)) {
			snprintf(why, whylen, "%u of %u completion(s), none more "
				 "in %.0f s", done, n, opt.p.timeout);
			ok = false;
		} else if (wc.status != IBV_WC_SUCCESS) {
			snprintf(why, whylen, "%s #%" PRIu64 " (%" PRIu64 " B): %s "
				 "(vendor error 0x%x)", wc.wr_id < n ?
				 wr_op_name(xs[wc.wr_id].op) : "?", wc.wr_id,
				 wc.wr_id < n ? xs[wc.wr_id].len : 0,
				 ibv_wc_status_str(wc.status), wc.vendor_err);
			ok = false;
		} else if (wc.wr_id != done) {
			snprintf(why, whylen, "completion of #%" PRIu64 " where #%u "
				 "was due: send completions come in posting order",
				 wc.wr_id, done);
			ok = false;
		} else if (wc.opcode != wr_wc_opcode(xs[done].op) ||
			   wc.qp_num != e->s.qp->qp_num) {
			snprintf(why, whylen, "%s #%u: completion opcode %d, qp_num "
				 "0x%x", wr_op_name(xs[done].op), done, wc.opcode,
				 wc.qp_num);
			ok = false;
		}
		done++;
	}
	for (i = 0; ok && i < n; i++) {
		if (xs[i].op != IBV_WR_RDMA_READ)
			continue;
		snprintf(w, sizeof(w), "rdma_read #%u here", i);
		ok = check_region(e->s.area, xs[i].loff, xs[i].len, xs[i].seed,
				  xs[i].len, xs[i].seed, w, why, whylen);
	}
	if (ok)
		ok = guards_ok(&e->s, why, whylen);
	r = (struct req){ .cmd = CMD_CHECK, .n = !ok };
	rep = call(e, &r, NULL, 0);
	if (ok && !rep.ok) {
		snprintf(why, whylen, "server: %s", rep.why);
		ok = false;
	}
	/* what follows a failure gets QPs of its own */
	if (!ok)
		connect_qps(e);
	return ok;
}

/* Lay transfers out one after the other in both areas. */
struct cursor {
	uint64_t l, r;
};

static struct xfer xf(const struct env *e, struct cursor *c, uint32_t op,
		      uint64_t len, uint64_t cap, unsigned int k)
{
	struct xfer x = { .op = op, .len = len, .cap = wr_is_send(op) ? cap : len };

	x.loff = ((c->l + MARGIN + 63) & ~63ULL) + (k * 5) % 53;
	x.roff = ((c->r + MARGIN + 63) & ~63ULL) + (k * 11 + 7) % 59;
	c->l = x.loff + len + MARGIN;
	c->r = x.roff + x.cap + MARGIN;
	if (c->l > e->s.len || c->r > e->s.len)
		die("test layout: the transfers do not fit the area");
	return x;
}

static const uint32_t data_ops[] = {
	IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
	IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
};

#define N_OPS	(sizeof(data_ops) / sizeof(data_ops[0]))

static const uint64_t sizes[] = {
	1, 4095, 4096, 65537, 1 << 20, 16 << 20, 64 << 20,
};

/* The largest first: the ones after it may overtake it. */
static const uint64_t mixed[MAX_BATCH] = {
	(256 << 10) + 5, 1, 4095, 4096, 65537, 3, 100000, 4097, 200000, 17,
	12293, 65536, 9, 131072, 511, 777,
};

static unsigned int n_sizes(void)
{
	return opt.p.quick ? 5 : sizeof(sizes) / sizeof(sizes[0]);
}

static void report(bool ok, const char *name, const char *why)
{
	if (!tap_ok(ok, "%s", name))
		tap_diag("%s", why);
}

/* Up to IN_FLIGHT transfers of one size and opcode at once. */
static void t_size(struct env *e, uint32_t op, uint64_t len)
{
	struct xfer xs[IN_FLIGHT];
	struct cursor c = { 0, 0 };
	unsigned int n = IN_FLIGHT, i;
	char name[128], why[400] = "";
	double t0;
	bool ok;

	while (n > 1 && n * (len + 3 * MARGIN + 128) > e->s.len)
		n--;
	snprintf(name, sizeof(name), "%s %s %" PRIu64 " B, %u at once",
		 qp_name(&opt.p), wr_op_name(op), len, n);
	if (len > e->max_msg) {
		snprintf(why, sizeof(why), "above max_msg_sz (%u B)", e->max_msg);
		tap_skip(why, "%s", name);
		return;
	}
	for (i = 0; i < n; i++)
		xs[i] = xf(e, &c, op, len, len, i);
	t0 = now();
	ok = run_batch(e, xs, n, why, sizeof(why));
	report(ok, name, why);
	if (ok && len >= (1 << 20))
		tap_diag("%" PRIu64 " B moved and checked in %.2f s", len * n,
			 now() - t0);
}

/* MAX_BATCH transfers of mixed sizes, IN_FLIGHT at a time. */
static void t_mixed(struct env *e, uint32_t op)
{
	struct xfer xs[MAX_BATCH];
	struct cursor c = { 0, 0 };
	char name[160], why[400] = "";
	uint64_t cap = 0;
	unsigned int i;

	for (i = 0; i < MAX_BATCH; i++)
		cap = mixed[i] > cap ? mixed[i] : cap;
	/* a RUD message takes whichever receive is next when it begins to
	 * arrive: every receive must take the largest */
	for (i = 0; i < MAX_BATCH; i++)
		xs[i] = xf(e, &c, op, mixed[i], cap, i);
	snprintf(name, sizeof(name), "%s %s: %u of mixed sizes (1 B to %" PRIu64
		 " B), %u at once%s", qp_name(&opt.p), wr_op_name(op), MAX_BATCH,
		 cap, IN_FLIGHT, wr_has_recv(op) ? ", receives matched by wr_id" :
		 "");
	report(run_batch(e, xs, MAX_BATCH, why, sizeof(why)), name, why);
}

static void test_mode(struct env *e)
{
	unsigned int o, k;

	tap_plan(N_OPS * (n_sizes() + 1));
	tap_diag("%s QP, %s, MTU %d, %s", qp_name(&opt.p), opt.x.dev,
		 128 << e->s.d.port.active_mtu, opt.p.quick ? "quick" : "full");
	connect_qps(e);
	for (o = 0; o < N_OPS; o++) {
		for (k = 0; k < n_sizes(); k++)
			t_size(e, data_ops[o], sizes[k]);
		t_mixed(e, data_ops[o]);
	}
}

/* ---- --kv ------------------------------------------------------------------- */

/* Post block i's WRITE (i == n: the fenced notification). */
static int kv_post(struct env *e, const struct kv_block *b, unsigned int i,
		   unsigned int n, uint32_t imm)
{
	struct ibv_sge sge = { .lkey = e->s.mr->lkey };
	struct ibv_send_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 },
			   *bad;

	wr.wr.rdma.rkey = e->remote.rkey;
	if (i < n) {
		sge.addr = (uintptr_t)e->s.area + b[i].src;
		sge.length = b[i].len;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = e->remote.addr + b[i].dst;
		wr.send_flags = (i + 1) % SIGNAL_EVERY ? 0 : IBV_SEND_SIGNALED;
	} else {
		wr.num_sge = 0;
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htonl(imm);
		wr.wr.rdma.remote_addr = e->remote.addr;
		wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	}
	return ibv_post_send(e->s.qp, &wr, &bad);
}

/* Post every block and the notification; true once it completed. */
static bool kv_send(struct env *e, const struct kv_block *b, unsigned int n,
		    uint32_t imm, char *why, size_t whylen)
{
	unsigned int i, acked = 0, room = e->s.sq_depth > 2 * SIGNAL_EVERY ?
		     e->s.sq_depth - 2 * SIGNAL_EVERY : 1;
	struct ibv_wc wc;
	int ret;

	for (i = 0; i <= n || acked <= n; ) {
		if (i <= n && i - acked < room) {
			ret = kv_post(e, b, i, n, imm);
			if (ret) {
				snprintf(why, whylen, "ibv_post_send of %s %u: %s",
					 i < n ? "block" : "the notification", i,
					 strerror(ret));
				return false;
			}
			i++;
			continue;
		}
		if (!wait_wc(e->s.scq, &wc, opt.p.timeout)) {
			snprintf(why, whylen, "%u of %u WRs completed, none more "
				 "in %.0f s", acked, n + 1, opt.p.timeout);
			return false;
		}
		if (wc.status != IBV_WC_SUCCESS) {
			snprintf(why, whylen, "%s %" PRIu64 ": %s (vendor error 0x%x)",
				 wc.wr_id < n ? "block" : "the notification",
				 wc.wr_id, ibv_wc_status_str(wc.status),
				 wc.vendor_err);
			return false;
		}
		if (wc.wr_id < acked || wc.wr_id > n) {
			snprintf(why, whylen, "completion of WR %" PRIu64 " after %u "
				 "had completed", wc.wr_id, acked);
			return false;
		}
		/* in posting order: every WR before it is done too */
		acked = wc.wr_id + 1;
	}
	return true;
}

static void kv_round(struct env *e, unsigned int round)
{
	uint64_t seed = kv_seed(&opt.p, round), se, de, total = 0;
	unsigned int n = opt.p.kv_n, i;
	struct kv_block *b = kv_layout(n, seed, &se, &de);
	uint32_t imm = (uint32_t)(seed >> 32) ^ round;
	struct req r = { .cmd = CMD_KV, .n = n, .seed = seed, .imm = imm };
	char name[160], why[400] = "";
	struct reply rep;
	double t0, t1;
	bool ok;

	for (i = 0; i < n; i++) {
		prep_source(e->s.area, b[i].src, b[i].len, b[i].seed);
		total += b[i].len;
	}
	snprintf(name, sizeof(name), "%s kv round %u: %u writes of %u to %u B "
		 "(%" PRIu64 " B), then a fenced rdma_write_imm: every byte in "
		 "place at the notification", qp_name(&opt.p), round + 1, n,
		 KV_MIN, KV_MAX, total);
	rep = call(e, &r, NULL, 0);
	if (!rep.ok)
		die("server: %s", rep.why);
	t0 = now();
	ok = kv_send(e, b, n, imm, why, sizeof(why));
	t1 = now();
	r = (struct req){ .cmd = ok ? CMD_KV_WAIT : CMD_KV_ABORT };
	rep = call(e, &r, NULL, 0);
	if (ok && !rep.ok) {
		snprintf(why, sizeof(why), "server: %s", rep.why);
		ok = false;
	}
	report(ok, name, why);
	if (ok)
		tap_diag("%" PRIu64 " B in %.3f s: %.1f MB/s", total, t1 - t0,
			 total / (t1 - t0) / 1e6);
	free(b);
	if (!ok)
		connect_qps(e);
}

static void kv_mode(struct env *e)
{
	unsigned int r;

	tap_plan(opt.p.rounds);
	tap_diag("%s QP, %s, %u blocks a round, %u round(s)", qp_name(&opt.p),
		 opt.x.dev, opt.p.kv_n, opt.p.rounds);
	connect_qps(e);
	for (r = 0; r < opt.p.rounds; r++)
		kv_round(e, r);
}

/* ---- --bw -------------------------------------------------------------------- */

struct samples {
	double *v;
	size_t n, cap;
};

static void sample_add(struct samples *s, double v)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v)
			die("out of memory");
	}
	s->v[s->n++] = v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The q-quantile (nearest rank) of sorted samples, in us. */
static double quantile_us(const struct samples *s, double q)
{
	size_t rank;

	if (!s->n)
		return 0;
	rank = (size_t)ceil(q * s->n);
	if (rank < 1)
		rank = 1;
	if (rank > s->n)
		rank = s->n;
	return s->v[rank - 1] * 1e6;
}

static void write_series(const struct samples *bytes, double t_end)
{
	size_t k, nb = (size_t)(t_end / SERIES_STEP) + 1;
	FILE *f = fopen(opt.series, "w");

	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name,
			opt.series, strerror(errno));
		return;
	}
	for (k = 0; k < nb && k < bytes->n; k++)
		fprintf(f, "%.1f %.2f\n", (k + 1) * SERIES_STEP,
			bytes->v[k] / SERIES_STEP / 1e6);
	fclose(f);
}

/* Returns the exit status. */
static int bw_mode(struct env *e)
{
	uint32_t depth = opt.p.depth, size = opt.p.size;
	uint64_t seed = opt.p.seed ^ BW_SALT, posted = 0, done = 0;
	double *t_post = calloc(depth, sizeof(double));
	double t0, t_end, t_last, t;
	struct samples lat = { 0 }, bytes = { 0 };
	struct ibv_sge sge = { .length = size, .lkey = e->s.mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	struct ibv_wc wc[16];
	struct req r = { .cmd = CMD_BW_DONE, .seed = seed };
	struct reply rep;
	unsigned int idle = 0, k;
	bool failed = false, stop = false;
	size_t b;
	int n, i, ret;

	if (!t_post)
		die("out of memory");
	if (size > e->max_msg)
		die("setup: --size %u is above max_msg_sz (%u B)", size,
		    e->max_msg);
	for (k = 0; k < depth; k++)
		fill(e->s.area + (uint64_t)k * size, size, splitmix(&seed));
	connect_qps(e);
	if (e->s.sq_depth < depth)
		die("setup: the QP takes %u WRs, not --depth %u", e->s.sq_depth,
		    depth);
	wr.wr.rdma.rkey = e->remote.rkey;
	fprintf(stderr, "%s: %s QP 0x%x on %s: %u B RDMA_WRITEs, %u at once, "
		"%g s\n", program_invocation_short_name, qp_name(&opt.p),
		e->s.qp->qp_num, opt.x.dev, size, depth, opt.p.bw_secs);
	t0 = t_last = now();
	t_end = t0 + opt.p.bw_secs;
	while (!failed) {
		while (!stop && posted - done < depth) {
			k = posted % depth;
			sge.addr = (uintptr_t)e->s.area + (uint64_t)k * size;
			wr.wr.rdma.remote_addr = e->remote.addr + (uint64_t)k * size;
			wr.wr_id = posted;
			t_post[k] = now();
			ret = ibv_post_send(e->s.qp, &wr, &bad);
			if (ret) {
				fprintf(stderr, "%s: ibv_post_send of WR %" PRIu64
					": %s\n", program_invocation_short_name,
					posted, strerror(ret));
				failed = true;
				break;
			}
			posted++;
			stop = t_post[k] >= t_end;
		}
		if (failed || (stop && done == posted))
			break;
		n = ibv_poll_cq(e->s.scq, 16, wc);
		if (n < 0)
			die("ibv_poll_cq: %d", n);
		t = now();
		if (!n) {
			if (++idle % 64 == 0) {
				stop |= t >= t_end;
				if (t - t_last > opt.p.timeout) {
					fprintf(stderr, "%s: %" PRIu64 " WR(s) "
						"outstanding, no completion in "
						"%.0f s\n",
						program_invocation_short_name,
						posted - done, opt.p.timeout);
					failed = true;
				}
			}
			sched_yield();
			continue;
		}
		idle = 0;
		for (i = 0; i < n && !failed; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "%s: WR %" PRIu64 " (%u B RDMA_WRITE) "
					"failed after %.3f s: %s (status %d, "
					"vendor error 0x%x)\n",
					program_invocation_short_name,
					wc[i].wr_id, size, t - t0,
					ibv_wc_status_str(wc[i].status),
					wc[i].status, wc[i].vendor_err);
				failed = true;
			} else if (wc[i].wr_id != done) {
				fprintf(stderr, "%s: completion of WR %" PRIu64
					" where %" PRIu64 " was due\n",
					program_invocation_short_name,
					wc[i].wr_id, done);
				failed = true;
			} else {
				sample_add(&lat, t - t_post[done % depth]);
				b = (size_t)((t - t0) / SERIES_STEP);
				while (bytes.n <= b)
					sample_add(&bytes, 0);
				bytes.v[b] += size;
				done++;
				t_last = t;
			}
		}
		stop |= t >= t_end;
	}
	qsort(lat.v, lat.n, sizeof(*lat.v), cmp_double);
	t = t_last > t0 ? t_last - t0 : 0;
	printf("goodput_MBps=%.2f p50_us=%.1f p99_us=%.1f msgs=%" PRIu64 "\n",
	       t > 0 ? done * (double)size / t / 1e6 : 0,
	       quantile_us(&lat, 0.5), quantile_us(&lat, 0.99), done);
	fflush(stdout);
	if (opt.series)
		write_series(&bytes, t);
	r.n = done < depth ? done : depth;
	rep = call(e, &r, NULL, 0);
	if (!rep.ok) {
		fprintf(stderr, "%s: server: %s\n", program_invocation_short_name,
			rep.why);
		failed = true;
	}
	free(lat.v);
	free(bytes.v);
	free(t_post);
	return failed;
}

/* ---- roles --------------------------------------------------------------------- */

/* The client: arg is its struct env (an xfer_loopback() requester). */
static int client_run(void *arg)
{
	struct env *e = arg;
	struct req r = { .cmd = CMD_HELLO, .p = opt.p };
	struct reply rep;
	int ret = 0;

	side_open(&e->s, area_len(&opt.p));
	ctl_bound(&opt.p, e->s.len);
	rep = call(e, &r, NULL, 0);
	e->max_msg = min_u32(rep.max_msg, e->s.d.port.max_msg_sz);
	e->seed = opt.p.seed;
	switch (opt.p.mode) {
	case MODE_TEST:
		test_mode(e);
		break;
	case MODE_KV:
		kv_mode(e);
		break;
	case MODE_BW:
		ret = bw_mode(e);
		break;
	}
	if (opt.p.mode != MODE_BW)
		ret = tap_done();
	r = (struct req){ .cmd = CMD_QUIT, .n = ret };
	call(e, &r, NULL, 0);
	side_close(&e->s);
	return ret;
}

static int loopback(void)
{
	static struct agent a;
	static struct env e;

	return xfer_loopback(agent_run, &a, &a.s.fd, client_run, &e, &e.s.fd);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: axon-rud-xfer [-d DEV] [-g GID_INDEX] [--qp rc|rud]\n"
		"                     [--test [--quick] | --kv N [--rounds R] |\n"
		"                      --bw SECONDS [--size BYTES] [--depth D] [--series FILE]]\n"
		"                     [--server | --client HOST | --loopback] [--tcp-port N]\n"
		"                     [--timeout S] [--flow-label N]\n"
		"  default: --test, --qp rud, loopback on one device; under tools/axon-vm\n"
		"  with 2 nodes (AXON_NODES=2), node 0 is the server and node 1 its client;\n"
		"  the server takes the mode and its parameters from the client\n");
	exit(2);
}

static unsigned long num(const char *s, unsigned long lo, unsigned long hi)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "axon-rud-xfer: %s: a number from %lu to %lu\n",
			s, lo, hi);
		usage();
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "qp", required_argument, NULL, 'Q' },
		{ "test", no_argument, NULL, 'T' },
		{ "quick", no_argument, NULL, 'q' },
		{ "kv", required_argument, NULL, 'K' },
		{ "rounds", required_argument, NULL, 'R' },
		{ "bw", required_argument, NULL, 'B' },
		{ "size", required_argument, NULL, 'S' },
		{ "depth", required_argument, NULL, 'D' },
		{ "series", required_argument, NULL, 'W' },
		XFER_LONG_OPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct env e = { 0 };
	int c;

	while ((c = getopt_long(argc, argv, XFER_SHORT_OPTS, lopts, NULL)) != -1) {
		if (c != 'h' && xfer_opt(&opt.x, c, optarg))
			continue;
		switch (c) {
		case 'Q':
			if (strcmp(optarg, "rc") && strcmp(optarg, "rud"))
				usage();
			opt.p.rud = !strcmp(optarg, "rud");
			break;
		case 'T': opt.p.mode = MODE_TEST; break;
		case 'q': opt.p.quick = 1; break;
		case 'K':
			opt.p.mode = MODE_KV;
			opt.p.kv_n = num(optarg, 1, 16384);
			break;
		case 'R': opt.p.rounds = num(optarg, 1, 1000); break;
		case 'B':
			opt.p.mode = MODE_BW;
			opt.p.bw_secs = atof(optarg);
			if (!(opt.p.bw_secs > 0 && opt.p.bw_secs <= 86400))
				usage();
			break;
		case 'S': opt.p.size = num(optarg, 1, 64u << 20); break;
		case 'D': opt.p.depth = num(optarg, 1, 4096); break;
		case 'W': opt.series = optarg; break;
		default: usage();
		}
	}
	if (optind != argc || !(opt.x.timeout > 0))
		usage();
	if ((uint64_t)opt.p.depth * opt.p.size > (1ULL << 30)) {
		fprintf(stderr, "axon-rud-xfer: --depth x --size above 1 GiB\n");
		usage();
	}
	opt.p.timeout = opt.x.timeout;
	srand48(time(NULL) ^ getpid());
	xfer_role(&opt.x);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (opt.x.mode == 's') {
		static struct agent a;

		a.s.fd = ctl_accept(opt.x.tcp_port);
		return agent_run(&a);
	}
	if (opt.x.mode == 'c') {
		e.s.fd = ctl_connect(opt.x.peer, opt.x.tcp_port);
		if (opt.p.mode != MODE_BW)
			tap_diag("client on %s, server at %s",
				 opt.x.dev ? opt.x.dev : "the first device",
				 opt.x.peer);
		return client_run(&e);
	}
	return loopback();
}
