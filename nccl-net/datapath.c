// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The data path: irecv writes the clear-to-send entries of its turn into
 * the sender's FIFO, isend matches them by tag and, once the turn is
 * whole, WRITEs the data and a WRITE_WITH_IMM of the sizes; test polls the
 * comm's CQ; iflush READs a byte back behind a dma-buf receive.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "transport.h"

static struct request *req_get(struct request *pool, int n)
{
	for (int i = 0; i < n; i++) {
		if (pool[i].kind == REQ_FREE) {
			memset(&pool[i], 0, sizeof(pool[i]));
			return &pool[i];
		}
	}
	return NULL;
}

static nres_t progress(struct comm *c);

/* a turn's n sends went out in nwr WRs */
static void slot_posted(struct comm *c, uint32_t slot, int n, int nwr)
{
	for (int i = 0; i < n; i++)
		c->slot_reqs[slot][i]->posted = true;
	c->slot_wrs[slot] = nwr;
	c->sq_used += nwr;
	c->send_seq++;
}

/* the WR WRITEs the request's data to the receive the peer posted */
static void wr_to_entry(struct ibv_send_wr *wr, struct ibv_sge *sge,
			const struct request *r, const struct cts_entry *e)
{
	*sge = (struct ibv_sge){ .addr = (uintptr_t)r->data,
				 .length = (uint32_t)r->size,
				 .lkey = r->mrs[0]->mr->lkey };
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->wr.rdma.remote_addr = e->addr;
	wr->wr.rdma.rkey = e->rkey;
}

/*
 * RUD: each send of the slot is one WRITE_WITH_IMM of its data, the
 * immediate its turn and entry; the peer's receive completes when all of
 * its message is placed, so no notice has to wait for the data. Send
 * completions come in posting order: the last WR alone is signaled.
 */
static nres_t rud_slot_post(struct comm *c, uint32_t slot, int n)
{
	struct ibv_send_wr wrs[AXON_NET_MAX_RECVS], *bad;
	struct ibv_sge sges[AXON_NET_MAX_RECVS];
	struct cts_slot *s = &c->fifo[slot];
	uint32_t turn = (c->send_seq + 1) & IMM_TURN_MASK;

	memset(wrs, 0, sizeof(wrs));
	for (int i = 0; i < n; i++) {
		struct request *r = c->slot_reqs[slot][i];

		wrs[i].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wrs[i].imm_data = htonl(turn << IMM_ENTRY_BITS | i);
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : NULL;
		if (!r->size) {
			/* nothing to place: the immediate alone, aimed at
			 * the peer's own area */
			wrs[i].wr.rdma.remote_addr = c->peer_area;
			wrs[i].wr.rdma.rkey = c->peer_rkey;
			continue;
		}
		wr_to_entry(&wrs[i], &sges[i], r, &s->e[i]);
	}
	wrs[n - 1].send_flags = IBV_SEND_SIGNALED;
	wrs[n - 1].wr_id = WRID(WR_SEND_DONE, slot);
	if (ibv_post_send(c->qp, wrs, &bad)) {
		AXON_NET_WARN("isend: post: %s", strerror(errno));
		return NCCL_NET_SYSTEM_ERROR;
	}
	slot_posted(c, slot, n, n);
	return NCCL_NET_OK;
}

/* every send of the slot has its match: RC WRITEs them, then the sizes
 * with the sequence number as immediate (RC places them in order) */
static nres_t send_slot_post(struct comm *c, uint32_t slot, int n)
{
	struct ibv_send_wr wrs[AXON_NET_MAX_RECVS + 1], *bad;
	struct ibv_sge sges[AXON_NET_MAX_RECVS + 1];
	struct cts_slot *s = &c->fifo[slot];
	int nwr = 0;

	if (c->transport == TRANSPORT_RUD)
		return rud_slot_post(c, slot, n);
	memset(wrs, 0, sizeof(wrs));
	for (int i = 0; i < n; i++) {
		struct request *r = c->slot_reqs[slot][i];

		c->sizes_out[slot][i] = r->size;
		if (!r->size)
			continue;
		wr_to_entry(&wrs[nwr], &sges[nwr], r, &s->e[i]);
		wrs[nwr].opcode = IBV_WR_RDMA_WRITE;
		wrs[nwr].next = &wrs[nwr + 1];
		nwr++;
	}
	sges[nwr] = (struct ibv_sge){
		.addr = (uintptr_t)c->sizes_out[slot],
		.length = n * sizeof(uint64_t),
		.lkey = c->sizes_out_mr->lkey,
	};
	wrs[nwr].sg_list = &sges[nwr];
	wrs[nwr].num_sge = 1;
	wrs[nwr].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wrs[nwr].imm_data = htonl(c->send_seq + 1);	/* the turn, from 1 */
	wrs[nwr].send_flags = IBV_SEND_SIGNALED;
	wrs[nwr].wr_id = WRID(WR_SEND_DONE, slot);
	wrs[nwr].wr.rdma.remote_addr = c->peer_area +
				       slot * sizeof(c->sizes_out[0]);
	wrs[nwr].wr.rdma.rkey = c->peer_rkey;
	if (ibv_post_send(c->qp, wrs, &bad)) {
		AXON_NET_WARN("isend: post: %s", strerror(errno));
		return NCCL_NET_SYSTEM_ERROR;
	}
	slot_posted(c, slot, n, nwr + 1);
	return NCCL_NET_OK;
}

