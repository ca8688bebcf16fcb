// SPDX-License-Identifier: GPL-2.0
/*
 * axon-bar-fuzz: drive an axon-nic directly through its BAR from
 * userspace (no driver bound) with invalid queue settings, garbage
 * commands and out-of-range doorbells, and check that the device reports
 * each error and keeps working.
 *
 * Usage: axon-bar-fuzz PCI-ADDRESS     (e.g. 0000:00:03.0, as root)
 *
 * DMA memory is ordinary locked process memory, addressed by its physical
 * address from /proc/self/pagemap: the VMs have no IOMMU.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <axon/axon_dev.h>

#include "axon-test.h"

#define PAGE 4096
#define UNMAPPED_ADDR 0xfff0000000000ULL
#define POLL_NS (2ULL * 1000 * 1000 * 1000)

enum { PG_SQ, PG_CQ, PG_EQ, PG_RESP, NR_PAGES };

static volatile uint32_t *regs;
static uint8_t *mem;
static uint64_t phys[NR_PAGES];
static uint16_t next_cid;
static uint32_t sq_tail, cq_head, depth;
static bool cq_phase;

static uint32_t rd(uint32_t reg)
{
	return regs[reg / 4];
}

static void wr(uint32_t reg, uint32_t val)
{
	regs[reg / 4] = val;
	__sync_synchronize();
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int phys_addr(void *va, uint64_t *pa)
{
	uint64_t entry;
	int fd = open("/proc/self/pagemap", O_RDONLY);
	off_t off = (uintptr_t)va / PAGE * sizeof(entry);

	if (fd < 0)
		return -errno;
	if (pread(fd, &entry, sizeof(entry), off) != sizeof(entry)) {
		close(fd);
		return -EIO;
	}
	close(fd);
	if (!(entry >> 63) || !(entry & ((1ULL << 55) - 1)))
		return -ENXIO;
	*pa = (entry & ((1ULL << 55) - 1)) * PAGE;
	return 0;
}

static int map_device(const char *bdf)
{
	char path[256];
	uint16_t cmd;
	int fd;

	/* memory decoding and bus mastering, as a driver would enable them */
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", bdf);
	fd = open(path, O_RDWR);
	if (fd < 0 || pread(fd, &cmd, 2, 4) != 2)
		return -1;
	cmd |= 0x6;
	if (pwrite(fd, &cmd, 2, 4) != 2)
		return -1;
	close(fd);

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource%d", bdf,
		 AXON_BAR_REGS);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0)
		return -1;
	regs = mmap(NULL, AXON_REGS_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, 0);
	close(fd);
	return regs == MAP_FAILED ? -1 : 0;
}

static int alloc_dma(void)
{
	int i;

	mem = mmap(NULL, NR_PAGES * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, -1, 0);
	if (mem == MAP_FAILED)
		return -1;
	memset(mem, 0, NR_PAGES * PAGE);
	for (i = 0; i < NR_PAGES; i++)
		if (phys_addr(mem + i * PAGE, &phys[i]))
			return -1;
	return 0;
}

static void program(uint64_t sq, uint32_t sqd, uint64_t cq, uint32_t cqd,
		    uint64_t eq, uint32_t eqd)
{
	wr(AXON_REG_AQ_SQ_BASE_LO, (uint32_t)sq);
	wr(AXON_REG_AQ_SQ_BASE_HI, sq >> 32);
	wr(AXON_REG_AQ_SQ_DEPTH, sqd);
	wr(AXON_REG_AQ_CQ_BASE_LO, (uint32_t)cq);
	wr(AXON_REG_AQ_CQ_BASE_HI, cq >> 32);
	wr(AXON_REG_AQ_CQ_DEPTH, cqd);
	wr(AXON_REG_EQ_BASE_LO, (uint32_t)eq);
	wr(AXON_REG_EQ_BASE_HI, eq >> 32);
	wr(AXON_REG_EQ_DEPTH, eqd);
}

static bool start(uint32_t d)
{
	wr(AXON_REG_CTRL, AXON_CTRL_RESET);
	memset(mem, 0, NR_PAGES * PAGE);
	program(phys[PG_SQ], d, phys[PG_CQ], d, phys[PG_EQ], d);
	wr(AXON_REG_CTRL, AXON_CTRL_ENABLE);
	depth = d;
	sq_tail = 0;
	cq_head = 0;
	cq_phase = true;
	return rd(AXON_REG_STATUS) == AXON_STATUS_READY;
}

