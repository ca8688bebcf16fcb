/*
 * axon engine: doorbells
 *
 * One page per user context (its UAR): a context rings only its own QPs,
 * SRQs and CQs. A doorbell names the queue and its new producer index (or
 * a CQ's arm); a bad one is refused, counted and reported, and changes
 * nothing.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-roce.h"

/* Every id a doorbell can carry rings inside its page. */
AXON_BUILD_BUG_ON(AXON_DB_OFFSET(AXON_DB_REG_MASK, AXON_DB_MAX_ID) >=
                  AXON_DB_PAGE_SIZE);

static void axon_db_reject(AxonEngine *eng, uint32_t page, uint32_t reg,
                           uint32_t val, const char *why)
{
    axon_env_guest_error(eng->env, "doorbell page %u offset 0x%x "
                         "value 0x%x rejected: %s\n", page, reg, val, why);
    axon_trace_err_rdma_db(eng->env, page, reg, val, why);
    eng->stats.db_rejects++;
}

/* Why pi cannot be the producer index of qp's queue at reg; NULL: it can. */
static const char *axon_db_wq_refusal(AxonQp *qp, uint32_t reg, uint16_t pi)
{
    AxonWq *wq = reg == AXON_DB_SQ ? &qp->sq : &qp->rq;
    uint16_t done, taken;

    if (qp->state == AXON_QPS_RESET) {
        return "QP in RESET";
    }
    if (reg == AXON_DB_RQ && qp->srq) {
        return "the QP receives from an SRQ";
    }
    if (!wq->depth) {
        return "the QP has no such queue";
    }
    done = reg == AXON_DB_SQ ? qp->comp.sq_comp : qp->rq.ci;
    /* a SEND being placed holds the receive WQE at rq.ci */
    taken = reg == AXON_DB_SQ ? qp->req.sq_fetch :
            qp->rq.ci + qp->resp.recv_active;
    if ((uint16_t)(pi - done) > wq->depth) {
        return "more WQEs than the depth";
    }
    if ((uint16_t)(pi - done) < (uint16_t)(taken - done)) {
        return "producer index went back";
    }
    return NULL;
}

static void axon_db_wq_take(AxonEngine *eng, AxonQp *qp, uint32_t reg,
                            uint16_t pi)
{
    if (reg == AXON_DB_SQ) {
        qp->sq.pi = pi;
        axon_roce_kick(eng, qp);
        return;
    }
    qp->rq.pi = pi;
    if (qp->state == AXON_QPS_ERR) {
        axon_roce_schedule(eng, qp);
    }
}

static void axon_sq_poll_start(AxonEngine *eng, AxonQp *qp);

static void axon_db_qp(AxonEngine *eng, uint32_t page, uint32_t offset,
                       uint32_t id, uint32_t val)
{
    uint32_t reg = AXON_DB_REG(offset);
    AxonQp *qp = axon_qp_lookup(eng, id);
    const char *why;

    if (!qp || qp->uar != page) {
        axon_db_reject(eng, page, offset, val, "no such QP on this page");
        return;
    }
    why = axon_db_wq_refusal(qp, reg, AXON_DB_GET_VALUE(val));
    if (why) {
        axon_db_reject(eng, page, offset, val, why);
        return;
    }
    if (reg == AXON_DB_SQ) {
        axon_sq_poll_start(eng, qp);
    }
    axon_db_wq_take(eng, qp, reg, AXON_DB_GET_VALUE(val));
}

static void axon_db_cq(AxonEngine *eng, uint32_t page, uint32_t offset,
                       uint32_t id, uint32_t val)
{
    AxonCq *cq = axon_cq_lookup(eng, id);
    uint32_t arm = AXON_DB_GET_VALUE(val);

    if (!cq || cq->uar != page) {
        axon_db_reject(eng, page, offset, val,
                       "no such CQ on this page");
        return;
    }
    if (arm != AXON_CQ_ARM_NEXT && arm != AXON_CQ_ARM_SOLICITED) {
        axon_db_reject(eng, page, offset, val, "bad arm value");
        return;
    }
    /* NEXT covers SOLICITED */
    if (cq->arm != AXON_CQ_ARM_NEXT) {
        cq->arm = arm;
    }
}

/*
 * A write of val at offset offset of doorbell page (UAR) page: the offset
 * names the doorbell and carries the id's high bits (AXON_DB_OFFSET).
 */
