/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * axon-gpu device interface: the contract between the axon_gpu.ko driver
 * and the modelled GPU (the QEMU model compiles against this header).
 *
 * The axon-gpu stands in for a real GPU's memory so that the NIC's
 * dma-buf MR path runs end to end in a VM: it is a PCI 3D controller
 * (class 0x0302) with
 *  BAR 0: the registers below, 4 KiB, 32-bit accesses only;
 *  BAR 2: device memory ("VRAM"), 64-bit, prefetchable, a power of 2
 *         of AXON_GPU_REG_VRAM_SIZE_* bytes. It behaves as plain memory:
 *         CPU loads and stores and other devices' DMA (peer to peer)
 *         read and write it directly.
 * It has no interrupts and no copy engine; its one engine zeroes a range
 * of VRAM (the clear engine, see below), so that the driver scrubs memory
 * before handing it out without writing every byte through the BAR.
 *
 * Increment AXON_GPU_VERSION_MAJOR on any incompatible change.
 */
#ifndef _UAPI_AXON_GPU_DEV_H
#define _UAPI_AXON_GPU_DEV_H

#include <linux/types.h>

#include "axon_regs_defs.h"

#define AXON_GPU_PCI_CLASS		0x030200

#define AXON_GPU_MAGIC			0x55504741 /* "AGPU" */
#define AXON_GPU_VERSION_MAJOR		1
#define AXON_GPU_VERSION_MINOR		1	/* 1: the clear engine */

/**
 * DOC: axon-gpu PCI function
 *
 * ``AXON_PCI_VENDOR_ID``:``AXON_PCI_DEVICE_ID_GPU`` (``1234:a0c1``),
 * class ``AXON_GPU_PCI_CLASS`` (0x0302, 3D controller), revision 1, no
 * interrupts (no INTx pin, no MSI). BAR ``AXON_GPU_BAR_REGS`` (0) holds
 * the registers of &enum axon_gpu_reg, 4 KiB (``AXON_GPU_REGS_SIZE``),
 * 32-bit accesses only; BAR ``AXON_GPU_BAR_VRAM`` (2) is the VRAM:
 * 64-bit, prefetchable, a power of 2 from ``AXON_GPU_VRAM_MIN_SIZE`` (1
 * MiB) to ``AXON_GPU_VRAM_MAX_SIZE`` (64 GiB) bytes (the model's
 * ``vram-size`` property).
 *
 * ``AXON_GPU_REG_VERSION`` has the layout of the NIC's
 * ``AXON_REG_VERSION`` (see "VERSION register"), with
 * ``AXON_GPU_VERSION_MAJOR`` and ``AXON_GPU_VERSION_MINOR`` as its
 * fields: build and decode it with AXON_VERSION() and
 * AXON_VERSION_GET_MAJOR() / AXON_VERSION_GET_MINOR().
 */

#define AXON_GPU_BAR_REGS		0
#define AXON_GPU_BAR_VRAM		2
#define AXON_GPU_REGS_SIZE		0x1000

#define AXON_GPU_VRAM_MIN_SIZE		0x100000ULL	/* 1 MiB */
#define AXON_GPU_VRAM_MAX_SIZE		0x1000000000ULL	/* 64 GiB */

/**
 * enum axon_gpu_reg - the registers of the axon-gpu's BAR 0
 * @AXON_GPU_REG_MAGIC: RO, ``AXON_GPU_MAGIC`` ("AGPU")
 * @AXON_GPU_REG_VERSION: RO, AXON_VERSION(``AXON_GPU_VERSION_MAJOR``,
 *	``AXON_GPU_VERSION_MINOR``)
 * @AXON_GPU_REG_VRAM_SIZE_LO: RO, the size of BAR 2 in bytes, low 32 bits
 *	(see "64-bit registers")
 * @AXON_GPU_REG_VRAM_SIZE_HI: RO, its high 32 bits
 * @AXON_GPU_REG_CLEAR_OFFSET_LO: RW, minor 1: the first byte the clear
 *	engine zeroes, an offset in VRAM, low 32 bits
 * @AXON_GPU_REG_CLEAR_OFFSET_HI: RW, its high 32 bits
 * @AXON_GPU_REG_CLEAR_SIZE_LO: RW, minor 1: how many bytes it zeroes, low
 *	32 bits
 * @AXON_GPU_REG_CLEAR_SIZE_HI: RW, its high 32 bits
 * @AXON_GPU_REG_CLEAR_CTRL: WO (reads 0), minor 1: write
 *	``AXON_GPU_CLEAR_CTRL_START`` to start a clear
 * @AXON_GPU_REG_CLEAR_STATUS: RO, minor 1: ``AXON_GPU_CLEAR_STATUS_*``
 *
 * Other offsets read 0 and writes are ignored; both are logged as guest
 * errors by the model.
 */
enum axon_gpu_reg {
	AXON_GPU_REG_MAGIC		= 0x00,
	AXON_GPU_REG_VERSION		= 0x04,
	AXON_GPU_REG_VRAM_SIZE_LO	= 0x08,
	AXON_GPU_REG_VRAM_SIZE_HI	= 0x0c,
	AXON_GPU_REG_CLEAR_OFFSET_LO	= 0x20,
	AXON_GPU_REG_CLEAR_OFFSET_HI	= 0x24,
	AXON_GPU_REG_CLEAR_SIZE_LO	= 0x28,
	AXON_GPU_REG_CLEAR_SIZE_HI	= 0x2c,
	AXON_GPU_REG_CLEAR_CTRL		= 0x30,
	AXON_GPU_REG_CLEAR_STATUS	= 0x34,
};

/**
 * DOC: axon-gpu clear engine
 *
 * The clear engine (device interface 1.1) zeroes a range of VRAM in the
 * background, as a real GPU's copy engine does when its driver scrubs
 * memory before handing it to a new owner. To clear: program
 * ``AXON_GPU_REG_CLEAR_OFFSET_*`` and ``AXON_GPU_REG_CLEAR_SIZE_*``,
 * write ``AXON_GPU_CLEAR_CTRL_START`` to ``AXON_GPU_REG_CLEAR_CTRL``, then
 * poll ``AXON_GPU_REG_CLEAR_STATUS`` until ``AXON_GPU_CLEAR_STATUS_BUSY``
 * is clear (there is no interrupt) and check
 * ``AXON_GPU_CLEAR_STATUS_ERROR``. Once BUSY is clear and ERROR is not
 * set, every byte of the range reads 0, through the BAR and to peers.
 *
 * The device refuses a command (sets ERROR at once, BUSY stays clear,
 * the VRAM is not touched) whose offset or size is not a multiple of
 * ``AXON_GPU_CLEAR_ALIGN``, whose size is 0, whose range does not lie
 * inside the VRAM, or whose CTRL value is not exactly START (a write of
 * anything else to CTRL is a refused command). A START clears ERROR
 * first. While BUSY, writes to the CLEAR registers are
 * ignored (logged as guest errors), so a clear cannot be changed or
 * restarted half way; the range's contents are undefined (partly zeroed)
 * until BUSY clears, and the rest of the VRAM is not touched. A device
 * reset stops a clear (the range stays partly zeroed) and zeroes the
 * CLEAR registers. One clear runs at a time.
 */
#define AXON_GPU_CLEAR_ALIGN		0x1000ULL	/* 4 KiB */
#define AXON_GPU_CLEAR_CTRL_START	0x1
#define AXON_GPU_CLEAR_STATUS_BUSY	0x1
#define AXON_GPU_CLEAR_STATUS_ERROR	0x2

#endif /* _UAPI_AXON_GPU_DEV_H */
