/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * axon-nic device interface, part of <axon/axon_dev.h>: PCI identity,
 * interface version, BARs, MSI-X vectors and the registers of BAR 0.
 */
#ifndef _UAPI_AXON_REGS_DEFS_H
#define _UAPI_AXON_REGS_DEFS_H

#include <linux/types.h>

/* PCI identity. 0x1234 is the vendor id QEMU's own test devices use. */
#define AXON_PCI_VENDOR_ID		0x1234
#define AXON_PCI_DEVICE_ID_NIC		0xa0c0
#define AXON_PCI_DEVICE_ID_GPU		0xa0c1

#define AXON_DEV_MAGIC			0x4e4f5841 /* "AXON" */
#define AXON_DEV_VERSION_MAJOR		1
#define AXON_DEV_VERSION_MINOR		5

/*
 * AXON_REG_VERSION: the interface version the device implements
 * 31:16 : major - AXON_DEV_VERSION_MAJOR; the driver refuses another one
 * 15:0 : minor - AXON_DEV_VERSION_MINOR, compatible additions
 */
#define AXON_VERSION_MAJOR_SHIFT	16
#define AXON_VERSION_MINOR_MASK		0xffff

#define AXON_VERSION(major, minor) \
	((major) << AXON_VERSION_MAJOR_SHIFT | \
	 ((minor) & AXON_VERSION_MINOR_MASK))
#define AXON_VERSION_GET_MAJOR(reg)	((reg) >> AXON_VERSION_MAJOR_SHIFT)
#define AXON_VERSION_GET_MINOR(reg)	((reg) & AXON_VERSION_MINOR_MASK)

/* BARs */
#define AXON_BAR_REGS			0 /* registers below, 4 KiB */
#define AXON_BAR_MSIX			2 /* MSI-X table and PBA */
#define AXON_BAR_DB			4 /* doorbell pages, 64-bit BAR */
#define AXON_REGS_SIZE			0x1000

/* MSI-X vectors */
enum axon_msix_vector {
	AXON_MSIX_ADMIN		= 0, /* admin completion queue */
	AXON_MSIX_ASYNC		= 1, /* async event queue */
	AXON_MSIX_ETH		= 2, /* Ethernet TX and RX, when armed */
	AXON_MSIX_COMP		= 3, /* completion event queue */
	AXON_MSIX_NUM_VECTORS	= 4,
};

/*
 * Registers (BAR 0).
 *
 * The admin and event queue registers may only be written while
 * AXON_REG_CTRL.ENABLE is 0; the device checks them when ENABLE goes to 1.
 */
enum axon_reg {
	AXON_REG_MAGIC		= 0x00, /* RO: AXON_DEV_MAGIC */
	AXON_REG_VERSION	= 0x04, /* RO: AXON_VERSION(), above */
	AXON_REG_CAPS		= 0x08, /* RO: AXON_CAP_* */
	AXON_REG_FW_VERSION	= 0x0c, /* RO: AXON_FW_VERSION(), below */
	AXON_REG_CTRL		= 0x10, /* RW: AXON_CTRL_* */
	AXON_REG_STATUS		= 0x14, /* RO: AXON_STATUS_* */
	AXON_REG_ERROR		= 0x18, /* RO: enum axon_dev_error, why !READY */
	AXON_REG_ADMIN_TIMEOUT	= 0x1c, /* RO: admin command budget, ms */

	AXON_REG_AQ_SQ_BASE_LO	= 0x20, /* RW: admin submission ring, 4 KiB aligned */
	AXON_REG_AQ_SQ_BASE_HI	= 0x24,
	AXON_REG_AQ_SQ_DEPTH	= 0x28, /* RW: entries, power of 2 */
	AXON_REG_AQ_SQ_TAIL	= 0x2c, /* WO: doorbell, producer index < depth */
	AXON_REG_AQ_CQ_BASE_LO	= 0x30, /* RW: admin completion ring, 4 KiB aligned */
	AXON_REG_AQ_CQ_BASE_HI	= 0x34,
	AXON_REG_AQ_CQ_DEPTH	= 0x38, /* RW: entries, power of 2 */
	AXON_REG_AQ_SQ_HEAD	= 0x3c, /* RO: device consumer index */

	AXON_REG_EQ_BASE_LO	= 0x40, /* RW: async event ring, 4 KiB aligned */
	AXON_REG_EQ_BASE_HI	= 0x44,
	AXON_REG_EQ_DEPTH	= 0x48, /* RW: entries, power of 2 */
	AXON_REG_EQ_HEAD	= 0x4c, /* WO: driver consumer index < depth */

