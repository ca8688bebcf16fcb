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

/**
 * DOC: uverbs ABI version
 *
 * ``AXON_UVERBS_ABI_VERSION`` is the driver's uverbs ABI version;
 * increment it on any incompatible change.
 */
#define AXON_UVERBS_ABI_VERSION 1

/**
 * DOC: fw_ver
 *
 * The 64-bit fw_ver of query_device (struct ib_uverbs_query_device_resp),
 * built by the driver from the device's ``AXON_REG_FW_VERSION``::
 *
 *   47:32 : major
 *   31:16 : minor
 *   15:0  : sub
 *
 * AXON_ABI_FW_VER(major, minor, sub) builds it;
 * AXON_ABI_FW_VER_GET_MAJOR(), AXON_ABI_FW_VER_GET_MINOR() and
 * AXON_ABI_FW_VER_GET_SUB() take it apart (the provider prints
 * major.minor.sub).
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

/**
 * struct axon_alloc_ucontext_req - GET_CONTEXT driver data
 * @comp_mask: none defined yet, must be 0
 * @reserved: must be 0
 */
struct axon_alloc_ucontext_req {
	__u32 comp_mask;
	__u32 reserved;
};

/**
 * struct axon_alloc_ucontext_resp - GET_CONTEXT driver response
 * @comp_mask: ``AXON_UCONTEXT_RESP_CLOCK`` when @clock_mmap_key is valid;
 *	``AXON_UCONTEXT_RESP_SQ_DBREC`` when create_qp takes
 *	``AXON_CREATE_QP_REQ_SQ_DBREC``
 * @max_inline: bytes of inline data per send WQE
 * @max_sge: SGEs per WQE
 * @max_qp_wr: WQEs per work queue
 * @max_cqe: CQEs per CQ
 * @reserved: 0
 * @db_mmap_key: the mmap() offset of the context's doorbell page (the
 *	``AXON_DB_*`` offsets), to map write-only
 * @clock_mmap_key: with ``AXON_UCONTEXT_RESP_CLOCK``: the mmap() offset of
 *	the device's clock page (``AXON_CLOCK_*``, see "Device clock" in
 *	<axon/axon_dev.h>), one page, to map read-only
 *
 * The device clock is the clock of completion timestamps; query_device
 * gives its rate (hca_core_clock, kHz) and width (timestamp_mask).
 */
struct axon_alloc_ucontext_resp {
	__u32 comp_mask;
	__u32 max_inline;
	__u32 max_sge;
	__u32 max_qp_wr;
	__u32 max_cqe;
	__u32 reserved;
	__aligned_u64 db_mmap_key;
	__aligned_u64 clock_mmap_key;
};

#define AXON_UCONTEXT_RESP_CLOCK	0x1
#define AXON_UCONTEXT_RESP_SQ_DBREC	0x2

/**
 * struct axon_alloc_pd_resp - ALLOC_PD driver response
 * @comp_mask: 0
 * @pdn: the device's PD number
 */
struct axon_alloc_pd_resp {
	__u32 comp_mask;
	__u32 pdn;
};

/**
 * DOC: Mapped queues
 *
 * Queues are allocated by the kernel and mapped into the process: mmap()
 * the context's device fd at ``*_mmap_key`` for ``*_size`` bytes. The
 * entry formats (&struct axon_send_wqe, &struct axon_recv_wqe, &struct
 * axon_cqe, &struct axon_cq_dbrec) are in <axon/axon_dev.h>.
 */

/**
 * struct axon_create_cq_resp - CREATE_CQ driver response
 * @comp_mask: 0
 * @cqn: the device's CQ number
 * @depth: CQEs in the ring, power of 2
 * @cqe_size: bytes per CQE: ``AXON_CQE_SIZE`` (&struct axon_cqe), or
 *	``AXON_CQE_TS_SIZE`` (&struct axon_cqe_ts) for a CQ created with
 *	the timestamp flag (IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION)
 * @cq_mmap_key: mmap() offset of the ring, followed by its &struct
 *	axon_cq_dbrec
 * @cq_size: bytes to map
 *
 * A resized CQ keeps its CQE size.
 */
