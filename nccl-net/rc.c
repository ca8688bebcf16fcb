// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The transport of libnccl-net-axon.so: an RC QP used the way NCCL's own
 * net_ib uses one, or the same protocol over a RUD QP (axondv.h) where
 * the port has planes to spray over, or with AXON_NCCL_TRANSPORT=rud
 * (Documentation/nccl.rst); the sender's traffic class goes with its QP
 * number, and both QPs put it in their GRH:
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
 *  - memory: one PD per device and an MR cache, so a registration serves
 *    every comm of the device (regIsGlobal) and deregistration drops a
 *    reference;
 *  - RUD: messages are placed in any order, so the WRITE_WITH_IMM ending a
 *    turn is fenced behind the turn's WRITEs, and receives complete by the
 *    turn their immediate names.
 *
 * Nothing from the peer is trusted: its connection info, FIFO entries,
 * immediates and sizes are checked against what this side holds. Handles
 * NCCL passes in (comms, requests, MRs) are looked up before use, so bad
 * input gets an error code.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "axon_net.h"
#include "../provider/axondv.h"

#define MAX_DEVS	16
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

nccl_net_logger_t axon_net_logger;

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
	uint32_t reserved;
};

enum transport { TRANSPORT_RC = 0, TRANSPORT_RUD = 1 };

struct mr_entry {
	uintptr_t start, end;	/* the page-aligned range */
	int type;		/* NCCL_NET_PTR_HOST or _DMABUF */
	struct ibv_mr *mr;
	unsigned int refs;	/* regMr calls not yet deregistered */
	unsigned int inflight;	/* posted sends, receives, flushes */
};

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
	struct mr_entry *mrs[MAX_MRS];
	unsigned int nmrs;
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

	/* sender: the FIFO the receiver writes, and the sizes it sends */
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

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

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
static struct net_ctx *ctxs[MAX_CTXS];
static struct axon_dev devs[MAX_DEVS];
static int ndevs = -1;
static struct comm *live[MAX_LIVE];

/* --- registry: every handle NCCL passes in is looked up first --- */

static bool live_add(struct comm *c)
{
	for (int i = 0; i < MAX_LIVE; i++) {
		if (!live[i]) {
			live[i] = c;
			return true;
		}
	}
	return false;
}

static void live_del(struct comm *c)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] == c)
			live[i] = NULL;
}

static struct comm *live_find(const void *p, enum comm_kind kind)
{
	struct comm *found = NULL;

	if (!p)
		return NULL;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_LIVE; i++) {
		if (live[i] == p && live[i]->kind == kind) {
			found = live[i];
			break;
		}
	}
	pthread_mutex_unlock(&lock);
	return found;
}

/* the request p points to, if it is one of a live comm's and in use */
static struct request *request_find(const void *p)
{
	struct request *found = NULL;
	uintptr_t a = (uintptr_t)p;

	if (!p)
		return NULL;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_LIVE && !found; i++) {
		struct comm *c = live[i];
		struct { struct request *base; int n; } pools[] = {
			{ c ? c->send_reqs : NULL, SEND_REQS },
			{ c ? c->recv_reqs : NULL, SLOTS },
			{ c ? c->flush_reqs : NULL, FLUSH_REQS },
		};

		if (!c)
			continue;
		for (unsigned int k = 0; k < 3; k++) {
			uintptr_t lo = (uintptr_t)pools[k].base;
			uintptr_t hi = lo + pools[k].n * sizeof(struct request);

			if (a >= lo && a < hi &&
			    (a - lo) % sizeof(struct request) == 0 &&
			    ((struct request *)p)->kind != REQ_FREE) {
				found = (struct request *)p;
				break;
			}
		}
	}
	pthread_mutex_unlock(&lock);
	return found;
}

/* the MR cache entry mhandle is, on dev; the caller holds the lock */
static struct mr_entry *mr_find_locked(struct axon_dev *dev, const void *mh)
{
	for (unsigned int i = 0; i < dev->nmrs; i++)
		if (dev->mrs[i] == mh)
			return dev->mrs[i];
	return NULL;
}

static struct mr_entry *mr_find(struct axon_dev *dev, const void *mh)
{
	struct mr_entry *m;

	if (!mh)
		return NULL;
	pthread_mutex_lock(&lock);
	m = mr_find_locked(dev, mh);
	pthread_mutex_unlock(&lock);
	return m;
}

static void mr_inflight(struct mr_entry *m, int delta)
{
	if (!m)
		return;
	pthread_mutex_lock(&lock);
	m->inflight += delta;
	pthread_mutex_unlock(&lock);
}

/* --- the provider's direct verbs, for RUD --- */

/*
 * axondv_* live in the provider libibverbs loaded for the device
 * (libaxon-rdmav34.so). Found at run time among the loaded objects, so the
 * plugin loads where the provider is elsewhere or absent (then: RC only).
 */
static struct {
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *,
				       struct ibv_qp_init_attr_ex *,
				       struct axondv_qp_init_attr *, uint32_t);
	int (*modify_qp)(struct ibv_qp *, struct ibv_qp_attr *, int,
			 struct axondv_modify_qp_attr *, uint32_t);
	int (*query_qp)(struct ibv_qp *, struct axondv_qp_attr *, uint32_t);
} dv;

static int find_provider(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *name = info->dlpi_name, *base = strrchr(name, '/');

	(void)size;
	if (strcmp(base ? base + 1 : name, "libaxon-rdmav34.so"))
		return 0;
	snprintf(arg, PATH_MAX, "%s", name);
	return 1;
}

static void dv_load(void)
{
	char path[PATH_MAX] = "";
	void *h;

	if (!dl_iterate_phdr(find_provider, path))
		return;
	h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		return;
	dv.create_qp_ex = dlsym(h, "axondv_create_qp_ex");
	dv.modify_qp = dlsym(h, "axondv_modify_qp");
	dv.query_qp = dlsym(h, "axondv_query_qp");
	if (!dv.create_qp_ex || !dv.modify_qp || !dv.query_qp)
		memset(&dv, 0, sizeof(dv));
	/* the provider stays loaded while libibverbs holds it */
	dlclose(h);
}

/*
 * The planes of the device's port: the driver exports a set of counters
 * per plane in the port's hw_counters when there is more than one
 * (plane<k>_tx_pkts, k from 0), and none with one. The per-plane link
 * state is not exported (the port's state is plane 0's), so a port that
 * is up counts all its planes. 0 when the port is down.
 */
static int port_planes(struct axon_dev *d)
{
	char path[PATH_MAX];
	int n = 0;

	if (ibv_query_port(d->ctx, 1, &d->port) ||
	    d->port.state != IBV_PORT_ACTIVE)
		return 0;
	for (; n < 16; n++) {
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/hw_counters/plane%d_tx_pkts",
			 d->name, n);
		if (access(path, F_OK))
			break;
	}
	return n ? n : 1;
}

/*
 * The transport a new send comm asks for: AXON_NCCL_TRANSPORT=rc|rud
 * forces it; unset or auto, RUD where the provider has axondv and the
 * port has more than one plane to spray over, else RC.
 */
