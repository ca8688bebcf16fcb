// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: queue pair attributes (drivers/axon/axon_qp_attr.c): queue
 * geometry, ib_qp_attr -> struct axon_qp_attr and back (RC, UD and UC),
 * the QP state, async event types.
 */

#include "axon_kunit.h"
#include "axon_qp_attr.h"

/* ---- QP queue geometry ------------------------------------------------- */

struct axon_geom_case {
	const char *name;
	struct ib_qp_cap cap;
	u32 max_wr;		/* device limits; 0: the contract's */
	int err;
	struct axon_qp_geom g;
};

static const struct axon_geom_case axon_geom_cases[] = {
	{ "empty", { 0, 0, 0, 0, 0 }, 0, 0,
	  { 1, 1, 6, 5, 0, 1, 0 } },
	{ "rc_pingpong", { 1, 500, 1, 1, 0 }, 0, 0,
	  { 1, 512, 7, 5, 4, 1, 64 } },
	{ "16 SGEs each way", { 64, 64, 16, 16, 0 }, 0, 0,
	  { 64, 64, 9, 9, 16, 16, 256 } },
	{ "inline 256", { 8, 8, 1, 2, 256 }, 0, 0,
	  { 8, 8, 9, 6, 16, 3, 256 } },
	{ "inline 100", { 8, 8, 1, 4, 100 }, 0, 0,
	  { 8, 8, 8, 7, 12, 7, 192 } },
	{ "depths 1000 and 3", { 1000, 3, 2, 2, 0 }, 0, 0,
	  { 1024, 4, 7, 6, 4, 3, 64 } },
	{ "32768 WRs", { 32768, 32768, 1, 1, 0 }, 0, 0,
	  { 32768, 32768, 7, 5, 4, 1, 64 } },
	{ "32769 send WRs", { 32769, 1, 1, 1, 0 }, 0, -EINVAL },
	{ "beyond the device's max_qp_wr", { 1, 4097, 1, 1, 0 }, 4096,
	  -EINVAL },
	{ "17 send SGEs", { 1, 1, 17, 1, 0 }, 0, -EINVAL },
	{ "17 receive SGEs", { 1, 1, 1, 17, 0 }, 0, -EINVAL },
	{ "inline 257", { 1, 1, 1, 1, 257 }, 0, -EINVAL },
	{ "U32_MAX WRs", { U32_MAX, U32_MAX, 1, 1, 0 }, 0, -EINVAL },
};

AXON_KUNIT_DESC(axon_geom_case)
KUNIT_ARRAY_PARAM(axon_geom, axon_geom_cases, axon_geom_case_desc);

static void axon_geom_test(struct kunit *test)
{
	const struct axon_geom_case *c = test->param_value;
	struct axon_qp_limits lim = {
		.max_wr = c->max_wr ?: AXON_WQ_MAX_DEPTH,
		.max_sge = AXON_MAX_SGE,
		.max_inline = AXON_MAX_INLINE,
	};
	struct axon_qp_geom g = {};
	struct ib_qp_cap cap = {};

	KUNIT_ASSERT_EQ(test, axon_qp_geometry(&c->cap, &lim, &g), c->err);
	if (c->err)
		return;
	KUNIT_EXPECT_EQ(test, g.sq_depth, c->g.sq_depth);
	KUNIT_EXPECT_EQ(test, g.rq_depth, c->g.rq_depth);
	KUNIT_EXPECT_EQ(test, g.sq_wqe_shift, c->g.sq_wqe_shift);
	KUNIT_EXPECT_EQ(test, g.rq_wqe_shift, c->g.rq_wqe_shift);
	KUNIT_EXPECT_EQ(test, g.max_send_sge, c->g.max_send_sge);
	KUNIT_EXPECT_EQ(test, g.max_recv_sge, c->g.max_recv_sge);
	KUNIT_EXPECT_EQ(test, g.max_inline, c->g.max_inline);

	/* what is reported back covers what was asked, and fits the slots */
	axon_qp_geom_caps(&g, &cap);
	KUNIT_EXPECT_GE(test, cap.max_send_wr, c->cap.max_send_wr);
	KUNIT_EXPECT_GE(test, cap.max_recv_wr, c->cap.max_recv_wr);
	KUNIT_EXPECT_GE(test, cap.max_send_sge, c->cap.max_send_sge);
	KUNIT_EXPECT_GE(test, cap.max_recv_sge, c->cap.max_recv_sge);
	KUNIT_EXPECT_GE(test, cap.max_inline_data, c->cap.max_inline_data);
	KUNIT_EXPECT_LE(test, sizeof(struct axon_send_wqe) +
			max(cap.max_send_sge * sizeof(struct axon_sge),
			    (size_t)cap.max_inline_data),
			(size_t)1 << g.sq_wqe_shift);
	KUNIT_EXPECT_LE(test, sizeof(struct axon_recv_wqe) +
			cap.max_recv_sge * sizeof(struct axon_sge),
			(size_t)1 << g.rq_wqe_shift);
	KUNIT_EXPECT_LE(test, g.sq_wqe_shift, AXON_WQE_MAX_SHIFT);
	KUNIT_EXPECT_LE(test, g.rq_wqe_shift, AXON_WQE_MAX_SHIFT);
}

