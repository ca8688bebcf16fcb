// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon_gpu: the VRAM allocator, first fit over AXON_GPU_PAGE_SIZE pages
 * (callers hold gpu->lock), and the scrubbing of VRAM with the device's
 * clear engine.
 */

#include <linux/bitmap.h>
#include <linux/iopoll.h>
#include <linux/slab.h>

#include "axon_gpu.h"

/* How often a waiter polls the clear engine, and for how long at most */
#define AXON_GPU_CLEAR_POLL_US		50
#define AXON_GPU_CLEAR_TIMEOUT_US(size) \
	((10 + ((size) >> 30)) * USEC_PER_SEC)

/* Wait until the clear engine is not busy; its STATUS in *status. */
static int axon_gpu_clear_wait(struct axon_gpu *gpu, u64 size, u32 *status)
{
	u32 st;
	int err;

	err = readl_poll_timeout(gpu->regs + AXON_GPU_REG_CLEAR_STATUS, st,
				 !(st & AXON_GPU_CLEAR_STATUS_BUSY),
				 AXON_GPU_CLEAR_POLL_US,
				 AXON_GPU_CLEAR_TIMEOUT_US(size));
	*status = st;
	return err;
}

/* Under clear_lock, with the engine idle: start the clear and wait. */
static int axon_gpu_clear_locked(struct axon_gpu *gpu, u64 offset, u64 size)
{
	void __iomem *regs = gpu->regs;
	u32 status;

	writel(AXON_REG_LO(offset), regs + AXON_GPU_REG_CLEAR_OFFSET_LO);
	writel(AXON_REG_HI(offset), regs + AXON_GPU_REG_CLEAR_OFFSET_HI);
	writel(AXON_REG_LO(size), regs + AXON_GPU_REG_CLEAR_SIZE_LO);
	writel(AXON_REG_HI(size), regs + AXON_GPU_REG_CLEAR_SIZE_HI);
	writel(AXON_GPU_CLEAR_CTRL_START, regs + AXON_GPU_REG_CLEAR_CTRL);
	if (axon_gpu_clear_wait(gpu, size, &status)) {
		dev_err_ratelimited(&gpu->pdev->dev,
				    "clear of VRAM 0x%llx+0x%llx timed out\n",
				    offset, size);
		return -EIO;
	}
	if (status & AXON_GPU_CLEAR_STATUS_ERROR) {
		dev_err_ratelimited(&gpu->pdev->dev,
				    "clear of VRAM 0x%llx+0x%llx refused\n",
				    offset, size);
		return -EIO;
	}
	return 0;
}

/*
 * Zero [offset, offset + size) of the VRAM with the device's clear engine
 * (axon_gpu_dev.h, "axon-gpu clear engine") and wait until it is done, so
 * that no one sees what the range held before. offset and size are
 * multiples of AXON_GPU_PAGE_SIZE. Sleeps. Returns 0, -ENODEV once remove
 * has stopped the engine, or -EIO if the device refused the range or did
 * not finish in time.
 */
int axon_gpu_clear(struct axon_gpu *gpu, u64 offset, u64 size)
{
	u32 status;
	int err;

	mutex_lock(&gpu->clear_lock);
	if (gpu->clear_dead) {
		err = -ENODEV;
	} else if (axon_gpu_clear_wait(gpu, gpu->vram_size, &status)) {
		/*
		 * The engine ignores commands while busy: one that timed
		 * out must be over before ours, or ours would be dropped
		 * and look done.
		 */
		dev_err_ratelimited(&gpu->pdev->dev, "clear engine stuck\n");
		err = -EIO;
	} else {
		err = axon_gpu_clear_locked(gpu, offset, size);
	}
	mutex_unlock(&gpu->clear_lock);
	return err;
}

/*
 * Remove: wait for a clear in progress and refuse new ones, before the
 * registers are unmapped.
 */
void axon_gpu_clear_stop(struct axon_gpu *gpu)
{
	mutex_lock(&gpu->clear_lock);
	gpu->clear_dead = true;
	mutex_unlock(&gpu->clear_lock);
}

int axon_gpu_vram_init(struct axon_gpu_vram *v, u64 size)
{
	v->pages = size / AXON_GPU_PAGE_SIZE;
	v->free_pages = v->pages;
	v->used = kvcalloc(BITS_TO_LONGS(v->pages), sizeof(long), GFP_KERNEL);
	return v->used ? 0 : -ENOMEM;
}

void axon_gpu_vram_fini(struct axon_gpu_vram *v)
{
	kvfree(v->used);
}

/* size: a multiple of AXON_GPU_PAGE_SIZE. -ENOSPC if no range fits. */
int axon_gpu_vram_alloc(struct axon_gpu_vram *v, u64 size, u64 *offset)
{
	u64 n = size / AXON_GPU_PAGE_SIZE;
	unsigned long first;

	if (n == 0 || n > v->free_pages)
		return -ENOSPC;
	first = bitmap_find_next_zero_area(v->used, v->pages, 0, n, 0);
	if (first >= v->pages)
		return -ENOSPC;
	bitmap_set(v->used, first, n);
	v->free_pages -= n;
	*offset = (u64)first * AXON_GPU_PAGE_SIZE;
	return 0;
}

void axon_gpu_vram_free(struct axon_gpu_vram *v, u64 offset, u64 size)
{
	unsigned long first = offset / AXON_GPU_PAGE_SIZE;
	unsigned long n = size / AXON_GPU_PAGE_SIZE;

	bitmap_clear(v->used, first, n);
	v->free_pages += n;
}

u64 axon_gpu_vram_free_bytes(const struct axon_gpu_vram *v)
{
	return (u64)v->free_pages * AXON_GPU_PAGE_SIZE;
}
