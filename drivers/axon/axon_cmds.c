// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* axon admin commands. */

#include <linux/dma-mapping.h>

#include "axon_cmds.h"

/* QUERY_* commands return their result by DMA into a bounce buffer. */
static int axon_cmd_query(struct axon_admin_queue *aq, u16 opcode, u32 port,
			  void *out, size_t len)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;
	dma_addr_t dma;
	void *buf;
	int err;

	buf = dma_alloc_coherent(aq->dmadev, len, &dma, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;

	cmd.opcode = cpu_to_le16(opcode);
	cmd.query.resp_addr = cpu_to_le64(dma);
	cmd.query.resp_len = cpu_to_le32(len);
	cmd.query.port = cpu_to_le32(port);
	err = axon_admin_exec(aq, &cmd, &cqe);
	if (!err)
		memcpy(out, buf, len);

	if (err == -ETIMEDOUT)
		axon_admin_orphan_buf(aq, buf, dma, len);
	else
		dma_free_coherent(aq->dmadev, len, buf, dma);
	return err;
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

int axon_cmd_create_pd(struct axon_admin_queue *aq, u32 *pdn)
{
	struct axon_admin_cmd cmd = {};
	struct axon_admin_cqe cqe;
	u64 result;
	int err;

	cmd.opcode = cpu_to_le16(AXON_ADMIN_CREATE_PD);
	err = axon_admin_exec(aq, &cmd, &cqe);
	if (err)
		return err;

	result = le64_to_cpu(cqe.result);
	if (result > U32_MAX) {
		dev_err_ratelimited(aq->dmadev, "device returned bad pdn %llu\n",
				    result);
		return -EIO;
	}
	*pdn = result;
	return 0;
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
