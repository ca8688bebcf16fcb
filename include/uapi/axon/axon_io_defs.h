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

/**
 * DOC: Doorbells
 *
 * BAR ``AXON_BAR_DB`` holds ``AXON_REG_DB_PAGES`` doorbell pages of
 * ``AXON_DB_PAGE_SIZE`` bytes. Page 0 belongs to the kernel; the driver
 * maps one other page into each user context and creates that context's
 * CQs and QPs with ``uar`` = the page number. A QP or CQ created with uar
 * = N only accepts doorbells written to page N. Each doorbell is one
 * 32-bit write of AXON_DB_WORD(id, value) at offset
 * AXON_DB_OFFSET(doorbell, id) of the page::
 *
 *   word   31:16 : id bits 15:0 - the qpn, cqn or srqn
 *          15:0  : value - AXON_DB_SQ, AXON_DB_RQ, AXON_DB_SRQ: the new
 *                  producer index (free running, mod 2^16);
 *                  AXON_DB_CQ_ARM: AXON_CQ_ARM_NEXT or AXON_CQ_ARM_SOLICITED
 *   offset 11:4  : id bits 23:16
 *          3:0   : the doorbell, below
 *
 * An id below 2^16 rings at the doorbell's own offset. AXON_DB_GET_ID()
 * and AXON_DB_GET_VALUE() take a word apart, AXON_DB_REG() and
 * AXON_DB_FULL_ID() the offset and the word together.
 *
 * ====================== ================================================
 * ``AXON_DB_SQ`` 0x00    the new SQ producer index
 * ``AXON_DB_RQ`` 0x04    the new RQ producer index
 * ``AXON_DB_CQ_ARM``     ``AXON_CQ_ARM_NEXT`` (1): one completion event
 * 0x08                   for the next CQE; ``AXON_CQ_ARM_SOLICITED`` (2):
 *                        for the next solicited or error CQE. NEXT wins
 *                        over a pending SOLICITED; the arm is consumed by
 *                        the event.
 * ``AXON_DB_SRQ`` 0x0c   the new SRQ producer index (``AXON_CAP_SRQ``);
 *                        a QP on an SRQ has no RQ doorbell
 * ====================== ================================================
 *
 * A doorbell written to another page than the object's uar, for an object
 * that does not exist, at another offset, with an arm value other than 1
 * or 2, for a QP in RESET, or that would post more WQEs than the queue
 * holds (producer - oldest uncompleted > depth) is ignored and counted in
 * ``AXON_REG_STAT_DB_REJECTS``. The doorbell only records the index: the
 * transfer runs later, in the engine. ``AXON_MAX_QPN``, ``AXON_MAX_CQN``
 * and ``AXON_MAX_SRQN`` are the largest ids the interface lets a device
 * hand out, so the driver and the provider size their tables by them (a
 * doorbell carries up to ``AXON_DB_MAX_ID``; axon-nic's qpns end at
 * 65537); qpn 0 and 1 and srqn 0 are never used.
 */
#define AXON_DB_PAGE_SIZE		4096
#define AXON_DB_SQ			0x00
#define AXON_DB_RQ			0x04
#define AXON_DB_CQ_ARM			0x08
#define AXON_DB_SRQ			0x0c
#define AXON_DB_ID_SHIFT		16
#define AXON_DB_VALUE_MASK		0xffff
#define AXON_DB_WORD(id, value) \
	((id) << AXON_DB_ID_SHIFT | ((value) & AXON_DB_VALUE_MASK))
#define AXON_DB_GET_ID(db)		((db) >> AXON_DB_ID_SHIFT)
#define AXON_DB_GET_VALUE(db)		((db) & AXON_DB_VALUE_MASK)
#define AXON_DB_REG_MASK		0xf
#define AXON_DB_ID_HI_SHIFT		4
#define AXON_DB_MAX_ID			0xffffff
#define AXON_DB_OFFSET(reg, id) \
	((((id) >> AXON_DB_ID_SHIFT) << AXON_DB_ID_HI_SHIFT) | (reg))
#define AXON_DB_REG(offset)		((offset) & AXON_DB_REG_MASK)
#define AXON_DB_FULL_ID(offset, db) \
	((((offset) >> AXON_DB_ID_HI_SHIFT) << AXON_DB_ID_SHIFT) | \
	 AXON_DB_GET_ID(db))
#define AXON_CQ_ARM_NEXT		1
#define AXON_CQ_ARM_SOLICITED		2
#define AXON_MAX_QPN			0xfffff
#define AXON_MAX_CQN			0xfffff
#define AXON_MAX_SRQN			0xffff

/**
 * DOC: Completion queues
 *
 * A CQ is a ring of depth CQEs followed, at byte depth * the CQE size,
 * by a &struct axon_cq_dbrec where the consumer writes its index. A CQE
 * is a &struct axon_cqe of ``AXON_CQE_SIZE`` bytes, or, in a CQ created
 * with ``AXON_CQ_TIMESTAMP`` (``AXON_CAP_CLOCK``), a &struct
 * axon_cqe_ts of ``AXON_CQE_TS_SIZE`` bytes: the same entry followed by
 * the device clock (see "Device clock" in axon_regs_defs.h) read when the
 * device wrote it. AXON_CQ_CQE_SIZE(flags) is the size. Depth is a power of 2,
 * ``AXON_CQ_MIN_DEPTH`` .. ``AXON_CQ_MAX_DEPTH``. The ring and its record
 * are contiguous memory, or, with ``AXON_CAP_CQ_PAGES``, 4 KiB pages in
 * a page list (&axon_admin_cq.npages): byte n of the queue is byte
 * n % 4096 of page n / 4096, so no entry straddles two pages. The device
 * writes a CQE only if (CQEs written - cons_index) < depth; otherwise the
 * CQ has overflowed: the device stops writing to it for good and posts
 * ``AXON_EVENT_CQ_ERROR``. The CQE's phase bit is 1 on the first pass
 * over the ring, 0 on the next, and so on; the device writes the rest of
 * the entry before the byte holding the phase.
 *
 * With ``AXON_CAP_RESIZE_CQ``, RESIZE_CQ moves a CQ to a new ring of
 * another depth at once. CQE indices carry on: the device copies each CQE
 * not consumed yet (from cons_index up to the CQEs written) to the slot of
 * its index in the new ring, with the phase of that index there, writes
 * every other slot of the new ring as an entry of the wrong phase, and
 * copies cons_index into the new ring's &struct axon_cq_dbrec (its flags
 * 0). Then it writes only to the new ring: a consumer that polled the old
 * one meanwhile carries on at its own index in the new one, where those
 * CQEs are consumed already, and publishes its index there. The arm state
 * and the CQE size stay.
 */
