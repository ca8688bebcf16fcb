// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The tables NCCL's loader looks up in libnccl-net-axon.so: the newest it
 * knows first (ncclNetPlugin_v11 for NCCL 2.28), then older ones, so one
 * library serves NCCL releases back to v8's. Each older table adapts its
 * arguments to the transport's v11-shaped entry points (axon_net.h).
 */
#include <string.h>

#include "axon_net.h"

#define EXPORT __attribute__((visibility("default")))
#define PLUGIN_NAME "axon"

/* v8 to v10 have no per-communicator context: one shared, made once */
static void *legacy_ctx;

static nres_t init_legacy(nccl_net_logger_t log)
{
	return axon_net_init(legacy_ctx ? NULL : &legacy_ctx, 0, NULL, log);
}

static nres_t init_v10(nccl_net_logger_t log, nccl_net_profiler_cb_t prof)
{
	(void)prof;
	return init_legacy(log);
}

static nres_t init_v11(void **ctx, uint64_t comm_id,
		       struct nccl_net_comm_config *config,
		       nccl_net_logger_t log, nccl_net_profiler_cb_t prof)
{
	(void)prof;
	return axon_net_init(ctx, comm_id, config, log);
}

static nres_t props_v9(int dev, struct nccl_net_props_v9 *p)
{
	struct nccl_net_props_v11 q;
	nres_t ret;

	if (!p)
		return NCCL_NET_INVALID_ARGUMENT;
	ret = axon_net_get_properties(dev, &q);
	if (ret)
		return ret;
	/* v9 and v10 are v11 without its last field */
	memcpy(p, &q, sizeof(*p));
	return NCCL_NET_OK;
}

static nres_t props_v8(int dev, struct nccl_net_props_v8 *p)
{
	struct nccl_net_props_v11 q;
	nres_t ret;

	if (!p)
		return NCCL_NET_INVALID_ARGUMENT;
	ret = axon_net_get_properties(dev, &q);
	if (ret)
		return ret;
	*p = (struct nccl_net_props_v8){
		.name = q.name, .pci_path = q.pci_path, .guid = q.guid,
		.ptr_support = q.ptr_support, .reg_is_global = q.reg_is_global,
		.speed = q.speed, .port = q.port, .latency = q.latency,
		.max_comms = q.max_comms, .max_recvs = q.max_recvs,
		.dev_type = q.dev_type, .dev_version = q.dev_version,
	};
	return NCCL_NET_OK;
}

static nres_t listen_legacy(int dev, void *handle, void **listen_comm)
{
	return axon_net_listen(legacy_ctx, dev, handle, listen_comm);
}

static nres_t connect_legacy(int dev, void *handle, void **send_comm,
			     ndevh_t **send_dev_comm)
{
	return axon_net_connect(legacy_ctx, dev, handle, send_comm,
				send_dev_comm);
}

static nres_t connect_v10(int dev, struct nccl_net_comm_config *config,
			  void *handle, void **send_comm,
			  ndevh_t **send_dev_comm)
{
	/* the connection's traffic class; -1 (or no config): the default */
	return axon_net_connect_tc(legacy_ctx, dev,
				   config ? config->traffic_class : -1,
				   handle, send_comm, send_dev_comm);
}

static nres_t isend_v9(void *send_comm, void *data, size_t size, int tag,
		       void *mhandle, void **request)
{
	return axon_net_isend(send_comm, data, size, tag, mhandle, NULL,
			      request);
}

static nres_t isend_v8(void *send_comm, void *data, int size, int tag,
		       void *mhandle, void **request)
{
	if (size < 0)
		return NCCL_NET_INVALID_ARGUMENT;
	return isend_v9(send_comm, data, (size_t)size, tag, mhandle, request);
}

static nres_t irecv_v9(void *recv_comm, int n, void **data, size_t *sizes,
		       int *tags, void **mhandles, void **request)
{
	return axon_net_irecv(recv_comm, n, data, sizes, tags, mhandles, NULL,
			      request);
}

