// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: Ethernet descriptor ring arithmetic, the RX length rule and the
 * multicast filter's hash (drivers/axon/axon_eth.h, as used by
 * axon_netdev.c).
 */

#include "axon_eth.h"
#include "axon_kunit.h"

struct axon_idx_case {
	const char *name;
	u32 depth;
	u32 n;
	u32 idx;
};

static const struct axon_idx_case axon_idx_cases[] = {
	{ "first", 256, 0, 0 },
	{ "last slot", 256, 255, 255 },
	{ "second pass", 256, 256, 0 },
	{ "many passes", 256, 256 * 1000 + 17, 17 },
	{ "index wraps at 2^32", 256, U32_MAX, 255 },
	{ "smallest ring", 2, 5, 1 },
	{ "largest ring", 4096, 4097, 1 },
};

AXON_KUNIT_DESC(axon_idx_case)
KUNIT_ARRAY_PARAM(axon_idx, axon_idx_cases, axon_idx_case_desc);

static void axon_ring_idx_test(struct kunit *test)
{
	const struct axon_idx_case *c = test->param_value;
	struct axon_eth_ring r = { .depth = c->depth };

	KUNIT_EXPECT_EQ(test, axon_ring_idx(&r, c->n), c->idx);
}

struct axon_slots_case {
	const char *name;
	u32 depth;
	u32 head;
	u32 tail;
	u32 free;
};

static const struct axon_slots_case axon_slots_cases[] = {
	{ "empty: one slot stays free", 256, 0, 0, 255 },
	{ "one in flight", 256, 0, 1, 254 },
	{ "full", 256, 0, 255, 0 },
	{ "full after passes", 256, 1000, 1255, 0 },
	{ "empty at the wrap", 256, U32_MAX, U32_MAX, 255 },
	{ "tail wrapped past head", 256, U32_MAX - 1, 3, 250 },
	{ "full across the wrap", 256, U32_MAX - 100, 154, 0 },
	{ "smallest ring, empty", 2, 7, 7, 1 },
	{ "smallest ring, full", 2, 7, 8, 0 },
};

AXON_KUNIT_DESC(axon_slots_case)
KUNIT_ARRAY_PARAM(axon_slots, axon_slots_cases, axon_slots_case_desc);

static void axon_ring_free_slots_test(struct kunit *test)
{
	const struct axon_slots_case *c = test->param_value;
	struct axon_eth_ring r = {
		.depth = c->depth,
		.head = c->head,
		.tail = c->tail,
	};

	KUNIT_EXPECT_EQ(test, axon_ring_free_slots(&r), c->free);
}

/*
 * Fill a ring to the brim and drain it again, many times across the 2^32
 * wrap of the free-running indices: every slot is used in turn and the
 * free count never goes past depth - 1.
 */
static void axon_ring_fill_drain_test(struct kunit *test)
{
	struct axon_eth_ring r = {
		.depth = 8,
		.head = U32_MAX - 20,
		.tail = U32_MAX - 20,
	};
	u32 expect_slot = axon_ring_idx(&r, r.tail);
	int pass, n;

	for (pass = 0; pass < 8; pass++) {
		for (n = 0; axon_ring_free_slots(&r); n++) {
			KUNIT_ASSERT_EQ(test, axon_ring_idx(&r, r.tail), expect_slot);
			expect_slot = (expect_slot + 1) % r.depth;
			r.tail++;
		}
		KUNIT_ASSERT_EQ(test, n, r.depth - 1);
		while (r.head != r.tail)
			r.head++;
		KUNIT_ASSERT_EQ(test, axon_ring_free_slots(&r), r.depth - 1);
	}
	/* the indices wrapped */
	KUNIT_EXPECT_LT(test, r.tail, 100u);
}

struct axon_rx_len_case {
	const char *name;
	u32 len;
	u32 buf_len;
	bool valid;
};

static const struct axon_rx_len_case axon_rx_len_cases[] = {
	{ "0", 0, 1518, false },
	{ "ETH_HLEN - 1", ETH_HLEN - 1, 1518, false },
	{ "ETH_HLEN", ETH_HLEN, 1518, true },
	{ "minimum frame", 60, 1518, true },
	{ "buffer length", 1518, 1518, true },
	{ "buffer length + 1", 1519, 1518, false },
	{ "jumbo in a 1500 buffer", 9018, 1518, false },
	{ "jumbo in a jumbo buffer", 9018, 9018, true },
	{ "0xffff", 0xffff, 9018, false },
	{ "buffer smaller than a header", ETH_HLEN, ETH_HLEN - 1, false },
};

AXON_KUNIT_DESC(axon_rx_len_case)
KUNIT_ARRAY_PARAM(axon_rx_len, axon_rx_len_cases, axon_rx_len_case_desc);

static void axon_rx_len_test(struct kunit *test)
{
	const struct axon_rx_len_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, axon_rx_len_valid(c->len, c->buf_len), c->valid);
}

struct axon_mc_hash_case {
	const char *name;
	u8 addr[ETH_ALEN];
	u32 bit;
};

/*
 * The bits worked out apart from the driver (the bit-reversed CRC-32 of
 * Python's binascii.crc32(), without its final inversion), and the same
 * the model computes with QEMU's net_crc32(): the qtest eth-mc-filter
 * uses the first two.
 */
static const struct axon_mc_hash_case axon_mc_hash_cases[] = {
	{ "01:00:5e:01:02:03", { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 }, 57 },
	{ "01:00:5e:01:02:04", { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x04 }, 8 },
	{ "IPv4 all hosts", { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 }, 31 },
	{ "01:00:5e:7f:00:01", { 0x01, 0x00, 0x5e, 0x7f, 0x00, 0x01 }, 50 },
	{ "IPv6 all nodes", { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 }, 62 },
	{ "IPv6 solicited node", { 0x33, 0x33, 0xff, 0x00, 0x00, 0x01 }, 29 },
	{ "LLDP", { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x00 }, 25 },
	{ "broadcast", { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, 63 },
};

AXON_KUNIT_DESC(axon_mc_hash_case)
KUNIT_ARRAY_PARAM(axon_mc_hash, axon_mc_hash_cases, axon_mc_hash_case_desc);

static void axon_mc_hash_test(struct kunit *test)
{
	const struct axon_mc_hash_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, axon_eth_mc_hash_bit(c->addr), c->bit);
}

static struct kunit_case axon_eth_cases[] = {
	KUNIT_CASE_PARAM(axon_ring_idx_test, axon_idx_gen_params),
	KUNIT_CASE_PARAM(axon_ring_free_slots_test, axon_slots_gen_params),
	KUNIT_CASE(axon_ring_fill_drain_test),
	KUNIT_CASE_PARAM(axon_rx_len_test, axon_rx_len_gen_params),
	KUNIT_CASE_PARAM(axon_mc_hash_test, axon_mc_hash_gen_params),
	{}
};

static struct kunit_suite axon_eth_suite = {
	.name = "axon_eth",
	.test_cases = axon_eth_cases,
};

kunit_test_suite(axon_eth_suite);
