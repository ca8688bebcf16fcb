// SPDX-License-Identifier: GPL-2.0
/* Opening an RDMA device by name, for the verbs test programs. */
#include <string.h>

#include <infiniband/verbs.h>

#include "axon-test.h"

struct ibv_context *open_device(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list)
		return NULL;
	for (i = 0; list[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}
