// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axonctl: what axon.ko knows beyond the rdma and devlink tools, over its
 * generic netlink family (Documentation/man/axonctl.8).
 *
 *   axonctl [-j] dev show [DEV]
 *   axonctl dev set DEV wire [drop-every N] [reorder-every N]
 *   axonctl [-j] qp show DEV [qpn N]
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axon-nl.h"

#define AXONCTL_VERSION "0.9.0"

static bool json;
/* objects printed so far, in the -j array */
static unsigned int printed;
/* fields of the object being printed */
static unsigned int fields;

static void obj_begin(void)
{
	if (json)
		printf("%s{", printed ? "," : "[");
	printed++;
	fields = 0;
}

static void obj_end(void)
{
	if (!json)
		putchar('\n');
	else
		putchar('}');
}

/* the JSON string of s; control characters and quotes escaped */
static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static void key(const char *k)
{
	if (json) {
		printf("%s", fields ? "," : "");
		json_string(k);
		putchar(':');
	} else {
		printf("%s%s ", fields ? " " : "", k);
	}
	fields++;
}

static void put_str(const char *k, const char *v)
{
	key(k);
	if (json)
		json_string(v);
	else
		printf("%s", v);
}

static void put_u64(const char *k, uint64_t v)
{
	key(k);
	printf("%" PRIu64, v);
}

/* hex for people; JSON has numbers */
static void put_hex(const char *k, uint64_t v)
{
	key(k);
	printf(json ? "%" PRIu64 : "0x%" PRIx64, v);
}

static void put_bool(const char *k, bool v)
{
	key(k);
	printf("%s", v ? "true" : (json ? "false" : "no"));
}

/* a new line of the same object, in text */
static void line_break(void)
{
	if (!json) {
		printf("\n   ");
		fields = 1;
	}
}

static void put_attr_str(struct nlattr **tb, int type, const char *k)
{
	if (tb[type])
		put_str(k, nla_get_string(tb[type]));
}

static void put_attr_u32(struct nlattr **tb, int type, const char *k)
{
	if (tb[type])
		put_u64(k, nla_get_u32(tb[type]));
}

static void show_dev(struct nlattr **tb, void *arg)
{
	(void)arg;
	obj_begin();
	put_attr_str(tb, AXON_NL_ATTR_DEV_NAME, "ifname");
	put_attr_u32(tb, AXON_NL_ATTR_DEV_INDEX, "ifindex");
	put_attr_str(tb, AXON_NL_ATTR_NETDEV_NAME, "netdev");
	put_attr_str(tb, AXON_NL_ATTR_BUS_NAME, "pci");
	put_attr_str(tb, AXON_NL_ATTR_FW_VERSION, "fw");
	put_attr_str(tb, AXON_NL_ATTR_IF_VERSION, "interface");
	if (tb[AXON_NL_ATTR_CAPS])
		put_hex("caps", nla_get_u32(tb[AXON_NL_ATTR_CAPS]));
	if (tb[AXON_NL_ATTR_NODE_GUID]) {
		uint64_t g = nla_get_u64(tb[AXON_NL_ATTR_NODE_GUID]);
		char buf[24];

		snprintf(buf, sizeof(buf), "%04x:%04x:%04x:%04x",
			 (unsigned int)(g >> 48), (unsigned int)(g >> 32) & 0xffff,
			 (unsigned int)(g >> 16) & 0xffff,
			 (unsigned int)g & 0xffff);
		put_str("node_guid", buf);
	}
	put_bool("fatal", tb[AXON_NL_ATTR_DEV_FATAL]);
	put_attr_u32(tb, AXON_NL_ATTR_QP_COUNT, "qps");
	if (tb[AXON_NL_ATTR_WIRE_DROP_EVERY]) {
		line_break();
		put_attr_u32(tb, AXON_NL_ATTR_WIRE_DROP_EVERY, "wire_drop_every");
		put_attr_u32(tb, AXON_NL_ATTR_WIRE_REORDER_EVERY,
			     "wire_reorder_every");
	}
	obj_end();
}

/* The live counters, by attribute, in enum axon_nl_live's order. */
static const char *const live_counters[] = {
	"tx_pkts", "tx_bytes", "rx_pkts", "rx_bytes", "retrans", "timeouts",
	"seq_naks_sent", "rnr_naks_sent", "err_naks_sent", "seq_naks_rcvd",
	"rnr_naks_rcvd", "err_naks_rcvd", "out_of_seq", "dup_reqs", "stray",
	"local_errs", "remote_errs",
};

