// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: work queue entries (drivers/axon/axon_wqe.c): which WQEs are
 * pending, kernel send (RC, UD, what RC and UC may post, fast
 * registration and invalidation) and receive WQEs; a fast-registration
 * MR's page list (drivers/axon/axon_mr_attr.c).
 */

#include <linux/sizes.h>

#include "axon_ah_attr.h"
#include "axon_kunit.h"
#include "axon_mr_attr.h"
#include "axon_wqe.h"

/* ---- completions against the posted WQEs ----------------------------------- */

static void axon_wq_index_test(struct kunit *test)
{
	/* nothing posted */
	KUNIT_EXPECT_FALSE(test, axon_wq_index_pending(5, 5, 5));
	KUNIT_EXPECT_FALSE(test, axon_wq_index_pending(5, 5, 4));
	/* [5, 8) */
	KUNIT_EXPECT_TRUE(test, axon_wq_index_pending(5, 8, 5));
	KUNIT_EXPECT_TRUE(test, axon_wq_index_pending(5, 8, 7));
	KUNIT_EXPECT_FALSE(test, axon_wq_index_pending(5, 8, 8));
	KUNIT_EXPECT_FALSE(test, axon_wq_index_pending(5, 8, 4));
	KUNIT_EXPECT_FALSE(test, axon_wq_index_pending(5, 8, 0xffff));
	/* [0xfffe, 2): the indexes wrap at 2^16 */
	KUNIT_EXPECT_TRUE(test, axon_wq_index_pending(0xfffe, 2, 0xffff));
	KUNIT_EXPECT_TRUE(test, axon_wq_index_pending(0xfffe, 2, 0));
	KUNIT_EXPECT_TRUE(test, axon_wq_index_pending(0xfffe, 2, 1));
	KUNIT_EXPECT_FALSE(test, axon_wq_index_pending(0xfffe, 2, 2));
	KUNIT_EXPECT_FALSE(test, axon_wq_index_pending(0xfffe, 2, 0xfffd));
}

/* ---- kernel WQEs ------------------------------------------------------------- */

/* @wr of a QP of @pd in a 128-byte slot: @max_sge SGEs or 64 inline bytes. */
static int axon_test_wqe(const struct ib_send_wr *wr, const struct ib_pd *pd,
			 u8 *slot, u32 max_sge, bool sig_all)
{
	return axon_build_send_wqe(wr, pd, slot, 128, max_sge, 64, sig_all);
}

static void axon_send_wqe_write_test(struct kunit *test)
{
	struct ib_sge sge[2] = {
		{ .addr = 0x1000, .length = 100, .lkey = 0x101 },
		{ .addr = 0x2000, .length = 200, .lkey = 0x202 },
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = 7,
			.sg_list = sge,
			.num_sge = 2,
			.opcode = IB_WR_RDMA_WRITE_WITH_IMM,
			.send_flags = IB_SEND_SOLICITED | IB_SEND_FENCE,
			.ex.imm_data = cpu_to_be32(0x1234),
		},
		.remote_addr = 0xdead0000,
		.rkey = 0x4242,
	};
	u8 *slot = kunit_kzalloc(test, 128, GFP_KERNEL);
	struct axon_send_wqe *wqe = (struct axon_send_wqe *)slot;
	struct axon_sge *s = (struct axon_sge *)(wqe + 1);

	KUNIT_ASSERT_NOT_NULL(test, slot);
	memset(slot, 0xaa, 128);
	KUNIT_ASSERT_EQ(test, axon_test_wqe(&wr.wr, NULL, slot, 4, false), 0);
	KUNIT_EXPECT_EQ(test, wqe->opcode, AXON_WR_RDMA_WRITE_IMM);
	KUNIT_EXPECT_EQ(test, wqe->flags, AXON_WQE_SOLICITED | AXON_WQE_FENCE);
	KUNIT_EXPECT_EQ(test, wqe->num_sge, 2);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wqe->imm_data), 0x1234);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(wqe->wr_id), 7);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(wqe->remote_addr), 0xdead0000);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(wqe->rkey), 0x4242);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s[1].addr), 0x2000);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(s[1].length), 200);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(s[1].lkey), 0x202);
	/* the rest of the slot is cleared */
	KUNIT_EXPECT_NULL(test, memchr_inv(slot + 96, 0, 32));

	/* more SGEs than the QP has */
	KUNIT_EXPECT_EQ(test, axon_test_wqe(&wr.wr, NULL, slot, 1, false),
			-EINVAL);
}

