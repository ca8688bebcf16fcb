// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Drive the provider's context through libibverbs against a "null" uverbs
 * device (tests/run points the uverbs character device at /dev/null, so
 * every command succeeds and every response is zero).
 *
 * What this shows is the wiring, not the kernel: verbs the provider
 * implements reach the provider (and succeed, or fail with the provider's
 * own errno: the null device's limits are all 0), every other verb reaches
 * libibverbs' default and fails with EOPNOTSUPP. A wrong verbs_context_ops
 * layout would swap these.
 *
 * The program is linked against the provider itself, as axondv.h asks
 * of its users, so the direct verbs are tried here too: their argument
 * checks, each against a control that passes them. A request that passes
 * every check before the command is shown by an error the provider
 * reports later (EINVAL for the missing CQs, EOPNOTSUPP for an atomic in
 * send_ops_flags): a command that reached the null device would "create"
 * a QP, whose zero response the provider refuses and whose DESTROY_QP
 * libibverbs answers from an uninitialised response.
 *
 * Prints TAP (tools/lib/tap.h): the plan, one result per check; exits
 * non-zero if a check failed or did not run.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "axondv.h"
#include "tap.h"

/* One TAP result (tools/lib/tap.h), why it failed as a diagnostic. */
static void result(const char *name, int ok, const char *why)
{
	if (!tap_ok(ok, "%s", name))
		tap_diag("%s", why);
}

/* A verb returning a pointer must give NULL with errno err. */
static void expect_errno_ptr(const char *name, void *obj, int err)
{
	char why[96];

	snprintf(why, sizeof(why), "returned %p, errno %d (%s), expected %s",
		 obj, errno, strerror(errno), strerror(err));
	result(name, !obj && errno == err, why);
}

static void expect_eopnotsupp_ptr(const char *name, void *obj)
{
	expect_errno_ptr(name, obj, EOPNOTSUPP);
}

static void expect_eopnotsupp_ret(const char *name, int ret)
{
	char why[64];

	snprintf(why, sizeof(why), "returned %d", ret);
	result(name, ret == EOPNOTSUPP, why);
}

/* What a RUD QP may send, and the same with an atomic it may not. */
#define RUD_SEND_OPS							\
	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |		\
	 IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |	\
	 IBV_QP_EX_WITH_RDMA_READ)
#define RUD_BAD_SEND_OPS	(RUD_SEND_OPS | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

/*
 * axondv_create_qp_ex() of a RUD QP on pd, without CQs, with send_ops;
 * dv is the driver attributes, followed by ext (a later axondv.h's
 * fields), inlen bytes of them given. errno, or 0 if a QP came back.
 */
static int axondv_try(struct ibv_pd *pd, enum ibv_qp_type type,
		      uint64_t send_ops, struct axondv_qp_init_attr dv,
		      uint64_t ext, uint32_t inlen)
{
	struct {
		struct axondv_qp_init_attr dv;
		uint64_t ext;
	} in = { dv, ext };
	struct ibv_qp_init_attr_ex attr = {
		.qp_type = type,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = send_ops,
	};
	struct ibv_qp *qp;

	static_assert(sizeof(in) == sizeof(dv) + sizeof(ext), "padding");
	errno = 0;
	qp = axondv_create_qp_ex(pd->context, &attr, &in.dv, inlen);
	if (qp) {
		ibv_destroy_qp(qp);
		return 0;
	}
	return errno;
}

static void expect_axondv(const char *name, int err, int expect)
{
	char why[96];

	snprintf(why, sizeof(why), "errno %d (%s), expected %s", err,
		 strerror(err), strerror(expect));
	result(name, err == expect, why);
}

