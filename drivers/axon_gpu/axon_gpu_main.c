// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon_gpu: PCI driver of the axon-gpu and its /dev/axon_gpuN ioctls.
 *
 * Probe checks the device's identity and VRAM size, maps the VRAM for the
 * driver's own copies (MOVE) and registers /dev/axon_gpuN. Remove revokes
 * every buffer (axon_gpu_revoke_all) and stops using the clear engine
 * before the VRAM and the registers go; the structures live on until the
 * last buffer and open file are gone.
 */

#include <linux/idr.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "axon_gpu.h"

static const struct pci_device_id axon_gpu_pci_table[] = {
	{ PCI_DEVICE(AXON_PCI_VENDOR_ID, AXON_PCI_DEVICE_ID_GPU) },
	{ }
};
MODULE_DEVICE_TABLE(pci, axon_gpu_pci_table);

static DEFINE_IDA(axon_gpu_ida);

static void axon_gpu_free(struct kref *ref)
{
	struct axon_gpu *gpu = container_of(ref, struct axon_gpu, ref);

	axon_gpu_vram_fini(&gpu->alloc);
	mutex_destroy(&gpu->clear_lock);
	mutex_destroy(&gpu->lock);
	pci_dev_put(gpu->pdev);
	kfree(gpu);
}

void axon_gpu_put(struct axon_gpu *gpu)
{
	kref_put(&gpu->ref, axon_gpu_free);
}

static int axon_gpu_open(struct inode *inode, struct file *file)
{
	struct axon_gpu *gpu = container_of(file->private_data,
					    struct axon_gpu, misc);

	/* misc_open() holds misc_mtx: remove cannot have dropped its ref */
	kref_get(&gpu->ref);
	file->private_data = gpu;
	return 0;
}

static int axon_gpu_release(struct inode *inode, struct file *file)
{
	axon_gpu_put(file->private_data);
	return 0;
}

static int axon_gpu_info(struct axon_gpu *gpu, void __user *uarg)
{
	struct axon_gpu_info info = { .vram_size = gpu->vram_size };

	mutex_lock(&gpu->lock);
	if (gpu->dead) {
		mutex_unlock(&gpu->lock);
		return -ENODEV;
	}
	info.vram_free = axon_gpu_vram_free_bytes(&gpu->alloc);
	info.buffers = gpu->nbuffers;
	mutex_unlock(&gpu->lock);
	return copy_to_user(uarg, &info, sizeof(info)) ? -EFAULT : 0;
}

static int axon_gpu_ioctl_alloc(struct axon_gpu *gpu, void __user *uarg)
{
	struct axon_gpu_alloc req;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.flags || req.reserved || !req.size)
		return -EINVAL;
	if (req.size > gpu->vram_size)
		return -ENOMEM;
	req.size = ALIGN(req.size, AXON_GPU_PAGE_SIZE);
	return axon_gpu_buf_alloc(gpu, &req, uarg);
}

static int axon_gpu_ioctl_move(struct axon_gpu *gpu, void __user *uarg)
{
	struct axon_gpu_move req;

	if (copy_from_user(&req, uarg, sizeof(req)))
		return -EFAULT;
	if (req.flags || req.reserved)
		return -EINVAL;
	return axon_gpu_buf_move(gpu, req.fd);
}

