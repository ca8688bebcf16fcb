/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon libibverbs provider: objects and commands shared by axon.c and verbs.c.
 */
#ifndef AXON_PROVIDER_H
#define AXON_PROVIDER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/axon-abi.h>

#include "wq.h"

#include "ibverbs_private.h"

#define __maybe_unused __attribute__((unused))
/* A symbol of axondv.h: exported (axon.map), all else is hidden. */
#define AXON_EXPORT __attribute__((visibility("default")))

struct axon_device {
	struct verbs_device vdev;	/* must stay first */
	size_t pg_sz;
};

/* QPs by qpn, for poll_cq: tables of 1024, allocated on first use. */
#define AXON_QP_TABLE_SHIFT	10
#define AXON_QP_TABLE_SIZE	(1 << AXON_QP_TABLE_SHIFT)
#define AXON_QP_TABLES		((AXON_MAX_QPN >> AXON_QP_TABLE_SHIFT) + 1)

struct axon_qp;
struct axon_srq;

struct axon_context {
	struct verbs_context ibvctx;
	/* Limits the kernel returned in struct axon_alloc_ucontext_resp. */
	uint32_t resp_comp_mask;
	uint32_t max_inline;
	uint32_t max_sge;
	uint32_t max_qp_wr;
	uint32_t max_cqe;
	uint64_t db_mmap_key;
	uint64_t clock_mmap_key;	/* with AXON_UCONTEXT_RESP_CLOCK */

	/*
	 * The doorbell page, mapped with the first CQ or QP: a context that
	 * only queries never needs it.
	 */
	pthread_mutex_t lock;	/* db_page, clock_page and qp_table updates */
	void *db_page;
	/* The clock page, mapped on first use, and the wallclock offset. */
	void *clock_page;
	int64_t clock_offset;		/* CLOCK_REALTIME - device clock */
	int64_t clock_sampled;		/* CLOCK_MONOTONIC when taken */
	struct axon_qp **qp_table[AXON_QP_TABLES];
};

struct axon_pd {
	struct ibv_pd ibvpd;
	uint32_t pdn;
};

struct axon_cq {
	struct verbs_cq vcq;
	struct axon_cqring ring;
	pthread_spinlock_t lock;
	void *buf;			/* the mapping: ring, then dbrec */
	size_t buf_size;
	uint32_t cqn;
	uint32_t cqe_size;		/* AXON_CQE_SIZE or AXON_CQE_TS_SIZE */
	uint32_t *db;			/* the CQ_ARM doorbell */
	/* ibv_start_poll() to ibv_end_poll(): the CQE being read */
	struct axon_cqe *cur;
	uint32_t cur_dest_qpn;		/* of its QP, for src_qp */
	/*
	 * The XRC SRQs whose receives complete here, linked by xrc_next
	 * (under lock): their CQEs name XRC target QPs, which may be of
	 * any process, never a QP of the table.
	 */
	struct axon_srq *xrc_srqs;
};

/*
 * A shared receive queue. Its QPs take WQEs in ring order but complete
 * them in any order, from CQs polled by any thread: wq.ci counts the
 * completions (atomically), and a slot is free once fewer than depth WQEs
 * are not completed (the device copies a WQE when it takes it).
 */
struct axon_srq {
	struct verbs_srq vsrq;
	struct axon_wq wq;
	pthread_spinlock_t lock;	/* posting */
	void *buf;
	size_t size;
	uint32_t *db;			/* AXON_DB_SRQ */
	uint32_t srqn;
	/* XRC: the CQ of its receives, and the next XRC SRQ of that CQ */
	struct axon_cq *xrc_cq;
	struct axon_srq *xrc_next;
};

/*
 * A QP. An XRC_SEND QP has a send queue only; an XRC_RECV QP (created or
 * opened) has no queue, ring or CQ here, and is in no QP table: its
 * receives complete on the CQ of the XRC SRQ a request names.
 */