/* ---- ib_qp_attr -> struct axon_qp_attr ----------------------------------- */

static const struct axon_qp_conv axon_test_conv = {
	.type = IB_QPT_RC,
	.qpn = 0x12,
	.dest_qpn = 0x34,
	.active_mtu = IB_MTU_1024,
	.max_rd_atomic = AXON_MAX_RD_ATOMIC,
};

static void axon_test_rtr_attr(struct ib_qp_attr *attr, int *mask)
{
	static const u8 dmac[ETH_ALEN] = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 };
	union ib_gid dgid = { .raw = { [10] = 0xff, [11] = 0xff, 192, 0, 2,
				       2 } };

	memset(attr, 0, sizeof(*attr));
	attr->qp_state = IB_QPS_RTR;
	attr->path_mtu = IB_MTU_4096;
	attr->dest_qp_num = 0x56;
	attr->rq_psn = 0xabcdef;
	attr->max_dest_rd_atomic = 4;
	attr->min_rnr_timer = 12;
	attr->ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr->ah_attr, 1);
	rdma_ah_set_grh(&attr->ah_attr, &dgid, 0, 3, 64, 0x20);
	memcpy(attr->ah_attr.roce.dmac, dmac, ETH_ALEN);
	*mask = IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
		IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
}

/* INIT -> RTR as rc_pingpong does it, field by field. */
static void axon_qp_attr_rtr_test(struct kunit *test)
{
	struct axon_qp_attr out;
	struct ib_qp_attr attr;
	u32 out_mask = 0;
	int mask;

	axon_test_rtr_attr(&attr, &mask);
	KUNIT_ASSERT_EQ(test, axon_qp_attr_from_ib(&attr, mask, &axon_test_conv,
						   &out, &out_mask), 0);
	KUNIT_EXPECT_EQ(test, out_mask,
			AXON_QP_ATTR_STATE | AXON_QP_ATTR_PATH |
			AXON_QP_ATTR_PATH_MTU | AXON_QP_ATTR_DEST_QPN |
			AXON_QP_ATTR_RQ_PSN | AXON_QP_ATTR_MAX_DEST_RD_ATOMIC |
			AXON_QP_ATTR_MIN_RNR_TIMER);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.state), AXON_QPS_RTR);
	/* 4096 asked, the port runs 1024 */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.path_mtu), 1024);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.dest_qpn), 0x56);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.rq_psn), 0xabcdef);
	KUNIT_EXPECT_EQ(test, out.max_dest_rd_atomic, 4);
	KUNIT_EXPECT_EQ(test, out.min_rnr_timer, 12);
	KUNIT_EXPECT_EQ(test, memcmp(out.dmac, attr.ah_attr.roce.dmac, 6), 0);
	KUNIT_EXPECT_EQ(test, memcmp(out.dgid, attr.ah_attr.grh.dgid.raw, 16),
			0);
	KUNIT_EXPECT_EQ(test, out.sgid_index, 3);
	KUNIT_EXPECT_EQ(test, out.hop_limit, 64);
	KUNIT_EXPECT_EQ(test, out.tclass, 0x20);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.flow_label), 0);
	/* no flow label: the source port comes from this call's dest QPN */
	KUNIT_EXPECT_EQ(test, le16_to_cpu(out.udp_sport),
			rdma_get_udp_sport(0, 0x12, 0x56));
	KUNIT_EXPECT_GE(test, le16_to_cpu(out.udp_sport), 0xc000);
	/* what the device does not get stays zero */
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.sq_psn), 0);
	KUNIT_EXPECT_EQ(test, out.timeout, 0);
	KUNIT_EXPECT_NULL(test, memchr_inv(out.reserved, 0,
					   sizeof(out.reserved)));
}

