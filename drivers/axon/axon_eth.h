/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon Ethernet descriptor rings: the ring state and its index arithmetic,
 * and the multicast filter's hash, inline so that the KUnit suites test the
 * code the driver runs.
 */
#ifndef _AXON_ETH_H_
#define _AXON_ETH_H_

#include <linux/crc32.h>
#include <linux/if_ether.h>
#include <linux/skbuff.h>
#include <linux/types.h>

#include <axon/axon_dev.h>

struct axon_eth_buf {
	struct sk_buff *skb;
	dma_addr_t dma;
	u32 len;
};

/*
 * head and tail run freely and wrap at 2^32; their difference is the
 * number of entries in use, and one entry always stays empty, so
 * depth - 1 entries (depth a power of 2) can be in flight.
 */
struct axon_eth_ring {
	struct axon_eth_desc *desc;
	dma_addr_t desc_dma;
	struct axon_eth_buf *bufs;
	u32 depth;
	u32 head;	/* next entry the driver reclaims (free running) */
	u32 tail;	/* next entry the driver fills (free running) */
};

/* The ring slot of free-running index @n. */
static inline u32 axon_ring_idx(const struct axon_eth_ring *r, u32 n)
{
	return n & (r->depth - 1);
}

/* Entries the driver may still fill. */
static inline u32 axon_ring_free_slots(const struct axon_eth_ring *r)
{
	return r->depth - 1 - (r->tail - r->head);
}

/*
 * A received frame's length, as written by the device, is trusted only if
 * it holds an Ethernet header and fits the posted buffer.
 */
static inline bool axon_rx_len_valid(u32 len, u32 buf_len)
{
	return len >= ETH_HLEN && len <= buf_len;
}

/*
 * The bit of the device's 64-bit multicast hash filter that the multicast
 * address @addr selects: the top 6 bits of its Ethernet CRC ("Ethernet
 * multicast filter" in axon_eth_defs.h).
 */
static inline u32 axon_eth_mc_hash_bit(const u8 *addr)
{
	return ether_crc(ETH_ALEN, addr) >> 26;
}

#endif /* _AXON_ETH_H_ */
