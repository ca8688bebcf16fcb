// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The axon generic netlink family (include/uapi/axon/axon_netlink.h), for
 * axonctl: a device and its wire test settings, and its QPs with the
 * device's live transport state and counters.
 *
 * Requests are checked by the family's policy, strictly; what the policy
 * cannot say (a device by that name, a QP by that number) is checked here
 * and refused with an extended ack. A request runs under axon_nl_lock,
 * and a device leaves the list under it before its removal starts: a
 * device found in the list stays whole until the request is done.
 *
 * What costs an admin command is for CAP_NET_ADMIN only: QP_GET (an RC
 * QP's PSNs are what a forger must guess; RUD's keys are in no answer;
 * each QP answered takes a QUERY_QP_LIVE), refused by genetlink
 * before it gets here, and DEV_GET's wire test settings (a WIRE_TEST),
 * left out for other users. So no unprivileged request reaches the
 * device's admin queue.
 */

#include <linux/capability.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>

#include <axon/axon_netlink.h>

#include "axon.h"
#include "axon_cmds.h"
#include "axon_dev_attr.h"
#include "axon_qp_attr.h"

static DEFINE_MUTEX(axon_nl_lock);
static LIST_HEAD(axon_nl_devs);

void axon_nl_dev_add(struct axon_dev *adev)
{
	mutex_lock(&axon_nl_lock);
	list_add_tail(&adev->nl_node, &axon_nl_devs);
	mutex_unlock(&axon_nl_lock);
}

void axon_nl_dev_del(struct axon_dev *adev)
{
	mutex_lock(&axon_nl_lock);
	list_del(&adev->nl_node);
	mutex_unlock(&axon_nl_lock);
}

static struct genl_family axon_nl_family;

static struct netlink_range_validation axon_nl_qpn_range = {
	.max = AXON_QPN_MASK,
};

/* What a request may carry; the other attributes are answers only. */
static const struct nla_policy axon_nl_policy[AXON_NL_ATTR_MAX + 1] = {
	[AXON_NL_ATTR_DEV_NAME] = { .type = NLA_NUL_STRING,
				    .len = IB_DEVICE_NAME_MAX - 1 },
	[AXON_NL_ATTR_WIRE_DROP_EVERY] = { .type = NLA_U32 },
	[AXON_NL_ATTR_WIRE_REORDER_EVERY] = { .type = NLA_U32 },
	[AXON_NL_ATTR_QPN] = NLA_POLICY_FULL_RANGE(NLA_U32,
						   &axon_nl_qpn_range),
};

/* True if the request lacks attribute type: refused, naming it. */
static bool axon_nl_missing(struct netlink_ext_ack *extack,
			    struct nlattr **attrs, u32 type)
{
	if (!NL_REQ_ATTR_CHECK(extack, NULL, attrs, type))
		return false;
	if (type == AXON_NL_ATTR_QPN)
		NL_SET_ERR_MSG(extack,
			       "missing the QP number (AXON_NL_ATTR_QPN)");
	else
		NL_SET_ERR_MSG(extack,
			       "missing the device name (AXON_NL_ATTR_DEV_NAME)");
	return true;
}

/* The device a request names, under axon_nl_lock. */
static struct axon_dev *axon_nl_find(struct nlattr **attrs,
				     struct netlink_ext_ack *extack)
{
	struct nlattr *name = attrs[AXON_NL_ATTR_DEV_NAME];
	struct axon_dev *adev;

	lockdep_assert_held(&axon_nl_lock);
	list_for_each_entry(adev, &axon_nl_devs, nl_node)
		if (!nla_strcmp(name, dev_name(&adev->ibdev.dev)))
			return adev;
	NL_SET_ERR_MSG_ATTR(extack, name, "no axon device by this name");
	return NULL;
}

