// SPDX-License-Identifier: GPL-2.0
/*
 * axon-gpu-xfer: RDMA to and from GPU memory (dma-buf memory regions).
 *
 * Each side allocates a buffer on /dev/axon_gpuN, registers it with
 * ibv_reg_dmabuf_mr() at a non-zero dma-buf offset (iova = gpu_va +
 * offset, so remote addresses are GPU pointers), and registers a host
 * buffer as well. The client runs RDMA WRITE, WRITE_WITH_IMM, READ and
 * SEND between the two GPU buffers, between GPU and host memory both
 * ways, and a KV-cache batch (NIXL's shape: thousands of 8-32 KiB WRITEs
 * of scattered blocks into the peer's GPU memory, then a WRITE_WITH_IMM
 * as the notification; the server checks every block the moment the
 * notification completes). Every byte is checked through the dma-buf's
 * CPU mapping, and the NIC's peer_read_bytes / peer_write_bytes counters
 * must grow by at least the bytes that went to or from GPU memory.
 *
 * Modes: loopback (default; both sides in one process on one device),
 * --server / --client HOST (under tools/axon-vm with 2 nodes, node 0
 * serves and node 1 connects), --safety (loopback: dma-buf lifetime and
 * eviction under an MR), --hold (keep a registered buffer until SIGUSR1).
 * Output: TAP (tools/lib/tap.h): the plan, one result per case, its
 * details (rate, counters, why it failed) as a "# " line.
 *
 * --demo runs a few GPU-to-GPU cases (KV-cache batch, 64 MiB WRITE and
 * READ, 16 MiB WRITE_WITH_IMM and SEND) and prints a table (tools/axon-demo).
 *
 * Usage: axon-gpu-xfer [-d DEV] [-g GID_INDEX] [--gpu PATH] [--quick | --demo]
 *        [--kv-blocks N] [--server | --client HOST | --safety | --hold S]
 *        [--tcp-port N] [--timeout S] [--flow-label N]
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <axon/axon_admin_cmds_defs.h>
#include <axon/axon_gpu.h>

#include "rdma-xfer.h"
#include "tap.h"

#define MR_OFF		(3u * 4096)	/* dma-buf offset of the data MR */
#define MR_LEN		((64u << 20) + (64u << 10))
#define BUF_SIZE	(MR_OFF + MR_LEN)
#define MARGIN		64	/* background bytes checked around a region */
#define DEPTH		256
#define SIGNAL_EVERY	16	/* KV batch: one signaled WRITE in this many */
#define KV_MIN		(8u << 10)
#define KV_MAX		(32u << 10)
#define KV_GAP		(2 * MARGIN)	/* margins of neighbours apart */
#define BG_SALT		0x6a09e667f3bcc908ULL
#define TCP_PORT	18780

enum { GPU, HOST, NMEM };

static const char *const mem_name[NMEM] = { "gpu", "host" };

static struct {
	struct xfer_opts x;
	const char *gpu;
	bool quick, demo;
	unsigned int kv_blocks;
} opt = { .x = { .gid_index = -1, .timeout = 60, .tcp_port = TCP_PORT },
	  .gpu = AXON_GPU_DEV_PREFIX "0", .kv_blocks = 2048 };

/* ---- patterns ------------------------------------------------------------ */

static void gen(uint8_t *p, uint64_t n, uint64_t seed)
{
	uint64_t v;

	for (; n >= 8; n -= 8, p += 8) {
		v = splitmix(&seed);
		memcpy(p, &v, 8);
	}
	if (n) {
		v = splitmix(&seed);
		memcpy(p, &v, n);
	}
}

/* Compare n bytes at p with stream seed; say where the first bad byte is. */
static bool check_gen(const uint8_t *p, uint64_t n, uint64_t seed,
		      const char *what, char *why, size_t whylen)
{
	uint8_t want[4096];
	uint64_t done, l, i;

	for (done = 0; done < n; done += l) {
		l = n - done < sizeof(want) ? n - done : sizeof(want);
		gen(want, l, seed);
		seed += (sizeof(want) / 8) * 0x9e3779b97f4a7c15ULL;
		if (memcmp(p + done, want, l)) {
			for (i = 0; p[done + i] == want[i]; i++)
				;
			snprintf(why, whylen, "%s: byte %" PRIu64
				 " is 0x%02x, want 0x%02x", what, done + i,
				 p[done + i], want[i]);
			return false;
		}
	}
	return true;
}

/* What check_gen() compares with: the stream restarted per 4 KiB chunk. */
static void gen_chunked(uint8_t *p, uint64_t n, uint64_t seed)
{
	uint64_t done, l;

	for (done = 0; done < n; done += l) {
		l = n - done < 4096 ? n - done : 4096;
		gen(p + done, l, seed);
		seed += (4096 / 8) * 0x9e3779b97f4a7c15ULL;
	}
}

/* [off - MARGIN, off) and [off + len, + MARGIN), inside the MR */
static void margins(uint64_t off, uint64_t len, uint64_t *lo, uint64_t *hi)
{
	*lo = off < MARGIN ? off : MARGIN;
	*hi = MR_LEN - off - len < MARGIN ? MR_LEN - off - len : MARGIN;
}

/* Bytes [pos, pos + n) of what gen_chunked() makes from seed. */
static void gen_at(uint8_t *p, uint64_t pos, uint64_t n, uint64_t seed)
{
	uint8_t chunk[4096];
	uint64_t c, in, l;

	for (; n; n -= l, pos += l, p += l) {
		c = pos / 4096;
		in = pos % 4096;
		l = 4096 - in < n ? 4096 - in : n;
		gen(chunk, in + l, seed + c * 512 * 0x9e3779b97f4a7c15ULL);
		memcpy(p, chunk + in, l);
	}
}

/* A source: the payload. A target: background around and under it. */
static void fill(uint8_t *base, uint64_t off, uint64_t len, uint64_t seed,
		 bool data)
{
	uint64_t lo, hi;

	margins(off, len, &lo, &hi);
	if (data)
		gen_chunked(base + off, len, seed);
	else
		gen_chunked(base + off - lo, lo + len + hi, seed ^ BG_SALT);
}

static bool check(const uint8_t *base, uint64_t off, uint64_t len,
		  uint64_t seed, char *why, size_t whylen)
{
	uint8_t bg[2][MARGIN];
	uint64_t lo, hi;
	bool ok;

	margins(off, len, &lo, &hi);
	if (!check_gen(base + off, len, seed, "payload", why, whylen))
		return false;
	gen_at(bg[0], 0, lo, seed ^ BG_SALT);
	gen_at(bg[1], lo + len, hi, seed ^ BG_SALT);
	ok = !memcmp(base + off - lo, bg[0], lo) &&
	     !memcmp(base + off + len, bg[1], hi);
	if (!ok)
		snprintf(why, whylen, "bytes around the region changed");
	return ok;
}

/* ---- GPU buffers ------------------------------------------------------------ */

struct gbuf {
	int fd;			/* dma-buf; -1 once closed */
	uint8_t *map;
	uint64_t size, gpu_va;
};

static int gpu_dev(void)
{
	static int fd = -1;

	if (fd < 0)
		fd = open(opt.gpu, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("setup: open %s: %s", opt.gpu, strerror(errno));
	return fd;
}

static void gbuf_alloc(struct gbuf *b, uint64_t size)
{
	struct axon_gpu_alloc a = { .size = size, .fd = -1 };

	if (ioctl(gpu_dev(), AXON_GPU_IOCTL_ALLOC, &a))
		die("setup: AXON_GPU_IOCTL_ALLOC %" PRIu64 ": %s", size,
		    strerror(errno));
	b->fd = a.fd;
	b->size = size;
	b->gpu_va = a.gpu_va;
	b->map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, a.fd, 0);
	if (b->map == MAP_FAILED)
		die("setup: mmap of the dma-buf: %s", strerror(errno));
}

