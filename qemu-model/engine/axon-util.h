/*
 * axon engine: the small helpers every engine file uses, in portable C
 *
 * Byte order for the device interface (little endian) and the wire (big
 * endian), bitmaps, sizes. The names follow the kernel's and QEMU's, so
 * the code reads as it did in the device model, but nothing here comes
 * from either: the engine builds with the C library alone.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AXON_UTIL_H
#define AXON_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define KiB (1ULL << 10)
#define MiB (1ULL << 20)

#define SCALE_US 1000LL             /* nanoseconds in a microsecond */
#define SCALE_MS 1000000LL          /* ... and in a millisecond */

#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif
#define ABS(n) ((n) < 0 ? -(n) : (n))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define IS_ALIGNED(n, m) (((n) % (m)) == 0)
#define AXON_BUILD_BUG_ON(x) _Static_assert(!(x), #x)

/* calloc for n objects of type T: NULL when out of memory */
#define axon_new0(T, n) ((T *)calloc((n), sizeof(T)))

static inline bool is_power_of_2(uint64_t n)
{
    return n && !(n & (n - 1));
}

static inline bool buffer_is_zero(const void *buf, size_t len)
{
    const uint8_t *p = buf;
    size_t i;

    for (i = 0; i < len; i++) {
        if (p[i]) {
            return false;
        }
    }
    return true;
}

/* ---- byte order --------------------------------------------------------- */

/* The host's byte order, as the compiler folds it. */
static inline bool axon_host_be(void)
{
    const uint16_t one = 1;

    return !*(const uint8_t *)&one;
}

static inline uint16_t axon_bswap16(uint16_t v)
{
    return (uint16_t)(v << 8 | v >> 8);
}

static inline uint32_t axon_bswap32(uint32_t v)
{
    return __builtin_bswap32(v);
}

static inline uint64_t axon_bswap64(uint64_t v)
{
    return __builtin_bswap64(v);
}

#define AXON_LE(bits, v) (axon_host_be() ? axon_bswap##bits(v) : (v))
#define AXON_BE(bits, v) (axon_host_be() ? (v) : axon_bswap##bits(v))

static inline uint16_t le16_to_cpu(uint16_t v) { return AXON_LE(16, v); }
static inline uint32_t le32_to_cpu(uint32_t v) { return AXON_LE(32, v); }
static inline uint64_t le64_to_cpu(uint64_t v) { return AXON_LE(64, v); }
static inline uint16_t cpu_to_le16(uint16_t v) { return AXON_LE(16, v); }
static inline uint32_t cpu_to_le32(uint32_t v) { return AXON_LE(32, v); }
static inline uint64_t cpu_to_le64(uint64_t v) { return AXON_LE(64, v); }
static inline uint32_t be32_to_cpu(uint32_t v) { return AXON_BE(32, v); }
static inline uint32_t cpu_to_be32(uint32_t v) { return AXON_BE(32, v); }

/* loads and stores at any alignment */
#define AXON_LDST(name, bits, order) \
    static inline uint##bits##_t ld##name##_p(const void *p) \
    { \
        uint##bits##_t v; \
        memcpy(&v, p, sizeof(v)); \
        return order(bits, v); \
    } \
    static inline void st##name##_p(void *p, uint##bits##_t v) \
    { \
        v = order(bits, v); \
        memcpy(p, &v, sizeof(v)); \
    }
AXON_LDST(uw_be, 16, AXON_BE)
AXON_LDST(l_be, 32, AXON_BE)
AXON_LDST(q_be, 64, AXON_BE)
AXON_LDST(uw_le, 16, AXON_LE)
AXON_LDST(l_le, 32, AXON_LE)
AXON_LDST(q_le, 64, AXON_LE)
#undef AXON_LDST

static inline void stw_be_p(void *p, uint16_t v)
{
    stuw_be_p(p, v);
}

/* ---- bitmaps ------------------------------------------------------------ */

#define AXON_LONG_BITS (sizeof(unsigned long) * 8)
#define AXON_BITS_TO_LONGS(n) DIV_ROUND_UP(n, AXON_LONG_BITS)

static inline unsigned long *bitmap_new(size_t bits)
{
    return axon_new0(unsigned long, AXON_BITS_TO_LONGS(bits));
}

static inline void bitmap_zero(unsigned long *map, size_t bits)
{
    memset(map, 0, AXON_BITS_TO_LONGS(bits) * sizeof(unsigned long));
}

static inline bool test_bit(size_t n, const unsigned long *map)
{
    return map[n / AXON_LONG_BITS] >> (n % AXON_LONG_BITS) & 1;
}

static inline void set_bit(size_t n, unsigned long *map)
{
    map[n / AXON_LONG_BITS] |= 1UL << (n % AXON_LONG_BITS);
}

static inline void clear_bit(size_t n, unsigned long *map)
{
    map[n / AXON_LONG_BITS] &= ~(1UL << (n % AXON_LONG_BITS));
}

/* the first bit from start that equals want, or size */
static inline size_t axon_find_bit(const unsigned long *map, size_t size,
                                   size_t start, bool want)
{
    size_t n = start;

    while (n < size) {
        unsigned long w = map[n / AXON_LONG_BITS];

        w = (want ? w : ~w) >> (n % AXON_LONG_BITS);
        if (w) {
            n += __builtin_ctzl(w);
            return MIN(n, size);
        }
        n = (n / AXON_LONG_BITS + 1) * AXON_LONG_BITS;
    }
    return size;
}

static inline size_t find_next_bit(const unsigned long *map, size_t size,
                                   size_t start)
{
    return axon_find_bit(map, size, start, true);
}

static inline size_t find_first_bit(const unsigned long *map, size_t size)
{
    return axon_find_bit(map, size, 0, true);
}

static inline size_t find_first_zero_bit(const unsigned long *map,
                                         size_t size)
{
    return axon_find_bit(map, size, 0, false);
}

#endif /* AXON_UTIL_H */
