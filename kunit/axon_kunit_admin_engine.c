// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: the admin queue engine (drivers/axon/axon_admin.c) driven against
 * a fake device: the "registers" are plain memory, the rings are real DMA
 * memory of a root device, and a delayed work plays the device, reading
 * the submission ring up to the tail the driver wrote and answering into
 * the completion ring, then calling the interrupt handler.
 */

#include <linux/delay.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/irqflags.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "axon_admin.h"
#include "axon_kunit.h"

struct axon_fake {
	struct kunit *test;
	struct device *dev;
	u32 *regs;			/* the fake BAR 0 */
	struct axon_admin_queue aq;
	bool aq_ready;

	/* the device */
	struct delayed_work work;
	bool running;
	bool answer;			/* false: swallow commands */
	u16 status;			/* status of the completions */
	u64 result;
	u32 sq_head;
	u32 cq_tail;
	bool phase;
	unsigned int seen;		/* commands read from the ring */
	u16 last_opcode;

	struct delayed_work fail_work;	/* calls axon_admin_mark_failed() */
};

static u32 axon_fake_reg(struct axon_fake *f, enum axon_reg reg)
{
	return READ_ONCE(f->regs[reg / 4]);
}

static void axon_fake_set_reg(struct axon_fake *f, enum axon_reg reg, u32 v)
{
	WRITE_ONCE(f->regs[reg / 4], v);
}

/* Write one completion at the device's CQ tail, as the device would. */
static void axon_fake_post(struct axon_fake *f, u16 id, u16 status, u64 result)
{
	struct axon_admin_cqe *cqe = &f->aq.cq[f->cq_tail];

	cqe->command_id = cpu_to_le16(id);
	cqe->status = cpu_to_le16(status);
	cqe->result = cpu_to_le64(result);
	dma_wmb();
	WRITE_ONCE(cqe->flags, cpu_to_le16(f->phase ? AXON_ADMIN_CQE_PHASE : 0));
	if (++f->cq_tail == f->aq.depth) {
		f->cq_tail = 0;
		f->phase = !f->phase;
	}
}

/* The completion interrupt, in hard interrupt context as on the device. */
static void axon_fake_irq(struct axon_fake *f)
{
	local_irq_disable();
	axon_admin_irq(0, &f->aq);
	local_irq_enable();
}

static void axon_fake_work(struct work_struct *work)
{
	struct axon_fake *f = container_of(to_delayed_work(work),
					   struct axon_fake, work);
	u32 tail = axon_fake_reg(f, AXON_REG_AQ_SQ_TAIL);
	bool posted = false;

	/* the ring entries were written before the doorbell */
	smp_rmb();
	while (f->sq_head != tail) {
		struct axon_admin_cmd *cmd = &f->aq.sq[f->sq_head];

		f->sq_head = (f->sq_head + 1) & (f->aq.depth - 1);
		f->seen++;
		f->last_opcode = le16_to_cpu(cmd->opcode);
		if (!f->answer)
			continue;
		axon_fake_post(f, le16_to_cpu(cmd->command_id), f->status,
			       f->result);
		posted = true;
	}
	if (posted)
		axon_fake_irq(f);
	if (READ_ONCE(f->running))
		schedule_delayed_work(&f->work, 1);
}

static void axon_fake_start_device(struct axon_fake *f)
{
	WRITE_ONCE(f->running, true);
	schedule_delayed_work(&f->work, 0);
}

static void axon_fake_mark_failed_work(struct work_struct *work)
{
	struct axon_fake *f = container_of(to_delayed_work(work),
					   struct axon_fake, fail_work);

	axon_admin_mark_failed(&f->aq);
}

/*
 * A device to allocate the rings with, as a KUnit resource: unregistered
 * when the test ends, however it ends. (Not root_device_register(): the
 * suites run while the module is still loading, before it has a sysfs
 * directory to link to.)
 */
static void axon_fake_dev_release(struct device *dev)
{
	kfree(dev);
}

static int axon_fake_dev_init(struct kunit_resource *res, void *context)
{
	struct device *dev;
	int err;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	device_initialize(dev);
	dev->release = axon_fake_dev_release;
	dev->coherent_dma_mask = DMA_BIT_MASK(64);
	dev->dma_mask = &dev->coherent_dma_mask;
	err = dev_set_name(dev, "axon-kunit");
	if (!err)
		err = device_add(dev);
	if (err) {
		put_device(dev);
		return err;
	}
	res->data = dev;
	return 0;
}

