/*
 * qtest of the axon-gpu model: identity, VRAM BAR, bad VRAM sizes, the
 * clear engine
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-nic-qos.h"
#include "qemu/cutils.h"

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
        qpci_io_writel(dev, regs, AXON_GPU_REG_CLEAR_STATUS, 1);
        g_assert_cmphex(qpci_io_readl(dev, regs, AXON_GPU_REG_MAGIC), ==,
                        AXON_GPU_MAGIC);
        g_assert_cmphex(qpci_io_readl(dev, regs, AXON_GPU_REG_VRAM_SIZE_LO),
                        ==, AXON_REG_LO(sizes[i]));
        g_assert_cmphex(qpci_io_readl(dev, regs, 0x10), ==, 0);
        /* the clear engine starts idle, its registers 0 */
        for (uint32_t r = AXON_GPU_REG_CLEAR_OFFSET_LO;
             r <= AXON_GPU_REG_CLEAR_STATUS; r += 4) {
            g_assert_cmphex(qpci_io_readl(dev, regs, r), ==, 0);
        }
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

typedef struct Gpu {
    QTestState *qts;
    QPCIBus *bus;
    QPCIDevice *dev;
    QPCIBar regs, vram;
    uint64_t size;
} Gpu;

/* Find the device in slot, enable it and map its BARs. */
static void gpu_open(Gpu *g, QTestState *qts, QPCIBus *bus, int slot)
{
    g->qts = qts;
    g->bus = bus;
    g->dev = qpci_device_find(bus, QPCI_DEVFN(slot, 0));
    g_assert(g->dev);
    qpci_device_enable(g->dev);
    g->regs = qpci_iomap(g->dev, AXON_GPU_BAR_REGS, NULL);
    g->vram = qpci_iomap(g->dev, AXON_GPU_BAR_VRAM, &g->size);
}

/* A machine with one axon-gpu, in slot 5 */
static void gpu_start(Gpu *g, const char *vram_size)
{
    g_autofree char *args = g_strdup_printf("-m 128M -device axon-gpu,"
                                            "addr=05.0,vram-size=%s",
                                            vram_size);
    QTestState *qts = qtest_init(args);

    gpu_open(g, qts, qpci_new_pc(qts, NULL), 5);
}

static void gpu_stop(Gpu *g)
{
    g_free(g->dev);
    qpci_free_pc(g->bus);
    qtest_quit(g->qts);
}

static uint32_t gpu_rd(Gpu *g, uint32_t reg)
{
    return qpci_io_readl(g->dev, g->regs, reg);
}

static void gpu_wr(Gpu *g, uint32_t reg, uint32_t val)
{
    qpci_io_writel(g->dev, g->regs, reg, val);
}

static uint64_t gpu_rd64(Gpu *g, uint32_t lo)
{
    return AXON_REG_U64(gpu_rd(g, lo + 4), gpu_rd(g, lo));
}

/* Program a clear and start it (ctrl: what to write to CTRL). */
static void clear_start(Gpu *g, uint64_t off, uint64_t size, uint32_t ctrl)
{
    gpu_wr(g, AXON_GPU_REG_CLEAR_OFFSET_LO, AXON_REG_LO(off));
    gpu_wr(g, AXON_GPU_REG_CLEAR_OFFSET_HI, AXON_REG_HI(off));
    gpu_wr(g, AXON_GPU_REG_CLEAR_SIZE_LO, AXON_REG_LO(size));
    gpu_wr(g, AXON_GPU_REG_CLEAR_SIZE_HI, AXON_REG_HI(size));
    gpu_wr(g, AXON_GPU_REG_CLEAR_CTRL, ctrl);
}

/* Wait for BUSY to clear; the STATUS that ends it. */
static uint32_t clear_wait(Gpu *g)
{
    uint32_t st;
    int i;

    for (i = 0; i < POLL_LIMIT; i++) {
        st = gpu_rd(g, AXON_GPU_REG_CLEAR_STATUS);
        if (!(st & AXON_GPU_CLEAR_STATUS_BUSY)) {
            return st;
        }
    }
    g_assert_not_reached();
}

/* A recognisable nonzero word for each VRAM offset */
static uint64_t mark(uint64_t off)
{
    return 0xa5a5000000000000ULL | off | 1;
}

