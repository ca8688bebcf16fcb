/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Requests to axon.ko's generic netlink family (axon/axon_netlink.h)
 * through libnl: the socket, the family, and a request's answers and
 * error with the kernel's extended ack message. axonctl and the netlink
 * tests use it.
 */
#ifndef AXON_NL_H
#define AXON_NL_H

#include <stddef.h>
#include <stdint.h>

#include <netlink/genl/genl.h>

#include <axon/axon_netlink.h>

struct axon_nl {
	struct nl_sock *sock;
	int family;
};

/*
 * Connects and finds the family: 0, -ENOENT if axon.ko is not loaded,
 * another -errno if netlink fails.
 */
int axon_nl_open(struct axon_nl *nl);
void axon_nl_close(struct axon_nl *nl);

/* A request for cmd (NLM_F_DUMP in flags for a dump); NULL: no memory. */
struct nl_msg *axon_nl_msg(const struct axon_nl *nl, uint8_t cmd, int flags);

/* Called with each answer's attributes, tb[AXON_NL_ATTR_MAX + 1]. */
typedef void axon_nl_answer_fn(struct nlattr **tb, void *arg);

/* What the kernel's extended ack said of a request that failed. */
struct axon_nl_ack {
	char msg[256];		/* its message; "" if none */
	int miss_type;		/* the missing attribute; -1 if none */
	int offset;		/* of the attribute at fault; -1 if none */
};

/*
 * Sends msg (and frees it), hands each answer to fn (may be NULL), and
 * returns 0 or the request's -errno, with the extended ack in *ack.
 */
int axon_nl_run(struct axon_nl *nl, struct nl_msg *msg, axon_nl_answer_fn *fn,
		void *arg, struct axon_nl_ack *ack);

#endif /* AXON_NL_H */