static void gbuf_free(struct gbuf *b)
{
	munmap(b->map, b->size);
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
}

static int gpu_move(int fd)
{
	struct axon_gpu_move m = { .fd = fd };

	return ioctl(gpu_dev(), AXON_GPU_IOCTL_MOVE, &m) ? errno : 0;
}

static int gpu_buffers(void)
{
	struct axon_gpu_info i;

	if (ioctl(gpu_dev(), AXON_GPU_IOCTL_INFO, &i))
		die("AXON_GPU_IOCTL_INFO: %s", strerror(errno));
	return i.buffers;
}

static const uint32_t access_all = IBV_ACCESS_LOCAL_WRITE |
	IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

static struct ibv_mr *reg_gpu(struct ibv_pd *pd, const struct gbuf *b,
			      uint64_t off, uint64_t len)
{
	return ibv_reg_dmabuf_mr(pd, off, len, b->gpu_va + off, b->fd,
				 access_all);
}

/* ---- one side ------------------------------------------------------------- */

struct mem {
	uint8_t *cpu;		/* CPU address of MR offset 0 */
	uint64_t addr;		/* its iova */
	struct ibv_mr *mr;
};

struct side {
	struct rdma_dev d;
	struct ibv_pd *pd;
	struct gbuf g;
	struct mem m[NMEM];
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	uint32_t psn;
	int fd;			/* control channel */
	uint64_t seed;
};

static void side_open(struct side *s)
{
	rdma_open(&s->d, &opt.x);
	s->pd = ibv_alloc_pd(s->d.ctx);
	if (!s->pd)
		die("setup: ibv_alloc_pd: %s", strerror(errno));
	gbuf_alloc(&s->g, BUF_SIZE);
	s->m[GPU].cpu = s->g.map + MR_OFF;
	s->m[GPU].addr = s->g.gpu_va + MR_OFF;
	s->m[GPU].mr = reg_gpu(s->pd, &s->g, MR_OFF, MR_LEN);
	if (!s->m[GPU].mr)
		die("setup: ibv_reg_dmabuf_mr of %u bytes at offset %u: %s",
		    MR_LEN, MR_OFF, strerror(errno));
	s->m[HOST].cpu = mmap(NULL, MR_LEN, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->m[HOST].cpu == MAP_FAILED)
		die("setup: out of memory");
	s->m[HOST].addr = (uintptr_t)s->m[HOST].cpu;
	s->m[HOST].mr = ibv_reg_mr(s->pd, s->m[HOST].cpu, MR_LEN, access_all);
	if (!s->m[HOST].mr)
		die("setup: ibv_reg_mr: %s", strerror(errno));
	s->scq = ibv_create_cq(s->d.ctx, 2 * DEPTH, NULL, NULL, 0);
	s->rcq = ibv_create_cq(s->d.ctx, 2 * DEPTH, NULL, NULL, 0);
	if (!s->scq || !s->rcq)
		die("setup: ibv_create_cq: %s", strerror(errno));
}

static void side_close(struct side *s)
{
	if (s->qp)
		ibv_destroy_qp(s->qp);
	ibv_destroy_cq(s->scq);
	ibv_destroy_cq(s->rcq);
	ibv_dereg_mr(s->m[GPU].mr);
	ibv_dereg_mr(s->m[HOST].mr);
	munmap(s->m[HOST].cpu, MR_LEN);
	gbuf_free(&s->g);
	ibv_dealloc_pd(s->pd);
	ibv_close_device(s->d.ctx);
}

struct qp_info {
	struct rc_peer p;
	uint32_t rkey[NMEM];
	uint64_t addr[NMEM];
};

/* A new QP in INIT on s, described in *info. */
static void qp_create(struct side *s, struct qp_info *info)
{
	struct ibv_qp_init_attr init = {
		.send_cq = s->scq, .recv_cq = s->rcq,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = access_all,
	};
	struct ibv_wc wc;
	unsigned int i;

	if (s->qp)
		ibv_destroy_qp(s->qp);
	/* what the old QP left (flushed work) is not the new one's */
	while (ibv_poll_cq(s->scq, 1, &wc) > 0 || ibv_poll_cq(s->rcq, 1, &wc) > 0)
		;
	s->qp = ibv_create_qp(s->pd, &init);
	if (!s->qp)
		die("setup: ibv_create_qp: %s", strerror(errno));
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("setup: modify_qp to INIT: %s", strerror(errno));
	s->psn = splitmix(&s->seed) & AXON_PSN_MASK;
	memset(info, 0, sizeof(*info));
	info->p.qpn = s->qp->qp_num;
	info->p.psn = s->psn;
	info->p.mtu = s->d.port.active_mtu;
	memcpy(info->p.gid, s->d.gid.raw, 16);
	for (i = 0; i < NMEM; i++) {
		info->rkey[i] = s->m[i].mr->rkey;
		info->addr[i] = s->m[i].addr;
	}
}

static void qp_connect(struct side *s, const struct qp_info *peer)
{
	const char *what;
	int err;

	err = rc_connect(&s->d, s->qp, &peer->p, s->psn, 16, 12, 7, &what);
	if (err)
		die("setup: %s: %s", what, strerror(err));
}

/* One completion from cq within the timeout (false: none came). */
static bool poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	return wait_wc(cq, wc, opt.x.timeout);
}

/* One of the device's hw_counters (UINT64_MAX: none). */
static uint64_t hw_counter(const char *name)
{
	char path[256];
	uint64_t v;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", opt.x.dev,
		 name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%" SCNu64, &v) != 1)
		v = UINT64_MAX;
	if (f)
		fclose(f);
	return v;
}

/* The device's peer_read_bytes and peer_write_bytes (UINT64_MAX: none). */
static void peer_bytes(uint64_t v[2])
{
	v[0] = hw_counter("peer_read_bytes");
	v[1] = hw_counter("peer_write_bytes");
}

/* ---- the control channel -------------------------------------------------- */

enum cmd {
	CMD_CONN,	/* new QP, connected to info; reply: ours */
	CMD_FILL,	/* background at mem/off/len, payload too if n */
	CMD_CHECK,	/* the payload and background are there */
	CMD_RECV,	/* post a receive for mem/off/len (len 0: no SGE) */
	CMD_WAIT,	/* the receive completes with imm, payload checked */
	CMD_KV,		/* prepare n blocks, post a receive, check them
			 * all when it completes */
	CMD_KV_WAIT,	/* the outcome of that */
	CMD_STATS,	/* our peer byte counters */
	CMD_QUIT,
};

struct req {
	uint32_t cmd, mem, n, imm, op;
	uint64_t off, len, seed;
	struct qp_info info;
};

struct reply {
	int32_t ok;
	char why[256];
	struct qp_info info;
	uint64_t peer[2];
	double secs;
};

/* ---- KV-cache batch layout ------------------------------------------------- */

struct kv_block {
	uint64_t src, dst, len, seed;
};

/*
 * n blocks of 8-32 KiB packed at the start of the source MR, placed in
 * the destination MR in a shuffled order (distinct, scattered).
 */
