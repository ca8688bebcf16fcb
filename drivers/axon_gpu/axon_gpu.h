/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon_gpu: driver of the axon-gpu, a stand-in for a GPU's device memory
 * (include/uapi/axon/axon_gpu_dev.h), whose buffers are dma-bufs
 * (include/uapi/axon/axon_gpu.h). Internal interfaces.
 *
 * Locking: a buffer's dma_resv lock (the dma-buf's) guards its place in
 * VRAM, its pin count and its revocation; gpu->lock, taken inside it,
 * guards the VRAM allocator, the buffer list and gpu->dead. A page fault
 * takes the resv lock under mmap_lock, as TTM does. gpu->clear_lock, a
 * leaf taken with no other lock held, serialises the device's clear
 * engine and guards gpu->clear_dead.
 */
#ifndef AXON_GPU_H
#define AXON_GPU_H

#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/pci.h>

#include <axon/axon_dev.h>
#include <axon/axon_gpu.h>
#include <axon/axon_gpu_dev.h>

#define AXON_GPU_DRV_NAME	"axon_gpu"

/* Free VRAM, one bit per AXON_GPU_PAGE_SIZE page. */
struct axon_gpu_vram {
	unsigned long *used;
	unsigned long pages;
	unsigned long free_pages;
};

struct axon_gpu {
	struct kref ref;		/* the device, open files, buffers */
	struct pci_dev *pdev;
	int id;				/* N of /dev/axon_gpuN */
	char name[24];
	struct miscdevice misc;
	phys_addr_t vram_phys;		/* BAR 2 */
	u64 vram_size;
	void *vram;			/* BAR 2 mapped write-combining */
	void __iomem *regs;		/* BAR 0 */

	struct mutex clear_lock;	/* see the locking note above */
	bool clear_dead;		/* removed: the registers are going */

	struct mutex lock;		/* see the locking note above */
	struct axon_gpu_vram alloc;
	struct list_head buffers;
	u32 nbuffers;
	u64 next_va;			/* gpu_va of the next buffer */
	bool dead;			/* removed: no new buffers */
};

/*
 * The buffer owns the dma-buf's reservation object, so that remove can
 * lock it while the dma-buf is being released (buf->dmabuf is cleared
 * under it by the release). It also holds a reference on the dma-buf's
 * inode, whose address_space (buf->mapping) remove zaps: the last fput
 * drops the dentry's reference on that inode (__dentry_kill() and then
 * the inode's RCU-delayed free) before it calls the release, which may
 * then wait for the resv lock while remove revokes the buffer.
 */
struct axon_gpu_buf {
	struct kref ref;		/* the dma-buf, a revoke in progress */
	struct axon_gpu *gpu;
	struct dma_resv resv;
	struct list_head node;		/* gpu->buffers */
	struct inode *inode;		/* of the dma-buf: a reference */
	struct address_space *mapping;	/* its pages: CPU mappings */
	u64 size;
	u64 gpu_va;
	/* under resv */
	struct dma_buf *dmabuf;		/* NULL once released */
	u64 offset;			/* in VRAM */
	unsigned int pins;
	bool dead;			/* revoked: the device is gone */
	/* under gpu->lock */
	bool revoking;
};

void axon_gpu_put(struct axon_gpu *gpu);

int axon_gpu_vram_init(struct axon_gpu_vram *v, u64 size);
void axon_gpu_vram_fini(struct axon_gpu_vram *v);
int axon_gpu_vram_alloc(struct axon_gpu_vram *v, u64 size, u64 *offset);
void axon_gpu_vram_free(struct axon_gpu_vram *v, u64 offset, u64 size);
u64 axon_gpu_vram_free_bytes(const struct axon_gpu_vram *v);

int axon_gpu_clear(struct axon_gpu *gpu, u64 offset, u64 size);
void axon_gpu_clear_stop(struct axon_gpu *gpu);

int axon_gpu_buf_alloc(struct axon_gpu *gpu, struct axon_gpu_alloc *req,
		       void __user *uarg);
int axon_gpu_buf_move(struct axon_gpu *gpu, int fd);
void axon_gpu_revoke_all(struct axon_gpu *gpu);

#endif /* AXON_GPU_H */
