// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: the completion queue ring (drivers/axon/axon_cqe.c): CQ depth,
 * purging a QP's CQEs, CQE -> ib_wc (UD receives with their GRH, fast
 * registration and invalidation too).
 */

#include "axon_cqe.h"
#include "axon_kunit.h"

/* ---- CQ depth ---------------------------------------------------------- */

struct axon_cq_depth_case {
	const char *name;
	int cqe;
	u32 max_cqe;
	int err;
	u32 depth;
};

static const struct axon_cq_depth_case axon_cq_depth_cases[] = {
	{ "1 -> minimum 2", 1, 65536, 0, 2 },
	{ "2", 2, 65536, 0, 2 },
	{ "3 -> 4", 3, 65536, 0, 4 },
	{ "1000 -> 1024", 1000, 65536, 0, 1024 },
	{ "65536", 65536, 65536, 0, 65536 },
	{ "131073 -> 262144", 131073, 1 << 22, 0, 1 << 18 },
	{ "2^22: the contract's maximum", 1 << 22, 1 << 22, 0, 1 << 22 },
	{ "2^22 + 1", (1 << 22) + 1, 1 << 24, -EINVAL, 0 },
	{ "above the device's max_cqe", 4097, 4096, -EINVAL, 0 },
	{ "0", 0, 65536, -EINVAL, 0 },
	{ "negative", -1, 65536, -EINVAL, 0 },
	{ "INT_MAX", INT_MAX, U32_MAX, -EINVAL, 0 },
};

AXON_KUNIT_DESC(axon_cq_depth_case)
KUNIT_ARRAY_PARAM(axon_cq_depth, axon_cq_depth_cases,
		  axon_cq_depth_case_desc);

static void axon_cq_depth_test(struct kunit *test)
{
	const struct axon_cq_depth_case *c = test->param_value;
	u32 depth = 0;

	KUNIT_EXPECT_EQ(test, axon_cq_depth(c->cqe, c->max_cqe, &depth),
			c->err);
	if (!c->err)
		KUNIT_EXPECT_EQ(test, depth, c->depth);
}

/* ---- purging a QP's CQEs --------------------------------------------------- */

static void axon_test_cqe(struct axon_cqe *ring, u32 depth, u32 idx, u32 qpn)
{
	struct axon_cqe *cqe = &ring[idx & (depth - 1)];

	cqe->qpn = cpu_to_le32(qpn);
	cqe->flags = idx & depth ? 0 : AXON_CQE_PHASE;
}

static void axon_cq_purge_test(struct kunit *test)
{
	struct axon_cqe *ring;
	u32 depth = 4, recv;

	ring = kunit_kcalloc(test, depth, AXON_CQE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ring);
	KUNIT_ASSERT_EQ(test, sizeof(*ring), AXON_CQE_SIZE);
	/* consumer at 2 (the first pass), CQEs 2..4 written, 5 not */
	axon_test_cqe(ring, depth, 0, 7);
	axon_test_cqe(ring, depth, 1, 7);
	axon_test_cqe(ring, depth, 2, 7);
	axon_test_cqe(ring, depth, 3, 9);
	axon_test_cqe(ring, depth, 4, 7);
	ring[0].flags |= AXON_CQE_RECV;
	KUNIT_EXPECT_NULL(test, axon_cqe_at(ring, depth, 5));
	KUNIT_EXPECT_PTR_EQ(test, axon_cqe_at(ring, depth, 4), &ring[0]);

	KUNIT_EXPECT_EQ(test, axon_cq_purge(ring, depth, 2, 7, &recv), 2);
	KUNIT_EXPECT_EQ(test, recv, 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ring[0].qpn), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ring[1].qpn), 7);	/* consumed */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ring[2].qpn), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ring[3].qpn), 9);
	KUNIT_EXPECT_EQ(test, axon_cq_purge(ring, depth, 2, 7, &recv), 0);
	KUNIT_EXPECT_EQ(test, recv, 0);

	/* a full ring: the pass ends at cons + depth */
	axon_test_cqe(ring, depth, 5, 9);
	KUNIT_EXPECT_EQ(test, axon_cq_purge(ring, depth, 2, 9, &recv), 2);
	KUNIT_EXPECT_NULL(test, axon_cqe_at(ring, depth, 6));
}

/* ---- CQE -> ib_wc ---------------------------------------------------------- */

