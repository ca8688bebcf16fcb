/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * axon uverbs ABI: the driver-specific udata exchanged between axon.ko and
 * the libibverbs provider (libaxon-rdmav34.so).
 *
 * Structs are 8-byte aligned and grow at the end. comp_mask says which
 * optional fields are valid; the kernel rejects unknown comp_mask bits and
 * non-zero reserved fields in requests.
 */
#ifndef _UAPI_RDMA_AXON_ABI_H
#define _UAPI_RDMA_AXON_ABI_H

#include <linux/types.h>

/* Increment on any incompatible change. */
#define AXON_UVERBS_ABI_VERSION 1

/*
 * The fw_ver of query_device (struct ib_uverbs_query_device_resp), built
 * by the driver from the device's AXON_REG_FW_VERSION:
 * 47:32 : major
 * 31:16 : minor
 * 15:0 : sub
 */
#define AXON_ABI_FW_VER_MAJOR_SHIFT	32
#define AXON_ABI_FW_VER_MINOR_SHIFT	16
#define AXON_ABI_FW_VER_FIELD_MASK	0xffff

#define AXON_ABI_FW_VER(major, minor, sub) \
	((__u64)(major) << AXON_ABI_FW_VER_MAJOR_SHIFT | \
	 (__u64)((minor) & AXON_ABI_FW_VER_FIELD_MASK) << \
		AXON_ABI_FW_VER_MINOR_SHIFT | \
	 ((sub) & AXON_ABI_FW_VER_FIELD_MASK))
#define AXON_ABI_FW_VER_GET_MAJOR(v) \
	(((v) >> AXON_ABI_FW_VER_MAJOR_SHIFT) & AXON_ABI_FW_VER_FIELD_MASK)
#define AXON_ABI_FW_VER_GET_MINOR(v) \
	(((v) >> AXON_ABI_FW_VER_MINOR_SHIFT) & AXON_ABI_FW_VER_FIELD_MASK)
#define AXON_ABI_FW_VER_GET_SUB(v)	((v) & AXON_ABI_FW_VER_FIELD_MASK)

struct axon_alloc_ucontext_req {
	__u32 comp_mask;	/* none defined yet, must be 0 */
	__u32 reserved;
};

struct axon_alloc_ucontext_resp {
	__u32 comp_mask;
	__u32 max_inline;	/* bytes of inline data per send WQE */
	__u32 max_sge;
	__u32 max_qp_wr;
	__u32 max_cqe;
	__u32 reserved;
	/* the context's doorbell page (AXON_DB_* offsets), mmap() offset */
	__aligned_u64 db_mmap_key;
};

struct axon_alloc_pd_resp {
	__u32 comp_mask;
	__u32 pdn;		/* the device's PD number */
};

/*
 * Queues are allocated by the kernel and mapped into the process: mmap()
 * the context's device fd at *_mmap_key for *_size bytes. Entry formats
 * (struct axon_send_wqe, axon_recv_wqe, axon_cqe, axon_cq_dbrec) are in
 * <axon/axon_dev.h>.
 */
struct axon_create_cq_resp {
	__u32 comp_mask;
	__u32 cqn;
	__u32 depth;		/* CQEs in the ring, power of 2 */
	__u32 reserved;
	__aligned_u64 cq_mmap_key;	/* the ring, then struct axon_cq_dbrec */
	__aligned_u64 cq_size;	/* bytes to map */
};

struct axon_create_qp_req {
	__u32 comp_mask;	/* none defined yet, must be 0 */
	__u32 reserved;
};

struct axon_create_qp_resp {
	__u32 comp_mask;
	__u32 qpn;
	__u32 sq_depth;		/* WQEs, power of 2 */
	__u32 rq_depth;
	__u8 sq_wqe_shift;	/* log2 of the WQE slot size */
	__u8 rq_wqe_shift;
	__u8 reserved[2];
	__u32 max_inline;	/* inline bytes that fit one SQ slot */
	__aligned_u64 sq_mmap_key;
	__aligned_u64 sq_size;
	__aligned_u64 rq_mmap_key;
	__aligned_u64 rq_size;
};

/*
 * create_srq takes no driver request. The ring is mapped like a QP's RQ;
 * the process posts its WQEs and rings AXON_DB_SRQ on its doorbell page.
 */
struct axon_create_srq_resp {
	__u32 comp_mask;
	__u32 srqn;
	__u32 depth;		/* WQEs, power of 2 */
	__u8 wqe_shift;		/* log2 of the WQE slot size */
	__u8 reserved[3];
	__aligned_u64 srq_mmap_key;
	__aligned_u64 srq_size;
};

#endif /* _UAPI_RDMA_AXON_ABI_H */
