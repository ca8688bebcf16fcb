// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon-kverbs-test: the kernel verbs of axon0, as a kernel consumer uses
 * them: a PD with its local_dma_lkey, a CQ with a completion handler, two
 * RC QPs connected to each other on the device, SEND/RECV with an SGE and
 * inline, completion events, query_qp, a CQ overflow reported as
 * IB_EVENT_CQ_ERR, a bad rkey reported as IB_EVENT_QP_ACCESS_ERR and an
 * error completion, reuse after RESET over completions nobody polled,
 * ib_drain_qp(), a kernel SRQ shared by a QP, two UD QPs with an address
 * handle (a datagram and its GRH, a reply through ib_create_ah_from_wc()),
 * teardown. Prints TAP to
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
#include <linux/module.h>
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
#define KV_BAD_RKEY_CHECKS	4
#define KV_REUSE_CHECKS		(4 + KV_SEND_CHECKS)
#define KV_DRAIN_CHECKS		4
#define KV_SRQ_MSGS		3
#define KV_SRQ_CHECKS		(7 + KV_SRQ_MSGS)
#define KV_UD_CHECKS		8
#define KV_TEARDOWN_CHECKS	2
#define KV_CHECKS	(KV_SETUP_CHECKS + 3 * KV_SEND_CHECKS + \
			 KV_EVENT_CHECKS + KV_OVERFLOW_CHECKS + \
			 KV_BAD_RKEY_CHECKS + KV_REUSE_CHECKS + \
			 KV_DRAIN_CHECKS + KV_SRQ_CHECKS + KV_UD_CHECKS + \
			 KV_TEARDOWN_CHECKS)

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

static int kv_connect(struct kv *kv, struct ib_qp *qp, u32 dest_qpn)
{
	struct ib_qp_attr attr = {};
	union ib_gid gid;
	int err;

	err = rdma_query_gid(kv->dev, 1, gid_index, &gid);
	if (err)
		return err;
	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = IB_ACCESS_LOCAL_WRITE;
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
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
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
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			    IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
}

/* Poll until @n completions arrived (or 5 s); they go to @wc. */
static int kv_poll(struct kv *kv, struct ib_wc *wc, int n)
{
	unsigned long end = jiffies + 5 * HZ;
	int got = 0, ret;

	while (got < n && time_before(jiffies, end)) {
		ret = ib_poll_cq(kv->cq, n - got, wc + got);
		if (ret < 0)
			return ret;
		got += ret;
		if (!ret)
			usleep_range(100, 200);
	}
	return got;
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
	int i, err = 0;

	cq = ib_create_cq(kv->dev, kv_comp, kv_cq_event, kv, &cq_attr);
	kv_check(kv, !IS_ERR(cq), "overflow: ib_create_cq of 2 entries");
	if (IS_ERR(cq))
		return;
	init->send_cq = cq;
	for (i = 0; i < 2 && !err; i++) {
		qp[i] = ib_create_qp(kv->pd, init);
		err = PTR_ERR_OR_ZERO(qp[i]);
	}
	for (i = 0; i < 2 && !err; i++)
		err = kv_connect(kv, qp[i], qp[!i]->qp_num);
	kv_check(kv, !err, "overflow: a connected QP pair");
	/* zero-length writes need no memory */
	for (i = 0; i < 4 && !err; i++)
		err = ib_post_send(qp[0], &wr.wr, &bad_wr);
	kv_check(kv, !err, "overflow: 4 signaled writes posted");
	kv_check(kv, !err && wait_for_completion_timeout(&kv->cq_err, 5 * HZ),
		 "overflow: IB_EVENT_CQ_ERR");
	for (i = 0; i < 2; i++)
		if (!IS_ERR_OR_NULL(qp[i]))
			ib_destroy_qp(qp[i]);
	ib_destroy_cq(cq);
	init->send_cq = kv->cq;
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

static int kv_reset(struct kv *kv)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RESET };
	int i, err = 0;

	for (i = 0; i < 2 && !err; i++)
		err = ib_modify_qp(kv->qp[i], &attr, IB_QP_STATE);
	for (i = 0; i < 2 && !err; i++)
		err = kv_connect(kv, kv->qp[i], kv->qp[!i]->qp_num);
	return err;
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
	kv_check(kv, !IS_ERR(reply_ah), "ib_create_ah_from_wc");
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
	kv_bad_rkey(kv);
	kv_reset_reuse(kv);
	kv_drain(kv, &init);
	kv_srq(kv, &init);
	kv_ud(kv, &init);

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