static long axon_gpu_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	struct axon_gpu *gpu = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case AXON_GPU_IOCTL_INFO:
		return axon_gpu_info(gpu, uarg);
	case AXON_GPU_IOCTL_ALLOC:
		return axon_gpu_ioctl_alloc(gpu, uarg);
	case AXON_GPU_IOCTL_MOVE:
		return axon_gpu_ioctl_move(gpu, uarg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations axon_gpu_fops = {
	.owner = THIS_MODULE,
	.open = axon_gpu_open,
	.release = axon_gpu_release,
	.unlocked_ioctl = axon_gpu_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static int axon_gpu_check_device(struct axon_gpu *gpu, void __iomem *regs)
{
	struct device *dev = &gpu->pdev->dev;
	u32 magic = readl(regs + AXON_GPU_REG_MAGIC);
	u32 version = readl(regs + AXON_GPU_REG_VERSION);
	u32 size_lo = readl(regs + AXON_GPU_REG_VRAM_SIZE_LO);
	u64 size = AXON_REG_U64(readl(regs + AXON_GPU_REG_VRAM_SIZE_HI),
				size_lo);
	struct resource *bar = &gpu->pdev->resource[AXON_GPU_BAR_VRAM];

	if (magic != AXON_GPU_MAGIC) {
		dev_err(dev, "bad magic 0x%08x\n", magic);
		return -ENODEV;
	}
	/* 1.1 has the clear engine, without which VRAM is not scrubbed */
	if (AXON_VERSION_GET_MAJOR(version) != AXON_GPU_VERSION_MAJOR ||
	    AXON_VERSION_GET_MINOR(version) < 1) {
		dev_err(dev, "device interface %u.%u, driver supports %u.1 and later\n",
			AXON_VERSION_GET_MAJOR(version),
			AXON_VERSION_GET_MINOR(version),
			AXON_GPU_VERSION_MAJOR);
		return -ENODEV;
	}
	if (!(resource_type(bar) & IORESOURCE_MEM) ||
	    resource_size(bar) != size || !is_power_of_2(size) ||
	    size < AXON_GPU_VRAM_MIN_SIZE || size > AXON_GPU_VRAM_MAX_SIZE) {
		dev_err(dev, "VRAM size 0x%llx, BAR %u %pR: unusable\n",
			size, AXON_GPU_BAR_VRAM, bar);
		return -ENODEV;
	}
	gpu->vram_phys = bar->start;
	gpu->vram_size = size;
	return 0;
}

static int axon_gpu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct device *dev = &pdev->dev;
	struct axon_gpu *gpu;
	int err;

	err = pcim_enable_device(pdev);
	if (err)
		return err;
	err = pcim_iomap_regions(pdev, BIT(AXON_GPU_BAR_REGS), AXON_GPU_DRV_NAME);
	if (err)
		return err;
	/* managed: pcim_enable_device() */
	err = pci_request_region(pdev, AXON_GPU_BAR_VRAM, AXON_GPU_DRV_NAME);
	if (err)
		return err;

	gpu = kzalloc(sizeof(*gpu), GFP_KERNEL);
	if (!gpu)
		return -ENOMEM;
	kref_init(&gpu->ref);
	gpu->pdev = pci_dev_get(pdev);
	mutex_init(&gpu->lock);
	mutex_init(&gpu->clear_lock);
	INIT_LIST_HEAD(&gpu->buffers);
	/* a recognisable range, far from 0: a stale pointer stands out */
	gpu->next_va = 0x100000000ULL;

	gpu->regs = pcim_iomap_table(pdev)[AXON_GPU_BAR_REGS];
	err = axon_gpu_check_device(gpu, gpu->regs);
	if (err)
		goto err_put;
	err = axon_gpu_vram_init(&gpu->alloc, gpu->vram_size);
	if (err)
		goto err_put;
	gpu->vram = devm_memremap(dev, gpu->vram_phys, gpu->vram_size,
				  MEMREMAP_WC);
	if (IS_ERR(gpu->vram)) {
		err = PTR_ERR(gpu->vram);
		goto err_put;
	}

	gpu->id = ida_alloc(&axon_gpu_ida, GFP_KERNEL);
	if (gpu->id < 0) {
		err = gpu->id;
		goto err_put;
	}
	snprintf(gpu->name, sizeof(gpu->name), "axon_gpu%d", gpu->id);
	gpu->misc.minor = MISC_DYNAMIC_MINOR;
	gpu->misc.name = gpu->name;
	gpu->misc.fops = &axon_gpu_fops;
	gpu->misc.parent = dev;
	err = misc_register(&gpu->misc);
	if (err)
		goto err_ida;
	pci_set_drvdata(pdev, gpu);
	dev_info(dev, "%s: %llu MiB VRAM at %pa\n", gpu->name,
		 gpu->vram_size >> 20, &gpu->vram_phys);
	return 0;

err_ida:
	ida_free(&axon_gpu_ida, gpu->id);
err_put:
	axon_gpu_put(gpu);
	return err;
}

static void axon_gpu_remove(struct pci_dev *pdev)
{
	struct axon_gpu *gpu = pci_get_drvdata(pdev);

	/* no new opens; open files see gpu->dead */
	misc_deregister(&gpu->misc);
	mutex_lock(&gpu->lock);
	gpu->dead = true;
	mutex_unlock(&gpu->lock);
	/* before devres unmaps the VRAM and the registers */
	axon_gpu_revoke_all(gpu);
	axon_gpu_clear_stop(gpu);
	ida_free(&axon_gpu_ida, gpu->id);
	axon_gpu_put(gpu);
}

static struct pci_driver axon_gpu_pci_driver = {
	.name = AXON_GPU_DRV_NAME,
	.id_table = axon_gpu_pci_table,
	.probe = axon_gpu_probe,
	.remove = axon_gpu_remove,
};
module_pci_driver(axon_gpu_pci_driver);

MODULE_DESCRIPTION("axon-gpu device memory driver (dma-buf exporter)");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_IMPORT_NS(DMA_BUF);
