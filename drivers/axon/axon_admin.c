// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon admin queue engine.
 *
 * Commands are written to the submission ring and the tail doorbell is
 * rung; the device completes them in order into the completion ring,
 * marking each entry with the phase of the pass, and interrupts. Each
 * command in flight owns a context slot; its command id carries the slot
 * in the low bits and a generation above, so a completion for a slot that
 * was already reused (or never used) is recognised as stale and ignored.
 *
 * A command that gets no completion within the device's advertised
 * budget marks the queue failed: later commands fail with -EIO at once
 * instead of hanging behind a dead device.
 */

#include <linux/dma-mapping.h>
#include <linux/dmapool.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/slab.h>

#include "axon_admin.h"

#define AXON_AQ_TIMEOUT_MIN_MS	100
#define AXON_AQ_TIMEOUT_MAX_MS	60000

u16 axon_admin_make_id(u16 generation, u32 slot, u32 depth)
{
	return (u16)(generation << ilog2(depth)) | (u16)(slot & (depth - 1));
}

bool axon_admin_cqe_ready(const struct axon_admin_cqe *cqe, bool phase)
{
	u16 flags = le16_to_cpu(READ_ONCE(cqe->flags));

	return !!(flags & AXON_ADMIN_CQE_PHASE) == phase;
}

int axon_admin_status_to_errno(u16 status)
{
	switch (status) {
	case AXON_ADMIN_SUCCESS:
		return 0;
	case AXON_ADMIN_BAD_OPCODE:
		return -EOPNOTSUPP;
	case AXON_ADMIN_BAD_PARAM:
	case AXON_ADMIN_BAD_HANDLE:
	case AXON_ADMIN_BAD_STATE:
		return -EINVAL;
	case AXON_ADMIN_NO_RESOURCES:
		return -ENOMEM;
	case AXON_ADMIN_BUSY:
		return -EBUSY;
	case AXON_ADMIN_DMA_ERROR:
	default:
		return -EIO;
	}
}

int axon_admin_init(struct axon_admin_queue *aq, struct device *dmadev,
		    void __iomem *regs, u32 depth)
{
	u32 timeout;
	u32 i;

	if (!is_power_of_2(depth) || depth < AXON_QUEUE_MIN_DEPTH ||
	    depth > AXON_QUEUE_MAX_DEPTH)
		return -EINVAL;

	aq->dmadev = dmadev;
	aq->regs = regs;
	aq->depth = depth;
	aq->sq_tail = 0;
	aq->cq_head = 0;
	aq->cq_phase = true;
	aq->generation = 0;
	aq->failed = false;
	spin_lock_init(&aq->lock);
	mutex_init(&aq->submit);
	mutex_init(&aq->irq_lock);
	aq->irq = 0;
	aq->sleepers = 0;
	aq->inflight = 0;
	init_waitqueue_head(&aq->slot_wait);
	INIT_LIST_HEAD(&aq->orphans);

	timeout = readl(regs + AXON_REG_ADMIN_TIMEOUT);
	aq->timeout_ms = clamp_t(u32, timeout, AXON_AQ_TIMEOUT_MIN_MS,
				 AXON_AQ_TIMEOUT_MAX_MS);

	aq->ctx = kcalloc(depth, sizeof(*aq->ctx), GFP_KERNEL);
	if (!aq->ctx)
		return -ENOMEM;
	for (i = 0; i < depth; i++)
		init_completion(&aq->ctx[i].done);

	aq->sq = dma_alloc_coherent(dmadev, depth * sizeof(*aq->sq),
				    &aq->sq_dma, GFP_KERNEL);
	if (!aq->sq)
		goto err_free_ctx;
	aq->cq = dma_alloc_coherent(dmadev, depth * sizeof(*aq->cq),
				    &aq->cq_dma, GFP_KERNEL);
	if (!aq->cq)
		goto err_free_sq;
	aq->err_attr = dma_alloc_coherent(dmadev, sizeof(*aq->err_attr),
					  &aq->err_attr_dma, GFP_KERNEL);
	if (!aq->err_attr)
		goto err_free_cq;
	aq->err_attr->state = cpu_to_le32(AXON_QPS_ERR);
	aq->buf_pool = dma_pool_create("axon_admin", dmadev,
				       AXON_ADMIN_BUF_POOLED,
				       AXON_ADMIN_BUF_POOLED, 0);
	if (!aq->buf_pool)
		goto err_free_err_attr;

	writel(AXON_REG_LO(aq->sq_dma), regs + AXON_REG_AQ_SQ_BASE_LO);
	writel(AXON_REG_HI(aq->sq_dma), regs + AXON_REG_AQ_SQ_BASE_HI);
	writel(depth, regs + AXON_REG_AQ_SQ_DEPTH);
	writel(AXON_REG_LO(aq->cq_dma), regs + AXON_REG_AQ_CQ_BASE_LO);
	writel(AXON_REG_HI(aq->cq_dma), regs + AXON_REG_AQ_CQ_BASE_HI);
	writel(depth, regs + AXON_REG_AQ_CQ_DEPTH);
	return 0;

err_free_err_attr:
	dma_free_coherent(dmadev, sizeof(*aq->err_attr), aq->err_attr,
			  aq->err_attr_dma);
err_free_cq:
	dma_free_coherent(dmadev, depth * sizeof(*aq->cq), aq->cq, aq->cq_dma);
err_free_sq:
	dma_free_coherent(dmadev, depth * sizeof(*aq->sq), aq->sq, aq->sq_dma);
err_free_ctx:
	kfree(aq->ctx);
	return -ENOMEM;
}

