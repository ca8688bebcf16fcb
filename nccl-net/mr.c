// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory registration: one cache per NIC, so an MR serves every comm of
 * every device of the NIC (regIsGlobal); deregistration drops a reference,
 * and the last one is refused while a posted request uses the MR.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "transport.h"

/* the MR cache entry mhandle is, on dev; the caller holds the lock */
static struct mr_entry *mr_find_locked(struct axon_dev *dev, const void *mh)
{
	for (unsigned int i = 0; i < dev->nmrs; i++)
		if (dev->mrs[i] == mh)
			return dev->mrs[i];
	return NULL;
}

struct mr_entry *mr_find(struct axon_dev *dev, const void *mh)
{
	struct mr_entry *m;

	if (!mh)
		return NULL;
	pthread_mutex_lock(&axon_net_lock);
	m = mr_find_locked(dev, mh);
	pthread_mutex_unlock(&axon_net_lock);
	return m;
}

void mr_inflight(struct mr_entry *m, int delta)
{
	if (!m)
		return;
	pthread_mutex_lock(&axon_net_lock);
	m->inflight += delta;
	pthread_mutex_unlock(&axon_net_lock);
}

static nres_t reg(void *comm, void *data, size_t size, int type,
		  uint64_t offset, int fd, void **mhandle)
{
	struct comm *c = data_comm(comm);
	struct axon_dev *d;
	uintptr_t start, end;
	struct mr_entry *m = NULL;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;

	if (!c || !mhandle || !data || !size || size > SIZE_MAX / 2)
		return NCCL_NET_INVALID_ARGUMENT;
	if (type != NCCL_NET_PTR_HOST && type != NCCL_NET_PTR_DMABUF &&
	    type != NCCL_NET_PTR_CUDA)
		return NCCL_NET_INVALID_ARGUMENT;
	d = c->dev;
	/* CUDA memory reaches this NIC only through a dma-buf */
	if (type == NCCL_NET_PTR_CUDA && fd < 0)
		return NCCL_NET_INVALID_USAGE;
	if (fd >= 0)
		type = NCCL_NET_PTR_DMABUF;
	start = (uintptr_t)data & ~(PAGE - 1);
	end = ((uintptr_t)data + size + PAGE - 1) & ~(PAGE - 1);
	pthread_mutex_lock(&axon_net_lock);
	/* a cached registration that covers the range serves it too (for
	 * dma-bufs the range is the buffer's address NCCL uses, the iova) */
	for (unsigned int i = 0; i < d->nmrs; i++) {
		if (d->mrs[i]->type == type && d->mrs[i]->start <= start &&
		    d->mrs[i]->end >= end) {
			m = d->mrs[i];
			m->refs++;
			break;
		}
	}
	pthread_mutex_unlock(&axon_net_lock);
	if (m) {
		*mhandle = m;
		return NCCL_NET_OK;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NCCL_NET_SYSTEM_ERROR;
	m->type = type;
	if (type == NCCL_NET_PTR_DMABUF) {
		/* exactly the range NCCL gave: a dma-buf has no pages beyond */
		m->start = (uintptr_t)data;
		m->end = (uintptr_t)data + size;
		m->mr = ibv_reg_dmabuf_mr(d->pd, offset, size, (uintptr_t)data,
					  fd, access);
	} else {
		m->start = start;
		m->end = end;
		m->mr = ibv_reg_mr(d->pd, (void *)start, end - start, access);
	}
	if (!m->mr) {
		AXON_NET_WARN("%s: registering %zu bytes at %p (%s): %s",
			      d->name, size, data,
			      type == NCCL_NET_PTR_DMABUF ? "dma-buf" : "host",
			      strerror(errno));
		free(m);
		return NCCL_NET_SYSTEM_ERROR;
	}
	m->refs = 1;
	pthread_mutex_lock(&axon_net_lock);
	if (d->nmrs == MAX_MRS) {
		pthread_mutex_unlock(&axon_net_lock);
		ibv_dereg_mr(m->mr);
		free(m);
		return NCCL_NET_SYSTEM_ERROR;
	}
	d->mrs[d->nmrs++] = m;
	pthread_mutex_unlock(&axon_net_lock);
	*mhandle = m;
	return NCCL_NET_OK;
}

nres_t axon_net_reg_mr(void *comm, void *data, size_t size, int type,
		       void **mhandle)
{
	return reg(comm, data, size, type, 0, -1, mhandle);
}

nres_t axon_net_reg_mr_dmabuf(void *comm, void *data, size_t size, int type,
			      uint64_t offset, int fd, void **mhandle)
{
	if (fd < 0)
		return NCCL_NET_INVALID_ARGUMENT;
	return reg(comm, data, size, type, offset, fd, mhandle);
}

nres_t axon_net_dereg_mr(void *comm, void *mhandle)
{
	struct comm *c = data_comm(comm);
	struct axon_dev *d;
	struct mr_entry *m;

	if (!c)
		return NCCL_NET_INVALID_ARGUMENT;
	d = c->dev;
	pthread_mutex_lock(&axon_net_lock);
	m = mr_find_locked(d, mhandle);
	if (!m) {
		pthread_mutex_unlock(&axon_net_lock);
		return NCCL_NET_INVALID_ARGUMENT;
	}
	/* the last reference of an MR a posted request uses: refused */
	if (m->refs == 1 && m->inflight) {
		pthread_mutex_unlock(&axon_net_lock);
		AXON_NET_WARN("deregMr: MR %p is in use by %u requests", m,
			      m->inflight);
		return NCCL_NET_INVALID_USAGE;
	}
	if (--m->refs) {
		pthread_mutex_unlock(&axon_net_lock);
		return NCCL_NET_OK;
	}
	for (unsigned int i = 0; i < d->nmrs; i++) {
		if (d->mrs[i] == m) {
			d->mrs[i] = d->mrs[--d->nmrs];
			break;
		}
	}
	pthread_mutex_unlock(&axon_net_lock);
	if (ibv_dereg_mr(m->mr)) {
		free(m);
		return NCCL_NET_SYSTEM_ERROR;
	}
	free(m);
	return NCCL_NET_OK;
}

/* whether [p, p + size) lies inside m */
bool mr_covers(const struct mr_entry *m, const void *p, uint64_t size)
{
	uintptr_t a = (uintptr_t)p;

	return a >= m->start && a <= m->end && size <= m->end - a;
}
