// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * axon hw counters: the port's (rdma statistic, sysfs hw_counters), the
 * driver's on-demand paging counters among them, and the counters QPs
 * are bound to (rdma statistic qp set|bind), which are the device's
 * counter sets ("Counter sets" in axon_admin_cmds_defs.h).
 *
 * A counter has the port's layout, as the RDMA core adds counters to the
 * port's values index by index; it fills the entries a QP counts and
 * leaves the others 0. The device takes what a set counts out of the
 * port's registers, so the sum counts every packet once.
 */

#include <rdma/ib_verbs.h>
#include <rdma/rdma_counter.h>

#include "axon.h"
#include "axon_cmds.h"
#include "axon_dev_attr.h"

enum axon_hw_stat {
	/* 32-bit wrapping registers, in adev->stats_sum */
	AXON_STAT_TX_PKTS,
	AXON_STAT_RX_PKTS,
	AXON_STAT_RX_DROPS,
	AXON_STAT_RETRANSMITS,
	AXON_STAT_NAKS,
	AXON_STAT_DB_REJECTS,
	AXON_STAT_MR_INVALID,
	AXON_STAT_DUP_REQS,
	AXON_STAT_OUT_OF_SEQ,
	AXON_STAT_STRAY,
	AXON_STAT_QKEY_DROPS,
	AXON_STAT_UD_NOBUF,
	AXON_STAT_UC_DROPS,
	AXON_STAT_CNP_SENT,
	AXON_STAT_CNP_RCVD,
	AXON_STAT_ECN_MARKED,
	AXON_STAT_RUD_DROPS,
	AXON_STAT_RUD_DUPS,
	AXON_STAT_RUD_TRIMS,
	/* 64-bit registers */
	AXON_STAT_PEER_READ_BYTES,
	AXON_STAT_PEER_WRITE_BYTES,
	/* the driver's own: on-demand paging (axon_odp.c), 0 without it */
	AXON_STAT_ODP_FAULTS,
	AXON_STAT_ODP_FAULT_PAGES,
	AXON_STAT_ODP_FAILED_FAULTS,
	AXON_STAT_ODP_INVALIDATIONS,
	AXON_STAT_ODP_PREFETCHES,
	/* 32-bit wrapping, AXON_PLANE_STATS a plane, with more than one */
	AXON_STAT_PLANE0_TX_PKTS,
	AXON_NUM_HW_STATS = AXON_STAT_PLANE0_TX_PKTS +
			    AXON_PLANE_STATS * AXON_MAX_PLANES,
};

static_assert(AXON_STAT_RUD_TRIMS + 1 == AXON_NUM_WRAP_STATS);

static const struct rdma_stat_desc axon_hw_stat_descs[] = {
	[AXON_STAT_TX_PKTS] = { .name = "tx_pkts" },
	[AXON_STAT_RX_PKTS] = { .name = "rx_pkts" },
	[AXON_STAT_RX_DROPS] = { .name = "rx_drops" },
	[AXON_STAT_RETRANSMITS] = { .name = "retransmits" },
	[AXON_STAT_NAKS] = { .name = "naks" },
	[AXON_STAT_DB_REJECTS] = { .name = "db_rejects" },
	[AXON_STAT_MR_INVALID] = { .name = "mr_invalid_accesses" },
	[AXON_STAT_DUP_REQS] = { .name = "duplicate_requests" },
	[AXON_STAT_OUT_OF_SEQ] = { .name = "out_of_sequence" },
	[AXON_STAT_STRAY] = { .name = "stray_drops" },
	[AXON_STAT_QKEY_DROPS] = { .name = "qkey_drops" },
	[AXON_STAT_UD_NOBUF] = { .name = "ud_nobuf_drops" },
	[AXON_STAT_UC_DROPS] = { .name = "uc_drops" },
	[AXON_STAT_CNP_SENT] = { .name = "np_cnp_sent" },
	[AXON_STAT_CNP_RCVD] = { .name = "rp_cnp_received" },
	[AXON_STAT_ECN_MARKED] = { .name = "np_ecn_marked_roce_packets" },
	[AXON_STAT_RUD_DROPS] = { .name = "rud_drops" },
	[AXON_STAT_RUD_DUPS] = { .name = "rud_duplicates" },
	[AXON_STAT_RUD_TRIMS] = { .name = "rud_trimmed" },
	[AXON_STAT_PEER_READ_BYTES] = { .name = "peer_read_bytes" },
	[AXON_STAT_PEER_WRITE_BYTES] = { .name = "peer_write_bytes" },
	[AXON_STAT_ODP_FAULTS] = { .name = "odp_page_faults" },
	[AXON_STAT_ODP_FAULT_PAGES] = { .name = "odp_faulted_pages" },
	[AXON_STAT_ODP_FAILED_FAULTS] = { .name = "odp_failed_faults" },
	[AXON_STAT_ODP_INVALIDATIONS] = { .name = "odp_invalidations" },
	[AXON_STAT_ODP_PREFETCHES] = { .name = "odp_prefetches" },
	/* AXON_PLANE_STATS a plane, AXON_MAX_PLANES planes */
	[AXON_STAT_PLANE0_TX_PKTS] = { .name = "plane0_tx_pkts" },
	{ .name = "plane0_rx_pkts" },
	{ .name = "plane0_non_roce_drops" },
	{ .name = "plane1_tx_pkts" },
	{ .name = "plane1_rx_pkts" },
	{ .name = "plane1_non_roce_drops" },
	{ .name = "plane2_tx_pkts" },
	{ .name = "plane2_rx_pkts" },
	{ .name = "plane2_non_roce_drops" },
	{ .name = "plane3_tx_pkts" },
	{ .name = "plane3_rx_pkts" },
	{ .name = "plane3_non_roce_drops" },
};

