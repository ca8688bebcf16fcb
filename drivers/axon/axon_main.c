// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon: PCI driver of the axon RoCEv2 RDMA SmartNIC.
 *
 * Probe order: map BAR 0, check the device identity, reset it, set up
 * the admin, event and completion event queues and MSI-X, enable the
 * device, read its attributes with admin commands, and register the RDMA
 * device.
 * Remove undoes it in reverse, stopping the device before any memory it
 * could DMA to is freed.
 */

#include <linux/iopoll.h>
#include <linux/module.h>

#include "axon.h"
#include "axon_cmds.h"
#include "axon_dev_attr.h"
#include "axon_odp.h"

#define AXON_RESET_TIMEOUT_US	(1000 * 1000)
#define AXON_ENABLE_TIMEOUT_US	(1000 * 1000)
#define AXON_REQUIRED_CAPS	(AXON_CAP_ADMIN_QUEUE | AXON_CAP_ASYNC_EVENTS | \
				 AXON_CAP_ETHERNET)

static const struct pci_device_id axon_pci_table[] = {
	{ PCI_DEVICE(AXON_PCI_VENDOR_ID, AXON_PCI_DEVICE_ID_NIC) },
	{ }
};
MODULE_DEVICE_TABLE(pci, axon_pci_table);

static int axon_check_identity(struct axon_dev *adev)
{
	u32 magic = axon_rd(adev, AXON_REG_MAGIC);
	u32 version = axon_rd(adev, AXON_REG_VERSION);
	u32 caps = axon_rd(adev, AXON_REG_CAPS);

	if (magic != AXON_DEV_MAGIC) {
		dev_err(&adev->pdev->dev, "bad magic 0x%08x\n", magic);
		return -ENODEV;
	}
	if (AXON_VERSION_GET_MAJOR(version) != AXON_DEV_VERSION_MAJOR) {
		dev_err(&adev->pdev->dev,
			"device interface %u.%u, driver supports %u.x\n",
			AXON_VERSION_GET_MAJOR(version),
			AXON_VERSION_GET_MINOR(version),
			AXON_DEV_VERSION_MAJOR);
		return -ENODEV;
	}
	if ((caps & AXON_REQUIRED_CAPS) != AXON_REQUIRED_CAPS) {
		dev_err(&adev->pdev->dev, "missing capabilities 0x%x\n", caps);
		return -ENODEV;
	}
	adev->fw_version = axon_rd(adev, AXON_REG_FW_VERSION);
	/* without RoCE (devlink's enable_roce): the Ethernet function only */
	adev->rdma = adev->roce && caps & AXON_CAP_RDMA;
	adev->peer_mr = adev->rdma && caps & AXON_CAP_PEER_MR;
	adev->srq = adev->rdma && caps & AXON_CAP_SRQ;
	adev->ud = adev->rdma && caps & AXON_CAP_UD;
	adev->mw = adev->rdma && caps & AXON_CAP_MW;
	adev->uc = adev->rdma && caps & AXON_CAP_UC;
	/* RUD without connection keys (interface 1.14) is not safe to offer */
	adev->rud = adev->rdma && caps & AXON_CAP_RUD &&
		    caps & AXON_CAP_RUD_KEYS;
	adev->gsi = adev->ud && caps & AXON_CAP_GSI;
	adev->mcast = adev->ud && caps & AXON_CAP_MCAST;
	adev->xrc = adev->rdma && adev->srq && caps & AXON_CAP_XRC;
	/* without the kernel's ODP (the debug kernel's) no ODP MR can exist */
	adev->odp = IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING) &&
		    adev->rdma && caps & AXON_CAP_ODP;
	adev->fast_reg = adev->rdma && caps & AXON_CAP_FAST_REG;
	adev->resize_cq = adev->rdma && caps & AXON_CAP_RESIZE_CQ;
	adev->rereg_mr = adev->rdma && caps & AXON_CAP_REREG_MR;
	adev->cq_pages = adev->rdma && caps & AXON_CAP_CQ_PAGES;
	adev->clock = adev->rdma && caps & AXON_CAP_CLOCK &&
		      pci_resource_len(adev->pdev, AXON_BAR_REGS) >=
		      AXON_BAR_REGS_SIZE;
	adev->qp_live = adev->rdma && caps & AXON_CAP_QP_LIVE;
	adev->wire_test = caps & AXON_CAP_WIRE_TEST;
	adev->counter_sets = adev->rdma && caps & AXON_CAP_COUNTER_SETS;
	adev->qp_cur_state = adev->rdma && caps & AXON_CAP_QP_CUR_STATE;
	adev->sq_dbrec = adev->rdma && caps & AXON_CAP_SQ_DBREC;
	adev->planes = 1;
	if (caps & AXON_CAP_PLANES) {
		u32 planes = axon_rd(adev, AXON_REG_PLANES);

		adev->planes = clamp_t(u32, AXON_PLANES_GET_COUNT(planes), 1,
				       AXON_MAX_PLANES);
	}
	adev->clock_phys = pci_resource_start(adev->pdev, AXON_BAR_REGS) +
			   AXON_CLOCK_PAGE;
	return 0;
}