/* @admin: the requester has CAP_NET_ADMIN; only then the wire test. */
static int axon_nl_put_dev(struct sk_buff *msg, struct axon_dev *adev,
			   bool admin)
{
	u32 version = axon_rd(adev, AXON_REG_VERSION);
	u32 drop = 0, reorder = 0, qps = 0;
	char buf[IFNAMSIZ];
	struct axon_qp *qp;
	unsigned long qpn;

	if (nla_put_string(msg, AXON_NL_ATTR_DEV_NAME,
			   dev_name(&adev->ibdev.dev)) ||
	    nla_put_u32(msg, AXON_NL_ATTR_DEV_INDEX, adev->ibdev.index) ||
	    nla_put_string(msg, AXON_NL_ATTR_BUS_NAME, pci_name(adev->pdev)) ||
	    nla_put_u32(msg, AXON_NL_ATTR_CAPS,
			axon_rd(adev, AXON_REG_CAPS)) ||
	    nla_put_u64_64bit(msg, AXON_NL_ATTR_NODE_GUID,
			      le64_to_cpu(adev->attr.sys_image_guid),
			      AXON_NL_ATTR_PAD))
		return -EMSGSIZE;
	axon_fw_string(adev->fw_version, buf, sizeof(buf));
	if (nla_put_string(msg, AXON_NL_ATTR_FW_VERSION, buf))
		return -EMSGSIZE;
	snprintf(buf, sizeof(buf), "%u.%u", AXON_VERSION_GET_MAJOR(version),
		 AXON_VERSION_GET_MINOR(version));
	if (nla_put_string(msg, AXON_NL_ATTR_IF_VERSION, buf))
		return -EMSGSIZE;
	if (adev->netdev) {
		/* a rename holds the RTNL */
		rtnl_lock();
		strscpy(buf, adev->netdev->name, sizeof(buf));
		rtnl_unlock();
		if (nla_put_string(msg, AXON_NL_ATTR_NETDEV_NAME, buf))
			return -EMSGSIZE;
	}
	if (READ_ONCE(adev->fatal) &&
	    nla_put_flag(msg, AXON_NL_ATTR_DEV_FATAL))
		return -EMSGSIZE;
	xa_for_each(&adev->qps, qpn, qp)
		qps++;
	if (nla_put_u32(msg, AXON_NL_ATTR_QP_COUNT, qps))
		return -EMSGSIZE;
	if (admin && adev->wire_test &&
	    !axon_cmd_wire_test(&adev->aq, 0, &drop, &reorder) &&
	    (nla_put_u32(msg, AXON_NL_ATTR_WIRE_DROP_EVERY, drop) ||
	     nla_put_u32(msg, AXON_NL_ATTR_WIRE_REORDER_EVERY, reorder)))
		return -EMSGSIZE;
	return 0;
}

static int axon_nl_fill_dev(struct sk_buff *msg, struct axon_dev *adev,
			    bool admin, u32 portid, u32 seq, int flags)
{
	void *hdr = genlmsg_put(msg, portid, seq, &axon_nl_family, flags,
				AXON_NL_CMD_DEV_GET);

	if (!hdr)
		return -EMSGSIZE;
	if (axon_nl_put_dev(msg, adev, admin)) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

static int axon_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct axon_dev *adev;
	struct sk_buff *msg;
	int err;

	if (axon_nl_missing(info->extack, info->attrs, AXON_NL_ATTR_DEV_NAME))
		return -EINVAL;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&axon_nl_lock);
	adev = axon_nl_find(info->attrs, info->extack);
	err = adev ? axon_nl_fill_dev(msg, adev,
				      netlink_capable(skb, CAP_NET_ADMIN),
				      info->snd_portid, info->snd_seq, 0) :
		     -ENODEV;
	mutex_unlock(&axon_nl_lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: the devices already sent */
static int axon_nl_dev_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	bool admin = netlink_capable(cb->skb, CAP_NET_ADMIN);
	struct axon_dev *adev;
	long i = 0;

	mutex_lock(&axon_nl_lock);
	list_for_each_entry(adev, &axon_nl_devs, nl_node) {
		if (i++ < cb->args[0])
			continue;
		if (axon_nl_fill_dev(skb, adev, admin,
				     NETLINK_CB(cb->skb).portid,
				     cb->nlh->nlmsg_seq, NLM_F_MULTI))
			break;
		cb->args[0] = i;
	}
	mutex_unlock(&axon_nl_lock);
	return skb->len;
}