/*
 * A response buffer of a command that timed out: the device may still
 * write it, so it is freed only with the queue, after the device reset.
 */
struct axon_admin_orphan {
	struct list_head node;
	void *cpu;
	dma_addr_t dma;
	size_t len;
	bool admin_buf;		/* from axon_admin_buf_alloc() */
};

static void axon_admin_orphan(struct axon_admin_queue *aq, void *cpu,
			      dma_addr_t dma, size_t len, bool admin_buf)
{
	struct axon_admin_orphan *o = kmalloc(sizeof(*o), GFP_KERNEL);
	unsigned long flags;

	if (!o) {
		/* leaking a buffer beats letting the device write freed memory */
		dev_warn(aq->dmadev, "leaking a %zu-byte admin buffer\n", len);
		return;
	}
	o->cpu = cpu;
	o->dma = dma;
	o->len = len;
	o->admin_buf = admin_buf;
	spin_lock_irqsave(&aq->lock, flags);
	list_add(&o->node, &aq->orphans);
	spin_unlock_irqrestore(&aq->lock, flags);
}

void axon_admin_coherent_free(struct axon_admin_queue *aq, void *cpu,
			      dma_addr_t dma, size_t len, bool orphan)
{
	if (orphan)
		axon_admin_orphan(aq, cpu, dma, len, false);
	else
		dma_free_coherent(aq->dmadev, len, cpu, dma);
}

void *axon_admin_buf_alloc(struct axon_admin_queue *aq, size_t len,
			   dma_addr_t *dma)
{
	if (len <= AXON_ADMIN_BUF_POOLED)
		return dma_pool_zalloc(aq->buf_pool, GFP_KERNEL, dma);
	return dma_alloc_coherent(aq->dmadev, len, dma, GFP_KERNEL);
}

void axon_admin_buf_free(struct axon_admin_queue *aq, void *cpu,
			 dma_addr_t dma, size_t len, bool orphan)
{
	if (orphan)
		axon_admin_orphan(aq, cpu, dma, len, true);
	else if (len <= AXON_ADMIN_BUF_POOLED)
		dma_pool_free(aq->buf_pool, cpu, dma);
	else
		dma_free_coherent(aq->dmadev, len, cpu, dma);
}

/* The device must be stopped (no more DMA) before the rings are freed. */
void axon_admin_destroy(struct axon_admin_queue *aq)
{
	struct axon_admin_orphan *o, *tmp;

	list_for_each_entry_safe(o, tmp, &aq->orphans, node) {
		if (o->admin_buf)
			axon_admin_buf_free(aq, o->cpu, o->dma, o->len, false);
		else
			axon_admin_coherent_free(aq, o->cpu, o->dma, o->len,
						 false);
		kfree(o);
	}
	dma_pool_destroy(aq->buf_pool);
	dma_free_coherent(aq->dmadev, sizeof(*aq->err_attr), aq->err_attr,
			  aq->err_attr_dma);
	dma_free_coherent(aq->dmadev, aq->depth * sizeof(*aq->cq), aq->cq,
			  aq->cq_dma);
	dma_free_coherent(aq->dmadev, aq->depth * sizeof(*aq->sq), aq->sq,
			  aq->sq_dma);
	kfree(aq->ctx);
	mutex_destroy(&aq->submit);
	mutex_destroy(&aq->irq_lock);
}

/* Fail every command in flight and every later one. */
void axon_admin_mark_failed(struct axon_admin_queue *aq)
{
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&aq->lock, flags);
	aq->failed = true;
	for (i = 0; i < aq->depth; i++)
		if (aq->ctx[i].busy)
			complete(&aq->ctx[i].done);
	spin_unlock_irqrestore(&aq->lock, flags);
	wake_up_all(&aq->slot_wait);
}