	AXON_REG_CEQ_BASE_LO	= 0x50, /* RW: completion event ring, 4 KiB aligned */
	AXON_REG_CEQ_BASE_HI	= 0x54,
	AXON_REG_CEQ_DEPTH	= 0x58, /* RW: entries, power of 2, >= max_cq */
	AXON_REG_CEQ_HEAD	= 0x5c, /* WO: driver consumer index < depth */
	AXON_REG_DB_PAGES	= 0x60, /* RO: doorbell pages in AXON_BAR_DB */

	AXON_REG_STAT_AQ_CMDS	= 0x80, /* RO: admin commands executed */
	AXON_REG_STAT_AQ_ERRORS	= 0x84, /* RO: admin commands failed */
	AXON_REG_STAT_EVENTS	= 0x88, /* RO: async events posted */
	AXON_REG_STAT_EQ_DROPS	= 0x8c, /* RO: events lost, event ring full */
	AXON_REG_STAT_DB_REJECTS = 0x90, /* RO: doorbells for a foreign or bad QP/CQ */
	AXON_REG_STAT_TX_PKTS	= 0x94, /* RO: RoCEv2 packets sent (wire + loopback) */
	AXON_REG_STAT_RX_PKTS	= 0x98, /* RO: RoCEv2 packets accepted */
	AXON_REG_STAT_RX_DROPS	= 0x9c, /* RO: RoCEv2 packets dropped (bad ICRC, QPN, header) */
	AXON_REG_STAT_RETRANS	= 0xa0, /* RO: packets retransmitted */
	AXON_REG_STAT_NAKS	= 0xa4, /* RO: NAKs sent and received */
	/*
	 * Peer-to-peer traffic: payload bytes the engine read from / wrote
	 * to MR pages that are another PCI device's memory (a dma-buf MR on
	 * a GPU BAR), 64 bits as LO/HI pairs. Read HI, LO, then HI again
	 * and retry if HI changed.
	 */
	AXON_REG_STAT_PEER_RD_LO = 0xa8, /* RO */
	AXON_REG_STAT_PEER_RD_HI = 0xac, /* RO */
	AXON_REG_STAT_PEER_WR_LO = 0xb0, /* RO */
	AXON_REG_STAT_PEER_WR_HI = 0xb4, /* RO */
	AXON_REG_STAT_MR_INVALID = 0xb8, /* RO: accesses refused, MR invalidated */
	/* RC requests and responses that are not the next expected one */
	AXON_REG_STAT_DUP_REQS	= 0xbc, /* RO: requests already executed */
	AXON_REG_STAT_OUT_OF_SEQ = 0xc0, /* RO: requests ahead of the expected PSN */
	AXON_REG_STAT_STRAY	= 0xc4, /* RO: packets matching no state, dropped */

	/* Ethernet function, see axon_eth_defs.h */
	AXON_REG_ETH_CTRL	= 0x100, /* RW: AXON_ETH_CTRL_* */
	AXON_REG_ETH_MTU	= 0x104, /* RW: L3 MTU, AXON_ETH_MIN_MTU..MAX */
	AXON_REG_ETH_IRQ_ARM	= 0x108, /* WO: 1 arms AXON_MSIX_ETH once */
	AXON_REG_ETH_TX_BASE_LO	= 0x110, /* RW: TX descriptor ring, 4 KiB aligned */
	AXON_REG_ETH_TX_BASE_HI	= 0x114,
	AXON_REG_ETH_TX_DEPTH	= 0x118, /* RW: descriptors, power of 2 */
	AXON_REG_ETH_TX_TAIL	= 0x11c, /* WO: doorbell, producer index < depth */
	AXON_REG_ETH_RX_BASE_LO	= 0x120, /* RW: RX descriptor ring, 4 KiB aligned */
	AXON_REG_ETH_RX_BASE_HI	= 0x124,
	AXON_REG_ETH_RX_DEPTH	= 0x128, /* RW: descriptors, power of 2 */
	AXON_REG_ETH_RX_TAIL	= 0x12c, /* WO: doorbell, buffers posted < depth */
	AXON_REG_ETH_TX_HEAD	= 0x130, /* RO: device consumer index */
	AXON_REG_ETH_RX_HEAD	= 0x134, /* RO: device consumer index */

