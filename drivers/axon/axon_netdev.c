// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon Ethernet function: the net_device that carries IP (and so gives the
 * RDMA port its RoCE GIDs) and every frame that is not RoCEv2.
 *
 * One TX and one RX descriptor ring, one NAPI context. The device writes
 * DONE into a descriptor when it is finished with it, and raises the
 * Ethernet vector once after each arm, so NAPI re-arms when it completes.
 */

#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>

#include "axon.h"
#include "axon_eth.h"
#include "axon_dev_attr.h"

#define AXON_ETH_RING_DEPTH	256
#define AXON_ETH_SPEED_MBPS	100000

struct axon_eth {
	struct axon_dev *adev;
	struct net_device *netdev;
	struct napi_struct napi;
	struct axon_eth_ring tx;
	struct axon_eth_ring rx;
	u32 rx_buf_len;

	struct u64_stats_sync syncp;
	u64 rx_packets, rx_bytes, tx_packets, tx_bytes;
	u64 tx_errors, rx_errors, rx_alloc_errors;
	bool rings_up;		/* rings allocated and given to the device */
	bool mcast;		/* AXON_CAP_MCAST: the multicast filter */
};

static int axon_ring_alloc(struct device *dmadev, struct axon_eth_ring *r,
			   u32 depth)
{
	r->depth = depth;
	r->head = 0;
	r->tail = 0;
	r->bufs = kcalloc(depth, sizeof(*r->bufs), GFP_KERNEL);
	if (!r->bufs)
		return -ENOMEM;
	r->desc = dma_alloc_coherent(dmadev, depth * sizeof(*r->desc),
				     &r->desc_dma, GFP_KERNEL);
	if (!r->desc) {
		kfree(r->bufs);
		return -ENOMEM;
	}
	return 0;
}

static void axon_ring_free(struct device *dmadev, struct axon_eth_ring *r)
{
	dma_free_coherent(dmadev, r->depth * sizeof(*r->desc), r->desc,
			  r->desc_dma);
	kfree(r->bufs);
}

/* ---- RX ---------------------------------------------------------------- */

static int axon_rx_post(struct axon_eth *eth, u32 slot)
{
	struct device *dmadev = &eth->adev->pdev->dev;
	struct axon_eth_buf *buf = &eth->rx.bufs[slot];
	struct axon_eth_desc *desc = &eth->rx.desc[slot];
	struct sk_buff *skb;
	dma_addr_t dma;

	skb = netdev_alloc_skb_ip_align(eth->netdev, eth->rx_buf_len);
	if (!skb)
		return -ENOMEM;
	dma = dma_map_single(dmadev, skb->data, eth->rx_buf_len,
			     DMA_FROM_DEVICE);
	if (dma_mapping_error(dmadev, dma)) {
		dev_kfree_skb_any(skb);
		return -ENOMEM;
	}
	buf->skb = skb;
	buf->dma = dma;
	buf->len = eth->rx_buf_len;
	desc->addr = cpu_to_le64(dma);
	desc->buf_len = cpu_to_le16(eth->rx_buf_len);
	desc->len = 0;
	desc->flags = 0;
	return 0;
}

/* Post buffers into every free RX slot; one slot always stays empty. */
static void axon_rx_refill(struct axon_eth *eth)
{
	struct axon_eth_ring *rx = &eth->rx;
	u32 old_tail = rx->tail;

	while (axon_ring_free_slots(rx)) {
		if (axon_rx_post(eth, axon_ring_idx(rx, rx->tail))) {
			u64_stats_update_begin(&eth->syncp);
			eth->rx_alloc_errors++;
			u64_stats_update_end(&eth->syncp);
			break;
		}
		rx->tail++;
	}
	if (rx->tail != old_tail) {
		/* descriptors before the doorbell */
		dma_wmb();
		axon_wr(eth->adev, AXON_REG_ETH_RX_TAIL,
			axon_ring_idx(rx, rx->tail));
	}
}

