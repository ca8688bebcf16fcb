/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The private provider ABI of libibverbs, as exported by rdma-core 44 under
 * the symbol version IBVERBS_PRIVATE_34.
 *
 * rdma-core builds its providers in-tree against libibverbs/driver.h and
 * libibverbs/kern-abi.h, which no distribution installs: Debian 12 ships
 * libibverbs-dev 44 with only the public headers (infiniband/verbs.h) and the
 * kernel uAPI (rdma/ib_user_verbs.h). An out-of-tree provider therefore has
 * to declare this ABI itself. This header does so for exactly what axon uses,
 * plus every structure whose layout libibverbs reads or writes on our behalf.
 *
 * Nothing here is negotiated at run time: libibverbs trusts the layouts
 * blindly. verbs_set_ops() walks struct verbs_context_ops by field, and
 * try_driver() reads struct verbs_device_ops and writes struct verbs_device
 * inside memory we allocate. Any change of these layouts in rdma-core comes
 * with a new IBVERBS_PRIVATE_<N> version, which is why the Makefile refuses to
 * build unless libibverbs exports IBVERBS_PRIVATE_34, and why the symbols
 * below are bound to that version at link time.
 *
 * The sizes and offsets asserted at the end of this file were read from the
 * installed rdma-core 44 binaries (see provider/tests/check-layout and
 * Documentation/provider.rst); provider/tests/run re-checks them against the
 * libibverbs on the build machine.
 */
#ifndef AXON_IBVERBS_PRIVATE_H
#define AXON_IBVERBS_PRIVATE_H

#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>

/* The "34" in the provider file name and in verbs_register_driver_34. */
#define IBVERBS_PABI_VERSION 34

/* A node of the ccan intrusive doubly linked list used inside libibverbs. */
struct list_node {
	struct list_node *next;
	struct list_node *prev;
};

/*
 * One RDMA device found by libibverbs (in sysfs or over netlink). Providers
 * only receive pointers to it; axon never looks inside, so it stays opaque.
 */
struct verbs_sysfs_dev;

/* verbs_xrcd.comp_mask: VERBS_XRCD_HANDLE says handle is valid. */
enum verbs_xrcd_mask {
	VERBS_XRCD_HANDLE = 1 << 0,
	VERBS_XRCD_RESERVED = 1 << 1,
};

/* An XRC domain; ibv_cmd_open_xrcd() fills it. */
struct verbs_xrcd {
	struct ibv_xrcd xrcd;
	uint32_t comp_mask;
	uint32_t handle;
};

/*
 * A provider's SRQ for ibv_cmd_create_srq_ex(), which fills srq_type, cq
 * and, for an XRC SRQ, xrcd and srq_num (the core response's srqn).
 */
struct verbs_srq {
	struct ibv_srq srq;
	enum ibv_srq_type srq_type;
	struct verbs_xrcd *xrcd;
	struct ibv_cq *cq;
	uint32_t srq_num;
};

/* What kind of memory an MR covers; libibverbs sets it. */
enum ibv_mr_type {
	IBV_MR_TYPE_MR,
	IBV_MR_TYPE_NULL_MR,
	IBV_MR_TYPE_IMPORTED_MR,
	IBV_MR_TYPE_DMABUF_MR,
};

/* A provider embeds these; the ibv_cmd_*() helpers fill them. */
struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum ibv_mr_type mr_type;
	int access;
};

/* verbs_qp.comp_mask: VERBS_QP_EX makes ibv_qp_to_qp_ex() return qp_ex. */
enum verbs_qp_mask {
	VERBS_QP_XRCD = 1 << 0,
	VERBS_QP_EX = 1 << 1,
};

struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;
	struct verbs_xrcd *xrcd;
};

struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

/* How one entry of verbs_device_ops.match_table is compared. */
enum {
	VERBS_MATCH_SENTINEL = 0,	/* ends the table */
	VERBS_MATCH_PCI = 1,		/* vendor/device against the modalias */
	VERBS_MATCH_MODALIAS = 2,	/* fnmatch() pattern on the modalias */
	VERBS_MATCH_DRIVER_ID = 3,	/* enum rdma_driver_id from netlink */
};

struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;			/* VERBS_MATCH_* */
};

struct verbs_device;
struct verbs_context;

/* What a provider hands to verbs_register_driver_34(). */
struct verbs_device_ops {
	const char *name;

	/* Accepted range of the uverbs device's abi_version (driver ABI). */
	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	/* Only used when libibverbs is linked statically; NULL here. */
	const struct verbs_device_ops **static_providers;

	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);

	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd,
					       void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);

	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

