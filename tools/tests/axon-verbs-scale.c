// SPDX-License-Identifier: GPL-2.0
/*
 * axon-verbs-scale: many QPs, CQs and MRs on one device. Creates COUNT RC
 * QPs of one WQE each on one PD and CQ, checks that every qpn is distinct,
 * and, with -c, CQS CQs and CQS MRs more; connects the two QPs with the
 * highest qpns to each other and moves a WRITE and a SEND between them
 * with the data checked (from 65,536 QPs on, their qpns pass 16 bits and
 * their doorbells carry the high bits in the doorbell's offset), then
 * sees one QP (CQ, MR) more than the device's max_qp (max_cq, max_mr)
 * refused with ENOMEM, and destroys them all. With -e, PAIRS connected QP
 * pairs, each QP with a CQ of its own on one completion channel, all
 * armed: a SEND on each pair gives every CQ one completion and one event,
 * however few entries the device's completion event queue has. The time
 * per create and destroy is printed, never judged.
 *
 * Usage: axon-verbs-scale [-g GID_INDEX] [-n COUNT] [-c CQS [-H HELD]]
 *                         [-e PAIRS] [DEVICE]
 *        (default axon0, GID 0, 2048 QPs, no CQs or MRs more, no pairs;
 *        -n max, -c max: up to the device's maximum, less the HELD_CQS,
 *        HELD_MRS others hold, as "rdma resource show" counts them)
 *
 * Each QP maps its two queues: past about 32,000 QPs a process needs
 * vm.max_map_count above its default of 65,530 (qp-scale.sh raises it).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "axon-test.h"

#define MSG		4096
#define CHECKS		6		/* and one at max_qp */
#define CQ_CHECKS	3		/* with -c; and two at max_cq */
#define EVENT_CHECKS	2		/* with -e */

struct env {
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;			/* a: send; b: write target; c: receive */
	union ibv_gid gid;
	int gid_index;
	struct ibv_qp **qps;
	int nqps;
	struct ibv_qp *top[2];		/* the highest qpns */
	struct ibv_cq **cqs;		/* -c */
	struct ibv_mr **mrs;
	int ncqs, nmrs;
};

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static struct ibv_qp *small_qp(struct env *e)
{
	struct ibv_qp_init_attr init = {
		.send_cq = e->cq, .recv_cq = e->cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return ibv_create_qp(e->pd, &init);
}

static int cmp_qpn(const void *a, const void *b)
{
	uint32_t x = (*(struct ibv_qp * const *)a)->qp_num;
	uint32_t y = (*(struct ibv_qp * const *)b)->qp_num;

	return x < y ? -1 : x > y;
}

/*
 * COUNT QPs: all made, each its own qpn; the two with the highest qpns
 * into e->top (qpns are handed out next-fit, across processes).
 */
static void create_all(struct env *e, int count)
{
	struct ibv_qp **sorted;
	double t0 = now_us();
	int dup = 0, i;

	while (e->nqps < count) {
		struct ibv_qp *qp = small_qp(e);

		if (!qp) {
			tap_diag("QP %d: %s", e->nqps, strerror(errno));
			break;
		}
		e->qps[e->nqps++] = qp;
	}
	if (e->nqps)
		tap_diag("%d QPs: %.0f us a create", e->nqps,
			 (now_us() - t0) / e->nqps);
	tap_ok(e->nqps == count, "%d RC QPs created (asked %d)", e->nqps,
	       count);

	sorted = malloc(e->nqps * sizeof(*sorted));
	if (sorted) {
		memcpy(sorted, e->qps, e->nqps * sizeof(*sorted));
		qsort(sorted, e->nqps, sizeof(*sorted), cmp_qpn);
		for (i = 1; i < e->nqps; i++)
			dup += sorted[i]->qp_num == sorted[i - 1]->qp_num;
		if (e->nqps)
			tap_diag("qpns %u .. %u", sorted[0]->qp_num,
				 sorted[e->nqps - 1]->qp_num);
		if (e->nqps >= 2) {
			e->top[0] = sorted[e->nqps - 2];
			e->top[1] = sorted[e->nqps - 1];
		}
	}
	tap_ok(sorted && !dup, "every qpn distinct (%d repeated)", dup);
	free(sorted);
}

/*
 * Completions on the shared CQ, in either order: wr_id n (n < 4) with
 * opcode want[n] and qpn qpn[n] for every bit n of ids; false at the first
 * other one or after 20 s.
 */
static bool wait_all(struct env *e, unsigned int ids,
		     const enum ibv_wc_opcode *want, const uint32_t *qpn)
{
	struct ibv_wc wc;

	while (ids) {
		if (!poll_one(e->cq, &wc, 20000))
			return false;
		if (wc.status != IBV_WC_SUCCESS || wc.wr_id >= 4 ||
		    !(ids & 1u << wc.wr_id) || wc.opcode != want[wc.wr_id] ||
		    wc.qp_num != qpn[wc.wr_id]) {
			tap_diag("completion %s opcode %d wr_id %llu qpn %u",
				 ibv_wc_status_str(wc.status), wc.opcode,
				 (unsigned long long)wc.wr_id, wc.qp_num);
			return false;
		}
		ids &= ~(1u << wc.wr_id);
	}
	return true;
}

/* The two highest qpns, connected to each other: a WRITE, then a SEND. */
static void traffic(struct env *e)
{
	struct ibv_qp *a, *b;
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf, .length = MSG,
			       .lkey = e->mr->lkey };
	struct ibv_sge rsge = { .addr = (uintptr_t)e->buf + 2 * MSG,
				.length = MSG, .lkey = e->mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 3, .sg_list = &rsge, .num_sge = 1 };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED };
	enum ibv_wc_opcode want[4] = { [1] = IBV_WC_RDMA_WRITE,
				       [2] = IBV_WC_SEND, [3] = IBV_WC_RECV };
	uint32_t qpn[4];
	struct ibv_recv_wr *rbad;
	struct ibv_send_wr *bad;
	bool ok;

	if (!e->top[0]) {
		tap_ok(false, "WRITE between the top two QPs (too few QPs)");
		tap_ok(false, "SEND between the top two QPs (too few QPs)");
		return;
	}
	a = e->top[0];
	b = e->top[1];
	qpn[1] = qpn[2] = a->qp_num;
	qpn[3] = b->qp_num;
	ok = !qp_connect(a, b->qp_num, &e->gid, e->gid_index) &&
	     !qp_connect(b, a->qp_num, &e->gid, e->gid_index);

	pattern_fill(e->buf, MSG, 7);
	memset(e->buf + MSG, 0, 2 * MSG);
	wr.wr.rdma.remote_addr = (uintptr_t)e->buf + MSG;
	wr.wr.rdma.rkey = e->mr->rkey;
	ok = ok && !ibv_post_send(a, &wr, &bad) &&
	     wait_all(e, 1u << 1, want, qpn);
	tap_ok(ok && pattern_ok(e->buf + MSG, MSG, 7),
	       "WRITE from qpn %u to qpn %u, data checked", a->qp_num,
	       b->qp_num);

	pattern_fill(e->buf, MSG, 8);
	wr.wr_id = 2;
	wr.opcode = IBV_WR_SEND;
	ok = ok && !ibv_post_recv(b, &rwr, &rbad) &&
	     !ibv_post_send(a, &wr, &bad) &&
	     wait_all(e, 1u << 2 | 1u << 3, want, qpn);
	tap_ok(ok && pattern_ok(e->buf + 2 * MSG, MSG, 8),
	       "SEND from qpn %u to qpn %u, data checked", a->qp_num,
	       b->qp_num);
}