static int axon_nl_dev_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *drop_attr = info->attrs[AXON_NL_ATTR_WIRE_DROP_EVERY];
	struct nlattr *reorder_attr =
		info->attrs[AXON_NL_ATTR_WIRE_REORDER_EVERY];
	u32 mask = 0, drop = 0, reorder = 0;
	struct axon_dev *adev;
	int err;

	if (axon_nl_missing(info->extack, info->attrs, AXON_NL_ATTR_DEV_NAME))
		return -EINVAL;
	if (!drop_attr && !reorder_attr) {
		NL_SET_ERR_MSG(info->extack,
			       "nothing to set: give a wire drop or reorder interval");
		return -EINVAL;
	}
	if (drop_attr) {
		mask |= AXON_WIRE_TEST_DROP;
		drop = nla_get_u32(drop_attr);
	}
	if (reorder_attr) {
		mask |= AXON_WIRE_TEST_REORDER;
		reorder = nla_get_u32(reorder_attr);
	}
	mutex_lock(&axon_nl_lock);
	adev = axon_nl_find(info->attrs, info->extack);
	if (!adev) {
		err = -ENODEV;
	} else if (!adev->wire_test) {
		NL_SET_ERR_MSG(info->extack,
			       "the device has no wire test (AXON_CAP_WIRE_TEST)");
		err = -EOPNOTSUPP;
	} else {
		err = axon_cmd_wire_test(&adev->aq, mask, &drop, &reorder);
		if (err)
			NL_SET_ERR_MSG(info->extack,
				       "the device failed the WIRE_TEST command");
	}
	mutex_unlock(&axon_nl_lock);
	return err;
}

/* What the driver knows of a QP, taken while the QP cannot go. */
struct axon_nl_qp {
	u32 qpn;
	enum ib_qp_type type;
	enum ib_qp_state state;
	u32 dest_qpn;
	u32 sq_depth;
	u32 rq_depth;			/* 0: an SRQ's, or XRC: none */
	bool kernel;
};

/* The QP numbered *qpn or the next one; false if there is none. */
static bool axon_nl_qp_find(struct axon_dev *adev, unsigned long *qpn,
			    bool exact, struct axon_nl_qp *out)
{
	struct axon_qp *qp;

	/* destroy_qp takes the QP out of the table before it frees it */
	xa_lock(&adev->qps);
	qp = exact ? xa_load(&adev->qps, *qpn) :
		     xa_find(&adev->qps, qpn, ULONG_MAX, XA_PRESENT);
	if (qp) {
		*out = (struct axon_nl_qp) {
			.qpn = qp->qpn,
			.type = qp->ibqp.qp_type,
			.state = READ_ONCE(qp->state),
			.dest_qpn = READ_ONCE(qp->dest_qpn),
			.sq_depth = qp->sq.depth,
			.rq_depth = axon_qp_has_rq(qp) ? qp->rq.depth : 0,
			.kernel = qp->kernel,
		};
	}
	xa_unlock(&adev->qps);
	return qp;
}

static const char *axon_nl_qp_type(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_RC:
		return "RC";
	case IB_QPT_UC:
		return "UC";
	case IB_QPT_UD:
		return "UD";
	case IB_QPT_GSI:
		return "GSI";
	case IB_QPT_XRC_INI:
		return "XRC_INI";
	case IB_QPT_XRC_TGT:
		return "XRC_TGT";
	case IB_QPT_DRIVER:		/* axon's only driver QP type */
		return "RUD";
	default:
		return "?";
	}
}

static const char *axon_nl_ib_state(enum ib_qp_state state)
{
	static const char *const names[] = {
		[IB_QPS_RESET] = "RESET", [IB_QPS_INIT] = "INIT",
		[IB_QPS_RTR] = "RTR", [IB_QPS_RTS] = "RTS",
		[IB_QPS_SQD] = "SQD", [IB_QPS_SQE] = "SQE",
		[IB_QPS_ERR] = "ERR",
	};

	return state < ARRAY_SIZE(names) && names[state] ? names[state] : "?";
}

