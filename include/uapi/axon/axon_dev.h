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
#define AXON_DEV_VERSION_MINOR		0

/* BARs */
#define AXON_BAR_REGS			0 /* registers below, 4 KiB */
#define AXON_BAR_MSIX			2 /* MSI-X table and PBA */
#define AXON_REGS_SIZE			0x1000

/* MSI-X vectors */
enum axon_msix_vector {
	AXON_MSIX_ADMIN		= 0, /* admin completion queue */
	AXON_MSIX_ASYNC		= 1, /* async event queue */
	AXON_MSIX_NUM_VECTORS	= 2,
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
};

/* Ring depth limits, in entries, for the admin and event queues. */
#define AXON_QUEUE_MIN_DEPTH		2
#define AXON_QUEUE_MAX_DEPTH		4096
#define AXON_QUEUE_ALIGN		4096

/* AXON_REG_CAPS */
#define AXON_CAP_ADMIN_QUEUE		0x1
#define AXON_CAP_ASYNC_EVENTS		0x2

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

struct axon_admin_cmd {
	__le16 opcode;		/* enum axon_admin_opcode */
	__le16 command_id;	/* echoed in the completion */
	__le32 flags;		/* reserved, must be 0 */
	union {
		struct axon_admin_query query;
		struct axon_admin_pd pd;
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

#endif /* _UAPI_AXON_DEV_H */
