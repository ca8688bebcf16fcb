// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon's RoCE port: its state, which follows the wire's link (async
 * events, axon_eq.c) and the netdev's (open and stop, axon_netdev.c) and
 * is reported to the RDMA core once the ib_device is registered
 * (axon_verbs.c); and its active MTU, which follows the netdev's.
 */

#include <linux/netdevice.h>
#include <rdma/ib_addr.h>

#include "axon.h"

/* The RoCE MTU: the netdev's, within the port's. */
enum ib_mtu axon_active_mtu(struct axon_dev *adev)
{
	struct net_device *netdev = READ_ONCE(adev->netdev);

	/* iboe_get_mtu() is 0 below the smallest IB MTU */
	return netdev ? min(adev->max_mtu,
			    max(IB_MTU_256,
				iboe_get_mtu(READ_ONCE(netdev->mtu)))) :
			IB_MTU_256;
}

/*
 * The RoCE port is active when the wire is up and the netdev is open, as
 * on other RoCE NICs; the netdev carrier follows the wire. Reports changes
 * to the RDMA core while the ib_device is registered.
 */
void axon_port_update_locked(struct axon_dev *adev)
{
	struct net_device *netdev = adev->netdev;
	struct ib_event event = {
		.device = &adev->ibdev,
		.element.port_num = AXON_PORT,
	};
	enum ib_port_state state;

	lockdep_assert_held(&adev->port_mutex);
	if (netdev) {
		if (adev->link_up)
			netif_carrier_on(netdev);
		else
			netif_carrier_off(netdev);
	}
	state = adev->link_up && netdev && netif_running(netdev) ?
		IB_PORT_ACTIVE : IB_PORT_DOWN;
	if (state == adev->port_state)
		return;
	adev->port_state = state;
	if (adev->registered) {
		event.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
							IB_EVENT_PORT_ERR;
		ib_dispatch_event(&event);
	}
}

/* The wire went up or down (an async event from the device). */
void axon_set_link(struct axon_dev *adev, bool up)
{
	mutex_lock(&adev->port_mutex);
	adev->link_up = up;
	axon_port_update_locked(adev);
	mutex_unlock(&adev->port_mutex);
}

/* The netdev was opened or stopped. */
void axon_port_update(struct axon_dev *adev)
{
	mutex_lock(&adev->port_mutex);
	axon_port_update_locked(adev);
	mutex_unlock(&adev->port_mutex);
}
