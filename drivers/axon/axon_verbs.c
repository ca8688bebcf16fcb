// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon verbs: the ib_device and its operations. Turns ib_* objects and
 * udata into admin commands; never touches a ring itself.
 *
 * Verbs that are not listed in axon_dev_ops are left to the RDMA core,
 * which fails them with EOPNOTSUPP.
 */

#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/axon-abi.h>

#include "axon.h"
#include "axon_cmds.h"
#include "axon_dev_attr.h"
#include "axon_odp.h"
#include "axon_udata.h"

static void axon_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	axon_fw_string(to_adev(ibdev)->fw_version, str,
		       IB_FW_VERSION_NAME_MAX);
}

static int axon_query_device(struct ib_device *ibdev,
			     struct ib_device_attr *props,
			     struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibdev);
	const struct axon_dev_attr *a = &adev->attr;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(ibdev, "query_device: non-zero udata\n");
		return -EINVAL;
	}

	memset(props, 0, sizeof(*props));
	props->fw_ver = axon_fw_ver(adev->fw_version);
	props->sys_image_guid = cpu_to_be64(le64_to_cpu(a->sys_image_guid));
	props->max_mr_size = le64_to_cpu(a->max_mr_size);
	props->page_size_cap = le64_to_cpu(a->page_size_cap);
	props->vendor_id = adev->pdev->vendor;
	props->vendor_part_id = le32_to_cpu(a->vendor_part_id);
	props->hw_ver = le32_to_cpu(a->hw_ver);
	props->max_qp = le32_to_cpu(a->max_qp);
	props->max_qp_wr = le32_to_cpu(a->max_qp_wr);
	props->max_send_sge = le32_to_cpu(a->max_sge);
	props->max_recv_sge = le32_to_cpu(a->max_sge);
	props->max_sge_rd = le32_to_cpu(a->max_sge);
	props->max_cq = le32_to_cpu(a->max_cq);
	props->max_cqe = le32_to_cpu(a->max_cqe);
	props->max_mr = le32_to_cpu(a->max_mr);
	props->max_pd = le32_to_cpu(a->max_pd);
	props->max_qp_rd_atom = min_t(u32, le32_to_cpu(a->max_qp_rd_atom),
				      AXON_MAX_RD_ATOMIC);
	props->max_qp_init_rd_atom = props->max_qp_rd_atom;
	props->max_pkeys = 1;
	if (adev->srq) {
		props->max_srq = le32_to_cpu(a->max_srq);
		props->max_srq_wr = le32_to_cpu(a->max_srq_wr);
		props->max_srq_sge = le16_to_cpu(a->max_srq_sge);
	}
	if (!adev->rdma) {
		/* only PDs: no MR, CQ or QP can be created */
		props->max_qp = 0;
		props->max_cq = 0;
		props->max_mr = 0;
		props->atomic_cap = IB_ATOMIC_NONE;
		return 0;
	}
	props->page_size_cap &= GENMASK_ULL(AXON_MR_MAX_PAGE_SHIFT,
					    AXON_MR_MIN_PAGE_SHIFT);
	props->max_qp = min_t(u32, props->max_qp, AXON_MAX_QPN - 1);
	props->max_qp_wr = min_t(u32, props->max_qp_wr, AXON_WQ_MAX_DEPTH);
	props->max_send_sge = min_t(u32, props->max_send_sge, AXON_MAX_SGE);
	props->max_recv_sge = props->max_send_sge;
	props->max_sge_rd = props->max_send_sge;
	/* one completion event per armed CQ must fit the CEQ */
	props->max_cq = adev->max_cq;
	props->max_cqe = min_t(u32, props->max_cqe, AXON_CQ_MAX_DEPTH);
	props->max_res_rd_atom = props->max_qp * props->max_qp_rd_atom;
	props->atomic_cap = IB_ATOMIC_HCA;
	if (adev->clock) {
		props->timestamp_mask = U64_MAX;
		props->hca_core_clock = AXON_CLOCK_HZ / 1000; /* in kHz */
	}
	if (adev->mcast) {
		props->max_mcast_grp = le32_to_cpu(a->max_mcast_grp);
		props->max_mcast_qp_attach = le32_to_cpu(a->max_mcast_qp_attach);
		props->max_total_mcast_qp_attach = props->max_mcast_grp *
						   props->max_mcast_qp_attach;
	}
	if (adev->ud)
		props->max_ah = AXON_MAX_AH;
	if (adev->xrc)
		props->device_cap_flags |= IB_DEVICE_XRC;
	/* on-demand paging MRs, with the kernel's ODP (axon_odp.c) */
	axon_odp_query_device(adev, props);
	if (adev->mw) {
		/* windows are MRs of the device: they share its slots */
		props->device_cap_flags |= IB_DEVICE_MEM_WINDOW |
					   IB_DEVICE_MEM_WINDOW_TYPE_2B;
		props->max_mw = props->max_mr;
	}
	/*
	 * What kernel storage and file ULPs look for before they register
	 * memory with REG_MR (nvme-rdma, rpcrdma, smc, smbdirect). max_sgl_rd
	 * stays 0: rdma_rw then READs into SGE lists on RoCE, which the
	 * device serves as well as through an MR, and uses MRs only where it
	 * must (iWARP) or is told to (rdma_rw's force_mr).
	 */
	props->max_fast_reg_page_list_len = axon_fr_max_pages(adev);
	if (props->max_fast_reg_page_list_len)
		props->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
	return 0;
}