/*
 * The doorbell pages: page 0 for the kernel, one per user context. A
 * device without usable doorbells gets no RDMA.
 */
static int axon_map_doorbells(struct axon_dev *adev)
{
	struct pci_dev *pdev = adev->pdev;
	int err;

	/* a process maps whole CPU pages: one must be one doorbell page */
	BUILD_BUG_ON(PAGE_SIZE != AXON_DB_PAGE_SIZE);
	adev->db_pages = axon_rd(adev, AXON_REG_DB_PAGES);
	if (adev->db_pages < 2 ||
	    pci_resource_len(pdev, AXON_BAR_DB) <
	    (resource_size_t)adev->db_pages * AXON_DB_PAGE_SIZE) {
		dev_warn(&pdev->dev,
			 "unusable doorbells (%u pages, BAR %llu bytes): no RDMA\n",
			 adev->db_pages,
			 (u64)pci_resource_len(pdev, AXON_BAR_DB));
		adev->rdma = false;
		return 0;
	}
	/* mapped until the driver unbinds: a reload finds it mapped */
	if (!pcim_iomap_table(pdev)[AXON_BAR_DB]) {
		err = pcim_iomap_regions(pdev, BIT(AXON_BAR_DB), AXON_DRV_NAME);
		if (err)
			return err;
	}
	adev->db = pcim_iomap_table(pdev)[AXON_BAR_DB];
	adev->db_phys = pci_resource_start(pdev, AXON_BAR_DB);
	return 0;
}

/* Stops all DMA and brings every register back to its reset value. */
static int axon_reset(struct axon_dev *adev)
{
	u32 ctrl;
	int err;

	axon_wr(adev, AXON_REG_CTRL, AXON_CTRL_RESET);
	err = readl_poll_timeout(adev->regs + AXON_REG_CTRL, ctrl,
				 !(ctrl & AXON_CTRL_RESET), 10,
				 AXON_RESET_TIMEOUT_US);
	if (err)
		dev_err(&adev->pdev->dev, "reset did not complete\n");
	return err;
}

static int axon_enable(struct axon_dev *adev)
{
	u32 status;
	int err;

	axon_wr(adev, AXON_REG_CTRL, AXON_CTRL_ENABLE);
	err = readl_poll_timeout(adev->regs + AXON_REG_STATUS, status,
				 status & (AXON_STATUS_READY | AXON_STATUS_FATAL) ||
				 axon_rd(adev, AXON_REG_ERROR), 10,
				 AXON_ENABLE_TIMEOUT_US);
	if (err || !(status & AXON_STATUS_READY)) {
		dev_err(&adev->pdev->dev,
			"device refused to start: status 0x%x error %u\n",
			status, axon_rd(adev, AXON_REG_ERROR));
		return -EIO;
	}
	return 0;
}

