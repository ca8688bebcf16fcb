/*
 * axon engine: the engine's objects, internal to it
 *
 *   axon-engine.c  the engine as a whole: create, reset, counters
 *   axon-doorbell.c doorbells
 *   axon-cq.c      CQs, the CQE writer and CQ events
 *   axon-qp.c      QPs and their state machine, QP events
 *   axon-srq.c     shared receive queues
 *   axon-mr.c      PDs, MRs and keys, memory access through keys
 *   axon-mr-wqe.c  fast registration, memory windows, rkeys
 *   axon-gid.c     the GID table
 *   axon-counters.c counter sets
 *   axon-mcast.c   multicast groups
 *   axon-table.c   tables of objects by number (axon-table.h)
 *   axon-roce*.c   the transports (axon-roce.h), below the QP layer
 *
 * The structs here are the device's own copies of what the driver
 * programmed, validated once when they were created or fetched.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AXON_RDMA_H
#define AXON_RDMA_H

#include <sys/queue.h>

#include "axon-engine.h"
#include "axon-table.h"
#include "axon-util.h"

#define AXON_RDMA_FIRST_QPN     2
#define AXON_RDMA_QP_SLOTS      (AXON_RDMA_FIRST_QPN + AXON_RDMA_MAX_QP)
#define AXON_RDMA_MAX_PBL_PAGES (1ULL << 25) /* page list entries, all MRs */
#define AXON_RDMA_MAX_CQ_PAGES  (1ULL << 22) /* pages of paged CQ rings */
#define AXON_RDMA_WINDOW        128     /* send WQEs in flight per QP */
#define AXON_RDMA_MAX_MTU       4096

/*
 * A memory region: a copy of its page list, valid (allocated) until
 * DESTROY_MR. INVALIDATE_MR keeps the key but refuses every access until
 * REMAP_MR gives it new pages. A memory window (mw_type 1 or 2) is a slot
 * of the same table: a range of its parent MR, for remote access, while
 * bound.
 */
typedef struct AxonMr {
    uint32_t idx;               /* its key slot, 1 .. AXON_RDMA_MAX_MR */
    bool invalidated;
    bool peer;                  /* pages in another PCI device's memory */
    bool fast_reg;              /* registered by WQEs, max_pages at most */
    uint8_t mw_type;            /* 1, 2: a window; 0: an MR */
    bool odp;                   /* on-demand paging: pages come and go */
    bool bound;                 /* a window's: iova, length, access hold */
    uint32_t parent;            /* a bound window's MR slot */
    uint32_t bound_qpn;         /* a bound type 2 window answers it only */
    uint32_t windows;           /* an MR's: windows bound to it */
    uint8_t tag;
    uint8_t page_shift;
    uint32_t pdn;
    uint32_t access;
    uint64_t iova;
    uint64_t length;
    uint64_t first_off;         /* iova's offset in the first page */
    uint32_t npages;
    uint32_t max_pages;         /* fast_reg: the capacity of pages */
    /* bus addresses, host order; odp: with AXON_ODP_PAGE_* in low bits */
    uint64_t *pages;
} AxonMr;

/* May the device touch page pg of mr (write it, if write)? */
static inline bool axon_mr_page_ok(const AxonMr *mr, uint64_t pg, bool write)
{
    uint64_t need = AXON_ODP_PAGE_PRESENT | (write ? AXON_ODP_PAGE_WRITE : 0);

    return !mr->odp || (mr->pages[pg] & need) == need;
}

/* The bus address of page pg of mr. */
static inline uint64_t axon_mr_page(const AxonMr *mr, uint64_t pg)
{
    return mr->pages[pg] & ~((1ULL << mr->page_shift) - 1);
}

/* A CQ's ring and its consumer index record: contiguous or in pages. */
typedef struct AxonCqRing {
    uint64_t base;              /* contiguous: bus address */
    uint64_t *pages;            /* paged: 4 KiB pages, host order */
    uint32_t npages;
    uint32_t depth;
    uint8_t flags;              /* AXON_CQ_TIMESTAMP or 0 */
    uint32_t cqe_size;          /* AXON_CQ_CQE_SIZE(flags) */
} AxonCqRing;