/* At the device's max_qp, one more is refused. */
static void beyond_max(struct env *e)
{
	struct ibv_qp *qp;

	if (e->nqps != e->attr.max_qp) {
		tap_ok(false, "QP beyond max_qp: only %d of %d made", e->nqps,
		       e->attr.max_qp);
		return;
	}
	errno = 0;
	qp = small_qp(e);
	expect_errno(!qp, errno, ENOMEM, "QP beyond max_qp");
	if (qp)
		ibv_destroy_qp(qp);
}

/* ncq CQs of one CQE and nmr MRs of one page, all made. */
static void create_cqs_mrs(struct env *e, int ncq, int nmr)
{
	double t0 = now_us();

	while (e->ncqs < ncq) {
		e->cqs[e->ncqs] = ibv_create_cq(e->ctx, 1, NULL, NULL, 0);
		if (!e->cqs[e->ncqs]) {
			tap_diag("CQ %d: %s", e->ncqs, strerror(errno));
			break;
		}
		e->ncqs++;
	}
	if (e->ncqs)
		tap_diag("%d CQs: %.0f us a create", e->ncqs,
			 (now_us() - t0) / e->ncqs);
	tap_ok(e->ncqs == ncq, "%d CQs created (asked %d)", e->ncqs, ncq);

	t0 = now_us();
	while (e->nmrs < nmr) {
		e->mrs[e->nmrs] = ibv_reg_mr(e->pd, e->buf, MSG,
					     IBV_ACCESS_LOCAL_WRITE);
		if (!e->mrs[e->nmrs]) {
			tap_diag("MR %d: %s", e->nmrs, strerror(errno));
			break;
		}
		e->nmrs++;
	}
	if (e->nmrs)
		tap_diag("%d MRs: %.0f us a registration", e->nmrs,
			 (now_us() - t0) / e->nmrs);
	tap_ok(e->nmrs == nmr, "%d MRs registered (asked %d)", e->nmrs, nmr);
}