void axon_engine_doorbell(AxonEngine *eng, uint32_t page, uint32_t offset,
                          uint32_t val)
{
    uint32_t reg = AXON_DB_REG(offset);
    uint32_t id = AXON_DB_FULL_ID(offset, val);
    const char *why;

    if (!axon_env_running(eng->env)) {
        axon_db_reject(eng, page, offset, val, "device not ready");
        return;
    }
    switch (reg) {
    case AXON_DB_SQ:
    case AXON_DB_RQ:
        axon_db_qp(eng, page, offset, id, val);
        break;
    case AXON_DB_CQ_ARM:
        axon_db_cq(eng, page, offset, id, val);
        break;
    case AXON_DB_SRQ:
        if (!axon_srq_doorbell(eng, page, id, val, &why)) {
            axon_db_reject(eng, page, offset, val, why);
        }
        break;
    default:
        axon_db_reject(eng, page, offset, val, "no doorbell at this offset");
        break;
    }
}

/* ---- send queue doorbell records ---------------------------------------- */

/*
 * A QP created with AXON_QP_SQ_DBREC has a record after its send queue's
 * ring ("Send queue doorbell records" in axon_io_defs.h): its producer
 * writes each new index there and rings only while the record's polling
 * word is 0 (or when it wants a doorbell's latency). A doorbell whose
 * record asks for polling (a producer with WQEs enough in flight: a
 * stream, not a ping-pong, which the doorbell serves at once and a poll
 * would only delay) sets the word, and a timer reads the index every
 * conf.sq_poll_ns while the QP keeps posting, so a vCPU that posts no
 * longer exits to the device for each WQE. Polling ends after
 * conf.sq_poll_idle_ns without a new index: the word is cleared first and
 * the index read once more, so a post in between is seen either here or
 * by its producer, who then rings. A QP whose word is set stays polled
 * until the word is cleared (or the QP reset or destroyed): a record the
 * device cannot reach for a while, or a device disabled for a while, is
 * read again later rather than left set with nobody reading it. The
 * timer's cost grows with the QPs polled, never with those that exist.
 */

static uint64_t axon_sq_dbrec_addr(const AxonQp *qp)
{
    return qp->sq.base + ((uint64_t)qp->sq.depth << qp->sq.shift);
}

static bool axon_sq_dbrec_set_polling(AxonEngine *eng, AxonQp *qp,
                                      uint32_t polling)
{
    uint32_t le = cpu_to_le32(polling);

    return axon_env_dma_write(eng->env, axon_sq_dbrec_addr(qp) +
                              offsetof(struct axon_sq_dbrec, polling),
                              &le, sizeof(le));
}

static void axon_sq_poll_arm(AxonEngine *eng, int64_t now)
{
    if (!axon_env_timer_pending(eng->sq_poll_timer)) {
        axon_env_timer_mod(eng->sq_poll_timer, now + eng->conf.sq_poll_ns);
    }
}

/* A doorbell taken: polling starts if the record asks for it. */
static void axon_sq_poll_start(AxonEngine *eng, AxonQp *qp)
{
    uint32_t le = 0;
    int64_t now;

    if (!qp->sq_dbrec || !eng->conf.sq_poll_ns) {
        return;
    }
    now = axon_env_now_ns(eng->env);
    qp->sq_poll_seen = now;
    /* a record the device cannot reach leaves the QP to its doorbells */
    if (qp->sq_polled ||
        !axon_env_dma_read(eng->env, axon_sq_dbrec_addr(qp), &le,
                           sizeof(le)) ||
        !(le32_to_cpu(le) & AXON_SQ_DBREC_POLL) ||
        !axon_sq_dbrec_set_polling(eng, qp, 1)) {
        return;
    }
    qp->sq_polled = true;
    qp->sq_poll_lost = false;
    TAILQ_INSERT_TAIL(&eng->sq_polls, qp, sq_polls);
    axon_sq_poll_arm(eng, now);
}

/*
 * tell: the QP lives on, its producer must ring again; false when the
 * word could not be cleared, and the QP stays polled.
 */
