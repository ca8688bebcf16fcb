// SPDX-License-Identifier: GPL-2.0
/* The library of the two-sided RDMA transfer tools; see rdma-xfer.h. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rdma-xfer.h"
#include "tap.h"

void die(const char *fmt, ...)
{
	char why[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	tap_bail("%s", why);
	exit(1);
}

void ctl_write(int fd, const void *p, size_t n)
{
	const char *c = p;
	ssize_t r;

	while (n) {
		r = write(fd, c, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("control channel: write: %s", strerror(errno));
		c += r;
		n -= r;
	}
}

void ctl_read(int fd, void *p, size_t n)
{
	char *c = p;
	ssize_t r;

	while (n) {
		r = read(fd, c, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			die("control channel: read: %s", r ? strerror(errno) :
			    "the peer closed it");
		c += r;
		n -= r;
	}
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int ctl_accept(int port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET, .sin_port = htons(port),
	};
	struct pollfd pfd = { .events = POLLIN };
	int one = 1, l, fd;

	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(l, (struct sockaddr *)&sin, sizeof(sin)) || listen(l, 1))
		die("setup: listen on TCP port %d: %s", port, strerror(errno));
	fprintf(stderr, "%s: waiting on TCP port %d\n",
		program_invocation_short_name, port);
	/* a client that never comes must not hang the node */
	pfd.fd = l;
	if (poll(&pfd, 1, 300 * 1000) != 1)
		die("setup: no client within 300 s");
	fd = accept(l, NULL, NULL);
	if (fd < 0)
		die("setup: accept: %s", strerror(errno));
	close(l);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

int ctl_connect(const char *host, int port)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;
	double end = now() + 120;
	char sport[16];
	int one = 1, fd, ret;

	snprintf(sport, sizeof(sport), "%d", port);
	ret = getaddrinfo(host, sport, &hints, &ai);
	if (ret)
		die("setup: %s: %s", host, gai_strerror(ret));
	/* the server may still be starting */
	for (;;) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd >= 0 && !connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		if (fd >= 0)
			close(fd);
		if (now() > end)
			die("setup: connect to %s port %d: %s", host, port,
			    strerror(errno));
		usleep(200000);
	}
	freeaddrinfo(ai);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

bool xfer_opt(struct xfer_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'd':
		o->dev = arg;
		return true;
	case 'g':
		o->gid_index = atoi(arg);
		return true;
	case 's':
	case 'l':
		o->mode = c;
		return true;
	case 'c':
		o->mode = 'c';
		o->peer = arg;
		return true;
	case 'p':
		o->tcp_port = atoi(arg);
		return true;
	case 't':
		o->timeout = atof(arg);
		return true;
	case 'f':
		o->flow_label = strtoul(arg, NULL, 0) & 0xfffff;
		return true;
	}
	return false;
}

void xfer_role(struct xfer_opts *o)
{
	const char *nodes = getenv("AXON_NODES"), *node = getenv("AXON_NODE");
	const char *peers = getenv("AXON_PEERS");

	if (o->mode)
		return;
	o->mode = 'l';
	if (!nodes || !node || atoi(nodes) != 2)
		return;
	if (!atoi(node)) {
		o->mode = 's';
		return;
	}
	if (!peers || !*peers)
		die("setup: AXON_NODES=2 but no AXON_PEERS");
	o->peer = strndup(peers, strcspn(peers, " "));
	o->mode = 'c';
}

struct loopback_agent {
	int (*run)(void *);
	void *arg;
};

static void *loopback_agent_thread(void *p)
{
	struct loopback_agent *a = p;

	a->run(a->arg);
	return NULL;
}

int xfer_loopback(int (*agent)(void *), void *agent_arg, int *agent_fd,
		  int (*requester)(void *), void *requester_arg,
		  int *requester_fd)
{
	struct loopback_agent a = { .run = agent, .arg = agent_arg };
	pthread_t t;
	int sv[2], ret;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		die("setup: socketpair: %s", strerror(errno));
	*requester_fd = sv[0];
	*agent_fd = sv[1];
	if (pthread_create(&t, NULL, loopback_agent_thread, &a))
		die("setup: pthread_create");
	ret = requester(requester_arg);
	pthread_join(t, NULL);
	return ret;
}

struct stream stream_at(uint64_t seed, uint64_t pos)
{
	/* splitmix adds this to its state for every output */
	struct stream g = { .s = seed + (pos / 8) * 0x9e3779b97f4a7c15ULL };

	if (pos % 8) {
		g.word = splitmix(&g.s) >> (8 * (pos % 8));
		g.left = 8 - pos % 8;
	}
	return g;
}

void stream_bytes(struct stream *g, uint8_t *p, uint64_t n)
{
	uint64_t v;

	for (; n && g->left; n--, g->left--, g->word >>= 8)
		*p++ = g->word;
	for (; n >= 8; n -= 8, p += 8) {
		v = splitmix(&g->s);
		memcpy(p, &v, 8);
	}
	if (n) {
		g->word = splitmix(&g->s);
		for (g->left = 8; n; n--, g->left--, g->word >>= 8)
			*p++ = g->word;
	}
}

