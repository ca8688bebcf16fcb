/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * axon-nic device interface, part of <axon/axon_dev.h>: PCI identity,
 * interface version, BARs, MSI-X vectors and the registers of BAR 0.
 */
#ifndef _UAPI_AXON_REGS_DEFS_H
#define _UAPI_AXON_REGS_DEFS_H

#include <linux/types.h>

/**
 * DOC: PCI function
 *
 * The NIC is PCI function ``1234:a0c0`` (``AXON_PCI_VENDOR_ID``:
 * ``AXON_PCI_DEVICE_ID_NIC``), class 0x0200 (Ethernet), revision 1; the
 * modelled GPU is ``1234:a0c1`` (``AXON_PCI_DEVICE_ID_GPU``). 0x1234 is
 * the vendor id QEMU's own test devices use. Its BARs:
 *
 * ==================== ================================================
 * ``AXON_BAR_REGS`` 0  the registers of &enum axon_reg, 4 KiB
 *                      (``AXON_REGS_SIZE``), 32-bit accesses only; with
 *                      ``AXON_CAP_CLOCK`` the clock page follows at
 *                      ``AXON_CLOCK_PAGE`` (see "Device clock")
 * ``AXON_BAR_MSIX`` 2  MSI-X table and PBA, ``AXON_MSIX_NUM_VECTORS``
 *                      vectors (&enum axon_msix_vector)
 * ``AXON_BAR_DB`` 4    doorbell pages, 64-bit, ``AXON_REG_DB_PAGES``
 *                      pages of 4 KiB (see "Doorbells")
 * ==================== ================================================
 *
 * ``AXON_REG_MAGIC`` reads ``AXON_DEV_MAGIC``, "AXON" in ASCII, little
 * endian. Everything the device reads or writes in host memory is little
 * endian unless a field says otherwise.
 */
#define AXON_PCI_VENDOR_ID		0x1234
#define AXON_PCI_DEVICE_ID_NIC		0xa0c0
#define AXON_PCI_DEVICE_ID_GPU		0xa0c1

#define AXON_DEV_MAGIC			0x4e4f5841 /* "AXON" */
#define AXON_DEV_VERSION_MAJOR		1
#define AXON_DEV_VERSION_MINOR		21

/**
 * DOC: VERSION register
 *
 * ``AXON_REG_VERSION`` is the interface version the device implements::
 *
 *   31:16 : major - AXON_DEV_VERSION_MAJOR; the driver refuses another one
 *   15:0  : minor - AXON_DEV_VERSION_MINOR, compatible additions
 *
 * AXON_VERSION(major, minor) builds the word; AXON_VERSION_GET_MAJOR()
 * and AXON_VERSION_GET_MINOR() take it apart. The axon-gpu's VERSION
 * register has the same layout.
 */
#define AXON_VERSION_MAJOR_SHIFT	16
#define AXON_VERSION_MINOR_MASK		0xffff

#define AXON_VERSION(major, minor) \
	((major) << AXON_VERSION_MAJOR_SHIFT | \
	 ((minor) & AXON_VERSION_MINOR_MASK))
#define AXON_VERSION_GET_MAJOR(reg)	((reg) >> AXON_VERSION_MAJOR_SHIFT)
#define AXON_VERSION_GET_MINOR(reg)	((reg) & AXON_VERSION_MINOR_MASK)

#define AXON_BAR_REGS			0
#define AXON_BAR_MSIX			2
#define AXON_BAR_DB			4
#define AXON_REGS_SIZE			0x1000

/**
 * DOC: Device clock
 *
 * With ``AXON_CAP_CLOCK``, BAR 0 is 8 KiB (``AXON_BAR_REGS_SIZE``) and its
 * second 4 KiB page, at ``AXON_CLOCK_PAGE``, is the clock page: the
 * device clock, a free-running 64-bit count of nanoseconds
 * (``AXON_CLOCK_HZ``) that starts at 0 when the device is created and
 * never goes back, not even across a reset. Its low half is at
 * ``AXON_CLOCK_LO`` in the page and its high half at ``AXON_CLOCK_HI``;
 * a 64-bit read at ``AXON_CLOCK_LO`` returns both at once, 32-bit reads
 * go HI, LO, HI (see "64-bit registers"). Every other byte of the page
 * reads 0 and writes are ignored: the page holds nothing else, so the
 * driver may map it into processes, read-only. CQEs of a CQ created with
 * ``AXON_CQ_TIMESTAMP`` carry this clock (see "Completion queues" in
 * axon_io_defs.h).
 */
#define AXON_BAR_REGS_SIZE		0x2000
#define AXON_CLOCK_PAGE			0x1000
#define AXON_CLOCK_LO			0x0
#define AXON_CLOCK_HI			0x4
#define AXON_CLOCK_HZ			1000000000ULL

/**
 * enum axon_msix_vector - the device's MSI-X vectors
 * @AXON_MSIX_ADMIN: admin completion queue
 * @AXON_MSIX_ASYNC: async event queue
 * @AXON_MSIX_ETH: Ethernet TX and RX completion, once per arm
 *	(``AXON_REG_ETH_IRQ_ARM``)
 * @AXON_MSIX_COMP: completion event queue (CEQ)
 * @AXON_MSIX_NUM_VECTORS: the number of vectors in the MSI-X table
 */
