/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The binary interface between NCCL and a network plugin, as this plugin
 * implements it: the tables NCCL looks up in libnccl-net-<name>.so by
 * symbol (ncclNetPlugin_v8 .. ncclNetPlugin_v11), the device properties it
 * asks for, and the result codes, log levels and pointer kinds they carry.
 *
 * Only the layouts are NCCL's: field order, types and sizes follow the
 * plugin headers of NCCL 2.28 (src/include/plugin/net/net_v8.h .. v11.h,
 * nccl_common.h, nccl_device/net_device.h) on an LP64 ABI. The names and
 * words are ours. nccl-net/tests/abi-check.c compares every size and offset
 * with the documented numbers (Documentation/nccl.rst), and the result
 * codes with the installed nccl.h when there is one.
 *
 * What changed from one version to the next, the reason each table exists:
 *   v8   dma-buf registration, regIsGlobal; int sizes
 *   v9   size_t sizes, virtual devices (makeVDevice), maxP2pBytes and
 *        maxCollBytes, forceFlush
 *   v10  a per-connection config (traffic class) and the profiler callback;
 *        isend and irecv take profiler handles
 *   v11  a context per communicator from init, passed to listen and
 *        connect; finalize; setNetAttr; maxMultiRequestSize
 */
#ifndef AXON_NCCL_NET_ABI_H
#define AXON_NCCL_NET_ABI_H

#include <stddef.h>
#include <stdint.h>

/* ncclResult_t: what every entry point returns */
typedef enum {
	NCCL_NET_OK = 0,		/* ncclSuccess */
	NCCL_NET_CUDA_ERROR = 1,	/* ncclUnhandledCudaError */
	NCCL_NET_SYSTEM_ERROR = 2,	/* ncclSystemError: a call failed */
	NCCL_NET_INTERNAL_ERROR = 3,	/* ncclInternalError: our bug/state */
	NCCL_NET_INVALID_ARGUMENT = 4,	/* ncclInvalidArgument */
	NCCL_NET_INVALID_USAGE = 5,	/* ncclInvalidUsage */
	NCCL_NET_REMOTE_ERROR = 6,	/* ncclRemoteError: the peer or wire */
	NCCL_NET_IN_PROGRESS = 7,	/* ncclInProgress */
} nccl_net_result_t;

/* ncclDebugLogLevel */
enum nccl_net_log_level {
	NCCL_NET_LOG_NONE = 0,
	NCCL_NET_LOG_VERSION = 1,
	NCCL_NET_LOG_WARN = 2,
	NCCL_NET_LOG_INFO = 3,
	NCCL_NET_LOG_ABORT = 4,
	NCCL_NET_LOG_TRACE = 5,
};

/* ncclDebugLogSubSys: the bits of the logger's flags we log under */
#define NCCL_NET_LOG_SUBSYS_INIT	0x1
#define NCCL_NET_LOG_SUBSYS_NET		0x10

/* ncclDebugLogger_t: NCCL's logger, handed to init */
typedef void (*nccl_net_logger_t)(enum nccl_net_log_level level,
				  unsigned long subsys, const char *file,
				  int line, const char *fmt, ...);

/* ncclProfilerCallback_t (v10 on): unused here, kept for the signature */
typedef nccl_net_result_t (*nccl_net_profiler_cb_t)(void **event, int type,
						     void *parent,
						     int64_t plugin_id,
						     void *ext_data);

/* ptrSupport bits, and the type argument of regMr/regMrDmaBuf */
#define NCCL_NET_PTR_HOST	0x1
#define NCCL_NET_PTR_CUDA	0x2
#define NCCL_NET_PTR_DMABUF	0x4

/* the opaque connection handle listen fills and connect reads */
#define NCCL_NET_HANDLE_BYTES	128
/* requests NCCL keeps in flight on one comm at most */
#define NCCL_NET_MAX_INFLIGHT	32
/* physical devices one virtual device may merge (v9 on) */
#define NCCL_NET_VDEV_MAX_DEVS	4
/* the largest transfer NCCL will ask for when told nothing (v8) */
#define NCCL_NET_MAX_SIZE_V8	(1024UL * 1024 * 1024)

/* ncclNetDeviceType: 0 is "host", i.e. no device offload */
#define NCCL_NET_DEVICE_HOST	0

/* ncclNetDeviceHandle_v7..v11_t: the offload handle (unused here) */
struct nccl_net_dev_handle {
	int type;			/* ncclNetDeviceType */
	int version;
	void *handle;
	size_t size;
	int needs_proxy_progress;
};

/* ncclNetVDeviceProps_v9..v11_t */
struct nccl_net_vdev_props {
	int ndevs;
	int devs[NCCL_NET_VDEV_MAX_DEVS];
};

