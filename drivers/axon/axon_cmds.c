// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* axon admin commands. */

#include <linux/dma-mapping.h>
#include <linux/string.h>

#include "axon_cmds.h"

/*
 * Executes @cmd with a DMA buffer of @len bytes, whose address goes to
 * @addr (a field of @cmd): @in copied to it first (zeros without), what
 * the device wrote copied to @out after. A command that timed out may
 * still write the buffer: the admin queue keeps it then.
 */
static int axon_cmd_exec_buf(struct axon_admin_queue *aq,
			     struct axon_admin_cmd *cmd, __le64 *addr,
			     const void *in, void *out, size_t len,
			     struct axon_admin_cqe *cqe)
{
	dma_addr_t dma;
	void *buf;
	int err;

	buf = axon_admin_buf_alloc(aq, len, &dma);
	if (!buf)
		return -ENOMEM;
	if (in)
		memcpy(buf, in, len);
	*addr = cpu_to_le64(dma);
	err = axon_admin_exec(aq, cmd, cqe);
	if (!err && out)
		memcpy(out, buf, len);

	/* it may have held a RUD QP's peer key */
	if (err != -ETIMEDOUT)
		memzero_explicit(buf, len);
	axon_admin_buf_free(aq, buf, dma, len, err == -ETIMEDOUT);
	return err;
}

/* QUERY_* commands return their result by DMA into a bounce buffer. */
static int axon_cmd_query(struct axon_admin_queue *aq, u16 opcode, u32 port,
			  void *out, size_t len)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;

	cmd.opcode = cpu_to_le16(opcode);
	cmd.query.resp_len = cpu_to_le32(len);
	cmd.query.port = cpu_to_le32(port);
	return axon_cmd_exec_buf(aq, &cmd, &cmd.query.resp_addr, NULL, out, len,
				 &cqe);
}

int axon_cmd_query_device(struct axon_admin_queue *aq,
			  struct axon_dev_attr *attr)
{
	return axon_cmd_query(aq, AXON_ADMIN_QUERY_DEVICE, 0, attr,
			      sizeof(*attr));
}

int axon_cmd_query_port(struct axon_admin_queue *aq, u32 port,
			struct axon_port_attr *attr)
{
	return axon_cmd_query(aq, AXON_ADMIN_QUERY_PORT, port, attr,
			      sizeof(*attr));
}

/* The 32-bit result of a CREATE_* command, checked against [min, max]. */
static int axon_cmd_result(struct axon_admin_queue *aq,
			   const struct axon_admin_cqe *cqe, const char *what,
			   u32 min, u32 max, u32 *out)
{
	u64 result = le64_to_cpu(cqe->result);

	if (result < min || result > max) {
		dev_err_ratelimited(aq->dmadev, "device returned bad %s %llu\n",
				    what, result);
		return -EIO;
	}
	*out = result;
	return 0;
}

int axon_cmd_create_pd(struct axon_admin_queue *aq, u32 *pdn)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;
	int err;

	cmd.opcode = cpu_to_le16(AXON_ADMIN_CREATE_PD);
	err = axon_admin_exec(aq, &cmd, &cqe);
	if (err)
		return err;
	return axon_cmd_result(aq, &cqe, "pdn", 0, U32_MAX, pdn);
}

int axon_cmd_destroy_pd(struct axon_admin_queue *aq, u32 pdn)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;

	cmd.opcode = cpu_to_le16(AXON_ADMIN_DESTROY_PD);
	cmd.pd.pdn = cpu_to_le32(pdn);
	return axon_admin_exec(aq, &cmd, &cqe);
}

int axon_cmd_set_gid(struct axon_admin_queue *aq, u32 port, u32 index,
		     enum axon_gid_type type, const u8 *gid)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;

	cmd.opcode = cpu_to_le16(AXON_ADMIN_SET_GID);
	cmd.gid.port = cpu_to_le32(port);
	cmd.gid.index = cpu_to_le32(index);
	cmd.gid.type = cpu_to_le32(type);
	if (gid)
		memcpy(cmd.gid.gid, gid, sizeof(cmd.gid.gid));
	return axon_admin_exec(aq, &cmd, &cqe);
}

