/*
 * qtest of the axon-gpu model: identity, VRAM BAR, bad VRAM sizes
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-nic-qos.h"

static void test_gpu_identity(void)
{
    QTestState *qts = qtest_init("-m 128M -device axon-gpu,addr=05.0,"
                                 "vram-size=16M -device axon-gpu,addr=06.0");
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    uint64_t sizes[2] = { 16 * 1024 * 1024, 1024 * 1024 * 1024 };
    uint32_t flags;

    for (int i = 0; i < 2; i++) {
        QPCIDevice *dev = qpci_device_find(bus, QPCI_DEVFN(5 + i, 0));
        QPCIBar regs;

        g_assert(dev);
        g_assert_cmphex(qpci_config_readw(dev, PCI_VENDOR_ID), ==,
                        AXON_PCI_VENDOR_ID);
        g_assert_cmphex(qpci_config_readw(dev, PCI_DEVICE_ID), ==,
                        AXON_PCI_DEVICE_ID_GPU);
        g_assert_cmphex(qpci_config_readl(dev, PCI_CLASS_REVISION) >> 8, ==,
                        AXON_GPU_PCI_CLASS);
        g_assert_cmpuint(bar_size(dev, AXON_GPU_BAR_REGS, &flags), ==,
                         AXON_GPU_REGS_SIZE);
        g_assert_cmphex(flags, ==, PCI_BASE_ADDRESS_SPACE_MEMORY);
        g_assert_cmpuint(bar_size(dev, AXON_GPU_BAR_VRAM, &flags), ==,
                         sizes[i]);
        g_assert_cmphex(flags, ==, PCI_BASE_ADDRESS_SPACE_MEMORY |
                        PCI_BASE_ADDRESS_MEM_TYPE_64 |
                        PCI_BASE_ADDRESS_MEM_PREFETCH);
        /* nothing else: no BAR 1, no BAR 4/5, no interrupt */
        g_assert_cmphex(qpci_config_readl(dev, PCI_BASE_ADDRESS_1), ==, 0);
        g_assert_cmphex(qpci_config_readl(dev, PCI_BASE_ADDRESS_4), ==, 0);
        g_assert_cmphex(qpci_config_readb(dev, PCI_INTERRUPT_PIN), ==, 0);

        qpci_device_enable(dev);
        regs = qpci_iomap(dev, AXON_GPU_BAR_REGS, NULL);
        g_assert_cmphex(qpci_io_readl(dev, regs, AXON_GPU_REG_MAGIC), ==,
                        AXON_GPU_MAGIC);
        g_assert_cmphex(qpci_io_readl(dev, regs, AXON_GPU_REG_VERSION), ==,
                        AXON_VERSION(AXON_GPU_VERSION_MAJOR,
                                     AXON_GPU_VERSION_MINOR));
        g_assert_cmphex(qpci_io_readl(dev, regs, AXON_GPU_REG_VRAM_SIZE_LO),
                        ==, AXON_REG_LO(sizes[i]));
        g_assert_cmphex(qpci_io_readl(dev, regs, AXON_GPU_REG_VRAM_SIZE_HI),
                        ==, AXON_REG_HI(sizes[i]));
        /* other offsets read 0, writes change nothing */
        g_assert_cmphex(qpci_io_readl(dev, regs, 0x10), ==, 0);
        g_assert_cmphex(qpci_io_readl(dev, regs, AXON_GPU_REGS_SIZE - 4), ==,
                        0);
        qpci_io_writel(dev, regs, AXON_GPU_REG_MAGIC, 0);
        qpci_io_writel(dev, regs, AXON_GPU_REG_VRAM_SIZE_LO, 1);
        qpci_io_writel(dev, regs, 0x10, 1);
        g_assert_cmphex(qpci_io_readl(dev, regs, AXON_GPU_REG_MAGIC), ==,
                        AXON_GPU_MAGIC);
        g_assert_cmphex(qpci_io_readl(dev, regs, AXON_GPU_REG_VRAM_SIZE_LO),
                        ==, AXON_REG_LO(sizes[i]));
        g_assert_cmphex(qpci_io_readl(dev, regs, 0x10), ==, 0);
        g_free(dev);
    }
    qpci_free_pc(bus);
    qtest_quit(qts);
}

/* BAR 2 is memory: what is written reads back, at either end. */
static void test_gpu_vram(void)
{
    QTestState *qts = qtest_init("-m 128M -device axon-gpu,addr=05.0,"
                                 "vram-size=16M");
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    QPCIDevice *dev = qpci_device_find(bus, QPCI_DEVFN(5, 0));
    g_autofree uint8_t *data = pattern(8192, 7);
    g_autofree uint8_t *got = g_malloc(8192);
    QPCIBar vram;
    uint64_t size;

    g_assert(dev);
    qpci_device_enable(dev);
    vram = qpci_iomap(dev, AXON_GPU_BAR_VRAM, &size);
    g_assert_cmpuint(size, ==, 16 * 1024 * 1024);
    /* starts zeroed */
    qpci_memread(dev, vram, 0, got, 8192);
    for (int i = 0; i < 8192; i++) {
        g_assert_cmpuint(got[i], ==, 0);
    }
    qpci_io_writel(dev, vram, 0, 0x12345678);
    qpci_io_writeq(dev, vram, size - 8, 0x1122334455667788ULL);
    g_assert_cmphex(qpci_io_readl(dev, vram, 0), ==, 0x12345678);
    g_assert_cmphex(qpci_io_readb(dev, vram, 1), ==, 0x56);
    g_assert_cmphex(qpci_io_readq(dev, vram, size - 8), ==,
                    0x1122334455667788ULL);
    qpci_memwrite(dev, vram, 0x12345, data, 8192);
    qpci_memread(dev, vram, 0x12345, got, 8192);
    g_assert_cmpmem(got, 8192, data, 8192);
    /* the same bytes at the BAR's bus address, as a peer DMAs them */
    qtest_memread(qts, vram.addr + 0x12345, got, 8192);
    g_assert_cmpmem(got, 8192, data, 8192);
    g_free(dev);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

/* vram-size must be a power of 2 within the limits. */
static void test_gpu_bad_vram_size(void)
{
    QTestState *qts = qtest_init("-m 128M");
    const int64_t bad[] = {
        0, 3 * 1024 * 1024, AXON_GPU_VRAM_MIN_SIZE / 2,
        AXON_GPU_VRAM_MAX_SIZE * 2, AXON_GPU_VRAM_MIN_SIZE + 4096,
    };
    QDict *resp;

    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        resp = qtest_qmp(qts, "{'execute': 'device_add', 'arguments': {"
                         "'driver': 'axon-gpu', 'id': 'g', "
                         "'vram-size': %" PRId64 "}}", bad[i]);
        g_assert(qdict_haskey(resp, "error"));
        g_assert_nonnull(strstr(qdict_get_str(qdict_get_qdict(resp, "error"),
                                              "desc"), "vram-size"));
        qobject_unref(resp);
    }
    /* the smallest good size is accepted */
    qtest_qmp_assert_success(qts, "{'execute': 'device_add', 'arguments': {"
                             "'driver': 'axon-gpu', 'id': 'g', "
                             "'vram-size': %" PRId64 "}}",
                             (int64_t)AXON_GPU_VRAM_MIN_SIZE);
    qtest_quit(qts);
}

void axon_gpu_tests(void)
{
    qtest_add_func("/axon-gpu/identity", test_gpu_identity);
    qtest_add_func("/axon-gpu/vram", test_gpu_vram);
    qtest_add_func("/axon-gpu/bad-vram-size", test_gpu_bad_vram_size);
}