static bool axon_sq_poll_end(AxonEngine *eng, AxonQp *qp, bool tell)
{
    if (!qp->sq_polled) {
        return true;
    }
    if (tell && !axon_sq_dbrec_set_polling(eng, qp, 0)) {
        return false;
    }
    TAILQ_REMOVE(&eng->sq_polls, qp, sq_polls);
    qp->sq_polled = false;
    return true;
}

/* RESET (tell) or destroy: the QP's polling ends, cleared or not. */
void axon_sq_poll_stop(AxonEngine *eng, AxonQp *qp, bool tell)
{
    if (!axon_sq_poll_end(eng, qp, tell)) {
        axon_sq_poll_end(eng, qp, false);
    }
}

typedef enum AxonSqPoll {
    AXON_SQ_POLL_SAME,          /* nothing new */
    AXON_SQ_POLL_TAKEN,         /* a new index, taken as a doorbell */
    AXON_SQ_POLL_REFUSED,       /* one the doorbell refuses: counted */
    AXON_SQ_POLL_LOST,          /* the record is out of reach */
} AxonSqPoll;

/* The record's index, taken as the SQ doorbell takes one. */
static AxonSqPoll axon_sq_poll_read(AxonEngine *eng, AxonQp *qp)
{
    uint32_t offset = AXON_DB_OFFSET(AXON_DB_SQ, qp->qpn);
    uint32_t le, val;
    const char *why;

    if (!axon_env_dma_read(eng->env, axon_sq_dbrec_addr(qp), &le,
                           sizeof(le))) {
        /* counted once, not at each tick while it lasts */
        if (!qp->sq_poll_lost) {
            axon_db_reject(eng, qp->uar, offset, 0,
                           "doorbell record out of reach");
        }
        qp->sq_poll_lost = true;
        return AXON_SQ_POLL_LOST;
    }
    qp->sq_poll_lost = false;
    val = le32_to_cpu(le);
    if (AXON_DB_GET_VALUE(val) == qp->sq.pi) {
        return AXON_SQ_POLL_SAME;
    }
    why = axon_db_wq_refusal(qp, AXON_DB_SQ, AXON_DB_GET_VALUE(val));
    if (why) {
        axon_db_reject(eng, qp->uar, offset, val, why);
        return AXON_SQ_POLL_REFUSED;
    }
    qp->sq_poll_seen = axon_env_now_ns(eng->env);
    axon_db_wq_take(eng, qp, AXON_DB_SQ, AXON_DB_GET_VALUE(val));
    return AXON_SQ_POLL_TAKEN;
}

static void axon_sq_poll_timer(void *opaque)
{
    AxonEngine *eng = opaque;
    int64_t now = axon_env_now_ns(eng->env);
    AxonQp *qp, *next;
    AxonSqPoll r;

    /* disabled: the words stay set, to be read once it runs again */
    if (TAILQ_EMPTY(&eng->sq_polls)) {
        return;
    }
    if (!axon_env_running(eng->env)) {
        axon_env_timer_mod(eng->sq_poll_timer,
                           now + MAX(eng->conf.sq_poll_ns,
                                     eng->conf.sq_poll_idle_ns));
        return;
    }
    /* taking an index runs the engine, which stops no other QP's polling */
    for (qp = TAILQ_FIRST(&eng->sq_polls); qp; qp = next) {
        next = TAILQ_NEXT(qp, sq_polls);
        r = axon_sq_poll_read(eng, qp);
        if (r == AXON_SQ_POLL_REFUSED) {
            /* a producer that wrote that is not read again, cleared or not */
            axon_sq_poll_stop(eng, qp, true);
        } else if (r != AXON_SQ_POLL_LOST &&
                   now - qp->sq_poll_seen >= eng->conf.sq_poll_idle_ns &&
                   axon_sq_poll_end(eng, qp, true)) {
            /* a post since the read above found the word set: take it */
            axon_sq_poll_read(eng, qp);
        }
    }
    if (!TAILQ_EMPTY(&eng->sq_polls)) {
        axon_env_timer_mod(eng->sq_poll_timer, now + eng->conf.sq_poll_ns);
    }
}

bool axon_sq_poll_realize(AxonEngine *eng)
{
    eng->sq_poll_timer = axon_env_timer_new(eng->env, axon_sq_poll_timer, eng);
    return eng->sq_poll_timer;
}

void axon_sq_poll_exit(AxonEngine *eng)
{
    axon_env_timer_free(eng->sq_poll_timer);
}
