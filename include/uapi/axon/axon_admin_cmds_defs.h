/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * axon-nic device interface, part of <axon/axon_dev.h>: the admin
 * commands (struct axon_admin_cmd and its bodies) and the responses they
 * write by DMA. The queue they travel on is in axon_admin_defs.h.
 */
#ifndef _UAPI_AXON_ADMIN_CMDS_DEFS_H
#define _UAPI_AXON_ADMIN_CMDS_DEFS_H

#include <linux/types.h>

/**
 * enum axon_admin_opcode - &axon_admin_cmd.opcode; each command's body
 *	follows
 * @AXON_ADMIN_QUERY_DEVICE: &struct axon_admin_query; writes a
 *	&struct axon_dev_attr to the response buffer
 * @AXON_ADMIN_QUERY_PORT: &struct axon_admin_query with the port; writes
 *	a &struct axon_port_attr
 * @AXON_ADMIN_CREATE_PD: no parameters; result: the pdn
 * @AXON_ADMIN_DESTROY_PD: &struct axon_admin_pd; BUSY while an MR or a QP
 *	uses the PD
 * @AXON_ADMIN_SET_GID: &struct axon_admin_gid: write one GID table entry
 * @AXON_ADMIN_CREATE_MR: &struct axon_admin_mr; result: the key, used as
 *	both lkey and rkey
 * @AXON_ADMIN_DESTROY_MR: &struct axon_admin_mr with the key only
 * @AXON_ADMIN_CREATE_CQ: &struct axon_admin_cq; result: the cqn
 * @AXON_ADMIN_DESTROY_CQ: &struct axon_admin_cq with the cqn only; BUSY
 *	while a QP uses the CQ
 * @AXON_ADMIN_CREATE_QP: &struct axon_admin_create_qp; result: the qpn.
 *	The QP starts in RESET.
 * @AXON_ADMIN_MODIFY_QP: &struct axon_admin_modify_qp: apply a
 *	&struct axon_qp_attr under its attr_mask; result: a RUD QP's new
 *	receive key when it leaves RESET (``AXON_CAP_RUD_KEYS``), else 0
 * @AXON_ADMIN_QUERY_QP: &struct axon_admin_modify_qp with attr_mask 0:
 *	write the QP's &struct axon_qp_attr (as last modified, with its
 *	current state) to attr_addr
 * @AXON_ADMIN_DESTROY_QP: &struct axon_admin_modify_qp with the qpn only:
 *	free the QP at once, whatever its state; nothing more is written for it
 * @AXON_ADMIN_INVALIDATE_MR: ``AXON_CAP_PEER_MR``; &struct axon_admin_mr
 *	with the key only (see "Page lists")
 * @AXON_ADMIN_REMAP_MR: ``AXON_CAP_PEER_MR``; &struct axon_admin_mr with
 *	key, pbl_addr, npages, page_shift, levels (see "Page lists")
 * @AXON_ADMIN_CREATE_SRQ: ``AXON_CAP_SRQ``; &struct axon_admin_srq;
 *	result: the srqn (see "Shared receive queues")
 * @AXON_ADMIN_MODIFY_SRQ: ``AXON_CAP_SRQ``; &struct axon_admin_srq with
 *	srqn and limit: arm (or disarm, 0) the limit
 * @AXON_ADMIN_QUERY_SRQ: ``AXON_CAP_SRQ``; &struct axon_admin_srq with the
 *	srqn only; result: the limit, 0 once it fired
 * @AXON_ADMIN_DESTROY_SRQ: ``AXON_CAP_SRQ``; &struct axon_admin_srq with
 *	the srqn only; BUSY while a QP uses the SRQ
 * @AXON_ADMIN_RESIZE_CQ: ``AXON_CAP_RESIZE_CQ``; &struct axon_admin_cq
 *	with cqn, ring_addr and depth: move the CQ to a new ring (see
 *	"Completion queues" in axon_io_defs.h)
 * @AXON_ADMIN_REREG_MR: ``AXON_CAP_REREG_MR``; &struct axon_admin_mr with
 *	the key and every field of a CREATE_MR without flags: the MR's PD,
 *	access, range and pages at once; the key stays (see "Keys")
 * @AXON_ADMIN_QUERY_QP_LIVE: ``AXON_CAP_QP_LIVE``; &struct
 *	axon_admin_modify_qp with the qpn and attr_addr: write the QP's
 *	&struct axon_qp_live (its transport's live state and counters) there
 * @AXON_ADMIN_WIRE_TEST: ``AXON_CAP_WIRE_TEST``; &struct
 *	axon_admin_wire_test: set the port's wire impairments; result: the
 *	impairments now, drop_every in bits 31:0, reorder_every in 63:32
 * @AXON_ADMIN_ALLOC_COUNTER_SET: ``AXON_CAP_COUNTER_SETS``; &struct
 *	axon_admin_counter_set, all 0; result: the new set (see "Counter
 *	sets"); NO_RESOURCES when every set is in use
 * @AXON_ADMIN_FREE_COUNTER_SET: ``AXON_CAP_COUNTER_SETS``; &struct
 *	axon_admin_counter_set with the set only; BUSY while a QP counts in it
 * @AXON_ADMIN_BIND_COUNTER_SET: ``AXON_CAP_COUNTER_SETS``; &struct
 *	axon_admin_counter_set with set and qpn: the QP counts in that set
 *	from now on (0: the port's)
 * @AXON_ADMIN_QUERY_COUNTER_SET: ``AXON_CAP_COUNTER_SETS``; &struct
 *	axon_admin_counter_set with set and resp_addr: write the set's
 *	&struct axon_qp_counters there
 * @AXON_ADMIN_ATTACH_MCAST: ``AXON_CAP_MCAST``; &struct axon_admin_mcast:
 *	attach a UD QP to a multicast group (see "Multicast groups")
 * @AXON_ADMIN_DETACH_MCAST: ``AXON_CAP_MCAST``; &struct axon_admin_mcast:
 *	detach it
 * @AXON_ADMIN_MAP_PAGES: ``AXON_CAP_ODP``; &struct axon_admin_odp with
 *	key, first, npages, pbl_addr, levels: give pages of an on-demand
 *	paging MR (see "On-demand paging")
 * @AXON_ADMIN_UNMAP_PAGES: ``AXON_CAP_ODP``; &struct axon_admin_odp with
 *	key, first, npages: take them back
 * @AXON_ADMIN_RESUME_QP: ``AXON_CAP_ODP``; &struct axon_admin_odp with
 *	qpn and status: the QP's page fault is handled
 */
enum axon_admin_opcode {
	AXON_ADMIN_QUERY_DEVICE		= 1,
	AXON_ADMIN_QUERY_PORT		= 2,
	AXON_ADMIN_CREATE_PD		= 3,
	AXON_ADMIN_DESTROY_PD		= 4,
	AXON_ADMIN_SET_GID		= 5,
	AXON_ADMIN_CREATE_MR		= 6,
	AXON_ADMIN_DESTROY_MR		= 7,
	AXON_ADMIN_CREATE_CQ		= 8,
	AXON_ADMIN_DESTROY_CQ		= 9,
	AXON_ADMIN_CREATE_QP		= 10,
	AXON_ADMIN_MODIFY_QP		= 11,
	AXON_ADMIN_QUERY_QP		= 12,
	AXON_ADMIN_DESTROY_QP		= 13,
	AXON_ADMIN_INVALIDATE_MR	= 14,
	AXON_ADMIN_REMAP_MR		= 15,
	AXON_ADMIN_CREATE_SRQ		= 16,
	AXON_ADMIN_MODIFY_SRQ		= 17,
	AXON_ADMIN_QUERY_SRQ		= 18,
	AXON_ADMIN_DESTROY_SRQ		= 19,
	AXON_ADMIN_RESIZE_CQ		= 20,
	AXON_ADMIN_REREG_MR		= 21,
	AXON_ADMIN_QUERY_QP_LIVE	= 22,
	AXON_ADMIN_WIRE_TEST		= 23,
	AXON_ADMIN_ALLOC_COUNTER_SET	= 24,
	AXON_ADMIN_FREE_COUNTER_SET	= 25,
	AXON_ADMIN_BIND_COUNTER_SET	= 26,
	AXON_ADMIN_QUERY_COUNTER_SET	= 27,
	AXON_ADMIN_ATTACH_MCAST		= 28,
	AXON_ADMIN_DETACH_MCAST		= 29,
	AXON_ADMIN_MAP_PAGES		= 30,
	AXON_ADMIN_UNMAP_PAGES		= 31,
	AXON_ADMIN_RESUME_QP		= 32,
};

