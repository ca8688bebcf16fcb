/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * axon-nic device interface, part of <axon/axon_dev.h>: what the data
 * path exchanges, also from userspace (the provider maps these queues and
 * its doorbell page): doorbell words, completion queues and CQEs, send and
 * receive queues and their WQEs and SGEs.
 */
#ifndef _UAPI_AXON_IO_DEFS_H
#define _UAPI_AXON_IO_DEFS_H

#include <linux/types.h>

/*
 * Doorbell pages (BAR AXON_BAR_DB, AXON_REG_DB_PAGES pages of 4 KiB).
 * Page 0 belongs to the kernel; the driver maps one other page into each
 * user context. A QP or CQ created with uar = N only accepts doorbells
 * written to page N; others are ignored and counted in
 * AXON_REG_STAT_DB_REJECTS. Each doorbell is one 32-bit write of
 * AXON_DB_WORD(id, value) at AXON_DB_SQ, AXON_DB_RQ or AXON_DB_CQ_ARM:
 *   31:16 : id - the qpn or cqn
 *   15:0 : value - SQ/RQ: the new producer index (free running, mod 2^16)
 *          CQ_ARM: AXON_CQ_ARM_NEXT or AXON_CQ_ARM_SOLICITED
 */
#define AXON_DB_PAGE_SIZE		4096
#define AXON_DB_SQ			0x00
#define AXON_DB_RQ			0x04
#define AXON_DB_CQ_ARM			0x08
#define AXON_DB_ID_SHIFT		16
#define AXON_DB_VALUE_MASK		0xffff
#define AXON_DB_WORD(id, value) \
	((id) << AXON_DB_ID_SHIFT | ((value) & AXON_DB_VALUE_MASK))
#define AXON_DB_GET_ID(db)		((db) >> AXON_DB_ID_SHIFT)
#define AXON_DB_GET_VALUE(db)		((db) & AXON_DB_VALUE_MASK)
#define AXON_CQ_ARM_NEXT		1
#define AXON_CQ_ARM_SOLICITED		2
#define AXON_MAX_QPN			0xffff	/* qpn 0 and 1 are never used */
#define AXON_MAX_CQN			0xffff

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
 * number of CQEs it has consumed (free running, mod 2^32). The driver
 * sets AXON_CQ_DBREC_DEAD in flags when the device failed or is going
 * away (removal, hot-unplug): no CQE will ever come again, and a process
 * polling an empty ring learns so without a system call. The device
 * never reads or writes flags.
 */
struct axon_cq_dbrec {
	__le32 cons_index;
	__le32 flags;		/* AXON_CQ_DBREC_*, written by the driver */
};

#define AXON_CQ_DBREC_DEAD		0x1

#endif /* _UAPI_AXON_IO_DEFS_H */