typedef struct AxonCq {
    uint32_t cqn;
    AxonCqRing ring;
    uint32_t uar;
    uint32_t prod;              /* CQEs written, free running */
    uint32_t cons_seen;         /* last consumer index read from the dbrec */
    uint32_t arm;               /* 0 or AXON_CQ_ARM_* */
    bool ev_owed;               /* its event found the CEQ full */
    TAILQ_ENTRY(AxonCq) owed_link;      /* on AxonEngine.ev_owed */
    uint32_t users;             /* QPs completing to it */
    bool overflowed;
} AxonCq;

/* A work queue in host memory. */
typedef struct AxonWq {
    uint64_t base;
    uint32_t depth;
    uint8_t shift;
    uint16_t pi;                /* producer, from the doorbell */
    uint16_t ci;                /* next WQE the device takes */
} AxonWq;

/*
 * A shared receive queue: its QPs take receive WQEs from it in ring
 * order, wq.ci being the next one any of them takes.
 */
typedef struct AxonSrq {
    uint32_t srqn;
    uint32_t pdn;               /* the receive WQEs' lkeys are in it */
    uint32_t uar;
    AxonWq wq;
    uint32_t limit;             /* not 0: an event when fewer WQEs remain */
    uint32_t users;             /* QPs attached */
    uint32_t xrcdn;             /* an XRC SRQ's domain; 0: a basic SRQ */
    AxonCq *cq;                 /* an XRC SRQ's receive completions */
} AxonSrq;

typedef struct AxonSge {
    uint64_t addr;
    uint32_t length;
    uint32_t lkey;
} AxonSge;

/* The device's copy of a send WQE it has taken from the SQ. */
typedef struct AxonSwqe {
    uint16_t idx;               /* producer index of the WQE */
    uint8_t opcode;             /* enum axon_wr_opcode */
    uint8_t flags;              /* AXON_WQE_* */
    uint8_t num_sge;
    uint8_t status;             /* enum axon_wc_status, when done */
    bool done;
    bool signaled;
    uint32_t imm;               /* network order, as in the WQE */
    uint32_t xrc_srqn;          /* XRC initiator: the target's SRQ */
    uint64_t wr_id;
    uint64_t raddr;
    uint32_t rkey;
    uint32_t len;               /* message bytes */
    uint64_t cmp, swap;
    uint32_t first_psn;
    uint32_t npkts;             /* PSNs the message uses */
    uint32_t resp_psn;          /* READ/atomic: next response expected */
    uint32_t reask_psn;         /* READ: asked again from here ... */
    bool reasked;               /* ... and not answered yet */
    union {
        struct {                /* UD: the datagram's destination */
            uint32_t dqpn;
            uint32_t qkey;      /* the one to send */
            bool loopback;
            struct axon_ud_av av;
        } ud;
        struct {                /* RUD: the message's number ... */
            uint32_t msg_id;
            uint32_t left;      /* ... and its packets not acknowledged */
        } rud;
        struct axon_reg_mr_seg reg;     /* REG_MR, as in the WQE */
        struct axon_bind_mw_seg bind;   /* BIND_MW, as in the WQE */
    };
    union {
        AxonSge sge[AXON_MAX_SGE];
        uint8_t inline_data[AXON_MAX_INLINE];
    };
} AxonSwqe;

/*
 * A responder resource: a READ or atomic, kept for duplicates, and its
 * answer while the engine sends it (a burst at a time): responses sent
 * up to sent, from first on (a duplicate answers again from its PSN).
 */
typedef struct AxonRdRes {
    bool valid;
    bool atomic;
    bool replay;                /* answering a duplicate */
    uint32_t psn;
    uint32_t npkts;
    uint32_t sent;              /* next response, of npkts; npkts: done */
    uint32_t first;             /* the response this answer began at */
    uint64_t va;
    uint32_t rkey;
    uint32_t len;
    uint64_t orig;              /* atomic: the value returned */
} AxonRdRes;

/* The requester's part of a QP: the send window and its cursor. */
typedef struct AxonReq {
    AxonSwqe *win;              /* window of win_size entries */
    uint16_t win_size;          /* the SQ's depth, 2 .. AXON_RDMA_WINDOW */
    uint16_t sq_fetch;          /* next WQE to take from the SQ */
    uint16_t cur;               /* WQE being (re)transmitted */
    uint32_t cur_off;           /* its next byte */
    uint32_t cur_psn;           /* next PSN to send */
    uint32_t psn_hi;            /* one after the highest PSN sent */
    bool sq_stopped;            /* a WQE failed locally: send nothing new */
} AxonReq;

