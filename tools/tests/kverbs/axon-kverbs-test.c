// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon-kverbs-test: the kernel verbs of axon0, as a kernel consumer uses
 * them: a PD with its local_dma_lkey, a CQ with a completion handler, two
 * RC QPs connected to each other on the device, SEND/RECV with an SGE and
 * inline, completion events, query_qp, a CQ overflow reported as
 * IB_EVENT_CQ_ERR, ib_resize_cq() with completions waiting, a bad rkey reported as IB_EVENT_QP_ACCESS_ERR and an
 * error completion, reuse after RESET over completions nobody polled,
 * ib_drain_qp(), a kernel SRQ shared by a QP, two UD QPs with an address
 * handle (a datagram and its GRH, a reply through ib_create_ah_from_wc()),
 * fast registration (IB_WR_REG_MR of pages apart, the peer's WRITEs and
 * READ through the key, SEND_WITH_INV and LOCAL_INV taking it away, the
 * stale key refused), two UC QPs (SEND_WITH_IMM, WRITE_WITH_IMM into a
 * fast-registration MR, READ refused), teardown. Prints TAP to
 * the kernel log: the plan ("1..N"), one "ok N what" / "not ok N what"
 * line per check; loading fails if a check failed
 * (tools/tests/vm/kverbs.sh relays it).
 *
 *   insmod axon-kverbs-test.ko [dev=axon0] [gid_index=1] [starve_drain=1]
 *
 * starve_drain=1 (a kernel with CONFIG_FAULT_INJECTION, its failslab and
 * fail_page_alloc set to fail every allocation of a task marked
 * make-it-fail): ib_drain_qp() runs marked, as a ULP's teardown does under
 * memory pressure; it must still move the QPs to ERR and flush
 * (tools/tests/vm/fault-inject.sh).
 */

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

static char *ibdev_name_param = "axon0";
module_param_named(dev, ibdev_name_param, charp, 0444);
static int gid_index = 1;	/* the RoCE v2 link-local GID */
module_param(gid_index, int, 0444);
static bool starve_drain;
module_param(starve_drain, bool, 0444);

#define BUF_SIZE 4096

/* The checks each part makes (the plan). */
#define KV_SEND_CHECKS		6	/* kv_send() */
#define KV_SETUP_CHECKS		8	/* kv_run(), before the sends */
#define KV_EVENT_CHECKS		3	/* kv_run(), the armed CQ */
#define KV_OVERFLOW_CHECKS	4
#define KV_RESIZE_CHECKS	7
#define KV_BAD_RKEY_CHECKS	4
#define KV_REUSE_CHECKS		(4 + KV_SEND_CHECKS)
#define KV_DRAIN_CHECKS		4
#define KV_SRQ_MSGS		3
#define KV_SRQ_CHECKS		(7 + KV_SRQ_MSGS)
#define KV_UD_CHECKS		8
#define KV_FRMR_CHECKS		15
#define KV_UC_CHECKS		9
#define KV_TEARDOWN_CHECKS	2
#define KV_CHECKS	(KV_SETUP_CHECKS + 3 * KV_SEND_CHECKS + \
			 KV_EVENT_CHECKS + KV_OVERFLOW_CHECKS + \
			 KV_RESIZE_CHECKS + \
			 KV_BAD_RKEY_CHECKS + KV_REUSE_CHECKS + \
			 KV_DRAIN_CHECKS + KV_SRQ_CHECKS + KV_UD_CHECKS + \
			 KV_FRMR_CHECKS + KV_UC_CHECKS + KV_TEARDOWN_CHECKS)

struct kv {
	struct ib_device *dev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp[2];
	void *buf[2];
	u64 dma[2];
	struct completion event;
	struct completion cq_err;	/* IB_EVENT_CQ_ERR */
	struct completion qp_err;	/* IB_EVENT_QP_ACCESS_ERR on qp[1] */
	int checks, failures;
};

static void kv_check(struct kv *kv, bool ok, const char *what)
{
	pr_info("%s %d %s\n", ok ? "ok" : "not ok", ++kv->checks, what);
	if (!ok)
		kv->failures++;
}

static void kv_comp(struct ib_cq *cq, void *ctx)
{
	struct kv *kv = ctx;

	complete(&kv->event);
}

static void kv_cq_event(struct ib_event *event, void *ctx)
{
	struct kv *kv = ctx;

	if (event->event == IB_EVENT_CQ_ERR)
		complete(&kv->cq_err);
}

static void kv_qp_event(struct ib_event *event, void *ctx)
{
	struct kv *kv = ctx;

	if (event->event == IB_EVENT_QP_ACCESS_ERR &&
	    event->element.qp == kv->qp[1])
		complete(&kv->qp_err);
}

/*
 * RESET -> INIT -> RTR -> RTS toward @dest_qpn, granting @access; an RC
 * QP with RC's RDMA read depths, RNR timer, timeout and retries, a UC QP
 * without them.
 */
static int kv_connect_access(struct kv *kv, struct ib_qp *qp, u32 dest_qpn,
			     int access)
{
	bool rc = qp->qp_type == IB_QPT_RC;
	struct ib_qp_attr attr = {};
	union ib_gid gid;
	int err;

	err = rdma_query_gid(kv->dev, 1, gid_index, &gid);
	if (err)
		return err;
	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = access;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (err)
		return err;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = IB_MTU_1024;
	attr.dest_qp_num = dest_qpn;
	attr.rq_psn = 100;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;
	attr.ah_attr.type = rdma_ah_find_type(kv->dev, 1);
	rdma_ah_set_port_num(&attr.ah_attr, 1);
	rdma_ah_set_grh(&attr.ah_attr, &gid, 0, gid_index, 64, 0);
	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			   IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   (rc ? IB_QP_MAX_DEST_RD_ATOMIC |
				 IB_QP_MIN_RNR_TIMER : 0));
	if (err)
		return err;

	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 100;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 1;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN |
			    (rc ? IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
				  IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC : 0));
}

static int kv_connect(struct kv *kv, struct ib_qp *qp, u32 dest_qpn)
{
	return kv_connect_access(kv, qp, dest_qpn, IB_ACCESS_LOCAL_WRITE);
}

/* Poll until @n completions arrived (or 5 s); they go to @wc. */
static int kv_poll_cq(struct ib_cq *cq, struct ib_wc *wc, int n)
{
	unsigned long end = jiffies + 5 * HZ;
	int got = 0, ret;

	while (got < n && time_before(jiffies, end)) {
		ret = ib_poll_cq(cq, n - got, wc + got);
		if (ret < 0)
			return ret;
		got += ret;
		if (!ret)
			usleep_range(100, 200);
	}
	return got;
}

static int kv_poll(struct kv *kv, struct ib_wc *wc, int n)
{
	return kv_poll_cq(kv->cq, wc, n);
}

