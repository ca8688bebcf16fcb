/*
 * axon-gpu: a modelled GPU's memory, for the NIC's peer-to-peer MRs
 *
 * The device stands in for a real GPU so that dma-buf MRs on device
 * memory run end to end in a VM. It has a register BAR giving its
 * identity and VRAM size, and a 64-bit prefetchable BAR that is the VRAM
 * itself: plain RAM, so CPU accesses and other devices' DMA (the NIC's
 * engine) read and write it directly. No copy engine, no interrupts.
 * The device interface is include/uapi/axon/axon_gpu_dev.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/units.h"
#include "qapi/error.h"
#include "hw/pci/pci.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "trace.h"

#include "axon/axon_dev.h"
#include "axon/axon_gpu_dev.h"

#define TYPE_AXON_GPU "axon-gpu"
OBJECT_DECLARE_SIMPLE_TYPE(AxonGpuState, AXON_GPU)

struct AxonGpuState {
    PCIDevice parent_obj;

    MemoryRegion regs;
    MemoryRegion vram;

    /* properties */
    uint64_t vram_size;
};

static uint64_t axon_gpu_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    AxonGpuState *s = opaque;
    uint32_t val;

    switch (addr) {
    case AXON_GPU_REG_MAGIC:
        val = AXON_GPU_MAGIC;
        break;
    case AXON_GPU_REG_VERSION:
        val = AXON_VERSION(AXON_GPU_VERSION_MAJOR, AXON_GPU_VERSION_MINOR);
        break;
    case AXON_GPU_REG_VRAM_SIZE_LO:
        val = AXON_REG_LO(s->vram_size);
        break;
    case AXON_GPU_REG_VRAM_SIZE_HI:
        val = AXON_REG_HI(s->vram_size);
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "axon-gpu: read of unknown register "
                      "0x%" HWADDR_PRIx "\n", addr);
        val = 0;
        break;
    }
    trace_axon_gpu_mmio_read(addr, val);
    return val;
}

static void axon_gpu_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                                unsigned size)
{
    qemu_log_mask(LOG_GUEST_ERROR, "axon-gpu: write 0x%" PRIx64 " to "
                  "read-only or unknown register 0x%" HWADDR_PRIx "\n",
                  val, addr);
}

static const MemoryRegionOps axon_gpu_mmio_ops = {
    .read = axon_gpu_mmio_read,
    .write = axon_gpu_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

static void axon_gpu_realize(PCIDevice *pdev, Error **errp)
{
    AxonGpuState *s = AXON_GPU(pdev);
    Error *local_err = NULL;

    if (!is_power_of_2(s->vram_size) ||
        s->vram_size < AXON_GPU_VRAM_MIN_SIZE ||
        s->vram_size > AXON_GPU_VRAM_MAX_SIZE) {
        error_setg(errp, "axon-gpu: vram-size must be a power of 2 in "
                   "%llu MiB..%llu GiB, not %" PRIu64,
                   AXON_GPU_VRAM_MIN_SIZE / MiB, AXON_GPU_VRAM_MAX_SIZE / GiB,
                   s->vram_size);
        return;
    }
    memory_region_init_io(&s->regs, OBJECT(s), &axon_gpu_mmio_ops, s,
                          "axon-gpu-regs", AXON_GPU_REGS_SIZE);
    pci_register_bar(pdev, AXON_GPU_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->regs);
    memory_region_init_ram(&s->vram, OBJECT(s), "axon-gpu-vram",
                           s->vram_size, &local_err);
    if (local_err) {
        error_propagate(errp, local_err);
        return;
    }
    pci_register_bar(pdev, AXON_GPU_BAR_VRAM,
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, &s->vram);
}

static Property axon_gpu_properties[] = {
    DEFINE_PROP_SIZE("vram-size", AxonGpuState, vram_size, 1 * GiB),
    DEFINE_PROP_END_OF_LIST(),
};

static const VMStateDescription axon_gpu_vmstate = {
    .name = TYPE_AXON_GPU,
    .unmigratable = 1,
};

static void axon_gpu_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = axon_gpu_realize;
    k->vendor_id = AXON_PCI_VENDOR_ID;
    k->device_id = AXON_PCI_DEVICE_ID_GPU;
    k->revision = 1;
    k->class_id = AXON_GPU_PCI_CLASS >> 8;
    dc->desc = "axon GPU memory (peer-to-peer target)";
    dc->vmsd = &axon_gpu_vmstate;
    device_class_set_props(dc, axon_gpu_properties);
    set_bit(DEVICE_CATEGORY_DISPLAY, dc->categories);
}

static const TypeInfo axon_gpu_info = {
    .name = TYPE_AXON_GPU,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(AxonGpuState),
    .class_init = axon_gpu_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_CONVENTIONAL_PCI_DEVICE },
        { },
    },
};

static void axon_gpu_register_types(void)
{
    type_register_static(&axon_gpu_info);
}

type_init(axon_gpu_register_types)
