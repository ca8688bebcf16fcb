// SPDX-License-Identifier: GPL-2.0
/*
 * What the verbs test programs share: opening a device, connecting a QP,
 * polling, message patterns, hw counters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "axon-test.h"

bool dev_args(int argc, char **argv, int *gid_index, const char **name)
{
	int opt;

	while ((opt = getopt(argc, argv, "g:")) != -1) {
		if (opt != 'g') {
			fprintf(stderr, "usage: %s [-g GID_INDEX] [DEVICE]\n",
				argv[0]);
			return false;
		}
		*gid_index = atoi(optarg);
	}
	if (optind < argc)
		*name = argv[optind];
	return true;
}

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

int to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

void rtr_attr(uint32_t dest_qpn, const union ibv_gid *gid, int gid_index,
	      struct ibv_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTR;
	a->path_mtu = IBV_MTU_1024;
	a->dest_qp_num = dest_qpn;
	a->rq_psn = 1;
	a->max_dest_rd_atomic = 1;
	a->min_rnr_timer = 12;
	a->ah_attr.is_global = 1;
	a->ah_attr.grh.dgid = *gid;
	a->ah_attr.grh.sgid_index = gid_index;
	a->ah_attr.grh.hop_limit = 64;
	a->ah_attr.port_num = 1;
}

void rts_attr(struct ibv_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTS;
	a->timeout = 14;
	a->retry_cnt = 7;
	a->rnr_retry = 7;
	a->sq_psn = 1;
	a->max_rd_atomic = 1;
}

int qp_connect(struct ibv_qp *qp, uint32_t dest_qpn, const union ibv_gid *gid,
	       int gid_index)
{
	struct ibv_qp_attr a;

	if (to_init(qp))
		return -1;
	rtr_attr(dest_qpn, gid, gid_index, &a);
	if (ibv_modify_qp(qp, &a, RTR_MASK))
		return -1;
	rts_attr(&a);
	return ibv_modify_qp(qp, &a, RTS_MASK);
}

enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
		return -1;
	return a.qp_state;
}

bool poll_one(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	int i, r;

	for (i = 0; i < ms * 10; i++) {
		r = ibv_poll_cq(cq, 1, wc);
		if (r)
			return r == 1;
		usleep(100);
	}
	return false;
}

void pattern_fill(uint8_t *p, uint32_t len, int tag)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(tag * 31 + i);
}

bool pattern_ok(const uint8_t *p, uint32_t len, int tag)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (uint8_t)(tag * 31 + i))
			return false;
	return true;
}

long long hw_counter(const char *dev, const char *name)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/1/hw_counters/%s", dev, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}