static int axon_setup_irqs(struct axon_dev *adev)
{
	struct pci_dev *pdev = adev->pdev;
	int err;

	err = pci_alloc_irq_vectors(pdev, AXON_MSIX_NUM_VECTORS,
				    AXON_MSIX_NUM_VECTORS, PCI_IRQ_MSIX);
	if (err < 0) {
		dev_err(&pdev->dev, "cannot allocate MSI-X vectors: %d\n", err);
		return err;
	}
	/* enabled only while an admin command's waiter sleeps */
	err = request_irq(pci_irq_vector(pdev, AXON_MSIX_ADMIN), axon_admin_irq,
			  IRQF_NO_AUTOEN, "axon-admin", &adev->aq);
	if (err)
		goto err_free_vectors;
	axon_admin_set_irq(&adev->aq, pci_irq_vector(pdev, AXON_MSIX_ADMIN));
	err = request_threaded_irq(pci_irq_vector(pdev, AXON_MSIX_ASYNC), NULL,
				   axon_eq_irq_thread, IRQF_ONESHOT,
				   "axon-async", adev);
	if (err)
		goto err_free_admin_irq;
	/* completion events call consumers' handlers from the hard IRQ */
	err = request_irq(pci_irq_vector(pdev, AXON_MSIX_COMP), axon_ceq_irq,
			  0, "axon-comp", adev);
	if (err)
		goto err_free_async_irq;
	return 0;

err_free_async_irq:
	free_irq(pci_irq_vector(pdev, AXON_MSIX_ASYNC), adev);
err_free_admin_irq:
	axon_admin_set_irq(&adev->aq, 0);
	free_irq(pci_irq_vector(pdev, AXON_MSIX_ADMIN), &adev->aq);
err_free_vectors:
	pci_free_irq_vectors(pdev);
	return err;
}

static void axon_free_irqs(struct axon_dev *adev)
{
	struct pci_dev *pdev = adev->pdev;

	free_irq(pci_irq_vector(pdev, AXON_MSIX_COMP), adev);
	free_irq(pci_irq_vector(pdev, AXON_MSIX_ASYNC), adev);
	axon_admin_set_irq(&adev->aq, 0);
	free_irq(pci_irq_vector(pdev, AXON_MSIX_ADMIN), &adev->aq);
	pci_free_irq_vectors(pdev);
}

/*
 * Teardown: no async event may run any more (it would touch the netdev
 * and ib_device being taken down).
 */
static void axon_quiesce_events(struct axon_dev *adev)
{
	WRITE_ONCE(adev->events_off, true);
	synchronize_irq(pci_irq_vector(adev->pdev, AXON_MSIX_ASYNC));
}

/*
 * An admin command timed out: the device is marked failed and answers no
 * command any more. Tell the users as a fatal error event would, from a
 * work item: the waiter may hold locks of the verbs layer.
 */
static void axon_admin_timed_out(struct axon_admin_queue *aq)
{
	struct axon_dev *adev = container_of(aq, struct axon_dev, aq);

	schedule_work(&adev->fatal_work);
}

static void axon_fatal_work(struct work_struct *work)
{
	struct axon_dev *adev = container_of(work, struct axon_dev,
					     fatal_work);

	/* teardown has its own way of telling the users */
	if (READ_ONCE(adev->events_off))
		return;
	axon_set_link(adev, false);
	axon_ib_fatal_event(adev);
	axon_devlink_fatal(adev, "an admin command timed out");
}

static int axon_query_attrs(struct axon_dev *adev)
{
	struct axon_port_attr port;
	int err;

	err = axon_cmd_query_device(&adev->aq, &adev->attr);
	if (err)
		return err;
	if (le32_to_cpu(adev->attr.num_ports) != 1) {
		dev_err(&adev->pdev->dev, "unsupported port count %u\n",
			le32_to_cpu(adev->attr.num_ports));
		return -EIO;
	}
	err = axon_cmd_query_port(&adev->aq, AXON_PORT, &port);
	if (err)
		return err;
	/* the device holds back events that find the CEQ full: no limit here */
	adev->max_cq = adev->rdma ? le32_to_cpu(adev->attr.max_cq) : 0;
	adev->link_up = le32_to_cpu(port.state) == AXON_PORT_ACTIVE;
	adev->max_mtu = axon_mtu_enum(le32_to_cpu(port.max_mtu));
	adev->port_state = IB_PORT_DOWN;
	return 0;
}

