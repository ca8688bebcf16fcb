// SPDX-License-Identifier: GPL-2.0
/*
 * ctrl-path: what the verbs of the control path cost on one RDMA device,
 * for tools/bench/rdma-scale.
 *
 *   ctrl-path -d DEV -x GID_INDEX [-r REPS] [-g /dev/axon_gpuN]
 *
 * Each verb runs REPS times (default 20; at most 5 for registrations of
 * 64 MiB and more), timed alone with CLOCK_MONOTONIC; one line a verb:
 *
 *   verb NAME MEDIAN_US REPS
 *   skip NAME REASON
 *
 * The QP goes RESET -> INIT -> RTR -> RTS connected to itself (its own
 * QPN, the port's GID GID_INDEX), which is what a connection costs on
 * one side without a peer. With -g, dma-buf MRs are registered over
 * buffers of that axon-gpu (include/uapi/axon/axon_gpu.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include <axon/axon_gpu.h>

#define MAX_REPS	1000
/* Large registrations take seconds under TCG: fewer of them. */
#define BIG_MR		(64UL << 20)
#define BIG_REPS	5
#define PORT		1
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *name;
	size_t size;
} mr_sizes[] = {
	{ "4k", 4UL << 10 },
	{ "1m", 1UL << 20 },
	{ "64m", 64UL << 20 },
	{ "1g", 1UL << 30 },
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static union ibv_gid gid;
static int gid_index = -1;
static enum ibv_mtu mtu;
static int reps = 20;

static double t_us[MAX_REPS];
static double t2_us[MAX_REPS];

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "ctrl-path: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void report(const char *name, double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	printf("verb %s %.1f %d\n", name,
	       n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, n);
}

static void skip(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("skip %s ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Times "call" into "slot"; call is a statement, errors checked by it. */
#define TIMED(slot, call)				\
	do {						\
		double t0_ = now_us();			\
		call;					\
		(slot) = now_us() - t0_;		\
	} while (0)

static void open_device(const char *dev)
{
	struct ibv_device **list;
	struct ibv_device *d = NULL;
	struct ibv_port_attr pattr;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		die("ibv_get_device_list: %s", strerror(errno));
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev))
			d = list[i];
	if (!d)
		die("no device %s", dev);

	for (i = 0; i < reps; i++) {
		TIMED(t_us[i], ctx = ibv_open_device(d));
		if (!ctx)
			die("ibv_open_device: %s", strerror(errno));
		/* the last one stays open for the other verbs */
		if (i < reps - 1)
			ibv_close_device(ctx);
	}
	report("open_device", t_us, reps);
	ibv_free_device_list(list);

	if (ibv_query_port(ctx, PORT, &pattr))
		die("ibv_query_port: %s", strerror(errno));
	mtu = pattr.active_mtu;
	if (ibv_query_gid(ctx, PORT, gid_index, &gid))
		die("ibv_query_gid %d: %s", gid_index, strerror(errno));
}

static void pd_cq(void)
{
	int i;

	for (i = 0; i < reps; i++) {
		TIMED(t_us[i], pd = ibv_alloc_pd(ctx));
		if (!pd)
			die("ibv_alloc_pd: %s", strerror(errno));
		if (i < reps - 1)
			ibv_dealloc_pd(pd);
	}
	report("alloc_pd", t_us, reps);

	for (i = 0; i < reps; i++) {
		TIMED(t_us[i], cq = ibv_create_cq(ctx, 256, NULL, NULL, 0));
		if (!cq)
			die("ibv_create_cq: %s", strerror(errno));
		if (i < reps - 1)
			ibv_destroy_cq(cq);
	}
	report("create_cq", t_us, reps);
}

static void modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		   const char *to)
{
	int err = ibv_modify_qp(qp, a, mask);

	if (err)
		die("ibv_modify_qp to %s: %s", to, strerror(err));
}

static void qp(void)
{
	static double init[MAX_REPS], rtr[MAX_REPS], rts[MAX_REPS];
	struct ibv_qp_init_attr ia = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = 128,
			.max_recv_wr = 128,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp_attr a;
	struct ibv_qp *q;
	int i, err;

	for (i = 0; i < reps; i++) {
		TIMED(t_us[i], q = ibv_create_qp(pd, &ia));
		if (!q)
			die("ibv_create_qp: %s", strerror(errno));

		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_INIT;
		a.port_num = PORT;
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ;
		TIMED(init[i], modify(q, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				      IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
				      "INIT"));

		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = mtu;
		a.dest_qp_num = q->qp_num;
		a.rq_psn = 0;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = gid;
		a.ah_attr.grh.sgid_index = gid_index;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = PORT;
		TIMED(rtr[i], modify(q, &a, IBV_QP_STATE | IBV_QP_AV |
				     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				     IBV_QP_MIN_RNR_TIMER, "RTR"));

		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.sq_psn = 0;
		a.max_rd_atomic = 1;
		TIMED(rts[i], modify(q, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
				     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC,
				     "RTS"));

		TIMED(t2_us[i], err = ibv_destroy_qp(q));
		if (err)
			die("ibv_destroy_qp: %s", strerror(err));
	}
	report("create_qp", t_us, reps);
	report("modify_qp_init", init, reps);
	report("modify_qp_rtr", rtr, reps);
	report("modify_qp_rts", rts, reps);
	report("destroy_qp", t2_us, reps);
}