static void axon_send_wqe_inline_test(struct kunit *test)
{
	static const char data[] = "inline payload";
	struct ib_sge sge = {
		.addr = (uintptr_t)data,
		.length = sizeof(data),
	};
	struct ib_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_INLINE,
	};
	u8 *slot = kunit_kzalloc(test, 128, GFP_KERNEL);
	struct axon_send_wqe *wqe = (struct axon_send_wqe *)slot;

	KUNIT_ASSERT_NOT_NULL(test, slot);
	KUNIT_ASSERT_EQ(test, axon_test_wqe(&wr, NULL, slot, 4, true), 0);
	KUNIT_EXPECT_EQ(test, wqe->opcode, AXON_WR_SEND);
	KUNIT_EXPECT_EQ(test, wqe->flags, AXON_WQE_INLINE | AXON_WQE_SIGNALED);
	KUNIT_EXPECT_EQ(test, wqe->num_sge, 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(wqe->inline_len), sizeof(data));
	KUNIT_EXPECT_EQ(test, memcmp(wqe + 1, data, sizeof(data)), 0);

	/* more than fits inline */
	sge.length = 65;
	KUNIT_EXPECT_EQ(test, axon_test_wqe(&wr, NULL, slot, 4, true), -EINVAL);
	/* an opcode the device does not have */
	wr.opcode = IB_WR_RDMA_READ_WITH_INV;
	KUNIT_EXPECT_EQ(test, axon_test_wqe(&wr, NULL, slot, 4, true), -EINVAL);
}

/* @wr for a UD QP of @pd in a 128-byte slot: 4 SGEs or 64 inline bytes. */
static int axon_test_ud_wqe(struct ib_ud_wr *wr, const struct ib_pd *pd,
			    u8 *slot, bool sig_all)
{
	return axon_build_ud_send_wqe(&wr->wr, pd, slot, 128, 4, 64, sig_all);
}

