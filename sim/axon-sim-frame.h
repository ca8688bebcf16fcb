/*
 * axon simulator: what a frame the engine sends carries, for the NIC's
 * pipeline (axon-sim-host.h)
 *
 * C, because it reads the engine's opcode table (axon-roce-opcode.h),
 * whose header is C only.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AXON_SIM_FRAME_H
#define AXON_SIM_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Whether the RoCE v2 frame f (Ethernet, IPv4, UDP 4791, BTH) carries a
 * payload the NIC read from host memory: a SEND's or WRITE's data, a READ
 * response, RUD's data. Not an ACK, a CNP, a READ request or a RUD ACK's
 * bitmap, which the NIC builds itself; false for anything it cannot parse.
 */
bool sim_frame_reads_host(const uint8_t *f, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* AXON_SIM_FRAME_H */
