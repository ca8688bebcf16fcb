// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The plugin ABI against NCCL's layout: every size and field offset of
 * nccl-net/nccl_net_abi.h compared with the numbers NCCL 2.28's plugin
 * headers give on x86-64 (worked out from their field order and types,
 * and listed in Documentation/nccl.rst), the result codes with the
 * installed nccl.h when there is one, and the built library's exported
 * tables (names, non-NULL entry points) through dlopen, as NCCL finds them.
 *
 *   abi-check [PATH-TO-libnccl-net-axon.so]
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../nccl_net_abi.h"
#include "tap.h"

#if __has_include(<nccl.h>)
#include <nccl.h>
#define HAVE_NCCL_H 1
#endif

struct layout {
	const char *what;
	size_t got, want;
};

#define SZ(type, want)		{ "sizeof(" #type ")", sizeof(type), want }
#define OFF(type, f, want)	{ #type "." #f, offsetof(type, f), want }
#define FN(type, f, idx)	OFF(type, f, (idx) * sizeof(void *))

static const struct layout layouts[] = {
	SZ(struct nccl_net_dev_handle, 32),
	SZ(struct nccl_net_vdev_props, 20),
	SZ(struct nccl_net_comm_config, 4),
	SZ(struct nccl_net_attr, 44),
	/* ncclNetProperties_v8_t */
	SZ(struct nccl_net_props_v8, 64),
	OFF(struct nccl_net_props_v8, guid, 16),
	OFF(struct nccl_net_props_v8, ptr_support, 24),
	OFF(struct nccl_net_props_v8, speed, 32),
	OFF(struct nccl_net_props_v8, latency, 40),
	OFF(struct nccl_net_props_v8, max_recvs, 48),
	OFF(struct nccl_net_props_v8, dev_version, 56),
	/* ncclNetProperties_v9_t, _v10_t */
	SZ(struct nccl_net_props_v9, 104),
	OFF(struct nccl_net_props_v9, force_flush, 32),
	OFF(struct nccl_net_props_v9, speed, 36),
	OFF(struct nccl_net_props_v9, latency, 44),
	OFF(struct nccl_net_props_v9, max_recvs, 52),
	OFF(struct nccl_net_props_v9, vprops, 64),
	OFF(struct nccl_net_props_v9, max_p2p_bytes, 88),
	OFF(struct nccl_net_props_v9, max_coll_bytes, 96),
	/* ncclNetProperties_v11_t */
	SZ(struct nccl_net_props_v11, 112),
	OFF(struct nccl_net_props_v11, max_p2p_bytes, 88),
	OFF(struct nccl_net_props_v11, max_multi_request_size, 104),
	/* the tables: one pointer per entry, in NCCL's order */
	SZ(struct nccl_net_v8, 19 * 8),
	FN(struct nccl_net_v8, isend, 10),
	FN(struct nccl_net_v8, irecv_consumed, 18),
	SZ(struct nccl_net_v9, 20 * 8),
	FN(struct nccl_net_v9, make_vdevice, 19),
	SZ(struct nccl_net_v10, 20 * 8),
	FN(struct nccl_net_v10, connect, 5),
	FN(struct nccl_net_v10, test, 13),
	SZ(struct nccl_net_v11, 22 * 8),
	FN(struct nccl_net_v11, listen, 4),
	FN(struct nccl_net_v11, reg_mr_dmabuf, 8),
	FN(struct nccl_net_v11, iflush, 12),
	FN(struct nccl_net_v11, close_listen, 16),
	FN(struct nccl_net_v11, finalize, 20),
	FN(struct nccl_net_v11, set_net_attr, 21),
};

#define N_LAYOUTS (sizeof(layouts) / sizeof(layouts[0]))
#define N_RESULTS 8
static const char *const symbols[] = {
	"ncclNetPlugin_v11", "ncclNetPlugin_v10", "ncclNetPlugin_v9",
	"ncclNetPlugin_v8",
};
#define N_SYMBOLS 4

/* every entry point of a table is set, and its name is "axon" */
static bool table_full(const void *table, size_t size)
{
	const char *const *name = table;
	void *const *fn = table;

	if (!*name || strcmp(*name, "axon"))
		return false;
	for (size_t i = 1; i < size / sizeof(void *); i++)
		if (!fn[i])
			return false;
	return true;
}

int main(int argc, char **argv)
{
	const char *lib = argc > 1 ? argv[1] : "libnccl-net-axon.so";
	static const size_t table_size[N_SYMBOLS] = {
		sizeof(struct nccl_net_v11), sizeof(struct nccl_net_v10),
		sizeof(struct nccl_net_v9), sizeof(struct nccl_net_v8),
	};
	void *h;

	tap_plan(N_LAYOUTS + N_RESULTS + 1 + N_SYMBOLS);
	for (size_t i = 0; i < N_LAYOUTS; i++)
		tap_ok(layouts[i].got == layouts[i].want, "%s is %zu (NCCL: %zu)",
		       layouts[i].what, layouts[i].got, layouts[i].want);
#ifdef HAVE_NCCL_H
	{
		static const struct { int ours, theirs; const char *name; } r[] = {
			{ NCCL_NET_OK, ncclSuccess, "ncclSuccess" },
			{ NCCL_NET_CUDA_ERROR, ncclUnhandledCudaError, "ncclUnhandledCudaError" },
			{ NCCL_NET_SYSTEM_ERROR, ncclSystemError, "ncclSystemError" },
			{ NCCL_NET_INTERNAL_ERROR, ncclInternalError, "ncclInternalError" },
			{ NCCL_NET_INVALID_ARGUMENT, ncclInvalidArgument, "ncclInvalidArgument" },
			{ NCCL_NET_INVALID_USAGE, ncclInvalidUsage, "ncclInvalidUsage" },
			{ NCCL_NET_REMOTE_ERROR, ncclRemoteError, "ncclRemoteError" },
			{ NCCL_NET_IN_PROGRESS, ncclInProgress, "ncclInProgress" },
		};

		for (int i = 0; i < N_RESULTS; i++)
			tap_ok(r[i].ours == r[i].theirs, "result %s is %d (nccl.h: %d)",
			       r[i].name, r[i].ours, r[i].theirs);
	}
#else
	for (int i = 0; i < N_RESULTS; i++)
		tap_skip("no nccl.h installed", "result code %d against nccl.h", i);
#endif
	/* as NCCL's loader opens it */
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!tap_ok(h != NULL, "dlopen %s", lib))
		tap_diag("%s", dlerror());
	for (int i = 0; i < N_SYMBOLS; i++) {
		const void *t = h ? dlsym(h, symbols[i]) : NULL;

		tap_ok(t && table_full(t, table_size[i]),
		       "%s is exported, named \"axon\", every entry set",
		       symbols[i]);
	}
	return tap_done();
}
