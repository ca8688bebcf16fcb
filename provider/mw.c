// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon libibverbs provider: memory windows. The kernel makes and frees
 * them; binding (ibv_bind_mw(), IBV_WR_BIND_MW) and invalidation are WQEs
 * (io.c, wq.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "axon.h"

/* The kernel checks the type: 1 or 2 (EINVAL), with AXON_CAP_MW. */
struct ibv_mw *axon_alloc_mw(struct ibv_pd *ibpd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp = {};
	struct ibv_alloc_mw cmd;
	struct ibv_mw *mw;
	int err;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;

	err = ibv_cmd_alloc_mw(ibpd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (err) {
		verbs_debug(verbs_get_ctx(ibpd->context),
			    "ibv_cmd_alloc_mw failed: %d\n", err);
		free(mw);
		errno = err;
		return NULL;
	}

	return mw;
}

int axon_dealloc_mw(struct ibv_mw *mw)
{
	int err;

	err = ibv_cmd_dealloc_mw(mw);
	if (err) {
		verbs_debug(verbs_get_ctx(mw->context),
			    "ibv_cmd_dealloc_mw failed: %d\n", err);
		return err;
	}

	free(mw);
	return 0;
}
