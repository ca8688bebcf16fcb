/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon libibverbs provider: work queue and completion ring formats.
 *
 * Pure helpers over memory shared with the device (<axon/axon_dev.h>):
 * no locks, no system calls, no libibverbs internals, so that
 * tests/rings.c can run them against rings in ordinary memory.
 */
#ifndef AXON_WQ_H
#define AXON_WQ_H

#include <assert.h>
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <axon/axon_dev.h>

/*
 * Ordering against the device (coherent DMA; doorbells are uncached MMIO):
 * to_device between writing a WQE and ringing its doorbell, from_device
 * between seeing a CQE's phase bit and reading the rest of it.
 */
#if defined(__x86_64__) || defined(__i386__)
#define axon_to_device_barrier() asm volatile("" ::: "memory")
#define axon_from_device_barrier() asm volatile("lfence" ::: "memory")
#elif defined(__aarch64__)
#define axon_to_device_barrier() asm volatile("dsb st" ::: "memory")
#define axon_from_device_barrier() asm volatile("dsb ld" ::: "memory")
#else
#define axon_to_device_barrier() __sync_synchronize()
#define axon_from_device_barrier() __sync_synchronize()
#endif

#define AXON_SEND_HDR_SIZE	sizeof(struct axon_send_wqe)
#define AXON_RECV_HDR_SIZE	sizeof(struct axon_recv_wqe)

/*
 * A send or receive queue. pi counts WQEs posted and ci WQEs completed,
 * both free running; the device sees pi mod 2^16 through the doorbell.
 * The poster owns pi, the poller of the QP's CQ owns ci; each reads the
 * other's with an atomic load.
 */
struct axon_wq {
	uint8_t *buf;
	uint32_t depth;		/* power of 2 */
	uint32_t wqe_shift;
	uint32_t max_sge;	/* what fits one slot, capped by the device */
	uint32_t max_inline;	/* SQ only */
	uint32_t pi;
	uint32_t ci;
};

static inline void *axon_wq_slot(const struct axon_wq *wq, uint32_t idx)
{
	return wq->buf + ((size_t)(idx & (wq->depth - 1)) << wq->wqe_shift);
}

static inline bool axon_wq_full(const struct axon_wq *wq, uint32_t pi)
{
	return pi - __atomic_load_n(&wq->ci, __ATOMIC_ACQUIRE) >= wq->depth;
}

/* One doorbell: AXON_DB_WORD() at the AXON_DB_* offset db points to. */
static inline void axon_ring_db(uint32_t *db, uint32_t id, uint32_t value)
{
	*(volatile uint32_t *)db = htole32(AXON_DB_WORD(id, value));
}

/*
 * WQEs in flight (posted and not yet reaped from the CQ) from which a
 * producer asks the device to poll its SQ's doorbell record: a stream.
 * Fewer (a ping-pong) ring the doorbell, which the device serves at once,
 * where a poll could only add its period. Unsignaled WQEs count until a
 * later signaled one is reaped.
 */
#define AXON_SQ_POLL_MIN_INFLIGHT	4

/*
 * The SQ's new index into its doorbell record, asking for polling with
 * @stream. The record always has the index the doorbell is about to ring
 * (the caller orders it before the doorbell), so a device that polls
 * never finds it behind.
 */
static inline void axon_sq_dbrec_write(struct axon_sq_dbrec *rec,
				       uint32_t pi, bool stream)
{
	pi &= AXON_DB_VALUE_MASK;
	__atomic_store_n(&rec->prod_index,
			 htole32(stream ? pi | AXON_SQ_DBREC_POLL : pi),
			 __ATOMIC_RELAXED);
}

/*
 * Whether the device polls the record, so that a stream's post need not
 * ring. The full barrier orders the index written before the polling
 * word's read, as "Send queue doorbell records" in axon_io_defs.h asks:
 * the device clears the word before its last read of the index.
 */
static inline bool axon_sq_dbrec_polled(struct axon_sq_dbrec *rec)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(&rec->polling, __ATOMIC_RELAXED);
}

