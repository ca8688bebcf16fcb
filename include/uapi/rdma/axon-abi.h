/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * axon uverbs ABI: the driver-specific udata exchanged between axon.ko and
 * the libibverbs provider (libaxon-rdmav34.so).
 *
 * Structs are 8-byte aligned and grow at the end. comp_mask says which
 * optional fields are valid; the kernel rejects unknown comp_mask bits and
 * non-zero reserved fields in requests.
 */
#ifndef _UAPI_RDMA_AXON_ABI_H
#define _UAPI_RDMA_AXON_ABI_H

#include <linux/types.h>

/* Increment on any incompatible change. */
#define AXON_UVERBS_ABI_VERSION 1

struct axon_alloc_ucontext_req {
	__u32 comp_mask;	/* none defined yet, must be 0 */
	__u32 reserved;
};

struct axon_alloc_ucontext_resp {
	__u32 comp_mask;
	__u32 max_inline;	/* bytes of inline data per send WQE */
	__u32 max_sge;
	__u32 max_qp_wr;
	__u32 max_cqe;
	__u32 reserved;
};

struct axon_alloc_pd_resp {
	__u32 comp_mask;
	__u32 pdn;		/* the device's PD number */
};

#endif /* _UAPI_RDMA_AXON_ABI_H */
