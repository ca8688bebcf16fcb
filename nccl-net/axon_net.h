/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Inside libnccl-net-axon.so: the transport's entry points, shaped as the
 * newest table (v11) wants them; plugin.c adapts the older tables to them.
 */
#ifndef AXON_NET_H
#define AXON_NET_H

#include "nccl_net_abi.h"

/* receives one irecv may group (net_ib groups up to 8 as well) */
#define AXON_NET_MAX_RECVS	8
/* the largest single transfer: one WRITE's SGE length is 32 bits */
#define AXON_NET_MAX_BYTES	(1UL << 30)

extern nccl_net_logger_t axon_net_logger;

#define AXON_NET_LOG(level, subsys, ...)				\
	do {								\
		if (axon_net_logger)					\
			axon_net_logger(level, subsys, __FILE__,	\
					__LINE__, __VA_ARGS__);		\
	} while (0)
#define AXON_NET_WARN(...) \
	AXON_NET_LOG(NCCL_NET_LOG_WARN, NCCL_NET_LOG_SUBSYS_NET, "NET/axon: " __VA_ARGS__)
#define AXON_NET_INFO(subsys, ...) \
	AXON_NET_LOG(NCCL_NET_LOG_INFO, subsys, "NET/axon: " __VA_ARGS__)

nres_t axon_net_init(void **ctx, uint64_t comm_id,
		     struct nccl_net_comm_config *config,
		     nccl_net_logger_t log);
nres_t axon_net_devices(int *ndev);
nres_t axon_net_get_properties(int dev, struct nccl_net_props_v11 *props);
nres_t axon_net_listen(void *ctx, int dev, void *handle, void **listen_comm);
nres_t axon_net_connect(void *ctx, int dev, void *handle, void **send_comm,
			ndevh_t **send_dev_comm);
/* connect with a traffic class (-1: the communicator's or the default) */
nres_t axon_net_connect_tc(void *ctx, int dev, int traffic_class,
			   void *handle, void **send_comm,
			   ndevh_t **send_dev_comm);
nres_t axon_net_accept(void *listen_comm, void **recv_comm,
		       ndevh_t **recv_dev_comm);
nres_t axon_net_reg_mr(void *comm, void *data, size_t size, int type,
		       void **mhandle);
nres_t axon_net_reg_mr_dmabuf(void *comm, void *data, size_t size, int type,
			      uint64_t offset, int fd, void **mhandle);
nres_t axon_net_dereg_mr(void *comm, void *mhandle);
nres_t axon_net_isend(void *send_comm, void *data, size_t size, int tag,
		      void *mhandle, void *phandle, void **request);
nres_t axon_net_irecv(void *recv_comm, int n, void **data, size_t *sizes,
		      int *tags, void **mhandles, void **phandles,
		      void **request);
nres_t axon_net_iflush(void *recv_comm, int n, void **data, int *sizes,
		       void **mhandles, void **request);
nres_t axon_net_test(void *request, int *done, int *sizes);
nres_t axon_net_close_send(void *send_comm);
nres_t axon_net_close_recv(void *recv_comm);
nres_t axon_net_close_listen(void *listen_comm);
nres_t axon_net_get_device_mr(void *comm, void *mhandle, void **dptr);
nres_t axon_net_irecv_consumed(void *recv_comm, int n, void *request);
nres_t axon_net_make_vdevice(int *dev, struct nccl_net_vdev_props *props);
nres_t axon_net_finalize(void *ctx);
nres_t axon_net_set_net_attr(void *ctx, struct nccl_net_attr *attr);

#endif /* AXON_NET_H */
