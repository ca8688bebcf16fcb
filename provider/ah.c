// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon libibverbs provider: address handles. The device has no AH
 * objects: a UD send WQE carries its destination (struct axon_ud_av). The
 * kernel checks the attributes and resolves the destination MAC once, at
 * ibv_create_ah(); the provider keeps the address as the device takes it,
 * so that posting to it needs no system call.
 */
#include <errno.h>
#include <stdlib.h>

#include "axon.h"

struct ibv_ah *axon_create_ah(struct ibv_pd *ibpd, struct ibv_ah_attr *attr)
{
	struct axon_create_ah_cmd_resp resp = {};
	struct axon_ah *ah;
	int err;

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;

	err = ibv_cmd_create_ah(ibpd, &ah->ibvah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (err) {
		verbs_debug(verbs_get_ctx(ibpd->context),
			    "ibv_cmd_create_ah failed: %d\n", err);
		free(ah);
		errno = err;
		return NULL;
	}

	axon_ud_av_init(&ah->av, attr, resp.drv_payload.dmac);
	return &ah->ibvah;
}

int axon_destroy_ah(struct ibv_ah *ibah)
{
	int err;

	err = ibv_cmd_destroy_ah(ibah);
	if (err) {
		verbs_debug(verbs_get_ctx(ibah->context),
			    "ibv_cmd_destroy_ah failed: %d\n", err);
		return err;
	}

	free(to_axon_ah(ibah));
	return 0;
}
