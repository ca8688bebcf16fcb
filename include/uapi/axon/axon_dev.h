/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * axon-nic device interface: the contract between the axon.ko driver and
 * the hardware (the QEMU model compiles against this same header).
 *
 * Everything the device reads or writes in host memory is little endian.
 * Registers are 32 bits wide and must be accessed with 32-bit accesses.
 *
 * Bit ranges are documented as "hi:lo : name - meaning"; fields are only
 * touched through the masks and shifts at the end of each section.
 *
 * Increment AXON_DEV_VERSION_MAJOR on any incompatible change.
 */
#ifndef _UAPI_AXON_DEV_H
#define _UAPI_AXON_DEV_H

#include <linux/types.h>

/* PCI identity. 0x1234 is the vendor id QEMU's own test devices use. */
#define AXON_PCI_VENDOR_ID		0x1234
#define AXON_PCI_DEVICE_ID_NIC		0xa0c0
#define AXON_PCI_DEVICE_ID_GPU		0xa0c1

#define AXON_DEV_MAGIC			0x4e4f5841 /* "AXON" */
#define AXON_DEV_VERSION_MAJOR		1
#define AXON_DEV_VERSION_MINOR		1

/* BARs */
#define AXON_BAR_REGS			0 /* registers below, 4 KiB */
#define AXON_BAR_MSIX			2 /* MSI-X table and PBA */
#define AXON_REGS_SIZE			0x1000

/* MSI-X vectors */
enum axon_msix_vector {
	AXON_MSIX_ADMIN		= 0, /* admin completion queue */
	AXON_MSIX_ASYNC		= 1, /* async event queue */
	AXON_MSIX_ETH		= 2, /* Ethernet TX and RX, when armed */
	AXON_MSIX_NUM_VECTORS	= 3,
};

/*
 * Registers (BAR 0).
 *
 * The admin and event queue registers may only be written while
 * AXON_REG_CTRL.ENABLE is 0; the device checks them when ENABLE goes to 1.
 */
enum axon_reg {
	AXON_REG_MAGIC		= 0x00, /* RO: AXON_DEV_MAGIC */
	AXON_REG_VERSION	= 0x04, /* RO: 31:16 major, 15:0 minor */
	AXON_REG_CAPS		= 0x08, /* RO: AXON_CAP_* */
	AXON_REG_FW_VERSION	= 0x0c, /* RO: 31:24 major, 23:16 minor, 15:0 sub */
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

	AXON_REG_STAT_AQ_CMDS	= 0x80, /* RO: admin commands executed */
	AXON_REG_STAT_AQ_ERRORS	= 0x84, /* RO: admin commands failed */
	AXON_REG_STAT_EVENTS	= 0x88, /* RO: async events posted */
	AXON_REG_STAT_EQ_DROPS	= 0x8c, /* RO: events lost, event ring full */

	/* Ethernet function, see "Ethernet function" below */
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
};

/*
 * Admin queue.
 *
 * The driver writes a 64-byte command at the SQ tail and writes the new
 * tail to AXON_REG_AQ_SQ_TAIL. The device executes commands in order and
 * writes one 16-byte completion per command to the CQ, flipping the phase
 * bit on every pass over the ring (the first pass writes phase 1), then
 * raises AXON_MSIX_ADMIN. Results larger than the completion are written
 * by DMA to the command's response buffer.
 */
enum axon_admin_opcode {
	AXON_ADMIN_QUERY_DEVICE		= 1,
	AXON_ADMIN_QUERY_PORT		= 2,
	AXON_ADMIN_CREATE_PD		= 3,
	AXON_ADMIN_DESTROY_PD		= 4,
	AXON_ADMIN_SET_GID		= 5, /* write one GID table entry */
};

enum axon_admin_status {
	AXON_ADMIN_SUCCESS		= 0,
	AXON_ADMIN_BAD_OPCODE		= 1, /* unknown opcode */
	AXON_ADMIN_BAD_PARAM		= 2, /* reserved bits set, bad value */
	AXON_ADMIN_DMA_ERROR		= 3, /* response buffer not reachable */
	AXON_ADMIN_NO_RESOURCES		= 4, /* object table full */
	AXON_ADMIN_BAD_HANDLE		= 5, /* no such object */
	AXON_ADMIN_BUSY			= 6, /* object still in use */
};

struct axon_admin_query {
	__le64 resp_addr;	/* DMA address of the response */
	__le32 resp_len;	/* bytes available at resp_addr */
	__le32 port;		/* QUERY_PORT: port number, 1-based */
	__u8 reserved[40];
};

struct axon_admin_pd {
	__le32 pdn;		/* DESTROY_PD: the PD to destroy */
	__u8 reserved[52];
};

/* RoCE GID types, as stored in the device's GID table */
enum axon_gid_type {
	AXON_GID_TYPE_NONE	= 0, /* the entry is unused */
	AXON_GID_TYPE_ROCE_V1	= 1,
	AXON_GID_TYPE_ROCE_V2	= 2,
};

struct axon_admin_gid {
	__le32 port;		/* 1-based */
	__le32 index;		/* < gid_tbl_len */
	__le32 type;		/* enum axon_gid_type; NONE clears the entry */
	__le32 reserved0;
	__u8 gid[16];		/* network order; IPv4 as ::ffff:a.b.c.d */
	__u8 reserved[24];
};