enum axon_msix_vector {
	AXON_MSIX_ADMIN		= 0,
	AXON_MSIX_ASYNC		= 1,
	AXON_MSIX_ETH		= 2,
	AXON_MSIX_COMP		= 3,
	AXON_MSIX_NUM_VECTORS	= 4,
};

/**
 * enum axon_reg - the registers of BAR 0
 * @AXON_REG_MAGIC: RO, ``AXON_DEV_MAGIC``
 * @AXON_REG_VERSION: RO, the interface version (see "VERSION register")
 * @AXON_REG_CAPS: RO, ``AXON_CAP_*`` (see "CAPS register")
 * @AXON_REG_FW_VERSION: RO, the firmware (model) release, for display
 *	only (see "FW_VERSION register")
 * @AXON_REG_CTRL: RW, ``AXON_CTRL_*`` (see "CTRL and STATUS registers")
 * @AXON_REG_STATUS: RO, ``AXON_STATUS_*``
 * @AXON_REG_ERROR: RO, &enum axon_dev_error: why the device is not ready,
 *	or the last bad doorbell
 * @AXON_REG_ADMIN_TIMEOUT: RO, the budget of one admin command in ms
 * @AXON_REG_AQ_SQ_BASE_LO: RW, admin submission ring, low 32 bits of its
 *	DMA address, ``AXON_QUEUE_ALIGN`` aligned
 * @AXON_REG_AQ_SQ_BASE_HI: RW, its high 32 bits
 * @AXON_REG_AQ_SQ_DEPTH: RW, entries, power of 2,
 *	``AXON_QUEUE_MIN_DEPTH`` .. ``AXON_QUEUE_MAX_DEPTH``
 * @AXON_REG_AQ_SQ_TAIL: WO, doorbell: the new producer index, < depth
 * @AXON_REG_AQ_CQ_BASE_LO: RW, admin completion ring, low 32 bits,
 *	``AXON_QUEUE_ALIGN`` aligned
 * @AXON_REG_AQ_CQ_BASE_HI: RW, its high 32 bits
 * @AXON_REG_AQ_CQ_DEPTH: RW, entries, power of 2, at least the SQ depth
 *	(in-order completion then never overruns it), at most
 *	``AXON_QUEUE_MAX_DEPTH``
 * @AXON_REG_AQ_SQ_HEAD: RO, the device's SQ consumer index
 * @AXON_REG_EQ_BASE_LO: RW, async event ring, low 32 bits,
 *	``AXON_QUEUE_ALIGN`` aligned
 * @AXON_REG_EQ_BASE_HI: RW, its high 32 bits
 * @AXON_REG_EQ_DEPTH: RW, entries, power of 2,
 *	``AXON_QUEUE_MIN_DEPTH`` .. ``AXON_QUEUE_MAX_DEPTH``
 * @AXON_REG_EQ_HEAD: WO, doorbell: the driver's consumer index, < depth
 * @AXON_REG_CEQ_BASE_LO: RW, completion event ring, low 32 bits,
 *	``AXON_QUEUE_ALIGN`` aligned
 * @AXON_REG_CEQ_BASE_HI: RW, its high 32 bits
 * @AXON_REG_CEQ_DEPTH: RW, entries, power of 2,
 *	``AXON_QUEUE_MIN_DEPTH`` .. ``AXON_QUEUE_MAX_DEPTH``; depth 0 with
 *	base 0: no CEQ, and no CQ can be created. The depth does not limit
 *	the CQs (see "Completion event queue").
 * @AXON_REG_CEQ_HEAD: WO, doorbell: the driver's consumer index, < depth
 * @AXON_REG_DB_PAGES: RO, doorbell pages in ``AXON_BAR_DB`` (256)
 * @AXON_REG_STAT_AQ_CMDS: RO, admin commands executed
 * @AXON_REG_STAT_AQ_ERRORS: RO, admin commands that failed
 * @AXON_REG_STAT_EVENTS: RO, events posted
 * @AXON_REG_STAT_EQ_DROPS: RO, async events dropped because the event
 *	ring was full (completion events wait instead, see "Completion event
 *	queue")
 * @AXON_REG_STAT_DB_REJECTS: RO, doorbells ignored: a foreign page, an
 *	unknown or RESET object, a bad value (see "Doorbells")
 * @AXON_REG_STAT_TX_PKTS: RO, RoCEv2 packets sent (wire and loopback)
 * @AXON_REG_STAT_RX_PKTS: RO, RoCEv2 packets accepted
 * @AXON_REG_STAT_RX_DROPS: RO, RoCEv2 packets dropped: bad ICRC, header,
 *	unknown QPN, not from the QP's peer, QP not receiving
 * @AXON_REG_STAT_RETRANS: RO, packets retransmitted
 * @AXON_REG_STAT_NAKS: RO, NAKs (sequence, RNR, error) sent and received
 * @AXON_REG_STAT_PEER_RD_LO: RO, payload bytes the engine read from MR
 *	pages that are another PCI device's memory (a dma-buf MR on a GPU
 *	BAR), low 32 bits (see "64-bit registers")
 * @AXON_REG_STAT_PEER_RD_HI: RO, its high 32 bits
 * @AXON_REG_STAT_PEER_WR_LO: RO, payload bytes the engine wrote to such
 *	pages, low 32 bits
 * @AXON_REG_STAT_PEER_WR_HI: RO, its high 32 bits
 * @AXON_REG_STAT_MR_INVALID: RO, accesses refused because the MR was
 *	invalidated
 * @AXON_REG_STAT_DUP_REQS: RO, RC requests with a PSN the responder had
 *	already executed (answered from saved state)
 * @AXON_REG_STAT_OUT_OF_SEQ: RO, RC requests ahead of the expected PSN
 * @AXON_REG_STAT_STRAY: RO, packets of a live QP matching no state it
 *	keeps, dropped (see wire-security.rst)
 * @AXON_REG_STAT_QKEY_DROPS: RO, ``AXON_CAP_UD``: UD packets dropped for
 *	a Q_Key that is not their QP's
 * @AXON_REG_STAT_UD_NOBUF: RO, ``AXON_CAP_UD``: UD packets dropped because
 *	their QP had no receive WQE posted
 * @AXON_REG_STAT_UC_DROPS: RO, ``AXON_CAP_UC``: UC messages dropped: a
 *	packet of theirs lost, no receive WQE, an rkey that does not allow
 *	the WRITE
 * @AXON_REG_STAT_CNP_SENT: RO, ``AXON_CAP_CC``: CNPs sent, answering
 *	packets the fabric marked Congestion Experienced
 * @AXON_REG_STAT_CNP_RCVD: RO, ``AXON_CAP_CC``: CNPs received from the peer
 *	of an RC QP in RTR or RTS
 * @AXON_REG_STAT_ECN_MARKED: RO, ``AXON_CAP_CC``: RoCEv2 packets received
 *	marked Congestion Experienced
 * @AXON_REG_PLANES: RO, ``AXON_CAP_PLANES``: the planes and their links
 *	(see "Planes")
 * @AXON_REG_STAT_RUD_DROPS: RO, ``AXON_CAP_RUD``: RUD packets dropped: a
 *	connection key that is not the receiving QP's (looked at before
 *	anything else), a PSN outside the window, offsets or lengths that do
 *	not fit their message, a message slot held by another message, no
 *	receive WQE, an rkey that does not allow the access, a duplicate READ
 *	request that repeats none answered, a response or ACK for nothing
 *	outstanding
 * @AXON_REG_STAT_RUD_DUPS: RO, ``AXON_CAP_RUD``: RUD packets received
 *	again (retransmitted, or duplicated by the fabric): acknowledged,
 *	not placed again
 * @AXON_REG_STAT_ODP_FAULTS: RO, ``AXON_CAP_ODP``: page faults posted
 *	(``AXON_EVENT_PAGE_FAULT``), and those the full async event queue
 *	lost
 * @AXON_REG_STAT_ODP_WAITS: RO, ``AXON_CAP_ODP``: packets not sent, RNR
 *	NAKed or dropped because a QP waited for a page
 * @AXON_REG_STAT_RUD_TRIMS: RO, ``AXON_CAP_RUD_TRIM``: RUD DATA packets that
 *	arrived trimmed by a switch (the ``rud-trim-dscp`` property), each
 *	answered with a notice that has it sent again
 * @AXON_REG_ETH_CTRL: RW, ``AXON_ETH_CTRL_*`` (see "Ethernet function")
 * @AXON_REG_ETH_MTU: RW, L3 MTU, ``AXON_ETH_MIN_MTU`` ..
 *	``AXON_ETH_MAX_MTU``; reset value 0
 * @AXON_REG_ETH_IRQ_ARM: WO, 1 arms ``AXON_MSIX_ETH`` for one TX or RX
 *	completion, 0 disarms; other values, or a write while the Ethernet
 *	function is stopped, are ignored
 * @AXON_REG_ETH_TX_BASE_LO: RW, TX descriptor ring, low 32 bits,
 *	``AXON_QUEUE_ALIGN`` aligned
 * @AXON_REG_ETH_TX_BASE_HI: RW, its high 32 bits
 * @AXON_REG_ETH_TX_DEPTH: RW, descriptors, power of 2,
 *	``AXON_QUEUE_MIN_DEPTH`` .. ``AXON_QUEUE_MAX_DEPTH``
 * @AXON_REG_ETH_TX_TAIL: WO, doorbell: the new producer index, < depth
 * @AXON_REG_ETH_RX_BASE_LO: RW, RX descriptor ring, low 32 bits,
 *	``AXON_QUEUE_ALIGN`` aligned
 * @AXON_REG_ETH_RX_BASE_HI: RW, its high 32 bits
 * @AXON_REG_ETH_RX_DEPTH: RW, descriptors, power of 2,
 *	``AXON_QUEUE_MIN_DEPTH`` .. ``AXON_QUEUE_MAX_DEPTH``
 * @AXON_REG_ETH_RX_TAIL: WO, doorbell: buffers posted up to here, < depth
 * @AXON_REG_ETH_TX_HEAD: RO, the next TX descriptor the device reads
 * @AXON_REG_ETH_RX_HEAD: RO, the next RX descriptor the device fills
 * @AXON_REG_ETH_MC_HASH_LO: RW, ``AXON_CAP_MCAST``: bits 0..31 of the
 *	multicast hash filter (see "Ethernet multicast filter"); reset 0
 * @AXON_REG_ETH_MC_HASH_HI: RW, ``AXON_CAP_MCAST``: its bits 32..63
 * @AXON_REG_STAT_RX_NOBUF: RO, frames dropped: Ethernet function stopped
 * @AXON_REG_STAT_RX_RUNT: RO, frames dropped: shorter than
 *	``AXON_ETH_HLEN``
 * @AXON_REG_STAT_RX_OVERSIZE: RO, frames dropped: longer than MTU +
 *	``AXON_ETH_OVERHEAD``, or than the posted buffer
 * @AXON_REG_STAT_RX_ROCE: RO, RoCEv2 frames steered to the RDMA engine
 * @AXON_REG_STAT_TX_ERRORS: RO, TX descriptors completed with ERROR
 * @AXON_REG_STAT_RX_DMA_ERRORS: RO, RX buffers that were not writable
 * @AXON_REG_ETH_RX_MODE: RW, ``AXON_CAP_MCAST``: ``AXON_ETH_RX_*``
 *	(see "Ethernet multicast filter"); reset value
 *	``AXON_ETH_RX_ALLMULTI``
 * @AXON_REG_STAT_RX_MC_FILTERED: RO, ``AXON_CAP_MCAST``: multicast
 *	frames for the Ethernet function dropped by its filter
 * @AXON_REG_STAT_PLANE_BASE: RO, ``AXON_CAP_PLANES``: the planes'
 *	counters, 16 bytes a plane: AXON_REG_STAT_PLANE_TX(),
 *	AXON_REG_STAT_PLANE_RX(), AXON_REG_STAT_PLANE_DROPS()
 *
 * Registers are 32 bits wide and accessed with 32-bit accesses. The ring
 * setup registers (the admin, event and completion event rings) may only
 * be written while ``AXON_CTRL_ENABLE`` is 0, the Ethernet ones while
 * ``AXON_ETH_CTRL_ENABLE`` is 0: writes while it is set are ignored (and
 * logged as guest errors by the model). The device checks them when
 * ENABLE goes to 1. Counters (``AXON_REG_STAT_*``) are 32 bits and wrap,
 * but for the 64-bit peer counters; a reset clears them.
 */