/* The completer's: what is acknowledged, and the timer that waits for it. */
typedef struct AxonComp {
    uint16_t sq_comp;           /* oldest WQE not completed */
    uint32_t una_psn;           /* oldest PSN not acknowledged */
    uint8_t retry_left, rnr_left;
    AxonTimer *retry_timer;     /* ACK timeout, or RNR wait */
    int64_t progress_ns;        /* last answer, for the ACK timeout */
    bool rnr_wait;
    bool retry_idle;            /* nothing in flight: the timer runs out */
} AxonComp;

/* The responder's: the expected PSN, the message being placed, saved READs. */
typedef struct AxonResp {
    uint32_t epsn;              /* next PSN expected */
    uint32_t msn;
    bool nak_sent;              /* PSN sequence error NAK outstanding */
    uint8_t last_op;            /* opcode of the last accepted request */
    bool recv_active;           /* a SEND is being placed */
    uint64_t recv_wr_id;
    uint16_t recv_idx;
    uint8_t recv_nsge;
    uint32_t recv_off;
    AxonSge recv_sge[AXON_MAX_SGE];
    uint64_t wr_va;             /* RDMA WRITE being placed */
    uint32_t wr_rkey;
    uint32_t wr_left;
    uint32_t wr_len;
    AxonRdRes res[AXON_MAX_RD_ATOMIC];
    unsigned res_next;          /* the oldest: the next to reuse */
    unsigned answering;         /* resources with responses to send */
    bool aeth_owed;             /* an ACK or NAK waits behind them ... */
    uint8_t aeth_syndrome;
    uint32_t aeth_psn;
    bool failing;               /* ... a NAK, then the QP goes to ERR */
    uint16_t fail_event;
} AxonResp;

/* A QP's counters, from its creation (struct axon_qp_live). */
typedef struct AxonQpStats {
    uint64_t tx_pkts, tx_bytes, rx_pkts, rx_bytes;
    uint64_t retrans, timeouts;
    uint64_t seq_naks_sent, rnr_naks_sent, err_naks_sent;
    uint64_t seq_naks_rcvd, rnr_naks_rcvd, err_naks_rcvd;
    uint64_t out_of_seq, dup_reqs, stray;
    uint64_t local_errs, remote_errs;
} AxonQpStats;

/* A counter set (axon-counters.c): what QPs counted in it and left */
typedef struct AxonCounterSet {
    bool used;
    AxonQpStats kept;
} AxonCounterSet;

/* DCQCN's reaction and notification point of an RC QP (axon-roce-cc.c) */
typedef struct AxonCcQp {
    bool limited;               /* paced: a CNP cut the rate */
    uint32_t rate, target;      /* Mb/s */
    uint32_t alpha;             /* 1 << 16 is 1 */
    int64_t alpha_ns;           /* alpha's last decay step */
    int64_t incr_ns;            /* the increase timer's last step */
    uint32_t timer_steps, byte_steps;   /* increases since the cut */
    uint64_t bytes;             /* sent since the last byte step */
    int64_t next_tx_ns;         /* when the next packet is due */
    int64_t cut_ns;             /* the last CNP that cut the rate */
    AxonTimer *pace_timer;
    bool cnp_sent;              /* as notification point: one sent ... */
    int64_t last_cnp_ns;        /* ... at this time */
} AxonCcQp;

typedef struct AxonRud AxonRud;    /* axon-roce-rud.c */
typedef struct AxonMcGroup AxonMcGroup;    /* axon-mcast.c */

/* A QP and the pages of on-demand paging MRs (axon-odp.c). */
typedef enum AxonQpOdp {
    AXON_QP_ODP_IDLE,           /* waits for nothing */
    AXON_QP_ODP_WAITING,        /* a page fault is posted: until RESUME_QP */
    /* the driver could not map one, or the fault was lost: they fail */
    AXON_QP_ODP_FAILED,
} AxonQpOdp;

