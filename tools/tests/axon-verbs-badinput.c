// SPDX-License-Identifier: GPL-2.0
/*
 * axon-verbs-badinput: bad user input to the verbs fails with a precise
 * errno, and the device works afterwards. Plain libibverbs: runs on any
 * RoCE device.
 *
 * Usage: axon-verbs-badinput [-g GID_INDEX] [DEVICE]   (default axon0, GID 0)
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "axon-test.h"

/* The results each test reports (the plan). */
#define CQ_CHECKS	3
#define QP_CAP_CHECKS	4
#define MR_CHECKS	10
#define DMABUF_CHECKS(rxe)	((rxe) ? 1 : 10)
#define MODIFY_CHECKS	(10 + 2 * BAD_ATTRS)
#define POST_CHECKS	4
#define BUSY_CQ_CHECKS	4
#define MCAST_CHECKS	8

static void test_cq(struct ibv_context *ctx)
{
	static const struct { int cqe; const char *name; } bad[] = {
		{ 0, "ibv_create_cq 0 entries" },
		{ -1, "ibv_create_cq -1 entries" },
		{ INT_MAX, "ibv_create_cq INT_MAX entries" },
	};
	struct ibv_cq *cq;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		cq = ibv_create_cq(ctx, bad[i].cqe, NULL, NULL, 0);
		expect_errno(!cq, errno, EINVAL, bad[i].name);
		if (cq)
			ibv_destroy_cq(cq);
	}
}

static struct ibv_qp *create_qp(struct ibv_pd *pd, struct ibv_cq *cq,
				const struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .cap = *cap, .qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(pd, &init);
}

static const struct ibv_qp_cap good_cap = {
	.max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
	.max_recv_sge = 1,
};

static void test_qp_caps(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_cap cap;
	struct ibv_qp *qp;
	int i;

	for (i = 0; i < 4; i++) {
		const char *name[] = {
			"ibv_create_qp max_send_wr 1<<30",
			"ibv_create_qp max_recv_wr 1<<30",
			"ibv_create_qp max_send_sge 1000",
			"ibv_create_qp max_inline_data 1<<20",
		};

		cap = good_cap;
		if (i == 0)
			cap.max_send_wr = 1 << 30;
		else if (i == 1)
			cap.max_recv_wr = 1 << 30;
		else if (i == 2)
			cap.max_send_sge = 1000;
		else
			cap.max_inline_data = 1 << 20;
		errno = 0;
		qp = create_qp(pd, cq, &cap);
		expect_errno(!qp, errno, EINVAL, name[i]);
		if (qp)
			ibv_destroy_qp(qp);
	}
}

static void test_mr(struct ibv_pd *pd)
{
	long page = sysconf(_SC_PAGESIZE);
	struct ibv_mr *mr;
	char *p;

	errno = 0;
	mr = ibv_reg_mr(pd, NULL, page, IBV_ACCESS_LOCAL_WRITE);
	expect_errno(!mr, errno, EFAULT, "ibv_reg_mr NULL address");
	if (mr)
		ibv_dereg_mr(mr);

	p = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		tap_ok(false, "mmap");
		return;
	}
	/* splits the mapping: may fail under fault injection */
	if (munmap(p + page, 2 * page)) {
		tap_ok(false, "munmap of the hole: %s", strerror(errno));
		munmap(p, 4 * page);
		return;
	}
	errno = 0;
	mr = ibv_reg_mr(pd, p + page, page, IBV_ACCESS_LOCAL_WRITE);
	expect_errno(!mr, errno, EFAULT, "ibv_reg_mr unmapped address");
	if (mr)
		ibv_dereg_mr(mr);
	errno = 0;
	mr = ibv_reg_mr(pd, p, 4 * page, IBV_ACCESS_LOCAL_WRITE);
	expect_errno(!mr, errno, EFAULT, "ibv_reg_mr over a hole");
	if (mr)
		ibv_dereg_mr(mr);

	errno = 0;
	mr = ibv_reg_mr(pd, p, SIZE_MAX - page, IBV_ACCESS_LOCAL_WRITE);
	expect_errno(!mr, errno, EINVAL, "ibv_reg_mr addr + length wraps");
	if (mr)
		ibv_dereg_mr(mr);

	errno = 0;
	mr = ibv_reg_mr(pd, p, 0, IBV_ACCESS_LOCAL_WRITE);
	expect_errno(!mr, errno, EINVAL, "ibv_reg_mr length 0");
	if (mr)
		ibv_dereg_mr(mr);

	errno = 0;
	mr = ibv_reg_mr(pd, p, page, IBV_ACCESS_REMOTE_WRITE);
	expect_errno(!mr, errno, EINVAL,
		   "ibv_reg_mr REMOTE_WRITE without LOCAL_WRITE");
	if (mr)
		ibv_dereg_mr(mr);
	errno = 0;
	mr = ibv_reg_mr(pd, p, page, IBV_ACCESS_REMOTE_ATOMIC);
	expect_errno(!mr, errno, EINVAL,
		   "ibv_reg_mr REMOTE_ATOMIC without LOCAL_WRITE");
	if (mr)
		ibv_dereg_mr(mr);
	errno = 0;
	/* bit 12: below libibverbs' optional range, which it drops */
	mr = ibv_reg_mr(pd, p, page, IBV_ACCESS_LOCAL_WRITE | (1 << 12));
	expect_errno(!mr, errno, EINVAL, "ibv_reg_mr unknown access flag");
	if (mr)
		ibv_dereg_mr(mr);

	mr = ibv_reg_mr(pd, p, page, IBV_ACCESS_LOCAL_WRITE);
	tap_ok(mr != NULL, "ibv_reg_mr of a good page still works");
	if (mr)
		tap_ok(!ibv_dereg_mr(mr), "ibv_dereg_mr");
	munmap(p, page);
	munmap(p + 3 * page, page);
}