#define AXON_CQE_SIZE			32
#define AXON_CQE_TS_SIZE		64
#define AXON_CQ_TIMESTAMP		0x1
#define AXON_CQ_CQE_SIZE(flags) \
	((flags) & AXON_CQ_TIMESTAMP ? AXON_CQE_TS_SIZE : AXON_CQE_SIZE)
#define AXON_CQ_MIN_DEPTH		2
#define AXON_CQ_MAX_DEPTH		0x400000 /* 2^22 */

/**
 * DOC: Queue pairs
 *
 * Queue pairs are RC only. The send and receive queues are contiguous
 * rings of depth WQEs of 2^wqe_shift bytes. The device consumes the send
 * queue up to the producer index written to the SQ doorbell and the
 * receive queue up to the RQ doorbell's; both are free-running 16-bit
 * counters, so depth is at most ``AXON_WQ_MAX_DEPTH`` (32768). A QP
 * created with an SRQ has no receive queue of its own (see "Shared receive
 * queues" in axon_admin_cmds_defs.h); an SRQ's ring has the same format
 * and limits. The limits:
 *
 * ============================ ==========================================
 * ``AXON_WQ_MIN_DEPTH``,       depth of a work queue, power of 2
 * ``AXON_WQ_MAX_DEPTH``
 * ``AXON_SQ_MIN_WQE_SHIFT``    64 bytes: a send WQE header, no SGE
 * ``AXON_RQ_MIN_WQE_SHIFT``    32 bytes: a receive WQE header and one SGE
 * ``AXON_WQE_MAX_SHIFT``       4 KiB slots at most
 * ``AXON_MAX_SGE``             SGEs per WQE
 * ``AXON_MAX_INLINE``          inline bytes per send WQE
 * ``AXON_MAX_RD_ATOMIC``       READs and atomics in flight, each way
 * ``AXON_MAX_MSG_SIZE``        bytes of one message (2 GiB)
 * ============================ ==========================================
 */
#define AXON_WQ_MIN_DEPTH		1
#define AXON_WQ_MAX_DEPTH		32768
#define AXON_SQ_MIN_WQE_SHIFT		6
#define AXON_RQ_MIN_WQE_SHIFT		5
#define AXON_WQE_MAX_SHIFT		12
#define AXON_MAX_SGE			16
#define AXON_MAX_INLINE			256
#define AXON_MAX_RD_ATOMIC		16
#define AXON_MAX_MSG_SIZE		0x80000000

/**
 * DOC: Work requests
 *
 * A send WQE is a 64-byte &struct axon_send_wqe followed by num_sge
 * 16-byte &struct axon_sge, or by inline_len bytes of payload when
 * ``AXON_WQE_INLINE`` is set. A receive WQE is a 16-byte &struct
 * axon_recv_wqe followed by num_sge entries. A WQE never crosses its
 * 2^wqe_shift slot.
 */

/**
 * enum axon_wr_opcode - &axon_send_wqe.opcode
 * @AXON_WR_RDMA_WRITE: RDMA WRITE
 * @AXON_WR_RDMA_WRITE_IMM: RDMA WRITE with immediate: consumes a receive
 *	WQE at the responder
 * @AXON_WR_SEND: SEND
 * @AXON_WR_SEND_IMM: SEND with immediate
 * @AXON_WR_RDMA_READ: RDMA READ
 * @AXON_WR_ATOMIC_CMP_SWP: atomic compare and swap, 8 bytes
 * @AXON_WR_ATOMIC_FETCH_ADD: atomic fetch and add, 8 bytes
 * @AXON_WR_REG_MR: ``AXON_CAP_FAST_REG``: register a fast-registration MR
 *	(see "Fast registration")
 * @AXON_WR_LOCAL_INV: ``AXON_CAP_FAST_REG`` or ``AXON_CAP_MW``: invalidate a
 *	fast-registration MR (refused while a window is bound to it) or a
 *	type 2 window
 * @AXON_WR_SEND_INV: ``AXON_CAP_FAST_REG`` or ``AXON_CAP_MW``: SEND with
 *	invalidate (RC): the responder invalidates the MR (or type 2 window)
 *	of rkey
 * @AXON_WR_BIND_MW: ``AXON_CAP_MW``: bind a memory window (see "Memory
 *	windows")
 */
enum axon_wr_opcode {
	AXON_WR_RDMA_WRITE		= 0,
	AXON_WR_RDMA_WRITE_IMM		= 1,
	AXON_WR_SEND			= 2,
	AXON_WR_SEND_IMM		= 3,
	AXON_WR_RDMA_READ		= 4,
	AXON_WR_ATOMIC_CMP_SWP		= 5,
	AXON_WR_ATOMIC_FETCH_ADD	= 6,
	AXON_WR_REG_MR			= 7,
	AXON_WR_LOCAL_INV		= 8,
	AXON_WR_SEND_INV		= 9,
	AXON_WR_BIND_MW			= 10,
};