/* The MR description CREATE_MR and REREG_MR share. */
static void axon_cmd_mr_params(struct axon_admin_cmd *cmd, u16 opcode,
			       const struct axon_mr_params *p)
{
	cmd->opcode = cpu_to_le16(opcode);
	cmd->mr.pdn = cpu_to_le32(p->pdn);
	cmd->mr.access = cpu_to_le32(p->access);
	cmd->mr.iova = cpu_to_le64(p->iova);
	cmd->mr.length = cpu_to_le64(p->length);
	cmd->mr.pbl_addr = cpu_to_le64(p->pbl_addr);
	cmd->mr.npages = cpu_to_le32(p->npages);
	cmd->mr.page_shift = p->page_shift;
	cmd->mr.levels = p->levels;
}

int axon_cmd_create_mr(struct axon_admin_queue *aq,
		       const struct axon_mr_params *p, u32 *key)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;
	int err;

	axon_cmd_mr_params(&cmd, AXON_ADMIN_CREATE_MR, p);
	cmd.mr.flags = cpu_to_le16(p->flags);
	err = axon_admin_exec(aq, &cmd, &cqe);
	if (err)
		return err;
	return axon_cmd_result(aq, &cqe, "key", 0, U32_MAX, key);
}

int axon_cmd_rereg_mr(struct axon_admin_queue *aq, u32 key,
		      const struct axon_mr_params *p)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;

	axon_cmd_mr_params(&cmd, AXON_ADMIN_REREG_MR, p);
	cmd.mr.key = cpu_to_le32(key);
	return axon_admin_exec(aq, &cmd, &cqe);
}

/*
 * INVALIDATE_MR: from the completion on, the device no longer touches the
 * MR's pages; accesses through the key fail until REMAP_MR.
 */
int axon_cmd_invalidate_mr(struct axon_admin_queue *aq, u32 key)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;

	cmd.opcode = cpu_to_le16(AXON_ADMIN_INVALIDATE_MR);
	cmd.mr.key = cpu_to_le32(key);
	return axon_admin_exec(aq, &cmd, &cqe);
}

/* REMAP_MR: a new page list (@p's list fields only) for the MR's range. */
int axon_cmd_remap_mr(struct axon_admin_queue *aq, u32 key,
		      const struct axon_mr_params *p)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;

	cmd.opcode = cpu_to_le16(AXON_ADMIN_REMAP_MR);
	cmd.mr.key = cpu_to_le32(key);
	cmd.mr.pbl_addr = cpu_to_le64(p->pbl_addr);
	cmd.mr.npages = cpu_to_le32(p->npages);
	cmd.mr.page_shift = p->page_shift;
	cmd.mr.levels = p->levels;
	return axon_admin_exec(aq, &cmd, &cqe);
}

int axon_cmd_destroy_mr(struct axon_admin_queue *aq, u32 key)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;

	cmd.opcode = cpu_to_le16(AXON_ADMIN_DESTROY_MR);
	cmd.mr.key = cpu_to_le32(key);
	return axon_admin_exec(aq, &cmd, &cqe);
}

static void axon_cmd_cq_ring(struct axon_admin_cmd *cmd, u16 opcode,
			     const struct axon_cq_ring_params *ring)
{
	cmd->opcode = cpu_to_le16(opcode);
	cmd->cq.ring_addr = cpu_to_le64(ring->addr);
	cmd->cq.depth = cpu_to_le32(ring->depth);
	cmd->cq.npages = cpu_to_le32(ring->npages);
	cmd->cq.levels = ring->levels;
	cmd->cq.flags = ring->flags;
}

int axon_cmd_create_cq(struct axon_admin_queue *aq,
		       const struct axon_cq_ring_params *ring, u32 uar, u32 *cqn)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;
	int err;

	axon_cmd_cq_ring(&cmd, AXON_ADMIN_CREATE_CQ, ring);
	cmd.cq.uar = cpu_to_le32(uar);
	err = axon_admin_exec(aq, &cmd, &cqe);
	if (err)
		return err;
	return axon_cmd_result(aq, &cqe, "cqn", 0, AXON_MAX_CQN, cqn);
}