static struct kv_block *kv_layout(unsigned int n, uint64_t seed,
				  uint64_t *total)
{
	struct kv_block *b = calloc(n, sizeof(*b));
	unsigned int *ord = calloc(n, sizeof(*ord));
	uint64_t at = 0, dat = 0;
	unsigned int i;

	if (!b || !ord)
		die("out of memory");
	*total = 0;
	for (i = 0; i < n; i++) {
		b[i].len = KV_MIN + splitmix(&seed) % (KV_MAX - KV_MIN + 1);
		b[i].seed = splitmix(&seed);
		b[i].src = at;
		at += b[i].len + KV_GAP;
		*total += b[i].len;
		ord[i] = i;
	}
	if (at > MR_LEN)
		die("--kv-blocks %u: the blocks do not fit %u bytes", n, MR_LEN);
	shuffle(ord, n, &seed);
	for (i = 0; i < n; i++) {
		b[ord[i]].dst = dat + KV_GAP;
		dat += b[ord[i]].len + KV_GAP;
	}
	free(ord);
	return b;
}

/* ---- the server (agent) ---------------------------------------------------- */

static bool agent_wait(struct side *s, const struct req *r, char *why,
		       size_t whylen)
{
	bool imm = r->op != IBV_WR_SEND;
	enum ibv_wc_opcode want = imm ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV;
	struct ibv_wc wc;

	if (!poll_one(s->rcq, &wc)) {
		snprintf(why, whylen, "no receive completion in %.0f s",
			 opt.x.timeout);
		return false;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != want ||
	    wc.byte_len != r->len ||
	    !(wc.wc_flags & IBV_WC_WITH_IMM) != !imm ||
	    (imm && be32toh(wc.imm_data) != r->imm)) {
		snprintf(why, whylen, "receive: %s, opcode %d (want %d), "
			 "byte_len %u (want %" PRIu64 "), imm %s (want %s)",
			 ibv_wc_status_str(wc.status), wc.opcode, want,
			 wc.byte_len, r->len,
			 wc.wc_flags & IBV_WC_WITH_IMM ? "yes" : "no",
			 imm ? "yes" : "no");
		return false;
	}
	return check(s->m[r->mem].cpu, r->off, r->len, r->seed, why, whylen);
}

static bool agent_kv(struct side *s, const struct req *r, char *why,
		     size_t whylen)
{
	uint64_t total;
	struct kv_block *b = kv_layout(r->n, r->seed, &total);
	struct ibv_wc wc;
	unsigned int i;
	bool ok = true;
	char w[200];

	if (!poll_one(s->rcq, &wc)) {
		snprintf(why, whylen, "no notification in %.0f s", opt.x.timeout);
		ok = false;
	} else if (wc.status != IBV_WC_SUCCESS ||
		   wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
		   be32toh(wc.imm_data) != r->imm) {
		snprintf(why, whylen, "notification: %s, opcode %d, imm 0x%x",
			 ibv_wc_status_str(wc.status), wc.opcode,
			 be32toh(wc.imm_data));
		ok = false;
	}
	/* checked now: the notification must not arrive before the data */
	for (i = 0; ok && i < r->n; i++)
		if (!check(s->m[GPU].cpu, b[i].dst, b[i].len, b[i].seed, w,
			   sizeof(w))) {
			snprintf(why, whylen, "block %u of %u at the notification: %s",
				 i, r->n, w);
			ok = false;
		}
	free(b);
	return ok;
}

/* The agent: arg is its struct side (an xfer_loopback() agent). */
static int agent_run(void *arg)
{
	struct side *s = arg;
	struct ibv_recv_wr wr = { 0 }, *bad;
	struct ibv_sge sge;
	struct reply rep, kv = { .ok = 1 };
	struct kv_block *b;
	uint64_t total;
	struct req r;
	unsigned int i;

	for (;;) {
		ctl_read(s->fd, &r, sizeof(r));
		memset(&rep, 0, sizeof(rep));
		rep.ok = 1;
		if (r.mem >= NMEM || r.off > MR_LEN || r.len > MR_LEN - r.off)
			die("agent: bad request");
		switch (r.cmd) {
		case CMD_CONN:
			qp_create(s, &rep.info);
			qp_connect(s, &r.info);
			break;
		case CMD_FILL:
			fill(s->m[r.mem].cpu, r.off, r.len, r.seed, r.n);
			break;
		case CMD_CHECK:
			rep.ok = check(s->m[r.mem].cpu, r.off, r.len, r.seed,
				       rep.why, sizeof(rep.why));
			break;
		case CMD_RECV:
			sge = (struct ibv_sge){ .addr = s->m[r.mem].addr + r.off,
				.length = r.len, .lkey = s->m[r.mem].mr->lkey };
			wr.sg_list = &sge;
			wr.num_sge = r.len ? 1 : 0;
			if (ibv_post_recv(s->qp, &wr, &bad)) {
				rep.ok = 0;
				snprintf(rep.why, sizeof(rep.why),
					 "ibv_post_recv: %s", strerror(errno));
			}
			break;
		case CMD_WAIT:
			rep.ok = agent_wait(s, &r, rep.why, sizeof(rep.why));
			break;
		case CMD_KV:
			b = kv_layout(r.n, r.seed, &total);
			for (i = 0; i < r.n; i++)
				fill(s->m[GPU].cpu, b[i].dst, b[i].len,
				     b[i].seed, false);
			free(b);
			wr.num_sge = 0;
			if (ibv_post_recv(s->qp, &wr, &bad))
				die("agent: ibv_post_recv: %s", strerror(errno));
			ctl_write(s->fd, &rep, sizeof(rep));
			kv = (struct reply){ .ok = 1 };
			kv.ok = agent_kv(s, &r, kv.why, sizeof(kv.why));
			continue;
		case CMD_KV_WAIT:
			rep = kv;
			break;
		case CMD_STATS:
			peer_bytes(rep.peer);
			break;
		case CMD_QUIT:
			ctl_write(s->fd, &rep, sizeof(rep));
			side_close(s);
			return r.n ? 1 : 0;
		default:
			die("agent: unknown command %u", r.cmd);
		}
		ctl_write(s->fd, &rep, sizeof(rep));
	}
}

/* ---- the client (requester) ------------------------------------------------ */

struct env {
	struct side s;
	struct qp_info remote;
	bool loop;		/* the agent uses the same device */
	uint64_t peer_moved;	/* the last peer_ok()'s counter growth */
};

/* --demo: one table row per case */
static struct row {
	char name[96];
	uint64_t bytes, peer;	/* peer: UINT64_MAX if not counted */
	double secs;
	bool ok;
} rows[64];
static unsigned int nrows;

static void add_row(const char *name, uint64_t bytes, double secs,
		    uint64_t peer, bool ok)
{
	struct row *r = &rows[nrows];

	if (nrows == sizeof(rows) / sizeof(rows[0]))
		return;
	nrows++;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->bytes = bytes;
	r->secs = secs;
	r->peer = peer;
	r->ok = ok;
}

static void print_table(void)
{
	char peer[32];
	unsigned int i;

	printf("\n%-30s %12s %12s %12s %14s %s\n", "case", "bytes moved",
	       "MB/s", "latency us", "peer bytes", "data");
	for (i = 0; i < nrows; i++) {
		if (rows[i].peer == UINT64_MAX)
			snprintf(peer, sizeof(peer), "-");
		else
			snprintf(peer, sizeof(peer), "%" PRIu64, rows[i].peer);
		printf("%-30s %12" PRIu64 " %12.1f %12.1f %14s %s\n",
		       rows[i].name, rows[i].bytes,
		       rows[i].secs > 0 ? rows[i].bytes / rows[i].secs / 1e6 : 0,
		       rows[i].secs * 1e6, peer,
		       rows[i].ok ? "verified" : "FAILED");
	}
	printf("(peer bytes: growth of peer_read_bytes + peer_write_bytes of "
	       "both NICs, the payload\n the NICs moved to and from GPU "
	       "memory directly)\n\n");
}

