// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: work queue entries (drivers/axon/axon_wqe.c): which WQEs are
 * pending, kernel send (RC, UD, what UC may post) and receive WQEs.
 */

#include "axon_ah_attr.h"
#include "axon_kunit.h"
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
	KUNIT_ASSERT_EQ(test, axon_build_send_wqe(&wr.wr, slot, 128, 4, 64,
						  false), 0);
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
	KUNIT_EXPECT_EQ(test, axon_build_send_wqe(&wr.wr, slot, 128, 1, 64,
						  false), -EINVAL);
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
	KUNIT_ASSERT_EQ(test, axon_build_send_wqe(&wr, slot, 128, 4, 64, true),
			0);
	KUNIT_EXPECT_EQ(test, wqe->opcode, AXON_WR_SEND);
	KUNIT_EXPECT_EQ(test, wqe->flags, AXON_WQE_INLINE | AXON_WQE_SIGNALED);
	KUNIT_EXPECT_EQ(test, wqe->num_sge, 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(wqe->inline_len), sizeof(data));
	KUNIT_EXPECT_EQ(test, memcmp(wqe + 1, data, sizeof(data)), 0);

	/* more than fits inline */
	sge.length = 65;
	KUNIT_EXPECT_EQ(test, axon_build_send_wqe(&wr, slot, 128, 4, 64, true),
			-EINVAL);
	/* unknown opcode */
	wr.opcode = IB_WR_LOCAL_INV;
	KUNIT_EXPECT_EQ(test, axon_build_send_wqe(&wr, slot, 128, 4, 64, true),
			-EINVAL);
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

/* UC: SENDs and WRITEs, with or without immediate; nothing that reads. */
static void axon_uc_wr_test(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, axon_uc_wr_ok(IB_WR_SEND));
	KUNIT_EXPECT_TRUE(test, axon_uc_wr_ok(IB_WR_SEND_WITH_IMM));
	KUNIT_EXPECT_TRUE(test, axon_uc_wr_ok(IB_WR_RDMA_WRITE));
	KUNIT_EXPECT_TRUE(test, axon_uc_wr_ok(IB_WR_RDMA_WRITE_WITH_IMM));
	KUNIT_EXPECT_FALSE(test, axon_uc_wr_ok(IB_WR_RDMA_READ));
	KUNIT_EXPECT_FALSE(test, axon_uc_wr_ok(IB_WR_ATOMIC_CMP_AND_SWP));
	KUNIT_EXPECT_FALSE(test, axon_uc_wr_ok(IB_WR_ATOMIC_FETCH_AND_ADD));
	KUNIT_EXPECT_FALSE(test, axon_uc_wr_ok(IB_WR_SEND_WITH_INV));
	KUNIT_EXPECT_FALSE(test, axon_uc_wr_ok(IB_WR_RDMA_READ_WITH_INV));
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
	KUNIT_CASE(axon_uc_wr_test),
	KUNIT_CASE(axon_recv_wqe_test),
	{}
};

static struct kunit_suite axon_wqe_suite = {
	.name = "axon_wqe",
	.test_cases = axon_wqe_cases,
};

kunit_test_suite(axon_wqe_suite);