enum axon_reg {
	AXON_REG_MAGIC		= 0x00,
	AXON_REG_VERSION	= 0x04,
	AXON_REG_CAPS		= 0x08,
	AXON_REG_FW_VERSION	= 0x0c,
	AXON_REG_CTRL		= 0x10,
	AXON_REG_STATUS		= 0x14,
	AXON_REG_ERROR		= 0x18,
	AXON_REG_ADMIN_TIMEOUT	= 0x1c,

	AXON_REG_AQ_SQ_BASE_LO	= 0x20,
	AXON_REG_AQ_SQ_BASE_HI	= 0x24,
	AXON_REG_AQ_SQ_DEPTH	= 0x28,
	AXON_REG_AQ_SQ_TAIL	= 0x2c,
	AXON_REG_AQ_CQ_BASE_LO	= 0x30,
	AXON_REG_AQ_CQ_BASE_HI	= 0x34,
	AXON_REG_AQ_CQ_DEPTH	= 0x38,
	AXON_REG_AQ_SQ_HEAD	= 0x3c,

	AXON_REG_EQ_BASE_LO	= 0x40,
	AXON_REG_EQ_BASE_HI	= 0x44,
	AXON_REG_EQ_DEPTH	= 0x48,
	AXON_REG_EQ_HEAD	= 0x4c,