/**
 * DOC: Send WQE flags
 *
 * &struct axon_send_wqe ``flags``; other bits must be 0::
 *
 *   0:0 : signaled - AXON_WQE_SIGNALED, write a CQE on success too
 *   1:1 : solicited - AXON_WQE_SOLICITED, set SE on the last packet of a
 *         SEND or WRITE_WITH_IMM
 *   2:2 : fence - AXON_WQE_FENCE, wait until every READ and atomic before
 *         it has completed
 *   3:3 : inline - AXON_WQE_INLINE, the payload follows the header; not
 *         with a READ or an atomic
 */
#define AXON_WQE_SIGNALED		0x01
#define AXON_WQE_SOLICITED		0x02
#define AXON_WQE_FENCE			0x04
#define AXON_WQE_INLINE			0x08

/**
 * struct axon_sge - a scatter/gather entry, 16 bytes
 * @addr: virtual address in the MR of @lkey
 * @length: bytes
 * @lkey: the key of an MR that grants the access
 */
struct axon_sge {
	__le64 addr;
	__le32 length;
	__le32 lkey;
};

/**
 * DOC: Datagrams
 *
 * With ``AXON_CAP_UD``. A UD QP (&axon_admin_create_qp.type
 * ``AXON_QPT_UD``) sends SEND and SEND_IMM WQEs only (another opcode, or
 * FENCE, completes with ``AXON_WC_LOC_QP_OP_ERR``), each as one RoCEv2
 * packet with a DETH to the QP, Q_Key and address the WQE names. A send
 * completes once the packet is on the wire: nothing is acknowledged and a
 * lost packet is lost. A message over the port's MTU is not sent, and
 * completes successfully (IBA C10-93.1.1). A malformed UD WQE moves the
 * QP to ERR, as a malformed RC one does. A destination GID of this device's
 * own table loops back inside it. A send to ``AXON_MCAST_QPN`` and a
 * multicast group goes on the wire and to this device's QPs attached to
 * the group ("Multicast groups" in axon_admin_cmds_defs.h).
 *
 * A UD packet is accepted by a QP in RTR or RTS whose Q_Key it carries;
 * one with another Q_Key is dropped and counted in
 * ``AXON_REG_STAT_QKEY_DROPS``, one finding no receive WQE in
 * ``AXON_REG_STAT_UD_NOBUF``, a malformed one in ``AXON_REG_STAT_RX_DROPS``;
 * none changes the QP's state. The receive WQE's buffer gets 40 bytes of
 * GRH first, then the payload: for IPv6 the packet's IPv6 header, for
 * IPv4 20 bytes of zeroes then its IPv4 header, as the verbs say for RoCE
 * v2. The CQE's byte_len counts the 40 bytes; its src_qp and
 * ``AXON_CQE_GRH`` are set. A message longer than the WQE's buffer
 * completes it with ``AXON_WC_LOC_LEN_ERR`` and the QP goes on.
 */
#define AXON_UD_GRH_LEN			40

/**
 * DOC: Extended reliable connections
 *
 * With ``AXON_CAP_XRC`` (interface 1.17; IBA 9.2.1 and A14, as rxe and
 * mlx5 do it). An XRC initiator QP (``AXON_QPT_XRC_INI``) is an RC
 * requester: each send WQE names, in @xrc_srqn, the XRC SRQ at the
 * target that a SEND's or WRITE_IMM's receive WQE comes from. Its
 * packets use the XRC opcodes (the RC ones with service bits 101b) and
 * carry an XRCETH (4 bytes after the BTH: the SRQ number in bits 23:0)
 * in every request. An XRC target QP (``AXON_QPT_XRC_TGT``) is an RC
 * responder with no queue of its own: a request's receive WQE comes
 * from the SRQ its XRCETH names, which must be an XRC SRQ of the target's
 * XRC domain, and its completion goes to that SRQ's CQ with the target's
 * QPN; a WRITE, READ or atomic to it is checked against that SRQ's PD.
 * A request naming another SRQ is dropped and counted in
 * ``AXON_REG_STAT_RX_DROPS`` (the initiator sees no answer and retries).
 * Both take RC's attributes and transitions; a doorbell of a queue the
 * QP does not have is refused and counted.
 */

/**
 * DOC: The GSI QP
 *
 * With ``AXON_CAP_GSI``. The general services QP (IBA 13.5: the one the
 * communication manager's MADs use) is created as
 * ``AXON_QPT_GSI`` and numbered ``AXON_GSI_QPN``. It is a UD QP in every
 * other respect: packets whose BTH names QP 1 go to it, its Q_Key is the
 * one MODIFY_QP gives it (the IBA's is ``0x80010000``) and its datagrams
 * carry 1 as their source QP. QP 0 does not exist on RoCE: a packet for
 * it is dropped, as one for any QP that does not exist. A MAD is
 * ``AXON_GSI_MAD_SIZE`` bytes (IBA 13.4.2): a datagram for QP 1 with any
 * other payload length is dropped before it takes a receive WQE, counted
 * in ``AXON_REG_STAT_RX_DROPS``, so that no frame from the wire can end a
 * GSI receive in error (the MAD layer would not post that buffer again).
 */
#define AXON_GSI_QPN			1
#define AXON_GSI_MAD_SIZE		256

