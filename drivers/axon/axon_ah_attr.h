/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon: addresses: the checks every rdma_ah_attr passes (an RC QP's path,
 * an address handle), an address handle and its attributes as the
 * device's struct axon_ud_av.
 *
 * No device, no locks, no allocation; axon.ko and the KUnit suites
 * (kunit/) compile the same axon_ah_attr.c.
 */
#ifndef _AXON_AH_ATTR_H_
#define _AXON_AH_ATTR_H_

#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include <axon/axon_dev.h>

/*
 * An address handle: the address a UD send WQE carries, built once (a
 * user AH's copy lives in the provider, see axon_ah.c).
 */
struct axon_ah {
	struct ib_ah ibah;
	struct axon_ud_av av;
};

static inline struct axon_ah *to_aah(struct ib_ah *ibah)
{
	return container_of(ibah, struct axon_ah, ibah);
}

/*
 * The flow label the wire carries: its 20 bits. Bits above are ignored,
 * as the core's UDP port conversion and other RoCE drivers ignore them
 * (UCX sets all 32).
 */
static inline u32 axon_flow_label(const struct ib_global_route *grh)
{
	return grh->flow_label & AXON_FLOW_LABEL_MASK;
}

int axon_ah_attr_check(const struct rdma_ah_attr *ah);
int axon_ud_av_from_ib(const struct rdma_ah_attr *ah, struct axon_ud_av *av);

#endif /* _AXON_AH_ATTR_H_ */
