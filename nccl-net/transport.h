/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Inside libnccl-net-axon.so: what its files share. The transport is an RC
 * QP used the way NCCL's own net_ib uses one, or the same protocol over a
 * RUD QP (axondv.h) spraying over the port's planes (Documentation/nccl.rst);
 * the sender chooses the transport, traffic class and plane, and both QPs
 * take them:
 *
 *  - connection: listen gives a handle naming a TCP socket on the address
 *    of the device's RoCEv2 GID; connect and accept exchange QP numbers,
 *    GIDs and the addresses of the two rendezvous areas over it, never
 *    blocking (each call moves the exchange on as far as the socket lets
 *    it and returns a NULL comm until it is done);
 *  - clear to send: irecv writes, with an RDMA WRITE, an entry per grouped
 *    receive (buffer, rkey, size, tag, sequence number) into the sender's
 *    FIFO slot; isend matches its tag in the slot of its turn, and returns
 *    a NULL request while the receiver has not posted it yet;
 *  - data: once every receive of the slot has its send, one RDMA WRITE per
 *    send, then an RDMA WRITE_WITH_IMM carrying the sizes sent into the
 *    receiver's size area, the sequence number as immediate: the receive
 *    completes when that immediate arrives (RC places the WRITEs before);
 *  - iflush: an RDMA READ of one byte of the last buffer received, on a
 *    QP connected to itself, so the NIC's writes are visible before it
 *    completes (only for dma-buf memory; host memory needs none);
 *  - memory: one PD per NIC and an MR cache, so a registration serves
 *    every comm of the NIC's devices (regIsGlobal) and deregistration drops a
 *    reference;
 *  - RUD: messages are placed in any order, but a receive completes only
 *    when all of its message is placed, so each send is one WRITE_WITH_IMM
 *    of its data whose immediate names the turn and the entry; the
 *    receive is done when every entry of its turn has arrived.
 *
 * The files: devices.c (the NICs, the devices NCCL numbers: a NIC, one of
 * its planes, or the virtual device of all its planes), registry.c (init,
 * and every handle NCCL passes in, looked up before use), connect.c
 * (listen, connect, accept, close), mr.c (registration and its cache),
 * datapath.c (isend, irecv, iflush, test).
 *
 * Nothing from the peer is trusted: its connection info, FIFO entries,
 * immediates and sizes are checked against what this side holds. Handles
 * NCCL passes in (comms, requests, MRs) are looked up before use, so bad
 * input gets an error code.
 */
#ifndef AXON_NET_TRANSPORT_H
#define AXON_NET_TRANSPORT_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>

#include "axon_net.h"
#include "../provider/axondv.h"

#define MAX_NICS	16
/* what NCCL numbers: a NIC or its planes, and the virtual devices */
#define MAX_NET_DEVS	(MAX_NICS * (NCCL_NET_VDEV_MAX_DEVS + 1))
#define MAX_LIVE	1024	/* comms alive in one process */
#define MAX_MRS		4096	/* MR cache entries of one device */
#define SLOTS		NCCL_NET_MAX_INFLIGHT
#define SEND_REQS	(SLOTS * AXON_NET_MAX_RECVS)
#define FLUSH_REQS	SLOTS
#define CQ_DEPTH	1024
/* room for twice the turns in flight: the receiver may finish a turn (and
 * post the next) before the sender has polled that turn's completion */
#define SQ_DEPTH	(2 * SLOTS * (AXON_NET_MAX_RECVS + 1))
#define HANDLE_MAGIC	0x4e58414eU	/* "NAXN" */
#define INFO_MAGIC	0x49584e41U
#define COMM_MAGIC	0x434e5841U
#define PAGE		4096UL
/* a RUD send's immediate: its turn (from 1, the low 29 bits) over its entry */
#define IMM_ENTRY_BITS	3
#define IMM_TURN_MASK	(UINT32_MAX >> IMM_ENTRY_BITS)
_Static_assert(AXON_NET_MAX_RECVS <= 1 << IMM_ENTRY_BITS,
	       "a turn's entries fit the immediate");