static void axon_send_wqe_ud_test(struct kunit *test)
{
	static const char data[] = "datagram";
	struct ib_pd *pd = kunit_kzalloc(test, sizeof(*pd), GFP_KERNEL);
	struct ib_pd *other_pd = kunit_kzalloc(test, sizeof(*pd), GFP_KERNEL);
	struct axon_ah *ah = kunit_kzalloc(test, sizeof(*ah), GFP_KERNEL);
	struct ib_sge sge = { .addr = 0x1000, .length = 100, .lkey = 0x101 };
	struct ib_ud_wr wr = {
		.wr = {
			.wr_id = 8,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IB_WR_SEND_WITH_IMM,
			.send_flags = IB_SEND_SOLICITED,
			.ex.imm_data = cpu_to_be32(0x5678),
		},
		.remote_qpn = 0x123456,
		.remote_qkey = 0x11111111,
	};
	const struct axon_ud_av av = {
		.dgid = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 2 },
		.dmac = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 },
		.sgid_index = 3,
		.hop_limit = 64,
		.flags = AXON_AV_IPV4,
	};
	u8 *slot = kunit_kzalloc(test, 128, GFP_KERNEL);
	struct axon_send_wqe *wqe = (struct axon_send_wqe *)slot;
	struct axon_sge *s = (struct axon_sge *)(wqe + 1);

	KUNIT_ASSERT_NOT_NULL(test, slot);
	KUNIT_ASSERT_NOT_NULL(test, pd);
	KUNIT_ASSERT_NOT_NULL(test, other_pd);
	KUNIT_ASSERT_NOT_NULL(test, ah);
	ah->ibah.pd = pd;
	ah->av = av;
	wr.ah = &ah->ibah;
	memset(slot, 0xaa, 128);
	KUNIT_ASSERT_EQ(test, axon_test_ud_wqe(&wr, pd, slot, false), 0);
	KUNIT_EXPECT_EQ(test, wqe->opcode, AXON_WR_SEND_IMM);
	KUNIT_EXPECT_EQ(test, wqe->flags, AXON_WQE_SOLICITED);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wqe->imm_data), 0x5678);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(wqe->wr_id), 8);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(wqe->remote_qpn), 0x123456);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(wqe->qkey), 0x11111111);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(wqe->rkey), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&wqe->av, &av, sizeof(av)), 0);
	KUNIT_EXPECT_EQ(test, wqe->num_sge, 1);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->addr), 0x1000);

	/* inline, with the QP's own Q_Key (bit 31) */
	sge.addr = (uintptr_t)data;
	sge.length = sizeof(data);
	wr.wr.opcode = IB_WR_SEND;
	wr.wr.send_flags = IB_SEND_INLINE;
	wr.remote_qkey = 0x80000000;
	KUNIT_ASSERT_EQ(test, axon_test_ud_wqe(&wr, pd, slot, true), 0);
	KUNIT_EXPECT_EQ(test, wqe->opcode, AXON_WR_SEND);
	KUNIT_EXPECT_EQ(test, wqe->flags, AXON_WQE_INLINE | AXON_WQE_SIGNALED);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(wqe->inline_len), sizeof(data));
	KUNIT_EXPECT_EQ(test, memcmp(wqe + 1, data, sizeof(data)), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(wqe->qkey), 0x80000000);
	KUNIT_EXPECT_EQ(test, memcmp(&wqe->av, &av, sizeof(av)), 0);

	/* an AH of another PD, or none */
	wr.wr.send_flags = 0;
	KUNIT_EXPECT_EQ(test, axon_test_ud_wqe(&wr, other_pd, slot, false),
			-EINVAL);
	wr.ah = NULL;
	KUNIT_EXPECT_EQ(test, axon_test_ud_wqe(&wr, pd, slot, false), -EINVAL);
	wr.ah = &ah->ibah;
	/* what a UD QP cannot send */
	wr.wr.opcode = IB_WR_RDMA_WRITE;
	KUNIT_EXPECT_EQ(test, axon_test_ud_wqe(&wr, pd, slot, false), -EINVAL);
	wr.wr.opcode = IB_WR_ATOMIC_FETCH_AND_ADD;
	KUNIT_EXPECT_EQ(test, axon_test_ud_wqe(&wr, pd, slot, false), -EINVAL);
	wr.wr.opcode = IB_WR_SEND;
	wr.wr.send_flags = IB_SEND_FENCE;
	KUNIT_EXPECT_EQ(test, axon_test_ud_wqe(&wr, pd, slot, false), -EINVAL);
	wr.wr.send_flags = 0;
	wr.remote_qpn = 0x1000000;
	KUNIT_EXPECT_EQ(test, axon_test_ud_wqe(&wr, pd, slot, false), -EINVAL);
	wr.remote_qpn = 1;
	wr.wr.num_sge = 5;
	KUNIT_EXPECT_EQ(test, axon_test_ud_wqe(&wr, pd, slot, false), -EINVAL);
}

/*
 * An RDMA WRITE posted to a UD QP is an ib_rdma_wr: what would be the
 * AH pointer of an ib_ud_wr is its remote address, never to be followed.
 */