/* ibv_wr_opcode to enum axon_wr_opcode; -1 for what axon does not do. */
static inline int axon_wr_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
		return AXON_WR_RDMA_WRITE;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return AXON_WR_RDMA_WRITE_IMM;
	case IBV_WR_SEND:
		return AXON_WR_SEND;
	case IBV_WR_SEND_WITH_IMM:
		return AXON_WR_SEND_IMM;
	case IBV_WR_RDMA_READ:
		return AXON_WR_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return AXON_WR_ATOMIC_CMP_SWP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return AXON_WR_ATOMIC_FETCH_ADD;
	case IBV_WR_LOCAL_INV:
		return AXON_WR_LOCAL_INV;
	case IBV_WR_SEND_WITH_INV:
		return AXON_WR_SEND_INV;
	case IBV_WR_BIND_MW:
		return AXON_WR_BIND_MW;
	default:
		return -1;
	}
}

static inline uint8_t axon_wqe_flags(unsigned int send_flags)
{
	return (send_flags & IBV_SEND_SIGNALED ? AXON_WQE_SIGNALED : 0) |
	       (send_flags & IBV_SEND_SOLICITED ? AXON_WQE_SOLICITED : 0) |
	       (send_flags & IBV_SEND_FENCE ? AXON_WQE_FENCE : 0) |
	       (send_flags & IBV_SEND_INLINE ? AXON_WQE_INLINE : 0);
}

/* Start a send WQE: a zeroed header with everything but the payload. */
static inline struct axon_send_wqe *
axon_send_wqe_init(void *slot, uint8_t opcode, uint8_t flags, uint64_t wr_id)
{
	struct axon_send_wqe *wqe = slot;

	memset(wqe, 0, sizeof(*wqe));
	wqe->opcode = opcode;
	wqe->flags = flags;
	wqe->wr_id = htole64(wr_id);
	return wqe;
}

static inline void axon_wqe_set_sge(struct axon_sge *dst, uint64_t addr,
				    uint32_t length, uint32_t lkey)
{
	dst->addr = htole64(addr);
	dst->length = htole32(length);
	dst->lkey = htole32(lkey);
}

static inline struct axon_sge *axon_send_wqe_sges(struct axon_send_wqe *wqe)
{
	return (struct axon_sge *)(wqe + 1);
}

/*
 * Append inline payload to wqe (INLINE set, inline_len bytes already
 * there). EINVAL if it would exceed the SQ's max_inline.
 */
static inline int axon_wqe_add_inline(const struct axon_wq *sq,
				      struct axon_send_wqe *wqe,
				      const void *addr, size_t length)
{
	uint32_t len = le32toh(wqe->inline_len);

	if (length > sq->max_inline - len)
		return EINVAL;
	memcpy((uint8_t *)(wqe + 1) + len, addr, length);
	wqe->inline_len = htole32(len + length);
	return 0;
}

/* The rights a memory window grants (their values are the device's). */
#define AXON_MW_ACCESS	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | \
			 IBV_ACCESS_REMOTE_ATOMIC)

/*
 * Make wqe a BIND_MW of window mw under rkey (mw's key with a new tag)
 * over bind. EINVAL for the key of another window, no MR (but for a
 * zero-length bind, which unbinds a type 1 window and names no MR), or
 * rights other than remote write, read and atomic; local
 * write, which means nothing for a window (it is never an lkey) but
 * which IB lets a consumer ask for, is ignored. The device checks the
 * rest (PDs, the MR's MW_BIND right and range, local write for remote
 * write or atomic) and fails the WQE with AXON_WC_MW_BIND_ERR.
 */
static inline int axon_send_wqe_set_bind(struct axon_send_wqe *wqe,
					 const struct ibv_mw *mw, uint32_t rkey,
					 const struct ibv_mw_bind_info *bind)
{
	if (!mw || AXON_KEY_GET_INDEX(rkey) != AXON_KEY_GET_INDEX(mw->rkey) ||
	    (!bind->mr && bind->length) ||
	    bind->mw_access_flags & ~(AXON_MW_ACCESS | IBV_ACCESS_LOCAL_WRITE))
		return EINVAL;
	wqe->remote_addr = htole64(bind->addr);
	wqe->rkey = htole32(rkey);
	wqe->bind.length = htole64(bind->length);
	wqe->bind.mr_key = htole32(bind->mr ? bind->mr->lkey : 0);
	wqe->bind.access = bind->mw_access_flags & AXON_MW_ACCESS;
	return 0;
}

