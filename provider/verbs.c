// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon libibverbs provider: the verbs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "axon.h"
#include "axondv.h"

int axon_query_device_ex(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp = {};
	size_t resp_size = sizeof(resp);
	uint64_t fw_ver;
	int err;

	err = ibv_cmd_query_device_any(context, input, attr, attr_size, &resp,
				       &resp_size);
	if (err) {
		verbs_debug(verbs_get_ctx(context),
			    "ibv_cmd_query_device_any failed: %d\n", err);
		return err;
	}

	fw_ver = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)AXON_ABI_FW_VER_GET_MAJOR(fw_ver),
		 (unsigned int)AXON_ABI_FW_VER_GET_MINOR(fw_ver),
		 (unsigned int)AXON_ABI_FW_VER_GET_SUB(fw_ver));

	return 0;
}

int axon_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *port_attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(context, port, port_attr, &cmd, sizeof(cmd));
}

struct ibv_pd *axon_alloc_pd(struct ibv_context *context)
{
	struct axon_alloc_pd_cmd_resp resp = {};
	struct ibv_alloc_pd cmd;
	struct axon_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;

	err = ibv_cmd_alloc_pd(context, &pd->ibvpd, &cmd, sizeof(cmd),
			       &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_debug(verbs_get_ctx(context),
			    "ibv_cmd_alloc_pd failed: %d\n", err);
		goto err_free;
	}

	pd->pdn = resp.drv_payload.pdn;

	return &pd->ibvpd;

err_free:
	free(pd);
	errno = err;
	return NULL;
}

int axon_dealloc_pd(struct ibv_pd *ibpd)
{
	struct axon_pd *pd = to_axon_pd(ibpd);
	int err;

	err = ibv_cmd_dealloc_pd(ibpd);
	if (err) {
		verbs_debug(verbs_get_ctx(ibpd->context),
			    "ibv_cmd_dealloc_pd failed: %d\n", err);
		return err;
	}

	free(pd);

	return 0;
}

/*
 * The kernel checks the access flags: IBV_ACCESS_ON_DEMAND makes an
 * on-demand paging MR where the device and kernel have ODP (odp_caps of
 * ibv_query_device_ex()); libibverbs then leaves the range forkable.
 */
struct ibv_mr *axon_reg_mr(struct ibv_pd *ibpd, void *addr, size_t length,
			   uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd;
	struct verbs_mr *mr;
	int err;

	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return NULL;

	err = ibv_cmd_reg_mr(ibpd, addr, length, hca_va, access, mr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		verbs_debug(verbs_get_ctx(ibpd->context),
			    "ibv_cmd_reg_mr failed: %d\n", err);
		free(mr);
		errno = err;
		return NULL;
	}

	return &mr->ibv_mr;
}

/*
 * The kernel keeps the keys; libibverbs checked the flags and updates
 * mr->pd, addr and length. Returns the errno, also set.
 */
int axon_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp;
	struct ibv_rereg_mr cmd;
	int err;

	err = ibv_cmd_rereg_mr(vmr, flags, addr, length, (uintptr_t)addr,
			       access, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err) {
		verbs_debug(verbs_get_ctx(vmr->ibv_mr.context),
			    "ibv_cmd_rereg_mr failed: %d\n", err);
		errno = err;
	}
	return err;
}

/*
 * Everything is checked by the kernel; in particular fd -1 fails with
 * EBADF, the probe NCCL and UCX use.
 */
struct ibv_mr *axon_reg_dmabuf_mr(struct ibv_pd *ibpd, uint64_t offset,
				  size_t length, uint64_t iova, int fd,
				  int access)
{
	struct verbs_mr *mr;
	int err;

	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return NULL;

	err = ibv_cmd_reg_dmabuf_mr(ibpd, offset, length, iova, fd, access,
				    mr);
	if (err) {
		verbs_debug(verbs_get_ctx(ibpd->context),
			    "ibv_cmd_reg_dmabuf_mr failed: %d\n", err);
		free(mr);
		errno = err;
		return NULL;
	}

	return &mr->ibv_mr;
}

/*
 * ibv_advise_mr(): prefetch ranges of on-demand paging MRs, which the
 * kernel does synchronously (IBV_ADVISE_MR_FLAG_FLUSH or not). Returns
 * the errno, also set.
 */
int axon_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		   uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge)
{
	int err;

	err = ibv_cmd_advise_mr(pd, advice, flags, sg_list, num_sge);
	if (err) {
		verbs_debug(verbs_get_ctx(pd->context),
			    "ibv_cmd_advise_mr failed: %d\n", err);
		errno = err;
	}
	return err;
}

int axon_dereg_mr(struct verbs_mr *mr)
{
	int err;

	err = ibv_cmd_dereg_mr(mr);
	if (err) {
		verbs_debug(verbs_get_ctx(mr->ibv_mr.context),
			    "ibv_cmd_dereg_mr failed: %d\n", err);
		return err;
	}

	free(mr);
	return 0;
}

bool axon_is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

void *axon_mmap(struct ibv_context *context, uint64_t key, size_t size)
{
	return mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    context->cmd_fd, key);
}

