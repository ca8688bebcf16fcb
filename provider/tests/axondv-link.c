// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A program built as axondv_create_qp_ex(3) tells its users to build one:
 * the installed <infiniband/axondv.h>, linked against the installed
 * provider with an rpath to it. No device is needed: the direct verbs must
 * resolve and refuse a context, or a QP, that is not axon's. (That libibverbs still
 * finds and uses a provider loaded this way is tests/ops.c's part, on the
 * fake device.)
 *
 * Prints TAP (tools/lib/tap.h): the plan, one result per check; exits
 * non-zero if a check failed or did not run.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/axondv.h>

#include "tap.h"

int main(void)
{
	struct axondv_qp_init_attr dv = {
		.driver_qp_type = AXONDV_QP_DRIVER_TYPE_RUD,
	};
	struct ibv_qp_init_attr_ex attr = { .qp_type = IBV_QPT_DRIVER };
	/* a device of another provider: its verbs_device ops are not axon's */
	static union {
		struct ibv_device dev;
		char raw[4096];
	} other_dev;
	struct ibv_context other_ctx = { .device = &other_dev.dev };
	struct ibv_qp other_qp = {
		.context = &other_ctx, .qp_type = IBV_QPT_DRIVER,
	};
	struct axondv_modify_qp_attr mod = {
		.comp_mask = AXONDV_MODIFY_QP_RUD_PEER_KEY, .rud_peer_key = 1,
	};
	struct ibv_qp_attr qp_attr = { .qp_state = IBV_QPS_RTR };
	struct axondv_qp_attr got;
	struct ibv_qp *qp;
	int err;

	tap_plan(3);
	errno = 0;
	qp = axondv_create_qp_ex(&other_ctx, &attr, &dv, sizeof(dv));
	if (!tap_ok(!qp && errno == EOPNOTSUPP, "link-other-device-eopnotsupp"))
		tap_diag("returned %p, errno %d (%s)", (void *)qp, errno,
			 strerror(errno));
	/* the key verbs (AXON_1.1) resolve and refuse a QP not axon's */
	err = axondv_modify_qp(&other_qp, &qp_attr, IBV_QP_STATE, &mod,
			       sizeof(mod));
	if (!tap_ok(err == EOPNOTSUPP, "link-modify-qp-other-device"))
		tap_diag("returned %d (%s)", err, strerror(err));
	err = axondv_query_qp(&other_qp, &got, sizeof(got));
	if (!tap_ok(err == EOPNOTSUPP, "link-query-qp-other-device"))
		tap_diag("returned %d (%s)", err, strerror(err));
	return tap_done();
}
