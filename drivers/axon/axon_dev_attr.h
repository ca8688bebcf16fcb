/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon: device and port values as verbs report them (firmware version,
 * MTU, link speed and width, GID type) and widened device counters.
 *
 * No device, no locks, no allocation; axon.ko and the KUnit suites
 * (kunit/) compile the same axon_dev_attr.c.
 */
#ifndef _AXON_DEV_ATTR_H_
#define _AXON_DEV_ATTR_H_

#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include <axon/axon_dev.h>

u64 axon_fw_ver(u32 reg);
void axon_fw_string(u32 reg, char *buf, size_t len);
enum ib_mtu axon_mtu_enum(u32 bytes);
void axon_speed_width(u32 mbps, u16 *speed, u8 *width);
enum axon_gid_type axon_gid_type(enum ib_gid_type type);
u64 axon_counter_widen(u64 *sum, u32 *last, u32 now);

#endif /* _AXON_DEV_ATTR_H_ */
