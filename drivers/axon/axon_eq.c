// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon async event queue: the device reports port state changes and fatal
 * errors here. Events are handled in a threaded interrupt so that they can
 * be passed straight to the RDMA core.
 */

#include <linux/dma-mapping.h>

#include "axon.h"

int axon_eq_init(struct axon_dev *adev, u32 depth)
{
	struct axon_eq *eq = &adev->eq;

	eq->adev = adev;
	eq->depth = depth;
	eq->head = 0;
	eq->phase = true;
	eq->ring = dma_alloc_coherent(&adev->pdev->dev,
				      depth * sizeof(*eq->ring), &eq->ring_dma,
				      GFP_KERNEL);
	if (!eq->ring)
		return -ENOMEM;

	axon_wr(adev, AXON_REG_EQ_BASE_LO, lower_32_bits(eq->ring_dma));
	axon_wr(adev, AXON_REG_EQ_BASE_HI, upper_32_bits(eq->ring_dma));
	axon_wr(adev, AXON_REG_EQ_DEPTH, depth);
	return 0;
}

void axon_eq_destroy(struct axon_dev *adev)
{
	struct axon_eq *eq = &adev->eq;

	dma_free_coherent(&adev->pdev->dev, eq->depth * sizeof(*eq->ring),
			  eq->ring, eq->ring_dma);
}

static void axon_eq_handle(struct axon_dev *adev, u16 type, u32 param)
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
		break;
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
	struct axon_eq *eq = &adev->eq;
	struct axon_event *ev;
	bool consumed = false;

	if (READ_ONCE(adev->events_off))
		return IRQ_HANDLED;
	for (;;) {
		ev = &eq->ring[eq->head];
		if (!!(le16_to_cpu(READ_ONCE(ev->flags)) & AXON_EVENT_PHASE) !=
		    eq->phase)
			break;
		/* Read the entry only after seeing its phase. */
		dma_rmb();
		axon_eq_handle(adev, le16_to_cpu(ev->type),
			       le32_to_cpu(ev->param));
		eq->stat_events++;
		if (++eq->head == eq->depth) {
			eq->head = 0;
			eq->phase = !eq->phase;
		}
		consumed = true;
	}
	if (consumed)
		axon_wr(adev, AXON_REG_EQ_HEAD, eq->head);
	return IRQ_HANDLED;
}
