/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon libibverbs provider: objects and commands shared by axon.c and verbs.c.
 */
#ifndef AXON_PROVIDER_H
#define AXON_PROVIDER_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/axon-abi.h>

#include "ibverbs_private.h"

#define __maybe_unused __attribute__((unused))

struct axon_device {
	struct verbs_device vdev;	/* must stay first */
	size_t pg_sz;
};

struct axon_context {
	struct verbs_context ibvctx;
	/* Limits the kernel returned in struct axon_alloc_ucontext_resp. */
	uint32_t resp_comp_mask;
	uint32_t max_inline;
	uint32_t max_sge;
	uint32_t max_qp_wr;
	uint32_t max_cqe;
};

struct axon_pd {
	struct ibv_pd ibvpd;
	uint32_t pdn;
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

#define AXON_CHECK_DRV_CMD(type, core)					\
	static_assert(offsetof(struct type, drv_payload) == sizeof(core) && \
		      sizeof(struct type) ==				\
			      sizeof(core) +				\
				      sizeof(((struct type *)0)->drv_payload), \
		      #type " has padding around its udata")

AXON_CHECK_DRV_CMD(axon_alloc_ucontext_cmd, struct ibv_get_context);
AXON_CHECK_DRV_CMD(axon_alloc_ucontext_cmd_resp,
		   struct ib_uverbs_get_context_resp);
AXON_CHECK_DRV_CMD(axon_alloc_pd_cmd_resp, struct ib_uverbs_alloc_pd_resp);

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

/* verbs.c */
int axon_query_device_ex(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);
int axon_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *port_attr);
struct ibv_pd *axon_alloc_pd(struct ibv_context *context);
int axon_dealloc_pd(struct ibv_pd *ibpd);

#endif /* AXON_PROVIDER_H */