_Static_assert(sizeof(live_counters) / sizeof(live_counters[0]) ==
	       AXON_NL_LIVE_REMOTE_ERRS - AXON_NL_LIVE_TX_PKTS + 1,
	       "a name for each live counter");

static void show_live(struct nlattr *nest)
{
	static const struct {
		int type;
		const char *name;
		bool hex;
	} fields32[] = {
		{ AXON_NL_LIVE_SQ_PSN, "hw_sq_psn", true },
		{ AXON_NL_LIVE_UNA_PSN, "hw_una_psn", true },
		{ AXON_NL_LIVE_PSN_HI, "hw_psn_hi", true },
		{ AXON_NL_LIVE_EPSN, "hw_rq_psn", true },
		{ AXON_NL_LIVE_MSN, "msn", false },
		{ AXON_NL_LIVE_SEND_WINDOW, "send_window", false },
		{ AXON_NL_LIVE_READS_INFLIGHT, "reads_inflight", false },
		{ AXON_NL_LIVE_RETRY_LEFT, "retry_left", false },
		{ AXON_NL_LIVE_RNR_LEFT, "rnr_left", false },
		{ AXON_NL_LIVE_FLAGS, "live_flags", true },
	};
	struct nlattr *tb[AXON_NL_LIVE_MAX + 1];
	size_t i;

	if (nla_parse_nested(tb, AXON_NL_LIVE_MAX, nest, NULL))
		return;
	line_break();
	if (tb[AXON_NL_LIVE_STATE])
		put_str("hw_state", nla_get_string(tb[AXON_NL_LIVE_STATE]));
	for (i = 0; i < sizeof(fields32) / sizeof(fields32[0]); i++) {
		if (!tb[fields32[i].type])
			continue;
		if (fields32[i].hex)
			put_hex(fields32[i].name,
				nla_get_u32(tb[fields32[i].type]));
		else
			put_u64(fields32[i].name,
				nla_get_u32(tb[fields32[i].type]));
	}
	line_break();
	for (i = 0; i < sizeof(live_counters) / sizeof(live_counters[0]); i++)
		if (tb[AXON_NL_LIVE_TX_PKTS + i])
			put_u64(live_counters[i],
				nla_get_u64(tb[AXON_NL_LIVE_TX_PKTS + i]));
}

static void show_qp(struct nlattr **tb, void *arg)
{
	(void)arg;
	obj_begin();
	put_attr_str(tb, AXON_NL_ATTR_DEV_NAME, "ifname");
	put_attr_u32(tb, AXON_NL_ATTR_QPN, "qpn");
	put_attr_str(tb, AXON_NL_ATTR_QP_TYPE, "type");
	put_attr_str(tb, AXON_NL_ATTR_QP_STATE, "state");
	put_attr_u32(tb, AXON_NL_ATTR_QP_DEST_QPN, "dest_qpn");
	put_attr_u32(tb, AXON_NL_ATTR_QP_SQ_DEPTH, "sq_depth");
	put_attr_u32(tb, AXON_NL_ATTR_QP_RQ_DEPTH, "rq_depth");
	put_bool("kernel", tb[AXON_NL_ATTR_QP_KERNEL]);
	if (tb[AXON_NL_ATTR_QP_LIVE])
		show_live(tb[AXON_NL_ATTR_QP_LIVE]);
	obj_end();
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: axonctl [-j] OBJECT COMMAND [ARGS]\n"
		"       axonctl [-j] dev show [DEV]\n"
		"       axonctl dev set DEV wire [drop-every N] [reorder-every N]\n"
		"       axonctl [-j] qp show DEV [qpn N]\n"
		"       axonctl -V | help\n"
		"  -j  JSON: an array of objects\n");
}

static int bad_usage(const char *why, const char *what)
{
	fprintf(stderr, "axonctl: %s%s%s\n", why, what ? ": " : "",
		what ? what : "");
	usage(stderr);
	return 2;
}

static bool parse_u32(const char *s, uint32_t *out)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-')
		return false;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v > UINT32_MAX)
		return false;
	*out = v;
	return true;
}

/* Runs msg; prints the kernel's error with its reason. 0 or 1. */
static int run(struct axon_nl *nl, struct nl_msg *msg, axon_nl_answer_fn *fn,
	       bool dump)
{
	struct axon_nl_ack ack;
	int err;

	if (!msg) {
		fprintf(stderr, "axonctl: out of memory\n");
		return 1;
	}
	err = axon_nl_run(nl, msg, fn, NULL, &ack);
	if (json && dump)
		printf("%s\n", printed ? "]" : "[]");
	else if (json && printed)
		printf("]\n");
	if (err) {
		fprintf(stderr, "axonctl: %s%s%s\n", strerror(-err),
			ack.msg[0] ? ": " : "", ack.msg);
		return 1;
	}
	return 0;
}

