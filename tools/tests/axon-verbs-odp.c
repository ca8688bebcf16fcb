// SPDX-License-Identifier: GPL-2.0
/*
 * axon-verbs-odp: on-demand paging MRs (IBV_ACCESS_ON_DEMAND) through
 * libibverbs, on one device in one process. Two RC QPs connected to each
 * other by RoCE v2 loopback, each side's ODP MR on a freshly mmap()ed
 * buffer nobody has touched: SEND/RECV, RDMA WRITE, RDMA READ, FETCH_ADD
 * and CMP_SWP, each checked byte for byte, the device faulting every page
 * in (the driver's odp_page_faults counter moves). Then the memory
 * manager takes the pages back: madvise(MADV_DONTNEED) on both buffers
 * (odp_invalidations moves) and the same traffic again; a new mapping
 * with known contents mmap()ed MAP_FIXED over pages the device had, which
 * a READ must then read and a WRITE write. Prefetch (ibv_advise_mr(): all
 * three advices, synchronous) of exactly what a SEND and a WRITE use,
 * after which they fault nothing. Bad input: implicit ODP (EOPNOTSUPP),
 * advise_mr of a non-ODP MR (EINVAL), of a range outside the MR (EFAULT),
 * PREFETCH_WRITE of a read-only MR (EPERM), rereg of an ODP MR
 * (EOPNOTSUPP), an RDMA WRITE into a peer page that was munmap()ed
 * (REM_ACCESS_ERR) and a SEND from a page that was (LOC_PROT_ERR, the QP
 * in ERR).
 *
 * Without ODP (no odp_caps: the debug kernel has no
 * CONFIG_INFINIBAND_ON_DEMAND_PAGING) ibv_reg_mr(ON_DEMAND) must fail with
 * EINVAL, and the rest is skipped.
 *
 * Usage: axon-verbs-odp [-g GID_INDEX] [DEVICE]   (default axon0, GID 0)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "axon-test.h"

#define PG		4096
#define BUF		(16 * PG)
#define DEPTH		16
/* a message across a page boundary */
#define MSG		6000
#define MSG_OFF		1000

/* pages of each buffer */
#define SEND_PG		0	/* A: SEND source; B: RECV target */
#define WRITE_PG	2	/* A: WRITE source; B: WRITE target */
#define READ_PG		4	/* A: READ target; B: READ source */
#define ATOMIC_PG	6	/* A: atomic results; B: atomic targets */
#define FIXED_PG	8	/* B: replaced by MAP_FIXED (2 pages) */
#define GONE_PG		12	/* munmap()ed: A's SEND source, B's target */

#define ACCESS		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/* The results each part reports (the plan). */
#define SETUP_CHECKS	3
#define TRAFFIC_CHECKS	5
#define DONTNEED_CHECKS	(2 + TRAFFIC_CHECKS)
#define FIXED_CHECKS	4
#define PREFETCH_CHECKS	5
#define BAD_CHECKS	9
#define TEARDOWN_CHECKS	1
#define PLAN		(SETUP_CHECKS + TRAFFIC_CHECKS + 1 + \
			 DONTNEED_CHECKS + FIXED_CHECKS + PREFETCH_CHECKS + \
			 BAD_CHECKS + TEARDOWN_CHECKS)

struct env {
	const char *dev;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq;		/* every QP's sends */
	struct ibv_cq *rcq;		/* every QP's receives */
	struct ibv_qp *qa, *qb;		/* connected to each other */
	struct ibv_qp *qc, *qd;		/* and a second pair, for errors */
	uint8_t *buf[2];		/* A's, B's */
	struct ibv_mr *mr[2];
	union ibv_gid gid;
	int gid_index;
};

static uint8_t *at(struct env *e, int side, int page)
{
	return e->buf[side] + (size_t)page * PG;
}

/*
 * A hw counter of the port. The RDMA core answers from a copy it keeps
 * for 10 ms (RDMA_HW_STATS_DEFAULT_LIFESPAN, a few jiffies): wait that
 * out first, so that the value is the driver's of now.
 */
static long long ctr(struct env *e, const char *name)
{
	usleep(30 * 1000);
	return hw_counter(e->dev, name);
}

