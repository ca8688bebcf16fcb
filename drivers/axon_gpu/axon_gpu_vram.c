// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon_gpu: the VRAM allocator, first fit over AXON_GPU_PAGE_SIZE pages.
 * Callers hold gpu->lock.
 */

#include <linux/bitmap.h>
#include <linux/slab.h>

#include "axon_gpu.h"

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