static void put_mark(Gpu *g, uint64_t off)
{
    qpci_io_writeq(g->dev, g->vram, off, mark(off));
}

static uint64_t get(Gpu *g, uint64_t off)
{
    return qpci_io_readq(g->dev, g->vram, off);
}

/*
 * The clear engine zeroes exactly its range: every byte inside (through
 * the BAR and at its bus address, as a peer reads it), none outside.
 */
static void test_gpu_clear(void)
{
    const uint64_t off = 3 * 0x10000, size = 40 * 1024 * 1024 + 0x3000;
    g_autofree uint8_t *data = pattern(65536, 3);
    g_autofree uint8_t *got = g_malloc(65536);
    const uint64_t inside[] = {
        off, off + 8, off + 0x1000, off + size / 2, off + size - 8,
        off + 16 * 1024 * 1024 - 8, off + 16 * 1024 * 1024,
    };
    const uint64_t outside[] = { 0, off - 8, off + size, off + size + 8 };
    Gpu g;

    gpu_start(&g, "64M");
    g_assert_cmphex(gpu_rd(&g, AXON_GPU_REG_CLEAR_STATUS), ==, 0);
    for (size_t i = 0; i < ARRAY_SIZE(inside); i++) {
        put_mark(&g, inside[i]);
    }
    for (size_t i = 0; i < ARRAY_SIZE(outside); i++) {
        put_mark(&g, outside[i]);
    }
    /* a dirty 64 KiB at the start, the middle and the end of the range */
    qpci_memwrite(g.dev, g.vram, off + 0x100, data, 65536);
    qpci_memwrite(g.dev, g.vram, off + size / 2 - 0x8000, data, 65536);
    qpci_memwrite(g.dev, g.vram, off + size - 65536, data, 65536);

    /* the registers read back what was written */
    gpu_wr(&g, AXON_GPU_REG_CLEAR_OFFSET_LO, 0x12345000);
    gpu_wr(&g, AXON_GPU_REG_CLEAR_OFFSET_HI, 0x7);
    gpu_wr(&g, AXON_GPU_REG_CLEAR_SIZE_LO, 0x1000);
    gpu_wr(&g, AXON_GPU_REG_CLEAR_SIZE_HI, 0x8);
    g_assert_cmphex(gpu_rd64(&g, AXON_GPU_REG_CLEAR_OFFSET_LO), ==,
                    0x712345000ULL);
    g_assert_cmphex(gpu_rd64(&g, AXON_GPU_REG_CLEAR_SIZE_LO), ==,
                    0x800001000ULL);

    /* more than one step of the engine (16 MiB), then the whole VRAM */
    clear_start(&g, off, size, AXON_GPU_CLEAR_CTRL_START);
    g_assert_cmphex(clear_wait(&g), ==, 0);
    g_assert_cmphex(gpu_rd(&g, AXON_GPU_REG_CLEAR_CTRL), ==, 0);
    g_assert_cmphex(gpu_rd64(&g, AXON_GPU_REG_CLEAR_OFFSET_LO), ==, off);
    g_assert_cmphex(gpu_rd64(&g, AXON_GPU_REG_CLEAR_SIZE_LO), ==, size);
    for (size_t i = 0; i < ARRAY_SIZE(inside); i++) {
        g_assert_cmphex(get(&g, inside[i]), ==, 0);
    }
    for (size_t i = 0; i < ARRAY_SIZE(outside); i++) {
        g_assert_cmphex(get(&g, outside[i]), ==, mark(outside[i]));
    }
    qpci_memread(g.dev, g.vram, off + size / 2 - 0x8000, got, 65536);
    g_assert_true(buffer_is_zero(got, 65536));
    qtest_memread(g.qts, g.vram.addr + off, got, 65536);
    g_assert_true(buffer_is_zero(got, 65536));
    qtest_memread(g.qts, g.vram.addr + off + size - 65536, got, 65536);
    g_assert_true(buffer_is_zero(got, 65536));

    clear_start(&g, 0, g.size, AXON_GPU_CLEAR_CTRL_START);
    g_assert_cmphex(clear_wait(&g), ==, 0);
    for (size_t i = 0; i < ARRAY_SIZE(outside); i++) {
        g_assert_cmphex(get(&g, outside[i]), ==, 0);
    }
    g_assert_cmphex(get(&g, g.size - 8), ==, 0);
    /* clearing zeroed VRAM again is fine */
    clear_start(&g, g.size - AXON_GPU_CLEAR_ALIGN, AXON_GPU_CLEAR_ALIGN,
                AXON_GPU_CLEAR_CTRL_START);
    g_assert_cmphex(clear_wait(&g), ==, 0);
    gpu_stop(&g);
}

