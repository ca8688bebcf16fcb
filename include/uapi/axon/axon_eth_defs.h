/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * axon-nic device interface, part of <axon/axon_dev.h>: the Ethernet
 * function (its registers are in axon_regs_defs.h).
 */
#ifndef _UAPI_AXON_ETH_DEFS_H
#define _UAPI_AXON_ETH_DEFS_H

#include <linux/types.h>

/**
 * DOC: Ethernet function
 *
 * Frames that are not RoCEv2 (UDP destination port 4791) travel through two
 * descriptor rings. TX: the driver fills descriptors and writes the tail;
 * the device sends each frame and writes back flags DONE (and ERROR for a
 * descriptor it rejected: length outside 14..MTU+18, unreachable buffer).
 * RX: the driver posts empty buffers up to the tail; the device fills them
 * in order, writing back the frame length and DONE. The rings are checked
 * when ``AXON_ETH_CTRL_ENABLE`` goes to 1 (errors in ``AXON_REG_ERROR``)
 * and may not be changed while it is set. After the driver writes 1 to
 * ``AXON_REG_ETH_IRQ_ARM`` the device raises ``AXON_MSIX_ETH`` once, at
 * the next TX or RX completion.
 *
 * Received frames shorter than an Ethernet header or longer than the MTU
 * plus header and one VLAN tag are dropped and counted. While no RX buffer
 * is posted, frames wait (nothing is dropped) until the next RX tail write;
 * while ENABLE is 0 they are dropped and counted in
 * ``AXON_REG_STAT_RX_NOBUF``.
 *
 * ``AXON_REG_ETH_CTRL``::
 *
 *   0:0 : enable - AXON_ETH_CTRL_ENABLE: 1 starts the function (needs a
 *         READY device; the rings and the MTU are checked first), 0 stops it
 *
 * The limits: L3 MTU ``AXON_ETH_MIN_MTU`` .. ``AXON_ETH_MAX_MTU``; a frame
 * is at least ``AXON_ETH_HLEN`` bytes and at most the MTU plus
 * ``AXON_ETH_OVERHEAD`` (header and one VLAN tag); RoCEv2 is UDP
 * destination port ``AXON_ROCEV2_UDP_PORT``.
 */
#define AXON_ETH_CTRL_ENABLE		0x1

#define AXON_ETH_MIN_MTU		68
#define AXON_ETH_MAX_MTU		9000
#define AXON_ETH_HLEN			14
#define AXON_ETH_OVERHEAD		18
#define AXON_ROCEV2_UDP_PORT		4791

/**
 * DOC: Ethernet multicast filter
 *
 * With ``AXON_CAP_MCAST`` the Ethernet function filters the multicast
 * frames it receives (destination address with the group bit set, other
 * than the broadcast address, which always passes). A frame passes when
 * ``AXON_REG_ETH_RX_MODE`` has ``AXON_ETH_RX_ALLMULTI`` or when the bit of
 * the 64-bit hash filter (``AXON_REG_ETH_MC_HASH_HI``:``_LO``) that its
 * destination address hashes to is set: the top 6 bits of the CRC-32
 * (the Ethernet FCS polynomial, most significant bit first, as Linux's
 * ether_crc()) of the 6 address bytes. Other multicast frames are dropped
 * and counted in ``AXON_REG_STAT_RX_MC_FILTERED``. The filter is a hash:
 * frames of other groups that share a bit pass, and the host's stack
 * drops them. Unicast frames are not filtered. RoCEv2 frames never reach
 * the filter: the RDMA engine takes a multicast one only for a group
 * that one of its QPs is attached to.
 *
 * ``AXON_REG_ETH_RX_MODE``::
 *
 *   0:0 : allmulti - AXON_ETH_RX_ALLMULTI: every multicast frame passes
 *         (the reset value, so a driver that never programs the filter
 *         loses no frame)
 */
#define AXON_ETH_RX_ALLMULTI		0x1
#define AXON_ETH_MC_HASH_BITS		64

/**
 * DOC: Ethernet descriptor flags
 *
 * &struct axon_eth_desc ``flags``, written by the device::
 *
 *   0:0 : done - AXON_ETH_DESC_DONE, the device is finished with the entry
 *   1:1 : error - AXON_ETH_DESC_ERROR; TX: the frame was not sent; RX:
 *         the buffer was not writable, len is 0 and the frame was dropped
 */
#define AXON_ETH_DESC_DONE		0x1
#define AXON_ETH_DESC_ERROR		0x2

/**
 * struct axon_eth_desc - a TX or RX descriptor, 16 bytes
 * @addr: DMA address of the buffer
 * @buf_len: TX: the frame length; RX: the buffer size
 * @len: RX: the frame length, written by the device (before @flags)
 * @flags: ``AXON_ETH_DESC_*`` (see "Ethernet descriptor flags"), written
 *	by the device last
 * @reserved: 0
 */
struct axon_eth_desc {
	__le64 addr;
	__le16 buf_len;
	__le16 len;
	__le16 flags;
	__le16 reserved;
};

#endif /* _UAPI_AXON_ETH_DEFS_H */