struct axon_qp {
	struct verbs_qp vqp;
	struct axon_context *ctx;
	struct axon_wq sq;
	struct axon_wq rq;		/* unused with an SRQ, and by XRC */
	struct axon_srq *srq;
	pthread_spinlock_t sq_lock;
	pthread_spinlock_t rq_lock;
	void *sq_buf;
	size_t sq_size;
	void *rq_buf;
	size_t rq_size;
	uint32_t *sq_db;
	uint32_t *rq_db;
	/* after the SQ's ring; NULL: the QP has none, every post rings */
	struct axon_sq_dbrec *sq_dbrec;
	uint32_t qpn;
	uint32_t dest_qpn;		/* RC: reported as src_qp */
	/* ibv_wr_start() to ibv_wr_complete(): the batch being built */
	struct axon_send_wqe *cur;
	uint32_t wr_pi;			/* its next slot */
	int wr_err;
	bool wr_need_addr;		/* UD, XRC: cur has no destination yet */
	/* RUD: its key, from the modify that last took it out of RESET */
	bool rud_key_valid;
	uint64_t rud_key;
};

/*
 * Commands carrying axon udata: the core command of libibverbs followed,
 * without padding, by the axon request or response of <rdma/axon-abi.h>.
 */
struct axon_alloc_ucontext_cmd {
	struct ibv_get_context ibv_cmd;
	struct axon_alloc_ucontext_req drv_payload;
};

struct axon_alloc_ucontext_cmd_resp {
	struct ib_uverbs_get_context_resp ibv_resp;
	struct axon_alloc_ucontext_resp drv_payload;
};

struct axon_alloc_pd_cmd_resp {
	struct ib_uverbs_alloc_pd_resp ibv_resp;
	struct axon_alloc_pd_resp drv_payload;
};

struct axon_create_cq_cmd_resp {
	struct ib_uverbs_ex_create_cq_resp ibv_resp;
	struct axon_create_cq_resp drv_payload;
};

struct axon_resize_cq_cmd_resp {
	struct ib_uverbs_resize_cq_resp ibv_resp;
	struct axon_resize_cq_resp drv_payload;
};

/* A RUD QP's modify: the extended command, whose response is the key */
struct axon_modify_qp_ex_cmd {
	struct ibv_modify_qp_ex ibv_cmd;
	struct axon_modify_qp_req drv_payload;
};

struct axon_modify_qp_ex_cmd_resp {
	struct ib_uverbs_ex_modify_qp_resp ibv_resp;
	struct axon_modify_qp_resp drv_payload;
};

struct axon_create_qp_cmd {
	struct ibv_create_qp ibv_cmd;
	struct axon_create_qp_req drv_payload;
};

struct axon_create_qp_cmd_resp {
	struct ib_uverbs_create_qp_resp ibv_resp;
	struct axon_create_qp_resp drv_payload;
};