struct axon_create_cq_resp {
	__u32 comp_mask;
	__u32 cqn;
	__u32 depth;
	__u32 cqe_size;
	__aligned_u64 cq_mmap_key;
	__aligned_u64 cq_size;
};

/**
 * struct axon_resize_cq_resp - RESIZE_CQ driver response
 * @comp_mask: 0
 * @depth: CQEs in the new ring, power of 2
 * @cq_mmap_key: mmap() offset of the new ring, followed by its &struct
 *	axon_cq_dbrec
 * @cq_size: bytes to map
 *
 * The CQ is on the new ring when the command returns: CQE indices carry
 * on there, and the consumer index record in the new ring holds the
 * consumer's index (see "Completion queues" in <axon/axon_dev.h>). The
 * process unmaps the old ring; the command takes no driver data.
 */
struct axon_resize_cq_resp {
	__u32 comp_mask;
	__u32 depth;
	__aligned_u64 cq_mmap_key;
	__aligned_u64 cq_size;
};

/**
 * enum axon_qp_driver_type - &axon_create_qp_req.driver_qp_type
 * @AXON_QP_DRIVER_TYPE_RUD: reliable unordered delivery (axondv.h)
 */
enum axon_qp_driver_type {
	AXON_QP_DRIVER_TYPE_RUD = 1,
};

/**
 * struct axon_create_qp_req - CREATE_QP driver data
 * @comp_mask: ``AXON_CREATE_QP_REQ_SQ_DBREC`` (with
 *	``AXON_UCONTEXT_RESP_SQ_DBREC``): give the send queue a doorbell
 *	record; no other bit is defined
 * @driver_qp_type: for an IB_QPT_DRIVER QP, its &enum axon_qp_driver_type;
 *	0 for any other type
 */
struct axon_create_qp_req {
	__u32 comp_mask;
	__u32 driver_qp_type;
};

#define AXON_CREATE_QP_REQ_SQ_DBREC	0x1

/**
 * struct axon_create_qp_resp - CREATE_QP driver response
 * @comp_mask: ``AXON_CREATE_QP_RESP_SQ_DBREC``: the send queue has a
 *	doorbell record, a &struct axon_sq_dbrec at byte @sq_depth <<
 *	@sq_wqe_shift of its mapping (see "Send queue doorbell records" in
 *	axon_io_defs.h, part of <axon/axon_dev.h>). The kernel gives one to
 *	a send queue ring under 1 MiB
 * @qpn: the device's QP number
 * @sq_depth: send WQEs, power of 2
 * @rq_depth: receive WQEs, power of 2; 0 for a QP on an SRQ
 * @sq_wqe_shift: log2 of the send WQE slot size
 * @rq_wqe_shift: log2 of the receive WQE slot size; 0 with an SRQ
 * @reserved: 0
 * @max_inline: inline bytes that fit one send slot
 * @sq_mmap_key: mmap() offset of the send queue
 * @sq_size: bytes to map at @sq_mmap_key
 * @rq_mmap_key: mmap() offset of the receive queue; 0 with an SRQ
 * @rq_size: bytes to map at @rq_mmap_key; 0 with an SRQ
 */
struct axon_create_qp_resp {
	__u32 comp_mask;
	__u32 qpn;
	__u32 sq_depth;
	__u32 rq_depth;
	__u8 sq_wqe_shift;
	__u8 rq_wqe_shift;
	__u8 reserved[2];
	__u32 max_inline;
	__aligned_u64 sq_mmap_key;
	__aligned_u64 sq_size;
	__aligned_u64 rq_mmap_key;
	__aligned_u64 rq_size;
};

#define AXON_CREATE_QP_RESP_SQ_DBREC	0x1