/*
 * Kernel consumers reach memory through the DMA MR, which covers bus
 * addresses below 2^axon_dma_mr_bits() only (max_mr_size): the DMA mask
 * keeps their mappings there, where a 64-bit mask would let them land
 * beyond it. The rings mapped so far are the device's own, addressed in
 * 64 bits without an MR, and stay valid.
 */
static int axon_limit_dma(struct axon_dev *adev)
{
	u32 bits = axon_dma_mr_bits(adev);
	int err;

	if (!adev->rdma)
		return 0;
	err = dma_set_mask_and_coherent(&adev->pdev->dev, DMA_BIT_MASK(bits));
	if (err)
		dev_err(&adev->pdev->dev,
			"no DMA mask for the DMA MR's %u address bits: %d\n",
			bits, err);
	return err;
}

/*
 * Brings the device's functions up: the Ethernet netdev, and with roce
 * the RDMA device; at probe, and again at each devlink reload. A failed
 * device is told through fw_fatal (devlink health), if given.
 */
int axon_dev_up(struct pci_dev *pdev, const struct axon_dev_params *params,
		struct devlink_health_reporter *fw_fatal, struct axon_dev **out)
{
	struct axon_dev *adev;
	int err;

	/* the DMA MR's narrower mask is set once the device has said it */
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		return err;
	/*
	 * The device takes page lists, not scatter lists: ib_umem_get() may
	 * merge contiguous pages into segments of any size (64 KiB by
	 * default), so mapping and unmapping a large MR walks fewer entries.
	 */
	dma_set_max_seg_size(&pdev->dev, UINT_MAX);
	adev = ib_alloc_device(axon_dev, ibdev);
	if (!adev)
		return -ENOMEM;
	adev->pdev = pdev;
	adev->roce = params->roce;
	adev->fw_fatal = fw_fatal;
	adev->regs = pcim_iomap_table(pdev)[AXON_BAR_REGS];
	mutex_init(&adev->port_mutex);
	mutex_init(&adev->odp_mutex);
	spin_lock_init(&adev->stats_lock);
	spin_lock_init(&adev->orphan_lock);
	INIT_LIST_HEAD(&adev->orphan_umems);
	ida_init(&adev->uar_ida);
	ida_init(&adev->xrcd_ida);
	xa_init(&adev->cqs);
	xa_init(&adev->qps);
	xa_init(&adev->srqs);
	xa_init(&adev->odp_mrs);
	INIT_WORK(&adev->fatal_work, axon_fatal_work);
	adev->aq.timed_out = axon_admin_timed_out;
	err = axon_check_identity(adev);
	if (err)
		goto err_dealloc;
	if (adev->rdma) {
		err = axon_map_doorbells(adev);
		if (err)
			goto err_dealloc;
	}
	err = axon_reset(adev);
	if (err)
		goto err_dealloc;
	err = axon_admin_init(&adev->aq, &pdev->dev, adev->regs,
			      AXON_AQ_DEPTH);
	if (err)
		goto err_dealloc;
	err = axon_eq_init(adev, &adev->eq, AXON_REG_EQ_BASE_LO,
			   params->eq_depth);
	if (err)
		goto err_destroy_admin;
	if (adev->rdma) {
		err = axon_eq_init(adev, &adev->ceq, AXON_REG_CEQ_BASE_LO,
				   params->ceq_depth);
		if (err)
			goto err_destroy_eq;
	}
	err = axon_setup_irqs(adev);
	if (err)
		goto err_destroy_ceq;
	err = axon_enable(adev);
	if (err)
		goto err_stop_device;
	err = axon_query_attrs(adev);
	if (err)
		goto err_stop_device;
	err = axon_limit_dma(adev);
	if (err)
		goto err_stop_device;
	err = axon_netdev_create(adev);
	if (err)
		goto err_stop_device;
	if (adev->roce) {
		err = axon_ib_register(adev);
		if (err)
			goto err_destroy_netdev;
		axon_nl_dev_add(adev);
	}
	*out = adev;
	return 0;

err_destroy_netdev:
	axon_quiesce_events(adev);
	cancel_work_sync(&adev->fatal_work);
	axon_netdev_destroy(adev);
err_stop_device:
	axon_reset(adev);
	axon_free_irqs(adev);
err_destroy_ceq:
	if (adev->rdma)
		axon_eq_destroy(&adev->ceq);
err_destroy_eq:
	axon_eq_destroy(&adev->eq);
err_destroy_admin:
	axon_admin_destroy(&adev->aq);
err_dealloc:
	cancel_work_sync(&adev->fatal_work);
	ib_dealloc_device(&adev->ibdev);
	return err;
}