/* The flow label, when given, picks the source port. */
static void axon_qp_attr_flow_label_test(struct kunit *test)
{
	struct axon_qp_attr out;
	struct ib_qp_attr attr;
	u32 out_mask;
	int mask;

	axon_test_rtr_attr(&attr, &mask);
	attr.ah_attr.grh.flow_label = 0x12345;
	KUNIT_ASSERT_EQ(test, axon_qp_attr_from_ib(&attr, mask, &axon_test_conv,
						   &out, &out_mask), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.flow_label), 0x12345);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(out.udp_sport),
			rdma_flow_label_to_udp_sport(0x12345));

	/* only 20 bits reach the wire; the rest is ignored, not refused */
	attr.ah_attr.grh.flow_label = 0xfff12345;
	KUNIT_ASSERT_EQ(test, axon_qp_attr_from_ib(&attr, mask, &axon_test_conv,
						   &out, &out_mask), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.flow_label), 0x12345);
}

/* One attribute changed from a valid RTR or RTS call; the result. */
struct axon_qp_attr_case {
	const char *name;
	void (*set)(struct ib_qp_attr *attr, int *mask);
	int err;
};

#define AXON_QP_SET(fn, stmt)						\
static void fn(struct ib_qp_attr *attr, int *mask)			\
{									\
	stmt;								\
}

static const struct ib_gid_attr axon_test_sgid_roce_v1 = {
	.gid_type = IB_GID_TYPE_ROCE,
	.index = 2,
	.port_num = 1,
};

AXON_QP_SET(axon_set_nothing, (void)attr)
AXON_QP_SET(axon_set_roce_v1,
	    attr->ah_attr.grh.sgid_attr = &axon_test_sgid_roce_v1)
AXON_QP_SET(axon_set_no_grh, attr->ah_attr.ah_flags = 0)
AXON_QP_SET(axon_set_ib_ah, attr->ah_attr.type = RDMA_AH_ATTR_TYPE_IB)
AXON_QP_SET(axon_set_port2, attr->ah_attr.port_num = 2)
AXON_QP_SET(axon_set_mtu_bad, attr->path_mtu = 0)
AXON_QP_SET(axon_set_mtu_big, attr->path_mtu = IB_MTU_4096 + 1)
AXON_QP_SET(axon_set_rq_psn, attr->rq_psn = 0x1000000)
AXON_QP_SET(axon_set_dest_qpn, attr->dest_qp_num = 0x1000000)
AXON_QP_SET(axon_set_rd_atomic, attr->max_dest_rd_atomic = 17)
AXON_QP_SET(axon_set_rnr_timer, attr->min_rnr_timer = 32)
AXON_QP_SET(axon_set_sq_psn, (attr->sq_psn = 0x1000000, *mask |= IB_QP_SQ_PSN))
AXON_QP_SET(axon_set_timeout, (attr->timeout = 32, *mask |= IB_QP_TIMEOUT))
AXON_QP_SET(axon_set_retry, (attr->retry_cnt = 8, *mask |= IB_QP_RETRY_CNT))
AXON_QP_SET(axon_set_rnr_retry,
	    (attr->rnr_retry = 8, *mask |= IB_QP_RNR_RETRY))
AXON_QP_SET(axon_set_init_rd_atomic,
	    (attr->max_rd_atomic = 17, *mask |= IB_QP_MAX_QP_RD_ATOMIC))