uint32_t *axon_db(struct axon_context *ctx, unsigned int offset)
{
	return (uint32_t *)((uint8_t *)ctx->db_page + offset);
}

/* The kernel's answer is used to index memory: check it first. */
static bool axon_cq_ring_ok(uint32_t depth, uint32_t cqe_size, uint64_t size)
{
	return axon_is_pow2(depth) && depth >= AXON_CQ_MIN_DEPTH &&
	       depth <= AXON_CQ_MAX_DEPTH &&
	       size >= (uint64_t)depth * cqe_size +
			       sizeof(struct axon_cq_dbrec);
}

/* The CQ polls the ring mapped at buf from now on. */
static void axon_cq_set_ring(struct axon_cq *cq, void *buf, size_t size,
			     uint32_t depth)
{
	cq->buf = buf;
	cq->buf_size = size;
	cq->ring.cqes = buf;
	cq->ring.stride_shift = cq->cqe_size == AXON_CQE_TS_SIZE;
	cq->ring.dbrec = (struct axon_cq_dbrec *)
		(cq->ring.cqes + ((size_t)depth << cq->ring.stride_shift));
	cq->ring.depth_shift = __builtin_ctz(depth);
}

/* What ibv_create_cq_ex() can do; the rest fails with EOPNOTSUPP. */
#define AXON_CQ_TS_FLAGS						\
	(IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |				\
	 IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK)
#define AXON_CQ_CREATE_FLAGS	IBV_CREATE_CQ_ATTR_SINGLE_THREADED

/* Timestamps need the device clock (AXON_UCONTEXT_RESP_CLOCK). */
static uint64_t axon_cq_wc_flags(const struct axon_context *ctx)
{
	return IBV_WC_STANDARD_FLAGS |
	       (ctx->resp_comp_mask & AXON_UCONTEXT_RESP_CLOCK ?
		AXON_CQ_TS_FLAGS : 0);
}

static struct axon_cq *axon_cq_alloc(struct ibv_context *context,
				     struct ibv_cq_init_attr_ex *attr)
{
	struct axon_context *ctx = to_axon_ctx(context);
	struct axon_create_cq_cmd_resp resp = {};
	struct ibv_create_cq_ex cmd = {};
	struct axon_create_cq_resp *drv = &resp.drv_payload;
	struct ibv_cq_init_attr_ex kattr = *attr;
	bool ts = attr->wc_flags & AXON_CQ_TS_FLAGS;
	struct axon_cq *cq;
	void *buf;
	int err;

	if ((attr->comp_mask & ~IBV_CQ_INIT_ATTR_MASK_FLAGS) ||
	    (attr->wc_flags & ~axon_cq_wc_flags(ctx)) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (attr->flags & ~AXON_CQ_CREATE_FLAGS))) {
		verbs_debug(&ctx->ibvctx, "unsupported CQ attributes\n");
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!attr->cqe || attr->cqe > ctx->max_cqe) {
		verbs_debug(&ctx->ibvctx, "cqe %u not in 1..%u\n", attr->cqe,
			    ctx->max_cqe);
		errno = EINVAL;
		return NULL;
	}

	/* wallclock needs the clock mapped: find out now, not when polling */
	if ((attr->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK) &&
	    (err = axon_clock_sample(ctx))) {
		errno = err;
		return NULL;
	}
	cq = axon_queue_alloc(ctx, sizeof(*cq));
	if (!cq)
		return NULL;

	/* the kernel asks for 64-byte CQEs for either timestamp flag */
	if (ts)
		kattr.wc_flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	err = ibv_cmd_create_cq_ex(context, &kattr, &cq->vcq, &cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp),
				   0);
	if (err) {
		verbs_debug(&ctx->ibvctx, "ibv_cmd_create_cq_ex failed: %d\n",
			    err);
		goto err_free;
	}

	cq->cqe_size = ts ? AXON_CQE_TS_SIZE : AXON_CQE_SIZE;
	if (!axon_cq_ring_ok(drv->depth, cq->cqe_size, drv->cq_size) ||
	    drv->cqe_size != cq->cqe_size || drv->cqn > AXON_MAX_CQN) {
		verbs_err(&ctx->ibvctx,
			  "bad create_cq response: depth %u, CQE %u, size %llu\n",
			  drv->depth, drv->cqe_size,
			  (unsigned long long)drv->cq_size);
		err = EPROTO;
		goto err_destroy;
	}

	buf = axon_mmap(context, drv->cq_mmap_key, drv->cq_size);
	if (buf == MAP_FAILED) {
		err = errno;
		verbs_err(&ctx->ibvctx, "cannot map CQ %u: %d\n", drv->cqn,
			  err);
		goto err_destroy;
	}

	axon_cq_set_ring(cq, buf, drv->cq_size, drv->depth);
	cq->cqn = drv->cqn;
	cq->db = axon_db(ctx, AXON_DB_OFFSET(AXON_DB_CQ_ARM, cq->cqn));
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);

	return cq;

err_destroy:
	ibv_cmd_destroy_cq(&cq->vcq.cq);
err_free:
	free(cq);
	errno = err;
	return NULL;
}