/* ok if counter @name went from @before to more (or, @same, stayed). */
static bool ctr_moved(struct env *e, const char *name, long long before,
		      bool same, bool ok, const char *what)
{
	long long now = ctr(e, name);

	return tap_ok(ok && (same ? now == before : now > before),
		      "%s (%s %lld -> %lld)", what, name, before, now);
}

static int connect_one(struct env *e, struct ibv_qp *qp, uint32_t dest)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	rtr_attr(dest, &e->gid, e->gid_index, &a);
	if (ibv_modify_qp(qp, &a, RTR_MASK))
		return -1;
	rts_attr(&a);
	return ibv_modify_qp(qp, &a, RTS_MASK);
}

static struct ibv_qp *create_qp(struct env *e)
{
	struct ibv_qp_init_attr init = {
		.send_cq = e->scq, .recv_cq = e->rcq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = DEPTH,
			 .max_send_sge = 2, .max_recv_sge = 1 },
	};

	return ibv_create_qp(e->pd, &init);
}

static bool pair(struct env *e, struct ibv_qp **x, struct ibv_qp **y)
{
	*x = create_qp(e);
	*y = create_qp(e);
	return *x && *y && !connect_one(e, *x, (*y)->qp_num) &&
	       !connect_one(e, *y, (*x)->qp_num);
}

/* Whether the ODP capabilities are what axon reports: 0, or why not. */
static const char *odp_caps_wrong(const struct ibv_device_attr_ex *attr)
{
	const struct ibv_odp_caps *c = &attr->odp_caps;
	const uint32_t all = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV |
			     IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
			     IBV_ODP_SUPPORT_ATOMIC |
			     IBV_ODP_SUPPORT_SRQ_RECV;

	if (c->general_caps != IBV_ODP_SUPPORT)
		return "general_caps";
	if (c->per_transport_caps.rc_odp_caps != all)
		return "rc_odp_caps";
	if (attr->xrc_odp_caps != (all & ~IBV_ODP_SUPPORT_RECV))
		return "xrc_odp_caps";
	if (c->per_transport_caps.uc_odp_caps)
		return "uc_odp_caps";
	if (c->per_transport_caps.ud_odp_caps != IBV_ODP_SUPPORT_SEND)
		return "ud_odp_caps";
	return NULL;
}

static bool setup(struct env *e)
{
	struct ibv_device_attr_ex attr = {};
	const char *wrong = NULL;
	struct ibv_mr *mr;
	int i, err;

	err = ibv_query_device_ex(e->ctx, NULL, &attr);
	if (!err && !(attr.odp_caps.general_caps & IBV_ODP_SUPPORT)) {
		errno = 0;
		mr = ibv_reg_mr(e->pd, e->buf[0], BUF,
				IBV_ACCESS_ON_DEMAND | ACCESS);
		expect_errno(!mr, errno, EINVAL,
			     "no odp_caps: ibv_reg_mr ON_DEMAND");
		if (mr)
			ibv_dereg_mr(mr);
		for (i = 1; i < PLAN; i++)
			tap_skip("the device or kernel has no ODP",
				 "ODP check %d", i + 1);
		return false;
	}
	if (!err)
		wrong = odp_caps_wrong(&attr);
	tap_ok(!err && !wrong,
	       "odp_caps: RC and XRC every operation, UD SEND, no UC, no implicit (%s)",
	       err ? strerror(err) : wrong ? wrong : "ok");
	for (i = 0; i < 2; i++)
		e->mr[i] = ibv_reg_mr(e->pd, e->buf[i], BUF,
				      IBV_ACCESS_ON_DEMAND | ACCESS);
	tap_ok(e->mr[0] && e->mr[1],
	       "ibv_reg_mr ON_DEMAND on two untouched buffers: %s",
	       e->mr[0] && e->mr[1] ? "registered" : strerror(errno));
	if (!e->mr[0] || !e->mr[1])
		tap_bail("no ODP MRs");
	if (!tap_ok(pair(e, &e->qa, &e->qb) && pair(e, &e->qc, &e->qd),
		    "two pairs of RC QPs connected in loopback"))
		tap_bail("no QPs: %s", strerror(errno));
	return true;
}