static nres_t irecv_v8(void *recv_comm, int n, void **data, int *sizes,
		       int *tags, void **mhandles, void **request)
{
	size_t wide[AXON_NET_MAX_RECVS];

	if (n < 1 || n > AXON_NET_MAX_RECVS || !sizes)
		return NCCL_NET_INVALID_ARGUMENT;
	for (int i = 0; i < n; i++) {
		if (sizes[i] < 0)
			return NCCL_NET_INVALID_ARGUMENT;
		wide[i] = (size_t)sizes[i];
	}
	return irecv_v9(recv_comm, n, data, wide, tags, mhandles, request);
}

EXPORT const struct nccl_net_v11 ncclNetPlugin_v11 = {
	.name = PLUGIN_NAME,
	.init = init_v11,
	.devices = axon_net_devices,
	.get_properties = axon_net_get_properties,
	.listen = axon_net_listen,
	.connect = axon_net_connect,
	.accept = axon_net_accept,
	.reg_mr = axon_net_reg_mr,
	.reg_mr_dmabuf = axon_net_reg_mr_dmabuf,
	.dereg_mr = axon_net_dereg_mr,
	.isend = axon_net_isend,
	.irecv = axon_net_irecv,
	.iflush = axon_net_iflush,
	.test = axon_net_test,
	.close_send = axon_net_close_send,
	.close_recv = axon_net_close_recv,
	.close_listen = axon_net_close_listen,
	.get_device_mr = axon_net_get_device_mr,
	.irecv_consumed = axon_net_irecv_consumed,
	.make_vdevice = axon_net_make_vdevice,
	.finalize = axon_net_finalize,
	.set_net_attr = axon_net_set_net_attr,
};

EXPORT const struct nccl_net_v10 ncclNetPlugin_v10 = {
	.name = PLUGIN_NAME,
	.init = init_v10,
	.devices = axon_net_devices,
	.get_properties = props_v9,
	.listen = listen_legacy,
	.connect = connect_v10,
	.accept = axon_net_accept,
	.reg_mr = axon_net_reg_mr,
	.reg_mr_dmabuf = axon_net_reg_mr_dmabuf,
	.dereg_mr = axon_net_dereg_mr,
	.isend = axon_net_isend,
	.irecv = axon_net_irecv,
	.iflush = axon_net_iflush,
	.test = axon_net_test,
	.close_send = axon_net_close_send,
	.close_recv = axon_net_close_recv,
	.close_listen = axon_net_close_listen,
	.get_device_mr = axon_net_get_device_mr,
	.irecv_consumed = axon_net_irecv_consumed,
	.make_vdevice = axon_net_make_vdevice,
};

EXPORT const struct nccl_net_v9 ncclNetPlugin_v9 = {
	.name = PLUGIN_NAME,
	.init = init_legacy,
	.devices = axon_net_devices,
	.get_properties = props_v9,
	.listen = listen_legacy,
	.connect = connect_legacy,
	.accept = axon_net_accept,
	.reg_mr = axon_net_reg_mr,
	.reg_mr_dmabuf = axon_net_reg_mr_dmabuf,
	.dereg_mr = axon_net_dereg_mr,
	.isend = isend_v9,
	.irecv = irecv_v9,
	.iflush = axon_net_iflush,
	.test = axon_net_test,
	.close_send = axon_net_close_send,
	.close_recv = axon_net_close_recv,
	.close_listen = axon_net_close_listen,
	.get_device_mr = axon_net_get_device_mr,
	.irecv_consumed = axon_net_irecv_consumed,
	.make_vdevice = axon_net_make_vdevice,
};

EXPORT const struct nccl_net_v8 ncclNetPlugin_v8 = {
	.name = PLUGIN_NAME,
	.init = init_legacy,
	.devices = axon_net_devices,
	.get_properties = props_v8,
	.listen = listen_legacy,
	.connect = connect_legacy,
	.accept = axon_net_accept,
	.reg_mr = axon_net_reg_mr,
	.reg_mr_dmabuf = axon_net_reg_mr_dmabuf,
	.dereg_mr = axon_net_dereg_mr,
	.isend = isend_v8,
	.irecv = irecv_v8,
	.iflush = axon_net_iflush,
	.test = axon_net_test,
	.close_send = axon_net_close_send,
	.close_recv = axon_net_close_recv,
	.close_listen = axon_net_close_listen,
	.get_device_mr = axon_net_get_device_mr,
	.irecv_consumed = axon_net_irecv_consumed,
};
