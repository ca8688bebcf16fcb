/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon: on-demand paging as the device takes it ("On-demand paging" in
 * axon_admin_cmds_defs.h): the capabilities verbs report, a page fault
 * event taken apart and checked, the page entries MAP_PAGES reads, and
 * which of an MR's pages a range of addresses covers.
 *
 * No device, no locks, no allocation; axon.ko and the KUnit suites
 * (kunit/) compile the same axon_odp_attr.c, with or without
 * CONFIG_INFINIBAND_ON_DEMAND_PAGING.
 */
#ifndef _AXON_ODP_ATTR_H_
#define _AXON_ODP_ATTR_H_

#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include <axon/axon_dev.h>

/*
 * The pages a QP waits for: entries [first, first + count) of the MR
 * whose key is key (an AXON_EVENT_PAGE_FAULT's data).
 */
struct axon_odp_fault {
	u32 key;
	u32 first;
	u32 count;
};

void axon_odp_caps(struct ib_odp_caps *caps);
int axon_odp_fault_decode(u64 data, u64 npages, struct axon_odp_fault *f);
int axon_odp_entry(u64 dma, unsigned int page_shift, __le64 *entry);
int axon_odp_range_pages(u64 iova, u64 length, unsigned int page_shift,
			 u64 addr, u64 len, u32 *first, u32 *count);
bool axon_odp_span(u64 mr_start, u64 mr_end, unsigned int page_shift,
		   u64 start, u64 end, u32 *first, u32 *count);

#endif /* _AXON_ODP_ATTR_H_ */
