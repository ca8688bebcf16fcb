// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon: checks of the udata userspace passes with a uverbs request
 * (alloc_ucontext, create_cq, create_qp, modify_qp, create_ah).
 * Shared by axon.ko and the KUnit suites (see axon_udata.h).
 */

#include <linux/errno.h>

#include "axon_udata.h"

/*
 * Check an alloc_ucontext request. @req holds the request as far as
 * userspace sent it, zero-filled (older, shorter requests are fine);
 * @tail_zero says whether every byte userspace sent beyond @req is zero
 * (a newer library may send a longer, zero-padded request).
 */
int axon_check_ucontext_req(const struct axon_alloc_ucontext_req *req,
			    bool tail_zero)
{
	if (!tail_zero)
		return -EINVAL;
	if (req->comp_mask || req->reserved)
		return -EOPNOTSUPP;
	return 0;
}

/*
 * udata of a verb that defines no request (create_cq, create_ah): whatever
 * userspace sends must be zero (@in_zero); the response, @resp_size
 * bytes, must fit.
 */
int axon_check_resp_only_udata(bool in_zero, size_t outlen, size_t resp_size)
{
	if (!in_zero || outlen < resp_size)
		return -EINVAL;
	return 0;
}

/*
 * create_qp udata: @req as far as userspace sent it, zero-filled;
 * @tail_zero: every byte beyond it is zero; the response must fit. A
 * driver QP (@driver) names a type axon has; any other QP names none. A
 * doorbell record is asked for only of a device that has them (@sq_dbrec).
 */
int axon_check_create_qp_req(const struct axon_create_qp_req *req,
			     bool driver, bool sq_dbrec, bool tail_zero,
			     size_t outlen)
{
	if (!tail_zero || outlen < sizeof(struct axon_create_qp_resp))
		return -EINVAL;
	if (req->comp_mask & ~(sq_dbrec ? AXON_CREATE_QP_REQ_SQ_DBREC : 0))
		return -EOPNOTSUPP;
	if (!driver)
		return req->driver_qp_type ? -EINVAL : 0;
	return req->driver_qp_type == AXON_QP_DRIVER_TYPE_RUD ? 0 :
	       -EOPNOTSUPP;
}

/*
 * modify_qp udata: @req as far as userspace sent it, zero-filled;
 * @tail_zero: every byte beyond it is zero. A RUD QP (@rud) may name its
 * peer's key, which is never 0; no other QP names one. Whether the
 * transition takes the key is the caller's to check.
 */
int axon_check_modify_qp_req(const struct axon_modify_qp_req *req, bool rud,
			     bool tail_zero)
{
	if (!tail_zero || req->reserved)
		return -EINVAL;
	if (req->comp_mask & ~AXON_MODIFY_QP_REQ_RUD_PEER_KEY)
		return -EOPNOTSUPP;
	if ((req->comp_mask & AXON_MODIFY_QP_REQ_RUD_PEER_KEY) &&
	    (!rud || !req->rud_peer_key))
		return -EINVAL;
	return 0;
}