/*
 * Every range outside the VRAM, misaligned or empty, and every CTRL value
 * but START, is refused: ERROR, nothing touched. The next good command
 * clears ERROR.
 */
static void test_gpu_clear_refused(void)
{
    const uint64_t vram = 16 * 1024 * 1024, A = AXON_GPU_CLEAR_ALIGN;
    const struct {
        uint64_t off, size;
        uint32_t ctrl;
    } bad[] = {
        { 0, 0, AXON_GPU_CLEAR_CTRL_START },                /* empty */
        { 0x800, A, AXON_GPU_CLEAR_CTRL_START },            /* misaligned */
        { 0, A + 8, AXON_GPU_CLEAR_CTRL_START },
        { 0, 1, AXON_GPU_CLEAR_CTRL_START },
        { vram, A, AXON_GPU_CLEAR_CTRL_START },             /* past the end */
        { vram - A, 2 * A, AXON_GPU_CLEAR_CTRL_START },     /* one page over */
        { 0, vram + A, AXON_GPU_CLEAR_CTRL_START },
        { A, vram, AXON_GPU_CLEAR_CTRL_START },
        { -A, 2 * A, AXON_GPU_CLEAR_CTRL_START },           /* wraps */
        { A, -A, AXON_GPU_CLEAR_CTRL_START },
        { -A, A, AXON_GPU_CLEAR_CTRL_START },
        { 1ULL << 40, A, AXON_GPU_CLEAR_CTRL_START },
        { 0, A, 0 },                                        /* not START */
        { 0, A, AXON_GPU_CLEAR_CTRL_START | 2 },
        { 0, A, 0x80000000 },
        { 0, A, UINT32_MAX },
    };
    const uint64_t marks[] = { 0, A - 8, A, vram - A, vram - 8 };
    Gpu g;

    gpu_start(&g, "16M");
    for (size_t i = 0; i < ARRAY_SIZE(marks); i++) {
        put_mark(&g, marks[i]);
    }
    for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
        clear_start(&g, bad[i].off, bad[i].size, bad[i].ctrl);
        g_assert_cmphex(clear_wait(&g), ==, AXON_GPU_CLEAR_STATUS_ERROR);
        for (size_t j = 0; j < ARRAY_SIZE(marks); j++) {
            g_assert_cmphex(get(&g, marks[j]), ==, mark(marks[j]));
        }
    }
    /* ERROR stays until the next START, which clears it */
    g_assert_cmphex(gpu_rd(&g, AXON_GPU_REG_CLEAR_STATUS), ==,
                    AXON_GPU_CLEAR_STATUS_ERROR);
    clear_start(&g, vram - A, A, AXON_GPU_CLEAR_CTRL_START);
    g_assert_cmphex(clear_wait(&g), ==, 0);
    g_assert_cmphex(get(&g, vram - A), ==, 0);
    g_assert_cmphex(get(&g, vram - 8), ==, 0);
    g_assert_cmphex(get(&g, vram - A - 8), ==, 0);
    g_assert_cmphex(get(&g, A - 8), ==, mark(A - 8));
    gpu_stop(&g);
}

static const int gpu_bars[] = {
    PCI_BASE_ADDRESS_0, PCI_BASE_ADDRESS_2, PCI_BASE_ADDRESS_3,
};

/* A reset unassigns the BARs: put back those saved and enable again. */
static void gpu_restore(Gpu *g, const uint32_t *saved)
{
    for (size_t i = 0; i < ARRAY_SIZE(gpu_bars); i++) {
        qpci_config_writel(g->dev, gpu_bars[i], saved[i]);
    }
    qpci_device_enable(g->dev);
}

static void gpu_save(Gpu *g, uint32_t *saved)
{
    for (size_t i = 0; i < ARRAY_SIZE(gpu_bars); i++) {
        saved[i] = qpci_config_readl(g->dev, gpu_bars[i]);
    }
}