static int post_recv(struct ibv_qp *qp, void *addr, uint32_t len,
		     struct ibv_mr *mr)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len,
			       .lkey = mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = 7, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

/*
 * One signaled work request of @op from @qp, local [@addr, +@len) of
 * A's MR, remote @raddr of B's; its completion in *@wc.
 */
static bool post_one(struct env *e, struct ibv_qp *qp, enum ibv_wr_opcode op,
		     void *addr, uint32_t len, void *raddr, uint64_t add,
		     uint64_t swap, struct ibv_wc *wc)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len,
			       .lkey = e->mr[0]->lkey };
	struct ibv_send_wr wr = {
		.wr_id = op, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = (uintptr_t)raddr;
		wr.wr.atomic.rkey = e->mr[1]->rkey;
		wr.wr.atomic.compare_add = add;
		wr.wr.atomic.swap = swap;
	} else if (op != IBV_WR_SEND) {
		wr.wr.rdma.remote_addr = (uintptr_t)raddr;
		wr.wr.rdma.rkey = e->mr[1]->rkey;
	}
	memset(wc, 0, sizeof(*wc));
	return !ibv_post_send(qp, &wr, &bad) && poll_one(e->scq, wc, 20000) &&
	       wc->wr_id == (uint64_t)op;
}

static bool send_ok(struct env *e, int tag)
{
	uint8_t *src = at(e, 0, SEND_PG) + MSG_OFF;
	uint8_t *dst = at(e, 1, SEND_PG) + MSG_OFF;
	struct ibv_wc s, r = {};

	return !post_recv(e->qb, dst, MSG, e->mr[1]) &&
	       post_one(e, e->qa, IBV_WR_SEND, src, MSG, NULL, 0, 0, &s) &&
	       s.status == IBV_WC_SUCCESS && poll_one(e->rcq, &r, 20000) &&
	       r.status == IBV_WC_SUCCESS && r.byte_len == MSG &&
	       pattern_ok(dst, MSG, tag);
}

static bool write_ok(struct env *e, int tag)
{
	uint8_t *dst = at(e, 1, WRITE_PG) + MSG_OFF;
	struct ibv_wc wc;

	return post_one(e, e->qa, IBV_WR_RDMA_WRITE,
			at(e, 0, WRITE_PG) + MSG_OFF, MSG, dst, 0, 0, &wc) &&
	       wc.status == IBV_WC_SUCCESS && pattern_ok(dst, MSG, tag);
}

/*
 * SEND, WRITE, READ, FETCH_ADD, CMP_SWP from A to B: sources written by
 * the CPU (pattern @tag), targets as they are (untouched, or zero after
 * MADV_DONTNEED); every byte checked.
 */
static void traffic(struct env *e, int tag, const char *when)
{
	uint8_t *rd = at(e, 0, READ_PG) + MSG_OFF;
	uint64_t *res = (uint64_t *)at(e, 0, ATOMIC_PG);
	uint64_t *tgt = (uint64_t *)at(e, 1, ATOMIC_PG);
	uint64_t v = 1000 + tag;
	struct ibv_wc wc;
	bool ok;

	pattern_fill(at(e, 0, SEND_PG) + MSG_OFF, MSG, tag);
	tap_ok(send_ok(e, tag), "SEND/RECV %s: every byte", when);

	pattern_fill(at(e, 0, WRITE_PG) + MSG_OFF, MSG, tag + 1);
	tap_ok(write_ok(e, tag + 1), "RDMA WRITE %s: every byte", when);

	pattern_fill(at(e, 1, READ_PG) + MSG_OFF, MSG, tag + 2);
	ok = post_one(e, e->qa, IBV_WR_RDMA_READ, rd, MSG,
		      at(e, 1, READ_PG) + MSG_OFF, 0, 0, &wc);
	tap_ok(ok && wc.status == IBV_WC_SUCCESS && pattern_ok(rd, MSG, tag + 2),
	       "RDMA READ %s: every byte (status %d)", when, wc.status);

	tgt[0] = v;
	ok = post_one(e, e->qa, IBV_WR_ATOMIC_FETCH_AND_ADD, &res[0], 8,
		      &tgt[0], 5, 0, &wc);
	tap_ok(ok && wc.status == IBV_WC_SUCCESS && res[0] == v &&
	       tgt[0] == v + 5,
	       "FETCH_ADD %s: got %llu (want %llu), now %llu (want %llu)",
	       when, (unsigned long long)res[0], (unsigned long long)v,
	       (unsigned long long)tgt[0], (unsigned long long)v + 5);
	ok = post_one(e, e->qa, IBV_WR_ATOMIC_CMP_AND_SWP, &res[1], 8,
		      &tgt[0], v + 5, 77, &wc);
	tap_ok(ok && wc.status == IBV_WC_SUCCESS && res[1] == v + 5 &&
	       tgt[0] == 77,
	       "CMP_SWP %s: got %llu (want %llu), now %llu (want 77)", when,
	       (unsigned long long)res[1], (unsigned long long)v + 5,
	       (unsigned long long)tgt[0]);
}

