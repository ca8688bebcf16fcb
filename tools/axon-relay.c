// SPDX-License-Identifier: GPL-2.0
/*
 * axon-relay: the wire of an impaired p2p plane, for tools/axon-vm --loss,
 * --reorder, --delay, --plane-loss and --plane-delay. Each of the two
 * nodes' QEMUs sends its frames (L2TPv3-over-UDP datagrams, QEMU's l2tpv3
 * netdev) to a socket of this relay, which forwards each to the other
 * node's QEMU, except that it drops loss % of them, holds reorder % back
 * until the next frame in the same direction has gone (or HOLD_S at most:
 * then the frame is only late), and, with a delay, sends every frame that
 * many ms after it arrived, in order. Choices come from a PRNG seeded with
 * --seed: the same seed drops the same frames of the same sequence.
 *
 * One process a plane, so that one plane's frames never wait for
 * another's (threads of one Python process did: their lock let a plane
 * fall behind by milliseconds, reordering what a sender sprays over the
 * planes far more than any wire would).
 *
 *   axon-relay --side FD:PORT --side FD:PORT [--loss PCT] [--reorder PCT]
 *              [--delay MS] [--seed N] [--tag TAG] [--stats FILE]
 *
 * --side (node 0's, then node 1's): a bound UDP socket inherited from the
 * caller, which that node's QEMU sends to, and the port on 127.0.0.1 that
 * node's QEMU receives on. A frame that arrives on side d goes out of side
 * d's socket to the other side's port. On SIGTERM or SIGINT the counters of
 * each direction go to --stats (or stderr), as "node0->node1 received=N
 * forwarded=N dropped=N reordered=N late=N delayed=N send_errors=N".
 */

#define _GNU_SOURCE
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
#include <unistd.h>

#include "axon-wire.h"

#define MAX_DGRAM	65536	/* a datagram at most: nothing is cut */
#define HOLD_S		0.005	/* a frame held for reordering waits at most */

struct frame {
	double due;			/* when it may leave (delay, hold) */
	size_t len;
	uint8_t *data;
};

/* a FIFO of frames that wait for their delay, grown as it fills */
struct fifo {
	struct frame *ring;
	size_t size, head, count;
};

struct side {
	int fd;				/* receives this node's frames */
	struct sockaddr_in to;		/* the other node's QEMU */
	struct frame held;		/* data NULL: none */
	struct fifo delayed;
	uint64_t received, forwarded, dropped, reordered, late, delayed_n,
		 send_errors;
};

static struct side sides[2];
static double loss, reorder, delay_s;
static double loss_pct, reorder_pct, delay_ms;
static unsigned long long seed;
static const char *tag = "relay";
static uint64_t prng;