static nres_t transport_wanted(struct axon_dev *d, enum transport *t)
{
	const char *env = getenv("AXON_NCCL_TRANSPORT");
	int planes;

	*t = TRANSPORT_RC;
	if (env && !strcmp(env, "rc")) {
		AXON_NET_INFO(NCCL_NET_LOG_SUBSYS_NET,
			      "%s: transport RC (AXON_NCCL_TRANSPORT=rc)",
			      d->name);
		return NCCL_NET_OK;
	}
	if (env && !strcmp(env, "rud")) {
		if (!dv.create_qp_ex) {
			AXON_NET_WARN("AXON_NCCL_TRANSPORT=rud: no axondv in the provider");
			return NCCL_NET_INVALID_USAGE;
		}
		*t = TRANSPORT_RUD;
		AXON_NET_INFO(NCCL_NET_LOG_SUBSYS_NET,
			      "%s: transport RUD (AXON_NCCL_TRANSPORT=rud)",
			      d->name);
		return NCCL_NET_OK;
	}
	if (env && *env && strcmp(env, "auto")) {
		AXON_NET_WARN("AXON_NCCL_TRANSPORT=%s: rc, rud or auto", env);
		return NCCL_NET_INVALID_USAGE;
	}
	planes = port_planes(d);
	if (!dv.create_qp_ex) {
		AXON_NET_INFO(NCCL_NET_LOG_SUBSYS_NET,
			      "%s: transport RC (auto: no axondv in the provider)",
			      d->name);
	} else if (planes < 2) {
		AXON_NET_INFO(NCCL_NET_LOG_SUBSYS_NET,
			      "%s: transport RC (auto: %d plane%s, RUD wants 2 or more)",
			      d->name, planes, planes == 1 ? "" : "s");
	} else {
		*t = TRANSPORT_RUD;
		AXON_NET_INFO(NCCL_NET_LOG_SUBSYS_NET,
			      "%s: transport RUD (auto: axondv and %d planes)",
			      d->name, planes);
	}
	return NCCL_NET_OK;
}

/* a traffic class NCCL or the user gives: -1 (none) or 0..255 */
static bool tc_valid(int tc)
{
	return tc >= -1 && tc <= 255;
}

/*
 * The traffic class of a new send comm: the connection's (v10's connect
 * config), else the communicator's (v11's init config), else
 * AXON_NCCL_TC, else 0.
 */
static nres_t tc_wanted(int conn_tc, const struct net_ctx *x, uint8_t *tc)
{
	const char *env = getenv("AXON_NCCL_TC");
	char *end;
	long v;

	if (conn_tc >= 0) {
		*tc = (uint8_t)conn_tc;
		return NCCL_NET_OK;
	}
	if (x && x->tc >= 0) {
		*tc = (uint8_t)x->tc;
		return NCCL_NET_OK;
	}
	*tc = 0;
	if (!env || !*env)
		return NCCL_NET_OK;
	errno = 0;
	v = strtol(env, &end, 0);
	if (errno || *end || v < 0 || v > 255) {
		AXON_NET_WARN("AXON_NCCL_TC=%s: 0 to 255", env);
		return NCCL_NET_INVALID_USAGE;
	}
	*tc = (uint8_t)v;
	return NCCL_NET_OK;
}

/* --- devices --- */

/* the first RoCEv2 GID of port 1 that carries an IPv4 address */
static int pick_gid(struct axon_dev *d)
{
	const char *env = getenv("AXON_NCCL_GID_INDEX");
	struct ibv_gid_entry ent;

	for (int i = 0; i < d->port.gid_tbl_len; i++) {
		if (env && i != atoi(env))
			continue;
		if (ibv_query_gid_ex(d->ctx, 1, i, &ent, 0))
			continue;
		if (ent.gid_type != IBV_GID_TYPE_ROCE_V2)
			continue;
		if (memcmp(ent.gid.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12))
			continue;
		d->gid_index = i;
		memcpy(&d->gid, &ent.gid, sizeof(d->gid));
		memcpy(&d->ip, ent.gid.raw + 12, 4);
		return 0;
	}
	return -1;
}

/* dma-buf MRs are supported if fd -1 fails with EBADF, not EOPNOTSUPP */
static bool probe_dmabuf(struct axon_dev *d)
{
	struct ibv_mr *mr = ibv_reg_dmabuf_mr(d->pd, 0, PAGE, 0, -1,
					      IBV_ACCESS_LOCAL_WRITE);

	if (mr) {
		ibv_dereg_mr(mr);
		return false;
	}
	return errno == EBADF;
}

static void open_dev(struct ibv_device *ibdev)
{
	struct axon_dev *d = &devs[ndevs];
	char sys[PATH_MAX];

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", ibv_get_device_name(ibdev));
	d->ctx = ibv_open_device(ibdev);
	if (!d->ctx)
		return;
	if (ibv_query_device(d->ctx, &d->attr) ||
	    ibv_query_port(d->ctx, 1, &d->port))
		goto close;
	if (pick_gid(d)) {
		AXON_NET_INFO(NCCL_NET_LOG_SUBSYS_INIT,
			      "%s has no RoCEv2 IPv4 GID, left out", d->name);
		goto close;
	}
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		goto close;
	snprintf(sys, sizeof(sys), "/sys/class/infiniband/%s/device", d->name);
	if (!realpath(sys, d->pci_path))
		snprintf(d->pci_path, sizeof(d->pci_path), "%s", sys);
	d->dmabuf = probe_dmabuf(d);
	ndevs++;
	return;
close:
	ibv_close_device(d->ctx);
}

static nres_t devs_open(void)
{
	const char *only = getenv("AXON_NCCL_DEVICE");
	struct ibv_device **list;
	int n;

	pthread_mutex_lock(&lock);
	if (ndevs >= 0) {
		pthread_mutex_unlock(&lock);
		return NCCL_NET_OK;
	}
	ndevs = 0;
	list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n && ndevs < MAX_DEVS; i++) {
		const char *name = ibv_get_device_name(list[i]);

		if (strncmp(name, "axon", 4) || (only && strcmp(name, only)))
			continue;
		open_dev(list[i]);
	}
	if (list)
		ibv_free_device_list(list);
	dv_load();
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < ndevs; i++)
		AXON_NET_INFO(NCCL_NET_LOG_SUBSYS_INIT,
			      "device %d %s (%s) GID %d%s%s", i, devs[i].name,
			      devs[i].pci_path, devs[i].gid_index,
			      devs[i].dmabuf ? ", dma-buf" : "",
			      dv.create_qp_ex ? ", RUD" : "");
	return NCCL_NET_OK;
}

static struct axon_dev *dev_get(int dev)
{
	if (ndevs < 0 || dev < 0 || dev >= ndevs)
		return NULL;
	return &devs[dev];
}

static struct net_ctx *ctx_find(const void *p)
{
	struct net_ctx *x = NULL;

	if (!p)
		return NULL;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_CTXS; i++)
		if (ctxs[i] == p) {
			x = ctxs[i];
			break;
		}
	pthread_mutex_unlock(&lock);
	return x;
}

nres_t axon_net_init(void **ctx, uint64_t comm_id,
		     struct nccl_net_comm_config *config, nccl_net_logger_t log)
{
	struct net_ctx *x;
	int i;

	(void)comm_id;
	if (log)
		axon_net_logger = log;
	if (config && !tc_valid(config->traffic_class)) {
		AXON_NET_WARN("init: traffic class %d: 0 to 255, or -1",
			      config->traffic_class);
		return NCCL_NET_INVALID_USAGE;
	}
	if (!ctx)
		return devs_open();
	x = calloc(1, sizeof(*x));
	if (!x)
		return NCCL_NET_SYSTEM_ERROR;
	x->magic = CTX_MAGIC;
	x->tc = config ? config->traffic_class : -1;
	pthread_mutex_lock(&lock);
	for (i = 0; i < MAX_CTXS && ctxs[i]; i++)
		;
	if (i < MAX_CTXS)
		ctxs[i] = x;
	pthread_mutex_unlock(&lock);
	if (i == MAX_CTXS) {
		free(x);
		return NCCL_NET_SYSTEM_ERROR;
	}
	*ctx = x;
	return devs_open();
}

