/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon pure helpers: conversions between device values and verbs values,
 * and uverbs request checks. No device, no locks, no allocation; axon.ko
 * and the KUnit suites (kunit/) compile the same axon_util.c.
 */
#ifndef _AXON_UTIL_H_
#define _AXON_UTIL_H_

#include <linux/types.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/axon-abi.h>

#include <axon/axon_dev.h>

#include "axon_compat.h"

u64 axon_fw_ver(u32 reg);
void axon_fw_string(u32 reg, char *buf, size_t len);
enum ib_mtu axon_mtu_enum(u32 bytes);
void axon_speed_width(u32 mbps, u16 *speed, u8 *width);
enum axon_gid_type axon_gid_type(enum ib_gid_type type);
u64 axon_counter_widen(u64 *sum, u32 *last, u32 now);
int axon_check_ucontext_req(const struct axon_alloc_ucontext_req *req,
			    bool tail_zero);

/* Page lists */
#define AXON_PBL_LEAF_SIZE (AXON_PBL_LEAF_ENTRIES * sizeof(__le64))

static inline u32 axon_pbl_levels(size_t npages)
{
	return npages <= AXON_PBL_LEAF_ENTRIES ? 1 : 2;
}

static inline size_t axon_pbl_leaves(size_t npages)
{
	return DIV_ROUND_UP(npages, AXON_PBL_LEAF_ENTRIES);
}

int axon_mr_layout(struct ib_umem *umem, unsigned long pgsz_bitmap, u64 iova,
		   unsigned long *pgsz, size_t *npages);
int axon_pbl_fill(struct ib_umem *umem, unsigned long pgsz,
		  __le64 *const *leaves, size_t npages);
u32 axon_mr_access(int ib_access);
int axon_check_mr_access(int ib_access);

/* CQs */
int axon_cq_depth(int cqe, u32 max_cqe, u32 *depth);
int axon_check_create_cq_udata(bool in_zero, size_t outlen);
int axon_cqe_to_wc(const struct axon_cqe *cqe, struct ib_wc *wc);
struct axon_cqe *axon_cqe_at(void *ring, u32 depth, u32 idx);
u32 axon_cq_purge(void *ring, u32 depth, u32 cons, u32 qpn);

/* QPs */
struct axon_qp_geom {
	u32 sq_depth;
	u32 rq_depth;
	u8 sq_wqe_shift;
	u8 rq_wqe_shift;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline;
};

/* What the device allows per QP (from QUERY_DEVICE and axon_dev.h). */
struct axon_qp_limits {
	u32 max_wr;
	u32 max_sge;
	u32 max_inline;
};

/* Whether @idx names a posted, not yet completed WQE: in [tail, head). */
static inline bool axon_wq_index_pending(u16 tail, u16 head, u16 idx)
{
	return ((idx - tail) & U16_MAX) < ((head - tail) & U16_MAX);
}

int axon_qp_geometry(const struct ib_qp_cap *cap,
		     const struct axon_qp_limits *lim, struct axon_qp_geom *g);
void axon_qp_geom_caps(const struct axon_qp_geom *g, struct ib_qp_cap *cap);
int axon_check_create_qp_req(const struct axon_create_qp_req *req,
			     bool tail_zero, size_t outlen);

/* What a modify_qp conversion needs to know besides the attributes. */
struct axon_qp_conv {
	u32 qpn;
	u32 dest_qpn;		/* the QP's, unless the call sets it */
	enum ib_mtu active_mtu;	/* the port's */
	u32 max_rd_atomic;	/* the device's */
};

int axon_qp_attr_from_ib(const struct ib_qp_attr *attr, int mask,
			 const struct axon_qp_conv *conv,
			 struct axon_qp_attr *out, u32 *out_mask);
enum ib_qp_state axon_qp_state_to_ib(const struct axon_qp_attr *in);
void axon_qp_attr_to_ib(const struct axon_qp_attr *in, struct ib_qp_attr *attr);
bool axon_qp_event_type(u16 type, enum ib_event_type *event);
int axon_build_send_wqe(const struct ib_send_wr *wr, void *slot,
			u32 slot_size, u32 max_sge, u32 max_inline,
			bool sig_all);
int axon_build_recv_wqe(const struct ib_recv_wr *wr, void *slot,
			u32 max_sge);

#endif /* _AXON_UTIL_H_ */