/* Submit one command; returns its completion status or -1 on no answer. */
static int run(struct axon_admin_cmd *cmd)
{
	volatile struct axon_admin_cqe *cqe;
	struct axon_admin_cmd *sq = (void *)(mem + PG_SQ * PAGE);
	uint64_t deadline = now_ns() + POLL_NS;
	uint16_t cid = next_cid++;

	cmd->command_id = cid;
	memcpy(&sq[sq_tail], cmd, sizeof(*cmd));
	sq_tail = (sq_tail + 1) % depth;
	__sync_synchronize();
	wr(AXON_REG_AQ_SQ_TAIL, sq_tail);

	cqe = (volatile struct axon_admin_cqe *)(mem + PG_CQ * PAGE) + cq_head;
	while (!!(cqe->flags & AXON_ADMIN_CQE_PHASE) != cq_phase) {
		if (now_ns() > deadline)
			return -1;
		usleep(100);
	}
	__sync_synchronize();
	if (++cq_head == depth) {
		cq_head = 0;
		cq_phase = !cq_phase;
	}
	if (cqe->command_id != cid)
		return -1;
	return cqe->status;
}

static int query(uint16_t opcode, uint64_t addr, uint32_t len, uint32_t port)
{
	struct axon_admin_cmd cmd = {};

	cmd.opcode = opcode;
	cmd.query.resp_addr = addr;
	cmd.query.resp_len = len;
	cmd.query.port = port;
	return run(&cmd);
}

static const struct {
	const char *name;
	int sq_off, cq_off;
	uint32_t sqd, cqd, eqd;
	uint32_t err;
} bad_configs[] = {
	{ "sq depth 0", 0, 0, 0, 8, 8, AXON_DEV_ERR_AQ_SQ_CONFIG },
	{ "sq depth 3", 0, 0, 3, 8, 8, AXON_DEV_ERR_AQ_SQ_CONFIG },
	{ "sq depth 2^31", 0, 0, 1U << 31, 8, 8,
	  AXON_DEV_ERR_AQ_SQ_CONFIG },
	{ "sq unaligned", 128, 0, 8, 8, 8, AXON_DEV_ERR_AQ_SQ_CONFIG },
	{ "cq shallower than sq", 0, 0, 8, 4, 8,
	  AXON_DEV_ERR_AQ_CQ_CONFIG },
	{ "cq unaligned", 0, 16, 8, 8, 8, AXON_DEV_ERR_AQ_CQ_CONFIG },
	{ "eq depth 1", 0, 0, 8, 8, 1, AXON_DEV_ERR_EQ_CONFIG },
};

#define N_BAD_CONFIGS (sizeof(bad_configs) / sizeof(bad_configs[0]))

/* The results each test reports (the plan). */
#define BAD_CONFIG_CHECKS	(N_BAD_CONFIGS + 1)
#define GARBAGE_CHECKS		8
#define DOORBELL_CHECKS		5
#define FATAL_DMA_CHECKS	2

static void test_bad_configs(void)
{
	char name[96];
	size_t i;

	for (i = 0; i < N_BAD_CONFIGS; i++) {
		wr(AXON_REG_CTRL, AXON_CTRL_RESET);
		program(phys[PG_SQ] + bad_configs[i].sq_off, bad_configs[i].sqd,
			phys[PG_CQ] + bad_configs[i].cq_off, bad_configs[i].cqd,
			phys[PG_EQ], bad_configs[i].eqd);
		wr(AXON_REG_CTRL, AXON_CTRL_ENABLE);
		snprintf(name, sizeof(name), "bad queue setup refused: %s",
			 bad_configs[i].name);
		tap_ok(rd(AXON_REG_ERROR) == bad_configs[i].err &&
		       !(rd(AXON_REG_STATUS) & AXON_STATUS_READY), "%s", name);
	}
	wr(AXON_REG_CTRL, AXON_CTRL_RESET);
	program(0, 8, phys[PG_CQ], 8, phys[PG_EQ], 8);
	wr(AXON_REG_CTRL, AXON_CTRL_ENABLE);
	tap_ok(rd(AXON_REG_ERROR) == AXON_DEV_ERR_AQ_SQ_CONFIG,
	       "bad queue setup refused: sq base 0");
}

