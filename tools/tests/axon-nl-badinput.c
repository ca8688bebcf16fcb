// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Bad requests to axon.ko's generic netlink family, one by one: missing,
 * wrong-typed, oversized, out-of-range, unknown and answer-only
 * attributes, a truncated attribute, an unknown command, a device or QP
 * that does not exist, and a state change by an unprivileged user. Each
 * must fail with its precise errno and an extended ack (a message, the
 * missing attribute's type, or the offset of the one at fault); the
 * device still answers at the end.
 *
 * Usage: axon-nl-badinput DEV (an axon RDMA device, run as root)
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "axon-nl.h"
#include "tap.h"

static struct axon_nl nl;
static const char *dev;

enum ack_want {
	ACK_MSG = 1,		/* a message */
	ACK_MISS = 2,		/* the missing attribute's type */
	ACK_OFFS = 4,		/* the offset of the attribute at fault */
};

/*
 * Sends msg and checks its errno and extended ack: the parts in want,
 * the message containing text (if not NULL), the missing type miss.
 */
static void expect(const char *what, struct nl_msg *msg, int errno_want,
		   unsigned int want, const char *text, int miss)
{
	struct axon_nl_ack ack;
	int err;

	if (!msg) {
		tap_ok(false, "%s: out of memory", what);
		return;
	}
	err = axon_nl_run(&nl, msg, NULL, NULL, &ack);
	tap_diag("%s: %d (%s), ack \"%s\" missing %d offset %d", what, err,
		 strerror(-err), ack.msg, ack.miss_type, ack.offset);
	tap_ok(err == -errno_want &&
	       (!(want & ACK_MSG) || ack.msg[0]) &&
	       (!text || strstr(ack.msg, text)) &&
	       (!(want & ACK_MISS) || ack.miss_type == miss) &&
	       (!(want & ACK_OFFS) || ack.offset > 0),
	       "%s: %s%s", what, strerror(errno_want),
	       want ? " with an extended ack" : "");
}

static struct nl_msg *req(uint8_t cmd, int flags, bool with_dev)
{
	struct nl_msg *msg = axon_nl_msg(&nl, cmd, flags);

	if (msg && with_dev && nla_put_string(msg, AXON_NL_ATTR_DEV_NAME, dev)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* An attribute of len bytes of data, put as they are. */
static struct nl_msg *with_raw(struct nl_msg *msg, int type, const void *data,
			       int len)
{
	if (msg && nla_put(msg, type, len, data)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static struct nl_msg *with_u32(struct nl_msg *msg, int type, uint32_t v)
{
	return with_raw(msg, type, &v, sizeof(v));
}

/* The last attribute's length claims 64 bytes more than the message has. */
static struct nl_msg *truncated(struct nl_msg *msg)
{
	struct nlmsghdr *h = msg ? nlmsg_hdr(msg) : NULL;
	struct nlattr *last;

	if (!h)
		return NULL;
	last = (struct nlattr *)((char *)h + h->nlmsg_len - NLA_HDRLEN -
				 NLA_ALIGN(sizeof(uint32_t)));
	last->nla_len += 64;
	return msg;
}

/* A state change by nobody, in a child; its result. */
static int unprivileged_set(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		struct axon_nl_ack ack;
		struct nl_msg *msg;
		struct axon_nl own;
		int err;

		if (setgid(65534) || setuid(65534))
			_exit(100);
		if (axon_nl_open(&own))
			_exit(101);
		msg = axon_nl_msg(&own, AXON_NL_CMD_DEV_SET, 0);
		if (!msg || nla_put_string(msg, AXON_NL_ATTR_DEV_NAME, dev) ||
		    nla_put_u32(msg, AXON_NL_ATTR_WIRE_DROP_EVERY, 3))
			_exit(102);
		err = axon_nl_run(&own, msg, NULL, NULL, &ack);
		/* reading stays open to everyone */
		msg = axon_nl_msg(&own, AXON_NL_CMD_DEV_GET, 0);
		if (!msg || nla_put_string(msg, AXON_NL_ATTR_DEV_NAME, dev))
			_exit(102);
		if (axon_nl_run(&own, msg, NULL, NULL, &ack))
			_exit(103);
		_exit(err == -EPERM ? 0 : 104);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void count_dev(struct nlattr **tb, void *arg)
{
	if (tb[AXON_NL_ATTR_DEV_NAME] &&
	    !strcmp(nla_get_string(tb[AXON_NL_ATTR_DEV_NAME]), dev))
		++*(int *)arg;
}

int main(int argc, char **argv)
{
	char long_name[80];
	struct axon_nl_ack ack;
	uint8_t byte = 1;
	int found = 0, err;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DEV\n", argv[0]);
		return 2;
	}
	dev = argv[1];
	tap_plan(19);
	err = axon_nl_open(&nl);
	if (err)
		tap_bail("no axon netlink family: %s", strerror(-err));

	/* missing */
	expect("DEV_GET without a device", req(AXON_NL_CMD_DEV_GET, 0, false),
	       EINVAL, ACK_MSG | ACK_MISS, "device name", AXON_NL_ATTR_DEV_NAME);
	expect("QP_GET without a QPN", req(AXON_NL_CMD_QP_GET, 0, true),
	       EINVAL, ACK_MSG | ACK_MISS, "QP number", AXON_NL_ATTR_QPN);
	/* a dump's end carries the message only */
	expect("QP_GET dump without a device",
	       req(AXON_NL_CMD_QP_GET, NLM_F_DUMP, false), EINVAL, ACK_MSG,
	       "device name", 0);
	expect("DEV_SET with nothing to set", req(AXON_NL_CMD_DEV_SET, 0, true),
	       EINVAL, ACK_MSG, "nothing to set", 0);

	/* wrong type or length */
	expect("a device name without its NUL",
	       with_raw(req(AXON_NL_CMD_DEV_GET, 0, false),
			AXON_NL_ATTR_DEV_NAME, "axon", 4),
	       EINVAL, ACK_MSG | ACK_OFFS, NULL, 0);
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	expect("a device name longer than IB_DEVICE_NAME_MAX",
	       with_raw(req(AXON_NL_CMD_DEV_GET, 0, false),
			AXON_NL_ATTR_DEV_NAME, long_name, sizeof(long_name)),
	       EINVAL, ACK_MSG | ACK_OFFS, NULL, 0);
	expect("a QPN of one byte",
	       with_raw(req(AXON_NL_CMD_QP_GET, 0, true), AXON_NL_ATTR_QPN,
			&byte, 1),
	       EINVAL, ACK_MSG | ACK_OFFS, NULL, 0);
	expect("a wire setting of one byte",
	       with_raw(req(AXON_NL_CMD_DEV_SET, 0, true),
			AXON_NL_ATTR_WIRE_DROP_EVERY, &byte, 1),
	       EINVAL, ACK_MSG | ACK_OFFS, NULL, 0);

	/* out of range, unknown, answers only, truncated */
	expect("a QPN above 24 bits",
	       with_u32(req(AXON_NL_CMD_QP_GET, 0, true), AXON_NL_ATTR_QPN,
			0x1000000),
	       ERANGE, ACK_MSG | ACK_OFFS, "range", 0);
	expect("an attribute type the family does not have",
	       with_u32(req(AXON_NL_CMD_DEV_GET, 0, true), AXON_NL_ATTR_MAX + 1,
			0),
	       EINVAL, ACK_MSG | ACK_OFFS, NULL, 0);
	expect("an attribute only answers carry (CAPS)",
	       with_u32(req(AXON_NL_CMD_DEV_GET, 0, true), AXON_NL_ATTR_CAPS,
			0),
	       EINVAL, ACK_MSG | ACK_OFFS, NULL, 0);
	expect("an attribute longer than the message",
	       truncated(with_u32(req(AXON_NL_CMD_QP_GET, 0, true),
				  AXON_NL_ATTR_QPN, 2)),
	       EINVAL, ACK_MSG, NULL, 0);
	/* refused by the generic netlink core, which gives no message */
	expect("an unknown command", req(AXON_NL_CMD_MAX + 1, 0, true),
	       EOPNOTSUPP, 0, NULL, 0);

	/* names and numbers that are not there */
	expect("DEV_GET of a device that does not exist",
	       with_raw(req(AXON_NL_CMD_DEV_GET, 0, false),
			AXON_NL_ATTR_DEV_NAME, "nosuch9", 8),
	       ENODEV, ACK_MSG | ACK_OFFS, "no axon device", 0);
	expect("QP_GET dump of a device that does not exist",
	       with_raw(req(AXON_NL_CMD_QP_GET, NLM_F_DUMP, false),
			AXON_NL_ATTR_DEV_NAME, "nosuch9", 8),
	       ENODEV, ACK_MSG, "no axon device", 0);
	expect("QP_GET of a QPN with no QP",
	       with_u32(req(AXON_NL_CMD_QP_GET, 0, true), AXON_NL_ATTR_QPN,
			0xfffff0),
	       ENOENT, ACK_MSG | ACK_OFFS, "no QP", 0);

	/* privilege */
	err = unprivileged_set();
	tap_ok(err == 0, "an unprivileged DEV_SET: EPERM, DEV_GET allowed (%d)",
	       err);

	/* still there */
	err = axon_nl_run(&nl, req(AXON_NL_CMD_DEV_GET, 0, true), count_dev,
			  &found, &ack);
	tap_ok(!err && found == 1, "the device still answers DEV_GET (%d, %d)",
	       err, found);
	found = 0;
	err = axon_nl_run(&nl, req(AXON_NL_CMD_DEV_GET, NLM_F_DUMP, false),
			  count_dev, &found, &ack);
	tap_ok(!err && found == 1, "and is in the DEV_GET dump (%d, %d)", err,
	       found);
	axon_nl_close(&nl);
	return tap_done();
}
