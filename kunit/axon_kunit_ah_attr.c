// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: address handles as the device's UD address
 * (drivers/axon/axon_ah_attr.c): the fields of struct axon_ud_av, IPv4
 * and IPv6, and what is refused.
 */

#include <net/addrconf.h>
#include <net/ip.h>

#include "axon_ah_attr.h"
#include "axon_kunit.h"

static const u8 axon_test_dmac[ETH_ALEN] = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 };

/* RoCE v2 GIDs of the port as the RDMA core keeps them: IPv4 and IPv6. */
static const struct ib_gid_attr axon_test_sgid_v4 = {
	.gid.raw = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 1 },
	.gid_type = IB_GID_TYPE_ROCE_UDP_ENCAP,
	.index = 3,
	.port_num = 1,
};

static const struct ib_gid_attr axon_test_sgid_v6 = {
	.gid.raw = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
	.gid_type = IB_GID_TYPE_ROCE_UDP_ENCAP,
	.index = 5,
	.port_num = 1,
};

/* What ibv_create_ah() hands the driver for ::ffff:192.0.2.2. */
static void axon_test_ah_v4(struct rdma_ah_attr *ah)
{
	union ib_gid dgid = { .raw = { [10] = 0xff, [11] = 0xff, 192, 0, 2,
				       2 } };

	memset(ah, 0, sizeof(*ah));
	ah->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(ah, 1);
	rdma_ah_set_grh(ah, &dgid, 0, axon_test_sgid_v4.index, 64, 0x20);
	ah->grh.sgid_attr = &axon_test_sgid_v4;
	memcpy(ah->roce.dmac, axon_test_dmac, ETH_ALEN);
}

/* 2001:db8::2 with a flow label. */
static void axon_test_ah_v6(struct rdma_ah_attr *ah)
{
	union ib_gid dgid = { .raw = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 } };

	axon_test_ah_v4(ah);
	rdma_ah_set_grh(ah, &dgid, 0xabcde, axon_test_sgid_v6.index, 3, 0x48);
	ah->grh.sgid_attr = &axon_test_sgid_v6;
}

static void axon_ud_av_ipv4_test(struct kunit *test)
{
	struct rdma_ah_attr ah;
	struct axon_ud_av av;

	axon_test_ah_v4(&ah);
	memset(&av, 0xaa, sizeof(av));
	KUNIT_ASSERT_EQ(test, axon_ud_av_from_ib(&ah, &av), 0);
	KUNIT_EXPECT_EQ(test, memcmp(av.dgid, ah.grh.dgid.raw, 16), 0);
	KUNIT_EXPECT_EQ(test, memcmp(av.dmac, axon_test_dmac, ETH_ALEN), 0);
	KUNIT_EXPECT_EQ(test, av.sgid_index, 3);
	KUNIT_EXPECT_EQ(test, av.hop_limit, 64);
	KUNIT_EXPECT_EQ(test, av.tclass, 0x20);
	KUNIT_EXPECT_EQ(test, av.flags, AXON_AV_IPV4);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(av.flow_label), 0);
	/* no flow label: the device derives the port from the QP */
	KUNIT_EXPECT_EQ(test, le16_to_cpu(av.udp_sport), 0);
}

/* Bits above the flow label's 20 are ignored (UCX sets them all). */
static void axon_ud_av_flow_label_test(struct kunit *test)
{
	struct rdma_ah_attr ah;
	struct axon_ud_av av;

	axon_test_ah_v6(&ah);
	ah.grh.flow_label = 0xffffffff;
	KUNIT_ASSERT_EQ(test, axon_ud_av_from_ib(&ah, &av), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(av.flow_label), 0xfffff);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(av.udp_sport),
			rdma_flow_label_to_udp_sport(0xfffff));
}

static void axon_ud_av_ipv6_test(struct kunit *test)
{
	struct rdma_ah_attr ah;
	struct axon_ud_av av;

	axon_test_ah_v6(&ah);
	KUNIT_ASSERT_EQ(test, axon_ud_av_from_ib(&ah, &av), 0);
	KUNIT_EXPECT_EQ(test, memcmp(av.dgid, ah.grh.dgid.raw, 16), 0);
	KUNIT_EXPECT_EQ(test, av.sgid_index, 5);
	KUNIT_EXPECT_EQ(test, av.hop_limit, 3);
	KUNIT_EXPECT_EQ(test, av.tclass, 0x48);
	KUNIT_EXPECT_EQ(test, av.flags, 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(av.flow_label), 0xabcde);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(av.udp_sport),
			rdma_flow_label_to_udp_sport(0xabcde));
}

/* One thing changed from the valid IPv4 AH; the result. */
struct axon_ud_av_case {
	const char *name;
	void (*set)(struct rdma_ah_attr *ah);
	int err;
};

