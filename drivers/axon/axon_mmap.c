// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon memory shared with the device and with processes: queue memory and
 * the doorbell pages of user contexts.
 *
 * Queues (CQ rings, send and receive queues) are allocated by the driver:
 * physically contiguous and zeroed, coherent DMA memory for kernel queues,
 * pages mapped for the device for user queues. A user CQ on a device with
 * paged CQ rings (AXON_CAP_CQ_PAGES) is virtually contiguous only
 * (vmalloc), each page mapped for the device on its own, so a ring of
 * millions of CQEs needs no large allocation. A user queue's pages are
 * inserted into the process with vm_insert_page(), which takes a
 * reference on each page, and belong to its mmap entry from then on:
 * destroying the queue stops the device first, unmaps the pages for the
 * device and removes the entry; the pages are freed when the last
 * entry reference goes (axon_mmap_free) and stay alive while the process
 * maps them. A process that keeps a mapping after the queue was destroyed,
 * or after its context was disassociated on unplug, can only touch pages
 * it owns and the device no longer uses.
 *
 * A context's doorbell page is device memory mapped uncached through
 * rdma_user_mmap_io(), so the RDMA core zaps it on disassociation and the
 * page can go to a new context only once no process maps it. The clock
 * page of BAR 0 (AXON_CAP_CLOCK) is mapped the same way, read-only: it
 * holds nothing but the device clock.
 */

#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "axon.h"

enum axon_mmap_type {
	AXON_MMAP_DB,		/* a doorbell page */
	AXON_MMAP_QUEUE,	/* queue memory */
	AXON_MMAP_CLOCK,	/* the clock page, read-only */
};

struct axon_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	enum axon_mmap_type type;
	phys_addr_t io_addr;	/* AXON_MMAP_DB, AXON_MMAP_CLOCK */
	void *va;		/* AXON_MMAP_QUEUE: freed with the entry */
	size_t size;
};

static struct axon_mmap_entry *
to_ammap(struct rdma_user_mmap_entry *rdma_entry)
{
	return container_of(rdma_entry, struct axon_mmap_entry, rdma);
}

/*
 * Kernel queues are coherent memory: the CPU and the device poll them
 * with no syncs. User queues need struct pages for vm_insert_page(), so
 * they are pages mapped for streaming DMA; where such a mapping needs
 * syncs (swiotlb bouncing, as with swiotlb=force or in SEV/TDX guests),
 * the process would see a copy the device does not write: refused.
 */
int axon_qmem_alloc(struct axon_dev *adev, struct axon_qmem *mem, size_t size,
		    bool user)
{
	struct device *dev = &adev->pdev->dev;

	mem->entry = NULL;
	mem->page_dma = NULL;
	mem->user = user;
	mem->size = PAGE_ALIGN(size);
	/* large queues may simply not be available: no warning */
	if (!user) {
		mem->va = dma_alloc_coherent(dev, mem->size, &mem->dma,
					     GFP_KERNEL | __GFP_NOWARN);
		return mem->va ? 0 : -ENOMEM;
	}
	mem->va = alloc_pages_exact(mem->size,
				    GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN);
	if (!mem->va)
		return -ENOMEM;
	mem->dma = dma_map_single(dev, mem->va, mem->size, DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dev, mem->dma)) {
		free_pages_exact(mem->va, mem->size);
		return -ENOMEM;
	}
	if (dma_need_sync(dev, mem->dma)) {
		dev_dbg(dev, "user queues need DMA syncs here: not supported\n");
		dma_unmap_single(dev, mem->dma, mem->size, DMA_BIDIRECTIONAL);
		free_pages_exact(mem->va, mem->size);
		return -EOPNOTSUPP;
	}
	return 0;
}

static void axon_qmem_unmap_pages(struct device *dev, struct axon_qmem *mem,
				  size_t n)
{
	while (n--)
		dma_unmap_page(dev, mem->page_dma[n], PAGE_SIZE,
			       DMA_BIDIRECTIONAL);
	kvfree(mem->page_dma);
	mem->page_dma = NULL;
}

