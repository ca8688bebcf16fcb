/*
 * axon engine tests: a small driver over the test environment
 *
 * What the qtest fixture (qemu-model/tests/axon-nic-qos.c) does through
 * the device's registers, done in plain C through the engine's own entry
 * points: admin commands (axon-engine.h) for the GID, PD, one data MR
 * with a shuffled page list, CQs and QPs; MODIFY_QP up to RTS between two
 * nodes (RC, UC, RUD with its keys exchanged, UD); WQEs written into the
 * rings in node memory and doorbells rung with axon_engine_doorbell;
 * CQEs polled by their phase bit while the world's loop runs.
 *
 * Each node's memory (bus T_BASE + offset):
 *   D_ATTR   scratch for attributes and query results
 *   D_PBL    the data MR's page list
 *   D_CQ(i)  CQ rings, with their consumer records
 *   D_SQ(q), D_RQ(q)  send and receive rings
 *   D_DATA   the data MR: D_PAGES pages of 2 MiB, pairs swapped
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AXON_TEST_DRV_H
#define AXON_TEST_DRV_H

#include "axon-test-env.h"

#define D_ATTR 0x0ULL
#define D_PBL 0x1000ULL
#define D_CQ(i) (0x10000ULL + (uint64_t)(i) * 0x10000)    /* i < D_MAX_CQ */
#define D_SQ(q) (0x100000ULL + (uint64_t)(q) * 0x20000)   /* q < D_MAX_QP */
#define D_RQ(q) (D_SQ(q) + 0x10000)
#define D_DATA 0x400000ULL
#define D_PAGE_SHIFT 21
#ifndef D_PAGES
#define D_PAGES 20             /* the fuzz target builds with fewer */
#endif
#define D_MEM_SIZE (D_DATA + ((uint64_t)D_PAGES << D_PAGE_SHIFT))
#define D_MR_SKEW 0x123         /* the MR starts this far into a page */
#define D_MR_LEN (((uint64_t)D_PAGES << D_PAGE_SHIFT) - D_MR_SKEW)

#define D_MAX_CQ 4
#define D_MAX_QP 6
#define D_WQ_DEPTH 64
#define D_WQE_SHIFT 9
#define D_CQ_DEPTH 256
#define D_UAR 3

typedef struct DCq {
    uint32_t cqn;
    uint64_t ring;              /* bus address */
    uint32_t depth, cons;
} DCq;

typedef struct DQp {
    uint32_t qpn;
    uint8_t type;
    uint64_t key;               /* RUD: its receive key */
    uint64_t sq, rq;            /* bus addresses */
    uint16_t sq_pi, rq_pi;
    DCq *scq, *rcq;
    bool dbrec;                 /* its SQ has a doorbell record ... */
    bool dbrec_quiet;           /* ... which never asks for polling */
} DQp;

/* An XRC SRQ (d_xrc_srq) */
typedef struct DSrq {
    uint32_t srqn;
    uint64_t ring;              /* bus address */
    uint16_t pi;
    DCq *cq;
} DSrq;

typedef struct DNode {
    TWorld *w;
    unsigned id;
    TNode *env;
    AxonEngine *eng;
    uint32_t pdn;
    uint32_t key;               /* the data MR's lkey and rkey */
    uint64_t iova;
    uint64_t pages[D_PAGES];
    uint8_t gid[16];
    DCq cq[D_MAX_CQ];
    unsigned ncq;
    DQp qp[D_MAX_QP];
    unsigned nqp;
    unsigned sq_rings;          /* SQ doorbells rung */
} DNode;

/* The SQ and RQ depth of the QPs d_qp() makes (D_WQ_DEPTH unless set). */
extern uint16_t d_wq_depth;
/* ... and whether their SQs have doorbell records (AXON_QP_SQ_DBREC) */
extern bool d_sq_dbrec;

/* Failures of the driver: the case that saw one fails. */
extern unsigned d_errors;
void d_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define D_CHECK(cond, ...) \
    ((cond) ? true : (d_fail(__FILE__, __LINE__, __VA_ARGS__), false))

uint64_t d_bus(DNode *n, uint64_t off);
void d_memwrite(DNode *n, uint64_t off, const void *buf, size_t len);
void d_memread(DNode *n, uint64_t off, void *buf, size_t len);

/* The node's GID (::ffff:10.0.0.id+1), PD and data MR; false: failed. */
bool d_node_init(DNode *n, TWorld *w, unsigned id);

