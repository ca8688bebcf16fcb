// SPDX-License-Identifier: GPL-2.0
/*
 * axon-gpu-basic: the /dev/axon_gpuN ioctls (include/uapi/axon/axon_gpu.h)
 * and CPU access to buffers through their dma-buf fds. Expects a device
 * with no buffers when it starts.
 *
 * Usage: axon-gpu-basic [DEVICE]            (default /dev/axon_gpu0)
 *        axon-gpu-basic --scrub [DEVICE]
 *        axon-gpu-basic --hold S [DEVICE]
 *        axon-gpu-basic --close-race N [DEVICE]
 *
 * --scrub: only the checks that VRAM is scrubbed: a new buffer reads zero,
 * even over what a freed buffer, or the range a MOVE left, held. They rely
 * on the allocator being first fit (a freed range is the next one handed
 * out for its size) and on the device having no buffers when they start.
 *
 * --close-race: allocate N buffers of 64 KiB, map every fourth one and close
 * its fd (its mapping is then its last reference), close the device,
 * print "ready", wait for SIGUSR1, then drop every buffer's last reference
 * (fds and mappings, interleaved) and print "closed N". For
 * tools/tests/vm/gpu-remove-race.sh, which removes the device meanwhile.
 *
 * --hold: allocate a 64 KiB buffer, map it, fill it, close the device,
 * print "holding", then wait up to S seconds; on SIGUSR1 read the mapping once and print
 * "touch: ok" (the pattern is intact), "touch: bad data" or "touch: SIGBUS".
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <axon/axon_gpu.h>

#include "axon-test.h"

#define GPU_PAGE	AXON_GPU_PAGE_SIZE

static int dev;

/* PASS if the call returned -1 with errno want. */
static void expect_err(int rc, int want, const char *what)
{
	expect_errno(rc == -1, errno, want, what);
}

static int info(struct axon_gpu_info *i)
{
	memset(i, 0xff, sizeof(*i));
	return ioctl(dev, AXON_GPU_IOCTL_INFO, i);
}

static int gpu_alloc(uint64_t size, struct axon_gpu_alloc *a)
{
	memset(a, 0, sizeof(*a));
	a->size = size;
	a->fd = -1;
	return ioctl(dev, AXON_GPU_IOCTL_ALLOC, a);
}

static int gpu_move(int fd)
{
	struct axon_gpu_move m = { .fd = fd };

	return ioctl(dev, AXON_GPU_IOCTL_MOVE, &m);
}

static uint64_t vram_free(void)
{
	struct axon_gpu_info i;

	return info(&i) ? UINT64_MAX : i.vram_free;
}

static uint32_t pattern(uint64_t i, uint32_t seed)
{
	return (uint32_t)(i * 2654435761u) ^ seed;
}

static void fill(volatile uint32_t *p, size_t bytes, uint32_t seed)
{
	size_t i;

	for (i = 0; i < bytes / 4; i++)
		p[i] = pattern(i, seed);
}

static bool same(const volatile uint32_t *p, size_t bytes, uint32_t seed)
{
	size_t i;

	for (i = 0; i < bytes / 4; i++)
		if (p[i] != pattern(i, seed))
			return false;
	return true;
}