	AXON_REG_CEQ_BASE_LO	= 0x50,
	AXON_REG_CEQ_BASE_HI	= 0x54,
	AXON_REG_CEQ_DEPTH	= 0x58,
	AXON_REG_CEQ_HEAD	= 0x5c,
	AXON_REG_DB_PAGES	= 0x60,

	AXON_REG_STAT_AQ_CMDS	= 0x80,
	AXON_REG_STAT_AQ_ERRORS	= 0x84,
	AXON_REG_STAT_EVENTS	= 0x88,
	AXON_REG_STAT_EQ_DROPS	= 0x8c,
	AXON_REG_STAT_DB_REJECTS = 0x90,
	AXON_REG_STAT_TX_PKTS	= 0x94,
	AXON_REG_STAT_RX_PKTS	= 0x98,
	AXON_REG_STAT_RX_DROPS	= 0x9c,
	AXON_REG_STAT_RETRANS	= 0xa0,
	AXON_REG_STAT_NAKS	= 0xa4,
	AXON_REG_STAT_PEER_RD_LO = 0xa8,
	AXON_REG_STAT_PEER_RD_HI = 0xac,
	AXON_REG_STAT_PEER_WR_LO = 0xb0,
	AXON_REG_STAT_PEER_WR_HI = 0xb4,
	AXON_REG_STAT_MR_INVALID = 0xb8,
	AXON_REG_STAT_DUP_REQS	= 0xbc,
	AXON_REG_STAT_OUT_OF_SEQ = 0xc0,
	AXON_REG_STAT_STRAY	= 0xc4,
	AXON_REG_STAT_QKEY_DROPS = 0xc8,
	AXON_REG_STAT_UD_NOBUF	= 0xcc,
	AXON_REG_STAT_UC_DROPS	= 0xd0,
	AXON_REG_STAT_CNP_SENT	= 0xd4,
	AXON_REG_STAT_CNP_RCVD	= 0xd8,
	AXON_REG_STAT_ECN_MARKED = 0xdc,
	AXON_REG_PLANES		= 0xe0,
	AXON_REG_STAT_RUD_DROPS	= 0xe4,
	AXON_REG_STAT_RUD_DUPS	= 0xe8,
	AXON_REG_STAT_ODP_FAULTS = 0xec,
	AXON_REG_STAT_ODP_WAITS	= 0xf0,
	AXON_REG_STAT_RUD_TRIMS	= 0xf4,