/**
 * struct axon_admin_query - QUERY_DEVICE and QUERY_PORT
 * @resp_addr: DMA address of the response
 * @resp_len: bytes available at @resp_addr; BAD_PARAM if shorter than
 *	the response
 * @port: QUERY_PORT: the port number, 1-based (1); QUERY_DEVICE: 0
 * @reserved: 0
 */
struct axon_admin_query {
	__le64 resp_addr;
	__le32 resp_len;
	__le32 port;
	__u8 reserved[40];
};

/**
 * struct axon_admin_pd - CREATE_PD and DESTROY_PD
 * @pdn: DESTROY_PD: the PD to destroy; CREATE_PD: 0
 * @reserved: 0
 */
struct axon_admin_pd {
	__le32 pdn;
	__u8 reserved[52];
};

/**
 * enum axon_gid_type - RoCE GID types, as stored in the device's GID table
 * @AXON_GID_TYPE_NONE: the entry is unused; SET_GID with it clears the
 *	entry
 * @AXON_GID_TYPE_ROCE_V1: RoCE v1
 * @AXON_GID_TYPE_ROCE_V2: RoCEv2
 */
enum axon_gid_type {
	AXON_GID_TYPE_NONE	= 0,
	AXON_GID_TYPE_ROCE_V1	= 1,
	AXON_GID_TYPE_ROCE_V2	= 2,
};

/**
 * struct axon_admin_gid - SET_GID: write one entry of the GID table
 * @port: 1-based (1)
 * @index: < &axon_port_attr.gid_tbl_len (16)
 * @type: &enum axon_gid_type
 * @reserved0: 0
 * @gid: the GID, network order; IPv4 as ``::ffff:a.b.c.d``
 * @reserved: 0
 *
 * SET_GID fails with BAD_PARAM for another port, an index beyond the
 * table, an unknown type or non-zero reserved fields. The GID table
 * belongs to the RDMA engine (a QP's &axon_qp_attr.sgid_index selects an
 * entry); a reset empties it.
 */
struct axon_admin_gid {
	__le32 port;
	__le32 index;
	__le32 type;
	__le32 reserved0;
	__u8 gid[16];
	__u8 reserved[24];
};

/**
 * DOC: Access flags
 *
 * The access rights of an MR (&axon_admin_mr.access) and a QP's remote
 * access (&axon_qp_attr.access), numbered as enum ib_access_flags::
 *
 *   0:0 : local_write - AXON_ACCESS_LOCAL_WRITE
 *   1:1 : remote_write - AXON_ACCESS_REMOTE_WRITE, needs LOCAL_WRITE on an MR
 *   2:2 : remote_read - AXON_ACCESS_REMOTE_READ
 *   3:3 : remote_atomic - AXON_ACCESS_REMOTE_ATOMIC, needs LOCAL_WRITE on
 *         an MR
 *   4:4 : mw_bind - AXON_ACCESS_MW_BIND, an MR's only, ``AXON_CAP_MW``:
 *         memory windows may be bound to it
 *
 * ``AXON_ACCESS_ALL`` is every bit a QP takes, ``AXON_ACCESS_MR_ALL``
 * every bit an MR takes; others are BAD_PARAM.
 */
#define AXON_ACCESS_LOCAL_WRITE		0x1
#define AXON_ACCESS_REMOTE_WRITE	0x2
#define AXON_ACCESS_REMOTE_READ		0x4
#define AXON_ACCESS_REMOTE_ATOMIC	0x8
#define AXON_ACCESS_ALL			0xf
#define AXON_ACCESS_MW_BIND		0x10
#define AXON_ACCESS_MR_ALL		0x1f

/**
 * DOC: Page lists
 *
 * An MR is a virtually contiguous range [iova, iova + length)
 * backed by npages pages of 2^page_shift bytes; the range starts at byte
 * (iova & (2^page_shift - 1)) of the first page, so npages must be
 * exactly DIV_ROUND_UP((iova & (2^page_shift - 1)) + length,
 * 2^page_shift) (0 for an empty MR). Entries are the DMA (bus) addresses
 * of the pages, 2^page_shift aligned, as __le64:
 *
 * - levels 1: pbl_addr is a contiguous array of npages entries;
 * - levels 2: pbl_addr is a contiguous array of DIV_ROUND_UP(npages,
 *   ``AXON_PBL_LEAF_ENTRIES``) pointers to 4 KiB aligned leaf pages of
 *   ``AXON_PBL_LEAF_ENTRIES`` entries each.
 *
 * The device copies the list before it completes CREATE_MR; the driver
 * may free it after the completion.
 *
 * Pages may be any bus address the device can reach, including another
 * PCI device's BAR (peer to peer: a dma-buf MR on GPU memory). For such
 * MRs the exporter may move the memory, so with ``AXON_CAP_PEER_MR``:
 *
 * - INVALIDATE_MR (key, other fields 0): from its completion on, the
 *   device no longer touches the MR's pages. The key stays allocated;
 *   every access through it fails as if out of bounds: a local access
 *   completes with ``AXON_WC_LOC_PROT_ERR``, a remote one is NAKed
 *   (remote access error) and the requester completes with
 *   ``AXON_WC_REM_ACCESS_ERR``; both move the QP to ERR and count in
 *   ``AXON_REG_STAT_MR_INVALID``. Invalidating an invalid MR succeeds.
 * - REMAP_MR (key, pbl_addr, npages, page_shift, levels as for
 *   CREATE_MR): gives a valid or invalidated MR a new page list for the
 *   same [iova, iova + length) and makes it valid. pdn, access, iova,
 *   length and the reserved bytes must be 0 (the MR's own are kept);
 *   BAD_PARAM if the list does not cover the range exactly, DMA_ERROR if
 *   it cannot be read. On failure the MR is left as it was.
 *
 * Both return BAD_HANDLE for an unknown or stale key.
 */
#define AXON_PBL_LEAF_ENTRIES		512
#define AXON_MR_MIN_PAGE_SHIFT		12
#define AXON_MR_MAX_PAGE_SHIFT		30
#define AXON_MR_MAX_PAGES		0x1000000 /* 2^24 */

/**
 * DOC: Keys
 *
 * The key of an MR, used as both lkey and rkey::
 *
 *   31:8 : index - the MR's slot in the device
 *   7:0  : tag - drawn at random at every registration, never the slot's
 *          previous tag, so a key of a deregistered MR fails even when
 *          its slot is taken again
 *
 * The device chooses the key (the slot too: the first free one from a
 * random point), so one valid key tells nothing of another; the driver
 * only passes it back. AXON_KEY(index, tag) builds a key, AXON_KEY_GET_INDEX()
 * and AXON_KEY_GET_TAG() take it apart.
 */
