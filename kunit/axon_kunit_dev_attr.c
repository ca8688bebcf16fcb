// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: the device and port values the verbs report
 * (drivers/axon/axon_dev_attr.c): MTU, link speed, firmware version, GID
 * type, widened counters, and the IPv4-mapped GIDs the RDMA core builds
 * from the netdev's addresses and the device gets in SET_GID.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>

#include "axon_dev_attr.h"
#include "axon_kunit.h"

/* ---- MTU -------------------------------------------------------------------- */

struct axon_mtu_case {
	const char *name;
	u32 bytes;
	enum ib_mtu mtu;
};

static const struct axon_mtu_case axon_mtu_cases[] = {
	{ "0", 0, IB_MTU_256 },
	{ "255", 255, IB_MTU_256 },
	{ "256", 256, IB_MTU_256 },
	{ "511", 511, IB_MTU_256 },
	{ "512", 512, IB_MTU_512 },
	{ "1023", 1023, IB_MTU_512 },
	{ "1024", 1024, IB_MTU_1024 },
	{ "1500: Ethernet", 1500, IB_MTU_1024 },
	{ "2048", 2048, IB_MTU_2048 },
	{ "4095", 4095, IB_MTU_2048 },
	{ "4096", 4096, IB_MTU_4096 },
	{ "9000: jumbo", 9000, IB_MTU_4096 },
	{ "U32_MAX", U32_MAX, IB_MTU_4096 },
};

AXON_KUNIT_DESC(axon_mtu_case)
KUNIT_ARRAY_PARAM(axon_mtu, axon_mtu_cases, axon_mtu_case_desc);

static void axon_mtu_test(struct kunit *test)
{
	const struct axon_mtu_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, axon_mtu_enum(c->bytes), c->mtu);
}

/* ---- link speed as 4 IB lanes ---------------------------------------------- */

struct axon_speed_case {
	const char *name;
	u32 mbps;
	u16 speed;
};

static const struct axon_speed_case axon_speed_cases[] = {
	{ "unknown (0)", 0, IB_SPEED_SDR },
	{ "10G", 10000, IB_SPEED_SDR },
	{ "39999 Mb/s", 39999, IB_SPEED_SDR },
	{ "40G", 40000, IB_SPEED_QDR },
	{ "99999 Mb/s", 99999, IB_SPEED_QDR },
	{ "100G", 100000, IB_SPEED_EDR },
	{ "200G", 200000, IB_SPEED_HDR },
	{ "400G", 400000, IB_SPEED_NDR },
	{ "800G", 800000, IB_SPEED_NDR },
	{ "U32_MAX", U32_MAX, IB_SPEED_NDR },
};

AXON_KUNIT_DESC(axon_speed_case)
KUNIT_ARRAY_PARAM(axon_speed, axon_speed_cases, axon_speed_case_desc);

static void axon_speed_test(struct kunit *test)
{
	const struct axon_speed_case *c = test->param_value;
	u16 speed = 0xffff;
	u8 width = 0xff;

	axon_speed_width(c->mbps, &speed, &width);
	KUNIT_EXPECT_EQ(test, speed, c->speed);
	KUNIT_EXPECT_EQ(test, width, IB_WIDTH_4X);
}

/* ---- firmware version --------------------------------------------------------- */

struct axon_fw_case {
	const char *name;
	u32 reg;
	u64 fw_ver;
	const char *str;
};

static const struct axon_fw_case axon_fw_cases[] = {
	{ "0.0.0", 0, 0, "0.0.0" },
	{ "1.2.3", 0x01020003, 0x100020003ull, "1.2.3" },
	{ "major only", 0x07000000, 0x700000000ull, "7.0.0" },
	{ "sub 65535", 0x0000ffff, 0xffff, "0.0.65535" },
	{ "all ones", 0xffffffff, 0xff00ffffffull, "255.255.65535" },
};

AXON_KUNIT_DESC(axon_fw_case)
KUNIT_ARRAY_PARAM(axon_fw, axon_fw_cases, axon_fw_case_desc);

static void axon_fw_ver_test(struct kunit *test)
{
	const struct axon_fw_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, axon_fw_ver(c->reg), c->fw_ver);
}

static void axon_fw_string_test(struct kunit *test)
{
	const struct axon_fw_case *c = test->param_value;
	char *buf = kunit_kzalloc(test, IB_FW_VERSION_NAME_MAX, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	axon_fw_string(c->reg, buf, IB_FW_VERSION_NAME_MAX);
	KUNIT_EXPECT_STREQ(test, buf, c->str);
}

/* A short buffer (ethtool's is 32 bytes) truncates, never overruns. */
static void axon_fw_string_short_test(struct kunit *test)
{
	/* kunit_kzalloc'ed: KASAN catches a write past the end */
	char *buf = kunit_kzalloc(test, 6, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	axon_fw_string(0xffffffff, buf, 6);
	KUNIT_EXPECT_STREQ(test, buf, "255.2");
}

/* ---- GID types --------------------------------------------------------------- */

struct axon_gid_type_case {
	const char *name;
	enum ib_gid_type type;
	enum axon_gid_type axon;
};

static const struct axon_gid_type_case axon_gid_type_cases[] = {
	{ "RoCE v1", IB_GID_TYPE_ROCE, AXON_GID_TYPE_ROCE_V1 },
	{ "RoCE v2 (UDP encap)", IB_GID_TYPE_ROCE_UDP_ENCAP,
	  AXON_GID_TYPE_ROCE_V2 },
};

AXON_KUNIT_DESC(axon_gid_type_case)
KUNIT_ARRAY_PARAM(axon_gid_type, axon_gid_type_cases,
		  axon_gid_type_case_desc);

static void axon_gid_type_test(struct kunit *test)
{
	const struct axon_gid_type_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, axon_gid_type(c->type), c->axon);
	KUNIT_EXPECT_NE(test, axon_gid_type(c->type), AXON_GID_TYPE_NONE);
}

/* ---- IPv4-mapped GIDs ----------------------------------------------------------- */

struct axon_gid_ip_case {
	const char *name;
	const char *ip;		/* IPv4 dotted quad */
	u8 gid[16];		/* the GID the device gets */
};

static const struct axon_gid_ip_case axon_gid_ip_cases[] = {
	{ "node 0", "192.0.2.1",
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1 } },
	{ "node 249", "192.0.2.250",
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 250 } },
	{ "10.0.0.0", "10.0.0.0",
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 0 } },
	{ "broadcast", "255.255.255.255",
	  { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 255, 255, 255, 255 } },
};