/* One message from qp[0] to qp[1]; @inline_send: IB_SEND_INLINE. */
static void kv_send(struct kv *kv, bool inline_send, const char *name)
{
	struct ib_sge rsge = {
		.addr = kv->dma[1], .length = BUF_SIZE,
		.lkey = kv->pd->local_dma_lkey,
	};
	struct ib_sge ssge = {
		.addr = inline_send ? (uintptr_t)kv->buf[0] : kv->dma[0],
		.length = inline_send ? 64 : BUF_SIZE,
		.lkey = kv->pd->local_dma_lkey,
	};
	struct ib_recv_wr rwr = { .wr_id = 2, .sg_list = &rsge, .num_sge = 1 };
	struct ib_send_wr swr = {
		.wr_id = 1, .sg_list = &ssge, .num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED |
			      (inline_send ? IB_SEND_INLINE : 0),
	};
	const struct ib_recv_wr *bad_rwr;
	const struct ib_send_wr *bad_swr;
	struct ib_wc wc[2] = {};
	char what[96];
	int i, n;

	memset(kv->buf[0], inline_send ? 0x5a : 0xa5, BUF_SIZE);
	memset(kv->buf[1], 0, BUF_SIZE);
	ib_dma_sync_single_for_device(kv->dev, kv->dma[0], BUF_SIZE,
				      DMA_BIDIRECTIONAL);
	ib_dma_sync_single_for_device(kv->dev, kv->dma[1], BUF_SIZE,
				      DMA_BIDIRECTIONAL);
	snprintf(what, sizeof(what), "%s: post_recv", name);
	kv_check(kv, !ib_post_recv(kv->qp[1], &rwr, &bad_rwr), what);
	snprintf(what, sizeof(what), "%s: post_send", name);
	kv_check(kv, !ib_post_send(kv->qp[0], &swr, &bad_swr), what);
	n = kv_poll(kv, wc, 2);
	snprintf(what, sizeof(what), "%s: 2 completions (%d)", name, n);
	kv_check(kv, n == 2, what);
	for (i = 0; i < 2; i++) {
		bool recv = wc[i].wr_id == 2;

		if (i >= n) {
			snprintf(what, sizeof(what), "%s: completion %d of 2",
				 name, i + 1);
			kv_check(kv, false, what);
			continue;
		}
		snprintf(what, sizeof(what),
			 "%s: %s completion: status %d opcode %d len %u",
			 name, recv ? "receive" : "send", wc[i].status,
			 wc[i].opcode, wc[i].byte_len);
		kv_check(kv, wc[i].status == IB_WC_SUCCESS &&
			 wc[i].qp == kv->qp[recv] &&
			 wc[i].opcode == (recv ? IB_WC_RECV : IB_WC_SEND) &&
			 (!recv || wc[i].byte_len == ssge.length), what);
	}
	ib_dma_sync_single_for_cpu(kv->dev, kv->dma[1], BUF_SIZE,
				   DMA_BIDIRECTIONAL);
	snprintf(what, sizeof(what), "%s: data arrived", name);
	kv_check(kv, !memcmp(kv->buf[0], kv->buf[1], ssge.length), what);
}

/* Two QPs of @init sending to @cq, connected to each other; the error. */
static int kv_pair_on(struct kv *kv, struct ib_qp_init_attr *init,
		      struct ib_cq *cq, struct ib_qp **qp)
{
	int i, err = 0;

	init->send_cq = cq;
	for (i = 0; i < 2 && !err; i++) {
		qp[i] = ib_create_qp(kv->pd, init);
		err = PTR_ERR_OR_ZERO(qp[i]);
	}
	for (i = 0; i < 2 && !err; i++)
		err = kv_connect(kv, qp[i], qp[!i]->qp_num);
	return err;
}

/* Destroys what kv_pair_on() made, and @cq. */
static void kv_pair_off(struct kv *kv, struct ib_qp_init_attr *init,
			struct ib_cq *cq, struct ib_qp **qp)
{
	int i;

	for (i = 0; i < 2; i++)
		if (!IS_ERR_OR_NULL(qp[i]))
			ib_destroy_qp(qp[i]);
	ib_destroy_cq(cq);
	init->send_cq = kv->cq;
}

/*
 * A send CQ of 2 entries and 4 signaled sends nobody polls: the device
 * must stop at the overflow and report it.
 */
static void kv_cq_overflow(struct kv *kv, struct ib_qp_init_attr *init)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 2 };
	/* the driver reads an RDMA WR's remote address: a whole ib_rdma_wr */
	struct ib_rdma_wr wr = {
		.wr = {
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
	};
	const struct ib_send_wr *bad_wr;
	struct ib_qp *qp[2] = {};
	struct ib_cq *cq;
	int i, err;

	cq = ib_create_cq(kv->dev, kv_comp, kv_cq_event, kv, &cq_attr);
	kv_check(kv, !IS_ERR(cq), "overflow: ib_create_cq of 2 entries");
	if (IS_ERR(cq))
		return;
	err = kv_pair_on(kv, init, cq, qp);
	kv_check(kv, !err, "overflow: a connected QP pair");
	/* zero-length writes need no memory */
	for (i = 0; i < 4 && !err; i++)
		err = ib_post_send(qp[0], &wr.wr, &bad_wr);
	kv_check(kv, !err, "overflow: 4 signaled writes posted");
	kv_check(kv, !err && wait_for_completion_timeout(&kv->cq_err, 5 * HZ),
		 "overflow: IB_EVENT_CQ_ERR");
	kv_pair_off(kv, init, cq, qp);
}

/* @n signaled zero-length writes from @qp, wr_id @first, @first + 1, ... */
static int kv_writes(struct ib_qp *qp, u64 first, int n)
{
	struct ib_rdma_wr wr = {
		.wr = {
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
	};
	const struct ib_send_wr *bad_wr;
	int i, err = 0;

	for (i = 0; i < n && !err; i++) {
		wr.wr.wr_id = first + i;
		err = ib_post_send(qp, &wr.wr, &bad_wr);
	}
	return err;
}

/* The @n completions of kv_writes(@first, @n), in order. */
static bool kv_writes_done(struct ib_cq *cq, u64 first, int n)
{
	struct ib_wc wc;
	int i;

	for (i = 0; i < n; i++)
		if (kv_poll_cq(cq, &wc, 1) != 1 || wc.status != IB_WC_SUCCESS ||
		    wc.wr_id != first + i)
			return false;
	return true;
}

/*
 * ib_resize_cq() while CQEs wait and writes are in flight: they complete
 * in order on the new ring, and so do more than the old depth afterwards.
 */
static void kv_cq_resize(struct kv *kv, struct ib_qp_init_attr *init)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 4 };
	struct ib_qp *qp[2] = {};
	struct ib_cq *cq;
	int i, err;

	cq = ib_create_cq(kv->dev, kv_comp, NULL, kv, &cq_attr);
	kv_check(kv, !IS_ERR(cq), "resize: ib_create_cq of 4 entries");
	if (IS_ERR(cq))
		return;
	err = kv_pair_on(kv, init, cq, qp);
	kv_check(kv, !err, "resize: a connected QP pair");
	kv_check(kv, !err && !kv_writes(qp[0], 0, 4) &&
		 kv_writes_done(cq, 0, 1), "resize: 4 writes, 1 polled");
	kv_check(kv, !err && !ib_resize_cq(cq, 64) && cq->cqe >= 64,
		 "resize: ib_resize_cq to 64 entries");
	kv_check(kv, !err && kv_writes_done(cq, 1, 3),
		 "resize: the other 3 complete in order");
	for (i = 0; i < 4 && !err; i++)
		err = kv_writes(qp[0], 4 + 12 * i, 12) ?:
		      !kv_writes_done(cq, 4 + 12 * i, 12);
	kv_check(kv, !err, "resize: 48 more writes complete in order");
	kv_check(kv, ib_resize_cq(cq, 0) == -EINVAL &&
		 ib_resize_cq(cq, INT_MAX) == -EINVAL,
		 "resize: 0 and INT_MAX entries refused with EINVAL");
	kv_pair_off(kv, init, cq, qp);
}

