// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon provider: shared receive queues. The kernel allocates the ring and
 * maps it into the process; ibv_post_srq_recv() (io.c) writes WQEs there
 * and rings AXON_DB_SRQ on the context's doorbell page, with no system
 * call. Basic and XRC SRQs (ibv_create_srq_ex()), rings alike: an XRC
 * SRQ serves its XRC domain's target QPs, named by the XRC initiators'
 * WQEs, and its receives complete on its own CQ. Tag matching SRQs are
 * EOPNOTSUPP.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "axon.h"

/* The kernel's answer is used to index memory: check it first. */
static bool axon_srq_resp_ok(const struct axon_create_srq_resp *resp)
{
	return resp->srqn && resp->srqn <= AXON_MAX_SRQN &&
	       axon_wq_resp_ok(resp->depth, resp->wqe_shift,
			       AXON_RQ_MIN_WQE_SHIFT, resp->srq_size);
}

/*
 * Create the SRQ of attr (a basic one with a PD, or an XRC one with a PD,
 * an XRC domain and a CQ, already checked) in the kernel; the response's
 * udata in *drv. Through the legacy command for a basic SRQ of
 * ibv_create_srq(), which sets the common fields of the ibv_srq after we
 * return; through the extended one otherwise.
 */
static int axon_srq_cmd_create(struct axon_srq *srq, struct ibv_pd *ibpd,
			       struct ibv_srq_init_attr_ex *attr, bool ex,
			       struct axon_create_srq_cmd_resp *resp)
{
	struct ibv_srq_init_attr basic = {
		.srq_context = attr->srq_context,
		.attr = attr->attr,
	};
	struct ibv_create_xsrq xcmd = {};
	struct ibv_create_srq cmd = {};
	int err;

	if (ex)
		return ibv_cmd_create_srq_ex(ibpd->context, &srq->vsrq, attr,
					     &xcmd, sizeof(xcmd),
					     &resp->ibv_resp, sizeof(*resp));

	err = ibv_cmd_create_srq(ibpd, &srq->vsrq.srq, &basic, &cmd,
				 sizeof(cmd), &resp->ibv_resp, sizeof(*resp));
	attr->attr = basic.attr;
	return err;
}

/* An XRC SRQ's receives complete on its CQ: the CQ learns of it. */
static void axon_xrc_srq_link(struct axon_srq *srq)
{
	struct axon_cq *cq = srq->xrc_cq;

	pthread_spin_lock(&cq->lock);
	srq->xrc_next = cq->xrc_srqs;
	cq->xrc_srqs = srq;
	pthread_spin_unlock(&cq->lock);
}

static void axon_xrc_srq_unlink(struct axon_srq *srq)
{
	struct axon_cq *cq = srq->xrc_cq;
	struct axon_srq **p;

	pthread_spin_lock(&cq->lock);
	for (p = &cq->xrc_srqs; *p; p = &(*p)->xrc_next) {
		if (*p == srq) {
			*p = srq->xrc_next;
			break;
		}
	}
	pthread_spin_unlock(&cq->lock);
}

/* attr is checked; ex: from ibv_create_srq_ex(), see axon_srq_cmd_create() */
static struct axon_srq *axon_srq_alloc(struct ibv_pd *ibpd,
				       struct ibv_srq_init_attr_ex *attr,
				       bool ex)
{
	struct axon_context *ctx = to_axon_ctx(ibpd->context);
	struct axon_create_srq_cmd_resp resp = {};
	struct axon_create_srq_resp *drv = &resp.drv_payload;
	bool xrc = attr->srq_type == IBV_SRQT_XRC;
	struct axon_srq *srq;
	int err;

	if (attr->attr.max_sge > ctx->max_sge) {
		verbs_debug(&ctx->ibvctx, "SRQ capabilities beyond limits\n");
		errno = EINVAL;
		return NULL;
	}
	srq = axon_queue_alloc(ctx, sizeof(*srq));
	if (!srq)
		return NULL;

	err = axon_srq_cmd_create(srq, ibpd, attr, ex, &resp);
	if (err) {
		verbs_debug(&ctx->ibvctx, "create_srq failed: %d\n", err);
		goto err_free;
	}
	/*
	 * An XRC initiator names the SRQ by the number the core reported
	 * (ibv_get_srq_num()); the device knows it by the driver's.
	 */
	if (xrc && srq->vsrq.srq_num != drv->srqn) {
		verbs_err(&ctx->ibvctx,
			  "XRC SRQ number %u in the core response, %u in the driver's\n",
			  srq->vsrq.srq_num, drv->srqn);
		err = EPROTO;
		goto err_destroy;
	}
	if (!axon_srq_resp_ok(drv)) {
		verbs_err(&ctx->ibvctx,
			  "bad create_srq response: srqn %u, %u x 2^%u\n",
			  drv->srqn, drv->depth, drv->wqe_shift);
		err = EPROTO;
		goto err_destroy;
	}
	srq->size = drv->srq_size;
	srq->buf = axon_mmap(ibpd->context, drv->srq_mmap_key, srq->size);
	if (srq->buf == MAP_FAILED) {
		err = errno;
		goto err_destroy;
	}
	srq->srqn = drv->srqn;
	srq->db = axon_db(ctx, AXON_DB_OFFSET(AXON_DB_SRQ, srq->srqn));
	axon_wq_init(&srq->wq, srq->buf, drv->depth, drv->wqe_shift,
		     AXON_RECV_HDR_SIZE, ctx->max_sge);
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	if (xrc) {
		srq->xrc_cq = to_axon_cq(attr->cq);
		axon_xrc_srq_link(srq);
	}
	attr->attr.max_wr = srq->wq.depth;
	attr->attr.max_sge = srq->wq.max_sge;
	return srq;

err_destroy:
	ibv_cmd_destroy_srq(&srq->vsrq.srq);
err_free:
	free(srq);
	errno = err;
	return NULL;
}