	/* Ethernet counters, 32 bits, wrapping */
	AXON_REG_STAT_RX_NOBUF	= 0x140, /* RO: frames dropped, ETH stopped */
	AXON_REG_STAT_RX_RUNT	= 0x144, /* RO: frames shorter than a header */
	AXON_REG_STAT_RX_OVERSIZE = 0x148, /* RO: > MTU + 18 or > RX buffer */
	AXON_REG_STAT_RX_ROCE	= 0x14c, /* RO: RoCEv2 frames for the engine */
	AXON_REG_STAT_TX_ERRORS	= 0x150, /* RO: TX descriptors rejected */
	AXON_REG_STAT_RX_DMA_ERRORS = 0x154, /* RO: RX buffers not writable */
};

/* Ring depth limits, in entries, for the admin, event and Ethernet rings. */
#define AXON_QUEUE_MIN_DEPTH		2
#define AXON_QUEUE_MAX_DEPTH		4096
#define AXON_QUEUE_ALIGN		4096

/* AXON_REG_CAPS */
#define AXON_CAP_ADMIN_QUEUE		0x1
#define AXON_CAP_ASYNC_EVENTS		0x2
#define AXON_CAP_ETHERNET		0x4
#define AXON_CAP_RDMA			0x8 /* MR, CQ, RC QP, doorbells, CEQ */
#define AXON_CAP_PEER_MR		0x10 /* INVALIDATE_MR, REMAP_MR, peer pages */
#define AXON_CAP_SRQ			0x20 /* shared receive queues (1.5) */

/*
 * AXON_REG_FW_VERSION: the firmware (model) release, for display only
 * 31:24 : major
 * 23:16 : minor
 * 15:0 : sub
 */
#define AXON_FW_VERSION_MAJOR_SHIFT	24
#define AXON_FW_VERSION_MINOR_SHIFT	16
#define AXON_FW_VERSION_MINOR_MASK	0xff
#define AXON_FW_VERSION_SUB_MASK	0xffff

#define AXON_FW_VERSION(major, minor, sub) \
	((major) << AXON_FW_VERSION_MAJOR_SHIFT | \
	 ((minor) & AXON_FW_VERSION_MINOR_MASK) << AXON_FW_VERSION_MINOR_SHIFT | \
	 ((sub) & AXON_FW_VERSION_SUB_MASK))
#define AXON_FW_VERSION_GET_MAJOR(reg)	((reg) >> AXON_FW_VERSION_MAJOR_SHIFT)
#define AXON_FW_VERSION_GET_MINOR(reg) \
	(((reg) >> AXON_FW_VERSION_MINOR_SHIFT) & AXON_FW_VERSION_MINOR_MASK)
#define AXON_FW_VERSION_GET_SUB(reg)	((reg) & AXON_FW_VERSION_SUB_MASK)

/*
 * AXON_REG_CTRL
 * 0:0 : enable - 1 starts the admin and event queues; 0 stops them
 * 1:1 : reset - write 1 to reset the device; reads as 0 once done
 */
#define AXON_CTRL_ENABLE		0x1
#define AXON_CTRL_RESET			0x2

/*
 * AXON_REG_STATUS
 * 0:0 : ready - the queues are running
 * 1:1 : fatal - the device stopped; only a reset recovers it
 * 2:2 : resetting - a reset is in progress
 */
#define AXON_STATUS_READY		0x1
#define AXON_STATUS_FATAL		0x2
#define AXON_STATUS_RESETTING		0x4

/* AXON_REG_ERROR: the reason the device refused to become ready. */
enum axon_dev_error {
	AXON_DEV_ERR_NONE		= 0,
	AXON_DEV_ERR_AQ_SQ_CONFIG	= 1, /* bad admin SQ base or depth */
	AXON_DEV_ERR_AQ_CQ_CONFIG	= 2, /* bad admin CQ base or depth */
	AXON_DEV_ERR_EQ_CONFIG		= 3, /* bad event queue base or depth */
	AXON_DEV_ERR_DOORBELL		= 4, /* doorbell index out of range */
	AXON_DEV_ERR_DMA		= 5, /* a queue DMA failed */
	AXON_DEV_ERR_ETH_TX_CONFIG	= 6, /* bad TX ring base or depth */
	AXON_DEV_ERR_ETH_RX_CONFIG	= 7, /* bad RX ring base or depth */
	AXON_DEV_ERR_ETH_MTU		= 8, /* MTU out of range */
	AXON_DEV_ERR_CEQ_CONFIG		= 9, /* bad completion event queue */
};

#endif /* _UAPI_AXON_REGS_DEFS_H */
