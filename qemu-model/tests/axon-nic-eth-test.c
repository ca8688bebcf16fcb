/*
 * qtest of the Ethernet function: ring set-up, loopback, receive errors, RoCEv2
 * steering, the multicast filter, interrupts, the link, the GID table
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-nic-qos.h"

typedef struct BadEth {
    uint64_t tx, rx;
    uint32_t txd, rxd, mtu;
    uint32_t error;
} BadEth;

static void test_eth_config(void)
{
    static const BadEth cases[] = {
        { ETX_ADDR, ERX_ADDR, 0, 8, 1500, AXON_DEV_ERR_ETH_TX_CONFIG },
        { ETX_ADDR, ERX_ADDR, 1, 8, 1500, AXON_DEV_ERR_ETH_TX_CONFIG },
        { ETX_ADDR, ERX_ADDR, 12, 8, 1500, AXON_DEV_ERR_ETH_TX_CONFIG },
        { ETX_ADDR, ERX_ADDR, 8192, 8, 1500, AXON_DEV_ERR_ETH_TX_CONFIG },
        { 0, ERX_ADDR, 8, 8, 1500, AXON_DEV_ERR_ETH_TX_CONFIG },
        { ETX_ADDR + 16, ERX_ADDR, 8, 8, 1500, AXON_DEV_ERR_ETH_TX_CONFIG },
        { 0xfffffffffffff000ULL, ERX_ADDR, 4096, 8, 1500,
          AXON_DEV_ERR_ETH_TX_CONFIG },
        { ETX_ADDR, ERX_ADDR, 8, 0xffffffff, 1500,
          AXON_DEV_ERR_ETH_RX_CONFIG },
        { ETX_ADDR, 0, 8, 8, 1500, AXON_DEV_ERR_ETH_RX_CONFIG },
        { ETX_ADDR, ERX_ADDR + 0x800, 8, 8, 1500,
          AXON_DEV_ERR_ETH_RX_CONFIG },
        { ETX_ADDR, ERX_ADDR, 8, 8, 0, AXON_DEV_ERR_ETH_MTU },
        { ETX_ADDR, ERX_ADDR, 8, 8, AXON_ETH_MIN_MTU - 1,
          AXON_DEV_ERR_ETH_MTU },
        { ETX_ADDR, ERX_ADDR, 8, 8, AXON_ETH_MAX_MTU + 1,
          AXON_DEV_ERR_ETH_MTU },
    };
    Axon *a = axon_start(NULL);
    size_t i;

    g_assert_cmphex(rd(a, AXON_REG_CAPS) & AXON_CAP_ETHERNET, !=, 0);

    /* the Ethernet function needs a ready device */
    program_eth(a, ETX_ADDR, 8, ERX_ADDR, 8, 1500);
    wr(a, AXON_REG_ETH_CTRL, AXON_ETH_CTRL_ENABLE);
    g_assert_cmphex(rd(a, AXON_REG_ETH_CTRL), ==, 0);

    g_assert_cmpuint(axon_enable(a, 4, 4, 4), ==, AXON_DEV_ERR_NONE);
    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        const BadEth *c = &cases[i];

        g_test_message("bad Ethernet config case %zu", i);
        program_eth(a, c->tx, c->txd, c->rx, c->rxd, c->mtu);
        wr(a, AXON_REG_ETH_CTRL, AXON_ETH_CTRL_ENABLE);
        g_assert_cmpuint(rd(a, AXON_REG_ERROR), ==, c->error);
        g_assert_cmphex(rd(a, AXON_REG_ETH_CTRL), ==, 0);
        /* doorbells of a stopped function do nothing */
        wr(a, AXON_REG_ETH_TX_TAIL, 1);
        g_assert_cmpuint(rd(a, AXON_REG_ETH_TX_HEAD), ==, 0);
        g_assert_cmphex(rd(a, AXON_REG_STATUS), ==, AXON_STATUS_READY);
    }

    /* the limits themselves are good, and a good enable clears ERROR */
    program_eth(a, ETX_ADDR, AXON_QUEUE_MAX_DEPTH, ERX_ADDR,
                AXON_QUEUE_MIN_DEPTH, AXON_ETH_MAX_MTU);
    wr(a, AXON_REG_ETH_CTRL, AXON_ETH_CTRL_ENABLE);
    g_assert_cmpuint(rd(a, AXON_REG_ERROR), ==, AXON_DEV_ERR_NONE);
    g_assert_cmphex(rd(a, AXON_REG_ETH_CTRL), ==, AXON_ETH_CTRL_ENABLE);

    /* frozen while enabled */
    wr(a, AXON_REG_ETH_MTU, 1500);
    wr(a, AXON_REG_ETH_RX_DEPTH, 8);
    wr(a, AXON_REG_ETH_TX_BASE_LO, 0);
    g_assert_cmpuint(rd(a, AXON_REG_ETH_MTU), ==, AXON_ETH_MAX_MTU);
    g_assert_cmpuint(rd(a, AXON_REG_ETH_RX_DEPTH), ==, AXON_QUEUE_MIN_DEPTH);
    g_assert_cmphex(rd(a, AXON_REG_ETH_TX_BASE_LO), ==, (uint32_t)ETX_ADDR);

    /* doorbell out of range */
    wr(a, AXON_REG_ETH_RX_TAIL, AXON_QUEUE_MIN_DEPTH);
    g_assert_cmpuint(rd(a, AXON_REG_ERROR), ==, AXON_DEV_ERR_DOORBELL);
    g_assert_cmpuint(rd(a, AXON_REG_ETH_RX_HEAD), ==, 0);

    /* stopping the admin queues stops the Ethernet function too */
    wr(a, AXON_REG_CTRL, 0);
    g_assert_cmphex(rd(a, AXON_REG_ETH_CTRL), ==, 0);

    /* reset clears every Ethernet register */
    wr(a, AXON_REG_CTRL, AXON_CTRL_RESET);
    g_assert_cmpuint(rd(a, AXON_REG_ETH_MTU), ==, 0);
    g_assert_cmpuint(rd(a, AXON_REG_ETH_TX_DEPTH), ==, 0);
    g_assert_cmphex(rd(a, AXON_REG_ETH_RX_BASE_LO), ==, 0);
    g_assert_cmpuint(rd(a, AXON_REG_ERROR), ==, AXON_DEV_ERR_NONE);
    axon_stop(a);
}

