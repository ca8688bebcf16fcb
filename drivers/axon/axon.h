/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * axon: driver-wide state shared by the PCI, admin queue, event queue and
 * verbs layers.
 */
#ifndef _AXON_H_
#define _AXON_H_

#include <linux/idr.h>
#include <linux/pci.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include <axon/axon_dev.h>

#include "axon_admin.h"
#include "axon_ah_attr.h"
#include "axon_compat.h"
#include "axon_eq.h"
#include "axon_mr_attr.h"

#define AXON_DRV_NAME "axon"
#define AXON_PORT 1
#define AXON_MAX_GIDS 256
/*
 * Address handles are the driver's alone (the device has no AH objects):
 * the limit bounds the kernel memory a process can tie up in them, far
 * above what a UD application has peers.
 */
#define AXON_MAX_AH 65536
/* 32-bit wrapping device counters shown as rdma hw counters: the port's */
#define AXON_NUM_WRAP_STATS 19
/* ... and each plane's, with AXON_CAP_PLANES: tx, rx, drops */
#define AXON_PLANE_STATS 3
#define AXON_NUM_ALL_WRAP_STATS \
	(AXON_NUM_WRAP_STATS + AXON_PLANE_STATS * AXON_MAX_PLANES)

/* The driver's on-demand paging counters, also rdma hw counters. */
enum axon_odp_stat {
	AXON_ODP_FAULTS,		/* page fault events handled */
	AXON_ODP_FAULT_PAGES,		/* pages they mapped */
	AXON_ODP_FAILED_FAULTS,		/* faults answered RESUME_FAILED */
	AXON_ODP_INVALIDATIONS,		/* UNMAP_PAGES for the MMU notifier */
	AXON_ODP_PREFETCHES,		/* advise_mr ranges mapped */
	AXON_ODP_NUM_STATS,
};

/*
 * The capabilities of every port; QP1's come on top (axon_verbs.c). The
 * device speaks RoCE v2 only (no RoCE v1: Ethernet type 0x8915), so the
 * core lists only RoCE v2 GIDs, and every GID it lists works.
 */
#define AXON_PORT_CORE_CAPS (RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP | \
			     RDMA_CORE_CAP_ETH_AH)

struct axon_dev {
	struct ib_device ibdev;
	struct pci_dev *pdev;
	void __iomem *regs;

	struct axon_admin_queue aq;
	struct axon_eq eq;

	/* AXON_CAP_RDMA: MRs, CQs, QPs; without it only PDs */
	bool roce;			/* devlink's enable_roce: an ib_device */
	bool rdma;
	bool peer_mr;			/* AXON_CAP_PEER_MR: dma-buf MRs */
	bool srq;			/* AXON_CAP_SRQ */
	bool ud;			/* AXON_CAP_UD: UD QPs, AHs */
	bool mw;			/* AXON_CAP_MW: memory windows */
	bool uc;			/* AXON_CAP_UC: UC QPs */
	bool rud;			/* AXON_CAP_RUD: RUD driver QPs */
	bool gsi;			/* AXON_CAP_GSI: QP1, for the CM */
	bool mcast;			/* AXON_CAP_MCAST: UD multicast groups */
	bool xrc;			/* AXON_CAP_XRC: XRCDs, XRC QPs and SRQs */
	bool odp;			/* AXON_CAP_ODP, and the kernel's ODP */
	bool fast_reg;			/* AXON_CAP_FAST_REG: alloc_mr, REG_MR */
	bool resize_cq;			/* AXON_CAP_RESIZE_CQ */
	bool rereg_mr;			/* AXON_CAP_REREG_MR */
	bool cq_pages;			/* AXON_CAP_CQ_PAGES: paged user CQs */
	bool clock;			/* AXON_CAP_CLOCK: CQE timestamps */
	bool qp_live;			/* AXON_CAP_QP_LIVE: QUERY_QP_LIVE */
	bool wire_test;			/* AXON_CAP_WIRE_TEST: the model's */
	bool counter_sets;		/* AXON_CAP_COUNTER_SETS */
	bool qp_cur_state;		/* AXON_CAP_QP_CUR_STATE */
	bool sq_dbrec;			/* AXON_CAP_SQ_DBREC */
	u32 planes;			/* AXON_CAP_PLANES: AXON_REG_PLANES', or 1 */
	phys_addr_t clock_phys;		/* its clock page in BAR 0 */
	struct axon_eq ceq;
	void __iomem *db;		/* doorbell page 0, the kernel's */
	phys_addr_t db_phys;		/* BAR AXON_BAR_DB */
	u32 db_pages;
	struct ida uar_ida;		/* doorbell pages of user contexts */
	struct ida xrcd_ida;		/* XRC domain numbers: the driver's */
	struct xarray cqs;		/* cqn -> struct axon_cq, for events */
	struct xarray qps;		/* qpn -> struct axon_qp */
	struct xarray srqs;		/* srqn -> struct axon_srq */
	atomic_t ah_count;		/* address handles, <= AXON_MAX_AH */
	/* on-demand paging MRs (axon_odp.c) */
	struct mutex odp_mutex;		/* odp_mrs; keeps an MR found alive */
	struct xarray odp_mrs;		/* key index -> struct axon_mr */
	atomic64_t odp_stats[AXON_ODP_NUM_STATS];
	/* MR pages the device may still use: released after its reset */
	spinlock_t orphan_lock;
	struct list_head orphan_umems;	/* struct axon_umem_orphan */

