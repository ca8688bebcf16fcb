// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A GPU-less driver of libnccl-net-axon.so: it loads the plugin as NCCL's
 * loader does (dlopen "libnccl-net-axon.so" with RTLD_NOW | RTLD_LOCAL,
 * dlsym "ncclNetPlugin_v11") and calls it as NCCL's proxy thread does:
 *
 *  - the device as NCCL's topology picks it: the physical devices of the
 *    first NIC (its planes, when it has several) fused with makeVDevice,
 *    or with --plane K the NIC's Kth device alone;
 *  - listen, then connect and accept called again and again until each
 *    returns a comm (both must not block: NCCL polls them);
 *  - isend may return a NULL request (the receiver has not posted yet) and
 *    is called again; irecv groups up to maxRecvs receives with tags; test
 *    is polled until done and reports the sizes received; a receive may
 *    be larger than its send (the size received is reported) or smaller
 *    (the send is cut to it, as net_ib does);
 *  - iflush after a receive into GPU (dma-buf) memory, none for host;
 *  - bad input to every entry point: an error code back, no crash;
 *  - comms closed in either order;
 *  - a traffic class (v11's init config, v10's connect config) reaches
 *    the QPs of both sides, as the plugin's log reports them from
 *    ibv_query_qp; out of 0..255 it is refused; with AXON_NCCL_TRANSPORT
 *    auto the plugin picks RUD only with axondv and two planes or more;
 *  - a ring all-reduce of uint32 sums, every element checked, with the
 *    bus bandwidth nccl-tests reports: algbw * 2 (n - 1) / n;
 *  - an all-to-all over a connection to and from every other rank, every
 *    element checked, its bus bandwidth algbw * (n - 1) / n.
 *
 * With --for S it only connects and all-reduces the first size for S
 * seconds while the fabric takes a plane down: --expect go (RUD keeps
 * going) or --expect stop (RC on the plane device that goes down stops).
 *
 * SPMD over nranks processes (one per VM): rank r sends to r + 1 and
 * receives from r - 1. The 128-byte handles travel over a TCP control
 * socket to the previous rank, as NCCL's bootstrap does. With --gpu the
 * buffers are axon-gpu dma-bufs (/dev/axon_gpu0), mapped for the checks.
 *
 *   axon-nccl-test --rank R --nranks N --peers "IP0 IP1 ..." [--gpu]
 *                  [--sizes B,B,...] [--iters N] [--port P] [--timeout S]
 *                  [--plane K] [--for S --expect go|stop]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <axon/axon_gpu.h>

#include "nccl_net_abi.h"
#include "tap.h"

#define MAX_RANKS	16
#define TAG_AR		0x10
#define MAX_SIZES	16
/* the most receives one irecv groups here (the plugin says how many) */
#define AXON_NET_MAX	8

static const struct nccl_net_v11 *net;
/* the older tables, for NCCL releases before 2.28: same comms, their own
 * argument types */
static const struct nccl_net_v8 *net_v8;
static const struct nccl_net_v9 *net_v9;
static const struct nccl_net_v10 *net_v10;
static void *ctx;
static int rank, nranks, dev;
static struct nccl_net_props_v11 props;
static bool gpu;
static double timeout_s = 60;
/* the plugin's AXON_NCCL_TRANSPORT, for the report */
static const char *transport = "rc";
static int gpu_fd = -1;
static int ctl_prev = -1, ctl_next = -1;
static void *send_comm, *recv_comm, *listen_comm;
/* from the plugin's log: the traffic class its last send and receive
 * comms' QPs report (-2: none logged), the last transport it chose, and
 * whether a device has RUD (axondv) */
static int log_send_tc = -2, log_recv_tc = -2;
static char log_choice[8];
static bool log_rud_dev;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void die(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tap_bail("%s", msg);
	exit(1);
}

/* NCCL's logger as the plugin sees it: its lines as TAP diagnostics */
static void logger(enum nccl_net_log_level level, unsigned long subsys,
		   const char *file, int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	(void)subsys;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tap_diag("%s %s:%d %s", level == NCCL_NET_LOG_WARN ? "WARN" : "INFO",
		 file, line, msg);

	const char *tc = strstr(msg, " traffic class ");
	const char *t = strstr(msg, ": transport ");

	if (tc && strstr(msg, ": send comm "))
		log_send_tc = atoi(tc + strlen(" traffic class "));
	if (tc && strstr(msg, ": recv comm "))
		log_recv_tc = atoi(tc + strlen(" traffic class "));
	if (t)
		sscanf(t + strlen(": transport "), "%7[A-Z]", log_choice);
	if (!strcmp(msg, "NET/axon: RUD: axondv found"))
		log_rud_dev = true;
}

/* --- control sockets: handles and barriers with the ring neighbours --- */

static void full_io(int fd, void *p, size_t n, bool out)
{
	while (n) {
		ssize_t k = out ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, 0);

		if (k <= 0) {
			if (k < 0 && errno == EINTR)
				continue;
			die("control socket: %s", k ? strerror(errno) : "closed");
		}
		p = (char *)p + k;
		n -= k;
	}
}

