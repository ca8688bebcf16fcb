// SPDX-License-Identifier: GPL-2.0
/*
 * axon-switch: the fabric's switch for tools/axon-vm --fabric switch. Each
 * node's QEMU sends its frames as L2TPv3-over-UDP datagrams (QEMU's
 * l2tpv3 netdev) to a port of this switch; the switch learns where each
 * source MAC lives, and puts each frame in the queue of the port its
 * destination lives on (every other port for broadcast, multicast and
 * unknown destinations). An egress port sends at its line rate from a
 * queue of bounded size: a frame that does not fit is dropped (tail drop),
 * and an ECN-capable IP frame that finds more than the marking threshold
 * queued leaves marked Congestion Experienced, as a switch configured for
 * DCQCN marks (Documentation/congestion-control.rst). The ICRC of RoCEv2
 * does not cover the ECN field; the IPv4 header checksum is updated.
 *
 *   axon-switch --node QEMU_PORT:SWITCH_PORT ... [--rate MBIT]
 *               [--queue KB] [--ecn KB] [--stats FILE]
 *
 * --node (one per node, in node order): the UDP port on 127.0.0.1 the
 * node's QEMU receives on, and the one it sends to (this switch's). --rate
 * 0 (default) forwards at once, with no queue. On SIGTERM or SIGINT the
 * counters per port go to --stats (or stderr).
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>

#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "axon-wire.h"

#define MAX_PORTS	16
#define MAX_FRAME	(9216 + 64)
#define L2TP_HLEN	8		/* L2TPv3 over UDP: flags, session */
#define MAC_SLOTS	64
#define QUEUE_SLOTS	2048		/* frames a queue may hold at most */

struct frame {
	uint16_t len;			/* with the L2TPv3 header */
	uint8_t data[MAX_FRAME];
};

struct port {
	int fd;				/* bound to the switch's port */
	struct sockaddr_in qemu;	/* where the node receives */
	/* the egress queue: a ring of frames, their bytes */
	struct frame *q;
	unsigned int head, count;
	uint64_t bytes;
	double next_tx;			/* when the head frame may leave */
	/* counters */
	uint64_t rx, tx, drops, marked, max_bytes;
};

struct mac_entry {
	uint8_t mac[6];
	int port;			/* -1: empty */
};

static struct port ports[MAX_PORTS];
static int nports;
static struct mac_entry macs[MAC_SLOTS];
static double rate_bps;			/* 0: no queue, no rate */
static uint64_t queue_limit = 256 * 1024;
static uint64_t ecn_threshold;		/* 0: never mark */


static void learn(const uint8_t *src, int port)
{
	int i, free_slot = -1;

	if (src[0] & 1)
		return;
	for (i = 0; i < MAC_SLOTS; i++) {
		if (macs[i].port >= 0 && !memcmp(macs[i].mac, src, 6)) {
			macs[i].port = port;
			return;
		}
		if (macs[i].port < 0 && free_slot < 0)
			free_slot = i;
	}
	if (free_slot >= 0) {
		memcpy(macs[free_slot].mac, src, 6);
		macs[free_slot].port = port;
	}
}

static int lookup(const uint8_t *dst)
{
	int i;

	if (dst[0] & 1)
		return -1;
	for (i = 0; i < MAC_SLOTS; i++)
		if (macs[i].port >= 0 && !memcmp(macs[i].mac, dst, 6))
			return macs[i].port;
	return -1;
}

/* Marks an ECN-capable IPv4 or IPv6 frame CE; false if it is not one. */
static bool mark_ce(uint8_t *eth, size_t len)
{
	uint16_t type;
	uint8_t *ip = eth + 14;

	if (len < 14 + 40)
		return false;
	type = (uint16_t)(eth[12] << 8 | eth[13]);
	if (type == 0x0800) {
		uint32_t sum;
		uint16_t old = (uint16_t)(ip[0] << 8 | ip[1]), new;

		if (!(ip[1] & 3) || (ip[1] & 3) == 3)
			return false;
		ip[1] |= 3;
		new = (uint16_t)(ip[0] << 8 | ip[1]);
		/* RFC 1624: HC' = ~(~HC + ~m + m') */
		sum = (uint16_t)~(ip[10] << 8 | ip[11]);
		sum += (uint16_t)~old;
		sum += new;
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		ip[10] = (uint8_t)(~sum >> 8);
		ip[11] = (uint8_t)~sum;
		return true;
	}
	if (type == 0x86dd) {
		/* traffic class: the low nibble of byte 0, high of byte 1 */
		uint8_t ecn = (ip[1] >> 4) & 3;

		if (!ecn || ecn == 3)
			return false;
		ip[1] |= 3 << 4;
		return true;
	}
	return false;
}

static void send_frame(struct port *p, const uint8_t *data, size_t len)
{
	if (sendto(p->fd, data, len, 0, (const struct sockaddr *)&p->qemu,
		   sizeof(p->qemu)) == (ssize_t)len)
		p->tx++;
	else
		p->drops++;	/* the node is not up yet, or gone */
}

static void enqueue(struct port *p, const uint8_t *data, size_t len)
{
	struct frame *f;

	if (!rate_bps) {
		send_frame(p, data, len);
		return;
	}
	if (p->count == QUEUE_SLOTS || p->bytes + len > queue_limit) {
		p->drops++;
		return;
	}
	f = &p->q[(p->head + p->count) % QUEUE_SLOTS];
	memcpy(f->data, data, len);
	f->len = (uint16_t)len;
	if (ecn_threshold && p->bytes > ecn_threshold &&
	    mark_ce(f->data + L2TP_HLEN, len - L2TP_HLEN))
		p->marked++;
	if (!p->count) {
		double t = axon_wire_now();

		p->next_tx = p->next_tx > t ? p->next_tx : t;
	}
	p->count++;
	p->bytes += len;
	if (p->bytes > p->max_bytes)
		p->max_bytes = p->bytes;
}