#define AXON_CHECK_DRV_CMD(type, core)					\
	static_assert(offsetof(struct type, drv_payload) == sizeof(core) && \
		      sizeof(struct type) ==				\
			      sizeof(core) +				\
				      sizeof(((struct type *)0)->drv_payload), \
		      #type " has padding around its udata")

/* CREATE_XSRQ (XRC SRQs) has the udata of CREATE_SRQ. */
struct axon_create_srq_cmd_resp {
	struct ib_uverbs_create_srq_resp ibv_resp;
	struct axon_create_srq_resp drv_payload;
};

struct axon_create_ah_cmd_resp {
	struct ib_uverbs_create_ah_resp ibv_resp;
	struct axon_create_ah_resp drv_payload;
};

AXON_CHECK_DRV_CMD(axon_alloc_ucontext_cmd, struct ibv_get_context);
AXON_CHECK_DRV_CMD(axon_alloc_ucontext_cmd_resp,
		   struct ib_uverbs_get_context_resp);
AXON_CHECK_DRV_CMD(axon_alloc_pd_cmd_resp, struct ib_uverbs_alloc_pd_resp);
AXON_CHECK_DRV_CMD(axon_create_cq_cmd_resp,
		   struct ib_uverbs_ex_create_cq_resp);
AXON_CHECK_DRV_CMD(axon_resize_cq_cmd_resp, struct ib_uverbs_resize_cq_resp);
AXON_CHECK_DRV_CMD(axon_create_qp_cmd, struct ibv_create_qp);
AXON_CHECK_DRV_CMD(axon_create_qp_cmd_resp, struct ib_uverbs_create_qp_resp);
AXON_CHECK_DRV_CMD(axon_create_srq_cmd_resp,
		   struct ib_uverbs_create_srq_resp);
AXON_CHECK_DRV_CMD(axon_create_ah_cmd_resp, struct ib_uverbs_create_ah_resp);

#define axon_container_of(ptr, type, member)				\
	((type *)((uintptr_t)(ptr) - offsetof(type, member)))

static inline struct axon_device *to_axon_dev(struct ibv_device *ibdev)
{
	return axon_container_of(verbs_get_device(ibdev), struct axon_device,
				 vdev);
}

static inline struct axon_context *to_axon_ctx(struct ibv_context *ibctx)
{
	return axon_container_of(ibctx, struct axon_context, ibvctx.context);
}

static inline struct axon_pd *to_axon_pd(struct ibv_pd *ibpd)
{
	return axon_container_of(ibpd, struct axon_pd, ibvpd);
}

static inline struct axon_cq *to_axon_cq(struct ibv_cq *ibcq)
{
	return axon_container_of(ibcq, struct axon_cq, vcq.cq);
}

static inline struct axon_cq *to_axon_cq_ex(struct ibv_cq_ex *ibcq)
{
	return axon_container_of(ibcq, struct axon_cq, vcq.cq_ex);
}

static inline struct axon_srq *to_axon_srq(struct ibv_srq *ibsrq)
{
	return axon_container_of(ibsrq, struct axon_srq, vsrq.srq);
}

static inline struct verbs_xrcd *to_verbs_xrcd(struct ibv_xrcd *ibxrcd)
{
	return axon_container_of(ibxrcd, struct verbs_xrcd, xrcd);
}

static inline struct axon_qp *to_axon_qp(struct ibv_qp *ibqp)
{
	return axon_container_of(ibqp, struct axon_qp, vqp.qp);
}

static inline struct axon_qp *to_axon_qp_ex(struct ibv_qp_ex *ibqp)
{
	return axon_container_of(ibqp, struct axon_qp, vqp.qp_ex);
}

/* axon.c */
/* Whether ibdev is an axon device, so its contexts are axon_contexts. */
bool axon_is_axon_dev(struct ibv_device *ibdev);
/* Map one page of the context's at key into *page, once, under its lock. */
int axon_map_ctx_page(struct axon_context *ctx, void **page, uint64_t key,
		      int prot, const char *what);
int axon_map_db_page(struct axon_context *ctx);

/* clock.c: the device clock, for completion timestamps */
int axon_clock_read(struct axon_context *ctx, uint64_t *now);
int axon_clock_sample(struct axon_context *ctx);
uint64_t axon_clock_to_wallclock(struct axon_context *ctx, uint64_t ts);
int axon_query_rt_values(struct ibv_context *context,
			 struct ibv_values_ex *values);
/*
 * A zeroed object of size for a CQ, QP or SRQ, whose doorbells need the
 * context's doorbell page: mapped first. NULL with errno set.
 */
void *axon_queue_alloc(struct axon_context *ctx, size_t size);
int axon_qp_table_add(struct axon_context *ctx, struct axon_qp *qp);
void axon_qp_table_del(struct axon_context *ctx, struct axon_qp *qp);

/*
 * Lock-free lookup by pollers, under the CQ lock: a QP leaves the table
 * only under the locks of its CQs (axon_qp_lock_cqs()).
 */
static inline struct axon_qp *axon_qp_find(struct axon_context *ctx,
					   uint32_t qpn)
{
	struct axon_qp **t;

	if (qpn > AXON_MAX_QPN)
		return NULL;
	t = __atomic_load_n(&ctx->qp_table[qpn >> AXON_QP_TABLE_SHIFT],
			    __ATOMIC_ACQUIRE);
	return t ? __atomic_load_n(&t[qpn & (AXON_QP_TABLE_SIZE - 1)],
				   __ATOMIC_ACQUIRE) : NULL;
}

/* verbs.c */
bool axon_is_pow2(uint64_t v);
void *axon_mmap(struct ibv_context *context, uint64_t key, size_t size);
uint32_t *axon_db(struct axon_context *ctx, unsigned int offset);
bool axon_wq_resp_ok(uint32_t depth, uint8_t shift, uint8_t min_shift,
		     uint64_t size);
void axon_wq_init(struct axon_wq *wq, void *buf, uint32_t depth,
		  uint8_t shift, size_t hdr, uint32_t max_sge);
int axon_query_device_ex(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);
int axon_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *port_attr);
struct ibv_pd *axon_alloc_pd(struct ibv_context *context);
int axon_dealloc_pd(struct ibv_pd *ibpd);
struct ibv_mr *axon_reg_mr(struct ibv_pd *ibpd, void *addr, size_t length,
			   uint64_t hca_va, int access);