/* expect_err for ibv_reg_dmabuf_mr; a registration that worked is undone. */
static void expect_dmabuf_err(struct ibv_pd *pd, uint64_t offset,
			      size_t length, uint64_t iova, int fd, int access,
			      int want, const char *what)
{
	struct ibv_mr *mr;

	mr = ibv_reg_dmabuf_mr(pd, offset, length, iova, fd, access);
	expect_errno(!mr, errno, want, what);
	if (mr)
		ibv_dereg_mr(mr);
}

/*
 * dma-buf MRs without a dma-buf. fd -1 must give EBADF whatever else is
 * passed: NCCL and UCX probe support that way (a device without it gives
 * EOPNOTSUPP, as rxe in Linux 6.1 does).
 */
static void test_dmabuf_mr(struct ibv_pd *pd, bool rxe)
{
	uint64_t page = sysconf(_SC_PAGESIZE);
	int lw = IBV_ACCESS_LOCAL_WRITE;
	int pipefd[2], null;

	if (rxe) {
		expect_dmabuf_err(pd, 0, 0, 0, -1, 0, EOPNOTSUPP,
				  "ibv_reg_dmabuf_mr on rxe: unsupported");
		return;
	}
	expect_dmabuf_err(pd, 0, 0, 0, -1, 0, EBADF,
			  "ibv_reg_dmabuf_mr(pd, 0, 0, 0, -1, 0) probe");
	expect_dmabuf_err(pd, 0, page, 0, -1, lw, EBADF,
			  "ibv_reg_dmabuf_mr fd -1");
	expect_dmabuf_err(pd, page, page, 0x7f0000000000, -1, lw, EBADF,
			  "ibv_reg_dmabuf_mr fd -1, GPU-like iova");
	if (pipe(pipefd)) {
		tap_ok(false, "pipe");
		return;
	}
	expect_dmabuf_err(pd, 0, page, 0, pipefd[0], lw, EINVAL,
			  "ibv_reg_dmabuf_mr on a pipe");
	close(pipefd[0]);
	close(pipefd[1]);
	null = open("/dev/null", O_RDWR);
	if (null < 0) {
		tap_ok(false, "open /dev/null");
		return;
	}
	expect_dmabuf_err(pd, 0, page, 0, null, lw, EINVAL,
			  "ibv_reg_dmabuf_mr on /dev/null");
	close(null);
	/* EINVAL, not EBADF: refused before the fd is looked up */
	expect_dmabuf_err(pd, UINT64_MAX & ~(page - 1), 2 * page, 0, -1,
			  lw, EINVAL, "ibv_reg_dmabuf_mr offset + length wraps");
	expect_dmabuf_err(pd, page / 2, page, 0, -1, lw, EINVAL,
			  "ibv_reg_dmabuf_mr offset and iova in-page offsets differ");
	expect_dmabuf_err(pd, 0, page, 0, -1, IBV_ACCESS_REMOTE_WRITE,
			  EINVAL,
			  "ibv_reg_dmabuf_mr REMOTE_WRITE without LOCAL_WRITE");
	expect_dmabuf_err(pd, 0, page, 0, -1, lw | IBV_ACCESS_ON_DEMAND,
			  EINVAL, "ibv_reg_dmabuf_mr ON_DEMAND");
	expect_dmabuf_err(pd, 0, page, 0, -1, lw | (1 << 12), EINVAL,
			  "ibv_reg_dmabuf_mr unknown access flag");
}