static int mr_reps(size_t size)
{
	return size >= BIG_MR && reps > BIG_REPS ? BIG_REPS : reps;
}

/* Bytes of memory the guest can still hand out, from /proc/meminfo. */
static size_t mem_available(void)
{
	unsigned long kb = 0;
	char line[128];
	FILE *f;

	f = fopen("/proc/meminfo", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lu kB", &kb) == 1)
			break;
	fclose(f);
	return kb << 10;
}

static void reg_mr(void)
{
	char reg[32], dereg[32];
	struct ibv_mr *mr;
	size_t i, avail;
	int r, n, err;
	void *buf;

	for (i = 0; i < ARRAY_SIZE(mr_sizes); i++) {
		size_t size = mr_sizes[i].size;

		snprintf(reg, sizeof(reg), "reg_mr_%s", mr_sizes[i].name);
		snprintf(dereg, sizeof(dereg), "dereg_mr_%s", mr_sizes[i].name);
		/*
		 * Pinning most of the guest's memory wakes the OOM killer
		 * before any ENOMEM: leave it a quarter.
		 */
		avail = mem_available();
		if (size > avail / 4 * 3) {
			skip(reg, "not tried: the guest has %zu MiB available",
			     avail >> 20);
			continue;
		}
		/* populated first: the registration, not page faults */
		buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (buf == MAP_FAILED) {
			skip(reg, "mmap: %s", strerror(errno));
			continue;
		}
		n = mr_reps(size);
		for (r = 0; r < n; r++) {
			TIMED(t_us[r], mr = ibv_reg_mr(pd, buf, size,
						       IBV_ACCESS_LOCAL_WRITE |
						       IBV_ACCESS_REMOTE_WRITE |
						       IBV_ACCESS_REMOTE_READ));
			if (!mr)
				break;
			TIMED(t2_us[r], err = ibv_dereg_mr(mr));
			if (err)
				die("ibv_dereg_mr: %s", strerror(err));
		}
		if (r < n) {
			if (errno != ENOMEM)
				die("ibv_reg_mr of %zu bytes: %s", size,
				    strerror(errno));
			skip(reg, "ENOMEM");
		} else {
			report(reg, t_us, n);
			report(dereg, t2_us, n);
		}
		munmap(buf, size);
	}
}

static void reg_dmabuf_mr(const char *gpu)
{
	char reg[32], dereg[32];
	struct axon_gpu_alloc ga;
	struct ibv_mr *mr;
	int fd, r, n, err;
	size_t i;

	fd = open(gpu, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		skip("reg_dmabuf_mr", "%s: %s", gpu, strerror(errno));
		return;
	}
	for (i = 0; i < ARRAY_SIZE(mr_sizes); i++) {
		size_t size = mr_sizes[i].size;

		snprintf(reg, sizeof(reg), "reg_dmabuf_mr_%s",
			 mr_sizes[i].name);
		snprintf(dereg, sizeof(dereg), "dereg_dmabuf_mr_%s",
			 mr_sizes[i].name);
		memset(&ga, 0, sizeof(ga));
		ga.size = size;
		if (ioctl(fd, AXON_GPU_IOCTL_ALLOC, &ga)) {
			skip(reg, "AXON_GPU_IOCTL_ALLOC: %s", strerror(errno));
			continue;
		}
		n = mr_reps(size);
		for (r = 0; r < n; r++) {
			TIMED(t_us[r], mr = ibv_reg_dmabuf_mr(pd, 0, size,
							      ga.gpu_va, ga.fd,
							      IBV_ACCESS_LOCAL_WRITE |
							      IBV_ACCESS_REMOTE_WRITE |
							      IBV_ACCESS_REMOTE_READ));
			if (!mr)
				break;
			TIMED(t2_us[r], err = ibv_dereg_mr(mr));
			if (err)
				die("ibv_dereg_mr (dma-buf): %s",
				    strerror(err));
		}
		if (r < n) {
			skip(reg, "%s", strerror(errno));
		} else {
			report(reg, t_us, n);
			report(dereg, t2_us, n);
		}
		close(ga.fd);
	}
	close(fd);
}

static void usage(void)
{
	fprintf(stderr, "usage: ctrl-path -d DEV -x GID_INDEX [-r REPS] "
		"[-g /dev/axon_gpuN]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *gpu = NULL;
	int c;

	while ((c = getopt(argc, argv, "d:x:r:g:")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'x':
			gid_index = atoi(optarg);
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		case 'g':
			gpu = optarg;
			break;
		default:
			usage();
		}
	}
	if (!dev || gid_index < 0 || reps < 1 || reps > MAX_REPS ||
	    optind != argc)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);

	open_device(dev);
	pd_cq();
	qp();
	reg_mr();
	if (gpu)
		reg_dmabuf_mr(gpu);
	else
		skip("reg_dmabuf_mr", "no dma-buf exporter (-g)");

	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return 0;
}