/* ncclNetProperties_v8_t */
struct nccl_net_props_v8 {
	char *name;		/* for logs */
	char *pci_path;		/* the NIC's PCI function in /sys */
	uint64_t guid;		/* one per NIC chip */
	int ptr_support;	/* NCCL_NET_PTR_* */
	int reg_is_global;	/* an MR serves every comm of the device */
	int speed;		/* Mbit/s */
	int port;
	float latency;		/* microseconds */
	int max_comms;
	int max_recvs;		/* receives one irecv may group */
	int dev_type;		/* NCCL_NET_DEVICE_HOST */
	int dev_version;
};

/* ncclNetProperties_v9_t and ncclNetProperties_v10_t (the same) */
struct nccl_net_props_v9 {
	char *name;
	char *pci_path;
	uint64_t guid;
	int ptr_support;
	int reg_is_global;
	int force_flush;	/* NCCL must flush every receive */
	int speed;
	int port;
	float latency;
	int max_comms;
	int max_recvs;
	int dev_type;
	int dev_version;
	struct nccl_net_vdev_props vprops;
	size_t max_p2p_bytes;
	size_t max_coll_bytes;
};

/* ncclNetProperties_v11_t: v9's and one field more */
struct nccl_net_props_v11 {
	char *name;
	char *pci_path;
	uint64_t guid;
	int ptr_support;
	int reg_is_global;
	int force_flush;
	int speed;
	int port;
	float latency;
	int max_comms;
	int max_recvs;
	int dev_type;
	int dev_version;
	struct nccl_net_vdev_props vprops;
	size_t max_p2p_bytes;
	size_t max_coll_bytes;
	int max_multi_request_size;
};

/* ncclNetCommConfig_v10_t and _v11_t */
struct nccl_net_comm_config {
	int traffic_class;	/* -1: undefined */
};

/* ncclNetCommAttr_v11_t and ncclNetAttr_v11_t, for setNetAttr */
struct nccl_net_comm_attr {
	int32_t max_concurrent_peers;
	int32_t min_concurrent_peers;
	int32_t max_flows_per_peer;
	int32_t min_flows_per_peer;
};

struct nccl_net_attr {
	struct nccl_net_comm_attr send_comm;
	struct nccl_net_comm_attr recv_comm;
	uint32_t op;
	uint32_t algo;
	uint32_t proto;
};

typedef nccl_net_result_t nres_t;
typedef struct nccl_net_dev_handle ndevh_t;

/* ncclNet_v8_t */
struct nccl_net_v8 {
	const char *name;
	nres_t (*init)(nccl_net_logger_t log);
	nres_t (*devices)(int *ndev);
	nres_t (*get_properties)(int dev, struct nccl_net_props_v8 *props);
	nres_t (*listen)(int dev, void *handle, void **listen_comm);
	nres_t (*connect)(int dev, void *handle, void **send_comm,
			  ndevh_t **send_dev_comm);
	nres_t (*accept)(void *listen_comm, void **recv_comm,
			 ndevh_t **recv_dev_comm);
	nres_t (*reg_mr)(void *comm, void *data, size_t size, int type,
			 void **mhandle);
	nres_t (*reg_mr_dmabuf)(void *comm, void *data, size_t size, int type,
				uint64_t offset, int fd, void **mhandle);
	nres_t (*dereg_mr)(void *comm, void *mhandle);
	nres_t (*isend)(void *send_comm, void *data, int size, int tag,
			void *mhandle, void **request);
	nres_t (*irecv)(void *recv_comm, int n, void **data, int *sizes,
			int *tags, void **mhandles, void **request);
	nres_t (*iflush)(void *recv_comm, int n, void **data, int *sizes,
			 void **mhandles, void **request);
	nres_t (*test)(void *request, int *done, int *sizes);
	nres_t (*close_send)(void *send_comm);
	nres_t (*close_recv)(void *recv_comm);
	nres_t (*close_listen)(void *listen_comm);
	nres_t (*get_device_mr)(void *comm, void *mhandle, void **dptr);
	nres_t (*irecv_consumed)(void *recv_comm, int n, void *request);
};

/* ncclNet_v9_t */
struct nccl_net_v9 {
	const char *name;
	nres_t (*init)(nccl_net_logger_t log);
	nres_t (*devices)(int *ndev);
	nres_t (*get_properties)(int dev, struct nccl_net_props_v9 *props);
	nres_t (*listen)(int dev, void *handle, void **listen_comm);
	nres_t (*connect)(int dev, void *handle, void **send_comm,
			  ndevh_t **send_dev_comm);
	nres_t (*accept)(void *listen_comm, void **recv_comm,
			 ndevh_t **recv_dev_comm);
	nres_t (*reg_mr)(void *comm, void *data, size_t size, int type,
			 void **mhandle);
	nres_t (*reg_mr_dmabuf)(void *comm, void *data, size_t size, int type,
				uint64_t offset, int fd, void **mhandle);
	nres_t (*dereg_mr)(void *comm, void *mhandle);
	nres_t (*isend)(void *send_comm, void *data, size_t size, int tag,
			void *mhandle, void **request);
	nres_t (*irecv)(void *recv_comm, int n, void **data, size_t *sizes,
			int *tags, void **mhandles, void **request);
	nres_t (*iflush)(void *recv_comm, int n, void **data, int *sizes,
			 void **mhandles, void **request);
	nres_t (*test)(void *request, int *done, int *sizes);
	nres_t (*close_send)(void *send_comm);
	nres_t (*close_recv)(void *recv_comm);
	nres_t (*close_listen)(void *listen_comm);
	nres_t (*get_device_mr)(void *comm, void *mhandle, void **dptr);
	nres_t (*irecv_consumed)(void *recv_comm, int n, void *request);
	nres_t (*make_vdevice)(int *dev, struct nccl_net_vdev_props *props);
};