nres_t axon_net_finalize(void *ctx)
{
	struct net_ctx *x = ctx_find(ctx);

	if (!x)
		return NCCL_NET_INVALID_ARGUMENT;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_CTXS; i++)
		if (ctxs[i] == x)
			ctxs[i] = NULL;
	pthread_mutex_unlock(&lock);
	x->magic = 0;
	free(x);
	return NCCL_NET_OK;
}

nres_t axon_net_devices(int *n)
{
	if (!n)
		return NCCL_NET_INVALID_ARGUMENT;
	*n = ndevs < 0 ? 0 : ndevs;
	return NCCL_NET_OK;
}

/* the port's speed in Mbit/s from the IB speed and width codes */
static int port_mbps(const struct ibv_port_attr *p)
{
	int lane, lanes;

	switch (p->active_speed) {
	case 1: lane = 2500; break;
	case 2: lane = 5000; break;
	case 4: case 8: lane = 10000; break;
	case 16: lane = 14000; break;
	case 32: lane = 25000; break;
	case 64: lane = 50000; break;
	case 128: lane = 100000; break;
	default: lane = 10000; break;
	}
	switch (p->active_width) {
	case 2: lanes = 4; break;
	case 4: lanes = 8; break;
	case 8: lanes = 12; break;
	case 16: lanes = 2; break;
	default: lanes = 1; break;
	}
	return lane * lanes;
}

nres_t axon_net_get_properties(int dev, struct nccl_net_props_v11 *p)
{
	struct axon_dev *d = dev_get(dev);

	if (!d || !p)
		return NCCL_NET_INVALID_ARGUMENT;
	ibv_query_port(d->ctx, 1, &d->port);
	memset(p, 0, sizeof(*p));
	p->name = d->name;
	p->pci_path = d->pci_path;
	p->guid = d->attr.node_guid;
	p->ptr_support = NCCL_NET_PTR_HOST | (d->dmabuf ? NCCL_NET_PTR_DMABUF : 0);
	p->reg_is_global = 1;
	p->force_flush = 0;
	p->speed = port_mbps(&d->port);
	p->port = 1;
	p->latency = 0;
	p->max_comms = d->attr.max_qp / 2 > 0 ? d->attr.max_qp / 2 : 1;
	p->max_recvs = AXON_NET_MAX_RECVS;
	p->dev_type = NCCL_NET_DEVICE_HOST;
	p->dev_version = 0;
	p->vprops.ndevs = 1;
	p->vprops.devs[0] = dev;
	p->max_p2p_bytes = AXON_NET_MAX_BYTES;
	p->max_coll_bytes = AXON_NET_MAX_BYTES;
	p->max_multi_request_size = 1;
	return NCCL_NET_OK;
}

nres_t axon_net_make_vdevice(int *dev, struct nccl_net_vdev_props *props)
{
	/* one physical device per virtual one: no merging of NICs yet */
	if (!dev || !props || props->ndevs != 1 || !dev_get(props->devs[0]))
		return NCCL_NET_INVALID_USAGE;
	*dev = props->devs[0];
	return NCCL_NET_OK;
}

nres_t axon_net_set_net_attr(void *ctx, struct nccl_net_attr *attr)
{
	/* hints on peers and flows: nothing here depends on them */
	if (!ctx_find(ctx) || !attr)
		return NCCL_NET_INVALID_ARGUMENT;
	return NCCL_NET_OK;
}

nres_t axon_net_get_device_mr(void *comm, void *mhandle, void **dptr)
{
	(void)comm; (void)mhandle; (void)dptr;
	return NCCL_NET_INVALID_USAGE;	/* no device offload */
}

nres_t axon_net_irecv_consumed(void *recv_comm, int n, void *request)
{
	(void)recv_comm; (void)n; (void)request;
	return NCCL_NET_INVALID_USAGE;	/* no device offload */
}

/* --- sockets: the connection exchange, never blocking --- */