static void report(struct env *e, bool ok, const char *name, const char *why)
{
	(void)e;
	tap_ok(ok, "%s", name);
	if (*why)
		tap_diag("%s", why);
}

static struct reply call(struct env *e, struct req r)
{
	struct reply rep;

	ctl_write(e->s.fd, &r, sizeof(r));
	ctl_read(e->s.fd, &rep, sizeof(rep));
	rep.why[sizeof(rep.why) - 1] = 0;
	return rep;
}

static void connect_qps(struct env *e)
{
	struct req r = { .cmd = CMD_CONN };
	struct reply rep;

	qp_create(&e->s, &r.info);
	rep = call(e, r);
	e->remote = rep.info;
	qp_connect(&e->s, &e->remote);
}

/* Peer counters of both sides: [0..1] ours, [2..3] the agent's. */
static void stats(struct env *e, uint64_t v[4])
{
	struct reply rep = call(e, (struct req){ .cmd = CMD_STATS });

	peer_bytes(v);
	v[2] = rep.peer[0];
	v[3] = rep.peer[1];
}

/*
 * The counters grew from a[] by at least the GPU bytes each NIC read (rd)
 * and wrote (wr); in loopback both sides are one NIC. The kernel caches
 * hw counters for a few ms (RDMA_HW_STATS_DEFAULT_LIFESPAN), so they get
 * up to a second to get there. Appends to why.
 */
static bool peer_ok(struct env *e, const uint64_t a[4], const uint64_t want[4],
		    char *why, size_t whylen)
{
	uint64_t b[4], d[4], w[4];
	double end = now() + 1;
	size_t l = strlen(why);
	unsigned int i, short_at;

	memcpy(w, want, sizeof(w));
	if (e->loop) {
		w[0] += w[2];
		w[1] += w[3];
		w[2] = w[3] = 0;
	}
	for (;;) {
		stats(e, b);
		for (i = 0; i < 4; i++)
			if (a[i] == UINT64_MAX || b[i] == UINT64_MAX) {
				snprintf(why + l, whylen - l,
					 "%sno peer_read/write_bytes counters",
					 l ? ", " : "");
				return false;
			}
		for (i = 0; i < 4; i++)
			d[i] = e->loop && i >= 2 ? 0 : b[i] - a[i];
		for (short_at = 0; short_at < 4; short_at++)
			if (d[short_at] < w[short_at])
				break;
		if (short_at == 4 || now() > end)
			break;
		usleep(20000);
	}
	e->peer_moved = d[0] + d[1] + d[2] + d[3];
	snprintf(why + l, whylen - l, "%speer rd +%" PRIu64 " wr +%" PRIu64,
		 l ? ", " : "", d[0] + d[2], d[1] + d[3]);
	if (short_at == 4)
		return true;
	l = strlen(why);
	snprintf(why + l, whylen - l,
		 " (%s %s grew %" PRIu64 " < %" PRIu64 " GPU bytes moved)",
		 short_at < 2 ? "our" : "the peer's",
		 short_at % 2 ? "peer_write_bytes" : "peer_read_bytes",
		 d[short_at], w[short_at]);
	return false;
}

static const char *op_name(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE: return "write";
	case IBV_WR_RDMA_WRITE_WITH_IMM: return "write_imm";
	case IBV_WR_RDMA_READ: return "read";
	default: return "send";
	}
}

static void rate(char *p, size_t n, uint64_t bytes, double secs)
{
	snprintf(p, n, "%" PRIu64 " B in %.1f us, %.1f MB/s", bytes, secs * 1e6,
		 secs > 0 ? bytes / secs / 1e6 : 0);
}

/*
 * One transfer of len bytes: WRITE, WRITE_WITH_IMM and SEND from our lmem
 * to the agent's rmem, READ the other way; checked, timed, counted.
 */
static void xfer(struct env *e, enum ibv_wr_opcode op, int lmem, int rmem,
		 uint64_t len)
{
	bool push = op != IBV_WR_RDMA_READ, ok = true;
	uint64_t lo = 64 + len % 7, ro = 128 + len % 13;
	uint64_t seed = splitmix(&e->s.seed), a[4], want[4] = { 0 };
	uint32_t imm = seed >> 40;
	struct ibv_sge sge = { .addr = e->s.m[lmem].addr + lo, .length = len,
			       .lkey = e->s.m[lmem].mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED, .imm_data = htobe32(imm),
		.wr.rdma = { .remote_addr = e->remote.addr[rmem] + ro,
			     .rkey = e->remote.rkey[rmem] },
	}, *bad;
	struct req r = { .mem = rmem, .off = ro, .len = len, .seed = seed,
			 .imm = imm, .op = op };
	struct ibv_wc wc;
	char name[96], why[512] = "";
	struct reply rep;
	double t0, t1;

	snprintf(name, sizeof(name), "%s %s->%s %" PRIu64, op_name(op),
		 mem_name[push ? lmem : rmem], mem_name[push ? rmem : lmem], len);
	fill(e->s.m[lmem].cpu, lo, len, seed, push);
	r.cmd = CMD_FILL;
	r.n = !push;
	call(e, r);
	if (op == IBV_WR_SEND || op == IBV_WR_RDMA_WRITE_WITH_IMM) {
		r.cmd = CMD_RECV;
		r.len = op == IBV_WR_SEND ? len : 0;
		rep = call(e, r);
		r.len = len;
		if (!rep.ok) {
			report(e, false, name, rep.why);
			return;
		}
	}
	usleep(15000);	/* past the kernel's hw counter cache: fresh */
	stats(e, a);
	t0 = now();
	if (ibv_post_send(e->s.qp, &wr, &bad)) {
		snprintf(why, sizeof(why), "ibv_post_send: %s", strerror(errno));
		report(e, false, name, why);
		return;
	}
	if (!poll_one(e->s.scq, &wc)) {
		snprintf(why, sizeof(why), "no completion in %.0f s", opt.x.timeout);
		report(e, false, name, why);
		connect_qps(e);
		return;
	}
	t1 = now();
	if (wc.status != IBV_WC_SUCCESS) {
		snprintf(why, sizeof(why), "completion: %s",
			 ibv_wc_status_str(wc.status));
		report(e, false, name, why);
		connect_qps(e);
		return;
	}
	if (op == IBV_WR_SEND || op == IBV_WR_RDMA_WRITE_WITH_IMM) {
		r.cmd = CMD_WAIT;
		rep = call(e, r);
	} else if (push) {
		r.cmd = CMD_CHECK;
		rep = call(e, r);
	} else {
		rep.ok = check(e->s.m[lmem].cpu, lo, len, seed, rep.why,
			       sizeof(rep.why));
	}
	if (!rep.ok) {
		ok = false;
		snprintf(why, sizeof(why), "%s; ", rep.why);
	}
	rate(why + strlen(why), sizeof(why) - strlen(why), len, t1 - t0);
	/* [0] our reads, [1] our writes, [2..3] the agent's */
	want[push ? 0 : 1] = lmem == GPU ? len : 0;
	want[push ? 3 : 2] = rmem == GPU ? len : 0;
	ok &= peer_ok(e, a, want, why, sizeof(why));
	report(e, ok, name, why);
	add_row(name, len, t1 - t0, e->peer_moved, ok);
}