struct dev {
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	union ibv_gid gid;
	int gid_index, empty_gid;	/* a valid GID; an empty entry or -1 */
	bool rxe;
};

enum bad {
	BAD_NONE, BAD_QP_ACCESS, BAD_MTU, BAD_SGID_RANGE, BAD_SGID_EMPTY,
	BAD_DEST_RD_ATOMIC, BAD_PORT, BAD_RD_ATOMIC,
	BAD_ATTRS = BAD_RD_ATOMIC,	/* each one test of two results */
};

/* One invalid attribute on a fresh QP: the transition fails with want
 * and the QP stays where it was. rxe_ok: rdma_rxe (Linux 6.1) takes it. */
static void bad_attr(struct dev *d, enum bad bad, int want, bool rxe_ok,
		     const char *what)
{
	struct ibv_qp *qp = create_qp(d->pd, d->cq, &good_cap);
	enum ibv_qp_state from = IBV_QPS_INIT;
	struct ibv_qp_attr a;
	char name[160];
	int mask, ret;

	if (!qp || to_init(qp)) {
		tap_ok(false, "%s: ibv_create_qp and INIT", what);
		goto out;
	}
	rtr_attr(qp->qp_num, &d->gid, d->gid_index, &a);
	mask = RTR_MASK;
	switch (bad) {
	case BAD_QP_ACCESS:
		a.qp_state = IBV_QPS_INIT;
		a.qp_access_flags = 1 << 20;
		mask = IBV_QP_STATE | IBV_QP_ACCESS_FLAGS;
		break;
	case BAD_MTU:
		a.path_mtu = 99;
		break;
	case BAD_SGID_RANGE:
		a.ah_attr.grh.sgid_index = d->port.gid_tbl_len;
		break;
	case BAD_SGID_EMPTY:
		a.ah_attr.grh.sgid_index = d->empty_gid;
		break;
	case BAD_DEST_RD_ATOMIC:
		a.max_dest_rd_atomic = 200;
		break;
	case BAD_PORT:
		a.ah_attr.port_num = 7;
		break;
	case BAD_RD_ATOMIC:
		if (ibv_modify_qp(qp, &a, RTR_MASK)) {
			tap_ok(false, "%s: modify_qp INIT -> RTR", what);
			goto out;
		}
		from = IBV_QPS_RTR;
		rts_attr(&a);
		a.max_rd_atomic = 200;
		mask = RTS_MASK;
		break;
	case BAD_NONE:
		break;
	}
	ret = ibv_modify_qp(qp, &a, mask);
	snprintf(name, sizeof(name), "%s: QP stays in %s", what,
		 from == IBV_QPS_INIT ? "INIT" : "RTR");
	if (!ret && d->rxe && rxe_ok) {
		tap_ok(true, "%s: succeeded [rxe deviation]", what);
		tap_skip("it moved: rxe deviation", "%s", name);
		goto out;
	}
	expect_errno(ret, ret, want, what);
	tap_ok(qp_state(qp) == from, "%s", name);
out:
	if (qp)
		ibv_destroy_qp(qp);
}

/* A bad_attr() case the device cannot be given: its two results skipped. */
static void skip_bad_attr(const char *why, const char *what)
{
	tap_skip(why, "%s", what);
	tap_skip(why, "%s: QP stays where it was", what);
}

