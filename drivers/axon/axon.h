/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon: driver-wide state shared by the PCI, admin queue, event queue and
 * verbs layers.
 */
#ifndef _AXON_H_
#define _AXON_H_

#include <linux/pci.h>
#include <rdma/ib_verbs.h>

#include <axon/axon_dev.h>

#include "axon_admin.h"
#include "axon_eq.h"

#define AXON_DRV_NAME "axon"
#define AXON_PORT 1
#define AXON_MAX_GIDS 256

/* Only the capabilities the device implements today: no QP1 yet. */
#define AXON_PORT_CORE_CAPS (RDMA_CORE_CAP_PROT_ROCE | \
			     RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP | \
			     RDMA_CORE_CAP_ETH_AH)

struct axon_dev {
	struct ib_device ibdev;
	struct pci_dev *pdev;
	void __iomem *regs;

	struct axon_admin_queue aq;
	struct axon_eq eq;

	struct net_device *netdev;	/* the Ethernet function */

	struct axon_dev_attr attr;	/* from QUERY_DEVICE, little endian */
	u32 fw_version;
	struct mutex port_mutex;	/* netdev, link_up, port_state, registered */
	bool link_up;			/* the wire, as the device reports it */
	enum ib_port_state port_state;	/* the RoCE port, as reported to the core */
	bool registered;		/* the ib_device is visible */
	bool events_off;		/* teardown: ignore async events */
};

struct axon_ucontext {
	struct ib_ucontext ibucontext;
};

struct axon_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

static inline struct axon_dev *to_adev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct axon_dev, ibdev);
}

static inline struct axon_pd *to_apd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct axon_pd, ibpd);
}

static inline u32 axon_rd(struct axon_dev *adev, enum axon_reg reg)
{
	return readl(adev->regs + reg);
}

static inline void axon_wr(struct axon_dev *adev, enum axon_reg reg, u32 val)
{
	writel(val, adev->regs + reg);
}

/* axon_netdev.c */
int axon_netdev_create(struct axon_dev *adev);
void axon_netdev_destroy(struct axon_dev *adev);

/* axon_verbs.c */
int axon_ib_register(struct axon_dev *adev);
void axon_ib_unregister(struct axon_dev *adev);
void axon_set_link(struct axon_dev *adev, bool up);
void axon_port_update(struct axon_dev *adev);
void axon_ib_fatal_event(struct axon_dev *adev);

#endif /* _AXON_H_ */