#define AXON_KEY_TAG_MASK		0xff
#define AXON_KEY_INDEX_SHIFT		8

#define AXON_KEY(index, tag) \
	((index) << AXON_KEY_INDEX_SHIFT | ((tag) & AXON_KEY_TAG_MASK))
#define AXON_KEY_GET_INDEX(key)		((key) >> AXON_KEY_INDEX_SHIFT)
#define AXON_KEY_GET_TAG(key)		((key) & AXON_KEY_TAG_MASK)

/**
 * DOC: Fast-registration MRs
 *
 * With ``AXON_CAP_FAST_REG``, CREATE_MR with ``AXON_MR_FAST_REG`` in
 * flags makes an MR that QPs register and invalidate with WQEs (see "Fast
 * registration" in axon_io_defs.h): pdn is its PD, npages the most pages
 * a registration may give it (<= &axon_dev_attr.max_fast_reg_pages);
 * access, iova, length, pbl_addr, page_shift and levels must be 0. It
 * starts invalid: every access through its key fails until a REG_MR WQE
 * gives it pages. DESTROY_MR frees it whatever its state and whatever the
 * tag of the key (the last REG_MR's, which the driver may not know);
 * INVALIDATE_MR and REMAP_MR are BAD_PARAM for it.
 *
 * With ``AXON_CAP_MW``, CREATE_MR with ``AXON_MR_MW_TYPE1`` or
 * ``AXON_MR_MW_TYPE2`` (and pdn; every other field 0) makes a memory
 * window of that type in the PD, unbound (see "Memory windows" in
 * axon_io_defs.h); DESTROY_MR frees it, bound or not, whatever the tag of
 * its key (a binding's tag is the consumer's choice). DESTROY_MR of an MR
 * with windows bound to it is BUSY.
 */
#define AXON_MR_FAST_REG		0x1
#define AXON_MR_MW_TYPE1		0x2
#define AXON_MR_MW_TYPE2		0x4
#define AXON_MR_ODP			0x8

/**
 * struct axon_admin_mr - CREATE_MR, DESTROY_MR, INVALIDATE_MR, REMAP_MR,
 *	REREG_MR
 * @pdn: CREATE_MR, REREG_MR: the MR's PD
 * @access: CREATE_MR, REREG_MR: ``AXON_ACCESS_*`` (see "Access flags")
 * @iova: CREATE_MR, REREG_MR: the virtual address of the first byte;
 *	iova + length must not wrap
 * @length: CREATE_MR, REREG_MR: bytes, may be 0, at most
 *	&axon_dev_attr.max_mr_size
 * @pbl_addr: CREATE_MR, REMAP_MR, REREG_MR: DMA address of the page list,
 *	8-byte aligned (see "Page lists")
 * @npages: CREATE_MR, REMAP_MR, REREG_MR: pages in the list,
 *	<= ``AXON_MR_MAX_PAGES``
 * @page_shift: CREATE_MR, REMAP_MR, REREG_MR: log2 of the page size,
 *	``AXON_MR_MIN_PAGE_SHIFT`` .. ``AXON_MR_MAX_PAGE_SHIFT``
 * @levels: CREATE_MR, REMAP_MR, REREG_MR: 1 or 2
 * @flags: CREATE_MR: one of ``AXON_MR_FAST_REG``, ``AXON_MR_MW_TYPE1``,
 *	``AXON_MR_MW_TYPE2``, ``AXON_MR_ODP``, or 0; else 0
 * @key: DESTROY_MR, INVALIDATE_MR, REMAP_MR, REREG_MR: the MR (see
 *	"Keys"); 0 for CREATE_MR
 * @reserved: 0
 *
 * Fields a command does not use must be 0. A key whose tag does not
 * match (a stale key) is BAD_HANDLE. REREG_MR checks what CREATE_MR
 * checks; it is BAD_PARAM for a fast-registration MR or a window, BUSY
 * while windows are bound to the MR, and changes nothing when it fails.
 * Accesses after its completion see only the new PD, access, range and
 * pages.
 */
struct axon_admin_mr {
	__le32 pdn;
	__le32 access;
	__le64 iova;
	__le64 length;
	__le64 pbl_addr;
	__le32 npages;
	__u8 page_shift;
	__u8 levels;
	__le16 flags;
	__le32 key;
	__u8 reserved[12];
};

/**
 * struct axon_admin_cq - CREATE_CQ, DESTROY_CQ and RESIZE_CQ
 * @ring_addr: CREATE_CQ, RESIZE_CQ: DMA address of the (new) ring, 4 KiB
 *	aligned (see "Completion queues"), or with @npages of its page list;
 *	DESTROY_CQ: 0
 * @depth: CREATE_CQ, RESIZE_CQ: CQEs, power of 2, ``AXON_CQ_MIN_DEPTH``
 *	.. ``AXON_CQ_MAX_DEPTH``; DESTROY_CQ: 0
 * @uar: CREATE_CQ: the doorbell page that may arm it, < ``AXON_REG_DB_PAGES``;
 *	otherwise 0
 * @cqn: DESTROY_CQ, RESIZE_CQ: the CQ; CREATE_CQ: 0
 * @npages: CREATE_CQ, RESIZE_CQ with ``AXON_CAP_CQ_PAGES``: 0 for a
 *	contiguous ring; else the ring and its consumer index record are in
 *	this many 4 KiB pages, exactly DIV_ROUND_UP(depth * the CQE size
 *	+ sizeof(&struct axon_cq_dbrec), 4096), listed at @ring_addr as an
 *	MR's pages are (see "Page lists"; page_shift 12). DESTROY_CQ: 0
 * @levels: with @npages: the page list's levels, 1 or 2; else 0
 * @flags: CREATE_CQ: ``AXON_CQ_TIMESTAMP`` with ``AXON_CAP_CLOCK`` for
 *	CQEs that carry the device clock, or 0; RESIZE_CQ: the CQ's flags
 *	again; DESTROY_CQ: 0. They set the CQE size, and with it @npages.
 * @reserved: 0
 *
 * CREATE_CQ fails with NO_RESOURCES once there are @max_cq CQs, and when
 * no CEQ is programmed. A device may hold more CQs than its CEQ has
 * entries: a completion event that finds the CEQ full waits in the device,
 * in the order the events came, until the driver moves the CEQ head.
 * Unknown @flags, or ``AXON_CQ_TIMESTAMP`` without ``AXON_CAP_CLOCK``, are
 * BAD_PARAM. RESIZE_CQ fails with BAD_PARAM when @flags are not the
 * CQ's, when more CQEs wait to be consumed than the new depth holds, or
 * the CQ overflowed; with DMA_ERROR when the old
 * or new ring cannot be accessed. A failed RESIZE_CQ leaves the CQ on its
 * old ring.
 */
struct axon_admin_cq {
	__le64 ring_addr;
	__le32 depth;
	__le32 uar;
	__le32 cqn;
	__le32 npages;
	__u8 levels;
	__u8 flags;
	__u8 reserved[30];
};

