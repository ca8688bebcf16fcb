/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the test programs in tools/tests share: their results are TAP
 * (tap.h: tap_plan, tap_ok, tap_done), an errno check, opening a device.
 */
#ifndef AXON_TEST_H
#define AXON_TEST_H

#include <stdbool.h>

#include "tap.h"

struct ibv_context;

/* ok if the call failed with errno want; names the errno it saw. */
bool expect_errno(bool failed, int err, int want, const char *what);

/* The RDMA device called name, opened; NULL if there is none (-libverbs). */
struct ibv_context *open_device(const char *name);

#endif /* AXON_TEST_H */
