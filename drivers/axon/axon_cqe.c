// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon: the completion queue ring: its depth, the CQE at an index,
 * a CQE as an ib_wc, purging a QP's CQEs.
 * Shared by axon.ko and the KUnit suites (see axon_cqe.h).
 */

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/string.h>
#include <asm/barrier.h>

#include "axon_cqe.h"

/* The ring for @cqe entries: a power of 2, at least AXON_CQ_MIN_DEPTH. */
int axon_cq_depth(int cqe, u32 max_cqe, u32 *depth)
{
	if (cqe < 1 || cqe > min_t(u32, max_cqe, AXON_CQ_MAX_DEPTH))
		return -EINVAL;
	*depth = max_t(u32, roundup_pow_of_two(cqe), AXON_CQ_MIN_DEPTH);
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
 * hand a consumer values it does not expect. RoCE has no P_Key index,
 * LIDs, SL or path bits: they stay 0.
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
	case AXON_WC_LOCAL_INV:
	case AXON_WC_REG_MR:
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
	/*
	 * Only a (UD) receive has a GRH; only a SEND's receive invalidates,
	 * the key in imm_data, which then holds no immediate.
	 */
	if (!axon_wc_status_known(cqe->status) ||
	    (cqe->flags & AXON_CQE_GRH && !recv) ||
	    (cqe->flags & AXON_CQE_WITH_INV &&
	     (!recv || cqe->opcode != AXON_WC_RECV ||
	      cqe->flags & AXON_CQE_WITH_IMM)))
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
	/* a SEND_WITH_INV took the key away before its receive completed */
	if (!err && cqe->flags & AXON_CQE_WITH_INV) {
		wc->ex.invalidate_rkey = be32_to_cpu(cqe->imm_data);
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	/*
	 * The buffer starts with the packet's GRH, which
	 * ib_init_ah_attr_from_wc() parses as the network header type says.
	 */
	if (recv && cqe->flags & AXON_CQE_GRH) {
		wc->src_qp = le32_to_cpu(cqe->src_qp) & AXON_QPN_MASK;
		wc->wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
		wc->network_hdr_type = cqe->flags & AXON_CQE_GRH_IPV4 ?
				       RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
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
 * has, so that polling skips them; the number rewritten, of which
 * receive completions in *@recv (an SRQ's slots they free). The device
 * reuses no slot before the consumer index passes it, and a pass ends at
 * the latest at cons + depth, whose slot still has the old phase.
 */
u32 axon_cq_purge(void *ring, u32 depth, u32 cons, u32 qpn, u32 *recv)
{
	struct axon_cqe *cqe;
	u32 i, n = 0;

	*recv = 0;
	for (i = cons; (cqe = axon_cqe_at(ring, depth, i)); i++) {
		if (le32_to_cpu(cqe->qpn) == qpn) {
			WRITE_ONCE(cqe->qpn, 0);
			n++;
			*recv += !!(cqe->flags & AXON_CQE_RECV);
		}
	}
	return n;
}
