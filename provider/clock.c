// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The device clock: the free-running nanosecond count that completion
 * timestamps carry (see "Device clock" in <axon/axon_dev.h>). The kernel
 * maps its page of BAR 0 read-only; ibv_query_rt_values_ex() reads it and
 * wallclock timestamps are converted with an offset to CLOCK_REALTIME that
 * is sampled again when it is older than AXON_CLOCK_RESAMPLE_NS.
 */

#include <errno.h>
#include <sys/mman.h>
#include <time.h>

#include "axon.h"

#define AXON_CLOCK_RESAMPLE_NS	1000000000LL

static int64_t axon_timespec_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int axon_map_clock_page(struct axon_context *ctx)
{
	if (!(ctx->resp_comp_mask & AXON_UCONTEXT_RESP_CLOCK))
		return EOPNOTSUPP;
	return axon_map_ctx_page(ctx, &ctx->clock_page, ctx->clock_mmap_key,
				 PROT_READ, "clock");
}

/* One 64-bit read: the device returns both halves at once. */
static uint64_t axon_clock_now(struct axon_context *ctx)
{
	const volatile uint64_t *clock = (const volatile uint64_t *)
		((const uint8_t *)ctx->clock_page + AXON_CLOCK_LO);

	return le64toh(*clock);
}

int axon_clock_read(struct axon_context *ctx, uint64_t *now)
{
	int err = 0;

	if (!__atomic_load_n(&ctx->clock_page, __ATOMIC_ACQUIRE))
		err = axon_map_clock_page(ctx);
	if (!err)
		*now = axon_clock_now(ctx);
	return err;
}

int axon_query_rt_values(struct ibv_context *context,
			 struct ibv_values_ex *values)
{
	uint64_t now;
	int err;

	if (values->comp_mask & ~IBV_VALUES_MASK_RAW_CLOCK)
		return EOPNOTSUPP;
	if (!values->comp_mask)
		return 0;
	err = axon_clock_read(to_axon_ctx(context), &now);
	if (err)
		return err;
	/* the raw count in tv_nsec, as libibverbs' other providers give it */
	values->raw_clock.tv_sec = 0;
	values->raw_clock.tv_nsec = (long)now;
	return 0;
}

/*
 * CLOCK_REALTIME minus the device clock, taken as the middle of two
 * system clock reads around one device read.
 */
int axon_clock_sample(struct axon_context *ctx)
{
	int64_t before, after;
	uint64_t dev;
	int err;

	before = axon_timespec_ns(CLOCK_REALTIME);
	err = axon_clock_read(ctx, &dev);
	after = axon_timespec_ns(CLOCK_REALTIME);
	if (err)
		return err;
	__atomic_store_n(&ctx->clock_offset,
			 before + (after - before) / 2 - (int64_t)dev,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&ctx->clock_sampled,
			 axon_timespec_ns(CLOCK_MONOTONIC), __ATOMIC_RELAXED);
	return 0;
}

uint64_t axon_clock_to_wallclock(struct axon_context *ctx, uint64_t ts)
{
	int64_t now = axon_timespec_ns(CLOCK_MONOTONIC);

	if (now - __atomic_load_n(&ctx->clock_sampled, __ATOMIC_RELAXED) >
	    AXON_CLOCK_RESAMPLE_NS)
		axon_clock_sample(ctx);
	return ts + __atomic_load_n(&ctx->clock_offset, __ATOMIC_RELAXED);
}
