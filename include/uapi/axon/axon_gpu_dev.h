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
 * It has no interrupts and no copy engine yet.
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
#define AXON_GPU_VERSION_MINOR		0

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
 *
 * Other offsets read 0 and writes are ignored; both are logged as guest
 * errors by the model.
 */
enum axon_gpu_reg {
	AXON_GPU_REG_MAGIC		= 0x00,
	AXON_GPU_REG_VERSION		= 0x04,
	AXON_GPU_REG_VRAM_SIZE_LO	= 0x08,
	AXON_GPU_REG_VRAM_SIZE_HI	= 0x0c,
};

#endif /* _UAPI_AXON_GPU_DEV_H */
