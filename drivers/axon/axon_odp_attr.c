// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon: on-demand paging as the device takes it: capabilities, page
 * fault events, MAP_PAGES entries, page ranges.
 * Shared by axon.ko and the KUnit suites (see axon_odp_attr.h).
 */

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <rdma/ib_umem_odp.h>

#include "axon_odp_attr.h"

/*
 * What the device serves from on-demand paging MRs, by transport: every
 * RC and XRC operation, the receives of an SRQ too; UD sends (a UD
 * receive that faults is dropped, as UD may drop). UC drops what faults
 * and RUD has no ODP at all: neither is offered. No implicit ODP (an MR
 * over the whole address space).
 */
void axon_odp_caps(struct ib_odp_caps *caps)
{
	const u32 ops = IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_WRITE |
			IB_ODP_SUPPORT_READ | IB_ODP_SUPPORT_ATOMIC |
			IB_ODP_SUPPORT_SRQ_RECV;

	caps->general_caps = IB_ODP_SUPPORT;
	caps->per_transport_caps.rc_odp_caps = ops | IB_ODP_SUPPORT_RECV;
	caps->per_transport_caps.xrc_odp_caps = ops;
	caps->per_transport_caps.ud_odp_caps = IB_ODP_SUPPORT_SEND;
	caps->per_transport_caps.uc_odp_caps = 0;
}

/*
 * The pages an AXON_EVENT_PAGE_FAULT's @data asks for, into @f; -EINVAL
 * unless they are pages of an MR of @npages pages (the MR is found by
 * f->key first). Nothing read from the device indexes unchecked.
 */
int axon_odp_fault_decode(u64 data, u64 npages, struct axon_odp_fault *f)
{
	f->key = AXON_FAULT_GET_KEY(data);
	f->first = AXON_FAULT_GET_FIRST(data);
	f->count = AXON_FAULT_GET_COUNT(data);
	if ((u64)f->first + f->count > npages)
		return -EINVAL;
	return 0;
}

/*
 * The MAP_PAGES entry of a page whose ib_umem_odp dma_list entry is @dma:
 * 0 (absent) for an unmapped page, else its DMA address with
 * AXON_ODP_PAGE_PRESENT, and AXON_ODP_PAGE_WRITE if the page is mapped
 * writable. -EINVAL for an address not 2^@page_shift aligned, which the
 * device would refuse.
 */
int axon_odp_entry(u64 dma, unsigned int page_shift, __le64 *entry)
{
	u64 addr = dma & ODP_DMA_ADDR_MASK;
	u64 v;

	if (!dma) {
		*entry = 0;
		return 0;
	}
	if (addr & (BIT_ULL(page_shift) - 1))
		return -EINVAL;
	v = addr | AXON_ODP_PAGE_PRESENT;
	if (dma & ODP_WRITE_ALLOWED_BIT)
		v |= AXON_ODP_PAGE_WRITE;
	*entry = cpu_to_le64(v);
	return 0;
}

/*
 * The pages of an MR of [@iova, @iova + @length) in pages of
 * 2^@page_shift (the first holding @iova at its offset in a page) that
 * [@addr, @addr + @len) touches: *@first and *@count (0 for @len 0).
 * -EFAULT if the range is not inside the MR, as ibv_advise_mr(3) says.
 */
int axon_odp_range_pages(u64 iova, u64 length, unsigned int page_shift,
			 u64 addr, u64 len, u32 *first, u32 *count)
{
	u64 off;

	if (addr < iova || len > length || addr - iova > length - len)
		return -EFAULT;
	off = (iova & (BIT_ULL(page_shift) - 1)) + (addr - iova);
	*first = off >> page_shift;
	*count = len ? ((off + len - 1) >> page_shift) - *first + 1 : 0;
	return 0;
}

/*
 * The pages of an ODP umem of [@mr_start, @mr_end) (page aligned: its
 * ib_umem_start() and ib_umem_end()) that the user range [@start, @end)
 * overlaps: false if none, else *@first and *@count.
 */
bool axon_odp_span(u64 mr_start, u64 mr_end, unsigned int page_shift,
		   u64 start, u64 end, u32 *first, u32 *count)
{
	u64 s = max(start, mr_start);
	u64 e = min(end, mr_end);

	if (s >= e)
		return false;
	*first = (s - mr_start) >> page_shift;
	*count = ((e - 1 - mr_start) >> page_shift) - *first + 1;
	return true;
}