static int dev_show(struct axon_nl *nl, int argc, char **argv)
{
	struct nl_msg *msg;

	if (argc > 1)
		return bad_usage("unexpected argument", argv[1]);
	msg = axon_nl_msg(nl, AXON_NL_CMD_DEV_GET, argc ? 0 : NLM_F_DUMP);
	if (msg && argc && nla_put_string(msg, AXON_NL_ATTR_DEV_NAME, argv[0])) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return run(nl, msg, show_dev, !argc);
}

static int dev_set(struct axon_nl *nl, int argc, char **argv)
{
	struct nl_msg *msg;
	uint32_t v;
	int i;

	if (argc < 2 || strcmp(argv[1], "wire"))
		return bad_usage("dev set needs DEV wire ...", NULL);
	if (argc < 4)
		return bad_usage("dev set DEV wire needs drop-every or reorder-every",
				 NULL);
	msg = axon_nl_msg(nl, AXON_NL_CMD_DEV_SET, 0);
	if (!msg || nla_put_string(msg, AXON_NL_ATTR_DEV_NAME, argv[0]))
		goto err_nomem;
	for (i = 2; i < argc; i += 2) {
		int type;

		if (!strcmp(argv[i], "drop-every"))
			type = AXON_NL_ATTR_WIRE_DROP_EVERY;
		else if (!strcmp(argv[i], "reorder-every"))
			type = AXON_NL_ATTR_WIRE_REORDER_EVERY;
		else
			goto err_usage;
		if (i + 1 >= argc || !parse_u32(argv[i + 1], &v))
			goto err_usage;
		if (nla_put_u32(msg, type, v))
			goto err_nomem;
	}
	return run(nl, msg, NULL, false);

err_usage:
	nlmsg_free(msg);
	return bad_usage("expected drop-every N or reorder-every N, N from 0",
			 argv[i]);
err_nomem:
	nlmsg_free(msg);
	return run(nl, NULL, NULL, false);
}

static int qp_show(struct axon_nl *nl, int argc, char **argv)
{
	struct nl_msg *msg;
	uint32_t qpn = 0;

	if (argc != 1 && argc != 3)
		return bad_usage("qp show needs DEV [qpn N]", NULL);
	if (argc == 3 && (strcmp(argv[1], "qpn") || !parse_u32(argv[2], &qpn)))
		return bad_usage("expected qpn N", argv[1]);
	msg = axon_nl_msg(nl, AXON_NL_CMD_QP_GET, argc == 1 ? NLM_F_DUMP : 0);
	if (msg && (nla_put_string(msg, AXON_NL_ATTR_DEV_NAME, argv[0]) ||
		    (argc == 3 && nla_put_u32(msg, AXON_NL_ATTR_QPN, qpn)))) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return run(nl, msg, show_qp, argc == 1);
}

static const struct {
	const char *object, *command;
	int (*fn)(struct axon_nl *nl, int argc, char **argv);
} commands[] = {
	{ "dev", "show", dev_show },
	{ "dev", "set", dev_set },
	{ "qp", "show", qp_show },
};

int main(int argc, char **argv)
{
	struct axon_nl nl;
	const char *cmd;
	size_t i;
	int err;

	while (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-j") || !strcmp(argv[1], "-json")) {
			json = true;
		} else if (!strcmp(argv[1], "-V") ||
			   !strcmp(argv[1], "-Version")) {
			printf("axonctl %s\n", AXONCTL_VERSION);
			return 0;
		} else if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "-help")) {
			usage(stdout);
			return 0;
		} else {
			return bad_usage("unknown option", argv[1]);
		}
		argc--;
		argv++;
	}
	if (argc < 2)
		return bad_usage("no object", NULL);
	if (!strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	/* "show" is the default command, as in ip and rdma */
	cmd = argc > 2 ? argv[2] : "show";
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].object) ||
		    strcmp(cmd, commands[i].command))
			continue;
		err = axon_nl_open(&nl);
		if (err) {
			fprintf(stderr, "axonctl: %s\n", err == -ENOENT ?
				"no axon netlink family: is axon.ko loaded?" :
				strerror(-err));
			return 1;
		}
		err = commands[i].fn(&nl, argc > 3 ? argc - 3 : 0, argv + 3);
		axon_nl_close(&nl);
		return err;
	}
	return bad_usage("unknown object or command", argv[1]);
}