/* ncclNet_v10_t */
struct nccl_net_v10 {
	const char *name;
	nres_t (*init)(nccl_net_logger_t log, nccl_net_profiler_cb_t prof);
	nres_t (*devices)(int *ndev);
	nres_t (*get_properties)(int dev, struct nccl_net_props_v9 *props);
	nres_t (*listen)(int dev, void *handle, void **listen_comm);
	nres_t (*connect)(int dev, struct nccl_net_comm_config *config,
			  void *handle, void **send_comm,
			  ndevh_t **send_dev_comm);
	nres_t (*accept)(void *listen_comm, void **recv_comm,
			 ndevh_t **recv_dev_comm);
	nres_t (*reg_mr)(void *comm, void *data, size_t size, int type,
			 void **mhandle);
	nres_t (*reg_mr_dmabuf)(void *comm, void *data, size_t size, int type,
				uint64_t offset, int fd, void **mhandle);
	nres_t (*dereg_mr)(void *comm, void *mhandle);
	nres_t (*isend)(void *send_comm, void *data, size_t size, int tag,
			void *mhandle, void *phandle, void **request);
	nres_t (*irecv)(void *recv_comm, int n, void **data, size_t *sizes,
			int *tags, void **mhandles, void **phandles,
			void **request);
	nres_t (*iflush)(void *recv_comm, int n, void **data, int *sizes,
			 void **mhandles, void **request);
	nres_t (*test)(void *request, int *done, int *sizes);
	nres_t (*close_send)(void *send_comm);
	nres_t (*close_recv)(void *recv_comm);
	nres_t (*close_listen)(void *listen_comm);
	nres_t (*get_device_mr)(void *comm, void *mhandle, void **dptr);
	nres_t (*irecv_consumed)(void *recv_comm, int n, void *request);
	nres_t (*make_vdevice)(int *dev, struct nccl_net_vdev_props *props);
};

/* ncclNet_v11_t */
struct nccl_net_v11 {
	const char *name;
	nres_t (*init)(void **ctx, uint64_t comm_id,
		       struct nccl_net_comm_config *config,
		       nccl_net_logger_t log, nccl_net_profiler_cb_t prof);
	nres_t (*devices)(int *ndev);
	nres_t (*get_properties)(int dev, struct nccl_net_props_v11 *props);
	nres_t (*listen)(void *ctx, int dev, void *handle, void **listen_comm);
	nres_t (*connect)(void *ctx, int dev, void *handle, void **send_comm,
			  ndevh_t **send_dev_comm);
	nres_t (*accept)(void *listen_comm, void **recv_comm,
			 ndevh_t **recv_dev_comm);
	nres_t (*reg_mr)(void *comm, void *data, size_t size, int type,
			 void **mhandle);
	nres_t (*reg_mr_dmabuf)(void *comm, void *data, size_t size, int type,
				uint64_t offset, int fd, void **mhandle);
	nres_t (*dereg_mr)(void *comm, void *mhandle);
	nres_t (*isend)(void *send_comm, void *data, size_t size, int tag,
			void *mhandle, void *phandle, void **request);
	nres_t (*irecv)(void *recv_comm, int n, void **data, size_t *sizes,
			int *tags, void **mhandles, void **phandles,
			void **request);
	nres_t (*iflush)(void *recv_comm, int n, void **data, int *sizes,
			 void **mhandles, void **request);
	nres_t (*test)(void *request, int *done, int *sizes);
	nres_t (*close_send)(void *send_comm);
	nres_t (*close_recv)(void *recv_comm);
	nres_t (*close_listen)(void *listen_comm);
	nres_t (*get_device_mr)(void *comm, void *mhandle, void **dptr);
	nres_t (*irecv_consumed)(void *recv_comm, int n, void *request);
	nres_t (*make_vdevice)(int *dev, struct nccl_net_vdev_props *props);
	nres_t (*finalize)(void *ctx);
	nres_t (*set_net_attr)(void *ctx, struct nccl_net_attr *attr);
};

#endif /* AXON_NCCL_NET_ABI_H */
