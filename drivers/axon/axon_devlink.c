// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The PCI function's devlink instance. It lives from probe to remove and
 * brings the device's functions (struct axon_dev: the netdev and, with
 * the enable_roce parameter, the RDMA device) up and down: at probe and
 * remove, and around a reload (devlink dev reload, DRIVER_REINIT), which
 * applies the driverinit parameters: enable_roce, and the depths of the
 * event queues (event_eq_size: async events; io_eq_size: completion
 * events, one per CQ at most, so it limits the CQs).
 *
 * It says what the device is (devlink dev info) and keeps its health. The
 * fw_fatal reporter hears of a device that failed (a fatal error event,
 * or an admin command that timed out), dumps the device's state, and
 * recovers it by probing the function again: the reset of the probe
 * brings the device back, the old RDMA device (whose users got
 * IB_EVENT_DEVICE_FATAL) goes and a new one comes for new users. The
 * reprobe runs from a work item of the module's workqueue (axon_wq),
 * outside the devlink instance it replaces.
 */

#include <linux/device.h>
#include <linux/slab.h>
#include <net/devlink.h>

#include "axon.h"
#include "axon_dev_attr.h"

#if !IS_ENABLED(CONFIG_NET_DEVLINK)
#error "axon needs a kernel with devlink (CONFIG_NET_DEVLINK)"
#endif

struct axon_devlink {
	struct pci_dev *pdev;
	struct axon_dev *adev;		/* NULL while reloading, or if that failed */
	struct devlink_health_reporter *fw_fatal;
};

/* The device's functions, under the instance lock; NULL if they are down. */
static struct axon_dev *axon_devlink_adev(struct devlink *devlink,
					  struct netlink_ext_ack *extack)
{
	struct axon_dev *adev =
		((struct axon_devlink *)devlink_priv(devlink))->adev;

	if (!adev)
		NL_SET_ERR_MSG_MOD(extack,
				   "the device is down: its last reload failed");
	return adev;
}

static int axon_devlink_info_get(struct devlink *devlink,
				 struct devlink_info_req *req,
				 struct netlink_ext_ack *extack)
{
	struct axon_dev *adev = axon_devlink_adev(devlink, extack);
	char buf[32];
	u32 version;
	int err;

	if (!adev)
		return -ENODEV;
	version = axon_rd(adev, AXON_REG_VERSION);
	err = devlink_info_driver_name_put(req, AXON_DRV_NAME);
	if (err)
		return err;
	snprintf(buf, sizeof(buf), "%016llx",
		 le64_to_cpu(adev->attr.sys_image_guid));
	err = devlink_info_serial_number_put(req, buf);
	if (err)
		return err;
	snprintf(buf, sizeof(buf), "%04x", adev->pdev->device);
	err = devlink_info_version_fixed_put(req, DEVLINK_INFO_VERSION_GENERIC_ASIC_ID,
					     buf);
	if (err)
		return err;
	snprintf(buf, sizeof(buf), "%u", adev->pdev->revision);
	err = devlink_info_version_fixed_put(req, DEVLINK_INFO_VERSION_GENERIC_ASIC_REV,
					     buf);
	if (err)
		return err;
	axon_fw_string(adev->fw_version, buf, sizeof(buf));
	err = devlink_info_version_running_put(req, DEVLINK_INFO_VERSION_GENERIC_FW,
					       buf);
	if (err)
		return err;
	snprintf(buf, sizeof(buf), "%u.%u", AXON_VERSION_GET_MAJOR(version),
		 AXON_VERSION_GET_MINOR(version));
	return devlink_info_version_running_put(req, "fw.interface", buf);
}

/* report: the device may report failures (the instance is registered) */
static int axon_devlink_up(struct devlink *devlink, bool report)
{
	struct axon_devlink *priv = devlink_priv(devlink);
	union devlink_param_value roce, eq, ceq;
	struct axon_dev_params params;
	int err;

	err = devlink_param_driverinit_value_get(devlink,
						 DEVLINK_PARAM_GENERIC_ID_ENABLE_ROCE,
						 &roce) ?:
	      devlink_param_driverinit_value_get(devlink,
						 DEVLINK_PARAM_GENERIC_ID_EVENT_EQ_SIZE,
						 &eq) ?:
	      devlink_param_driverinit_value_get(devlink,
						 DEVLINK_PARAM_GENERIC_ID_IO_EQ_SIZE,
						 &ceq);
	if (err)
		return err;
	params = (struct axon_dev_params) {
		.roce = roce.vbool,
		.eq_depth = eq.vu32,
		.ceq_depth = ceq.vu32,
	};
	return axon_dev_up(priv->pdev, &params, report ? priv->fw_fatal : NULL,
			   &priv->adev);
}

static void axon_devlink_down(struct devlink *devlink)
{
	struct axon_devlink *priv = devlink_priv(devlink);

	if (priv->adev)
		axon_dev_down(priv->adev);
	priv->adev = NULL;
}