static_assert(ARRAY_SIZE(axon_hw_stat_descs) == AXON_NUM_HW_STATS);
static_assert(AXON_STAT_ODP_PREFETCHES - AXON_STAT_ODP_FAULTS + 1 ==
	      AXON_ODP_NUM_STATS);

static const enum axon_reg axon_wrap_stat_regs[AXON_NUM_WRAP_STATS] = {
	[AXON_STAT_TX_PKTS] = AXON_REG_STAT_TX_PKTS,
	[AXON_STAT_RX_PKTS] = AXON_REG_STAT_RX_PKTS,
	[AXON_STAT_RX_DROPS] = AXON_REG_STAT_RX_DROPS,
	[AXON_STAT_RETRANSMITS] = AXON_REG_STAT_RETRANS,
	[AXON_STAT_NAKS] = AXON_REG_STAT_NAKS,
	[AXON_STAT_DB_REJECTS] = AXON_REG_STAT_DB_REJECTS,
	[AXON_STAT_MR_INVALID] = AXON_REG_STAT_MR_INVALID,
	[AXON_STAT_DUP_REQS] = AXON_REG_STAT_DUP_REQS,
	[AXON_STAT_OUT_OF_SEQ] = AXON_REG_STAT_OUT_OF_SEQ,
	[AXON_STAT_STRAY] = AXON_REG_STAT_STRAY,
	/* without AXON_CAP_UD or _UC these read as zero, as every hole does */
	[AXON_STAT_QKEY_DROPS] = AXON_REG_STAT_QKEY_DROPS,
	[AXON_STAT_UD_NOBUF] = AXON_REG_STAT_UD_NOBUF,
	[AXON_STAT_UC_DROPS] = AXON_REG_STAT_UC_DROPS,
	/* without AXON_CAP_CC as well */
	[AXON_STAT_CNP_SENT] = AXON_REG_STAT_CNP_SENT,
	[AXON_STAT_CNP_RCVD] = AXON_REG_STAT_CNP_RCVD,
	[AXON_STAT_ECN_MARKED] = AXON_REG_STAT_ECN_MARKED,
	/* without AXON_CAP_RUD as well */
	[AXON_STAT_RUD_DROPS] = AXON_REG_STAT_RUD_DROPS,
	[AXON_STAT_RUD_DUPS] = AXON_REG_STAT_RUD_DUPS,
	/* without AXON_CAP_RUD_TRIM as well */
	[AXON_STAT_RUD_TRIMS] = AXON_REG_STAT_RUD_TRIMS,
};

/* The ith of the planes' counters: TX, RX, drops of plane 0, then 1... */
static u32 axon_rd_plane_stat(struct axon_dev *adev, unsigned int i)
{
	unsigned int k = i / AXON_PLANE_STATS;

	switch (i % AXON_PLANE_STATS) {
	case 0:
		return axon_rd(adev, AXON_REG_STAT_PLANE_TX(k));
	case 1:
		return axon_rd(adev, AXON_REG_STAT_PLANE_RX(k));
	default:
		return axon_rd(adev, AXON_REG_STAT_PLANE_DROPS(k));
	}
}

/* The planes' counters only where there is more than one plane. */
static unsigned int axon_num_hw_stats(struct axon_dev *adev)
{
	if (adev->planes < 2)
		return AXON_STAT_PLANE0_TX_PKTS;
	return AXON_STAT_PLANE0_TX_PKTS + AXON_PLANE_STATS * adev->planes;
}

