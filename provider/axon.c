// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon libibverbs provider: device matching, registration and contexts.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <axon/axon_dev.h>

#include "axon.h"

static const struct verbs_match_ent axon_table[] = {
	{
		.vendor = AXON_PCI_VENDOR_ID,
		.device = AXON_PCI_DEVICE_ID_NIC,
		.kind = VERBS_MATCH_PCI,
	},
	{}
};

static void axon_free_context(struct ibv_context *ibctx);

/* Ops left out here fail with EOPNOTSUPP through libibverbs' defaults. */
static const struct verbs_context_ops axon_ctx_ops = {
	.advise_mr = axon_advise_mr,
	.alloc_mw = axon_alloc_mw,
	.alloc_pd = axon_alloc_pd,
	/* the kernel checks the QP and the group; the device keeps it */
	.attach_mcast = ibv_cmd_attach_mcast,
	.bind_mw = axon_bind_mw,
	.close_xrcd = axon_close_xrcd,
	.create_ah = axon_create_ah,
	.create_cq = axon_create_cq,
	.create_cq_ex = axon_create_cq_ex,
	.create_qp = axon_create_qp,
	.create_qp_ex = axon_create_qp_ex,
	.create_srq = axon_create_srq,
	.create_srq_ex = axon_create_srq_ex,
	.dealloc_mw = axon_dealloc_mw,
	.dealloc_pd = axon_dealloc_pd,
	.destroy_ah = axon_destroy_ah,
	.dereg_mr = axon_dereg_mr,
	.destroy_cq = axon_destroy_cq,
	.destroy_qp = axon_destroy_qp,
	.destroy_srq = axon_destroy_srq,
	.detach_mcast = ibv_cmd_detach_mcast,
	.free_context = axon_free_context,
	.get_srq_num = axon_get_srq_num,
	.modify_qp = axon_modify_qp,
	.modify_srq = axon_modify_srq,
	.open_qp = axon_open_qp,
	.open_xrcd = axon_open_xrcd,
	.poll_cq = axon_poll_cq,
	.post_recv = axon_post_recv,
	.post_send = axon_post_send,
	.post_srq_recv = axon_post_srq_recv,
	.query_device_ex = axon_query_device_ex,
	.query_port = axon_query_port,
	.query_qp = axon_query_qp,
	.query_rt_values = axon_query_rt_values,
	.query_srq = axon_query_srq,
	.reg_dmabuf_mr = axon_reg_dmabuf_mr,
	.reg_mr = axon_reg_mr,
	.req_notify_cq = axon_req_notify_cq,
	.rereg_mr = axon_rereg_mr,
	.resize_cq = axon_resize_cq,
};

