// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon provider: shared receive queues. The kernel allocates the ring and
 * maps it into the process; ibv_post_srq_recv() (io.c) writes WQEs there
 * and rings AXON_DB_SRQ on the context's doorbell page, with no system
 * call. Only basic SRQs: no XRC (ibv_create_srq_ex answers EOPNOTSUPP).
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

struct ibv_srq *axon_create_srq(struct ibv_pd *ibpd,
				struct ibv_srq_init_attr *attr)
{
	struct axon_context *ctx = to_axon_ctx(ibpd->context);
	struct axon_create_srq_cmd_resp resp = {};
	struct axon_create_srq_resp *drv = &resp.drv_payload;
	struct ibv_create_srq cmd = {};
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

	err = ibv_cmd_create_srq(ibpd, &srq->ibvsrq, attr, &cmd, sizeof(cmd),
				 &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_debug(&ctx->ibvctx, "ibv_cmd_create_srq failed: %d\n",
			    err);
		goto err_free;
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
	attr->attr.max_wr = srq->wq.depth;
	attr->attr.max_sge = srq->wq.max_sge;
	return &srq->ibvsrq;

err_destroy:
	ibv_cmd_destroy_srq(&srq->ibvsrq);
err_free:
	free(srq);
	errno = err;
	return NULL;
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

/* The kernel refuses while a QP uses the SRQ (EBUSY). */
int axon_destroy_srq(struct ibv_srq *ibsrq)
{
	struct axon_srq *srq = to_axon_srq(ibsrq);
	int err;

	err = ibv_cmd_destroy_srq(ibsrq);
	if (err)
		return err;
	munmap(srq->buf, srq->size);
	pthread_spin_destroy(&srq->lock);
	free(srq);
	return 0;
}