static void *map(int fd, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* The offset of the first nonzero word, or bytes if there is none */
static size_t nonzero(const volatile uint32_t *p, size_t bytes)
{
	size_t i;

	for (i = 0; i < bytes / 4; i++)
		if (p[i])
			return i * 4;
	return bytes;
}

/* The results each test reports (the plan). */
#define INFO_CHECKS		5
#define ALLOC_SIZES		5	/* test_alloc_sizes' table */
#define ALLOC_SIZE_CHECKS	(4 * ALLOC_SIZES + 1)
#define ALLOC_ERROR_CHECKS	9
#define MMAP_CHECKS		6
#define MOVE_CHECKS		13
#define LIFETIME_CHECKS		5
#define MANY_CHECKS		4
#define SCRUB_CHECKS		9

static void test_info(struct axon_gpu_info *start)
{
	int rc = info(start);

	tap_ok(rc == 0, "INFO");
	tap_ok(rc == 0 && start->vram_size >= 0x100000 &&
	       !(start->vram_size & (start->vram_size - 1)),
	       "INFO vram_size is a power of 2, at least 1 MiB");
	tap_ok(rc == 0 && start->vram_free == start->vram_size &&
	       start->buffers == 0, "INFO: all VRAM free, no buffers");
	tap_ok(rc == 0 && start->reserved == 0, "INFO reserved is 0");
	expect_err(ioctl(dev, _IO(AXON_GPU_IOCTL_TYPE, 9), 0), ENOTTY,
		   "unknown ioctl");
}

static void test_alloc_sizes(const struct axon_gpu_info *start)
{
	const struct { uint64_t size, rounded; const char *name; } sizes[ALLOC_SIZES] = {
		{ 1, GPU_PAGE, "ALLOC 1 byte" },
		{ GPU_PAGE, GPU_PAGE, "ALLOC 64 KiB" },
		{ 100001, 2 * GPU_PAGE, "ALLOC 100001 bytes" },
		{ start->vram_size / 2 + 1, start->vram_size / 2 + GPU_PAGE,
		  "ALLOC half the VRAM + 1" },
		{ start->vram_size, start->vram_size, "ALLOC all the VRAM" },
	};
	struct axon_gpu_alloc a;
	char what[128];
	unsigned int i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int rc = gpu_alloc(sizes[i].size, &a);
		int fdfl = rc ? -1 : fcntl(a.fd, F_GETFD);
		int fl = rc ? -1 : fcntl(a.fd, F_GETFL);
		off_t end = rc ? -1 : lseek(a.fd, 0, SEEK_END);

		tap_ok(rc == 0 && a.fd >= 0, "%s", sizes[i].name);
		snprintf(what, sizeof(what),
			 "%s: dma-buf of %llu bytes (got %lld), gpu_va 0x%llx aligned",
			 sizes[i].name, (unsigned long long)sizes[i].rounded,
			 (long long)end, (unsigned long long)a.gpu_va);
		tap_ok(rc == 0 && (uint64_t)end == sizes[i].rounded &&
		       a.gpu_va && !(a.gpu_va % GPU_PAGE), "%s", what);
		snprintf(what, sizeof(what), "%s: O_RDWR, close-on-exec",
			 sizes[i].name);
		tap_ok(fdfl >= 0 && (fdfl & FD_CLOEXEC) &&
		       (fl & O_ACCMODE) == O_RDWR, "%s", what);
		snprintf(what, sizeof(what), "%s: vram_free drops by %llu",
			 sizes[i].name, (unsigned long long)sizes[i].rounded);
		tap_ok(vram_free() == start->vram_size - sizes[i].rounded, "%s", what);
		if (rc == 0)
			close(a.fd);
	}
	tap_ok(vram_free() == start->vram_size, "vram_free back after close");
}

static void test_alloc_errors(const struct axon_gpu_info *start)
{
	struct axon_gpu_alloc a, big;
	int rc;

	expect_err(gpu_alloc(0, &a), EINVAL, "ALLOC size 0");
	memset(&a, 0, sizeof(a));
	a.size = 1;
	a.flags = 1;
	expect_err(ioctl(dev, AXON_GPU_IOCTL_ALLOC, &a), EINVAL, "ALLOC flags 1");
	memset(&a, 0, sizeof(a));
	a.size = 1;
	a.reserved = 1;
	expect_err(ioctl(dev, AXON_GPU_IOCTL_ALLOC, &a), EINVAL,
		   "ALLOC reserved 1");
	expect_err(gpu_alloc(start->vram_size + 1, &a), ENOMEM,
		   "ALLOC vram_size + 1");
	expect_err(gpu_alloc(UINT64_MAX, &a), ENOMEM, "ALLOC 2^64 - 1 bytes");
	expect_err(ioctl(dev, AXON_GPU_IOCTL_ALLOC, NULL), EFAULT,
		   "ALLOC at address 0");

	rc = gpu_alloc(start->vram_size, &big);
	tap_ok(rc == 0, "ALLOC all the VRAM");
	/* only a full VRAM refuses a byte (under fault injection it may not be) */
	if (rc == 0) {
		expect_err(gpu_alloc(1, &a), ENOMEM,
			   "ALLOC 1 byte with no VRAM left");
		close(big.fd);
	} else {
		tap_skip("the VRAM could not be filled",
			 "ALLOC 1 byte with no VRAM left");
	}
	tap_ok(vram_free() == start->vram_size, "vram_free back after close");
}