AXON_KUNIT_DESC(axon_gid_ip_case)
KUNIT_ARRAY_PARAM(axon_gid_ip, axon_gid_ip_cases, axon_gid_ip_case_desc);

/* IPv4 address -> ::ffff:a.b.c.d GID -> the same address. */
static void axon_gid_ipv4_test(struct kunit *test)
{
	const struct axon_gid_ip_case *c = test->param_value;
	struct sockaddr_in in = { .sin_family = AF_INET };
	struct sockaddr_storage out = {};
	union ib_gid gid;

	KUNIT_ASSERT_EQ(test, in4_pton(c->ip, -1, (u8 *)&in.sin_addr.s_addr,
				       -1, NULL), 1);
	KUNIT_ASSERT_EQ(test, rdma_ip2gid((struct sockaddr *)&in, &gid), 0);
	KUNIT_EXPECT_EQ(test, memcmp(gid.raw, c->gid, sizeof(gid.raw)), 0);
	KUNIT_EXPECT_TRUE(test, ipv6_addr_v4mapped((struct in6_addr *)gid.raw));

	rdma_gid2ip((struct sockaddr *)&out, &gid);
	KUNIT_ASSERT_EQ(test, out.ss_family, AF_INET);
	KUNIT_EXPECT_EQ(test,
			be32_to_cpu(((struct sockaddr_in *)&out)->sin_addr.s_addr),
			be32_to_cpu(in.sin_addr.s_addr));
}

/* An IPv6 GID is the address itself, and is not taken for an IPv4 one. */
static void axon_gid_ipv6_test(struct kunit *test)
{
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };
	struct sockaddr_storage out = {};
	union ib_gid gid;

	KUNIT_ASSERT_EQ(test, in6_pton("fd00:a0::1", -1,
				       in6.sin6_addr.s6_addr, -1, NULL), 1);
	KUNIT_ASSERT_EQ(test, rdma_ip2gid((struct sockaddr *)&in6, &gid), 0);
	KUNIT_EXPECT_EQ(test, memcmp(gid.raw, in6.sin6_addr.s6_addr, 16), 0);
	KUNIT_EXPECT_FALSE(test, ipv6_addr_v4mapped((struct in6_addr *)gid.raw));
	rdma_gid2ip((struct sockaddr *)&out, &gid);
	KUNIT_EXPECT_EQ(test, out.ss_family, AF_INET6);
}

/* ---- widened counters --------------------------------------------------- */

static void axon_counter_widen_test(struct kunit *test)
{
	u64 sum = 0;
	u32 last = 0;

	KUNIT_EXPECT_EQ(test, axon_counter_widen(&sum, &last, 10), 10);
	KUNIT_EXPECT_EQ(test, axon_counter_widen(&sum, &last, 10), 10);
	KUNIT_EXPECT_EQ(test, axon_counter_widen(&sum, &last, U32_MAX),
			(u64)U32_MAX);
	/* the register wraps: the sum goes on */
	KUNIT_EXPECT_EQ(test, axon_counter_widen(&sum, &last, 5),
			(u64)U32_MAX + 6);
	KUNIT_EXPECT_EQ(test, last, 5);
	KUNIT_EXPECT_EQ(test, axon_counter_widen(&sum, &last, 4),
			(u64)U32_MAX + 6 + U32_MAX);
}

static struct kunit_case axon_dev_attr_cases[] = {
	KUNIT_CASE_PARAM(axon_mtu_test, axon_mtu_gen_params),
	KUNIT_CASE_PARAM(axon_speed_test, axon_speed_gen_params),
	KUNIT_CASE_PARAM(axon_fw_ver_test, axon_fw_gen_params),
	KUNIT_CASE_PARAM(axon_fw_string_test, axon_fw_gen_params),
	KUNIT_CASE(axon_fw_string_short_test),
	KUNIT_CASE_PARAM(axon_gid_type_test, axon_gid_type_gen_params),
	KUNIT_CASE_PARAM(axon_gid_ipv4_test, axon_gid_ip_gen_params),
	KUNIT_CASE(axon_gid_ipv6_test),
	KUNIT_CASE(axon_counter_widen_test),
	{}
};

static struct kunit_suite axon_dev_attr_suite = {
	.name = "axon_dev_attr",
	.test_cases = axon_dev_attr_cases,
};

kunit_test_suite(axon_dev_attr_suite);
