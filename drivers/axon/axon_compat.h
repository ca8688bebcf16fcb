/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon: the differences between the kernels axon.ko builds against, in
 * one place. Debian 12's 6.1 is the target; nothing else is needed yet
 * (create_cq takes a uverbs_attr_bundle instead of the udata from 6.11).
 */
#ifndef _AXON_COMPAT_H_
#define _AXON_COMPAT_H_

#include <rdma/ib_umem.h>

/*
 * Debian's 6.1 has the DMA block iterator in its own header, as newer
 * kernels do (Kbuild checks, sparse does not know __has_include).
 */
#ifdef AXON_HAVE_RDMA_ITER_H
#include <rdma/iter.h>
#endif

#endif /* _AXON_COMPAT_H_ */