static void axon_send_wqe_ud_not_ud_wr_test(struct kunit *test)
{
	struct ib_pd *pd = kunit_kzalloc(test, sizeof(*pd), GFP_KERNEL);
	u8 *slot = kunit_kzalloc(test, 128, GFP_KERNEL);
	struct ib_rdma_wr wr = {
		.wr.opcode = IB_WR_RDMA_WRITE,
		.remote_addr = 0xdead000000000000,
		.rkey = 0x4242,
	};

	KUNIT_ASSERT_NOT_NULL(test, pd);
	KUNIT_ASSERT_NOT_NULL(test, slot);
	KUNIT_EXPECT_EQ(test, axon_build_ud_send_wqe(&wr.wr, pd, slot, 128, 4,
						     64, false), -EINVAL);
}

/* ---- what RC and UC QPs may post ------------------------------------------ */

struct axon_conn_wr_case {
	const char *name;
	enum ib_wr_opcode opcode;
	bool rc;		/* without fast registration */
	bool uc;
	bool rc_fr;		/* with it */
	bool uc_fr;
};

static const struct axon_conn_wr_case axon_conn_wr_cases[] = {
	{ "SEND", IB_WR_SEND, true, true, true, true },
	{ "SEND_WITH_IMM", IB_WR_SEND_WITH_IMM, true, true, true, true },
	{ "RDMA_WRITE", IB_WR_RDMA_WRITE, true, true, true, true },
	{ "RDMA_WRITE_WITH_IMM", IB_WR_RDMA_WRITE_WITH_IMM, true, true, true,
	  true },
	{ "RDMA_READ: not UC", IB_WR_RDMA_READ, true, false, true, false },
	{ "CMP_AND_SWP: not UC", IB_WR_ATOMIC_CMP_AND_SWP, true, false, true,
	  false },
	{ "FETCH_AND_ADD: not UC", IB_WR_ATOMIC_FETCH_AND_ADD, true, false,
	  true, false },
	{ "REG_MR: local, UC too", IB_WR_REG_MR, false, false, true, true },
	{ "LOCAL_INV: local, UC too", IB_WR_LOCAL_INV, false, false, true,
	  true },
	{ "SEND_WITH_INV: RC only", IB_WR_SEND_WITH_INV, false, false, true,
	  false },
	{ "RDMA_READ_WITH_INV: none", IB_WR_RDMA_READ_WITH_INV, false, false,
	  false, false },
	{ "BIND_MW: none", IB_WR_BIND_MW, false, false, false, false },
	{ "MASKED_ATOMIC_CMP_AND_SWP: none", IB_WR_MASKED_ATOMIC_CMP_AND_SWP,
	  false, false, false, false },
};

AXON_KUNIT_DESC(axon_conn_wr_case)
KUNIT_ARRAY_PARAM(axon_conn_wr, axon_conn_wr_cases, axon_conn_wr_case_desc);

static void axon_conn_wr_test(struct kunit *test)
{
	const struct axon_conn_wr_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, axon_conn_wr_ok(IB_QPT_RC, c->opcode, false),
			c->rc);
	KUNIT_EXPECT_EQ(test, axon_conn_wr_ok(IB_QPT_UC, c->opcode, false),
			c->uc);
	KUNIT_EXPECT_EQ(test, axon_conn_wr_ok(IB_QPT_RC, c->opcode, true),
			c->rc_fr);
	KUNIT_EXPECT_EQ(test, axon_conn_wr_ok(IB_QPT_UC, c->opcode, true),
			c->uc_fr);
}

/* ---- fast registration --------------------------------------------------- */

#define AXON_TEST_FR_KEY	0x12345a	/* slot 0x1234, tag 0x5a */
#define AXON_TEST_FR_IOVA	0xffff9000c0011080ULL	/* 0x80 into a page */
#define AXON_TEST_FR_DMA	0x7654000ULL