int axon_cmd_destroy_cq(struct axon_admin_queue *aq, u32 cqn)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;

	cmd.opcode = cpu_to_le16(AXON_ADMIN_DESTROY_CQ);
	cmd.cq.cqn = cpu_to_le32(cqn);
	return axon_admin_exec(aq, &cmd, &cqe);
}

int axon_cmd_resize_cq(struct axon_admin_queue *aq, u32 cqn,
		       const struct axon_cq_ring_params *ring)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;

	axon_cmd_cq_ring(&cmd, AXON_ADMIN_RESIZE_CQ, ring);
	cmd.cq.cqn = cpu_to_le32(cqn);
	return axon_admin_exec(aq, &cmd, &cqe);
}

int axon_cmd_create_qp(struct axon_admin_queue *aq,
		       const struct axon_qp_params *p, u32 *qpn)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;
	int err;

	cmd.opcode = cpu_to_le16(AXON_ADMIN_CREATE_QP);
	cmd.create_qp.pdn = cpu_to_le32(p->pdn);
	cmd.create_qp.send_cqn = cpu_to_le32(p->send_cqn);
	cmd.create_qp.recv_cqn = cpu_to_le32(p->recv_cqn);
	cmd.create_qp.uar = cpu_to_le32(p->uar);
	cmd.create_qp.sq_addr = cpu_to_le64(p->sq_addr);
	cmd.create_qp.rq_addr = cpu_to_le64(p->rq_addr);
	cmd.create_qp.sq_depth = cpu_to_le16(p->sq_depth);
	cmd.create_qp.rq_depth = cpu_to_le16(p->rq_depth);
	cmd.create_qp.sq_wqe_shift = p->sq_wqe_shift;
	cmd.create_qp.rq_wqe_shift = p->rq_wqe_shift;
	cmd.create_qp.sq_sig_all = p->sq_sig_all;
	cmd.create_qp.srqn = cpu_to_le32(p->srqn);
	cmd.create_qp.xrcdn = cpu_to_le32(p->xrcdn);
	cmd.create_qp.type = p->type;
	cmd.create_qp.flags = p->flags;
	err = axon_admin_exec(aq, &cmd, &cqe);
	if (err)
		return err;
	/* the GSI QP is 1, no other QP is 0 or 1 */
	if (p->type == AXON_QPT_GSI)
		return axon_cmd_result(aq, &cqe, "qpn", AXON_GSI_QPN,
				       AXON_GSI_QPN, qpn);
	return axon_cmd_result(aq, &cqe, "qpn", 2, AXON_MAX_QPN, qpn);
}

/*
 * A QP command that passes @len bytes through a DMA buffer: @in to the
 * device (MODIFY_QP), or from it to @out (QUERY_QP, QUERY_QP_LIVE); the
 * command's result to @result if not NULL.
 */
static int axon_cmd_qp_buf(struct axon_admin_queue *aq, u16 opcode, u32 qpn,
			   u32 attr_mask, const void *in, void *out, size_t len,
			   u64 *result)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;
	int err;

	cmd.opcode = cpu_to_le16(opcode);
	cmd.qp.qpn = cpu_to_le32(qpn);
	cmd.qp.attr_mask = cpu_to_le32(attr_mask);
	err = axon_cmd_exec_buf(aq, &cmd, &cmd.qp.attr_addr, in, out, len,
				&cqe);
	if (!err && result)
		*result = le64_to_cpu(cqe.result);
	return err;
}

/*
 * @result: the command's result, a RUD QP's new key when it leaves RESET
 * (AXON_CAP_RUD_KEYS), else 0; may be NULL.
 */
int axon_cmd_modify_qp(struct axon_admin_queue *aq, u32 qpn, u32 attr_mask,
		       const struct axon_qp_attr *attr, u64 *result)
{
	return axon_cmd_qp_buf(aq, AXON_ADMIN_MODIFY_QP, qpn, attr_mask, attr,
			       NULL, sizeof(*attr), result);
}

