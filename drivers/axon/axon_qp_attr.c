// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon: queue pair attributes: queue geometry from ib_qp_cap, ib_qp_attr
 * to the device's struct axon_qp_attr and back, QP state, QP events.
 * Shared by axon.ko and the KUnit suites (see axon_qp_attr.h).
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/string.h>

#include "axon_ah_attr.h"
#include "axon_dev_attr.h"
#include "axon_mr_attr.h"
#include "axon_qp_attr.h"

/* The smallest n with 2^n >= x, x > 0. */
static u8 axon_log2_up(u32 x)
{
	return x <= 1 ? 0 : ilog2(x - 1) + 1;
}

/*
 * Queue geometry for the requested capabilities: a send WQE is a 64-byte
 * header and its SGEs or inline data, a receive WQE a 16-byte header and
 * its SGEs, in power-of-2 slots; depths are powers of 2 (at least 1).
 */
int axon_qp_geometry(const struct ib_qp_cap *cap,
		     const struct axon_qp_limits *lim, struct axon_qp_geom *g)
{
	u32 max_wr = min_t(u32, lim->max_wr, AXON_WQ_MAX_DEPTH);
	u32 max_sge = min_t(u32, lim->max_sge, AXON_MAX_SGE);
	u32 max_inline = min_t(u32, lim->max_inline, AXON_MAX_INLINE);
	u32 sq_slot, rq_slot;

	if (cap->max_send_wr > max_wr || cap->max_recv_wr > max_wr ||
	    cap->max_send_sge > max_sge || cap->max_recv_sge > max_sge ||
	    cap->max_inline_data > max_inline)
		return -EINVAL;

	g->sq_depth = roundup_pow_of_two(max_t(u32, cap->max_send_wr, 1));
	g->rq_depth = roundup_pow_of_two(max_t(u32, cap->max_recv_wr, 1));
	g->sq_wqe_shift = max_t(u8, AXON_SQ_MIN_WQE_SHIFT,
				axon_log2_up(sizeof(struct axon_send_wqe) +
					     max(cap->max_send_sge *
						 (u32)sizeof(struct axon_sge),
						 cap->max_inline_data)));
	g->rq_wqe_shift = max_t(u8, AXON_RQ_MIN_WQE_SHIFT,
				axon_log2_up(sizeof(struct axon_recv_wqe) +
					     cap->max_recv_sge *
					     sizeof(struct axon_sge)));
	sq_slot = 1u << g->sq_wqe_shift;
	rq_slot = 1u << g->rq_wqe_shift;
	/* what really fits the slots, within the device's limits */
	g->max_send_sge = min_t(u32, max_sge,
				(sq_slot - sizeof(struct axon_send_wqe)) /
				sizeof(struct axon_sge));
	g->max_recv_sge = min_t(u32, max_sge,
				(rq_slot - sizeof(struct axon_recv_wqe)) /
				sizeof(struct axon_sge));
	g->max_inline = min_t(u32, max_inline,
			      sq_slot - sizeof(struct axon_send_wqe));
	return 0;
}

void axon_qp_geom_caps(const struct axon_qp_geom *g, struct ib_qp_cap *cap)
{
	cap->max_send_wr = g->sq_depth;
	cap->max_recv_wr = g->rq_depth;
	cap->max_send_sge = g->max_send_sge;
	cap->max_recv_sge = g->max_recv_sge;
	cap->max_inline_data = g->max_inline;
}

#define AXON_QP_UNSUPPORTED_MASK (IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE | \
				  IB_QP_CAP | IB_QP_RATE_LIMIT | \
				  IB_QP_EN_SQD_ASYNC_NOTIFY)

static int axon_qp_path_from_ib(const struct rdma_ah_attr *ah, u32 qpn,
				u32 dest_qpn, struct axon_qp_attr *out)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(ah);
	int err;

	err = axon_ah_attr_check(ah);
	if (err)
		return err;
	/* what goes on the wire is RoCE v2, whatever GID was picked */
	if (grh->sgid_attr &&
	    grh->sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	memcpy(out->dmac, ah->roce.dmac, sizeof(out->dmac));
	memcpy(out->dgid, grh->dgid.raw, sizeof(out->dgid));
	out->sgid_index = grh->sgid_index;
	out->hop_limit = grh->hop_limit;
	out->tclass = grh->traffic_class;
	out->flow_label = cpu_to_le32(axon_flow_label(grh));
	out->udp_sport = cpu_to_le16(rdma_get_udp_sport(axon_flow_label(grh), qpn,
							dest_qpn));
	return 0;
}

/*
 * The remote rights a QP of @type grants as responder. A UC QP is only
 * ever written to: REMOTE_READ and REMOTE_ATOMIC mean nothing for it and
 * are dropped, as the IB spec has UC ignore them (ibv_uc_pingpong asks
 * for none, perftest's -c UC for REMOTE_WRITE, rdma-core's tests for all
 * three on every connected QP type).
 */