static int axon_rx_poll(struct axon_eth *eth, int budget)
{
	struct device *dmadev = &eth->adev->pdev->dev;
	struct axon_eth_ring *rx = &eth->rx;
	int done = 0;

	while (done < budget && rx->head != rx->tail) {
		u32 slot = axon_ring_idx(rx, rx->head);
		struct axon_eth_desc *desc = &rx->desc[slot];
		struct axon_eth_buf *buf = &rx->bufs[slot];
		struct sk_buff *skb = buf->skb;
		u32 len;

		if (!(le16_to_cpu(READ_ONCE(desc->flags)) & AXON_ETH_DESC_DONE))
			break;
		dma_rmb();
		len = le16_to_cpu(desc->len);
		dma_unmap_single(dmadev, buf->dma, buf->len, DMA_FROM_DEVICE);
		buf->skb = NULL;
		rx->head++;
		done++;

		/* the device is not trusted with the length either */
		if (!axon_rx_len_valid(len, buf->len)) {
			dev_kfree_skb_any(skb);
			u64_stats_update_begin(&eth->syncp);
			eth->rx_errors++;
			u64_stats_update_end(&eth->syncp);
			continue;
		}
		skb_put(skb, len);
		skb->protocol = eth_type_trans(skb, eth->netdev);
		u64_stats_update_begin(&eth->syncp);
		eth->rx_packets++;
		eth->rx_bytes += len;
		u64_stats_update_end(&eth->syncp);
		napi_gro_receive(&eth->napi, skb);
	}
	axon_rx_refill(eth);
	return done;
}

/* ---- TX ---------------------------------------------------------------- */

static netdev_tx_t axon_start_xmit(struct sk_buff *skb,
				   struct net_device *netdev)
{
	struct axon_eth *eth = netdev_priv(netdev);
	struct device *dmadev = &eth->adev->pdev->dev;
	struct axon_eth_ring *tx = &eth->tx;
	u32 slot = axon_ring_idx(tx, tx->tail);
	struct axon_eth_desc *desc = &tx->desc[slot];
	dma_addr_t dma;

	if (skb_linearize(skb))
		goto drop;
	dma = dma_map_single(dmadev, skb->data, skb->len, DMA_TO_DEVICE);
	if (dma_mapping_error(dmadev, dma))
		goto drop;

	tx->bufs[slot].skb = skb;
	tx->bufs[slot].dma = dma;
	tx->bufs[slot].len = skb->len;
	desc->addr = cpu_to_le64(dma);
	desc->buf_len = cpu_to_le16(skb->len);
	desc->len = 0;
	desc->flags = 0;
	/* the slot is filled before the cleaner can see it in use */
	smp_store_release(&tx->tail, tx->tail + 1);
	skb_tx_timestamp(skb);
	dma_wmb();
	axon_wr(eth->adev, AXON_REG_ETH_TX_TAIL, axon_ring_idx(tx, tx->tail));

	if (!axon_ring_free_slots(tx)) {
		netif_stop_queue(netdev);
		/* pairs with the barrier in axon_tx_clean() */
		smp_mb();
		if (axon_ring_free_slots(tx))
			netif_wake_queue(netdev);
	}
	return NETDEV_TX_OK;

drop:
	dev_kfree_skb_any(skb);
	u64_stats_update_begin(&eth->syncp);
	eth->tx_errors++;
	u64_stats_update_end(&eth->syncp);
	return NETDEV_TX_OK;
}

static void axon_tx_clean(struct axon_eth *eth, int budget)
{
	struct device *dmadev = &eth->adev->pdev->dev;
	struct axon_eth_ring *tx = &eth->tx;
	/* pairs with the release in axon_start_xmit(): slots up to tail are filled */
	u32 tail = smp_load_acquire(&tx->tail);

	while (tx->head != tail) {
		u32 slot = axon_ring_idx(tx, tx->head);
		struct axon_eth_buf *buf = &tx->bufs[slot];
		u16 flags = le16_to_cpu(READ_ONCE(tx->desc[slot].flags));

		if (!(flags & AXON_ETH_DESC_DONE))
			break;
		dma_unmap_single(dmadev, buf->dma, buf->len, DMA_TO_DEVICE);
		u64_stats_update_begin(&eth->syncp);
		if (flags & AXON_ETH_DESC_ERROR) {
			eth->tx_errors++;
		} else {
			eth->tx_packets++;
			eth->tx_bytes += buf->len;
		}
		u64_stats_update_end(&eth->syncp);
		napi_consume_skb(buf->skb, budget);
		buf->skb = NULL;
		tx->head++;
	}

	/* pairs with the barrier in axon_start_xmit() */
	smp_mb();
	if (netif_queue_stopped(eth->netdev) && axon_ring_free_slots(tx))
		netif_wake_queue(eth->netdev);
}

/* Unmap and free the buffers still on a ring the device has stopped using. */
static void axon_ring_free_bufs(struct axon_eth *eth, struct axon_eth_ring *r,
				enum dma_data_direction dir)
{
	struct device *dmadev = &eth->adev->pdev->dev;
	u32 i;