nres_t axon_net_isend(void *send_comm, void *data, size_t size, int tag,
		      void *mhandle, void *phandle, void **request)
{
	struct comm *c = live_find(send_comm, COMM_SEND);
	uint32_t slot, seq, n;
	struct cts_slot *s;
	struct mr_entry *m = NULL;
	struct request *r;
	int i;

	(void)phandle;
	if (!c || c->stage != ST_READY || !request)
		return NCCL_NET_INVALID_ARGUMENT;
	*request = NULL;
	if (c->failed)
		return c->failed;
	if (size > AXON_NET_MAX_BYTES)
		return NCCL_NET_INVALID_ARGUMENT;
	if (size) {
		m = mr_find(c->dev, mhandle);
		if (!m || !mr_covers(m, data, size))
			return NCCL_NET_INVALID_ARGUMENT;
	}
	/* room for a whole turn in the send queue, or NCCL calls again */
	if (c->sq_used + AXON_NET_MAX_RECVS + 1 > c->sq_depth) {
		nres_t ret = progress(c);

		if (ret)
			return ret;
		if (c->sq_used + AXON_NET_MAX_RECVS + 1 > c->sq_depth)
			return NCCL_NET_OK;
	}
	slot = c->send_seq % SLOTS;
	seq = c->send_seq + 1;
	s = &c->fifo[slot];
	/* the receiver has not posted this turn yet: NCCL calls again */
	if (__atomic_load_n(&s->e[0].seq, __ATOMIC_ACQUIRE) != seq)
		return NCCL_NET_OK;
	n = s->e[0].nreqs;
	if (!n || n > AXON_NET_MAX_RECVS) {
		AXON_NET_WARN("isend: the peer posted %u receives at once", n);
		return NCCL_NET_REMOTE_ERROR;
	}
	for (i = 1; i < (int)n; i++)
		if (__atomic_load_n(&s->e[i].seq, __ATOMIC_ACQUIRE) != seq)
			return NCCL_NET_OK;
	for (i = 0; i < (int)n; i++)
		if (!c->slot_reqs[slot][i] && s->e[i].tag == tag)
			break;
	if (i == (int)n)
		return NCCL_NET_OK;	/* no receive of this tag posted yet */
	if (s->e[i].size && (!s->e[i].addr || !s->e[i].rkey)) {
		AXON_NET_WARN("isend: the peer posted a bad receive");
		return NCCL_NET_REMOTE_ERROR;
	}
	r = req_get(c->send_reqs, SEND_REQS);
	if (!r)
		return NCCL_NET_OK;
	r->kind = REQ_SEND;
	r->comm = c;
	r->n = 1;
	r->seq = seq;
	r->data = data;
	/* a receive smaller than the send takes what fits, as net_ib does */
	r->size = size < s->e[i].size ? size : s->e[i].size;
	r->mrs[0] = m;
	mr_inflight(m, 1);
	c->slot_reqs[slot][i] = r;
	for (i = 0; i < (int)n; i++)
		if (!c->slot_reqs[slot][i])
			break;
	if (i == (int)n) {
		nres_t ret = send_slot_post(c, slot, n);

		if (ret) {
			r->kind = REQ_FREE;
			mr_inflight(m, -1);
			c->slot_reqs[slot][--i] = NULL;
			return ret;
		}
	}
	*request = r;
	return NCCL_NET_OK;
}