/* Small-message latency: the mean of n signaled 8-byte transfers. */
static void latency(struct env *e, enum ibv_wr_opcode op, unsigned int n)
{
	struct ibv_sge sge = { .addr = e->s.m[GPU].addr, .length = 8,
			       .lkey = e->s.m[GPU].mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = e->remote.addr[GPU],
			     .rkey = e->remote.rkey[GPU] },
	}, *bad;
	struct ibv_wc wc;
	char name[64], why[128];
	unsigned int i;
	double t0;

	snprintf(name, sizeof(name), "latency %s gpu-gpu 8", op_name(op));
	t0 = now();
	for (i = 0; i < n; i++) {
		if (ibv_post_send(e->s.qp, &wr, &bad) ||
		    !poll_one(e->s.scq, &wc) || wc.status != IBV_WC_SUCCESS) {
			snprintf(why, sizeof(why), "transfer %u failed", i);
			report(e, false, name, why);
			connect_qps(e);
			return;
		}
	}
	t0 = (now() - t0) / n;
	snprintf(why, sizeof(why), "%.1f us (mean of %u)", t0 * 1e6, n);
	report(e, true, name, why);
	add_row(name, 8, t0, UINT64_MAX, true);
}

/*
 * The KV-cache batch: n scattered blocks from our GPU buffer into the
 * agent's, WRITEs unsignaled but for one in SIGNAL_EVERY, then a zero
 * length WRITE_WITH_IMM as the notification.
 */
static void kv_batch(struct env *e, unsigned int n)
{
	uint64_t seed = splitmix(&e->s.seed), total, a[4], want[4] = { 0 };
	struct kv_block *k = kv_layout(n, seed, &total);
	struct ibv_sge sge = { .lkey = e->s.m[GPU].mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .wr.rdma.rkey = e->remote.rkey[GPU] }, *bad;
	struct req r = { .cmd = CMD_KV, .n = n, .seed = seed, .imm = n };
	unsigned int i, posted = 0, acked = 0;
	char name[64], why[512] = "";
	struct reply rep;
	struct ibv_wc wc;
	double t0, t1;
	bool ok;

	snprintf(name, sizeof(name), "kv-cache %u blocks gpu->gpu", n);
	for (i = 0; i < n; i++)
		fill(e->s.m[GPU].cpu, k[i].src, k[i].len, k[i].seed, true);
	/* the agent answers nothing else until the notification came */
	usleep(15000);	/* past the kernel's hw counter cache: fresh */
	stats(e, a);
	rep = call(e, r);
	t0 = now();
	for (i = 0; i <= n; i++) {
		while (posted - acked > DEPTH - 2 * SIGNAL_EVERY) {
			if (!poll_one(e->s.scq, &wc) ||
			    wc.status != IBV_WC_SUCCESS) {
				snprintf(why, sizeof(why), "WRITE %u: %s", acked,
					 ibv_wc_status_str(wc.status));
				goto fail;
			}
			acked += SIGNAL_EVERY;
		}
		if (i < n) {
			sge.addr = e->s.m[GPU].addr + k[i].src;
			sge.length = k[i].len;
			wr.opcode = IBV_WR_RDMA_WRITE;
			wr.wr.rdma.remote_addr = e->remote.addr[GPU] + k[i].dst;
			wr.send_flags = (i + 1) % SIGNAL_EVERY ? 0 :
					IBV_SEND_SIGNALED;
		} else {
			wr.num_sge = 0;
			wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
			wr.imm_data = htobe32(n);
			wr.wr.rdma.remote_addr = e->remote.addr[GPU];
			wr.send_flags = IBV_SEND_SIGNALED;
			wr.wr_id = 1;
		}
		if (ibv_post_send(e->s.qp, &wr, &bad)) {
			snprintf(why, sizeof(why), "ibv_post_send %u: %s", i,
				 strerror(errno));
			goto fail;
		}
		posted++;
	}
	/* the notification's completion: everything before it is done */
	do {
		if (!poll_one(e->s.scq, &wc) || wc.status != IBV_WC_SUCCESS) {
			snprintf(why, sizeof(why), "completion: %s",
				 ibv_wc_status_str(wc.status));
			goto fail;
		}
	} while (wc.wr_id != 1);
	t1 = now();
	rep = call(e, (struct req){ .cmd = CMD_KV_WAIT });
	if (!rep.ok)
		snprintf(why, sizeof(why), "receiver: %s; ", rep.why);
	rate(why + strlen(why), sizeof(why) - strlen(why), total, t1 - t0);
	want[0] = want[3] = total;
	ok = peer_ok(e, a, want, why, sizeof(why)) && rep.ok;
	report(e, ok, name, why);
	add_row(name, total, t1 - t0, e->peer_moved, ok);
	free(k);
	return;
fail:
	report(e, false, name, why);
	free(k);
	connect_qps(e);
	/* the agent still waits for the notification: let it time out */
	call(e, (struct req){ .cmd = CMD_KV_WAIT });
}

/* The requester: arg is its struct env (an xfer_loopback() requester). */
static int requester(void *arg)
{
	static const uint64_t full[] = {
		1, 2, 3, 63, 4095, 4096, 4097, 65535, 65536 + 13,
		(1 << 20) + 3, (4 << 20) + 1, 16 << 20, 64 << 20,
	};
	static const uint64_t quick[] = { 1, 3, 4097, 65536 + 13, (1 << 20) + 3 };
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
		IBV_WR_SEND,
	};
	struct env *e = arg;
	const uint64_t *sizes = opt.quick ? quick : full;
	unsigned int n = opt.quick ? sizeof(quick) / 8 : sizeof(full) / 8;
	unsigned int i, j;

	e->s.seed = 0x243f6a8885a308d3ULL;
	if (e->s.d.port.max_msg_sz < sizes[n - 1])
		die("setup: %s max_msg_sz %u < %" PRIu64, opt.x.dev,
		    e->s.d.port.max_msg_sz, sizes[n - 1]);
	/* one result per latency(), xfer() and kv_batch() */
	tap_plan(2 + (opt.demo ? 5 : 4 * n + 5 * ((n + 2) / 3) + 1));
	tap_diag("%s, GPU %s, MR at dma-buf offset %u, iova 0x%" PRIx64 ", %s",
		 opt.x.dev, opt.gpu, MR_OFF, e->s.m[GPU].addr,
		 opt.quick ? "quick" : "full");
	connect_qps(e);
	latency(e, IBV_WR_RDMA_WRITE, 100);
	latency(e, IBV_WR_RDMA_READ, 100);
	if (opt.demo) {
		kv_batch(e, opt.kv_blocks);
		xfer(e, IBV_WR_RDMA_WRITE, GPU, GPU, 64 << 20);
		xfer(e, IBV_WR_RDMA_READ, GPU, GPU, 64 << 20);
		xfer(e, IBV_WR_RDMA_WRITE_WITH_IMM, GPU, GPU, (16 << 20) + 1);
		xfer(e, IBV_WR_SEND, GPU, GPU, (16 << 20) + 1);
		print_table();
		goto done;
	}
	for (i = 0; i < 4; i++)
		for (j = 0; j < n; j++)
			xfer(e, ops[i], GPU, GPU, sizes[j]);
	/* GPU and host memory, both ways, pushed and pulled */
	for (j = 0; j < n; j += 3) {
		xfer(e, IBV_WR_RDMA_WRITE, GPU, HOST, sizes[j]);
		xfer(e, IBV_WR_RDMA_WRITE, HOST, GPU, sizes[j]);
		xfer(e, IBV_WR_RDMA_READ, GPU, HOST, sizes[j]);
		xfer(e, IBV_WR_RDMA_READ, HOST, GPU, sizes[j]);
		xfer(e, IBV_WR_SEND, HOST, GPU, sizes[j]);
	}
	kv_batch(e, opt.kv_blocks);
done:
	call(e, (struct req){ .cmd = CMD_QUIT, .n = tap_failures() });
	side_close(&e->s);
	return tap_done();
}