/*
 * The provider allocates this (embedded first in its own device struct) from
 * alloc_device; libibverbs fills in every field after the call.
 */
struct verbs_device {
	struct ibv_device device;	/* must stay first */
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

/*
 * Every op a provider may implement, in the order rdma-core 44 declares them
 * (alphabetical). verbs_set_ops() copies each non-NULL member into the
 * context; members left NULL keep libibverbs' defaults, which fail with
 * EOPNOTSUPP (a few "event" and "unimport" ops are no-ops, and
 * query_qp_data_in_order reports no ordering guarantee).
 */
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
	struct ibv_pd *(*alloc_parent_domain)(
		struct ibv_context *context,
		struct ibv_parent_domain_init_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd,
				    struct ibv_ah_attr *attr);
	struct ibv_counters *(*create_counters)(
		struct ibv_context *context,
		struct ibv_counters_init_attr *init_attr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(
		struct ibv_context *context,
		struct ibv_cq_init_attr_ex *init_attr);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp,
					struct ibv_flow_attr *flow_attr);
	struct ibv_flow_action *(*create_flow_action_esp)(
		struct ibv_context *context,
		struct ibv_flow_action_esp_attr *attr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(
		struct ibv_context *context,
		struct ibv_qp_init_attr_ex *qp_init_attr_ex);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(
		struct ibv_context *context,
		struct ibv_rwq_ind_table_init_attr *init_attr);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *srq_init_attr);
	struct ibv_srq *(*create_srq_ex)(
		struct ibv_context *context,
		struct ibv_srq_init_attr_ex *srq_init_attr_ex);
	struct ibv_wq *(*create_wq)(struct ibv_context *context,
				    struct ibv_wq_init_attr *wq_init_attr);
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dealloc_td)(struct ibv_td *td);
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*destroy_flow)(struct ibv_flow *flow);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *rwq_ind_table);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*destroy_wq)(struct ibv_wq *wq);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	void (*free_context)(struct ibv_context *context);
	int (*free_dm)(struct ibv_dm *dm);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_dm *(*import_dm)(struct ibv_context *context,
				    uint32_t dm_handle);
	struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
	struct ibv_pd *(*import_pd)(struct ibv_context *context,
				    uint32_t pd_handle);
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	int (*modify_flow_action_esp)(struct ibv_flow_action *action,
				      struct ibv_flow_action_esp_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*modify_qp_rate_limit)(struct ibv_qp *qp,
				    struct ibv_qp_rate_limit_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
			  int srq_attr_mask);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *wq_attr);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(
		struct ibv_context *context,
		struct ibv_xrcd_init_attr *xrcd_init_attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op,
			    struct ibv_ops_wr **bad_op);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr,
			     struct ibv_recv_wr **bad_recv_wr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	int (*query_qp_data_in_order)(struct ibv_qp *qp,
				      enum ibv_wr_opcode op, uint32_t flags);
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr);
	int (*read_counters)(struct ibv_counters *counters,
			     uint64_t *counters_value, uint32_t ncounters,
			     uint32_t flags);
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	void (*unimport_dm)(struct ibv_dm *dm);
	void (*unimport_mr)(struct ibv_mr *mr);
	void (*unimport_pd)(struct ibv_pd *pd);
};

static inline struct verbs_device *verbs_get_device(const struct ibv_device *dev)
{
	return (struct verbs_device *)((uintptr_t)dev -
				       offsetof(struct verbs_device, device));
}

/*
 * Legacy write() commands. libibverbs lays each one out as the uverbs command
 * header, then the core request of <rdma/ib_user_verbs.h>, then the driver's
 * own request ("udata in"), with no padding between them. A response is the
 * core response followed directly by the driver's response ("udata out").
 * The ibv_cmd_*() helpers take the full size of these wrappers and hand the
 * tail beyond the core part to the kernel driver.
 */
struct ibv_get_context {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_get_context core_payload;
};

struct ibv_query_port {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_port core_payload;
};

struct ibv_alloc_pd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_alloc_pd core_payload;
};

struct ibv_reg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_reg_mr core_payload;
};

struct ibv_rereg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_rereg_mr core_payload;
};

struct ibv_alloc_mw {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_alloc_mw core_payload;
};

struct ibv_resize_cq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_resize_cq core_payload;
};

struct ibv_create_srq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_srq core_payload;
};

struct ibv_modify_srq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_modify_srq core_payload;
};