/* Without netdev= frames are sent nowhere, but TX completes. */
static void test_eth_no_netdev(void)
{
    Axon *a = axon_start(NULL);
    g_autofree uint8_t *f = make_frame(60, 0x88b5, 1);
    uint32_t idx;

    g_assert_cmpuint(eth_enable(a, 8, 8, 1500), ==, AXON_DEV_ERR_NONE);
    idx = tx_frame(a, f, 60);
    g_assert_cmphex(wait_desc(a, ETX_ADDR, idx), ==, AXON_ETH_DESC_DONE);
    g_assert_cmpuint(rd(a, AXON_REG_ETH_TX_HEAD), ==, 1);
    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_PORT, RESP_ADDR, 4096, 1), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(qtest_readl(a->qts, RESP_ADDR), ==, AXON_PORT_ACTIVE);
    axon_stop(a);
}

static void test_eth_loopback(void)
{
    /* shortest frame, typical, full MTU, full MTU with a VLAN tag */
    static const uint16_t lens[] = { AXON_ETH_HLEN, 60, 1514, 1518 };
    Axon *a = axon_start_wire(NULL);
    uint8_t *frames[ARRAY_SIZE(lens)];
    g_autofree uint8_t *good = make_frame(100, 0x88b5, 9);
    uint32_t idx;
    size_t i;

    g_assert_cmpuint(eth_enable(a, 8, 16, 1500), ==, AXON_DEV_ERR_NONE);
    post_rx(a, 8);
    for (i = 0; i < ARRAY_SIZE(lens); i++) {
        frames[i] = make_frame(lens[i], i == 3 ? 0x8100 : 0x88b5, i);
        idx = tx_frame(a, frames[i], lens[i]);
        g_assert_cmphex(wait_desc(a, ETX_ADDR, idx), ==, AXON_ETH_DESC_DONE);
    }
    for (i = 0; i < ARRAY_SIZE(lens); i++) {
        check_rx(a, i, frames[i], lens[i]);
        g_free(frames[i]);
    }
    g_assert_cmpuint(rd(a, AXON_REG_ETH_TX_HEAD), ==, 4);
    g_assert_cmpuint(rd(a, AXON_REG_ETH_RX_HEAD), ==, 4);

    /* bad descriptors: DONE|ERROR, counted, nothing sent */
    idx = tx_desc(a, TXBUF_ADDR, AXON_ETH_HLEN - 1);
    g_assert_cmphex(wait_desc(a, ETX_ADDR, idx), ==,
                    AXON_ETH_DESC_DONE | AXON_ETH_DESC_ERROR);
    idx = tx_desc(a, TXBUF_ADDR, 1500 + AXON_ETH_OVERHEAD + 1);
    g_assert_cmphex(wait_desc(a, ETX_ADDR, idx), ==,
                    AXON_ETH_DESC_DONE | AXON_ETH_DESC_ERROR);
    idx = tx_desc(a, UNMAPPED_ADDR, 60);
    g_assert_cmphex(wait_desc(a, ETX_ADDR, idx), ==,
                    AXON_ETH_DESC_DONE | AXON_ETH_DESC_ERROR);
    idx = tx_desc(a, TXBUF_ADDR, 0xffff);
    g_assert_cmphex(wait_desc(a, ETX_ADDR, idx), ==,
                    AXON_ETH_DESC_DONE | AXON_ETH_DESC_ERROR);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_TX_ERRORS), ==, 4);

    /* the TX ring wraps (8 entries) and the next frame is the next RX */
    idx = tx_frame(a, good, 100);
    g_assert_cmpuint(idx, ==, 0);
    g_assert_cmphex(wait_desc(a, ETX_ADDR, idx), ==, AXON_ETH_DESC_DONE);
    check_rx(a, 4, good, 100);
    g_assert_cmphex(rd(a, AXON_REG_STATUS), ==, AXON_STATUS_READY);
    axon_stop(a);
}