_Static_assert((IMM_TURN_MASK + 1ULL) % SLOTS == 0,
	       "the turn's slot survives the immediate's truncation");

/* one entry of a clear-to-send slot, written by the receiver */
struct cts_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t rkey;
	int32_t tag;
	uint32_t nreqs;
	uint32_t seq;	/* the slot's turn + 1: written with the entry */
};

struct cts_slot {
	struct cts_entry e[AXON_NET_MAX_RECVS];
};

/* what listen writes into NCCL's handle */
struct listen_handle {
	uint32_t magic;
	uint32_t ip;		/* network order */
	uint16_t port;		/* network order */
	uint16_t reserved;
	uint32_t dev_guid_lo;
};

/* what the two sides exchange over the socket */
struct conn_info {
	uint32_t magic;
	uint32_t qpn;
	uint32_t psn;
	uint32_t mtu;		/* enum ibv_mtu */
	uint8_t gid[16];
	uint64_t area_addr;	/* sender: its FIFO; receiver: its sizes */
	uint32_t area_rkey;
	uint32_t transport;	/* enum transport: the sender chooses */
	uint64_t rud_key;	/* RUD: the QP's key, for the peer's RTR */
	uint32_t tc;		/* the GRH traffic class: the sender chooses */
	int32_t plane;		/* RC's plane, -1 for none: the sender's */
};

enum transport { TRANSPORT_RC = 0, TRANSPORT_RUD = 1 };

struct mr_entry {
	uintptr_t start, end;	/* the page-aligned range */
	int type;		/* NCCL_NET_PTR_HOST or _DMABUF */
	struct ibv_mr *mr;
	unsigned int refs;	/* regMr calls not yet deregistered */
	unsigned int inflight;	/* posted sends, receives, flushes */
};

/* a NIC: one axon RDMA device, its PD and the MR cache its devices share */
struct axon_dev {
	char name[IBV_SYSFS_NAME_MAX];
	char pci_path[PATH_MAX];
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	int gid_index;
	union ibv_gid gid;
	uint32_t ip;		/* network order, from the GID */
	bool dmabuf;
	int planes;		/* of its port, 1 without per-plane counters */
	struct mr_entry *mrs[MAX_MRS];
	unsigned int nmrs;
};

/*
 * A device as NCCL numbers it: a NIC whose port has one plane; one plane
 * of a NIC with several (RC only, its connections kept on that plane); or
 * the virtual device makeVDevice makes of all of a NIC's planes (RUD
 * spraying over them, or RC hashed onto one). Physical devices come first.
 */
struct net_dev {
	struct axon_dev *nic;
	int plane;		/* the plane device's, -1 for the whole port */
	char name[IBV_SYSFS_NAME_MAX + 16];
	struct nccl_net_vdev_props vprops;	/* the physical devices */
};

enum comm_kind { COMM_LISTEN = 1, COMM_SEND, COMM_RECV };

enum req_kind { REQ_FREE = 0, REQ_SEND, REQ_RECV, REQ_FLUSH };

struct comm;

struct request {
	enum req_kind kind;
	struct comm *comm;
	bool done;
	bool posted;
	int n;
	uint32_t seq;
	int sizes[AXON_NET_MAX_RECVS];		/* done: bytes moved */
	uint8_t arrived;	/* RUD receive: the entries placed, a bit each */
	uint64_t posted_size[AXON_NET_MAX_RECVS];
	struct mr_entry *mrs[AXON_NET_MAX_RECVS];
	/* send: its data, until the slot is complete */
	void *data;
	uint64_t size;
};

/* connection stages */
enum stage {
	ST_CONNECTING, ST_SEND_INFO, ST_RECV_INFO, ST_SEND_READY,
	ST_RECV_READY, ST_READY,
};