/* LOCAL_INV and BIND_MW act on keys and move no data. */
static inline bool axon_wr_local(int op)
{
	return op == AXON_WR_LOCAL_INV || op == AXON_WR_BIND_MW;
}

/*
 * Encode a LOCAL_INV of wr->invalidate_rkey or a BIND_MW of
 * wr->bind_mw (a window of either type) into slot: sg_list, num_sge and
 * IBV_SEND_INLINE mean nothing for them and are ignored.
 */
static inline int axon_build_local_wqe(const struct ibv_send_wr *wr, int op,
				       void *slot)
{
	struct axon_send_wqe *wqe;

	wqe = axon_send_wqe_init(slot, op,
				 axon_wqe_flags(wr->send_flags &
						~IBV_SEND_INLINE),
				 wr->wr_id);
	if (op == AXON_WR_BIND_MW)
		return axon_send_wqe_set_bind(wqe, wr->bind_mw.mw,
					      wr->bind_mw.rkey,
					      &wr->bind_mw.bind_info);
	wqe->rkey = htole32(wr->invalidate_rkey);
	return 0;
}

/*
 * Encode wr into the SQ slot. EINVAL for an opcode or flags axon does not
 * support, too many SGEs or too much inline data, and what
 * axon_build_local_wqe() refuses.
 */
static inline int axon_build_send_wqe(const struct axon_wq *sq,
				      const struct ibv_send_wr *wr, void *slot)
{
	struct axon_send_wqe *wqe;
	struct axon_sge *sge;
	int op = axon_wr_opcode(wr->opcode);
	int i, err;

	if (op < 0)
		return EINVAL;
	if (axon_wr_local(op))
		return axon_build_local_wqe(wr, op, slot);
	if (wr->num_sge < 0)
		return EINVAL;
	if (wr->send_flags & IBV_SEND_INLINE) {
		/* Only data the requester sends can be inline. */
		if (op == AXON_WR_RDMA_READ || op == AXON_WR_ATOMIC_CMP_SWP ||
		    op == AXON_WR_ATOMIC_FETCH_ADD)
			return EINVAL;
	} else if ((uint32_t)wr->num_sge > sq->max_sge) {
		return EINVAL;
	}

	wqe = axon_send_wqe_init(slot, op, axon_wqe_flags(wr->send_flags),
				 wr->wr_id);
	switch (op) {
	case AXON_WR_SEND_IMM:
		wqe->imm_data = wr->imm_data;
		break;
	case AXON_WR_SEND_INV:
		wqe->rkey = htole32(wr->invalidate_rkey);
		break;
	case AXON_WR_RDMA_WRITE_IMM:
		wqe->imm_data = wr->imm_data;
		/* fallthrough */
	case AXON_WR_RDMA_WRITE:
	case AXON_WR_RDMA_READ:
		wqe->remote_addr = htole64(wr->wr.rdma.remote_addr);
		wqe->rkey = htole32(wr->wr.rdma.rkey);
		break;
	case AXON_WR_ATOMIC_CMP_SWP:
		wqe->swap = htole64(wr->wr.atomic.swap);
		/* fallthrough */
	case AXON_WR_ATOMIC_FETCH_ADD:
		wqe->remote_addr = htole64(wr->wr.atomic.remote_addr);
		wqe->rkey = htole32(wr->wr.atomic.rkey);
		wqe->compare_add = htole64(wr->wr.atomic.compare_add);
		break;
	}

	if (wr->send_flags & IBV_SEND_INLINE) {
		for (i = 0; i < wr->num_sge; i++) {
			err = axon_wqe_add_inline(
				sq, wqe, (void *)(uintptr_t)wr->sg_list[i].addr,
				wr->sg_list[i].length);
			if (err)
				return err;
		}
		return 0;
	}

	sge = axon_send_wqe_sges(wqe);
	for (i = 0; i < wr->num_sge; i++)
		axon_wqe_set_sge(&sge[i], wr->sg_list[i].addr,
				 wr->sg_list[i].length, wr->sg_list[i].lkey);
	wqe->num_sge = wr->num_sge;
	return 0;
}