/* splitmix64: a uniform double in [0, 1) */
static double chance(void)
{
	uint64_t z = (prng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (double)(z >> 11) / (double)(1ull << 53);
}

static void send_frame(struct side *s, const uint8_t *data, size_t len)
{
	if (sendto(s->fd, data, len, 0, (struct sockaddr *)&s->to,
		   sizeof(s->to)) < 0)
		s->send_errors++;	/* the peer's QEMU not up yet, or gone */
	else
		s->forwarded++;
}

static int fifo_push(struct fifo *f, struct frame fr)
{
	if (f->count == f->size) {
		size_t size = f->size ? 2 * f->size : 256, i;
		struct frame *ring = calloc(size, sizeof(*ring));

		if (!ring)
			return -ENOMEM;
		for (i = 0; i < f->count; i++)
			ring[i] = f->ring[(f->head + i) % f->size];
		free(f->ring);
		f->ring = ring;
		f->size = size;
		f->head = 0;
	}
	f->ring[(f->head + f->count++) % f->size] = fr;
	return 0;
}

/* A frame goes on: now, or after the delay (it keeps its buffer). */
static void forward(struct side *s, uint8_t *data, size_t len)
{
	struct frame fr = { axon_wire_now() + delay_s, len, data };

	if (delay_s > 0 && !fifo_push(&s->delayed, fr)) {
		s->delayed_n++;
		return;
	}
	send_frame(s, data, len);
	free(data);
}

static void receive(struct side *s)
{
	static uint8_t buf[MAX_DGRAM];

	for (;;) {
		ssize_t n = recv(s->fd, buf, sizeof(buf), MSG_DONTWAIT);
		uint8_t *data;

		if (n < 0)
			return;		/* EAGAIN, or the socket is gone */
		s->received++;
		if (chance() < loss) {
			s->dropped++;
			continue;
		}
		data = malloc(n ? n : 1);
		if (!data) {
			s->dropped++;
			continue;
		}
		memcpy(data, buf, n);
		if (!s->held.data && chance() < reorder) {
			s->held = (struct frame){ axon_wire_now() + HOLD_S, n, data };
			continue;
		}
		forward(s, data, n);
		if (s->held.data) {
			/* the held frame goes after this later one: swapped */
			forward(s, s->held.data, s->held.len);
			s->held.data = NULL;
			s->reordered++;
		}
	}
}

/* Held frames whose time is up, and delayed ones that are due, go. */
static void expire(struct side *s, double t)
{
	struct fifo *f = &s->delayed;

	if (s->held.data && s->held.due <= t) {
		forward(s, s->held.data, s->held.len);
		s->held.data = NULL;
		s->late++;
	}
	while (f->count && f->ring[f->head].due <= t) {
		struct frame *fr = &f->ring[f->head];

		send_frame(s, fr->data, fr->len);
		free(fr->data);
		f->head = (f->head + 1) % f->size;
		f->count--;
	}
}

/* ms until the next held or delayed frame is due; -1: none waits */
static int next_due_ms(double t)
{
	double soonest = -1;
	int d;

	for (d = 0; d < 2; d++) {
		struct side *s = &sides[d];
		struct fifo *f = &s->delayed;

		if (s->held.data && (soonest < 0 || s->held.due < soonest))
			soonest = s->held.due;
		if (f->count && (soonest < 0 || f->ring[f->head].due < soonest))
			soonest = f->ring[f->head].due;
	}
	if (soonest < 0)
		return -1;
	return soonest <= t ? 0 : (int)((soonest - t) * 1000) + 1;
}

static void write_stats(const char *path)
{
	FILE *out = path ? fopen(path, "w") : NULL;
	int d;

	if (!out)
		out = stderr;
	fprintf(out, "# axon-vm fabric %s: --loss %g --reorder %g --delay %g --seed %llu\n",
		tag, loss_pct, reorder_pct, delay_ms, seed);
	for (d = 0; d < 2; d++) {
		struct side *s = &sides[d];

		fprintf(out, "node%d->node%d received=%llu forwarded=%llu dropped=%llu reordered=%llu late=%llu delayed=%llu send_errors=%llu\n",
			d, 1 - d, (unsigned long long)s->received,
			(unsigned long long)s->forwarded,
			(unsigned long long)s->dropped,
			(unsigned long long)s->reordered,
			(unsigned long long)s->late,
			(unsigned long long)s->delayed_n,
			(unsigned long long)s->send_errors);
	}
	if (out != stderr)
		fclose(out);
}

static int parse_side(const char *arg, int d)
{
	int fd, port, end = 0;

	if (sscanf(arg, "%d:%d%n", &fd, &port, &end) != 2 || arg[end] ||
	    fd < 0 || port <= 0 || port > 65535)
		return -EINVAL;
	sides[d].fd = fd;
	sides[d ^ 1].to.sin_family = AF_INET;
	sides[d ^ 1].to.sin_port = htons(port);
	sides[d ^ 1].to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return 0;
}

static int parse_pct(const char *arg, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(arg, &end);
	return errno || *end || end == arg || *v < 0 ? -EINVAL : 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: axon-relay --side FD:PORT --side FD:PORT [--loss PCT] [--reorder PCT]\n"
		"                  [--delay MS] [--seed N] [--tag TAG] [--stats FILE]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "side", required_argument, NULL, 's' },
		{ "loss", required_argument, NULL, 'l' },
		{ "reorder", required_argument, NULL, 'r' },
		{ "delay", required_argument, NULL, 'd' },
		{ "seed", required_argument, NULL, 'S' },
		{ "tag", required_argument, NULL, 't' },
		{ "stats", required_argument, NULL, 'o' },
		{ 0 }
	};
	const char *stats = NULL;
	int nsides = 0, c, d;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			if (nsides == 2 || parse_side(optarg, nsides++))
				usage();
			break;
		case 'l':
			if (parse_pct(optarg, &loss_pct) || loss_pct > 100)
				usage();
			break;
		case 'r':
			if (parse_pct(optarg, &reorder_pct) || reorder_pct > 100)
				usage();
			break;
		case 'd':
			if (parse_pct(optarg, &delay_ms))
				usage();
			break;
		case 'S':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			tag = optarg;
			break;
		case 'o':
			stats = optarg;
			break;
		default:
			usage();
		}
	}
	if (nsides != 2 || optind != argc)
		usage();
	loss = loss_pct / 100;
	reorder = reorder_pct / 100;
	delay_s = delay_ms / 1000;
	prng = seed;
	axon_wire_stop_on_signals();

	while (!axon_wire_stopping) {
		struct pollfd pfd[2] = {
			{ .fd = sides[0].fd, .events = POLLIN },
			{ .fd = sides[1].fd, .events = POLLIN },
		};
		int wait = next_due_ms(axon_wire_now()), n;

		n = poll(pfd, 2, wait < 0 || wait > 100 ? 100 : wait);
		if (n < 0 && errno != EINTR) {
			perror("axon-relay: poll");
			break;
		}
		for (d = 0; d < 2 && n > 0; d++)
			if (pfd[d].revents & POLLIN)
				receive(&sides[d]);
		for (d = 0; d < 2; d++)
			expire(&sides[d], axon_wire_now());
	}
	write_stats(stats);
	return 0;
}