	struct net_device *netdev;	/* the Ethernet function */

	struct axon_dev_attr attr;	/* from QUERY_DEVICE, little endian */
	u32 max_cq;			/* the device's, within the CEQ */
	atomic_t ncqs;			/* CQs, up to max_cq */
	u32 fw_version;
	enum ib_mtu max_mtu;		/* the port's, from QUERY_PORT */
	struct mutex port_mutex;	/* netdev, link_up, port_state, registered */
	bool link_up;			/* the wire, as the device reports it */
	enum ib_port_state port_state;	/* the RoCE port, as reported to the core */
	bool registered;		/* the ib_device is visible */
	bool fatal;			/* DEVICE_FATAL reported */
	bool events_off;		/* teardown: ignore async events */
	bool dying;			/* being removed: no CQE will come */
	struct work_struct fatal_work;	/* an admin command timed out */
	struct devlink_health_reporter *fw_fatal;	/* the devlink's */
	struct list_head nl_node;	/* in axon_netlink.c's device list */

	/* rdma hw counters: 32-bit device registers widened to 64 bits */
	spinlock_t stats_lock;		/* stats_last, stats_sum */
	u32 stats_last[AXON_NUM_ALL_WRAP_STATS];
	u64 stats_sum[AXON_NUM_ALL_WRAP_STATS];
};

struct axon_ucontext {
	struct ib_ucontext ibucontext;
	u32 uar;			/* its doorbell page, 0: none */
	struct rdma_user_mmap_entry *db_entry;
	struct rdma_user_mmap_entry *clock_entry; /* NULL: no clock */
};

struct axon_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

/*
 * Kernel-allocated queue memory: physically contiguous, zeroed, mapped
 * for the device; coherent for kernel queues. A user queue's pages are
 * also mapped into the process; they then belong to the mmap entry (see
 * axon_mmap.c).
 */
struct axon_qmem {
	void *va;
	dma_addr_t dma;			/* contiguous queues */
	size_t size;			/* page aligned */
	bool user;			/* pages, mapped for streaming DMA */
	struct rdma_user_mmap_entry *entry;	/* user queues */
	dma_addr_t *page_dma;		/* paged queues: each page's */
	size_t npages;
};

/*
 * An XRC domain: a number the driver draws (see axon_xrcd.c); the device
 * keeps no XRCD objects, only the number in XRC SRQs and target QPs.
 */
struct axon_xrcd {
	struct ib_xrcd ibxrcd;
	u32 xrcdn;
};

/* A memory window: the device keeps all of it (see axon_mw.c). */
struct axon_mw {
	struct ib_mw ibmw;
};

struct axon_cq {
	struct ib_cq ibcq;
	u32 cqn;
	u32 depth;
	u8 flags;			/* AXON_CQ_TIMESTAMP: CQEs of 64 bytes */
	struct axon_qmem mem;
	struct mutex resize_mutex;	/* one RESIZE_CQ at a time */
	/* kernel CQs */
	spinlock_t lock;		/* cons, polling, the ring's place */
	u32 cons;			/* CQEs consumed, free running */
};

/* A send or receive queue. head and tail are used by kernel QPs only. */
struct axon_wq {
	struct axon_qmem mem;
	u32 depth;
	u8 wqe_shift;
	u32 max_sge;
	spinlock_t lock;		/* head, posting */
	u16 head;			/* WQEs posted, free running */
	u16 tail;			/* WQEs completed, free running */
};

/*
 * A shared receive queue. Its QPs take WQEs in ring order but complete
 * them in any order, so for a kernel SRQ wq.tail counts completions: a
 * slot is free once fewer than depth WQEs are not completed (the device
 * copies a WQE when it takes it).
 */
struct axon_srq {
	struct ib_srq ibsrq;
	u32 srqn;
	struct axon_wq wq;
	bool kernel;
};

/*
 * A QP. An XRC initiator has no RQ, an XRC target no queue, CQ or PD at
 * all (axon_qp_has_sq(), axon_qp_has_rq()): their wqs stay zeroed.
 */
