/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axondv: direct verbs of the axon provider, for what standard verbs
 * cannot say. Today that is one QP type: RUD, reliable unordered
 * delivery (axondv_create_qp_ex(3)), and its connection keys
 * (axondv_modify_qp(3), axondv_query_qp(3)).
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
 * - Every packet carries the 64-bit key of the QP it is sent to, and a
 *   QP drops and counts (rdma statistic: rud_drops) every packet whose
 *   key is not its own, before it looks at anything else. The device
 *   draws a QP's key at random when the QP leaves RESET (so each
 *   connection has new keys); axondv_query_qp() gives it to the QP's
 *   owner, and nothing shows it to anyone else. Send it to the peer with
 *   the QPN and the PSN, over a channel a forger cannot read, and move
 *   the QP to RTR with axondv_modify_qp() and the peer's key: RTR
 *   without it fails with EINVAL.
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

/* axondv_modify_qp_attr.comp_mask */
enum axondv_modify_qp_attr_mask {
	AXONDV_MODIFY_QP_RUD_PEER_KEY = 1 << 0,
};

/* What ibv_modify_qp() cannot give a RUD QP. */
struct axondv_modify_qp_attr {
	uint64_t comp_mask;	/* enum axondv_modify_qp_attr_mask */
	uint64_t rud_peer_key;	/* the peer QP's key, not 0 */
};

/*
 * ibv_modify_qp() of a RUD QP, with dv_attr (inlen bytes of it, 0 for
 * none): the peer's key goes with the move from INIT to RTR, which
 * needs it, and with no other. Returns 0, or an errno value as
 * ibv_modify_qp() does: EOPNOTSUPP for a QP that is not a RUD QP of
 * this library, or an unknown comp_mask bit; EINVAL for a key of 0, a
 * key with another transition, RTR without one, inlen shorter than
 * comp_mask or bytes beyond this structure not 0.
 */
int axondv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		     int attr_mask, struct axondv_modify_qp_attr *dv_attr,
		     uint32_t inlen);

/* axondv_qp_attr.comp_mask: which fields are valid */
enum axondv_qp_attr_mask {
	AXONDV_QP_ATTR_RUD_KEY = 1 << 0,
};

struct axondv_qp_attr {
	uint64_t comp_mask;	/* enum axondv_qp_attr_mask */
	uint64_t rud_key;	/* the QP's key: the peer's rud_peer_key */
};

/*
 * A RUD QP's attributes of its own, into inlen bytes of attr: its key,
 * valid (AXONDV_QP_ATTR_RUD_KEY) once the QP left RESET, new each time it
 * does. Returns 0, or EOPNOTSUPP (not a RUD QP of this library), EINVAL
 * (inlen shorter than comp_mask).
 */
int axondv_query_qp(struct ibv_qp *qp, struct axondv_qp_attr *attr,
		    uint32_t inlen);

#ifdef __cplusplus
}
#endif

#endif /* __AXONDV_H__ */