static u32 axon_qp_remote_access(enum ib_qp_type type)
{
	return type == IB_QPT_UC ? AXON_ACCESS_REMOTE_WRITE :
				   AXON_ACCESS_REMOTE_WRITE |
				   AXON_ACCESS_REMOTE_READ |
				   AXON_ACCESS_REMOTE_ATOMIC;
}

/*
 * ib_qp_attr under @mask (already checked by ib_modify_qp_is_ok() for the
 * QP's type, which keeps RC attributes from UD and UC QPs and the Q_Key
 * from connected ones) as the device's struct axon_qp_attr and attr_mask.
 * Out-of-range values are -EINVAL, attributes no QP on this device can
 * have -EOPNOTSUPP. The P_Key index and the port are checked, not sent:
 * the device has one of each.
 */
int axon_qp_attr_from_ib(const struct ib_qp_attr *attr, int mask,
			 const struct axon_qp_conv *conv,
			 struct axon_qp_attr *out, u32 *out_mask)
{
	u32 dest_qpn = mask & IB_QP_DEST_QPN ? attr->dest_qp_num :
					       conv->dest_qpn;
	u32 m = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if (mask & AXON_QP_UNSUPPORTED_MASK)
		return -EOPNOTSUPP;
	if (mask & IB_QP_STATE) {
		if (attr->qp_state > IB_QPS_ERR)
			return -EINVAL;
		out->state = cpu_to_le32(attr->qp_state);
		m |= AXON_QP_ATTR_STATE;
	}
	if ((mask & IB_QP_PKEY_INDEX && attr->pkey_index) ||
	    (mask & IB_QP_PORT && attr->port_num != 1))
		return -EINVAL;
	if (mask & IB_QP_ACCESS_FLAGS) {
		/*
		 * ON_DEMAND is an MR's flag that consumers pass to QPs too
		 * (rdma-core's ODP tests do); it asks nothing of a QP.
		 */
		if (attr->qp_access_flags &
		    ~(AXON_IB_ACCESS | IB_ACCESS_ON_DEMAND))
			return -EINVAL;
		out->access = cpu_to_le32(attr->qp_access_flags &
					  axon_qp_remote_access(conv->type));
		m |= AXON_QP_ATTR_ACCESS;
	}
	if (mask & IB_QP_AV) {
		err = axon_qp_path_from_ib(&attr->ah_attr, conv->qpn, dest_qpn,
					   out);
		if (err)
			return err;
		m |= AXON_QP_ATTR_PATH;
	}
	if (mask & IB_QP_PATH_MTU) {
		if (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096)
			return -EINVAL;
		out->path_mtu = cpu_to_le32(ib_mtu_enum_to_int(min(attr->path_mtu,
								   conv->active_mtu)));
		m |= AXON_QP_ATTR_PATH_MTU;
	}
	if (mask & IB_QP_DEST_QPN) {
		if (attr->dest_qp_num > AXON_QPN_MASK)
			return -EINVAL;
		out->dest_qpn = cpu_to_le32(attr->dest_qp_num);
		m |= AXON_QP_ATTR_DEST_QPN;
	}
	if (mask & IB_QP_RQ_PSN) {
		if (attr->rq_psn > AXON_PSN_MASK)
			return -EINVAL;
		out->rq_psn = cpu_to_le32(attr->rq_psn);
		m |= AXON_QP_ATTR_RQ_PSN;
	}
	if (mask & IB_QP_SQ_PSN) {
		if (attr->sq_psn > AXON_PSN_MASK)
			return -EINVAL;
		out->sq_psn = cpu_to_le32(attr->sq_psn);
		m |= AXON_QP_ATTR_SQ_PSN;
	}
	if (mask & IB_QP_TIMEOUT) {
		if (attr->timeout > 31)
			return -EINVAL;
		out->timeout = attr->timeout;
		m |= AXON_QP_ATTR_TIMEOUT;
	}
	if (mask & IB_QP_RETRY_CNT) {
		if (attr->retry_cnt > 7)
			return -EINVAL;
		out->retry_cnt = attr->retry_cnt;
		m |= AXON_QP_ATTR_RETRY_CNT;
	}
	if (mask & IB_QP_RNR_RETRY) {
		if (attr->rnr_retry > 7)
			return -EINVAL;
		out->rnr_retry = attr->rnr_retry;
		m |= AXON_QP_ATTR_RNR_RETRY;
	}
	if (mask & IB_QP_MIN_RNR_TIMER) {
		if (attr->min_rnr_timer > 31)
			return -EINVAL;
		out->min_rnr_timer = attr->min_rnr_timer;
		m |= AXON_QP_ATTR_MIN_RNR_TIMER;
	}
	if (mask & IB_QP_MAX_QP_RD_ATOMIC) {
		if (attr->max_rd_atomic > conv->max_rd_atomic)
			return -EINVAL;
		out->max_rd_atomic = attr->max_rd_atomic;
		m |= AXON_QP_ATTR_MAX_RD_ATOMIC;
	}
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC) {
		if (attr->max_dest_rd_atomic > conv->max_rd_atomic)
			return -EINVAL;
		out->max_dest_rd_atomic = attr->max_dest_rd_atomic;
		m |= AXON_QP_ATTR_MAX_DEST_RD_ATOMIC;
	}
	if (mask & IB_QP_QKEY) {
		out->qkey = cpu_to_le32(attr->qkey);
		m |= AXON_QP_ATTR_QKEY;
	}
	*out_mask = m;
	return 0;
}