static void ctl_setup(const char *peers[], int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	int one = 1, srv = socket(AF_INET, SOCK_STREAM, 0);
	int prev = (rank + nranks - 1) % nranks;
	double end = now() + timeout_s;

	setsockopt(srv, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(srv, (struct sockaddr *)&sa, sizeof(sa)) || listen(srv, 4))
		die("control: listen on port %d: %s", port, strerror(errno));
	/* to the previous rank's server; the next rank comes to ours */
	for (;;) {
		ctl_prev = socket(AF_INET, SOCK_STREAM, 0);
		inet_pton(AF_INET, peers[prev], &sa.sin_addr);
		if (!connect(ctl_prev, (struct sockaddr *)&sa, sizeof(sa)))
			break;
		close(ctl_prev);
		if (now() > end)
			die("control: connect to rank %d (%s): %s", prev,
			    peers[prev], strerror(errno));
		usleep(100000);
	}
	ctl_next = accept(srv, NULL, NULL);
	if (ctl_next < 0)
		die("control: accept: %s", strerror(errno));
	setsockopt(ctl_prev, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(ctl_next, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	close(srv);
}

/* both neighbours have reached this point too */
static void barrier(void)
{
	char b = 1;

	full_io(ctl_prev, &b, 1, true);
	full_io(ctl_next, &b, 1, true);
	full_io(ctl_prev, &b, 1, false);
	full_io(ctl_next, &b, 1, false);
}

/* --- buffers: host memory or an axon-gpu dma-buf --- */

struct buf {
	uint8_t *cpu;	/* where this program reads and writes it */
	void *net;	/* the address the plugin is given */
	size_t size;
	int fd;		/* the dma-buf, or -1 */
	void *mh;
	void *comm;	/* the comm it was registered with */
};

static void buf_alloc(struct buf *b, size_t size)
{
	memset(b, 0, sizeof(*b));
	b->size = size;
	b->fd = -1;
	if (!gpu) {
		if (posix_memalign((void **)&b->cpu, 4096, size))
			die("out of memory");
		b->net = b->cpu;
		return;
	}
	struct axon_gpu_alloc a = {
		.size = (size + AXON_GPU_PAGE_SIZE - 1) & ~(uint64_t)(AXON_GPU_PAGE_SIZE - 1),
		.fd = -1,
	};

	if (ioctl(gpu_fd, AXON_GPU_IOCTL_ALLOC, &a))
		die("axon-gpu: allocating %zu bytes: %s", size, strerror(errno));
	b->fd = a.fd;
	b->net = (void *)(uintptr_t)a.gpu_va;
	b->cpu = mmap(NULL, a.size, PROT_READ | PROT_WRITE, MAP_SHARED, a.fd, 0);
	if (b->cpu == MAP_FAILED)
		die("axon-gpu: mmap: %s", strerror(errno));
}

static int buf_reg(struct buf *b, void *comm)
{
	b->comm = comm;
	if (b->fd < 0)
		return net->reg_mr(comm, b->net, b->size, NCCL_NET_PTR_HOST, &b->mh);
	/* NCCL registers CUDA memory with its dma-buf fd */
	return net->reg_mr_dmabuf(comm, b->net, b->size, NCCL_NET_PTR_CUDA, 0,
				  b->fd, &b->mh);
}

static void buf_free(struct buf *b)
{
	if (b->mh)
		net->dereg_mr(b->comm, b->mh);
	if (b->fd >= 0) {
		munmap(b->cpu, (b->size + AXON_GPU_PAGE_SIZE - 1) &
			       ~(size_t)(AXON_GPU_PAGE_SIZE - 1));
		close(b->fd);
	} else {
		free(b->cpu);
	}
	memset(b, 0, sizeof(*b));
}

static uint8_t pattern(int from, int what, size_t i)
{
	return (uint8_t)((i * 131 + from * 17 + what * 29 + (i >> 8)) | 1);
}

/* --- driving requests as the proxy thread does --- */

/* isend, called again while it returns no request */
static int send_until(void *data, size_t size, int tag, void *mh, void **req)
{
	double end = now() + timeout_s;
	int ret;

	do {
		ret = net->isend(send_comm, data, size, tag, mh, NULL, req);
		if (ret || *req)
			return ret;
	} while (now() < end);
	return -ETIMEDOUT;
}

/* test polled until done; sizes filled */
static int wait_req(void *req, int *sizes)
{
	double end = now() + timeout_s;
	int done = 0, ret;

	do {
		ret = net->test(req, &done, sizes);
		if (ret)
			return ret;
		if (done)
			return 0;
	} while (now() < end);
	return -ETIMEDOUT;
}

static int recv_one(void *data, size_t size, int tag, void *mh, void **req)
{
	return net->irecv(recv_comm, 1, &data, &size, &tag, &mh, NULL, req);
}

/* one send to the next rank and one receive from the previous, both
 * waited for; *got is the size received */
static int exchange(struct buf *s, size_t ssize, struct buf *r, size_t rsize,
		    int tag, int *got)
{
	void *rreq = NULL, *sreq = NULL;
	int ret, size = -1;

	ret = recv_one(r->net, rsize, tag, r->mh, &rreq);
	if (ret || !rreq)
		return ret ? ret : -EAGAIN;
	ret = send_until(s->net, ssize, tag, s->mh, &sreq);
	if (ret)
		return ret;
	ret = wait_req(sreq, NULL);
	if (!ret)
		ret = wait_req(rreq, &size);
	if (got)
		*got = size;
	return ret;
}

/* --- the cases --- */

static void bad_input_before_connect(void)
{
	uint8_t handle[NCCL_NET_HANDLE_BYTES];
	uint64_t garbage[16];
	struct nccl_net_props_v11 p;
	void *comm = NULL, *req = NULL;
	int done, ret, size = 1, tag = 0;
	void *data = handle, *mh = garbage;
	size_t sz = 1;

	for (unsigned int i = 0; i < sizeof(garbage) / 8; i++)
		garbage[i] = 0x5a5a5a5a5a5a5a5aULL * (i + 1);
	tap_ok(net->get_properties(-1, &p) != 0, "getProperties(-1) fails");
	tap_ok(net->get_properties(1 << 20, &p) != 0,
	       "getProperties(an unknown device) fails");
	tap_ok(net->get_properties(dev, NULL) != 0,
	       "getProperties(NULL properties) fails");
	tap_ok(net->listen(ctx, -1, handle, &comm) != 0,
	       "listen on an unknown device fails");
	memcpy(handle, garbage, sizeof(handle));
	ret = net->connect(ctx, dev, handle, &comm, NULL);
	tap_ok(ret != 0 && !comm, "connect to a garbage handle fails (%d)", ret);
	memset(handle, 0, sizeof(handle));
	ret = net->connect(ctx, dev, handle, &comm, NULL);
	tap_ok(ret != 0 && !comm, "connect to a zeroed handle fails (%d)", ret);
	tap_ok(net->accept(garbage, &comm, NULL) != 0,
	       "accept on a garbage listen comm fails");
	tap_ok(net->test(NULL, &done, NULL) != 0, "test(NULL) fails");
	tap_ok(net->test(garbage, &done, NULL) != 0,
	       "test(a garbage request) fails");
	tap_ok(net->isend(garbage, data, 1, 0, mh, NULL, &req) != 0,
	       "isend on a garbage comm fails");
	tap_ok(net->irecv(garbage, 1, &data, &sz, &tag, &mh, NULL, &req) != 0,
	       "irecv on a garbage comm fails");
	tap_ok(net->iflush(garbage, 1, &data, &size, &mh, &req) != 0,
	       "iflush on a garbage comm fails");
	tap_ok(net->reg_mr(garbage, data, 1, NCCL_NET_PTR_HOST, &mh) != 0,
	       "regMr on a garbage comm fails");
	tap_ok(net->dereg_mr(garbage, garbage) != 0,
	       "deregMr on a garbage comm fails");
	tap_ok(net->close_send(garbage) != 0 && net->close_recv(garbage) != 0 &&
	       net->close_listen(garbage) != 0,
	       "closeSend, closeRecv, closeListen of garbage fail");
	tap_ok(net->make_vdevice(&done, NULL) != 0,
	       "makeVDevice(NULL properties) fails");
}
#define N_BAD_BEFORE 16

/*
 * The device, picked as NCCL's topology does: the physical devices with
 * the first one's PCI path are one NIC (one device, or one a plane), which
 * NCCL fuses with makeVDevice (NCCL_NET_MERGE_LEVEL PORT, its default);
 * with --plane K the NIC's Kth device, as NCCL_NET_MERGE_LEVEL=LOC leaves
 * them.
 */
static void pick_device(int ndev, int plane)
{
	struct nccl_net_vdev_props v = { 0 }, bad[5];
	struct nccl_net_props_v11 p, vp;
	char path0[4096] = "", names[NCCL_NET_VDEV_MAX_DEVS][80];
	bool own = true, apart = true, all_bad = true;
	int vdev = -1, again = -1, now_ndev = 0, speeds = 0, ret;

	for (int i = 0; i < ndev; i++) {
		if (net->get_properties(i, &p) || !p.name || !p.pci_path)
			die("getProperties(%d) failed", i);
		if (!i)
			snprintf(path0, sizeof(path0), "%s", p.pci_path);
		if (strcmp(p.pci_path, path0))
			continue;
		if (v.ndevs == NCCL_NET_VDEV_MAX_DEVS) {
			apart = false;
			break;
		}
		own &= p.vprops.ndevs == 1 && p.vprops.devs[0] == i;
		for (int k = 0; k < v.ndevs; k++)
			apart &= strcmp(names[k], p.name) != 0;
		snprintf(names[v.ndevs], sizeof(names[0]), "%s", p.name);
		speeds += p.speed;
		v.devs[v.ndevs++] = i;
	}
	tap_ok(own && apart,
	       "devices: %d of %d on the first NIC, each named apart and its own vProps",
	       v.ndevs, ndev);
	ret = net->make_vdevice(&vdev, &v);
	if (!ret)
		ret = net->make_vdevice(&again, &v);
	if (!ret)
		ret = net->devices(&now_ndev);
	if (!ret)
		ret = net->get_properties(vdev, &vp);
	if (v.ndevs == 1)
		tap_ok(!ret && vdev == v.devs[0] && again == vdev &&
		       now_ndev == ndev,
		       "makeVDevice of the NIC's one device: that device (%d)",
		       ret);
	else
		tap_ok(!ret && vdev == ndev && again == vdev &&
		       now_ndev == ndev + 1 && vp.vprops.ndevs == v.ndevs &&
		       !memcmp(vp.vprops.devs, v.devs, v.ndevs * sizeof(int)) &&
		       vp.speed >= speeds && !strcmp(vp.pci_path, path0),
		       "makeVDevice of the NIC's %d planes: device %d (again: %d), %d devices now, vProps the planes, speed %d Mbit/s (%d)",
		       v.ndevs, vdev, again, now_ndev, vp.speed, ret);
	/* nothing, too many, unknown, twice, virtual */
	bad[0] = (struct nccl_net_vdev_props){ .ndevs = 0 };
	bad[1] = (struct nccl_net_vdev_props){ .ndevs = 5 };
	bad[2] = (struct nccl_net_vdev_props){ .ndevs = 2,
					       .devs = { v.devs[0], 1 << 20 } };
	bad[3] = (struct nccl_net_vdev_props){ .ndevs = 2,
					       .devs = { v.devs[0], v.devs[0] } };
	bad[4] = (struct nccl_net_vdev_props){ .ndevs = 1,
					       .devs = { v.ndevs > 1 ? vdev : -1 } };
	for (int k = 0; k < 5; k++) {
		int d = -7;

		all_bad &= net->make_vdevice(&d, &bad[k]) != 0 && d == -7;
	}
	tap_ok(all_bad,
	       "makeVDevice of no device, 5, an unknown one, one twice or a virtual one fails");
	if (plane >= v.ndevs)
		die("--plane %d: the NIC has %d device(s)", plane, v.ndevs);
	dev = plane >= 0 ? v.devs[plane] : vdev;
}
#define N_PICK 3

/* the planes of the device's port as the driver's counters show them */
static int planes(void)
{
	char path[256];
	int n = 0;

	for (; n < 16; n++) {
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/hw_counters/plane%d_tx_pkts",
			 props.name, n);
		if (access(path, F_OK))
			break;
	}
	return n ? n : 1;
}

/*
 * A connection to ourselves: listening on the main context (no traffic
 * class), connecting through the v11 table with context c or, with
 * v10_tc >= -1, v10's connect with that traffic class; closed again.
 * Returns connect's or accept's error, or -ETIMEDOUT.
 */
static int self_connect(void *c, int v10_tc)
{
	uint8_t handle[NCCL_NET_HANDLE_BYTES];
	struct nccl_net_comm_config cfg = { .traffic_class = v10_tc };
	void *lc = NULL, *sc = NULL, *rc = NULL;
	double end = now() + timeout_s;
	int ret = 0;

	if (net->listen(ctx, dev, handle, &lc))
		return -EINVAL;
	log_send_tc = log_recv_tc = -2;
	log_choice[0] = 0;
	while ((!sc || !rc) && !ret && now() < end) {
		if (!sc)
			ret = v10_tc >= -1 ?
			      net_v10->connect(dev, &cfg, handle, &sc, NULL) :
			      net->connect(c, dev, handle, &sc, NULL);
		if (!ret && !rc)
			ret = net->accept(lc, &rc, NULL);
	}
	if (sc)
		net->close_send(sc);
	if (rc)
		net->close_recv(rc);
	net->close_listen(lc);
	return ret ? ret : sc && rc ? 0 : -ETIMEDOUT;
}

/* traffic classes on both sides of a connection; the transport choice */
static void traffic_class(void)
{
	struct nccl_net_comm_config cfg = { .traffic_class = 256 };
	const char *forced = getenv("AXON_NCCL_TRANSPORT");
	char *saved = forced ? strdup(forced) : NULL;
	void *c = NULL;
	int ret, n = planes();
	bool rud;

	ret = net->init(&c, 0x5678, &cfg, logger, NULL);
	tap_ok(ret == NCCL_NET_INVALID_USAGE,
	       "init with traffic class 256 fails with ncclInvalidUsage (%d)",
	       ret);
	cfg.traffic_class = -2;
	ret = net->init(&c, 0x5678, &cfg, logger, NULL);
	tap_ok(ret == NCCL_NET_INVALID_USAGE,
	       "init with traffic class -2 fails with ncclInvalidUsage (%d)",
	       ret);

	/* the communicator's class: the receiver, whose own has none,
	 * takes it from the connection */
	cfg.traffic_class = 104;
	c = NULL;
	ret = net->init(&c, 0x5678, &cfg, logger, NULL);
	if (!ret) {
		setenv("AXON_NCCL_TRANSPORT", "auto", 1);
		ret = self_connect(c, -2);
		if (saved)
			setenv("AXON_NCCL_TRANSPORT", saved, 1);
		else
			unsetenv("AXON_NCCL_TRANSPORT");
	}
	tap_ok(!ret && log_send_tc == 104 && log_recv_tc == 104,
	       "traffic class 104 from v11's init config: the sending QP has %d, the receiving %d (%d)",
	       log_send_tc, log_recv_tc, ret);
	rud = log_rud_dev && n >= 2;
	tap_ok(!ret && !strcmp(log_choice, rud ? "RUD" : "RC"),
	       "AXON_NCCL_TRANSPORT=auto, %s, %d plane%s: %s chosen (expected %s)",
	       log_rud_dev ? "axondv" : "no axondv", n, n == 1 ? "" : "s",
	       log_choice, rud ? "RUD" : "RC");
	if (c)
		net->finalize(c);
	free(saved);

	/* v10: init without a context, the class per connect */
	ret = net_v10 ? (int)net_v10->init(logger, NULL) : -EINVAL;
	if (!ret)
		ret = self_connect(NULL, 40);
	tap_ok(!ret && log_send_tc == 40 && log_recv_tc == 40,
	       "traffic class 40 from v10's connect config: the sending QP has %d, the receiving %d (%d)",
	       log_send_tc, log_recv_tc, ret);
	ret = net_v10 ? self_connect(NULL, 300) : -EINVAL;
	tap_ok(ret == NCCL_NET_INVALID_USAGE,
	       "v10's connect with traffic class 300 fails with ncclInvalidUsage (%d)",
	       ret);
}
#define N_TC 6

static void bad_input_connected(struct buf *b)
{
	uint64_t garbage[4] = { 1, 2, 3, 4 };
	void *req = NULL, *mh = b->mh, *data = b->net, *bad_mh = garbage;
	size_t sizes[AXON_NET_MAX + 1];
	int tags[AXON_NET_MAX + 1] = { 0 };
	void *datas[AXON_NET_MAX + 1], *mhs[AXON_NET_MAX + 1];
	int n = props.max_recvs + 1;
	void *other;

	for (int i = 0; i < AXON_NET_MAX + 1; i++) {
		sizes[i] = 16;
		datas[i] = data;
		mhs[i] = mh;
		tags[i] = i;
	}
	tap_ok(net->irecv(recv_comm, 0, datas, sizes, tags, mhs, NULL, &req) != 0,
	       "irecv of 0 receives fails");
	tap_ok(n > AXON_NET_MAX + 1 ||
	       net->irecv(recv_comm, n, datas, sizes, tags, mhs, NULL, &req) != 0,
	       "irecv of maxRecvs + 1 (%d) receives fails", n);
	mhs[0] = bad_mh;
	tap_ok(net->irecv(recv_comm, 1, datas, sizes, tags, mhs, NULL, &req) != 0,
	       "irecv with a garbage mhandle fails");
	tap_ok(net->isend(send_comm, data, 16, 0, bad_mh, NULL, &req) != 0,
	       "isend with a garbage mhandle fails");
	sizes[0] = b->size + 1;
	mhs[0] = mh;
	tap_ok(net->irecv(recv_comm, 1, datas, sizes, tags, mhs, NULL, &req) != 0,
	       "irecv past the end of its MR fails");
	tap_ok(net->isend(recv_comm, data, 16, 0, mh, NULL, &req) != 0 &&
	       net->irecv(send_comm, 1, datas, sizes, tags, mhs, NULL, &req) != 0,
	       "isend on a receive comm and irecv on a send comm fail");
	tap_ok(net->reg_mr(send_comm, data, 16, 0x80, &other) != 0 &&
	       net->reg_mr(send_comm, NULL, 16, NCCL_NET_PTR_HOST, &other) != 0 &&
	       net->reg_mr(send_comm, data, 0, NCCL_NET_PTR_HOST, &other) != 0,
	       "regMr of an unknown type, NULL or 0 bytes fails");
	tap_ok(net->reg_mr_dmabuf(send_comm, data, 16, NCCL_NET_PTR_CUDA, 0, -1,
				  &other) != 0,
	       "regMrDmaBuf with fd -1 fails");
	tap_ok(net->dereg_mr(send_comm, bad_mh) != 0,
	       "deregMr of a garbage mhandle fails");
}
#define N_BAD_CONNECTED 9

static void connect_ring(void)
{
	uint8_t mine[NCCL_NET_HANDLE_BYTES], next[NCCL_NET_HANDLE_BYTES];
	double end;
	long polls = 0;
	int ret = 0;

	if (net->listen(ctx, dev, mine, &listen_comm))
		die("listen failed");
	/* our handle to the rank that sends to us; the next rank's to us */
	full_io(ctl_prev, mine, sizeof(mine), true);
	full_io(ctl_next, next, sizeof(next), false);
	end = now() + timeout_s;
	while ((!send_comm || !recv_comm) && now() < end && !ret) {
		if (!send_comm)
			ret = net->connect(ctx, dev, next, &send_comm, NULL);
		if (!ret && !recv_comm)
			ret = net->accept(listen_comm, &recv_comm, NULL);
		polls++;
	}
	tap_ok(!ret && send_comm && recv_comm,
	       "connect and accept, called until they return comms (%ld calls)",
	       polls);
	if (!send_comm || !recv_comm)
		die("no connection to the ring (%d)", ret);
}

/* sizes, tags, a receive larger than its send, and smaller */
static void sizes_and_tags(struct buf *s, struct buf *r)
{
	static const size_t sizes[] = { 0, 1, 7, 4096, 65539, 1 << 20 };
	int prev = (rank + nranks - 1) % nranks;

	for (unsigned int k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k], room = n + 4096, bad = 0;
		int got = -1, ret;

		for (size_t i = 0; i < n; i++)
			s->cpu[i] = pattern(rank, k, i);
		memset(r->cpu, 0xee, room + 64);
		barrier();
		ret = exchange(s, n, r, room, 100 + k, &got);
		for (size_t i = 0; i < n; i++)
			bad += r->cpu[i] != pattern(prev, k, i);
		for (size_t i = n; i < room + 64; i++)
			bad += r->cpu[i] != 0xee;
		tap_ok(!ret && got == (int)n && !bad,
		       "%zu bytes, tag %u, into a receive of %zu: size %d, %zu bytes wrong (%d)",
		       n, 100 + k, room, got, bad, ret);
	}
	/* a send larger than its receive is cut to it */
	{
		size_t n = 8192, room = 4096, bad = 0;
		int got = -1, ret;

		for (size_t i = 0; i < n; i++)
			s->cpu[i] = pattern(rank, 50, i);
		memset(r->cpu, 0xee, n);
		barrier();
		ret = exchange(s, n, r, room, 150, &got);
		for (size_t i = 0; i < room; i++)
			bad += r->cpu[i] != pattern(prev, 50, i);
		for (size_t i = room; i < n; i++)
			bad += r->cpu[i] != 0xee;
		tap_ok(!ret && got == (int)room && !bad,
		       "8192 bytes sent into a receive of 4096: size %d, %zu bytes wrong (%d)",
		       got, bad, ret);
	}
}
#define N_SIZES 7