AXON_QP_SET(axon_set_pkey, (attr->pkey_index = 1, *mask |= IB_QP_PKEY_INDEX))
AXON_QP_SET(axon_set_qp_port, (attr->port_num = 2, *mask |= IB_QP_PORT))
AXON_QP_SET(axon_set_access_local,
	    (attr->qp_access_flags = IB_ACCESS_LOCAL_WRITE,
	     *mask |= IB_QP_ACCESS_FLAGS))
AXON_QP_SET(axon_set_access_bind,
	    (attr->qp_access_flags = IB_ACCESS_MW_BIND,
	     *mask |= IB_QP_ACCESS_FLAGS))
AXON_QP_SET(axon_set_alt_path, *mask |= IB_QP_ALT_PATH)
AXON_QP_SET(axon_set_cap, *mask |= IB_QP_CAP)
AXON_QP_SET(axon_set_rate_limit, *mask |= IB_QP_RATE_LIMIT)

static const struct axon_qp_attr_case axon_qp_attr_cases[] = {
	{ "valid RTR", axon_set_nothing, 0 },
	{ "no GRH", axon_set_no_grh, -EINVAL },
	{ "IB address", axon_set_ib_ah, -EINVAL },
	{ "address on port 2", axon_set_port2, -EINVAL },
	{ "RoCE v1 source GID", axon_set_roce_v1, -EINVAL },
	{ "path MTU 0", axon_set_mtu_bad, -EINVAL },
	{ "path MTU beyond 4096", axon_set_mtu_big, -EINVAL },
	{ "25-bit RQ PSN", axon_set_rq_psn, -EINVAL },
	{ "25-bit dest QPN", axon_set_dest_qpn, -EINVAL },
	{ "17 responder resources", axon_set_rd_atomic, -EINVAL },
	{ "RNR timer 32", axon_set_rnr_timer, -EINVAL },
	{ "25-bit SQ PSN", axon_set_sq_psn, -EINVAL },
	{ "timeout 32", axon_set_timeout, -EINVAL },
	{ "retry count 8", axon_set_retry, -EINVAL },
	{ "RNR retry 8", axon_set_rnr_retry, -EINVAL },
	{ "17 initiator depth", axon_set_init_rd_atomic, -EINVAL },
	{ "pkey index 1", axon_set_pkey, -EINVAL },
	{ "port 2", axon_set_qp_port, -EINVAL },
	{ "access: local write is fine", axon_set_access_local, 0 },
	{ "access: MW bind", axon_set_access_bind, -EINVAL },
	{ "alternate path", axon_set_alt_path, -EOPNOTSUPP },
	{ "resize (IB_QP_CAP)", axon_set_cap, -EOPNOTSUPP },
	{ "rate limit", axon_set_rate_limit, -EOPNOTSUPP },
};

AXON_KUNIT_DESC(axon_qp_attr_case)
KUNIT_ARRAY_PARAM(axon_qp_attr, axon_qp_attr_cases, axon_qp_attr_case_desc);

static void axon_qp_attr_case_test(struct kunit *test)
{
	const struct axon_qp_attr_case *c = test->param_value;
	struct axon_qp_attr out;
	struct ib_qp_attr attr;
	u32 out_mask;
	int mask;

	axon_test_rtr_attr(&attr, &mask);
	c->set(&attr, &mask);
	KUNIT_EXPECT_EQ(test, axon_qp_attr_from_ib(&attr, mask, &axon_test_conv,
						   &out, &out_mask), c->err);
}

/* The remote access bits only; local write is not the responder's. */
static void axon_qp_attr_access_test(struct kunit *test)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IB_ACCESS_LOCAL_WRITE |
				   IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_ATOMIC,
	};
	struct axon_qp_attr out;
	u32 out_mask;

	KUNIT_ASSERT_EQ(test, axon_qp_attr_from_ib(&attr, IB_QP_STATE |
						   IB_QP_ACCESS_FLAGS |
						   IB_QP_PKEY_INDEX |
						   IB_QP_PORT, &axon_test_conv,
						   &out, &out_mask), 0);
	KUNIT_EXPECT_EQ(test, out_mask, AXON_QP_ATTR_STATE |
			AXON_QP_ATTR_ACCESS);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.access),
			AXON_ACCESS_REMOTE_WRITE | AXON_ACCESS_REMOTE_ATOMIC);
}

