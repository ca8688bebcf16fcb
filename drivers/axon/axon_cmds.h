/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* axon admin commands: one typed wrapper per command, no verbs objects. */
#ifndef _AXON_CMDS_H_
#define _AXON_CMDS_H_

#include <axon/axon_dev.h>

#include "axon_admin.h"

int axon_cmd_query_device(struct axon_admin_queue *aq,
			  struct axon_dev_attr *attr);
int axon_cmd_query_port(struct axon_admin_queue *aq, u32 port,
			struct axon_port_attr *attr);
int axon_cmd_create_pd(struct axon_admin_queue *aq, u32 *pdn);
int axon_cmd_destroy_pd(struct axon_admin_queue *aq, u32 pdn);
int axon_cmd_set_gid(struct axon_admin_queue *aq, u32 port, u32 index,
		     enum axon_gid_type type, const u8 *gid);

/* CREATE_MR parameters, CPU byte order (see struct axon_admin_mr). */
struct axon_mr_params {
	u32 pdn;
	u32 access;		/* AXON_ACCESS_* */
	u64 iova;
	u64 length;
	dma_addr_t pbl_addr;
	u32 npages;
	u8 page_shift;
	u8 levels;
	u16 flags;		/* AXON_MR_FAST_REG, AXON_MR_ODP */
};

/*
 * A CQ ring for CREATE_CQ and RESIZE_CQ (see struct axon_admin_cq): its
 * address, or with npages the address of its page list.
 */
struct axon_cq_ring_params {
	dma_addr_t addr;
	u32 depth;
	u32 npages;
	u8 levels;
	u8 flags;			/* AXON_CQ_TIMESTAMP or 0 */
};

/* CREATE_QP parameters, CPU byte order (see struct axon_admin_create_qp). */
struct axon_qp_params {
	u32 pdn;
	u32 send_cqn;
	u32 recv_cqn;
	u32 uar;
	dma_addr_t sq_addr;
	dma_addr_t rq_addr;
	u32 sq_depth;
	u32 rq_depth;
	u8 sq_wqe_shift;
	u8 rq_wqe_shift;
	bool sq_sig_all;
	u32 srqn;			/* 0: the QP's own RQ */
	u32 xrcdn;			/* AXON_QPT_XRC_TGT's domain, else 0 */
	enum axon_qp_type type;
	u8 flags;			/* AXON_QP_SQ_DBREC */
};

/* CREATE_SRQ parameters, CPU byte order (see struct axon_admin_srq). */
struct axon_srq_params {
	u32 pdn;
	u32 uar;
	dma_addr_t ring;
	u32 depth;
	u8 wqe_shift;
	u32 limit;
	u32 xrcdn;			/* an XRC SRQ's domain, else 0 */
	u32 cqn;			/* an XRC SRQ's CQ, else 0 */
};

int axon_cmd_create_mr(struct axon_admin_queue *aq,
		       const struct axon_mr_params *p, u32 *key);
int axon_cmd_rereg_mr(struct axon_admin_queue *aq, u32 key,
		      const struct axon_mr_params *p);
int axon_cmd_destroy_mr(struct axon_admin_queue *aq, u32 key);
int axon_cmd_invalidate_mr(struct axon_admin_queue *aq, u32 key);
int axon_cmd_remap_mr(struct axon_admin_queue *aq, u32 key,
		      const struct axon_mr_params *p);
int axon_cmd_create_cq(struct axon_admin_queue *aq,
		       const struct axon_cq_ring_params *ring, u32 uar, u32 *cqn);
int axon_cmd_destroy_cq(struct axon_admin_queue *aq, u32 cqn);
int axon_cmd_resize_cq(struct axon_admin_queue *aq, u32 cqn,
		       const struct axon_cq_ring_params *ring);
int axon_cmd_create_qp(struct axon_admin_queue *aq,
		       const struct axon_qp_params *p, u32 *qpn);
int axon_cmd_modify_qp(struct axon_admin_queue *aq, u32 qpn, u32 attr_mask,
		       const struct axon_qp_attr *attr, u64 *result);
int axon_cmd_modify_qp_err(struct axon_admin_queue *aq, u32 qpn);
int axon_cmd_query_qp(struct axon_admin_queue *aq, u32 qpn,
		      struct axon_qp_attr *attr);
int axon_cmd_query_qp_live(struct axon_admin_queue *aq, u32 qpn,
			   struct axon_qp_live *live);
int axon_cmd_wire_test(struct axon_admin_queue *aq, u32 mask,
		       u32 *drop_every, u32 *reorder_every);
int axon_cmd_counter_set(struct axon_admin_queue *aq, u16 opcode, u32 set,
			 u32 qpn, struct axon_qp_counters *counters,
			 u32 *result);
int axon_cmd_destroy_qp(struct axon_admin_queue *aq, u32 qpn);
int axon_cmd_mcast(struct axon_admin_queue *aq, u16 opcode, u32 qpn,
		   const u8 *gid);
int axon_cmd_odp_pages(struct axon_admin_queue *aq, u16 opcode, u32 key,
		       u32 first, u32 npages, dma_addr_t pbl_addr, u8 levels);
int axon_cmd_resume_qp(struct axon_admin_queue *aq, u32 qpn, u8 status);
int axon_cmd_create_srq(struct axon_admin_queue *aq,
			const struct axon_srq_params *p, u32 *srqn);
int axon_cmd_modify_srq(struct axon_admin_queue *aq, u32 srqn, u32 limit);
int axon_cmd_query_srq(struct axon_admin_queue *aq, u32 srqn, u32 *limit);
int axon_cmd_destroy_srq(struct axon_admin_queue *aq, u32 srqn);
int axon_cmd_create_mw(struct axon_admin_queue *aq, u32 pdn, u16 flags,
		       u32 *key);

#endif /* _AXON_CMDS_H_ */