/* The state in QUERY_QP's answer; a value the core does not know is ERR. */
enum ib_qp_state axon_qp_state_to_ib(const struct axon_qp_attr *in)
{
	return min_t(u32, le32_to_cpu(in->state), IB_QPS_ERR);
}

/*
 * QUERY_QP's answer as ib_qp_attr: the fields a QP of @type has (UD: the
 * Q_Key; UC: RC's but the RDMA read depths, timeouts and retries).
 */
void axon_qp_attr_to_ib(const struct axon_qp_attr *in, enum ib_qp_type type,
			struct ib_qp_attr *attr)
{
	struct rdma_ah_attr *ah = &attr->ah_attr;
	union ib_gid dgid;

	attr->qp_state = axon_qp_state_to_ib(in);
	attr->cur_qp_state = attr->qp_state;
	attr->sq_psn = le32_to_cpu(in->sq_psn) & AXON_PSN_MASK;
	attr->port_num = 1;
	attr->pkey_index = 0;
	if (axon_qp_is_ud(type)) {
		attr->qkey = le32_to_cpu(in->qkey);
		return;
	}

	/* the device's access bits have the values of enum ib_access_flags */
	attr->qp_access_flags = le32_to_cpu(in->access) &
				axon_qp_remote_access(type);
	attr->dest_qp_num = le32_to_cpu(in->dest_qpn) & AXON_QPN_MASK;
	attr->rq_psn = le32_to_cpu(in->rq_psn) & AXON_PSN_MASK;
	attr->path_mtu = axon_mtu_enum(le32_to_cpu(in->path_mtu));
	if (type == IB_QPT_RC) {
		attr->timeout = in->timeout;
		attr->retry_cnt = in->retry_cnt;
		attr->rnr_retry = in->rnr_retry;
		attr->min_rnr_timer = in->min_rnr_timer;
		attr->max_rd_atomic = in->max_rd_atomic;
		attr->max_dest_rd_atomic = in->max_dest_rd_atomic;
	}

	memset(ah, 0, sizeof(*ah));
	ah->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(ah, 1);
	memcpy(dgid.raw, in->dgid, sizeof(dgid.raw));
	rdma_ah_set_grh(ah, &dgid,
			le32_to_cpu(in->flow_label) & AXON_FLOW_LABEL_MASK,
			in->sgid_index, in->hop_limit, in->tclass);
	memcpy(ah->roce.dmac, in->dmac, sizeof(ah->roce.dmac));
}

/* The ib_event of a QP async event; false for other events. */
bool axon_qp_event_type(u16 type, enum ib_event_type *event)
{
	switch (type) {
	case AXON_EVENT_QP_FATAL:
		*event = IB_EVENT_QP_FATAL;
		return true;
	case AXON_EVENT_QP_REQ_ERR:
		*event = IB_EVENT_QP_REQ_ERR;
		return true;
	case AXON_EVENT_QP_ACCESS_ERR:
		*event = IB_EVENT_QP_ACCESS_ERR;
		return true;
	case AXON_EVENT_COMM_EST:
		*event = IB_EVENT_COMM_EST;
		return true;
	case AXON_EVENT_QP_LAST_WQE:
		*event = IB_EVENT_QP_LAST_WQE_REACHED;
		return true;
	default:
		return false;
	}
}

static const char *const axon_qp_state_names[] = {
	[AXON_QPS_RESET] = "RESET",
	[AXON_QPS_INIT] = "INIT",
	[AXON_QPS_RTR] = "RTR",
	[AXON_QPS_RTS] = "RTS",
	[AXON_QPS_SQD] = "SQD",
	[AXON_QPS_SQE] = "SQE",
	[AXON_QPS_ERR] = "ERR",
};

/* The device's QP state (enum axon_qp_state), for people. */
const char *axon_qp_state_name(u32 state)
{
	return state < ARRAY_SIZE(axon_qp_state_names) &&
	       axon_qp_state_names[state] ? axon_qp_state_names[state] : "?";
}
