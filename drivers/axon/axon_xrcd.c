// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon XRC domains (AXON_CAP_XRC). The device keeps no XRCD objects: a
 * domain is a number the driver draws, 1 to 2^24 - 1, that CREATE_SRQ of
 * an XRC SRQ and CREATE_QP of an XRC target QP carry (see "Extended
 * reliable connections" in axon_io_defs.h). Allocating and freeing one
 * sends no admin command. The RDMA core keeps a domain while an SRQ or a
 * target QP uses it, so a number is free again only once the device has
 * destroyed all of them.
 */

#include "axon.h"

/* The largest XRC domain number: 24 bits, as an SRQ number on the wire. */
#define AXON_MAX_XRCDN ((1u << 24) - 1)

int axon_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibxrcd->device);
	struct axon_xrcd *xrcd = to_axrcd(ibxrcd);
	int xrcdn;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(&adev->ibdev, "alloc_xrcd: non-zero udata\n");
		return -EINVAL;
	}
	xrcdn = ida_alloc_range(&adev->xrcd_ida, 1, AXON_MAX_XRCDN,
				GFP_KERNEL);
	if (xrcdn < 0) {
		ibdev_dbg(&adev->ibdev, "alloc_xrcd failed: %d\n", xrcdn);
		return xrcdn == -ENOSPC ? -ENOMEM : xrcdn;
	}
	xrcd->xrcdn = xrcdn;
	return 0;
}

int axon_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	struct axon_xrcd *xrcd = to_axrcd(ibxrcd);

	ida_free(&to_adev(ibxrcd->device)->xrcd_ida, xrcd->xrcdn);
	return 0;
}
