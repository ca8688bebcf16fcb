// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon work queues: the rings of power-of-2 WQE slots behind a QP's send
 * and receive queues (axon_qp.c) and an SRQ (axon_srq.c), in queue memory
 * the device reads (axon_mmap.c). head counts the WQEs posted and tail
 * those completed, both free running.
 */

#include "axon.h"

int axon_wq_alloc(struct axon_dev *adev, struct axon_wq *wq, u32 depth,
		  u8 wqe_shift, u32 max_sge, bool user, size_t tail)
{
	wq->depth = depth;
	wq->wqe_shift = wqe_shift;
	wq->max_sge = max_sge;
	wq->head = 0;
	wq->tail = 0;
	spin_lock_init(&wq->lock);
	return axon_qmem_alloc(adev, &wq->mem,
			       ((size_t)depth << wqe_shift) + tail, user);
}

/*
 * Whether a send queue of @depth slots of 2^@wqe_shift bytes gets a
 * doorbell record after its ring: a ring under 1 MiB takes the page more
 * it may cost; a larger one (a power of 2, so page-aligned), whose
 * allocation that page could take past the page allocator's largest
 * order, does without, and its producer rings each post.
 */
bool axon_wq_dbrec_fits(u32 depth, u8 wqe_shift)
{
	return ((size_t)depth << wqe_shift) < SZ_1M;
}

void *axon_wq_slot(struct axon_wq *wq)
{
	return wq->mem.va + ((size_t)(wq->head & (wq->depth - 1)) <<
			     wq->wqe_shift);
}

bool axon_wq_full(struct axon_wq *wq)
{
	return (u16)(wq->head - READ_ONCE(wq->tail)) >= wq->depth;
}
