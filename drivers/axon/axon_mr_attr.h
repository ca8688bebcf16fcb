/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon: a memory region as the device takes it: page size and count,
 * page list, access bits; the types of memory windows.
 *
 * No device, no locks, no allocation; axon.ko and the KUnit suites
 * (kunit/) compile the same axon_mr_attr.c.
 */
#ifndef _AXON_MR_ATTR_H_
#define _AXON_MR_ATTR_H_

#include <linux/types.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include <axon/axon_dev.h>

/* The ib_access_flags the device enforces, on MRs and on QPs. */
#define AXON_IB_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)
/* And on MRs only: memory windows may be bound to it (AXON_CAP_MW). */
#define AXON_IB_MR_ACCESS (AXON_IB_ACCESS | IB_ACCESS_MW_BIND)

/* Page lists */
#define AXON_PBL_LEAF_SIZE (AXON_PBL_LEAF_ENTRIES * sizeof(__le64))

static inline u32 axon_pbl_levels(size_t npages)
{
	return npages <= AXON_PBL_LEAF_ENTRIES ? 1 : 2;
}

static inline size_t axon_pbl_leaves(size_t npages)
{
	return DIV_ROUND_UP(npages, AXON_PBL_LEAF_ENTRIES);
}

int axon_mr_layout(struct ib_umem *umem, unsigned long pgsz_bitmap, u64 iova,
		   unsigned long *pgsz, size_t *npages);
int axon_pbl_fill(struct ib_umem *umem, unsigned long pgsz,
		  __le64 *const *leaves, size_t npages);
u32 axon_mr_access(int ib_access);
int axon_check_mr_access(int ib_access);
u16 axon_mw_flags(enum ib_mw_type type);

#endif /* _AXON_MR_ATTR_H_ */