/**
 * enum axon_qp_type - &axon_admin_create_qp.type
 * @AXON_QPT_RC: reliable connected
 * @AXON_QPT_UD: unreliable datagram, ``AXON_CAP_UD`` (see "Datagrams" in
 *	axon_io_defs.h)
 * @AXON_QPT_UC: unreliable connected, ``AXON_CAP_UC`` (see "Unreliable
 *	connections" in axon_io_defs.h)
 * @AXON_QPT_GSI: the general services QP, ``AXON_CAP_GSI``: a UD QP whose
 *	number is ``AXON_GSI_QPN``, one at a time (another CREATE_QP of this
 *	type fails with NO_RESOURCES until it is destroyed; see "The GSI QP"
 *	in axon_io_defs.h)
 * @AXON_QPT_RUD: reliable unordered delivery, ``AXON_CAP_RUD``: connected
 *	like an RC QP, its packets sprayed over the planes and placed as they
 *	arrive (see "Reliable unordered delivery" in axon_io_defs.h)
 * @AXON_QPT_XRC_INI: ``AXON_CAP_XRC``: an XRC initiator: an RC requester
 *	whose WQEs name the target's XRC SRQ; a send queue and its CQ, no
 *	receive queue (see "Extended reliable connections" in axon_io_defs.h)
 * @AXON_QPT_XRC_TGT: ``AXON_CAP_XRC``: an XRC target: an RC responder of
 *	an XRC domain, with no queue, CQ or PD of its own
 */
enum axon_qp_type {
	AXON_QPT_RC	= 0,
	AXON_QPT_UD	= 1,
	AXON_QPT_UC	= 2,
	AXON_QPT_GSI	= 3,
	AXON_QPT_RUD	= 4,
	AXON_QPT_XRC_INI = 5,
	AXON_QPT_XRC_TGT = 6,
};

/**
 * struct axon_admin_create_qp - CREATE_QP
 * @pdn: the QP's PD
 * @send_cqn: the CQ of the send queue's completions
 * @recv_cqn: the CQ of the receive queue's completions
 * @uar: the doorbell page allowed to ring it, < ``AXON_REG_DB_PAGES``
 * @sq_addr: DMA address of the send queue, aligned to its WQE size,
 *	2^@sq_wqe_shift (see "Queue pairs")
 * @rq_addr: DMA address of the receive queue, aligned to 2^@rq_wqe_shift;
 *	0 with an SRQ
 * @sq_depth: send WQEs, power of 2, ``AXON_WQ_MIN_DEPTH`` ..
 *	``AXON_WQ_MAX_DEPTH``
 * @rq_depth: receive WQEs, the same; 0 with an SRQ
 * @sq_wqe_shift: log2 of the send WQE slot, ``AXON_SQ_MIN_WQE_SHIFT`` ..
 *	``AXON_WQE_MAX_SHIFT``
 * @rq_wqe_shift: log2 of the receive WQE slot, ``AXON_RQ_MIN_WQE_SHIFT``
 *	.. ``AXON_WQE_MAX_SHIFT``; 0 with an SRQ
 * @sq_sig_all: 1: every send WQE completes as if ``AXON_WQE_SIGNALED``;
 *	0 or 1
 * @type: &enum axon_qp_type; another value is BAD_PARAM
 * @srqn: ``AXON_CAP_SRQ``: take receive WQEs from this SRQ, which needs no
 *	RQ of the QP's own; 0: the QP's own RQ
 * @xrcdn: ``AXON_QPT_XRC_TGT``: its XRC domain, not 0; 0 otherwise
 * @flags: ``AXON_QP_SQ_DBREC`` (``AXON_CAP_SQ_DBREC``): the send queue is
 *	followed by a &struct axon_sq_dbrec (see "Send queue doorbell
 *	records" in axon_io_defs.h); another bit is BAD_PARAM
 * @reserved: 0
 *
 * An ``AXON_QPT_XRC_INI`` QP has no receive queue: @recv_cqn, @rq_addr,
 * @rq_depth, @rq_wqe_shift and @srqn are 0. An ``AXON_QPT_XRC_TGT`` QP has
 * no queue at all: only @type, @xrcdn and @uar may be set.
 */
struct axon_admin_create_qp {
	__le32 pdn;
	__le32 send_cqn;
	__le32 recv_cqn;
	__le32 uar;
	__le64 sq_addr;
	__le64 rq_addr;
	__le16 sq_depth;
	__le16 rq_depth;
	__u8 sq_wqe_shift;
	__u8 rq_wqe_shift;
	__u8 sq_sig_all;
	__u8 type;
	__le32 srqn;
	__le32 xrcdn;
	__u8 flags;
	__u8 reserved[7];
};

#define AXON_QP_SQ_DBREC		0x1

/**
 * DOC: Shared receive queues
 *
 * With ``AXON_CAP_SRQ`` (interface 1.5). A shared receive queue is a ring
 * of receive WQEs in the format of a QP's receive queue (see "Queue
 * pairs"), rung at ``AXON_DB_SRQ``. QPs created with its srqn take their
 * receive WQEs from it, one at a time in ring order, each when a message
 * needs one; the completion goes to the QP's recv CQ with the SRQ's slot
 * as wqe_index. The device copies a WQE when a QP takes it, so the
 * consumer may reuse a slot as soon as fewer than depth of its WQEs are
 * not completed, whatever the order of their completions. The SGEs'
 * lkeys are checked against the SRQ's PD, not the QP's.
 *
 * The limit: when it is not 0 and a QP takes a WQE that leaves fewer than
 * limit WQEs in the ring, the device posts ``AXON_EVENT_SRQ_LIMIT`` once
 * and sets the limit to 0; MODIFY_SRQ arms it again. A QP on an SRQ that
 * enters ERR flushes only the WQE it had taken (if any), leaves the
 * others to the SRQ's other QPs and posts ``AXON_EVENT_QP_LAST_WQE``. A WQE
 * a QP had taken when it is destroyed or reset in the middle of a message
 * is lost without a completion.
 */

/**
 * struct axon_admin_srq - CREATE_SRQ, MODIFY_SRQ, QUERY_SRQ, DESTROY_SRQ
 * @ring_addr: CREATE_SRQ: DMA address of the ring, 4 KiB aligned
 * @pdn: CREATE_SRQ: the PD of the WQEs' lkeys
 * @uar: CREATE_SRQ: the doorbell page allowed to ring it
 * @depth: CREATE_SRQ: WQEs, power of 2, ``AXON_WQ_MIN_DEPTH`` ..
 *	``AXON_WQ_MAX_DEPTH``
 * @wqe_shift: CREATE_SRQ: log2 of the WQE slot, ``AXON_RQ_MIN_WQE_SHIFT``
 *	.. ``AXON_WQE_MAX_SHIFT``
 * @reserved0: 0
 * @limit: CREATE_SRQ, MODIFY_SRQ: below depth; 0: disarmed
 * @srqn: MODIFY_SRQ, QUERY_SRQ, DESTROY_SRQ; 0 in CREATE_SRQ
 * @xrcdn: CREATE_SRQ, ``AXON_CAP_XRC``: not 0 for an XRC SRQ, its XRC
 *	domain: it serves that domain's XRC target QPs, not QPs created with
 *	its srqn
 * @cqn: CREATE_SRQ of an XRC SRQ: the CQ of its receive completions; 0
 *	otherwise
 * @reserved: 0
 *
 * Fields a command does not use must be 0.
 */
struct axon_admin_srq {
	__le64 ring_addr;
	__le32 pdn;
	__le32 uar;
	__le16 depth;
	__u8 wqe_shift;
	__u8 reserved0;
	__le32 limit;
	__le32 srqn;
	__le32 xrcdn;
	__le32 cqn;
	__u8 reserved[20];
};