static void test_mmap(void)
{
	const size_t len = 4 * GPU_PAGE;
	struct axon_gpu_alloc a;
	uint32_t *p, *q;
	void *r;

	if (gpu_alloc(len, &a)) {
		tap_ok(false, "ALLOC for mmap");
		return;
	}
	p = map(a.fd, len);
	tap_ok(p != NULL, "mmap MAP_SHARED the whole buffer");
	if (p) {
		fill(p, len, 0x1234);
		tap_ok(same(p, len, 0x1234), "a pattern reads back");
	}
	q = map(a.fd, len);
	tap_ok(q && p && same(q, len, 0x1234), "a second mapping sees it");
	if (q)
		munmap(q, len);
	r = mmap(NULL, len, PROT_READ, MAP_PRIVATE, a.fd, 0);
	tap_ok(r == MAP_FAILED, "mmap MAP_PRIVATE fails");
	if (r != MAP_FAILED)
		munmap(r, len);
	r = mmap(NULL, len + 4096, PROT_READ, MAP_SHARED, a.fd, 0);
	tap_ok(r == MAP_FAILED, "mmap beyond the end fails");
	if (r != MAP_FAILED)
		munmap(r, len + 4096);
	r = mmap(NULL, 4096, PROT_READ, MAP_SHARED, a.fd, len - 4096);
	tap_ok(r != MAP_FAILED && ((uint32_t *)r)[0] ==
	       pattern((len - 4096) / 4, 0x1234), "mmap at an offset");
	if (r != MAP_FAILED)
		munmap(r, 4096);
	if (p)
		munmap(p, len);
	close(a.fd);
}

static void test_move(const struct axon_gpu_info *start)
{
	const size_t len = 2 * GPU_PAGE + GPU_PAGE / 2;
	const size_t maplen = 3 * GPU_PAGE;
	struct axon_gpu_alloc a, big;
	struct axon_gpu_move m;
	uint32_t *p, *q;
	int pipefd[2];
	uint64_t before;

	if (gpu_alloc(len, &a)) {
		tap_ok(false, "ALLOC for MOVE");
		return;
	}
	p = map(a.fd, maplen);
	if (!p) {
		tap_ok(false, "mmap for MOVE");
		close(a.fd);
		return;
	}
	fill(p, maplen, 0xabcd);
	before = vram_free();
	tap_ok(gpu_move(a.fd) == 0, "MOVE");
	tap_ok(vram_free() == before, "MOVE: vram_free unchanged");
	tap_ok(same(p, maplen, 0xabcd), "MOVE: the existing mapping sees the data");
	fill(p, maplen, 0x5678);
	tap_ok(gpu_move(a.fd) == 0, "MOVE again");
	q = map(a.fd, maplen);
	tap_ok(q && same(q, maplen, 0x5678),
	       "MOVE: a new mapping sees what was written after the first move");
	if (q)
		munmap(q, maplen);
	tap_ok(same(p, maplen, 0x5678), "MOVE: the old mapping too");

	expect_err(gpu_move(-1), EBADF, "MOVE fd -1");
	expect_err(gpu_move(dev), EINVAL, "MOVE of the device fd");
	if (pipe(pipefd) == 0) {
		expect_err(gpu_move(pipefd[0]), EINVAL, "MOVE of a pipe");
		close(pipefd[0]);
		close(pipefd[1]);
	} else {
		tap_ok(false, "pipe");
	}
	memset(&m, 0, sizeof(m));
	m.fd = a.fd;
	m.flags = 1;
	expect_err(ioctl(dev, AXON_GPU_IOCTL_MOVE, &m), EINVAL, "MOVE flags 1");
	m.flags = 0;
	m.reserved = 1;
	expect_err(ioctl(dev, AXON_GPU_IOCTL_MOVE, &m), EINVAL,
		   "MOVE reserved 1");
	munmap(p, maplen);
	close(a.fd);

	/* more than half the VRAM has nowhere else to go */
	if (gpu_alloc(start->vram_size / 2 + GPU_PAGE, &big) == 0) {
		expect_err(gpu_move(big.fd), ENOSPC,
			   "MOVE with no free range large enough");
		close(big.fd);
	} else {
		tap_ok(false, "ALLOC half the VRAM + 64 KiB");
	}
	tap_ok(vram_free() == start->vram_size, "vram_free back after MOVEs");
}

