/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon admin queue engine: the submission and completion rings, command
 * ids, interrupt-driven completion with a timeout. It knows nothing of
 * verbs; axon_cmds.c builds the commands.
 */
#ifndef _AXON_ADMIN_H_
#define _AXON_ADMIN_H_

#include <linux/completion.h>
#include <linux/interrupt.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include <axon/axon_dev.h>

struct dma_pool;

#define AXON_AQ_DEPTH 32

struct axon_admin_ctx {
	struct completion done;
	struct axon_admin_cqe cqe;
	u16 command_id;		/* id in flight in this slot */
	bool busy;
	bool answered;		/* the device completed it (cqe is valid) */
};

struct axon_admin_queue {
	struct device *dmadev;
	void __iomem *regs;

	struct axon_admin_cmd *sq;
	dma_addr_t sq_dma;
	struct axon_admin_cqe *cq;
	dma_addr_t cq_dma;
	u32 depth;		/* both rings, a power of 2 */

	spinlock_t lock;	/* rings, ctx[], generation, state */
	struct mutex submit;	/* and lock: sq_tail; tail writes in order */
	u32 sq_tail;
	u32 cq_head;
	bool cq_phase;
	u16 generation;		/* upper bits of command ids */
	struct axon_admin_ctx *ctx;	/* one per SQ slot */
	u32 inflight;		/* commands holding a ctx slot */
	wait_queue_head_t slot_wait;	/* for a free slot, or failure */
	struct list_head orphans;	/* DMA buffers of timed-out commands */
	struct dma_pool *buf_pool;	/* command buffers up to BUF_POOLED */
	/*
	 * MODIFY_QP's attributes for a move to ERR, read-only to the device:
	 * draining a QP must work when memory allocation fails.
	 */
	struct axon_qp_attr *err_attr;
	dma_addr_t err_attr_dma;

	/*
	 * The completion interrupt (0: none yet), enabled only while a
	 * waiter sleeps: one that polls needs none (see axon_admin_exec).
	 */
	struct mutex irq_lock;	/* irq, sleepers */
	int irq;
	u32 sleepers;

	unsigned long timeout_ms;
	bool failed;		/* a command timed out: the device is dead */
	/* called once a command timed out, in the waiter's context */
	void (*timed_out)(struct axon_admin_queue *aq);
	u64 stat_submitted;
	u64 stat_completed;
	u64 stat_stale;
};

int axon_admin_init(struct axon_admin_queue *aq, struct device *dmadev,
		    void __iomem *regs, u32 depth);
void axon_admin_destroy(struct axon_admin_queue *aq);
irqreturn_t axon_admin_irq(int irq, void *data);
void axon_admin_set_irq(struct axon_admin_queue *aq, int irq);
void axon_admin_mark_failed(struct axon_admin_queue *aq);
/*
 * Frees @len bytes of coherent memory (dma_alloc_coherent() for the
 * queue's device) the device read or wrote in a command; @orphan: the
 * command's outcome is unknown, so it is kept until the queue goes.
 */
void axon_admin_coherent_free(struct axon_admin_queue *aq, void *cpu,
			      dma_addr_t dma, size_t len, bool orphan);

/*
 * A buffer the device reads or writes during a command (its attributes, a
 * short page list): up to AXON_ADMIN_BUF_POOLED bytes from a pool the
 * queue keeps, so most commands allocate no page; larger ones coherent
 * memory. Zeroed. Freed with axon_admin_buf_free(), which, @orphan,
 * keeps a buffer the device may still write until the queue goes.
 */
#define AXON_ADMIN_BUF_POOLED	2048
void *axon_admin_buf_alloc(struct axon_admin_queue *aq, size_t len,
			   dma_addr_t *dma);
void axon_admin_buf_free(struct axon_admin_queue *aq, void *cpu,
			 dma_addr_t dma, size_t len, bool orphan);

int axon_admin_exec(struct axon_admin_queue *aq, struct axon_admin_cmd *cmd,
		    struct axon_admin_cqe *cqe);
int axon_admin_status_to_errno(u16 status);

/* Pure helpers, exposed for the KUnit suites. */
u16 axon_admin_make_id(u16 generation, u32 slot, u32 depth);
bool axon_admin_cqe_ready(const struct axon_admin_cqe *cqe, bool phase);

#endif /* _AXON_ADMIN_H_ */
