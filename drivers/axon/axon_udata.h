/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon: checks of the udata userspace passes with a uverbs request. The
 * verbs read the udata (ib_copy_from_udata() cannot be fed a kernel
 * buffer) and pass what they read.
 *
 * No device, no locks, no allocation; axon.ko and the KUnit suites
 * (kunit/) compile the same axon_udata.c.
 */
#ifndef _AXON_UDATA_H_
#define _AXON_UDATA_H_

#include <linux/types.h>
#include <rdma/axon-abi.h>

int axon_check_ucontext_req(const struct axon_alloc_ucontext_req *req,
			    bool tail_zero);
int axon_check_resp_only_udata(bool in_zero, size_t outlen, size_t resp_size);
int axon_check_create_qp_req(const struct axon_create_qp_req *req,
			     bool driver, bool sq_dbrec, bool tail_zero,
			     size_t outlen);
int axon_check_modify_qp_req(const struct axon_modify_qp_req *req, bool rud,
			     bool tail_zero);

#endif /* _AXON_UDATA_H_ */
