// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Every handle NCCL passes in (contexts, comms, requests) is looked up here
 * before it is used, so garbage gets an error code, not a crash; and init,
 * which makes the contexts and opens the devices once.
 */
#include <stdlib.h>
#include <string.h>

#include "transport.h"

nccl_net_logger_t axon_net_logger;
pthread_mutex_t axon_net_lock = PTHREAD_MUTEX_INITIALIZER;

static struct net_ctx *ctxs[MAX_CTXS];
static struct comm *live[MAX_LIVE];

bool live_add(struct comm *c)
{
	for (int i = 0; i < MAX_LIVE; i++) {
		if (!live[i]) {
			live[i] = c;
			return true;
		}
	}
	return false;
}

void live_del(struct comm *c)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] == c)
			live[i] = NULL;
}

struct comm *live_find(const void *p, enum comm_kind kind)
{
	struct comm *found = NULL;

	if (!p)
		return NULL;
	pthread_mutex_lock(&axon_net_lock);
	for (int i = 0; i < MAX_LIVE; i++) {
		if (live[i] == p && live[i]->kind == kind) {
			found = live[i];
			break;
		}
	}
	pthread_mutex_unlock(&axon_net_lock);
	return found;
}

/* the request p points to, if it is one of a live comm's and in use */
struct request *request_find(const void *p)
{
	struct request *found = NULL;
	uintptr_t a = (uintptr_t)p;

	if (!p)
		return NULL;
	pthread_mutex_lock(&axon_net_lock);
	for (int i = 0; i < MAX_LIVE && !found; i++) {
		struct comm *c = live[i];
		struct { struct request *base; int n; } pools[] = {
			{ c ? c->send_reqs : NULL, SEND_REQS },
			{ c ? c->recv_reqs : NULL, SLOTS },
			{ c ? c->flush_reqs : NULL, FLUSH_REQS },
		};

		if (!c)
			continue;
		for (unsigned int k = 0; k < 3; k++) {
			uintptr_t lo = (uintptr_t)pools[k].base;
			uintptr_t hi = lo + pools[k].n * sizeof(struct request);

			if (a >= lo && a < hi &&
			    (a - lo) % sizeof(struct request) == 0 &&
			    ((struct request *)p)->kind != REQ_FREE) {
				found = (struct request *)p;
				break;
			}
		}
	}
	pthread_mutex_unlock(&axon_net_lock);
	return found;
}

struct net_ctx *ctx_find(const void *p)
{
	struct net_ctx *x = NULL;

	if (!p)
		return NULL;
	pthread_mutex_lock(&axon_net_lock);
	for (int i = 0; i < MAX_CTXS; i++)
		if (ctxs[i] == p) {
			x = ctxs[i];
			break;
		}
	pthread_mutex_unlock(&axon_net_lock);
	return x;
}

nres_t axon_net_init(void **ctx, uint64_t comm_id,
		     struct nccl_net_comm_config *config, nccl_net_logger_t log)
{
	struct net_ctx *x;
	int i;

	(void)comm_id;
	if (log)
		axon_net_logger = log;
	if (config && !tc_valid(config->traffic_class)) {
		AXON_NET_WARN("init: traffic class %d: 0 to 255, or -1",
			      config->traffic_class);
		return NCCL_NET_INVALID_USAGE;
	}
	if (!ctx)
		return devs_open();
	x = calloc(1, sizeof(*x));
	if (!x)
		return NCCL_NET_SYSTEM_ERROR;
	x->magic = CTX_MAGIC;
	x->tc = config ? config->traffic_class : -1;
	pthread_mutex_lock(&axon_net_lock);
	for (i = 0; i < MAX_CTXS && ctxs[i]; i++)
		;
	if (i < MAX_CTXS)
		ctxs[i] = x;
	pthread_mutex_unlock(&axon_net_lock);
	if (i == MAX_CTXS) {
		free(x);
		return NCCL_NET_SYSTEM_ERROR;
	}
	*ctx = x;
	return devs_open();
}

nres_t axon_net_finalize(void *ctx)
{
	struct net_ctx *x = ctx_find(ctx);

	if (!x)
		return NCCL_NET_INVALID_ARGUMENT;
	pthread_mutex_lock(&axon_net_lock);
	for (int i = 0; i < MAX_CTXS; i++)
		if (ctxs[i] == x)
			ctxs[i] = NULL;
	pthread_mutex_unlock(&axon_net_lock);
	x->magic = 0;
	free(x);
	return NCCL_NET_OK;
}
