/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon: kernel work requests as send and receive queue entries (WQEs),
 * and which WQEs are pending.
 *
 * No device, no locks, no allocation; axon.ko and the KUnit suites
 * (kunit/) compile the same axon_wqe.c.
 */
#ifndef _AXON_WQE_H_
#define _AXON_WQE_H_

#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include <axon/axon_dev.h>

/* Whether @idx names a posted, not yet completed WQE: in [tail, head). */
static inline bool axon_wq_index_pending(u16 tail, u16 head, u16 idx)
{
	return ((idx - tail) & U16_MAX) < ((head - tail) & U16_MAX);
}

bool axon_conn_wr_ok(enum ib_qp_type type, enum ib_wr_opcode opcode,
		     bool fast_reg);
int axon_build_send_wqe(const struct ib_send_wr *wr, const struct ib_pd *pd,
			void *slot, u32 slot_size, u32 max_sge, u32 max_inline,
			bool sig_all);
int axon_build_ud_send_wqe(const struct ib_send_wr *wr,
			   const struct ib_pd *pd, void *slot, u32 slot_size,
			   u32 max_sge, u32 max_inline, bool sig_all);
int axon_build_recv_wqe(const struct ib_recv_wr *wr, void *slot,
			u32 max_sge);

#endif /* _AXON_WQE_H_ */