/**
 * DOC: Unreliable connections
 *
 * With ``AXON_CAP_UC``. A UC QP (&axon_admin_create_qp.type
 * ``AXON_QPT_UC``) is connected like an RC QP but nothing is acknowledged:
 * it sends WRITE, WRITE_IMM, SEND and SEND_IMM WQEs (a READ or an atomic
 * completes with ``AXON_WC_LOC_QP_OP_ERR``), segmented at the path MTU,
 * and completes each once its last packet is sent. The responder takes a
 * message whose packets come in PSN order; a PSN other than the expected
 * one drops the message in progress, and the next first or only packet,
 * whatever its PSN, starts a new one. A SEND that finds no
 * receive WQE, or a WRITE whose rkey does not allow it, is dropped too;
 * each dropped message counts in ``AXON_REG_STAT_UC_DROPS``, and a
 * receive WQE a dropped SEND had begun is kept for the next message. A
 * SEND longer than its receive WQE completes the WQE with
 * ``AXON_WC_LOC_LEN_ERR``. None of these changes the QP's state.
 */

/**
 * DOC: Reliable unordered delivery
 *
 * With ``AXON_CAP_RUD``. A RUD QP (&axon_admin_create_qp.type
 * ``AXON_QPT_RUD``) is connected to one peer RUD QP and takes an RC QP's
 * attributes and transitions, but its packets carry their own placement
 * (the message, its length and the packet's offset in it) and go out
 * sprayed over the device's planes ("Planes" in axon_regs_defs.h), so
 * they may arrive in any order. It sends SEND, SEND_IMM, RDMA_WRITE,
 * RDMA_WRITE_IMM and RDMA_READ WQEs (an atomic or SEND_INV completes
 * with ``AXON_WC_LOC_QP_OP_ERR``) and REG_MR, LOCAL_INV and BIND_MW.
 *
 * What is promised:
 *
 * - A message is placed whole or not at all as far as completions go:
 *   its receive completion (SEND, RDMA_WRITE_IMM) is written only after
 *   every byte of it is placed, and its send completion only after the
 *   peer acknowledged every packet of it (for a READ: after every byte
 *   of the response is placed locally).
 * - Send completions are written in SQ order.
 * - Messages are not ordered with each other: a later message may be
 *   placed, and complete at the receiver, before an earlier one. A WQE
 *   with ``AXON_WQE_FENCE`` is not begun until every WQE before it has
 *   completed, so a notification posted with the fence follows the data
 *   it announces.
 * - A SEND or RDMA_WRITE_IMM takes its receive WQE when the first of its
 *   packets to arrive does; receive completions come in the order the
 *   messages complete.
 * - A packet that finds no receive WQE is dropped and sent again later;
 *   the send WQE fails with ``AXON_WC_RETRY_EXC_ERR`` if one packet is
 *   lost more than (retry_cnt + 1) times in a row.
 * - A remote access error (rkey, bounds, access rights) or a SEND longer
 *   than its receive WQE fails the send WQE with ``AXON_WC_REM_ACCESS_ERR``
 *   or ``AXON_WC_REM_INV_REQ_ERR`` and the sender's QP goes to ERR; the
 *   receiver's QP stays in RTS (a receive WQE too short completes with
 *   ``AXON_WC_LOC_LEN_ERR``).
 * - A message whose slot (msg_id % 128) a later message of the slot, or
 *   packets unlike its first one, take from it (it can never complete:
 *   Documentation/rud.rst, "Message slots") completes its receive WQE,
 *   if it took one, with ``AXON_WC_GENERAL_ERR``; the QP stays in RTS.
 *
 * Every packet carries the 64-bit key of the QP that receives it (see
 * "RUD connection keys"). The wire format, the acknowledgements and the
 * congestion window are in Documentation/rud.rst.
 */

/**
 * DOC: RUD connection keys
 *
 * With ``AXON_CAP_RUD_KEYS``. Each RUD QP has a receive key: 64 bits the
 * device draws from a cryptographic random source, never 0, whenever the
 * QP leaves RESET (so a QP reset and connected again has a new one). The
 * MODIFY_QP that takes it out of RESET returns the key as its result, and
 * nothing else ever shows it: QUERY_QP, QUERY_QP_LIVE and every counter
 * leave it out. The QP's owner hands it to the peer's owner out of band,
 * with the QPN and the PSN, and each names the other's key at INIT -> RTR
 * (``AXON_QP_ATTR_PEER_KEY``, required there).
 *
 * Every RUD packet carries the key of the QP it is sent to: requests the
 * responder's, ACKs and READ responses the requester's. A receiving QP
 * compares the key with its own (in constant time) before it looks at
 * anything else of the packet, its state included, and drops and counts
 * (``AXON_REG_STAT_RUD_DROPS``) one that differs. An off-path forger who
 * knows the QPN has one chance in 2^64 per packet.
 */

/**
 * DOC: RUD headers
 *
 * RUD's packets are RoCE v2 packets whose BTH opcode is one of the
 * manufacturer-specific range, ``AXON_RUD_OPCODE_*``, followed by one of
 * two headers of axon's own (byte offsets, big endian; reserved bytes 0):
 *
 * RUDETH (DATA, READ_REQ, READ_RESP), ``AXON_RUDETH_LEN`` bytes::
 *
 *   0  key      8  the receiving QP's key
 *   8  msg_id   4  the message's number, per sending QP, from 0
 *   12 msg_len  4  the message's length
 *   16 offset   4  this packet's (or READ request's) first byte in it
 *   20 op       1  ``AXON_RUD_OP_*``
 *   21 reserved 3
 *   24 imm      4  immediate data, as the work request gave it
 *   28 rkey     4  WRITE, READ: the remote key
 *   32 req_len  4  READ_REQ: bytes asked for from offset
 *   36 va       8  WRITE, READ: the message's remote address
 *
 * SACKETH (ACK), ``AXON_SACKETH_LEN`` bytes, then a bitmap of up to
 * ``AXON_RUD_SACK_BYTES``::
 *
 *   0  key      8  the receiving QP's key
 *   8  syndrome 1  0, or a NAK: 0x60 | code (1 invalid request, 2
 *                  remote access, 3 remote operation), or
 *                  ``AXON_RUD_SYN_TRIMMED``
 *   9  ce       1  packets marked Congestion Experienced since the last
 *   10 reserved 2
 *   12 ack_psn  4  the PSN of the packet that asked for this ACK
 *   16 err_psn  4  with a NAK: the PSN refused; trimmed: the PSN cut
 *   20 err_msg  4  with a NAK: the msg_id of the packet refused (trimmed:
 *                  of the packet cut)
 *
 * ``AXON_RUDETH_*`` and ``AXON_SACKETH_*`` are the offsets; the fields'
 * meaning is in Documentation/rud.rst.
 */