static void axon_fake_dev_free(struct kunit_resource *res)
{
	device_unregister(res->data);
}

static int axon_engine_init(struct kunit *test)
{
	struct axon_fake *f;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->regs = kunit_kzalloc(test, AXON_REGS_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->regs);
	f->dev = kunit_alloc_resource(test, axon_fake_dev_init,
				      axon_fake_dev_free, GFP_KERNEL, NULL);
	KUNIT_ASSERT_NOT_NULL(test, f->dev);
	f->test = test;
	f->answer = true;
	f->phase = true;
	INIT_DELAYED_WORK(&f->work, axon_fake_work);
	INIT_DELAYED_WORK(&f->fail_work, axon_fake_mark_failed_work);
	axon_fake_set_reg(f, AXON_REG_ADMIN_TIMEOUT, 1000);
	test->priv = f;
	return 0;
}

static void axon_engine_exit(struct kunit *test)
{
	struct axon_fake *f = test->priv;

	if (!f)
		return;		/* the set-up failed */
	WRITE_ONCE(f->running, false);
	cancel_delayed_work_sync(&f->work);
	cancel_delayed_work_sync(&f->fail_work);
	if (f->aq_ready)
		axon_admin_destroy(&f->aq);
}

static int axon_fake_aq_init(struct axon_fake *f, u32 depth)
{
	int err;

	err = axon_admin_init(&f->aq, f->dev,
			      (void __iomem __force *)f->regs, depth);
	f->aq_ready = !err;
	return err;
}

/* Mark @slot busy with a command of @generation, as exec does. */
static u16 axon_fake_arm(struct axon_fake *f, u32 slot, u16 generation)
{
	struct axon_admin_ctx *ctx = &f->aq.ctx[slot];

	ctx->busy = true;
	ctx->command_id = axon_admin_make_id(generation, slot, f->aq.depth);
	reinit_completion(&ctx->done);
	return ctx->command_id;
}

/* ---- set-up --------------------------------------------------------------- */

struct axon_timeout_case {
	const char *name;
	u32 reg;
	unsigned long ms;
};

static const struct axon_timeout_case axon_timeout_cases[] = {
	{ "0 ms: minimum", 0, 100 },
	{ "99 ms: minimum", 99, 100 },
	{ "100 ms", 100, 100 },
	{ "2500 ms", 2500, 2500 },
	{ "60000 ms", 60000, 60000 },
	{ "60001 ms: maximum", 60001, 60000 },
	{ "U32_MAX: maximum", U32_MAX, 60000 },
};

AXON_KUNIT_DESC(axon_timeout_case)
KUNIT_ARRAY_PARAM(axon_timeout, axon_timeout_cases, axon_timeout_case_desc);

/* Init programs both rings and takes the device's timeout, clamped. */
static void axon_engine_init_test(struct kunit *test)
{
	const struct axon_timeout_case *c = test->param_value;
	struct axon_fake *f = test->priv;

	axon_fake_set_reg(f, AXON_REG_ADMIN_TIMEOUT, c->reg);
	KUNIT_ASSERT_EQ(test, axon_fake_aq_init(f, 32), 0);
	KUNIT_EXPECT_EQ(test, f->aq.timeout_ms, c->ms);
	KUNIT_EXPECT_EQ(test, axon_fake_reg(f, AXON_REG_AQ_SQ_DEPTH), 32);
	KUNIT_EXPECT_EQ(test, axon_fake_reg(f, AXON_REG_AQ_CQ_DEPTH), 32);
	KUNIT_EXPECT_EQ(test, axon_fake_reg(f, AXON_REG_AQ_SQ_BASE_LO),
			AXON_REG_LO(f->aq.sq_dma));
	KUNIT_EXPECT_EQ(test, axon_fake_reg(f, AXON_REG_AQ_SQ_BASE_HI),
			AXON_REG_HI(f->aq.sq_dma));
	KUNIT_EXPECT_EQ(test, axon_fake_reg(f, AXON_REG_AQ_CQ_BASE_LO),
			AXON_REG_LO(f->aq.cq_dma));
	KUNIT_EXPECT_EQ(test, axon_fake_reg(f, AXON_REG_AQ_CQ_BASE_HI),
			AXON_REG_HI(f->aq.cq_dma));
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED(f->aq.sq_dma, AXON_QUEUE_ALIGN));
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED(f->aq.cq_dma, AXON_QUEUE_ALIGN));
	KUNIT_EXPECT_TRUE(test, f->aq.cq_phase);
	KUNIT_EXPECT_FALSE(test, f->aq.failed);
}