static void test_lifetime(const struct axon_gpu_info *start)
{
	struct axon_gpu_alloc a, b;
	struct axon_gpu_info i;
	uint32_t *p;

	if (gpu_alloc(GPU_PAGE, &a)) {
		tap_ok(false, "ALLOC for the lifetime test");
		return;
	}
	p = map(a.fd, GPU_PAGE);
	tap_ok(p != NULL, "mmap");
	close(a.fd);
	tap_ok(info(&i) == 0 && i.buffers == 1 &&
	       i.vram_free == start->vram_size - GPU_PAGE,
	       "closed but mapped: the buffer lives");
	if (p) {
		fill(p, GPU_PAGE, 7);
		tap_ok(same(p, GPU_PAGE, 7), "closed but mapped: still usable");
		munmap(p, GPU_PAGE);
	}
	tap_ok(info(&i) == 0 && i.buffers == 0 &&
	       i.vram_free == start->vram_size, "unmapped too: freed");
	if (gpu_alloc(GPU_PAGE, &b) == 0) {
		tap_ok(b.gpu_va != a.gpu_va, "a freed buffer's gpu_va is not reused");
		close(b.fd);
	} else {
		tap_ok(false, "ALLOC after free");
	}
}

static void test_many(const struct axon_gpu_info *start)
{
	uint64_t pages = start->vram_size / GPU_PAGE, n = 0, k, dup = 0;
	struct axon_gpu_alloc *a;
	struct rlimit rl;
	char what[128];
	int rc;

	if (pages > 16384)
		pages = 16384;
	rl.rlim_cur = rl.rlim_max = pages + 64;
	setrlimit(RLIMIT_NOFILE, &rl);
	a = calloc(pages + 1, sizeof(*a));
	if (!a) {
		tap_ok(false, "calloc");
		return;
	}
	while (n <= pages && (rc = gpu_alloc(GPU_PAGE, &a[n])) == 0)
		n++;
	if (pages == start->vram_size / GPU_PAGE) {
		snprintf(what, sizeof(what),
			 "%llu buffers of 64 KiB fill the VRAM, then ENOMEM (%s)",
			 (unsigned long long)n, n > pages ? "none" :
			 strerror(errno));
		tap_ok(n == pages && rc == -1 && errno == ENOMEM, "%s", what);
	} else {
		snprintf(what, sizeof(what), "%llu buffers of 64 KiB",
			 (unsigned long long)pages);
		tap_ok(n == pages + 1, "%s", what);
	}
	for (k = 1; k < n; k++)
		dup += a[k].gpu_va <= a[k - 1].gpu_va;
	tap_ok(dup == 0, "their gpu_vas are distinct");
	tap_ok(vram_free() == start->vram_size - n * GPU_PAGE,
	       "vram_free accounts for all of them");
	for (k = 0; k < n; k++)
		close(a[k].fd);
	free(a);
	tap_ok(vram_free() == start->vram_size, "all freed after close");
}