static int sock_nonblock(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* move len bytes of buf (io_done of them done) as far as the socket lets:
 * 1 when done, 0 when it would block, -1 on error or a closed peer */
static int sock_move(struct comm *c, void *buf, size_t len, bool out)
{
	while (c->io_done < len) {
		ssize_t n = out ? send(c->fd, (char *)buf + c->io_done,
				       len - c->io_done, MSG_NOSIGNAL) :
				  recv(c->fd, (char *)buf + c->io_done,
				       len - c->io_done, 0);

		if (n > 0) {
			c->io_done += n;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		return -1;
	}
	c->io_done = 0;
	return 1;
}

/* --- QPs --- */

static struct ibv_qp *qp_create(struct comm *c, uint32_t max_send,
				uint32_t max_recv, enum transport t,
				unsigned int *send_depth)
{
	uint32_t most = c->dev->attr.max_qp_wr;
	struct ibv_qp_init_attr_ex a = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = max_send < most ? max_send : most,
			 .max_recv_wr = max_recv < most ? max_recv : most,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = c->dev->pd,
	};
	struct axondv_qp_init_attr rud = {
		.driver_qp_type = AXONDV_QP_DRIVER_TYPE_RUD,
	};
	struct ibv_qp_attr init = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	struct ibv_qp *qp;

	if (t == TRANSPORT_RUD) {
		a.qp_type = IBV_QPT_DRIVER;
		qp = dv.create_qp_ex(c->dev->ctx, &a, &rud, sizeof(rud));
	} else {
		qp = ibv_create_qp_ex(c->dev->ctx, &a);
	}
	if (!qp)
		return NULL;
	if (send_depth)
		*send_depth = a.cap.max_send_wr;
	if (ibv_modify_qp(qp, &init, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

/*
 * AXON_NCCL_RC_PLANE=k puts this process's RC connections on plane k of
 * the port (tests take a plane down under them): the flow label of a QP's
 * path picks its UDP source port (rdma_flow_label_to_udp_sport() keeps a
 * label under 2^14 as the low bits of 0xc000), and the port picks the
 * plane (source port modulo the planes, which divide 0xc000). Unset, or
 * one plane: no label, the kernel's hash of both QP numbers.
 */
static uint32_t rc_flow_label(struct axon_dev *d)
{
	const char *env = getenv("AXON_NCCL_RC_PLANE");
	int planes;
	char *end;
	long k;

	if (!env || !*env)
		return 0;
	planes = port_planes(d);
	errno = 0;
	k = strtol(env, &end, 10);
	if (errno || *end || k < 0 || k >= planes || planes < 2) {
		AXON_NET_WARN("AXON_NCCL_RC_PLANE=%s: not a plane of %s (%d)",
			      env, d->name, planes);
		return 0;
	}
	AXON_NET_INFO(NCCL_NET_LOG_SUBSYS_NET,
		      "%s: an RC connection on plane %ld (AXON_NCCL_RC_PLANE)",
		      d->name, k);
	return (uint32_t)(k + planes);	/* 0 would be no label */
}

static int qp_connect(struct comm *c, struct ibv_qp *qp,
		      const struct conn_info *peer, uint32_t sq_psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = c->dev->port.active_mtu < peer->mtu ?
			    c->dev->port.active_mtu : (enum ibv_mtu)peer->mtu,
		.dest_qp_num = peer->qpn,
		.rq_psn = peer->psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 12,
		.ah_attr = {
			.is_global = 1,
			.grh = { .sgid_index = c->dev->gid_index,
				 .hop_limit = 64, .traffic_class = c->tc },
			.port_num = 1,
		},
	};

	int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;

	memcpy(a.ah_attr.grh.dgid.raw, peer->gid, 16);
	if (qp->qp_type == IBV_QPT_RC)
		a.ah_attr.grh.flow_label = rc_flow_label(c->dev);
	if (qp->qp_type == IBV_QPT_DRIVER) {
		/* RUD takes RC's attributes and the peer's key */
		struct axondv_modify_qp_attr key = {
			.comp_mask = AXONDV_MODIFY_QP_RUD_PEER_KEY,
			.rud_peer_key = peer->rud_key,
		};

		errno = dv.modify_qp(qp, &a, mask, &key, sizeof(key));
		if (errno)
			return -1;
	} else if (ibv_modify_qp(qp, &a, mask)) {
		return -1;
	}
	a = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS, .timeout = 16, .retry_cnt = 7,
		.rnr_retry = 7, .sq_psn = sq_psn, .max_rd_atomic = 1,
	};
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static void info_fill(struct comm *c, struct ibv_qp *qp, struct ibv_mr *area)
{
	c->local = (struct conn_info){
		.magic = INFO_MAGIC,
		.qpn = qp->qp_num,
		.psn = (uint32_t)random() & 0xffffff,
		.mtu = c->dev->port.active_mtu,
		.area_addr = (uintptr_t)area->addr,
		.area_rkey = area->rkey,
	};
	memcpy(c->local.gid, c->dev->gid.raw, 16);
	c->local.transport = c->transport;
	c->local.tc = c->tc;
	if (c->transport == TRANSPORT_RUD) {
		struct axondv_qp_attr k = { 0 };

		if (!dv.query_qp(qp, &k, sizeof(k)) &&
		    (k.comp_mask & AXONDV_QP_ATTR_RUD_KEY))
			c->local.rud_key = k.rud_key;
	}
}

/* the peer's info, checked before any of it is used */
static bool info_valid(const struct conn_info *i)
{
	return i->magic == INFO_MAGIC && i->qpn && i->qpn < (1U << 24) &&
	       i->psn < (1U << 24) && i->mtu >= IBV_MTU_256 &&
	       i->mtu <= IBV_MTU_4096 && i->area_addr && i->area_rkey &&
	       i->tc <= 255 && !i->reserved &&
	       (i->transport == TRANSPORT_RC ||
		(i->transport == TRANSPORT_RUD && i->rud_key));
}

static struct ibv_mr *reg_area(struct comm *c, void **p, size_t len,
			       int access)
{
	struct ibv_mr *mr;

	*p = NULL;
	if (posix_memalign(p, PAGE, len))
		return NULL;
	memset(*p, 0, len);
	mr = ibv_reg_mr(c->dev->pd, *p, len, IBV_ACCESS_LOCAL_WRITE | access);
	if (!mr) {
		free(*p);
		*p = NULL;
	}
	return mr;
}

static void dereg_area(struct ibv_mr *mr, void *p)
{
	if (mr)
		ibv_dereg_mr(mr);
	free(p);
}

static void comm_free(struct comm *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&lock);
	live_del(c);
	/* requests still posted give their MRs back */
	for (int i = 0; i < SEND_REQS + SLOTS + FLUSH_REQS; i++) {
		struct request *r = i < SEND_REQS ? &c->send_reqs[i] :
				    i < SEND_REQS + SLOTS ?
				    &c->recv_reqs[i - SEND_REQS] :
				    &c->flush_reqs[i - SEND_REQS - SLOTS];

		if (r->kind == REQ_FREE)
			continue;
		for (int k = 0; k < r->n; k++)
			if (r->mrs[k])
				r->mrs[k]->inflight--;
	}
	pthread_mutex_unlock(&lock);
	if (c->flush_qp)
		ibv_destroy_qp(c->flush_qp);
	if (c->qp)
		ibv_destroy_qp(c->qp);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	dereg_area(c->fifo_mr, c->fifo);
	dereg_area(c->sizes_out_mr, c->sizes_out);
	dereg_area(c->cts_mr, c->cts);
	dereg_area(c->sizes_in_mr, c->sizes_in);
	dereg_area(c->flush_mr, c->flush_buf);
	if (c->fd >= 0)
		close(c->fd);
	if (c->pending)
		comm_free(c->pending);
	c->magic = 0;
	free(c);
}

static struct comm *comm_new(struct axon_dev *dev, enum comm_kind kind)
{
	struct comm *c = calloc(1, sizeof(*c));
	bool added;

	if (!c)
		return NULL;
	c->magic = COMM_MAGIC;
	c->kind = kind;
	c->dev = dev;
	c->fd = -1;
	pthread_mutex_lock(&lock);
	added = live_add(c);
	pthread_mutex_unlock(&lock);
	if (!added) {
		free(c);
		return NULL;
	}
	return c;
}

/* the queues and areas of a send or receive comm */
static int comm_setup_rdma(struct comm *c)
{
	c->cq = ibv_create_cq(c->dev->ctx, CQ_DEPTH, NULL, NULL, 0);
	if (!c->cq)
		return -1;
	if (c->kind == COMM_SEND) {
		c->qp = qp_create(c, SQ_DEPTH, 1, c->transport, &c->sq_depth);
		c->fifo_mr = reg_area(c, (void **)&c->fifo,
				      SLOTS * sizeof(struct cts_slot),
				      IBV_ACCESS_REMOTE_WRITE);
		c->sizes_out_mr = reg_area(c, (void **)&c->sizes_out,
					   SLOTS * sizeof(*c->sizes_out), 0);
		if (!c->qp || !c->fifo_mr || !c->sizes_out_mr)
			return -1;
		info_fill(c, c->qp, c->fifo_mr);
		return c->transport == TRANSPORT_RUD && !c->local.rud_key ?
		       -1 : 0;
	}
	c->qp = qp_create(c, SLOTS, SLOTS, c->transport, NULL);
	/* the flush READ wants RC's order behind the NIC's writes */
	c->flush_qp = qp_create(c, FLUSH_REQS, 1, TRANSPORT_RC, NULL);
	c->cts_mr = reg_area(c, (void **)&c->cts,
			     SLOTS * sizeof(struct cts_slot), 0);
	c->sizes_in_mr = reg_area(c, (void **)&c->sizes_in,
				  SLOTS * sizeof(*c->sizes_in),
				  IBV_ACCESS_REMOTE_WRITE);
	c->flush_mr = reg_area(c, (void **)&c->flush_buf, PAGE, 0);
	if (!c->qp || !c->flush_qp || !c->cts_mr || !c->sizes_in_mr ||
	    !c->flush_mr)
		return -1;
	info_fill(c, c->qp, c->sizes_in_mr);
	if (c->transport == TRANSPORT_RUD && !c->local.rud_key)
		return -1;
	/* the flush QP is its own peer */
	struct conn_info self = c->local;

	self.qpn = c->flush_qp->qp_num;
	return qp_connect(c, c->flush_qp, &self, self.psn);
}

/* --- listen, connect, accept --- */

nres_t axon_net_listen(void *ctx, int dev, void *handle, void **listen_comm)
{
	struct axon_dev *d = dev_get(dev);
	struct listen_handle *h = handle;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	struct comm *c;

	(void)ctx;
	if (!d || !handle || !listen_comm)
		return NCCL_NET_INVALID_ARGUMENT;
	c = comm_new(d, COMM_LISTEN);
	if (!c)
		return NCCL_NET_SYSTEM_ERROR;
	sa.sin_addr.s_addr = d->ip;
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || bind(c->fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(c->fd, 128) || sock_nonblock(c->fd) ||
	    getsockname(c->fd, (struct sockaddr *)&sa, &len)) {
		AXON_NET_WARN("listen on %s: %s", d->name, strerror(errno));
		comm_free(c);
		return NCCL_NET_SYSTEM_ERROR;
	}
	memset(handle, 0, NCCL_NET_HANDLE_BYTES);
	h->magic = HANDLE_MAGIC;
	h->ip = sa.sin_addr.s_addr;
	h->port = sa.sin_port;
	h->dev_guid_lo = (uint32_t)d->attr.node_guid;
	*listen_comm = c;
	return NCCL_NET_OK;
}

/* the traffic class the QP took, as the device reports it; -1 if unknown */
static int qp_tc(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr init;

	if (ibv_query_qp(qp, &a, IBV_QP_AV, &init))
		return -1;
	return a.ah_attr.grh.traffic_class;
}

nres_t axon_net_connect(void *ctx, int dev, void *handle, void **send_comm,
			ndevh_t **send_dev_comm)
{
	return axon_net_connect_tc(ctx, dev, -1, handle, send_comm,
				   send_dev_comm);
}

nres_t axon_net_connect_tc(void *ctx, int dev, int traffic_class,
			   void *handle, void **send_comm,
			   ndevh_t **send_dev_comm)
{
	struct net_ctx *x = ctx_find(ctx);
	struct axon_dev *d = dev_get(dev);
	struct listen_handle *h = handle;
	struct comm *c;
	int r;

	(void)send_dev_comm;
	if (!x || !d || !h || !send_comm)
		return NCCL_NET_INVALID_ARGUMENT;
	if (!tc_valid(traffic_class)) {
		AXON_NET_WARN("connect: traffic class %d: 0 to 255, or -1",
			      traffic_class);
		return NCCL_NET_INVALID_USAGE;
	}
	/* NCCL calls again with the same handle until a comm comes back:
	 * the comm in progress is kept in the handle's spare bytes */
	if (h->magic != HANDLE_MAGIC)
		return NCCL_NET_INVALID_ARGUMENT;
	memcpy(&c, (char *)handle + sizeof(*h), sizeof(c));
	if (c && (!live_find(c, COMM_SEND) || c->stage == ST_READY))
		c = NULL;
	if (!c) {
		struct sockaddr_in sa = { .sin_family = AF_INET };

		enum transport t;
		uint8_t tc;
		nres_t ret;

		if (!h->ip || !h->port)
			return NCCL_NET_INVALID_ARGUMENT;
		ret = tc_wanted(traffic_class, x, &tc);
		if (!ret)
			ret = transport_wanted(d, &t);
		if (ret)
			return ret;
		c = comm_new(d, COMM_SEND);
		if (!c)
			return NCCL_NET_SYSTEM_ERROR;
		c->transport = t;
		c->tc = tc;
		sa.sin_addr.s_addr = h->ip;
		sa.sin_port = h->port;
		c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (c->fd < 0 || sock_nonblock(c->fd) ||
		    (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) &&
		     errno != EINPROGRESS) || comm_setup_rdma(c)) {
			AXON_NET_WARN("connect on %s: %s", d->name,
				      strerror(errno));
			comm_free(c);
			return NCCL_NET_SYSTEM_ERROR;
		}
		c->stage = ST_CONNECTING;
		memcpy((char *)handle + sizeof(*h), &c, sizeof(c));
	}
	*send_comm = NULL;
	switch (c->stage) {
	case ST_CONNECTING: {
		struct pollfd p = { .fd = c->fd, .events = POLLOUT };
		int err = 0;
		socklen_t len = sizeof(err);

		if (poll(&p, 1, 0) <= 0)
			return NCCL_NET_OK;
		getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err) {
			AXON_NET_WARN("connect: %s", strerror(err));
			goto fail;
		}
		c->stage = ST_SEND_INFO;
	}
	/* fall through */
	case ST_SEND_INFO:
		r = sock_move(c, &c->local, sizeof(c->local), true);
		if (r <= 0)
			goto more;
		c->stage = ST_RECV_INFO;
	/* fall through */
	case ST_RECV_INFO:
		r = sock_move(c, &c->remote, sizeof(c->remote), false);
		if (r <= 0)
			goto more;
		if (!info_valid(&c->remote)) {
			AXON_NET_WARN("connect: the peer sent bad QP info");
			goto remote_fail;
		}
		if (qp_connect(c, c->qp, &c->remote, c->local.psn)) {
			AXON_NET_WARN("connect: QP to RTS: %s", strerror(errno));
			goto fail;
		}
		c->peer_area = c->remote.area_addr;
		c->peer_rkey = c->remote.area_rkey;
		c->stage = ST_SEND_READY;
	/* fall through */
	case ST_SEND_READY:
		c->ready_byte = 1;
		r = sock_move(c, &c->ready_byte, 1, true);
		if (r <= 0)
			goto more;
		c->stage = ST_READY;
		memset((char *)handle + sizeof(*h), 0, sizeof(c));
		*send_comm = c;
		AXON_NET_INFO(NCCL_NET_LOG_SUBSYS_NET,
			      "%s: send comm %s QP %u to QP %u traffic class %d",
			      d->name,
			      c->transport == TRANSPORT_RUD ? "RUD" : "RC",
			      c->qp->qp_num, c->remote.qpn, qp_tc(c->qp));
		return NCCL_NET_OK;
	default:
		goto fail;
	}
more:
	if (r == 0)
		return NCCL_NET_OK;
remote_fail:
	memset((char *)handle + sizeof(*h), 0, sizeof(c));
	comm_free(c);
	return NCCL_NET_REMOTE_ERROR;
fail:
	memset((char *)handle + sizeof(*h), 0, sizeof(c));
	comm_free(c);
	return NCCL_NET_SYSTEM_ERROR;
}

