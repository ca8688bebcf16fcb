// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Connections: listen gives a handle naming a TCP socket on the address of
 * the NIC's RoCEv2 GID; connect and accept exchange QP numbers, GIDs and
 * the rendezvous areas over it, never blocking, and bring the QPs to RTS;
 * the comms are made and freed here.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transport.h"

bool tc_valid(int tc)
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

/* the connection exchange over a socket, never blocking */
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
		qp = axon_dv.create_qp_ex(c->dev->ctx, &a, &rud, sizeof(rud));
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
 * The flow label that keeps an RC QP on plane k of the port (a plane
 * device's connections): the label of a path picks its UDP source port
 * (rdma_flow_label_to_udp_sport() keeps a label under 2^14 as the low bits
 * of 0xc000), and the port picks the plane (source port modulo the planes,
 * which divide 0xc000). No plane: no label, the kernel's hash of both QP
 * numbers.
 */
static uint32_t plane_flow_label(const struct comm *c)
{
	if (c->plane < 0)
		return 0;
	return (uint32_t)(c->plane + c->dev->planes);	/* 0: no label */
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
		a.ah_attr.grh.flow_label = plane_flow_label(c);
	if (qp->qp_type == IBV_QPT_DRIVER) {
		/* RUD takes RC's attributes and the peer's key */
		struct axondv_modify_qp_attr key = {
			.comp_mask = AXONDV_MODIFY_QP_RUD_PEER_KEY,
			.rud_peer_key = peer->rud_key,
		};

		errno = axon_dv.modify_qp(qp, &a, mask, &key, sizeof(key));
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
	c->local.plane = c->plane;
	if (c->transport == TRANSPORT_RUD) {
		struct axondv_qp_attr k = { 0 };

		if (!axon_dv.query_qp(qp, &k, sizeof(k)) &&
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
	       i->tc <= 255 && i->plane >= -1 && i->plane < 16 &&
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
	pthread_mutex_lock(&axon_net_lock);
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
	pthread_mutex_unlock(&axon_net_lock);
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
	c->plane = -1;
	c->fd = -1;
	pthread_mutex_lock(&axon_net_lock);
	added = live_add(c);
	pthread_mutex_unlock(&axon_net_lock);
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
		/* RC's notice of the sizes; RUD's immediates carry none */
		if (c->transport == TRANSPORT_RC)
			c->sizes_out_mr = reg_area(c, (void **)&c->sizes_out,
						   SLOTS * sizeof(*c->sizes_out),
						   0);
		if (!c->qp || !c->fifo_mr ||
		    (c->transport == TRANSPORT_RC && !c->sizes_out_mr))
			return -1;
		info_fill(c, c->qp, c->fifo_mr);
		return c->transport == TRANSPORT_RUD && !c->local.rud_key ?
		       -1 : 0;
	}
	/* RUD: a receive WR for every entry of every turn */
	c->qp = qp_create(c, SLOTS,
			  c->transport == TRANSPORT_RUD ?
			  SLOTS * AXON_NET_MAX_RECVS : SLOTS,
			  c->transport, NULL);
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

nres_t axon_net_listen(void *ctx, int dev, void *handle, void **listen_comm)
{
	struct net_dev *nd = net_dev_get(dev);
	struct axon_dev *d = nd ? nd->nic : NULL;
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
	struct net_dev *nd = net_dev_get(dev);
	struct axon_dev *d = nd ? nd->nic : NULL;
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
			ret = transport_wanted(nd, &t);
		if (ret)
			return ret;
		c = comm_new(d, COMM_SEND);
		if (!c)
			return NCCL_NET_SYSTEM_ERROR;
		c->transport = t;
		c->tc = tc;
		c->plane = nd->plane;
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
		/* the sender chose the transport, traffic class and plane */
		c->transport = c->remote.transport;
		c->tc = (uint8_t)c->remote.tc;
		c->plane = c->remote.plane < c->dev->planes ?
			   c->remote.plane : -1;
		if (c->transport == TRANSPORT_RUD && !axon_dv.create_qp_ex) {
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
struct comm *data_comm(const void *p)
{
	struct comm *c = live_find(p, COMM_SEND);

	if (!c)
		c = live_find(p, COMM_RECV);
	return c && c->stage == ST_READY ? c : NULL;
}