#define AXON_RUD_OPCODE_DATA		0xc0
#define AXON_RUD_OPCODE_READ_REQ	0xc1
#define AXON_RUD_OPCODE_READ_RESP	0xc2
#define AXON_RUD_OPCODE_ACK		0xc3

/*
 * The ACK syndrome of a trimmed DATA packet's notice: a switch cut the
 * packet to its headers instead of dropping it (Documentation/rud.rst,
 * "Trimmed packets"); the sender sends it again. Not a NAK: a device
 * that does not know it reads it as a plain ACK.
 */
#define AXON_RUD_SYN_TRIMMED		0x40

#define AXON_RUD_OP_SEND		0
#define AXON_RUD_OP_SEND_IMM		1
#define AXON_RUD_OP_WRITE		2
#define AXON_RUD_OP_WRITE_IMM		3
#define AXON_RUD_OP_READ		4

#define AXON_RUD_KEY_LEN		8
#define AXON_RUDETH_KEY			0
#define AXON_RUDETH_MSG_ID		8
#define AXON_RUDETH_MSG_LEN		12
#define AXON_RUDETH_OFFSET		16
#define AXON_RUDETH_OP			20
#define AXON_RUDETH_IMM			24
#define AXON_RUDETH_RKEY		28
#define AXON_RUDETH_REQ_LEN		32
#define AXON_RUDETH_VA			36
#define AXON_RUDETH_LEN			44

#define AXON_SACKETH_KEY		0
#define AXON_SACKETH_SYNDROME		8
#define AXON_SACKETH_CE			9
#define AXON_SACKETH_ACK_PSN		12
#define AXON_SACKETH_ERR_PSN		16
#define AXON_SACKETH_ERR_MSG		20
#define AXON_SACKETH_LEN		24
#define AXON_RUD_SACK_BYTES		128

/**
 * DOC: UD address vector flags
 *
 * &struct axon_ud_av ``flags``; other bits must be 0 (else the WQE
 * completes with ``AXON_WC_LOC_QP_OP_ERR``)::
 *
 *   0:0 : ipv4 - AXON_AV_IPV4, dgid is ``::ffff:a.b.c.d`` and the packet
 *         is IPv4 (else IPv6)
 */
#define AXON_AV_IPV4			0x1

/**
 * struct axon_ud_av - where a UD send goes, 32 bytes
 * @dgid: the destination GID, network order
 * @dmac: the next hop's Ethernet address; a multicast one exactly when
 *	@dgid is a multicast group's (``AXON_CAP_MCAST``, "Multicast groups"
 *	in axon_admin_cmds_defs.h)
 * @sgid_index: the source GID: an entry in use of the port's GID table,
 *	of the same family as @dgid
 * @hop_limit: IPv4 TTL or IPv6 hop limit; 0: 64
 * @tclass: IPv4 TOS or IPv6 traffic class
 * @flags: ``AXON_AV_*`` (see "UD address vector flags")
 * @udp_sport: RoCEv2 UDP source port, host order; 0: 0xc000 | qpn
 * @flow_label: IPv6 flow label, 20 bits (``AXON_FLOW_LABEL_MASK``)
 */
struct axon_ud_av {
	__u8 dgid[16];
	__u8 dmac[6];
	__u8 sgid_index;
	__u8 hop_limit;
	__u8 tclass;
	__u8 flags;
	__le16 udp_sport;
	__le32 flow_label;
};

/**
 * DOC: Fast registration
 *
 * With ``AXON_CAP_FAST_REG``. An RC or UC QP registers a fast-registration
 * MR of its PD (see "Fast-registration MRs" in axon_admin_cmds_defs.h)
 * with a REG_MR WQE and invalidates it with LOCAL_INV; an RC SEND_INV
 * invalidates one of the responder's. Each takes effect in SQ order, when
 * the device reaches the WQE, and completes at once (CQE opcode
 * ``AXON_WC_REG_MR`` or ``AXON_WC_LOCAL_INV``; SEND_INV as a SEND).
 *
 * - REG_MR: rkey is the MR's key with a new tag of the consumer's choice
 *   (ib_update_fast_reg_key()); remote_addr the iova; &axon_send_wqe.reg
 *   the rest. The MR must be invalid and the pages within its capacity;
 *   the list (level 1 only, see "Page lists") is read when the WQE
 *   executes. From then on the key, and only it, is valid. A WQE that
 *   breaks a rule completes with ``AXON_WC_LOC_PROT_ERR`` (the MR) or
 *   ``AXON_WC_LOC_QP_OP_ERR`` (the WQE), and the QP goes to ERR.
 * - LOCAL_INV: rkey is the current key of a fast-registration MR of the
 *   QP's PD (else ``AXON_WC_LOC_PROT_ERR``); it is invalid from then on.
 * - SEND_INV: a SEND whose last packet carries rkey in an IETH; before
 *   completing the receive, the responder invalidates the MR of that key
 *   if it is a fast-registration MR of its PD (else it NAKs an invalid
 *   request and both QPs go to ERR). The receive's CQE has
 *   ``AXON_CQE_WITH_INV`` and the key in imm_data.
 *
 * An access through an invalid MR fails as through an invalidated one
 * (see INVALIDATE_MR) and counts in ``AXON_REG_STAT_MR_INVALID``.
 */
