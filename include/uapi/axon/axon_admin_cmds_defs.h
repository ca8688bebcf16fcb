/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * axon-nic device interface, part of <axon/axon_dev.h>: the admin
 * commands (struct axon_admin_cmd and its bodies) and the responses they
 * write by DMA. The queue they travel on is in axon_admin_defs.h.
 */
#ifndef _UAPI_AXON_ADMIN_CMDS_DEFS_H
#define _UAPI_AXON_ADMIN_CMDS_DEFS_H

#include <linux/types.h>

/* struct axon_admin_cmd opcode; each command's body follows */
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
	AXON_ADMIN_CREATE_SRQ		= 16, /* AXON_CAP_SRQ; result: the srqn */
	AXON_ADMIN_MODIFY_SRQ		= 17, /* AXON_CAP_SRQ: arm the limit */
	AXON_ADMIN_QUERY_SRQ		= 18, /* AXON_CAP_SRQ; result: the limit */
	AXON_ADMIN_DESTROY_SRQ		= 19, /* AXON_CAP_SRQ */
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

#define AXON_KEY(index, tag) \
	((index) << AXON_KEY_INDEX_SHIFT | ((tag) & AXON_KEY_TAG_MASK))
#define AXON_KEY_GET_INDEX(key)		((key) >> AXON_KEY_INDEX_SHIFT)
#define AXON_KEY_GET_TAG(key)		((key) & AXON_KEY_TAG_MASK)

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

/* CREATE_CQ, DESTROY_CQ: the ring is described in axon_io_defs.h */
struct axon_admin_cq {
	__le64 ring_addr;	/* CREATE_CQ: 4 KiB aligned DMA address */
	__le32 depth;		/* CREATE_CQ: entries, power of 2 */
	__le32 uar;		/* CREATE_CQ: doorbell page that may arm it */
	__le32 cqn;		/* DESTROY_CQ */
	__u8 reserved[36];
};

/* CREATE_QP: the queues are described in axon_io_defs.h */
struct axon_admin_create_qp {
	__le32 pdn;
	__le32 send_cqn;
	__le32 recv_cqn;
	__le32 uar;		/* doorbell page allowed to ring it */
	__le64 sq_addr;		/* 4 KiB aligned */
	__le64 rq_addr;		/* 4 KiB aligned; 0 with an SRQ */
	__le16 sq_depth;	/* entries, power of 2, <= AXON_WQ_MAX_DEPTH */
	__le16 rq_depth;	/* 0 with an SRQ */
	__u8 sq_wqe_shift;
	__u8 rq_wqe_shift;	/* 0 with an SRQ */
	__u8 sq_sig_all;	/* 1: every WQE completes as if SIGNALED */
	__u8 reserved0;
	__le32 srqn;		/* AXON_CAP_SRQ: receive from this SRQ; 0: own RQ */
	__u8 reserved[12];
};

/*
 * CREATE_SRQ, MODIFY_SRQ, QUERY_SRQ, DESTROY_SRQ (AXON_CAP_SRQ). A shared
 * receive queue is a ring of receive WQEs like a QP's RQ (axon_io_defs.h),
 * rung at AXON_DB_SRQ; QPs created with its srqn take their receive WQEs
 * from it, one at a time in ring order, each when a message needs one.
 * The device copies a WQE when it takes it, so the consumer may reuse a
 * slot once fewer than depth of its WQEs are not completed. The SGEs'
 * lkeys are checked against the SRQ's PD.
 *
 * The limit (MODIFY_SRQ, or CREATE_SRQ's initial one): when it is not 0
 * and a QP takes a WQE that leaves fewer than limit in the ring, the
 * device posts AXON_EVENT_SRQ_LIMIT once and sets the limit to 0 (it must
 * be armed again). QUERY_SRQ returns the limit as its result. DESTROY_SRQ
 * fails with BUSY while a QP uses the SRQ.
 */
struct axon_admin_srq {
	__le64 ring_addr;	/* CREATE_SRQ: 4 KiB aligned */
	__le32 pdn;		/* CREATE_SRQ */
	__le32 uar;		/* CREATE_SRQ: doorbell page allowed to ring it */
	__le16 depth;		/* CREATE_SRQ: power of 2, <= AXON_WQ_MAX_DEPTH */
	__u8 wqe_shift;		/* CREATE_SRQ: AXON_RQ_MIN_WQE_SHIFT.. */
	__u8 reserved0;
	__le32 limit;		/* CREATE_SRQ, MODIFY_SRQ: < depth; 0: disarmed */
	__le32 srqn;		/* MODIFY_SRQ, QUERY_SRQ, DESTROY_SRQ */
	__u8 reserved[28];
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
	__le32 dest_qpn;	/* 24 bits: AXON_QPN_MASK */
	__le32 rq_psn;		/* 24 bits: AXON_PSN_MASK */
	__le32 sq_psn;		/* 24 bits: AXON_PSN_MASK */
	__le32 path_mtu;	/* bytes: 256, 512, 1024, 2048 or 4096 */
	__u8 dmac[6];
	__u8 sgid_index;	/* into the port's GID table */
	__u8 hop_limit;
	__u8 dgid[16];		/* network order; IPv4 as ::ffff:a.b.c.d */
	__le32 flow_label;	/* 20 bits: AXON_FLOW_LABEL_MASK */
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

/*
 * Widths of the QP attributes that travel in packet headers (BTH, GRH),
 * also of the QPNs and PSNs the transport computes modulo 2^24. MODIFY_QP
 * fails with BAD_PARAM for a wider value.
 */
#define AXON_QPN_MASK			0xffffff
#define AXON_PSN_MASK			0xffffff
#define AXON_FLOW_LABEL_MASK		0xfffff

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
		struct axon_admin_srq srq;
		__u8 raw[56];
	};
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
	__le16 max_srq_sge;	/* AXON_CAP_SRQ */
	__le32 max_srq;		/* AXON_CAP_SRQ */
	__le32 max_srq_wr;	/* AXON_CAP_SRQ */
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

#endif /* _UAPI_AXON_ADMIN_CMDS_DEFS_H */
