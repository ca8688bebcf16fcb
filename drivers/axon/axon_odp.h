/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon on-demand paging (axon_odp.c): MRs whose pages the device gets as
 * it faults on them and gives back as the memory manager takes them.
 * Built with CONFIG_INFINIBAND_ON_DEMAND_PAGING only; without it these
 * stubs leave the device without ODP (no capability, ON_DEMAND refused).
 */
#ifndef _AXON_ODP_H_
#define _AXON_ODP_H_

#include <rdma/ib_verbs.h>

struct axon_dev;
struct axon_mr;
struct axon_qp;

#ifdef CONFIG_INFINIBAND_ON_DEMAND_PAGING

int axon_odp_init(void);
void axon_odp_exit(void);
void axon_odp_set_ops(struct axon_dev *adev);
void axon_odp_query_device(struct axon_dev *adev,
			   struct ib_device_attr *props);
struct ib_mr *axon_odp_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				   u64 virt_addr, int access,
				   struct ib_udata *udata);
int axon_odp_mr_destroy(struct axon_dev *adev, struct axon_mr *mr);
void axon_odp_qp_init(struct axon_qp *qp);
void axon_odp_qp_flush(struct axon_qp *qp);
void axon_odp_fault_event(struct axon_dev *adev, u32 qpn, u64 data);

#else /* CONFIG_INFINIBAND_ON_DEMAND_PAGING */

static inline int axon_odp_init(void)
{
	return 0;
}

static inline void axon_odp_exit(void)
{
}

static inline void axon_odp_set_ops(struct axon_dev *adev)
{
}

static inline void axon_odp_query_device(struct axon_dev *adev,
					 struct ib_device_attr *props)
{
}

static inline struct ib_mr *
axon_odp_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
		     u64 virt_addr, int access, struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

/* No ODP MR exists without the kernel's ODP: never called. */
static inline int axon_odp_mr_destroy(struct axon_dev *adev,
				      struct axon_mr *mr)
{
	return -EOPNOTSUPP;
}

static inline void axon_odp_qp_init(struct axon_qp *qp)
{
}

static inline void axon_odp_qp_flush(struct axon_qp *qp)
{
}

/* No ODP MR exists without the kernel's ODP: no QP can wait for a page. */
static inline void axon_odp_fault_event(struct axon_dev *adev, u32 qpn,
					u64 data)
{
}

#endif /* CONFIG_INFINIBAND_ON_DEMAND_PAGING */

#endif /* _AXON_ODP_H_ */