/* What QUERY_QP answers comes back as the ib_qp_attr that was set. */
static void axon_qp_attr_roundtrip_test(struct kunit *test)
{
	struct ib_qp_attr attr, back = {};
	struct axon_qp_attr out;
	u32 out_mask;
	int mask;

	axon_test_rtr_attr(&attr, &mask);
	attr.ah_attr.grh.flow_label = 0xbeef;
	KUNIT_ASSERT_EQ(test, axon_qp_attr_from_ib(&attr, mask, &axon_test_conv,
						   &out, &out_mask), 0);
	axon_qp_attr_to_ib(&out, IB_QPT_RC, &back);
	KUNIT_EXPECT_EQ(test, back.qp_state, IB_QPS_RTR);
	KUNIT_EXPECT_EQ(test, back.path_mtu, IB_MTU_1024);
	KUNIT_EXPECT_EQ(test, back.dest_qp_num, attr.dest_qp_num);
	KUNIT_EXPECT_EQ(test, back.rq_psn, attr.rq_psn);
	KUNIT_EXPECT_EQ(test, back.max_dest_rd_atomic, attr.max_dest_rd_atomic);
	KUNIT_EXPECT_EQ(test, back.min_rnr_timer, attr.min_rnr_timer);
	KUNIT_EXPECT_EQ(test, back.ah_attr.type, RDMA_AH_ATTR_TYPE_ROCE);
	KUNIT_EXPECT_TRUE(test, rdma_ah_get_ah_flags(&back.ah_attr) & IB_AH_GRH);
	KUNIT_EXPECT_EQ(test, memcmp(back.ah_attr.grh.dgid.raw,
				     attr.ah_attr.grh.dgid.raw, 16), 0);
	KUNIT_EXPECT_EQ(test, back.ah_attr.grh.sgid_index, 3);
	KUNIT_EXPECT_EQ(test, back.ah_attr.grh.hop_limit, 64);
	KUNIT_EXPECT_EQ(test, back.ah_attr.grh.traffic_class, 0x20);
	KUNIT_EXPECT_EQ(test, back.ah_attr.grh.flow_label, 0xbeef);
	KUNIT_EXPECT_EQ(test, memcmp(back.ah_attr.roce.dmac,
				     attr.ah_attr.roce.dmac, 6), 0);
	KUNIT_EXPECT_EQ(test, back.port_num, 1);
}

/*
 * A UD QP through RESET -> INIT -> RTR -> RTS as ibv_ud_pingpong does it:
 * the P_Key index and port are checked and dropped, the Q_Key goes to
 * the device, a privileged one too (ib_uverbs refuses it to unprivileged
 * processes before the driver sees it).
 */