struct axon_depth_case {
	const char *name;
	u32 depth;
	int err;
};

static const struct axon_depth_case axon_depth_cases[] = {
	{ "0", 0, -EINVAL },
	{ "1", 1, -EINVAL },
	{ "2: smallest", 2, 0 },
	{ "3: not a power of 2", 3, -EINVAL },
	{ "48: not a power of 2", 48, -EINVAL },
	{ "4096: largest", 4096, 0 },
	{ "8192: too deep", 8192, -EINVAL },
	{ "2^31: too deep", 1u << 31, -EINVAL },
};

AXON_KUNIT_DESC(axon_depth_case)
KUNIT_ARRAY_PARAM(axon_depth, axon_depth_cases, axon_depth_case_desc);

static void axon_engine_depth_test(struct kunit *test)
{
	const struct axon_depth_case *c = test->param_value;
	struct axon_fake *f = test->priv;

	KUNIT_EXPECT_EQ(test, axon_fake_aq_init(f, c->depth), c->err);
	if (c->err)
		KUNIT_EXPECT_EQ(test, axon_fake_reg(f, AXON_REG_AQ_SQ_DEPTH), 0);
}

/* ---- the completion interrupt ------------------------------------------------ */

static void axon_engine_irq_empty_test(struct kunit *test)
{
	struct axon_fake *f = test->priv;

	KUNIT_ASSERT_EQ(test, axon_fake_aq_init(f, 8), 0);
	axon_fake_arm(f, 0, 0);
	axon_fake_irq(f);
	KUNIT_EXPECT_EQ(test, f->aq.cq_head, 0);
	KUNIT_EXPECT_EQ(test, f->aq.stat_completed, 0);
	KUNIT_EXPECT_EQ(test, f->aq.stat_stale, 0);
	KUNIT_EXPECT_FALSE(test, completion_done(&f->aq.ctx[0].done));
}

static void axon_engine_irq_match_test(struct kunit *test)
{
	struct axon_fake *f = test->priv;
	u16 id;

	KUNIT_ASSERT_EQ(test, axon_fake_aq_init(f, 8), 0);
	id = axon_fake_arm(f, 3, 9);
	axon_fake_post(f, id, AXON_ADMIN_SUCCESS, 0x1234567890ull);
	axon_fake_irq(f);
	KUNIT_EXPECT_TRUE(test, completion_done(&f->aq.ctx[3].done));
	KUNIT_EXPECT_EQ(test, le16_to_cpu(f->aq.ctx[3].cqe.command_id), id);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(f->aq.ctx[3].cqe.result),
			0x1234567890ull);
	KUNIT_EXPECT_EQ(test, f->aq.stat_completed, 1);
	KUNIT_EXPECT_EQ(test, f->aq.stat_stale, 0);
	KUNIT_EXPECT_EQ(test, f->aq.cq_head, 1);
}

/* A completion carrying an older generation of a busy slot is stale. */
static void axon_engine_irq_stale_generation_test(struct kunit *test)
{
	struct axon_fake *f = test->priv;
	u16 id;

	KUNIT_ASSERT_EQ(test, axon_fake_aq_init(f, 8), 0);
	id = axon_fake_arm(f, 3, 2);
	axon_fake_post(f, axon_admin_make_id(1, 3, 8), AXON_ADMIN_SUCCESS, 1);
	axon_fake_irq(f);
	KUNIT_EXPECT_FALSE(test, completion_done(&f->aq.ctx[3].done));
	KUNIT_EXPECT_EQ(test, f->aq.stat_stale, 1);

	axon_fake_post(f, id, AXON_ADMIN_SUCCESS, 2);
	axon_fake_irq(f);
	KUNIT_EXPECT_TRUE(test, completion_done(&f->aq.ctx[3].done));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(f->aq.ctx[3].cqe.result), 2);
	KUNIT_EXPECT_EQ(test, f->aq.stat_completed, 1);
	KUNIT_EXPECT_EQ(test, f->aq.cq_head, 2);
}