struct axon_qp {
	struct ib_qp ibqp;
	u32 qpn;
	struct axon_wq sq;
	struct axon_wq rq;		/* unused with an SRQ */
	struct axon_srq *srq;
	u32 xrcdn;			/* an XRC target's domain, else 0 */
	u32 max_inline;
	bool sig_all;
	bool kernel;			/* a kernel consumer's: posted here */
	struct mutex state_mutex;	/* state, dest_qpn: modify_qp */
	enum ib_qp_state state;		/* as last set or seen; the device may move it to ERR */
	u32 dest_qpn;
	/* on-demand paging: the QP's one page fault at a time (axon_odp.c) */
	struct work_struct odp_work;
	u64 odp_fault;			/* the AXON_EVENT_PAGE_FAULT's data */
};

static inline struct axon_dev *to_adev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct axon_dev, ibdev);
}

static inline struct axon_pd *to_apd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct axon_pd, ibpd);
}

static inline struct axon_ucontext *to_auctx(struct ib_ucontext *ibuctx)
{
	return container_of(ibuctx, struct axon_ucontext, ibucontext);
}

static inline struct axon_cq *to_acq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct axon_cq, ibcq);
}

static inline struct axon_srq *to_asrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct axon_srq, ibsrq);
}

static inline struct axon_qp *to_aqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct axon_qp, ibqp);
}

static inline struct axon_xrcd *to_axrcd(struct ib_xrcd *ibxrcd)
{
	return container_of(ibxrcd, struct axon_xrcd, ibxrcd);
}

/* Whether @qp has a send queue: all but an XRC target. */
static inline bool axon_qp_has_sq(const struct axon_qp *qp)
{
	return qp->ibqp.qp_type != IB_QPT_XRC_TGT;
}

/* Whether @qp has a receive queue of its own: no SRQ, not XRC. */
static inline bool axon_qp_has_rq(const struct axon_qp *qp)
{
	return !qp->srq && qp->ibqp.qp_type != IB_QPT_XRC_INI &&
	       qp->ibqp.qp_type != IB_QPT_XRC_TGT;
}

static inline u32 axon_rd(struct axon_dev *adev, enum axon_reg reg)
{
	return readl(adev->regs + reg);
}

static inline void axon_wr(struct axon_dev *adev, enum axon_reg reg, u32 val)
{
	writel(val, adev->regs + reg);
}

/*
 * Whether the memory of an object whose destroy command returned @err may
 * be freed: on success, or when the device is known dead (its admin queue
 * failed before the command, or it left the bus). Any other answer means
 * device and driver disagree, and one that timed out may wake up: the
 * device may still DMA into the memory, which must be leaked.
 */
static inline bool axon_destroyed(struct axon_dev *adev, int err)
{
	return !err || pci_channel_offline(adev->pdev) ||
	       (err == -EIO && READ_ONCE(adev->aq.failed));
}

/* axon_netdev.c */
int axon_netdev_create(struct axon_dev *adev);
void axon_netdev_destroy(struct axon_dev *adev);

/* Kernel doorbells: page 0, one 32-bit write to doorbell reg (AXON_DB_*). */
static inline void axon_ring_db(struct axon_dev *adev, u32 reg, u32 id,
				u32 value)
{
	/* writel orders prior ring writes before the doorbell */
	writel(AXON_DB_WORD(id, value), adev->db + AXON_DB_OFFSET(reg, id));
}

/*
 * axon_main.c: the device's functions, up and down: at probe and remove,
 * and around a devlink reload
 */
struct axon_dev_params {
	bool roce;			/* enable_roce: the RDMA device */
	u32 eq_depth;			/* event_eq_size: async events */
	u32 ceq_depth;			/* io_eq_size: completion events */
};

int axon_dev_up(struct pci_dev *pdev, const struct axon_dev_params *params,
		struct devlink_health_reporter *fw_fatal, struct axon_dev **out);
void axon_dev_down(struct axon_dev *adev);

/*
 * axon_devlink.c: the PCI function's devlink instance, which outlives the
 * axon_dev it brings up and down; recovery through devlink health
 */
extern struct workqueue_struct *axon_wq;	/* the module's: recovery */
int axon_devlink_probe(struct pci_dev *pdev);
void axon_devlink_remove(struct pci_dev *pdev);
void axon_devlink_fatal(struct axon_dev *adev, const char *reason);

/* axon_netlink.c: the axon generic netlink family, for axonctl */
int axon_nl_init(void);
void axon_nl_exit(void);
void axon_nl_dev_add(struct axon_dev *adev);
void axon_nl_dev_del(struct axon_dev *adev);

/* axon_mmap.c */
int axon_qmem_alloc(struct axon_dev *adev, struct axon_qmem *mem, size_t size,
		    bool user);