static void test_eth_rx_errors(void)
{
    Axon *a = axon_start_wire(NULL);
    g_autofree uint8_t *big = make_frame(65000, 0x88b5, 2);
    g_autofree uint8_t *good = make_frame(200, 0x88b5, 4);
    uint32_t idx;

    g_assert_cmpuint(eth_enable(a, 8, 8, 1500), ==, AXON_DEV_ERR_NONE);

    /* runts and oversize frames are dropped before using a buffer */
    post_rx(a, 1);
    inject(a, big, 1);
    inject(a, big, AXON_ETH_HLEN - 1);
    inject(a, big, 1500 + AXON_ETH_OVERHEAD + 1);
    inject(a, big, 65000);
    inject(a, good, 200);
    check_rx(a, 0, good, 200);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_RX_RUNT), ==, 2);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_RX_OVERSIZE), ==, 2);

    /* a frame larger than the posted buffer: dropped, buffer kept */
    idx = post_rx_at(a, 0, 100);
    inject(a, good, 200);
    inject(a, good, 100);
    check_rx(a, idx, good, 100);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_RX_OVERSIZE), ==, 3);

    /* an unwritable buffer: DONE|ERROR with length 0, counted */
    idx = post_rx_at(a, UNMAPPED_ADDR, 2048);
    inject(a, good, 200);
    g_assert_cmphex(wait_desc(a, ERX_ADDR, idx), ==,
                    AXON_ETH_DESC_DONE | AXON_ETH_DESC_ERROR);
    g_assert_cmpuint(rx_len(a, idx), ==, 0);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_RX_DMA_ERRORS), ==, 1);

    /* and the device keeps receiving */
    idx = post_rx_at(a, 0, 2048);
    inject(a, good, 200);
    check_rx(a, idx, good, 200);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_RX_NOBUF), ==, 0);
    g_assert_cmphex(rd(a, AXON_REG_STATUS), ==, AXON_STATUS_READY);
    axon_stop(a);
}

