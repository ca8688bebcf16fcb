/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two-sided RDMA test programs (axon-rdma-integrity,
 * axon-gpu-xfer) share: fatal errors, the TCP control channel and its
 * roles, opening a RoCE device and taking an RC QP from INIT to RTS.
 */
#ifndef AXON_RDMA_COMMON_H
#define AXON_RDMA_COMMON_H

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
 * The role under tools/axon-vm with AXON_NODES=2: 's' on node 0, 'c' on
 * node 1 (*peer: node 0's address); 0 outside it.
 */
char vm_role(const char **peer);

struct rdma_dev {
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	union ibv_gid gid;
	int gid_index;
};

/*
 * Open *name (NULL: the first device; *name is set to it) with port 1
 * active and a RoCE v2 GID: gid_index, or with -1 the first one with an
 * IPv4 address. Dies on failure.
 */
void rdma_open(struct rdma_dev *d, const char **name, int gid_index);

/* What an RC QP needs to know of its peer. */
struct rc_peer {
	uint32_t qpn, psn, mtu;
	uint8_t gid[16];
};

/*
 * INIT -> RTR -> RTS against peer; sq_psn is ours. Returns 0 or an errno
 * with *what naming the step that failed.
 */
int rc_connect(const struct rdma_dev *d, struct ibv_qp *qp,
	       const struct rc_peer *peer, uint32_t sq_psn, uint32_t rd_atom,
	       uint32_t rnr_timer, uint32_t rnr_retry, const char **what);

#endif /* AXON_RDMA_COMMON_H */