/*
 * At the device's max_cq and max_mr (ours and the kernel's included), one
 * more of each refused.
 */
static void cqs_mrs_beyond_max(struct env *e)
{
	struct ibv_cq *cq;
	struct ibv_mr *mr;

	errno = 0;
	cq = ibv_create_cq(e->ctx, 1, NULL, NULL, 0);
	expect_errno(!cq, errno, ENOMEM, "CQ beyond max_cq");
	if (cq)
		ibv_destroy_cq(cq);
	errno = 0;
	mr = ibv_reg_mr(e->pd, e->buf, MSG, IBV_ACCESS_LOCAL_WRITE);
	expect_errno(!mr, errno, ENOMEM, "MR beyond max_mr");
	if (mr)
		ibv_dereg_mr(mr);
}

static void destroy_cqs_mrs(struct env *e)
{
	double t0 = now_us();
	int i, failed = 0;

	for (i = 0; i < e->ncqs; i++)
		failed += ibv_destroy_cq(e->cqs[i]) != 0;
	if (e->ncqs)
		tap_diag("%d CQs: %.0f us a destroy", e->ncqs,
			 (now_us() - t0) / e->ncqs);
	t0 = now_us();
	for (i = 0; i < e->nmrs; i++)
		failed += ibv_dereg_mr(e->mrs[i]) != 0;
	if (e->nmrs)
		tap_diag("%d MRs: %.0f us a deregistration", e->nmrs,
			 (now_us() - t0) / e->nmrs);
	tap_ok(!failed, "%d CQs and %d MRs destroyed (%d failed)", e->ncqs,
	       e->nmrs, failed);
	e->ncqs = e->nmrs = 0;
}

/* The next CQ event on ch within 20 s: its CQ's index, or -1. */
static int next_event(struct ibv_comp_channel *ch)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *ctx;

	for (;;) {
		if (!ibv_get_cq_event(ch, &cq, &ctx)) {
			ibv_ack_cq_events(cq, 1);
			return (int)(uintptr_t)ctx;
		}
		if (errno != EAGAIN || poll(&pfd, 1, 20000) != 1)
			return -1;
	}
}

/*
 * PAIRS connected QP pairs, every QP with a CQ of its own on one channel,
 * all armed; a zero-byte SEND on each pair: each CQ gets its completion
 * and exactly one event.
 */
static void events(struct env *e, int pairs)
{
	int n = 2 * pairs, i, got = 0, dup = 0, bad = 0, idx;
	struct ibv_comp_channel *ch = ibv_create_comp_channel(e->ctx);
	struct ibv_cq **cq = calloc(n, sizeof(*cq));
	struct ibv_qp **qp = calloc(n, sizeof(*qp));
	char *seen = calloc(n, 1);
	struct ibv_wc wc;
	bool ok = ch && cq && qp && seen &&
		  fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK) == 0;

	for (i = 0; ok && i < n; i++) {
		struct ibv_qp_init_attr init = {
			.qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		cq[i] = ibv_create_cq(e->ctx, 2, (void *)(uintptr_t)i, ch, 0);
		init.send_cq = init.recv_cq = cq[i];
		qp[i] = cq[i] ? ibv_create_qp(e->pd, &init) : NULL;
		ok = qp[i] && !ibv_req_notify_cq(cq[i], 0);
	}
	for (i = 0; ok && i < n; i += 2)
		ok = !qp_connect(qp[i], qp[i + 1]->qp_num, &e->gid,
				 e->gid_index) &&
		     !qp_connect(qp[i + 1], qp[i]->qp_num, &e->gid,
				 e->gid_index);
	for (i = 0; ok && i < n; i += 2) {
		struct ibv_recv_wr rwr = { .wr_id = i + 1 }, *rbad;
		struct ibv_send_wr wr = { .wr_id = i, .opcode = IBV_WR_SEND,
					  .send_flags = IBV_SEND_SIGNALED },
				   *sbad;

		ok = !ibv_post_recv(qp[i + 1], &rwr, &rbad) &&
		     !ibv_post_send(qp[i], &wr, &sbad);
	}
	if (!ok)
		tap_diag("set-up of %d pairs: %s", pairs, strerror(errno));
	while (ok && got < n && (idx = next_event(ch)) >= 0) {
		dup += idx >= n || seen[idx]++;
		got++;
	}
	tap_ok(ok && got == n && !dup,
	       "%d armed CQs: %d events, every CQ once (%d repeated)", n, got,
	       dup);
	for (i = 0; ok && i < n; i++)
		bad += ibv_poll_cq(cq[i], 1, &wc) != 1 ||
		       wc.status != IBV_WC_SUCCESS || wc.wr_id != (uint64_t)i;
	tap_ok(ok && !bad, "every CQ holds its completion (%d did not)", bad);

	for (i = 0; qp && i < n; i++)
		if (qp[i])
			ibv_destroy_qp(qp[i]);
	for (i = 0; cq && i < n; i++)
		if (cq[i])
			ibv_destroy_cq(cq[i]);
	if (ch)
		ibv_destroy_comp_channel(ch);
	free(seen);
	free(qp);
	free(cq);
}