static void axon_qp_attr_ud_test(struct kunit *test)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.pkey_index = 0,
		.port_num = 1,
		.qkey = 0x11111111,
	};
	struct ib_qp_attr back = {};
	struct axon_qp_attr out;
	u32 out_mask;

	KUNIT_ASSERT_EQ(test, axon_qp_attr_from_ib(&attr, IB_QP_STATE |
						   IB_QP_PKEY_INDEX |
						   IB_QP_PORT | IB_QP_QKEY,
						   &axon_test_conv, &out,
						   &out_mask), 0);
	KUNIT_EXPECT_EQ(test, out_mask, AXON_QP_ATTR_STATE | AXON_QP_ATTR_QKEY);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.state), AXON_QPS_INIT);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.qkey), 0x11111111);

	attr.qp_state = IB_QPS_RTR;
	KUNIT_ASSERT_EQ(test, axon_qp_attr_from_ib(&attr, IB_QP_STATE,
						   &axon_test_conv, &out,
						   &out_mask), 0);
	KUNIT_EXPECT_EQ(test, out_mask, AXON_QP_ATTR_STATE);

	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0x123456;
	attr.qkey = 0x80010000;
	KUNIT_ASSERT_EQ(test, axon_qp_attr_from_ib(&attr, IB_QP_STATE |
						   IB_QP_SQ_PSN | IB_QP_QKEY,
						   &axon_test_conv, &out,
						   &out_mask), 0);
	KUNIT_EXPECT_EQ(test, out_mask, AXON_QP_ATTR_STATE |
			AXON_QP_ATTR_SQ_PSN | AXON_QP_ATTR_QKEY);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.sq_psn), 0x123456);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.qkey), 0x80010000);

	/* QUERY_QP of a UD QP: its Q_Key, and no RC path */
	out.dest_qpn = cpu_to_le32(0x56);
	out.sgid_index = 3;
	axon_qp_attr_to_ib(&out, IB_QPT_UD, &back);
	KUNIT_EXPECT_EQ(test, back.qp_state, IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, back.qkey, 0x80010000);
	KUNIT_EXPECT_EQ(test, back.sq_psn, 0x123456);
	KUNIT_EXPECT_EQ(test, back.port_num, 1);
	KUNIT_EXPECT_EQ(test, back.pkey_index, 0);
	KUNIT_EXPECT_EQ(test, back.dest_qp_num, 0);
	KUNIT_EXPECT_EQ(test, rdma_ah_get_ah_flags(&back.ah_attr), 0);

	attr.pkey_index = 1;
	KUNIT_EXPECT_EQ(test, axon_qp_attr_from_ib(&attr, IB_QP_STATE |
						   IB_QP_PKEY_INDEX |
						   IB_QP_QKEY, &axon_test_conv,
						   &out, &out_mask), -EINVAL);
}

/*
 * A UC QP as ibv_uc_pingpong, perftest -c UC and rdma-core's tests bring
 * it up: REMOTE_WRITE is its only remote right, READ and ATOMIC are
 * dropped; it is queried back without RC's read depths, timeouts and
 * retries.
 */
static void axon_qp_attr_uc_test(struct kunit *test)
{
	struct axon_qp_conv conv = axon_test_conv;
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IB_ACCESS_LOCAL_WRITE |
				   IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_READ |
				   IB_ACCESS_REMOTE_ATOMIC,
	};
	struct ib_qp_attr back = {};
	struct axon_qp_attr out;
	u32 out_mask;
	int mask;

	conv.type = IB_QPT_UC;
	KUNIT_ASSERT_EQ(test, axon_qp_attr_from_ib(&attr, IB_QP_STATE |
						   IB_QP_ACCESS_FLAGS |
						   IB_QP_PKEY_INDEX |
						   IB_QP_PORT, &conv, &out,
						   &out_mask), 0);
	KUNIT_EXPECT_EQ(test, out_mask, AXON_QP_ATTR_STATE |
			AXON_QP_ATTR_ACCESS);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.access),
			AXON_ACCESS_REMOTE_WRITE);
	attr.qp_access_flags = IB_ACCESS_REMOTE_READ;
	KUNIT_ASSERT_EQ(test, axon_qp_attr_from_ib(&attr, IB_QP_STATE |
						   IB_QP_ACCESS_FLAGS, &conv,
						   &out, &out_mask), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.access), 0);
	attr.qp_access_flags = IB_ACCESS_MW_BIND;
	KUNIT_EXPECT_EQ(test, axon_qp_attr_from_ib(&attr, IB_QP_STATE |
						   IB_QP_ACCESS_FLAGS, &conv,
						   &out, &out_mask), -EINVAL);
	/* an MR's ON_DEMAND passed to a QP asks nothing of it */
	attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_ON_DEMAND;
	KUNIT_ASSERT_EQ(test, axon_qp_attr_from_ib(&attr, IB_QP_STATE |
						   IB_QP_ACCESS_FLAGS, &conv,
						   &out, &out_mask), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.access),
			AXON_ACCESS_REMOTE_WRITE);

	/* INIT -> RTR: RC's path, MTU, QPN and PSN, no read depth */
	axon_test_rtr_attr(&attr, &mask);
	mask &= ~(IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	KUNIT_ASSERT_EQ(test, axon_qp_attr_from_ib(&attr, mask, &conv, &out,
						   &out_mask), 0);
	KUNIT_EXPECT_EQ(test, out_mask,
			AXON_QP_ATTR_STATE | AXON_QP_ATTR_PATH |
			AXON_QP_ATTR_PATH_MTU | AXON_QP_ATTR_DEST_QPN |
			AXON_QP_ATTR_RQ_PSN);

	/* what QUERY_QP of a UC QP answers */
	out.access = cpu_to_le32(AXON_ACCESS_REMOTE_WRITE |
				 AXON_ACCESS_REMOTE_READ);
	out.timeout = 14;
	out.retry_cnt = 7;
	out.max_rd_atomic = 1;
	out.max_dest_rd_atomic = 1;
	out.min_rnr_timer = 12;
	axon_qp_attr_to_ib(&out, IB_QPT_UC, &back);
	KUNIT_EXPECT_EQ(test, back.qp_state, IB_QPS_RTR);
	KUNIT_EXPECT_EQ(test, back.qp_access_flags, IB_ACCESS_REMOTE_WRITE);
	KUNIT_EXPECT_EQ(test, back.dest_qp_num, attr.dest_qp_num);
	KUNIT_EXPECT_EQ(test, back.rq_psn, attr.rq_psn);
	KUNIT_EXPECT_EQ(test, back.path_mtu, IB_MTU_1024);
	KUNIT_EXPECT_TRUE(test, rdma_ah_get_ah_flags(&back.ah_attr) & IB_AH_GRH);
	KUNIT_EXPECT_EQ(test, back.ah_attr.grh.sgid_index, 3);
	KUNIT_EXPECT_EQ(test, back.timeout, 0);
	KUNIT_EXPECT_EQ(test, back.retry_cnt, 0);
	KUNIT_EXPECT_EQ(test, back.max_rd_atomic, 0);
	KUNIT_EXPECT_EQ(test, back.max_dest_rd_atomic, 0);
	KUNIT_EXPECT_EQ(test, back.min_rnr_timer, 0);
	KUNIT_EXPECT_EQ(test, back.qkey, 0);
}

