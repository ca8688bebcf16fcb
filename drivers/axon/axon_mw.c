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
 * DESTROY_MR names a window by its current key, and its tag is the one
 * the last bind chose, in user space: the tags are tried from the one
 * CREATE_MR gave, in the order ibv_inc_rkey() advances them, until the
 * device knows the key (any other answer ends the search). Until then
 * the slot is this window's, so no other object can answer.
 */
static int axon_mw_destroy(struct axon_dev *adev, u32 key)
{
	u32 index = AXON_KEY_GET_INDEX(key), tag = AXON_KEY_GET_TAG(key);
	int err = -EINVAL;
	u32 i;

	for (i = 0; i <= AXON_KEY_TAG_MASK && err == -EINVAL; i++)
		err = axon_cmd_destroy_mr(&adev->aq, AXON_KEY(index, tag + i));
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

	err = axon_mw_destroy(adev, ibmw->rkey);
	if (err)
		ibdev_err_ratelimited(&adev->ibdev,
				      "destroy mw 0x%x failed: %d\n",
				      ibmw->rkey, err);
	return 0;
}