nres_t axon_net_irecv(void *recv_comm, int n, void **data, size_t *sizes,
		      int *tags, void **mhandles, void **phandles,
		      void **request)
{
	struct comm *c = live_find(recv_comm, COMM_RECV);
	struct ibv_recv_wr rwrs[AXON_NET_MAX_RECVS], *rbad;
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_sge sge;
	struct request *r;
	uint32_t slot, seq;
	struct cts_slot *s;
	int nrwr;

	(void)phandles;
	if (!c || c->stage != ST_READY || !request || n < 1 ||
	    n > AXON_NET_MAX_RECVS || !data || !sizes || !tags || !mhandles)
		return NCCL_NET_INVALID_ARGUMENT;
	*request = NULL;
	if (c->failed)
		return c->failed;
	slot = c->recv_seq % SLOTS;
	seq = c->recv_seq + 1;
	r = &c->recv_reqs[slot];
	if (r->kind != REQ_FREE)
		return NCCL_NET_OK;	/* that turn's receive is still out */
	memset(r, 0, sizeof(*r));
	s = &c->cts[slot];
	for (int i = 0; i < n; i++) {
		if (sizes[i] > AXON_NET_MAX_BYTES)
			return NCCL_NET_INVALID_ARGUMENT;
		r->mrs[i] = NULL;
		if (sizes[i]) {
			r->mrs[i] = mr_find(c->dev, mhandles[i]);
			if (!r->mrs[i] ||
			    !mr_covers(r->mrs[i], data[i], sizes[i]))
				return NCCL_NET_INVALID_ARGUMENT;
		}
		s->e[i] = (struct cts_entry){
			.addr = (uintptr_t)data[i],
			.size = sizes[i],
			.rkey = r->mrs[i] ? r->mrs[i]->mr->rkey : 0,
			.tag = tags[i],
			.nreqs = n,
			.seq = seq,
		};
		r->posted_size[i] = sizes[i];
	}
	/* each WRITE_WITH_IMM consumes a receive: RC's one ending the
	 * turn, or RUD's one a send */
	nrwr = c->transport == TRANSPORT_RUD ? n : 1;
	memset(rwrs, 0, sizeof(rwrs));
	for (int i = 0; i < nrwr; i++) {
		rwrs[i].wr_id = WRID(WR_RECV, slot);
		rwrs[i].next = i + 1 < nrwr ? &rwrs[i + 1] : NULL;
	}
	if (ibv_post_recv(c->qp, rwrs, &rbad)) {
		AXON_NET_WARN("irecv: post receive: %s", strerror(errno));
		return NCCL_NET_SYSTEM_ERROR;
	}
	sge = (struct ibv_sge){ .addr = (uintptr_t)s,
				.length = n * sizeof(struct cts_entry),
				.lkey = c->cts_mr->lkey };
	wr.wr_id = WRID(WR_CTS, slot);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = c->peer_area + slot * sizeof(struct cts_slot);
	wr.wr.rdma.rkey = c->peer_rkey;
	if (ibv_post_send(c->qp, &wr, &bad)) {
		AXON_NET_WARN("irecv: post clear-to-send: %s", strerror(errno));
		return NCCL_NET_SYSTEM_ERROR;
	}
	r->kind = REQ_RECV;
	r->comm = c;
	r->n = n;
	r->seq = seq;
	for (int i = 0; i < n; i++)
		mr_inflight(r->mrs[i], 1);
	c->recv_seq++;
	*request = r;
	return NCCL_NET_OK;
}

nres_t axon_net_iflush(void *recv_comm, int n, void **data, int *sizes,
		       void **mhandles, void **request)
{
	struct comm *c = live_find(recv_comm, COMM_RECV);
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_sge sge;
	struct mr_entry *m;
	struct request *r;
	int last = -1;

	if (!c || c->stage != ST_READY || !request || n < 1 ||
	    n > AXON_NET_MAX_RECVS || !data || !sizes || !mhandles)
		return NCCL_NET_INVALID_ARGUMENT;
	*request = NULL;
	for (int i = 0; i < n; i++)
		if (sizes[i] > 0)
			last = i;
	if (last < 0)
		return NCCL_NET_OK;
	m = mr_find(c->dev, mhandles[last]);
	if (!m || !mr_covers(m, data[last], 1))
		return NCCL_NET_INVALID_ARGUMENT;
	/* host memory is coherent with the NIC's writes: nothing to flush */
	if (m->type != NCCL_NET_PTR_DMABUF)
		return NCCL_NET_OK;
	r = req_get(c->flush_reqs, FLUSH_REQS);
	if (!r)
		return NCCL_NET_OK;
	sge = (struct ibv_sge){ .addr = (uintptr_t)c->flush_buf, .length = 1,
				.lkey = c->flush_mr->lkey };
	wr.wr_id = WRID(WR_FLUSH, r - c->flush_reqs);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)data[last];
	wr.wr.rdma.rkey = m->mr->rkey;
	if (ibv_post_send(c->flush_qp, &wr, &bad)) {
		AXON_NET_WARN("iflush: post READ: %s", strerror(errno));
		return NCCL_NET_SYSTEM_ERROR;
	}
	r->kind = REQ_FLUSH;
	r->comm = c;
	r->n = 1;
	r->mrs[0] = m;
	mr_inflight(m, 1);
	*request = r;
	return NCCL_NET_OK;
}

