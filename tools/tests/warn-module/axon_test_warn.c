// SPDX-License-Identifier: GPL-2.0
/*
 * axon_test_warn - trigger a kernel warning on load.
 *
 * Used by the axon VM harness self-test: a run in which this module is
 * loaded must fail, because the guest kernel log shows a WARNING.
 */
#include <linux/bug.h>
#include <linux/init.h>
#include <linux/module.h>

static int __init axon_test_warn_init(void)
{
	WARN(1, "axon_test_warn: deliberate warning for the harness self-test\n");
	return 0;
}

static void __exit axon_test_warn_exit(void)
{
}

module_init(axon_test_warn_init);
module_exit(axon_test_warn_exit);

MODULE_DESCRIPTION("Deliberate WARN() at load time, for the axon VM harness self-test");
MODULE_LICENSE("GPL");