/* the v8, v9 and v10 tables on the same comms: properties in their
 * layouts, a send and receive through each one's argument types */
static void older_tables(struct buf *s, struct buf *r)
{
	struct nccl_net_props_v8 p8;
	struct nccl_net_props_v9 p9;
	int prev = (rank + nranks - 1) % nranks;

	tap_ok(net_v8 && net_v9 && net_v10 &&
	       !net_v8->get_properties(dev, &p8) &&
	       !net_v10->get_properties(dev, &p9) &&
	       !strcmp(p8.name, props.name) && p8.max_recvs == props.max_recvs &&
	       p8.speed == props.speed && p8.ptr_support == props.ptr_support &&
	       !strcmp(p9.pci_path, props.pci_path) &&
	       p9.max_p2p_bytes == props.max_p2p_bytes &&
	       net_v8->get_properties(-1, &p8) != 0,
	       "getProperties of the v8 and v10 tables: the v11 figures in their layouts");
	for (int v = 8; v <= 9; v++) {
		void *sreq = NULL, *rreq = NULL, *d = r->net, *mh = r->mh;
		int n = 3000 + v, tag = 400 + v, got = -1, ret;
		size_t bad = 0;

		for (int i = 0; i < n; i++)
			s->cpu[i] = pattern(rank, v, i);
		memset(r->cpu, 0, n);
		barrier();
		if (v == 8) {
			int room = 8192;

			ret = net_v8->irecv(recv_comm, 1, &d, &room, &tag, &mh, &rreq);
		} else {
			size_t room = 8192;

			ret = net_v9->irecv(recv_comm, 1, &d, &room, &tag, &mh, &rreq);
		}
		double end = now() + timeout_s;

		while (!ret && !sreq && now() < end)
			ret = v == 8 ?
			      net_v8->isend(send_comm, s->net, n, tag, s->mh, &sreq) :
			      net_v9->isend(send_comm, s->net, n, tag, s->mh, &sreq);
		if (!ret && sreq)
			ret = wait_req(sreq, NULL);
		if (!ret && rreq)
			ret = wait_req(rreq, &got);
		for (int i = 0; i < n; i++)
			bad += r->cpu[i] != pattern(prev, v, i);
		tap_ok(!ret && sreq && rreq && got == n && !bad,
		       "v%d isend and irecv (%s sizes): %d bytes, size %d, %zu wrong (%d)",
		       v, v == 8 ? "int" : "size_t", n, got, bad, ret);
	}
}
#define N_OLDER 3