/* The direct verbs' checks, each next to a request that passes it. */
static void test_axondv(struct ibv_pd *pd)
{
	const struct axondv_qp_init_attr rud = {
		.driver_qp_type = AXONDV_QP_DRIVER_TYPE_RUD,
	};
	/* how far an older axondv.h's struct goes */
	const uint32_t min_len = offsetof(struct axondv_qp_init_attr, reserved);
	const uint32_t len = sizeof(rud), ext_len = len + sizeof(uint64_t);
	struct axondv_qp_init_attr dv;
	/* a device of another provider: its verbs_device ops are not axon's */
	static union {
		struct ibv_device dev;
		char raw[4096];
	} other_dev;
	struct ibv_context other_ctx = { .device = &other_dev.dev };
	struct ibv_qp_init_attr_ex attr = {
		.qp_type = IBV_QPT_DRIVER,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	int err;

	/* the controls: past every check of the direct verb */
	expect_axondv("axondv-rud-no-cq-einval",
		      axondv_try(pd, IBV_QPT_DRIVER, RUD_SEND_OPS, rud, 0, len),
		      EINVAL);
	expect_axondv("axondv-rud-atomic-eopnotsupp",
		      axondv_try(pd, IBV_QPT_DRIVER, RUD_BAD_SEND_OPS, rud, 0,
				 len), EOPNOTSUPP);

	dv = rud;
	errno = 0;
	expect_axondv("axondv-other-device-eopnotsupp",
		      axondv_create_qp_ex(&other_ctx, &attr, &dv, len) ? 0 :
		      errno, EOPNOTSUPP);
	dv = rud;
	dv.comp_mask = 1;
	expect_axondv("axondv-comp-mask-eopnotsupp",
		      axondv_try(pd, IBV_QPT_DRIVER, RUD_SEND_OPS, dv, 0, len),
		      EOPNOTSUPP);
	dv = rud;
	dv.driver_qp_type = 0;
	err = axondv_try(pd, IBV_QPT_DRIVER, RUD_SEND_OPS, dv, 0, len);
	dv.driver_qp_type = AXONDV_QP_DRIVER_TYPE_RUD + 1;
	expect_axondv("axondv-driver-type-eopnotsupp",
		      err == EOPNOTSUPP ?
		      axondv_try(pd, IBV_QPT_DRIVER, RUD_SEND_OPS, dv, 0, len) :
		      err, EOPNOTSUPP);
	err = axondv_try(pd, IBV_QPT_DRIVER, RUD_BAD_SEND_OPS, rud, 0, 0);
	expect_axondv("axondv-inlen-einval",
		      err == EINVAL ?
		      axondv_try(pd, IBV_QPT_DRIVER, RUD_BAD_SEND_OPS, rud, 0,
				 min_len - 1) : err, EINVAL);
	/* reserved is beyond what the caller gave: not looked at */
	dv = rud;
	dv.reserved[0] = 1;
	expect_axondv("axondv-inlen-short-accepted",
		      axondv_try(pd, IBV_QPT_DRIVER, RUD_BAD_SEND_OPS, dv, 0,
				 min_len), EOPNOTSUPP);
	dv = rud;
	dv.reserved[3] = 1;
	expect_axondv("axondv-reserved-einval",
		      axondv_try(pd, IBV_QPT_DRIVER, RUD_BAD_SEND_OPS, dv, 0,
				 len), EINVAL);
	expect_axondv("axondv-ext-nonzero-einval",
		      axondv_try(pd, IBV_QPT_DRIVER, RUD_BAD_SEND_OPS, rud,
				 1ull << 63, ext_len), EINVAL);
	expect_axondv("axondv-ext-zero-accepted",
		      axondv_try(pd, IBV_QPT_DRIVER, RUD_BAD_SEND_OPS, rud, 0,
				 ext_len), EOPNOTSUPP);
	/* TSO: what an RC or UD QP would refuse with EOPNOTSUPP */
	err = axondv_try(pd, IBV_QPT_RC, IBV_QP_EX_WITH_TSO, rud, 0, len);
	expect_axondv("axondv-qp-type-einval",
		      err == EINVAL ?
		      axondv_try(pd, IBV_QPT_UD, IBV_QP_EX_WITH_TSO, rud, 0,
				 len) : err, EINVAL);
}

int main(int argc, char **argv)
{
	const char *want = argc > 1 ? argv[1] : "axon0";
	struct ibv_device **list, *dev = NULL;
	struct ibv_device_attr_ex attr;
	struct ibv_port_attr port;
	struct ibv_qp_init_attr qp_attr = {};
	struct ibv_qp_init_attr_ex qpx_attr = {};
	struct ibv_cq_init_attr_ex cqx_attr = {};
	struct ibv_mr *mr;
	struct ibv_mw *mw;
	struct ibv_srq_init_attr srq_attr = {};
	struct ibv_srq_init_attr_ex srqx_attr = {};
	struct ibv_xrcd_init_attr xrcd_attr = {
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = O_CREAT,
	};
	struct ibv_qp_open_attr open_attr = {
		.comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_TYPE,
		.qp_num = 2,
		.qp_type = IBV_QPT_XRC_RECV,
	};
	struct ibv_xrcd *xrcd;
	struct ibv_ah_attr ah_attr = {};
	struct ibv_ah *ah;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	char buf[64];
	int i, n, ret;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), want))
			dev = list[i];
	if (!dev) {
		tap_bail("ops-open: no device %s", want);
		return 1;
	}
	/* open, 3 queries, 23 on the PD and 11 axondv, 7 on the context, close */
	tap_plan(46);

	ctx = ibv_open_device(dev);
	result("ops-open", ctx != NULL, strerror(errno));
	if (!ctx)
		return 1;

	ret = ibv_query_device_ex(ctx, NULL, &attr);
	result("ops-query-device-ex",
	       !ret && !strcmp(attr.orig_attr.fw_ver, "0.0.0"),
	       "not answered by the provider");
	ret = ibv_query_port(ctx, 1, &port);
	snprintf(buf, sizeof(buf), "returned %d", ret);
	result("ops-query-port", !ret, buf);

	pd = ibv_alloc_pd(ctx);
	result("ops-alloc-pd", pd != NULL, strerror(errno));

	if (pd) {
		mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
		result("ops-reg-mr", mr != NULL, strerror(errno));
		if (mr) {
			ret = ibv_dereg_mr(mr);
			snprintf(buf, sizeof(buf), "returned %d", ret);
			result("ops-dereg-mr", !ret, buf);
		}
		/*
		 * The provider's reg_dmabuf_mr has no write() fallback: the
		 * null device answers its ioctl with ENOTTY, where
		 * libibverbs' default would fail with EOPNOTSUPP.
		 */
		expect_errno_ptr("ops-reg-dmabuf-mr-ioctl",
				 ibv_reg_dmabuf_mr(pd, 0, 4096, 0, -1, 0),
				 ENOTTY);
		/* the provider's advise_mr: ioctl only, as reg_dmabuf_mr */
		ret = ibv_advise_mr(pd, IBV_ADVISE_MR_ADVICE_PREFETCH,
				    IBV_ADVISE_MR_FLAG_FLUSH,
				    &(struct ibv_sge){ .length = 1 }, 1);
		snprintf(buf, sizeof(buf), "returned %d, expected ENOTTY",
			 ret);
		result("ops-advise-mr-ioctl", ret == ENOTTY, buf);
		/* the provider's alloc_mw: the null device "makes" one */
		mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
		result("ops-alloc-mw", mw != NULL, strerror(errno));
		if (mw) {
			ret = ibv_dealloc_mw(mw);
			snprintf(buf, sizeof(buf), "returned %d", ret);
			result("ops-dealloc-mw", !ret, buf);
		} else {
			tap_skip("no MW", "ops-dealloc-mw");
		}
		/* the provider's XRC_SEND QP: on to the missing send CQ */
		qp_attr.qp_type = IBV_QPT_XRC_SEND;
		expect_errno_ptr("ops-create-qp-xrc-send-no-cq-einval",
				 ibv_create_qp(pd, &qp_attr), EINVAL);
		/* RC's operations, and the XRC SRQ setter, are XRC_SEND's */
		qpx_attr.qp_type = IBV_QPT_XRC_SEND;
		qpx_attr.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		qpx_attr.pd = pd;
		qpx_attr.send_ops_flags = IBV_QP_EX_WITH_RDMA_READ |
					  IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
					  IBV_QP_EX_WITH_BIND_MW;
		expect_errno_ptr("ops-create-qp-ex-xrc-send-ops-einval",
				 ibv_create_qp_ex(ctx, &qpx_attr), EINVAL);
		/* an XRC_RECV QP needs its XRC domain */
		qpx_attr.qp_type = IBV_QPT_XRC_RECV;
		qpx_attr.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_CREATE_FLAGS;
		qpx_attr.create_flags = 0;
		expect_errno_ptr("ops-create-qp-ex-xrc-recv-no-xrcd-einval",
				 ibv_create_qp_ex(ctx, &qpx_attr), EINVAL);
		qpx_attr = (struct ibv_qp_init_attr_ex){};
		/* an XRC SRQ needs its XRC domain (libibverbs: EOPNOTSUPP) */
		srqx_attr.comp_mask = IBV_SRQ_INIT_ATTR_TYPE |
				      IBV_SRQ_INIT_ATTR_PD |
				      IBV_SRQ_INIT_ATTR_CQ;
		srqx_attr.srq_type = IBV_SRQT_XRC;
		srqx_attr.pd = pd;
		srqx_attr.attr.max_wr = 1;
		expect_errno_ptr("ops-create-srq-ex-xrc-no-xrcd-einval",
				 ibv_create_srq_ex(ctx, &srqx_attr), EINVAL);
		/* A UC QP neither READs nor does atomics. */
		qpx_attr.qp_type = IBV_QPT_UC;
		qpx_attr.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		qpx_attr.pd = pd;
		qpx_attr.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
					  IBV_QP_EX_WITH_RDMA_READ;
		expect_eopnotsupp_ptr("ops-create-qp-ex-uc-read-eopnotsupp",
				      ibv_create_qp_ex(ctx, &qpx_attr));
		/* A UD QP sends SENDs only, with ibv_wr_*() too. */
		qpx_attr.qp_type = IBV_QPT_UD;
		qpx_attr.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		qpx_attr.pd = pd;
		qpx_attr.send_ops_flags = IBV_QP_EX_WITH_SEND |
					  IBV_QP_EX_WITH_RDMA_WRITE;
		expect_eopnotsupp_ptr("ops-create-qp-ex-ud-write-eopnotsupp",
				      ibv_create_qp_ex(ctx, &qpx_attr));
		/* A driver QP needs its type: axondv_create_qp_ex(). */
		qp_attr.qp_type = IBV_QPT_DRIVER;
		expect_eopnotsupp_ptr("ops-create-qp-driver-eopnotsupp",
				      ibv_create_qp(pd, &qp_attr));
		qpx_attr.qp_type = IBV_QPT_DRIVER;
		qpx_attr.send_ops_flags = IBV_QP_EX_WITH_SEND;
		expect_eopnotsupp_ptr("ops-create-qp-ex-driver-eopnotsupp",
				      ibv_create_qp_ex(ctx, &qpx_attr));
		test_axondv(pd);
		/*
		 * The provider's create_ah: the null device "creates" it
		 * (libibverbs' default would fail with EOPNOTSUPP).
		 */
		ah_attr.is_global = 1;
		ah_attr.port_num = 1;
		ah = ibv_create_ah(pd, &ah_attr);
		result("ops-create-ah", ah != NULL, strerror(errno));
		if (ah) {
			ret = ibv_destroy_ah(ah);
			snprintf(buf, sizeof(buf), "returned %d", ret);
			result("ops-destroy-ah", !ret, buf);
		} else {
			tap_skip("no AH", "ops-destroy-ah");
		}
		qp_attr.qp_type = IBV_QPT_RC;
		expect_errno_ptr("ops-create-qp-no-cq-einval",
				 ibv_create_qp(pd, &qp_attr), EINVAL);
		qpx_attr.qp_type = IBV_QPT_RC;
		qpx_attr.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		qpx_attr.pd = pd;
		qpx_attr.send_ops_flags = IBV_QP_EX_WITH_TSO;
		expect_eopnotsupp_ptr("ops-create-qp-ex-tso-eopnotsupp",
				      ibv_create_qp_ex(ctx, &qpx_attr));
		/* the window operations are RC's: on to the missing CQs */
		qpx_attr.send_ops_flags = IBV_QP_EX_WITH_BIND_MW |
					  IBV_QP_EX_WITH_LOCAL_INV |
					  IBV_QP_EX_WITH_SEND_WITH_INV;
		expect_errno_ptr("ops-create-qp-ex-mw-ops-einval",
				 ibv_create_qp_ex(ctx, &qpx_attr), EINVAL);
		/* No flags is no request: on to the missing CQs. */
		qpx_attr.comp_mask = IBV_QP_INIT_ATTR_PD |
				     IBV_QP_INIT_ATTR_CREATE_FLAGS;
		expect_errno_ptr("ops-create-qp-ex-no-flags-einval",
				 ibv_create_qp_ex(ctx, &qpx_attr), EINVAL);
		qpx_attr.create_flags = IBV_QP_CREATE_SCATTER_FCS;
		expect_eopnotsupp_ptr("ops-create-qp-ex-flags-eopnotsupp",
				      ibv_create_qp_ex(ctx, &qpx_attr));
		/* checked by the provider before any command */
		srq_attr.attr.max_wr = 1;
		srq_attr.attr.max_sge = 1000;
		expect_errno_ptr("ops-create-srq-sge-einval",
				 ibv_create_srq(pd, &srq_attr), EINVAL);
		ret = ibv_dealloc_pd(pd);
		snprintf(buf, sizeof(buf), "returned %d", ret);
		result("ops-dealloc-pd", !ret, buf);
	}

	expect_errno_ptr("ops-create-cq-einval",
			 ibv_create_cq(ctx, 16, NULL, NULL, 0), EINVAL);
	cqx_attr.cqe = 16;
	cqx_attr.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	expect_eopnotsupp_ptr("ops-create-cq-ex-timestamp-eopnotsupp",
			      ibv_create_cq_ex(ctx, &cqx_attr));
	/* the provider's XRC domain: the null device "opens" one */
	xrcd = ibv_open_xrcd(ctx, &xrcd_attr);
	result("ops-open-xrcd", xrcd != NULL, strerror(errno));
	if (xrcd) {
		ret = ibv_close_xrcd(xrcd);
		snprintf(buf, sizeof(buf), "returned %d", ret);
		result("ops-close-xrcd", !ret, buf);
	} else {
		tap_skip("no XRCD", "ops-close-xrcd");
	}
	/* the provider's open_qp: the command wants the XRC domain */
	expect_errno_ptr("ops-open-qp-no-xrcd-einval",
			 ibv_open_qp(ctx, &open_attr), EINVAL);
	expect_eopnotsupp_ptr("ops-alloc-td-eopnotsupp",
			      ibv_alloc_td(ctx, &(struct ibv_td_init_attr){}));
	expect_eopnotsupp_ret("ops-query-rt-values-eopnotsupp",
			      ibv_query_rt_values_ex(ctx,
						     &(struct ibv_values_ex){
							.comp_mask =
							IBV_VALUES_MASK_RAW_CLOCK }));

	ret = ibv_close_device(ctx);
	snprintf(buf, sizeof(buf), "returned %d", ret);
	result("ops-close", !ret, buf);

	ibv_free_device_list(list);
	return tap_done();
}