	AXON_REG_ETH_CTRL	= 0x100,
	AXON_REG_ETH_MTU	= 0x104,
	AXON_REG_ETH_IRQ_ARM	= 0x108,
	AXON_REG_ETH_TX_BASE_LO	= 0x110,
	AXON_REG_ETH_TX_BASE_HI	= 0x114,
	AXON_REG_ETH_TX_DEPTH	= 0x118,
	AXON_REG_ETH_TX_TAIL	= 0x11c,
	AXON_REG_ETH_RX_BASE_LO	= 0x120,
	AXON_REG_ETH_RX_BASE_HI	= 0x124,
	AXON_REG_ETH_RX_DEPTH	= 0x128,
	AXON_REG_ETH_RX_TAIL	= 0x12c,
	AXON_REG_ETH_TX_HEAD	= 0x130,
	AXON_REG_ETH_RX_HEAD	= 0x134,
	AXON_REG_ETH_MC_HASH_LO	= 0x138,
	AXON_REG_ETH_MC_HASH_HI	= 0x13c,

	AXON_REG_STAT_RX_NOBUF	= 0x140,
	AXON_REG_STAT_RX_RUNT	= 0x144,
	AXON_REG_STAT_RX_OVERSIZE = 0x148,
	AXON_REG_STAT_RX_ROCE	= 0x14c,
	AXON_REG_STAT_TX_ERRORS	= 0x150,
	AXON_REG_STAT_RX_DMA_ERRORS = 0x154,
	AXON_REG_ETH_RX_MODE	= 0x158,
	AXON_REG_STAT_RX_MC_FILTERED = 0x15c,

	AXON_REG_STAT_PLANE_BASE = 0x160,
};

/**
 * DOC: Ring registers
 *
 * Every ring the driver sets up (admin SQ and CQ, event queue, CEQ,
 * Ethernet TX and RX) is programmed through a 16-byte aligned group of
 * registers: its base's low half at ``AXON_RING_BASE_LO`` from the
 * group's start, the high half at ``AXON_RING_BASE_HI``, the depth at
 * ``AXON_RING_DEPTH`` (``AXON_RING_REG_MASK`` masks the offset in the
 * group). A ring is good when its depth is a power of 2 in
 * ``AXON_QUEUE_MIN_DEPTH`` .. ``AXON_QUEUE_MAX_DEPTH`` (in entries) and
 * its base is non-zero, ``AXON_QUEUE_ALIGN`` aligned and does not wrap.
 */
#define AXON_RING_REG_MASK		0xf
#define AXON_RING_BASE_LO		0x0
#define AXON_RING_BASE_HI		0x4
#define AXON_RING_DEPTH			0x8

#define AXON_QUEUE_MIN_DEPTH		2
#define AXON_QUEUE_MAX_DEPTH		4096
#define AXON_QUEUE_ALIGN		4096

/**
 * DOC: 64-bit registers
 *
 * A 64-bit value (a ring base, a counter, the axon-gpu's VRAM size) is a
 * pair of 32-bit registers, the low half at ``*_LO`` and the high half at
 * ``*_HI``. AXON_REG_LO() and AXON_REG_HI() split a value into the words
 * to write; AXON_REG_U64(hi, lo) joins the words read back;
 * AXON_REG_SET_LO(v, lo) and AXON_REG_SET_HI(v, hi) replace one half of
 * @v, as the device does on a write. A counter that may change between
 * the two reads is read HI, LO, then HI again, retrying if HI changed.
 */
#define AXON_REG_LO(v)			((__u32)(v))
#define AXON_REG_HI(v)			((__u32)((__u64)(v) >> 32))
#define AXON_REG_U64(hi, lo) \
	((__u64)(__u32)(hi) << 32 | (__u32)(lo))
#define AXON_REG_SET_LO(v, lo) \
	(((__u64)(v) & 0xffffffff00000000ULL) | (__u32)(lo))
