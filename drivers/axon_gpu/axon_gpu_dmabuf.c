// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon_gpu: buffers, exported as dynamic dma-bufs.
 *
 * Importers get the VRAM's bus addresses (dma_map_resource() of BAR 2;
 * there are no struct pages), so only importers that accept peer memory
 * without pages (attach->peer2peer) may map. CPU mappings are VM_PFNMAP
 * and filled on fault with the buffer's current place, so a move only has
 * to zap them. Without CONFIG_DMABUF_MOVE_NOTIFY every mapping importer
 * pins the buffer (the dma-buf core calls our pin), and a pinned buffer
 * does not move.
 *
 * VRAM is scrubbed by the device's clear engine (axon_gpu_clear()): a
 * range is zeroed before it is handed out as a buffer, and the range a
 * MOVE leaves is zeroed before it is free again. No owner reads another's
 * data.
 */

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "axon_gpu.h"

/* MOVE copies this much between two reschedule points */
#define AXON_GPU_COPY_CHUNK	SZ_1M

static void axon_gpu_buf_free(struct kref *ref)
{
	struct axon_gpu_buf *buf = container_of(ref, struct axon_gpu_buf, ref);

	/* after the release and any revoke: buf->mapping is no longer used */
	if (buf->inode)
		iput(buf->inode);
	dma_resv_fini(&buf->resv);
	axon_gpu_put(buf->gpu);
	kfree(buf);
}

static int axon_gpu_pin(struct dma_buf_attachment *attach)
{
	struct axon_gpu_buf *buf = attach->dmabuf->priv;

	dma_resv_assert_held(&buf->resv);
	if (buf->dead)
		return -ENODEV;
	buf->pins++;
	return 0;
}

static void axon_gpu_unpin(struct dma_buf_attachment *attach)
{
	struct axon_gpu_buf *buf = attach->dmabuf->priv;

	dma_resv_assert_held(&buf->resv);
	buf->pins--;
}

static void axon_gpu_unmap_sg(struct device *dev, struct sg_table *sgt,
			      unsigned int n, enum dma_data_direction dir)
{
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (i == n)
			break;
		dma_unmap_resource(dev, sg_dma_address(sg), sg_dma_len(sg),
				   dir, DMA_ATTR_SKIP_CPU_SYNC);
	}
	sg_free_table(sgt);
	kfree(sgt);
}

static struct sg_table *axon_gpu_map(struct dma_buf_attachment *attach,
				     enum dma_data_direction dir)
{
	struct axon_gpu_buf *buf = attach->dmabuf->priv;
	struct device *dev = attach->dev;
	u64 seg = min_t(u64, dma_get_max_seg_size(dev), SZ_1G);
	phys_addr_t phys;
	struct scatterlist *sg;
	struct sg_table *sgt;
	unsigned int i;
	u64 done = 0;
	int err;

	dma_resv_assert_held(&buf->resv);
	if (!attach->peer2peer)
		return ERR_PTR(-EOPNOTSUPP);
	if (buf->dead)
		return ERR_PTR(-ENODEV);
	seg = max_t(u64, ALIGN_DOWN(seg, PAGE_SIZE), PAGE_SIZE);
	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	err = sg_alloc_table(sgt, DIV_ROUND_UP(buf->size, seg), GFP_KERNEL);
	if (err) {
		kfree(sgt);
		return ERR_PTR(err);
	}
	phys = buf->gpu->vram_phys + buf->offset;
	for_each_sgtable_sg(sgt, sg, i) {
		u64 len = min(seg, buf->size - done);
		dma_addr_t addr;

		addr = dma_map_resource(dev, phys + done, len, dir,
					DMA_ATTR_SKIP_CPU_SYNC);
		err = dma_mapping_error(dev, addr);
		if (err) {
			axon_gpu_unmap_sg(dev, sgt, i, dir);
			return ERR_PTR(err);
		}
		/* bus addresses only: no page behind the entry */
		sg_set_page(sg, NULL, len, 0);
		sg_dma_address(sg) = addr;
		sg_dma_len(sg) = len;
		done += len;
	}
	return sgt;
}

static void axon_gpu_unmap(struct dma_buf_attachment *attach,
			   struct sg_table *sgt, enum dma_data_direction dir)
{
	axon_gpu_unmap_sg(attach->dev, sgt, sgt->nents, dir);
}

/* The last reference is gone: give the VRAM back. */
static void axon_gpu_release(struct dma_buf *dmabuf)
{
	struct axon_gpu_buf *buf = dmabuf->priv;
	struct axon_gpu *gpu = buf->gpu;

	dma_resv_lock(&buf->resv, NULL);
	mutex_lock(&gpu->lock);
	list_del(&buf->node);
	axon_gpu_vram_free(&gpu->alloc, buf->offset, buf->size);
	gpu->nbuffers--;
	mutex_unlock(&gpu->lock);
	buf->dmabuf = NULL;
	dma_resv_unlock(&buf->resv);
	kref_put(&buf->ref, axon_gpu_buf_free);
}