static void test_eth_rx_nobuf(void)
{
    Axon *a = axon_start_wire(NULL);
    uint8_t *f[3];
    int i;

    for (i = 0; i < 3; i++) {
        f[i] = make_frame(64 + i, 0x88b5, 10 * i);
    }

    /* stopped function: frames are taken off the wire and counted */
    g_assert_cmpuint(axon_enable(a, 4, 4, 4), ==, AXON_DEV_ERR_NONE);
    inject(a, f[0], 64);
    inject(a, f[1], 65);
    g_assert_true(wait_reg(a, AXON_REG_STAT_RX_NOBUF, 2));

    /* running without buffers: frames wait until buffers are posted */
    g_assert_cmpuint(eth_enable(a, 8, 8, 1500), ==, AXON_DEV_ERR_NONE);
    for (i = 0; i < 3; i++) {
        inject(a, f[i], 64 + i);
    }
    for (i = 0; i < 100; i++) {
        qtest_clock_step(a->qts, 1000);
    }
    g_assert_cmpuint(rd(a, AXON_REG_ETH_RX_HEAD), ==, 0);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_RX_NOBUF), ==, 0);
    post_rx(a, 1);
    check_rx(a, 0, f[0], 64);
    post_rx(a, 4);
    check_rx(a, 1, f[1], 65);
    check_rx(a, 2, f[2], 66);
    g_assert_true(wait_reg(a, AXON_REG_ETH_RX_HEAD, 3));
    for (i = 0; i < 3; i++) {
        g_free(f[i]);
    }
    axon_stop(a);
}

static void test_eth_roce_steering(void)
{
    Axon *a = axon_start_wire(NULL);
    struct {
        int l3;
        bool vlan;
        uint16_t dport, frag;
        size_t payload;
        bool roce;
    } cases[] = {
        { L3_V4, false, AXON_ROCEV2_UDP_PORT, 0, 28, true },
        { L3_V6, false, AXON_ROCEV2_UDP_PORT, 0, 28, true },
        { L3_V4, true, AXON_ROCEV2_UDP_PORT, 0x4000, 28, true },
        { L3_V6, true, AXON_ROCEV2_UDP_PORT, 0, 28, true },
        /* truncated BTH: still for the engine, which checks it */
        { L3_V4, false, AXON_ROCEV2_UDP_PORT, 0, 3, true },
        /* not RoCEv2: the driver gets them */
        { L3_V4, false, AXON_ROCEV2_UDP_PORT - 1, 0, 28, false },
        { L3_V6, true, 53, 0, 28, false },
        { L3_V4, false, AXON_ROCEV2_UDP_PORT, 0x2000, 28, false },
        { L3_V4, false, AXON_ROCEV2_UDP_PORT, 0x0010, 28, false },
    };
    uint32_t delivered = 0, roce = 0;
    size_t i, len;

    g_assert_cmpuint(eth_enable(a, 8, 16, 1500), ==, AXON_DEV_ERR_NONE);
    post_rx(a, 15);
    for (i = 0; i < ARRAY_SIZE(cases); i++) {
        g_autofree uint8_t *f = make_udp(cases[i].l3, cases[i].vlan,
                                         cases[i].dport, cases[i].frag,
                                         cases[i].payload, &len);

        g_test_message("steering case %zu", i);
        inject(a, f, len);
        if (cases[i].roce) {
            g_assert_true(wait_reg(a, AXON_REG_STAT_RX_ROCE, ++roce));
        } else {
            check_rx(a, delivered++, f, len);
        }
    }

    /* truncated headers are not RoCEv2 and never read out of bounds */
    for (i = 0; i < 3; i++) {
        static const size_t cut[] = { 14 + 10, 14 + 20 + 4, 14 + 30 };
        g_autofree uint8_t *f = make_udp(i == 2 ? L3_V6 : L3_V4, false,
                                         AXON_ROCEV2_UDP_PORT, 0, 28, &len);

        g_test_message("truncated case %zu", i);
        inject(a, f, cut[i]);
        check_rx(a, delivered++, f, cut[i]);
    }
    {
        /* an IPv4 header length pointing past the frame */
        g_autofree uint8_t *f = make_udp(L3_V4, false, AXON_ROCEV2_UDP_PORT,
                                         0, 0, &len);

        f[14] = 0x4f;
        inject(a, f, len);
        check_rx(a, delivered++, f, len);
    }
    g_assert_cmpuint(rd(a, AXON_REG_STAT_RX_ROCE), ==, roce);
    g_assert_cmpuint(rd(a, AXON_REG_ETH_RX_HEAD), ==, delivered);
    axon_stop(a);
}