/* An RDMA write with a key the responder does not know. */
static void kv_bad_rkey(struct kv *kv)
{
	u64 payload = 0x1122334455667788;
	struct ib_sge sge = { .addr = (uintptr_t)&payload, .length = 8 };
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = 3, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED | IB_SEND_INLINE,
		},
		.remote_addr = kv->dma[1],
		.rkey = 0xdead00,
	};
	const struct ib_send_wr *bad_wr;
	struct ib_qp_init_attr qinit;
	struct ib_qp_attr qattr;
	struct ib_wc wc = {};

	kv_check(kv, !ib_post_send(kv->qp[0], &wr.wr, &bad_wr),
		 "bad rkey: post_send");
	kv_check(kv, kv_poll(kv, &wc, 1) == 1 && wc.wr_id == 3 &&
		 wc.status == IB_WC_REM_ACCESS_ERR,
		 "bad rkey: REM_ACCESS_ERR completion");
	kv_check(kv, wait_for_completion_timeout(&kv->qp_err, 5 * HZ),
		 "bad rkey: IB_EVENT_QP_ACCESS_ERR on the responder");
	kv_check(kv, !ib_query_qp(kv->qp[0], &qattr, IB_QP_STATE, &qinit) &&
		 qattr.qp_state == IB_QPS_ERR,
		 "bad rkey: query_qp says the requester is in ERR");
}

/* A connected pair through RESET, and connected again granting @access. */
static int kv_reset_pair(struct kv *kv, struct ib_qp **qp, int access)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RESET };
	int i, err = 0;

	for (i = 0; i < 2 && !err; i++)
		err = ib_modify_qp(qp[i], &attr, IB_QP_STATE);
	for (i = 0; i < 2 && !err; i++)
		err = kv_connect_access(kv, qp[i], qp[!i]->qp_num, access);
	return err;
}

static int kv_reset(struct kv *kv)
{
	return kv_reset_pair(kv, kv->qp, IB_ACCESS_LOCAL_WRITE);
}

/*
 * Completions left unpolled when the QPs are reset must not be reported
 * as those of the QPs' next life (same qpns), nor move their queues.
 */
static void kv_reset_reuse(struct kv *kv)
{
	struct ib_sge sge = {
		.addr = kv->dma[1], .length = BUF_SIZE,
		.lkey = kv->pd->local_dma_lkey,
	};
	struct ib_recv_wr rwr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1 };
	struct ib_send_wr swr = {
		.wr_id = 8, .opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	const struct ib_recv_wr *bad_rwr;
	const struct ib_send_wr *bad_swr;
	struct ib_wc wc;

	kv_check(kv, !kv_reset(kv), "ERR -> RESET -> RTS");
	kv_check(kv, !ib_post_recv(kv->qp[1], &rwr, &bad_rwr) &&
		 !ib_post_send(kv->qp[0], &swr, &bad_swr),
		 "reuse: a send and a receive nobody polls");
	msleep(500);
	kv_check(kv, !kv_reset(kv), "reuse: RESET -> RTS again");
	kv_send(kv, false, "send after RESET over unpolled CQEs");
	kv_check(kv, ib_poll_cq(kv->cq, 1, &wc) == 0,
		 "reuse: no stale completion left");
}

struct kv_drain {
	struct ib_cqe cqe;
	int flushed;
};

static void kv_drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct kv_drain *d = container_of(wc->wr_cqe, struct kv_drain, cqe);

	if (wc->status == IB_WC_WR_FLUSH_ERR)
		d->flushed++;
}

/* With starve_drain: from now on every allocation of this task fails. */
static void kv_starve(bool on)
{
#ifdef CONFIG_FAULT_INJECTION
	if (starve_drain)
		current->make_it_fail = on;
#endif
}

/*
 * ib_drain_qp() as a ULP calls it on a connected pair with a receive
 * posted: the core moves the QP to ERR, posts its marker WRs and waits
 * for their (flushed) completions.
 */
static void kv_drain(struct kv *kv, struct ib_qp_init_attr *init)
{
	struct kv_drain d = { .cqe.done = kv_drain_done };
	struct ib_recv_wr rwr = { .wr_cqe = &d.cqe };
	const struct ib_recv_wr *bad_rwr;
	struct ib_qp *qp[2] = {};
	struct ib_cq *cq;
	int i, err = 0;

	cq = ib_alloc_cq(kv->dev, NULL, 16, 0, IB_POLL_SOFTIRQ);
	kv_check(kv, !IS_ERR(cq), "drain: ib_alloc_cq");
	if (IS_ERR(cq))
		return;
	init->send_cq = cq;
	init->recv_cq = cq;
	for (i = 0; i < 2 && !err; i++) {
		qp[i] = ib_create_qp(kv->pd, init);
		err = PTR_ERR_OR_ZERO(qp[i]);
	}
	for (i = 0; i < 2 && !err; i++)
		err = kv_connect(kv, qp[i], qp[!i]->qp_num);
	kv_check(kv, !err, "drain: a connected QP pair");
	if (!err)
		err = ib_post_recv(qp[1], &rwr, &bad_rwr);
	kv_check(kv, !err, "drain: post_recv");
	if (!err) {
		kv_starve(true);
		ib_drain_qp(qp[1]);
		ib_drain_qp(qp[0]);
		kv_starve(false);
		kv_check(kv, d.flushed == 1, starve_drain ?
			 "drain: ib_drain_qp with every allocation failing returns, the receive flushed" :
			 "drain: ib_drain_qp returns, the receive flushed");
	}
	for (i = 0; i < 2; i++)
		if (!IS_ERR_OR_NULL(qp[i]))
			ib_destroy_qp(qp[i]);
	ib_free_cq(cq);
	init->send_cq = kv->cq;
	init->recv_cq = kv->cq;
}

/* SRQ WQEs of KV_SRQ_SLOT bytes at buf[1], one per slot */
#define KV_SRQ_DEPTH		4
#define KV_SRQ_SLOT		512

