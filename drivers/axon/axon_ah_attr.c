// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon: addresses: the checks every rdma_ah_attr passes and an address
 * handle as the device's struct axon_ud_av.
 * Shared by axon.ko and the KUnit suites (see axon_ah_attr.h).
 */

#include <linux/errno.h>
#include <linux/etherdevice.h>
#include <linux/string.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>

#include "axon_ah_attr.h"

/*
 * What any address must be on this device, as an RC QP's path or an
 * address handle: RoCE with a GRH, on port 1 (0: the QP's), with values
 * that fit the device's fields. -EINVAL otherwise. The flow label is not
 * checked: only its 20 bits reach the wire (axon_flow_label()).
 */
int axon_ah_attr_check(const struct rdma_ah_attr *ah)
{
	const struct ib_global_route *grh;

	if (ah->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return -EINVAL;
	if (rdma_ah_get_port_num(ah) && rdma_ah_get_port_num(ah) != 1)
		return -EINVAL;
	grh = rdma_ah_read_grh(ah);
	if (grh->sgid_index > U8_MAX)
		return -EINVAL;
	return 0;
}

/*
 * An address handle's attributes as the address the device writes into a
 * UD packet. The RDMA core has resolved the source GID (grh.sgid_attr,
 * an entry in use) and, for a user AH, the destination MAC. A datagram
 * is a RoCEv2 packet, so the source GID must be a RoCE v2 one, of the
 * destination's family (IPv4 for ::ffff:a.b.c.d, else IPv6): -EINVAL
 * otherwise, as for axon_ah_attr_check(). A multicast group's GID goes
 * with its multicast MAC (the core maps one to the other), and a unicast
 * GID with a unicast MAC: -EINVAL for a mix.
 */
int axon_ud_av_from_ib(const struct rdma_ah_attr *ah, struct axon_ud_av *av)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(ah);
	const struct ib_gid_attr *sgid_attr = grh->sgid_attr;
	struct in6_addr dgid;
	bool ipv4;
	int err;

	err = axon_ah_attr_check(ah);
	if (err)
		return err;
	memcpy(&dgid, grh->dgid.raw, sizeof(dgid));
	if (rdma_is_multicast_addr(&dgid) !=
	    is_multicast_ether_addr(ah->roce.dmac))
		return -EINVAL;
	if (!sgid_attr || sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	ipv4 = rdma_gid_attr_network_type(sgid_attr) == RDMA_NETWORK_IPV4;
	if (ipv4 != ipv6_addr_v4mapped(&dgid))
		return -EINVAL;

	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
	memcpy(av->dmac, ah->roce.dmac, sizeof(av->dmac));
	av->sgid_index = grh->sgid_index;
	av->hop_limit = grh->hop_limit;
	av->tclass = grh->traffic_class;
	av->flags = ipv4 ? AXON_AV_IPV4 : 0;
	av->flow_label = cpu_to_le32(axon_flow_label(grh));
	/* else 0: the device derives the port from the sending QP */
	if (axon_flow_label(grh)) {
		u16 sport = rdma_flow_label_to_udp_sport(axon_flow_label(grh));

		av->udp_sport = cpu_to_le16(sport);
	}
	return 0;
}
