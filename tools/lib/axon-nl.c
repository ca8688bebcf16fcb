// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Requests to axon.ko's generic netlink family through libnl. */

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>

#include "axon-nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

int axon_nl_open(struct axon_nl *nl)
{
	int one = 1, err;

	nl->sock = nl_socket_alloc();
	if (!nl->sock)
		return -ENOMEM;
	err = genl_connect(nl->sock);
	if (err) {
		err = -EIO;
		goto err_free;
	}
	/* errors with their message; acks without a copy of the request */
	if (setsockopt(nl_socket_get_fd(nl->sock), SOL_NETLINK,
		       NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(nl_socket_get_fd(nl->sock), SOL_NETLINK,
		       NETLINK_CAP_ACK, &one, sizeof(one))) {
		err = -errno;
		goto err_free;
	}
	nl->family = genl_ctrl_resolve(nl->sock, AXON_NL_FAMILY_NAME);
	if (nl->family < 0) {
		err = -ENOENT;
		goto err_free;
	}
	return 0;

err_free:
	nl_socket_free(nl->sock);
	nl->sock = NULL;
	return err;
}

void axon_nl_close(struct axon_nl *nl)
{
	nl_socket_free(nl->sock);
	nl->sock = NULL;
}

struct nl_msg *axon_nl_msg(const struct axon_nl *nl, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
				flags, cmd, AXON_NL_FAMILY_VERSION)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return msg;
}

struct axon_nl_run {
	axon_nl_answer_fn *fn;
	void *arg;
	int err;
	bool done;
	struct axon_nl_ack *ack;
};

/* The extended ack attributes at tlv, in an error or a dump's end. */
static void axon_nl_ext_ack(struct axon_nl_run *run, const struct nlmsghdr *h,
			    const void *tlv)
{
	const char *end = (const char *)h + h->nlmsg_len;
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];

	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS) || (const char *)tlv >= end)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)tlv,
		      end - (const char *)tlv, NULL))
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		nla_strlcpy(run->ack->msg, tb[NLMSGERR_ATTR_MSG],
			    sizeof(run->ack->msg));
	if (tb[NLMSGERR_ATTR_MISS_TYPE])
		run->ack->miss_type = nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
	if (tb[NLMSGERR_ATTR_OFFS])
		run->ack->offset = nla_get_u32(tb[NLMSGERR_ATTR_OFFS]);
}

static int axon_nl_valid(struct nl_msg *msg, void *arg)
{
	struct axon_nl_run *run = arg;
	struct nlattr *tb[AXON_NL_ATTR_MAX + 1];

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, AXON_NL_ATTR_MAX, NULL)) {
		run->err = -EPROTO;
		return NL_SKIP;
	}
	if (run->fn)
		run->fn(tb, run->arg);
	return NL_OK;
}

static int axon_nl_error(struct sockaddr_nl *who, struct nlmsgerr *e,
			 void *arg)
{
	const struct nlmsghdr *h = (const struct nlmsghdr *)e - 1;
	struct axon_nl_run *run = arg;
	size_t echoed = h->nlmsg_flags & NLM_F_CAPPED ? 0 :
			e->msg.nlmsg_len - NLMSG_HDRLEN;

	(void)who;
	run->err = e->error;
	run->done = true;
	axon_nl_ext_ack(run, h, (const char *)(e + 1) + NLMSG_ALIGN(echoed));
	return NL_STOP;
}

/* A dump's end carries its error, if it failed, and then the ack TLVs. */
static int axon_nl_finish(struct nl_msg *msg, void *arg)
{
	const struct nlmsghdr *h = nlmsg_hdr(msg);
	struct axon_nl_run *run = arg;
	int err;

	run->done = true;
	if (h->nlmsg_len >= NLMSG_HDRLEN + sizeof(err)) {
		memcpy(&err, nlmsg_data(h), sizeof(err));
		if (err < 0)
			run->err = err;
		axon_nl_ext_ack(run, h, (const char *)nlmsg_data(h) +
					sizeof(err));
	}
	return NL_STOP;
}

static int axon_nl_ack(struct nl_msg *msg, void *arg)
{
	struct axon_nl_run *run = arg;

	(void)msg;
	run->done = true;
	return NL_STOP;
}

int axon_nl_run(struct axon_nl *nl, struct nl_msg *msg, axon_nl_answer_fn *fn,
		void *arg, struct axon_nl_ack *ack)
{
	struct axon_nl_run run = { .fn = fn, .arg = arg, .ack = ack };
	struct nl_cb *cb;
	int err;

	*ack = (struct axon_nl_ack) { .miss_type = -1, .offset = -1 };
	if (!msg)
		return -ENOMEM;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, axon_nl_valid, &run);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, axon_nl_finish, &run);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, axon_nl_ack, &run);
	nl_cb_err(cb, NL_CB_CUSTOM, axon_nl_error, &run);
	err = nl_send_auto(nl->sock, msg);
	nlmsg_free(msg);
	while (err >= 0 && !run.done)
		err = nl_recvmsgs(nl->sock, cb);
	nl_cb_put(cb);
	if (run.done || run.err)
		return run.err;
	return -EIO;
}