static int axon_nl_put_live(struct sk_buff *msg, const struct axon_qp_live *l)
{
	const __le64 *counter = (const __le64 *)&l->cnt;
	struct nlattr *nest;
	int i;

	/* the counters, in the order of both */
	BUILD_BUG_ON(sizeof(l->cnt) !=
		     8 * (AXON_NL_LIVE_REMOTE_ERRS - AXON_NL_LIVE_TX_PKTS + 1));
	nest = nla_nest_start(msg, AXON_NL_ATTR_QP_LIVE);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(msg, AXON_NL_LIVE_STATE,
			   axon_qp_state_name(le32_to_cpu(l->state))) ||
	    nla_put_u32(msg, AXON_NL_LIVE_SQ_PSN, le32_to_cpu(l->sq_psn)) ||
	    nla_put_u32(msg, AXON_NL_LIVE_UNA_PSN, le32_to_cpu(l->una_psn)) ||
	    nla_put_u32(msg, AXON_NL_LIVE_PSN_HI, le32_to_cpu(l->psn_hi)) ||
	    nla_put_u32(msg, AXON_NL_LIVE_EPSN, le32_to_cpu(l->epsn)) ||
	    nla_put_u32(msg, AXON_NL_LIVE_MSN, le32_to_cpu(l->msn)) ||
	    nla_put_u32(msg, AXON_NL_LIVE_SEND_WINDOW,
			(u16)(le16_to_cpu(l->sq_fetched) -
			      le16_to_cpu(l->sq_completed))) ||
	    nla_put_u32(msg, AXON_NL_LIVE_READS_INFLIGHT, l->reads_inflight) ||
	    nla_put_u32(msg, AXON_NL_LIVE_RETRY_LEFT, l->retry_left) ||
	    nla_put_u32(msg, AXON_NL_LIVE_RNR_LEFT, l->rnr_left) ||
	    nla_put_u32(msg, AXON_NL_LIVE_FLAGS, l->flags))
		goto err_cancel;
	for (i = 0; i <= AXON_NL_LIVE_REMOTE_ERRS - AXON_NL_LIVE_TX_PKTS; i++)
		if (nla_put_u64_64bit(msg, AXON_NL_LIVE_TX_PKTS + i,
				      le64_to_cpu(counter[i]),
				      AXON_NL_LIVE_PAD))
			goto err_cancel;
	nla_nest_end(msg, nest);
	return 0;

err_cancel:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

/* One QP's message; the device's live state if it answers. */
static int axon_nl_fill_qp(struct sk_buff *msg, struct axon_dev *adev,
			   const struct axon_nl_qp *q, u32 portid, u32 seq,
			   int flags)
{
	void *hdr = genlmsg_put(msg, portid, seq, &axon_nl_family, flags,
				AXON_NL_CMD_QP_GET);
	struct axon_qp_live live;

	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_string(msg, AXON_NL_ATTR_DEV_NAME,
			   dev_name(&adev->ibdev.dev)) ||
	    nla_put_u32(msg, AXON_NL_ATTR_QPN, q->qpn) ||
	    nla_put_string(msg, AXON_NL_ATTR_QP_TYPE,
			   axon_nl_qp_type(q->type)) ||
	    nla_put_string(msg, AXON_NL_ATTR_QP_STATE,
			   axon_nl_ib_state(q->state)) ||
	    nla_put_u32(msg, AXON_NL_ATTR_QP_SQ_DEPTH, q->sq_depth) ||
	    (q->rq_depth &&
	     nla_put_u32(msg, AXON_NL_ATTR_QP_RQ_DEPTH, q->rq_depth)) ||
	    ((q->type == IB_QPT_RC || q->type == IB_QPT_UC ||
	      q->type == IB_QPT_XRC_INI || q->type == IB_QPT_XRC_TGT) &&
	     nla_put_u32(msg, AXON_NL_ATTR_QP_DEST_QPN, q->dest_qpn)) ||
	    (q->kernel && nla_put_flag(msg, AXON_NL_ATTR_QP_KERNEL)))
		goto err_cancel;
	if (adev->qp_live &&
	    !axon_cmd_query_qp_live(&adev->aq, q->qpn, &live) &&
	    axon_nl_put_live(msg, &live))
		goto err_cancel;
	genlmsg_end(msg, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(msg, hdr);
	return -EMSGSIZE;
}

