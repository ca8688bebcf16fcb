/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * axon-nic device interface, part of <axon/axon_dev.h>: the admin queue
 * protocol (ring, completions, status), the async event queue and the
 * completion event queue. The commands are in axon_admin_cmds_defs.h.
 */
#ifndef _UAPI_AXON_ADMIN_DEFS_H
#define _UAPI_AXON_ADMIN_DEFS_H

#include <linux/types.h>

/*
 * Admin queue.
 *
 * The driver writes a 64-byte command (struct axon_admin_cmd, in
 * axon_admin_cmds_defs.h) at the SQ tail and writes the new tail to
 * AXON_REG_AQ_SQ_TAIL. The device executes commands in order and writes
 * one 16-byte completion per command to the CQ, flipping the phase bit on
 * every pass over the ring (the first pass writes phase 1), then raises
 * AXON_MSIX_ADMIN. Results larger than the completion are written by DMA
 * to the command's response buffer.
 */
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
	AXON_EVENT_SRQ_LIMIT	= 9, /* param: srqn; fewer WQEs than its limit */
	AXON_EVENT_QP_LAST_WQE	= 10, /* param: qpn; in ERR, takes no more from its SRQ */
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
 * Completion event queue (CEQ): same ring and phase convention as the
 * async event queue, on AXON_MSIX_COMP. A CQ armed through its doorbell
 * (AXON_DB_CQ_ARM) gets one AXON_EVENT_COMPLETION for the next CQE (ARM
 * NEXT) or the next solicited or error CQE (ARM SOLICITED); then it is
 * disarmed. With one event per arm the ring cannot overflow when its
 * depth is at least max_cq.
 */

#endif /* _UAPI_AXON_ADMIN_DEFS_H */