static void test_modify(struct dev *d)
{
	struct ibv_qp *qp = create_qp(d->pd, d->cq, &good_cap);
	struct ibv_qp_attr a;
	int ret;

	if (!qp) {
		tap_ok(false, "ibv_create_qp");
		return;
	}
	rts_attr(&a);
	ret = ibv_modify_qp(qp, &a, RTS_MASK);
	expect_errno(ret, ret, EINVAL, "modify_qp RESET -> RTS");
	rtr_attr(qp->qp_num, &d->gid, d->gid_index, &a);
	ret = ibv_modify_qp(qp, &a, RTR_MASK);
	expect_errno(ret, ret, EINVAL, "modify_qp RESET -> RTR");
	tap_ok(qp_state(qp) == IBV_QPS_RESET, "QP stays in RESET");
	tap_ok(!to_init(qp), "modify_qp RESET -> INIT");
	rts_attr(&a);
	ret = ibv_modify_qp(qp, &a, RTS_MASK);
	expect_errno(ret, ret, EINVAL, "modify_qp INIT -> RTS");
	tap_ok(qp_state(qp) == IBV_QPS_INIT, "QP stays in INIT");
	rtr_attr(qp->qp_num, &d->gid, d->gid_index, &a);
	tap_ok(!ibv_modify_qp(qp, &a, RTR_MASK), "modify_qp INIT -> RTR (to itself)");
	rts_attr(&a);
	tap_ok(!ibv_modify_qp(qp, &a, RTS_MASK), "modify_qp RTR -> RTS");
	tap_ok(qp_state(qp) == IBV_QPS_RTS, "QP in RTS");
	tap_ok(!ibv_destroy_qp(qp), "ibv_destroy_qp");

	bad_attr(d, BAD_QP_ACCESS, EINVAL, true,
		 "modify_qp INIT -> INIT unknown access flag");
	bad_attr(d, BAD_MTU, EINVAL, false, "modify_qp INIT -> RTR path_mtu 99");
	/* the uverbs ABI has 8 bits for the index */
	if (d->port.gid_tbl_len <= 255)
		bad_attr(d, BAD_SGID_RANGE, EINVAL, false,
			 "modify_qp INIT -> RTR sgid_index past the table");
	else
		skip_bad_attr("a table of more than 255 entries",
			      "modify_qp INIT -> RTR sgid_index past the table");
	if (d->empty_gid >= 0)
		bad_attr(d, BAD_SGID_EMPTY, ENODATA, false,
			 "modify_qp INIT -> RTR sgid_index of an empty entry");
	else
		skip_bad_attr("no empty entry",
			      "modify_qp INIT -> RTR sgid_index of an empty entry");
	if (d->attr.max_qp_rd_atom < 200)
		bad_attr(d, BAD_DEST_RD_ATOMIC, EINVAL, true,
			 "modify_qp INIT -> RTR max_dest_rd_atomic 200");
	else
		skip_bad_attr("max_qp_rd_atom >= 200",
			      "modify_qp INIT -> RTR max_dest_rd_atomic 200");
	bad_attr(d, BAD_PORT, EINVAL, false, "modify_qp INIT -> RTR port 7");
	if (d->attr.max_qp_init_rd_atom < 200)
		bad_attr(d, BAD_RD_ATOMIC, EINVAL, false,
			 "modify_qp RTR -> RTS max_rd_atomic 200");
	else
		skip_bad_attr("max_qp_init_rd_atom >= 200",
			      "modify_qp RTR -> RTS max_rd_atomic 200");
}

static void test_post(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_cap cap = good_cap;
	struct ibv_send_wr swr = { .opcode = IBV_WR_SEND }, *sbad = NULL;
	struct ibv_recv_wr rwr = { 0 }, *rbad = NULL;
	struct ibv_sge sge[64];
	struct ibv_qp *qp;
	char buf[64];
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	int ret, i;

	cap.max_send_sge = cap.max_recv_sge = 2;
	qp = create_qp(pd, cq, &cap);
	if (!qp || !mr || to_init(qp)) {
		tap_ok(false, "ibv_create_qp / ibv_reg_mr / INIT");
		goto out;
	}
	for (i = 0; i < 64; i++)
		sge[i] = (struct ibv_sge){ (uintptr_t)buf, 1, mr->lkey };
	swr.sg_list = rwr.sg_list = sge;
	swr.num_sge = rwr.num_sge = 64;
	ret = ibv_post_recv(qp, &rwr, &rbad);
	expect_errno(ret, ret, EINVAL, "ibv_post_recv 64 SGEs, max 2");
	tap_ok(!ret ? true : rbad == &rwr, "ibv_post_recv sets bad_wr");
	ret = ibv_post_send(qp, &swr, &sbad);
	expect_errno(ret, ret, EINVAL, "ibv_post_send 64 SGEs, max 2");
	tap_ok(!ret ? true : sbad == &swr, "ibv_post_send sets bad_wr");
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (mr)
		ibv_dereg_mr(mr);
}

static void test_busy_cq(struct ibv_context *ctx, struct ibv_pd *pd)
{
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp *qp = cq ? create_qp(pd, cq, &good_cap) : NULL;
	int ret;

	if (!qp) {
		tap_ok(false, "ibv_create_cq / ibv_create_qp");
		if (cq)
			ibv_destroy_cq(cq);
		return;
	}
	ret = ibv_destroy_cq(cq);
	expect_errno(ret, ret, EBUSY, "ibv_destroy_cq of a CQ in use by a QP");
	ret = ibv_dealloc_pd(pd);
	expect_errno(ret, ret, EBUSY, "ibv_dealloc_pd of a PD in use by a QP");
	tap_ok(!ibv_destroy_qp(qp), "ibv_destroy_qp");
	tap_ok(!ibv_destroy_cq(cq), "ibv_destroy_cq once unused");
}

