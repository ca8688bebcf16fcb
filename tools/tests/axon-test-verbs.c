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
	/*
	 * Not before the context exists: when alloc_ucontext fails, 6.1's
	 * ib_core leaks the process's task_struct on the ioctl path
	 * (UVERBS_METHOD_GET_CONTEXT frees the context without dropping its
	 * restrack entry's task reference; the write() path does drop it).
	 */
	if (ctx)
		fault_injection_begin();
	return ctx;
}
