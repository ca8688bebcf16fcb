// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon: kernel work requests as send and receive queue entries (WQEs).
 * Shared by axon.ko and the KUnit suites (see axon_wqe.h).
 */

#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "axon_ah_attr.h"
#include "axon_mr_attr.h"
#include "axon_wqe.h"

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
	case IB_WR_REG_MR:
		return AXON_WR_REG_MR;
	case IB_WR_LOCAL_INV:
		return AXON_WR_LOCAL_INV;
	case IB_WR_SEND_WITH_INV:
		return AXON_WR_SEND_INV;
	default:
		return -EINVAL;
	}
}

/*
 * Whether a connected QP of @type (RC or UC) may post @opcode. UC has no
 * READ, atomic or SEND with invalidate packets: the device would fail
 * such a WQE with LOC_QP_OP_ERR and move the QP to ERR. REG_MR,
 * LOCAL_INV and SEND_WITH_INV need a device with fast registration,
 * @fast_reg; the first two are local, and UC QPs have them too.
 */
bool axon_conn_wr_ok(enum ib_qp_type type, enum ib_wr_opcode opcode,
		     bool fast_reg)
{
	switch (opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return true;
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return type == IB_QPT_RC;
	case IB_WR_REG_MR:
	case IB_WR_LOCAL_INV:
		return fast_reg;
	case IB_WR_SEND_WITH_INV:
		return fast_reg && type == IB_QPT_RC;
	default:
		return false;
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
 * IB_WR_REG_MR of the fast-registration MR @reg->mr, of the QP's PD @pd,
 * as map_mr_sg mapped it, under @reg->key (the MR's slot with the
 * consumer's tag), with @reg->access. The consumer may have moved the
 * iova since (rpcrdma puts an XID in its upper half), but not its offset
 * in the first page, which is all the device knows of where the first
 * byte lies (a zero-based iova is -EINVAL, unless the mapping started on
 * a page boundary); nor may the length need more pages than were mapped.
 * An MR never mapped has no page size.
 */
static int axon_build_reg_mr(const struct ib_reg_wr *reg,
			     const struct ib_pd *pd,
			     struct axon_send_wqe *wqe)
{
	const struct ib_mr *ibmr = reg->mr;
	const struct axon_mr *mr = to_amr(reg->mr);
	const struct axon_fr_pages *fr = &mr->fr;
	u64 psz = BIT_ULL(fr->page_shift);
	u64 npages;

	if (!fr->list || !fr->page_shift || ibmr->pd != pd ||
	    AXON_KEY_GET_INDEX(reg->key) != AXON_KEY_GET_INDEX(mr->key) ||
	    axon_check_mr_access(reg->access))
		return -EINVAL;
	if ((ibmr->iova & (psz - 1)) != fr->page_off ||
	    ibmr->iova + ibmr->length < ibmr->iova)
		return -EINVAL;
	npages = DIV_ROUND_UP_ULL(fr->page_off + ibmr->length, psz);
	if (npages > fr->npages)
		return -EINVAL;
	wqe->remote_addr = cpu_to_le64(ibmr->iova);
	wqe->rkey = cpu_to_le32(reg->key);
	wqe->reg.length = cpu_to_le64(ibmr->length);
	wqe->reg.pbl_addr = cpu_to_le64(fr->dma);
	wqe->reg.npages = cpu_to_le32(npages);
	wqe->reg.page_shift = fr->page_shift;
	wqe->reg.access = axon_mr_access(reg->access);
	return 0;
}

/*
 * A kernel send work request of a QP of @pd as a WQE in @slot (the whole
 * slot is written). Inline data is copied from the SGEs' kernel virtual
 * addresses, as IB_SEND_INLINE means for kernel consumers. REG_MR and
 * LOCAL_INV move no data: their SGEs are not read, IB_SEND_INLINE is
 * ignored.
 */
int axon_build_send_wqe(const struct ib_send_wr *wr, const struct ib_pd *pd,
			void *slot, u32 slot_size, u32 max_sge, u32 max_inline,
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
	case IB_WR_SEND_WITH_INV:
		wqe->rkey = cpu_to_le32(wr->ex.invalidate_rkey);
		break;
	case IB_WR_LOCAL_INV:
		wqe->rkey = cpu_to_le32(wr->ex.invalidate_rkey);
		return 0;
	case IB_WR_REG_MR:
		return axon_build_reg_mr(reg_wr(wr), pd, wqe);
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

/*
 * A kernel work request of a UD QP as a WQE in @slot: a SEND or
 * SEND_WITH_IMM (inline or not) to the QP and Q_Key of ud_wr(@wr) at the
 * address of its address handle, which must be of the QP's PD, @pd.
 * Other opcodes are -EINVAL (their work requests are no ib_ud_wr: it is
 * read only after the opcode), and so is a fence, which orders nothing on
 * a QP without READs or atomics.
 */
int axon_build_ud_send_wqe(const struct ib_send_wr *wr,
			   const struct ib_pd *pd, void *slot, u32 slot_size,
			   u32 max_sge, u32 max_inline, bool sig_all)
{
	const struct ib_ud_wr *ud = ud_wr(wr);
	struct axon_send_wqe *wqe = slot;
	int err;

	if ((wr->opcode != IB_WR_SEND && wr->opcode != IB_WR_SEND_WITH_IMM) ||
	    wr->send_flags & IB_SEND_FENCE)
		return -EINVAL;
	if (!ud->ah || ud->ah->pd != pd || ud->remote_qpn > AXON_QPN_MASK)
		return -EINVAL;
	err = axon_build_send_wqe(wr, pd, slot, slot_size, max_sge,
				  max_inline, sig_all);
	if (err)
		return err;
	wqe->remote_qpn = cpu_to_le32(ud->remote_qpn);
	wqe->qkey = cpu_to_le32(ud->remote_qkey);
	wqe->av = to_aah(ud->ah)->av;
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