static int axon_query_port(struct ib_device *ibdev, u32 port,
			   struct ib_port_attr *props)
{
	struct axon_dev *adev = to_adev(ibdev);
	struct net_device *netdev;
	struct axon_port_attr pa;
	bool link;
	int err;

	err = axon_cmd_query_port(&adev->aq, port, &pa);
	if (err)
		return err;

	/* props arrives zeroed from ib_query_port() */
	link = le32_to_cpu(pa.state) == AXON_PORT_ACTIVE;
	netdev = adev->netdev;
	props->state = link && netdev && netif_running(netdev) ?
		       IB_PORT_ACTIVE : IB_PORT_DOWN;
	props->phys_state = link ? IB_PORT_PHYS_STATE_LINK_UP :
				   IB_PORT_PHYS_STATE_DISABLED;
	props->max_mtu = axon_mtu_enum(le32_to_cpu(pa.max_mtu));
	props->active_mtu = axon_active_mtu(adev);
	/* sized by the device; the core allocates the table from it */
	props->gid_tbl_len = min_t(u32, le32_to_cpu(pa.gid_tbl_len),
				   AXON_MAX_GIDS);
	props->pkey_tbl_len = 1;
	props->max_msg_sz = le32_to_cpu(pa.max_msg_sz);
	props->lid = 0;
	props->lmc = 0;
	props->sm_lid = 0;
	props->max_vl_num = 1;
	axon_speed_width(le32_to_cpu(pa.speed_mbps), &props->active_speed,
			 &props->active_width);
	return 0;
}