struct ibv_cq *axon_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = cqe,
		.channel = channel,
		.comp_vector = comp_vector,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct axon_cq *cq;

	if (cqe < 0) {
		errno = EINVAL;
		return NULL;
	}

	cq = axon_cq_alloc(context, &attr);
	return cq ? &cq->vcq.cq : NULL;
}

struct ibv_cq_ex *axon_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr)
{
	struct axon_cq *cq;

	cq = axon_cq_alloc(context, attr);
	if (!cq)
		return NULL;

	axon_cq_ex_set_ops(cq, attr->wc_flags,
			   (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
			   (attr->flags & IBV_CREATE_CQ_ATTR_SINGLE_THREADED));
	return &cq->vcq.cq_ex;
}

/*
 * The kernel moves the CQ to a new ring, its CQEs not polled yet with it
 * at the same indices (<rdma/axon-abi.h>): under the CQ lock, polling goes
 * on in the new ring from the same index. EINVAL when more CQEs wait than
 * cqe. If the new ring cannot be mapped the CQ is lost to the process.
 */
int axon_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct axon_context *ctx = to_axon_ctx(ibcq->context);
	struct axon_cq *cq = to_axon_cq(ibcq);
	struct axon_resize_cq_cmd_resp resp = {};
	struct axon_resize_cq_resp *drv = &resp.drv_payload;
	struct ibv_resize_cq cmd = {};
	void *buf;
	int err;