struct ibv_query_srq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_srq core_payload;
};

struct ibv_create_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_qp core_payload;
};

struct ibv_open_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_open_qp core_payload;
};

struct ibv_open_xrcd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_open_xrcd core_payload;
};

/* CREATE_XSRQ: an SRQ of any type; the response is CREATE_SRQ's. */
struct ibv_create_xsrq {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_xsrq core_payload;
};

struct ibv_modify_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_modify_qp core_payload;
};

struct ibv_query_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_qp core_payload;
};

/* Extended commands: a second header, and 8-byte aligned payloads. */
struct ex_hdr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex_hdr;
};

struct ibv_create_cq_ex {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_create_cq core_payload;
};

struct ibv_modify_qp_ex {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_modify_qp core_payload;
};

/*
 * Logging to VERBS_LOG_FILE (default stderr) at or below VERBS_LOG_LEVEL, as
 * the in-tree providers do.
 */
enum {
	VERBS_LOG_LEVEL_NONE,
	VERBS_LOG_ERR,
	VERBS_LOG_WARN,
	VERBS_LOG_INFO,
	VERBS_LOG_DEBUG,
};

void __verbs_log(struct verbs_context *ctx, uint32_t level,
		 const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define verbs_log(ctx, level, fmt, ...)					\
	do {								\
		int __saved_errno = errno;				\
		__verbs_log(ctx, level, "%s: %s: " fmt,			\
			    (ctx)->context.device->name, __func__,	\
			    ##__VA_ARGS__);				\
		errno = __saved_errno;					\
	} while (0)

#define verbs_err(ctx, fmt, ...) verbs_log(ctx, VERBS_LOG_ERR, fmt, ##__VA_ARGS__)
#define verbs_debug(ctx, fmt, ...) \
	verbs_log(ctx, VERBS_LOG_DEBUG, fmt, ##__VA_ARGS__)

/* Functions of libibverbs.so.1 at version IBVERBS_PRIVATE_34. */
void verbs_register_driver_34(const struct verbs_device_ops *ops);

void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);
void verbs_uninit_context(struct verbs_context *context);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);

int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size);
int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
/* Uses the ioctl interface (write() as fallback); no driver udata. */
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
/*
 * hca_va is the new iova with IBV_REREG_MR_CHANGE_TRANSLATION; updates the
 * keys (and the context with IBV_REREG_MR_CHANGE_PD), not addr or pd.
 */
int ibv_cmd_rereg_mr(struct verbs_mr *vmr, uint32_t flags, void *addr,
		     size_t length, uint64_t hca_va, int access,
		     struct ibv_pd *pd, struct ibv_rereg_mr *cmd,
		     size_t cmd_sz, struct ib_uverbs_rereg_mr_resp *resp,
		     size_t resp_sz);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);
/* ioctl only, no driver udata; returns the errno without setting it. */
int ibv_cmd_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
		      uint32_t flags, struct ibv_sge *sg_list,
		      uint32_t num_sge);
/* Fills mw (context, pd, rkey, handle, type). */
int ibv_cmd_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type,
		     struct ibv_mw *mw, struct ibv_alloc_mw *cmd,
		     size_t cmd_size, struct ib_uverbs_alloc_mw_resp *resp,
		     size_t resp_size);
/* Uses the ioctl interface (write() as fallback); no driver udata. */
int ibv_cmd_dealloc_mw(struct ibv_mw *mw);
/*
 * The write() command: attr needs IBV_XRCD_INIT_ATTR_FD and _OFLAGS
 * (EINVAL; unknown bits EOPNOTSUPP), returned without setting errno.
 * Fills xrcd->xrcd.context, and comp_mask and handle when vxrcd_size
 * covers handle.
 */
int ibv_cmd_open_xrcd(struct ibv_context *context, struct verbs_xrcd *xrcd,
		      int vxrcd_size, struct ibv_xrcd_init_attr *attr,
		      struct ibv_open_xrcd *cmd, size_t cmd_size,
		      struct ib_uverbs_open_xrcd_resp *resp, size_t resp_size);
/* Uses the ioctl interface (write() as fallback); no driver udata. */
int ibv_cmd_close_xrcd(struct verbs_xrcd *xrcd);
/*
 * ioctl only (no write() fallback), no driver udata; fills vmr (keys, pd,
 * addr = offset, length, IBV_MR_TYPE_DMABUF_MR).
 */
int ibv_cmd_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length,
			  uint64_t iova, int fd, int access,
			  struct verbs_mr *vmr);
