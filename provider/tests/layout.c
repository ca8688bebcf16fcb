// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Print the layout ibverbs_private.h gives the private libibverbs structs,
 * one "name value" per line, for check-layout to compare with the installed
 * rdma-core binaries.
 */
#include <stdio.h>

#include "../ibverbs_private.h"

#define OPS_FIELDS(X)							\
	X(advise_mr) X(alloc_dm) X(alloc_mw) X(alloc_null_mr)		\
	X(alloc_parent_domain) X(alloc_pd) X(alloc_td) X(async_event)	\
	X(attach_counters_point_flow) X(attach_mcast) X(bind_mw)	\
	X(close_xrcd) X(cq_event) X(create_ah) X(create_counters)	\
	X(create_cq) X(create_cq_ex) X(create_flow)			\
	X(create_flow_action_esp) X(create_qp) X(create_qp_ex)		\
	X(create_rwq_ind_table) X(create_srq) X(create_srq_ex)		\
	X(create_wq) X(dealloc_mw) X(dealloc_pd) X(dealloc_td)		\
	X(dereg_mr) X(destroy_ah) X(destroy_counters) X(destroy_cq)	\
	X(destroy_flow) X(destroy_flow_action) X(destroy_qp)		\
	X(destroy_rwq_ind_table) X(destroy_srq) X(destroy_wq)		\
	X(detach_mcast) X(free_context) X(free_dm) X(get_srq_num)	\
	X(import_dm) X(import_mr) X(import_pd) X(modify_cq)		\
	X(modify_flow_action_esp) X(modify_qp) X(modify_qp_rate_limit)	\
	X(modify_srq) X(modify_wq) X(open_qp) X(open_xrcd) X(poll_cq)	\
	X(post_recv) X(post_send) X(post_srq_ops) X(post_srq_recv)	\
	X(query_device_ex) X(query_ece) X(query_port) X(query_qp)	\
	X(query_qp_data_in_order) X(query_rt_values) X(query_srq)	\
	X(read_counters) X(reg_dm_mr) X(reg_dmabuf_mr) X(reg_mr)	\
	X(req_notify_cq) X(rereg_mr) X(resize_cq) X(set_ece)		\
	X(unimport_dm) X(unimport_mr) X(unimport_pd)

#define DEV_OPS_FIELDS(X)						\
	X(name) X(match_min_abi_version) X(match_max_abi_version)	\
	X(match_table) X(static_providers) X(match_device)		\
	X(alloc_context) X(import_context) X(alloc_device)		\
	X(uninit_device)

#define DEV_FIELDS(X)							\
	X(device) X(ops) X(refcount) X(entry) X(sysfs) X(core_support)

#define MATCH_FIELDS(X) X(driver_data) X(u) X(vendor) X(device) X(kind)
#define MR_FIELDS(X) X(ibv_mr) X(mr_type) X(access)
#define QP_FIELDS(X) X(qp) X(qp_ex) X(comp_mask) X(xrcd)
#define XRCD_FIELDS(X) X(xrcd) X(comp_mask) X(handle)
#define SRQ_FIELDS(X) X(srq) X(srq_type) X(xrcd) X(cq) X(srq_num)

#define PRINT(type, f)							\
	printf("%s.%s %zu\n", #type, #f, offsetof(struct type, f));
#define OPS(f) PRINT(verbs_context_ops, f)
#define DEV_OPS(f) PRINT(verbs_device_ops, f)
#define DEV(f) PRINT(verbs_device, f)
#define MATCH(f) PRINT(verbs_match_ent, f)
#define MR(f) PRINT(verbs_mr, f)
#define QP(f) PRINT(verbs_qp, f)
#define XRCD(f) PRINT(verbs_xrcd, f)
#define SRQ(f) PRINT(verbs_srq, f)
#define COUNT(f) +1

int main(void)
{
	OPS_FIELDS(OPS)
	DEV_OPS_FIELDS(DEV_OPS)
	DEV_FIELDS(DEV)
	MATCH_FIELDS(MATCH)
	MR_FIELDS(MR)
	QP_FIELDS(QP)
	XRCD_FIELDS(XRCD)
	SRQ_FIELDS(SRQ)
	printf("sizeof.verbs_context_ops %zu\n",
	       sizeof(struct verbs_context_ops));
	printf("count.verbs_context_ops %d\n", 0 OPS_FIELDS(COUNT));
	printf("sizeof.verbs_device_ops %zu\n",
	       sizeof(struct verbs_device_ops));
	printf("sizeof.verbs_device %zu\n", sizeof(struct verbs_device));
	printf("sizeof.verbs_match_ent %zu\n",
	       sizeof(struct verbs_match_ent));
	printf("sizeof.verbs_xrcd %zu\n", sizeof(struct verbs_xrcd));
	printf("sizeof.verbs_srq %zu\n", sizeof(struct verbs_srq));
	return 0;
}