/*
 * The multicast filter's hash: the top 6 bits of the CRC-32 of the
 * address, bits taken least significant first, the CRC shifted most
 * significant bit first, no final inversion (Linux's ether_crc()). Written
 * out here rather than borrowed from the model, so that a model computing
 * a different hash fails.
 */
static unsigned mc_hash_bit(const uint8_t *mac)
{
    uint32_t crc = 0xffffffff;
    int i, j;

    for (i = 0; i < 6; i++) {
        uint8_t b = mac[i];

        for (j = 0; j < 8; j++, b >>= 1) {
            bool carry = (crc >> 31) ^ (b & 1);

            crc <<= 1;
            if (carry) {
                crc ^= 0x04c11db7;
            }
        }
    }
    return crc >> 26;
}

/* A frame to dmac; the rest as make_frame()'s. */
static uint8_t *make_frame_to(const uint8_t *dmac, size_t len, uint8_t seed)
{
    uint8_t *f = make_frame(len, 0x88b5, seed);

    memcpy(f, dmac, 6);
    return f;
}

/* f must be dropped by the filter: counted, and no RX buffer used. */
static void mc_dropped(Axon *a, const uint8_t *f, size_t len,
                       uint32_t *filtered, uint32_t head)
{
    inject(a, f, len);
    g_assert_true(wait_reg(a, AXON_REG_STAT_RX_MC_FILTERED, ++*filtered));
    g_assert_cmpuint(rd(a, AXON_REG_ETH_RX_HEAD), ==, head);
}

/* f must be received, in the next buffer; nothing filtered. */
static void mc_received(Axon *a, const uint8_t *f, size_t len,
                        uint32_t filtered, uint32_t *head)
{
    inject(a, f, len);
    check_rx(a, (*head)++, f, len);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_RX_MC_FILTERED), ==, filtered);
}