/* An admin command: its status; *result its result. */
uint16_t d_cmd(DNode *n, AxonEngineCmd *fn, uint16_t opcode,
               struct axon_admin_cmd *cmd, uint64_t *result);

DCq *d_cq(DNode *n, uint32_t depth);
DQp *d_qp(DNode *n, uint8_t type, DCq *scq, DCq *rcq);
/* An XRC initiator (an SQ on scq), an XRC target (no queue) of xrcdn. */
DQp *d_xrc_ini(DNode *n, DCq *scq);
DQp *d_xrc_tgt(DNode *n, uint32_t xrcdn);
/* An XRC SRQ of xrcdn completing to cq, its ring at ring; false: failed. */
bool d_xrc_srq(DNode *n, DSrq *srq, DCq *cq, uint32_t xrcdn, uint64_t ring);
void d_post_srq_recv(DNode *n, DSrq *srq, uint64_t wr_id,
                     const struct axon_sge *sg, unsigned nsge);

/* MODIFY_QP with the attributes at under mask: its status. */
uint16_t d_modify(DNode *n, DQp *qp, uint32_t mask,
                  const struct axon_qp_attr *at, uint64_t *result);
/* RESET -> INIT with every remote right; a RUD QP's key in qp->key. */
bool d_init(DNode *n, DQp *qp, uint32_t access);
/* INIT -> RTR -> RTS towards peer's QP pq. */
bool d_rtr_rts(DNode *n, DQp *qp, DNode *peer, DQp *pq, uint32_t mtu,
               uint32_t sq_psn, uint32_t rq_psn, uint8_t rnr_retry);
/* Both sides of an RC, UC or RUD connection. */
bool d_connect(DNode *a, DQp *qa, DNode *b, DQp *qb, uint32_t mtu,
               uint8_t rnr_retry);
/* A UD QP through INIT and RTR to RTS with qkey. */
bool d_ud_rts(DNode *n, DQp *qp, uint32_t qkey);

uint32_t d_qp_state(DNode *n, DQp *qp);
bool d_qp_live(DNode *n, DQp *qp, struct axon_qp_live *live);

/* The data MR's SGE for bytes [off, off + len) of it. */
struct axon_sge d_sge(DNode *n, uint64_t off, uint32_t len);
/* The data MR's bytes [off, off + len), through its page list. */
void d_mr_write(DNode *n, uint64_t off, const void *buf, size_t len);
void d_mr_read(DNode *n, uint64_t off, void *buf, size_t len);
void d_mr_fill(DNode *n, uint64_t off, uint8_t byte, size_t len);

/* Writes the WQE (and its SGEs) at the SQ's tail and rings the doorbell. */
void d_post_send(DNode *n, DQp *qp, const struct axon_send_wqe *w,
                 const struct axon_sge *sg);
/* Writes the WQE without ringing: d_ring_sq rings for all written. */
void d_write_send(DNode *n, DQp *qp, const struct axon_send_wqe *w,
                  const struct axon_sge *sg);
/*
 * The SQ doorbell; with a record, the index goes there first and the
 * doorbell rings only when the device does not poll it.
 */
void d_ring_sq(DNode *n, DQp *qp);
/* The SQ record's words: the producer's index, the device's polling. */
void d_sq_dbrec_write(DNode *n, DQp *qp, uint32_t prod_index);
uint32_t d_sq_polling(DNode *n, DQp *qp);
void d_post_recv(DNode *n, DQp *qp, uint64_t wr_id,
                 const struct axon_sge *sg, unsigned nsge);

/* The next CQE if there is one now (consumed). */
/* Arms cq for its next CQE (AXON_CQ_ARM_NEXT or _SOLICITED). */
void d_arm_cq(DNode *n, DCq *cq, uint32_t arm);
bool d_poll(DNode *n, DCq *cq, struct axon_cqe *cqe);
/* Runs the world until the next CQE, at most timeout_ns of virtual time. */
bool d_wait(DNode *n, DCq *cq, struct axon_cqe *cqe, int64_t timeout_ns);
/* d_wait, and the CQE is wr_id's with this status (and opcode if success). */
bool d_expect(DNode *n, DCq *cq, uint64_t wr_id, uint8_t opcode,
              uint8_t status, struct axon_cqe *out);

/* A byte pattern of len from seed. */
void d_pattern(uint8_t *buf, size_t len, uint32_t seed);

/* Node 0 and node 1 of w, initialised; false: failed. */
bool d_pair(TWorld *w, DNode *a, DNode *b);

#endif /* AXON_TEST_DRV_H */