	if (cqe < 1 || (uint32_t)cqe > ctx->max_cqe)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	err = ibv_cmd_resize_cq(ibcq, cqe, &cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (err) {
		verbs_debug(&ctx->ibvctx, "ibv_cmd_resize_cq failed: %d\n",
			    err);
		goto out;
	}
	if (!axon_cq_ring_ok(drv->depth, cq->cqe_size, drv->cq_size)) {
		verbs_err(&ctx->ibvctx,
			  "bad resize_cq response: depth %u, size %llu\n",
			  drv->depth, (unsigned long long)drv->cq_size);
		err = EPROTO;
		goto out;
	}
	buf = axon_mmap(ibcq->context, drv->cq_mmap_key, drv->cq_size);
	if (buf == MAP_FAILED) {
		err = errno;
		verbs_err(&ctx->ibvctx, "cannot map CQ %u's new ring: %d\n",
			  cq->cqn, err);
		goto out;
	}
	munmap(cq->buf, cq->buf_size);
	axon_cq_set_ring(cq, buf, drv->cq_size, drv->depth);
out:
	pthread_spin_unlock(&cq->lock);
	return err;
}

int axon_destroy_cq(struct ibv_cq *ibcq)
{
	struct axon_cq *cq = to_axon_cq(ibcq);
	int err;

	err = ibv_cmd_destroy_cq(ibcq);
	if (err) {
		verbs_debug(verbs_get_ctx(ibcq->context),
			    "ibv_cmd_destroy_cq failed: %d\n", err);
		return err;
	}

	munmap(cq->buf, cq->buf_size);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}

/*
 * What ibv_wr_*() can do on an RC (and XRC_SEND), a UC, a UD and a RUD
 * QP; other send_ops_flags fail with EOPNOTSUPP.
 */
#define AXON_UD_SEND_OPS_FLAGS						\
	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
#define AXON_UC_SEND_OPS_FLAGS						\
	(AXON_UD_SEND_OPS_FLAGS | IBV_QP_EX_WITH_RDMA_WRITE |		\
	 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
#define AXON_RC_SEND_OPS_FLAGS						\
	(AXON_UC_SEND_OPS_FLAGS | IBV_QP_EX_WITH_RDMA_READ |		\
	 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |				\
	 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_BIND_MW |	\
	 IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_SEND_WITH_INV)
#define AXON_RUD_SEND_OPS_FLAGS						\
	(AXON_UC_SEND_OPS_FLAGS | IBV_QP_EX_WITH_RDMA_READ)

/*
 * The send_ops_flags of a QP type and, for IBV_QPT_DRIVER, driver type
 * (enum axon_qp_driver_type, 0 for none); 0 for a type axon does not have.
 */
static uint64_t axon_send_ops_flags(enum ibv_qp_type type,
				    uint32_t driver_qp_type)
{
	switch (type) {
	case IBV_QPT_RC:
	case IBV_QPT_XRC_SEND:
		return AXON_RC_SEND_OPS_FLAGS;
	case IBV_QPT_UC:
		return AXON_UC_SEND_OPS_FLAGS;
	case IBV_QPT_UD:
		return AXON_UD_SEND_OPS_FLAGS;
	case IBV_QPT_DRIVER:
		return driver_qp_type == AXON_QP_DRIVER_TYPE_RUD ?
		       AXON_RUD_SEND_OPS_FLAGS : 0;
	default:
		return 0;
	}
}

/*
 * RC, UC, UD and XRC_SEND QPs, and RUD ones from axondv_create_qp_ex()
 * (an IBV_QPT_DRIVER QP without a driver type is EOPNOTSUPP); a device
 * without UD, UC, RUD or XRC fails them in the kernel, with EOPNOTSUPP
 * too. An XRC_SEND QP has no receive side: its recv_cq and receive
 * capabilities are ignored (as by libibverbs and the kernel), an SRQ is
 * EINVAL.
 */
static int axon_check_qp_attr(struct axon_context *ctx,
			      const struct ibv_qp_init_attr_ex *attr,
			      uint32_t driver_qp_type)
{
	const struct ibv_qp_cap *cap = &attr->cap;
	uint64_t send_ops = axon_send_ops_flags(attr->qp_type, driver_qp_type);
	bool xrc = attr->qp_type == IBV_QPT_XRC_SEND;
	/* receive capabilities that count: no SRQ, not XRC */
	bool rq = !attr->srq && !xrc;

	if (!send_ops ||
	    (attr->comp_mask & ~(IBV_QP_INIT_ATTR_PD |
				 IBV_QP_INIT_ATTR_CREATE_FLAGS |
				 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	     attr->create_flags) ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	     (attr->send_ops_flags & ~send_ops))) {
		verbs_debug(&ctx->ibvctx, "unsupported QP attributes\n");
		return EOPNOTSUPP;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
	    !attr->send_cq || (!xrc && !attr->recv_cq) || (xrc && attr->srq)) {
		verbs_debug(&ctx->ibvctx, "QP without a PD or CQs\n");
		return EINVAL;
	}
	if (cap->max_send_wr > ctx->max_qp_wr ||
	    (rq && cap->max_recv_wr > ctx->max_qp_wr) ||
	    cap->max_send_sge > ctx->max_sge ||
	    (rq && cap->max_recv_sge > ctx->max_sge) ||
	    cap->max_inline_data > ctx->max_inline) {
		verbs_debug(&ctx->ibvctx, "QP capabilities beyond limits\n");
		return EINVAL;
	}
	return 0;
}

bool axon_wq_resp_ok(uint32_t depth, uint8_t shift, uint8_t min_shift,
		     uint64_t size)
{
	return axon_is_pow2(depth) && depth <= AXON_WQ_MAX_DEPTH &&
	       shift >= min_shift && shift <= AXON_WQE_MAX_SHIFT &&
	       size >= (uint64_t)depth << shift;
}

/*
 * no_rq: the QP is on an SRQ or an XRC_SEND one; sq_dbrec: a doorbell
 * record was asked for, so the response may give one, after the ring.
 */
static bool axon_qp_resp_ok(const struct axon_create_qp_resp *resp,
			    bool no_rq, bool sq_dbrec)
{
	uint64_t rec = resp->comp_mask & AXON_CREATE_QP_RESP_SQ_DBREC ?
		       sizeof(struct axon_sq_dbrec) : 0;

	return resp->qpn > 1 && resp->qpn <= AXON_MAX_QPN &&
	       (sq_dbrec || !rec) &&
	       axon_wq_resp_ok(resp->sq_depth, resp->sq_wqe_shift,
			       AXON_SQ_MIN_WQE_SHIFT, resp->sq_size) &&
	       resp->sq_size - ((uint64_t)resp->sq_depth <<
				resp->sq_wqe_shift) >= rec &&
	       (no_rq ? !resp->rq_depth && !resp->rq_size :
		axon_wq_resp_ok(resp->rq_depth, resp->rq_wqe_shift,
				AXON_RQ_MIN_WQE_SHIFT, resp->rq_size)) &&
	       resp->max_inline <= AXON_MAX_INLINE &&
	       resp->max_inline <= (1u << resp->sq_wqe_shift) -
				   AXON_SEND_HDR_SIZE;
}

static uint32_t axon_min(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

void axon_wq_init(struct axon_wq *wq, void *buf, uint32_t depth,
		  uint8_t shift, size_t hdr, uint32_t max_sge)
{
	wq->buf = buf;
	wq->depth = depth;
	wq->wqe_shift = shift;
	wq->max_sge = axon_min(axon_min(max_sge, AXON_MAX_SGE),
			       ((1u << shift) - hdr) / sizeof(struct axon_sge));
	wq->pi = 0;
	wq->ci = 0;
}

/*
 * What the provider enforces when posting; a queue the QP does not have
 * (an SRQ's, XRC's) is all zero.
 */
static void axon_qp_cap(const struct axon_qp *qp, struct ibv_qp_cap *cap)
{
	cap->max_send_wr = qp->sq.depth;
	cap->max_recv_wr = qp->srq ? 0 : qp->rq.depth;
	cap->max_send_sge = qp->sq.max_sge;
	cap->max_recv_sge = qp->srq ? 0 : qp->rq.max_sge;
	cap->max_inline_data = qp->sq.max_inline;
}

/* A QP of attr, of driver type driver_qp_type (0 but for IBV_QPT_DRIVER). */
static struct axon_qp *axon_qp_alloc(struct ibv_context *context,
				     struct ibv_qp_init_attr_ex *attr,
				     uint32_t driver_qp_type)
{
	struct axon_context *ctx = to_axon_ctx(context);
	struct axon_create_qp_cmd_resp resp = {};
	struct axon_create_qp_cmd cmd = {};
	struct axon_create_qp_resp *drv = &resp.drv_payload;
	uint32_t comp_mask = attr->comp_mask;
	/* an XRC_SEND QP is made from RC's udata, with no RQ */
	bool xrc = attr->qp_type == IBV_QPT_XRC_SEND;
	struct axon_qp *qp;
	int err;

	err = axon_check_qp_attr(ctx, attr, driver_qp_type);
	if (err) {
		errno = err;
		return NULL;
	}
	qp = axon_queue_alloc(ctx, sizeof(*qp));
	if (!qp)
		return NULL;

	if (ctx->resp_comp_mask & AXON_UCONTEXT_RESP_SQ_DBREC)
		cmd.drv_payload.comp_mask = AXON_CREATE_QP_REQ_SQ_DBREC;
	cmd.drv_payload.driver_qp_type = driver_qp_type;
	/* create_flags is 0, and the command refuses the bit that says so. */
	attr->comp_mask &= ~IBV_QP_INIT_ATTR_CREATE_FLAGS;
	err = ibv_cmd_create_qp_ex(context, &qp->vqp, attr, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	attr->comp_mask = comp_mask;
	if (err) {
		verbs_debug(&ctx->ibvctx, "ibv_cmd_create_qp_ex failed: %d\n",
			    err);
		goto err_free;
	}

	if (!axon_qp_resp_ok(drv, attr->srq || xrc,
			     cmd.drv_payload.comp_mask &
			     AXON_CREATE_QP_REQ_SQ_DBREC)) {
		verbs_err(&ctx->ibvctx,
			  "bad create_qp response: qpn %u, sq %u x 2^%u, rq %u x 2^%u\n",
			  drv->qpn, drv->sq_depth, drv->sq_wqe_shift,
			  drv->rq_depth, drv->rq_wqe_shift);
		err = EPROTO;
		goto err_destroy;
	}

	qp->sq_size = drv->sq_size;
	qp->sq_buf = axon_mmap(context, drv->sq_mmap_key, qp->sq_size);
	if (qp->sq_buf == MAP_FAILED) {
		err = errno;
		goto err_destroy;
	}
	qp->srq = attr->srq ? to_axon_srq(attr->srq) : NULL;
	qp->rq_size = drv->rq_size;
	qp->rq_buf = qp->srq || xrc ? NULL :
		     axon_mmap(context, drv->rq_mmap_key, qp->rq_size);
	if (qp->rq_buf == MAP_FAILED) {
		err = errno;
		goto err_unmap_sq;
	}

	qp->ctx = ctx;
	qp->qpn = drv->qpn;
	qp->sq_db = axon_db(ctx, AXON_DB_OFFSET(AXON_DB_SQ, qp->qpn));
	qp->rq_db = axon_db(ctx, AXON_DB_OFFSET(AXON_DB_RQ, qp->qpn));
	axon_wq_init(&qp->sq, qp->sq_buf, drv->sq_depth, drv->sq_wqe_shift,
		     AXON_SEND_HDR_SIZE, ctx->max_sge);
	qp->sq.max_inline = drv->max_inline;
	if (drv->comp_mask & AXON_CREATE_QP_RESP_SQ_DBREC)
		qp->sq_dbrec = (struct axon_sq_dbrec *)
			((uint8_t *)qp->sq_buf +
			 ((size_t)drv->sq_depth << drv->sq_wqe_shift));
	if (qp->rq_buf)
		axon_wq_init(&qp->rq, qp->rq_buf, drv->rq_depth,
			     drv->rq_wqe_shift, AXON_RECV_HDR_SIZE,
			     ctx->max_sge);
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);

	err = axon_qp_table_add(ctx, qp);
	if (err)
		goto err_locks;

	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		axon_qp_ex_set_ops(qp);
		qp->vqp.comp_mask |= VERBS_QP_EX;
	}
	axon_qp_cap(qp, &attr->cap);

	return qp;

err_locks:
	pthread_spin_destroy(&qp->rq_lock);
	pthread_spin_destroy(&qp->sq_lock);
	if (qp->rq_buf)
		munmap(qp->rq_buf, qp->rq_size);
err_unmap_sq:
	munmap(qp->sq_buf, qp->sq_size);
err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	free(qp);
	errno = err;
	return NULL;
}

/*
 * A QP with no queue here (an XRC target QP): freed without a word to
 * the kernel, which has it, or has refused it.
 */
static struct axon_qp *axon_xrc_tgt_qp_alloc(struct axon_context *ctx)
{
	struct axon_qp *qp = calloc(1, sizeof(*qp));

	if (!qp)
		return NULL;
	qp->ctx = ctx;
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	return qp;
}

static void axon_xrc_tgt_qp_free(struct axon_qp *qp)
{
	pthread_spin_destroy(&qp->rq_lock);
	pthread_spin_destroy(&qp->sq_lock);
	free(qp);
}

/*
 * An XRC_RECV QP: the kernel creates it in the XRC domain with no
 * udata, and the provider maps nothing. Only the XRCD (and create_flags
 * 0) may be given; no send_ops_flags, it sends nothing (EOPNOTSUPP).
 */
static struct axon_qp *axon_xrc_tgt_create(struct ibv_context *context,
					   struct ibv_qp_init_attr_ex *attr)
{
	struct axon_context *ctx = to_axon_ctx(context);
	struct ib_uverbs_create_qp_resp resp = {};
	struct ibv_create_qp cmd = {};
	uint32_t comp_mask = attr->comp_mask;
	struct axon_qp *qp;
	int err;

	if ((comp_mask & ~(IBV_QP_INIT_ATTR_XRCD | IBV_QP_INIT_ATTR_PD |
			   IBV_QP_INIT_ATTR_CREATE_FLAGS)) ||
	    ((comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	     attr->create_flags)) {
		verbs_debug(&ctx->ibvctx, "unsupported XRC_RECV QP attributes\n");
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(comp_mask & IBV_QP_INIT_ATTR_XRCD) || !attr->xrcd ||
	    attr->xrcd->context != context) {
		verbs_debug(&ctx->ibvctx, "XRC_RECV QP without an XRC domain\n");
		errno = EINVAL;
		return NULL;
	}
	qp = axon_xrc_tgt_qp_alloc(ctx);
	if (!qp)
		return NULL;

	attr->comp_mask &= ~(IBV_QP_INIT_ATTR_CREATE_FLAGS |
			     IBV_QP_INIT_ATTR_PD);
	err = ibv_cmd_create_qp_ex(context, &qp->vqp, attr, &cmd, sizeof(cmd),
				   &resp, sizeof(resp));
	attr->comp_mask = comp_mask;
	if (err) {
		verbs_debug(&ctx->ibvctx, "ibv_cmd_create_qp_ex failed: %d\n",
			    err);
		axon_xrc_tgt_qp_free(qp);
		errno = err;
		return NULL;
	}
	/* it has no CQ of its own, whatever the caller passed */
	qp->vqp.qp.send_cq = NULL;
	qp->vqp.qp.recv_cq = NULL;
	qp->vqp.qp.srq = NULL;
	qp->qpn = qp->vqp.qp.qp_num;
	memset(&attr->cap, 0, sizeof(attr->cap));
	return qp;
}

struct ibv_qp *axon_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr)
{
	struct axon_qp *qp;

	if (attr->qp_type == IBV_QPT_XRC_RECV)
		qp = axon_xrc_tgt_create(context, attr);
	else
		qp = axon_qp_alloc(context, attr, 0);
	return qp ? &qp->vqp.qp : NULL;
}

/*
 * ibv_open_qp(): an XRC_RECV QP of an XRC domain, by number; the kernel
 * checks that it is one. Nothing is mapped, as for a created one.
 */
struct ibv_qp *axon_open_qp(struct ibv_context *context,
			    struct ibv_qp_open_attr *attr)
{
	struct axon_context *ctx = to_axon_ctx(context);
	struct ib_uverbs_create_qp_resp resp = {};
	struct ibv_open_qp cmd = {};
	struct axon_qp *qp;
	int err;

	if ((attr->comp_mask & IBV_QP_OPEN_ATTR_TYPE) &&
	    attr->qp_type != IBV_QPT_XRC_RECV) {
		errno = EINVAL;
		return NULL;
	}
	qp = axon_xrc_tgt_qp_alloc(ctx);
	if (!qp)
		return NULL;
	err = ibv_cmd_open_qp(context, &qp->vqp, sizeof(qp->vqp), attr, &cmd,
			      sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		verbs_debug(&ctx->ibvctx, "ibv_cmd_open_qp failed: %d\n", err);
		axon_xrc_tgt_qp_free(qp);
		errno = err;
		return NULL;
	}
	qp->qpn = qp->vqp.qp.qp_num;
	return &qp->vqp.qp;
}

/*
 * An XRC domain is a kernel object only (fd -1: a new one, not shared);
 * the kernel refuses to close one its SRQs or QPs use (EBUSY).
 */
struct ibv_xrcd *axon_open_xrcd(struct ibv_context *context,
				struct ibv_xrcd_init_attr *attr)
{
	struct ib_uverbs_open_xrcd_resp resp = {};
	struct ibv_open_xrcd cmd = {};
	struct verbs_xrcd *xrcd;
	int err;

	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd)
		return NULL;
	err = ibv_cmd_open_xrcd(context, xrcd, sizeof(*xrcd), attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		verbs_debug(verbs_get_ctx(context),
			    "ibv_cmd_open_xrcd failed: %d\n", err);
		free(xrcd);
		errno = err;
		return NULL;
	}
	return &xrcd->xrcd;
}

int axon_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct verbs_xrcd *xrcd = to_verbs_xrcd(ibxrcd);
	int err;

