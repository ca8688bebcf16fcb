/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The library of the two-sided RDMA transfer tools (axon-rdma-integrity,
 * axon-gpu-xfer, axon-rud-xfer): fatal errors, the options and roles
 * every one takes, the TCP control channel and loopback, opening a RoCE
 * device, taking an RC QP from INIT to RTS, waiting for a completion,
 * what a work request opcode asks for, and the PRNG their data patterns
 * come from.
 */
#ifndef AXON_RDMA_XFER_H
#define AXON_RDMA_XFER_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* Print "Bail out! <message>" (TAP) on stdout and exit(1). */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

/* Whole reads and writes on the control channel; die on error or EOF. */
void ctl_write(int fd, const void *p, size_t n);
void ctl_read(int fd, void *p, size_t n);

double now(void);

/* Accept one control connection on a TCP port (die after 300 s). */
int ctl_accept(int port);
/* Connect to a server's port, retrying for 120 s while it starts. */
int ctl_connect(const char *host, int port);

/*
 * The options every transfer tool takes: -d DEV, -g GID_INDEX, and its
 * role: --server, --client HOST or --loopback (none given: the role
 * under tools/axon-vm with AXON_NODES=2, 's' on node 0 and 'c' on node 1
 * with node 0 as the peer; else loopback), --tcp-port N of the control
 * channel, --timeout S for a batch of transfers, --flow-label N of the
 * RC QPs' GRH (on RoCE v2 it picks their UDP source port, so their path
 * or plane; both sides should give the same).
 */
struct xfer_opts {
	const char *dev;	/* NULL: the first device */
	int gid_index;		/* -1: the first RoCE v2 GID with an IPv4 address */
	char mode;		/* 's', 'c' or 'l' */
	const char *peer;	/* 'c': the server's address */
	int tcp_port;
	double timeout;
	uint32_t flow_label;	/* 0: the kernel's, from the QPNs */
};

#define XFER_SHORT_OPTS "d:g:h"
#define XFER_LONG_OPTS							\
	{ "server", no_argument, NULL, 's' },				\
	{ "client", required_argument, NULL, 'c' },			\
	{ "loopback", no_argument, NULL, 'l' },				\
	{ "tcp-port", required_argument, NULL, 'p' },			\
	{ "timeout", required_argument, NULL, 't' },			\
	{ "flow-label", required_argument, NULL, 'f' },			\
	{ "help", no_argument, NULL, 'h' }

/* Takes option c (with its argument) if it is one of the above. */
bool xfer_opt(struct xfer_opts *o, int c, const char *arg);
/* After the options: the role, if none was given. */
void xfer_role(struct xfer_opts *o);

/*
 * Loopback: both roles in one process, joined by a socketpair. Its ends
 * go to *agent_fd and *requester_fd; agent(agent_arg) then runs in a
 * thread and requester(requester_arg) in this one. Returns what the
 * requester returns, once the agent has ended too.
 */
int xfer_loopback(int (*agent)(void *), void *agent_arg, int *agent_fd,
		  int (*requester)(void *), void *requester_arg,
		  int *requester_fd);

/* splitmix64: the PRNG every pattern is drawn from. */
static inline uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The byte stream of a seed: byte k is byte k % 8 of splitmix output k / 8. */
struct stream {
	uint64_t s, word;
	unsigned int left;	/* bytes of word not yet taken */
};

/* The stream of seed from its byte pos on. */
struct stream stream_at(uint64_t seed, uint64_t pos);
/* Its next n bytes, to p. */
void stream_bytes(struct stream *g, uint8_t *p, uint64_t n);

/* Shuffle v[0..n) (Fisher-Yates), drawing from splitmix(seed). */
void shuffle(unsigned int *v, unsigned int n, uint64_t *seed);

/*
 * Work request opcodes (enum ibv_wr_opcode, as the tools carry them):
 * what each asks of the responder, its name in results and the opcode of
 * its completions.
 */
static inline bool wr_is_send(uint32_t op)
{
	return op == IBV_WR_SEND || op == IBV_WR_SEND_WITH_IMM;
}

static inline bool wr_has_imm(uint32_t op)
{
	return op == IBV_WR_SEND_WITH_IMM || op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

static inline bool wr_is_atomic(uint32_t op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP ||
	       op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

/* The message takes a receive WQE of the responder. */
static inline bool wr_has_recv(uint32_t op)
{
	return wr_is_send(op) || op == IBV_WR_RDMA_WRITE_WITH_IMM;
}

/* "send", "send_imm", "rdma_write", ..., "cmp_swap", "fetch_add"; "?". */
const char *wr_op_name(uint32_t op);
/* The opcode of its completion at the requester. */
enum ibv_wc_opcode wr_wc_opcode(uint32_t op);
/* The opcode of the receive completion it gives (wr_has_recv()). */
enum ibv_wc_opcode wr_recv_wc_opcode(uint32_t op);

/*
 * One completion of cq within secs (false: none came). It spins, yielding
 * the CPU, and sleeps between polls once the wait is long.
 */
bool wait_wc(struct ibv_cq *cq, struct ibv_wc *wc, double secs);

struct rdma_dev {
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	union ibv_gid gid;
	int gid_index;
	uint32_t flow_label;
};

/*
 * Open o->dev (NULL: the first device; o->dev is set to it) with port 1
 * active and a RoCE v2 GID: o->gid_index, or with -1 the first one with
 * an IPv4 address; its RC QPs get o->flow_label. Dies on failure.
 */
void rdma_open(struct rdma_dev *d, struct xfer_opts *o);

/* What an RC QP needs to know of its peer. */
struct rc_peer {
	uint32_t qpn, psn, mtu;
	uint8_t gid[16];
};

/* The attributes of INIT -> RTR against peer, into *a; returns their mask. */
int rc_rtr_attr(const struct rdma_dev *d, const struct rc_peer *peer,
		uint32_t rd_atom, uint32_t rnr_timer, struct ibv_qp_attr *a);

/* RTR -> RTS; 0 or an errno with *what naming the step. */
int rc_rts(struct ibv_qp *qp, uint32_t sq_psn, uint32_t rd_atom,
	   uint32_t rnr_retry, const char **what);

/*
 * INIT -> RTR -> RTS against peer; sq_psn is ours. Returns 0 or an errno
 * with *what naming the step that failed.
 */
int rc_connect(const struct rdma_dev *d, struct ibv_qp *qp,
	       const struct rc_peer *peer, uint32_t sq_psn, uint32_t rd_atom,
	       uint32_t rnr_timer, uint32_t rnr_retry, const char **what);

#endif /* AXON_RDMA_XFER_H */