	for (i = 0; i < r->depth; i++) {
		struct axon_eth_buf *buf = &r->bufs[i];

		if (!buf->skb)
			continue;
		dma_unmap_single(dmadev, buf->dma, buf->len, dir);
		dev_kfree_skb_any(buf->skb);
		buf->skb = NULL;
	}
}

/* ---- NAPI and interrupt -------------------------------------------------- */

static bool axon_eth_work_pending(struct axon_eth *eth)
{
	struct axon_eth_ring *tx = &eth->tx, *rx = &eth->rx;
	u16 flags;

	if (tx->head != READ_ONCE(tx->tail)) {
		flags = le16_to_cpu(READ_ONCE(tx->desc[axon_ring_idx(tx, tx->head)].flags));
		if (flags & AXON_ETH_DESC_DONE)
			return true;
	}
	if (rx->head != rx->tail) {
		flags = le16_to_cpu(READ_ONCE(rx->desc[axon_ring_idx(rx, rx->head)].flags));
		if (flags & AXON_ETH_DESC_DONE)
			return true;
	}
	return false;
}

static int axon_napi_poll(struct napi_struct *napi, int budget)
{
	struct axon_eth *eth = container_of(napi, struct axon_eth, napi);
	int done;

	axon_tx_clean(eth, budget);
	done = axon_rx_poll(eth, budget);
	/* no buffer could be posted: keep polling until memory frees up */
	if (eth->rx.head == eth->rx.tail)
		return budget;
	if (done < budget && napi_complete_done(napi, done)) {
		axon_wr(eth->adev, AXON_REG_ETH_IRQ_ARM, 1);
		/* a completion that landed before the arm raises nothing */
		if (axon_eth_work_pending(eth))
			napi_schedule(napi);
	}
	return done;
}

static irqreturn_t axon_eth_irq(int irq, void *data)
{
	struct axon_eth *eth = data;

	napi_schedule_irqoff(&eth->napi);
	return IRQ_HANDLED;
}

/* ---- multicast filter ---------------------------------------------------- */

/*
 * Programs the device's multicast filter from the netdev's addresses and
 * flags. Only MMIO writes: it runs under netif_addr_lock_bh(), in atomic
 * context. The hash goes first, so that leaving ALLMULTI never drops a
 * frame of a group the stack has joined.
 */
static void axon_eth_write_rx_mode(struct axon_eth *eth)
{
	struct net_device *netdev = eth->netdev;
	struct netdev_hw_addr *ha;
	u64 hash = 0;

	if (!eth->mcast)
		return;
	netdev_for_each_mc_addr(ha, netdev)
		hash |= BIT_ULL(axon_eth_mc_hash_bit(ha->addr));
	axon_wr(eth->adev, AXON_REG_ETH_MC_HASH_LO, AXON_REG_LO(hash));
	axon_wr(eth->adev, AXON_REG_ETH_MC_HASH_HI, AXON_REG_HI(hash));
	axon_wr(eth->adev, AXON_REG_ETH_RX_MODE,
		netdev->flags & (IFF_PROMISC | IFF_ALLMULTI) ?
		AXON_ETH_RX_ALLMULTI : 0);
}

static void axon_eth_set_rx_mode(struct net_device *netdev)
{
	struct axon_eth *eth = netdev_priv(netdev);

	/* while the rings are down axon_eth_start() programs it later */
	if (READ_ONCE(eth->rings_up))
		axon_eth_write_rx_mode(eth);
}

/* ---- open, stop, MTU ------------------------------------------------------ */

static void axon_eth_program_ring(struct axon_dev *adev, enum axon_reg base_lo,
				  const struct axon_eth_ring *r)
{
	axon_wr(adev, base_lo + AXON_RING_BASE_LO, AXON_REG_LO(r->desc_dma));
	axon_wr(adev, base_lo + AXON_RING_BASE_HI, AXON_REG_HI(r->desc_dma));
	axon_wr(adev, base_lo + AXON_RING_DEPTH, r->depth);
}