typedef struct AxonQp {
    AxonEngine *eng;
    uint32_t qpn;
    uint8_t type;               /* enum axon_qp_type */
    uint32_t state;             /* enum axon_qp_state */
    uint32_t pdn;               /* an XRC target's: its last request's SRQ's */
    uint32_t uar;
    uint32_t xrcdn;             /* an XRC target's domain */
    AxonCq *scq, *rcq;          /* XRC: no rcq; a target's while it places */
    AxonWq sq, rq;
    AxonSrq *srq;               /* receives from it; rq is unused */
    bool last_wqe_owed;         /* in ERR: QP_LAST_WQE not posted yet */
    bool sig_all;
    struct axon_qp_attr attr;   /* as last modified, little endian */
    uint32_t mtu;
    bool loopback;              /* the destination is this device */
    bool comm_est;
    uint8_t odp;                /* enum AxonQpOdp */

    AxonReq req;
    AxonComp comp;
    AxonResp resp;
    AxonQpStats stats;
    AxonCcQp cc;
    AxonRud *rud;               /* RUD QPs' transport state */
    uint32_t cset;              /* the counter set it counts in; 0: port's */
    AxonQpStats cset_base;      /* stats when it joined cset */

    bool scheduled;
    TAILQ_ENTRY(AxonQp) sched;
    TAILQ_ENTRY(AxonQp) acks;
    bool in_acks;

    /* axon-doorbell.c: the send queue's doorbell record */
    bool sq_dbrec;              /* created with AXON_QP_SQ_DBREC */
    bool sq_polled;             /* its record is read: in eng->sq_polls */
    bool sq_poll_lost;          /* ... but was out of reach last time */
    int64_t sq_poll_seen;       /* when a doorbell or the record last moved */
    TAILQ_ENTRY(AxonQp) sq_polls;
} AxonQp;

/* One GID table entry, as set by AXON_ADMIN_SET_GID. */
typedef struct AxonGid {
    uint32_t type;              /* enum axon_gid_type */
    uint8_t gid[16];            /* network order */
} AxonGid;

/* The engine's counters (AXON_REG_STAT_*), cleared by a reset. */
typedef struct AxonRdmaStats {
    uint32_t db_rejects;
    uint32_t tx_pkts;
    uint32_t rx_pkts;
    uint32_t rx_drops;
    uint32_t retrans;
    uint32_t naks;
    uint64_t peer_rd;           /* payload bytes from peer MRs */
    uint64_t peer_wr;           /* payload bytes to peer MRs */
    uint32_t mr_invalid;
    uint32_t dup_reqs;          /* requests behind the expected PSN */
    uint32_t out_of_seq;        /* requests ahead of it */
    uint32_t stray;             /* packets matching no state: dropped */
    uint32_t qkey_drops;        /* UD packets with another Q_Key */
    uint32_t ud_nobuf;          /* UD packets finding no receive WQE */
    uint32_t uc_drops;          /* UC messages dropped */
    uint32_t cnp_sent, cnp_rcvd;
    uint32_t ecn_marked;        /* packets received marked CE */
    uint32_t ce_count;          /* x-tx-ce-every: ECN-capable frames sent */
    uint32_t rud_drops;         /* RUD packets dropped */
    uint32_t rud_dups;          /* RUD packets received again */
    uint32_t rud_trims;         /* RUD DATA packets that came trimmed */
    uint32_t odp_faults;        /* page faults posted (or lost) */
    uint32_t odp_waits;         /* packets held back for a page */
} AxonRdmaStats;

/* Which way memory is copied: to the device (a read) or from it. */
typedef enum AxonDmaDir {
    AXON_DMA_TO_DEVICE,
    AXON_DMA_FROM_DEVICE,
} AxonDmaDir;

struct AxonPkt;

struct AxonEngine {
    AxonEnv *env;
    /* a packet to a QP of this device: the receive path, at once */
    void (*rx_local)(AxonEngine *eng, const struct AxonPkt *pkt,
                     const AxonQp *from);
    AxonEngineConf conf;
    uint32_t ceq_depth;         /* the host's; 0: no CQ can be made */
    bool engine_busy;           /* axon_engine_run() or a doorbell runs it */