nres_t axon_net_accept(void *listen_comm, void **recv_comm,
		       ndevh_t **recv_dev_comm)
{
	struct comm *l = live_find(listen_comm, COMM_LISTEN);
	struct comm *c;
	int r;

	(void)recv_dev_comm;
	if (!l || !recv_comm)
		return NCCL_NET_INVALID_ARGUMENT;
	*recv_comm = NULL;
	if (!l->pending) {
		int fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0)
			return errno == EAGAIN || errno == EINTR ?
			       NCCL_NET_OK : NCCL_NET_SYSTEM_ERROR;
		c = comm_new(l->dev, COMM_RECV);
		if (!c) {
			close(fd);
			return NCCL_NET_SYSTEM_ERROR;
		}
		c->fd = fd;
		if (sock_nonblock(fd)) {
			comm_free(c);
			return NCCL_NET_SYSTEM_ERROR;
		}
		c->stage = ST_RECV_INFO;
		l->pending = c;
	}
	c = l->pending;
	switch (c->stage) {
	case ST_RECV_INFO:
		r = sock_move(c, &c->remote, sizeof(c->remote), false);
		if (r <= 0)
			goto more;
		if (!info_valid(&c->remote)) {
			AXON_NET_WARN("accept: the peer sent bad QP info");
			r = -2;
			goto more;
		}
		/* the sender chose the transport and traffic class */
		c->transport = c->remote.transport;
		c->tc = (uint8_t)c->remote.tc;
		if (c->transport == TRANSPORT_RUD && !dv.create_qp_ex) {
			AXON_NET_WARN("accept: RUD asked for, no axondv here");
			r = -3;
			goto more;
		}
		if (comm_setup_rdma(c)) {
			AXON_NET_WARN("accept on %s: %s", l->dev->name,
				      strerror(errno));
			r = -3;
			goto more;
		}
		if (qp_connect(c, c->qp, &c->remote, c->local.psn)) {
			AXON_NET_WARN("accept: QP to RTS: %s", strerror(errno));
			r = -3;
			goto more;
		}
		c->peer_area = c->remote.area_addr;
		c->peer_rkey = c->remote.area_rkey;
		c->stage = ST_SEND_INFO;
	/* fall through */
	case ST_SEND_INFO:
		r = sock_move(c, &c->local, sizeof(c->local), true);
		if (r <= 0)
			goto more;
		c->stage = ST_RECV_READY;
	/* fall through */
	case ST_RECV_READY:
		r = sock_move(c, &c->ready_byte, 1, false);
		if (r <= 0)
			goto more;
		if (c->ready_byte != 1) {
			r = -2;
			goto more;
		}
		c->stage = ST_READY;
		l->pending = NULL;
		*recv_comm = c;
		AXON_NET_INFO(NCCL_NET_LOG_SUBSYS_NET,
			      "%s: recv comm %s QP %u from QP %u traffic class %d",
			      l->dev->name,
			      c->transport == TRANSPORT_RUD ? "RUD" : "RC",
			      c->qp->qp_num, c->remote.qpn, qp_tc(c->qp));
		return NCCL_NET_OK;
	default:
		r = -3;
		break;
	}