struct axon_cqe_case {
	const char *name;
	u8 opcode;
	u8 status;
	u8 flags;
	int err;
	enum ib_wc_opcode wc_opcode;
	enum ib_wc_status wc_status;
};

static const struct axon_cqe_case axon_cqe_cases[] = {
	{ "send", AXON_WC_SEND, AXON_WC_SUCCESS, AXON_CQE_PHASE, 0,
	  IB_WC_SEND, IB_WC_SUCCESS },
	{ "RDMA read", AXON_WC_RDMA_READ, AXON_WC_SUCCESS, 0, 0,
	  IB_WC_RDMA_READ, IB_WC_SUCCESS },
	{ "fetch and add", AXON_WC_FETCH_ADD, AXON_WC_REM_ACCESS_ERR, 0, 0,
	  IB_WC_FETCH_ADD, IB_WC_REM_ACCESS_ERR },
	{ "receive", AXON_WC_RECV, AXON_WC_SUCCESS, AXON_CQE_RECV, 0,
	  IB_WC_RECV, IB_WC_SUCCESS },
	{ "receive, write with immediate", AXON_WC_RECV_RDMA_WITH_IMM,
	  AXON_WC_SUCCESS, AXON_CQE_RECV | AXON_CQE_WITH_IMM, 0,
	  IB_WC_RECV_RDMA_WITH_IMM, IB_WC_SUCCESS },
	{ "flushed receive", AXON_WC_RECV, AXON_WC_WR_FLUSH_ERR,
	  AXON_CQE_RECV, 0, IB_WC_RECV, IB_WC_WR_FLUSH_ERR },
	{ "RNR retries exceeded", AXON_WC_SEND, AXON_WC_RNR_RETRY_EXC_ERR, 0,
	  0, IB_WC_SEND, IB_WC_RNR_RETRY_EXC_ERR },
	{ "unknown opcode", 99, AXON_WC_SUCCESS, 0, -EIO, IB_WC_SEND,
	  IB_WC_GENERAL_ERR },
	{ "receive opcode on a send", AXON_WC_RECV, AXON_WC_SUCCESS, 0, -EIO,
	  IB_WC_SEND, IB_WC_GENERAL_ERR },
	{ "send opcode on a receive", AXON_WC_SEND, AXON_WC_SUCCESS,
	  AXON_CQE_RECV, -EIO, IB_WC_RECV, IB_WC_GENERAL_ERR },
	{ "unknown status", AXON_WC_SEND, 3, 0, -EIO, IB_WC_SEND,
	  IB_WC_GENERAL_ERR },
	{ "REG_MR", AXON_WC_REG_MR, AXON_WC_SUCCESS, 0, 0, IB_WC_REG_MR,
	  IB_WC_SUCCESS },
	{ "REG_MR breaking a rule", AXON_WC_REG_MR, AXON_WC_LOC_QP_OP_ERR, 0,
	  0, IB_WC_REG_MR, IB_WC_LOC_QP_OP_ERR },
	{ "LOCAL_INV", AXON_WC_LOCAL_INV, AXON_WC_SUCCESS, 0, 0,
	  IB_WC_LOCAL_INV, IB_WC_SUCCESS },
	{ "LOCAL_INV of a stale key", AXON_WC_LOCAL_INV, AXON_WC_LOC_PROT_ERR,
	  0, 0, IB_WC_LOCAL_INV, IB_WC_LOC_PROT_ERR },
	{ "REG_MR opcode on a receive", AXON_WC_REG_MR, AXON_WC_SUCCESS,
	  AXON_CQE_RECV, -EIO, IB_WC_RECV, IB_WC_GENERAL_ERR },
	{ "LOCAL_INV opcode on a receive", AXON_WC_LOCAL_INV, AXON_WC_SUCCESS,
	  AXON_CQE_RECV, -EIO, IB_WC_RECV, IB_WC_GENERAL_ERR },
};

AXON_KUNIT_DESC(axon_cqe_case)
KUNIT_ARRAY_PARAM(axon_cqe, axon_cqe_cases, axon_cqe_case_desc);