	err = ibv_cmd_close_xrcd(xrcd);
	if (err) {
		verbs_debug(verbs_get_ctx(ibxrcd->context),
			    "ibv_cmd_close_xrcd failed: %d\n", err);
		return err;
	}
	free(xrcd);
	return 0;
}

/* The offset of the byte after field f of type T. */
#define axon_offsetofend(T, f) (offsetof(T, f) + sizeof(((T *)0)->f))

/* Whether the len bytes at p are all zero. */
static bool axon_mem_is_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len--)
		if (*b++)
			return false;
	return true;
}

static_assert((int)AXONDV_QP_DRIVER_TYPE_RUD == (int)AXON_QP_DRIVER_TYPE_RUD,
	      "axondv.h and axon-abi.h number driver QP types alike");

/*
 * axondv.h. The attributes are checked as far as inlen gives them: the
 * fields through driver_qp_type must be there, reserved bytes and bytes
 * of a later axondv.h beyond this one's must be zero (EINVAL); then what
 * they ask for must be known (EOPNOTSUPP). The QP is made as an RC one,
 * with the driver type in the request.
 */
AXON_EXPORT
struct ibv_qp *axondv_create_qp_ex(struct ibv_context *ibvctx,
				   struct ibv_qp_init_attr_ex *attr_ex,
				   struct axondv_qp_init_attr *axondv_attr,
				   uint32_t inlen)
{
	/* the fields through driver_qp_type: up to reserved */
	const uint32_t min_len = offsetof(struct axondv_qp_init_attr, reserved);
	struct axon_qp *qp;

	if (!axon_is_axon_dev(ibvctx->device)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (inlen < min_len ||
	    (inlen > sizeof(*axondv_attr) &&
	     !axon_mem_is_zero(axondv_attr + 1,
			       inlen - sizeof(*axondv_attr))) ||
	    (inlen > min_len &&
	     !axon_mem_is_zero(axondv_attr->reserved,
			       axon_min(inlen - min_len,
					sizeof(axondv_attr->reserved))))) {
		verbs_debug(verbs_get_ctx(ibvctx),
			    "bad axondv_qp_init_attr (inlen %u)\n", inlen);
		errno = EINVAL;
		return NULL;
	}
	if (axondv_attr->comp_mask ||
	    axondv_attr->driver_qp_type != AXONDV_QP_DRIVER_TYPE_RUD) {
		verbs_debug(verbs_get_ctx(ibvctx),
			    "unsupported axondv_qp_init_attr\n");
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr_ex->qp_type != IBV_QPT_DRIVER) {
		verbs_debug(verbs_get_ctx(ibvctx),
			    "a RUD QP is of type IBV_QPT_DRIVER\n");
		errno = EINVAL;
		return NULL;
	}

	qp = axon_qp_alloc(ibvctx, attr_ex, AXON_QP_DRIVER_TYPE_RUD);
	return qp ? &qp->vqp.qp : NULL;
}

struct ibv_qp *axon_create_qp(struct ibv_pd *ibpd,
			      struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex attr_ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = ibpd,
	};
	struct axon_qp *qp;

	/* an XRC_RECV QP is of an XRC domain, ibv_create_qp_ex()'s */
	if (attr->qp_type == IBV_QPT_XRC_RECV) {
		errno = EINVAL;
		return NULL;
	}
	qp = axon_qp_alloc(ibpd->context, &attr_ex, 0);
	if (!qp)
		return NULL;

	attr->cap = attr_ex.cap;
	return &qp->vqp.qp;
}