int axon_map_ctx_page(struct axon_context *ctx, void **page, uint64_t key,
		      int prot, const char *what)
{
	void *p;
	int err = 0;

	pthread_mutex_lock(&ctx->lock);
	if (!*page) {
		p = mmap(NULL, AXON_DB_PAGE_SIZE, prot, MAP_SHARED,
			 ctx->ibvctx.context.cmd_fd, key);
		if (p == MAP_FAILED) {
			err = errno;
			verbs_err(&ctx->ibvctx, "cannot map the %s page: %d\n",
				  what, err);
		} else {
			__atomic_store_n(page, p, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&ctx->lock);
	return err;
}

int axon_map_db_page(struct axon_context *ctx)
{
	return axon_map_ctx_page(ctx, &ctx->db_page, ctx->db_mmap_key,
				 PROT_WRITE, "doorbell");
}

void *axon_queue_alloc(struct axon_context *ctx, size_t size)
{
	int err = axon_map_db_page(ctx);

	if (err) {
		errno = err;
		return NULL;
	}
	return calloc(1, size);
}

int axon_qp_table_add(struct axon_context *ctx, struct axon_qp *qp)
{
	struct axon_qp ***t = &ctx->qp_table[qp->qpn >> AXON_QP_TABLE_SHIFT];
	struct axon_qp **table;
	int err = 0;

	/* Release stores: axon_qp_find() reads without the lock. */
	pthread_mutex_lock(&ctx->lock);
	table = *t;
	if (!table) {
		table = calloc(AXON_QP_TABLE_SIZE, sizeof(*table));
		if (table)
			__atomic_store_n(t, table, __ATOMIC_RELEASE);
	}
	if (table)
		__atomic_store_n(&table[qp->qpn & (AXON_QP_TABLE_SIZE - 1)],
				 qp, __ATOMIC_RELEASE);
	else
		err = ENOMEM;
	pthread_mutex_unlock(&ctx->lock);
	return err;
}

/* Called with ctx->lock and the QP's CQ locks held. */
void axon_qp_table_del(struct axon_context *ctx, struct axon_qp *qp)
{
	__atomic_store_n(&ctx->qp_table[qp->qpn >> AXON_QP_TABLE_SHIFT]
				       [qp->qpn & (AXON_QP_TABLE_SIZE - 1)],
			 NULL, __ATOMIC_RELAXED);
}

static struct verbs_context *axon_alloc_context(struct ibv_device *ibdev,
						int cmd_fd,
						void *private_data __maybe_unused)
{
	struct axon_alloc_ucontext_cmd_resp resp = {};
	struct axon_alloc_ucontext_cmd cmd = {};
	struct axon_context *ctx;
	int err;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibvctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	/* No optional request fields are defined yet. */
	cmd.drv_payload.comp_mask = 0;

	err = ibv_cmd_get_context(&ctx->ibvctx, &cmd.ibv_cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_err(&ctx->ibvctx, "ibv_cmd_get_context failed: %d\n",
			  err);
		goto err_uninit;
	}

	ctx->resp_comp_mask = resp.drv_payload.comp_mask;
	ctx->max_inline = resp.drv_payload.max_inline;
	ctx->max_sge = resp.drv_payload.max_sge;
	ctx->max_qp_wr = resp.drv_payload.max_qp_wr;
	ctx->max_cqe = resp.drv_payload.max_cqe;
	ctx->db_mmap_key = resp.drv_payload.db_mmap_key;
	ctx->clock_mmap_key = resp.drv_payload.clock_mmap_key;
	pthread_mutex_init(&ctx->lock, NULL);

	verbs_set_ops(&ctx->ibvctx, &axon_ctx_ops);

	return &ctx->ibvctx;

err_uninit:
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
	errno = err;
	return NULL;
}

static void axon_free_context(struct ibv_context *ibctx)
{
	struct axon_context *ctx = to_axon_ctx(ibctx);
	int i;

	for (i = 0; i < AXON_QP_TABLES; i++)
		free(ctx->qp_table[i]);
	if (ctx->db_page)
		munmap(ctx->db_page, AXON_DB_PAGE_SIZE);
	if (ctx->clock_page)
		munmap(ctx->clock_page, AXON_DB_PAGE_SIZE);
	pthread_mutex_destroy(&ctx->lock);
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
}

static struct verbs_device *
axon_device_alloc(struct verbs_sysfs_dev *sysfs_dev __maybe_unused)
{
	struct axon_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;

	dev->pg_sz = sysconf(_SC_PAGESIZE);

	return &dev->vdev;
}

static void axon_uninit_device(struct verbs_device *vdev)
{
	struct axon_device *dev = to_axon_dev(&vdev->device);

	free(dev);
}

static const struct verbs_device_ops axon_dev_ops = {
	.name = "axon",
	.match_min_abi_version = AXON_UVERBS_ABI_VERSION,
	.match_max_abi_version = AXON_UVERBS_ABI_VERSION,
	.match_table = axon_table,
	.alloc_device = axon_device_alloc,
	.uninit_device = axon_uninit_device,
	.alloc_context = axon_alloc_context,
};

bool axon_is_axon_dev(struct ibv_device *ibdev)
{
	return verbs_get_device(ibdev)->ops == &axon_dev_ops;
}

/*
 * libibverbs dlopen()s the provider; registering from a constructor is all
 * a shared provider does at load time (rdma-core's PROVIDER_DRIVER()).
 */
static __attribute__((constructor)) void axon_register_driver(void)
{
	verbs_register_driver_34(&axon_dev_ops);
}
