// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon's details in the rdma tool's resource views (rdma res show
 * qp|cq|mr -dd): what the driver and the device know of an object beyond
 * what the RDMA core shows. A QP's state is the device's own, which may
 * have moved it to ERR, and with AXON_CAP_QP_LIVE so are its PSNs, its
 * send window and its counters, as the transport has them now (one
 * QUERY_QP_LIVE per QP); if the device does not answer, the rest is
 * shown.
 * The rdma tool reads them from one RDMA_NLDEV_ATTR_DRIVER table each.
 *
 * The core asks for them on behalf of any local user, so the device's
 * part of a QP (its state, PSNs, window, counters and the admin command
 * that reads them) goes to CAP_NET_ADMIN only; other users get the
 * driver's own numbers (QPN, queue sizes). The raw records (-r) are
 * CAP_NET_ADMIN's anyway: the core refuses the request to anyone else.
 */

#include <linux/capability.h>
#include <net/netlink.h>
#include <net/sock.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "axon.h"
#include "axon_cmds.h"
#include "axon_mr_attr.h"
#include "axon_qp_attr.h"

/* The transport's live state and the QP's counters, in the device. */
static int axon_res_qp_live(struct sk_buff *msg, const struct axon_qp_live *l)
{
	static const struct {
		const char *name;
		size_t off;
	} counters[] = {
#define AXON_RES_COUNTER(f) { #f, offsetof(struct axon_qp_live, cnt.f) }
		AXON_RES_COUNTER(tx_pkts), AXON_RES_COUNTER(tx_bytes),
		AXON_RES_COUNTER(rx_pkts), AXON_RES_COUNTER(rx_bytes),
		AXON_RES_COUNTER(retrans), AXON_RES_COUNTER(timeouts),
		AXON_RES_COUNTER(seq_naks_sent), AXON_RES_COUNTER(rnr_naks_sent),
		AXON_RES_COUNTER(err_naks_sent), AXON_RES_COUNTER(seq_naks_rcvd),
		AXON_RES_COUNTER(rnr_naks_rcvd), AXON_RES_COUNTER(err_naks_rcvd),
		AXON_RES_COUNTER(out_of_seq), AXON_RES_COUNTER(dup_reqs),
		AXON_RES_COUNTER(stray), AXON_RES_COUNTER(local_errs),
		AXON_RES_COUNTER(remote_errs),
#undef AXON_RES_COUNTER
	};
	size_t i;

	if (rdma_nl_put_driver_string(msg, "hw_state",
				      axon_qp_state_name(le32_to_cpu(l->state))) ||
	    rdma_nl_put_driver_u32_hex(msg, "hw_sq_psn",
				       le32_to_cpu(l->sq_psn)) ||
	    rdma_nl_put_driver_u32_hex(msg, "hw_una_psn",
				       le32_to_cpu(l->una_psn)) ||
	    rdma_nl_put_driver_u32_hex(msg, "hw_rq_psn", le32_to_cpu(l->epsn)) ||
	    rdma_nl_put_driver_u32(msg, "send_window",
				   (u16)(le16_to_cpu(l->sq_fetched) -
					 le16_to_cpu(l->sq_completed))) ||
	    rdma_nl_put_driver_u32(msg, "reads_inflight", l->reads_inflight) ||
	    rdma_nl_put_driver_u32(msg, "retry_left", l->retry_left) ||
	    rdma_nl_put_driver_u32(msg, "rnr_left", l->rnr_left) ||
	    rdma_nl_put_driver_u32_hex(msg, "live_flags", l->flags))
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(counters); i++)
		if (rdma_nl_put_driver_u64(msg, counters[i].name,
					   le64_to_cpup((const __le64 *)
						((const u8 *)l +
						 counters[i].off))))
			return -EMSGSIZE;
	return 0;
}

/*
 * Whether the reader of @msg has CAP_NET_ADMIN, as the core asks it for
 * its own fields (netlink_capable()), which it does not pass on. A dump's
 * message already belongs to the reader's socket: its opener and the
 * caller must both have it. A single object's answer belongs to no
 * socket yet and is built in the context of the request's sender.
 */
static bool axon_res_admin(const struct sk_buff *msg)
{
	if (msg->sk)
		return msg->sk->sk_socket && sk_capable(msg->sk, CAP_NET_ADMIN);
	return capable(CAP_NET_ADMIN);
}

/* The device's part: its state, and with AXON_CAP_QP_LIVE the rest. */
static int axon_res_qp_hw(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct axon_dev *adev = to_adev(ibqp->device);
	struct axon_qp *qp = to_aqp(ibqp);
	struct axon_qp_live live;
	struct axon_qp_attr a;

	if (adev->qp_live) {
		if (!axon_cmd_query_qp_live(&adev->aq, qp->qpn, &live) &&
		    (axon_res_qp_live(msg, &live) ||
		     (adev->planes > 1 && ibqp->qp_type != IB_QPT_UD &&
		      ibqp->qp_type != IB_QPT_GSI &&
		      ibqp->qp_type != IB_QPT_DRIVER &&
		      rdma_nl_put_driver_u32(msg, "hw_plane",
					     AXON_QP_LIVE_GET_PLANE(live.flags)))))
			return -EMSGSIZE;
	} else if (!axon_cmd_query_qp(&adev->aq, qp->qpn, &a) &&
		   rdma_nl_put_driver_string(msg, "hw_state",
					     axon_qp_state_name(le32_to_cpu(a.state)))) {
		return -EMSGSIZE;
	}
	return 0;
}