/*
 * A RUD QP's modify (see "RUD connection keys" in <rdma/axon-abi.h>):
 * the extended command, with the peer's key if given, whose response
 * carries the QP's new key when the QP leaves RESET.
 */
static int axon_modify_rud_qp(struct axon_qp *qp, struct ibv_qp_attr *attr,
			      int attr_mask, const uint64_t *peer_key)
{
	struct axon_modify_qp_ex_cmd cmd = {};
	struct axon_modify_qp_ex_cmd_resp resp = {};
	int err;

	if (peer_key) {
		cmd.drv_payload.comp_mask = AXON_MODIFY_QP_REQ_RUD_PEER_KEY;
		cmd.drv_payload.rud_peer_key = *peer_key;
	}
	err = ibv_cmd_modify_qp_ex(&qp->vqp.qp, attr, attr_mask, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	explicit_bzero(&cmd.drv_payload, sizeof(cmd.drv_payload));
	if (err)
		return err;
	if (resp.drv_payload.comp_mask & AXON_MODIFY_QP_RESP_RUD_KEY) {
		qp->rud_key = resp.drv_payload.rud_key;
		qp->rud_key_valid = true;
	} else if ((attr_mask & IBV_QP_STATE) &&
		   attr->qp_state == IBV_QPS_RESET) {
		qp->rud_key = 0;
		qp->rud_key_valid = false;
	}
	explicit_bzero(&resp.drv_payload, sizeof(resp.drv_payload));
	return 0;
}

static int axon_modify_qp_key(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
			      int attr_mask, const uint64_t *peer_key)
{
	struct axon_qp *qp = to_axon_qp(ibqp);
	struct ibv_modify_qp cmd = {};
	int err;

	if (ibqp->qp_type == IBV_QPT_DRIVER)
		err = axon_modify_rud_qp(qp, attr, attr_mask, peer_key);
	else
		err = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd,
					sizeof(cmd));
	if (err) {
		verbs_debug(verbs_get_ctx(ibqp->context),
			    "modify_qp failed: %d\n", err);
		return err;
	}

	if (attr_mask & IBV_QP_DEST_QPN)
		qp->dest_qpn = attr->dest_qp_num;

	if ((attr_mask & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RESET &&
	    !axon_qp_is_xrc_tgt(qp))
		axon_qp_reset_queues(qp);

	return 0;
}

int axon_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask)
{
	return axon_modify_qp_key(ibqp, attr, attr_mask, NULL);
}