/* ALLOC and map a buffer; NULL (and a->fd -1) if either fails. */
static uint32_t *alloc_map(size_t len, struct axon_gpu_alloc *a)
{
	uint32_t *p;

	if (gpu_alloc(len, a)) {
		a->fd = -1;
		return NULL;
	}
	p = map(a->fd, len);
	if (!p) {
		close(a->fd);
		a->fd = -1;
	}
	return p;
}

static void unmap_close(uint32_t *p, size_t len, struct axon_gpu_alloc *a)
{
	if (p)
		munmap(p, len);
	if (a->fd >= 0)
		close(a->fd);
}

/* One result: the buffer at p (NULL: its ALLOC or mmap failed) is zero. */
static void expect_zero(const uint32_t *p, size_t len, const char *what)
{
	size_t at = p ? nonzero(p, len) : 0;

	if (!p)
		tap_ok(false, "%s (ALLOC or mmap failed: %s)", what,
		       strerror(errno));
	else if (at < len)
		tap_ok(false, "%s (0x%08x at offset 0x%zx)", what,
		       (unsigned int)p[at / 4], at);
	else
		tap_ok(true, "%s", what);
}

/*
 * VRAM is scrubbed: no buffer shows what an earlier one held. The device
 * has no buffers and the allocator is first fit, so each new buffer below
 * lands on the range named (a failure shows the old data, which proves
 * it).
 */
static void test_scrub(const struct axon_gpu_info *start)
{
	const size_t len = 4 * GPU_PAGE;
	struct axon_gpu_alloc a, b, c;
	uint32_t *p, *q, *r;

	/* [0, len): whatever the VRAM held before (another driver instance) */
	p = alloc_map(len, &a);
	expect_zero(p, len, "scrub: a new buffer reads zero");
	if (p)
		fill(p, len, 0x5c5c);
	unmap_close(p, len, &a);
	/* [0, len) again */
	q = alloc_map(len, &b);
	expect_zero(q, len, "scrub: a buffer over a freed one reads zero");
	if (q)
		fill(q, len, 0x5d5d);
	unmap_close(q, len, &b);
	/* [0, 2 len) */
	q = alloc_map(2 * len, &b);
	expect_zero(q, 2 * len,
		    "scrub: a larger buffer over a freed one reads zero");
	unmap_close(q, 2 * len, &b);

	/* A at [0, len) moves to [len, 2 len); B gets [0, len) */
	p = alloc_map(len, &a);
	if (p)
		fill(p, len, 0x5e5e);
	tap_ok(p && gpu_move(a.fd) == 0 && same(p, len, 0x5e5e),
	       "scrub: MOVE keeps the data");
	q = alloc_map(len, &b);
	expect_zero(q, len, "scrub: the range a MOVE left reads zero when allocated");
	/* A moves on to [2 len, 3 len); C gets [len, 2 len) */
	if (p)
		fill(p, len, 0x5f5f);
	tap_ok(p && gpu_move(a.fd) == 0 && same(p, len, 0x5f5f),
	       "scrub: MOVE again keeps the data");
	r = alloc_map(len, &c);
	expect_zero(r, len,
		    "scrub: the range the second MOVE left reads zero when allocated");
	tap_ok(q && r && nonzero(q, len) == len && nonzero(r, len) == len &&
	       same(p, len, 0x5f5f), "scrub: the buffers stay apart");
	unmap_close(r, len, &c);
	unmap_close(q, len, &b);
	unmap_close(p, len, &a);
	tap_ok(vram_free() == start->vram_size, "vram_free back after the scrub tests");
}

static sigjmp_buf touch_env;
static volatile sig_atomic_t touch_now;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(touch_env, 1);
}

static void on_usr1(int sig)
{
	(void)sig;
	touch_now = 1;
}

