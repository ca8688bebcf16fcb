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
 * The clear engine zeroes a range of VRAM the guest names in registers,
 * so that the driver scrubs memory before handing it out at host memset
 * speed rather than through the BAR. The first AXON_GPU_CLEAR_INLINE
 * bytes are zeroed in the MMIO exit that starts the clear (a small buffer's
 * clear is done before the driver first polls), the rest in a bottom
 * half, at most AXON_GPU_CLEAR_STEP bytes per main-loop iteration, so a
 * clear of the whole VRAM never holds the main loop for long. The range
 * the guest names is checked against the VRAM before anything is touched.
 * Parts of the range that already read zero are not written: VRAM never
 * written costs no host memory when it is cleared.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
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
    bool clear_stall;               /* test hook: clears never finish */

    /* the clear engine: the registers, and what is left of a clear */
    QEMUBH *clear_bh;
    uint64_t clear_offset;
    uint64_t clear_size;
    uint32_t clear_status;
    uint64_t clear_next;            /* while BUSY: the next byte to zero */
    uint64_t clear_end;
};

/* The most the clear engine zeroes in the MMIO exit that starts it ... */
#define AXON_GPU_CLEAR_INLINE (1 * MiB)
/* ... and then in one main-loop iteration */
#define AXON_GPU_CLEAR_STEP (16 * MiB)
/* the unit it checks for zero before writing (a huge page) */
#define AXON_GPU_CLEAR_CHUNK (2 * MiB)

/* Zero up to max more bytes of the running clear; finish it if done. */
static void axon_gpu_clear_step(AxonGpuState *s, uint64_t max)
{
    uint8_t *vram = memory_region_get_ram_ptr(&s->vram);
    uint64_t end = MIN(s->clear_end, s->clear_next + max);

    while (s->clear_next < end) {
        uint64_t n = MIN(end - s->clear_next, AXON_GPU_CLEAR_CHUNK);

        if (!buffer_is_zero(vram + s->clear_next, n)) {
            memset(vram + s->clear_next, 0, n);
            memory_region_set_dirty(&s->vram, s->clear_next, n);
        }
        s->clear_next += n;
    }
    if (s->clear_next < s->clear_end) {
        qemu_bh_schedule(s->clear_bh);
        return;
    }
    s->clear_status &= ~AXON_GPU_CLEAR_STATUS_BUSY;
    trace_axon_gpu_clear_done(s->clear_offset, s->clear_size);
}

static void axon_gpu_clear_bh(void *opaque)
{
    AxonGpuState *s = opaque;

    if (s->clear_status & AXON_GPU_CLEAR_STATUS_BUSY) {
        axon_gpu_clear_step(s, AXON_GPU_CLEAR_STEP);
    }
}

/* CTRL written while idle: check the range, then start. */
static void axon_gpu_clear_start(AxonGpuState *s, uint32_t ctrl)
{
    uint64_t off = s->clear_offset, size = s->clear_size;

    s->clear_status = 0;
    if (ctrl != AXON_GPU_CLEAR_CTRL_START ||
        off % AXON_GPU_CLEAR_ALIGN || size % AXON_GPU_CLEAR_ALIGN ||
        !size || off >= s->vram_size || size > s->vram_size - off) {
        qemu_log_mask(LOG_GUEST_ERROR, "axon-gpu: clear refused: ctrl 0x%"
                      PRIx32 " offset 0x%" PRIx64 " size 0x%" PRIx64
                      " (VRAM 0x%" PRIx64 ")\n", ctrl, off, size,
                      s->vram_size);
        s->clear_status = AXON_GPU_CLEAR_STATUS_ERROR;
        trace_axon_gpu_clear_refused(ctrl, off, size);
        return;
    }
    trace_axon_gpu_clear_start(off, size);
    s->clear_next = off;
    s->clear_end = off + size;
    s->clear_status = AXON_GPU_CLEAR_STATUS_BUSY;
    if (!s->clear_stall) {
        axon_gpu_clear_step(s, AXON_GPU_CLEAR_INLINE);
    }
}