more:
	if (r == 0)
		return NCCL_NET_OK;
	l->pending = NULL;
	comm_free(c);
	return r == -3 ? NCCL_NET_SYSTEM_ERROR : NCCL_NET_REMOTE_ERROR;
}

nres_t axon_net_close_listen(void *listen_comm)
{
	struct comm *l = live_find(listen_comm, COMM_LISTEN);

	if (!l)
		return NCCL_NET_INVALID_ARGUMENT;
	comm_free(l);
	return NCCL_NET_OK;
}

nres_t axon_net_close_send(void *send_comm)
{
	struct comm *c = live_find(send_comm, COMM_SEND);

	if (!c)
		return NCCL_NET_INVALID_ARGUMENT;
	comm_free(c);
	return NCCL_NET_OK;
}

nres_t axon_net_close_recv(void *recv_comm)
{
	struct comm *c = live_find(recv_comm, COMM_RECV);

	if (!c)
		return NCCL_NET_INVALID_ARGUMENT;
	comm_free(c);
	return NCCL_NET_OK;
}

/* a send or receive comm, connected */
static struct comm *data_comm(const void *p)
{
	struct comm *c = live_find(p, COMM_SEND);

	if (!c)
		c = live_find(p, COMM_RECV);
	return c && c->stage == ST_READY ? c : NULL;
}

/* --- memory registration and its cache --- */