static int kv_post_srq(struct kv *kv, struct ib_srq *srq, int i)
{
	struct ib_sge sge = {
		.addr = kv->dma[1] + (i % 8) * KV_SRQ_SLOT,
		.length = KV_SRQ_SLOT, .lkey = kv->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = { .wr_id = 10 + i, .sg_list = &sge,
				 .num_sge = 1 };
	const struct ib_recv_wr *bad;

	return ib_post_srq_recv(srq, &wr, &bad);
}

/*
 * A kernel SRQ: a QP on it receives messages from a sender into the
 * SRQ's WQEs in order, whose slots are free again once completed.
 */
static void kv_srq(struct kv *kv, struct ib_qp_init_attr *init)
{
	struct ib_srq_init_attr sinit = {
		.attr = { .max_wr = KV_SRQ_DEPTH, .max_sge = 1 },
	};
	struct ib_qp_init_attr qinit = *init;
	struct ib_qp *sender = NULL, *receiver = NULL;
	struct ib_sge ssge = {
		.addr = kv->dma[0], .length = KV_SRQ_SLOT,
		.lkey = kv->pd->local_dma_lkey,
	};
	struct ib_send_wr swr = {
		.sg_list = &ssge, .num_sge = 1, .opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	const struct ib_send_wr *bad;
	struct ib_wc wc[2];
	struct ib_srq *srq;
	char what[96];
	int i, n, err = 0;

	srq = ib_create_srq(kv->pd, &sinit);
	kv_check(kv, !IS_ERR(srq), "ib_create_srq");
	if (IS_ERR(srq))
		return;
	sender = ib_create_qp(kv->pd, &qinit);
	qinit.srq = srq;
	receiver = ib_create_qp(kv->pd, &qinit);
	kv_check(kv, !IS_ERR(sender) && !IS_ERR(receiver),
		 "ib_create_qp: a sender, a QP on the SRQ");
	if (IS_ERR(sender) || IS_ERR(receiver))
		goto out;
	kv_check(kv, !kv_connect(kv, sender, receiver->qp_num) &&
		 !kv_connect(kv, receiver, sender->qp_num),
		 "both connected");
	for (i = 0; i < KV_SRQ_DEPTH && !err; i++)
		err = kv_post_srq(kv, srq, i);
	kv_check(kv, !err && kv_post_srq(kv, srq, i) == -ENOMEM,
		 "post_srq_recv: the depth, then ENOMEM");
	for (i = 0; i < KV_SRQ_MSGS; i++) {
		memset(kv->buf[0], 0x30 + i, KV_SRQ_SLOT);
		ib_dma_sync_single_for_device(kv->dev, kv->dma[0], BUF_SIZE,
					      DMA_BIDIRECTIONAL);
		swr.wr_id = i;
		n = ib_post_send(sender, &swr, &bad) ? 0 : kv_poll(kv, wc, 2);
		if (n == 2 && wc[0].qp != receiver)
			wc[0] = wc[1];
		ib_dma_sync_single_for_cpu(kv->dev, kv->dma[1], BUF_SIZE,
					   DMA_BIDIRECTIONAL);
		snprintf(what, sizeof(what),
			 "message %d: in the SRQ's WQE %d, with its data", i, i);
		kv_check(kv, n == 2 && wc[0].status == IB_WC_SUCCESS &&
			 wc[0].qp == receiver && wc[0].wr_id == 10 + i &&
			 wc[0].byte_len == KV_SRQ_SLOT &&
			 !memcmp(kv->buf[1] + i * KV_SRQ_SLOT, kv->buf[0],
				 KV_SRQ_SLOT), what);
	}
	kv_check(kv, !kv_post_srq(kv, srq, KV_SRQ_DEPTH),
		 "post_srq_recv again after completions");
out:
	kv_check(kv, (IS_ERR(receiver) || !ib_destroy_qp(receiver)) &&
		 (IS_ERR(sender) || !ib_destroy_qp(sender)),
		 "ib_destroy_qp both");
	kv_check(kv, !ib_destroy_srq_user(srq, NULL), "ib_destroy_srq");
}

#define KV_QKEY		0x11111111
#define KV_GRH_LEN	40
#define KV_UD_MSG	512

static int kv_ud_to_rts(struct ib_qp *qp)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT, .port_num = 1, .qkey = KV_QKEY,
	};
	int err;

	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTR;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (err)
		return err;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 1;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

/* An AH to the port's own GID gid_index; a kernel AH needs its MAC. */
static struct ib_ah *kv_own_ah(struct kv *kv)
{
	const struct ib_gid_attr *sgid = rdma_get_gid_attr(kv->dev, 1,
							   gid_index);
	struct rdma_ah_attr attr = {};
	union ib_gid dgid;
	struct ib_ah *ah;
	int err;

	if (IS_ERR(sgid))
		return ERR_CAST(sgid);
	dgid = sgid->gid;
	attr.type = rdma_ah_find_type(kv->dev, 1);
	rdma_ah_set_port_num(&attr, 1);
	rdma_ah_set_grh(&attr, &dgid, 0, gid_index, 64, 0);
	err = rdma_read_gid_l2_fields(sgid, NULL, attr.roce.dmac);
	ah = err ? ERR_PTR(err) :
		   rdma_create_ah(kv->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	rdma_put_gid_attr(sgid);
	return ah;
}

/*
 * A UD message of KV_UD_MSG bytes from @from to @to through @ah, with
 * immediate: the receive has the GRH, the sender's QPN and the data.
 */
static bool kv_ud_send(struct kv *kv, struct ib_qp *from, struct ib_qp *to,
		       struct ib_ah *ah, struct ib_wc *rwc)
{
	struct ib_sge rsge = {
		.addr = kv->dma[1], .length = BUF_SIZE,
		.lkey = kv->pd->local_dma_lkey,
	};
	struct ib_sge ssge = {
		.addr = kv->dma[0], .length = KV_UD_MSG,
		.lkey = kv->pd->local_dma_lkey,
	};
	struct ib_recv_wr rwr = { .wr_id = 21, .sg_list = &rsge, .num_sge = 1 };
	struct ib_ud_wr swr = {
		.wr = {
			.wr_id = 20, .sg_list = &ssge, .num_sge = 1,
			.opcode = IB_WR_SEND_WITH_IMM,
			.send_flags = IB_SEND_SIGNALED,
			.ex.imm_data = cpu_to_be32(0x5678),
		},
		.ah = ah, .remote_qpn = to->qp_num, .remote_qkey = KV_QKEY,
	};
	const struct ib_recv_wr *bad_rwr;
	const struct ib_send_wr *bad_swr;
	struct ib_wc wc[2] = {};
	int n;

	memset(kv->buf[0], 0x3c, BUF_SIZE);
	memset(kv->buf[1], 0, BUF_SIZE);
	ib_dma_sync_single_for_device(kv->dev, kv->dma[0], BUF_SIZE,
				      DMA_BIDIRECTIONAL);
	ib_dma_sync_single_for_device(kv->dev, kv->dma[1], BUF_SIZE,
				      DMA_BIDIRECTIONAL);
	n = ib_post_recv(to, &rwr, &bad_rwr) ||
	    ib_post_send(from, &swr.wr, &bad_swr) ? 0 : kv_poll(kv, wc, 2);
	if (n == 2 && wc[0].wr_id != 21)
		wc[0] = wc[1];
	ib_dma_sync_single_for_cpu(kv->dev, kv->dma[1], BUF_SIZE,
				   DMA_BIDIRECTIONAL);
	*rwc = wc[0];
	return n == 2 && wc[0].wr_id == 21 && wc[0].status == IB_WC_SUCCESS &&
	       wc[0].qp == to && wc[0].src_qp == from->qp_num &&
	       wc[0].byte_len == KV_GRH_LEN + KV_UD_MSG &&
	       wc[0].wc_flags & IB_WC_GRH && wc[0].wc_flags & IB_WC_WITH_IMM &&
	       be32_to_cpu(wc[0].ex.imm_data) == 0x5678 &&
	       !memcmp(kv->buf[1] + KV_GRH_LEN, kv->buf[0], KV_UD_MSG);
}

/*
 * Two kernel UD QPs: a datagram through an AH to the port's GID, its
 * network header type, a reply through ib_create_ah_from_wc(), an RDMA
 * WRITE refused at post.
 */
static void kv_ud(struct kv *kv, struct ib_qp_init_attr *init)
{
	struct ib_qp_init_attr qinit = *init;
	struct ib_ah *ah, *reply_ah = ERR_PTR(-EINVAL);
	struct ib_qp *qp[2] = {};
	struct ib_rdma_wr wr = { .wr.opcode = IB_WR_RDMA_WRITE };
	const struct ib_send_wr *bad = NULL;
	enum rdma_network_type net;
	struct ib_wc wc = {};
	char what[96];
	int i, err = 0;

	qinit.qp_type = IB_QPT_UD;
	for (i = 0; i < 2 && !err; i++) {
		qp[i] = ib_create_qp(kv->pd, &qinit);
		err = PTR_ERR_OR_ZERO(qp[i]);
	}
	kv_check(kv, !err, "ib_create_qp UD, twice");
	for (i = 0; i < 2 && !err; i++)
		err = kv_ud_to_rts(qp[i]);
	kv_check(kv, !err, "UD: RESET -> INIT (Q_Key) -> RTR -> RTS");
	ah = err ? ERR_PTR(err) : kv_own_ah(kv);
	kv_check(kv, !IS_ERR(ah), "rdma_create_ah to the port's GID");
	if (IS_ERR(ah))
		goto out;

	kv_check(kv, kv_ud_send(kv, qp[0], qp[1], ah, &wc),
		 "UD SEND_WITH_IMM: the GRH ahead of the data, src_qp, the immediate");
	net = ipv6_addr_v4mapped((struct in6_addr *)ah->sgid_attr->gid.raw) ?
	      RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
	snprintf(what, sizeof(what), "UD receive: network header type %d",
		 wc.network_hdr_type);
	kv_check(kv, wc.wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE &&
		 wc.network_hdr_type == net, what);
	reply_ah = ib_create_ah_from_wc(kv->pd, &wc, kv->buf[1], 1);
	snprintf(what, sizeof(what), "ib_create_ah_from_wc (%d)",
		 (int)PTR_ERR_OR_ZERO(reply_ah));
	kv_check(kv, !IS_ERR(reply_ah), what);
	kv_check(kv, !IS_ERR(reply_ah) &&
		 kv_ud_send(kv, qp[1], qp[0], reply_ah, &wc),
		 "a reply through that AH arrives");

	wr.wr.next = NULL;
	kv_check(kv, ib_post_send(qp[0], &wr.wr, &bad) == -EINVAL &&
		 bad == &wr.wr, "RDMA WRITE on a UD QP: EINVAL at post");
	if (!IS_ERR(reply_ah))
		rdma_destroy_ah(reply_ah, RDMA_DESTROY_AH_SLEEPABLE);
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
out:
	for (i = 0; i < 2; i++)
		if (!IS_ERR_OR_NULL(qp[i]))
			ib_destroy_qp(qp[i]);
}

/* One signaled work request on @qp, and its completion in @wc. */
static bool kv_post_wait(struct kv *kv, struct ib_qp *qp,
			 struct ib_send_wr *wr, struct ib_wc *wc)
{
	const struct ib_send_wr *bad;

	memset(wc, 0, sizeof(*wc));
	wr->send_flags |= IB_SEND_SIGNALED;
	return !ib_post_send(qp, wr, &bad) && kv_poll(kv, wc, 1) == 1 &&
	       wc->wr_id == wr->wr_id;
}

/*
 * IB_WR_REG_MR of @mr on @qp with @access, under the next key as a ULP
 * makes it (ib_inc_rkey(), ib_update_fast_reg_key()); true once it
 * completed with IB_WC_REG_MR.
 */
static bool kv_reg_mr(struct kv *kv, struct ib_qp *qp, struct ib_mr *mr,
		      int access)
{
	struct ib_reg_wr wr = {
		.wr = { .wr_id = 31, .opcode = IB_WR_REG_MR },
		.mr = mr,
		.access = access,
	};
	struct ib_wc wc;

	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	wr.key = mr->rkey;
	return kv_post_wait(kv, qp, &wr.wr, &wc) &&
	       wc.status == IB_WC_SUCCESS && wc.opcode == IB_WC_REG_MR;
}

/* The fast registration: B's MR over pages apart, A reaching it. */
#define KV_FR_PAGES	4
#define KV_FR_OFF	256	/* the MR starts this far into its first page */
#define KV_FR_TAIL	1024	/* bytes of its last page */
#define KV_FR_LEN	((KV_FR_PAGES - 1) * PAGE_SIZE - KV_FR_OFF + KV_FR_TAIL)
#define KV_FR_WRITE1	3000	/* where the first WRITE goes: pages 0 and 1 */
#define KV_FR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ | \
			 IB_ACCESS_REMOTE_WRITE)

struct kv_fr {
	struct ib_qp *qp[2];		/* A, the peer; B, the MR's owner */
	struct ib_mr *mr;
	struct page *pages[KV_FR_PAGES];
	struct scatterlist sg[KV_FR_PAGES];
	int nents;			/* mapped for DMA; 0: not */
};

/* KV_FR_PAGES zeroed pages, the MR's bytes in them, mapped for DMA. */
static int kv_fr_map(struct kv *kv, struct kv_fr *fr)
{
	unsigned int len, off;
	int i;

	sg_init_table(fr->sg, KV_FR_PAGES);
	for (i = 0; i < KV_FR_PAGES; i++) {
		fr->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!fr->pages[i])
			return -ENOMEM;
		off = i ? 0 : KV_FR_OFF;
		len = i < KV_FR_PAGES - 1 ? PAGE_SIZE - off : KV_FR_TAIL;
		sg_set_page(&fr->sg[i], fr->pages[i], len, off);
	}
	fr->nents = ib_dma_map_sg(kv->dev, fr->sg, KV_FR_PAGES,
				  DMA_BIDIRECTIONAL);
	return fr->nents ? 0 : -ENOMEM;
}