/* Takes down what axon_dev_up() brought up, and frees adev. */
void axon_dev_down(struct axon_dev *adev)
{
	/* waits for a netlink request using the device */
	if (adev->roce)
		axon_nl_dev_del(adev);
	axon_quiesce_events(adev);
	/* a fatal work running now is done before the netdev goes */
	cancel_work_sync(&adev->fatal_work);
	/*
	 * Processes polling their CQs learn that no completion will come
	 * (an rmmod or hot-unplug under traffic would leave them spinning
	 * on an empty ring), before their objects are destroyed.
	 */
	WRITE_ONCE(adev->dying, true);
	axon_cqs_mark_dead(adev);
	if (adev->roce)
		axon_ib_unregister(adev);
	axon_netdev_destroy(adev);
	axon_reset(adev);
	axon_release_orphan_umems(adev);
	axon_free_irqs(adev);
	if (adev->rdma)
		axon_eq_destroy(&adev->ceq);
	axon_eq_destroy(&adev->eq);
	axon_admin_destroy(&adev->aq);
	WARN_ON(!xa_empty(&adev->cqs) || !xa_empty(&adev->qps) ||
		!xa_empty(&adev->srqs) || !xa_empty(&adev->odp_mrs));
	ida_destroy(&adev->uar_ida);
	ida_destroy(&adev->xrcd_ida);
	/* queued by a command that timed out during the teardown */
	cancel_work_sync(&adev->fatal_work);
	ib_dealloc_device(&adev->ibdev);
}

static int axon_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	int err;

	err = pcim_enable_device(pdev);
	if (err)
		return err;
	err = pcim_iomap_regions(pdev, BIT(AXON_BAR_REGS), AXON_DRV_NAME);
	if (err)
		return err;
	pci_set_master(pdev);
	return axon_devlink_probe(pdev);
}

static void axon_remove(struct pci_dev *pdev)
{
	axon_devlink_remove(pdev);
}

static struct pci_driver axon_pci_driver = {
	.name = AXON_DRV_NAME,
	.id_table = axon_pci_table,
	.probe = axon_probe,
	.remove = axon_remove,
};

struct workqueue_struct *axon_wq;

static int __init axon_init(void)
{
	int err;

	axon_wq = alloc_workqueue("axon", 0, 0);
	if (!axon_wq)
		return -ENOMEM;
	err = axon_odp_init();
	if (err)
		goto err_destroy_wq;
	err = axon_nl_init();
	if (err)
		goto err_odp_exit;
	err = pci_register_driver(&axon_pci_driver);
	if (err)
		goto err_nl_exit;
	return 0;

err_nl_exit:
	axon_nl_exit();
err_odp_exit:
	axon_odp_exit();
err_destroy_wq:
	destroy_workqueue(axon_wq);
	return err;
}
module_init(axon_init);

/* a recovery queued by now finds no driver to probe the device again */
static void __exit axon_exit(void)
{
	pci_unregister_driver(&axon_pci_driver);
	axon_nl_exit();
	axon_odp_exit();
	destroy_workqueue(axon_wq);
}
module_exit(axon_exit);

MODULE_AUTHOR("axon developers");
MODULE_DESCRIPTION("axon RoCEv2 RDMA SmartNIC driver");
MODULE_LICENSE("Dual BSD/GPL");