/*
 * Multicast attach and detach: only UD QPs, only multicast GIDs, detach
 * only what is attached; an attached QP cannot be destroyed.
 */
static void test_mcast(struct dev *d)
{
	struct ibv_qp_init_attr init = {
		.send_cq = d->cq, .recv_cq = d->cq, .cap = good_cap,
		.qp_type = IBV_QPT_UD,
	};
	/* ::ffff:239.7.8.9 */
	union ibv_gid group = { .raw = { [10] = 0xff, [11] = 0xff, 239, 7, 8,
					 9 } };
	struct ibv_qp *rc = create_qp(d->pd, d->cq, &good_cap);
	struct ibv_qp *ud = ibv_create_qp(d->pd, &init);
	int ret, i;

	if (!rc || !ud) {
		tap_ok(false, "ibv_create_qp RC and UD");
		for (i = 1; i < MCAST_CHECKS; i++)
			tap_skip("no QPs", "multicast check %d", i);
		goto out;
	}
	ret = ibv_attach_mcast(rc, &group, 0);
	expect_errno(ret, ret, EINVAL, "ibv_attach_mcast of an RC QP");
	ret = ibv_attach_mcast(ud, &d->gid, 0);
	expect_errno(ret, ret, EINVAL, "ibv_attach_mcast to a unicast GID");
	ret = ibv_detach_mcast(ud, &group, 0);
	expect_errno(ret, ret, EINVAL, "ibv_detach_mcast of a QP not attached");
	tap_ok(!ibv_attach_mcast(ud, &group, 0), "ibv_attach_mcast of a UD QP");
	tap_ok(!ibv_attach_mcast(ud, &group, 0), "ibv_attach_mcast again");
	ret = ibv_destroy_qp(ud);
	expect_errno(ret, ret, EBUSY, "ibv_destroy_qp of an attached QP");
	if (!ret)
		ud = NULL;
	tap_ok(ud && !ibv_detach_mcast(ud, &group, 0), "ibv_detach_mcast");
	ret = ud ? ibv_destroy_qp(ud) : -1;
	tap_ok(!ret, "ibv_destroy_qp once detached");
	if (!ret)
		ud = NULL;
out:
	if (ud)
		ibv_destroy_qp(ud);
	if (rc)
		ibv_destroy_qp(rc);
}

/* The first index whose entry is empty, or -1. */
static int empty_gid(struct ibv_context *ctx, int len)
{
	struct ibv_gid_entry ent;
	int i;

	for (i = len < 255 ? len - 1 : 254; i >= 0; i--)
		if (ibv_query_gid_ex(ctx, 1, i, &ent, 0) == ENODATA)
			return i;
	return -1;
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx;
	struct dev d = { 0 };
	const char *name = "axon0";

	if (argc > 2 && !strcmp(argv[1], "-g")) {
		d.gid_index = atoi(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc > 1)
		name = argv[1];
	ctx = open_device(name);
	if (!ctx) {
		fprintf(stderr, "cannot open %s: %s\n", name, strerror(errno));
		return 1;
	}
	d.rxe = !strncmp(name, "rxe", 3);
	d.pd = ibv_alloc_pd(ctx);
	d.cq = ibv_create_cq(ctx, 64, NULL, NULL, 0);
	if (!d.pd || !d.cq || ibv_query_device(ctx, &d.attr) ||
	    ibv_query_port(ctx, 1, &d.port) ||
	    ibv_query_gid(ctx, 1, d.gid_index, &d.gid)) {
		fprintf(stderr, "%s: set-up failed: %s\n", name, strerror(errno));
		return 1;
	}
	d.empty_gid = empty_gid(ctx, d.port.gid_tbl_len);
	tap_plan(CQ_CHECKS + QP_CAP_CHECKS + MR_CHECKS + DMABUF_CHECKS(d.rxe) +
		 MODIFY_CHECKS + POST_CHECKS + BUSY_CQ_CHECKS + MCAST_CHECKS +
		 3);
	test_cq(ctx);
	test_qp_caps(d.pd, d.cq);
	test_mr(d.pd);
	test_dmabuf_mr(d.pd, d.rxe);
	test_modify(&d);
	test_post(d.pd, d.cq);
	test_mcast(&d);
	test_busy_cq(ctx, d.pd);
	tap_ok(!ibv_destroy_cq(d.cq), "ibv_destroy_cq");
	tap_ok(!ibv_dealloc_pd(d.pd), "ibv_dealloc_pd");
	tap_ok(!ibv_close_device(ctx), "ibv_close_device");
	return tap_done();
}
