// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon multicast: UD QPs attached to multicast groups, in the device
 * ("Multicast groups" in axon_admin_cmds_defs.h). The RDMA core has
 * checked that the QP is UD and the GID multicast, and keeps a user QP
 * from being destroyed while attached; the device checks again and
 * detaches a destroyed QP from every group all the same. On RoCE the
 * LID means nothing (the RoCE annex, A17.4.5) and is not passed on.
 * The RDMA CM's joins take the Ethernet function's multicast filter
 * along through the netdev (IGMP on the port: axon_netdev.c).
 */

#include "axon.h"
#include "axon_cmds.h"

static int axon_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 opcode)
{
	struct axon_dev *adev = to_adev(ibqp->device);
	int err;

	err = axon_cmd_mcast(&adev->aq, opcode, to_aqp(ibqp)->qpn, gid->raw);
	if (err)
		ibdev_dbg(&adev->ibdev, "%s QP %u, group %pI6: %d\n",
			  opcode == AXON_ADMIN_ATTACH_MCAST ? "attach" :
			  "detach", to_aqp(ibqp)->qpn, gid->raw, err);
	return err;
}

int axon_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return axon_mcast(ibqp, gid, AXON_ADMIN_ATTACH_MCAST);
}

int axon_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return axon_mcast(ibqp, gid, AXON_ADMIN_DETACH_MCAST);
}
