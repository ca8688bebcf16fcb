// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The driver code under test, compiled into axon_kunit.ko exactly as it is
 * compiled into axon.ko: the admin queue engine and the pure helpers.
 * Their symbols are module-local (not exported), so the two modules do
 * not clash.
 */
#include "axon_admin.c"
#include "axon_util.c"

#include <linux/module.h>

MODULE_AUTHOR("axon developers");
MODULE_DESCRIPTION("KUnit suites for the axon driver");
MODULE_LICENSE("Dual BSD/GPL");