struct ibv_srq *axon_create_srq(struct ibv_pd *ibpd,
				struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex attr_ex = {
		.srq_context = attr->srq_context,
		.attr = attr->attr,
		.comp_mask = IBV_SRQ_INIT_ATTR_PD,
		.srq_type = IBV_SRQT_BASIC,
		.pd = ibpd,
	};
	struct axon_srq *srq;

	srq = axon_srq_alloc(ibpd, &attr_ex, false);
	if (!srq)
		return NULL;
	attr->attr = attr_ex.attr;
	return &srq->vsrq.srq;
}

/*
 * The CQ of an XRC SRQ must be ours: its poller finds the SRQ through it.
 * The kernel checks the rest (the handles, the CQ's and PD's context).
 */
static int axon_check_srq_attr(struct axon_context *ctx,
			       const struct ibv_srq_init_attr_ex *attr)
{
	enum ibv_srq_type type = attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE ?
				 attr->srq_type : IBV_SRQT_BASIC;
	uint32_t known = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			 IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;

	if (type == IBV_SRQT_TM || (attr->comp_mask & ~known)) {
		verbs_debug(&ctx->ibvctx, "unsupported SRQ attributes\n");
		return EOPNOTSUPP;
	}
	if (type != IBV_SRQT_BASIC && type != IBV_SRQT_XRC)
		return EINVAL;
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != &ctx->ibvctx.context) {
		verbs_debug(&ctx->ibvctx, "SRQ without a PD of the context\n");
		return EINVAL;
	}
	if (type == IBV_SRQT_XRC &&
	    (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) || !attr->xrcd ||
	     !(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq ||
	     attr->cq->context != &ctx->ibvctx.context)) {
		verbs_debug(&ctx->ibvctx,
			    "XRC SRQ without an XRC domain or a CQ of the context\n");
		return EINVAL;
	}
	return 0;
}

/*
 * ibv_create_srq_ex(). libibverbs sets no field of the ibv_srq after
 * this (unlike ibv_create_srq()), and the command only context and
 * handle: srq_context and pd are set here.
 */
struct ibv_srq *axon_create_srq_ex(struct ibv_context *context,
				   struct ibv_srq_init_attr_ex *attr)
{
	struct axon_context *ctx = to_axon_ctx(context);
	struct ibv_srq_init_attr_ex kattr = *attr;
	struct axon_srq *srq;
	int err;

	err = axon_check_srq_attr(ctx, attr);
	if (err) {
		errno = err;
		return NULL;
	}
	/* the command reads srq_type without IBV_SRQ_INIT_ATTR_TYPE */
	if (!(kattr.comp_mask & IBV_SRQ_INIT_ATTR_TYPE)) {
		kattr.comp_mask |= IBV_SRQ_INIT_ATTR_TYPE;
		kattr.srq_type = IBV_SRQT_BASIC;
	}
	if (kattr.srq_type == IBV_SRQT_BASIC)
		kattr.comp_mask &= ~(IBV_SRQ_INIT_ATTR_XRCD |
				     IBV_SRQ_INIT_ATTR_CQ);

	srq = axon_srq_alloc(attr->pd, &kattr, true);
	if (!srq)
		return NULL;
	srq->vsrq.srq.srq_context = attr->srq_context;
	srq->vsrq.srq.pd = attr->pd;
	attr->attr = kattr.attr;
	return &srq->vsrq.srq;
}

/*
 * The number an XRC initiator names the SRQ by; a basic SRQ's number
 * too, as mlx5 does (it means nothing to another QP).
 */
int axon_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	struct axon_srq *srq = to_axon_srq(ibsrq);

	*srq_num = srq->vsrq.srq_type == IBV_SRQT_XRC ? srq->vsrq.srq_num :
							srq->srqn;
	return 0;
}

int axon_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		    int attr_mask)
{
	struct ibv_modify_srq cmd = {};

	return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

int axon_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct axon_srq *srq = to_axon_srq(ibsrq);
	struct ibv_query_srq cmd = {};
	int err;

	err = ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
	if (err)
		return err;
	/* what the provider enforces when posting */
	attr->max_wr = srq->wq.depth;
	attr->max_sge = srq->wq.max_sge;
	return 0;
}

/*
 * The kernel refuses while a QP uses the SRQ (EBUSY); an XRC SRQ is used
 * by no QP (a request names it).
 */
int axon_destroy_srq(struct ibv_srq *ibsrq)
{
	struct axon_srq *srq = to_axon_srq(ibsrq);
	int err;

	err = ibv_cmd_destroy_srq(ibsrq);
	if (err)
		return err;
	/* its CQEs not polled yet name no QP of ours: then dropped */
	if (srq->xrc_cq)
		axon_xrc_srq_unlink(srq);
	munmap(srq->buf, srq->size);
	pthread_spin_destroy(&srq->lock);
	free(srq);
	return 0;
}