static int axon_eth_start(struct axon_eth *eth)
{
	struct axon_dev *adev = eth->adev;
	struct device *dmadev = &adev->pdev->dev;
	u32 err_code;
	int err;

	eth->rx_buf_len = eth->netdev->mtu + AXON_ETH_OVERHEAD;
	err = axon_ring_alloc(dmadev, &eth->tx, AXON_ETH_RING_DEPTH);
	if (err)
		return err;
	err = axon_ring_alloc(dmadev, &eth->rx, AXON_ETH_RING_DEPTH);
	if (err)
		goto err_free_tx;

	axon_wr(adev, AXON_REG_ETH_CTRL, 0);
	axon_eth_program_ring(adev, AXON_REG_ETH_TX_BASE_LO, &eth->tx);
	axon_eth_program_ring(adev, AXON_REG_ETH_RX_BASE_LO, &eth->rx);
	axon_wr(adev, AXON_REG_ETH_MTU, eth->netdev->mtu);
	axon_wr(adev, AXON_REG_ETH_CTRL, AXON_ETH_CTRL_ENABLE);
	if (!(axon_rd(adev, AXON_REG_ETH_CTRL) & AXON_ETH_CTRL_ENABLE)) {
		err_code = axon_rd(adev, AXON_REG_ERROR);
		netdev_err(eth->netdev, "device refused the rings: error %u\n",
			   err_code);
		err = -EIO;
		goto err_free_rx;
	}

	WRITE_ONCE(eth->rings_up, true);
	/*
	 * The filter, as the addresses are now: axon_eth_set_rx_mode() did
	 * nothing while the rings were down, and a device reset since the
	 * last start put it back to its reset value (ALLMULTI).
	 */
	netif_addr_lock_bh(eth->netdev);
	axon_eth_write_rx_mode(eth);
	netif_addr_unlock_bh(eth->netdev);
	napi_enable(&eth->napi);
	/*
	 * Posting buffers may deliver frames that waited for them before the
	 * interrupt is armed: the first poll picks them up and arms it.
	 */
	axon_rx_refill(eth);
	local_bh_disable();
	napi_schedule(&eth->napi);
	local_bh_enable();
	return 0;

err_free_rx:
	axon_ring_free(dmadev, &eth->rx);
err_free_tx:
	axon_ring_free(dmadev, &eth->tx);
	return err;
}

/* Idempotent: a failed restart leaves the rings down. */
static void axon_eth_halt(struct axon_eth *eth)
{
	struct device *dmadev = &eth->adev->pdev->dev;

	if (!eth->rings_up)
		return;
	WRITE_ONCE(eth->rings_up, false);
	napi_disable(&eth->napi);
	/* the device stops touching the rings before they are freed */
	axon_wr(eth->adev, AXON_REG_ETH_CTRL, 0);
	axon_rd(eth->adev, AXON_REG_ETH_CTRL);
	axon_ring_free_bufs(eth, &eth->tx, DMA_TO_DEVICE);
	axon_ring_free_bufs(eth, &eth->rx, DMA_FROM_DEVICE);
	axon_ring_free(dmadev, &eth->rx);
	axon_ring_free(dmadev, &eth->tx);
}

static int axon_eth_open(struct net_device *netdev)
{
	struct axon_eth *eth = netdev_priv(netdev);
	int err;

	err = axon_eth_start(eth);
	if (err)
		return err;
	netif_start_queue(netdev);
	axon_port_update(eth->adev);
	return 0;
}

static int axon_eth_stop(struct net_device *netdev)
{
	struct axon_eth *eth = netdev_priv(netdev);

	netif_stop_queue(netdev);
	axon_eth_halt(eth);
	axon_port_update(eth->adev);
	return 0;
}

static int axon_eth_change_mtu(struct net_device *netdev, int mtu)
{
	struct axon_eth *eth = netdev_priv(netdev);
	int old_mtu = netdev->mtu;
	int err;

	if (!netif_running(netdev)) {
		WRITE_ONCE(netdev->mtu, mtu);
		return 0;
	}
	/* the rings are rebuilt with buffers for the new MTU */
	netif_tx_disable(netdev);
	axon_eth_halt(eth);
	WRITE_ONCE(netdev->mtu, mtu);
	err = axon_eth_start(eth);
	if (err) {
		WRITE_ONCE(netdev->mtu, old_mtu);
		if (axon_eth_start(eth)) {
			/* the rings stay down until the next open */
			netdev_err(netdev, "cannot restart after MTU change\n");
			return err;
		}
	}
	netif_wake_queue(netdev);
	return err;
}