/* the immediate of turn seq arrived: its sizes are in the size area */
static nres_t recv_done(struct comm *c, uint32_t seq)
{
	uint32_t slot = (seq - 1) % SLOTS;
	struct request *r = &c->recv_reqs[slot];

	if (r->kind != REQ_RECV || r->seq != seq || r->done) {
		AXON_NET_WARN("test: the peer completed turn %u not posted",
			      seq);
		return NCCL_NET_REMOTE_ERROR;
	}
	for (int i = 0; i < r->n; i++) {
		uint64_t got = c->sizes_in[slot][i];

		if (got > r->posted_size[i]) {
			AXON_NET_WARN("test: the peer sent %lu bytes into %lu",
				      (unsigned long)got,
				      (unsigned long)r->posted_size[i]);
			return NCCL_NET_REMOTE_ERROR;
		}
		r->sizes[i] = (int)got;
	}
	r->done = true;
	return NCCL_NET_OK;
}

/* RUD: entry i of turn (the immediate's) is placed, len bytes of it */
static nres_t rud_recv_done(struct comm *c, uint32_t imm, uint32_t len)
{
	uint32_t turn = imm >> IMM_ENTRY_BITS;
	unsigned int i = imm & ((1U << IMM_ENTRY_BITS) - 1);
	struct request *r = &c->recv_reqs[(turn - 1) % SLOTS];

	if (r->kind != REQ_RECV || (r->seq & IMM_TURN_MASK) != turn ||
	    r->done || i >= (unsigned int)r->n || (r->arrived & (1U << i))) {
		AXON_NET_WARN("test: the peer completed entry %u of turn %u, not posted",
			      i, turn);
		return NCCL_NET_REMOTE_ERROR;
	}
	if (len > r->posted_size[i]) {
		AXON_NET_WARN("test: the peer sent %u bytes into %lu", len,
			      (unsigned long)r->posted_size[i]);
		return NCCL_NET_REMOTE_ERROR;
	}
	r->sizes[i] = (int)len;
	r->arrived |= 1U << i;
	r->done = r->arrived == (1U << r->n) - 1;
	return NCCL_NET_OK;
}

static nres_t progress(struct comm *c)
{
	struct ibv_wc wc[16];
	int n;

	if (c->failed)
		return c->failed;
	while ((n = ibv_poll_cq(c->cq, 16, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			uint32_t idx = WRID_IDX(wc[i].wr_id);
			nres_t ret = NCCL_NET_OK;

			if (wc[i].status != IBV_WC_SUCCESS) {
				AXON_NET_WARN("%s: completion %s (wr kind %u)",
					      c->dev->name,
					      ibv_wc_status_str(wc[i].status),
					      WRID_KIND(wc[i].wr_id));
				c->failed = NCCL_NET_REMOTE_ERROR;
				return c->failed;
			}
			switch (WRID_KIND(wc[i].wr_id)) {
			case WR_SEND_DONE:
				if (idx >= SLOTS)
					break;
				c->sq_used -= c->slot_wrs[idx];
				c->slot_wrs[idx] = 0;
				for (int k = 0; k < AXON_NET_MAX_RECVS; k++) {
					struct request *r = c->slot_reqs[idx][k];

					if (!r)
						continue;
					r->done = true;
					r->sizes[0] = (int)r->size;
					c->slot_reqs[idx][k] = NULL;
				}
				break;
			case WR_RECV:
				if (!(wc[i].wc_flags & IBV_WC_WITH_IMM)) {
					ret = NCCL_NET_REMOTE_ERROR;
					break;
				}
				ret = c->transport == TRANSPORT_RUD ?
				      rud_recv_done(c, ntohl(wc[i].imm_data),
						    wc[i].byte_len) :
				      recv_done(c, ntohl(wc[i].imm_data));
				break;
			case WR_FLUSH:
				if (idx < FLUSH_REQS)
					c->flush_reqs[idx].done = true;
				break;
			default:	/* WR_CTS: nothing waits on it */
				break;
			}
			if (ret) {
				c->failed = ret;
				return ret;
			}
		}
	}
	if (n < 0) {
		c->failed = NCCL_NET_SYSTEM_ERROR;
		return c->failed;
	}
	return NCCL_NET_OK;
}

nres_t axon_net_test(void *request, int *done, int *sizes)
{
	struct request *r = request_find(request);
	nres_t ret;

	if (!r || !done)
		return NCCL_NET_INVALID_ARGUMENT;
	*done = 0;
	ret = progress(r->comm);
	if (ret)
		return ret;
	if (!r->done)
		return NCCL_NET_OK;
	*done = 1;
	if (sizes)
		for (int i = 0; i < r->n; i++)
			sizes[i] = r->kind == REQ_FLUSH ? 0 : r->sizes[i];
	for (int i = 0; i < r->n; i++)
		mr_inflight(r->mrs[i], -1);
	r->kind = REQ_FREE;
	return NCCL_NET_OK;
}