static void kv_fr_unmap(struct kv *kv, struct kv_fr *fr)
{
	int i;

	if (fr->nents)
		ib_dma_unmap_sg(kv->dev, fr->sg, KV_FR_PAGES,
				DMA_BIDIRECTIONAL);
	for (i = 0; i < KV_FR_PAGES; i++)
		if (fr->pages[i])
			__free_page(fr->pages[i]);
}

/* Whether the MR's @len bytes at @off are @src's (zeroes if NULL). */
static bool kv_fr_holds(struct kv *kv, struct kv_fr *fr, u32 off,
			const u8 *src, u32 len)
{
	u32 i, at;

	/* the core has no ib_dma_ wrapper for it: axon is no virt_dma device */
	dma_sync_sg_for_cpu(kv->dev->dma_device, fr->sg, KV_FR_PAGES,
			    DMA_BIDIRECTIONAL);
	for (i = 0; i < len; i++) {
		at = KV_FR_OFF + off + i;
		if (((u8 *)page_address(fr->pages[at / PAGE_SIZE]))[at % PAGE_SIZE] !=
		    (src ? src[i] : 0))
			return false;
	}
	return true;
}

/* A's RDMA @opcode of BUF_SIZE bytes at @local and the MR's @off via @rkey. */
static bool kv_fr_rdma(struct kv *kv, struct kv_fr *fr,
		       enum ib_wr_opcode opcode, u32 off, u32 rkey, u64 local,
		       struct ib_wc *wc)
{
	struct ib_sge sge = {
		.addr = local, .length = BUF_SIZE,
		.lkey = kv->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = 40 + opcode, .sg_list = &sge, .num_sge = 1,
			.opcode = opcode },
		.remote_addr = fr->mr->iova + off,
		.rkey = rkey,
	};

	return kv_post_wait(kv, fr->qp[0], &wr.wr, wc);
}

static void kv_fill(struct kv *kv, int i, u8 seed)
{
	u8 *p = kv->buf[i];
	int j;

	for (j = 0; j < BUF_SIZE; j++)
		p[j] = seed + j * 7;
	ib_dma_sync_single_for_device(kv->dev, kv->dma[i], BUF_SIZE,
				      DMA_BIDIRECTIONAL);
}