/* A completion for a slot with no command in flight is stale. */
static void axon_engine_irq_idle_slot_test(struct kunit *test)
{
	struct axon_fake *f = test->priv;

	KUNIT_ASSERT_EQ(test, axon_fake_aq_init(f, 8), 0);
	axon_fake_arm(f, 1, 0);
	axon_fake_post(f, axon_admin_make_id(0, 5, 8), AXON_ADMIN_SUCCESS, 0);
	axon_fake_irq(f);
	KUNIT_EXPECT_EQ(test, f->aq.stat_stale, 1);
	KUNIT_EXPECT_EQ(test, f->aq.stat_completed, 0);
	KUNIT_EXPECT_FALSE(test, completion_done(&f->aq.ctx[1].done));
	KUNIT_EXPECT_FALSE(test, completion_done(&f->aq.ctx[5].done));
}

/* The device answering one command twice: the second one is stale. */
static void axon_engine_irq_duplicate_test(struct kunit *test)
{
	struct axon_fake *f = test->priv;
	u16 id;

	KUNIT_ASSERT_EQ(test, axon_fake_aq_init(f, 8), 0);
	id = axon_fake_arm(f, 2, 4);
	axon_fake_post(f, id, AXON_ADMIN_SUCCESS, 10);
	axon_fake_post(f, id, AXON_ADMIN_BAD_PARAM, 20);
	axon_fake_irq(f);
	KUNIT_EXPECT_EQ(test, f->aq.stat_completed, 1);
	KUNIT_EXPECT_EQ(test, f->aq.stat_stale, 1);
	/* the first answer stands */
	KUNIT_EXPECT_EQ(test, le64_to_cpu(f->aq.ctx[2].cqe.result), 10);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(f->aq.ctx[2].cqe.status),
			AXON_ADMIN_SUCCESS);
}

/*
 * Three passes over a 4-entry ring: the driver follows the phase, and an
 * entry left from the previous pass is never taken for a new one.
 */
static void axon_engine_irq_phase_wrap_test(struct kunit *test)
{
	struct axon_fake *f = test->priv;
	const u32 depth = 4;
	u32 i, slot;
	u16 id;

	KUNIT_ASSERT_EQ(test, axon_fake_aq_init(f, depth), 0);
	for (i = 0; i < 3 * depth; i++) {
		slot = (i * 3) % depth;
		id = axon_fake_arm(f, slot, i);
		axon_fake_post(f, id, AXON_ADMIN_SUCCESS, i);
		axon_fake_irq(f);
		KUNIT_ASSERT_TRUE(test, completion_done(&f->aq.ctx[slot].done));
		KUNIT_ASSERT_EQ(test, le64_to_cpu(f->aq.ctx[slot].cqe.result), i);
		f->aq.ctx[slot].busy = false;
		KUNIT_ASSERT_EQ(test, f->aq.cq_head, (i + 1) % depth);
		KUNIT_ASSERT_EQ(test, f->aq.cq_phase, (i + 1) / depth % 2 == 0);
		/* the ring now holds only old-phase entries: nothing to take */
		axon_fake_irq(f);
		KUNIT_ASSERT_EQ(test, f->aq.stat_completed, i + 1);
	}
	KUNIT_EXPECT_EQ(test, f->aq.stat_stale, 0);
}

/* ---- commands through the fake device --------------------------------------- */

static void axon_engine_exec_test(struct kunit *test)
{
	struct axon_fake *f = test->priv;
	struct axon_admin_cmd cmd = {
		.opcode = cpu_to_le16(AXON_ADMIN_CREATE_PD),
		.flags = cpu_to_le32(0xdead),
	};
	struct axon_admin_cqe cqe = {};

	KUNIT_ASSERT_EQ(test, axon_fake_aq_init(f, 8), 0);
	f->result = 0xabcdef;
	axon_fake_start_device(f);
	KUNIT_ASSERT_EQ(test, axon_admin_exec(&f->aq, &cmd, &cqe), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(cqe.result), 0xabcdef);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(cqe.command_id),
			le16_to_cpu(cmd.command_id));
	KUNIT_EXPECT_EQ(test, f->last_opcode, AXON_ADMIN_CREATE_PD);
	/* the engine owns the id and the flags of what it submits */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(f->aq.sq[0].flags), 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(f->aq.sq[0].command_id),
			le16_to_cpu(cmd.command_id));
	KUNIT_EXPECT_EQ(test, axon_fake_reg(f, AXON_REG_AQ_SQ_TAIL), 1);
	KUNIT_EXPECT_EQ(test, f->aq.stat_submitted, 1);
	KUNIT_EXPECT_EQ(test, f->aq.stat_completed, 1);
	KUNIT_EXPECT_FALSE(test, f->aq.ctx[0].busy);
}

