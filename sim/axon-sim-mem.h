/*
 * axon simulator: a host's data memory, synthesised and checked
 *
 * The data MR of every simulated host spans peers x span bytes of bus
 * address, far more than 1,024 hosts could hold, and holds none of it:
 *   - the bytes host S sends to host D from its own offset D * span + x
 *     are a function of (S, D, x), computed when the engine reads them;
 *   - what the engine writes at host D's offset S * span + x is checked
 *     against the same function as it is written, byte for byte, and
 *     the ranges written are remembered until the message they belong
 *     to completes (take()), which then finds every byte of it there.
 * So every byte the engine places is checked for place and value with
 * no memory behind it: what a receiver's memory check in a VM does
 * (tools/axon-rdma-integrity), for thousands of hosts.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AXON_SIM_MEM_H
#define AXON_SIM_MEM_H

#include <cstddef>
#include <cstdint>
#include <map>

namespace axonsim {

class DataMem {
public:
    DataMem(unsigned self, uint64_t span) : self_(self), span_(span) {}

    /* The engine reads len bytes at off: this host's bytes for a peer. */
    void read(uint64_t off, uint8_t *buf, size_t len) const;
    /* The engine writes len bytes at off: checked and remembered. */
    void write(uint64_t off, const uint8_t *buf, size_t len);
    /*
     * The message from src at x of len completed: true if each of its
     * bytes was written; forgets them (the slot may be written again).
     */
    bool take(unsigned src, uint64_t x, uint64_t len);

    uint64_t bytes_wrong() const { return wrong_; }
    /* The first wrong byte: its offset, or ~0. */
    uint64_t first_wrong() const { return first_wrong_; }

private:
    static uint64_t word(unsigned src, unsigned dst, uint64_t w);
    void cover(uint64_t a, uint64_t b);

    unsigned self_;
    uint64_t span_;
    std::map<uint64_t, uint64_t> covered_;      /* start -> end, merged */
    uint64_t wrong_ = 0, first_wrong_ = ~0ULL;
};

} // namespace axonsim

#endif /* AXON_SIM_MEM_H */