static void axon_cqe_test(struct kunit *test)
{
	const struct axon_cqe_case *c = test->param_value;
	struct axon_cqe cqe = {
		.wr_id = cpu_to_le64(0x1122334455667788),
		.byte_len = cpu_to_le32(4096),
		.imm_data = cpu_to_be32(0xcafe),
		.opcode = c->opcode,
		.status = c->status,
		.flags = c->flags,
	};
	struct ib_wc wc;

	KUNIT_EXPECT_EQ(test, axon_cqe_to_wc(&cqe, &wc), c->err);
	KUNIT_EXPECT_EQ(test, wc.wr_id, 0x1122334455667788);
	KUNIT_EXPECT_EQ(test, wc.opcode, c->wc_opcode);
	KUNIT_EXPECT_EQ(test, wc.status, c->wc_status);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 4096);
	KUNIT_EXPECT_EQ(test, !!(wc.wc_flags & IB_WC_WITH_IMM),
			!!(c->flags & AXON_CQE_WITH_IMM));
	if (c->flags & AXON_CQE_WITH_IMM)
		KUNIT_EXPECT_EQ(test, be32_to_cpu(wc.ex.imm_data), 0xcafe);
	KUNIT_EXPECT_NULL(test, wc.qp);
}

/* A UD receive: the sender's QP and the GRH's network header type. */
struct axon_cqe_grh_case {
	const char *name;
	u8 flags;
	u32 src_qp;
	int err;
	enum ib_wc_status wc_status;
	u32 wc_src_qp;
	int wc_flags;
	u8 network_hdr_type;
};

#define AXON_UD_RECV	(AXON_CQE_RECV | AXON_CQE_GRH)
#define AXON_WC_UD	(IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE)

static const struct axon_cqe_grh_case axon_cqe_grh_cases[] = {
	{ "IPv4", AXON_UD_RECV | AXON_CQE_GRH_IPV4, 0x1234, 0, IB_WC_SUCCESS,
	  0x1234, AXON_WC_UD, RDMA_NETWORK_IPV4 },
	{ "IPv6", AXON_UD_RECV, 0xabcdef, 0, IB_WC_SUCCESS, 0xabcdef,
	  AXON_WC_UD, RDMA_NETWORK_IPV6 },
	{ "with immediate", AXON_UD_RECV | AXON_CQE_WITH_IMM, 7, 0,
	  IB_WC_SUCCESS, 7, AXON_WC_UD | IB_WC_WITH_IMM, RDMA_NETWORK_IPV6 },
	{ "src_qp beyond 24 bits", AXON_UD_RECV | AXON_CQE_GRH_IPV4,
	  0xff000012, 0, IB_WC_SUCCESS, 0x12, AXON_WC_UD, RDMA_NETWORK_IPV4 },
	{ "RC receive: no GRH", AXON_CQE_RECV, 0, 0, IB_WC_SUCCESS, 0, 0, 0 },
	{ "GRH on a send", AXON_CQE_GRH, 0x1234, -EIO, IB_WC_GENERAL_ERR, 0,
	  0, 0 },
};

AXON_KUNIT_DESC(axon_cqe_grh_case)
KUNIT_ARRAY_PARAM(axon_cqe_grh, axon_cqe_grh_cases, axon_cqe_grh_case_desc);

static void axon_cqe_grh_test(struct kunit *test)
{
	const struct axon_cqe_grh_case *c = test->param_value;
	struct axon_cqe cqe = {
		.byte_len = cpu_to_le32(AXON_UD_GRH_LEN + 100),
		.imm_data = cpu_to_be32(0xcafe),
		.opcode = c->flags & AXON_CQE_RECV ? AXON_WC_RECV :
						     AXON_WC_SEND,
		.status = AXON_WC_SUCCESS,
		.flags = c->flags,
		.src_qp = cpu_to_le32(c->src_qp),
	};
	struct ib_wc wc;

	KUNIT_EXPECT_EQ(test, axon_cqe_to_wc(&cqe, &wc), c->err);
	KUNIT_EXPECT_EQ(test, wc.status, c->wc_status);
	KUNIT_EXPECT_EQ(test, wc.src_qp, c->wc_src_qp);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, c->wc_flags);
	if (c->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE)
		KUNIT_EXPECT_EQ(test, wc.network_hdr_type, c->network_hdr_type);
	/* byte_len counts the GRH, as the device wrote it */
	KUNIT_EXPECT_EQ(test, wc.byte_len, AXON_UD_GRH_LEN + 100);
	KUNIT_EXPECT_EQ(test, wc.pkey_index, 0);
	KUNIT_EXPECT_EQ(test, wc.slid, 0);
	KUNIT_EXPECT_EQ(test, wc.sl, 0);
	KUNIT_EXPECT_EQ(test, wc.dlid_path_bits, 0);
}