/* Whether gid is an IPv4 address, ::ffff:a.b.c.d. */
static inline bool axon_gid_is_ipv4(const union ibv_gid *gid)
{
	static const uint8_t v4_mapped[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(gid->raw, v4_mapped, sizeof(v4_mapped));
}

/*
 * The address a UD send to an address handle carries: its attributes and
 * the MAC the kernel resolved for it (struct axon_create_ah_resp). The
 * kernel has checked the attributes: a GRH, a RoCE v2 source GID of the
 * destination's family, so an IPv4 destination GID means IPv4.
 */
static inline void axon_ud_av_init(struct axon_ud_av *av,
				   const struct ibv_ah_attr *attr,
				   const uint8_t *dmac)
{
	const struct ibv_global_route *grh = &attr->grh;

	memset(av, 0, sizeof(*av));
	memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
	memcpy(av->dmac, dmac, sizeof(av->dmac));
	av->sgid_index = grh->sgid_index;
	av->hop_limit = grh->hop_limit;
	av->tclass = grh->traffic_class;
	av->flags = axon_gid_is_ipv4(&grh->dgid) ? AXON_AV_IPV4 : 0;
	/*
	 * 20 bits on the wire; UCX sets all 32 (its way round the flow label
	 * to UDP port conversion), as any provider would ignore the rest
	 */
	av->flow_label = htole32(grh->flow_label & AXON_FLOW_LABEL_MASK);
	/* else 0: the device derives the port from the sending QP */
	if (le32toh(av->flow_label))
		av->udp_sport = htole16(ibv_flow_label_to_udp_sport(
						le32toh(av->flow_label)));
}

/*
 * An address handle: the address the kernel checked, kept as the device
 * takes it, so that a UD send copies it into the WQE.
 */
struct axon_ah {
	struct ibv_ah ibvah;
	struct axon_ud_av av;
};

static inline struct axon_ah *to_axon_ah(struct ibv_ah *ibah)
{
	return (struct axon_ah *)((uint8_t *)ibah -
				  offsetof(struct axon_ah, ibvah));
}

/*
 * The destination of a UD send WQE: address handle ah, which must be of
 * the QP's PD pd, and a QPN of 24 bits and Q_Key; EINVAL otherwise.
 */
static inline int axon_send_wqe_set_ud(struct axon_send_wqe *wqe,
				       const struct ibv_pd *pd,
				       struct ibv_ah *ah, uint32_t remote_qpn,
				       uint32_t qkey)
{
	if (!ah || ah->pd != pd || remote_qpn > AXON_QPN_MASK)
		return EINVAL;
	wqe->remote_qpn = htole32(remote_qpn);
	wqe->qkey = htole32(qkey);
	wqe->av = to_axon_ah(ah)->av;
	return 0;
}

/*
 * Encode the wr of a UD QP of pd into the SQ slot: a SEND or
 * SEND_WITH_IMM to wr.ud's address handle, QP and Q_Key. EINVAL for
 * another opcode (whose wr.ud is the rdma or atomic member of the union:
 * it is read only after the opcode), a fence (it orders nothing on a QP
 * without READs or atomics), and whatever axon_build_send_wqe() or
 * axon_send_wqe_set_ud() refuse.
 */
static inline int axon_build_ud_send_wqe(const struct axon_wq *sq,
					 const struct ibv_send_wr *wr,
					 const struct ibv_pd *pd, void *slot)
{
	int err;

	if ((wr->opcode != IBV_WR_SEND && wr->opcode != IBV_WR_SEND_WITH_IMM) ||
	    wr->send_flags & IBV_SEND_FENCE)
		return EINVAL;
	err = axon_build_send_wqe(sq, wr, slot);
	if (err)
		return err;
	return axon_send_wqe_set_ud(slot, pd, wr->wr.ud.ah,
				    wr->wr.ud.remote_qpn,
				    wr->wr.ud.remote_qkey);
}

/*
 * Encode the wr of a UC QP into the SQ slot: a SEND or an RDMA WRITE,
 * with or without immediate. EINVAL for a READ or an atomic (UC has no
 * such packets: the device would fail the WQE and move the QP to ERR) and
 * whatever axon_build_send_wqe() refuses.
 */
static inline int axon_build_uc_send_wqe(const struct axon_wq *sq,
					 const struct ibv_send_wr *wr,
					 void *slot)
{
	switch (wr->opcode) {
	case IBV_WR_SEND:
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return axon_build_send_wqe(sq, wr, slot);
	default:
		return EINVAL;
	}
}

/*
 * Encode the wr of a RUD QP (axondv.h) into the SQ slot: what a UC QP
 * may post, and an RDMA READ, as an RC QP's. EINVAL for an atomic,
 * SEND_WITH_INV, LOCAL_INV or BIND_MW (RUD has none of them yet) and
 * whatever axon_build_send_wqe() refuses.
 */
static inline int axon_build_rud_send_wqe(const struct axon_wq *sq,
					  const struct ibv_send_wr *wr,
					  void *slot)
{
	if (wr->opcode == IBV_WR_RDMA_READ)
		return axon_build_send_wqe(sq, wr, slot);
	return axon_build_uc_send_wqe(sq, wr, slot);
}

/*
 * The XRC SRQ at the target of an XRC initiator's WQE: 24 bits, EINVAL
 * otherwise.
 */
static inline int axon_send_wqe_set_xrc(struct axon_send_wqe *wqe,
					uint32_t remote_srqn)
{
	if (remote_srqn > AXON_QPN_MASK)
		return EINVAL;
	wqe->xrc_srqn = htole32(remote_srqn);
	return 0;
}

/*
 * Encode the wr of an XRC_SEND QP into the SQ slot: what an RC QP may
 * post, to the XRC SRQ wr->qp_type.xrc.remote_srqn (24 bits: EINVAL
 * otherwise). LOCAL_INV and BIND_MW go nowhere: their remote_srqn is
 * ignored, and xrc_srqn, whose bytes the window's segment uses, is not
 * written.
 */
static inline int axon_build_xrc_send_wqe(const struct axon_wq *sq,
					  const struct ibv_send_wr *wr,
					  void *slot)
{
	int op = axon_wr_opcode(wr->opcode);
	int err;

	if (op < 0 || axon_wr_local(op))
		return axon_build_send_wqe(sq, wr, slot);
	if (wr->qp_type.xrc.remote_srqn > AXON_QPN_MASK)
		return EINVAL;
	err = axon_build_send_wqe(sq, wr, slot);
	if (err)
		return err;
	return axon_send_wqe_set_xrc(slot, wr->qp_type.xrc.remote_srqn);
}

/* Encode wr into the RQ slot; EINVAL for too many SGEs. */
static inline int axon_build_recv_wqe(const struct axon_wq *rq,
				      const struct ibv_recv_wr *wr, void *slot)
{
	struct axon_recv_wqe *wqe = slot;
	struct axon_sge *sge = (struct axon_sge *)(wqe + 1);
	int i;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > rq->max_sge)
		return EINVAL;

	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = htole64(wr->wr_id);
	wqe->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++)
		axon_wqe_set_sge(&sge[i], wr->sg_list[i].addr,
				 wr->sg_list[i].length, wr->sg_list[i].lkey);
	return 0;
}