/*
 * XRC initiator and target QPs take RC's attributes: a target, as RC's
 * responder, grants all three remote rights and is queried back with
 * RC's read depths, timeouts and retries; a RUD driver QP is RC's too.
 */
static void axon_qp_attr_xrc_test(struct kunit *test)
{
	struct axon_qp_conv conv = axon_test_conv;
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_READ |
				   IB_ACCESS_REMOTE_ATOMIC,
	};
	struct ib_qp_attr back = {};
	struct axon_qp_attr out;
	u32 out_mask;

	KUNIT_EXPECT_EQ(test, axon_qp_verbs_type(IB_QPT_XRC_INI), IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, axon_qp_verbs_type(IB_QPT_XRC_TGT), IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, axon_qp_verbs_type(IB_QPT_DRIVER), IB_QPT_RC);
	KUNIT_EXPECT_EQ(test, axon_qp_verbs_type(IB_QPT_UC), IB_QPT_UC);
	KUNIT_EXPECT_EQ(test, axon_qp_verbs_type(IB_QPT_UD), IB_QPT_UD);

	conv.type = axon_qp_verbs_type(IB_QPT_XRC_TGT);
	KUNIT_ASSERT_EQ(test, axon_qp_attr_from_ib(&attr, IB_QP_STATE |
						   IB_QP_ACCESS_FLAGS |
						   IB_QP_PKEY_INDEX |
						   IB_QP_PORT, &conv, &out,
						   &out_mask), 0);
	KUNIT_EXPECT_EQ(test, out_mask, AXON_QP_ATTR_STATE |
			AXON_QP_ATTR_ACCESS);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(out.access),
			AXON_ACCESS_REMOTE_WRITE | AXON_ACCESS_REMOTE_READ |
			AXON_ACCESS_REMOTE_ATOMIC);

	out.state = cpu_to_le32(IB_QPS_RTS);
	out.timeout = 14;
	out.retry_cnt = 7;
	out.rnr_retry = 6;
	out.min_rnr_timer = 12;
	out.max_rd_atomic = 4;
	out.max_dest_rd_atomic = 8;
	axon_qp_attr_to_ib(&out, axon_qp_verbs_type(IB_QPT_XRC_INI), &back);
	KUNIT_EXPECT_EQ(test, back.qp_state, IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, back.qp_access_flags,
			IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
			IB_ACCESS_REMOTE_ATOMIC);
	KUNIT_EXPECT_EQ(test, back.timeout, 14);
	KUNIT_EXPECT_EQ(test, back.retry_cnt, 7);
	KUNIT_EXPECT_EQ(test, back.rnr_retry, 6);
	KUNIT_EXPECT_EQ(test, back.min_rnr_timer, 12);
	KUNIT_EXPECT_EQ(test, back.max_rd_atomic, 4);
	KUNIT_EXPECT_EQ(test, back.max_dest_rd_atomic, 8);
	KUNIT_EXPECT_EQ(test, back.qkey, 0);
}

