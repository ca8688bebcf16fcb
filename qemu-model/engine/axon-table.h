/*
 * axon engine: tables of objects by number, sized by what they hold
 *
 * QPs, CQs and MRs are looked up by a number the device handed out, up to
 * 65,536 of each. A table is chunks of AXON_TABLE_CHUNK pointers, a chunk
 * made with its first object and freed with its last, so a device holding
 * a few objects costs a few KiB, not a pointer (or an object) for every
 * number it could hand out.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AXON_TABLE_H
#define AXON_TABLE_H

#include "axon-util.h"

#define AXON_TABLE_CHUNK_SHIFT  10
#define AXON_TABLE_CHUNK        (1u << AXON_TABLE_CHUNK_SHIFT)
#define AXON_TABLE_MAX_SLOTS    (65536 + 2)     /* qpn 2..65537 */
#define AXON_TABLE_CHUNKS       DIV_ROUND_UP(AXON_TABLE_MAX_SLOTS, \
                                             AXON_TABLE_CHUNK)

typedef struct AxonTable {
    void **chunk[AXON_TABLE_CHUNKS];
    uint16_t used[AXON_TABLE_CHUNKS];   /* objects in each chunk */
    uint32_t slots;             /* numbers 0 .. slots - 1 */
    uint32_t count;             /* objects held */
} AxonTable;

void axon_table_init(AxonTable *t, uint32_t slots);
void *axon_table_get(const AxonTable *t, uint32_t n);
bool axon_table_set(AxonTable *t, uint32_t n, void *obj);
void *axon_table_next(const AxonTable *t, uint32_t *n);
void axon_table_free(AxonTable *t);

#endif
