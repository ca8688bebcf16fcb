// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit: the checks of the udata of uverbs requests
 * (drivers/axon/axon_udata.c): alloc_ucontext, the verbs without a
 * request (create_cq, create_ah), create_qp, modify_qp.
 */

#include "axon_kunit.h"
#include "axon_udata.h"

/* ---- alloc_ucontext request ----------------------------------------------------- */

struct axon_ucontext_case {
	const char *name;
	u32 comp_mask;
	u32 reserved;
	bool tail_zero;
	int err;
};

static const struct axon_ucontext_case axon_ucontext_cases[] = {
	{ "empty or zero request", 0, 0, true, 0 },
	{ "comp_mask bit 0", 0x1, 0, true, -EOPNOTSUPP },
	{ "comp_mask bit 31", 0x80000000, 0, true, -EOPNOTSUPP },
	{ "reserved set", 0, 0x1, true, -EOPNOTSUPP },
	{ "longer request, zero-padded", 0, 0, true, 0 },
	{ "longer request, non-zero tail", 0, 0, false, -EINVAL },
	{ "non-zero tail and comp_mask", 0x1, 0, false, -EINVAL },
};

AXON_KUNIT_DESC(axon_ucontext_case)
KUNIT_ARRAY_PARAM(axon_ucontext, axon_ucontext_cases,
		  axon_ucontext_case_desc);

static void axon_ucontext_req_test(struct kunit *test)
{
	const struct axon_ucontext_case *c = test->param_value;
	struct axon_alloc_ucontext_req req = {
		.comp_mask = c->comp_mask,
		.reserved = c->reserved,
	};

	KUNIT_EXPECT_EQ(test, axon_check_ucontext_req(&req, c->tail_zero),
			c->err);
}

/* ---- udata of verbs without a request (create_cq, create_ah) ------------ */

struct axon_resp_udata_case {
	const char *name;
	bool in_zero;
	size_t outlen;
	size_t resp_size;
	int err;
};

#define AXON_CQ_RESP_LEN sizeof(struct axon_create_cq_resp)
#define AXON_AH_RESP_LEN sizeof(struct axon_create_ah_resp)

static const struct axon_resp_udata_case axon_resp_udata_cases[] = {
	{ "cq: no request, full response", true, AXON_CQ_RESP_LEN,
	  AXON_CQ_RESP_LEN, 0 },
	{ "cq: longer response buffer", true, 256, AXON_CQ_RESP_LEN, 0 },
	{ "cq: non-zero request", false, AXON_CQ_RESP_LEN, AXON_CQ_RESP_LEN,
	  -EINVAL },
	{ "cq: response too short", true, AXON_CQ_RESP_LEN - 1,
	  AXON_CQ_RESP_LEN, -EINVAL },
	{ "cq: no response", true, 0, AXON_CQ_RESP_LEN, -EINVAL },
	{ "ah: no request, full response", true, AXON_AH_RESP_LEN,
	  AXON_AH_RESP_LEN, 0 },
	{ "ah: non-zero request", false, AXON_AH_RESP_LEN, AXON_AH_RESP_LEN,
	  -EINVAL },
	{ "ah: no room for the MAC", true, 4, AXON_AH_RESP_LEN, -EINVAL },
};

AXON_KUNIT_DESC(axon_resp_udata_case)
KUNIT_ARRAY_PARAM(axon_resp_udata, axon_resp_udata_cases,
		  axon_resp_udata_case_desc);

static void axon_resp_udata_test(struct kunit *test)
{
	const struct axon_resp_udata_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, axon_check_resp_only_udata(c->in_zero, c->outlen,
							 c->resp_size),
			c->err);
}

/* ---- create_qp udata --------------------------------------------------- */

struct axon_qp_req_case {
	const char *name;
	u32 comp_mask;
	u32 driver_qp_type;
	bool driver;
	bool sq_dbrec;
	bool tail_zero;
	size_t outlen;
	int err;
};

#define AXON_QP_RESP_LEN sizeof(struct axon_create_qp_resp)