/*
 * A fast-registration MR of @pd as alloc_mr and map_mr_sg leave it: room
 * for 8 pages, 3 of 4 KiB mapped (0x80 into the first, 0x1f80 + 0x1000
 * bytes long), under AXON_TEST_FR_KEY.
 */
static struct axon_mr *axon_test_fr(struct kunit *test, struct ib_pd *pd)
{
	struct axon_mr *mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, mr);
	mr->fr.capacity = 8;
	mr->fr.list = kunit_kcalloc(test, 8, sizeof(__le64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mr->fr.list);
	mr->fr.dma = AXON_TEST_FR_DMA;
	mr->key = AXON_TEST_FR_KEY;
	mr->ibmr.pd = pd;
	mr->ibmr.lkey = AXON_TEST_FR_KEY;
	mr->ibmr.rkey = AXON_TEST_FR_KEY;
	mr->ibmr.page_size = SZ_4K;
	KUNIT_ASSERT_EQ(test, axon_fr_page_shift(SZ_4K), 12);
	mr->fr.page_shift = 12;
	KUNIT_ASSERT_EQ(test, axon_fr_set_page(&mr->fr, 0x10000), 0);
	KUNIT_ASSERT_EQ(test, axon_fr_set_page(&mr->fr, 0x23000), 0);
	KUNIT_ASSERT_EQ(test, axon_fr_set_page(&mr->fr, 0x31000), 0);
	mr->ibmr.iova = AXON_TEST_FR_IOVA;
	mr->ibmr.length = 0x1f80 + 0x1000;
	mr->fr.page_off = 0x80;
	return mr;
}

/*
 * IB_WR_REG_MR as nvme-rdma posts it: the key's tag moved on with
 * ib_update_fast_reg_key(), the page list, iova, length, page size and
 * access in the WQE.
 */
static void axon_send_wqe_reg_mr_test(struct kunit *test)
{
	struct ib_pd *pd = kunit_kzalloc(test, sizeof(*pd), GFP_KERNEL);
	struct axon_mr *mr = axon_test_fr(test, pd);
	u8 *slot = kunit_kzalloc(test, 128, GFP_KERNEL);
	struct axon_send_wqe *wqe = (struct axon_send_wqe *)slot;
	struct ib_reg_wr wr = {
		.wr = {
			.wr_id = 11,
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.mr = &mr->ibmr,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			  IB_ACCESS_REMOTE_WRITE,
	};

	KUNIT_ASSERT_NOT_NULL(test, pd);
	KUNIT_ASSERT_NOT_NULL(test, slot);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(mr->fr.list[1]), 0x23000);
	KUNIT_EXPECT_EQ(test, mr->fr.npages, 3);
	ib_update_fast_reg_key(&mr->ibmr, ib_inc_rkey(mr->ibmr.rkey));
	KUNIT_EXPECT_EQ(test, mr->ibmr.lkey, 0x12345b);
	KUNIT_EXPECT_EQ(test, mr->ibmr.rkey, 0x12345b);
	wr.key = mr->ibmr.rkey;
	memset(slot, 0xaa, 128);
	KUNIT_ASSERT_EQ(test, axon_test_wqe(&wr.wr, pd, slot, 4, false), 0);
	KUNIT_EXPECT_EQ(test, wqe->opcode, AXON_WR_REG_MR);
	KUNIT_EXPECT_EQ(test, wqe->flags, AXON_WQE_SIGNALED);
	KUNIT_EXPECT_EQ(test, wqe->num_sge, 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(wqe->wr_id), 11);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(wqe->remote_addr), AXON_TEST_FR_IOVA);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(wqe->rkey), 0x12345b);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(wqe->reg.length), 0x2f80);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(wqe->reg.pbl_addr), AXON_TEST_FR_DMA);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(wqe->reg.npages), 3);
	KUNIT_EXPECT_EQ(test, wqe->reg.page_shift, 12);
	KUNIT_EXPECT_EQ(test, wqe->reg.access, AXON_ACCESS_LOCAL_WRITE |
			AXON_ACCESS_REMOTE_READ | AXON_ACCESS_REMOTE_WRITE);
	KUNIT_EXPECT_NULL(test, memchr_inv(wqe->reg.reserved, 0,
					   sizeof(wqe->reg.reserved)));
	KUNIT_EXPECT_NULL(test, memchr_inv(slot + sizeof(*wqe), 0,
					   128 - sizeof(*wqe)));

	/* rpcrdma's XID in the iova's upper half, a shorter length, inline */
	mr->ibmr.iova = 0x1234567800011080ULL;
	mr->ibmr.length = 0x100;
	wr.wr.send_flags = IB_SEND_INLINE | IB_SEND_FENCE;
	wr.access = IB_ACCESS_REMOTE_READ | IB_ACCESS_RELAXED_ORDERING;
	KUNIT_ASSERT_EQ(test, axon_test_wqe(&wr.wr, pd, slot, 4, true), 0);
	KUNIT_EXPECT_EQ(test, wqe->flags, AXON_WQE_SIGNALED | AXON_WQE_FENCE);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(wqe->remote_addr),
			0x1234567800011080ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(wqe->reg.npages), 1);
	KUNIT_EXPECT_EQ(test, wqe->reg.access, AXON_ACCESS_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(wqe->inline_len), 0);
}