struct ibv_mr *axon_reg_dmabuf_mr(struct ibv_pd *ibpd, uint64_t offset,
				  size_t length, uint64_t iova, int fd,
				  int access);
int axon_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		  void *addr, size_t length, int access);
int axon_dereg_mr(struct verbs_mr *vmr);
int axon_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		   uint32_t flags, struct ibv_sge *sg_list, uint32_t num_sge);
struct ibv_cq *axon_create_cq(struct ibv_context *context, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector);
struct ibv_cq_ex *axon_create_cq_ex(struct ibv_context *context,
				    struct ibv_cq_init_attr_ex *attr);
int axon_destroy_cq(struct ibv_cq *ibcq);
int axon_resize_cq(struct ibv_cq *ibcq, int cqe);
struct ibv_qp *axon_create_qp(struct ibv_pd *ibpd,
			      struct ibv_qp_init_attr *attr);
struct ibv_qp *axon_create_qp_ex(struct ibv_context *context,
				 struct ibv_qp_init_attr_ex *attr);
int axon_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask);
int axon_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		  int attr_mask, struct ibv_qp_init_attr *init_attr);
int axon_destroy_qp(struct ibv_qp *ibqp);
struct ibv_qp *axon_open_qp(struct ibv_context *context,
			    struct ibv_qp_open_attr *attr);
struct ibv_xrcd *axon_open_xrcd(struct ibv_context *context,
				struct ibv_xrcd_init_attr *attr);
int axon_close_xrcd(struct ibv_xrcd *ibxrcd);

/* An XRC target QP: no queue, no CQ, no place in the QP table. */
static inline bool axon_qp_is_xrc_tgt(const struct axon_qp *qp)
{
	return qp->vqp.qp.qp_type == IBV_QPT_XRC_RECV;
}

/* ah.c */
struct ibv_ah *axon_create_ah(struct ibv_pd *ibpd, struct ibv_ah_attr *attr);
int axon_destroy_ah(struct ibv_ah *ibah);

/* srq.c */
struct ibv_srq *axon_create_srq(struct ibv_pd *ibpd,
				struct ibv_srq_init_attr *attr);
struct ibv_srq *axon_create_srq_ex(struct ibv_context *context,
				   struct ibv_srq_init_attr_ex *attr);
int axon_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num);
int axon_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		    int attr_mask);
int axon_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int axon_destroy_srq(struct ibv_srq *ibsrq);

/* mw.c */
struct ibv_mw *axon_alloc_mw(struct ibv_pd *ibpd, enum ibv_mw_type type);
int axon_dealloc_mw(struct ibv_mw *mw);

/* io.c: the data path, no system call */
int axon_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr);
int axon_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw,
		 struct ibv_mw_bind *mw_bind);
int axon_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);
int axon_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr);
int axon_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc);
int axon_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
void axon_cq_ex_set_ops(struct axon_cq *cq, uint64_t wc_flags,
			bool single_threaded);
void axon_qp_ex_set_ops(struct axon_qp *qp);
void axon_qp_lock_cqs(struct axon_qp *qp);
void axon_qp_unlock_cqs(struct axon_qp *qp);
void axon_qp_purge_cqes(struct axon_qp *qp);
void axon_qp_reset_queues(struct axon_qp *qp);

#endif /* AXON_PROVIDER_H */
