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
#define AXON_DEV_VERSION_MINOR		4

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
#define AXON_CAP_RDMA			0x8 /* MR, CQ, RC QP, doorbells, CEQ */
#define AXON_CAP_PEER_MR		0x10 /* INVALIDATE_MR, REMAP_MR, peer pages */

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
	AXON_ADMIN_CREATE_MR		= 6, /* result: the key (lkey == rkey) */
	AXON_ADMIN_DESTROY_MR		= 7,
	AXON_ADMIN_CREATE_CQ		= 8, /* result: the cqn */
	AXON_ADMIN_DESTROY_CQ		= 9,
	AXON_ADMIN_CREATE_QP		= 10, /* result: the qpn */
	AXON_ADMIN_MODIFY_QP		= 11,
	AXON_ADMIN_QUERY_QP		= 12, /* response: struct axon_qp_attr */
	AXON_ADMIN_DESTROY_QP		= 13,
	AXON_ADMIN_INVALIDATE_MR	= 14, /* AXON_CAP_PEER_MR */
	AXON_ADMIN_REMAP_MR		= 15, /* AXON_CAP_PEER_MR */
};

enum axon_admin_status {
	AXON_ADMIN_SUCCESS		= 0,
	AXON_ADMIN_BAD_OPCODE		= 1, /* unknown opcode */
	AXON_ADMIN_BAD_PARAM		= 2, /* reserved bits set, bad value */
	AXON_ADMIN_DMA_ERROR		= 3, /* response buffer not reachable */
	AXON_ADMIN_NO_RESOURCES		= 4, /* object table full */
	AXON_ADMIN_BAD_HANDLE		= 5, /* no such object */
	AXON_ADMIN_BUSY			= 6, /* object still in use */
	AXON_ADMIN_BAD_STATE		= 7, /* QP transition not allowed */
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

/* Access rights of an MR and a QP's remote access: enum ib_access_flags bits */
#define AXON_ACCESS_LOCAL_WRITE		0x1
#define AXON_ACCESS_REMOTE_WRITE	0x2
#define AXON_ACCESS_REMOTE_READ		0x4
#define AXON_ACCESS_REMOTE_ATOMIC	0x8
#define AXON_ACCESS_ALL			0xf

/*
 * Page lists. An MR is a virtually contiguous range [iova, iova + length)
 * backed by npages pages of 2^page_shift bytes; the range starts at byte
 * (iova & (2^page_shift - 1)) of the first page. Entries are the DMA
 * (bus) addresses of the pages, 2^page_shift aligned, as __le64.
 *  levels 1: pbl_addr is a contiguous array of npages entries.
 *  levels 2: pbl_addr is a contiguous array of DIV_ROUND_UP(npages, 512)
 *            pointers to 4 KiB leaf pages of 512 entries each.
 * The device copies the list at CREATE_MR; the driver may free it after
 * the completion.
 *
 * Pages may be any bus address the device can reach, including another
 * PCI device's BAR (peer to peer: a dma-buf MR on GPU memory). For such
 * MRs the exporter may move the memory, so with AXON_CAP_PEER_MR:
 *  INVALIDATE_MR (key): from its completion on, the device no longer
 *    touches the MR's pages. The key stays allocated; every access
 *    through it fails as if out of bounds: a local access completes with
 *    AXON_WC_LOC_PROT_ERR, a remote one is NAKed (remote access error)
 *    and the requester completes with AXON_WC_REM_ACCESS_ERR; both move
 *    the QP to ERR. Counted in AXON_REG_STAT_MR_INVALID. Invalidating an
 *    invalid MR succeeds.
 *  REMAP_MR (key, pbl_addr, npages, page_shift, levels): gives a valid
 *    or invalidated MR a new page list for the same [iova, iova + length)
 *    and makes it valid. pdn, access, iova and length must be 0 (the
 *    MR's own are kept); BAD_PARAM if the list does not cover the range.
 * Both return BAD_HANDLE for an unknown key.
 */
#define AXON_PBL_LEAF_ENTRIES		512
#define AXON_MR_MIN_PAGE_SHIFT		12
#define AXON_MR_MAX_PAGE_SHIFT		30
#define AXON_MR_MAX_PAGES		0x1000000 /* 2^24 */

/*
 * Keys: 31:8 : index - the MR's slot in the device
 *        7:0 : tag - drawn at random at every registration, never the
 *              slot's previous tag, so a key of a deregistered MR fails
 *              even when its slot is taken again.
 * The device chooses the key (the slot too, at random among the free
 * ones), so one valid key tells nothing of another; the driver only
 * passes it back.
 */
#define AXON_KEY_TAG_MASK		0xff
#define AXON_KEY_INDEX_SHIFT		8

struct axon_admin_mr {
	__le32 pdn;		/* CREATE_MR */
	__le32 access;		/* CREATE_MR: AXON_ACCESS_* */
	__le64 iova;		/* CREATE_MR: first byte's virtual address */
	__le64 length;		/* CREATE_MR: bytes, may be 0 */
	__le64 pbl_addr;	/* CREATE_MR, REMAP_MR: DMA address of the page list */
	__le32 npages;		/* CREATE_MR, REMAP_MR: <= AXON_MR_MAX_PAGES */
	__u8 page_shift;	/* CREATE_MR, REMAP_MR: AXON_MR_{MIN,MAX}_PAGE_SHIFT */
	__u8 levels;		/* CREATE_MR, REMAP_MR: 1 or 2 */
	__le16 reserved0;
	__le32 key;		/* DESTROY_MR, INVALIDATE_MR, REMAP_MR */
	__u8 reserved[12];
};

/*
 * Completion queues. A CQ is a contiguous ring of depth 32-byte CQEs
 * (struct axon_cqe) followed, at byte depth * 32, by a struct
 * axon_cq_dbrec where the consumer writes its index. The device writes a
 * CQE only if (producer - dbrec.cons_index) < depth; otherwise the CQ
 * overflowed: the device stops writing to it and posts
 * AXON_EVENT_CQ_ERROR.
 */
#define AXON_CQE_SIZE			32
#define AXON_CQ_MIN_DEPTH		2
#define AXON_CQ_MAX_DEPTH		65536

struct axon_admin_cq {
	__le64 ring_addr;	/* CREATE_CQ: 4 KiB aligned DMA address */
	__le32 depth;		/* CREATE_CQ: entries, power of 2 */
	__le32 uar;		/* CREATE_CQ: doorbell page that may arm it */
	__le32 cqn;		/* DESTROY_CQ */
	__u8 reserved[36];
};

/*
 * Queue pairs (RC only). The send and receive queues are contiguous
 * rings of depth WQEs of 2^wqe_shift bytes. The device consumes the send
 * queue up to the producer index written to the SQ doorbell and the
 * receive queue up to the RQ doorbell's; both are free-running 16-bit
 * counters, so depth is at most 32768. No SRQ yet.
 */
#define AXON_WQ_MIN_DEPTH		1
#define AXON_WQ_MAX_DEPTH		32768
#define AXON_SQ_MIN_WQE_SHIFT		6	/* 64 bytes: a header, no SGE */
#define AXON_RQ_MIN_WQE_SHIFT		5	/* 32 bytes: a header and one SGE */
#define AXON_WQE_MAX_SHIFT		12
#define AXON_MAX_SGE			16
#define AXON_MAX_INLINE			256
#define AXON_MAX_RD_ATOMIC		16	/* outstanding READ/atomic, each way */
#define AXON_MAX_MSG_SIZE		0x80000000 /* 2 GiB */

struct axon_admin_create_qp {
	__le32 pdn;
	__le32 send_cqn;
	__le32 recv_cqn;
	__le32 uar;		/* doorbell page allowed to ring it */
	__le64 sq_addr;		/* 4 KiB aligned */
	__le64 rq_addr;		/* 4 KiB aligned */
	__le16 sq_depth;	/* entries, power of 2, <= AXON_WQ_MAX_DEPTH */
	__le16 rq_depth;
	__u8 sq_wqe_shift;
	__u8 rq_wqe_shift;
	__u8 sq_sig_all;	/* 1: every WQE completes as if SIGNALED */
	__u8 reserved0;
	__u8 reserved[16];
};

/* MODIFY_QP attr_mask: which fields of struct axon_qp_attr apply. */
#define AXON_QP_ATTR_STATE		0x00001
#define AXON_QP_ATTR_ACCESS		0x00002
/* PATH: dmac, dgid, sgid_index, hop_limit, tclass, flow_label, udp_sport */
#define AXON_QP_ATTR_PATH		0x00004
#define AXON_QP_ATTR_PATH_MTU		0x00008
#define AXON_QP_ATTR_DEST_QPN		0x00010
#define AXON_QP_ATTR_RQ_PSN		0x00020
#define AXON_QP_ATTR_SQ_PSN		0x00040
#define AXON_QP_ATTR_TIMEOUT		0x00080
#define AXON_QP_ATTR_RETRY_CNT		0x00100
#define AXON_QP_ATTR_RNR_RETRY		0x00200
#define AXON_QP_ATTR_MIN_RNR_TIMER	0x00400
#define AXON_QP_ATTR_MAX_RD_ATOMIC	0x00800
#define AXON_QP_ATTR_MAX_DEST_RD_ATOMIC	0x01000
#define AXON_QP_ATTR_ALL		0x01fff

/* QP states, numbered as enum ib_qp_state */
enum axon_qp_state {
	AXON_QPS_RESET	= 0,
	AXON_QPS_INIT	= 1,
	AXON_QPS_RTR	= 2,
	AXON_QPS_RTS	= 3,
	AXON_QPS_SQD	= 4,
	AXON_QPS_SQE	= 5,
	AXON_QPS_ERR	= 6,
};

/*
 * The QP attributes MODIFY_QP writes (under attr_mask) and QUERY_QP
 * returns. Allowed transitions: any -> RESET, any -> ERR, RESET -> INIT,
 * INIT -> INIT, INIT -> RTR (needs PATH, PATH_MTU, DEST_QPN, RQ_PSN),
 * RTR -> RTS (needs SQ_PSN), RTS -> RTS, SQE -> RTS (SQD is not
 * supported: BAD_STATE). Moving to ERR
 * flushes both queues with AXON_WC_WR_FLUSH_ERR; moving to RESET
 * forgets all queue state.
 */
struct axon_qp_attr {
	__le32 state;		/* enum axon_qp_state */
	__le32 access;		/* AXON_ACCESS_REMOTE_* accepted as responder */
	__le32 dest_qpn;
	__le32 rq_psn;		/* 24 bits */
	__le32 sq_psn;		/* 24 bits */
	__le32 path_mtu;	/* bytes: 256, 512, 1024, 2048 or 4096 */
	__u8 dmac[6];
	__u8 sgid_index;	/* into the port's GID table */
	__u8 hop_limit;
	__u8 dgid[16];		/* network order; IPv4 as ::ffff:a.b.c.d */
	__le32 flow_label;	/* 20 bits */
	__le16 udp_sport;	/* RoCEv2 UDP source port, host order value */
	__u8 tclass;
	__u8 timeout;		/* local ACK timeout: 4.096 us * 2^timeout, 0: none */
	__u8 retry_cnt;		/* 0..7 */
	__u8 rnr_retry;		/* 0..7, 7: infinite */
	__u8 min_rnr_timer;	/* IB encoding, 0..31 */
	__u8 max_rd_atomic;	/* <= AXON_MAX_RD_ATOMIC */
	__u8 max_dest_rd_atomic;
	__u8 reserved[19];	/* the struct is 80 bytes */
};

struct axon_admin_modify_qp {
	__le32 qpn;		/* MODIFY_QP, QUERY_QP, DESTROY_QP */
	__le32 attr_mask;	/* MODIFY_QP: AXON_QP_ATTR_* */
	/* MODIFY_QP: DMA address of a struct axon_qp_attr; QUERY_QP: where to write it */
	__le64 attr_addr;
	__u8 reserved[40];
};

struct axon_admin_cmd {
	__le16 opcode;		/* enum axon_admin_opcode */
	__le16 command_id;	/* echoed in the completion */
	__le32 flags;		/* reserved, must be 0 */
	union {
		struct axon_admin_query query;
		struct axon_admin_pd pd;
		struct axon_admin_gid gid;
		struct axon_admin_mr mr;
		struct axon_admin_cq cq;
		struct axon_admin_create_qp create_qp;
		struct axon_admin_modify_qp qp;
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
	AXON_EVENT_CQ_ERROR	= 4, /* param: cqn; the CQ overflowed */
	AXON_EVENT_QP_FATAL	= 5, /* param: qpn; local error, QP in ERR */
	AXON_EVENT_QP_REQ_ERR	= 6, /* param: qpn; peer sent an invalid request */
	AXON_EVENT_QP_ACCESS_ERR = 7, /* param: qpn; remote access violation */
	AXON_EVENT_COMM_EST	= 8, /* param: qpn; first packet received in RTR */
	AXON_EVENT_COMPLETION	= 16, /* CEQ only. param: cqn */
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

/*
 * Completion event queue (CEQ): same ring and phase convention as the
 * async event queue, on AXON_MSIX_COMP. A CQ armed through its doorbell
 * (AXON_DB_CQ_ARM) gets one AXON_EVENT_COMPLETION for the next CQE (ARM
 * NEXT) or the next solicited or error CQE (ARM SOLICITED); then it is
 * disarmed. With one event per arm the ring cannot overflow when its
 * depth is at least max_cq.
 */

/*
 * Doorbell pages (BAR AXON_BAR_DB, AXON_REG_DB_PAGES pages of 4 KiB).
 * Page 0 belongs to the kernel; the driver maps one other page into each
 * user context. A QP or CQ created with uar = N only accepts doorbells
 * written to page N; others are ignored and counted in
 * AXON_REG_STAT_DB_REJECTS. Each doorbell is one 32-bit write:
 *   31:16 : qpn or cqn
 *   15:0  : SQ/RQ: the new producer index (free running, mod 2^16)
 *           CQ_ARM: AXON_CQ_ARM_NEXT or AXON_CQ_ARM_SOLICITED
 */
#define AXON_DB_PAGE_SIZE		4096
#define AXON_DB_SQ			0x00
#define AXON_DB_RQ			0x04
#define AXON_DB_CQ_ARM			0x08
#define AXON_DB_ID_SHIFT		16
#define AXON_DB_VALUE_MASK		0xffff
#define AXON_CQ_ARM_NEXT		1
#define AXON_CQ_ARM_SOLICITED		2
#define AXON_MAX_QPN			0xffff	/* qpn 0 and 1 are never used */
#define AXON_MAX_CQN			0xffff

/*
 * Work requests. A send WQE is a 64-byte header followed by num_sge
 * scatter/gather entries, or by inline_len bytes of payload when
 * AXON_WQE_INLINE is set. A receive WQE is a 16-byte header followed by
 * num_sge entries. A WQE never crosses its 2^wqe_shift slot.
 */
enum axon_wr_opcode {
	AXON_WR_RDMA_WRITE		= 0,
	AXON_WR_RDMA_WRITE_IMM		= 1,
	AXON_WR_SEND			= 2,
	AXON_WR_SEND_IMM		= 3,
	AXON_WR_RDMA_READ		= 4,
	AXON_WR_ATOMIC_CMP_SWP		= 5,
	AXON_WR_ATOMIC_FETCH_ADD	= 6,
};

#define AXON_WQE_SIGNALED		0x01 /* write a CQE on success */
#define AXON_WQE_SOLICITED		0x02 /* set SE on the last packet */
#define AXON_WQE_FENCE			0x04 /* wait for prior READ/atomics */
#define AXON_WQE_INLINE			0x08 /* payload follows the header */

struct axon_sge {
	__le64 addr;
	__le32 length;
	__le32 lkey;
};

struct axon_send_wqe {
	__u8 opcode;		/* enum axon_wr_opcode */
	__u8 flags;		/* AXON_WQE_* */
	__u8 num_sge;		/* <= AXON_MAX_SGE; 0 with INLINE */
	__u8 reserved0;
	__be32 imm_data;	/* *_IMM: as given to ibv_post_send */
	__le64 wr_id;		/* returned in the CQE */
	__le64 remote_addr;	/* WRITE, READ, atomics (8-byte aligned) */
	__le32 rkey;
	__le32 inline_len;	/* INLINE: bytes, <= AXON_MAX_INLINE */
	__le64 compare_add;	/* CMP_SWP: compare; FETCH_ADD: add */
	__le64 swap;		/* CMP_SWP */
	__u8 reserved[16];
	/* struct axon_sge sge[num_sge] or inline payload */
};

struct axon_recv_wqe {
	__le64 wr_id;
	__u8 num_sge;		/* <= AXON_MAX_SGE */
	__u8 reserved[7];
	/* struct axon_sge sge[num_sge] */
};

/* CQE status, numbered as enum ib_wc_status */
enum axon_wc_status {
	AXON_WC_SUCCESS			= 0,
	AXON_WC_LOC_LEN_ERR		= 1,
	AXON_WC_LOC_QP_OP_ERR		= 2,
	AXON_WC_LOC_PROT_ERR		= 4,
	AXON_WC_WR_FLUSH_ERR		= 5,
	AXON_WC_BAD_RESP_ERR		= 7,
	AXON_WC_LOC_ACCESS_ERR		= 8,
	AXON_WC_REM_INV_REQ_ERR		= 9,
	AXON_WC_REM_ACCESS_ERR		= 10,
	AXON_WC_REM_OP_ERR		= 11,
	AXON_WC_RETRY_EXC_ERR		= 12,
	AXON_WC_RNR_RETRY_EXC_ERR	= 13,
	AXON_WC_FATAL_ERR		= 19,
	AXON_WC_GENERAL_ERR		= 21,
};

/* CQE opcode, numbered as enum ib_wc_opcode */
enum axon_wc_opcode {
	AXON_WC_SEND			= 0,
	AXON_WC_RDMA_WRITE		= 1,
	AXON_WC_RDMA_READ		= 2,
	AXON_WC_COMP_SWAP		= 3,
	AXON_WC_FETCH_ADD		= 4,
	AXON_WC_RECV			= 128,
	AXON_WC_RECV_RDMA_WITH_IMM	= 129,
};

/*
 * flags
 * 0:0 : phase - ring pass of this entry (first pass writes 1)
 * 1:1 : with_imm - imm_data is valid
 * 2:2 : recv - the CQE completes a receive WQE (else a send WQE)
 * 3:3 : solicited - the received message had SE set
 */
#define AXON_CQE_PHASE			0x1
#define AXON_CQE_WITH_IMM		0x2
#define AXON_CQE_RECV			0x4
#define AXON_CQE_SOLICITED		0x8

struct axon_cqe {
	__le64 wr_id;
	__le32 byte_len;	/* RECV: bytes received */
	__be32 imm_data;
	__le32 qpn;		/* local QP */
	__le16 wqe_index;	/* the WQE's producer index, mod 2^16 */
	__u8 opcode;		/* enum axon_wc_opcode */
	__u8 status;		/* enum axon_wc_status */
	__u8 flags;		/* AXON_CQE_* */
	__u8 vendor_err;
	__u8 reserved[6];	/* the CQE is AXON_CQE_SIZE bytes */
};

/*
 * The consumer index record after the CQ ring. The consumer writes the
 * number of CQEs it has consumed (free running, mod 2^32).
 */
struct axon_cq_dbrec {
	__le32 cons_index;
	__le32 reserved;
};

#endif /* _UAPI_AXON_DEV_H */