/* One thing wrong with the REG_MR of axon_send_wqe_reg_mr_test(). */
struct axon_reg_mr_case {
	const char *name;
	void (*set)(struct ib_reg_wr *wr, struct axon_mr *mr,
		    struct ib_pd **pd);
};

#define AXON_REG_SET(fn, stmt)						\
static void fn(struct ib_reg_wr *wr, struct axon_mr *mr, struct ib_pd **pd) \
{									\
	stmt;								\
}

static struct ib_pd axon_test_other_pd;

AXON_REG_SET(axon_reg_other_pd, *pd = &axon_test_other_pd)
AXON_REG_SET(axon_reg_other_slot, wr->key = AXON_TEST_FR_KEY + 0x100)
AXON_REG_SET(axon_reg_not_fr, mr->fr.list = NULL)
AXON_REG_SET(axon_reg_remote_write_only,
	     wr->access = IB_ACCESS_REMOTE_WRITE)
AXON_REG_SET(axon_reg_zero_based, mr->ibmr.iova = 0)
AXON_REG_SET(axon_reg_longer, mr->ibmr.length = 0x2f81)
AXON_REG_SET(axon_reg_wraps, (mr->ibmr.iova = 0xfffffffffffff080ULL,
			      mr->ibmr.length = 0x1000))
AXON_REG_SET(axon_reg_not_mapped, mr->fr.npages = 0)
AXON_REG_SET(axon_reg_never_mapped, (mr->fr.npages = 0, mr->fr.page_shift = 0,
				     mr->fr.page_off = 0, mr->ibmr.iova = 0,
				     mr->ibmr.length = 0))

static const struct axon_reg_mr_case axon_reg_mr_cases[] = {
	{ "an MR of another PD", axon_reg_other_pd },
	{ "a key of another slot", axon_reg_other_slot },
	{ "not a fast-registration MR", axon_reg_not_fr },
	{ "remote write without local write", axon_reg_remote_write_only },
	{ "zero-based iova, mapped 0x80 into a page", axon_reg_zero_based },
	{ "a byte longer than the mapped pages", axon_reg_longer },
	{ "iova + length wraps", axon_reg_wraps },
	{ "nothing mapped", axon_reg_not_mapped },
	{ "never mapped", axon_reg_never_mapped },
};

AXON_KUNIT_DESC(axon_reg_mr_case)
KUNIT_ARRAY_PARAM(axon_reg_mr, axon_reg_mr_cases, axon_reg_mr_case_desc);