static void axon_qp_state_test(struct kunit *test)
{
	struct axon_qp_attr a = { .state = cpu_to_le32(IB_QPS_RTS) };

	KUNIT_EXPECT_EQ(test, axon_qp_state_to_ib(&a), IB_QPS_RTS);
	a.state = cpu_to_le32(IB_QPS_ERR);
	KUNIT_EXPECT_EQ(test, axon_qp_state_to_ib(&a), IB_QPS_ERR);
	/* a state the core does not know is an error */
	a.state = cpu_to_le32(0x10000);
	KUNIT_EXPECT_EQ(test, axon_qp_state_to_ib(&a), IB_QPS_ERR);
}

/* ---- async events ---------------------------------------------------------- */

static void axon_qp_event_type_test(struct kunit *test)
{
	enum ib_event_type ev;

	KUNIT_EXPECT_TRUE(test, axon_qp_event_type(AXON_EVENT_QP_FATAL, &ev));
	KUNIT_EXPECT_EQ(test, ev, IB_EVENT_QP_FATAL);
	KUNIT_EXPECT_TRUE(test, axon_qp_event_type(AXON_EVENT_QP_REQ_ERR, &ev));
	KUNIT_EXPECT_EQ(test, ev, IB_EVENT_QP_REQ_ERR);
	KUNIT_EXPECT_TRUE(test, axon_qp_event_type(AXON_EVENT_QP_ACCESS_ERR,
						   &ev));
	KUNIT_EXPECT_EQ(test, ev, IB_EVENT_QP_ACCESS_ERR);
	KUNIT_EXPECT_TRUE(test, axon_qp_event_type(AXON_EVENT_COMM_EST, &ev));
	KUNIT_EXPECT_EQ(test, ev, IB_EVENT_COMM_EST);
	KUNIT_EXPECT_FALSE(test, axon_qp_event_type(AXON_EVENT_CQ_ERROR, &ev));
	KUNIT_EXPECT_FALSE(test, axon_qp_event_type(AXON_EVENT_COMPLETION,
						    &ev));
	KUNIT_EXPECT_FALSE(test, axon_qp_event_type(0xffff, &ev));
}

static struct kunit_case axon_qp_cases[] = {
	KUNIT_CASE_PARAM(axon_geom_test, axon_geom_gen_params),
	KUNIT_CASE(axon_qp_attr_rtr_test),
	KUNIT_CASE(axon_qp_attr_flow_label_test),
	KUNIT_CASE_PARAM(axon_qp_attr_case_test, axon_qp_attr_gen_params),
	KUNIT_CASE(axon_qp_attr_access_test),
	KUNIT_CASE(axon_qp_attr_roundtrip_test),
	KUNIT_CASE(axon_qp_attr_ud_test),
	KUNIT_CASE(axon_qp_attr_uc_test),
	KUNIT_CASE(axon_qp_attr_xrc_test),
	KUNIT_CASE(axon_qp_state_test),
	KUNIT_CASE(axon_qp_event_type_test),
	{}
};

static struct kunit_suite axon_qp_suite = {
	.name = "axon_qp_attr",
	.test_cases = axon_qp_cases,
};

kunit_test_suite(axon_qp_suite);
