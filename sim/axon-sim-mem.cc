/*
 * axon simulator: a host's data memory (see axon-sim-mem.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-sim-mem.h"

#include <cstring>
#include <endian.h>

namespace axonsim {

uint64_t DataMem::word(unsigned src, unsigned dst, uint64_t w)
{
    /* splitmix64 of the three: every word of every pair differs */
    uint64_t z = ((uint64_t)src << 44) ^ ((uint64_t)dst << 24) ^ w;

    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void DataMem::read(uint64_t off, uint8_t *buf, size_t len) const
{
    unsigned dst = (unsigned)(off / span_);
    uint64_t x = off % span_;
    size_t i = 0;

    while (i < len) {
        uint64_t w = word(self_, dst, (x + i) >> 3);
        unsigned k = (x + i) & 7;

        if (!k && len - i >= 8) {
            w = htole64(w);
            memcpy(buf + i, &w, 8);
            i += 8;
            continue;
        }
        for (; k < 8 && i < len; k++, i++) {
            buf[i] = (uint8_t)(w >> (k * 8));
        }
    }
}

void DataMem::write(uint64_t off, const uint8_t *buf, size_t len)
{
    unsigned src = (unsigned)(off / span_);
    uint64_t x = off % span_;
    size_t i = 0;

    while (i < len) {
        uint64_t w = word(src, self_, (x + i) >> 3), got;
        unsigned k = (x + i) & 7;

        /* whole words at once, the ragged ends byte by byte */
        if (!k && len - i >= 8) {
            memcpy(&got, buf + i, 8);
            if (le64toh(got) == w) {
                i += 8;
                continue;
            }
        }
        for (; k < 8 && i < len; k++, i++) {
            if (buf[i] != (uint8_t)(w >> (k * 8))) {
                if (!wrong_) {
                    first_wrong_ = off + i;
                }
                wrong_++;
            }
        }
    }
    cover(off, off + len);
}

void DataMem::cover(uint64_t a, uint64_t b)
{
    auto it = covered_.upper_bound(a);

    if (it != covered_.begin() && std::prev(it)->second >= a) {
        --it;
        a = it->first;
    }
    while (it != covered_.end() && it->first <= b) {
        if (it->second > b) {
            b = it->second;
        }
        it = covered_.erase(it);
    }
    covered_[a] = b;
}

bool DataMem::take(unsigned src, uint64_t x, uint64_t len)
{
    uint64_t a = (uint64_t)src * span_ + x, b = a + len;
    auto it = covered_.upper_bound(a);
    uint64_t s, e;

    if (it == covered_.begin()) {
        return false;
    }
    --it;
    s = it->first;
    e = it->second;
    if (e < b) {
        return false;
    }
    covered_.erase(it);
    if (s < a) {
        covered_[s] = a;
    }
    if (b < e) {
        covered_[b] = e;
    }
    return true;
}

} // namespace axonsim