struct axon_admin_cmd {
	__le16 opcode;		/* enum axon_admin_opcode */
	__le16 command_id;	/* echoed in the completion */
	__le32 flags;		/* reserved, must be 0 */
	union {
		struct axon_admin_query query;
		struct axon_admin_pd pd;
		struct axon_admin_gid gid;
		__u8 raw[56];
	};
};

/*
 * 0:0 : phase - ring pass of this entry
 * 15:1 : reserved
 */
#define AXON_ADMIN_CQE_PHASE		0x1

struct axon_admin_cqe {
	__le16 command_id;	/* from the command */
	__le16 status;		/* enum axon_admin_status */
	__le16 flags;		/* AXON_ADMIN_CQE_* */
	__le16 reserved;
	__le64 result;		/* CREATE_PD: the pdn */
};

/* QUERY_DEVICE response */
struct axon_dev_attr {
	__le64 max_mr_size;
	__le64 page_size_cap;
	__le64 sys_image_guid;
	__le32 vendor_part_id;
	__le32 hw_ver;
	__le32 max_qp;
	__le32 max_qp_wr;
	__le32 max_sge;
	__le32 max_cq;
	__le32 max_cqe;
	__le32 max_mr;
	__le32 max_pd;
	__le32 max_qp_rd_atom;
	__le32 max_inline;
	__le32 num_ports;
	__u8 mac[6];		/* the port's Ethernet address */
	__u8 reserved[10];
};

/* Port states, as in the IB specification (enum ib_port_state) */
enum axon_port_state {
	AXON_PORT_DOWN		= 1,
	AXON_PORT_INIT		= 2,
	AXON_PORT_ARMED		= 3,
	AXON_PORT_ACTIVE	= 4,
};

/* QUERY_PORT response */
struct axon_port_attr {
	__le32 state;		/* enum axon_port_state */
	__le32 max_mtu;		/* bytes, RoCE payload MTU */
	__le32 active_mtu;	/* bytes */
	__le32 gid_tbl_len;
	__le32 speed_mbps;	/* link speed, Mb/s */
	__le32 max_msg_sz;
	__u8 reserved[8];
};

/*
 * Async event queue.
 *
 * The device writes 16-byte events with the same phase convention as the
 * admin CQ and raises AXON_MSIX_ASYNC. The driver reports consumed entries
 * through AXON_REG_EQ_HEAD; when the ring is full new events are dropped
 * and counted in AXON_REG_STAT_EQ_DROPS.
 */
enum axon_event_type {
	AXON_EVENT_PORT_ACTIVE	= 1, /* param: port */
	AXON_EVENT_PORT_DOWN	= 2, /* param: port */
	AXON_EVENT_FATAL	= 3, /* the device stopped */
};

#define AXON_EVENT_PHASE		0x1

struct axon_event {
	__le16 type;		/* enum axon_event_type */
	__le16 flags;		/* AXON_EVENT_PHASE */
	__le32 param;
	__le64 data;
};

/*
 * Ethernet function.
 *
 * Frames that are not RoCEv2 (UDP destination port 4791) travel through two
 * descriptor rings. TX: the driver fills descriptors and writes the tail;
 * the device sends each frame and writes back flags DONE (and ERROR for a
 * descriptor it rejected: length outside 14..MTU+18, unreachable buffer).
 * RX: the driver posts empty buffers up to the tail; the device fills them
 * in order, writing back the frame length and DONE. The rings are checked
 * when AXON_ETH_CTRL_ENABLE goes to 1 (errors in AXON_REG_ERROR) and may not
 * be changed while it is set. After the driver writes AXON_REG_ETH_IRQ_ARM
 * the device raises AXON_MSIX_ETH once, at the next TX or RX completion.
 *
 * Received frames shorter than an Ethernet header or longer than the MTU
 * plus header and one VLAN tag are dropped and counted. While no RX buffer
 * is posted, frames wait (nothing is dropped) until the next RX tail write;
 * while ENABLE is 0 they are dropped and counted in AXON_REG_STAT_RX_NOBUF.
 */
#define AXON_ETH_CTRL_ENABLE		0x1

#define AXON_ETH_MIN_MTU		68
#define AXON_ETH_MAX_MTU		9000
#define AXON_ETH_HLEN			14
#define AXON_ETH_OVERHEAD		18 /* header and one VLAN tag */
#define AXON_ROCEV2_UDP_PORT		4791

/*
 * flags
 * 0:0 : done - written by the device when it is finished with the entry
 * 1:1 : error - TX: the frame was not sent; RX: the buffer was not
 *                writable, len is 0 and the frame was dropped
 */
#define AXON_ETH_DESC_DONE		0x1
#define AXON_ETH_DESC_ERROR		0x2

struct axon_eth_desc {
	__le64 addr;		/* DMA address of the buffer */
	__le16 buf_len;		/* TX: frame length; RX: buffer size */
	__le16 len;		/* RX: frame length, written by the device */
	__le16 flags;		/* AXON_ETH_DESC_*, written by the device */
	__le16 reserved;
};

#endif /* _UAPI_AXON_DEV_H */