struct comm {
	uint32_t magic;
	enum comm_kind kind;
	struct axon_dev *dev;
	int plane;		/* RC's plane, -1: the kernel's hash */
	int fd;
	enum stage stage;
	size_t io_done;
	struct conn_info local, remote;
	uint8_t ready_byte;
	nres_t failed;		/* set once a completion failed */

	/* listen comm: the connection being accepted */
	struct comm *pending;

	struct ibv_cq *cq;
	struct ibv_qp *qp;
	enum transport transport;
	uint8_t tc;		/* the QPs' GRH traffic class */
	unsigned int sq_depth;

	/* the peer's area: the sender's FIFO or the receiver's sizes */
	uint64_t peer_area;
	uint32_t peer_rkey;

	/* sender: the FIFO the receiver writes, and (RC) the sizes it sends */
	struct cts_slot *fifo;
	struct ibv_mr *fifo_mr;
	uint64_t (*sizes_out)[AXON_NET_MAX_RECVS];
	struct ibv_mr *sizes_out_mr;
	uint32_t send_seq;
	unsigned int sq_used;		/* send WRs posted, not completed */
	uint8_t slot_wrs[SLOTS];	/* WRs each turn posted */
	struct request *slot_reqs[SLOTS][AXON_NET_MAX_RECVS];
	struct request send_reqs[SEND_REQS];

	/* receiver: what it writes to the FIFO, and the sizes it is sent */
	struct cts_slot *cts;
	struct ibv_mr *cts_mr;
	uint64_t (*sizes_in)[AXON_NET_MAX_RECVS];
	struct ibv_mr *sizes_in_mr;
	uint32_t recv_seq;
	struct request recv_reqs[SLOTS];
	struct request flush_reqs[FLUSH_REQS];
	struct ibv_qp *flush_qp;
	uint8_t *flush_buf;
	struct ibv_mr *flush_mr;
};

/* wr_id: the kind in the top byte, the slot or request index below */
#define WRID(kind, idx)	(((uint64_t)(kind) << 56) | (uint64_t)(idx))
#define WRID_KIND(id)	((unsigned int)((id) >> 56))
#define WRID_IDX(id)	((uint32_t)(id))
enum { WR_SEND_DONE = 1, WR_CTS, WR_RECV, WR_FLUSH };

/* guards the registry, the MR caches and the device table */
extern pthread_mutex_t axon_net_lock;

/*
 * What init gives: a context per NCCL communicator (v11), or the one of
 * v8..v10; it holds the communicator's traffic class (-1: none given).
 */
#define CTX_MAGIC	0x61786e63	/* "axnc" */
#define MAX_CTXS	256
struct net_ctx {
	uint32_t magic;
	int tc;
};

/* the provider's direct verbs (devices.c): all NULL without axondv */
struct axon_dv {
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *,
				       struct ibv_qp_init_attr_ex *,
				       struct axondv_qp_init_attr *, uint32_t);
	int (*modify_qp)(struct ibv_qp *, struct ibv_qp_attr *, int,
			 struct axondv_modify_qp_attr *, uint32_t);
	int (*query_qp)(struct ibv_qp *, struct axondv_qp_attr *, uint32_t);
};
extern struct axon_dv axon_dv;

/* devices.c */
nres_t devs_open(void);
struct net_dev *net_dev_get(int dev);
bool port_up(struct axon_dev *d);
nres_t transport_wanted(const struct net_dev *nd, enum transport *t);

/* registry.c */
bool live_add(struct comm *c);
void live_del(struct comm *c);
struct comm *live_find(const void *p, enum comm_kind kind);
struct request *request_find(const void *p);
struct net_ctx *ctx_find(const void *p);

/* mr.c */
struct mr_entry *mr_find(struct axon_dev *dev, const void *mh);
void mr_inflight(struct mr_entry *m, int delta);
bool mr_covers(const struct mr_entry *m, const void *p, uint64_t size);

/* connect.c */
bool tc_valid(int tc);
struct comm *data_comm(const void *p);

#endif /* AXON_NET_TRANSPORT_H */
