/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a switch that trims does to a RUD DATA frame it has no room for,
 * instead of dropping it: the frame keeps its headers (Ethernet, IPv4,
 * UDP, BTH, RUDETH), loses its payload and ICRC, and carries the trimmed
 * DSCP, which the receiving device is told (Documentation/rud.rst,
 * "Trimmed packets"). The simulator's switches and the engine tests'
 * wire trim with it.
 */
#ifndef AXON_TRIM_H
#define AXON_TRIM_H

#include <stddef.h>
#include <stdint.h>

#include "axon/axon_io_defs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes a trimmed untagged IPv4 frame keeps. */
#define AXON_TRIM_LEN	(14 + 20 + 8 + 12 + AXON_RUDETH_LEN)

/*
 * Trims the frame in place: cuts it to AXON_TRIM_LEN, sets the DSCP (the
 * ECN bits kept), the IPv4 and UDP lengths, the IPv4 checksum, and a UDP
 * checksum of 0 (none, as RoCE v2 over IPv4 allows); a frame trimmed
 * already stays as it is. Returns the new length, or 0 (the frame
 * untouched) if it is not an untagged IPv4 RUD DATA frame of at least
 * AXON_TRIM_LEN bytes: such a frame is dropped whole.
 */
size_t axon_trim_frame(uint8_t *f, size_t len, uint8_t dscp);

#ifdef __cplusplus
}
#endif

#endif