struct rdma_hw_stats *axon_alloc_hw_port_stats(struct ib_device *ibdev,
					       u32 port)
{
	return rdma_alloc_hw_stats_struct(axon_hw_stat_descs,
					  axon_num_hw_stats(to_adev(ibdev)),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/* A LO/HI register pair: HI, LO, HI again until HI holds still. */
static u64 axon_rd64(struct axon_dev *adev, enum axon_reg lo, enum axon_reg hi)
{
	u32 h, l, h2 = axon_rd(adev, hi);

	do {
		h = h2;
		l = axon_rd(adev, lo);
		h2 = axon_rd(adev, hi);
	} while (h != h2);
	return AXON_REG_U64(h, l);
}

int axon_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		      u32 port, int index)
{
	struct axon_dev *adev = to_adev(ibdev);
	unsigned int n = axon_num_hw_stats(adev), i, w;

	spin_lock(&adev->stats_lock);
	for (i = 0; i < AXON_NUM_WRAP_STATS; i++)
		stats->value[i] = axon_counter_widen(&adev->stats_sum[i],
						     &adev->stats_last[i],
						     axon_rd(adev, axon_wrap_stat_regs[i]));
	for (i = 0; i + AXON_STAT_PLANE0_TX_PKTS < n; i++) {
		w = AXON_NUM_WRAP_STATS + i;
		stats->value[AXON_STAT_PLANE0_TX_PKTS + i] =
			axon_counter_widen(&adev->stats_sum[w],
					   &adev->stats_last[w],
					   axon_rd_plane_stat(adev, i));
	}
	spin_unlock(&adev->stats_lock);
	stats->value[AXON_STAT_PEER_READ_BYTES] =
		axon_rd64(adev, AXON_REG_STAT_PEER_RD_LO,
			  AXON_REG_STAT_PEER_RD_HI);
	stats->value[AXON_STAT_PEER_WRITE_BYTES] =
		axon_rd64(adev, AXON_REG_STAT_PEER_WR_LO,
			  AXON_REG_STAT_PEER_WR_HI);
	for (i = 0; i < AXON_ODP_NUM_STATS; i++)
		stats->value[AXON_STAT_ODP_FAULTS + i] =
			atomic64_read(&adev->odp_stats[i]);
	return n;
}

static struct rdma_hw_stats *axon_counter_alloc_stats(struct rdma_counter *counter)
{
	return axon_alloc_hw_port_stats(counter->device, counter->port);
}

/* A counter is a device counter set from its first QP on (counter->id). */
static int axon_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *qp)
{
	struct axon_dev *adev = to_adev(qp->device);
	bool new = !counter->id;
	u32 set = counter->id;
	int err;

	if (new) {
		err = axon_cmd_counter_set(&adev->aq, AXON_ADMIN_ALLOC_COUNTER_SET,
					   0, 0, NULL, &set);
		if (err)
			return err;
	}
	err = axon_cmd_counter_set(&adev->aq, AXON_ADMIN_BIND_COUNTER_SET, set,
				   qp->qp_num, NULL, NULL);
	if (err) {
		if (new)
			axon_cmd_counter_set(&adev->aq,
					     AXON_ADMIN_FREE_COUNTER_SET, set, 0,
					     NULL, NULL);
		return err;
	}
	counter->id = set;
	qp->counter = counter;
	return 0;
}

/* The core keeps qp->counter, the counter's QPs, as the driver sets it. */
static int axon_counter_unbind_qp(struct ib_qp *qp)
{
	struct axon_dev *adev = to_adev(qp->device);
	int err;

	err = axon_cmd_counter_set(&adev->aq, AXON_ADMIN_BIND_COUNTER_SET, 0,
				   qp->qp_num, NULL, NULL);
	if (!err)
		qp->counter = NULL;
	return err;
}

static int axon_counter_dealloc(struct rdma_counter *counter)
{
	struct axon_dev *adev = to_adev(counter->device);

	if (!counter->id)
		return 0;
	return axon_cmd_counter_set(&adev->aq, AXON_ADMIN_FREE_COUNTER_SET,
				    counter->id, 0, NULL, NULL);
}

static int axon_counter_update_stats(struct rdma_counter *counter)
{
	struct axon_dev *adev = to_adev(counter->device);
	struct rdma_hw_stats *stats = counter->stats;
	struct axon_qp_counters c;
	int err;

	if (!counter->id)
		return 0;
	err = axon_cmd_counter_set(&adev->aq, AXON_ADMIN_QUERY_COUNTER_SET,
				   counter->id, 0, &c, NULL);
	if (err)
		return err;
	stats->value[AXON_STAT_TX_PKTS] = le64_to_cpu(c.tx_pkts);
	stats->value[AXON_STAT_RX_PKTS] = le64_to_cpu(c.rx_pkts);
	stats->value[AXON_STAT_RETRANSMITS] = le64_to_cpu(c.retrans);
	stats->value[AXON_STAT_NAKS] = le64_to_cpu(c.seq_naks_sent) +
				       le64_to_cpu(c.rnr_naks_sent) +
				       le64_to_cpu(c.err_naks_sent) +
				       le64_to_cpu(c.seq_naks_rcvd) +
				       le64_to_cpu(c.rnr_naks_rcvd) +
				       le64_to_cpu(c.err_naks_rcvd);
	stats->value[AXON_STAT_DUP_REQS] = le64_to_cpu(c.dup_reqs);
	stats->value[AXON_STAT_OUT_OF_SEQ] = le64_to_cpu(c.out_of_seq);
	stats->value[AXON_STAT_STRAY] = le64_to_cpu(c.stray);
	return 0;
}

/* With AXON_CAP_COUNTER_SETS */
const struct ib_device_ops axon_counter_ops = {
	.counter_alloc_stats = axon_counter_alloc_stats,
	.counter_bind_qp = axon_counter_bind_qp,
	.counter_dealloc = axon_counter_dealloc,
	.counter_unbind_qp = axon_counter_unbind_qp,
	.counter_update_stats = axon_counter_update_stats,
};
