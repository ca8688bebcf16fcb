// SPDX-License-Identifier: GPL-2.0
/*
 * axon-mpi: an MPI program of two ranks, one per node, run by mpirun
 * across the VMs (tools/tests/vm/mpi.sh). Ping-pong from 1 byte to 4 MiB,
 * every byte of every message checked by its receiver; MPI_Allreduce of
 * 64-bit integers, 1 to 2^18 of them, in place and not, the sums checked
 * on both ranks. Rank 0 reports in TAP; each result
 * counts the mismatches of both ranks, so either rank's failure fails
 * it. Latency and bandwidth are printed as diagnostics (not checked).
 *
 * Usage: mpirun -np 2 ... axon-mpi
 */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#define MAX_MSG		(4u << 20)
#define MAX_COUNT	(1u << 18)

static const unsigned int msg_sizes[] = { 1, 64, 4096, 65536, 1u << 20,
					  MAX_MSG };
static const unsigned int counts[] = { 1, 1000, MAX_COUNT };

static int rank;

/* The byte at @i of message @seq of @size bytes sent by @from. */
static uint8_t pattern(unsigned int size, unsigned int seq, int from,
		       unsigned int i)
{
	return (uint8_t)(i * 31 + seq * 7 + size + from * 101);
}

static void fill(uint8_t *buf, unsigned int size, unsigned int seq, int from)
{
	unsigned int i;

	for (i = 0; i < size; i++)
		buf[i] = pattern(size, seq, from, i);
}

static unsigned long mismatches(const uint8_t *buf, unsigned int size,
				unsigned int seq, int from)
{
	unsigned long bad = 0;
	unsigned int i;

	for (i = 0; i < size; i++)
		bad += buf[i] != pattern(size, seq, from, i);
	return bad;
}

/* Both ranks' count of @bad, on rank 0. */
static unsigned long total(unsigned long bad)
{
	unsigned long sum = 0;

	MPI_Reduce(&bad, &sum, 1, MPI_UNSIGNED_LONG, MPI_SUM, 0,
		   MPI_COMM_WORLD);
	return sum;
}

/* @iters round trips of @size bytes, each direction checked. */
static void ping_pong(uint8_t *sbuf, uint8_t *rbuf, unsigned int size,
		      unsigned int iters)
{
	int peer = !rank, tag = 7;
	unsigned long bad = 0;
	unsigned int seq;
	double t0, us;

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (seq = 0; seq < iters; seq++) {
		fill(sbuf, size, seq, rank);
		memset(rbuf, 0, size);
		if (rank == 0) {
			MPI_Send(sbuf, size, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
			MPI_Recv(rbuf, size, MPI_BYTE, peer, tag, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(rbuf, size, MPI_BYTE, peer, tag, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			MPI_Send(sbuf, size, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
		}
		bad += mismatches(rbuf, size, seq, peer);
	}
	us = (MPI_Wtime() - t0) * 1e6 / iters / 2;
	bad = total(bad);
	if (rank == 0) {
		tap_ok(!bad, "ping-pong of %u bytes, %u round trips, every byte checked",
		       size, iters);
		if (bad)
			tap_diag("%lu bytes wrong", bad);
		tap_diag("%u bytes: %.1f us one way, %.1f MB/s", size, us,
			 size / us);
	}
}

/* MPI_Allreduce(MPI_SUM) of @count values, in place or not, checked. */
static void allreduce(int64_t *in, int64_t *out, unsigned int count,
		      int in_place)
{
	unsigned long bad = 0;
	unsigned int i;
	int size;

	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (i = 0; i < count; i++)
		in[i] = (int64_t)(rank + 1) * i - rank * (int64_t)count;
	if (in_place) {
		memcpy(out, in, count * sizeof(*out));
		MPI_Allreduce(MPI_IN_PLACE, out, count, MPI_INT64_T, MPI_SUM,
			      MPI_COMM_WORLD);
	} else {
		MPI_Allreduce(in, out, count, MPI_INT64_T, MPI_SUM,
			      MPI_COMM_WORLD);
	}
	/* sum over the ranks r of (r + 1) * i - r * count */
	for (i = 0; i < count; i++)
		bad += out[i] != (int64_t)size * (size + 1) / 2 * i -
				 (int64_t)size * (size - 1) / 2 * count;
	bad = total(bad);
	if (rank == 0) {
		tap_ok(!bad, "allreduce of %u int64 (sum%s), checked on both ranks",
		       count, in_place ? ", in place" : "");
		if (bad)
			tap_diag("%lu sums wrong", bad);
	}
}

int main(int argc, char **argv)
{
	char name[MPI_MAX_PROCESSOR_NAME] = "";
	char names[2][MPI_MAX_PROCESSOR_NAME];
	uint8_t *sbuf, *rbuf;
	int64_t *in, *out;
	unsigned int i;
	int size, len;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size != 2) {
		if (rank == 0)
			tap_bail("needs 2 ranks, has %d", size);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	sbuf = malloc(MAX_MSG);
	rbuf = malloc(MAX_MSG);
	in = malloc(MAX_COUNT * sizeof(*in));
	out = malloc(MAX_COUNT * sizeof(*out));
	if (!sbuf || !rbuf || !in || !out) {
		tap_bail("rank %d: out of memory", rank);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}

	if (rank == 0)
		tap_plan(1 + sizeof(msg_sizes) / sizeof(msg_sizes[0]) +
			 2 * sizeof(counts) / sizeof(counts[0]));
	MPI_Get_processor_name(name, &len);
	MPI_Gather(name, sizeof(name), MPI_CHAR, names, sizeof(name),
		   MPI_CHAR, 0, MPI_COMM_WORLD);
	if (rank == 0)
		tap_ok(strcmp(names[0], names[1]) != 0,
		       "the ranks run on two nodes (%s, %s)", names[0],
		       names[1]);

	for (i = 0; i < sizeof(msg_sizes) / sizeof(msg_sizes[0]); i++)
		ping_pong(sbuf, rbuf, msg_sizes[i],
			  msg_sizes[i] >= (1u << 20) ? 10 : 100);
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		allreduce(in, out, counts[i], 0);
		allreduce(in, out, counts[i], 1);
	}

	free(sbuf);
	free(rbuf);
	free(in);
	free(out);
	MPI_Finalize();
	return rank == 0 ? tap_done() : 0;
}