static int axon_res_qp(struct sk_buff *msg, void *obj)
{
	struct ib_qp *ibqp = obj;
	struct axon_qp *qp = to_aqp(ibqp);

	/* the device's part for CAP_NET_ADMIN only */
	if (axon_res_admin(msg) && axon_res_qp_hw(msg, ibqp))
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "hw_qpn", qp->qpn))
		return -EMSGSIZE;
	/* an XRC target has no queue, but its domain */
	if (qp->xrcdn && rdma_nl_put_driver_u32(msg, "xrcdn", qp->xrcdn))
		return -EMSGSIZE;
	if (axon_qp_has_sq(qp) &&
	    (rdma_nl_put_driver_u32(msg, "sq_depth", qp->sq.depth) ||
	     rdma_nl_put_driver_u32(msg, "sq_wqe_size",
				    1U << qp->sq.wqe_shift)))
		return -EMSGSIZE;
	if (axon_qp_has_rq(qp) &&
	    rdma_nl_put_driver_u32(msg, "rq_depth", qp->rq.depth))
		return -EMSGSIZE;
	/* a kernel QP's WQEs posted and not completed yet */
	if (qp->kernel &&
	    (rdma_nl_put_driver_u32(msg, "sq_outstanding",
				    (u16)(READ_ONCE(qp->sq.head) -
					  READ_ONCE(qp->sq.tail))) ||
	     (axon_qp_has_rq(qp) &&
	      rdma_nl_put_driver_u32(msg, "rq_outstanding",
				     (u16)(READ_ONCE(qp->rq.head) -
					   READ_ONCE(qp->rq.tail))))))
		return -EMSGSIZE;
	return 0;
}

static int axon_res_cq(struct sk_buff *msg, void *obj)
{
	struct ib_cq *ibcq = obj;
	struct axon_cq *cq = to_acq(ibcq);
	unsigned long flags;
	u32 depth, pages;

	/* a resize may be switching the ring */
	spin_lock_irqsave(&cq->lock, flags);
	depth = cq->depth;
	pages = cq->mem.page_dma ? cq->mem.npages : 0;
	spin_unlock_irqrestore(&cq->lock, flags);
	if (rdma_nl_put_driver_u32(msg, "hw_cqn", cq->cqn) ||
	    rdma_nl_put_driver_u32(msg, "depth", depth) ||
	    rdma_nl_put_driver_u32(msg, "ring_pages", pages) ||
	    rdma_nl_put_driver_u32(msg, "cqe_size",
				   AXON_CQ_CQE_SIZE(cq->flags)))
		return -EMSGSIZE;
	return 0;
}

static int axon_res_mr(struct sk_buff *msg, void *obj)
{
	struct ib_mr *ibmr = obj;
	struct axon_mr *mr = to_amr(ibmr);
	const char *kind;

	if (mr->fr.list)
		kind = "fast-reg";
	else if (!mr->umem)
		kind = "dma";
	else if (mr->umem->is_dmabuf)
		kind = "dma-buf";
	else
		kind = "user";
	if (rdma_nl_put_driver_string(msg, "kind", kind))
		return -EMSGSIZE;
	if (mr->npages &&
	    (rdma_nl_put_driver_u32(msg, "page_size", 1U << mr->page_shift) ||
	     rdma_nl_put_driver_u32(msg, "npages", mr->npages)))
		return -EMSGSIZE;
	return 0;
}

/* @put's attributes in the driver table, or none of them. */
static int axon_res_table(struct sk_buff *msg,
			  int (*put)(struct sk_buff *msg, void *obj), void *obj)
{
	struct nlattr *table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	int err;

	if (!table)
		return -EMSGSIZE;
	err = put(msg, obj);
	if (err) {
		nla_nest_cancel(msg, table);
		return err;
	}
	nla_nest_end(msg, table);
	return 0;
}

int axon_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	return axon_res_table(msg, axon_res_qp, ibqp);
}

int axon_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	return axon_res_table(msg, axon_res_cq, ibcq);
}

int axon_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	return axon_res_table(msg, axon_res_mr, ibmr);
}

/*
 * rdma res show qp -r: the device's own records of the QP, as it wrote
 * them (little endian): QUERY_QP's struct axon_qp_attr, then, with
 * AXON_CAP_QP_LIVE, QUERY_QP_LIVE's struct axon_qp_live.
 */
int axon_fill_res_qp_entry_raw(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct axon_dev *adev = to_adev(ibqp->device);
	struct axon_qp *qp = to_aqp(ibqp);
	struct {
		struct axon_qp_attr attr;
		struct axon_qp_live live;
	} __packed raw;
	int len = sizeof(raw.attr);
	int err;

	err = axon_cmd_query_qp(&adev->aq, qp->qpn, &raw.attr);
	if (err)
		return err;
	if (adev->qp_live) {
		err = axon_cmd_query_qp_live(&adev->aq, qp->qpn, &raw.live);
		if (err)
			return err;
		len = sizeof(raw);
	}
	return nla_put(msg, RDMA_NLDEV_ATTR_RES_RAW, len, &raw);
}