#define AXON_FAST_REG_MAX_PAGES		512

/**
 * struct axon_reg_mr_seg - REG_MR's registration, 32 bytes
 * @length: bytes, iova + length must not wrap, at most
 *	&axon_dev_attr.max_mr_size
 * @pbl_addr: DMA address of npages __le64 page addresses, 8-byte aligned
 * @npages: pages, within the MR's capacity; exactly the pages [iova, iova
 *	+ length) needs (see "Page lists")
 * @page_shift: ``AXON_MR_MIN_PAGE_SHIFT`` .. ``AXON_MR_MAX_PAGE_SHIFT``
 * @access: ``AXON_ACCESS_*`` (see "Access flags" in
 *	axon_admin_cmds_defs.h)
 * @reserved: 0
 */
struct axon_reg_mr_seg {
	__le64 length;
	__le64 pbl_addr;
	__le32 npages;
	__u8 page_shift;
	__u8 access;
	__u8 reserved[10];
};

/**
 * DOC: Memory windows
 *
 * With ``AXON_CAP_MW``. A memory window (made by CREATE_MR, see
 * "Fast-registration MRs" in axon_admin_cmds_defs.h) grants remote access
 * to a range of an MR with ``AXON_ACCESS_MW_BIND`` in the same PD. A
 * BIND_MW WQE of an RC or UC QP of that PD binds it: rkey is the window's
 * key with a new tag, remote_addr the range's start, &axon_send_wqe.bind
 * the rest. It takes effect in SQ order (after any fence) and completes at
 * once (``AXON_WC_BIND_MW``); from then on the new key, and no earlier
 * one, names the window, for RDMA WRITE, READ and atomics only (never as
 * an lkey). The responder checks the window's range and rights, then the
 * MR's, for every access; a type 2 window answers only the QP that bound
 * it.
 *
 * - Type 1 may be bound again while bound (the old key stops working);
 *   length 0 unbinds it (mr_key and remote_addr are then ignored). It
 *   cannot be invalidated.
 * - Type 2 must be unbound to be bound; LOCAL_INV and a peer's SEND_INV
 *   with its current key unbind it (with ``AXON_CAP_MW``, whether or not
 *   the device has ``AXON_CAP_FAST_REG``), and so does destroying the QP
 *   that bound it.
 *
 * A binding that breaks a rule (the window or MR of another PD, an MR
 * without MW_BIND, a range outside the MR, remote write or atomic rights
 * on an MR without local write, a bound type 2 window) completes with
 * ``AXON_WC_MW_BIND_ERR`` and the QP goes to ERR.
 */

/**
 * struct axon_bind_mw_seg - BIND_MW's binding, 32 bytes
 * @length: bytes of the window; 0 unbinds a type 1 window
 * @mr_key: the MR the window is over
 * @access: ``AXON_ACCESS_REMOTE_*`` the window grants
 * @reserved: 0
 */
struct axon_bind_mw_seg {
	__le64 length;
	__le32 mr_key;
	__u8 access;
	__u8 reserved[19];
};

/**
 * struct axon_send_wqe - the header of a send WQE, 64 bytes
 * @opcode: &enum axon_wr_opcode
 * @flags: ``AXON_WQE_*`` (see "Send WQE flags")
 * @num_sge: SGEs that follow, <= ``AXON_MAX_SGE``; 0 with INLINE; an
 *	atomic's SGEs add up to 8 bytes
 * @reserved0: 0
 * @imm_data: WRITE_IMM, SEND_IMM: the immediate, network order, as given
 *	to ibv_post_send()
 * @wr_id: returned in &axon_cqe.wr_id
 * @remote_addr: WRITE, READ, atomics: the remote virtual address
 *	(8-byte aligned for atomics)
 * @remote_qpn: UD: the destination QP, 24 bits
 * @qkey: UD: the Q_Key to send; with bit 31 set, the QP's own
 *	(&axon_qp_attr.qkey) instead
 * @rkey: WRITE, READ, atomics: the remote key; REG_MR: the MR's new key;
 *	LOCAL_INV: the key to invalidate; SEND_INV: the peer's rkey to
 *	invalidate; BIND_MW: the window's new key; UD: 0
 * @inline_len: INLINE: bytes of payload that follow, <= ``AXON_MAX_INLINE``
 * @compare_add: CMP_SWP: the compare value; FETCH_ADD: the value to add
 * @swap: CMP_SWP: the swap value
 * @xrc_srqn: ``AXON_QPT_XRC_INI``: the XRC SRQ at the target, 24 bits;
 *	0 otherwise
 * @reserved: 0
 * @av: UD: the destination (see "Datagrams")
 * @reg: REG_MR: the registration (see "Fast registration")
 * @bind: BIND_MW: the binding (see "Memory windows")
 *
 * The header is followed by struct axon_sge sge[num_sge] or the inline
 * payload. The device reads a WQE once, when it takes it from the queue.
 * An unknown opcode, reserved bits, too many SGEs, INLINE on a READ or
 * atomic, or a WQE that does not fit its slot completes with
 * ``AXON_WC_LOC_QP_OP_ERR``; an SGE whose lkey is not valid for the
 * access, ``AXON_WC_LOC_PROT_ERR``; a message over ``AXON_MAX_MSG_SIZE``
 * or an atomic whose SGEs do not add up to 8 bytes,
 * ``AXON_WC_LOC_LEN_ERR``.
 */