/*
 * Is ibqp a RUD QP of this copy of the provider? EOPNOTSUPP if not, as
 * for axondv_create_qp_ex() with a context that is not ours.
 */
static int axon_dv_rud_qp(struct ibv_qp *ibqp)
{
	if (!ibqp || !axon_is_axon_dev(ibqp->context->device) ||
	    ibqp->qp_type != IBV_QPT_DRIVER)
		return EOPNOTSUPP;
	return 0;
}

/*
 * axondv.h. As ibv_modify_qp(), with a RUD QP's driver attributes, checked
 * as far as inlen gives them: comp_mask must be there, bytes beyond what
 * this axondv.h knows must be zero (EINVAL); unknown comp_mask bits are
 * EOPNOTSUPP.
 */
AXON_EXPORT
int axondv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		     int attr_mask, struct axondv_modify_qp_attr *dv_attr,
		     uint32_t inlen)
{
	const uint32_t min_len = axon_offsetofend(struct axondv_modify_qp_attr,
					     comp_mask);
	uint64_t key = 0;
	int err;

	err = axon_dv_rud_qp(ibqp);
	if (err)
		return err;
	if (inlen && !dv_attr)
		return EINVAL;
	if (inlen && (inlen < min_len ||
		      (inlen > sizeof(*dv_attr) &&
		       !axon_mem_is_zero(dv_attr + 1, inlen - sizeof(*dv_attr)))))
		return EINVAL;
	if (inlen && dv_attr->comp_mask & ~AXONDV_MODIFY_QP_RUD_PEER_KEY)
		return EOPNOTSUPP;
	if (inlen && dv_attr->comp_mask & AXONDV_MODIFY_QP_RUD_PEER_KEY) {
		if (inlen < axon_offsetofend(struct axondv_modify_qp_attr,
					rud_peer_key) || !dv_attr->rud_peer_key)
			return EINVAL;
		key = dv_attr->rud_peer_key;
	}
	err = axon_modify_qp_key(ibqp, attr, attr_mask, key ? &key : NULL);
	explicit_bzero(&key, sizeof(key));
	return err;
}