/*
 * A SEND_WITH_INV of @rkey from A to B, whose receive completes with
 * IB_WC_WITH_INVALIDATE and the key: the peer took it away.
 */
static bool kv_send_inv(struct kv *kv, struct kv_fr *fr, u32 rkey,
			struct ib_wc *rwc)
{
	struct ib_sge rsge = {
		.addr = kv->dma[1], .length = BUF_SIZE,
		.lkey = kv->pd->local_dma_lkey,
	};
	struct ib_sge ssge = {
		.addr = kv->dma[0], .length = 64,
		.lkey = kv->pd->local_dma_lkey,
	};
	struct ib_recv_wr rwr = { .wr_id = 32, .sg_list = &rsge, .num_sge = 1 };
	struct ib_send_wr swr = {
		.wr_id = 33, .sg_list = &ssge, .num_sge = 1,
		.opcode = IB_WR_SEND_WITH_INV, .send_flags = IB_SEND_SIGNALED,
		.ex.invalidate_rkey = rkey,
	};
	const struct ib_recv_wr *bad_rwr;
	const struct ib_send_wr *bad_swr;
	struct ib_wc wc[2] = {};
	int n, r;

	n = ib_post_recv(fr->qp[1], &rwr, &bad_rwr) ||
	    ib_post_send(fr->qp[0], &swr, &bad_swr) ? 0 : kv_poll(kv, wc, 2);
	r = wc[0].wr_id != 32;		/* the receive's */
	*rwc = wc[r];
	return n == 2 && wc[r].wr_id == 32 && wc[!r].wr_id == 33 &&
	       wc[!r].status == IB_WC_SUCCESS && wc[!r].opcode == IB_WC_SEND &&
	       wc[r].status == IB_WC_SUCCESS && wc[r].opcode == IB_WC_RECV &&
	       wc[r].byte_len == 64 &&
	       wc[r].wc_flags & IB_WC_WITH_INVALIDATE &&
	       wc[r].ex.invalidate_rkey == rkey;
}

/*
 * Fast registration as NVMe-oF and NFS/RDMA use it: B registers pages
 * apart with IB_WR_REG_MR, A WRITEs and READs through the key, A's
 * SEND_WITH_INV takes it away and the stale key is refused; registered
 * again under the next key, LOCAL_INV takes it away too.
 */
static void kv_frmr(struct kv *kv, struct ib_qp_init_attr *init)
{
	const struct ib_device_attr *attrs = &kv->dev->attrs;
	u32 max = attrs->max_fast_reg_page_list_len;
	struct ib_send_wr inv = { .wr_id = 34, .opcode = IB_WR_LOCAL_INV };
	struct kv_fr fr = {};
	struct ib_mr *mr;
	struct ib_wc wc;
	char what[160];
	bool ok;
	int i, n, err = 0;

	snprintf(what, sizeof(what),
		 "fast reg: IB_DEVICE_MEM_MGT_EXTENSIONS, max_fast_reg_page_list_len %u",
		 max);
	kv_check(kv, attrs->device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS &&
		 max >= KV_FR_PAGES, what);
	mr = ib_alloc_mr(kv->pd, IB_MR_TYPE_MEM_REG, max + 1);
	ok = PTR_ERR_OR_ZERO(mr) == -EINVAL;
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
	mr = ib_alloc_mr(kv->pd, IB_MR_TYPE_SG_GAPS, KV_FR_PAGES);
	ok = ok && PTR_ERR_OR_ZERO(mr) == -EOPNOTSUPP;
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
	kv_check(kv, ok,
		 "ib_alloc_mr: beyond max_fast_reg_page_list_len EINVAL, SG_GAPS EOPNOTSUPP");
	fr.mr = ib_alloc_mr(kv->pd, IB_MR_TYPE_MEM_REG, KV_FR_PAGES);
	kv_check(kv, !IS_ERR(fr.mr), "ib_alloc_mr(IB_MR_TYPE_MEM_REG, 4 pages)");
	if (IS_ERR(fr.mr))
		return;

	err = kv_fr_map(kv, &fr);
	n = err ?: ib_map_mr_sg(fr.mr, fr.sg, fr.nents, NULL, PAGE_SIZE);
	snprintf(what, sizeof(what),
		 "ib_map_mr_sg of 4 pages apart: %d of %d, %llu bytes, 0x%llx into a page",
		 n, fr.nents, fr.mr->length, fr.mr->iova & ~PAGE_MASK);
	kv_check(kv, !err && n == fr.nents && fr.mr->length == KV_FR_LEN &&
		 (fr.mr->iova & ~PAGE_MASK) == KV_FR_OFF, what);
	if (err || n != fr.nents)
		goto out;

	for (i = 0; i < 2 && !err; i++) {
		fr.qp[i] = ib_create_qp(kv->pd, init);
		err = PTR_ERR_OR_ZERO(fr.qp[i]);
	}
	for (i = 0; i < 2 && !err; i++)
		err = kv_connect_access(kv, fr.qp[i], fr.qp[!i]->qp_num,
					KV_FR_ACCESS);
	kv_check(kv, !err,
		 "fast reg: a connected RC pair, remote read and write granted");
	if (err)
		goto out;

	kv_check(kv, kv_reg_mr(kv, fr.qp[1], fr.mr, KV_FR_ACCESS),
		 "B: IB_WR_REG_MR under ib_inc_rkey(): IB_WC_REG_MR");
	kv_fill(kv, 0, 0x11);
	ok = kv_fr_rdma(kv, &fr, IB_WR_RDMA_WRITE, KV_FR_WRITE1, fr.mr->rkey,
			kv->dma[0], &wc) && wc.status == IB_WC_SUCCESS &&
	     kv_fr_rdma(kv, &fr, IB_WR_RDMA_WRITE, KV_FR_LEN - BUF_SIZE,
			fr.mr->rkey, kv->dma[0], &wc) &&
	     wc.status == IB_WC_SUCCESS;
	kv_check(kv, ok && kv_fr_holds(kv, &fr, KV_FR_WRITE1, kv->buf[0],
				       BUF_SIZE) &&
		 kv_fr_holds(kv, &fr, KV_FR_LEN - BUF_SIZE, kv->buf[0],
			     BUF_SIZE),
		 "A: RDMA WRITEs through the key across pages 0-1, and 2-3 to its last byte, in B's pages");
	memset(kv->buf[1], 0, BUF_SIZE);
	ib_dma_sync_single_for_device(kv->dev, kv->dma[1], BUF_SIZE,
				      DMA_BIDIRECTIONAL);
	ok = kv_fr_rdma(kv, &fr, IB_WR_RDMA_READ, KV_FR_WRITE1, fr.mr->rkey,
			kv->dma[1], &wc) && wc.status == IB_WC_SUCCESS;
	ib_dma_sync_single_for_cpu(kv->dev, kv->dma[1], BUF_SIZE,
				   DMA_BIDIRECTIONAL);
	kv_check(kv, ok && !memcmp(kv->buf[1], kv->buf[0], BUF_SIZE),
		 "A: RDMA READ through the key, the data back");

	ok = kv_send_inv(kv, &fr, fr.mr->rkey, &wc);
	snprintf(what, sizeof(what),
		 "A: SEND_WITH_INV of the key: B's receive has IB_WC_WITH_INVALIDATE (wc_flags 0x%x) and 0x%x",
		 wc.wc_flags, wc.ex.invalidate_rkey);
	kv_check(kv, ok, what);
	ok = kv_fr_rdma(kv, &fr, IB_WR_RDMA_WRITE, 0, fr.mr->rkey, kv->dma[0],
			&wc);
	snprintf(what, sizeof(what),
		 "A: a WRITE through the invalidated key: status %d, IB_WC_REM_ACCESS_ERR, B's pages untouched",
		 wc.status);
	kv_check(kv, ok && wc.status == IB_WC_REM_ACCESS_ERR &&
		 kv_fr_holds(kv, &fr, 0, NULL, KV_FR_WRITE1), what);

	kv_check(kv, !kv_reset_pair(kv, fr.qp, KV_FR_ACCESS),
		 "fast reg: both QPs ERR -> RESET -> RTS");
	kv_fill(kv, 0, 0x5d);
	n = ib_map_mr_sg(fr.mr, fr.sg, fr.nents, NULL, PAGE_SIZE);
	ok = n == fr.nents && kv_reg_mr(kv, fr.qp[1], fr.mr, KV_FR_ACCESS) &&
	     kv_fr_rdma(kv, &fr, IB_WR_RDMA_WRITE, 0, fr.mr->rkey, kv->dma[0],
			&wc) && wc.status == IB_WC_SUCCESS;
	kv_check(kv, ok && kv_fr_holds(kv, &fr, 0, kv->buf[0], BUF_SIZE),
		 "mapped and registered again under the next key: A's WRITE through it lands");
	inv.ex.invalidate_rkey = fr.mr->rkey;
	kv_check(kv, kv_post_wait(kv, fr.qp[1], &inv, &wc) &&
		 wc.status == IB_WC_SUCCESS && wc.opcode == IB_WC_LOCAL_INV,
		 "B: IB_WR_LOCAL_INV of the key: IB_WC_LOCAL_INV");
	ok = kv_fr_rdma(kv, &fr, IB_WR_RDMA_WRITE, 0, fr.mr->rkey, kv->dma[0],
			&wc);
	kv_check(kv, ok && wc.status == IB_WC_REM_ACCESS_ERR,
		 "A: a WRITE after LOCAL_INV: IB_WC_REM_ACCESS_ERR");
out:
	for (i = 0; i < 2; i++)
		if (!IS_ERR_OR_NULL(fr.qp[i]))
			ib_destroy_qp(fr.qp[i]);
	kv_check(kv, !ib_dereg_mr(fr.mr), "ib_dereg_mr of the fast-registration MR");
	kv_fr_unmap(kv, &fr);
}