/* cmd_flags: none used by axon (0). */
int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
/* Waits until every event reported for the CQ has been acknowledged. */
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
/* Sets cq->cqe from the response. */
int ibv_cmd_resize_cq(struct ibv_cq *cq, int cqe, struct ibv_resize_cq *cmd,
		      size_t cmd_size, struct ib_uverbs_resize_cq_resp *resp,
		      size_t resp_size);
/*
 * Fills the ibv_qp part of qp (state RESET, CQs, PD, ...) and
 * attr_ex->cap from the kernel's answer; accepts the PD, XRCD and
 * SEND_OPS_FLAGS init attributes only.
 */
int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct ibv_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp,
			 size_t resp_size);
/*
 * The write() command only: attr needs IBV_QP_OPEN_ATTR_XRCD, _NUM and
 * _TYPE (EINVAL; unknown bits EOPNOTSUPP), returned without setting
 * errno. Fills qp: handle, context, qp_context, qp_num, qp_type, state
 * IBV_QPS_UNKNOWN, no PD, CQs or SRQ, and the XRCD (vqp_sz covers it).
 */
int ibv_cmd_open_qp(struct ibv_context *context, struct verbs_qp *qp,
		    int vqp_sz, struct ibv_qp_open_attr *attr,
		    struct ibv_open_qp *cmd, size_t cmd_size,
		    struct ib_uverbs_create_qp_resp *resp, size_t resp_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd,
		      size_t cmd_size);
/*
 * The extended command, whose response carries driver data: sizes are
 * the whole command and response, the driver's parts after the core's.
 */
int ibv_cmd_modify_qp_ex(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask, struct ibv_modify_qp_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_modify_qp_resp *resp,
			 size_t resp_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);
int ibv_cmd_create_srq(struct ibv_pd *pd, struct ibv_srq *srq,
		       struct ibv_srq_init_attr *attr,
		       struct ibv_create_srq *cmd, size_t cmd_size,
		       struct ib_uverbs_create_srq_resp *resp,
		       size_t resp_size);
/*
 * attr_ex needs IBV_SRQ_INIT_ATTR_PD (EINVAL), and for IBV_SRQT_XRC
 * IBV_SRQ_INIT_ATTR_XRCD and _CQ too (EINVAL, errno set); comp_mask bits
 * from IBV_SRQ_INIT_ATTR_RESERVED on are EOPNOTSUPP. Fills srq->srq
 * (context, handle; not srq_context or pd), srq_type, cq, for XRC xrcd
 * and srq_num, and attr_ex->attr.max_wr/max_sge from the kernel.
 */
int ibv_cmd_create_srq_ex(struct ibv_context *context, struct verbs_srq *srq,
			  struct ibv_srq_init_attr_ex *attr_ex,
			  struct ibv_create_xsrq *cmd, size_t cmd_size,
			  struct ib_uverbs_create_srq_resp *resp,
			  size_t resp_size);
int ibv_cmd_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		       int srq_attr_mask, struct ibv_modify_srq *cmd,
		       size_t cmd_size);
int ibv_cmd_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
		      struct ibv_query_srq *cmd, size_t cmd_size);
int ibv_cmd_destroy_srq(struct ibv_srq *srq);
/*
 * CREATE_AH takes no driver request; resp_size covers the core response
 * and the driver's that follows it. Fills ah->handle and ah->context.
 */
int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp,
		      size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);
/* ATTACH_MCAST and DETACH_MCAST: no driver data either way. */
int ibv_cmd_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);
int ibv_cmd_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid,
			 uint16_t lid);

/*
 * Allocate a provider context of type *drv_ctx_ptr whose struct
 * verbs_context member is ctx_memb, and initialise that member. On failure
 * cmd_fd has been closed and errno is set.
 */
#define verbs_init_and_alloc_context(ibdev, cmd_fd, drv_ctx_ptr, ctx_memb,	\
				     driver_id)					\
	((__typeof__(drv_ctx_ptr))_verbs_init_and_alloc_context(		\
		ibdev, cmd_fd, sizeof(*(drv_ctx_ptr)),				\
		(struct verbs_context *)offsetof(__typeof__(*(drv_ctx_ptr)),	\
						 ctx_memb),			\
		driver_id))

/*
 * Layouts read from rdma-core 44's binaries on x86_64 (LP64). The offsets
 * of verbs_context_ops members are checked one by one against libibverbs.a
 * by provider/tests/check-layout.
 */