/* Allocates nothing, so a drain cannot fail for want of memory. */
int axon_cmd_modify_qp_err(struct axon_admin_queue *aq, u32 qpn)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;

	cmd.opcode = cpu_to_le16(AXON_ADMIN_MODIFY_QP);
	cmd.qp.qpn = cpu_to_le32(qpn);
	cmd.qp.attr_mask = cpu_to_le32(AXON_QP_ATTR_STATE);
	cmd.qp.attr_addr = cpu_to_le64(aq->err_attr_dma);
	return axon_admin_exec(aq, &cmd, &cqe);
}

int axon_cmd_query_qp(struct axon_admin_queue *aq, u32 qpn,
		      struct axon_qp_attr *attr)
{
	return axon_cmd_qp_buf(aq, AXON_ADMIN_QUERY_QP, qpn, 0, NULL, attr,
			       sizeof(*attr), NULL);
}

int axon_cmd_query_qp_live(struct axon_admin_queue *aq, u32 qpn,
			   struct axon_qp_live *live)
{
	return axon_cmd_qp_buf(aq, AXON_ADMIN_QUERY_QP_LIVE, qpn, 0, NULL, live,
			       sizeof(*live), NULL);
}

int axon_cmd_destroy_qp(struct axon_admin_queue *aq, u32 qpn)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;

	cmd.opcode = cpu_to_le16(AXON_ADMIN_DESTROY_QP);
	cmd.qp.qpn = cpu_to_le32(qpn);
	return axon_admin_exec(aq, &cmd, &cqe);
}

/* ATTACH_MCAST or DETACH_MCAST (@opcode) of @qpn and the group @gid. */
int axon_cmd_mcast(struct axon_admin_queue *aq, u16 opcode, u32 qpn,
		   const u8 *gid)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;

	cmd.opcode = cpu_to_le16(opcode);
	cmd.mcast.qpn = cpu_to_le32(qpn);
	memcpy(cmd.mcast.gid, gid, sizeof(cmd.mcast.gid));
	return axon_admin_exec(aq, &cmd, &cqe);
}

/*
 * MAP_PAGES: entries [@first, @first + @npages) of an on-demand paging
 * MR's pages become the list at @pbl_addr (1 or 2 @levels); UNMAP_PAGES
 * (@pbl_addr 0, @levels 0): those pages become absent, and from the
 * completion on the device does not touch them.
 */
int axon_cmd_odp_pages(struct axon_admin_queue *aq, u16 opcode, u32 key,
		       u32 first, u32 npages, dma_addr_t pbl_addr, u8 levels)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;

	cmd.opcode = cpu_to_le16(opcode);
	cmd.odp.key = cpu_to_le32(key);
	cmd.odp.first = cpu_to_le32(first);
	cmd.odp.npages = cpu_to_le32(npages);
	cmd.odp.pbl_addr = cpu_to_le64(pbl_addr);
	cmd.odp.levels = levels;
	return axon_admin_exec(aq, &cmd, &cqe);
}

/* RESUME_QP: the QP's page fault is handled (AXON_ODP_RESUME_*). */
int axon_cmd_resume_qp(struct axon_admin_queue *aq, u32 qpn, u8 status)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;

	cmd.opcode = cpu_to_le16(AXON_ADMIN_RESUME_QP);
	cmd.odp.qpn = cpu_to_le32(qpn);
	cmd.odp.status = status;
	return axon_admin_exec(aq, &cmd, &cqe);
}

int axon_cmd_create_srq(struct axon_admin_queue *aq,
			const struct axon_srq_params *p, u32 *srqn)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;
	int err;

	cmd.opcode = cpu_to_le16(AXON_ADMIN_CREATE_SRQ);
	cmd.srq.ring_addr = cpu_to_le64(p->ring);
	cmd.srq.pdn = cpu_to_le32(p->pdn);
	cmd.srq.uar = cpu_to_le32(p->uar);
	cmd.srq.depth = cpu_to_le16(p->depth);
	cmd.srq.wqe_shift = p->wqe_shift;
	cmd.srq.limit = cpu_to_le32(p->limit);
	cmd.srq.xrcdn = cpu_to_le32(p->xrcdn);
	cmd.srq.cqn = cpu_to_le32(p->cqn);
	err = axon_admin_exec(aq, &cmd, &cqe);
	if (err)
		return err;
	return axon_cmd_result(aq, &cqe, "srqn", 1, AXON_MAX_SRQN, srqn);
}