static int axon_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			   u16 *pkey)
{
	if (index > 0)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static int axon_get_port_immutable(struct ib_device *ibdev, u32 port,
				   struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr;
	int err;

	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;

	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->core_cap_flags = AXON_PORT_CORE_CAPS;
	/* QP1 makes the port one the MAD layer, the CM and rdma_cm use */
	if (to_adev(ibdev)->gsi) {
		immutable->core_cap_flags |= RDMA_CORE_CAP_IB_MAD |
					     RDMA_CORE_CAP_IB_CM |
					     RDMA_CORE_CAP_AF_IB;
		immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	}
	return 0;
}

/* The RDMA core keeps the GID table; the device gets a copy for the wire. */
static int axon_add_gid(const struct ib_gid_attr *attr, void **context)
{
	struct axon_dev *adev = to_adev(attr->device);

	return axon_cmd_set_gid(&adev->aq, attr->port_num, attr->index,
				axon_gid_type(attr->gid_type), attr->gid.raw);
}

static int axon_del_gid(const struct ib_gid_attr *attr, void **context)
{
	struct axon_dev *adev = to_adev(attr->device);

	return axon_cmd_set_gid(&adev->aq, attr->port_num, attr->index,
				AXON_GID_TYPE_NONE, NULL);
}

static enum rdma_link_layer axon_get_link_layer(struct ib_device *ibdev,
						u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int axon_alloc_ucontext(struct ib_ucontext *ibuctx,
			       struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibuctx->device);
	struct axon_ucontext *uctx = to_auctx(ibuctx);
	const struct axon_dev_attr *a = &adev->attr;
	struct axon_alloc_ucontext_resp resp = {};
	struct axon_alloc_ucontext_req req = {};
	bool tail_zero;
	int err;

	/* Older, shorter requests are fine; longer ones must be zero-padded. */
	tail_zero = udata->inlen <= sizeof(req) ||
		    ib_is_udata_cleared(udata, sizeof(req),
					udata->inlen - sizeof(req));
	err = ib_copy_from_udata(&req, udata, min(sizeof(req), udata->inlen));
	if (err)
		return err;
	err = axon_check_ucontext_req(&req, tail_zero);
	if (err) {
		ibdev_dbg(&adev->ibdev,
			  "alloc_ucontext: comp_mask 0x%x reserved 0x%x%s: %d\n",
			  req.comp_mask, req.reserved,
			  tail_zero ? "" : ", unknown trailing udata", err);
		return err;
	}

	err = axon_alloc_uar(adev, uctx);
	if (err)
		return err;
	err = axon_expose_clock(adev, uctx);
	if (err)
		goto err_free_uar;
	resp.max_inline = min_t(u32, le32_to_cpu(a->max_inline),
				AXON_MAX_INLINE);
	resp.max_sge = min_t(u32, le32_to_cpu(a->max_sge), AXON_MAX_SGE);
	resp.max_qp_wr = min_t(u32, le32_to_cpu(a->max_qp_wr),
			       AXON_WQ_MAX_DEPTH);
	resp.max_cqe = min_t(u32, le32_to_cpu(a->max_cqe), AXON_CQ_MAX_DEPTH);
	if (uctx->db_entry)
		resp.db_mmap_key = rdma_user_mmap_get_offset(uctx->db_entry);
	if (adev->sq_dbrec)
		resp.comp_mask |= AXON_UCONTEXT_RESP_SQ_DBREC;
	if (uctx->clock_entry) {
		resp.comp_mask |= AXON_UCONTEXT_RESP_CLOCK;
		resp.clock_mmap_key =
			rdma_user_mmap_get_offset(uctx->clock_entry);
	}
	err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
	if (err)
		goto err_free_clock;
	return 0;

err_free_clock:
	if (uctx->clock_entry)
		rdma_user_mmap_entry_remove(uctx->clock_entry);
err_free_uar:
	axon_free_uar(adev, uctx);
	return err;
}

static void axon_dealloc_ucontext(struct ib_ucontext *ibuctx)
{
	struct axon_ucontext *uctx = to_auctx(ibuctx);

	if (uctx->clock_entry)
		rdma_user_mmap_entry_remove(uctx->clock_entry);
	axon_free_uar(to_adev(ibuctx->device), uctx);
}

/*
 * Having this op tells the RDMA core that a device can be unregistered
 * while user contexts are open: it destroys their objects (through the
 * usual destroy verbs), zaps the doorbell page mappings and leaves the
 * processes with a dead context. Queue memory stays mapped but is the
 * process's alone by then (see axon_mmap.c): nothing more to undo.
 */
static void axon_disassociate_ucontext(struct ib_ucontext *ibuctx)
{
}

static int axon_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibpd->device);
	struct axon_pd *pd = to_apd(ibpd);
	struct axon_alloc_pd_resp resp = {};
	int err;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(&adev->ibdev, "alloc_pd: non-zero udata\n");
		return -EINVAL;
	}

	err = axon_cmd_create_pd(&adev->aq, &pd->pdn);
	if (err)
		return err;

	if (udata && udata->outlen) {
		resp.pdn = pd->pdn;
		err = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
		if (err) {
			axon_cmd_destroy_pd(&adev->aq, pd->pdn);
			return err;
		}
	}
	return 0;
}

/*
 * The core cannot handle a failing destroy while it tears a context down,
 * so a device error is logged and the PD is considered gone.
 */
static int axon_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct axon_dev *adev = to_adev(ibpd->device);
	struct axon_pd *pd = to_apd(ibpd);
	int err;

	err = axon_cmd_destroy_pd(&adev->aq, pd->pdn);
	if (err)
		ibdev_err_ratelimited(&adev->ibdev,
				      "destroy pd %u failed: %d\n", pd->pdn,
				      err);
	return 0;
}