struct axon_send_wqe {
	__u8 opcode;
	__u8 flags;
	__u8 num_sge;
	__u8 reserved0;
	__be32 imm_data;
	__le64 wr_id;
	union {
		__le64 remote_addr;
		struct {
			__le32 remote_qpn;
			__le32 qkey;
		};
	};
	__le32 rkey;
	__le32 inline_len;
	union {
		struct {
			__le64 compare_add;
			__le64 swap;
			__le32 xrc_srqn;
			__u8 reserved[12];
		};
		struct axon_ud_av av;
		struct axon_reg_mr_seg reg;
		struct axon_bind_mw_seg bind;
	};
};

/**
 * struct axon_recv_wqe - the header of a receive WQE, 16 bytes
 * @wr_id: returned in &axon_cqe.wr_id
 * @num_sge: SGEs that follow, <= ``AXON_MAX_SGE``
 * @reserved: 0
 *
 * The header is followed by struct axon_sge sge[num_sge].
 */
struct axon_recv_wqe {
	__le64 wr_id;
	__u8 num_sge;
	__u8 reserved[7];
};

/**
 * enum axon_wc_status - &axon_cqe.status, numbered as enum ib_wc_status
 * @AXON_WC_SUCCESS: success
 * @AXON_WC_LOC_LEN_ERR: local length error: a message over
 *	``AXON_MAX_MSG_SIZE``, an atomic's SGEs not 8 bytes, a SEND larger
 *	than the receive WQE
 * @AXON_WC_LOC_QP_OP_ERR: local QP operation error: a malformed send WQE
 * @AXON_WC_LOC_PROT_ERR: local protection error: an lkey not valid for
 *	the access, an invalidated MR
 * @AXON_WC_WR_FLUSH_ERR: flushed: the QP moved to ERR
 * @AXON_WC_BAD_RESP_ERR: a READ response of the wrong length
 * @AXON_WC_MW_BIND_ERR: a BIND_MW that breaks a rule (see "Memory
 *	windows")
 * @AXON_WC_LOC_ACCESS_ERR: local access error (not written by the model)
 * @AXON_WC_REM_INV_REQ_ERR: the responder NAKed an invalid request
 * @AXON_WC_REM_ACCESS_ERR: the responder NAKed a remote access error
 *	(key, PD, rights, bounds, an invalidated MR)
 * @AXON_WC_REM_OP_ERR: the responder NAKed a remote operational error
 * @AXON_WC_RETRY_EXC_ERR: retry_cnt timeouts without progress
 * @AXON_WC_RNR_RETRY_EXC_ERR: rnr_retry RNR NAKs
 * @AXON_WC_FATAL_ERR: fatal error (not written by the model)
 * @AXON_WC_GENERAL_ERR: general error: a RUD receive WQE whose message
 *	was abandoned (see "Reliable unordered delivery")
 */
