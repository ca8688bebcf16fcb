// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon pure helpers, shared by axon.ko and the KUnit suites (see
 * axon_util.h).
 */

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/string.h>
#include <asm/barrier.h>

#include "axon_util.h"

/*
 * AXON_REG_FW_VERSION is 31:24 major, 23:16 minor, 15:0 sub. The 64-bit
 * fw_ver handed to userspace is 47:32 major, 31:16 minor, 15:0 sub.
 */
u64 axon_fw_ver(u32 reg)
{
	return (u64)(reg >> 24) << 32 | (u64)((reg >> 16) & 0xff) << 16 |
	       (reg & 0xffff);
}

/* "major.minor.sub", as ethtool -i and ibv_devinfo show it. */
void axon_fw_string(u32 reg, char *buf, size_t len)
{
	snprintf(buf, len, "%u.%u.%u", reg >> 24, (reg >> 16) & 0xff,
		 reg & 0xffff);
}

/* The largest IB MTU that fits in the device's RoCE MTU in bytes. */
enum ib_mtu axon_mtu_enum(u32 bytes)
{
	if (bytes >= 4096)
		return IB_MTU_4096;
	if (bytes >= 2048)
		return IB_MTU_2048;
	if (bytes >= 1024)
		return IB_MTU_1024;
	if (bytes >= 512)
		return IB_MTU_512;
	return IB_MTU_256;
}

/* Express an Ethernet link speed as four IB lanes. */
void axon_speed_width(u32 mbps, u16 *speed, u8 *width)
{
	u32 lane = mbps / 4;

	*width = IB_WIDTH_4X;
	if (lane >= 100000)
		*speed = IB_SPEED_NDR;
	else if (lane >= 50000)
		*speed = IB_SPEED_HDR;
	else if (lane >= 25000)
		*speed = IB_SPEED_EDR;
	else if (lane >= 10000)
		*speed = IB_SPEED_QDR;
	else
		*speed = IB_SPEED_SDR;
}

/* The device's GID type for an RDMA core GID table entry. */
enum axon_gid_type axon_gid_type(enum ib_gid_type type)
{
	return type == IB_GID_TYPE_ROCE_UDP_ENCAP ? AXON_GID_TYPE_ROCE_V2 :
						    AXON_GID_TYPE_ROCE_V1;
}

/*
 * Check an alloc_ucontext request. @req holds the request as far as
 * userspace sent it, zero-filled (older, shorter requests are fine);
 * @tail_zero says whether every byte userspace sent beyond @req is zero
 * (a newer library may send a longer, zero-padded request).
 */
int axon_check_ucontext_req(const struct axon_alloc_ucontext_req *req,
			    bool tail_zero)
{
	if (!tail_zero)
		return -EINVAL;
	if (req->comp_mask || req->reserved)
		return -EOPNOTSUPP;
	return 0;
}

/*
 * A 32-bit wrapping device counter widened to 64 bits: what it advanced
 * since @last is added to @sum. Correct as long as it is sampled at least
 * once per 2^32 events.
 */
u64 axon_counter_widen(u64 *sum, u32 *last, u32 now)
{
	*sum += (u32)(now - *last);
	*last = now;
	return *sum;
}

/* ---- memory regions ------------------------------------------------------ */

/*
 * Write the DMA addresses of the pgsz blocks covering @umem into page list
 * leaves of AXON_PBL_LEAF_ENTRIES entries (a 1-level list is one leaf).
 * pgsz comes from ib_umem_find_best_pgsz(), so every block is pgsz
 * aligned and the first one holds the umem's iova offset. -EINVAL unless
 * the umem is exactly @npages blocks.
 */
int axon_pbl_fill(struct ib_umem *umem, unsigned long pgsz,
		  __le64 *const *leaves, size_t npages)
{
	struct ib_block_iter biter;
	size_t i = 0;

	rdma_umem_for_each_dma_block(umem, &biter, pgsz) {
		if (i == npages)
			return -EINVAL;
		leaves[i / AXON_PBL_LEAF_ENTRIES][i % AXON_PBL_LEAF_ENTRIES] =
			cpu_to_le64(rdma_block_iter_dma_address(&biter));
		i++;
	}
	return i == npages ? 0 : -EINVAL;
}

/*
 * The device page size and page count for @umem at @iova: the largest
 * size of @pgsz_bitmap its DMA layout allows. -EINVAL when none fits or
 * the list would be longer than the device takes.
 */