static const struct ib_device_ops axon_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = AXON_UVERBS_ABI_VERSION,

	.add_gid = axon_add_gid,
	.alloc_pd = axon_alloc_pd,
	.alloc_ucontext = axon_alloc_ucontext,
	.dealloc_pd = axon_dealloc_pd,
	.dealloc_ucontext = axon_dealloc_ucontext,
	.del_gid = axon_del_gid,
	.disassociate_ucontext = axon_disassociate_ucontext,
	.get_dev_fw_str = axon_get_dev_fw_str,
	.get_link_layer = axon_get_link_layer,
	.get_port_immutable = axon_get_port_immutable,
	.query_device = axon_query_device,
	.query_pkey = axon_query_pkey,
	.query_port = axon_query_port,

	INIT_RDMA_OBJ_SIZE(ib_pd, axon_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, axon_ucontext, ibucontext),
};

/* With AXON_CAP_RDMA: memory regions, CQs, QPs, mapped queues. */
static const struct ib_device_ops axon_rdma_ops = {
	.alloc_hw_port_stats = axon_alloc_hw_port_stats,
	.create_cq = axon_create_cq,
	.create_qp = axon_create_qp,
	.dereg_mr = axon_dereg_mr,
	.destroy_cq = axon_destroy_cq,
	.fill_res_cq_entry = axon_fill_res_cq_entry,
	.fill_res_mr_entry = axon_fill_res_mr_entry,
	.fill_res_qp_entry = axon_fill_res_qp_entry,
	.fill_res_qp_entry_raw = axon_fill_res_qp_entry_raw,
	.destroy_qp = axon_destroy_qp,
	.get_dma_mr = axon_get_dma_mr,
	.get_hw_stats = axon_get_hw_stats,
	.mmap = axon_mmap,
	.mmap_free = axon_mmap_free,
	.modify_qp = axon_modify_qp,
	.poll_cq = axon_poll_cq,
	.post_recv = axon_post_recv,
	.post_send = axon_post_send,
	.query_qp = axon_query_qp,
	.reg_user_mr = axon_reg_user_mr,
	.req_notify_cq = axon_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, axon_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_qp, axon_qp, ibqp),
};

/* With AXON_CAP_SRQ: shared receive queues. */
static const struct ib_device_ops axon_srq_ops = {
	.create_srq = axon_create_srq,
	.destroy_srq = axon_destroy_srq,
	.modify_srq = axon_modify_srq,
	.post_srq_recv = axon_post_srq_recv,
	.query_srq = axon_query_srq,

	INIT_RDMA_OBJ_SIZE(ib_srq, axon_srq, ibsrq),
};

/*
 * With AXON_CAP_XRC: XRC domains, the driver's numbers (axon_xrcd.c); XRC
 * QPs and SRQs are axon_create_qp()'s and axon_create_srq()'s.
 */
static const struct ib_device_ops axon_xrc_ops = {
	.alloc_xrcd = axon_alloc_xrcd,
	.dealloc_xrcd = axon_dealloc_xrcd,

	INIT_RDMA_OBJ_SIZE(ib_xrcd, axon_xrcd, ibxrcd),
};

/*
 * With AXON_CAP_UD: address handles (UD QPs are axon_create_qp()'s). A
 * user AH is built as a kernel one; the RDMA core resolves its MAC first.
 */
static const struct ib_device_ops axon_ud_ops = {
	.create_ah = axon_create_ah,
	.create_user_ah = axon_create_ah,
	.destroy_ah = axon_destroy_ah,

	INIT_RDMA_OBJ_SIZE(ib_ah, axon_ah, ibah),
};

/* With AXON_CAP_MCAST: UD QPs in multicast groups. */
static const struct ib_device_ops axon_mcast_ops = {
	.attach_mcast = axon_attach_mcast,
	.detach_mcast = axon_detach_mcast,
};