struct axon_exec_status_case {
	const char *name;
	u16 status;
	int err;
};

static const struct axon_exec_status_case axon_exec_status_cases[] = {
	{ "SUCCESS", AXON_ADMIN_SUCCESS, 0 },
	{ "BAD_OPCODE", AXON_ADMIN_BAD_OPCODE, -EOPNOTSUPP },
	{ "BAD_PARAM", AXON_ADMIN_BAD_PARAM, -EINVAL },
	{ "DMA_ERROR", AXON_ADMIN_DMA_ERROR, -EIO },
	{ "NO_RESOURCES", AXON_ADMIN_NO_RESOURCES, -ENOMEM },
	{ "BAD_HANDLE", AXON_ADMIN_BAD_HANDLE, -EINVAL },
	{ "BUSY", AXON_ADMIN_BUSY, -EBUSY },
	{ "BAD_STATE", AXON_ADMIN_BAD_STATE, -EINVAL },
	{ "unknown 0x100", 0x100, -EIO },
};

AXON_KUNIT_DESC(axon_exec_status_case)
KUNIT_ARRAY_PARAM(axon_exec_status, axon_exec_status_cases,
		  axon_exec_status_case_desc);

/* The device's status comes back as an errno, and the queue lives on. */
static void axon_engine_exec_status_test(struct kunit *test)
{
	const struct axon_exec_status_case *c = test->param_value;
	struct axon_fake *f = test->priv;
	struct axon_admin_cmd cmd = {
		.opcode = cpu_to_le16(AXON_ADMIN_DESTROY_PD),
	};
	struct axon_admin_cqe cqe;

	KUNIT_ASSERT_EQ(test, axon_fake_aq_init(f, 4), 0);
	f->status = c->status;
	axon_fake_start_device(f);
	KUNIT_EXPECT_EQ(test, axon_admin_exec(&f->aq, &cmd, &cqe), c->err);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(cqe.status), c->status);
	KUNIT_EXPECT_FALSE(test, f->aq.failed);
	f->status = AXON_ADMIN_SUCCESS;
	KUNIT_EXPECT_EQ(test, axon_admin_exec(&f->aq, &cmd, &cqe), 0);
}

struct axon_many_case {
	const char *name;
	u32 depth;
	u32 count;
};

static const struct axon_many_case axon_many_cases[] = {
	{ "depth 2, 70 commands: rings wrap", 2, 70 },
	{ "depth 32, 100 commands: rings wrap", 32, 100 },
	{ "depth 4096, 40 commands: generation wraps", 4096, 40 },
};

AXON_KUNIT_DESC(axon_many_case)
KUNIT_ARRAY_PARAM(axon_many, axon_many_cases, axon_many_case_desc);

/* Many commands in a row: ids stay unique in flight, rings and ids wrap. */
static void axon_engine_exec_many_test(struct kunit *test)
{
	const struct axon_many_case *c = test->param_value;
	struct axon_fake *f = test->priv;
	struct axon_admin_cmd cmd;
	struct axon_admin_cqe cqe;
	u32 i;

	KUNIT_ASSERT_EQ(test, axon_fake_aq_init(f, c->depth), 0);
	axon_fake_start_device(f);
	for (i = 0; i < c->count; i++) {
		memset(&cmd, 0, sizeof(cmd));
		cmd.opcode = cpu_to_le16(AXON_ADMIN_CREATE_PD);
		f->result = i;
		KUNIT_ASSERT_EQ(test, axon_admin_exec(&f->aq, &cmd, &cqe), 0);
		KUNIT_ASSERT_EQ(test, le64_to_cpu(cqe.result), i);
		KUNIT_ASSERT_EQ(test, le16_to_cpu(cmd.command_id),
				axon_admin_make_id(i, 0, c->depth));
	}
	KUNIT_EXPECT_EQ(test, f->aq.stat_submitted, c->count);
	KUNIT_EXPECT_EQ(test, f->aq.stat_completed, c->count);
	KUNIT_EXPECT_EQ(test, f->aq.stat_stale, 0);
	KUNIT_EXPECT_EQ(test, f->aq.sq_tail, c->count % c->depth);
	KUNIT_EXPECT_EQ(test, f->seen, c->count);
}