static nres_t reg(void *comm, void *data, size_t size, int type,
		  uint64_t offset, int fd, void **mhandle)
{
	struct comm *c = data_comm(comm);
	struct axon_dev *d;
	uintptr_t start, end;
	struct mr_entry *m = NULL;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;

	if (!c || !mhandle || !data || !size || size > SIZE_MAX / 2)
		return NCCL_NET_INVALID_ARGUMENT;
	if (type != NCCL_NET_PTR_HOST && type != NCCL_NET_PTR_DMABUF &&
	    type != NCCL_NET_PTR_CUDA)
		return NCCL_NET_INVALID_ARGUMENT;
	d = c->dev;
	/* CUDA memory reaches this NIC only through a dma-buf */
	if (type == NCCL_NET_PTR_CUDA && fd < 0)
		return NCCL_NET_INVALID_USAGE;
	if (fd >= 0)
		type = NCCL_NET_PTR_DMABUF;
	start = (uintptr_t)data & ~(PAGE - 1);
	end = ((uintptr_t)data + size + PAGE - 1) & ~(PAGE - 1);
	pthread_mutex_lock(&lock);
	/* a cached registration that covers the range serves it too (for
	 * dma-bufs the range is the buffer's address NCCL uses, the iova) */
	for (unsigned int i = 0; i < d->nmrs; i++) {
		if (d->mrs[i]->type == type && d->mrs[i]->start <= start &&
		    d->mrs[i]->end >= end) {
			m = d->mrs[i];
			m->refs++;
			break;
		}
	}
	pthread_mutex_unlock(&lock);
	if (m) {
		*mhandle = m;
		return NCCL_NET_OK;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NCCL_NET_SYSTEM_ERROR;
	m->type = type;
	if (type == NCCL_NET_PTR_DMABUF) {
		/* exactly the range NCCL gave: a dma-buf has no pages beyond */
		m->start = (uintptr_t)data;
		m->end = (uintptr_t)data + size;
		m->mr = ibv_reg_dmabuf_mr(d->pd, offset, size, (uintptr_t)data,
					  fd, access);
	} else {
		m->start = start;
		m->end = end;
		m->mr = ibv_reg_mr(d->pd, (void *)start, end - start, access);
	}
	if (!m->mr) {
		AXON_NET_WARN("%s: registering %zu bytes at %p (%s): %s",
			      d->name, size, data,
			      type == NCCL_NET_PTR_DMABUF ? "dma-buf" : "host",
			      strerror(errno));
		free(m);
		return NCCL_NET_SYSTEM_ERROR;
	}
	m->refs = 1;
	pthread_mutex_lock(&lock);
	if (d->nmrs == MAX_MRS) {
		pthread_mutex_unlock(&lock);
		ibv_dereg_mr(m->mr);
		free(m);
		return NCCL_NET_SYSTEM_ERROR;
	}
	d->mrs[d->nmrs++] = m;
	pthread_mutex_unlock(&lock);
	*mhandle = m;
	return NCCL_NET_OK;
}

nres_t axon_net_reg_mr(void *comm, void *data, size_t size, int type,
		       void **mhandle)
{
	return reg(comm, data, size, type, 0, -1, mhandle);
}

nres_t axon_net_reg_mr_dmabuf(void *comm, void *data, size_t size, int type,
			      uint64_t offset, int fd, void **mhandle)
{
	if (fd < 0)
		return NCCL_NET_INVALID_ARGUMENT;
	return reg(comm, data, size, type, offset, fd, mhandle);
}

nres_t axon_net_dereg_mr(void *comm, void *mhandle)
{
	struct comm *c = data_comm(comm);
	struct axon_dev *d;
	struct mr_entry *m;

	if (!c)
		return NCCL_NET_INVALID_ARGUMENT;
	d = c->dev;
	pthread_mutex_lock(&lock);
	m = mr_find_locked(d, mhandle);
	if (!m) {
		pthread_mutex_unlock(&lock);
		return NCCL_NET_INVALID_ARGUMENT;
	}
	/* the last reference of an MR a posted request uses: refused */
	if (m->refs == 1 && m->inflight) {
		pthread_mutex_unlock(&lock);
		AXON_NET_WARN("deregMr: MR %p is in use by %u requests", m,
			      m->inflight);
		return NCCL_NET_INVALID_USAGE;
	}
	if (--m->refs) {
		pthread_mutex_unlock(&lock);
		return NCCL_NET_OK;
	}
	for (unsigned int i = 0; i < d->nmrs; i++) {
		if (d->mrs[i] == m) {
			d->mrs[i] = d->mrs[--d->nmrs];
			break;
		}
	}
	pthread_mutex_unlock(&lock);
	if (ibv_dereg_mr(m->mr)) {
		free(m);
		return NCCL_NET_SYSTEM_ERROR;
	}
	free(m);
	return NCCL_NET_OK;
}

/* whether [p, p + size) lies inside m */
static bool mr_covers(const struct mr_entry *m, const void *p, uint64_t size)
{
	uintptr_t a = (uintptr_t)p;

	return a >= m->start && a <= m->end && size <= m->end - a;
}

/* --- data path --- */

static struct request *req_get(struct request *pool, int n)
{
	for (int i = 0; i < n; i++) {
		if (pool[i].kind == REQ_FREE) {
			memset(&pool[i], 0, sizeof(pool[i]));
			return &pool[i];
		}
	}
	return NULL;
}

static nres_t progress(struct comm *c);

/* every send of the slot has its match: WRITE them, then the sizes with
 * the sequence number as immediate */
static nres_t send_slot_post(struct comm *c, uint32_t slot, int n)
{
	struct ibv_send_wr wrs[AXON_NET_MAX_RECVS + 1], *bad;
	struct ibv_sge sges[AXON_NET_MAX_RECVS + 1];
	struct cts_slot *s = &c->fifo[slot];
	int nwr = 0;

	memset(wrs, 0, sizeof(wrs));
	for (int i = 0; i < n; i++) {
		struct request *r = c->slot_reqs[slot][i];

		c->sizes_out[slot][i] = r->size;
		if (!r->size)
			continue;
		sges[nwr] = (struct ibv_sge){ .addr = (uintptr_t)r->data,
					      .length = (uint32_t)r->size,
					      .lkey = r->mrs[0]->mr->lkey };
		wrs[nwr].sg_list = &sges[nwr];
		wrs[nwr].num_sge = 1;
		wrs[nwr].opcode = IBV_WR_RDMA_WRITE;
		wrs[nwr].wr.rdma.remote_addr = s->e[i].addr;
		wrs[nwr].wr.rdma.rkey = s->e[i].rkey;
		wrs[nwr].next = &wrs[nwr + 1];
		nwr++;
	}
	sges[nwr] = (struct ibv_sge){
		.addr = (uintptr_t)c->sizes_out[slot],
		.length = n * sizeof(uint64_t),
		.lkey = c->sizes_out_mr->lkey,
	};
	wrs[nwr].sg_list = &sges[nwr];
	wrs[nwr].num_sge = 1;
	wrs[nwr].opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wrs[nwr].imm_data = htonl(c->send_seq + 1);	/* the turn, from 1 */
	/* RUD places messages in any order: the fence keeps the notice
	 * behind the data (RC's order gives that already) */
	wrs[nwr].send_flags = IBV_SEND_SIGNALED |
			      (c->transport == TRANSPORT_RUD ? IBV_SEND_FENCE : 0);
	wrs[nwr].wr_id = WRID(WR_SEND_DONE, slot);
	wrs[nwr].wr.rdma.remote_addr = c->peer_area +
				       slot * sizeof(c->sizes_out[0]);
	wrs[nwr].wr.rdma.rkey = c->peer_rkey;
	if (ibv_post_send(c->qp, wrs, &bad)) {
		AXON_NET_WARN("isend: post: %s", strerror(errno));
		return NCCL_NET_SYSTEM_ERROR;
	}
	for (int i = 0; i < n; i++)
		c->slot_reqs[slot][i]->posted = true;
	c->slot_wrs[slot] = nwr + 1;
	c->sq_used += nwr + 1;
	c->send_seq++;
	return NCCL_NET_OK;
}

nres_t axon_net_isend(void *send_comm, void *data, size_t size, int tag,
		      void *mhandle, void *phandle, void **request)
{
	struct comm *c = live_find(send_comm, COMM_SEND);
	uint32_t slot, seq, n;
	struct cts_slot *s;
	struct mr_entry *m = NULL;
	struct request *r;
	int i;

	(void)phandle;
	if (!c || c->stage != ST_READY || !request)
		return NCCL_NET_INVALID_ARGUMENT;
	*request = NULL;
	if (c->failed)
		return c->failed;
	if (size > AXON_NET_MAX_BYTES)
		return NCCL_NET_INVALID_ARGUMENT;
	if (size) {
		m = mr_find(c->dev, mhandle);
		if (!m || !mr_covers(m, data, size))
			return NCCL_NET_INVALID_ARGUMENT;
	}
	/* room for a whole turn in the send queue, or NCCL calls again */
	if (c->sq_used + AXON_NET_MAX_RECVS + 1 > c->sq_depth) {
		nres_t ret = progress(c);

		if (ret)
			return ret;
		if (c->sq_used + AXON_NET_MAX_RECVS + 1 > c->sq_depth)
			return NCCL_NET_OK;
	}
	slot = c->send_seq % SLOTS;
	seq = c->send_seq + 1;
	s = &c->fifo[slot];
	/* the receiver has not posted this turn yet: NCCL calls again */
	if (__atomic_load_n(&s->e[0].seq, __ATOMIC_ACQUIRE) != seq)
		return NCCL_NET_OK;
	n = s->e[0].nreqs;
	if (!n || n > AXON_NET_MAX_RECVS) {
		AXON_NET_WARN("isend: the peer posted %u receives at once", n);
		return NCCL_NET_REMOTE_ERROR;
	}
	for (i = 1; i < (int)n; i++)
		if (__atomic_load_n(&s->e[i].seq, __ATOMIC_ACQUIRE) != seq)
			return NCCL_NET_OK;
	for (i = 0; i < (int)n; i++)
		if (!c->slot_reqs[slot][i] && s->e[i].tag == tag)
			break;
	if (i == (int)n)
		return NCCL_NET_OK;	/* no receive of this tag posted yet */
	if (s->e[i].size && (!s->e[i].addr || !s->e[i].rkey)) {
		AXON_NET_WARN("isend: the peer posted a bad receive");
		return NCCL_NET_REMOTE_ERROR;
	}
	r = req_get(c->send_reqs, SEND_REQS);
	if (!r)
		return NCCL_NET_OK;
	r->kind = REQ_SEND;
	r->comm = c;
	r->n = 1;
	r->seq = seq;
	r->data = data;
	/* a receive smaller than the send takes what fits, as net_ib does */
	r->size = size < s->e[i].size ? size : s->e[i].size;
	r->mrs[0] = m;
	mr_inflight(m, 1);
	c->slot_reqs[slot][i] = r;
	for (i = 0; i < (int)n; i++)
		if (!c->slot_reqs[slot][i])
			break;
	if (i == (int)n) {
		nres_t ret = send_slot_post(c, slot, n);

		if (ret) {
			r->kind = REQ_FREE;
			mr_inflight(m, -1);
			c->slot_reqs[slot][--i] = NULL;
			return ret;
		}
	}
	*request = r;
	return NCCL_NET_OK;
}

nres_t axon_net_irecv(void *recv_comm, int n, void **data, size_t *sizes,
		      int *tags, void **mhandles, void **phandles,
		      void **request)
{
	struct comm *c = live_find(recv_comm, COMM_RECV);
	struct ibv_recv_wr rwr = { 0 }, *rbad;
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_sge sge;
	struct request *r;
	uint32_t slot, seq;
	struct cts_slot *s;

	(void)phandles;
	if (!c || c->stage != ST_READY || !request || n < 1 ||
	    n > AXON_NET_MAX_RECVS || !data || !sizes || !tags || !mhandles)
		return NCCL_NET_INVALID_ARGUMENT;
	*request = NULL;
	if (c->failed)
		return c->failed;
	slot = c->recv_seq % SLOTS;
	seq = c->recv_seq + 1;
	r = &c->recv_reqs[slot];
	if (r->kind != REQ_FREE)
		return NCCL_NET_OK;	/* that turn's receive is still out */
	memset(r, 0, sizeof(*r));
	s = &c->cts[slot];
	for (int i = 0; i < n; i++) {
		if (sizes[i] > AXON_NET_MAX_BYTES)
			return NCCL_NET_INVALID_ARGUMENT;
		r->mrs[i] = NULL;
		if (sizes[i]) {
			r->mrs[i] = mr_find(c->dev, mhandles[i]);
			if (!r->mrs[i] ||
			    !mr_covers(r->mrs[i], data[i], sizes[i]))
				return NCCL_NET_INVALID_ARGUMENT;
		}
		s->e[i] = (struct cts_entry){
			.addr = (uintptr_t)data[i],
			.size = sizes[i],
			.rkey = r->mrs[i] ? r->mrs[i]->mr->rkey : 0,
			.tag = tags[i],
			.nreqs = n,
			.seq = seq,
		};
		r->posted_size[i] = sizes[i];
	}
	/* the WRITE_WITH_IMM that ends this turn consumes a receive */
	rwr.wr_id = WRID(WR_RECV, slot);
	if (ibv_post_recv(c->qp, &rwr, &rbad)) {
		AXON_NET_WARN("irecv: post receive: %s", strerror(errno));
		return NCCL_NET_SYSTEM_ERROR;
	}
	sge = (struct ibv_sge){ .addr = (uintptr_t)s,
				.length = n * sizeof(struct cts_entry),
				.lkey = c->cts_mr->lkey };
	wr.wr_id = WRID(WR_CTS, slot);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = c->peer_area + slot * sizeof(struct cts_slot);
	wr.wr.rdma.rkey = c->peer_rkey;
	if (ibv_post_send(c->qp, &wr, &bad)) {
		AXON_NET_WARN("irecv: post clear-to-send: %s", strerror(errno));
		return NCCL_NET_SYSTEM_ERROR;
	}
	r->kind = REQ_RECV;
	r->comm = c;
	r->n = n;
	r->seq = seq;
	for (int i = 0; i < n; i++)
		mr_inflight(r->mrs[i], 1);
	c->recv_seq++;
	*request = r;
	return NCCL_NET_OK;
}

nres_t axon_net_iflush(void *recv_comm, int n, void **data, int *sizes,
		       void **mhandles, void **request)
{
	struct comm *c = live_find(recv_comm, COMM_RECV);
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_sge sge;
	struct mr_entry *m;
	struct request *r;
	int last = -1;

	if (!c || c->stage != ST_READY || !request || n < 1 ||
	    n > AXON_NET_MAX_RECVS || !data || !sizes || !mhandles)
		return NCCL_NET_INVALID_ARGUMENT;
	*request = NULL;
	for (int i = 0; i < n; i++)
		if (sizes[i] > 0)
			last = i;
	if (last < 0)
		return NCCL_NET_OK;
	m = mr_find(c->dev, mhandles[last]);
	if (!m || !mr_covers(m, data[last], 1))
		return NCCL_NET_INVALID_ARGUMENT;
	/* host memory is coherent with the NIC's writes: nothing to flush */
	if (m->type != NCCL_NET_PTR_DMABUF)
		return NCCL_NET_OK;
	r = req_get(c->flush_reqs, FLUSH_REQS);
	if (!r)
		return NCCL_NET_OK;
	sge = (struct ibv_sge){ .addr = (uintptr_t)c->flush_buf, .length = 1,
				.lkey = c->flush_mr->lkey };
	wr.wr_id = WRID(WR_FLUSH, r - c->flush_reqs);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)data[last];
	wr.wr.rdma.rkey = m->mr->rkey;
	if (ibv_post_send(c->flush_qp, &wr, &bad)) {
		AXON_NET_WARN("iflush: post READ: %s", strerror(errno));
		return NCCL_NET_SYSTEM_ERROR;
	}
	r->kind = REQ_FLUSH;
	r->comm = c;
	r->n = 1;
	r->mrs[0] = m;
	mr_inflight(m, 1);
	*request = r;
	return NCCL_NET_OK;
}