#define AXON_REG_SET_HI(v, hi) \
	(((__u64)(v) & 0xffffffffULL) | (__u64)(__u32)(hi) << 32)

/**
 * DOC: Congestion control
 *
 * With ``AXON_CAP_CC`` the device counts the RoCEv2 packets it receives
 * marked Congestion Experienced (ECN CE in the IP header) and the CNPs
 * (BTH opcode 0x81, IBA annex 17) it sends and receives. A device that
 * runs DCQCN (the model's ``dcqcn`` property; a device setting, not the
 * driver's) also marks the RC packets it sends ECN-capable, answers CE
 * with a CNP to the sending QP and paces an RC requester that received
 * CNPs. &struct axon_qp_live shows a paced QP with
 * ``AXON_QP_LIVE_CC_PACED``. Documentation/congestion-control.rst has
 * the algorithm and its parameters.
 */

/**
 * DOC: Planes
 *
 * A port may reach the fabric through up to ``AXON_MAX_PLANES`` planes:
 * independent links into independent networks, with the same MAC and
 * addresses on each (as in a multi-plane fabric). Plane 0 also carries
 * the Ethernet function's traffic; the other planes carry RoCEv2 only and
 * drop any other frame they receive. The device puts each RoCEv2 packet
 * on plane (UDP source port % planes), as a switch's ECMP hashes a flow:
 * an RC, UC or UD QP's packets keep to the plane of their UDP source
 * port, which the flow label sets. A plane whose link is down sends and
 * receives nothing; the port's state is plane 0's. With
 * ``AXON_CAP_PLANES``, ``AXON_REG_PLANES`` (read only) says::
 *
 *   3:0  : count - the planes the device has, 1 to AXON_MAX_PLANES
 *   11:8 : link_up - one bit per plane whose link is up
 *
 * AXON_PLANES_GET_COUNT() and AXON_PLANES_GET_LINK_UP() take it apart.
 * Plane k counts the RoCEv2 frames it sent and received in
 * AXON_REG_STAT_PLANE_TX(k) and AXON_REG_STAT_PLANE_RX(k), and the frames
 * it dropped because they were not RoCEv2 in AXON_REG_STAT_PLANE_DROPS(k)
 * (32-bit, wrapping, cleared by a reset).
 */
#define AXON_MAX_PLANES			4
#define AXON_PLANES_COUNT_MASK		0xf
#define AXON_PLANES_LINK_UP_SHIFT	8
#define AXON_PLANES_LINK_UP_MASK	0xf
#define AXON_PLANES_GET_COUNT(reg)	((reg) & AXON_PLANES_COUNT_MASK)
#define AXON_PLANES_GET_LINK_UP(reg) \
	(((reg) >> AXON_PLANES_LINK_UP_SHIFT) & AXON_PLANES_LINK_UP_MASK)
#define AXON_PLANES(count, link_up) \
	(((count) & AXON_PLANES_COUNT_MASK) | \
	 ((link_up) & AXON_PLANES_LINK_UP_MASK) << AXON_PLANES_LINK_UP_SHIFT)
#define AXON_REG_STAT_PLANE_TX(k)	(AXON_REG_STAT_PLANE_BASE + 0x10 * (k))
#define AXON_REG_STAT_PLANE_RX(k)	(AXON_REG_STAT_PLANE_BASE + 0x10 * (k) + 4)
#define AXON_REG_STAT_PLANE_DROPS(k) \
	(AXON_REG_STAT_PLANE_BASE + 0x10 * (k) + 8)