static void test_garbage_commands(void)
{
	struct axon_admin_cmd cmd;
	unsigned int seed = 1;
	int i, st, answered = 0;

	tap_ok(start(8), "device starts with a good setup");

	for (i = 0; i < 64; i++) {
		uint8_t *p = (uint8_t *)&cmd;
		size_t j;

		for (j = 0; j < sizeof(cmd); j++)
			p[j] = rand_r(&seed);
		st = run(&cmd);
		if (st > 0)
			answered++;
	}
	tap_ok(answered == 64, "64 random commands each completed with an error");

	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = 0x7777;
	tap_ok(run(&cmd) == AXON_ADMIN_BAD_OPCODE, "unknown opcode: BAD_OPCODE");
	tap_ok(query(AXON_ADMIN_QUERY_DEVICE, UNMAPPED_ADDR, PAGE, 0) ==
	       AXON_ADMIN_DMA_ERROR, "response to unmapped address: DMA_ERROR");
	tap_ok(query(AXON_ADMIN_QUERY_DEVICE, phys[PG_RESP], 4, 0) ==
	       AXON_ADMIN_BAD_PARAM, "short response buffer: BAD_PARAM");
	tap_ok(query(AXON_ADMIN_QUERY_PORT, phys[PG_RESP], PAGE, 99) ==
	       AXON_ADMIN_BAD_PARAM, "bad port: BAD_PARAM");
	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = AXON_ADMIN_DESTROY_PD;
	cmd.pd.pdn = 0xffffffff;
	tap_ok(run(&cmd) == AXON_ADMIN_BAD_HANDLE, "unknown pd: BAD_HANDLE");
	tap_ok(query(AXON_ADMIN_QUERY_PORT, phys[PG_RESP], PAGE, 1) ==
	       AXON_ADMIN_SUCCESS, "valid command still succeeds");
}

static void test_doorbells(void)
{
	tap_ok(start(4), "device starts with depth 4");
	wr(AXON_REG_AQ_SQ_TAIL, 4);
	tap_ok(rd(AXON_REG_ERROR) == AXON_DEV_ERR_DOORBELL,
	       "SQ doorbell past the ring: DOORBELL error");
	wr(AXON_REG_AQ_SQ_TAIL, 0xffffffff);
	wr(AXON_REG_EQ_HEAD, 12345);
	tap_ok(rd(AXON_REG_STAT_AQ_CMDS) == 0, "bad doorbells execute nothing");
	wr(AXON_REG_AQ_SQ_DEPTH, 4096);
	tap_ok(rd(AXON_REG_AQ_SQ_DEPTH) == 4, "queue setup frozen while enabled");
	tap_ok(query(AXON_ADMIN_QUERY_PORT, phys[PG_RESP], PAGE, 1) ==
	       AXON_ADMIN_SUCCESS, "device works after bad doorbells");
}

static void test_fatal_dma(void)
{
	uint64_t deadline = now_ns() + POLL_NS;

	wr(AXON_REG_CTRL, AXON_CTRL_RESET);
	program(UNMAPPED_ADDR, 4, phys[PG_CQ], 4, phys[PG_EQ], 4);
	wr(AXON_REG_CTRL, AXON_CTRL_ENABLE);
	wr(AXON_REG_AQ_SQ_TAIL, 1);
	while (!(rd(AXON_REG_STATUS) & AXON_STATUS_FATAL) && now_ns() < deadline)
		usleep(100);
	tap_ok((rd(AXON_REG_STATUS) & AXON_STATUS_FATAL) &&
	       rd(AXON_REG_ERROR) == AXON_DEV_ERR_DMA,
	       "SQ in unmapped memory: device reports a fatal DMA error");
	tap_ok(start(4) && query(AXON_ADMIN_QUERY_PORT, phys[PG_RESP], PAGE, 1) ==
	       AXON_ADMIN_SUCCESS, "reset recovers from the fatal error");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s PCI-ADDRESS\n", argv[0]);
		return 2;
	}
	if (map_device(argv[1]) || alloc_dma()) {
		perror("axon-bar-fuzz: setup");
		return 2;
	}
	tap_plan(1 + BAD_CONFIG_CHECKS + GARBAGE_CHECKS + DOORBELL_CHECKS +
		 FATAL_DMA_CHECKS);
	tap_ok(rd(AXON_REG_MAGIC) == AXON_DEV_MAGIC, "magic register");

	test_bad_configs();
	test_garbage_commands();
	test_doorbells();
	test_fatal_dma();

	wr(AXON_REG_CTRL, AXON_CTRL_RESET);
	return tap_done();
}