    /* axon-mr.c */
    unsigned long *pd_table;    /* [max_pd] bits */
    uint32_t *pd_users;         /* [max_pd]: MRs and QPs in each PD */
    AxonTable mrs;              /* MRs and windows by key slot (axon_mr_slot) */
    uint8_t *mr_tag;            /* [AXON_RDMA_MAX_MR + 1]: a freed slot's tag */
    uint32_t mw_bound;          /* windows bound */
    uint64_t pbl_pages;         /* page list entries held */
    AxonGid gid_tbl[AXON_ENGINE_GID_TBL_LEN];

    /* axon-qp.c */
    AxonTable cqs;              /* by cqn, 0 unused */
    TAILQ_HEAD(, AxonCq) ev_owed;       /* CQs whose event waits for room */
    AxonTable qps;              /* by qpn (axon_qp_lookup); 1 is GSI */
    uint32_t cq_last;           /* last index handed out: next fit */
    uint64_t cq_pages;          /* pages of paged CQ rings held */
    AxonSrq **srq;              /* [AXON_RDMA_MAX_SRQ + 1], srqn 0 unused */
    uint32_t srq_last;
    uint32_t qp_last;           /* slot to look at first */

    /* axon-mcast.c */
    LIST_HEAD(, AxonMcGroup) mcast;
    uint32_t mcast_groups;

    /* axon-roce-sched.c */
    TAILQ_HEAD(, AxonQp) sched;
    TAILQ_HEAD(, AxonQp) acks;

    /* axon-doorbell.c */
    TAILQ_HEAD(, AxonQp) sq_polls;      /* QPs whose record is read */
    AxonTimer *sq_poll_timer;

    AxonRdmaStats stats;
    AxonCounterSet cset[AXON_MAX_COUNTER_SETS];     /* [0] unused */
    AxonQpStats cset_freed;     /* what freed sets had counted */
    uint8_t txbuf[AXON_RDMA_MAX_MTU];   /* requester payload */
    uint8_t rspbuf[AXON_RDMA_MAX_MTU];  /* READ response payload */
};

/* PSN arithmetic, modulo 2^24 */
static inline uint32_t axon_psn_add(uint32_t psn, uint32_t n)
{
    return (psn + n) & AXON_PSN_MASK;
}

static inline int32_t axon_psn_diff(uint32_t a, uint32_t b)
{
    return (int32_t)((a - b) << 8) >> 8;
}

/* axon-cq.c */
AxonCq *axon_cq_lookup(AxonEngine *eng, uint32_t cqn);
void axon_cq_reset(AxonEngine *eng);

/*
 * axon-cq.c, axon-qp-state.c: the services the transport calls up
 * through, and the only ones: look a QP up, write a CQE (and its CQ
 * event; axon_qp_cqe_write() for one the caller filled in, the QPN, phase
 * and RECV flag left to it), post a QP's async event, move a QP to ERR.
 */
AxonQp *axon_qp_lookup(AxonEngine *eng, uint32_t qpn);
void axon_qp_cqe(AxonEngine *eng, AxonQp *qp, bool recv, uint64_t wr_id,
                 uint16_t idx, uint8_t opcode, uint8_t status,
                 uint32_t byte_len, uint32_t imm, uint8_t flags);
void axon_qp_cqe_write(AxonEngine *eng, AxonQp *qp, bool recv,
                       struct axon_cqe *cqe);
void axon_qp_event(AxonEngine *eng, AxonQp *qp, uint16_t type);
void axon_qp_error(AxonEngine *eng, AxonQp *qp);
/* a QP's counters as the device interface has them */
void axon_qp_counters_le(const AxonQpStats *c, struct axon_qp_counters *out);

/* axon-qp.c */
void axon_qp_reset(AxonEngine *eng);

/* axon-doorbell.c: send queue doorbell records */
bool axon_sq_poll_realize(AxonEngine *eng);
void axon_sq_poll_stop(AxonEngine *eng, AxonQp *qp, bool tell);
void axon_sq_poll_exit(AxonEngine *eng);

/* axon-counters.c: counter sets */
void axon_cset_leave(AxonEngine *eng, AxonQp *qp);
uint32_t axon_cset_port_stat(AxonEngine *eng, uint32_t reg, uint32_t raw);
void axon_cset_reset(AxonEngine *eng);

/* axon-srq.c: the doorbell, WQEs taken */
AxonSrq *axon_srq_lookup(AxonEngine *eng, uint32_t srqn);
bool axon_srq_doorbell(AxonEngine *eng, uint32_t page, uint32_t srqn,
                       uint32_t val, const char **why);