/**
 * DOC: QP attribute mask
 *
 * &axon_admin_modify_qp.attr_mask: which fields of &struct axon_qp_attr
 * MODIFY_QP applies; unknown bits are BAD_PARAM.
 *
 * ==================================== ==================================
 * ``AXON_QP_ATTR_STATE``               state
 * ``AXON_QP_ATTR_ACCESS``              access
 * ``AXON_QP_ATTR_PATH``                dmac, dgid, sgid_index, hop_limit,
 *                                      tclass, flow_label, udp_sport
 * ``AXON_QP_ATTR_PATH_MTU``            path_mtu
 * ``AXON_QP_ATTR_DEST_QPN``            dest_qpn
 * ``AXON_QP_ATTR_RQ_PSN``              rq_psn
 * ``AXON_QP_ATTR_SQ_PSN``              sq_psn
 * ``AXON_QP_ATTR_TIMEOUT``             timeout
 * ``AXON_QP_ATTR_RETRY_CNT``           retry_cnt
 * ``AXON_QP_ATTR_RNR_RETRY``           rnr_retry
 * ``AXON_QP_ATTR_MIN_RNR_TIMER``       min_rnr_timer
 * ``AXON_QP_ATTR_MAX_RD_ATOMIC``       max_rd_atomic
 * ``AXON_QP_ATTR_MAX_DEST_RD_ATOMIC``  max_dest_rd_atomic
 * ``AXON_QP_ATTR_QKEY``                qkey (UD)
 * ``AXON_QP_ATTR_PEER_KEY``            peer_key_lo, peer_key_hi (RUD,
 *                                      ``AXON_CAP_RUD_KEYS``)
 * ``AXON_QP_ATTR_CUR_STATE``           cur_state: the state the driver
 *                                      believes the QP is in
 *                                      (``AXON_CAP_QP_CUR_STATE``)
 * ``AXON_QP_ATTR_ALL``                 every bit above
 * ==================================== ==================================
 */
#define AXON_QP_ATTR_STATE		0x00001
#define AXON_QP_ATTR_ACCESS		0x00002
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
#define AXON_QP_ATTR_QKEY		0x02000
#define AXON_QP_ATTR_PEER_KEY		0x04000
#define AXON_QP_ATTR_CUR_STATE		0x08000
#define AXON_QP_ATTR_ALL		0x0ffff

/**
 * enum axon_qp_state - QP states, numbered as enum ib_qp_state
 * @AXON_QPS_RESET: no queue state; the initial state
 * @AXON_QPS_INIT: initialised
 * @AXON_QPS_RTR: ready to receive
 * @AXON_QPS_RTS: ready to send
 * @AXON_QPS_SQD: send queue drained: not supported (BAD_STATE)
 * @AXON_QPS_SQE: send queue error
 * @AXON_QPS_ERR: error: both queues flush
 */
enum axon_qp_state {
	AXON_QPS_RESET	= 0,
	AXON_QPS_INIT	= 1,
	AXON_QPS_RTR	= 2,
	AXON_QPS_RTS	= 3,
	AXON_QPS_SQD	= 4,
	AXON_QPS_SQE	= 5,
	AXON_QPS_ERR	= 6,
};

/**
 * struct axon_qp_attr - the QP attributes MODIFY_QP writes and QUERY_QP
 *	returns, 80 bytes
 * @state: &enum axon_qp_state, <= ERR
 * @access: ``AXON_ACCESS_REMOTE_*`` the QP accepts as responder, within
 *	``AXON_ACCESS_ALL``
 * @dest_qpn: the peer's QP, 24 bits (``AXON_QPN_MASK``)
 * @rq_psn: the first PSN the responder expects, 24 bits
 *	(``AXON_PSN_MASK``)
 * @sq_psn: the first PSN the requester sends, 24 bits
 * @path_mtu: bytes: 256, 512, 1024, 2048 or 4096
 * @dmac: the next hop's Ethernet address, not multicast
 * @sgid_index: the source GID: an entry in use of the port's GID table
 * @hop_limit: IPv4 TTL or IPv6 hop limit; 0: 64
 * @dgid: the destination GID, network order; IPv4 as ``::ffff:a.b.c.d``
 * @flow_label: IPv6 flow label, 20 bits (``AXON_FLOW_LABEL_MASK``)
 * @udp_sport: RoCEv2 UDP source port, a host order value; 0:
 *	0xc000 | qpn
 * @tclass: IPv4 TOS or IPv6 traffic class
 * @timeout: local ACK timeout, 4.096 us * 2^timeout (at least 10 ms in
 *	the model), 0: none; <= 31
 * @retry_cnt: timeouts without progress before ``AXON_WC_RETRY_EXC_ERR``,
 *	0..7
 * @rnr_retry: RNR NAKs retried before ``AXON_WC_RNR_RETRY_EXC_ERR``,
 *	0..7, 7: infinite
 * @min_rnr_timer: the RNR NAK timer the responder sends, IB encoding,
 *	0..31
 * @max_rd_atomic: READs and atomics in flight as requester (0 counts as
 *	1), <= ``AXON_MAX_RD_ATOMIC``
 * @max_dest_rd_atomic: READs and atomics in flight as responder,
 *	<= ``AXON_MAX_RD_ATOMIC``
 * @cur_state: &enum axon_qp_state the QP must be in for the command to
 *	apply (``AXON_QP_ATTR_CUR_STATE``); QUERY_QP returns 0 here
 * @reserved0: 0
 * @qkey: UD: the Q_Key its receives must carry, and that sends whose
 *	WQE Q_Key has bit 31 set carry
 * @peer_key_lo: RUD: bits 31:0 of the peer QP's receive key (the result
 *	of the MODIFY_QP that took the peer out of RESET), which every packet
 *	this QP sends carries (see "RUD connection keys" in axon_io_defs.h);
 *	never 0. Write-only: QUERY_QP returns 0 here.
 * @peer_key_hi: RUD: its bits 63:32
 * @reserved: 0
 *
 * MODIFY_QP applies the fields named in &axon_admin_modify_qp.attr_mask
 * (see "QP attribute mask"); values are checked whatever the transition
 * and a bad one is BAD_PARAM. Allowed transitions (others: BAD_STATE):
 * any -> RESET (forgets all queue state), any -> ERR (flushes both
 * queues with ``AXON_WC_WR_FLUSH_ERR``), RESET -> INIT, INIT -> INIT,
 * INIT -> RTR (needs PATH, PATH_MTU, DEST_QPN, RQ_PSN), RTR -> RTS (needs
 * SQ_PSN), RTS -> RTS and SQE -> RTS (ACCESS and MIN_RNR_TIMER only).
 *
 * A UD QP takes STATE, QKEY and SQ_PSN only (any other bit is BAD_PARAM):
 * RESET -> INIT and INIT -> INIT (QKEY), INIT -> RTR (QKEY optional),
 * RTR -> RTS (SQ_PSN, QKEY optional), RTS -> RTS and SQE -> RTS (QKEY).
 * Its messages take the port's MTU (&axon_port_attr.active_mtu).
 *
 * A UC QP takes RC's transitions with STATE, ACCESS (``AXON_ACCESS_REMOTE_WRITE``
 * only), PATH, PATH_MTU, DEST_QPN, RQ_PSN and SQ_PSN; any other bit is
 * BAD_PARAM.
 *
 * A RUD QP takes RC's attributes and transitions, and PEER_KEY, which
 * INIT -> RTR requires (BAD_STATE without it) and no other transition
 * takes (BAD_STATE); another type's QP: BAD_PARAM, as is a key of 0. Its
 * MODIFY_QP from RESET to INIT draws the QP's receive key at random and
 * returns it as the command's result (see "RUD connection keys" in
 * axon_io_defs.h).
 *
 * With ``AXON_QP_ATTR_CUR_STATE`` (any QP type) the command applies only
 * if the QP is in cur_state: otherwise it is BAD_STATE and changes
 * nothing, so a driver may name the state it last set (the device may
 * have moved the QP to SQE or ERR since) instead of asking with QUERY_QP
 * first, and ask only when refused.
 */
