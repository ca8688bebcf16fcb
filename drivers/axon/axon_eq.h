/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon event queues: the async event queue (port state, fatal errors, CQ
 * and QP errors) and the completion event queue (CQ notifications). Both
 * use the same ring format and registers laid out the same way.
 */
#ifndef _AXON_EQ_H_
#define _AXON_EQ_H_

#include <linux/interrupt.h>
#include <linux/types.h>

#include <axon/axon_dev.h>

/* defaults of devlink's event_eq_size and io_eq_size */
#define AXON_EQ_DEPTH 64
/* one event per armed CQ at most: it limits the CQs to its depth - 1 */
#define AXON_CEQ_DEPTH AXON_QUEUE_MAX_DEPTH

struct axon_dev;

/* An event queue's registers: BASE_LO, BASE_HI, DEPTH, HEAD from @base. */
struct axon_eq {
	struct axon_dev *adev;
	struct axon_event *ring;
	dma_addr_t ring_dma;
	enum axon_reg base;
	u32 depth;
	u32 head;
	bool phase;
	u64 stat_events;
	u64 stat_unknown;
};

int axon_eq_init(struct axon_dev *adev, struct axon_eq *eq,
		 enum axon_reg base, u32 depth);
void axon_eq_destroy(struct axon_eq *eq);
irqreturn_t axon_eq_irq_thread(int irq, void *data);
irqreturn_t axon_ceq_irq(int irq, void *data);

#endif /* _AXON_EQ_H_ */
