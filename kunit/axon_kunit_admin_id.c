// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: admin command ids, completion phase and status codes, the pure
 * parts of the admin queue engine (drivers/axon/axon_admin.c).
 */

#include <linux/log2.h>

#include "axon_admin.h"
#include "axon_kunit.h"

/* ---- command ids: slot in the low bits, generation above ---------------- */

struct axon_id_case {
	const char *name;
	u16 generation;
	u32 slot;
	u32 depth;
	u16 id;
};

static const struct axon_id_case axon_id_cases[] = {
	{ "first command", 0, 0, 32, 0x0000 },
	{ "slot only", 0, 31, 32, 0x001f },
	{ "generation 1", 1, 0, 32, 0x0020 },
	{ "generation and slot", 5, 7, 32, 0x00a7 },
	{ "largest id", 0x7ff, 31, 32, 0xffff },
	{ "generation wraps", 0x800, 3, 32, 0x0003 },
	{ "generation wraps, high bits", 0x801, 3, 32, 0x0023 },
	{ "slot masked to depth", 2, 33, 32, 0x0041 },
	{ "smallest ring", 3, 1, 2, 0x0007 },
	{ "largest ring", 3, 4095, 4096, 0x3fff },
	{ "largest ring, generation wraps", 16, 9, 4096, 0x0009 },
};

AXON_KUNIT_DESC(axon_id_case)
KUNIT_ARRAY_PARAM(axon_id, axon_id_cases, axon_id_case_desc);

static void axon_admin_make_id_test(struct kunit *test)
{
	const struct axon_id_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, axon_admin_make_id(c->generation, c->slot,
						 c->depth), c->id);
}

/*
 * For every legal depth, an id leads back to its slot and consecutive
 * generations of one slot never share an id until the generation field
 * wraps: that is what makes a late completion recognisable as stale.
 */
static void axon_admin_id_slot_test(struct kunit *test)
{
	u32 depth, slot, wrap;
	u16 gen, id, prev;

	for (depth = AXON_QUEUE_MIN_DEPTH; depth <= AXON_QUEUE_MAX_DEPTH;
	     depth <<= 1) {
		wrap = 1u << (16 - ilog2(depth));
		for (slot = 0; slot < depth; slot += depth / 2 ?: 1) {
			prev = axon_admin_make_id(0, slot, depth);
			for (gen = 1; gen < 64; gen++) {
				id = axon_admin_make_id(gen, slot, depth);
				KUNIT_ASSERT_EQ(test, id & (depth - 1), slot);
				KUNIT_ASSERT_NE(test, id, prev);
				prev = id;
			}
			KUNIT_ASSERT_EQ(test, axon_admin_make_id(wrap, slot, depth),
					axon_admin_make_id(0, slot, depth));
		}
	}
}

/* ---- completion entries: the phase bit ----------------------------------- */

struct axon_phase_case {
	const char *name;
	u16 flags;
	bool phase;
	bool ready;
};

static const struct axon_phase_case axon_phase_cases[] = {
	{ "phase 1, expect 1", AXON_ADMIN_CQE_PHASE, true, true },
	{ "phase 0, expect 1", 0, true, false },
	{ "phase 0, expect 0", 0, false, true },
	{ "phase 1, expect 0", AXON_ADMIN_CQE_PHASE, false, false },
	{ "reserved bits, phase 0, expect 1", 0xfffe, true, false },
	{ "reserved bits, phase 1, expect 0", 0xffff, false, false },
	{ "reserved bits, phase 1, expect 1", 0x8001, true, true },
};

AXON_KUNIT_DESC(axon_phase_case)
KUNIT_ARRAY_PARAM(axon_phase, axon_phase_cases, axon_phase_case_desc);

static void axon_admin_cqe_ready_test(struct kunit *test)
{
	const struct axon_phase_case *c = test->param_value;
	struct axon_admin_cqe cqe = {
		.command_id = cpu_to_le16(0xffff),
		.status = cpu_to_le16(0xffff),
		.flags = cpu_to_le16(c->flags),
	};

	KUNIT_EXPECT_EQ(test, axon_admin_cqe_ready(&cqe, c->phase), c->ready);
}

/* ---- device status to errno ------------------------------------------------ */

struct axon_status_case {
	const char *name;
	u16 status;
	int err;
};

static const struct axon_status_case axon_status_cases[] = {
	{ "SUCCESS", AXON_ADMIN_SUCCESS, 0 },
	{ "BAD_OPCODE", AXON_ADMIN_BAD_OPCODE, -EOPNOTSUPP },
	{ "BAD_PARAM", AXON_ADMIN_BAD_PARAM, -EINVAL },
	{ "DMA_ERROR", AXON_ADMIN_DMA_ERROR, -EIO },
	{ "NO_RESOURCES", AXON_ADMIN_NO_RESOURCES, -ENOMEM },
	{ "BAD_HANDLE", AXON_ADMIN_BAD_HANDLE, -EINVAL },
	{ "BUSY", AXON_ADMIN_BUSY, -EBUSY },
	{ "BAD_STATE", AXON_ADMIN_BAD_STATE, -EINVAL },
	{ "unknown 8", AXON_ADMIN_BAD_STATE + 1, -EIO },
	{ "unknown 0xffff", 0xffff, -EIO },
};

AXON_KUNIT_DESC(axon_status_case)
KUNIT_ARRAY_PARAM(axon_status, axon_status_cases, axon_status_case_desc);

static void axon_admin_status_test(struct kunit *test)
{
	const struct axon_status_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, axon_admin_status_to_errno(c->status), c->err);
}

static struct kunit_case axon_admin_id_cases[] = {
	KUNIT_CASE_PARAM(axon_admin_make_id_test, axon_id_gen_params),
	KUNIT_CASE(axon_admin_id_slot_test),
	KUNIT_CASE_PARAM(axon_admin_cqe_ready_test, axon_phase_gen_params),
	KUNIT_CASE_PARAM(axon_admin_status_test, axon_status_gen_params),
	{}
};

static struct kunit_suite axon_admin_id_suite = {
	.name = "axon_admin_id",
	.test_cases = axon_admin_id_cases,
};

kunit_test_suite(axon_admin_id_suite);
