/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * axon-nic device interface, part of <axon/axon_dev.h>: the admin queue
 * protocol (ring, completions, status), the async event queue and the
 * completion event queue. The commands are in axon_admin_cmds_defs.h.
 */
#ifndef _UAPI_AXON_ADMIN_DEFS_H
#define _UAPI_AXON_ADMIN_DEFS_H

#include <linux/types.h>

/**
 * DOC: Admin queue
 *
 * The driver writes a 64-byte command (&struct axon_admin_cmd) at the SQ
 * tail and writes the new tail to ``AXON_REG_AQ_SQ_TAIL``. The device
 * executes commands in order and writes one 16-byte completion
 * (&struct axon_admin_cqe) per command to the CQ, then raises
 * ``AXON_MSIX_ADMIN``. The phase bit flips on every pass over the ring:
 * the first pass writes phase 1, the next 0, and so on, so the driver
 * recognises new entries without a head register. Results larger than
 * the completion are written by DMA to the command's response buffer.
 */

/**
 * enum axon_admin_status - the status of an admin completion
 * @AXON_ADMIN_SUCCESS: the command was executed
 * @AXON_ADMIN_BAD_OPCODE: unknown opcode
 * @AXON_ADMIN_BAD_PARAM: flags or reserved bytes set, a bad value, a bad
 *	port, a short response buffer
 * @AXON_ADMIN_DMA_ERROR: the response buffer (or a page list) is not
 *	reachable
 * @AXON_ADMIN_NO_RESOURCES: object table full (e.g. all PDs in use)
 * @AXON_ADMIN_BAD_HANDLE: no such object, or a stale key
 * @AXON_ADMIN_BUSY: object still in use (a PD with MRs or QPs, a CQ with
 *	QPs)
 * @AXON_ADMIN_BAD_STATE: QP state transition not allowed, or a required
 *	attribute missing
 */
enum axon_admin_status {
	AXON_ADMIN_SUCCESS		= 0,
	AXON_ADMIN_BAD_OPCODE		= 1,
	AXON_ADMIN_BAD_PARAM		= 2,
	AXON_ADMIN_DMA_ERROR		= 3,
	AXON_ADMIN_NO_RESOURCES		= 4,
	AXON_ADMIN_BAD_HANDLE		= 5,
	AXON_ADMIN_BUSY			= 6,
	AXON_ADMIN_BAD_STATE		= 7,
};

/**
 * DOC: Admin completion flags
 *
 * &struct axon_admin_cqe ``flags``::
 *
 *   0:0  : phase - AXON_ADMIN_CQE_PHASE, ring pass of this entry
 *   15:1 : reserved
 */
#define AXON_ADMIN_CQE_PHASE		0x1

/**
 * struct axon_admin_cqe - an admin completion, 16 bytes
 * @command_id: the command's &axon_admin_cmd.command_id
 * @status: &enum axon_admin_status
 * @flags: ``AXON_ADMIN_CQE_*`` (see "Admin completion flags")
 * @reserved: 0
 * @result: the command's result: the pdn (CREATE_PD), key (CREATE_MR),
 *	cqn (CREATE_CQ), qpn (CREATE_QP), srqn (CREATE_SRQ), the limit
 *	(QUERY_SRQ) or a RUD QP's new receive key (MODIFY_QP out of RESET);
 *	0 otherwise
 */
struct axon_admin_cqe {
	__le16 command_id;
	__le16 status;
	__le16 flags;
	__le16 reserved;
	__le64 result;
};

/**
 * DOC: Async event queue
 *
 * The device writes 16-byte events (&struct axon_event) with the same
 * phase convention as the admin CQ and raises ``AXON_MSIX_ASYNC``. The
 * driver reports consumed entries through ``AXON_REG_EQ_HEAD``; one slot
 * always stays empty, and when the ring is full new events are dropped
 * and counted in ``AXON_REG_STAT_EQ_DROPS``.
 */

/**
 * enum axon_event_type - &axon_event.type
 * @AXON_EVENT_PORT_ACTIVE: param: port; the port became active
 * @AXON_EVENT_PORT_DOWN: param: port; the port went down
 * @AXON_EVENT_FATAL: the device stopped (``AXON_STATUS_FATAL``)
 * @AXON_EVENT_CQ_ERROR: param: cqn; the CQ overflowed, the device
 *	stopped writing it
 * @AXON_EVENT_QP_FATAL: param: qpn; a local error (e.g. a page of an MR
 *	became unreachable); the QP is in ERR
 * @AXON_EVENT_QP_REQ_ERR: param: qpn; the peer sent an invalid request
 *	(opcode sequence, length); the QP is in ERR
 * @AXON_EVENT_QP_ACCESS_ERR: param: qpn; remote access violation (key,
 *	PD, rights, bounds); the QP is in ERR
 * @AXON_EVENT_COMM_EST: param: qpn; first packet received while in RTR
 * @AXON_EVENT_SRQ_LIMIT: param: srqn; a WQE taken left fewer WQEs in the
 *	SRQ than its limit, which is now 0 (AXON_CAP_SRQ)
 * @AXON_EVENT_QP_LAST_WQE: param: qpn; a QP on an SRQ is in ERR and takes
 *	no more WQEs from it; its last one is completed (AXON_CAP_SRQ)
 * @AXON_EVENT_PAGE_FAULT: param: qpn; data: the pages of an on-demand
 *	paging MR the QP waits for (see "Page fault events"); ``AXON_CAP_ODP``
 * @AXON_EVENT_COMPLETION: CEQ only. param: cqn; a CQ armed through its
 *	doorbell got its next (or solicited or error) CQE
 */