struct axon_qp_attr {
	__le32 state;
	__le32 access;
	__le32 dest_qpn;
	__le32 rq_psn;
	__le32 sq_psn;
	__le32 path_mtu;
	__u8 dmac[6];
	__u8 sgid_index;
	__u8 hop_limit;
	__u8 dgid[16];
	__le32 flow_label;
	__le16 udp_sport;
	__u8 tclass;
	__u8 timeout;
	__u8 retry_cnt;
	__u8 rnr_retry;
	__u8 min_rnr_timer;
	__u8 max_rd_atomic;
	__u8 max_dest_rd_atomic;
	__u8 cur_state;
	__u8 reserved0[2];
	__le32 qkey;
	__le32 peer_key_lo;
	__le32 peer_key_hi;
	__u8 reserved[4];
};

/**
 * DOC: QPN and PSN widths
 *
 * ``AXON_QPN_MASK``, ``AXON_PSN_MASK`` and ``AXON_FLOW_LABEL_MASK`` are
 * the widths of the QP attributes that travel in packet headers (BTH,
 * GRH), also of the QPNs and PSNs the transport computes modulo 2^24.
 * MODIFY_QP fails with BAD_PARAM for a wider value.
 */
#define AXON_QPN_MASK			0xffffff
#define AXON_PSN_MASK			0xffffff
#define AXON_FLOW_LABEL_MASK		0xfffff

/**
 * DOC: QP live flags
 *
 * &struct axon_qp_live ``flags``::
 *
 *   0:0 : timer - AXON_QP_LIVE_TIMER, the ACK timeout (or RNR wait) timer
 *         is counting (a timer left to run out with nothing in flight is
 *         not shown)
 *   1:1 : rnr_wait - AXON_QP_LIVE_RNR_WAIT, waiting out an RNR NAK
 *   2:2 : nak_sent - AXON_QP_LIVE_NAK_SENT, the responder sent a PSN
 *         sequence error NAK and waits for the retransmission
 *   3:3 : sq_stopped - AXON_QP_LIVE_SQ_STOPPED, a WQE failed: the
 *         requester sends nothing new
 *   4:4 : cc_paced - AXON_QP_LIVE_CC_PACED, ``AXON_CAP_CC``: a CNP cut the
 *         requester's rate and it has not climbed back to line rate yet
 *   7:6 : plane - ``AXON_CAP_PLANES``: the plane an RC or UC QP sends on
 *         (see "Planes" in axon_regs_defs.h; UD: 0, each datagram goes on
 *         its address's plane); AXON_QP_LIVE_GET_PLANE()
 */
#define AXON_QP_LIVE_TIMER		0x1
#define AXON_QP_LIVE_RNR_WAIT		0x2
#define AXON_QP_LIVE_NAK_SENT		0x4
#define AXON_QP_LIVE_SQ_STOPPED	0x8
#define AXON_QP_LIVE_CC_PACED		0x10
#define AXON_QP_LIVE_PLANE_SHIFT	6
#define AXON_QP_LIVE_PLANE_MASK		0x3
#define AXON_QP_LIVE_GET_PLANE(flags) \
	(((flags) >> AXON_QP_LIVE_PLANE_SHIFT) & AXON_QP_LIVE_PLANE_MASK)
#define AXON_QP_LIVE_PLANE(plane) \
	(((plane) & AXON_QP_LIVE_PLANE_MASK) << AXON_QP_LIVE_PLANE_SHIFT)

/**
 * struct axon_qp_counters - what a QP, or a counter set's QPs, counted
 * @tx_pkts: packets sent, retransmissions included
 * @tx_bytes: their payload bytes
 * @rx_pkts: packets accepted for the QP
 * @rx_bytes: their payload bytes
 * @retrans: packets sent again
 * @timeouts: ACK timeouts
 * @seq_naks_sent: PSN sequence error NAKs sent (out-of-order requests)
 * @rnr_naks_sent: RNR NAKs sent (no receive WQE)
 * @err_naks_sent: other NAKs sent (access, operation, request errors)
 * @seq_naks_rcvd: PSN sequence error NAKs received
 * @rnr_naks_rcvd: RNR NAKs received
 * @err_naks_rcvd: other NAKs received
 * @out_of_seq: requests ahead of the expected PSN, dropped
 * @dup_reqs: requests behind it (duplicates), answered or dropped
 * @stray: packets matching no state of the QP, dropped
 * @local_errs: completions with a local error (``AXON_WC_LOC_*``,
 *	MW_BIND_ERR)
 * @remote_errs: completions with a remote error (``AXON_WC_REM_*``,
 *	BAD_RESP_ERR, RETRY_EXC_ERR, RNR_RETRY_EXC_ERR)
 */
struct axon_qp_counters {
	__le64 tx_pkts;
	__le64 tx_bytes;
	__le64 rx_pkts;
	__le64 rx_bytes;
	__le64 retrans;
	__le64 timeouts;
	__le64 seq_naks_sent;
	__le64 rnr_naks_sent;
	__le64 err_naks_sent;
	__le64 seq_naks_rcvd;
	__le64 rnr_naks_rcvd;
	__le64 err_naks_rcvd;
	__le64 out_of_seq;
	__le64 dup_reqs;
	__le64 stray;
	__le64 local_errs;
	__le64 remote_errs;
};

/**
 * struct axon_qp_live - QUERY_QP_LIVE: a QP's transport, as it is now
 * @state: &enum axon_qp_state
 * @sq_psn: the requester's next PSN to send
 * @una_psn: the oldest PSN not acknowledged yet (RC); @psn_hi when every
 *	send WQE taken is completed
 * @psn_hi: one after the highest PSN sent
 * @epsn: the responder's next expected PSN
 * @msn: the responder's message sequence number
 * @sq_fetched: send WQEs taken from the SQ, mod 2^16
 * @sq_completed: send WQEs completed, mod 2^16; @sq_fetched minus it is
 *	the send window in use
 * @retry_left: ACK timeouts and sequence NAKs left before RETRY_EXC_ERR
 * @rnr_left: RNR NAKs left before RNR_RETRY_EXC_ERR (7: unlimited)
 * @reads_inflight: READ and atomic WQEs in the send window, not completed
 * @flags: ``AXON_QP_STATE_*`` (see "QP live flags")
 * @cnt: the QP's counters, kept from its creation; UD and UC QPs keep
 *	the packet counters and their PSNs, the rest stays 0
 */
struct axon_qp_live {
	__le32 state;
	__le32 sq_psn;
	__le32 una_psn;
	__le32 psn_hi;
	__le32 epsn;
	__le32 msn;
	__le16 sq_fetched;
	__le16 sq_completed;
	__u8 retry_left;
	__u8 rnr_left;
	__u8 reads_inflight;
	__u8 flags;
	struct axon_qp_counters cnt;
};

/**
 * struct axon_admin_modify_qp - MODIFY_QP, QUERY_QP, QUERY_QP_LIVE and
 *	DESTROY_QP
 * @qpn: the QP
 * @attr_mask: MODIFY_QP: ``AXON_QP_ATTR_*``; QUERY_QP, QUERY_QP_LIVE,
 *	DESTROY_QP: 0
 * @attr_addr: MODIFY_QP: DMA address of a &struct axon_qp_attr to apply;
 *	QUERY_QP: where to write it; QUERY_QP_LIVE: where to write the
 *	&struct axon_qp_live; DESTROY_QP: 0
 * @reserved: 0
 */
struct axon_admin_modify_qp {
	__le32 qpn;
	__le32 attr_mask;
	__le64 attr_addr;
	__u8 reserved[40];
};