/* one irecv of maxRecvs receives by tag, the sends in the reverse order */
static void grouped(struct buf *s, struct buf *r)
{
	int n = props.max_recvs < AXON_NET_MAX ? props.max_recvs : AXON_NET_MAX;
	size_t part = 8192, sizes[AXON_NET_MAX];
	int tags[AXON_NET_MAX], got[AXON_NET_MAX] = { 0 };
	void *datas[AXON_NET_MAX], *mhs[AXON_NET_MAX], *sreq[AXON_NET_MAX];
	void *rreq = NULL;
	int prev = (rank + nranks - 1) % nranks, ret;
	size_t bad = 0;

	for (int i = 0; i < n; i++) {
		sizes[i] = part;
		tags[i] = 200 + i;
		datas[i] = (uint8_t *)r->net + i * part;
		mhs[i] = r->mh;
		for (size_t b = 0; b < part - i; b++)
			s->cpu[i * part + b] = pattern(rank, 60 + i, b);
	}
	memset(r->cpu, 0xee, n * part);
	barrier();
	ret = net->irecv(recv_comm, n, datas, sizes, tags, mhs, NULL, &rreq);
	for (int i = n - 1; i >= 0 && !ret; i--)
		ret = send_until((uint8_t *)s->net + i * part, part - i,
				 200 + i, s->mh, &sreq[i]);
	for (int i = 0; i < n && !ret; i++)
		ret = wait_req(sreq[i], NULL);
	if (!ret)
		ret = wait_req(rreq, got);
	for (int i = 0; i < n; i++) {
		bad += got[i] != (int)(part - i);
		for (size_t b = 0; b < part - i; b++)
			bad += r->cpu[i * part + b] != pattern(prev, 60 + i, b);
	}
	tap_ok(!ret && rreq && !bad,
	       "one irecv of %d receives by tag, sent in reverse order: every size and byte (%zu wrong, %d)",
	       n, bad, ret);
}

