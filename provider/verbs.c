// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon libibverbs provider: the verbs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "axon.h"

int axon_query_device_ex(struct ibv_context *context,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp = {};
	size_t resp_size = sizeof(resp);
	uint64_t fw_ver;
	int err;

	err = ibv_cmd_query_device_any(context, input, attr, attr_size, &resp,
				       &resp_size);
	if (err) {
		verbs_debug(verbs_get_ctx(context),
			    "ibv_cmd_query_device_any failed: %d\n", err);
		return err;
	}

	/* fw_ver is major[47:32].minor[31:16].sub[15:0] */
	fw_ver = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)((fw_ver >> 32) & 0xffff),
		 (unsigned int)((fw_ver >> 16) & 0xffff),
		 (unsigned int)(fw_ver & 0xffff));

	return 0;
}

int axon_query_port(struct ibv_context *context, uint8_t port,
		    struct ibv_port_attr *port_attr)
{
	struct ibv_query_port cmd;

	return ibv_cmd_query_port(context, port, port_attr, &cmd, sizeof(cmd));
}

struct ibv_pd *axon_alloc_pd(struct ibv_context *context)
{
	struct axon_alloc_pd_cmd_resp resp = {};
	struct ibv_alloc_pd cmd;
	struct axon_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;

	err = ibv_cmd_alloc_pd(context, &pd->ibvpd, &cmd, sizeof(cmd),
			       &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_debug(verbs_get_ctx(context),
			    "ibv_cmd_alloc_pd failed: %d\n", err);
		goto err_free;
	}

	pd->pdn = resp.drv_payload.pdn;

	return &pd->ibvpd;

err_free:
	free(pd);
	errno = err;
	return NULL;
}

int axon_dealloc_pd(struct ibv_pd *ibpd)
{
	struct axon_pd *pd = to_axon_pd(ibpd);
	int err;

	err = ibv_cmd_dealloc_pd(ibpd);
	if (err) {
		verbs_debug(verbs_get_ctx(ibpd->context),
			    "ibv_cmd_dealloc_pd failed: %d\n", err);
		return err;
	}

	free(pd);

	return 0;
}
