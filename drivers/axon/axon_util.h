/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon pure helpers: conversions between device values and verbs values,
 * and uverbs request checks. No device, no locks, no allocation; axon.ko
 * and the KUnit suites (kunit/) compile the same axon_util.c.
 */
#ifndef _AXON_UTIL_H_
#define _AXON_UTIL_H_

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/axon-abi.h>

#include <axon/axon_dev.h>

u64 axon_fw_ver(u32 reg);
void axon_fw_string(u32 reg, char *buf, size_t len);
enum ib_mtu axon_mtu_enum(u32 bytes);
void axon_speed_width(u32 mbps, u16 *speed, u8 *width);
enum axon_gid_type axon_gid_type(enum ib_gid_type type);
int axon_check_ucontext_req(const struct axon_alloc_ucontext_req *req,
			    bool tail_zero);

#endif /* _AXON_UTIL_H_ */
