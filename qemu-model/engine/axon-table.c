/*
 * axon engine: tables of objects by number (axon-table.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-table.h"

void axon_table_init(AxonTable *t, uint32_t slots)
{
    memset(t, 0, sizeof(*t));
    t->slots = MIN(slots, AXON_TABLE_MAX_SLOTS);
}

/* The object numbered n; NULL for none, or a number past the table. */
void *axon_table_get(const AxonTable *t, uint32_t n)
{
    void **chunk;

    if (n >= t->slots) {
        return NULL;
    }
    chunk = t->chunk[n >> AXON_TABLE_CHUNK_SHIFT];
    return chunk ? chunk[n & (AXON_TABLE_CHUNK - 1)] : NULL;
}

/*
 * Slot n, empty, holds obj; or, obj NULL, a held slot is emptied. False
 * when n is past the table or the slot's chunk cannot be made.
 */
bool axon_table_set(AxonTable *t, uint32_t n, void *obj)
{
    unsigned c = n >> AXON_TABLE_CHUNK_SHIFT;
    void **slot;

    if (n >= t->slots) {
        return false;
    }
    if (!t->chunk[c]) {
        if (!obj) {
            return true;
        }
        t->chunk[c] = axon_new0(void *, AXON_TABLE_CHUNK);
        if (!t->chunk[c]) {
            return false;
        }
    }
    slot = &t->chunk[c][n & (AXON_TABLE_CHUNK - 1)];
    if (!*slot == !obj) {
        *slot = obj;            /* replaced, or emptied twice */
        return true;
    }
    *slot = obj;
    if (obj) {
        t->used[c]++;
        t->count++;
    } else {
        t->count--;
        if (!--t->used[c]) {
            free(t->chunk[c]);
            t->chunk[c] = NULL;
        }
    }
    return true;
}

/* The object with the lowest number >= *n, *n set to it; NULL: none. */
void *axon_table_next(const AxonTable *t, uint32_t *n)
{
    uint32_t i = *n;

    while (i < t->slots) {
        void **chunk = t->chunk[i >> AXON_TABLE_CHUNK_SHIFT];

        if (!chunk) {
            i = (i | (AXON_TABLE_CHUNK - 1)) + 1;   /* skip the empty chunk */
        } else if (chunk[i & (AXON_TABLE_CHUNK - 1)]) {
            *n = i;
            return chunk[i & (AXON_TABLE_CHUNK - 1)];
        } else {
            i++;
        }
    }
    return NULL;
}

/* Frees the chunks, not the objects: their owner frees those first. */
void axon_table_free(AxonTable *t)
{
    for (unsigned i = 0; i < AXON_TABLE_CHUNKS; i++) {
        free(t->chunk[i]);
        t->chunk[i] = NULL;
        t->used[i] = 0;
    }
    t->count = 0;
}
