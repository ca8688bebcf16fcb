// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon address handles. The device has no AH objects: a UD send WQE
 * carries its destination (struct axon_ud_av), so an AH is that address,
 * checked and built once here. A kernel AH keeps it for axon_post_send();
 * a user AH only gets the MAC the RDMA core resolved (struct
 * axon_create_ah_resp) and the provider builds its own copy, so that
 * posting needs no system call. Creating one sends no admin command and
 * never sleeps, as a kernel caller without RDMA_CREATE_AH_SLEEPABLE needs.
 */

#include "axon.h"
#include "axon_ah_attr.h"
#include "axon_udata.h"

int axon_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		   struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibah->device);
	struct axon_ah *ah = to_aah(ibah);
	struct axon_create_ah_resp resp = {};
	int err;

	if (udata) {
		bool in_zero = !udata->inlen ||
			       ib_is_udata_cleared(udata, 0, udata->inlen);

		err = axon_check_resp_only_udata(in_zero, udata->outlen,
						 sizeof(resp));
		if (err)
			goto err_out;
	}
	err = axon_ud_av_from_ib(init_attr->ah_attr, &ah->av);
	if (err)
		goto err_out;
	if (atomic_inc_return(&adev->ah_count) > AXON_MAX_AH) {
		err = -ENOMEM;
		goto err_uncount;
	}
	if (udata) {
		memcpy(resp.dmac, ah->av.dmac, sizeof(resp.dmac));
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_uncount;
	}
	return 0;

err_uncount:
	atomic_dec(&adev->ah_count);
err_out:
	ibdev_dbg(&adev->ibdev, "create_ah (sgid %u, dgid %pI6) failed: %d\n",
		  rdma_ah_read_grh(init_attr->ah_attr)->sgid_index,
		  rdma_ah_read_grh(init_attr->ah_attr)->dgid.raw, err);
	return err;
}

int axon_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	atomic_dec(&to_adev(ibah->device)->ah_count);
	return 0;
}