static void axon_eth_get_stats64(struct net_device *netdev,
				 struct rtnl_link_stats64 *stats)
{
	struct axon_eth *eth = netdev_priv(netdev);
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&eth->syncp);
		stats->rx_packets = eth->rx_packets;
		stats->rx_bytes = eth->rx_bytes;
		stats->tx_packets = eth->tx_packets;
		stats->tx_bytes = eth->tx_bytes;
		stats->tx_errors = eth->tx_errors;
		stats->rx_errors = eth->rx_errors;
	} while (u64_stats_fetch_retry(&eth->syncp, start));
	stats->rx_missed_errors = axon_rd(eth->adev, AXON_REG_STAT_RX_NOBUF);
	stats->rx_length_errors = axon_rd(eth->adev, AXON_REG_STAT_RX_RUNT) +
				  axon_rd(eth->adev, AXON_REG_STAT_RX_OVERSIZE);
}

static const struct net_device_ops axon_netdev_ops = {
	.ndo_open = axon_eth_open,
	.ndo_stop = axon_eth_stop,
	.ndo_start_xmit = axon_start_xmit,
	.ndo_change_mtu = axon_eth_change_mtu,
	.ndo_get_stats64 = axon_eth_get_stats64,
	.ndo_set_rx_mode = axon_eth_set_rx_mode,
	.ndo_validate_addr = eth_validate_addr,
};

/* ---- ethtool ------------------------------------------------------------- */

struct axon_eth_stat {
	char name[ETH_GSTRING_LEN];
	size_t offset;		/* in struct axon_eth, or ~0 for a register */
	enum axon_reg reg;
};

#define AXON_SW_STAT(n) { #n, offsetof(struct axon_eth, n), 0 }
#define AXON_HW_STAT(n, r) { n, SIZE_MAX, r }

static const struct axon_eth_stat axon_eth_stats[] = {
	AXON_SW_STAT(rx_packets),
	AXON_SW_STAT(rx_bytes),
	AXON_SW_STAT(tx_packets),
	AXON_SW_STAT(tx_bytes),
	AXON_SW_STAT(rx_errors),
	AXON_SW_STAT(tx_errors),
	AXON_SW_STAT(rx_alloc_errors),
	AXON_HW_STAT("dev_rx_no_buffer", AXON_REG_STAT_RX_NOBUF),
	AXON_HW_STAT("dev_rx_runt", AXON_REG_STAT_RX_RUNT),
	AXON_HW_STAT("dev_rx_oversize", AXON_REG_STAT_RX_OVERSIZE),
	AXON_HW_STAT("dev_rx_rocev2", AXON_REG_STAT_RX_ROCE),
	AXON_HW_STAT("dev_rx_dma_errors", AXON_REG_STAT_RX_DMA_ERRORS),
	AXON_HW_STAT("dev_rx_mc_filtered", AXON_REG_STAT_RX_MC_FILTERED),
	AXON_HW_STAT("dev_tx_errors", AXON_REG_STAT_TX_ERRORS),
};

static void axon_get_drvinfo(struct net_device *netdev,
			     struct ethtool_drvinfo *info)
{
	struct axon_eth *eth = netdev_priv(netdev);

	strscpy(info->driver, AXON_DRV_NAME, sizeof(info->driver));
	axon_fw_string(eth->adev->fw_version, info->fw_version,
		       sizeof(info->fw_version));
	strscpy(info->bus_info, pci_name(eth->adev->pdev),
		sizeof(info->bus_info));
}

static void axon_get_ringparam(struct net_device *netdev,
			       struct ethtool_ringparam *ring,
			       struct kernel_ethtool_ringparam *kring,
			       struct netlink_ext_ack *extack)
{
	ring->rx_max_pending = AXON_ETH_RING_DEPTH - 1;
	ring->tx_max_pending = AXON_ETH_RING_DEPTH - 1;
	ring->rx_pending = AXON_ETH_RING_DEPTH - 1;
	ring->tx_pending = AXON_ETH_RING_DEPTH - 1;
}

static int axon_get_sset_count(struct net_device *netdev, int sset)
{
	return sset == ETH_SS_STATS ? ARRAY_SIZE(axon_eth_stats) : -EOPNOTSUPP;
}

static void axon_get_strings(struct net_device *netdev, u32 sset, u8 *data)
{
	size_t i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < ARRAY_SIZE(axon_eth_stats); i++)
		memcpy(data + i * ETH_GSTRING_LEN, axon_eth_stats[i].name,
		       ETH_GSTRING_LEN);
}

static void axon_get_ethtool_stats(struct net_device *netdev,
				   struct ethtool_stats *stats, u64 *data)
{
	struct axon_eth *eth = netdev_priv(netdev);
	const struct axon_eth_stat *s;
	unsigned int start;
	size_t i;