static int axon_nl_qp_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	unsigned long qpn;
	struct axon_dev *adev;
	struct axon_nl_qp q;
	struct sk_buff *msg;
	int err;

	if (axon_nl_missing(info->extack, info->attrs, AXON_NL_ATTR_DEV_NAME) ||
	    axon_nl_missing(info->extack, info->attrs, AXON_NL_ATTR_QPN))
		return -EINVAL;
	qpn = nla_get_u32(info->attrs[AXON_NL_ATTR_QPN]);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&axon_nl_lock);
	adev = axon_nl_find(info->attrs, info->extack);
	if (!adev) {
		err = -ENODEV;
	} else if (!axon_nl_qp_find(adev, &qpn, true, &q)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[AXON_NL_ATTR_QPN],
				    "no QP by this number on the device");
		err = -ENOENT;
	} else {
		err = axon_nl_fill_qp(msg, adev, &q, info->snd_portid,
				      info->snd_seq, 0);
	}
	mutex_unlock(&axon_nl_lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: the QPN to go on from */
static int axon_nl_qp_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	struct nlattr **attrs = genl_dumpit_info(cb)->attrs;
	unsigned long qpn = cb->args[0];
	struct axon_dev *adev;
	struct axon_nl_qp q;
	int err = 0;

	if (axon_nl_missing(cb->extack, attrs, AXON_NL_ATTR_DEV_NAME))
		return -EINVAL;
	mutex_lock(&axon_nl_lock);
	adev = axon_nl_find(attrs, cb->extack);
	if (!adev)
		err = -ENODEV;
	while (adev && axon_nl_qp_find(adev, &qpn, false, &q)) {
		if (axon_nl_fill_qp(skb, adev, &q, NETLINK_CB(cb->skb).portid,
				    cb->nlh->nlmsg_seq, NLM_F_MULTI))
			break;
		cb->args[0] = ++qpn;
	}
	mutex_unlock(&axon_nl_lock);
	/* an error only before the first message */
	return err && !skb->len ? err : skb->len;
}

static const struct genl_small_ops axon_nl_ops[] = {
	{
		.cmd = AXON_NL_CMD_DEV_GET,
		.doit = axon_nl_dev_get_doit,
		.dumpit = axon_nl_dev_get_dumpit,
	},
	{
		.cmd = AXON_NL_CMD_DEV_SET,
		.doit = axon_nl_dev_set_doit,
		.flags = GENL_ADMIN_PERM,
	},
	{
		/* PSNs: refused before a QUERY_QP_LIVE, doit or dump */
		.cmd = AXON_NL_CMD_QP_GET,
		.doit = axon_nl_qp_get_doit,
		.dumpit = axon_nl_qp_get_dumpit,
		.flags = GENL_ADMIN_PERM,
	},
};

static struct genl_family axon_nl_family __ro_after_init = {
	.name = AXON_NL_FAMILY_NAME,
	.version = AXON_NL_FAMILY_VERSION,
	.maxattr = AXON_NL_ATTR_MAX,
	.policy = axon_nl_policy,
	.module = THIS_MODULE,
	.small_ops = axon_nl_ops,
	.n_small_ops = ARRAY_SIZE(axon_nl_ops),
	/* every command strict: reserved header bytes, unknown attributes */
	.resv_start_op = AXON_NL_CMD_QP_GET + 1,
};

int axon_nl_init(void)
{
	return genl_register_family(&axon_nl_family);
}

void axon_nl_exit(void)
{
	genl_unregister_family(&axon_nl_family);
}