static void destroy_all(struct env *e)
{
	double t0 = now_us();
	int i, failed = 0, n = e->nqps;

	for (i = 0; i < n; i++)
		failed += ibv_destroy_qp(e->qps[i]) != 0;
	if (n)
		tap_diag("%d QPs: %.0f us a destroy", n, (now_us() - t0) / n);
	tap_ok(!failed, "%d QPs destroyed (%d failed)", n, failed);
	e->nqps = 0;
}

int main(int argc, char **argv)
{
	const char *name = "axon0", *count_arg = "2048", *cqs_arg = "0";
	struct env e = { .gid_index = 0 };
	int opt, count, ncq, nmr, held_cq = 0, held_mr = 0, pairs = 0;
	bool cq_max;

	while ((opt = getopt(argc, argv, "g:n:c:e:H:")) != -1) {
		if (opt == 'g') {
			e.gid_index = atoi(optarg);
		} else if (opt == 'n') {
			count_arg = optarg;
		} else if (opt == 'c') {
			cqs_arg = optarg;
		} else if (opt == 'e') {
			pairs = atoi(optarg);
		} else if (opt == 'H' &&
			   sscanf(optarg, "%d,%d", &held_cq, &held_mr) == 2) {
			continue;
		} else {
			fprintf(stderr, "usage: %s [-g GID_INDEX] [-n COUNT|max] "
				"[-c CQS|max [-H HELD_CQS,HELD_MRS]] [-e PAIRS] "
				"[DEVICE]\n", argv[0]);
			return 2;
		}
	}
	if (optind < argc)
		name = argv[optind];

	e.ctx = open_device(name);
	if (!e.ctx || ibv_query_device(e.ctx, &e.attr) ||
	    ibv_query_gid(e.ctx, 1, e.gid_index, &e.gid)) {
		tap_plan(CHECKS);
		tap_bail("no device %s: %s", name, strerror(errno));
	}
	count = strcmp(count_arg, "max") ? atoi(count_arg) : e.attr.max_qp;
	/* the maximum less our own CQ and MR and what others hold */
	cq_max = !strcmp(cqs_arg, "max");
	ncq = cq_max ? e.attr.max_cq - 1 - held_cq : atoi(cqs_arg);
	nmr = cq_max ? e.attr.max_mr - 1 - held_mr : ncq;
	tap_plan(CHECKS + (count == e.attr.max_qp) +
		 (ncq ? CQ_CHECKS + 2 * cq_max : 0) +
		 (pairs ? EVENT_CHECKS : 0));
	if (count < 2 || ncq < 0 || nmr < 0 || pairs < 0)
		tap_bail("COUNT %s: at least 2; CQS %s less HELD %d,%d, "
			 "PAIRS %d: at least 0", count_arg, cqs_arg, held_cq,
			 held_mr, pairs);
	e.buf = calloc(3, MSG);
	e.qps = calloc(count, sizeof(*e.qps));
	e.cqs = calloc(ncq + 1, sizeof(*e.cqs));
	e.mrs = calloc(nmr + 1, sizeof(*e.mrs));
	if (!e.buf || !e.qps || !e.cqs || !e.mrs ||
	    !(e.pd = ibv_alloc_pd(e.ctx)) ||
	    !(e.cq = ibv_create_cq(e.ctx, 16, NULL, NULL, 0)) ||
	    !(e.mr = ibv_reg_mr(e.pd, e.buf, 3 * MSG, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE)))
		tap_bail("device set-up: %s", strerror(errno));
	tap_diag("%s: max_qp %d max_cq %d max_mr %d", name, e.attr.max_qp,
		 e.attr.max_cq, e.attr.max_mr);
	tap_ok(e.attr.max_qp >= count, "max_qp %d holds %d", e.attr.max_qp,
	       count);

	create_all(&e, count);
	if (ncq)
		create_cqs_mrs(&e, ncq, nmr);
	traffic(&e);
	if (count == e.attr.max_qp)
		beyond_max(&e);
	if (cq_max)
		cqs_mrs_beyond_max(&e);
	destroy_all(&e);
	if (ncq)
		destroy_cqs_mrs(&e);
	if (pairs)
		events(&e, pairs);

	ibv_dereg_mr(e.mr);
	ibv_destroy_cq(e.cq);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	free(e.mrs);
	free(e.cqs);
	free(e.qps);
	free(e.buf);
	return tap_done();
}