/*
 * While a clear runs, its registers cannot be changed nor a second clear
 * started (a stalled engine, x-clear-stall, makes that deterministic); a
 * device reset stops a clear, stalled or running, and leaves the engine
 * idle and usable.
 */
static void test_gpu_clear_busy_reset(void)
{
    QTestState *qts = qtest_init("-m 128M -device axon-gpu,addr=05.0,"
                                 "vram-size=16M,x-clear-stall=on "
                                 "-device axon-gpu,addr=06.0,"
                                 "vram-size=128M");
    QPCIBus *bus = qpci_new_pc(qts, NULL);
    uint32_t saved[2][ARRAY_SIZE(gpu_bars)];
    Gpu st, g;

    gpu_open(&st, qts, bus, 5);
    gpu_open(&g, qts, bus, 6);
    gpu_save(&st, saved[0]);
    gpu_save(&g, saved[1]);

    put_mark(&st, 0x1000);
    clear_start(&st, 0, st.size, AXON_GPU_CLEAR_CTRL_START);
    g_assert_cmphex(gpu_rd(&st, AXON_GPU_REG_CLEAR_STATUS), ==,
                    AXON_GPU_CLEAR_STATUS_BUSY);
    /* ignored while busy: a new range, a second START, a bad command */
    clear_start(&st, 0x2000, 0x1000, AXON_GPU_CLEAR_CTRL_START);
    gpu_wr(&st, AXON_GPU_REG_CLEAR_CTRL, 0xff);
    g_assert_cmphex(gpu_rd(&st, AXON_GPU_REG_CLEAR_STATUS), ==,
                    AXON_GPU_CLEAR_STATUS_BUSY);
    g_assert_cmphex(gpu_rd64(&st, AXON_GPU_REG_CLEAR_OFFSET_LO), ==, 0);
    g_assert_cmphex(gpu_rd64(&st, AXON_GPU_REG_CLEAR_SIZE_LO), ==, st.size);
    g_assert_cmphex(get(&st, 0x1000), ==, mark(0x1000));

    /* the other device's clear runs: 128 MiB of dirty VRAM, 8 steps */
    qtest_memset(qts, g.vram.addr, 0x5a, g.size);
    clear_start(&g, 0, g.size, AXON_GPU_CLEAR_CTRL_START);
    qtest_qmp_assert_success(qts, "{'execute': 'system_reset'}");
    qtest_qmp_eventwait(qts, "RESET");
    gpu_restore(&st, saved[0]);
    gpu_restore(&g, saved[1]);
    for (uint32_t r = AXON_GPU_REG_CLEAR_OFFSET_LO;
         r <= AXON_GPU_REG_CLEAR_STATUS; r += 4) {
        g_assert_cmphex(gpu_rd(&st, r), ==, 0);
        g_assert_cmphex(gpu_rd(&g, r), ==, 0);
    }
    /* idle and usable */
    clear_start(&g, 0, g.size, AXON_GPU_CLEAR_CTRL_START);
    g_assert_cmphex(clear_wait(&g), ==, 0);
    g_assert_cmphex(get(&g, 0), ==, 0);
    g_assert_cmphex(get(&g, g.size / 2 + 8), ==, 0);
    g_assert_cmphex(get(&g, g.size - 8), ==, 0);
    clear_start(&st, 0, AXON_GPU_CLEAR_ALIGN, AXON_GPU_CLEAR_CTRL_START);
    g_assert_cmphex(gpu_rd(&st, AXON_GPU_REG_CLEAR_STATUS), ==,
                    AXON_GPU_CLEAR_STATUS_BUSY);
    g_free(st.dev);
    g_free(g.dev);
    qpci_free_pc(bus);
    qtest_quit(qts);
}

void axon_gpu_tests(void)
{
    qtest_add_func("/axon-gpu/identity", test_gpu_identity);
    qtest_add_func("/axon-gpu/vram", test_gpu_vram);
    qtest_add_func("/axon-gpu/bad-vram-size", test_gpu_bad_vram_size);
    qtest_add_func("/axon-gpu/clear", test_gpu_clear);
    qtest_add_func("/axon-gpu/clear-refused", test_gpu_clear_refused);
    qtest_add_func("/axon-gpu/clear-busy-reset", test_gpu_clear_busy_reset);
}
