// SPDX-License-Identifier: GPL-2.0
/*
 * axon-cm-cycles: COUNT rdma_cm connections one after the other, each
 * set up, used and torn down in full before the next: the client creates
 * an id and its RC QP, resolves the address and route, connects, sends a
 * message that the server checks and answers with one the client checks,
 * disconnects and destroys it all; the server takes each request from
 * its listener, accepts it and does its half. Both sides report in TAP
 * (one result), with the cycles per second as a diagnostic.
 *
 * Usage: axon-cm-cycles -s ADDRESS [-p PORT] [-n COUNT]   (server)
 *        axon-cm-cycles -c ADDRESS [-p PORT] [-n COUNT]   (client)
 *        (port 18808, 500 cycles)
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "tap.h"

#define MSG	256

struct cycle {
	struct rdma_cm_id *id;
	struct ibv_mr *mr;
	unsigned char buf[MSG];
};

/* The message of cycle @n from the client (@from 0) or the server (1). */
static void fill(unsigned char *buf, unsigned int n, int from)
{
	unsigned int i;

	for (i = 0; i < MSG; i++)
		buf[i] = (unsigned char)(i * 13 + n * 7 + from * 101);
}

static int fail(unsigned int n, const char *what)
{
	tap_diag("cycle %u: %s: %s", n, what, strerror(errno));
	return -1;
}

/* The completion of @what (send or recv) on @c's QP, successful. */
static int complete(struct cycle *c, unsigned int n, int recv)
{
	struct ibv_wc wc;
	int ret;

	ret = recv ? rdma_get_recv_comp(c->id, &wc) :
		     rdma_get_send_comp(c->id, &wc);
	if (ret <= 0)
		return fail(n, recv ? "rdma_get_recv_comp" :
			    "rdma_get_send_comp");
	if (wc.status != IBV_WC_SUCCESS) {
		tap_diag("cycle %u: %s completion: %s", n, recv ? "recv" : "send",
			 ibv_wc_status_str(wc.status));
		return -1;
	}
	if (recv && wc.byte_len != MSG) {
		tap_diag("cycle %u: received %u bytes, not %u", n, wc.byte_len,
			 MSG);
		return -1;
	}
	return 0;
}

/* Receive the peer's message of cycle @n (posted before), check it. */
static int receive(struct cycle *c, unsigned int n, int from)
{
	unsigned char want[MSG];

	if (complete(c, n, 1))
		return -1;
	fill(want, n, from);
	if (memcmp(c->buf, want, MSG)) {
		tap_diag("cycle %u: the message from the %s differs", n,
			 from ? "server" : "client");
		return -1;
	}
	return 0;
}

static int send_msg(struct cycle *c, unsigned int n, int from)
{
	fill(c->buf, n, from);
	if (rdma_post_send(c->id, NULL, c->buf, MSG, c->mr, 0))
		return fail(n, "rdma_post_send");
	return complete(c, n, 0);
}

static int post_recv(struct cycle *c, unsigned int n)
{
	c->mr = rdma_reg_msgs(c->id, c->buf, MSG);
	if (!c->mr)
		return fail(n, "rdma_reg_msgs");
	if (rdma_post_recv(c->id, NULL, c->buf, MSG, c->mr))
		return fail(n, "rdma_post_recv");
	return 0;
}

static void teardown(struct cycle *c)
{
	if (c->mr)
		rdma_dereg_mr(c->mr);
	rdma_destroy_ep(c->id);
	c->mr = NULL;
}

/*
 * One connection @c has a request for (the server) or has set up (the
 * client): post the receive, accept or connect, send and receive (the
 * client sends first), disconnect (both sides do; the DREQs may cross)
 * and destroy it all.
 */
static int cycle_use(struct cycle *c, unsigned int n, int server)
{
	int ret = -1;

	if (post_recv(c, n))
		goto out;
	if ((server ? rdma_accept : rdma_connect)(c->id, NULL)) {
		/* a client's "refused": the server is not listening yet */
		fail(n, server ? "rdma_accept" : "rdma_connect");
		goto out;
	}
	if (server ? receive(c, n, 0) || send_msg(c, n, 1) :
		     send_msg(c, n, 0) || receive(c, n, 1))
		goto out;
	if (rdma_disconnect(c->id)) {
		fail(n, "rdma_disconnect");
		goto out;
	}
	ret = 0;
out:
	teardown(c);
	return ret;
}

static int client_cycle(struct rdma_addrinfo *ai,
			const struct ibv_qp_init_attr *qpa, unsigned int n)
{
	/* rdma_create_ep writes the CQs it made into the attributes */
	struct ibv_qp_init_attr attr = *qpa;
	struct cycle c = { 0 };

	if (rdma_create_ep(&c.id, ai, NULL, &attr))
		return fail(n, "rdma_create_ep");
	return cycle_use(&c, n, 0);
}

static int server_cycle(struct rdma_cm_id *listen_id, unsigned int n)
{
	struct cycle c = { 0 };

	if (rdma_get_request(listen_id, &c.id))
		return fail(n, "rdma_get_request");
	return cycle_use(&c, n, 1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr qpa = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *ai;
	const char *addr = NULL, *port = "18808";
	struct rdma_cm_id *listen_id = NULL;
	unsigned int n, count = 500;
	int opt, server = 0;
	double t0;

	while ((opt = getopt(argc, argv, "s:c:p:n:")) != -1) {
		switch (opt) {
		case 's':
			server = 1;
			/* fall through */
		case 'c':
			addr = optarg;
			break;
		case 'p':
			port = optarg;
			break;
		case 'n':
			count = strtoul(optarg, NULL, 0);
			break;
		default:
			addr = NULL;
			optind = argc;
		}
	}
	if (!addr || !count) {
		fprintf(stderr, "usage: %s -s|-c ADDRESS [-p PORT] [-n COUNT]\n",
			argv[0]);
		return 2;
	}

	tap_plan(1);
	if (server)
		hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(addr, port, &hints, &ai)) {
		tap_bail("rdma_getaddrinfo %s:%s: %s", addr, port,
			 strerror(errno));
		return 1;
	}
	if (server && (rdma_create_ep(&listen_id, ai, NULL, &qpa) ||
		       rdma_listen(listen_id, 4))) {
		tap_bail("listening on %s:%s: %s", addr, port, strerror(errno));
		return 1;
	}

	t0 = now();
	for (n = 0; n < count; n++)
		if (server ? server_cycle(listen_id, n) :
			     client_cycle(ai, &qpa, n))
			break;
	tap_ok(n == count,
	       "%u rdma_cm connections in turn, a message checked each way on each",
	       count);
	tap_diag("%u cycles in %.2f s", n, now() - t0);
	if (listen_id)
		rdma_destroy_ep(listen_id);
	rdma_freeaddrinfo(ai);
	return tap_done();
}