/*
 * User queue memory in pages (mem->page_dma), zeroed; refused where the
 * mapping would need syncs, as axon_qmem_alloc() says.
 */
int axon_qmem_alloc_paged(struct axon_dev *adev, struct axon_qmem *mem,
			  size_t size)
{
	struct device *dev = &adev->pdev->dev;
	size_t i;
	int err;

	mem->entry = NULL;
	mem->user = true;
	mem->dma = 0;
	mem->size = PAGE_ALIGN(size);
	mem->npages = mem->size >> PAGE_SHIFT;
	mem->va = vmalloc_user(mem->size);
	mem->page_dma = kvcalloc(mem->npages, sizeof(*mem->page_dma),
				 GFP_KERNEL);
	if (!mem->va || !mem->page_dma) {
		err = -ENOMEM;
		goto err_free;
	}
	for (i = 0; i < mem->npages; i++) {
		mem->page_dma[i] = dma_map_page(dev,
						vmalloc_to_page(mem->va +
								i * PAGE_SIZE),
						0, PAGE_SIZE, DMA_BIDIRECTIONAL);
		if (dma_mapping_error(dev, mem->page_dma[i])) {
			axon_qmem_unmap_pages(dev, mem, i);
			err = -ENOMEM;
			goto err_free;
		}
	}
	if (dma_need_sync(dev, mem->page_dma[0])) {
		dev_dbg(dev, "user queues need DMA syncs here: not supported\n");
		axon_qmem_unmap_pages(dev, mem, mem->npages);
		err = -EOPNOTSUPP;
		goto err_free;
	}
	return 0;

err_free:
	kvfree(mem->page_dma);
	mem->page_dma = NULL;
	vfree(mem->va);
	mem->va = NULL;
	return err;
}

/* Only once the device no longer uses the queue. */
void axon_qmem_free(struct axon_dev *adev, struct axon_qmem *mem)
{
	struct device *dev = &adev->pdev->dev;

	if (!mem->va)		/* never allocated: a QP on an SRQ has no RQ */
		return;
	if (mem->page_dma) {
		axon_qmem_unmap_pages(dev, mem, mem->npages);
		if (mem->entry)
			rdma_user_mmap_entry_remove(mem->entry);
		else
			vfree(mem->va);
		return;
	}
	if (!mem->user) {
		dma_free_coherent(dev, mem->size, mem->va, mem->dma);
		return;
	}
	dma_unmap_single(dev, mem->dma, mem->size, DMA_BIDIRECTIONAL);
	if (mem->entry)
		rdma_user_mmap_entry_remove(mem->entry);
	else
		free_pages_exact(mem->va, mem->size);
}

/* Make queue memory mappable by the context's process at offset *key. */
int axon_qmem_expose(struct axon_ucontext *uctx, struct axon_qmem *mem,
		     u64 *key)
{
	struct axon_mmap_entry *entry;
	int err;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	entry->type = AXON_MMAP_QUEUE;
	entry->va = mem->va;
	entry->size = mem->size;
	err = rdma_user_mmap_entry_insert(&uctx->ibucontext, &entry->rdma,
					  mem->size);
	if (err) {
		kfree(entry);
		return err;
	}
	mem->entry = &entry->rdma;
	*key = rdma_user_mmap_get_offset(&entry->rdma);
	return 0;
}

/* A doorbell page for a new user context; none without RDMA. */
int axon_alloc_uar(struct axon_dev *adev, struct axon_ucontext *uctx)
{
	struct axon_mmap_entry *entry;
	int uar, err;

	uctx->uar = 0;
	uctx->db_entry = NULL;
	if (!adev->rdma)
		return 0;

	uar = ida_alloc_range(&adev->uar_ida, 1, adev->db_pages - 1,
			      GFP_KERNEL);
	if (uar < 0)
		return uar == -ENOSPC ? -ENOMEM : uar;
	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry) {
		err = -ENOMEM;
		goto err_free_uar;
	}
	entry->type = AXON_MMAP_DB;
	entry->io_addr = adev->db_phys + (phys_addr_t)uar * AXON_DB_PAGE_SIZE;
	entry->size = AXON_DB_PAGE_SIZE;
	err = rdma_user_mmap_entry_insert(&uctx->ibucontext, &entry->rdma,
					  AXON_DB_PAGE_SIZE);
	if (err)
		goto err_free_entry;
	uctx->uar = uar;
	uctx->db_entry = &entry->rdma;
	return 0;