/* Sends what is due; returns when the next frame is (0: nothing queued). */
static double drain(struct port *p, double t)
{
	while (p->count && p->next_tx <= t) {
		struct frame *f = &p->q[p->head];

		send_frame(p, f->data, f->len);
		p->next_tx += (f->len - L2TP_HLEN) * 8.0 / rate_bps;
		p->bytes -= f->len;
		p->head = (p->head + 1) % QUEUE_SLOTS;
		p->count--;
	}
	return p->count ? p->next_tx : 0;
}

static void receive(int in)
{
	uint8_t buf[MAX_FRAME];
	ssize_t n;
	int out, i;

	while ((n = recv(ports[in].fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		ports[in].rx++;
		if (n < L2TP_HLEN + 14)
			continue;
		learn(buf + L2TP_HLEN + 6, in);
		out = lookup(buf + L2TP_HLEN);
		if (out == in)
			continue;
		if (out >= 0) {
			enqueue(&ports[out], buf, (size_t)n);
			continue;
		}
		for (i = 0; i < nports; i++)
			if (i != in)
				enqueue(&ports[i], buf, (size_t)n);
	}
}

static void write_stats(const char *path)
{
	FILE *f = path ? fopen(path, "w") : stderr;
	int i;

	if (!f)
		f = stderr;
	fprintf(f, "# axon-switch: rate %.0f Mbit/s, queue %llu B, ECN above %llu B\n",
		rate_bps / 1e6, (unsigned long long)queue_limit,
		(unsigned long long)ecn_threshold);
	for (i = 0; i < nports; i++)
		fprintf(f, "port%d rx=%llu tx=%llu drops=%llu marked=%llu max_queue=%llu\n",
			i, (unsigned long long)ports[i].rx,
			(unsigned long long)ports[i].tx,
			(unsigned long long)ports[i].drops,
			(unsigned long long)ports[i].marked,
			(unsigned long long)ports[i].max_bytes);
	if (f != stderr)
		fclose(f);
}

static int add_node(const char *arg)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	unsigned int qemu_port, switch_port;
	struct port *p;
	int buf = 4 << 20;

	if (nports == MAX_PORTS ||
	    sscanf(arg, "%u:%u", &qemu_port, &switch_port) != 2 ||
	    !qemu_port || qemu_port > 65535 || !switch_port ||
	    switch_port > 65535) {
		fprintf(stderr, "axon-switch: bad --node %s (QEMU_PORT:SWITCH_PORT, at most %d)\n",
			arg, MAX_PORTS);
		return -1;
	}
	p = &ports[nports];
	p->fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (p->fd < 0)
		return -1;
	/* a burst of frames must fit; root may pass net.core.rmem_max */
	if (setsockopt(p->fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)))
		setsockopt(p->fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (setsockopt(p->fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)))
		setsockopt(p->fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)switch_port);
	if (bind(p->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "axon-switch: bind 127.0.0.1:%u: %s\n",
			switch_port, strerror(errno));
		return -1;
	}
	p->qemu = sa;
	p->qemu.sin_port = htons((uint16_t)qemu_port);
	p->q = calloc(QUEUE_SLOTS, sizeof(*p->q));
	if (!p->q)
		return -1;
	nports++;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "node", required_argument, NULL, 'n' },
		{ "rate", required_argument, NULL, 'r' },
		{ "queue", required_argument, NULL, 'q' },
		{ "ecn", required_argument, NULL, 'e' },
		{ "stats", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	struct pollfd pfd[MAX_PORTS];
	const char *stats = NULL;
	int c, i;

	for (i = 0; i < MAC_SLOTS; i++)
		macs[i].port = -1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (add_node(optarg))
				return 2;
			break;
		case 'r':
			rate_bps = strtod(optarg, NULL) * 1e6;
			break;
		case 'q':
			queue_limit = strtoull(optarg, NULL, 0) * 1024;
			break;
		case 'e':
			ecn_threshold = strtoull(optarg, NULL, 0) * 1024;
			break;
		case 's':
			stats = optarg;
			break;
		default:
			return 2;
		}
	}
	if (nports < 2 || rate_bps < 0 || !queue_limit) {
		fprintf(stderr, "usage: axon-switch --node QEMU_PORT:SWITCH_PORT (2 or more) [--rate MBIT] [--queue KB] [--ecn KB] [--stats FILE]\n");
		return 2;
	}
	axon_wire_stop_on_signals();
	for (i = 0; i < nports; i++)
		pfd[i] = (struct pollfd){ .fd = ports[i].fd, .events = POLLIN };
	printf("axon-switch: %d ports ready\n", nports);
	fflush(stdout);
	while (!axon_wire_stopping) {
		double t = axon_wire_now(), next = 0, wait = 0.1;
		struct timespec ts;

		for (i = 0; i < nports; i++) {
			double due = drain(&ports[i], t);

			if (due && (!next || due < next))
				next = due;
		}
		if (next)
			wait = next > t ? next - t : 0;
		ts.tv_sec = (time_t)wait;
		ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
		if (ppoll(pfd, nports, &ts, NULL) < 0 && errno != EINTR)
			break;
		for (i = 0; i < nports; i++)
			if (pfd[i].revents & POLLIN)
				receive(i);
	}
	write_stats(stats);
	return 0;
}
