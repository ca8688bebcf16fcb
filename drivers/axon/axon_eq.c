// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon event queues. Async events (port state, fatal errors, CQ and QP
 * errors, page faults) are handled in a threaded interrupt so that they
 * can be passed straight to the RDMA core (a page fault is passed to its
 * QP's work, axon_odp.c); completion events call the CQ's completion
 * handler from the hard interrupt, as consumers expect.
 *
 * CQs, QPs and SRQs are looked up by number in xarrays. Their destroy verbs
 * erase them and then synchronize both interrupts, so a handler never
 * uses an object that is being freed.
 */

#include <linux/dma-mapping.h>

#include "axon.h"
#include "axon_odp.h"

#define AXON_EQ_REG(eq, reg) \
	((eq)->base + (AXON_REG_EQ_##reg - AXON_REG_EQ_BASE_LO))

int axon_eq_init(struct axon_dev *adev, struct axon_eq *eq,
		 enum axon_reg base, u32 depth)
{
	eq->adev = adev;
	eq->base = base;
	eq->depth = depth;
	eq->head = 0;
	eq->phase = true;
	eq->ring = dma_alloc_coherent(&adev->pdev->dev,
				      depth * sizeof(*eq->ring), &eq->ring_dma,
				      GFP_KERNEL);
	if (!eq->ring)
		return -ENOMEM;

	axon_wr(adev, AXON_EQ_REG(eq, BASE_LO), AXON_REG_LO(eq->ring_dma));
	axon_wr(adev, AXON_EQ_REG(eq, BASE_HI), AXON_REG_HI(eq->ring_dma));
	axon_wr(adev, AXON_EQ_REG(eq, DEPTH), depth);
	return 0;
}

void axon_eq_destroy(struct axon_eq *eq)
{
	dma_free_coherent(&eq->adev->pdev->dev, eq->depth * sizeof(*eq->ring),
			  eq->ring, eq->ring_dma);
}

/* Hand every new event to @handle, then tell the device how far we got. */
static void axon_eq_poll(struct axon_eq *eq,
			 void (*handle)(struct axon_dev *adev, u16 type,
					u32 param, u64 data))
{
	struct axon_event *ev;
	bool consumed = false;

	for (;;) {
		ev = &eq->ring[eq->head];
		if (!!(le16_to_cpu(READ_ONCE(ev->flags)) & AXON_EVENT_PHASE) !=
		    eq->phase)
			break;
		/* Read the entry only after seeing its phase. */
		dma_rmb();
		handle(eq->adev, le16_to_cpu(ev->type), le32_to_cpu(ev->param),
		       le64_to_cpu(ev->data));
		eq->stat_events++;
		if (++eq->head == eq->depth) {
			eq->head = 0;
			eq->phase = !eq->phase;
		}
		consumed = true;
	}
	if (consumed)
		axon_wr(eq->adev, AXON_EQ_REG(eq, HEAD), eq->head);
}

static void axon_eq_handle(struct axon_dev *adev, u16 type, u32 param,
			   u64 data)
{
	switch (type) {
	case AXON_EVENT_PORT_ACTIVE:
	case AXON_EVENT_PORT_DOWN:
		if (param != AXON_PORT) {
			dev_warn_ratelimited(&adev->pdev->dev,
					     "port event for bad port %u\n",
					     param);
			return;
		}
		axon_set_link(adev, type == AXON_EVENT_PORT_ACTIVE);
		break;
	case AXON_EVENT_FATAL:
		dev_err(&adev->pdev->dev, "device reported a fatal error\n");
		axon_admin_mark_failed(&adev->aq);
		axon_set_link(adev, false);
		axon_ib_fatal_event(adev);
		axon_devlink_fatal(adev, "the device reported a fatal error");
		break;
	case AXON_EVENT_CQ_ERROR:
		axon_cq_event(adev, param);
		break;
	case AXON_EVENT_QP_FATAL:
	case AXON_EVENT_QP_REQ_ERR:
	case AXON_EVENT_QP_ACCESS_ERR:
	case AXON_EVENT_COMM_EST:
	case AXON_EVENT_QP_LAST_WQE:
		axon_qp_event(adev, param, type);
		break;
	case AXON_EVENT_SRQ_LIMIT:
		axon_srq_event(adev, param);
		break;
	case AXON_EVENT_PAGE_FAULT:
		/* the QP's work handles it (axon_odp.c) */
		if (adev->odp) {
			axon_odp_fault_event(adev, param, data);
			break;
		}
		fallthrough;
	default:
		adev->eq.stat_unknown++;
		dev_warn_ratelimited(&adev->pdev->dev, "unknown event type %u\n",
				     type);
		break;
	}
}

irqreturn_t axon_eq_irq_thread(int irq, void *data)
{
	struct axon_dev *adev = data;

	if (READ_ONCE(adev->events_off))
		return IRQ_HANDLED;
	axon_eq_poll(&adev->eq, axon_eq_handle);
	return IRQ_HANDLED;
}

static void axon_ceq_handle(struct axon_dev *adev, u16 type, u32 param,
			    u64 data)
{
	if (type != AXON_EVENT_COMPLETION) {
		adev->ceq.stat_unknown++;
		dev_warn_ratelimited(&adev->pdev->dev,
				     "unknown completion event type %u\n", type);
		return;
	}
	axon_cq_comp_event(adev, param);
}

irqreturn_t axon_ceq_irq(int irq, void *data)
{
	struct axon_dev *adev = data;

	if (!adev->rdma)
		return IRQ_NONE;
	axon_eq_poll(&adev->ceq, axon_ceq_handle);
	return IRQ_HANDLED;
}