static int axon_devlink_reload_down(struct devlink *devlink, bool netns_change,
				    enum devlink_reload_action action,
				    enum devlink_reload_limit limit,
				    struct netlink_ext_ack *extack)
{
	if (netns_change) {
		NL_SET_ERR_MSG_MOD(extack,
				   "a reload into another namespace is not supported: use rdma system set netns and ip link set netns");
		return -EOPNOTSUPP;
	}
	axon_devlink_down(devlink);
	return 0;
}

static int axon_devlink_reload_up(struct devlink *devlink,
				  enum devlink_reload_action action,
				  enum devlink_reload_limit limit,
				  u32 *actions_performed,
				  struct netlink_ext_ack *extack)
{
	int err;

	*actions_performed = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT);
	err = axon_devlink_up(devlink, true);
	if (err)
		NL_SET_ERR_MSG_MOD(extack, "bringing the device up failed");
	return err;
}

static const struct devlink_ops axon_devlink_ops = {
	.info_get = axon_devlink_info_get,
	.reload_actions = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT),
	.reload_down = axon_devlink_reload_down,
	.reload_up = axon_devlink_reload_up,
};

/* An event queue's depth: what the device accepts (axon_regs_defs.h). */
static int axon_devlink_eq_size_validate(struct devlink *devlink, u32 id,
					 union devlink_param_value val,
					 struct netlink_ext_ack *extack)
{
	if (val.vu32 < AXON_QUEUE_MIN_DEPTH || val.vu32 > AXON_QUEUE_MAX_DEPTH) {
		NL_SET_ERR_MSG_MOD(extack,
				   "an event queue holds 2 to 4096 events");
		return -EINVAL;
	}
	return 0;
}

static const struct devlink_param axon_devlink_params[] = {
	DEVLINK_PARAM_GENERIC(ENABLE_ROCE, BIT(DEVLINK_PARAM_CMODE_DRIVERINIT),
			      NULL, NULL, NULL),
	DEVLINK_PARAM_GENERIC(EVENT_EQ_SIZE,
			      BIT(DEVLINK_PARAM_CMODE_DRIVERINIT), NULL, NULL,
			      axon_devlink_eq_size_validate),
	DEVLINK_PARAM_GENERIC(IO_EQ_SIZE, BIT(DEVLINK_PARAM_CMODE_DRIVERINIT),
			      NULL, NULL, axon_devlink_eq_size_validate),
};

/* The parameters' values before anyone sets them. */
static void axon_devlink_params_init(struct devlink *devlink)
{
	union devlink_param_value v = { .vbool = true };

	devlink_param_driverinit_value_set(devlink,
					   DEVLINK_PARAM_GENERIC_ID_ENABLE_ROCE,
					   v);
	v.vu32 = AXON_EQ_DEPTH;
	devlink_param_driverinit_value_set(devlink,
					   DEVLINK_PARAM_GENERIC_ID_EVENT_EQ_SIZE,
					   v);
	v.vu32 = AXON_CEQ_DEPTH;
	devlink_param_driverinit_value_set(devlink,
					   DEVLINK_PARAM_GENERIC_ID_IO_EQ_SIZE,
					   v);
}

/* The registers that tell why a device failed, and what it did last. */
static const struct {
	const char *name;
	enum axon_reg reg;
} axon_health_regs[] = {
	{ "status", AXON_REG_STATUS },
	{ "error", AXON_REG_ERROR },
	{ "ctrl", AXON_REG_CTRL },
	{ "caps", AXON_REG_CAPS },
	{ "admin_sq_head", AXON_REG_AQ_SQ_HEAD },
	{ "admin_cmds", AXON_REG_STAT_AQ_CMDS },
	{ "admin_errors", AXON_REG_STAT_AQ_ERRORS },
	{ "events", AXON_REG_STAT_EVENTS },
	{ "event_drops", AXON_REG_STAT_EQ_DROPS },
};

static int axon_health_put_state(struct axon_dev *adev,
				 struct devlink_fmsg *fmsg)
{
	size_t i;
	int err;

	err = devlink_fmsg_bool_pair_put(fmsg, "admin_failed",
					 READ_ONCE(adev->aq.failed));
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(axon_health_regs); i++) {
		err = devlink_fmsg_u32_pair_put(fmsg, axon_health_regs[i].name,
						axon_rd(adev,
							axon_health_regs[i].reg));
		if (err)
			return err;
	}
	/* the event queues as the parameters made them */
	return devlink_fmsg_u32_pair_put(fmsg, "event_eq_depth",
					 adev->eq.depth) ?:
	       devlink_fmsg_u32_pair_put(fmsg, "io_eq_depth",
					 adev->rdma ? adev->ceq.depth : 0) ?:
	       devlink_fmsg_u32_pair_put(fmsg, "max_cq", adev->max_cq);
}

/* The device a reporter's operation is about; NULL if it is down. */
static struct axon_dev *axon_reporter_adev(struct devlink_health_reporter *r,
					   struct netlink_ext_ack *extack)
{
	struct axon_devlink *priv = devlink_health_reporter_priv(r);