static void axon_send_wqe_reg_mr_bad_test(struct kunit *test)
{
	const struct axon_reg_mr_case *c = test->param_value;
	struct ib_pd *pd = kunit_kzalloc(test, sizeof(*pd), GFP_KERNEL);
	struct axon_mr *mr = axon_test_fr(test, pd);
	u8 *slot = kunit_kzalloc(test, 128, GFP_KERNEL);
	struct ib_reg_wr wr = {
		.wr.opcode = IB_WR_REG_MR,
		.mr = &mr->ibmr,
		.key = AXON_TEST_FR_KEY + 1,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
	};

	KUNIT_ASSERT_NOT_NULL(test, pd);
	KUNIT_ASSERT_NOT_NULL(test, slot);
	KUNIT_ASSERT_EQ(test, axon_test_wqe(&wr.wr, pd, slot, 4, false), 0);
	c->set(&wr, mr, &pd);
	KUNIT_EXPECT_EQ(test, axon_test_wqe(&wr.wr, pd, slot, 4, false),
			-EINVAL);
}

/* LOCAL_INV and SEND_WITH_INV carry the key to invalidate in rkey. */
static void axon_send_wqe_inv_test(struct kunit *test)
{
	static const char data[] = "invalidate";
	struct ib_sge sge = { .addr = 0x4000, .length = 300, .lkey = 0x404 };
	struct ib_send_wr wr = {
		.wr_id = 12,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_INLINE,
		.ex.invalidate_rkey = 0xabcd01,
	};
	u8 *slot = kunit_kzalloc(test, 128, GFP_KERNEL);
	struct axon_send_wqe *wqe = (struct axon_send_wqe *)slot;
	struct axon_sge *s = (struct axon_sge *)(wqe + 1);

	KUNIT_ASSERT_NOT_NULL(test, slot);
	memset(slot, 0xaa, 128);
	/* nothing to move: neither SGEs nor inline data */
	KUNIT_ASSERT_EQ(test, axon_test_wqe(&wr, NULL, slot, 4, true), 0);
	KUNIT_EXPECT_EQ(test, wqe->opcode, AXON_WR_LOCAL_INV);
	KUNIT_EXPECT_EQ(test, wqe->flags, AXON_WQE_SIGNALED);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(wqe->rkey), 0xabcd01);
	KUNIT_EXPECT_EQ(test, wqe->num_sge, 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(wqe->inline_len), 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wqe->imm_data), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(wqe->remote_addr), 0);
	KUNIT_EXPECT_NULL(test, memchr_inv(slot + 28, 0, 128 - 28));
	KUNIT_EXPECT_EQ(test, le64_to_cpu(wqe->wr_id), 12);

	/* a SEND whose receive takes the key away: SGEs, or inline */
	wr.opcode = IB_WR_SEND_WITH_INV;
	wr.send_flags = IB_SEND_SOLICITED;
	KUNIT_ASSERT_EQ(test, axon_test_wqe(&wr, NULL, slot, 4, false), 0);
	KUNIT_EXPECT_EQ(test, wqe->opcode, AXON_WR_SEND_INV);
	KUNIT_EXPECT_EQ(test, wqe->flags, AXON_WQE_SOLICITED);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(wqe->rkey), 0xabcd01);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wqe->imm_data), 0);
	KUNIT_EXPECT_EQ(test, wqe->num_sge, 1);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->addr), 0x4000);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(s->length), 300);
	sge.addr = (uintptr_t)data;
	sge.length = sizeof(data);
	wr.send_flags = IB_SEND_INLINE;
	KUNIT_ASSERT_EQ(test, axon_test_wqe(&wr, NULL, slot, 4, false), 0);
	KUNIT_EXPECT_EQ(test, wqe->flags, AXON_WQE_INLINE);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(wqe->inline_len), sizeof(data));
	KUNIT_EXPECT_EQ(test, memcmp(wqe + 1, data, sizeof(data)), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(wqe->rkey), 0xabcd01);
}

