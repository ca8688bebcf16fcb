/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* axon async event queue: device-to-driver events (port state, fatal). */
#ifndef _AXON_EQ_H_
#define _AXON_EQ_H_

#include <linux/interrupt.h>
#include <linux/types.h>

#include <axon/axon_dev.h>

#define AXON_EQ_DEPTH 64

struct axon_dev;

struct axon_eq {
	struct axon_dev *adev;
	struct axon_event *ring;
	dma_addr_t ring_dma;
	u32 depth;
	u32 head;
	bool phase;
	u64 stat_events;
	u64 stat_unknown;
};

int axon_eq_init(struct axon_dev *adev, u32 depth);
void axon_eq_destroy(struct axon_dev *adev);
irqreturn_t axon_eq_irq_thread(int irq, void *data);

#endif /* _AXON_EQ_H_ */