/* Completes the commands the device answered; called with aq->lock held. */
static void axon_admin_reap(struct axon_admin_queue *aq)
{
	struct axon_admin_cqe *cqe;
	struct axon_admin_ctx *ctx;
	u16 cid;

	while (!aq->failed) {
		cqe = &aq->cq[aq->cq_head];
		if (!axon_admin_cqe_ready(cqe, aq->cq_phase))
			break;
		/* Read the entry only after seeing its phase. */
		dma_rmb();
		cid = le16_to_cpu(cqe->command_id);
		ctx = &aq->ctx[cid & (aq->depth - 1)];
		if (ctx->busy && ctx->command_id == cid &&
		    !completion_done(&ctx->done)) {
			ctx->cqe = *cqe;
			ctx->answered = true;
			aq->stat_completed++;
			complete(&ctx->done);
		} else {
			aq->stat_stale++;
			dev_warn_ratelimited(aq->dmadev,
					     "stale admin completion, id %u\n",
					     cid);
		}
		if (++aq->cq_head == aq->depth) {
			aq->cq_head = 0;
			aq->cq_phase = !aq->cq_phase;
		}
	}
}

irqreturn_t axon_admin_irq(int irq, void *data)
{
	struct axon_admin_queue *aq = data;

	spin_lock(&aq->lock);
	axon_admin_reap(aq);
	spin_unlock(&aq->lock);
	return IRQ_HANDLED;
}

/*
 * The completion interrupt, requested with IRQF_NO_AUTOEN (disabled); 0
 * before it is freed, when no command is in flight.
 */
void axon_admin_set_irq(struct axon_admin_queue *aq, int irq)
{
	mutex_lock(&aq->irq_lock);
	WARN_ON(aq->sleepers);
	aq->irq = irq;
	mutex_unlock(&aq->irq_lock);
}

/*
 * A waiter is about to sleep: the interrupt must wake it. A completion
 * the device posted while it was disabled is delivered when it is enabled
 * (the MSI-X pending bit, or the kernel's resend of a lazily disabled
 * one). Returns the interrupt for axon_admin_irq_put(); 0: none yet.
 */
static int axon_admin_irq_get(struct axon_admin_queue *aq)
{
	int irq;

	mutex_lock(&aq->irq_lock);
	irq = aq->irq;
	if (irq && !aq->sleepers++)
		enable_irq(irq);
	mutex_unlock(&aq->irq_lock);
	return irq;
}

/* The waiter woke; the last one disables the interrupt @irq it enabled. */
static void axon_admin_irq_put(struct axon_admin_queue *aq, int irq)
{
	mutex_lock(&aq->irq_lock);
	if (!--aq->sleepers)
		disable_irq_nosync(irq);
	mutex_unlock(&aq->irq_lock);
}

static struct axon_admin_ctx *axon_admin_get_ctx(struct axon_admin_queue *aq)
{
	u32 i;

	for (i = 0; i < aq->depth; i++)
		if (!aq->ctx[i].busy)
			return &aq->ctx[i];
	return NULL;
}

/*
 * Claim a context slot for a new command; false while every slot is in
 * use. One slot always stays free, so in-order completion never overruns
 * a ring. On a failed queue it succeeds with *ctx NULL.
 */
static bool axon_admin_claim(struct axon_admin_queue *aq,
			     struct axon_admin_ctx **ctx)
{
	unsigned long flags;
	bool claimed = true;

	spin_lock_irqsave(&aq->lock, flags);
	if (aq->failed) {
		*ctx = NULL;
	} else if (aq->inflight < aq->depth - 1) {
		/* busy slots beyond inflight exist only on a failed queue */
		*ctx = axon_admin_get_ctx(aq);
		if (*ctx) {
			(*ctx)->busy = true;
			(*ctx)->answered = false;
			aq->inflight++;
		}
	} else {
		claimed = false;
	}
	spin_unlock_irqrestore(&aq->lock, flags);
	return claimed;
}

/* Give a slot back; @reuse is false for a slot the device may still use. */
static void axon_admin_release(struct axon_admin_queue *aq,
			       struct axon_admin_ctx *ctx, bool reuse)
{
	unsigned long flags;

	spin_lock_irqsave(&aq->lock, flags);
	if (reuse)
		ctx->busy = false;
	aq->inflight--;
	spin_unlock_irqrestore(&aq->lock, flags);
	wake_up(&aq->slot_wait);
}