/* A SEND_WITH_INV's receive: the key it invalidated, host order. */
struct axon_cqe_inv_case {
	const char *name;
	u8 opcode;
	u8 flags;
	int err;
	int wc_flags;
};

static const struct axon_cqe_inv_case axon_cqe_inv_cases[] = {
	{ "receive with invalidate", AXON_WC_RECV,
	  AXON_CQE_RECV | AXON_CQE_WITH_INV, 0, IB_WC_WITH_INVALIDATE },
	{ "solicited", AXON_WC_RECV,
	  AXON_CQE_RECV | AXON_CQE_WITH_INV | AXON_CQE_SOLICITED, 0,
	  IB_WC_WITH_INVALIDATE },
	{ "invalidate on a send", AXON_WC_SEND, AXON_CQE_WITH_INV, -EIO, 0 },
	{ "invalidate and immediate", AXON_WC_RECV,
	  AXON_CQE_RECV | AXON_CQE_WITH_INV | AXON_CQE_WITH_IMM, -EIO,
	  IB_WC_WITH_IMM },
	{ "invalidate on a WRITE_WITH_IMM's receive",
	  AXON_WC_RECV_RDMA_WITH_IMM, AXON_CQE_RECV | AXON_CQE_WITH_INV, -EIO,
	  0 },
};

AXON_KUNIT_DESC(axon_cqe_inv_case)
KUNIT_ARRAY_PARAM(axon_cqe_inv, axon_cqe_inv_cases, axon_cqe_inv_case_desc);

static void axon_cqe_inv_test(struct kunit *test)
{
	const struct axon_cqe_inv_case *c = test->param_value;
	struct axon_cqe cqe = {
		.byte_len = cpu_to_le32(300),
		.imm_data = cpu_to_be32(0x12345b),
		.opcode = c->opcode,
		.status = AXON_WC_SUCCESS,
		.flags = c->flags,
	};
	struct ib_wc wc;

	KUNIT_EXPECT_EQ(test, axon_cqe_to_wc(&cqe, &wc), c->err);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, c->wc_flags);
	KUNIT_EXPECT_EQ(test, wc.status,
			c->err ? IB_WC_GENERAL_ERR : IB_WC_SUCCESS);
	if (!c->err) {
		KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
		KUNIT_EXPECT_EQ(test, wc.ex.invalidate_rkey, 0x12345b);
		KUNIT_EXPECT_EQ(test, wc.byte_len, 300);
	}
}

/* The device's opcodes are numbered as the core's. */
static void axon_wc_opcode_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, AXON_WC_SEND, IB_WC_SEND);
	KUNIT_EXPECT_EQ(test, AXON_WC_RDMA_WRITE, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_EQ(test, AXON_WC_RDMA_READ, IB_WC_RDMA_READ);
	KUNIT_EXPECT_EQ(test, AXON_WC_COMP_SWAP, IB_WC_COMP_SWAP);
	KUNIT_EXPECT_EQ(test, AXON_WC_FETCH_ADD, IB_WC_FETCH_ADD);
	KUNIT_EXPECT_EQ(test, AXON_WC_LOCAL_INV, IB_WC_LOCAL_INV);
	KUNIT_EXPECT_EQ(test, AXON_WC_REG_MR, IB_WC_REG_MR);
	KUNIT_EXPECT_EQ(test, AXON_WC_RECV, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, AXON_WC_RECV_RDMA_WITH_IMM,
			IB_WC_RECV_RDMA_WITH_IMM);
}

static struct kunit_case axon_cq_cases[] = {
	KUNIT_CASE_PARAM(axon_cq_depth_test, axon_cq_depth_gen_params),
	KUNIT_CASE(axon_cq_purge_test),
	KUNIT_CASE_PARAM(axon_cqe_test, axon_cqe_gen_params),
	KUNIT_CASE_PARAM(axon_cqe_grh_test, axon_cqe_grh_gen_params),
	KUNIT_CASE_PARAM(axon_cqe_inv_test, axon_cqe_inv_gen_params),
	KUNIT_CASE(axon_wc_opcode_test),
	{}
};

static struct kunit_suite axon_cq_suite = {
	.name = "axon_cqe",
	.test_cases = axon_cq_cases,
};

kunit_test_suite(axon_cq_suite);