/**
 * DOC: Wire test
 *
 * A test device (the model) can impair its own wire, as its properties
 * ``x-tx-drop-every`` and ``x-tx-reorder-every`` do from the start, so
 * that loss and reordering can be turned on and off during a run. The
 * port counts the frames it sends; with drop_every N, every Nth is lost;
 * with reorder_every N, every Nth is held back and sent after the next
 * one. 0 turns an impairment off. A reset brings back the properties'
 * values. Only the device's own transmissions are affected.
 */
#define AXON_WIRE_TEST_DROP		0x1
#define AXON_WIRE_TEST_REORDER		0x2

/**
 * struct axon_admin_wire_test - WIRE_TEST
 * @mask: which fields to apply: ``AXON_WIRE_TEST_DROP``,
 *	``AXON_WIRE_TEST_REORDER``; 0 only reads them; BAD_PARAM for other
 *	bits
 * @drop_every: lose every Nth frame sent; 0: none
 * @reorder_every: send every Nth frame after the next one; 0: none
 * @reserved: 0
 */
struct axon_admin_wire_test {
	__le32 mask;
	__le32 drop_every;
	__le32 reorder_every;
	__u8 reserved[44];
};

/**
 * DOC: Counter sets
 *
 * With ``AXON_CAP_COUNTER_SETS`` (interface 1.11) the port has
 * ``AXON_MAX_COUNTER_SETS`` counter sets. Set 0 is the port's own: the
 * ``AXON_REG_STAT_*`` registers. ALLOC_COUNTER_SET hands out the others
 * (1 and up), FREE_COUNTER_SET takes one back, and a reset frees them
 * all. Every QP counts in exactly one set: in set 0 from its creation,
 * then in the one BIND_COUNTER_SET last named. A set's counters
 * (QUERY_COUNTER_SET) are those of &struct axon_qp_counters: what its QPs
 * counted while they were in it, kept when a QP leaves the set or is
 * destroyed, from the set's allocation on.
 *
 * What a QP counts while it is in a set other than 0 leaves the port's
 * registers that a QP's counters make up untouched: TX_PKTS, RX_PKTS,
 * RETRANS, NAKS (every NAK kind, sent and received), DUP_REQS, OUT_OF_SEQ
 * and STRAY; so does what it counted there once the set is freed. The
 * port's totals are therefore its registers plus the counters of every
 * set, each packet counted once, the way the RDMA core adds a port's
 * bound counters to its own. The other registers count the whole port.
 */
#define AXON_MAX_COUNTER_SETS		64

/**
 * struct axon_admin_counter_set - ALLOC_, FREE_, BIND_ and
 *	QUERY_COUNTER_SET
 * @set: FREE_, BIND_ and QUERY_COUNTER_SET: the set (BIND_: 0 is the
 *	port's); ALLOC_COUNTER_SET: 0. BAD_HANDLE for a set not allocated.
 * @qpn: BIND_COUNTER_SET: the QP; otherwise 0
 * @resp_addr: QUERY_COUNTER_SET: DMA address of a &struct
 *	axon_qp_counters; otherwise 0
 * @reserved: 0
 */
struct axon_admin_counter_set {
	__le32 set;
	__le32 qpn;
	__le64 resp_addr;
	__u8 reserved[40];
};

/**
 * DOC: Multicast groups
 *
 * With ``AXON_CAP_MCAST`` a UD QP receives the datagrams sent to the
 * multicast groups it is attached to (IBA 10.5, RoCE annex A17.4.5): a
 * RoCEv2 packet to destination QP ``AXON_MCAST_QPN`` whose destination IP
 * address is a group's GID (``ff00::/8``, or ``::ffff:224.0.0.0/4`` for
 * IPv4) is delivered to every QP attached to that group whose Q_Key it
 * carries, each taking a receive WQE of its own; the packet is dropped
 * and counted in ``AXON_REG_STAT_RX_DROPS`` when no QP is attached.
 * A UD send to ``AXON_MCAST_QPN`` with a group's GID and its multicast
 * Ethernet address goes on the wire and, like a switch that sends a
 * group's traffic to every member, to the QPs of this device attached to
 * the group, the sending QP included.
 *
 * ATTACH_MCAST: BAD_HANDLE for no such QP; BAD_PARAM for a QP that is not
 * UD (QP 1 included) or a GID that is not multicast; NO_RESOURCES when
 * the group would be the device's ``AXON_MAX_MCAST_GRP`` + 1st, or its
 * ``AXON_MAX_MCAST_QP_ATTACH`` + 1st QP. Attaching a QP again succeeds
 * and changes nothing. DETACH_MCAST: BAD_HANDLE for a QP not attached to
 * the group; the group goes when its last QP does. DESTROY_QP detaches
 * the QP from every group.
 */
#define AXON_MCAST_QPN			0xffffff
#define AXON_MAX_MCAST_GRP		1024
#define AXON_MAX_MCAST_QP_ATTACH	64

/**
 * DOC: On-demand paging
 *
 * With ``AXON_CAP_ODP``, CREATE_MR with ``AXON_MR_ODP`` in flags makes an
 * MR whose pages the driver gives and takes back while it lives, as the
 * host's memory manager maps and unmaps them: pdn, access, iova, length,
 * npages and page_shift as for any MR; pbl_addr and levels must be 0.
 * Every page starts absent. REMAP_MR, INVALIDATE_MR and REREG_MR are
 * BAD_PARAM for it.
 *
 * - MAP_PAGES (key, first, npages, pbl_addr, levels): entries
 *   [first, first + npages) of the MR's page list become the list at
 *   pbl_addr (levels 1 or 2, as for CREATE_MR). An entry is a page's DMA
 *   address, 2^page_shift aligned, with ``AXON_ODP_PAGE_PRESENT`` set and
 *   ``AXON_ODP_PAGE_WRITE`` set if the device may write the page; an
 *   entry of 0 makes the page absent. Other low bits must be 0.
 * - UNMAP_PAGES (key, first, npages; pbl_addr and levels 0): those pages
 *   become absent. From the completion on, the device does not touch them.
 * - Both are BAD_HANDLE for an unknown or stale key, BAD_PARAM for an MR
 *   without ``AXON_MR_ODP`` or a range past its pages, DMA_ERROR if the
 *   list cannot be read; on failure nothing changes.
 *
 * A QP that needs an absent page (or to write a page without
 * ``AXON_ODP_PAGE_WRITE``) waits: the device posts one
 * ``AXON_EVENT_PAGE_FAULT`` naming the QP and the pages (see "Page fault
 * events" in axon_admin_defs.h) and, until RESUME_QP for the QP:
 *
 * - as requester, sends nothing more; a READ response or an atomic ACK
 *   that needs the page is dropped and asked for again after RESUME_QP;
 * - as responder (RC and XRC), answers a SEND or an RDMA WRITE that needs
 *   the page with an RNR NAK (the QP's min_rnr_timer), and drops a READ or
 *   an atomic request (the requester retries at its ACK timeout); UC and
 *   UD drop the packet.
 *
 * RESUME_QP (qpn, status): ``AXON_ODP_RESUME_OK``: the QP goes on, and
 * may fault again; ``AXON_ODP_RESUME_FAILED``: the pages cannot be
 * mapped; from then on an access of the QP that finds a page absent fails
 * as one out of bounds does: locally with ``AXON_WC_LOC_PROT_ERR``,
 * remotely with a remote access error NAK (the requester completes with
 * ``AXON_WC_REM_ACCESS_ERR``); the QP moves to ERR. A reset of the QP
 * forgets it. BAD_HANDLE for an unknown QP; RESUME_QP of a QP that is not
 * waiting succeeds and changes nothing. If the async event queue is full,
 * the fault is not posted and the QP moves to ERR (``AXON_WC_LOC_PROT_ERR``)
 * rather than wait for an event nobody will see.
 */