/*
 * Two kernel UC QPs: what they take of modify_qp and report in query_qp,
 * a SEND_WITH_IMM, a WRITE_WITH_IMM into a fast-registration MR the
 * receiver registered (REG_MR and LOCAL_INV are local: UC QPs have them),
 * READ and SEND_WITH_INV refused at post.
 */
static void kv_uc(struct kv *kv, struct ib_qp_init_attr *init)
{
	struct ib_qp_init_attr qinit = *init, qa_init;
	struct ib_sge ssge = {
		.addr = kv->dma[0], .length = BUF_SIZE,
		.lkey = kv->pd->local_dma_lkey,
	};
	struct ib_sge rsge = ssge;
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = 50, .sg_list = &ssge, .num_sge = 1,
			.opcode = IB_WR_SEND_WITH_IMM,
			.send_flags = IB_SEND_SIGNALED,
			.ex.imm_data = cpu_to_be32(0x9abc) },
	};
	struct ib_recv_wr rwr = { .wr_id = 51, .sg_list = &rsge, .num_sge = 1 };
	struct ib_send_wr inv = { .wr_id = 52, .opcode = IB_WR_LOCAL_INV };
	const struct ib_send_wr *bad = NULL;
	const struct ib_recv_wr *bad_rwr;
	struct ib_mr *mr = ERR_PTR(-EINVAL);
	struct ib_qp *qp[2] = {};
	struct ib_qp_attr qattr;
	struct scatterlist sg;
	struct ib_wc wc[2];
	int i, r, n, err = 0;

	qinit.qp_type = IB_QPT_UC;
	for (i = 0; i < 2 && !err; i++) {
		qp[i] = ib_create_qp(kv->pd, &qinit);
		err = PTR_ERR_OR_ZERO(qp[i]);
	}
	kv_check(kv, !err, "ib_create_qp UC, twice");
	for (i = 0; i < 2 && !err; i++)
		err = kv_connect_access(kv, qp[i], qp[!i]->qp_num,
					IB_ACCESS_REMOTE_WRITE);
	kv_check(kv, !err, "UC: RESET -> INIT -> RTR -> RTS, without RC's attributes");
	if (err)
		goto out;
	err = ib_query_qp(qp[1], &qattr, IB_QP_STATE | IB_QP_ACCESS_FLAGS |
			  IB_QP_DEST_QPN | IB_QP_TIMEOUT, &qa_init);
	kv_check(kv, !err && qattr.qp_state == IB_QPS_RTS &&
		 qa_init.qp_type == IB_QPT_UC &&
		 qattr.qp_access_flags == IB_ACCESS_REMOTE_WRITE &&
		 qattr.dest_qp_num == qp[0]->qp_num && !qattr.timeout,
		 "UC query_qp: RTS, REMOTE_WRITE, the peer's QPN, no timeout");

	/* a SEND_WITH_IMM of two packets */
	kv_fill(kv, 0, 0x21);
	rsge.addr = kv->dma[1];
	memset(kv->buf[1], 0, BUF_SIZE);
	ib_dma_sync_single_for_device(kv->dev, kv->dma[1], BUF_SIZE,
				      DMA_BIDIRECTIONAL);
	ssge.length = 2000;
	n = ib_post_recv(qp[1], &rwr, &bad_rwr) ||
	    ib_post_send(qp[0], &wr.wr, &bad) ? 0 : kv_poll(kv, wc, 2);
	r = wc[0].wr_id != 51;
	ib_dma_sync_single_for_cpu(kv->dev, kv->dma[1], BUF_SIZE,
				   DMA_BIDIRECTIONAL);
	kv_check(kv, n == 2 && wc[r].wr_id == 51 &&
		 wc[r].status == IB_WC_SUCCESS && wc[r].opcode == IB_WC_RECV &&
		 wc[r].byte_len == 2000 && wc[r].wc_flags & IB_WC_WITH_IMM &&
		 be32_to_cpu(wc[r].ex.imm_data) == 0x9abc &&
		 wc[!r].status == IB_WC_SUCCESS &&
		 !memcmp(kv->buf[1], kv->buf[0], 2000),
		 "UC SEND_WITH_IMM: received whole, the immediate, the data");

	/* the receiver registers buf[1] and takes a WRITE_WITH_IMM in it */
	mr = ib_alloc_mr(kv->pd, IB_MR_TYPE_MEM_REG, 2);
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = kv->dma[1];
	sg_dma_len(&sg) = BUF_SIZE;
	kv_check(kv, !IS_ERR(mr) &&
		 ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE) == 1 &&
		 kv_reg_mr(kv, qp[1], mr, IB_ACCESS_LOCAL_WRITE |
			   IB_ACCESS_REMOTE_WRITE),
		 "UC: IB_WR_REG_MR (a local operation) completes");
	if (IS_ERR(mr))
		goto out;
	kv_fill(kv, 0, 0x42);
	ssge.length = BUF_SIZE;
	rwr.num_sge = 0;
	wr.wr.wr_id = 53;
	wr.wr.opcode = IB_WR_RDMA_WRITE_WITH_IMM;
	wr.remote_addr = mr->iova;
	wr.rkey = mr->rkey;
	n = ib_post_recv(qp[1], &rwr, &bad_rwr) ||
	    ib_post_send(qp[0], &wr.wr, &bad) ? 0 : kv_poll(kv, wc, 2);
	r = wc[0].wr_id != 51;
	ib_dma_sync_single_for_cpu(kv->dev, kv->dma[1], BUF_SIZE,
				   DMA_BIDIRECTIONAL);
	kv_check(kv, n == 2 && wc[r].wr_id == 51 &&
		 wc[r].status == IB_WC_SUCCESS &&
		 wc[r].opcode == IB_WC_RECV_RDMA_WITH_IMM &&
		 wc[r].byte_len == BUF_SIZE && wc[!r].status == IB_WC_SUCCESS &&
		 !memcmp(kv->buf[1], kv->buf[0], BUF_SIZE),
		 "UC WRITE_WITH_IMM through its key: IB_WC_RECV_RDMA_WITH_IMM, the data in place");
	inv.ex.invalidate_rkey = mr->rkey;
	kv_check(kv, kv_post_wait(kv, qp[1], &inv, &wc[0]) &&
		 wc[0].status == IB_WC_SUCCESS &&
		 wc[0].opcode == IB_WC_LOCAL_INV,
		 "UC: IB_WR_LOCAL_INV completes");

	wr.wr.opcode = IB_WR_RDMA_READ;
	bad = NULL;
	kv_check(kv, ib_post_send(qp[0], &wr.wr, &bad) == -EINVAL &&
		 bad == &wr.wr, "RDMA READ on a UC QP: EINVAL at post");
	wr.wr.opcode = IB_WR_SEND_WITH_INV;
	wr.wr.ex.invalidate_rkey = mr->rkey;
	bad = NULL;
	kv_check(kv, ib_post_send(qp[0], &wr.wr, &bad) == -EINVAL &&
		 bad == &wr.wr, "SEND_WITH_INV on a UC QP: EINVAL at post");