enum axon_event_type {
	AXON_EVENT_PORT_ACTIVE	= 1,
	AXON_EVENT_PORT_DOWN	= 2,
	AXON_EVENT_FATAL	= 3,
	AXON_EVENT_CQ_ERROR	= 4,
	AXON_EVENT_QP_FATAL	= 5,
	AXON_EVENT_QP_REQ_ERR	= 6,
	AXON_EVENT_QP_ACCESS_ERR = 7,
	AXON_EVENT_COMM_EST	= 8,
	AXON_EVENT_SRQ_LIMIT	= 9,
	AXON_EVENT_QP_LAST_WQE	= 10,
	AXON_EVENT_PAGE_FAULT	= 11,
	AXON_EVENT_COMPLETION	= 16,
};

/**
 * DOC: Event flags
 *
 * &struct axon_event ``flags``::
 *
 *   0:0  : phase - AXON_EVENT_PHASE, ring pass of this entry
 *   15:1 : reserved
 */
#define AXON_EVENT_PHASE		0x1

/**
 * DOC: Page fault events
 *
 * &struct axon_event ``data`` of ``AXON_EVENT_PAGE_FAULT``::
 *
 *   23:0  : first - the first page the QP needs, an index into the MR's
 *           pages
 *   31:24 : count - pages from first it needs, minus 1 (1 to 256 pages)
 *   63:32 : key - the MR (see "Keys" in axon_admin_cmds_defs.h)
 *
 * The driver maps them (MAP_PAGES) or gives up, then sends RESUME_QP for
 * the QP. The device posts one event per wait; a QP that waits asks for
 * nothing more until RESUME_QP. AXON_FAULT() builds the data,
 * AXON_FAULT_GET_FIRST(), _GET_COUNT() and _GET_KEY() take it apart.
 */
#define AXON_FAULT_FIRST_MASK		0xffffff
#define AXON_FAULT_COUNT_SHIFT		24
#define AXON_FAULT_COUNT_MASK		0xff
#define AXON_FAULT_KEY_SHIFT		32
#define AXON_FAULT_MAX_PAGES		256

#define AXON_FAULT(key, first, count) \
	((__u64)(key) << AXON_FAULT_KEY_SHIFT | \
	 (__u64)(((count) - 1) & AXON_FAULT_COUNT_MASK) << AXON_FAULT_COUNT_SHIFT | \
	 ((first) & AXON_FAULT_FIRST_MASK))
#define AXON_FAULT_GET_FIRST(data)	((__u32)(data) & AXON_FAULT_FIRST_MASK)
#define AXON_FAULT_GET_COUNT(data) \
	((((__u32)(data) >> AXON_FAULT_COUNT_SHIFT) & AXON_FAULT_COUNT_MASK) + 1)
#define AXON_FAULT_GET_KEY(data)	((__u32)((data) >> AXON_FAULT_KEY_SHIFT))

/**
 * struct axon_event - an entry of the async or completion event queue,
 *	16 bytes
 * @type: &enum axon_event_type
 * @flags: ``AXON_EVENT_*`` (see "Event flags")
 * @param: the port, cqn or qpn the event is about, per @type
 * @data: ``AXON_EVENT_PAGE_FAULT``: its pages; else 0
 */
struct axon_event {
	__le16 type;
	__le16 flags;
	__le32 param;
	__le64 data;
};

/**
 * DOC: Completion event queue
 *
 * The completion event queue (CEQ) has the ring and phase convention of
 * the async event queue (``AXON_REG_CEQ_*``, checked when ENABLE goes to
 * 1, &struct axon_event entries, ``AXON_REG_CEQ_HEAD``) and raises
 * ``AXON_MSIX_COMP``; its only events are ``AXON_EVENT_COMPLETION``. A CQ
 * armed through its doorbell (``AXON_DB_CQ_ARM``) gets one event for the
 * next CQE (``AXON_CQ_ARM_NEXT``) or the next solicited or error CQE
 * (``AXON_CQ_ARM_SOLICITED``); then it is disarmed. A CQ's event that
 * finds the CEQ full waits in the device (one per CQ) and is posted when
 * ``AXON_REG_CEQ_HEAD`` makes room, in the order the events came:
 * completion events are never dropped, and a CEQ of any depth serves
 * every CQ the device holds.
 */

#endif /* _UAPI_AXON_ADMIN_DEFS_H */