/* Hold a mapped buffer; on SIGUSR1 report what reading it does. */
static int hold(int seconds)
{
	struct sigaction sa = { 0 };
	struct axon_gpu_alloc a;
	volatile uint32_t *p;
	int t;

	if (gpu_alloc(GPU_PAGE, &a) || !(p = map(a.fd, GPU_PAGE))) {
		fprintf(stderr, "hold: %s\n", strerror(errno));
		return 1;
	}
	fill(p, GPU_PAGE, 42);
	/* only the buffer (fd and mapping) holds the module */
	close(dev);
	sa.sa_handler = on_sigbus;
	sigaction(SIGBUS, &sa, NULL);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	printf("holding gpu_va 0x%llx\n", (unsigned long long)a.gpu_va);
	fflush(stdout);
	for (t = 0; t < seconds * 10 && !touch_now; t++)
		usleep(100000);
	if (!touch_now)
		return 0;
	if (sigsetjmp(touch_env, 1)) {
		printf("touch: SIGBUS\n");
		return 0;
	}
	printf("touch: %s\n", same(p, GPU_PAGE, 42) ? "ok" : "bad data");
	return 0;
}

/* Drop many buffers' last references on SIGUSR1 (see --close-race). */
static int close_race(int n)
{
	struct axon_gpu_alloc a;
	struct rlimit rl;
	sigset_t set;
	void **maps;
	int *fds, i, k, sig;

	rl.rlim_cur = rl.rlim_max = n + 64;
	setrlimit(RLIMIT_NOFILE, &rl);
	fds = calloc(n, sizeof(*fds));
	maps = calloc(n, sizeof(*maps));
	if (!fds || !maps)
		return 1;
	for (i = 0; i < n; i++) {
		fds[i] = -1;
		if (gpu_alloc(GPU_PAGE, &a)) {
			fprintf(stderr, "close-race: ALLOC %d: %s\n", i,
				strerror(errno));
			return 1;
		}
		fds[i] = a.fd;
		if (i % 4 == 3) {
			maps[i] = map(a.fd, GPU_PAGE);
			if (!maps[i]) {
				fprintf(stderr, "close-race: mmap %d: %s\n", i,
					strerror(errno));
				return 1;
			}
			((volatile uint32_t *)maps[i])[0] = i;
			close(fds[i]);
			fds[i] = -1;
		}
	}
	close(dev);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready\n");
	if (sigwait(&set, &sig))
		return 1;
	for (i = k = 0; i < n; i++) {
		if (fds[i] >= 0 && close(fds[i]) == 0)
			k++;
		if (maps[i] && munmap(maps[i], GPU_PAGE) == 0)
			k++;
	}
	printf("closed %d\n", k);
	return 0;
}

int main(int argc, char **argv)
{
	struct axon_gpu_info start;
	const char *name = AXON_GPU_DEV_PREFIX "0";
	bool scrub = false;
	int hold_s = -1, race_n = -1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 2 && !strcmp(argv[1], "--hold")) {
		hold_s = atoi(argv[2]);
		argc -= 2;
		argv += 2;
	} else if (argc > 2 && !strcmp(argv[1], "--close-race")) {
		race_n = atoi(argv[2]);
		argc -= 2;
		argv += 2;
	} else if (argc > 1 && !strcmp(argv[1], "--scrub")) {
		scrub = true;
		argc--;
		argv++;
	}
	if (argc > 1)
		name = argv[1];
	fault_injection_begin();
	dev = open(name, O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		fprintf(stderr, "cannot open %s: %s\n", name, strerror(errno));
		return 1;
	}
	if (hold_s >= 0)
		return hold(hold_s);
	if (race_n > 0)
		return close_race(race_n);
	if (scrub) {
		tap_plan(INFO_CHECKS + SCRUB_CHECKS);
		test_info(&start);
		test_scrub(&start);
		close(dev);
		return tap_done();
	}
	tap_plan(INFO_CHECKS + ALLOC_SIZE_CHECKS + ALLOC_ERROR_CHECKS +
		 MMAP_CHECKS + MOVE_CHECKS + LIFETIME_CHECKS + MANY_CHECKS + 1);
	test_info(&start);
	test_alloc_sizes(&start);
	test_alloc_errors(&start);
	test_mmap();
	test_move(&start);
	test_lifetime(&start);
	test_many(&start);
	tap_ok(close(dev) == 0, "close the device");
	return tap_done();
}
