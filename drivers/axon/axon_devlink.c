// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon's devlink instance: what the device is (devlink dev info), and its
 * health. The fw_fatal reporter hears of a device that failed (a fatal
 * error event, or an admin command that timed out), dumps the device's
 * state, and recovers it by probing the function again: the reset of the
 * probe brings the device back, the old RDMA device (whose users got
 * IB_EVENT_DEVICE_FATAL) goes and a new one comes for new users. The
 * reprobe runs from a work item of the module's workqueue (axon_wq),
 * outside the devlink instance and the device data it replaces.
 */

#include <linux/device.h>
#include <linux/slab.h>
#include <net/devlink.h>

#include "axon.h"
#include "axon_dev_attr.h"

struct axon_devlink {
	struct axon_dev *adev;
};

static struct axon_dev *axon_devlink_adev(struct devlink *devlink)
{
	return ((struct axon_devlink *)devlink_priv(devlink))->adev;
}

static int axon_devlink_info_get(struct devlink *devlink,
				 struct devlink_info_req *req,
				 struct netlink_ext_ack *extack)
{
	struct axon_dev *adev = axon_devlink_adev(devlink);
	u32 version = axon_rd(adev, AXON_REG_VERSION);
	char buf[32];
	int err;

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

static const struct devlink_ops axon_devlink_ops = {
	.info_get = axon_devlink_info_get,
};

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
	return 0;
}

static int axon_fw_fatal_dump(struct devlink_health_reporter *reporter,
			      struct devlink_fmsg *fmsg, void *priv_ctx,
			      struct netlink_ext_ack *extack)
{
	struct axon_dev *adev = devlink_health_reporter_priv(reporter);
	int err = 0;

	if (priv_ctx)
		err = devlink_fmsg_string_pair_put(fmsg, "reason", priv_ctx);
	return err ?: axon_health_put_state(adev, fmsg);
}

static int axon_fw_fatal_diagnose(struct devlink_health_reporter *reporter,
				  struct devlink_fmsg *fmsg,
				  struct netlink_ext_ack *extack)
{
	return axon_health_put_state(devlink_health_reporter_priv(reporter),
				     fmsg);
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
	struct axon_dev *adev = devlink_health_reporter_priv(reporter);
	struct axon_reprobe *r;

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
	if (adev->fw_fatal && !READ_ONCE(adev->dying))
		devlink_health_report(adev->fw_fatal, reason, (void *)reason);
}

int axon_devlink_init(struct axon_dev *adev)
{
	struct axon_devlink *priv;

	adev->devlink = devlink_alloc(&axon_devlink_ops, sizeof(*priv),
				      &adev->pdev->dev);
	if (!adev->devlink)
		return -ENOMEM;
	priv = devlink_priv(adev->devlink);
	priv->adev = adev;
	/* recovered at once, automatically (recover replaces the instance) */
	adev->fw_fatal = devlink_health_reporter_create(adev->devlink,
							&axon_fw_fatal_ops,
							0, adev);
	if (IS_ERR(adev->fw_fatal)) {
		int err = PTR_ERR(adev->fw_fatal);

		adev->fw_fatal = NULL;
		devlink_free(adev->devlink);
		adev->devlink = NULL;
		return err;
	}
	devlink_register(adev->devlink);
	return 0;
}

void axon_devlink_fini(struct axon_dev *adev)
{
	if (!adev->devlink)
		return;
	devlink_unregister(adev->devlink);
	devlink_health_reporter_destroy(adev->fw_fatal);
	adev->fw_fatal = NULL;
	devlink_free(adev->devlink);
	adev->devlink = NULL;
}