static int axon_cmd_srq(struct axon_admin_queue *aq, u16 opcode, u32 srqn,
			u32 limit, struct axon_admin_cqe *cqe)
{
	struct axon_admin_cmd cmd = {};

	cmd.opcode = cpu_to_le16(opcode);
	cmd.srq.srqn = cpu_to_le32(srqn);
	cmd.srq.limit = cpu_to_le32(limit);
	return axon_admin_exec(aq, &cmd, cqe);
}

int axon_cmd_modify_srq(struct axon_admin_queue *aq, u32 srqn, u32 limit)
{
	struct axon_admin_cqe cqe;

	return axon_cmd_srq(aq, AXON_ADMIN_MODIFY_SRQ, srqn, limit, &cqe);
}

int axon_cmd_query_srq(struct axon_admin_queue *aq, u32 srqn, u32 *limit)
{
	struct axon_admin_cqe cqe;
	int err;

	err = axon_cmd_srq(aq, AXON_ADMIN_QUERY_SRQ, srqn, 0, &cqe);
	if (err)
		return err;
	return axon_cmd_result(aq, &cqe, "srq limit", 0, AXON_WQ_MAX_DEPTH - 1,
			       limit);
}

int axon_cmd_destroy_srq(struct axon_admin_queue *aq, u32 srqn)
{
	struct axon_admin_cqe cqe;

	return axon_cmd_srq(aq, AXON_ADMIN_DESTROY_SRQ, srqn, 0, &cqe);
}

/* CREATE_MR of a memory window (@flags AXON_MR_MW_TYPE1 or _TYPE2). */
int axon_cmd_create_mw(struct axon_admin_queue *aq, u32 pdn, u16 flags,
		       u32 *key)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;
	int err;

	cmd.opcode = cpu_to_le16(AXON_ADMIN_CREATE_MR);
	cmd.mr.pdn = cpu_to_le32(pdn);
	cmd.mr.flags = cpu_to_le16(flags);
	err = axon_admin_exec(aq, &cmd, &cqe);
	if (err)
		return err;
	return axon_cmd_result(aq, &cqe, "key", 0, U32_MAX, key);
}

/* WIRE_TEST: applies the fields in mask (0: none) and reads them back. */
int axon_cmd_wire_test(struct axon_admin_queue *aq, u32 mask,
		       u32 *drop_every, u32 *reorder_every)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;
	u64 now;
	int err;

	cmd.opcode = cpu_to_le16(AXON_ADMIN_WIRE_TEST);
	cmd.wire_test.mask = cpu_to_le32(mask);
	cmd.wire_test.drop_every = cpu_to_le32(*drop_every);
	cmd.wire_test.reorder_every = cpu_to_le32(*reorder_every);
	err = axon_admin_exec(aq, &cmd, &cqe);
	if (err)
		return err;
	now = le64_to_cpu(cqe.result);
	*drop_every = lower_32_bits(now);
	*reorder_every = upper_32_bits(now);
	return 0;
}

/*
 * ALLOC_, FREE_, BIND_ and QUERY_COUNTER_SET: QUERY_ writes the set's
 * counters to *counters; ALLOC_ gives the new set in *result.
 */
int axon_cmd_counter_set(struct axon_admin_queue *aq, u16 opcode, u32 set,
			 u32 qpn, struct axon_qp_counters *counters,
			 u32 *result)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;
	int err;

	cmd.opcode = cpu_to_le16(opcode);
	cmd.counter_set.set = cpu_to_le32(set);
	cmd.counter_set.qpn = cpu_to_le32(qpn);
	if (counters)
		return axon_cmd_exec_buf(aq, &cmd, &cmd.counter_set.resp_addr,
					 NULL, counters, sizeof(*counters),
					 &cqe);
	err = axon_admin_exec(aq, &cmd, &cqe);
	if (!err && result)
		err = axon_cmd_result(aq, &cqe, "counter set", 1,
				      AXON_MAX_COUNTER_SETS - 1, result);
	return err;
}
