/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon: a memory region as the device takes it: page size and count,
 * page list, access bits; a fast-registration MR's page list; the types
 * of memory windows.
 *
 * No device, no locks, no allocation; axon.ko and the KUnit suites
 * (kunit/) compile the same axon_mr_attr.c.
 */
#ifndef _AXON_MR_ATTR_H_
#define _AXON_MR_ATTR_H_

#include <linux/types.h>
#include <linux/workqueue.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

#include <axon/axon_dev.h>

/* The ib_access_flags the device enforces, on MRs and on QPs. */
#define AXON_IB_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)
/* And on MRs only: memory windows may be bound to it (AXON_CAP_MW). */
#define AXON_IB_MR_ACCESS (AXON_IB_ACCESS | IB_ACCESS_MW_BIND)

/*
 * A fast-registration MR's page list (alloc_mr): room for @capacity page
 * addresses in DMA-coherent memory, which the device reads when a REG_MR
 * WQE naming it executes. map_mr_sg fills the first @npages with pages of
 * 2^@page_shift bytes, the MR's iova @page_off bytes into the first.
 */
struct axon_fr_pages {
	__le64 *list;
	dma_addr_t dma;
	u32 capacity;
	u32 npages;
	u32 page_off;
	u8 page_shift;
};

struct axon_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;
	/*
	 * The device's key. A fast-registration MR's is the key of the last
	 * REG_MR posted: its tag is the consumer's (ib_update_fast_reg_key()).
	 */
	u32 key;
	int access;			/* user MRs: the IB_ACCESS_* granted */
	u8 page_shift;			/* its page list's, for the rdma tool */
	u32 npages;
	/*
	 * dynamic dma-buf MRs (see axon_mr.c), under the dma-buf's resv lock:
	 * live from CREATE_MR to dereg, valid while the device has the pages
	 */
	bool live;
	bool valid;
	struct work_struct remap_work;
	struct axon_fr_pages fr;	/* fast registration; list NULL if not */
};

static inline struct axon_mr *to_amr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct axon_mr, ibmr);
}

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
int axon_fr_page_shift(u32 page_size);
int axon_fr_set_page(struct axon_fr_pages *fr, u64 addr);

#endif /* _AXON_MR_ATTR_H_ */