/**
 * DOC: CAPS register
 *
 * ``AXON_REG_CAPS`` says what the device implements::
 *
 *   0:0 : admin_queue - AXON_CAP_ADMIN_QUEUE, the admin queue
 *   1:1 : async_events - AXON_CAP_ASYNC_EVENTS, the async event queue
 *   2:2 : ethernet - AXON_CAP_ETHERNET, the Ethernet function
 *   3:3 : rdma - AXON_CAP_RDMA: MRs, CQs, RC QPs, doorbells, the CEQ
 *   4:4 : peer_mr - AXON_CAP_PEER_MR: INVALIDATE_MR, REMAP_MR, peer pages
 *   5:5 : srq - AXON_CAP_SRQ: shared receive queues (interface 1.5)
 *   6:6 : ud - AXON_CAP_UD: UD QPs (interface 1.6, see "Datagrams" in
 *         axon_io_defs.h)
 *   7:7 : uc - AXON_CAP_UC: UC QPs (interface 1.6, see "Unreliable
 *         connections" in axon_io_defs.h)
 *   8:8 : fast_reg - AXON_CAP_FAST_REG: fast registration and
 *         invalidation (interface 1.6, see "Fast registration" in
 *         axon_io_defs.h)
 *   9:9 : mw - AXON_CAP_MW: memory windows, types 1 and 2 (interface 1.6,
 *         see "Memory windows" in axon_io_defs.h)
 *   10:10 : gsi - AXON_CAP_GSI: the GSI QP, number 1 (interface 1.7, see
 *         "The GSI QP" in axon_io_defs.h)
 *   11:11 : resize_cq - AXON_CAP_RESIZE_CQ: RESIZE_CQ (interface 1.8, see
 *         "Completion queues" in axon_io_defs.h)
 *   12:12 : rereg_mr - AXON_CAP_REREG_MR: REREG_MR (interface 1.8)
 *   13:13 : cq_pages - AXON_CAP_CQ_PAGES: CQ rings in pages (interface 1.8,
 *         see "Completion queues" in axon_io_defs.h)
 *   14:14 : clock - AXON_CAP_CLOCK: the device clock and CQEs that carry
 *         it (interface 1.9, see "Device clock")
 *   15:15 : qp_live - AXON_CAP_QP_LIVE: QUERY_QP_LIVE, a QP's live
 *         transport state and counters (interface 1.9)
 *   16:16 : wire_test - AXON_CAP_WIRE_TEST: WIRE_TEST, the model's wire
 *         impairments under the driver's control (interface 1.10; a test
 *         device's, not silicon's)
 *   17:17 : counter_sets - AXON_CAP_COUNTER_SETS: counter sets that QPs
 *         are bound to (interface 1.11, see "Counter sets" in
 *         axon_admin_cmds_defs.h)
 *   18:18 : cc - AXON_CAP_CC: ECN and CNPs counted, and RC congestion
 *         control (DCQCN) when the device has it on (interface 1.12, see
 *         "Congestion control")
 *   19:19 : planes - AXON_CAP_PLANES: AXON_REG_PLANES and the planes'
 *         counters (interface 1.13, see "Planes")
 *   20:20 : rud - AXON_CAP_RUD: RUD QPs, reliable unordered delivery
 *         sprayed over the planes (interface 1.14, see "Reliable
 *         unordered delivery" in axon_io_defs.h)
 *   21:21 : rud_keys - AXON_CAP_RUD_KEYS: every RUD packet carries its
 *         receiving QP's 64-bit key, drawn by the device when the QP
 *         leaves RESET (interface 1.15, see "RUD connection keys" in
 *         axon_io_defs.h). RUD without it (1.14) carried a token derived
 *         from the PSNs, which a driver must not rely on.
 *   22:22 : mcast - AXON_CAP_MCAST: UD multicast (ATTACH_MCAST and
 *         DETACH_MCAST, see "Multicast groups" in axon_admin_cmds_defs.h)
 *         and the Ethernet function's multicast filter
 *         (``AXON_REG_ETH_RX_MODE``, ``AXON_REG_ETH_MC_HASH_LO``/``HI``;
 *         see "Ethernet multicast filter" in axon_eth_defs.h), interface
 *         1.16
 *   23:23 : xrc - AXON_CAP_XRC: XRC initiator and target QPs and XRC
 *         SRQs (see "Extended reliable connections" in axon_io_defs.h),
 *         interface 1.17
 *   24:24 : odp - AXON_CAP_ODP: on-demand paging MRs (``AXON_MR_ODP``,
 *         MAP_PAGES, UNMAP_PAGES, RESUME_QP and ``AXON_EVENT_PAGE_FAULT``;
 *         see "On-demand paging" in axon_admin_cmds_defs.h), interface
 *         1.18
 *   25:25 : rud_trim - AXON_CAP_RUD_TRIM: a RUD DATA packet a switch
 *         trimmed to its headers, marked with the DSCP the device was told
 *         (its ``rud-trim-dscp`` property), is answered with a notice that
 *         has the sender send it again (``AXON_RUD_SYN_TRIMMED``) and
 *         counted in ``AXON_REG_STAT_RUD_TRIMS``, interface 1.19
 *   26:26 : qp_cur_state - AXON_CAP_QP_CUR_STATE: MODIFY_QP checks the
 *         state the driver names (``AXON_QP_ATTR_CUR_STATE``, see "QP
 *         attribute mask" in axon_admin_cmds_defs.h), interface 1.20
 *   27:27 : sq_dbrec - AXON_CAP_SQ_DBREC: send queue doorbell records
 *         (``AXON_QP_SQ_DBREC``, see "Send queue doorbell records" in
 *         axon_io_defs.h), interface 1.21
 */
#define AXON_CAP_ADMIN_QUEUE		0x1
#define AXON_CAP_ASYNC_EVENTS		0x2
#define AXON_CAP_ETHERNET		0x4
#define AXON_CAP_RDMA			0x8
#define AXON_CAP_PEER_MR		0x10
#define AXON_CAP_SRQ			0x20
#define AXON_CAP_UD			0x40
#define AXON_CAP_UC			0x80
#define AXON_CAP_FAST_REG		0x100
#define AXON_CAP_MW			0x200
#define AXON_CAP_GSI			0x400
#define AXON_CAP_RESIZE_CQ		0x800
#define AXON_CAP_REREG_MR		0x1000
#define AXON_CAP_CQ_PAGES		0x2000
#define AXON_CAP_CLOCK			0x4000
#define AXON_CAP_QP_LIVE		0x8000
#define AXON_CAP_WIRE_TEST		0x10000
#define AXON_CAP_COUNTER_SETS		0x20000
#define AXON_CAP_CC			0x40000
#define AXON_CAP_PLANES			0x80000
#define AXON_CAP_RUD			0x100000
#define AXON_CAP_RUD_KEYS		0x200000
#define AXON_CAP_MCAST			0x400000
#define AXON_CAP_XRC			0x800000
#define AXON_CAP_ODP			0x1000000
#define AXON_CAP_RUD_TRIM		0x2000000
#define AXON_CAP_QP_CUR_STATE		0x4000000
#define AXON_CAP_SQ_DBREC		0x8000000