/* many in flight on one tag: matched in posting order */
static void in_order(struct buf *s, struct buf *r)
{
	enum { MSGS = 96, LEN = 16384, WINDOW = 24 };
	void *sreq[MSGS], *rreq[MSGS];
	int prev = (rank + nranks - 1) % nranks, ret = 0, posted_r = 0,
	    posted_s = 0, done_s = 0, done_r = 0;
	size_t bad = 0;
	double end = now() + timeout_s;

	barrier();
	while ((done_s < MSGS || done_r < MSGS) && !ret && now() < end) {
		int done, size;

		if (posted_r < MSGS && posted_r - done_r < WINDOW) {
			void *d = (uint8_t *)r->net + (posted_r % WINDOW) * LEN;
			size_t len = LEN;
			int tag = 7;

			rreq[posted_r] = NULL;
			ret = net->irecv(recv_comm, 1, &d, &len, &tag, &r->mh,
					 NULL, &rreq[posted_r]);
			if (rreq[posted_r])
				posted_r++;
		}
		if (!ret && posted_s < MSGS && posted_s - done_s < WINDOW) {
			int slot = posted_s % WINDOW;

			/* each message says which it is */
			for (size_t i = 0; i < LEN; i += 4)
				*(uint32_t *)(s->cpu + slot * LEN + i) =
					rank << 24 | posted_s << 16 | i;
			sreq[posted_s] = NULL;
			ret = net->isend(send_comm, (uint8_t *)s->net + slot * LEN,
					 LEN, 7, s->mh, NULL, &sreq[posted_s]);
			if (sreq[posted_s])
				posted_s++;
		}
		if (!ret && done_s < posted_s) {
			ret = net->test(sreq[done_s], &done, NULL);
			if (done)
				done_s++;
		}
		if (!ret && done_r < posted_r) {
			ret = net->test(rreq[done_r], &done, &size);
			if (done) {
				uint8_t *p = r->cpu + (done_r % WINDOW) * LEN;

				for (size_t i = 0; i < LEN; i += 4)
					bad += *(uint32_t *)(p + i) !=
					       (uint32_t)(prev << 24 | done_r << 16 | i);
				bad += size != LEN;
				done_r++;
			}
		}
	}
	tap_ok(!ret && done_s == MSGS && done_r == MSGS && !bad,
	       "%d messages on one tag, %d in flight: received in posting order (%zu wrong, %d)",
	       MSGS, WINDOW, bad, ret);
}
#define N_ORDER 1

/* an MR a posted receive uses cannot be deregistered; afterwards it can */
static void dereg_in_use(struct buf *s)
{
	struct buf r2;
	void *rreq = NULL, *sreq = NULL;
	int ret, ret2;

	buf_alloc(&r2, 65536);
	if (buf_reg(&r2, recv_comm))
		die("regMr failed");
	barrier();
	ret = recv_one(r2.net, 4096, 300, r2.mh, &rreq);
	ret2 = net->dereg_mr(recv_comm, r2.mh);
	tap_ok(!ret && rreq && ret2 == NCCL_NET_INVALID_USAGE,
	       "deregMr of an MR a posted irecv uses fails with ncclInvalidUsage (%d)",
	       ret2);
	ret = send_until(s->net, 4096, 300, s->mh, &sreq);
	if (!ret)
		ret = wait_req(sreq, NULL);
	if (!ret)
		ret = wait_req(rreq, NULL);
	ret2 = net->dereg_mr(recv_comm, r2.mh);
	tap_ok(!ret && !ret2, "... and once it completed, deregMr succeeds (%d, %d)",
	       ret, ret2);
	r2.mh = NULL;
	buf_free(&r2);
}
#define N_DEREG 2

/* the cache: the same range registered again is the same registration,
 * on any comm of the device (regIsGlobal) */
static void mr_cache(struct buf *b)
{
	void *again = NULL;
	int ret = b->fd < 0 ?
		  net->reg_mr(recv_comm, b->net, b->size / 2,
			      NCCL_NET_PTR_HOST, &again) :
		  net->reg_mr_dmabuf(recv_comm, b->net, b->size / 2,
				     NCCL_NET_PTR_CUDA, 0, b->fd, &again);
	tap_ok(!ret && again == b->mh,
	       "regMr of a registered range on another comm returns its handle");
	tap_ok(!net->dereg_mr(recv_comm, again),
	       "... and deregMr of it drops a reference");
}
#define N_CACHE 2