#define AXON_AH_SET(fn, stmt)						\
static void fn(struct rdma_ah_attr *ah)					\
{									\
	stmt;								\
}

static const struct ib_gid_attr axon_test_sgid_v1 = {
	.gid.raw = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 1 },
	.gid_type = IB_GID_TYPE_ROCE,
	.index = 2,
	.port_num = 1,
};

AXON_AH_SET(axon_ah_nothing, (void)ah)
AXON_AH_SET(axon_ah_no_grh, ah->ah_flags = 0)
AXON_AH_SET(axon_ah_ib, ah->type = RDMA_AH_ATTR_TYPE_IB)
AXON_AH_SET(axon_ah_port2, ah->port_num = 2)
AXON_AH_SET(axon_ah_no_sgid_attr, ah->grh.sgid_attr = NULL)
AXON_AH_SET(axon_ah_roce_v1, (ah->grh.sgid_attr = &axon_test_sgid_v1,
			      ah->grh.sgid_index = 2))
AXON_AH_SET(axon_ah_v6_dgid, (ah->grh.dgid.raw[10] = 0,
			      ah->grh.dgid.raw[11] = 0,
			      ah->grh.dgid.raw[0] = 0x20))
AXON_AH_SET(axon_ah_v4_dgid_v6_sgid, (ah->grh.sgid_attr = &axon_test_sgid_v6,
				      ah->grh.sgid_index = 5))
AXON_AH_SET(axon_ah_mcast_v4, ah->grh.dgid.raw[12] = 224)
AXON_AH_SET(axon_ah_mcast_v6, (memset(ah->grh.dgid.raw, 0, 16),
			       ah->grh.dgid.raw[0] = 0xff,
			       ah->grh.dgid.raw[1] = 0x02,
			       ah->grh.dgid.raw[15] = 1,
			       ah->grh.sgid_attr = &axon_test_sgid_v6))
AXON_AH_SET(axon_ah_mcast_dmac, ah->roce.dmac[0] = 0x01)
AXON_AH_SET(axon_ah_mcast_group_v4, (ah->grh.dgid.raw[12] = 239,
				     ah->grh.dgid.raw[13] = 1,
				     ip_eth_mc_map(*(__be32 *)&ah->grh.dgid.raw[12],
						   ah->roce.dmac)))
AXON_AH_SET(axon_ah_mcast_group_v6, (axon_ah_mcast_v6(ah),
				     ipv6_eth_mc_map((struct in6_addr *)
						     ah->grh.dgid.raw,
						     ah->roce.dmac)))

static const struct axon_ud_av_case axon_ud_av_cases[] = {
	{ "valid IPv4", axon_ah_nothing, 0 },
	{ "no GRH", axon_ah_no_grh, -EINVAL },
	{ "IB address", axon_ah_ib, -EINVAL },
	{ "port 2", axon_ah_port2, -EINVAL },
	{ "no source GID", axon_ah_no_sgid_attr, -EINVAL },
	{ "RoCE v1 source GID", axon_ah_roce_v1, -EINVAL },
	{ "IPv6 destination, IPv4 source", axon_ah_v6_dgid, -EINVAL },
	{ "IPv4 destination, IPv6 source", axon_ah_v4_dgid_v6_sgid, -EINVAL },
	{ "IPv4 group, unicast MAC", axon_ah_mcast_v4, -EINVAL },
	{ "IPv6 group, unicast MAC", axon_ah_mcast_v6, -EINVAL },
	{ "unicast GID, multicast MAC", axon_ah_mcast_dmac, -EINVAL },
	{ "IPv4 group and its MAC", axon_ah_mcast_group_v4, 0 },
	{ "IPv6 group and its MAC", axon_ah_mcast_group_v6, 0 },
};

AXON_KUNIT_DESC(axon_ud_av_case)
KUNIT_ARRAY_PARAM(axon_ud_av, axon_ud_av_cases, axon_ud_av_case_desc);

static void axon_ud_av_case_test(struct kunit *test)
{
	const struct axon_ud_av_case *c = test->param_value;
	struct rdma_ah_attr ah;
	struct axon_ud_av av;

	axon_test_ah_v4(&ah);
	c->set(&ah);
	KUNIT_EXPECT_EQ(test, axon_ud_av_from_ib(&ah, &av), c->err);
}

static struct kunit_case axon_ah_attr_cases[] = {
	KUNIT_CASE(axon_ud_av_ipv4_test),
	KUNIT_CASE(axon_ud_av_ipv6_test),
	KUNIT_CASE(axon_ud_av_flow_label_test),
	KUNIT_CASE_PARAM(axon_ud_av_case_test, axon_ud_av_gen_params),
	{}
};

static struct kunit_suite axon_ah_attr_suite = {
	.name = "axon_ah_attr",
	.test_cases = axon_ah_attr_cases,
};

kunit_test_suite(axon_ah_attr_suite);