err_free_entry:
	kfree(entry);
err_free_uar:
	ida_free(&adev->uar_ida, uar);
	return err;
}

void axon_free_uar(struct axon_dev *adev, struct axon_ucontext *uctx)
{
	if (!uctx->db_entry)
		return;
	rdma_user_mmap_entry_remove(uctx->db_entry);
	ida_free(&adev->uar_ida, uctx->uar);
}

/* The clock page for a new user context; none without the clock. */
int axon_expose_clock(struct axon_dev *adev, struct axon_ucontext *uctx)
{
	struct axon_mmap_entry *entry;
	int err;

	uctx->clock_entry = NULL;
	if (!adev->clock)
		return 0;
	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	entry->type = AXON_MMAP_CLOCK;
	entry->io_addr = adev->clock_phys;
	entry->size = PAGE_SIZE;
	err = rdma_user_mmap_entry_insert(&uctx->ibucontext, &entry->rdma,
					  PAGE_SIZE);
	if (err) {
		kfree(entry);
		return err;
	}
	uctx->clock_entry = &entry->rdma;
	return 0;
}

/* Device memory, uncached; the clock page never writable. */
static int axon_mmap_io(struct ib_ucontext *ibuctx,
			struct vm_area_struct *vma,
			struct axon_mmap_entry *entry)
{
	if (entry->type == AXON_MMAP_CLOCK) {
		if (vma->vm_flags & VM_WRITE)
			return -EPERM;
		vma->vm_flags &= ~VM_MAYWRITE;
	}
	return rdma_user_mmap_io(ibuctx, vma, PHYS_PFN(entry->io_addr),
				 entry->size,
				 pgprot_noncached(vma->vm_page_prot),
				 &entry->rdma);
}

/* The page of queue memory at @va: contiguous or vmalloc'ed (paged). */
static struct page *axon_queue_page(void *va)
{
	return is_vmalloc_addr(va) ? vmalloc_to_page(va) : virt_to_page(va);
}

static int axon_mmap_queue(struct vm_area_struct *vma,
			   struct axon_mmap_entry *entry)
{
	size_t off;
	int err;

	for (off = 0; off < entry->size; off += PAGE_SIZE) {
		err = vm_insert_page(vma, vma->vm_start + off,
				     axon_queue_page(entry->va + off));
		if (err)
			return err;
	}
	return 0;
}

int axon_mmap(struct ib_ucontext *ibuctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	struct axon_mmap_entry *entry;
	int err;

	/* NULL also for a private mapping or a length not the entry's */
	rdma_entry = rdma_user_mmap_entry_get(ibuctx, vma);
	if (!rdma_entry)
		return -EINVAL;
	entry = to_ammap(rdma_entry);
	if (entry->type == AXON_MMAP_QUEUE)
		err = axon_mmap_queue(vma, entry);
	else
		err = axon_mmap_io(ibuctx, vma, entry);
	rdma_user_mmap_entry_put(rdma_entry);
	if (err)
		ibdev_dbg(ibuctx->device, "mmap at 0x%lx failed: %d\n",
			  vma->vm_pgoff, err);
	return err;
}

void axon_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct axon_mmap_entry *entry = to_ammap(rdma_entry);

	if (entry->type == AXON_MMAP_QUEUE && is_vmalloc_addr(entry->va))
		vfree(entry->va);
	else if (entry->type == AXON_MMAP_QUEUE)
		free_pages_exact(entry->va, entry->size);
	kfree(entry);
}

/* After a CQ or QP left its xarray: no handler still uses it. */
void axon_sync_events(struct axon_dev *adev)
{
	synchronize_irq(pci_irq_vector(adev->pdev, AXON_MSIX_ASYNC));
	synchronize_irq(pci_irq_vector(adev->pdev, AXON_MSIX_COMP));
}