/* axondv.h. */
AXON_EXPORT
int axondv_query_qp(struct ibv_qp *ibqp, struct axondv_qp_attr *attr,
		    uint32_t inlen)
{
	const uint32_t min_len = axon_offsetofend(struct axondv_qp_attr, comp_mask);
	struct axondv_qp_attr out = {};
	struct axon_qp *qp;
	int err;

	err = axon_dv_rud_qp(ibqp);
	if (err)
		return err;
	if (!attr || inlen < min_len)
		return EINVAL;
	qp = to_axon_qp(ibqp);
	if (qp->rud_key_valid) {
		out.comp_mask = AXONDV_QP_ATTR_RUD_KEY;
		out.rud_key = qp->rud_key;
	}
	memset(attr, 0, inlen);
	memcpy(attr, &out, axon_min(inlen, sizeof(out)));
	explicit_bzero(&out, sizeof(out));
	return 0;
}

int axon_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		  int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct axon_qp *qp = to_axon_qp(ibqp);
	struct ibv_query_qp cmd = {};
	int err;

	err = ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
			       sizeof(cmd));
	if (err) {
		verbs_debug(verbs_get_ctx(ibqp->context),
			    "ibv_cmd_query_qp failed: %d\n", err);
		return err;
	}

	axon_qp_cap(qp, &attr->cap);
	init_attr->cap = attr->cap;
	return 0;
}

int axon_destroy_qp(struct ibv_qp *ibqp)
{
	struct axon_qp *qp = to_axon_qp(ibqp);
	struct axon_context *ctx = qp->ctx;
	int err;

	/* created or opened: in no table, nothing mapped */
	if (axon_qp_is_xrc_tgt(qp)) {
		err = ibv_cmd_destroy_qp(ibqp);
		if (err) {
			verbs_debug(&ctx->ibvctx,
				    "ibv_cmd_destroy_qp failed: %d\n", err);
			return err;
		}
		axon_xrc_tgt_qp_free(qp);
		return 0;
	}

	/*
	 * Held from DESTROY_QP until the qpn is out of the table: a QP that
	 * reuses it can neither be added nor have CQEs before.
	 */
	pthread_mutex_lock(&ctx->lock);
	err = ibv_cmd_destroy_qp(ibqp);
	if (err) {
		pthread_mutex_unlock(&ctx->lock);
		verbs_debug(&ctx->ibvctx, "ibv_cmd_destroy_qp failed: %d\n",
			    err);
		return err;
	}

	/* Then no poller holds qp, nor finds it again through a CQE. */
	axon_qp_lock_cqs(qp);
	axon_qp_table_del(ctx, qp);
	axon_qp_purge_cqes(qp);
	axon_qp_unlock_cqs(qp);
	pthread_mutex_unlock(&ctx->lock);

	if (qp->rq_buf)
		munmap(qp->rq_buf, qp->rq_size);
	munmap(qp->sq_buf, qp->sq_size);
	pthread_spin_destroy(&qp->rq_lock);
	pthread_spin_destroy(&qp->sq_lock);
	free(qp);
	return 0;
}