static const struct axon_qp_req_case axon_qp_req_cases[] = {
	{ "zero request", 0, 0, false, false, true, AXON_QP_RESP_LEN, 0 },
	{ "longer response buffer", 0, 0, false, false, true,
	  AXON_QP_RESP_LEN + 8, 0 },
	{ "comp_mask bit 0", 1, 0, false, false, true, AXON_QP_RESP_LEN,
	  -EOPNOTSUPP },
	{ "driver type on an RC QP", 0, AXON_QP_DRIVER_TYPE_RUD, false, false,
	  true, AXON_QP_RESP_LEN, -EINVAL },
	{ "RUD driver QP", 0, AXON_QP_DRIVER_TYPE_RUD, true, false, true,
	  AXON_QP_RESP_LEN, 0 },
	{ "driver QP without a type", 0, 0, true, false, true,
	  AXON_QP_RESP_LEN, -EOPNOTSUPP },
	{ "unknown driver type", 0, 0x80000000, true, false, true,
	  AXON_QP_RESP_LEN, -EOPNOTSUPP },
	{ "non-zero trailing bytes", 0, 0, false, false, false,
	  AXON_QP_RESP_LEN, -EINVAL },
	{ "response too short", 0, 0, false, false, true, AXON_QP_RESP_LEN - 8,
	  -EINVAL },
	{ "no response", 0, 0, false, false, true, 0, -EINVAL },
	{ "doorbell record", AXON_CREATE_QP_REQ_SQ_DBREC, 0, false, true, true,
	  AXON_QP_RESP_LEN, 0 },
	{ "doorbell record of a RUD QP", AXON_CREATE_QP_REQ_SQ_DBREC,
	  AXON_QP_DRIVER_TYPE_RUD, true, true, true, AXON_QP_RESP_LEN, 0 },
	{ "doorbell record, device without", AXON_CREATE_QP_REQ_SQ_DBREC, 0,
	  false, false, true, AXON_QP_RESP_LEN, -EOPNOTSUPP },
	{ "comp_mask bit 1 with records", 2, 0, false, true, true,
	  AXON_QP_RESP_LEN, -EOPNOTSUPP },
};

AXON_KUNIT_DESC(axon_qp_req_case)
KUNIT_ARRAY_PARAM(axon_qp_req, axon_qp_req_cases, axon_qp_req_case_desc);

static void axon_qp_req_test(struct kunit *test)
{
	const struct axon_qp_req_case *c = test->param_value;
	struct axon_create_qp_req req = {
		.comp_mask = c->comp_mask,
		.driver_qp_type = c->driver_qp_type,
	};

	KUNIT_EXPECT_EQ(test, axon_check_create_qp_req(&req, c->driver,
						       c->sq_dbrec,
						       c->tail_zero,
						       c->outlen), c->err);
}

/* ---- modify_qp request (a RUD QP's peer key) ---------------------------- */

struct axon_modify_qp_req_case {
	const char *name;
	u32 comp_mask;
	u32 reserved;
	u64 key;
	bool rud;
	bool tail_zero;
	int err;
};

static const struct axon_modify_qp_req_case axon_modify_qp_req_cases[] = {
	{ "no request", 0, 0, 0, false, true, 0 },
	{ "RUD QP, no key", 0, 0, 0, true, true, 0 },
	{ "RUD QP, the peer's key", AXON_MODIFY_QP_REQ_RUD_PEER_KEY, 0,
	  0x0123456789abcdefULL, true, true, 0 },
	{ "RUD QP, a key of 0", AXON_MODIFY_QP_REQ_RUD_PEER_KEY, 0, 0, true,
	  true, -EINVAL },
	{ "RC QP, a key", AXON_MODIFY_QP_REQ_RUD_PEER_KEY, 0, 1, false, true,
	  -EINVAL },
	{ "unknown comp_mask bit", 0x2, 0, 0, true, true, -EOPNOTSUPP },
	{ "comp_mask bit 31", 0x80000000, 0, 0, false, true, -EOPNOTSUPP },
	{ "reserved set", 0, 1, 0, true, true, -EINVAL },
	{ "non-zero trailing bytes", AXON_MODIFY_QP_REQ_RUD_PEER_KEY, 0, 1,
	  true, false, -EINVAL },
};

AXON_KUNIT_DESC(axon_modify_qp_req_case)
KUNIT_ARRAY_PARAM(axon_modify_qp_req, axon_modify_qp_req_cases,
		  axon_modify_qp_req_case_desc);

static void axon_modify_qp_req_test(struct kunit *test)
{
	const struct axon_modify_qp_req_case *c = test->param_value;
	struct axon_modify_qp_req req = {
		.comp_mask = c->comp_mask,
		.reserved = c->reserved,
		.rud_peer_key = c->key,
	};

	KUNIT_EXPECT_EQ(test, axon_check_modify_qp_req(&req, c->rud,
						       c->tail_zero), c->err);
}

static struct kunit_case axon_udata_cases[] = {
	KUNIT_CASE_PARAM(axon_ucontext_req_test, axon_ucontext_gen_params),
	KUNIT_CASE_PARAM(axon_resp_udata_test, axon_resp_udata_gen_params),
	KUNIT_CASE_PARAM(axon_qp_req_test, axon_qp_req_gen_params),
	KUNIT_CASE_PARAM(axon_modify_qp_req_test,
			 axon_modify_qp_req_gen_params),
	{}
};

static struct kunit_suite axon_udata_suite = {
	.name = "axon_udata",
	.test_cases = axon_udata_cases,
};

kunit_test_suite(axon_udata_suite);