static vm_fault_t axon_gpu_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct axon_gpu_buf *buf = vma->vm_private_data;
	vm_fault_t ret;

	if (vmf->pgoff >= buf->size >> PAGE_SHIFT)
		return VM_FAULT_SIGBUS;
	/* interrupted: the fault is retried once the signal is handled */
	if (dma_resv_lock_interruptible(&buf->resv, NULL))
		return VM_FAULT_NOPAGE;
	if (buf->dead)
		ret = VM_FAULT_SIGBUS;
	else
		ret = vmf_insert_pfn(vma, vmf->address,
				     PHYS_PFN(buf->gpu->vram_phys + buf->offset) +
				     vmf->pgoff);
	dma_resv_unlock(&buf->resv);
	return ret;
}

static const struct vm_operations_struct axon_gpu_vm_ops = {
	.fault = axon_gpu_fault,
};

static int axon_gpu_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma)
{
	/* a private copy of device memory makes no sense */
	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	vma->vm_flags |= VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_page_prot = pgprot_writecombine(vm_get_page_prot(vma->vm_flags));
	vma->vm_ops = &axon_gpu_vm_ops;
	vma->vm_private_data = dmabuf->priv;
	return 0;
}

static const struct dma_buf_ops axon_gpu_dmabuf_ops = {
	.pin = axon_gpu_pin,
	.unpin = axon_gpu_unpin,
	.map_dma_buf = axon_gpu_map,
	.unmap_dma_buf = axon_gpu_unmap,
	.release = axon_gpu_release,
	.mmap = axon_gpu_mmap,
};

/* Under gpu->lock: export buf, placed and scrubbed. */
static int axon_gpu_export(struct axon_gpu *gpu, struct axon_gpu_buf *buf)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp);
	struct dma_buf *dmabuf;

	if (gpu->dead)
		return -ENODEV;
	exp.ops = &axon_gpu_dmabuf_ops;
	exp.size = buf->size;
	exp.flags = O_RDWR;
	exp.resv = &buf->resv;
	exp.priv = buf;
	dmabuf = dma_buf_export(&exp);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	buf->dmabuf = dmabuf;
	/* see struct axon_gpu_buf: the mapping outlives the dentry */
	buf->inode = file_inode(dmabuf->file);
	ihold(buf->inode);
	buf->mapping = dmabuf->file->f_mapping;
	buf->gpu_va = gpu->next_va;
	gpu->next_va += buf->size;
	list_add_tail(&buf->node, &gpu->buffers);
	gpu->nbuffers++;
	return 0;
}

int axon_gpu_buf_alloc(struct axon_gpu *gpu, struct axon_gpu_alloc *req,
		       void __user *uarg)
{
	struct axon_gpu_buf *buf;
	struct dma_buf *dmabuf;
	int err, fd;

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	kref_init(&buf->ref);
	dma_resv_init(&buf->resv);
	kref_get(&gpu->ref);
	buf->gpu = gpu;
	buf->size = req->size;
	mutex_lock(&gpu->lock);
	err = gpu->dead ? -ENODEV :
	      axon_gpu_vram_alloc(&gpu->alloc, buf->size, &buf->offset);
	mutex_unlock(&gpu->lock);
	if (err) {
		kref_put(&buf->ref, axon_gpu_buf_free);
		return err == -ENOSPC ? -ENOMEM : err;
	}
	/* the range may hold an earlier buffer's data: zero it first */
	err = axon_gpu_clear(gpu, buf->offset, buf->size);
	mutex_lock(&gpu->lock);
	if (!err)
		err = axon_gpu_export(gpu, buf);
	if (err)
		axon_gpu_vram_free(&gpu->alloc, buf->offset, buf->size);
	mutex_unlock(&gpu->lock);
	if (err) {
		kref_put(&buf->ref, axon_gpu_buf_free);
		return err;
	}
	/* from here on the dma-buf's release frees buf and its VRAM */
	dmabuf = buf->dmabuf;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		dma_buf_put(dmabuf);
		return fd;
	}
	req->fd = fd;
	req->gpu_va = buf->gpu_va;
	if (copy_to_user(uarg, req, sizeof(*req))) {
		put_unused_fd(fd);
		dma_buf_put(dmabuf);
		return -EFAULT;
	}
	fd_install(fd, dmabuf->file);
	return 0;
}

static void axon_gpu_copy(struct axon_gpu *gpu, u64 to, u64 from, u64 size)
{
	u64 done, n;

	for (done = 0; done < size; done += n) {
		n = min_t(u64, size - done, AXON_GPU_COPY_CHUNK);
		memcpy(gpu->vram + to + done, gpu->vram + from + done, n);
		cond_resched();
	}
}