/* the immediate of turn seq arrived: its sizes are in the size area */
static nres_t recv_done(struct comm *c, uint32_t seq)
{
	uint32_t slot = (seq - 1) % SLOTS;
	struct request *r = &c->recv_reqs[slot];

	if (r->kind != REQ_RECV || r->seq != seq || r->done) {
		AXON_NET_WARN("test: the peer completed turn %u not posted",
			      seq);
		return NCCL_NET_REMOTE_ERROR;
	}
	for (int i = 0; i < r->n; i++) {
		uint64_t got = c->sizes_in[slot][i];

		if (got > r->posted_size[i]) {
			AXON_NET_WARN("test: the peer sent %lu bytes into %lu",
				      (unsigned long)got,
				      (unsigned long)r->posted_size[i]);
			return NCCL_NET_REMOTE_ERROR;
		}
		r->sizes[i] = (int)got;
	}
	r->done = true;
	return NCCL_NET_OK;
}

static nres_t progress(struct comm *c)
{
	struct ibv_wc wc[16];
	int n;

	if (c->failed)
		return c->failed;
	while ((n = ibv_poll_cq(c->cq, 16, wc)) > 0) {
		for (int i = 0; i < n; i++) {
			uint32_t idx = WRID_IDX(wc[i].wr_id);
			nres_t ret = NCCL_NET_OK;

			if (wc[i].status != IBV_WC_SUCCESS) {
				AXON_NET_WARN("%s: completion %s (wr kind %u)",
					      c->dev->name,
					      ibv_wc_status_str(wc[i].status),
					      WRID_KIND(wc[i].wr_id));
				c->failed = NCCL_NET_REMOTE_ERROR;
				return c->failed;
			}
			switch (WRID_KIND(wc[i].wr_id)) {
			case WR_SEND_DONE:
				if (idx >= SLOTS)
					break;
				c->sq_used -= c->slot_wrs[idx];
				c->slot_wrs[idx] = 0;
				for (int k = 0; k < AXON_NET_MAX_RECVS; k++) {
					struct request *r = c->slot_reqs[idx][k];

					if (!r)
						continue;
					r->done = true;
					r->sizes[0] = (int)r->size;
					c->slot_reqs[idx][k] = NULL;
				}
				break;
			case WR_RECV:
				if (!(wc[i].wc_flags & IBV_WC_WITH_IMM)) {
					ret = NCCL_NET_REMOTE_ERROR;
					break;
				}
				ret = recv_done(c, ntohl(wc[i].imm_data));
				break;
			case WR_FLUSH:
				if (idx < FLUSH_REQS)
					c->flush_reqs[idx].done = true;
				break;
			default:	/* WR_CTS: nothing waits on it */
				break;
			}
			if (ret) {
				c->failed = ret;
				return ret;
			}
		}
	}
	if (n < 0) {
		c->failed = NCCL_NET_SYSTEM_ERROR;
		return c->failed;
	}
	return NCCL_NET_OK;
}

nres_t axon_net_test(void *request, int *done, int *sizes)
{
	struct request *r = request_find(request);
	nres_t ret;

	if (!r || !done)
		return NCCL_NET_INVALID_ARGUMENT;
	*done = 0;
	ret = progress(r->comm);
	if (ret)
		return ret;
	if (!r->done)
		return NCCL_NET_OK;
	*done = 1;
	if (sizes)
		for (int i = 0; i < r->n; i++)
			sizes[i] = r->kind == REQ_FLUSH ? 0 : r->sizes[i];
	for (int i = 0; i < r->n; i++)
		mr_inflight(r->mrs[i], -1);
	r->kind = REQ_FREE;
	return NCCL_NET_OK;
}
