// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The driver code under test, compiled into axon_kunit.ko exactly as it is
 * compiled into axon.ko: the admin queue engine and the pure helpers
 * (device and port values, udata checks, MR layout, CQ ring, QP
 * attributes, WQEs, addresses, on-demand paging).
 * Their symbols are module-local (not exported), so the two modules do
 * not clash.
 */
#include "axon_admin.c"
#include "axon_dev_attr.c"
#include "axon_udata.c"
#include "axon_mr_attr.c"
#include "axon_cqe.c"
#include "axon_qp_attr.c"
#include "axon_wqe.c"
#include "axon_ah_attr.c"
#include "axon_odp_attr.c"

#include <linux/module.h>

MODULE_AUTHOR("axon developers");
MODULE_DESCRIPTION("KUnit suites for the axon driver");
MODULE_LICENSE("Dual BSD/GPL");