static void test_eth_mc_filter(void)
{
    static const uint8_t grp_a[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };
    static const uint8_t grp_b[6] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x04 };
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    Axon *a = axon_start_wire(NULL);
    g_autofree uint8_t *fa = make_frame_to(grp_a, 80, 1);
    g_autofree uint8_t *fb = make_frame_to(grp_b, 90, 2);
    g_autofree uint8_t *fbc = make_frame_to(bcast, 70, 3);
    g_autofree uint8_t *fuc = make_frame(60, 0x88b5, 4);
    uint32_t filtered = 0, head = 0;

    g_assert_cmphex(rd(a, AXON_REG_CAPS) & AXON_CAP_MCAST, ==,
                    AXON_CAP_MCAST);
    /*
     * The hash of the test's groups, as Linux's ether_crc(6, addr) >> 26
     * gives it (worked out apart from this file): one in each half.
     */
    g_assert_cmpuint(mc_hash_bit(grp_a), ==, 57);
    g_assert_cmpuint(mc_hash_bit(grp_b), ==, 8);

    g_assert_cmpuint(eth_enable(a, 8, 16, 1500), ==, AXON_DEV_ERR_NONE);
    post_rx(a, 15);

    /* (a) the reset values let every multicast frame in */
    g_assert_cmphex(rd(a, AXON_REG_ETH_RX_MODE), ==, AXON_ETH_RX_ALLMULTI);
    g_assert_cmphex(rd(a, AXON_REG_ETH_MC_HASH_LO), ==, 0);
    g_assert_cmphex(rd(a, AXON_REG_ETH_MC_HASH_HI), ==, 0);
    mc_received(a, fa, 80, filtered, &head);

    /* (b) no ALLMULTI, empty hash: multicast dropped, the rest not */
    wr(a, AXON_REG_ETH_RX_MODE, 0);
    g_assert_cmphex(rd(a, AXON_REG_ETH_RX_MODE), ==, 0);
    mc_dropped(a, fa, 80, &filtered, head);
    g_assert_cmpuint(filtered, ==, 1);
    mc_dropped(a, fb, 90, &filtered, head);
    mc_received(a, fbc, 70, filtered, &head);
    mc_received(a, fuc, 60, filtered, &head);

    /* (c) only group A's bit (in HI): A passes, B does not */
    wr(a, AXON_REG_ETH_MC_HASH_HI, 1U << (57 - 32));
    mc_received(a, fa, 80, filtered, &head);
    mc_dropped(a, fb, 90, &filtered, head);
    /* ... and only B's (in LO): the other way round */
    wr(a, AXON_REG_ETH_MC_HASH_HI, 0);
    wr(a, AXON_REG_ETH_MC_HASH_LO, 1U << 8);
    mc_dropped(a, fa, 80, &filtered, head);
    mc_received(a, fb, 90, filtered, &head);
    mc_received(a, fbc, 70, filtered, &head);

    /* (d) ALLMULTI again, with an empty hash: every frame passes */
    wr(a, AXON_REG_ETH_MC_HASH_LO, 0);
    wr(a, AXON_REG_ETH_RX_MODE, AXON_ETH_RX_ALLMULTI);
    mc_received(a, fa, 80, filtered, &head);
    mc_received(a, fb, 90, filtered, &head);
    mc_received(a, fuc, 60, filtered, &head);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_RX_MC_FILTERED), ==, 4);
    g_assert_cmpuint(rd(a, AXON_REG_ETH_RX_HEAD), ==, 9);

    /* (e) read back: the hash whole, RX_MODE only its bit 0 */
    wr(a, AXON_REG_ETH_MC_HASH_LO, 0xdeadbeef);
    wr(a, AXON_REG_ETH_MC_HASH_HI, 0x80000001);
    g_assert_cmphex(rd(a, AXON_REG_ETH_MC_HASH_LO), ==, 0xdeadbeef);
    g_assert_cmphex(rd(a, AXON_REG_ETH_MC_HASH_HI), ==, 0x80000001);
    wr(a, AXON_REG_ETH_RX_MODE, 0xfffffffe);
    g_assert_cmphex(rd(a, AXON_REG_ETH_RX_MODE), ==, 0);
    wr(a, AXON_REG_ETH_RX_MODE, 0xffffffff);
    g_assert_cmphex(rd(a, AXON_REG_ETH_RX_MODE), ==, AXON_ETH_RX_ALLMULTI);
    /* the counter is read-only */
    wr(a, AXON_REG_STAT_RX_MC_FILTERED, 0);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_RX_MC_FILTERED), ==, 4);
    /* writable with the function stopped, unlike the ring registers */
    wr(a, AXON_REG_ETH_CTRL, 0);
    g_assert_cmphex(rd(a, AXON_REG_ETH_CTRL), ==, 0);
    wr(a, AXON_REG_ETH_MC_HASH_LO, 0x01234567);
    wr(a, AXON_REG_ETH_MC_HASH_HI, 0x89abcdef);
    wr(a, AXON_REG_ETH_RX_MODE, 0);
    g_assert_cmphex(rd(a, AXON_REG_ETH_MC_HASH_LO), ==, 0x01234567);
    g_assert_cmphex(rd(a, AXON_REG_ETH_MC_HASH_HI), ==, 0x89abcdef);
    g_assert_cmphex(rd(a, AXON_REG_ETH_RX_MODE), ==, 0);

    /* a reset restores the reset values and clears the counter */
    wr(a, AXON_REG_CTRL, AXON_CTRL_RESET);
    g_assert_cmphex(rd(a, AXON_REG_ETH_RX_MODE), ==, AXON_ETH_RX_ALLMULTI);
    g_assert_cmphex(rd(a, AXON_REG_ETH_MC_HASH_LO), ==, 0);
    g_assert_cmphex(rd(a, AXON_REG_ETH_MC_HASH_HI), ==, 0);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_RX_MC_FILTERED), ==, 0);
    /* and they are writable before the device is enabled */
    wr(a, AXON_REG_ETH_MC_HASH_HI, 0x2);
    wr(a, AXON_REG_ETH_RX_MODE, 0);
    g_assert_cmphex(rd(a, AXON_REG_ETH_MC_HASH_HI), ==, 0x2);
    g_assert_cmphex(rd(a, AXON_REG_ETH_RX_MODE), ==, 0);
    axon_stop(a);
}