static void test_dontneed(struct env *e)
{
	long long inv = ctr(e, "odp_invalidations");
	long long faults;
	int err = 0, i;

	for (i = 0; i < 2; i++)
		err |= madvise(e->buf[i], BUF, MADV_DONTNEED);
	ctr_moved(e, "odp_invalidations", inv, false, !err,
		  "MADV_DONTNEED: the device gives the pages back");
	faults = ctr(e, "odp_page_faults");
	traffic(e, 20, "after MADV_DONTNEED");
	ctr_moved(e, "odp_page_faults", faults, false, true,
		  "... faulted in again");
}

/*
 * A new mapping over two pages of B the device has: a READ must read the
 * new page, a WRITE write the other new one.
 */
static void test_map_fixed(struct env *e)
{
	uint8_t *rsrc = at(e, 1, FIXED_PG), *wdst = at(e, 1, FIXED_PG + 1);
	uint8_t *rd = at(e, 0, FIXED_PG), *wsrc = at(e, 0, FIXED_PG + 1);
	struct ibv_wc r, w;
	long long inv;
	void *p;
	bool ok;

	pattern_fill(rsrc, PG, 70);
	pattern_fill(wsrc, PG, 71);
	ok = post_one(e, e->qa, IBV_WR_RDMA_READ, rd, PG, rsrc, 0, 0, &r) &&
	     post_one(e, e->qa, IBV_WR_RDMA_WRITE, wsrc, PG, wdst, 0, 0, &w);
	tap_ok(ok && r.status == IBV_WC_SUCCESS && w.status == IBV_WC_SUCCESS &&
	       pattern_ok(rd, PG, 70) && pattern_ok(wdst, PG, 71),
	       "READ and WRITE of two pages the device then has");

	inv = ctr(e, "odp_invalidations");
	p = mmap(rsrc, 2 * PG, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	if (p != rsrc)
		tap_bail("mmap MAP_FIXED: %s", strerror(errno));
	pattern_fill(rsrc, PG, 72);
	pattern_fill(wsrc, PG, 73);
	memset(rd, 0, PG);
	ok = post_one(e, e->qa, IBV_WR_RDMA_READ, rd, PG, rsrc, 0, 0, &r);
	tap_ok(ok && r.status == IBV_WC_SUCCESS && pattern_ok(rd, PG, 72),
	       "MAP_FIXED over them: READ reads the new page (status %d)",
	       r.status);
	ok = post_one(e, e->qa, IBV_WR_RDMA_WRITE, wsrc, PG, wdst, 0, 0, &w);
	tap_ok(ok && w.status == IBV_WC_SUCCESS && pattern_ok(wdst, PG, 73),
	       "... WRITE writes the new page (status %d)", w.status);
	ctr_moved(e, "odp_invalidations", inv, false, true,
		  "... the old ones were taken back");
}

static int advise(struct env *e, enum ibv_advise_mr_advice advice,
		  struct ibv_sge *sge, uint32_t n)
{
	return ibv_advise_mr(e->pd, advice, IBV_ADVISE_MR_FLAG_FLUSH, sge, n);
}

/*
 * After MADV_DONTNEED, a prefetch of exactly what a SEND (PREFETCH of the
 * source, PREFETCH_WRITE of the target) and a WRITE (NO_FAULT of both,
 * which the CPU wrote) use: they fault nothing.
 */
static void test_prefetch(struct env *e)
{
	uint8_t *ssrc = at(e, 0, SEND_PG) + MSG_OFF;
	uint8_t *sdst = at(e, 1, SEND_PG) + MSG_OFF;
	uint8_t *wsrc = at(e, 0, WRITE_PG) + MSG_OFF;
	uint8_t *wdst = at(e, 1, WRITE_PG) + MSG_OFF;
	struct ibv_sge s = { (uintptr_t)ssrc, MSG, e->mr[0]->lkey };
	struct ibv_sge d = { (uintptr_t)sdst, MSG, e->mr[1]->lkey };
	struct ibv_sge both[2] = {
		{ (uintptr_t)wsrc, MSG, e->mr[0]->lkey },
		{ (uintptr_t)wdst, MSG, e->mr[1]->lkey },
	};
	long long pre = ctr(e, "odp_prefetches"), faults;
	int err1, err2;

	madvise(e->buf[0], BUF, MADV_DONTNEED);
	madvise(e->buf[1], BUF, MADV_DONTNEED);
	pattern_fill(ssrc, MSG, 40);
	err1 = advise(e, IBV_ADVISE_MR_ADVICE_PREFETCH, &s, 1);
	err2 = advise(e, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, &d, 1);
	tap_ok(!err1 && !err2,
	       "ibv_advise_mr PREFETCH of a SEND's source, PREFETCH_WRITE of its target: %s, %s",
	       strerror(err1), strerror(err2));
	faults = ctr(e, "odp_page_faults");
	ctr_moved(e, "odp_page_faults", faults, true, send_ok(e, 40),
		  "... the SEND: every byte, no page fault");

	pattern_fill(wsrc, MSG, 41);
	memset(wdst, 0xee, MSG);
	err1 = advise(e, IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT, both, 2);
	tap_ok(!err1,
	       "ibv_advise_mr PREFETCH_NO_FAULT of a WRITE's source and target, both in the page tables: %s",
	       strerror(err1));
	faults = ctr(e, "odp_page_faults");
	ctr_moved(e, "odp_page_faults", faults, true, write_ok(e, 41),
		  "... the WRITE: every byte, no page fault");
	ctr_moved(e, "odp_prefetches", pre + 3, false, true,
		  "the 4 ranges prefetched counted");
}

static void test_bad(struct env *e)
{
	struct ibv_sge sge;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	long long failed = ctr(e, "odp_failed_faults");
	uint8_t small[64];
	int err;
	bool ok;

	errno = 0;
	mr = ibv_reg_mr(e->pd, NULL, SIZE_MAX, IBV_ACCESS_ON_DEMAND |
			IBV_ACCESS_LOCAL_WRITE);
	expect_errno(!mr, errno, EOPNOTSUPP,
		     "implicit ODP: ibv_reg_mr(NULL, SIZE_MAX, ON_DEMAND)");
	if (mr)
		ibv_dereg_mr(mr);

	mr = ibv_reg_mr(e->pd, small, sizeof(small), IBV_ACCESS_LOCAL_WRITE);
	sge = (struct ibv_sge){ (uintptr_t)small, sizeof(small),
				mr ? mr->lkey : 0 };
	err = advise(e, IBV_ADVISE_MR_ADVICE_PREFETCH, &sge, 1);
	expect_errno(err, err, EINVAL, "ibv_advise_mr of an MR without ODP");
	if (mr)
		ibv_dereg_mr(mr);

	sge = (struct ibv_sge){ (uintptr_t)e->buf[0] + BUF - 100, 200,
				e->mr[0]->lkey };
	err = advise(e, IBV_ADVISE_MR_ADVICE_PREFETCH, &sge, 1);
	expect_errno(err, err, EFAULT,
		     "ibv_advise_mr of a range past the MR's end");

	mr = ibv_reg_mr(e->pd, at(e, 0, 14), PG, IBV_ACCESS_ON_DEMAND);
	sge = (struct ibv_sge){ (uintptr_t)at(e, 0, 14), PG,
				mr ? mr->lkey : 0 };
	err = mr ? advise(e, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, &sge, 1) :
		   errno;
	expect_errno(err, err, EPERM,
		     "ibv_advise_mr PREFETCH_WRITE of a read-only ODP MR");
	if (mr)
		ibv_dereg_mr(mr);

	errno = 0;
	err = ibv_rereg_mr(e->mr[0], IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL,
			   0, IBV_ACCESS_ON_DEMAND | ACCESS);
	expect_errno(err, errno, EOPNOTSUPP, "ibv_rereg_mr of an ODP MR");

	/* the second pair: a WRITE into a page B's process no longer has */
	munmap(at(e, 1, GONE_PG), PG);
	pattern_fill(at(e, 0, GONE_PG + 1), 64, 50);
	ok = post_one(e, e->qc, IBV_WR_RDMA_WRITE, at(e, 0, GONE_PG + 1), 64,
		      at(e, 1, GONE_PG), 0, 0, &wc);
	tap_ok(ok && wc.status == IBV_WC_REM_ACCESS_ERR,
	       "RDMA WRITE into a munmap()ed page of the peer's ODP MR: REM_ACCESS_ERR (status %d: %s)",
	       wc.status, ibv_wc_status_str(wc.status));

	/* the first pair: a SEND from a page A's process no longer has */
	munmap(at(e, 0, GONE_PG), PG);
	ok = !post_recv(e->qb, at(e, 1, SEND_PG), 64, e->mr[1]) &&
	     post_one(e, e->qa, IBV_WR_SEND, at(e, 0, GONE_PG), 64, NULL, 0,
		      0, &wc);
	tap_ok(ok && wc.status == IBV_WC_LOC_PROT_ERR,
	       "SEND from a munmap()ed page of an ODP MR: LOC_PROT_ERR (status %d: %s)",
	       wc.status, ibv_wc_status_str(wc.status));
	tap_ok(qp_state(e->qa) == IBV_QPS_ERR, "... its QP in ERR (state %d)",
	       qp_state(e->qa));
	ctr_moved(e, "odp_failed_faults", failed + 1, false, true,
		  "both faults that could not be mapped counted");
}

int main(int argc, char **argv)
{
	struct env e = { .dev = "axon0", .gid_index = 0 };
	long long faults, pages, now;
	int i, err = 0;

	if (!dev_args(argc, argv, &e.gid_index, &e.dev))
		return 2;

	tap_plan(PLAN);
	e.ctx = open_device(e.dev);
	if (!e.ctx)
		tap_bail("no device %s", e.dev);
	for (i = 0; i < 2; i++) {
		e.buf[i] = mmap(NULL, BUF, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (e.buf[i] == MAP_FAILED)
			tap_bail("mmap: %s", strerror(errno));
	}
	if (ibv_query_gid(e.ctx, 1, e.gid_index, &e.gid) ||
	    !(e.pd = ibv_alloc_pd(e.ctx)) ||
	    !(e.scq = ibv_create_cq(e.ctx, 4 * DEPTH, NULL, NULL, 0)) ||
	    !(e.rcq = ibv_create_cq(e.ctx, 4 * DEPTH, NULL, NULL, 0)))
		tap_bail("device set-up: %s", strerror(errno));

	if (setup(&e)) {
		faults = ctr(&e, "odp_page_faults");
		pages = ctr(&e, "odp_faulted_pages");
		traffic(&e, 10, "on untouched pages");
		now = ctr(&e, "odp_page_faults");
		tap_ok(now > faults && ctr(&e, "odp_faulted_pages") > pages,
		       "the device faulted the pages in (odp_page_faults %lld -> %lld, odp_faulted_pages from %lld)",
		       faults, now, pages);
		test_dontneed(&e);
		test_map_fixed(&e);
		test_prefetch(&e);
		test_bad(&e);

		err |= ibv_destroy_qp(e.qa) | ibv_destroy_qp(e.qb) |
		       ibv_destroy_qp(e.qc) | ibv_destroy_qp(e.qd);
		err |= ibv_dereg_mr(e.mr[0]) | ibv_dereg_mr(e.mr[1]);
		tap_ok(!err, "QPs destroyed, ODP MRs deregistered");
	}
	ibv_destroy_cq(e.scq);
	ibv_destroy_cq(e.rcq);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	return tap_done();
}
