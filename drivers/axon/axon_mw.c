// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon memory windows (AXON_CAP_MW), for user space: types 1 and 2 (2B,
 * answering only the QP that bound them). A window is a device object
 * without pages: CREATE_MR with a window flag makes it in the PD, unbound,
 * and its key is the ib_mw's rkey. Binding and invalidating it are WQEs
 * the provider posts (see "Memory windows" in axon_io_defs.h); the driver
 * only creates and destroys windows, and never learns their later keys.
 */

#include "axon.h"
#include "axon_cmds.h"
#include "axon_mr_attr.h"

int axon_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibmw->device);
	u16 flags = axon_mw_flags(ibmw->type);
	int err;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(&adev->ibdev, "alloc_mw: non-zero udata\n");
		return -EINVAL;
	}
	if (!flags) {
		ibdev_dbg(&adev->ibdev, "alloc_mw: type %d\n", ibmw->type);
		return -EINVAL;
	}
	err = axon_cmd_create_mw(&adev->aq, to_apd(ibmw->pd)->pdn, flags,
				 &ibmw->rkey);
	if (err)
		ibdev_dbg(&adev->ibdev, "alloc_mw: create: %d\n", err);
	return err;
}

/*
 * The core cannot handle a failing destroy while it tears a context down,
 * so a device error is logged and the window is considered gone: it has
 * no memory of the host's.
 */
int axon_dealloc_mw(struct ib_mw *ibmw)
{
	struct axon_dev *adev = to_adev(ibmw->device);
	int err;

	/* the device names a window by its slot: any tag of the key will do */
	err = axon_cmd_destroy_mr(&adev->aq, ibmw->rkey);
	if (err)
		ibdev_err_ratelimited(&adev->ibdev,
				      "destroy mw 0x%x failed: %d\n",
				      ibmw->rkey, err);
	return 0;
}