static void test_eth_irq(void)
{
    Axon *a = axon_start_wire(NULL);
    g_autofree uint8_t *f = make_frame(80, 0x88b5, 5);
    uint32_t idx;

    g_assert_cmpuint(eth_enable(a, 8, 8, 1500), ==, AXON_DEV_ERR_NONE);
    setup_msix(a, AXON_MSIX_ETH, ETH_MSI_ADDR, 0xe7);
    qtest_writel(a->qts, ETH_MSI_ADDR, 0);

    /* not armed: completions raise nothing */
    idx = post_rx_at(a, 0, 2048);
    tx_frame(a, f, 80);
    check_rx(a, idx, f, 80);
    g_assert_cmphex(qtest_readl(a->qts, ETH_MSI_ADDR), ==, 0);

    /* armed: the next completion (TX) raises it once, then disarmed */
    wr(a, AXON_REG_ETH_IRQ_ARM, 1);
    idx = post_rx_at(a, 0, 2048);
    g_assert_cmphex(qtest_readl(a->qts, ETH_MSI_ADDR), ==, 0);
    g_assert_cmphex(wait_desc(a, ETX_ADDR, tx_frame(a, f, 80)), ==,
                    AXON_ETH_DESC_DONE);
    g_assert_cmphex(qtest_readl(a->qts, ETH_MSI_ADDR), ==, 0xe7);
    qtest_writel(a->qts, ETH_MSI_ADDR, 0);
    check_rx(a, idx, f, 80);
    g_assert_cmphex(qtest_readl(a->qts, ETH_MSI_ADDR), ==, 0);

    /* armed again: an RX completion raises it */
    wr(a, AXON_REG_ETH_IRQ_ARM, 1);
    idx = post_rx_at(a, 0, 2048);
    inject(a, f, 80);
    check_rx(a, idx, f, 80);
    g_assert_cmphex(qtest_readl(a->qts, ETH_MSI_ADDR), ==, 0xe7);

    /* 0 disarms; other values are ignored */
    qtest_writel(a->qts, ETH_MSI_ADDR, 0);
    wr(a, AXON_REG_ETH_IRQ_ARM, 1);
    wr(a, AXON_REG_ETH_IRQ_ARM, 0);
    wr(a, AXON_REG_ETH_IRQ_ARM, 2);
    idx = post_rx_at(a, 0, 2048);
    inject(a, f, 80);
    check_rx(a, idx, f, 80);
    g_assert_cmphex(qtest_readl(a->qts, ETH_MSI_ADDR), ==, 0);
    axon_stop(a);
}

static void test_eth_link(void)
{
    Axon *a = axon_start_wire(",id=nic0");
    g_autofree uint8_t *f = make_frame(70, 0x88b5, 6);
    g_autofree uint8_t *g = make_frame(90, 0x88b5, 7);
    struct axon_event ev;
    uint32_t idx;

    g_assert_cmpuint(eth_enable(a, 8, 8, 1500), ==, AXON_DEV_ERR_NONE);
    setup_msix(a, AXON_MSIX_ASYNC, MSI_ADDR + 4, 0xe1);
    g_assert_cmpuint(port_state(a), ==, AXON_PORT_ACTIVE);

    /* set_link on the device */
    set_link(a, "nic0", false);
    g_assert_true(wait_word(a, MSI_ADDR + 4, 0xe1));
    read_event(a, &ev);
    g_assert_cmpuint(le16_to_cpu(ev.type), ==, AXON_EVENT_PORT_DOWN);
    g_assert_cmpuint(le32_to_cpu(ev.param), ==, 1);
    g_assert_cmpuint(port_state(a), ==, AXON_PORT_DOWN);
    /* no change, no event */
    set_link(a, "nic0", false);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_EVENTS), ==, 1);

    /* link down: TX completes but nothing reaches the wire or RX */
    idx = post_rx_at(a, 0, 2048);
    g_assert_cmphex(wait_desc(a, ETX_ADDR, tx_frame(a, f, 70)), ==,
                    AXON_ETH_DESC_DONE);
    inject(a, f, 70);

    /* set_link on the netdev takes the device's link with it */
    set_link(a, "n0", true);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_EVENTS), ==, 2);
    a->eq_head = 1;
    read_event(a, &ev);
    g_assert_cmpuint(le16_to_cpu(ev.type), ==, AXON_EVENT_PORT_ACTIVE);
    wr(a, AXON_REG_EQ_HEAD, 2);
    g_assert_cmpuint(port_state(a), ==, AXON_PORT_ACTIVE);
    inject(a, g, 90);
    check_rx(a, idx, g, 90);

    /* the QOM property link-up is an alias */
    qobject_unref(qtest_qmp(a->qts, "{'execute': 'qom-set', 'arguments': "
                            "{'path': 'nic0', 'property': 'link-up', "
                            "'value': false}}"));
    g_assert_cmpuint(port_state(a), ==, AXON_PORT_DOWN);
    set_link(a, "nic0", true);
    g_assert_cmpuint(port_state(a), ==, AXON_PORT_ACTIVE);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_EVENTS), ==, 4);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_EQ_DROPS), ==, 0);
    axon_stop(a);
}