/* ---- safety: dma-buf lifetime and eviction under an MR ------------------- */

static void s_report(bool ok, const char *name, const char *why)
{
	tap_ok(ok, "%s", name);
	if (*why)
		tap_diag("%s", why);
}

/* x's QP and y's QP, connected to each other (new ones each time). */
static void pair_connect(struct side *x, struct side *y)
{
	struct qp_info ix, iy;

	qp_create(x, &ix);
	qp_create(y, &iy);
	qp_connect(x, &iy);
	qp_connect(y, &ix);
}

/* Post one signaled WRITE or READ on x's QP; its completion status. */
static int one(struct side *x, enum ibv_wr_opcode op, uint64_t laddr,
	       uint32_t lkey, uint64_t raddr, uint32_t rkey, uint64_t len)
{
	struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;
	struct ibv_wc wc;

	if (ibv_post_send(x->qp, &wr, &bad))
		die("ibv_post_send: %s", strerror(errno));
	if (!poll_one(x->scq, &wc))
		die("no completion in %.0f s", opt.x.timeout);
	return wc.status;
}

/* x's host memory -> a GPU buffer of y's and back, checked by CPU. */
static bool round_trip(struct side *x, const uint8_t *cpu, uint64_t raddr,
		       uint32_t rkey, uint64_t len, char *why, size_t whylen)
{
	uint64_t seed = splitmix(&x->seed);
	struct mem *h = &x->m[HOST];
	int st;

	gen_chunked(h->cpu, len, seed);
	st = one(x, IBV_WR_RDMA_WRITE, h->addr, h->mr->lkey, raddr, rkey, len);
	if (st != IBV_WC_SUCCESS) {
		snprintf(why, whylen, "WRITE: %s", ibv_wc_status_str(st));
		return false;
	}
	if (!check_gen(cpu, len, seed, "WRITE into GPU memory", why, whylen))
		return false;
	memset(h->cpu, 0, len);
	st = one(x, IBV_WR_RDMA_READ, h->addr, h->mr->lkey, raddr, rkey, len);
	if (st != IBV_WC_SUCCESS) {
		snprintf(why, whylen, "READ: %s", ibv_wc_status_str(st));
		return false;
	}
	return check_gen(h->cpu, len, seed, "READ from GPU memory", why, whylen);
}

/* How NCCL and UCX probe for dma-buf support. */
static void s_ebadf(struct side *y)
{
	struct ibv_mr *mr;
	char why[128];
	int err;

	errno = 0;
	mr = ibv_reg_dmabuf_mr(y->pd, 0, 0, 0, -1, 0);
	err = errno;
	snprintf(why, sizeof(why), "%s", mr ? "succeeded" : strerror(err));
	s_report(!mr && err == EBADF,
		 "ibv_reg_dmabuf_mr(pd, 0, 0, 0, -1, 0) fails with EBADF", why);
	if (mr)
		ibv_dereg_mr(mr);
}

#define S_LEN	(1u << 20)

/* Deregister while the dma-buf fd is open: the buffer lives on. */
static void s_dereg_fd_open(struct side *x, struct side *y)
{
	const char *name = "deregister with the dma-buf fd open";
	int base = gpu_buffers(), st;
	struct ibv_mr *mr;
	struct gbuf g;
	char why[256] = "";
	bool ok;

	gbuf_alloc(&g, S_LEN);
	mr = reg_gpu(y->pd, &g, 0, S_LEN);
	if (!mr) {
		snprintf(why, sizeof(why), "ibv_reg_dmabuf_mr: %s",
			 strerror(errno));
		s_report(false, name, why);
		gbuf_free(&g);
		return;
	}
	ok = round_trip(x, g.map, g.gpu_va, mr->rkey, S_LEN, why, sizeof(why));
	if (ok && (st = ibv_dereg_mr(mr))) {
		snprintf(why, sizeof(why), "ibv_dereg_mr: %s", strerror(st));
		ok = false;
	}
	/* the old rkey is dead; the memory and the fd are not */
	if (ok) {
		st = one(x, IBV_WR_RDMA_WRITE, x->m[HOST].addr,
			 x->m[HOST].mr->lkey, g.gpu_va, mr->rkey, 64);
		pair_connect(x, y);
		ok = st == IBV_WC_REM_ACCESS_ERR;
		if (!ok)
			snprintf(why, sizeof(why), "WRITE with the old rkey: %s",
				 ibv_wc_status_str(st));
	}
	if (ok) {
		memset(g.map, 0x5a, S_LEN);
		ok = g.map[S_LEN - 1] == 0x5a && gpu_buffers() == base + 1;
		if (!ok)
			snprintf(why, sizeof(why), "the buffer after dereg");
	}
	gbuf_free(&g);
	if (ok && gpu_buffers() != base) {
		snprintf(why, sizeof(why), "%d buffers after close, want %d",
			 gpu_buffers(), base);
		ok = false;
	}
	s_report(ok, name, why);
}

/* Close the fd (and unmap) before deregistering: the MR holds the buffer. */
static void s_close_first(struct side *x, struct side *y)
{
	const char *name = "close the dma-buf fd, then traffic and deregister";
	uint64_t off = AXON_GPU_PAGE_SIZE;
	int base = gpu_buffers(), st;
	struct ibv_mr *mr;
	struct gbuf g;
	char why[256] = "";
	bool ok;

	gbuf_alloc(&g, 2 * S_LEN);
	mr = reg_gpu(y->pd, &g, off, S_LEN);
	if (!mr) {
		snprintf(why, sizeof(why), "ibv_reg_dmabuf_mr at offset %" PRIu64
			 ": %s", off, strerror(errno));
		s_report(false, name, why);
		gbuf_free(&g);
		return;
	}
	close(g.fd);
	g.fd = -1;
	ok = round_trip(x, g.map + off, g.gpu_va + off, mr->rkey, S_LEN, why,
			sizeof(why));
	munmap(g.map, g.size);
	if (ok && gpu_buffers() != base + 1) {
		snprintf(why, sizeof(why), "the MR does not hold the buffer");
		ok = false;
	}
	/* the memory is only the MR's now: traffic still works */
	if (ok) {
		st = one(x, IBV_WR_RDMA_READ, x->m[HOST].addr,
			 x->m[HOST].mr->lkey, g.gpu_va + off, mr->rkey, S_LEN);
		ok = st == IBV_WC_SUCCESS;
		if (!ok)
			snprintf(why, sizeof(why), "READ, fd and mapping gone: %s",
				 ibv_wc_status_str(st));
	}
	st = ibv_dereg_mr(mr);
	if (ok && st) {
		snprintf(why, sizeof(why), "ibv_dereg_mr: %s", strerror(st));
		ok = false;
	}
	if (ok && gpu_buffers() != base) {
		snprintf(why, sizeof(why), "%d buffers after dereg, want %d",
			 gpu_buffers(), base);
		ok = false;
	}
	s_report(ok, name, why);
}

#define MV_N	64
#define MV_LEN	(256u << 10)

/*
 * Move (evict) a GPU buffer under an MR while WRITEs use it: as the
 * responder's target (remote) or the requester's source (local). A pinned
 * MR refuses with EBUSY and traffic goes on untouched; a dynamic one lets
 * it move and in-flight work completes or fails with an access error
 * (the QP then in error), after which new QPs move data into and out of
 * the buffer at its new place.
 */