void shuffle(unsigned int *v, unsigned int n, uint64_t *seed)
{
	unsigned int i, j, t;

	for (i = n; i > 1; i--) {
		j = splitmix(seed) % i;
		t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

const char *wr_op_name(uint32_t op)
{
	switch (op) {
	case IBV_WR_SEND: return "send";
	case IBV_WR_SEND_WITH_IMM: return "send_imm";
	case IBV_WR_RDMA_WRITE: return "rdma_write";
	case IBV_WR_RDMA_WRITE_WITH_IMM: return "rdma_write_imm";
	case IBV_WR_RDMA_READ: return "rdma_read";
	case IBV_WR_ATOMIC_CMP_AND_SWP: return "cmp_swap";
	case IBV_WR_ATOMIC_FETCH_AND_ADD: return "fetch_add";
	}
	return "?";
}

enum ibv_wc_opcode wr_wc_opcode(uint32_t op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM: return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ: return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP: return IBV_WC_COMP_SWAP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD: return IBV_WC_FETCH_ADD;
	}
	return IBV_WC_SEND;
}

enum ibv_wc_opcode wr_recv_wc_opcode(uint32_t op)
{
	return op == IBV_WR_RDMA_WRITE_WITH_IMM ? IBV_WC_RECV_RDMA_WITH_IMM :
	       IBV_WC_RECV;
}

bool wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, double secs)
{
	double end = now() + secs;
	unsigned int idle = 0;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			die("ibv_poll_cq: %d", n);
		if (n)
			return true;
		if (++idle % 256 == 0 && now() > end)
			return false;
		if (idle > 65536)
			usleep(50);
		else
			sched_yield();
	}
}

static int pick_gid(const struct rdma_dev *d)
{
	struct ibv_gid_entry ent;
	int i;

	for (i = 0; i < d->port.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(d->ctx, 1, i, &ent, 0))
			continue;
		if (ent.gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		/* ::ffff:a.b.c.d */
		if (!memcmp(ent.gid.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12))
			return i;
	}
	return -1;
}

void rdma_open(struct rdma_dev *d, struct xfer_opts *o)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	const char **name = &o->dev;
	int gid_index = o->gid_index;
	int i;

	d->flow_label = o->flow_label;
	if (!list || !list[0])
		die("setup: no RDMA device");
	for (i = 0; list[i]; i++)
		if (!*name || !strcmp(ibv_get_device_name(list[i]), *name))
			break;
	if (!list[i])
		die("setup: no RDMA device %s", *name);
	if (!*name)
		*name = strdup(ibv_get_device_name(list[i]));
	d->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!d->ctx)
		die("setup: ibv_open_device %s: %s", *name, strerror(errno));
	if (ibv_query_device(d->ctx, &d->attr) ||
	    ibv_query_port(d->ctx, 1, &d->port))
		die("setup: query %s: %s", *name, strerror(errno));
	if (d->port.state != IBV_PORT_ACTIVE)
		die("setup: %s port 1 is not active", *name);
	d->gid_index = gid_index >= 0 ? gid_index : pick_gid(d);
	if (d->gid_index < 0)
		die("setup: %s has no RoCE v2 GID with an IPv4 address (use -g)",
		    *name);
	if (ibv_query_gid(d->ctx, 1, d->gid_index, &d->gid))
		die("setup: ibv_query_gid %d: %s", d->gid_index, strerror(errno));
}

int rc_rtr_attr(const struct rdma_dev *d, const struct rc_peer *peer,
		uint32_t rd_atom, uint32_t rnr_timer, struct ibv_qp_attr *a)
{
	*a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTR,
		.path_mtu = d->port.active_mtu < peer->mtu ?
			    d->port.active_mtu : peer->mtu,
		.dest_qp_num = peer->qpn,
		.rq_psn = peer->psn,
		.max_dest_rd_atomic = rd_atom,
		.min_rnr_timer = rnr_timer,
		.ah_attr = {
			.is_global = 1,
			.grh = { .sgid_index = d->gid_index, .hop_limit = 64,
				 .flow_label = d->flow_label },
			.port_num = 1,
		},
	};
	memcpy(a->ah_attr.grh.dgid.raw, peer->gid, 16);
	return IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	       IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
}

int rc_rts(struct ibv_qp *qp, uint32_t sq_psn, uint32_t rd_atom,
	   uint32_t rnr_retry, const char **what)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.timeout = 16,
		.retry_cnt = 7,
		.rnr_retry = rnr_retry,
		.sq_psn = sq_psn,
		.max_rd_atomic = rd_atom,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)) {
		*what = "modify_qp to RTS";
		return errno;
	}
	return 0;
}

int rc_connect(const struct rdma_dev *d, struct ibv_qp *qp,
	       const struct rc_peer *peer, uint32_t sq_psn, uint32_t rd_atom,
	       uint32_t rnr_timer, uint32_t rnr_retry, const char **what)
{
	struct ibv_qp_attr a;
	int mask = rc_rtr_attr(d, peer, rd_atom, rnr_timer, &a);

	if (ibv_modify_qp(qp, &a, mask)) {
		*what = "modify_qp to RTR";
		return errno;
	}
	return rc_rts(qp, sq_psn, rd_atom, rnr_retry, what);
}
