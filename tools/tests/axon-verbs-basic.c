// SPDX-License-Identifier: GPL-2.0
/*
 * axon-verbs-basic: the basic verbs, through
 * libibverbs and the axon provider: open, query device and port, PDs up
 * to the device limit, a CQ and an MR. The PDs it gets are the device's
 * max_pd less those the kernel holds (ib_mad has one for QP1), as the rdma
 * tool counts them.
 *
 * Usage: axon-verbs-basic [--hold SECONDS | --until-failure |
 *                          --reg-until-failure] [DEVICE]
 *   --hold           open the device, allocate a PD, print "holding" and
 *                    sleep: used to unload the driver under an open context.
 *   --until-failure  allocate PDs until one fails and print the errno of
 *                    that one and of the next: used with a device whose
 *                    admin queue stalls (x-admin-stall-after).
 *   --reg-until-failure
 *                    the same with 64 KiB MRs in one PD: the command that
 *                    times out is a registration, whose pages the driver
 *                    must keep until the device is reset.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "axon-test.h"

/* The results each test reports (the plan). */
#define QUERY_CHECKS	8
#define PD_CHECKS	4
#define OBJECT_CHECKS	4

static void test_queries(struct ibv_context *ctx)
{
	struct ibv_device_attr_ex attr;
	struct ibv_port_attr port;

	tap_ok(!ibv_query_device_ex(ctx, NULL, &attr), "ibv_query_device_ex");
	tap_ok(attr.orig_attr.vendor_id == 0x1234 &&
	       attr.orig_attr.vendor_part_id == 0xa0c0, "vendor and part id");
	tap_ok(attr.orig_attr.phys_port_cnt == 1, "one port");
	tap_ok(attr.orig_attr.max_pd > 0, "max_pd reported");
	tap_ok(!ibv_query_port(ctx, 1, &port), "ibv_query_port 1");
	tap_ok(port.link_layer == IBV_LINK_LAYER_ETHERNET, "link layer Ethernet");
	tap_ok(port.state == IBV_PORT_ACTIVE, "port active");
	tap_ok(ibv_query_port(ctx, 2, &port) != 0, "ibv_query_port 2 fails");
}

/* The PDs others hold on @dev ("rdma res show": "0: axon0: pd 1 ..."), or -1. */
static int pds_in_use(const char *dev)
{
	char line[256], name[64];
	int idx, pd, n = -1;
	FILE *f;

	f = popen("rdma res show 2>/dev/null", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%d: %63[^:]: pd %d", &idx, name, &pd) == 3 &&
		    !strcmp(name, dev))
			n = pd;
	pclose(f);
	return n;
}

static void test_pds(struct ibv_context *ctx)
{
	const char *dev = ibv_get_device_name(ctx->device);
	struct ibv_device_attr attr;
	int n = 0, err = 0, i, others;
	struct ibv_pd **pds;

	if (ibv_query_device(ctx, &attr)) {
		tap_ok(false, "ibv_query_device");
		return;
	}
	others = pds_in_use(dev);
	pds = calloc(attr.max_pd + 1, sizeof(*pds));
	for (i = 0; i <= attr.max_pd; i++) {
		pds[i] = ibv_alloc_pd(ctx);
		if (!pds[i]) {
			err = errno;
			break;
		}
		n++;
	}
	tap_ok(others >= 0 && n == attr.max_pd - others,
	       "max_pd PDs allocated, less the %d others hold", others);
	tap_ok(err == ENOMEM, "one more PD fails with ENOMEM");
	for (i = 0; i < n; i++)
		if (ibv_dealloc_pd(pds[i]))
			err = -1;
	tap_ok(err != -1, "all PDs deallocated");
	pds[0] = ibv_alloc_pd(ctx);
	tap_ok(pds[0] != NULL, "PD allocated again after freeing");
	if (pds[0])
		ibv_dealloc_pd(pds[0]);
	free(pds);
}

/* The data path objects exist (tools/axon-rdma-integrity uses them). */
static void test_objects(struct ibv_context *ctx)
{
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char buf[64];

	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	tap_ok(cq != NULL, "ibv_create_cq");
	if (cq)
		tap_ok(ibv_destroy_cq(cq) == 0, "ibv_destroy_cq");
	mr = pd ? ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE) : NULL;
	tap_ok(mr != NULL, "ibv_reg_mr");
	if (mr)
		tap_ok(ibv_dereg_mr(mr) == 0, "ibv_dereg_mr");
	if (pd)
		ibv_dealloc_pd(pd);
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Allocate PDs (never freed) until the device stops answering. */
static int until_failure(struct ibv_context *ctx)
{
	double t;
	int n = 0;

	while (ibv_alloc_pd(ctx))
		n++;
	printf("alloc_pd %d failed: %s\n", n + 1, strerror(errno));
	t = seconds();
	errno = 0;
	if (!ibv_alloc_pd(ctx))
		printf("next alloc_pd failed: %s (%.3f s)\n", strerror(errno),
		       seconds() - t);
	return 0;
}

/* Register MRs (never deregistered) until the device stops answering. */
static int reg_until_failure(struct ibv_context *ctx)
{
	const size_t len = 64 * 1024;
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	void *buf;
	int n = 0;

	if (!pd) {
		printf("alloc_pd failed: %s\n", strerror(errno));
		return 1;
	}
	for (;;) {
		buf = aligned_alloc(4096, len);
		if (!buf)
			return 1;
		if (!ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE))
			break;
		n++;
	}
	printf("reg_mr %d failed: %s\n", n + 1, strerror(errno));
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = "axon0";
	struct ibv_context *ctx;
	bool stall = false, reg_stall = false;
	int hold = 0;

	if (argc > 2 && !strcmp(argv[1], "--hold")) {
		hold = atoi(argv[2]);
		argc -= 2;
		argv += 2;
	} else if (argc > 1 && !strcmp(argv[1], "--until-failure")) {
		stall = true;
		argc--;
		argv++;
	} else if (argc > 1 && !strcmp(argv[1], "--reg-until-failure")) {
		reg_stall = true;
		argc--;
		argv++;
	}
	if (argc > 1)
		name = argv[1];

	ctx = open_device(name);
	if (!ctx) {
		fprintf(stderr, "cannot open %s: %s\n", name, strerror(errno));
		return 1;
	}

	if (stall)
		return until_failure(ctx);
	if (reg_stall)
		return reg_until_failure(ctx);
	if (hold) {
		struct ibv_pd *pd = ibv_alloc_pd(ctx);

		printf("holding %s%s\n", name, pd ? " with a PD" : "");
		fflush(stdout);
		sleep(hold);
		return 0;
	}

	tap_plan(QUERY_CHECKS + PD_CHECKS + OBJECT_CHECKS + 1);
	test_queries(ctx);
	test_pds(ctx);
	test_objects(ctx);
	tap_ok(!ibv_close_device(ctx), "ibv_close_device");
	return tap_done();
}