/**
 * DOC: RUD connection keys
 *
 * A RUD QP (``AXON_QP_DRIVER_TYPE_RUD``) has a 64-bit receive key that the
 * device draws at random whenever the QP leaves RESET, and every packet
 * sent to the QP must carry it. The key reaches the QP's owner only: in
 * the response to the modify_qp that takes the QP out of RESET
 * (&struct axon_modify_qp_resp), never through query_qp, netlink (rdma
 * res, axonctl) or sysfs. The owner hands it to the peer's owner out of
 * band, as it does the QPN, and each passes the other's key with the
 * modify_qp to RTR (&struct axon_modify_qp_req), which a RUD QP needs.
 * The provider's axondv_modify_qp() and axondv_query_qp() wrap both.
 *
 * modify_qp of a RUD QP goes through the extended command
 * (IB_USER_VERBS_EX_CMD_MODIFY_QP), whose driver response can carry the
 * key; one that would take the QP out of RESET with no room for the
 * response fails with EINVAL, before the device draws a key nobody would
 * learn.
 */

/**
 * struct axon_modify_qp_req - MODIFY_QP driver data
 * @comp_mask: ``AXON_MODIFY_QP_REQ_RUD_PEER_KEY``; unknown bits are
 *	EOPNOTSUPP
 * @reserved: 0
 * @rud_peer_key: with ``AXON_MODIFY_QP_REQ_RUD_PEER_KEY``: the peer RUD
 *	QP's key, which every packet this QP sends carries; not 0. A RUD QP
 *	takes it in the INIT -> RTR transition, and needs it there (EINVAL
 *	otherwise, as for any other QP or transition)
 *
 * A request shorter than the structure is zero-filled; bytes beyond it
 * must be 0.
 */
struct axon_modify_qp_req {
	__u32 comp_mask;
	__u32 reserved;
	__aligned_u64 rud_peer_key;
};

#define AXON_MODIFY_QP_REQ_RUD_PEER_KEY	0x1

/**
 * struct axon_modify_qp_resp - MODIFY_QP driver response
 * @comp_mask: ``AXON_MODIFY_QP_RESP_RUD_KEY`` when @rud_key is valid
 * @reserved: 0
 * @rud_key: with ``AXON_MODIFY_QP_RESP_RUD_KEY``: the RUD QP's new key,
 *	drawn as the QP left RESET in this call
 *
 * Written as far as the response buffer goes (none: nothing written).
 */
struct axon_modify_qp_resp {
	__u32 comp_mask;
	__u32 reserved;
	__aligned_u64 rud_key;
};

#define AXON_MODIFY_QP_RESP_RUD_KEY	0x1

/**
 * struct axon_create_srq_resp - CREATE_SRQ driver response
 * @comp_mask: 0
 * @srqn: the device's SRQ number
 * @depth: WQEs, power of 2
 * @wqe_shift: log2 of the WQE slot size
 * @reserved: 0
 * @srq_mmap_key: mmap() offset of the ring
 * @srq_size: bytes to map at @srq_mmap_key
 *
 * CREATE_SRQ takes no driver request. The process posts the SRQ's WQEs
 * and rings ``AXON_DB_SRQ`` on its doorbell page itself.
 */
struct axon_create_srq_resp {
	__u32 comp_mask;
	__u32 srqn;
	__u32 depth;
	__u8 wqe_shift;
	__u8 reserved[3];
	__aligned_u64 srq_mmap_key;
	__aligned_u64 srq_size;
};

/**
 * struct axon_create_ah_resp - CREATE_AH driver response
 * @comp_mask: 0
 * @dmac: the next hop's Ethernet address, resolved by the kernel
 * @reserved: 0
 *
 * CREATE_AH takes no driver request. An address handle is not a device
 * object: the provider keeps the address (the &struct axon_ud_av of
 * axon_io_defs.h, built from the ibv_ah_attr and @dmac) and writes it
 * into every UD send WQE, so posting needs no system call.
 */
struct axon_create_ah_resp {
	__u32 comp_mask;
	__u8 dmac[6];
	__u8 reserved[6];
};

#endif /* _UAPI_RDMA_AXON_ABI_H */