static void flush(struct buf *r)
{
	void *req = (void *)1, *data = r->net, *mh = r->mh;
	int size = 4096, ret;

	barrier();
	ret = net->iflush(recv_comm, 1, &data, &size, &mh, &req);
	if (!gpu) {
		tap_ok(!ret && !req, "iflush after a receive into host memory: nothing to do");
		return;
	}
	if (!ret && req)
		ret = wait_req(req, NULL);
	tap_ok(!ret && req, "iflush after a receive into dma-buf memory: a READ that completes (%d)",
	       ret);
}
#define N_FLUSH 1

static uint32_t ar_value(int r, size_t i)
{
	return (uint32_t)(r + 1) * 2654435761u + (uint32_t)i * 40503u;
}

/* as NCCL's proxy after a receive into GPU memory: iflush, then wait */
static int flush_on(void *comm, void *data, size_t size, void *mh)
{
	void *req = NULL;
	int sz = size, ret;

	if (!gpu)
		return 0;
	ret = net->iflush(comm, 1, &data, &sz, &mh, &req);
	if (!ret && req)
		ret = wait_req(req, NULL);
	return ret;
}

static int flush_received(struct buf *r, size_t size)
{
	return flush_on(recv_comm, r->net, size, r->mh);
}

/* ring all-reduce (reduce-scatter, then all-gather) of count uint32 */
static int allreduce(struct buf *data, struct buf *tmp, size_t count)
{
	size_t chunk = count / nranks * 4;
	int ret = 0, got;

	for (int step = 0; step < nranks - 1 && !ret; step++) {
		int sc = (rank - step + nranks) % nranks;
		int rc = (rank - step - 1 + 2 * nranks) % nranks;
		struct buf s = *data, r = *tmp;

		s.net = (uint8_t *)data->net + sc * chunk;
		ret = exchange(&s, chunk, &r, chunk, TAG_AR, &got);
		if (!ret)
			ret = flush_received(&r, chunk);
		uint32_t *dst = (uint32_t *)(data->cpu + rc * chunk);
		const uint32_t *src = (const uint32_t *)tmp->cpu;

		for (size_t i = 0; i < chunk / 4; i++)
			dst[i] += src[i];
	}
	for (int step = 0; step < nranks - 1 && !ret; step++) {
		int sc = (rank + 1 - step + nranks) % nranks;
		int rc = (rank - step + nranks) % nranks;
		struct buf s = *data, r = *data;

		s.net = (uint8_t *)data->net + sc * chunk;
		r.net = (uint8_t *)data->net + rc * chunk;
		ret = exchange(&s, chunk, &r, chunk, TAG_AR, &got);
		if (!ret)
			ret = flush_received(&r, chunk);
	}
	return ret;
}

static void allreduce_sizes(const size_t *sizes, int nsizes, int iters)
{
	size_t most = 0;
	struct buf data, tmp;

	for (int k = 0; k < nsizes; k++)
		most = sizes[k] > most ? sizes[k] : most;
	buf_alloc(&data, most);
	buf_alloc(&tmp, most / nranks + 4096);
	if (buf_reg(&data, send_comm) || buf_reg(&tmp, recv_comm))
		die("regMr of the all-reduce buffers failed");
	for (int k = 0; k < nsizes; k++) {
		size_t count = sizes[k] / 4 / nranks * nranks, bad = 0;
		double t = 0;
		int ret = 0;

		for (int it = 0; it <= iters && !ret; it++) {
			double t0;

			for (size_t i = 0; i < count; i++)
				((uint32_t *)data.cpu)[i] = ar_value(rank, i);
			barrier();
			t0 = now();
			ret = allreduce(&data, &tmp, count);
			if (it)	/* the first is the warm-up */
				t += now() - t0;
			for (size_t i = 0; i < count && !ret; i++) {
				uint32_t want = 0;

				for (int r = 0; r < nranks; r++)
					want += ar_value(r, i);
				bad += ((uint32_t *)data.cpu)[i] != want;
			}
		}
		double bytes = count * 4.0, algbw = iters ? bytes * iters / t / 1e9 : 0;
		double busbw = algbw * 2 * (nranks - 1) / nranks;

		tap_ok(!ret && !bad,
		       "all-reduce of %zu uint32 (%.0f bytes) over %d ranks, %d times: %zu elements wrong (%d)",
		       count, bytes, nranks, iters + 1, bad, ret);
		tap_diag("allreduce transport %s bytes %.0f ranks %d mem %s time_us %.1f algbw_GBps %.4f busbw_GBps %.4f",
			 transport, bytes, nranks, gpu ? "dmabuf" : "host",
			 iters ? t / iters * 1e6 : 0, algbw, busbw);
	}
	buf_free(&data);
	buf_free(&tmp);
}

/*
 * --for S: all-reduces of bytes, one after another for S seconds with no
 * barrier between them, every element checked, while the fabric takes a
 * plane down (axon-vm --plane-down). --expect go: every one completes
 * (RUD sprays over the planes left). --expect stop: some complete, then
 * one stops, with an error from the plugin or no completion within
 * --timeout (the rank whose own QPs kept their plane waits for the
 * other's data): the plane of an RC connection is its for good.
 */
static void allreduce_for(double seconds, bool expect_stop, size_t bytes)
{
	size_t count = bytes / 4 / nranks * nranks, bad = 0;
	double start = now(), took;
	struct buf data, tmp;
	int ret = 0, done = 0;

	buf_alloc(&data, count * 4);
	buf_alloc(&tmp, count * 4 / nranks + 4096);
	if (buf_reg(&data, send_comm) || buf_reg(&tmp, recv_comm))
		die("regMr of the all-reduce buffers failed");
	while (!ret && !bad && now() - start < seconds) {
		for (size_t i = 0; i < count; i++)
			((uint32_t *)data.cpu)[i] = ar_value(rank, i);
		ret = allreduce(&data, &tmp, count);
		for (size_t i = 0; i < count && !ret; i++) {
			uint32_t want = 0;

			for (int r = 0; r < nranks; r++)
				want += ar_value(r, i);
			bad += ((uint32_t *)data.cpu)[i] != want;
		}
		done += !ret && !bad;
	}
	took = now() - start;
	tap_diag("%s: %d all-reduces of %zu bytes in %.1f s, then %s (%d)",
		 transport, done, count * 4, took,
		 ret == -ETIMEDOUT ? "no completion within --timeout" :
		 ret ? "an error from the plugin" : "the time was up", ret);
	if (expect_stop)
		tap_ok(done > 0 && !bad && ret,
		       "%s stops once its plane is down: %d all-reduces, then %s after %.1f s (%d)",
		       transport, done, ret == -ETIMEDOUT ? "no progress" : "an error",
		       took, ret);
	else
		tap_ok(done > 0 && !bad && !ret,
		       "%s keeps going for %.0f s with a plane going down: %d all-reduces, every element right",
		       transport, seconds, done);
}