/* map_mr_sg's page size, and its list filling up. */
static void axon_fr_pages_test(struct kunit *test)
{
	struct axon_fr_pages fr = { .capacity = 2 };

	KUNIT_EXPECT_EQ(test, axon_fr_page_shift(SZ_4K), 12);
	KUNIT_EXPECT_EQ(test, axon_fr_page_shift(SZ_64K), 16);
	KUNIT_EXPECT_EQ(test, axon_fr_page_shift(SZ_2M), 21);
	KUNIT_EXPECT_EQ(test, axon_fr_page_shift(SZ_1G), 30);
	KUNIT_EXPECT_EQ(test, axon_fr_page_shift(SZ_2K), -EINVAL);
	KUNIT_EXPECT_EQ(test, axon_fr_page_shift(SZ_2G), -EINVAL);
	KUNIT_EXPECT_EQ(test, axon_fr_page_shift(3 * SZ_4K), -EINVAL);
	KUNIT_EXPECT_EQ(test, axon_fr_page_shift(0), -EINVAL);

	fr.list = kunit_kcalloc(test, 2, sizeof(__le64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fr.list);
	KUNIT_EXPECT_EQ(test, axon_fr_set_page(&fr, 0x200000), 0);
	KUNIT_EXPECT_EQ(test, axon_fr_set_page(&fr, 0x600000), 0);
	KUNIT_EXPECT_EQ(test, axon_fr_set_page(&fr, 0xa00000), -ENOMEM);
	KUNIT_EXPECT_EQ(test, fr.npages, 2);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(fr.list[0]), 0x200000);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(fr.list[1]), 0x600000);
}

static void axon_recv_wqe_test(struct kunit *test)
{
	struct ib_sge sge = { .addr = 0x3000, .length = 64, .lkey = 0x303 };
	struct ib_recv_wr wr = { .wr_id = 9, .sg_list = &sge, .num_sge = 1 };
	u8 *slot = kunit_kzalloc(test, 32, GFP_KERNEL);
	struct axon_recv_wqe *wqe = (struct axon_recv_wqe *)slot;
	struct axon_sge *s = (struct axon_sge *)(wqe + 1);

	KUNIT_ASSERT_NOT_NULL(test, slot);
	KUNIT_ASSERT_EQ(test, axon_build_recv_wqe(&wr, slot, 1), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(wqe->wr_id), 9);
	KUNIT_EXPECT_EQ(test, wqe->num_sge, 1);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(s->addr), 0x3000);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(s->lkey), 0x303);
	wr.num_sge = 2;
	KUNIT_EXPECT_EQ(test, axon_build_recv_wqe(&wr, slot, 1), -EINVAL);
}

static struct kunit_case axon_wqe_cases[] = {
	KUNIT_CASE(axon_wq_index_test),
	KUNIT_CASE(axon_send_wqe_write_test),
	KUNIT_CASE(axon_send_wqe_inline_test),
	KUNIT_CASE(axon_send_wqe_ud_test),
	KUNIT_CASE(axon_send_wqe_ud_not_ud_wr_test),
	KUNIT_CASE_PARAM(axon_conn_wr_test, axon_conn_wr_gen_params),
	KUNIT_CASE(axon_send_wqe_reg_mr_test),
	KUNIT_CASE_PARAM(axon_send_wqe_reg_mr_bad_test,
			 axon_reg_mr_gen_params),
	KUNIT_CASE(axon_send_wqe_inv_test),
	KUNIT_CASE(axon_fr_pages_test),
	KUNIT_CASE(axon_recv_wqe_test),
	{}
};

static struct kunit_suite axon_wqe_suite = {
	.name = "axon_wqe",
	.test_cases = axon_wqe_cases,
};

kunit_test_suite(axon_wqe_suite);