/*
 * A command the device never answers times out and marks the queue
 * failed; every later command fails at once with -EIO without reaching
 * the device, and a late answer is ignored.
 */
static void axon_engine_timeout_test(struct kunit *test)
{
	struct axon_fake *f = test->priv;
	struct axon_admin_cmd cmd = {
		.opcode = cpu_to_le16(AXON_ADMIN_CREATE_PD),
	};
	struct axon_admin_cqe cqe;
	unsigned long t0;
	u16 id;

	KUNIT_ASSERT_EQ(test, axon_fake_aq_init(f, 8), 0);
	f->aq.timeout_ms = 20;
	f->answer = false;
	axon_fake_start_device(f);
	KUNIT_EXPECT_EQ(test, axon_admin_exec(&f->aq, &cmd, &cqe), -ETIMEDOUT);
	KUNIT_EXPECT_TRUE(test, f->aq.failed);
	id = le16_to_cpu(cmd.command_id);

	/* fails at once, not after another (now long) timeout */
	f->aq.timeout_ms = 10000;
	t0 = jiffies;
	KUNIT_EXPECT_EQ(test, axon_admin_exec(&f->aq, &cmd, &cqe), -EIO);
	KUNIT_EXPECT_LT(test, jiffies - t0, msecs_to_jiffies(1000));
	msleep(20);
	KUNIT_EXPECT_EQ(test, f->seen, 1);
	KUNIT_EXPECT_EQ(test, f->aq.stat_submitted, 1);

	axon_fake_post(f, id, AXON_ADMIN_SUCCESS, 0);
	axon_fake_irq(f);
	KUNIT_EXPECT_EQ(test, f->aq.stat_completed, 0);
	KUNIT_EXPECT_EQ(test, f->aq.cq_head, 0);
}

/*
 * A fatal device event (mark_failed) wakes a waiting command with
 * -ETIMEDOUT (the device took it: its caller keeps its buffers); later
 * commands fail with -EIO without reaching the device.
 */
static void axon_engine_mark_failed_test(struct kunit *test)
{
	struct axon_fake *f = test->priv;
	struct axon_admin_cmd cmd = {
		.opcode = cpu_to_le16(AXON_ADMIN_CREATE_PD),
	};
	struct axon_admin_cqe cqe;
	unsigned long t0;

	KUNIT_ASSERT_EQ(test, axon_fake_aq_init(f, 8), 0);
	f->aq.timeout_ms = 10000;
	f->answer = false;
	axon_fake_start_device(f);
	schedule_delayed_work(&f->fail_work, msecs_to_jiffies(20));
	t0 = jiffies;
	KUNIT_EXPECT_EQ(test, axon_admin_exec(&f->aq, &cmd, &cqe), -ETIMEDOUT);
	KUNIT_EXPECT_LT(test, jiffies - t0, msecs_to_jiffies(5000));
	KUNIT_EXPECT_TRUE(test, f->aq.failed);
	KUNIT_EXPECT_EQ(test, axon_admin_exec(&f->aq, &cmd, &cqe), -EIO);
	KUNIT_EXPECT_EQ(test, f->seen, 1);
}

static struct kunit_case axon_engine_cases[] = {
	KUNIT_CASE_PARAM(axon_engine_init_test, axon_timeout_gen_params),
	KUNIT_CASE_PARAM(axon_engine_depth_test, axon_depth_gen_params),
	KUNIT_CASE(axon_engine_irq_empty_test),
	KUNIT_CASE(axon_engine_irq_match_test),
	KUNIT_CASE(axon_engine_irq_stale_generation_test),
	KUNIT_CASE(axon_engine_irq_idle_slot_test),
	KUNIT_CASE(axon_engine_irq_duplicate_test),
	KUNIT_CASE(axon_engine_irq_phase_wrap_test),
	KUNIT_CASE(axon_engine_exec_test),
	KUNIT_CASE_PARAM(axon_engine_exec_status_test,
			 axon_exec_status_gen_params),
	KUNIT_CASE_PARAM(axon_engine_exec_many_test, axon_many_gen_params),
	KUNIT_CASE(axon_engine_timeout_test),
	KUNIT_CASE(axon_engine_mark_failed_test),
	{}
};

static struct kunit_suite axon_engine_suite = {
	.name = "axon_admin_engine",
	.init = axon_engine_init,
	.exit = axon_engine_exit,
	.test_cases = axon_engine_cases,
};

kunit_test_suite(axon_engine_suite);