/*
 * The all-to-all's connections, as NCCL makes them for one: a send comm to
 * every other rank and a receive comm from each, on a listen comm of its
 * own; the handles go around the ring's control sockets.
 */
static void *peer_send[MAX_RANKS], *peer_recv[MAX_RANKS];

static void connect_peers(void)
{
	static uint8_t rows[MAX_RANKS][MAX_RANKS][NCCL_NET_HANDLE_BYTES];
	void *listens[MAX_RANKS] = { 0 };
	int left = 2 * (nranks - 1), ret = 0;
	double end;

	/* rows[r][q]: the handle rank r listens on for rank q */
	for (int q = 0; q < nranks; q++)
		if (q != rank &&
		    net->listen(ctx, dev, rows[rank][q], &listens[q]))
			die("listen for rank %d failed", q);
	/* step k hands rank + k's row to the previous rank and takes rank +
	 * k + 1's from the next */
	for (int k = 0; k < nranks - 1; k++) {
		full_io(ctl_prev, rows[(rank + k) % nranks], sizeof(rows[0]),
			true);
		full_io(ctl_next, rows[(rank + k + 1) % nranks],
			sizeof(rows[0]), false);
	}
	end = now() + timeout_s;
	while (left && !ret && now() < end) {
		for (int q = 0; q < nranks && !ret; q++) {
			if (q == rank)
				continue;
			if (!peer_send[q]) {
				ret = net->connect(ctx, dev, rows[q][rank],
						   &peer_send[q], NULL);
				left -= peer_send[q] != NULL;
			}
			if (!ret && !peer_recv[q]) {
				ret = net->accept(listens[q], &peer_recv[q],
						  NULL);
				left -= peer_recv[q] != NULL;
			}
		}
	}
	for (int q = 0; q < nranks; q++)
		if (listens[q])
			net->close_listen(listens[q]);
	tap_ok(!ret && !left,
	       "all-to-all: a send comm to and a receive comm from each of the %d other ranks (%d)",
	       nranks - 1, ret);
	if (ret || left)
		die("no all-to-all connections (%d)", ret);
}

static int close_peers(void)
{
	int ret = 0;

	for (int q = 0; q < nranks; q++) {
		if (peer_send[q] && net->close_send(peer_send[q]))
			ret = -EINVAL;
		if (peer_recv[q] && net->close_recv(peer_recv[q]))
			ret = -EINVAL;
	}
	return ret;
}

static uint32_t a2a_value(int from, int to, size_t i)
{
	return (uint32_t)(from * 7919 + to * 104729) ^ (uint32_t)(i * 2246822519u);
}

/*
 * all-to-all as NCCL runs one: a receive posted from every peer, a send to
 * every peer (isend called again while the peer has not posted), all of
 * them in flight at once. nccl-tests' bus bandwidth for it: algbw * (n -
 * 1) / n, algbw = the bytes one rank sends / time.
 */
static int alltoall(struct buf *in, struct buf *out, size_t block)
{
	void *rreq[MAX_RANKS] = { 0 }, *sreq[MAX_RANKS] = { 0 };
	int ret = 0, posted = 0, tag = TAG_AR + 1, got;
	double end = now() + timeout_s;

	memcpy(out->cpu + rank * block, in->cpu + rank * block, block);
	for (int q = 0; q < nranks && !ret; q++) {
		void *d = (char *)out->net + q * block;
		size_t size = block;

		if (q == rank)
			continue;
		ret = net->irecv(peer_recv[q], 1, &d, &size, &tag, &out->mh,
				 NULL, &rreq[q]);
		if (!ret && !rreq[q])
			ret = -EAGAIN;
	}
	while (!ret && posted < nranks - 1 && now() < end) {
		for (int q = 0; q < nranks && !ret; q++) {
			if (q == rank || sreq[q])
				continue;
			ret = net->isend(peer_send[q],
					 (char *)in->net + q * block, block,
					 tag, in->mh, NULL, &sreq[q]);
			posted += sreq[q] != NULL;
		}
	}
	if (!ret && posted < nranks - 1)
		ret = -ETIMEDOUT;
	for (int q = 0; q < nranks && !ret; q++)
		if (sreq[q])
			ret = wait_req(sreq[q], NULL);
	for (int q = 0; q < nranks && !ret; q++) {
		if (!rreq[q])
			continue;
		ret = wait_req(rreq[q], &got);
		if (!ret && got != (int)block)
			ret = -EIO;
		if (!ret)
			ret = flush_on(peer_recv[q], (char *)out->net + q * block,
				       block, out->mh);
	}
	return ret;
}

static void alltoall_sizes(const size_t *sizes, int nsizes, int iters)
{
	size_t most = 0;
	struct buf in, out;

	for (int k = 0; k < nsizes; k++)
		most = sizes[k] > most ? sizes[k] : most;
	buf_alloc(&in, most);
	buf_alloc(&out, most);
	/* one registration serves every comm of the NIC (regIsGlobal) */
	if (buf_reg(&in, send_comm) || buf_reg(&out, recv_comm))
		die("regMr of the all-to-all buffers failed");
	for (int k = 0; k < nsizes; k++) {
		size_t block = sizes[k] / nranks / 4 * 4, bad = 0;
		double t = 0;
		int ret = 0;

		for (int it = 0; it <= iters && !ret; it++) {
			double t0;

			for (int to = 0; to < nranks; to++)
				for (size_t i = 0; i < block / 4; i++)
					((uint32_t *)(in.cpu + to * block))[i] =
						a2a_value(rank, to, i);
			memset(out.cpu, 0, block * nranks);
			barrier();
			t0 = now();
			ret = alltoall(&in, &out, block);
			if (it)
				t += now() - t0;
			for (int from = 0; from < nranks && !ret; from++)
				for (size_t i = 0; i < block / 4; i++)
					bad += ((uint32_t *)(out.cpu + from * block))[i] !=
					       a2a_value(from, rank, i);
		}
		double bytes = block * nranks, algbw = iters ? bytes * iters / t / 1e9 : 0;
		double busbw = algbw * (nranks - 1) / nranks;

		tap_ok(!ret && !bad,
		       "all-to-all of %zu bytes a peer over %d ranks, %d times: %zu elements wrong (%d)",
		       block, nranks, iters + 1, bad, ret);
		tap_diag("alltoall transport %s bytes %.0f ranks %d mem %s time_us %.1f algbw_GBps %.4f busbw_GBps %.4f",
			 transport, bytes, nranks, gpu ? "dmabuf" : "host",
			 iters ? t / iters * 1e6 : 0, algbw, busbw);
	}
	buf_free(&in);
	buf_free(&out);
}