static void test_set_gid(void)
{
    Axon *a = axon_start(NULL);

    g_assert_cmpuint(axon_enable(a, 8, 8, 8), ==, AXON_DEV_ERR_NONE);
    g_assert_cmpuint(query(a, AXON_ADMIN_QUERY_PORT, RESP_ADDR, 4096, 1), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(qtest_readl(a->qts, RESP_ADDR +
                                 offsetof(struct axon_port_attr,
                                          gid_tbl_len)), ==, 16);

    g_assert_cmpuint(set_gid(a, 1, 0, AXON_GID_TYPE_ROCE_V2, 0, 0), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(set_gid(a, 1, 15, AXON_GID_TYPE_ROCE_V1, 0, 0), ==,
                     AXON_ADMIN_SUCCESS);
    g_assert_cmpuint(set_gid(a, 1, 0, AXON_GID_TYPE_NONE, 0, 0), ==,
                     AXON_ADMIN_SUCCESS);

    g_assert_cmpuint(set_gid(a, 0, 0, AXON_GID_TYPE_ROCE_V2, 0, 0), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(set_gid(a, 2, 0, AXON_GID_TYPE_ROCE_V2, 0, 0), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(set_gid(a, 1, 16, AXON_GID_TYPE_ROCE_V2, 0, 0), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(set_gid(a, 1, 0xffffffff, AXON_GID_TYPE_ROCE_V2, 0, 0),
                     ==, AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(set_gid(a, 1, 0, AXON_GID_TYPE_ROCE_V2 + 1, 0, 0), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(set_gid(a, 1, 0, AXON_GID_TYPE_ROCE_V2, 1, 0), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(set_gid(a, 1, 0, AXON_GID_TYPE_ROCE_V2, 0, 1), ==,
                     AXON_ADMIN_BAD_PARAM);
    g_assert_cmpuint(rd(a, AXON_REG_STAT_AQ_ERRORS), ==, 7);
    axon_stop(a);
}

void axon_nic_eth_tests(void)
{
    qtest_add_func("/axon-nic/eth-config", test_eth_config);
    qtest_add_func("/axon-nic/eth-no-netdev", test_eth_no_netdev);
    qtest_add_func("/axon-nic/eth-loopback", test_eth_loopback);
    qtest_add_func("/axon-nic/eth-rx-errors", test_eth_rx_errors);
    qtest_add_func("/axon-nic/eth-rx-nobuf", test_eth_rx_nobuf);
    qtest_add_func("/axon-nic/eth-roce-steering", test_eth_roce_steering);
    qtest_add_func("/axon-nic/eth-mc-filter", test_eth_mc_filter);
    qtest_add_func("/axon-nic/eth-irq", test_eth_irq);
    qtest_add_func("/axon-nic/eth-link", test_eth_link);
    qtest_add_func("/axon-nic/set-gid", test_set_gid);
}
