/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon: queue pair attributes: queue geometry from ib_qp_cap, ib_qp_attr
 * to the device's struct axon_qp_attr and back, QP state, QP events.
 *
 * No device, no locks, no allocation; axon.ko and the KUnit suites
 * (kunit/) compile the same axon_qp_attr.c.
 */
#ifndef _AXON_QP_ATTR_H_
#define _AXON_QP_ATTR_H_

#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include <axon/axon_dev.h>

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

int axon_qp_geometry(const struct ib_qp_cap *cap,
		     const struct axon_qp_limits *lim, struct axon_qp_geom *g);
void axon_qp_geom_caps(const struct axon_qp_geom *g, struct ib_qp_cap *cap);

/* The GSI QP (QP1) is a UD QP in all but its number. */
static inline bool axon_qp_is_ud(enum ib_qp_type type)
{
	return type == IB_QPT_UD || type == IB_QPT_GSI;
}

/*
 * The verbs semantics of a QP of @type for its attributes: a RUD driver
 * QP (the only driver QP axon has) is connected like an RC QP and takes
 * RC's attributes and transitions; XRC initiator and target QPs take RC's
 * attributes too (their transitions are the core's XRC ones).
 */
static inline enum ib_qp_type axon_qp_verbs_type(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_DRIVER:
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		return IB_QPT_RC;
	default:
		return type;
	}
}

/* What a modify_qp conversion needs to know besides the attributes. */
struct axon_qp_conv {
	enum ib_qp_type type;
	u32 qpn;
	u32 dest_qpn;		/* the QP's, unless the call sets it */
	enum ib_mtu active_mtu;	/* the port's */
	u32 max_rd_atomic;	/* the device's */
};

int axon_qp_attr_from_ib(const struct ib_qp_attr *attr, int mask,
			 const struct axon_qp_conv *conv,
			 struct axon_qp_attr *out, u32 *out_mask);
enum ib_qp_state axon_qp_state_to_ib(const struct axon_qp_attr *in);
void axon_qp_attr_to_ib(const struct axon_qp_attr *in, enum ib_qp_type type,
			struct ib_qp_attr *attr);
bool axon_qp_event_type(u16 type, enum ib_event_type *event);

const char *axon_qp_state_name(u32 state);

#endif /* _AXON_QP_ATTR_H_ */