static void parse_sizes(const char *arg, size_t *sizes, int *n)
{
	char *copy = strdup(arg), *save = NULL;

	*n = 0;
	for (char *t = strtok_r(copy, ",", &save); t && *n < MAX_SIZES;
	     t = strtok_r(NULL, ",", &save))
		sizes[(*n)++] = strtoull(t, NULL, 0);
	free(copy);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "rank", required_argument, NULL, 'r' },
		{ "nranks", required_argument, NULL, 'n' },
		{ "peers", required_argument, NULL, 'p' },
		{ "gpu", no_argument, NULL, 'g' },
		{ "sizes", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'i' },
		{ "port", required_argument, NULL, 'P' },
		{ "timeout", required_argument, NULL, 't' },
		{ "plugin", required_argument, NULL, 'l' },
		{ "for", required_argument, NULL, 'f' },
		{ "expect", required_argument, NULL, 'e' },
		{ "plane", required_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	const char *peers[MAX_RANKS] = { 0 }, *plugin = "libnccl-net-axon.so";
	size_t ar_sizes[MAX_SIZES] = { 65536, 1 << 20, 4 << 20 };
	int n_ar = 3, iters = 3, port = 18770, c, ndev = 0, plane = -1;
	double for_s = 0;
	bool expect_stop = false;
	char *peer_list = NULL;
	void *h;

	nranks = 1;
	if (getenv("AXON_NCCL_TRANSPORT"))
		transport = getenv("AXON_NCCL_TRANSPORT");
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'r': rank = atoi(optarg); break;
		case 'n': nranks = atoi(optarg); break;
		case 'p': peer_list = strdup(optarg); break;
		case 'g': gpu = true; break;
		case 's': parse_sizes(optarg, ar_sizes, &n_ar); break;
		case 'i': iters = atoi(optarg); break;
		case 'P': port = atoi(optarg); break;
		case 't': timeout_s = atof(optarg); break;
		case 'l': plugin = optarg; break;
		case 'f': for_s = atof(optarg); break;
		case 'L': plane = atoi(optarg); break;
		case 'e':
			if (strcmp(optarg, "go") && strcmp(optarg, "stop"))
				return 2;
			expect_stop = !strcmp(optarg, "stop");
			break;
		default: return 2;
		}
	}
	if (nranks < 1 || nranks > MAX_RANKS || rank < 0 || rank >= nranks ||
	    iters < 0 || for_s < 0 || plane < -1 ||
	    plane >= NCCL_NET_VDEV_MAX_DEVS) {
		fprintf(stderr, "bad --rank/--nranks/--iters/--for/--plane\n");
		return 2;
	}
	char *save = NULL;

	for (int i = 0; i < nranks; i++) {
		peers[i] = i ? strtok_r(NULL, " ", &save) :
			       peer_list ? strtok_r(peer_list, " ", &save) : NULL;
		if (!peers[i])
			peers[i] = "127.0.0.1";
	}

	if (for_s)
		tap_plan(4 + N_PICK + 1 + 1);
	else
		tap_plan(4 + N_PICK + N_BAD_BEFORE + 1 + N_BAD_CONNECTED + N_CACHE +
			 N_SIZES + 1 + N_ORDER + N_DEREG + N_FLUSH + N_OLDER +
			 N_TC + 1 + 2 * n_ar + 4);

	/* 1. as NCCL's loader: the library by name, the newest table */
	h = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
	net = h ? dlsym(h, "ncclNetPlugin_v11") : NULL;
	net_v10 = h ? dlsym(h, "ncclNetPlugin_v10") : NULL;
	net_v9 = h ? dlsym(h, "ncclNetPlugin_v9") : NULL;
	net_v8 = h ? dlsym(h, "ncclNetPlugin_v8") : NULL;
	if (!tap_ok(net != NULL, "dlopen %s, dlsym ncclNetPlugin_v11", plugin))
		die("%s", h ? "no ncclNetPlugin_v11" : dlerror());
	c = net->init(&ctx, 0x1234, NULL, logger, NULL);
	if (!c)
		c = net->devices(&ndev);
	tap_ok(!c && ndev >= 1, "init, and devices reports %d (%d)", ndev, c);
	if (ndev < 1)
		die("no axon device");
	pick_device(ndev, plane);
	tap_ok(!net->get_properties(dev, &props) && props.name &&
	       !strncmp(props.name, "axon", 4) && props.pci_path &&
	       !access(props.pci_path, F_OK) &&
	       (props.ptr_support & NCCL_NET_PTR_HOST) && props.reg_is_global &&
	       props.max_recvs >= 1 && props.max_recvs <= AXON_NET_MAX &&
	       props.speed > 0 && props.max_comms > 0,
	       "getProperties: name, pciPath in /sys, host pointers, global MRs, maxRecvs, speed");
	tap_diag("device %d: %s pciPath %s guid 0x%" PRIx64 " ptrSupport 0x%x speed %d Mbit/s maxComms %d maxRecvs %d maxP2pBytes %zu",
		 dev, props.name, props.pci_path, props.guid, props.ptr_support,
		 props.speed, props.max_comms, props.max_recvs,
		 props.max_p2p_bytes);
	if (gpu) {
		gpu_fd = open(AXON_GPU_DEV_PREFIX "0", O_RDWR | O_CLOEXEC);
		if (gpu_fd < 0)
			die("%s0: %s", AXON_GPU_DEV_PREFIX, strerror(errno));
		tap_ok(props.ptr_support & NCCL_NET_PTR_DMABUF,
		       "getProperties offers dma-buf pointers");
	} else {
		tap_skip("host memory run", "getProperties offers dma-buf pointers");
	}

	if (for_s) {
		/* the plane-down run: connect, then all-reduce and nothing else */
		ctl_setup(peers, port);
		connect_ring();
		allreduce_for(for_s, expect_stop, ar_sizes[0]);
		return tap_done();
	}
	bad_input_before_connect();
	traffic_class();
	ctl_setup(peers, port);
	connect_ring();

	struct buf s, r;

	buf_alloc(&s, 2 << 20);
	buf_alloc(&r, 2 << 20);
	if (buf_reg(&s, send_comm) || buf_reg(&r, recv_comm))
		die("regMr of the test buffers failed");
	bad_input_connected(&r);
	mr_cache(&s);
	sizes_and_tags(&s, &r);
	grouped(&s, &r);
	older_tables(&s, &r);
	in_order(&s, &r);
	dereg_in_use(&s);
	flush(&r);
	allreduce_sizes(ar_sizes, n_ar, iters);
	connect_peers();
	alltoall_sizes(ar_sizes, n_ar, iters);
	barrier();

	/* closing in either order: rank 0 receive side first, others send */
	void *stale = NULL;
	int ret1, ret2, ret3;

	buf_free(&s);
	buf_free(&r);
	if (rank % 2 == 0) {
		ret1 = net->close_recv(recv_comm);
		ret2 = net->close_send(send_comm);
		ret3 = net->close_listen(listen_comm);
	} else {
		ret3 = net->close_listen(listen_comm);
		ret2 = net->close_send(send_comm);
		ret1 = net->close_recv(recv_comm);
	}
	tap_ok(!ret1 && !ret2 && !ret3 && !close_peers(),
	       "closeRecv, closeSend, closeListen (%s order), and the all-to-all's comms",
	       rank % 2 ? "listen first" : "receive first");
	tap_ok(net->close_send(send_comm) != 0 && net->close_recv(recv_comm) != 0,
	       "closing a closed comm fails");
	tap_ok(net->isend(send_comm, NULL, 0, 0, NULL, NULL, &stale) != 0,
	       "isend on a closed comm fails");
	tap_ok(!net->finalize(ctx), "finalize");
	return tap_done();
}