/*
 * Most commands are answered within a few hundred microseconds: poll the
 * completion ring that long before sleeping until the interrupt, which
 * spares the sleep and the wake-up, and, the interrupt being enabled only
 * while someone sleeps, its delivery (on a TCG guest, most of a command's
 * time).
 */
#define AXON_ADMIN_POLL_US	1000

static void axon_admin_poll(struct axon_admin_queue *aq,
			    struct axon_admin_ctx *ctx)
{
	ktime_t end = ktime_add_us(ktime_get(), AXON_ADMIN_POLL_US);
	unsigned long flags;

	/* at least one look: a vCPU held up past the end must not sleep */
	do {
		if (axon_admin_cqe_ready(&aq->cq[READ_ONCE(aq->cq_head)],
					 READ_ONCE(aq->cq_phase))) {
			spin_lock_irqsave(&aq->lock, flags);
			axon_admin_reap(aq);
			spin_unlock_irqrestore(&aq->lock, flags);
		}
		if (completion_done(&ctx->done))
			return;
		cpu_relax();
	} while (ktime_before(ktime_get(), end));
}

/*
 * Execute one command and wait for its completion. When the device
 * answered, *cqe holds its completion and the device status is returned
 * as an errno; -ETIMEDOUT when it did not answer, in time or before the
 * queue failed (the device may still act on it: the caller keeps the
 * buffers it names), -EIO on a failed queue, -EBUSY when no slot freed
 * up.
 */
int axon_admin_exec(struct axon_admin_queue *aq, struct axon_admin_cmd *cmd,
		    struct axon_admin_cqe *cqe)
{
	unsigned long timeout = msecs_to_jiffies(aq->timeout_ms);
	struct axon_admin_ctx *ctx;
	unsigned long flags;
	u16 opcode = le16_to_cpu(cmd->opcode);
	unsigned long done;
	bool answered;
	int irq;
	u32 tail;
	int err;

	if (!wait_event_timeout(aq->slot_wait, axon_admin_claim(aq, &ctx),
				timeout))
		return -EBUSY;
	if (!ctx)
		return -EIO;

	mutex_lock(&aq->submit);
	spin_lock_irqsave(&aq->lock, flags);
	ctx->command_id = axon_admin_make_id(aq->generation++, ctx - aq->ctx,
					     aq->depth);
	reinit_completion(&ctx->done);
	cmd->command_id = cpu_to_le16(ctx->command_id);
	cmd->flags = 0;
	memcpy(&aq->sq[aq->sq_tail], cmd, sizeof(*cmd));
	aq->sq_tail = (aq->sq_tail + 1) & (aq->depth - 1);
	tail = aq->sq_tail;
	aq->stat_submitted++;
	spin_unlock_irqrestore(&aq->lock, flags);
	/*
	 * Outside the spinlock: a device may execute commands within this
	 * write (axon-nic does), which must then hold off no interrupt and
	 * spin no other CPU; the mutex keeps the tail writes in order.
	 * writel orders the ring write before the doorbell.
	 */
	writel(tail, aq->regs + AXON_REG_AQ_SQ_TAIL);
	mutex_unlock(&aq->submit);

	axon_admin_poll(aq, ctx);
	irq = completion_done(&ctx->done) ? 0 : axon_admin_irq_get(aq);
	done = wait_for_completion_timeout(&ctx->done, timeout);
	if (irq)
		axon_admin_irq_put(aq, irq);
	if (!done) {
		dev_err(aq->dmadev,
			"admin command %u (opcode %u) timed out after %lu ms, device marked failed\n",
			ctx->command_id, opcode, aq->timeout_ms);
		axon_admin_mark_failed(aq);
		axon_admin_release(aq, ctx, false);
		if (aq->timed_out)
			aq->timed_out(aq);
		return -ETIMEDOUT;
	}

	spin_lock_irqsave(&aq->lock, flags);
	/* a real completion wins over a failure that raced with it */
	answered = ctx->answered;
	if (answered)
		*cqe = ctx->cqe;
	spin_unlock_irqrestore(&aq->lock, flags);
	axon_admin_release(aq, ctx, answered);
	/*
	 * Woken by axon_admin_mark_failed(): the device took the command and
	 * may still act on it, as after a timeout, so its caller must keep
	 * the buffers the command names.
	 */
	if (!answered)
		return -ETIMEDOUT;

	err = axon_admin_status_to_errno(le16_to_cpu(cqe->status));
	if (err)
		dev_dbg(aq->dmadev, "admin opcode %u failed, status %u\n",
			opcode, le16_to_cpu(cqe->status));
	return err;
}