static void s_move(struct side *x, struct side *y, bool local)
{
	struct mem *src = local ? &x->m[GPU] : &x->m[HOST];
	struct mem *dst = local ? &y->m[HOST] : &y->m[GPU];
	struct gbuf *g = local ? &x->g : &y->g;
	int bad_st = 0;
	struct ibv_sge sge = { .length = MV_LEN, .lkey = src->mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED, .wr.rdma.rkey = dst->mr->rkey,
	}, *bad;
	uint64_t seed = splitmix(&x->seed);
	unsigned int i, done = 0, failed = 0;
	char name[96], why[256] = "";
	struct ibv_wc wc;
	int rc, st;
	bool ok = true;

	snprintf(name, sizeof(name), "MOVE the %s buffer under its MR during WRITEs",
		 local ? "source" : "target");
	pair_connect(x, y);
	gen_chunked(src->cpu, MV_N * MV_LEN, seed);
	memset(dst->cpu, 0, MV_N * MV_LEN);
	for (i = 0; i < MV_N; i++) {
		sge.addr = src->addr + (uint64_t)i * MV_LEN;
		wr.wr.rdma.remote_addr = dst->addr + (uint64_t)i * MV_LEN;
		wr.wr_id = i;
		if (ibv_post_send(x->qp, &wr, &bad))
			die("ibv_post_send: %s", strerror(errno));
	}
	rc = gpu_move(g->fd);
	for (i = 0; i < MV_N; i++) {
		if (!poll_one(x->scq, &wc))
			die("%s: no completion in %.0f s", name, opt.x.timeout);
		st = wc.status;
		if (st == IBV_WC_SUCCESS && !failed)
			done++;
		else if (!failed && rc == 0 && (st == IBV_WC_LOC_PROT_ERR ||
						st == IBV_WC_REM_ACCESS_ERR)) {
			failed = 1;
			bad_st = st;
		}
		else if (!(failed && st == IBV_WC_WR_FLUSH_ERR) && ok) {
			snprintf(why, sizeof(why), "WRITE %u: %s", i,
				 ibv_wc_status_str(st));
			ok = false;
		}
	}
	/* what completed is there, at the buffer's new place too */
	if (ok && !check_gen(dst->cpu, (uint64_t)done * MV_LEN, seed,
			     "completed WRITEs", why, sizeof(why)))
		ok = false;
	if (ok && rc == EBUSY && done != MV_N) {
		snprintf(why, sizeof(why), "pinned, yet only %u of %u completed",
			 done, MV_N);
		ok = false;
	}
	if (ok && rc != 0 && rc != EBUSY) {
		snprintf(why, sizeof(why), "AXON_GPU_IOCTL_MOVE: %s", strerror(rc));
		ok = false;
	}
	/*
	 * New QPs: the moved buffer takes new traffic in both directions. A
	 * dynamic MR is re-mapped right after the move, by a work item: until
	 * then accesses fail as above, so retry those for a while.
	 */
	for (i = 0; ok && i < 50; i++) {
		pair_connect(x, y);
		st = one(x, IBV_WR_RDMA_WRITE, src->addr, src->mr->lkey,
			 dst->addr, dst->mr->rkey, 64);
		if (st == IBV_WC_SUCCESS)
			break;
		if (rc || (st != IBV_WC_LOC_PROT_ERR &&
			   st != IBV_WC_REM_ACCESS_ERR) || i == 49) {
			snprintf(why, sizeof(why), "WRITE after the move (try %u): %s",
				 i + 1, ibv_wc_status_str(st));
			ok = false;
		}
		usleep(100000);
	}
	if (ok && local) {
		seed = splitmix(&x->seed);
		gen_chunked(src->cpu, MV_LEN, seed);
		st = one(x, IBV_WR_RDMA_WRITE, src->addr, src->mr->lkey,
			 dst->addr, dst->mr->rkey, MV_LEN);
		ok = st == IBV_WC_SUCCESS &&
		     check_gen(dst->cpu, MV_LEN, seed, "after the move", why,
			       sizeof(why));
		if (st != IBV_WC_SUCCESS)
			snprintf(why, sizeof(why), "WRITE after the move: %s",
				 ibv_wc_status_str(st));
	} else if (ok) {
		ok = round_trip(x, dst->cpu, dst->addr, dst->mr->rkey, MV_LEN,
				why, sizeof(why));
	}
	if (ok && rc)
		snprintf(why, sizeof(why), "EBUSY (pinned MR); all %u WRITEs completed",
			 MV_N);
	else if (ok)
		snprintf(why, sizeof(why), "moved (dynamic MR); %u of %u WRITEs "
			 "completed, then %s", done, MV_N,
			 failed ? ibv_wc_status_str(bad_st) : "none failed");
	s_report(ok, name, why);
}

#define ST_ROUNDS	24
#define ST_N		16		/* WRITEs per round */
#define ST_LEN		(64u << 10)	/* bytes per WRITE */

struct mover {
	int fd;
	volatile bool stop;
	unsigned int moved, busy, other;
};

/* Moves the buffer over and over, at random short intervals. */
static void *mover_run(void *arg)
{
	struct mover *m = arg;
	unsigned int seed = 7;
	int rc;

	while (!m->stop) {
		rc = gpu_move(m->fd);
		if (!rc)
			m->moved++;
		else if (rc == EBUSY)
			m->busy++;
		else
			m->other++;
		usleep(rand_r(&seed) % 2000);
	}
	return NULL;
}

/*
 * A storm of moves: a second thread moves y's GPU buffer again and again
 * while this one, round after round, registers an MR on it, WRITEs into
 * it from x's host memory, deregisters it and moves it once more itself
 * (nothing pins it then). With a pinned MR (no move_notify) the mover
 * gets EBUSY while the MR lives and every WRITE succeeds; with a dynamic
 * one the buffer moves under the MR, and a WRITE may fail with
 * REM_ACCESS_ERR (then the rest flush and the QP is replaced). Either
 * way: no other status, the bytes of every WRITE that succeeded are in
 * the buffer wherever it lives now, the NIC counted exactly one refused
 * access (mr_invalid_accesses) per failed WRITE, and no buffer leaks.
 */
