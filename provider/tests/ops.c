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
 * Prints TAP (tools/lib/tap.h): the plan, one result per check; exits
 * non-zero if a check failed or did not run.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

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
	/* open, 3 queries, 17 on the PD, 4 on the context, close */
	tap_plan(26);

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
		qp_attr.qp_type = IBV_QPT_XRC_SEND;
		expect_eopnotsupp_ptr("ops-create-qp-xrc-eopnotsupp",
				      ibv_create_qp(pd, &qp_attr));
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