	if (!priv->adev)
		NL_SET_ERR_MSG_MOD(extack,
				   "the device is down: its last reload failed");
	return priv->adev;
}

static int axon_fw_fatal_dump(struct devlink_health_reporter *reporter,
			      struct devlink_fmsg *fmsg, void *priv_ctx,
			      struct netlink_ext_ack *extack)
{
	struct axon_dev *adev = axon_reporter_adev(reporter, extack);
	int err = 0;

	if (!adev)
		return -ENODEV;
	if (priv_ctx)
		err = devlink_fmsg_string_pair_put(fmsg, "reason", priv_ctx);
	return err ?: axon_health_put_state(adev, fmsg);
}

static int axon_fw_fatal_diagnose(struct devlink_health_reporter *reporter,
				  struct devlink_fmsg *fmsg,
				  struct netlink_ext_ack *extack)
{
	struct axon_dev *adev = axon_reporter_adev(reporter, extack);

	return adev ? axon_health_put_state(adev, fmsg) : -ENODEV;
}

struct axon_reprobe {
	struct work_struct work;
	struct device *dev;
};

static void axon_reprobe_work(struct work_struct *work)
{
	struct axon_reprobe *r = container_of(work, struct axon_reprobe, work);
	int err;

	err = device_reprobe(r->dev);
	if (err)
		dev_err(r->dev, "recovery: probing again failed: %d\n", err);
	put_device(r->dev);
	kfree(r);
}

static int axon_fw_fatal_recover(struct devlink_health_reporter *reporter,
				 void *priv_ctx, struct netlink_ext_ack *extack)
{
	struct axon_dev *adev = axon_reporter_adev(reporter, extack);
	struct axon_reprobe *r;

	if (!adev)
		return -ENODEV;
	if (!READ_ONCE(adev->fatal)) {
		NL_SET_ERR_MSG_MOD(extack, "the device has not failed");
		return -EINVAL;
	}
	if (READ_ONCE(adev->dying))
		return -ENODEV;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	INIT_WORK(&r->work, axon_reprobe_work);
	r->dev = get_device(&adev->pdev->dev);
	dev_info(&adev->pdev->dev, "recovery: probing the device again\n");
	queue_work(axon_wq, &r->work);
	return 0;
}

static const struct devlink_health_reporter_ops axon_fw_fatal_ops = {
	.name = "fw_fatal",
	.recover = axon_fw_fatal_recover,
	.dump = axon_fw_fatal_dump,
	.diagnose = axon_fw_fatal_diagnose,
};

/* After axon_ib_fatal_event(): from process context, once per failure. */
void axon_devlink_fatal(struct axon_dev *adev, const char *reason)
{
	struct devlink_health_reporter *fw_fatal = READ_ONCE(adev->fw_fatal);

	if (fw_fatal && !READ_ONCE(adev->dying))
		devlink_health_report(fw_fatal, reason, (void *)reason);
}

/* The instance, its parameters and reporter, and the device brought up. */
int axon_devlink_probe(struct pci_dev *pdev)
{
	struct axon_devlink *priv;
	struct devlink *devlink;
	int err;

	devlink = devlink_alloc(&axon_devlink_ops, sizeof(*priv), &pdev->dev);
	if (!devlink)
		return -ENOMEM;
	priv = devlink_priv(devlink);
	priv->pdev = pdev;
	err = devlink_params_register(devlink, axon_devlink_params,
				      ARRAY_SIZE(axon_devlink_params));
	if (err)
		goto err_free;
	axon_devlink_params_init(devlink);
	/* recovered at once, automatically (recover replaces the instance) */
	priv->fw_fatal = devlink_health_reporter_create(devlink,
							&axon_fw_fatal_ops,
							0, priv);
	if (IS_ERR(priv->fw_fatal)) {
		err = PTR_ERR(priv->fw_fatal);
		goto err_unregister_params;
	}
	err = axon_devlink_up(devlink, false);
	if (err)
		goto err_destroy_reporter;
	devlink_set_features(devlink, DEVLINK_F_RELOAD);
	pci_set_drvdata(pdev, devlink);
	devlink_register(devlink);
	/* a report needs a registered instance: the device's from now on */
	WRITE_ONCE(priv->adev->fw_fatal, priv->fw_fatal);
	return 0;

err_destroy_reporter:
	devlink_health_reporter_destroy(priv->fw_fatal);
err_unregister_params:
	devlink_params_unregister(devlink, axon_devlink_params,
				  ARRAY_SIZE(axon_devlink_params));
err_free:
	devlink_free(devlink);
	return err;
}

void axon_devlink_remove(struct pci_dev *pdev)
{
	struct devlink *devlink = pci_get_drvdata(pdev);
	struct axon_devlink *priv = devlink_priv(devlink);

	/* waits for devlink commands in flight, a reload among them */
	devlink_unregister(devlink);
	axon_devlink_down(devlink);
	devlink_health_reporter_destroy(priv->fw_fatal);
	devlink_params_unregister(devlink, axon_devlink_params,
				  ARRAY_SIZE(axon_devlink_params));
	devlink_free(devlink);
}