/* With AXON_CAP_MW: memory windows (bound by the provider's WQEs). */
static const struct ib_device_ops axon_mw_ops = {
	.alloc_mw = axon_alloc_mw,
	.dealloc_mw = axon_dealloc_mw,

	INIT_RDMA_OBJ_SIZE(ib_mw, axon_mw, ibmw),
};

/* With AXON_CAP_FAST_REG: fast-registration MRs, for kernel consumers. */
static const struct ib_device_ops axon_fast_reg_ops = {
	.alloc_mr = axon_alloc_mr,
	.map_mr_sg = axon_map_mr_sg,
};

/* With AXON_CAP_RESIZE_CQ. */
static const struct ib_device_ops axon_resize_cq_ops = {
	.resize_cq = axon_resize_cq,
};

/* With AXON_CAP_REREG_MR. */
static const struct ib_device_ops axon_rereg_mr_ops = {
	.rereg_user_mr = axon_rereg_user_mr,
};

/* With AXON_CAP_PEER_MR: memory regions on dma-bufs. */
static const struct ib_device_ops axon_peer_mr_ops = {
	.reg_user_mr_dmabuf = axon_reg_user_mr_dmabuf,
};

int axon_ib_register(struct axon_dev *adev)
{
	struct ib_device *ibdev = &adev->ibdev;
	int err;

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = 1;
	ibdev->node_guid = cpu_to_be64(le64_to_cpu(adev->attr.sys_image_guid));
	ibdev->dev.parent = &adev->pdev->dev;
	strscpy(ibdev->node_desc, "axon RoCEv2 SmartNIC", sizeof(ibdev->node_desc));
	ib_set_device_ops(ibdev, &axon_dev_ops);
	if (adev->rdma)
		ib_set_device_ops(ibdev, &axon_rdma_ops);
	if (adev->srq)
		ib_set_device_ops(ibdev, &axon_srq_ops);
	if (adev->xrc)
		ib_set_device_ops(ibdev, &axon_xrc_ops);
	if (adev->ud)
		ib_set_device_ops(ibdev, &axon_ud_ops);
	if (adev->mcast)
		ib_set_device_ops(ibdev, &axon_mcast_ops);
	if (adev->fast_reg)
		ib_set_device_ops(ibdev, &axon_fast_reg_ops);
	if (adev->peer_mr)
		ib_set_device_ops(ibdev, &axon_peer_mr_ops);
	if (adev->mw)
		ib_set_device_ops(ibdev, &axon_mw_ops);
	if (adev->resize_cq)
		ib_set_device_ops(ibdev, &axon_resize_cq_ops);
	if (adev->rereg_mr)
		ib_set_device_ops(ibdev, &axon_rereg_mr_ops);
	if (adev->counter_sets)
		ib_set_device_ops(ibdev, &axon_counter_ops);
	axon_odp_set_ops(adev);

	err = ib_device_set_netdev(ibdev, adev->netdev, AXON_PORT);
	if (err)
		return err;
	err = ib_register_device(ibdev, "axon%d", &adev->pdev->dev);
	if (err) {
		dev_err(&adev->pdev->dev, "ib_register_device failed: %d\n", err);
		/* an early failure keeps the netdev reference: drop it */
		ib_device_set_netdev(ibdev, NULL, AXON_PORT);
		return err;
	}
	mutex_lock(&adev->port_mutex);
	adev->registered = true;
	axon_port_update_locked(adev);
	mutex_unlock(&adev->port_mutex);
	return 0;
}

void axon_ib_unregister(struct axon_dev *adev)
{
	mutex_lock(&adev->port_mutex);
	adev->registered = false;
	mutex_unlock(&adev->port_mutex);
	ib_unregister_device(&adev->ibdev);
}

/*
 * The device failed: every open context gets DEVICE_FATAL and every CQ
 * is marked dead, so that its poller stops waiting for completions.
 */
void axon_ib_fatal_event(struct axon_dev *adev)
{
	struct ib_event event = {
		.device = &adev->ibdev,
		.event = IB_EVENT_DEVICE_FATAL,
	};

	axon_cqs_mark_dead(adev);
	mutex_lock(&adev->port_mutex);
	/* once: a fatal error and timed-out commands may both report it */
	if (adev->registered && !adev->fatal)
		ib_dispatch_event(&event);
	adev->fatal = true;
	mutex_unlock(&adev->port_mutex);
}
