// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon's details in the rdma tool's resource views (rdma res show
 * qp|cq|mr -dd): what the driver and the device know of an object beyond
 * what the RDMA core shows. A QP's state is the device's own, which may
 * have moved it to ERR; if the device does not answer, the rest is shown.
 * The rdma tool reads them from one RDMA_NLDEV_ATTR_DRIVER table each.
 */

#include <net/netlink.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "axon.h"
#include "axon_cmds.h"
#include "axon_mr_attr.h"

static const char *const axon_qp_state_names[] = {
	[AXON_QPS_RESET] = "RESET",
	[AXON_QPS_INIT] = "INIT",
	[AXON_QPS_RTR] = "RTR",
	[AXON_QPS_RTS] = "RTS",
	[AXON_QPS_SQD] = "SQD",
	[AXON_QPS_SQE] = "SQE",
	[AXON_QPS_ERR] = "ERR",
};

static const char *axon_qp_state_name(u32 state)
{
	return state < ARRAY_SIZE(axon_qp_state_names) &&
	       axon_qp_state_names[state] ? axon_qp_state_names[state] : "?";
}

static int axon_res_qp(struct sk_buff *msg, void *obj)
{
	struct ib_qp *ibqp = obj;
	struct axon_dev *adev = to_adev(ibqp->device);
	struct axon_qp *qp = to_aqp(ibqp);
	struct axon_qp_attr a;

	if (!axon_cmd_query_qp(&adev->aq, qp->qpn, &a) &&
	    rdma_nl_put_driver_string(msg, "hw_state",
				      axon_qp_state_name(le32_to_cpu(a.state))))
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "hw_qpn", qp->qpn) ||
	    rdma_nl_put_driver_u32(msg, "sq_depth", qp->sq.depth) ||
	    rdma_nl_put_driver_u32(msg, "sq_wqe_size", 1U << qp->sq.wqe_shift))
		return -EMSGSIZE;
	if (!qp->srq && rdma_nl_put_driver_u32(msg, "rq_depth", qp->rq.depth))
		return -EMSGSIZE;
	/* a kernel QP's WQEs posted and not completed yet */
	if (qp->kernel &&
	    (rdma_nl_put_driver_u32(msg, "sq_outstanding",
				    (u16)(READ_ONCE(qp->sq.head) -
					  READ_ONCE(qp->sq.tail))) ||
	     (!qp->srq &&
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