out:
	for (i = 0; i < 2; i++)
		if (!IS_ERR_OR_NULL(qp[i]))
			ib_destroy_qp(qp[i]);
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
}

static void kv_run(struct kv *kv)
{
	struct ib_cq_init_attr cq_attr = { .cqe = 64 };
	struct ib_qp_init_attr init = {
		.event_handler = kv_qp_event,
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 2, .max_recv_sge = 2,
			 .max_inline_data = 64 },
	};
	struct ib_qp_init_attr qinit;
	struct ib_qp_attr qattr;
	struct ib_wc wc;
	int i, err;

	kv->pd = ib_alloc_pd(kv->dev, 0);
	kv_check(kv, !IS_ERR(kv->pd), "ib_alloc_pd (local_dma_lkey)");
	if (IS_ERR(kv->pd))
		return;
	kv->cq = ib_create_cq(kv->dev, kv_comp, NULL, kv, &cq_attr);
	kv_check(kv, !IS_ERR(kv->cq), "ib_create_cq");
	if (IS_ERR(kv->cq))
		goto out_pd;
	init.qp_context = kv;
	init.send_cq = kv->cq;
	init.recv_cq = kv->cq;
	for (i = 0; i < 2; i++) {
		kv->qp[i] = ib_create_qp(kv->pd, &init);
		kv_check(kv, !IS_ERR(kv->qp[i]), "ib_create_qp RC");
		if (IS_ERR(kv->qp[i]))
			goto out_qps;
	}
	kv_check(kv, init.cap.max_send_wr >= 16 && init.cap.max_inline_data >= 64,
		 "create_qp reports the caps");
	for (i = 0; i < 2; i++) {
		err = kv_connect(kv, kv->qp[i], kv->qp[!i]->qp_num);
		kv_check(kv, !err, "modify_qp RESET -> INIT -> RTR -> RTS");
		if (err)
			goto out_qps;
	}
	err = ib_query_qp(kv->qp[0], &qattr, IB_QP_STATE, &qinit);
	kv_check(kv, !err && qattr.qp_state == IB_QPS_RTS, "query_qp: RTS");

	for (i = 0; i < 2; i++) {
		kv->buf[i] = kzalloc(BUF_SIZE, GFP_KERNEL);
		kv->dma[i] = kv->buf[i] ?
			     ib_dma_map_single(kv->dev, kv->buf[i], BUF_SIZE,
					       DMA_BIDIRECTIONAL) : 0;
		if (!kv->buf[i] || ib_dma_mapping_error(kv->dev, kv->dma[i])) {
			kv_check(kv, false, "buffers");
			goto out_bufs;
		}
	}

	kv_send(kv, false, "send 4096 B");
	kv_send(kv, true, "send 64 B inline");

	/* an armed CQ calls its completion handler */
	reinit_completion(&kv->event);
	kv_check(kv, ib_req_notify_cq(kv->cq, IB_CQ_NEXT_COMP |
				      IB_CQ_REPORT_MISSED_EVENTS) == 0,
		 "req_notify_cq on an empty CQ: nothing missed");
	kv_send(kv, false, "send after arming");
	kv_check(kv, wait_for_completion_timeout(&kv->event, 5 * HZ),
		 "completion handler called");
	kv_check(kv, ib_poll_cq(kv->cq, 1, &wc) == 0, "CQ drained");

	kv_cq_overflow(kv, &init);
	kv_cq_resize(kv, &init);
	kv_bad_rkey(kv);
	kv_reset_reuse(kv);
	kv_drain(kv, &init);
	kv_srq(kv, &init);
	kv_ud(kv, &init);
	kv_frmr(kv, &init);
	kv_uc(kv, &init);

out_bufs:
	for (i = 0; i < 2; i++) {
		if (kv->buf[i] && !ib_dma_mapping_error(kv->dev, kv->dma[i]))
			ib_dma_unmap_single(kv->dev, kv->dma[i], BUF_SIZE,
					    DMA_BIDIRECTIONAL);
		kfree(kv->buf[i]);
	}
out_qps:
	for (i = 0; i < 2; i++)
		if (!IS_ERR_OR_NULL(kv->qp[i]))
			kv_check(kv, !ib_destroy_qp(kv->qp[i]), "ib_destroy_qp");
	ib_destroy_cq(kv->cq);
out_pd:
	ib_dealloc_pd(kv->pd);
}

static int __init kv_init(void)
{
	struct kv *kv = kzalloc(sizeof(*kv), GFP_KERNEL);
	int failures;

	if (!kv)
		return -ENOMEM;
	init_completion(&kv->event);
	init_completion(&kv->cq_err);
	init_completion(&kv->qp_err);
	kv->dev = ib_device_get_by_name(ibdev_name_param, RDMA_DRIVER_UNKNOWN);
	if (!kv->dev) {
		pr_info("Bail out! no RDMA device %s\n", ibdev_name_param);
		kfree(kv);
		return -ENODEV;
	}
	pr_info("1..%d\n", KV_CHECKS);
	kv_run(kv);
	ib_device_put(kv->dev);
	failures = kv->failures;
	kfree(kv);
	pr_info("# %d failed\n", failures);
	return failures ? -EIO : 0;
}

static void __exit kv_exit(void)
{
}

module_init(kv_init);
module_exit(kv_exit);
MODULE_DESCRIPTION("axon kernel verbs test");
MODULE_LICENSE("Dual BSD/GPL");