int axon_mr_layout(struct ib_umem *umem, unsigned long pgsz_bitmap, u64 iova,
		   unsigned long *pgsz, size_t *npages)
{
	*pgsz = ib_umem_find_best_pgsz(umem, pgsz_bitmap, iova);
	if (!*pgsz)
		return -EINVAL;
	*npages = ib_umem_num_dma_blocks(umem, *pgsz);
	return *npages > AXON_MR_MAX_PAGES ? -EINVAL : 0;
}

#define AXON_IB_ACCESS (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

/* The device's access bits have the values of enum ib_access_flags. */
u32 axon_mr_access(int ib_access)
{
	return ib_access & AXON_ACCESS_ALL;
}

/*
 * MR access flags: the four the device enforces; optional ones (relaxed
 * ordering) may be ignored. Remote write or atomic without local write is
 * invalid, anything else (MW bind, on demand, zero based) unsupported.
 */
int axon_check_mr_access(int ib_access)
{
	if (ib_access & ~(AXON_IB_ACCESS | IB_ACCESS_OPTIONAL))
		return -EOPNOTSUPP;
	if (ib_access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC) &&
	    !(ib_access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

/* ---- completion queues --------------------------------------------------- */

/* The ring for @cqe entries: a power of 2, at least AXON_CQ_MIN_DEPTH. */
int axon_cq_depth(int cqe, u32 max_cqe, u32 *depth)
{
	if (cqe < 1 || cqe > min_t(u32, max_cqe, AXON_CQ_MAX_DEPTH))
		return -EINVAL;
	*depth = max_t(u32, roundup_pow_of_two(cqe), AXON_CQ_MIN_DEPTH);
	return 0;
}

/*
 * create_cq udata: no request is defined, so whatever userspace sends
 * must be zero (@in_zero); the response must fit.
 */
int axon_check_create_cq_udata(bool in_zero, size_t outlen)
{
	if (!in_zero || outlen < sizeof(struct axon_create_cq_resp))
		return -EINVAL;
	return 0;
}

static bool axon_wc_status_known(u8 status)
{
	switch (status) {
	case AXON_WC_SUCCESS:
	case AXON_WC_LOC_LEN_ERR:
	case AXON_WC_LOC_QP_OP_ERR:
	case AXON_WC_LOC_PROT_ERR:
	case AXON_WC_WR_FLUSH_ERR:
	case AXON_WC_BAD_RESP_ERR:
	case AXON_WC_LOC_ACCESS_ERR:
	case AXON_WC_REM_INV_REQ_ERR:
	case AXON_WC_REM_ACCESS_ERR:
	case AXON_WC_REM_OP_ERR:
	case AXON_WC_RETRY_EXC_ERR:
	case AXON_WC_RNR_RETRY_EXC_ERR:
	case AXON_WC_FATAL_ERR:
	case AXON_WC_GENERAL_ERR:
		return true;
	default:
		return false;
	}
}

/*
 * A CQE as a work completion, except wc->qp. The device's status and
 * opcode values are those of enum ib_wc_status and ib_wc_opcode; unknown
 * ones become a general error and -EIO, so that a confused device cannot
 * hand a consumer values it does not expect.
 */
int axon_cqe_to_wc(const struct axon_cqe *cqe, struct ib_wc *wc)
{
	bool recv = cqe->flags & AXON_CQE_RECV;
	int err = 0;

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = le64_to_cpu(cqe->wr_id);
	wc->status = cqe->status;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = le32_to_cpu(cqe->byte_len);
	wc->opcode = cqe->opcode;
	switch (cqe->opcode) {
	case AXON_WC_SEND:
	case AXON_WC_RDMA_WRITE:
	case AXON_WC_RDMA_READ:
	case AXON_WC_COMP_SWAP:
	case AXON_WC_FETCH_ADD:
		if (recv)
			err = -EIO;
		break;
	case AXON_WC_RECV:
	case AXON_WC_RECV_RDMA_WITH_IMM:
		if (!recv)
			err = -EIO;
		break;
	default:
		err = -EIO;
		break;
	}
	if (!axon_wc_status_known(cqe->status))
		err = -EIO;
	/* a flushed or failed receive has no valid opcode in IB terms */
	if (err) {
		wc->status = IB_WC_GENERAL_ERR;
		wc->opcode = recv ? IB_WC_RECV : IB_WC_SEND;
	}
	if (cqe->flags & AXON_CQE_WITH_IMM) {
		wc->ex.imm_data = cqe->imm_data;
		wc->wc_flags |= IB_WC_WITH_IMM;
	}
	return err;
}

/* CQE @idx (free running) of a ring of @depth, if the device has written it. */
struct axon_cqe *axon_cqe_at(void *ring, u32 depth, u32 idx)
{
	struct axon_cqe *cqe = ring + (size_t)(idx & (depth - 1)) *
				      AXON_CQE_SIZE;
	/* the first pass over the ring writes phase 1, the next 0, ... */
	bool phase = !(idx & depth);

	if (!!(READ_ONCE(cqe->flags) & AXON_CQE_PHASE) != phase)
		return NULL;
	/* read the entry only after seeing its phase */
	dma_rmb();
	return cqe;
}

/*
 * Give @qpn's CQEs not consumed yet (from @cons on) qpn 0, which no QP
 * has, so that polling skips them; the number rewritten. The device
 * reuses no slot before the consumer index passes it, and a pass ends at
 * the latest at cons + depth, whose slot still has the old phase.
 */
u32 axon_cq_purge(void *ring, u32 depth, u32 cons, u32 qpn)
{
	struct axon_cqe *cqe;
	u32 i, n = 0;

	for (i = cons; (cqe = axon_cqe_at(ring, depth, i)); i++) {
		if (le32_to_cpu(cqe->qpn) == qpn) {
			WRITE_ONCE(cqe->qpn, 0);
			n++;
		}
	}
	return n;
}

/* ---- queue pairs --------------------------------------------------------- */

/* The smallest n with 2^n >= x, x > 0. */
static u8 axon_log2_up(u32 x)
{
	return x <= 1 ? 0 : ilog2(x - 1) + 1;
}

/*
 * Queue geometry for the requested capabilities: a send WQE is a 64-byte
 * header and its SGEs or inline data, a receive WQE a 16-byte header and
 * its SGEs, in power-of-2 slots; depths are powers of 2 (at least 1).
 */
int axon_qp_geometry(const struct ib_qp_cap *cap,
		     const struct axon_qp_limits *lim, struct axon_qp_geom *g)
{
	u32 max_wr = min_t(u32, lim->max_wr, AXON_WQ_MAX_DEPTH);
	u32 max_sge = min_t(u32, lim->max_sge, AXON_MAX_SGE);
	u32 max_inline = min_t(u32, lim->max_inline, AXON_MAX_INLINE);
	u32 sq_slot, rq_slot;

	if (cap->max_send_wr > max_wr || cap->max_recv_wr > max_wr ||
	    cap->max_send_sge > max_sge || cap->max_recv_sge > max_sge ||
	    cap->max_inline_data > max_inline)
		return -EINVAL;

	g->sq_depth = roundup_pow_of_two(max_t(u32, cap->max_send_wr, 1));
	g->rq_depth = roundup_pow_of_two(max_t(u32, cap->max_recv_wr, 1));
	g->sq_wqe_shift = max_t(u8, AXON_SQ_MIN_WQE_SHIFT,
				axon_log2_up(sizeof(struct axon_send_wqe) +
					     max(cap->max_send_sge *
						 (u32)sizeof(struct axon_sge),
						 cap->max_inline_data)));
	g->rq_wqe_shift = max_t(u8, AXON_RQ_MIN_WQE_SHIFT,
				axon_log2_up(sizeof(struct axon_recv_wqe) +
					     cap->max_recv_sge *
					     sizeof(struct axon_sge)));
	sq_slot = 1u << g->sq_wqe_shift;
	rq_slot = 1u << g->rq_wqe_shift;
	/* what really fits the slots, within the device's limits */
	g->max_send_sge = min_t(u32, max_sge,
				(sq_slot - sizeof(struct axon_send_wqe)) /
				sizeof(struct axon_sge));
	g->max_recv_sge = min_t(u32, max_sge,
				(rq_slot - sizeof(struct axon_recv_wqe)) /
				sizeof(struct axon_sge));
	g->max_inline = min_t(u32, max_inline,
			      sq_slot - sizeof(struct axon_send_wqe));
	return 0;
}

void axon_qp_geom_caps(const struct axon_qp_geom *g, struct ib_qp_cap *cap)
{
	cap->max_send_wr = g->sq_depth;
	cap->max_recv_wr = g->rq_depth;
	cap->max_send_sge = g->max_send_sge;
	cap->max_recv_sge = g->max_recv_sge;
	cap->max_inline_data = g->max_inline;
}

/*
 * create_qp udata: @req as far as userspace sent it, zero-filled;
 * @tail_zero: every byte beyond it is zero; the response must fit.
 */
int axon_check_create_qp_req(const struct axon_create_qp_req *req,
			     bool tail_zero, size_t outlen)
{
	if (!tail_zero || outlen < sizeof(struct axon_create_qp_resp))
		return -EINVAL;
	if (req->comp_mask || req->reserved)
		return -EOPNOTSUPP;
	return 0;
}

#define AXON_QP_UNSUPPORTED_MASK (IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE | \
				  IB_QP_QKEY | IB_QP_CAP | IB_QP_RATE_LIMIT | \
				  IB_QP_EN_SQD_ASYNC_NOTIFY)

static int axon_qp_path_from_ib(const struct rdma_ah_attr *ah, u32 qpn,
				u32 dest_qpn, struct axon_qp_attr *out)
{
	const struct ib_global_route *grh;

	if (ah->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return -EINVAL;
	if (rdma_ah_get_port_num(ah) && rdma_ah_get_port_num(ah) != 1)
		return -EINVAL;
	grh = rdma_ah_read_grh(ah);
	if (grh->sgid_index > U8_MAX || grh->flow_label > 0xfffff)
		return -EINVAL;
	memcpy(out->dmac, ah->roce.dmac, sizeof(out->dmac));
	memcpy(out->dgid, grh->dgid.raw, sizeof(out->dgid));
	out->sgid_index = grh->sgid_index;
	out->hop_limit = grh->hop_limit;
	out->tclass = grh->traffic_class;
	out->flow_label = cpu_to_le32(grh->flow_label);
	out->udp_sport = cpu_to_le16(rdma_get_udp_sport(grh->flow_label, qpn,
							dest_qpn));
	return 0;
}

/*
 * ib_qp_attr under @mask (already checked by ib_modify_qp_is_ok()) as the
 * device's struct axon_qp_attr and attr_mask. Out-of-range values are
 * -EINVAL, attributes an RC QP on this device cannot have -EOPNOTSUPP.
 */
int axon_qp_attr_from_ib(const struct ib_qp_attr *attr, int mask,
			 const struct axon_qp_conv *conv,
			 struct axon_qp_attr *out, u32 *out_mask)
{
	u32 dest_qpn = mask & IB_QP_DEST_QPN ? attr->dest_qp_num :
					       conv->dest_qpn;
	u32 m = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if (mask & AXON_QP_UNSUPPORTED_MASK)
		return -EOPNOTSUPP;
	if (mask & IB_QP_STATE) {
		if (attr->qp_state > IB_QPS_ERR)
			return -EINVAL;
		out->state = cpu_to_le32(attr->qp_state);
		m |= AXON_QP_ATTR_STATE;
	}
	if ((mask & IB_QP_PKEY_INDEX && attr->pkey_index) ||
	    (mask & IB_QP_PORT && attr->port_num != 1))
		return -EINVAL;
	if (mask & IB_QP_ACCESS_FLAGS) {
		if (attr->qp_access_flags & ~AXON_IB_ACCESS)
			return -EINVAL;
		out->access = cpu_to_le32(attr->qp_access_flags &
					  (AXON_ACCESS_REMOTE_WRITE |
					   AXON_ACCESS_REMOTE_READ |
					   AXON_ACCESS_REMOTE_ATOMIC));
		m |= AXON_QP_ATTR_ACCESS;
	}
	if (mask & IB_QP_AV) {
		err = axon_qp_path_from_ib(&attr->ah_attr, conv->qpn, dest_qpn,
					   out);
		if (err)
			return err;
		m |= AXON_QP_ATTR_PATH;
	}
	if (mask & IB_QP_PATH_MTU) {
		if (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096)
			return -EINVAL;
		out->path_mtu = cpu_to_le32(ib_mtu_enum_to_int(min(attr->path_mtu,
								   conv->active_mtu)));
		m |= AXON_QP_ATTR_PATH_MTU;
	}
	if (mask & IB_QP_DEST_QPN) {
		if (attr->dest_qp_num > 0xffffff)
			return -EINVAL;
		out->dest_qpn = cpu_to_le32(attr->dest_qp_num);
		m |= AXON_QP_ATTR_DEST_QPN;
	}
	if (mask & IB_QP_RQ_PSN) {
		if (attr->rq_psn > 0xffffff)
			return -EINVAL;
		out->rq_psn = cpu_to_le32(attr->rq_psn);
		m |= AXON_QP_ATTR_RQ_PSN;
	}
	if (mask & IB_QP_SQ_PSN) {
		if (attr->sq_psn > 0xffffff)
			return -EINVAL;
		out->sq_psn = cpu_to_le32(attr->sq_psn);
		m |= AXON_QP_ATTR_SQ_PSN;
	}
	if (mask & IB_QP_TIMEOUT) {
		if (attr->timeout > 31)
			return -EINVAL;
		out->timeout = attr->timeout;
		m |= AXON_QP_ATTR_TIMEOUT;
	}
	if (mask & IB_QP_RETRY_CNT) {
		if (attr->retry_cnt > 7)
			return -EINVAL;
		out->retry_cnt = attr->retry_cnt;
		m |= AXON_QP_ATTR_RETRY_CNT;
	}
	if (mask & IB_QP_RNR_RETRY) {
		if (attr->rnr_retry > 7)
			return -EINVAL;
		out->rnr_retry = attr->rnr_retry;
		m |= AXON_QP_ATTR_RNR_RETRY;
	}
	if (mask & IB_QP_MIN_RNR_TIMER) {
		if (attr->min_rnr_timer > 31)
			return -EINVAL;
		out->min_rnr_timer = attr->min_rnr_timer;
		m |= AXON_QP_ATTR_MIN_RNR_TIMER;
	}
	if (mask & IB_QP_MAX_QP_RD_ATOMIC) {
		if (attr->max_rd_atomic > conv->max_rd_atomic)
			return -EINVAL;
		out->max_rd_atomic = attr->max_rd_atomic;
		m |= AXON_QP_ATTR_MAX_RD_ATOMIC;
	}
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC) {
		if (attr->max_dest_rd_atomic > conv->max_rd_atomic)
			return -EINVAL;
		out->max_dest_rd_atomic = attr->max_dest_rd_atomic;
		m |= AXON_QP_ATTR_MAX_DEST_RD_ATOMIC;
	}
	*out_mask = m;
	return 0;
}

/* The state in QUERY_QP's answer; a value the core does not know is ERR. */
enum ib_qp_state axon_qp_state_to_ib(const struct axon_qp_attr *in)
{
	return min_t(u32, le32_to_cpu(in->state), IB_QPS_ERR);
}

/* QUERY_QP's answer as ib_qp_attr (the fields the device keeps). */
void axon_qp_attr_to_ib(const struct axon_qp_attr *in, struct ib_qp_attr *attr)
{
	struct rdma_ah_attr *ah = &attr->ah_attr;
	union ib_gid dgid;

	attr->qp_state = axon_qp_state_to_ib(in);
	attr->cur_qp_state = attr->qp_state;
	attr->qp_access_flags = le32_to_cpu(in->access) &
				(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ |
				 IB_ACCESS_REMOTE_ATOMIC);
	attr->dest_qp_num = le32_to_cpu(in->dest_qpn) & 0xffffff;
	attr->rq_psn = le32_to_cpu(in->rq_psn) & 0xffffff;
	attr->sq_psn = le32_to_cpu(in->sq_psn) & 0xffffff;
	attr->path_mtu = axon_mtu_enum(le32_to_cpu(in->path_mtu));
	attr->timeout = in->timeout;
	attr->retry_cnt = in->retry_cnt;
	attr->rnr_retry = in->rnr_retry;
	attr->min_rnr_timer = in->min_rnr_timer;
	attr->max_rd_atomic = in->max_rd_atomic;
	attr->max_dest_rd_atomic = in->max_dest_rd_atomic;
	attr->port_num = 1;
	attr->pkey_index = 0;

	memset(ah, 0, sizeof(*ah));
	ah->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(ah, 1);
	memcpy(dgid.raw, in->dgid, sizeof(dgid.raw));
	rdma_ah_set_grh(ah, &dgid, le32_to_cpu(in->flow_label) & 0xfffff,
			in->sgid_index, in->hop_limit, in->tclass);
	memcpy(ah->roce.dmac, in->dmac, sizeof(ah->roce.dmac));
}

/* The ib_event of a QP async event; false for other events. */
bool axon_qp_event_type(u16 type, enum ib_event_type *event)
{
	switch (type) {
	case AXON_EVENT_QP_FATAL:
		*event = IB_EVENT_QP_FATAL;
		return true;
	case AXON_EVENT_QP_REQ_ERR:
		*event = IB_EVENT_QP_REQ_ERR;
		return true;
	case AXON_EVENT_QP_ACCESS_ERR:
		*event = IB_EVENT_QP_ACCESS_ERR;
		return true;
	case AXON_EVENT_COMM_EST:
		*event = IB_EVENT_COMM_EST;
		return true;
	default:
		return false;
	}
}

/* The device's opcode for a send work request, or -EINVAL. */
static int axon_wr_opcode(enum ib_wr_opcode opcode)
{
	switch (opcode) {
	case IB_WR_RDMA_WRITE:
		return AXON_WR_RDMA_WRITE;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return AXON_WR_RDMA_WRITE_IMM;
	case IB_WR_SEND:
		return AXON_WR_SEND;
	case IB_WR_SEND_WITH_IMM:
		return AXON_WR_SEND_IMM;
	case IB_WR_RDMA_READ:
		return AXON_WR_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return AXON_WR_ATOMIC_CMP_SWP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return AXON_WR_ATOMIC_FETCH_ADD;
	default:
		return -EINVAL;
	}
}

static void axon_write_sges(struct axon_sge *dst, const struct ib_sge *sg,
			    int num_sge)
{
	int i;

	for (i = 0; i < num_sge; i++) {
		dst[i].addr = cpu_to_le64(sg[i].addr);
		dst[i].length = cpu_to_le32(sg[i].length);
		dst[i].lkey = cpu_to_le32(sg[i].lkey);
	}
}

/*
 * A kernel send work request as a WQE in @slot (the whole slot is
 * written). Inline data is copied from the SGEs' kernel virtual
 * addresses, as IB_SEND_INLINE means for kernel consumers.
 */
int axon_build_send_wqe(const struct ib_send_wr *wr, void *slot,
			u32 slot_size, u32 max_sge, u32 max_inline,
			bool sig_all)
{
	struct axon_send_wqe *wqe = slot;
	u8 *payload = slot + sizeof(*wqe);
	int opcode = axon_wr_opcode(wr->opcode);
	u32 len = 0;
	int i;

	if (opcode < 0 || wr->num_sge < 0 || wr->num_sge > max_sge)
		return -EINVAL;

	memset(slot, 0, slot_size);
	wqe->opcode = opcode;
	if (wr->send_flags & IB_SEND_SIGNALED || sig_all)
		wqe->flags |= AXON_WQE_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		wqe->flags |= AXON_WQE_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		wqe->flags |= AXON_WQE_FENCE;
	wqe->wr_id = cpu_to_le64(wr->wr_id);
	if (wr->opcode == IB_WR_SEND_WITH_IMM ||
	    wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
		wqe->imm_data = wr->ex.imm_data;

	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->remote_addr = cpu_to_le64(rdma_wr(wr)->remote_addr);
		wqe->rkey = cpu_to_le32(rdma_wr(wr)->rkey);
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->remote_addr = cpu_to_le64(atomic_wr(wr)->remote_addr);
		wqe->rkey = cpu_to_le32(atomic_wr(wr)->rkey);
		wqe->compare_add = cpu_to_le64(atomic_wr(wr)->compare_add);
		wqe->swap = cpu_to_le64(atomic_wr(wr)->swap);
		break;
	default:
		break;
	}

	if (wr->send_flags & IB_SEND_INLINE &&
	    wr->opcode != IB_WR_RDMA_READ &&
	    wr->opcode != IB_WR_ATOMIC_CMP_AND_SWP &&
	    wr->opcode != IB_WR_ATOMIC_FETCH_AND_ADD) {
		for (i = 0; i < wr->num_sge; i++) {
			if (wr->sg_list[i].length > max_inline - len)
				return -EINVAL;
			memcpy(payload + len,
			       (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			len += wr->sg_list[i].length;
		}
		wqe->flags |= AXON_WQE_INLINE;
		wqe->inline_len = cpu_to_le32(len);
		return 0;
	}
	wqe->num_sge = wr->num_sge;
	axon_write_sges((struct axon_sge *)payload, wr->sg_list, wr->num_sge);
	return 0;
}

/* A kernel receive work request as a WQE in @slot. */
int axon_build_recv_wqe(const struct ib_recv_wr *wr, void *slot, u32 max_sge)
{
	struct axon_recv_wqe *wqe = slot;

	if (wr->num_sge < 0 || wr->num_sge > max_sge)
		return -EINVAL;
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = cpu_to_le64(wr->wr_id);
	wqe->num_sge = wr->num_sge;
	axon_write_sges(slot + sizeof(*wqe), wr->sg_list, wr->num_sge);
	return 0;
}
