/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * axon-nic device interface: the contract between the axon.ko driver and
 * the hardware (the QEMU model compiles against these same headers).
 *
 * Everything the device reads or writes in host memory is little endian.
 * Registers are 32 bits wide and must be accessed with 32-bit accesses.
 *
 * Every struct, enum, register and flag group is documented once, as
 * kernel-doc next to its definition (Documentation/device-interface.rst
 * pulls it in); bit ranges are written "hi:lo : name - meaning". Fields
 * are only touched through the masks, shifts and GET/build macros that
 * follow the layout they belong to.
 *
 * The interface is split in parts, as Linux's efa driver splits its own;
 * this header includes them all:
 *  axon_regs_defs.h        PCI identity, version, BARs, MSI-X, registers
 *  axon_admin_defs.h       admin queue, status, async and completion events
 *  axon_admin_cmds_defs.h  admin commands and the responses they write
 *  axon_eth_defs.h         the Ethernet function's descriptors
 *  axon_io_defs.h          data path: doorbells, WQEs, SGEs, CQEs
 *
 * Increment AXON_DEV_VERSION_MAJOR on any incompatible change.
 */
#ifndef _UAPI_AXON_DEV_H
#define _UAPI_AXON_DEV_H

#include "axon_regs_defs.h"
#include "axon_admin_defs.h"
#include "axon_admin_cmds_defs.h"
#include "axon_eth_defs.h"
#include "axon_io_defs.h"

#endif /* _UAPI_AXON_DEV_H */