int axon_qmem_alloc_paged(struct axon_dev *adev, struct axon_qmem *mem,
			  size_t size);
void axon_qmem_free(struct axon_dev *adev, struct axon_qmem *mem);
int axon_qmem_expose(struct axon_ucontext *uctx, struct axon_qmem *mem,
		     u64 *key);
int axon_alloc_uar(struct axon_dev *adev, struct axon_ucontext *uctx);
void axon_free_uar(struct axon_dev *adev, struct axon_ucontext *uctx);
int axon_expose_clock(struct axon_dev *adev, struct axon_ucontext *uctx);
int axon_mmap(struct ib_ucontext *ibuctx, struct vm_area_struct *vma);
void axon_mmap_free(struct rdma_user_mmap_entry *rdma_entry);
void axon_sync_events(struct axon_dev *adev);

/* axon_mr.c */
int axon_check_mr_args(struct axon_dev *adev, u64 start, u64 length,
		       u64 virt_addr, int access, struct ib_udata *udata);
unsigned long axon_mr_pgsz_bitmap(struct axon_dev *adev);
u32 axon_dma_mr_bits(struct axon_dev *adev);
void axon_umem_orphan(struct axon_dev *adev, struct ib_umem *umem);
void axon_release_orphan_umems(struct axon_dev *adev);
struct ib_mr *axon_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *axon_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			       u64 virt_addr, int access,
			       struct ib_udata *udata);
struct ib_mr *axon_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
				      u64 length, u64 virt_addr, int fd,
				      int access, struct ib_udata *udata);
struct ib_mr *axon_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				 u64 length, u64 virt_addr, int access,
				 struct ib_pd *ibpd, struct ib_udata *udata);
int axon_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
u32 axon_fr_max_pages(struct axon_dev *adev);
struct ib_mr *axon_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type mr_type,
			    u32 max_num_sg);
int axon_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset);

/* axon_xrcd.c */
int axon_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
int axon_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);

/* axon_mw.c */
int axon_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int axon_dealloc_mw(struct ib_mw *ibmw);

/* axon_ah.c */
int axon_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		   struct ib_udata *udata);
int axon_destroy_ah(struct ib_ah *ibah, u32 flags);

/* axon_mcast.c */
int axon_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int axon_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);

/* axon_cq.c */
int axon_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct ib_udata *udata);
int axon_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int axon_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int axon_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int axon_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
void axon_cq_event(struct axon_dev *adev, u32 cqn);
void axon_cqs_mark_dead(struct axon_dev *adev);
void axon_cq_comp_event(struct axon_dev *adev, u32 cqn);

/* axon_res.c: details for rdma res show -dd */
int axon_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int axon_fill_res_qp_entry_raw(struct sk_buff *msg, struct ib_qp *ibqp);
int axon_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);
int axon_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr);

/* axon_wq.c: the WQE rings of QPs and SRQs, @tail bytes after the ring */
int axon_wq_alloc(struct axon_dev *adev, struct axon_wq *wq, u32 depth,
		  u8 wqe_shift, u32 max_sge, bool user, size_t tail);
bool axon_wq_dbrec_fits(u32 depth, u8 wqe_shift);
void *axon_wq_slot(struct axon_wq *wq);
bool axon_wq_full(struct axon_wq *wq);

/* axon_qp.c */
int axon_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		   struct ib_udata *udata);
int axon_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata);
int axon_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init_attr);
int axon_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int axon_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr);
int axon_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr);
void axon_qp_event(struct axon_dev *adev, u32 qpn, u16 type);
bool axon_qp_completed(struct axon_qp *qp, bool recv, u16 wqe_index);

/* axon_srq.c */
int axon_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init_attr,
		    struct ib_udata *udata);
int axon_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata);
int axon_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int axon_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int axon_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr);
void axon_srq_event(struct axon_dev *adev, u32 srqn);
bool axon_srq_completed(struct axon_srq *srq, u16 wqe_index);
void axon_srq_forget(struct axon_srq *srq, u32 n);

/* axon_port.c: the RoCE port's state and active MTU */
enum ib_mtu axon_active_mtu(struct axon_dev *adev);
void axon_port_update_locked(struct axon_dev *adev);
void axon_set_link(struct axon_dev *adev, bool up);
void axon_port_update(struct axon_dev *adev);

/* axon_verbs.c */
int axon_ib_register(struct axon_dev *adev);
void axon_ib_unregister(struct axon_dev *adev);
void axon_ib_fatal_event(struct axon_dev *adev);

/* axon_stats.c */
struct rdma_hw_stats *axon_alloc_hw_port_stats(struct ib_device *ibdev,
					       u32 port);
int axon_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		      u32 port, int index);
extern const struct ib_device_ops axon_counter_ops;

#endif /* _AXON_H_ */