static void s_move_storm(struct side *x, struct side *y)
{
	const char *name = "MOVEs from a second thread during WRITEs and "
			   "re-registrations";
	uint64_t seeds[ST_N], inval0 = hw_counter("mr_invalid_accesses");
	struct mover m = { 0 };
	unsigned int r, i, ok_n = 0, err_n = 0, flush_n = 0, self_moved = 0;
	int base = gpu_buffers(), st, rc;
	struct mem *h = &x->m[HOST];
	char why[256] = "";
	struct ibv_mr *mr;
	pthread_t t;
	struct gbuf g;
	bool ok = true, good[ST_N];

	gbuf_alloc(&g, ST_N * ST_LEN);
	m.fd = g.fd;
	if (pthread_create(&t, NULL, mover_run, &m))
		die("pthread_create");
	for (r = 0; ok && r < ST_ROUNDS; r++) {
		struct ibv_sge sge = { .length = ST_LEN, .lkey = h->mr->lkey };
		struct ibv_send_wr wr = {
			.sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
		}, *bad;
		struct ibv_wc wc;

		mr = reg_gpu(y->pd, &g, 0, g.size);
		if (!mr) {
			snprintf(why, sizeof(why), "round %u: ibv_reg_dmabuf_mr: %s",
				 r, strerror(errno));
			ok = false;
			break;
		}
		pair_connect(x, y);
		memset(g.map, 0, g.size);
		wr.wr.rdma.rkey = mr->rkey;
		for (i = 0; i < ST_N; i++) {
			seeds[i] = splitmix(&x->seed);
			gen_chunked(h->cpu + (uint64_t)i * ST_LEN, ST_LEN,
				    seeds[i]);
			sge.addr = h->addr + (uint64_t)i * ST_LEN;
			wr.wr.rdma.remote_addr = g.gpu_va + (uint64_t)i * ST_LEN;
			wr.wr_id = i;
			if (ibv_post_send(x->qp, &wr, &bad))
				die("ibv_post_send: %s", strerror(errno));
		}
		for (i = 0; i < ST_N; i++) {
			if (!poll_one(x->scq, &wc))
				die("%s: no completion in %.0f s", name,
				    opt.x.timeout);
			good[wc.wr_id] = wc.status == IBV_WC_SUCCESS;
			if (wc.status == IBV_WC_SUCCESS) {
				ok_n++;
			} else if (wc.status == IBV_WC_REM_ACCESS_ERR) {
				err_n++;
			} else if (wc.status == IBV_WC_WR_FLUSH_ERR) {
				flush_n++;
			} else if (ok) {
				snprintf(why, sizeof(why), "round %u, WRITE %u: %s",
					 r, (unsigned int)wc.wr_id,
					 ibv_wc_status_str(wc.status));
				ok = false;
			}
		}
		for (i = 0; ok && i < ST_N; i++)
			if (good[i] &&
			    !check_gen(g.map + (uint64_t)i * ST_LEN, ST_LEN,
				       seeds[i], "a WRITE that succeeded", why,
				       sizeof(why)))
				ok = false;
		st = ibv_dereg_mr(mr);
		if (ok && st) {
			snprintf(why, sizeof(why), "round %u: ibv_dereg_mr: %s",
				 r, strerror(st));
			ok = false;
		}
		/* unregistered, the buffer can always move (unless racing) */
		rc = gpu_move(g.fd);
		if (!rc)
			self_moved++;
		else if (rc != EBUSY && ok) {
			snprintf(why, sizeof(why), "round %u: move: %s", r,
				 strerror(rc));
			ok = false;
		}
	}
	m.stop = true;
	pthread_join(t, NULL);
	gbuf_free(&g);
	pair_connect(x, y);
	if (ok && m.other) {
		snprintf(why, sizeof(why), "%u moves failed with neither 0 nor "
			 "EBUSY", m.other);
		ok = false;
	}
	if (ok && !self_moved) {
		snprintf(why, sizeof(why), "no move between registrations "
			 "succeeded");
		ok = false;
	}
	if (ok && inval0 == UINT64_MAX) {
		snprintf(why, sizeof(why), "no mr_invalid_accesses counter");
		ok = false;
	}
	if (ok && hw_counter("mr_invalid_accesses") - inval0 != err_n) {
		snprintf(why, sizeof(why), "mr_invalid_accesses grew %" PRIu64
			 ", %u WRITEs failed", hw_counter("mr_invalid_accesses") -
			 inval0, err_n);
		ok = false;
	}
	if (ok && gpu_buffers() != base) {
		snprintf(why, sizeof(why), "%d buffers, want %d", gpu_buffers(),
			 base);
		ok = false;
	}
	if (ok)
		snprintf(why, sizeof(why), "%u rounds; WRITEs: %u succeeded, %u "
			 "REM_ACCESS_ERR, %u flushed; moves: %u by the thread "
			 "(%u EBUSY), %u between registrations", ST_ROUNDS, ok_n,
			 err_n, flush_n, m.moved, m.busy, self_moved);
	s_report(ok, name, why);
}

#define SAFETY_CHECKS	6	/* one result per s_*() call below */

static int safety(void)
{
	static struct side x, y;

	side_open(&x);
	side_open(&y);
	x.seed = 1;
	y.seed = 2;
	pair_connect(&x, &y);
	tap_plan(SAFETY_CHECKS);
	tap_diag("safety on %s, GPU %s", opt.x.dev, opt.gpu);
	s_ebadf(&y);
	s_dereg_fd_open(&x, &y);
	s_close_first(&x, &y);
	s_move(&x, &y, false);
	s_move(&x, &y, true);
	s_move_storm(&x, &y);
	side_close(&x);
	side_close(&y);
	return tap_done();
}

/* ---- hold: a buffer only an MR references, until SIGUSR1 ------------------ */

static void on_usr1(int sig)
{
	(void)sig;
}

static int hold(unsigned int secs)
{
	struct rdma_dev d;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct gbuf g;
	int st;

	rdma_open(&d, &opt.x);
	pd = ibv_alloc_pd(d.ctx);
	if (!pd)
		die("ibv_alloc_pd: %s", strerror(errno));
	gbuf_alloc(&g, S_LEN);
	mr = reg_gpu(pd, &g, 0, S_LEN);
	if (!mr)
		die("ibv_reg_dmabuf_mr: %s", strerror(errno));
	gbuf_free(&g);
	signal(SIGUSR1, on_usr1);
	printf("holding: an MR on a buffer whose fd and mapping are gone\n");
	fflush(stdout);
	sleep(secs);
	st = ibv_dereg_mr(mr);
	printf("dereg: %s\n", st ? strerror(st) : "ok");
	ibv_dealloc_pd(pd);
	ibv_close_device(d.ctx);
	return st ? 1 : 0;
}

/* ---- modes ---------------------------------------------------------------- */

static int loopback(void)
{
	static struct side a;
	static struct env e;

	side_open(&e.s);
	side_open(&a);
	a.seed = 7;
	e.loop = true;
	tap_diag("loopback");
	return xfer_loopback(agent_run, &a, &a.fd, requester, &e, &e.s.fd);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: axon-gpu-xfer [-d DEV] [-g GID_INDEX] [--gpu PATH] [--quick | --demo]\n"
		"                     [--kv-blocks N] [--server | --client HOST |\n"
		"                     --safety | --hold S] [--tcp-port N] [--timeout S]\n"
		"                     [--flow-label N]\n"
		"  default: loopback on one device; under tools/axon-vm with 2 nodes\n"
		"  (AXON_NODES=2), node 0 is the server and node 1 its client\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "gpu", required_argument, NULL, 'G' },
		{ "quick", no_argument, NULL, 'q' },
		{ "demo", no_argument, NULL, 'D' },
		{ "kv-blocks", required_argument, NULL, 'k' },
		{ "safety", no_argument, NULL, 'S' },
		{ "hold", required_argument, NULL, 'H' },
		XFER_LONG_OPTS,
		{ NULL, 0, NULL, 0 },
	};
	static struct side a;
	static struct env e;
	unsigned int secs = 0;
	int c;

	while ((c = getopt_long(argc, argv, XFER_SHORT_OPTS, lopts, NULL)) != -1) {
		if (xfer_opt(&opt.x, c, optarg))
			continue;
		switch (c) {
		case 'G': opt.gpu = optarg; break;
		case 'q': opt.quick = true; break;
		case 'D': opt.demo = true; break;
		case 'k': opt.kv_blocks = atoi(optarg); break;
		case 'S': opt.x.mode = 'S'; break;
		case 'H': opt.x.mode = 'H'; secs = atoi(optarg); break;
		default: usage();
		}
	}
	if (optind != argc || !opt.kv_blocks)
		usage();
	xfer_role(&opt.x);
	setvbuf(stdout, NULL, _IOLBF, 0);
	switch (opt.x.mode) {
	case 's':
		side_open(&a);
		a.seed = 7;
		a.fd = ctl_accept(opt.x.tcp_port);
		return agent_run(&a);
	case 'c':
		e.s.fd = ctl_connect(opt.x.peer, opt.x.tcp_port);
		side_open(&e.s);
		tap_diag("client, server at %s", opt.x.peer);
		return requester(&e);
	case 'S':
		return safety();
	case 'H':
		return hold(secs);
	}
	return loopback();
}