/*
 * Under the resv lock: move buf to a new range of VRAM. The range it
 * leaves, at *from, is still allocated: the caller scrubs and frees it.
 */
static int axon_gpu_move_locked(struct axon_gpu *gpu, struct axon_gpu_buf *buf,
				u64 *from)
{
	long ret;
	u64 to;
	int err;

	if (buf->dead)
		return -ENODEV;
	if (buf->pins)
		return -EBUSY;
	mutex_lock(&gpu->lock);
	err = axon_gpu_vram_alloc(&gpu->alloc, buf->size, &to);
	mutex_unlock(&gpu->lock);
	if (err)
		return err;
	/* dynamic importers drop their mappings; wait for their DMA */
	dma_buf_move_notify(buf->dmabuf);
	ret = dma_resv_wait_timeout(&buf->resv, DMA_RESV_USAGE_BOOKKEEP, true,
				    MAX_SCHEDULE_TIMEOUT);
	if (ret < 0) {
		mutex_lock(&gpu->lock);
		axon_gpu_vram_free(&gpu->alloc, to, buf->size);
		mutex_unlock(&gpu->lock);
		return ret;
	}
	/* CPU users fault again, and wait for the resv lock until we are done */
	unmap_mapping_range(buf->mapping, 0, 0, 1);
	*from = buf->offset;
	axon_gpu_copy(gpu, to, *from, buf->size);
	buf->offset = to;
	return 0;
}

/*
 * The range a MOVE left still holds a copy of the buffer: zero it before
 * it is free. If the engine fails (the device was removed, or is broken)
 * it is freed all the same: every ALLOC clears its range before handing
 * it out, so the copy reaches no one.
 */
static void axon_gpu_scrub_free(struct axon_gpu *gpu, u64 offset, u64 size)
{
	axon_gpu_clear(gpu, offset, size);
	mutex_lock(&gpu->lock);
	axon_gpu_vram_free(&gpu->alloc, offset, size);
	mutex_unlock(&gpu->lock);
}

int axon_gpu_buf_move(struct axon_gpu *gpu, int fd)
{
	struct dma_buf *dmabuf = dma_buf_get(fd);
	struct axon_gpu_buf *buf;
	u64 from;
	int err;

	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	buf = dmabuf->priv;
	if (dmabuf->ops != &axon_gpu_dmabuf_ops || buf->gpu != gpu) {
		err = -EINVAL;
		goto out;
	}
	err = dma_resv_lock_interruptible(&buf->resv, NULL);
	if (err)
		goto out;
	err = axon_gpu_move_locked(gpu, buf, &from);
	dma_resv_unlock(&buf->resv);
	/* CPU users and importers may use the new place meanwhile */
	if (!err)
		axon_gpu_scrub_free(gpu, from, buf->size);
out:
	dma_buf_put(dmabuf);
	return err;
}

/*
 * The device is going away: no importer may map a buffer again, nor the
 * CPU touch one. Dynamic importers are told (move_notify) and their next
 * map fails with -ENODEV; CPU mappings are zapped and their next fault is
 * a SIGBUS. Pinned importers keep the bus addresses they were given: they
 * must not use them any more (see Documentation/gpu-driver.rst). The
 * buffers themselves live on until their last reference goes.
 *
 * The dma-buf may be in its last fput, its release waiting for the resv
 * lock we hold: buf->dmabuf is still set, but __dentry_kill() has already
 * dropped the dentry's reference on the inode. buf->inode's reference
 * keeps buf->mapping alive for the unmap (which finds no mapping: each
 * one held a file reference); the dma_buf itself is freed only after its
 * release has returned, and it has no attachments left.
 */
static void axon_gpu_revoke(struct axon_gpu_buf *buf)
{
	dma_resv_lock(&buf->resv, NULL);
	if (buf->dmabuf) {
		buf->dead = true;
		dma_buf_move_notify(buf->dmabuf);
		unmap_mapping_range(buf->mapping, 0, 0, 1);
		if (buf->pins)
			dev_warn(&buf->gpu->pdev->dev,
				 "removed while buffer 0x%llx is pinned by %u importer(s)\n",
				 buf->gpu_va, buf->pins);
	}
	dma_resv_unlock(&buf->resv);
}

/* gpu->dead is set: the list only shrinks. */
void axon_gpu_revoke_all(struct axon_gpu *gpu)
{
	struct axon_gpu_buf *buf, *pos;

	for (;;) {
		buf = NULL;
		mutex_lock(&gpu->lock);
		list_for_each_entry(pos, &gpu->buffers, node) {
			if (!pos->revoking) {
				pos->revoking = true;
				kref_get(&pos->ref);
				buf = pos;
				break;
			}
		}
		mutex_unlock(&gpu->lock);
		if (!buf)
			return;
		axon_gpu_revoke(buf);
		kref_put(&buf->ref, axon_gpu_buf_free);
	}
}