/**
 * DOC: FW_VERSION register
 *
 * ``AXON_REG_FW_VERSION`` is the firmware (model) release, for display
 * only::
 *
 *   31:24 : major
 *   23:16 : minor
 *   15:0  : sub
 *
 * AXON_FW_VERSION(major, minor, sub) builds it;
 * AXON_FW_VERSION_GET_MAJOR(), AXON_FW_VERSION_GET_MINOR() and
 * AXON_FW_VERSION_GET_SUB() take it apart.
 */
#define AXON_FW_VERSION_MAJOR_SHIFT	24
#define AXON_FW_VERSION_MINOR_SHIFT	16
#define AXON_FW_VERSION_MINOR_MASK	0xff
#define AXON_FW_VERSION_SUB_MASK	0xffff

#define AXON_FW_VERSION(major, minor, sub) \
	((major) << AXON_FW_VERSION_MAJOR_SHIFT | \
	 ((minor) & AXON_FW_VERSION_MINOR_MASK) << AXON_FW_VERSION_MINOR_SHIFT | \
	 ((sub) & AXON_FW_VERSION_SUB_MASK))
#define AXON_FW_VERSION_GET_MAJOR(reg)	((reg) >> AXON_FW_VERSION_MAJOR_SHIFT)
#define AXON_FW_VERSION_GET_MINOR(reg) \
	(((reg) >> AXON_FW_VERSION_MINOR_SHIFT) & AXON_FW_VERSION_MINOR_MASK)
#define AXON_FW_VERSION_GET_SUB(reg)	((reg) & AXON_FW_VERSION_SUB_MASK)

/**
 * DOC: CTRL and STATUS registers
 *
 * ``AXON_REG_CTRL``::
 *
 *   0:0 : enable - AXON_CTRL_ENABLE: 1 starts the admin and event queues
 *         (after checking their rings), 0 stops them and the Ethernet
 *         function
 *   1:1 : reset - AXON_CTRL_RESET: write 1 to reset the device; reads as
 *         0 once done
 *
 * ``AXON_REG_STATUS``::
 *
 *   0:0 : ready - AXON_STATUS_READY: the queues are running
 *   1:1 : fatal - AXON_STATUS_FATAL: the device stopped; only a reset
 *         recovers it
 *   2:2 : resetting - AXON_STATUS_RESETTING: a reset is in progress
 */
#define AXON_CTRL_ENABLE		0x1
#define AXON_CTRL_RESET			0x2

#define AXON_STATUS_READY		0x1
#define AXON_STATUS_FATAL		0x2
#define AXON_STATUS_RESETTING		0x4

/**
 * enum axon_dev_error - ``AXON_REG_ERROR``: why the device is not ready
 * @AXON_DEV_ERR_NONE: no error
 * @AXON_DEV_ERR_AQ_SQ_CONFIG: bad admin SQ base or depth at enable
 * @AXON_DEV_ERR_AQ_CQ_CONFIG: bad admin CQ base or depth at enable
 * @AXON_DEV_ERR_EQ_CONFIG: bad event queue base or depth at enable
 * @AXON_DEV_ERR_DOORBELL: a doorbell index beyond its ring's depth; the
 *	doorbell was ignored and the device keeps running
 * @AXON_DEV_ERR_DMA: a ring's DMA failed; the device stopped with
 *	``AXON_STATUS_FATAL``
 * @AXON_DEV_ERR_ETH_TX_CONFIG: bad TX ring base or depth at Ethernet
 *	enable
 * @AXON_DEV_ERR_ETH_RX_CONFIG: bad RX ring base or depth at Ethernet
 *	enable
 * @AXON_DEV_ERR_ETH_MTU: ``AXON_REG_ETH_MTU`` out of range at Ethernet
 *	enable
 * @AXON_DEV_ERR_CEQ_CONFIG: a completion event queue that is programmed
 *	but bad, at enable
 */
enum axon_dev_error {
	AXON_DEV_ERR_NONE		= 0,
	AXON_DEV_ERR_AQ_SQ_CONFIG	= 1,
	AXON_DEV_ERR_AQ_CQ_CONFIG	= 2,
	AXON_DEV_ERR_EQ_CONFIG		= 3,
	AXON_DEV_ERR_DOORBELL		= 4,
	AXON_DEV_ERR_DMA		= 5,
	AXON_DEV_ERR_ETH_TX_CONFIG	= 6,
	AXON_DEV_ERR_ETH_RX_CONFIG	= 7,
	AXON_DEV_ERR_ETH_MTU		= 8,
	AXON_DEV_ERR_CEQ_CONFIG		= 9,
};

#endif /* _UAPI_AXON_REGS_DEFS_H */