/*
 * A send CQE for SQ WQE wqe_index retires it and every earlier WQE.
 * Returns false (and retires nothing) if wqe_index is not outstanding.
 */
static inline bool axon_sq_retire(struct axon_wq *sq, uint16_t wqe_index)
{
	uint32_t ci = sq->ci;
	uint32_t done = (uint16_t)(wqe_index - (uint16_t)ci) + 1;

	if (done > __atomic_load_n(&sq->pi, __ATOMIC_ACQUIRE) - ci)
		return false;
	__atomic_store_n(&sq->ci, ci + done, __ATOMIC_RELEASE);
	return true;
}

/*
 * A receive CQE of a QP on an SRQ retires one of its WQEs, whichever: the
 * SRQ's QPs complete them in any order, on CQs polled by any thread.
 */
static inline bool axon_srq_retire(struct axon_wq *wq)
{
	uint32_t ci = __atomic_load_n(&wq->ci, __ATOMIC_RELAXED);

	do {
		if (ci == __atomic_load_n(&wq->pi, __ATOMIC_ACQUIRE))
			return false;
	} while (!__atomic_compare_exchange_n(&wq->ci, &ci, ci + 1, false,
					      __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
	return true;
}

/* A receive CQE retires the oldest RQ WQE. */
static inline bool axon_rq_retire(struct axon_wq *rq)
{
	uint32_t ci = rq->ci;

	if (ci == __atomic_load_n(&rq->pi, __ATOMIC_ACQUIRE))
		return false;
	__atomic_store_n(&rq->ci, ci + 1, __ATOMIC_RELEASE);
	return true;
}

/*
 * A completion ring: 2^depth_shift CQEs, then the consumer index record.
 * ci counts CQEs consumed; the device sees it once axon_cq_publish()
 * stores it, and only then may reuse those slots.
 */
struct axon_cqring {
	struct axon_cqe *cqes;
	struct axon_cq_dbrec *dbrec;
	uint32_t depth_shift;
	/* log2 of the CQE size in struct axon_cqe: 1 for struct axon_cqe_ts */
	uint32_t stride_shift;
	uint32_t ci;
};

/* The CQE at idx if the device has written it on that pass, else NULL. */
static inline struct axon_cqe *axon_cqe_at(const struct axon_cqring *cq,
					   uint32_t idx)
{
	struct axon_cqe *cqe = &cq->cqes[(idx & ((1u << cq->depth_shift) - 1))
					 << cq->stride_shift];
	/* The first pass writes phase 1, the next 0, and so on. */
	uint8_t phase = ((idx >> cq->depth_shift) & 1) ^ 1;

	if ((*(volatile uint8_t *)&cqe->flags & AXON_CQE_PHASE) != phase)
		return NULL;
	axon_from_device_barrier();
	return cqe;
}

/* The device clock when the CQE was written, of a struct axon_cqe_ts. */
static inline uint64_t axon_cqe_timestamp(const struct axon_cqe *cqe)
{
	return le64toh(((const struct axon_cqe_ts *)cqe)->timestamp);
}

/* The next CQE to consume, if the device has written it. */
static inline struct axon_cqe *axon_cqe_peek(const struct axon_cqring *cq)
{
	return axon_cqe_at(cq, cq->ci);
}

/*
 * A purged CQE names QP 0, which no QP of a context ever is
 * (<axon/axon_dev.h>): pollers drop it as they drop unknown QPs'.
 */
#define AXON_QPN_PURGED		0

/*
 * Purge the CQEs of qpn written but not consumed yet; returns how many,
 * of which receive completions in *recv (an SRQ's slots they free).
 * The device reuses no slot before the consumer index passes it, so the
 * consumer may rewrite these.
 */
static inline unsigned int axon_cq_purge(struct axon_cqring *cq, uint32_t qpn,
					 unsigned int *recv)
{
	struct axon_cqe *cqe;
	unsigned int n = 0;
	uint32_t i;

	*recv = 0;
	/* A pass ends at the latest at ci + depth: slot ci, wrong phase. */
	for (i = cq->ci; (cqe = axon_cqe_at(cq, i)); i++) {
		if (le32toh(cqe->qpn) == qpn) {
			cqe->qpn = htole32(AXON_QPN_PURGED);
			n++;
			*recv += !!(cqe->flags & AXON_CQE_RECV);
		}
	}
	return n;
}

/*
 * The driver marked the CQ dead: the device failed or is going away and
 * no CQE will come again. Read only when the ring is empty.
 */
static inline bool axon_cq_dead(const struct axon_cqring *cq)
{
	return le32toh(__atomic_load_n(&cq->dbrec->flags, __ATOMIC_ACQUIRE)) &
	       AXON_CQ_DBREC_DEAD;
}

/* Hand consumed slots back: every read of them happens before. */
static inline void axon_cq_publish(struct axon_cqring *cq)
{
	__atomic_store_n(&cq->dbrec->cons_index, htole32(cq->ci),
			 __ATOMIC_RELEASE);
}

/*
 * A UD receive: the buffer starts with the packet's 40-byte GRH
 * (AXON_UD_GRH_LEN, counted in byte_len) and the CQE names the sender.
 */
static inline bool axon_cqe_has_grh(const struct axon_cqe *cqe)
{
	return (cqe->flags & (AXON_CQE_RECV | AXON_CQE_GRH)) ==
	       (AXON_CQE_RECV | AXON_CQE_GRH);
}

static inline unsigned int axon_cqe_wc_flags(const struct axon_cqe *cqe)
{
	return (cqe->flags & AXON_CQE_WITH_IMM ? IBV_WC_WITH_IMM : 0) |
	       (cqe->flags & AXON_CQE_WITH_INV ? IBV_WC_WITH_INV : 0) |
	       (axon_cqe_has_grh(cqe) ? IBV_WC_GRH : 0);
}

/*
 * ibv_wc's imm_data, which it shares with invalidated_rkey: the
 * immediate data in network order, or for a SEND with invalidate the
 * rkey the device invalidated (AXON_CQE_WITH_INV), in host order.
 */
static inline uint32_t axon_cqe_imm(const struct axon_cqe *cqe)
{
	return cqe->flags & AXON_CQE_WITH_INV ? be32toh(cqe->imm_data) :
						cqe->imm_data;
}

/* The sending QP: a UD receive's CQE names it, an RC QP has one peer. */
static inline uint32_t axon_cqe_src_qp(const struct axon_cqe *cqe,
				       uint32_t dest_qpn)
{
	return axon_cqe_has_grh(cqe) ? le32toh(cqe->src_qp) & AXON_QPN_MASK :
				       dest_qpn;
}

/*
 * The SL of a completion. RoCE has no SL; the RoCE v2 annex of the IB
 * spec (A17.4.5.1) has a UD receive tell whether the frame was IPv4 or
 * IPv6, and ibv_wc has no field for that. mlx4 and mlx5 report it in the
 * SL (bit 3: the frame had a UDP header, bits 2:0: 2 IPv4, 1 IPv6), and
 * UCX's ud transport reads it there to compare a datagram's destination
 * GID: axon reports it the same way for a datagram with its GRH, else 0.
 */
#define AXON_WC_SL_UDP		0x8
#define AXON_WC_SL_IPV6		0x1
#define AXON_WC_SL_IPV4		0x2

static inline uint8_t axon_cqe_sl(const struct axon_cqe *cqe)
{
	if (!axon_cqe_has_grh(cqe))
		return 0;
	return AXON_WC_SL_UDP | (cqe->flags & AXON_CQE_GRH_IPV4 ?
				 AXON_WC_SL_IPV4 : AXON_WC_SL_IPV6);
}

/*
 * Everything of an ibv_wc the CQE carries, for a QP whose peer is
 * dest_qpn (RC; 0 for UD).
 */
static inline void axon_cqe_to_wc(const struct axon_cqe *cqe,
				  uint32_t dest_qpn, struct ibv_wc *wc)
{
	wc->wr_id = le64toh(cqe->wr_id);
	wc->status = (enum ibv_wc_status)cqe->status;
	wc->opcode = (enum ibv_wc_opcode)cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = le32toh(cqe->byte_len);
	wc->imm_data = axon_cqe_imm(cqe);
	wc->qp_num = le32toh(cqe->qpn);
	wc->src_qp = axon_cqe_src_qp(cqe, dest_qpn);
	wc->wc_flags = axon_cqe_wc_flags(cqe);
	wc->pkey_index = 0;
	wc->slid = 0;
	wc->sl = axon_cqe_sl(cqe);
	wc->dlid_path_bits = 0;
}

/* The status and opcode numberings are those of libibverbs. */
#define AXON_SAME(a, b) ((int)(a) == (int)(b))
static_assert(AXON_SAME(AXON_WC_SUCCESS, IBV_WC_SUCCESS) &&
	      AXON_SAME(AXON_WC_LOC_LEN_ERR, IBV_WC_LOC_LEN_ERR) &&
	      AXON_SAME(AXON_WC_LOC_QP_OP_ERR, IBV_WC_LOC_QP_OP_ERR) &&
	      AXON_SAME(AXON_WC_LOC_PROT_ERR, IBV_WC_LOC_PROT_ERR) &&
	      AXON_SAME(AXON_WC_WR_FLUSH_ERR, IBV_WC_WR_FLUSH_ERR) &&
	      AXON_SAME(AXON_WC_MW_BIND_ERR, IBV_WC_MW_BIND_ERR) &&
	      AXON_SAME(AXON_WC_BAD_RESP_ERR, IBV_WC_BAD_RESP_ERR) &&
	      AXON_SAME(AXON_WC_LOC_ACCESS_ERR, IBV_WC_LOC_ACCESS_ERR) &&
	      AXON_SAME(AXON_WC_REM_INV_REQ_ERR, IBV_WC_REM_INV_REQ_ERR) &&
	      AXON_SAME(AXON_WC_REM_ACCESS_ERR, IBV_WC_REM_ACCESS_ERR) &&
	      AXON_SAME(AXON_WC_REM_OP_ERR, IBV_WC_REM_OP_ERR) &&
	      AXON_SAME(AXON_WC_RETRY_EXC_ERR, IBV_WC_RETRY_EXC_ERR) &&
	      AXON_SAME(AXON_WC_RNR_RETRY_EXC_ERR, IBV_WC_RNR_RETRY_EXC_ERR) &&
	      AXON_SAME(AXON_WC_FATAL_ERR, IBV_WC_FATAL_ERR) &&
	      AXON_SAME(AXON_WC_GENERAL_ERR, IBV_WC_GENERAL_ERR), "wc status");
static_assert(AXON_SAME(AXON_WC_SEND, IBV_WC_SEND) &&
	      AXON_SAME(AXON_WC_RDMA_WRITE, IBV_WC_RDMA_WRITE) &&
	      AXON_SAME(AXON_WC_RDMA_READ, IBV_WC_RDMA_READ) &&
	      AXON_SAME(AXON_WC_COMP_SWAP, IBV_WC_COMP_SWAP) &&
	      AXON_SAME(AXON_WC_FETCH_ADD, IBV_WC_FETCH_ADD) &&
	      AXON_SAME(AXON_WC_BIND_MW, IBV_WC_BIND_MW) &&
	      AXON_SAME(AXON_WC_LOCAL_INV, IBV_WC_LOCAL_INV) &&
	      AXON_SAME(AXON_WC_RECV, IBV_WC_RECV) &&
	      AXON_SAME(AXON_WC_RECV_RDMA_WITH_IMM, IBV_WC_RECV_RDMA_WITH_IMM),
	      "wc opcode");
static_assert(sizeof(struct axon_send_wqe) == 64 &&
	      sizeof(struct axon_recv_wqe) == 16 &&
	      sizeof(struct axon_sge) == 16 &&
	      sizeof(struct axon_cqe) == AXON_CQE_SIZE, "WQE/CQE sizes");
static_assert(AXON_SAME(AXON_ACCESS_REMOTE_WRITE, IBV_ACCESS_REMOTE_WRITE) &&
	      AXON_SAME(AXON_ACCESS_REMOTE_READ, IBV_ACCESS_REMOTE_READ) &&
	      AXON_SAME(AXON_ACCESS_REMOTE_ATOMIC, IBV_ACCESS_REMOTE_ATOMIC),
	      "window rights");
static_assert(sizeof(struct axon_bind_mw_seg) == 32 &&
	      offsetof(struct axon_send_wqe, bind) == 32, "BIND_MW WQE layout");
static_assert(offsetof(struct axon_send_wqe, xrc_srqn) == 48 &&
	      offsetof(struct axon_send_wqe, swap) == 40, "XRC WQE layout");
static_assert(sizeof(struct axon_ud_av) == 32 &&
	      offsetof(struct axon_send_wqe, av) == 32 &&
	      offsetof(struct axon_send_wqe, qkey) == 20, "UD WQE layout");

#endif /* AXON_WQ_H */