static void axon_gpu_clear_reset(AxonGpuState *s)
{
    qemu_bh_cancel(s->clear_bh);
    s->clear_offset = 0;
    s->clear_size = 0;
    s->clear_status = 0;
    s->clear_next = 0;
    s->clear_end = 0;
}

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
    case AXON_GPU_REG_CLEAR_OFFSET_LO:
        val = AXON_REG_LO(s->clear_offset);
        break;
    case AXON_GPU_REG_CLEAR_OFFSET_HI:
        val = AXON_REG_HI(s->clear_offset);
        break;
    case AXON_GPU_REG_CLEAR_SIZE_LO:
        val = AXON_REG_LO(s->clear_size);
        break;
    case AXON_GPU_REG_CLEAR_SIZE_HI:
        val = AXON_REG_HI(s->clear_size);
        break;
    case AXON_GPU_REG_CLEAR_CTRL:
        val = 0;
        break;
    case AXON_GPU_REG_CLEAR_STATUS:
        val = s->clear_status;
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
    AxonGpuState *s = opaque;

    trace_axon_gpu_mmio_write(addr, val);
    switch (addr) {
    case AXON_GPU_REG_CLEAR_OFFSET_LO:
    case AXON_GPU_REG_CLEAR_OFFSET_HI:
    case AXON_GPU_REG_CLEAR_SIZE_LO:
    case AXON_GPU_REG_CLEAR_SIZE_HI:
    case AXON_GPU_REG_CLEAR_CTRL:
        if (s->clear_status & AXON_GPU_CLEAR_STATUS_BUSY) {
            qemu_log_mask(LOG_GUEST_ERROR, "axon-gpu: write 0x%" PRIx64
                          " to clear register 0x%" HWADDR_PRIx " while a "
                          "clear runs: ignored\n", val, addr);
            return;
        }
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "axon-gpu: write 0x%" PRIx64 " to "
                      "read-only or unknown register 0x%" HWADDR_PRIx "\n",
                      val, addr);
        return;
    }
    switch (addr) {
    case AXON_GPU_REG_CLEAR_OFFSET_LO:
        s->clear_offset = AXON_REG_SET_LO(s->clear_offset, val);
        break;
    case AXON_GPU_REG_CLEAR_OFFSET_HI:
        s->clear_offset = AXON_REG_SET_HI(s->clear_offset, val);
        break;
    case AXON_GPU_REG_CLEAR_SIZE_LO:
        s->clear_size = AXON_REG_SET_LO(s->clear_size, val);
        break;
    case AXON_GPU_REG_CLEAR_SIZE_HI:
        s->clear_size = AXON_REG_SET_HI(s->clear_size, val);
        break;
    default: /* AXON_GPU_REG_CLEAR_CTRL */
        axon_gpu_clear_start(s, val);
        break;
    }
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
    s->clear_bh = qemu_bh_new_guarded(axon_gpu_clear_bh, s,
                                      &DEVICE(pdev)->mem_reentrancy_guard);
}

static void axon_gpu_exit(PCIDevice *pdev)
{
    qemu_bh_delete(AXON_GPU(pdev)->clear_bh);
}

static void axon_gpu_qdev_reset(DeviceState *dev)
{
    axon_gpu_clear_reset(AXON_GPU(dev));
}

static Property axon_gpu_properties[] = {
    DEFINE_PROP_SIZE("vram-size", AxonGpuState, vram_size, 1 * GiB),
    /* Test hook: like a hung engine, clears stay busy until a reset. */
    DEFINE_PROP_BOOL("x-clear-stall", AxonGpuState, clear_stall, false),
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
    k->exit = axon_gpu_exit;
    k->vendor_id = AXON_PCI_VENDOR_ID;
    k->device_id = AXON_PCI_DEVICE_ID_GPU;
    k->revision = 1;
    k->class_id = AXON_GPU_PCI_CLASS >> 8;
    dc->desc = "axon GPU memory (peer-to-peer target)";
    dc->reset = axon_gpu_qdev_reset;
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