#if defined(__x86_64__)
static_assert(sizeof(struct verbs_match_ent) == 24, "verbs_match_ent");
static_assert(offsetof(struct verbs_match_ent, vendor) == 16, "vendor");
static_assert(offsetof(struct verbs_match_ent, device) == 18, "device");
static_assert(offsetof(struct verbs_match_ent, kind) == 20, "kind");
static_assert(sizeof(struct verbs_device_ops) == 72, "verbs_device_ops");
static_assert(offsetof(struct verbs_device_ops, alloc_context) == 40,
	      "alloc_context");
static_assert(offsetof(struct verbs_device_ops, alloc_device) == 56,
	      "alloc_device");
static_assert(offsetof(struct verbs_device_ops, uninit_device) == 64,
	      "uninit_device");
static_assert(sizeof(struct ibv_device) == 664, "ibv_device");
static_assert(offsetof(struct verbs_device, sysfs) == 696, "sysfs");
static_assert(offsetof(struct verbs_device, core_support) == 704,
	      "core_support");
static_assert(sizeof(struct verbs_device) == 712, "verbs_device");
static_assert(sizeof(struct verbs_context_ops) == 76 * sizeof(void *),
	      "verbs_context_ops");
static_assert(sizeof(struct verbs_mr) == 56, "verbs_mr");
static_assert(offsetof(struct verbs_qp, comp_mask) ==
	      sizeof(struct ibv_qp_ex), "verbs_qp.comp_mask");
static_assert(sizeof(struct verbs_xrcd) == 16 &&
	      offsetof(struct verbs_xrcd, comp_mask) == 8 &&
	      offsetof(struct verbs_xrcd, handle) == 12, "verbs_xrcd");
static_assert(sizeof(struct ibv_srq) == 128 &&
	      offsetof(struct verbs_srq, srq_type) == 128 &&
	      offsetof(struct verbs_srq, xrcd) == 136 &&
	      offsetof(struct verbs_srq, cq) == 144 &&
	      offsetof(struct verbs_srq, srq_num) == 152 &&
	      sizeof(struct verbs_srq) == 160, "verbs_srq");
#endif

static_assert(sizeof(struct ibv_get_context) ==
	      sizeof(struct ib_uverbs_cmd_hdr) +
	      sizeof(struct ib_uverbs_get_context), "ibv_get_context");
static_assert(sizeof(struct ibv_query_port) ==
	      sizeof(struct ib_uverbs_cmd_hdr) +
	      sizeof(struct ib_uverbs_query_port), "ibv_query_port");
static_assert(sizeof(struct ibv_alloc_pd) ==
	      sizeof(struct ib_uverbs_cmd_hdr) +
	      sizeof(struct ib_uverbs_alloc_pd), "ibv_alloc_pd");
static_assert(sizeof(struct ibv_alloc_mw) ==
	      sizeof(struct ib_uverbs_cmd_hdr) +
	      sizeof(struct ib_uverbs_alloc_mw), "ibv_alloc_mw");
static_assert(sizeof(struct ibv_create_cq_ex) % 8 == 0, "ibv_create_cq_ex");
static_assert(sizeof(struct ibv_modify_qp_ex) ==
	      sizeof(struct ex_hdr) + sizeof(struct ib_uverbs_ex_modify_qp) &&
	      sizeof(struct ibv_modify_qp_ex) % 8 == 0, "ibv_modify_qp_ex");
static_assert(sizeof(struct ibv_create_srq) ==
	      sizeof(struct ib_uverbs_cmd_hdr) +
	      sizeof(struct ib_uverbs_create_srq), "ibv_create_srq");
static_assert(sizeof(struct ibv_open_qp) ==
	      sizeof(struct ib_uverbs_cmd_hdr) +
	      sizeof(struct ib_uverbs_open_qp), "ibv_open_qp");
static_assert(sizeof(struct ibv_open_xrcd) ==
	      sizeof(struct ib_uverbs_cmd_hdr) +
	      sizeof(struct ib_uverbs_open_xrcd), "ibv_open_xrcd");
static_assert(sizeof(struct ibv_create_xsrq) ==
	      sizeof(struct ib_uverbs_cmd_hdr) +
	      sizeof(struct ib_uverbs_create_xsrq), "ibv_create_xsrq");
static_assert(offsetof(struct verbs_qp, qp_ex.qp_base) == 0, "verbs_qp");
static_assert(offsetof(struct verbs_srq, srq) == 0 &&
	      offsetof(struct verbs_xrcd, xrcd) == 0, "verbs_srq, verbs_xrcd");

#endif /* AXON_IBVERBS_PRIVATE_H */
