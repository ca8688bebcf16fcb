/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axondv: direct verbs of the axon provider, for what standard verbs
 * cannot say. Today that is one QP type: RUD, reliable unordered
 * delivery (axondv_create_qp_ex(3)).
 *
 * Link with the provider itself, the file libibverbs loads:
 * -L<dir> -l:libaxon-rdmav34.so -Wl,-rpath,<dir>, after -libverbs
 * (<dir>: the directory its driver file in /etc/libibverbs.d names).
 */
#ifndef __AXONDV_H__
#define __AXONDV_H__

#include <stdint.h>
#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* axondv_qp_init_attr.driver_qp_type */
enum axondv_qp_driver_type {
	AXONDV_QP_DRIVER_TYPE_RUD = 1,
};

/*
 * A RUD QP: created with qp_type IBV_QPT_DRIVER and this driver type,
 * then connected to one peer RUD QP exactly as an RC QP is
 * (ibv_modify_qp() with RC's attributes: INIT, RTR, RTS). What it
 * promises and what it does not:
 *
 * - Send opcodes: IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
 *   IBV_WR_RDMA_WRITE_WITH_IMM and IBV_WR_RDMA_READ; anything else is
 *   EINVAL from ibv_post_send(), with *bad_wr set.
 * - Each packet carries its own placement and may take any plane, so
 *   packets arrive in any order. A receive completion (SEND,
 *   RDMA_WRITE_WITH_IMM) is written only once every byte of its message
 *   is placed; a send completion only once the peer has placed every
 *   byte (a READ: once the whole response is placed here).
 * - Messages are not ordered with each other: a later message may be
 *   placed, and complete at the receiver, before an earlier one. A work
 *   request with IBV_SEND_FENCE is not begun until every earlier one on
 *   its QP has completed, so a notification posted with the fence never
 *   overtakes the data before it.
 * - Send completions are in posting order. Receive WQEs are taken in
 *   the order messages begin to arrive, and complete in the order the
 *   messages complete; use wr_id, not position, to tell them apart.
 * - A message that finds no receive WQE is retried by the sender later;
 *   a packet lost (retry_cnt + 1) times in a row fails its work request
 *   with IBV_WC_RETRY_EXC_ERR.
 * - Remote access errors complete with IBV_WC_REM_ACCESS_ERR (a SEND
 *   longer than the receive: IBV_WC_REM_INV_REQ_ERR) and move the
 *   sender's QP to the error state; the receiver's stays in RTS.
 * - The initial PSNs must be random: every packet carries a token
 *   derived from its sender's initial PSN, and the receiver drops those
 *   whose token is not its peer's.
 */
struct axondv_qp_init_attr {
	uint64_t comp_mask;		/* none defined yet: 0 */
	uint32_t driver_qp_type;	/* enum axondv_qp_driver_type */
	uint8_t reserved[4];		/* 0 */
};

/*
 * Create a QP of a driver type. attr_ex is ibv_create_qp_ex()'s, with
 * qp_type IBV_QPT_DRIVER; inlen is sizeof(*axondv_attr). Returns NULL
 * with errno: EOPNOTSUPP for a device or kernel without the type, or an
 * unknown driver_qp_type or comp_mask bit; EINVAL for non-zero reserved
 * bytes or attr_ex that ibv_create_qp_ex() would refuse.
 */
struct ibv_qp *axondv_create_qp_ex(struct ibv_context *ibvctx,
				   struct ibv_qp_init_attr_ex *attr_ex,
				   struct axondv_qp_init_attr *axondv_attr,
				   uint32_t inlen);

#ifdef __cplusplus
}
#endif

#endif /* __AXONDV_H__ */
