// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon: device and port values as verbs report them: firmware version,
 * MTU, link speed and width, GID type, widened counters.
 * Shared by axon.ko and the KUnit suites (see axon_dev_attr.h).
 */

#include <linux/kernel.h>

#include <rdma/axon-abi.h>

#include "axon_dev_attr.h"

/* AXON_REG_FW_VERSION as the 64-bit fw_ver handed to userspace. */
u64 axon_fw_ver(u32 reg)
{
	return AXON_ABI_FW_VER(AXON_FW_VERSION_GET_MAJOR(reg),
			       AXON_FW_VERSION_GET_MINOR(reg),
			       AXON_FW_VERSION_GET_SUB(reg));
}

/* "major.minor.sub", as ethtool -i and ibv_devinfo show it. */
void axon_fw_string(u32 reg, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u", AXON_FW_VERSION_GET_MAJOR(reg),
		 AXON_FW_VERSION_GET_MINOR(reg), AXON_FW_VERSION_GET_SUB(reg));
}

/* The largest IB MTU that fits in the device's RoCE MTU in bytes. */
enum ib_mtu axon_mtu_enum(u32 bytes)
{
	if (bytes >= 4096)
		return IB_MTU_4096;
	if (bytes >= 2048)
		return IB_MTU_2048;
	if (bytes >= 1024)
		return IB_MTU_1024;
	if (bytes >= 512)
		return IB_MTU_512;
	return IB_MTU_256;
}

/* Express an Ethernet link speed as four IB lanes. */
void axon_speed_width(u32 mbps, u16 *speed, u8 *width)
{
	u32 lane = mbps / 4;

	*width = IB_WIDTH_4X;
	if (lane >= 100000)
		*speed = IB_SPEED_NDR;
	else if (lane >= 50000)
		*speed = IB_SPEED_HDR;
	else if (lane >= 25000)
		*speed = IB_SPEED_EDR;
	else if (lane >= 10000)
		*speed = IB_SPEED_QDR;
	else
		*speed = IB_SPEED_SDR;
}

/* The device's GID type for an RDMA core GID table entry. */
enum axon_gid_type axon_gid_type(enum ib_gid_type type)
{
	return type == IB_GID_TYPE_ROCE_UDP_ENCAP ? AXON_GID_TYPE_ROCE_V2 :
						    AXON_GID_TYPE_ROCE_V1;
}

/*
 * A 32-bit wrapping device counter widened to 64 bits: what it advanced
 * since @last is added to @sum. Correct as long as it is sampled at least
 * once per 2^32 events.
 */
u64 axon_counter_widen(u64 *sum, u32 *last, u32 now)
{
	*sum += (u32)(now - *last);
	*last = now;
	return *sum;
}