	do {
		start = u64_stats_fetch_begin(&eth->syncp);
		for (i = 0; i < ARRAY_SIZE(axon_eth_stats); i++) {
			s = &axon_eth_stats[i];
			if (s->offset != SIZE_MAX)
				data[i] = *(u64 *)((u8 *)eth + s->offset);
		}
	} while (u64_stats_fetch_retry(&eth->syncp, start));
	for (i = 0; i < ARRAY_SIZE(axon_eth_stats); i++) {
		s = &axon_eth_stats[i];
		if (s->offset == SIZE_MAX)
			data[i] = axon_rd(eth->adev, s->reg);
	}
}

static int axon_get_link_ksettings(struct net_device *netdev,
				   struct ethtool_link_ksettings *cmd)
{
	ethtool_link_ksettings_zero_link_mode(cmd, supported);
	ethtool_link_ksettings_zero_link_mode(cmd, advertising);
	cmd->base.speed = netif_carrier_ok(netdev) ? AXON_ETH_SPEED_MBPS :
						     SPEED_UNKNOWN;
	cmd->base.duplex = netif_carrier_ok(netdev) ? DUPLEX_FULL :
						      DUPLEX_UNKNOWN;
	cmd->base.port = PORT_OTHER;
	cmd->base.autoneg = AUTONEG_DISABLE;
	return 0;
}

static const struct ethtool_ops axon_ethtool_ops = {
	.get_drvinfo = axon_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = axon_get_link_ksettings,
	.get_ringparam = axon_get_ringparam,
	.get_sset_count = axon_get_sset_count,
	.get_strings = axon_get_strings,
	.get_ethtool_stats = axon_get_ethtool_stats,
};

/* ---- create, destroy --------------------------------------------------- */

int axon_netdev_create(struct axon_dev *adev)
{
	struct net_device *netdev;
	struct axon_eth *eth;
	int err;

	netdev = alloc_etherdev(sizeof(*eth));
	if (!netdev)
		return -ENOMEM;
	SET_NETDEV_DEV(netdev, &adev->pdev->dev);
	eth = netdev_priv(netdev);
	eth->adev = adev;
	eth->netdev = netdev;
	eth->mcast = axon_rd(adev, AXON_REG_CAPS) & AXON_CAP_MCAST;
	u64_stats_init(&eth->syncp);

	netdev->netdev_ops = &axon_netdev_ops;
	netdev->ethtool_ops = &axon_ethtool_ops;
	netdev->min_mtu = AXON_ETH_MIN_MTU;
	netdev->max_mtu = AXON_ETH_MAX_MTU;
	if (is_valid_ether_addr(adev->attr.mac)) {
		eth_hw_addr_set(netdev, adev->attr.mac);
	} else {
		dev_warn(&adev->pdev->dev, "invalid MAC %pM, using a random one\n",
			 adev->attr.mac);
		eth_hw_addr_random(netdev);
	}
	netif_napi_add(netdev, &eth->napi, axon_napi_poll);
	netif_carrier_off(netdev);

	err = request_irq(pci_irq_vector(adev->pdev, AXON_MSIX_ETH),
			  axon_eth_irq, 0, "axon-eth", eth);
	if (err)
		goto err_free_netdev;
	/* visible to axon_port_update() before anyone can open it */
	mutex_lock(&adev->port_mutex);
	adev->netdev = netdev;
	mutex_unlock(&adev->port_mutex);
	err = register_netdev(netdev);
	if (err)
		goto err_clear_netdev;
	return 0;

err_clear_netdev:
	mutex_lock(&adev->port_mutex);
	adev->netdev = NULL;
	mutex_unlock(&adev->port_mutex);
	free_irq(pci_irq_vector(adev->pdev, AXON_MSIX_ETH), eth);
err_free_netdev:
	netif_napi_del(&eth->napi);
	free_netdev(netdev);
	return err;
}

void axon_netdev_destroy(struct axon_dev *adev)
{
	struct net_device *netdev = adev->netdev;
	struct axon_eth *eth = netdev_priv(netdev);

	unregister_netdev(netdev);
	mutex_lock(&adev->port_mutex);
	adev->netdev = NULL;
	mutex_unlock(&adev->port_mutex);
	free_irq(pci_irq_vector(adev->pdev, AXON_MSIX_ETH), eth);
	netif_napi_del(&eth->napi);
	free_netdev(netdev);
}