enum axon_wc_status {
	AXON_WC_SUCCESS			= 0,
	AXON_WC_LOC_LEN_ERR		= 1,
	AXON_WC_LOC_QP_OP_ERR		= 2,
	AXON_WC_LOC_PROT_ERR		= 4,
	AXON_WC_WR_FLUSH_ERR		= 5,
	AXON_WC_MW_BIND_ERR		= 6,
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

/**
 * enum axon_wc_opcode - &axon_cqe.opcode, numbered as enum ib_wc_opcode
 * @AXON_WC_SEND: a SEND (with or without immediate)
 * @AXON_WC_RDMA_WRITE: an RDMA WRITE (with or without immediate)
 * @AXON_WC_RDMA_READ: an RDMA READ
 * @AXON_WC_COMP_SWAP: an atomic compare and swap
 * @AXON_WC_FETCH_ADD: an atomic fetch and add
 * @AXON_WC_BIND_MW: a BIND_MW
 * @AXON_WC_LOCAL_INV: a LOCAL_INV
 * @AXON_WC_REG_MR: a REG_MR
 * @AXON_WC_RECV: a receive WQE consumed by a SEND
 * @AXON_WC_RECV_RDMA_WITH_IMM: a receive WQE consumed by an RDMA WRITE
 *	with immediate; byte_len is the write's length
 */
enum axon_wc_opcode {
	AXON_WC_SEND			= 0,
	AXON_WC_RDMA_WRITE		= 1,
	AXON_WC_RDMA_READ		= 2,
	AXON_WC_COMP_SWAP		= 3,
	AXON_WC_FETCH_ADD		= 4,
	AXON_WC_BIND_MW			= 5,
	AXON_WC_LOCAL_INV		= 6,
	AXON_WC_REG_MR			= 8,
	AXON_WC_RECV			= 128,
	AXON_WC_RECV_RDMA_WITH_IMM	= 129,
};

/**
 * DOC: CQE flags
 *
 * &struct axon_cqe ``flags``::
 *
 *   0:0 : phase - AXON_CQE_PHASE, ring pass of this entry (the first pass
 *         writes 1)
 *   1:1 : with_imm - AXON_CQE_WITH_IMM, imm_data is valid
 *   2:2 : recv - AXON_CQE_RECV, the CQE completes a receive WQE (else a
 *         send WQE)
 *   3:3 : solicited - AXON_CQE_SOLICITED, the received message had SE set
 *   4:4 : grh - AXON_CQE_GRH, a UD receive: src_qp is valid and the
 *         buffer starts with the GRH (see "Datagrams")
 *   5:5 : grh_ipv4 - AXON_CQE_GRH_IPV4, with grh: the packet was IPv4
 *         (its header is in the GRH's last 20 bytes)
 *   6:6 : with_inv - AXON_CQE_WITH_INV, a SEND_INV's receive: imm_data is
 *         the rkey it invalidated, network order
 */
#define AXON_CQE_PHASE			0x1
#define AXON_CQE_WITH_IMM		0x2
#define AXON_CQE_RECV			0x4
#define AXON_CQE_SOLICITED		0x8
#define AXON_CQE_GRH			0x10
#define AXON_CQE_GRH_IPV4		0x20
#define AXON_CQE_WITH_INV		0x40

/**
 * struct axon_cqe - a completion, ``AXON_CQE_SIZE`` (32) bytes
 * @wr_id: the WQE's wr_id
 * @byte_len: receives: bytes received; sends: the message length; 0 when
 *	flushed
 * @imm_data: the immediate, network order, valid with
 *	``AXON_CQE_WITH_IMM``; with ``AXON_CQE_WITH_INV`` the rkey
 *	invalidated
 * @qpn: the local QP
 * @wqe_index: the WQE's producer index, mod 2^16
 * @opcode: &enum axon_wc_opcode
 * @status: &enum axon_wc_status
 * @flags: ``AXON_CQE_*`` (see "CQE flags"), the byte written last
 * @vendor_err: 0
 * @reserved: 0
 * @src_qp: with ``AXON_CQE_GRH``: the sending QP, 24 bits; a receive of
 *	an XRC target QP (``AXON_CAP_XRC``): the XRC SRQ whose WQE it
 *	completes, whose QP may be another process's; else 0
 *
 * A send WQE gets a CQE when it was ``AXON_WQE_SIGNALED``, the QP was
 * created with sq_sig_all, or it failed. A failed WQE completes in order
 * after the ones before it, and moves the QP to ERR.
 */
struct axon_cqe {
	__le64 wr_id;
	__le32 byte_len;
	__be32 imm_data;
	__le32 qpn;
	__le16 wqe_index;
	__u8 opcode;
	__u8 status;
	__u8 flags;
	__u8 vendor_err;
	__le16 reserved;
	__le32 src_qp;
};

/**
 * struct axon_cqe_ts - a completion with its time, ``AXON_CQE_TS_SIZE``
 *	(64) bytes, in a CQ created with ``AXON_CQ_TIMESTAMP``
 * @cqe: the completion, its flags byte written last as in any CQ
 * @timestamp: the device clock when the device wrote the CQE, in ns
 * @reserved: 0
 */
struct axon_cqe_ts {
	struct axon_cqe cqe;
	__le64 timestamp;
	__u8 reserved[24];
};

/**
 * struct axon_cq_dbrec - the consumer index record after the CQ ring
 * @cons_index: written by the consumer: the number of CQEs it has
 *	consumed (free running, mod 2^32)
 * @flags: ``AXON_CQ_DBREC_*``, written by the driver; the device never
 *	reads or writes it
 *
 * The driver sets ``AXON_CQ_DBREC_DEAD`` in @flags when the device failed
 * or is going away (removal, hot-unplug): no CQE will ever come again, and
 * a process polling an empty ring learns so without a system call.
 */
struct axon_cq_dbrec {
	__le32 cons_index;
	__le32 flags;
};

#define AXON_CQ_DBREC_DEAD		0x1

/**
 * DOC: Send queue doorbell records
 *
 * With ``AXON_CAP_SQ_DBREC``, a QP created with ``AXON_QP_SQ_DBREC`` has
 * a &struct axon_sq_dbrec right after its send queue's ring (at byte
 * depth * 2^sq_wqe_shift of the contiguous queue), through which a
 * producer that keeps posting is read by the device instead of ringing
 * ``AXON_DB_SQ`` for each post. The producer, to post:
 *
 * 1. writes its WQEs, then @prod_index (the index it would ring, with
 *    ``AXON_SQ_DBREC_POLL`` when it has WQEs in flight enough to want the
 *    device to poll);
 * 2. makes both visible and orders them before its next read (a full
 *    barrier);
 * 3. reads @polling, and rings ``AXON_DB_SQ`` as before when it is 0 (or
 *    whenever it wants the doorbell's lower latency: a doorbell is always
 *    taken, polled or not).
 *
 * The device sets @polling when an SQ doorbell of the QP is taken and
 * the record's index carries ``AXON_SQ_DBREC_POLL``, then reads
 * @prod_index on its own while the QP keeps posting, taking each new
 * value as if it were rung at ``AXON_DB_SQ`` (a value the doorbell would
 * refuse is counted in ``AXON_REG_STAT_DB_REJECTS`` and ends the
 * polling). To stop when nothing new came for a while, it writes 0 to
 * @polling and then reads @prod_index once more, so a post between the
 * two is never missed: either the device sees its index or the producer
 * sees 0 and rings. When the QP goes to RESET the device clears @polling
 * and reads nothing more; a producer that resets its queues with the QP
 * clears the record too. The device never polls a QP in
 * RESET, and may not poll at all (@polling stays 0: every post rings, as
 * without the record). A device that does not poll leaves the record as
 * the producer wrote it.
 */

/**
 * struct axon_sq_dbrec - the send queue's doorbell record after its ring
 * @prod_index: written by the producer: the send queue's producer index
 *	(free running, mod 2^16, in bits 15:0), and ``AXON_SQ_DBREC_POLL``
 *	(bit 31) to have the next doorbell start the polling; bits 30:16
 *	are ignored
 * @polling: written by the device: not 0 while it reads @prod_index on
 *	its own
 */
struct axon_sq_dbrec {
	__le32 prod_index;
	__le32 polling;
};

#define AXON_SQ_DBREC_POLL		0x80000000

#endif /* _UAPI_AXON_IO_DEFS_H */