void axon_srq_taken(AxonEngine *eng, AxonSrq *srq);
bool axon_srq_realize(AxonEngine *eng);
void axon_srq_reset(AxonEngine *eng);
void axon_srq_exit(AxonEngine *eng);

/* The ring a QP takes its receive WQEs from: its SRQ's or its own. */
static inline AxonWq *axon_qp_recv_wq(AxonQp *qp)
{
    return qp->srq ? &qp->srq->wq : &qp->rq;
}

/* axon-mr.c */
AxonMr *axon_mr_of_key(AxonEngine *eng, uint32_t key);
bool axon_mr_realize(AxonEngine *eng);
void axon_mr_reset(AxonEngine *eng);
void axon_mr_exit(AxonEngine *eng);

/* axon-gid.c */
const AxonGid *axon_gid_get(AxonEngine *eng, uint32_t index);
bool axon_gid_is_ours(AxonEngine *eng, const uint8_t *gid);
bool axon_gid_is_v4(const uint8_t *gid);
bool axon_gid_is_mcast(const uint8_t *gid);

/* axon-odp.c: waiting for the pages of on-demand paging MRs */
bool axon_odp_wait(AxonEngine *eng, AxonQp *qp, const AxonMr *mr,
                   uint64_t va, uint64_t len, bool write);
bool axon_odp_present(const AxonMr *mr, uint64_t va, uint64_t len,
                      bool write);
bool axon_odp_sge_wait(AxonEngine *eng, AxonQp *qp, uint32_t pdn,
                       const AxonSge *sge, unsigned nsge, uint32_t off,
                       uint32_t len, bool write);

/* axon-mcast.c */
void axon_mcast_qp_gone(AxonEngine *eng, uint32_t qpn);
const uint32_t *axon_mcast_members(AxonEngine *eng, const uint8_t *gid,
                                   uint32_t *n);

/* axon-mr.c: PDs, memory through keys */
bool axon_mr_pd_valid(AxonEngine *eng, uint32_t pdn);
AxonMr *axon_mr_check(AxonEngine *eng, uint32_t key, uint32_t pdn,
                      uint64_t va, uint64_t len, uint32_t access);
bool axon_mr_rw(AxonEngine *eng, AxonMr *mr, uint64_t va, void *buf,
                uint32_t len, AxonDmaDir dir);
bool axon_mr_atomic(AxonEngine *eng, AxonMr *mr, uint64_t va, bool cas,
                    uint64_t cmp_add, uint64_t swap, uint64_t *orig);
bool axon_mr_sge_rw(AxonEngine *eng, uint32_t pdn, const AxonSge *sge,
                    unsigned nsge, uint32_t off, uint8_t *buf, uint32_t len,
                    AxonDmaDir dir);
/* for CQ rings in pages: a page list's entries, little endian */
uint16_t axon_mr_read_pbl(AxonEngine *eng, uint16_t opcode, uint64_t pbl,
                          uint8_t levels, uint32_t npages, uint64_t *pages);
/* for axon-mr-wqe.c */
bool axon_mr_scan_pages(AxonEngine *eng, uint64_t *p, uint32_t npages,
                        uint64_t psz, bool *peer);
AxonMr *axon_mr_slot(AxonEngine *eng, uint32_t idx);
void axon_mr_unbind(AxonEngine *eng, AxonMr *mw);

/* axon-mr-wqe.c: fast registration, memory windows, rkeys */
AxonMr *axon_mr_check_remote(AxonEngine *eng, const AxonQp *qp, uint32_t key,
                             uint64_t va, uint64_t len, uint32_t access);
uint8_t axon_mr_fast_reg(AxonEngine *eng, uint32_t pdn, uint32_t key,
                         uint64_t iova, const struct axon_reg_mr_seg *reg);
uint8_t axon_mr_bind_mw(AxonEngine *eng, const AxonQp *qp, uint32_t key,
                        uint64_t addr, const struct axon_bind_mw_seg *bind);
bool axon_mr_local_inv(AxonEngine *eng, uint32_t pdn, uint32_t key);
void axon_mr_qp_destroyed(AxonEngine *eng, uint32_t qpn);

#endif /* AXON_RDMA_H */