#define AXON_ODP_PAGE_PRESENT		0x1
#define AXON_ODP_PAGE_WRITE		0x2
#define AXON_ODP_RESUME_OK		0
#define AXON_ODP_RESUME_FAILED		1

/**
 * struct axon_admin_odp - MAP_PAGES, UNMAP_PAGES and RESUME_QP
 * @key: MAP_PAGES, UNMAP_PAGES: the ``AXON_MR_ODP`` MR; else 0
 * @first: MAP_PAGES, UNMAP_PAGES: the first page, an index into the MR's
 *	pages; else 0
 * @npages: MAP_PAGES, UNMAP_PAGES: pages, at least 1; else 0
 * @qpn: RESUME_QP: the QP; else 0
 * @pbl_addr: MAP_PAGES: DMA address of the entries (see "On-demand
 *	paging"); else 0
 * @levels: MAP_PAGES: 1 or 2; else 0
 * @status: RESUME_QP: ``AXON_ODP_RESUME_OK`` or ``AXON_ODP_RESUME_FAILED``;
 *	else 0
 * @reserved: 0
 */
struct axon_admin_odp {
	__le32 key;
	__le32 first;
	__le32 npages;
	__le32 qpn;
	__le64 pbl_addr;
	__u8 levels;
	__u8 status;
	__u8 reserved[30];
};

/**
 * struct axon_admin_mcast - ATTACH_MCAST and DETACH_MCAST
 * @qpn: the UD QP
 * @reserved0: 0
 * @gid: the group's multicast GID, network order
 * @reserved: 0
 */
struct axon_admin_mcast {
	__le32 qpn;
	__le32 reserved0;
	__u8 gid[16];
	__u8 reserved[32];
};

/**
 * struct axon_admin_cmd - an admin command, 64 bytes
 * @opcode: &enum axon_admin_opcode
 * @command_id: chosen by the driver, echoed in &axon_admin_cqe.command_id
 * @flags: reserved, must be 0
 * @query: QUERY_DEVICE, QUERY_PORT
 * @pd: CREATE_PD, DESTROY_PD
 * @gid: SET_GID
 * @mr: CREATE_MR, DESTROY_MR, INVALIDATE_MR, REMAP_MR
 * @cq: CREATE_CQ, DESTROY_CQ, RESIZE_CQ
 * @create_qp: CREATE_QP
 * @qp: MODIFY_QP, QUERY_QP, DESTROY_QP
 * @srq: CREATE_SRQ, MODIFY_SRQ, QUERY_SRQ, DESTROY_SRQ
 * @wire_test: WIRE_TEST
 * @counter_set: ALLOC_, FREE_, BIND_ and QUERY_COUNTER_SET
 * @mcast: ATTACH_MCAST, DETACH_MCAST
 * @odp: MAP_PAGES, UNMAP_PAGES, RESUME_QP
 * @raw: the 56 bytes of parameters; unused and reserved bytes must be 0
 */
struct axon_admin_cmd {
	__le16 opcode;
	__le16 command_id;
	__le32 flags;
	union {
		struct axon_admin_query query;
		struct axon_admin_pd pd;
		struct axon_admin_gid gid;
		struct axon_admin_mr mr;
		struct axon_admin_cq cq;
		struct axon_admin_create_qp create_qp;
		struct axon_admin_modify_qp qp;
		struct axon_admin_srq srq;
		struct axon_admin_wire_test wire_test;
		struct axon_admin_counter_set counter_set;
		struct axon_admin_mcast mcast;
		struct axon_admin_odp odp;
		__u8 raw[56];
	};
};

/**
 * struct axon_dev_attr - the QUERY_DEVICE response: the device's limits
 * @max_mr_size: bytes of one MR (2^40 in the model)
 * @page_size_cap: MR page sizes, a bit per power of 2 (4 KiB, 2 MiB,
 *	1 GiB; any 2^12..2^30 is accepted)
 * @sys_image_guid: the node GUID: the EUI-64 of @mac
 * @vendor_part_id: ``AXON_PCI_DEVICE_ID_NIC``
 * @hw_ver: the PCI revision
 * @max_qp: QPs (65536: qpn 2..65537; 0 and 1 are never used)
 * @max_qp_wr: WQEs per work queue (``AXON_WQ_MAX_DEPTH``)
 * @max_sge: SGEs per WQE, send and receive (``AXON_MAX_SGE``)
 * @max_cq: CQs (65536: cqn 1..65536, whatever ``AXON_REG_CEQ_DEPTH``)
 * @max_cqe: CQ depth (``AXON_CQ_MAX_DEPTH``)
 * @max_mr: MRs (65536: key index 1..65536)
 * @max_pd: PDs (the model's property ``max-pd``, default 1024)
 * @max_qp_rd_atom: READs and atomics in flight per QP, each way
 *	(``AXON_MAX_RD_ATOMIC``)
 * @max_inline: inline bytes per send WQE (``AXON_MAX_INLINE``)
 * @num_ports: 1
 * @mac: the port's Ethernet address
 * @max_srq_sge: ``AXON_CAP_SRQ``: SGEs per SRQ WQE (``AXON_MAX_SGE``)
 * @max_srq: ``AXON_CAP_SRQ``: SRQs (1024: srqn 1..1024)
 * @max_srq_wr: ``AXON_CAP_SRQ``: WQEs per SRQ (``AXON_WQ_MAX_DEPTH``)
 * @max_fast_reg_pages: ``AXON_CAP_FAST_REG``: pages of one fast
 *	registration (``AXON_FAST_REG_MAX_PAGES``)
 * @reserved_fast_reg: 0
 * @max_mcast_grp: ``AXON_CAP_MCAST``: multicast groups
 *	(``AXON_MAX_MCAST_GRP``)
 * @max_mcast_qp_attach: ``AXON_CAP_MCAST``: QPs attached to one group
 *	(``AXON_MAX_MCAST_QP_ATTACH``)
 */
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
	__u8 mac[6];
	__le16 max_srq_sge;
	__le32 max_srq;
	__le32 max_srq_wr;
	__le32 max_fast_reg_pages;
	__le32 reserved_fast_reg;
	__le32 max_mcast_grp;
	__le32 max_mcast_qp_attach;
};

/**
 * enum axon_port_state - port states, as in the IB specification (enum
 *	ib_port_state)
 * @AXON_PORT_DOWN: the link is down
 * @AXON_PORT_INIT: initialising
 * @AXON_PORT_ARMED: armed
 * @AXON_PORT_ACTIVE: the link is up
 *
 * The port state is the link of the device's network backend: the model
 * reports DOWN or ACTIVE.
 */
enum axon_port_state {
	AXON_PORT_DOWN		= 1,
	AXON_PORT_INIT		= 2,
	AXON_PORT_ARMED		= 3,
	AXON_PORT_ACTIVE	= 4,
};

/**
 * struct axon_port_attr - the QUERY_PORT response
 * @state: &enum axon_port_state
 * @max_mtu: bytes, the largest RoCE payload MTU (4096)
 * @active_mtu: bytes; stays 1024, the driver derives the RoCE MTU from
 *	the netdev MTU
 * @gid_tbl_len: entries of the GID table (16)
 * @speed_mbps: link speed, Mb/s
 * @max_msg_sz: bytes of one message (``AXON_MAX_MSG_SIZE``)
 * @reserved: 0
 */
struct axon_port_attr {
	__le32 state;
	__le32 max_mtu;
	__le32 active_mtu;
	__le32 gid_tbl_len;
	__le32 speed_mbps;
	__le32 max_msg_sz;
	__u8 reserved[8];
};

#endif /* _UAPI_AXON_ADMIN_CMDS_DEFS_H */
