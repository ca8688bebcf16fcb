// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A program built as axondv_create_qp_ex(3) tells its users to build one:
 * the installed <infiniband/axondv.h>, linked against the installed
 * provider with an rpath to it. No device is needed: the direct verb must
 * resolve and refuse a context that is not axon's. (That libibverbs still
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
	struct ibv_qp *qp;

	tap_plan(1);
	errno = 0;
	qp = axondv_create_qp_ex(&other_ctx, &attr, &dv, sizeof(dv));
	if (!tap_ok(!qp && errno == EOPNOTSUPP, "link-other-device-eopnotsupp"))
		tap_diag("returned %p, errno %d (%s)", (void *)qp, errno,
			 strerror(errno));
	return tap_done();
}
