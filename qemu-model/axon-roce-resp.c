/*
 * axon-nic: the RC responder (rxe_resp.c)
 *
 * Checks each request's PSN against the one expected: a duplicate is
 * answered from saved state (or acknowledged) and never executed again,
 * one ahead gets a sequence NAK (Documentation/wire-security.rst). The
 * expected one is checked (opcode sequence, length, key, PD, access
 * rights, bounds) before it touches guest memory; then its payload is
 * placed (SEND into a receive WQE, WRITE through the rkey), a READ
 * answered, an atomic executed. A request that fails a check is NAKed
 * and the QP goes to ERR.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "hw/pci/pci.h"
#include "sysemu/dma.h"
#include "trace.h"

#include "axon-roce.h"

void axon_roce_send_ack(AxonNicState *s, AxonQp *qp, uint8_t syndrome,
                        uint32_t psn)
{
    AxonPkt pkt = {
        .opcode = IB_ACK,
        .dqpn = le32_to_cpu(qp->attr.dest_qpn),
        .psn = psn,
        .syndrome = syndrome,
        .msn = qp->resp.msn,
    };

    if (syndrome >> AETH_TYPE_SHIFT != AETH_ACK) {
        s->rdma->stats.naks++;
    }
    if (syndrome >> AETH_TYPE_SHIFT == AETH_RNR_NAK) {
        qp->stats.rnr_naks_sent++;
    } else if (syndrome == (AETH_NAK << AETH_TYPE_SHIFT | NAK_PSN_SEQ)) {
        qp->stats.seq_naks_sent++;
    } else if (syndrome >> AETH_TYPE_SHIFT == AETH_NAK) {
        qp->stats.err_naks_sent++;
    }
    axon_roce_xmit(s, qp, &pkt);
}

/* A request the responder cannot accept: NAK it, the QP goes to ERR. */
static void axon_roce_resp_fail(AxonNicState *s, AxonQp *qp, uint8_t nak,
                                uint16_t event, const char *why)
{
    qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: QP %u: request PSN %u "
                  "refused (%s), NAK %u\n", qp->qpn, qp->resp.epsn, why, nak);
    trace_axon_nic_err_roce_resp(qp->qpn, qp->resp.epsn, nak, why);
    axon_roce_send_ack(s, qp, AETH_NAK << AETH_TYPE_SHIFT | nak, qp->resp.epsn);
    if (event) {
        axon_qp_event(s, qp, event);
    }
    axon_qp_error(s, qp);
}

/*
 * The receive WQE being placed is done with. An RQ's slot is free from
 * now on; an SRQ's was when the QP took it.
 */
void axon_roce_recv_done(AxonQp *qp)
{
    if (!qp->srq) {
        qp->rq.ci++;
    }
    qp->resp.recv_active = false;
}

/* The PD the receive WQE's lkeys belong to: the SRQ's, or the QP's. */
uint32_t axon_roce_recv_pdn(AxonQp *qp)
{
    return qp->srq ? qp->srq->pdn : qp->pdn;
}

/* A receive WQE completes with an error; the requester gets nak. */
static void axon_roce_recv_fail(AxonNicState *s, AxonQp *qp, uint8_t status,
                                uint8_t nak, const char *why)
{
    axon_qp_cqe(s, qp, true, qp->resp.recv_wr_id, qp->resp.recv_idx,
                AXON_WC_RECV, status, 0, 0, 0);
    axon_roce_recv_done(qp);
    axon_roce_resp_fail(s, qp, nak, 0, why);
}

/*
 * Takes the next receive WQE into the responder's state (RC and UD
 * alike); false if it is bad.
 */
bool axon_roce_recv_fetch(AxonNicState *s, AxonQp *qp)
{
    AxonWq *rq = axon_qp_recv_wq(qp);
    uint16_t idx = rq->ci;
    uint64_t addr = rq->base + ((uint64_t)(idx & (rq->depth - 1)) << rq->shift);
    struct axon_recv_wqe w;
    struct axon_sge sge[AXON_MAX_SGE];
    unsigned i;

    qp->resp.recv_idx = idx;
    qp->resp.recv_off = 0;
    qp->resp.recv_active = true;
    qp->resp.recv_wr_id = 0;
    if (qp->srq) {
        axon_srq_taken(s, qp->srq);
    }
    if (pci_dma_read(PCI_DEVICE(s), addr, &w, sizeof(w)) == MEMTX_OK) {
        qp->resp.recv_wr_id = le64_to_cpu(w.wr_id);
        if (w.num_sge <= AXON_MAX_SGE &&
            buffer_is_zero(w.reserved, sizeof(w.reserved)) &&
            sizeof(w) + w.num_sge * sizeof(sge[0]) <= 1u << rq->shift &&
            pci_dma_read(PCI_DEVICE(s), addr + sizeof(w), sge,
                         w.num_sge * sizeof(sge[0])) == MEMTX_OK) {
            qp->resp.recv_nsge = w.num_sge;
            for (i = 0; i < w.num_sge; i++) {
                qp->resp.recv_sge[i].addr = le64_to_cpu(sge[i].addr);
                qp->resp.recv_sge[i].length = le32_to_cpu(sge[i].length);
                qp->resp.recv_sge[i].lkey = le32_to_cpu(sge[i].lkey);
            }
            return true;
        }
    }
    qemu_log_mask(LOG_GUEST_ERROR, "axon-nic: QP %u: bad receive WQE %u\n",
                  qp->qpn, idx);
    trace_axon_nic_err_roce_wqe(qp->qpn, idx, 0xff, w.num_sge);
    return false;
}

/* RC: a bad receive WQE fails the request, and the QP goes to ERR. */
static bool axon_roce_take_recv(AxonNicState *s, AxonQp *qp)
{
    if (axon_roce_recv_fetch(s, qp)) {
        return true;
    }
    axon_roce_recv_fail(s, qp, AXON_WC_LOC_QP_OP_ERR, NAK_REM_OP,
                        "bad receive WQE");
    return false;
}

uint32_t axon_roce_recv_room(AxonQp *qp)
{
    uint64_t room = 0;
    unsigned i;

    for (i = 0; i < qp->resp.recv_nsge; i++) {
        room += qp->resp.recv_sge[i].length;
    }
    return MIN(room, UINT32_MAX);
}

/*
 * Sends READ responses for [va, va + len) of mr (NULL if len is 0)
 * starting at psn; false if the memory could not be read.
 */
static bool axon_roce_read_resp(AxonNicState *s, AxonQp *qp, uint32_t psn,
                                AxonMr *mr, uint64_t va, uint32_t len)
{
    uint32_t n = len ? DIV_ROUND_UP(len, qp->mtu) : 1, k;

    for (k = 0; k < n; k++) {
        uint32_t chunk = MIN(qp->mtu, len - k * qp->mtu);
        AxonPkt pkt = {
            .dqpn = le32_to_cpu(qp->attr.dest_qpn),
            .psn = axon_psn_add(psn, k),
            .syndrome = AETH_NO_CREDIT,
            .msn = qp->resp.msn,
            .payload = s->rdma->rspbuf,
            .len = chunk,
        };

        if (n == 1) {
            pkt.opcode = IB_READ_RESP_ONLY;
        } else if (!k) {
            pkt.opcode = IB_READ_RESP_FIRST;
        } else if (k + 1 == n) {
            pkt.opcode = IB_READ_RESP_LAST;
        } else {
            pkt.opcode = IB_READ_RESP_MIDDLE;
        }
        if (chunk && !axon_mr_rw(s, mr, va + (uint64_t)k * qp->mtu,
                                 s->rdma->rspbuf, chunk,
                                 DMA_DIRECTION_TO_DEVICE)) {
            return false;
        }
        axon_roce_xmit(s, qp, &pkt);
        if (qp->state != AXON_QPS_RTR && qp->state != AXON_QPS_RTS) {
            return true;
        }
    }
    return true;
}

static void axon_roce_atomic_ack(AxonNicState *s, AxonQp *qp, uint32_t psn,
                                 uint64_t orig)
{
    AxonPkt pkt = {
        .opcode = IB_ATOMIC_ACK,
        .dqpn = le32_to_cpu(qp->attr.dest_qpn),
        .psn = psn,
        .syndrome = AETH_NO_CREDIT,
        .msn = qp->resp.msn,
        .orig = orig,
    };

    axon_roce_xmit(s, qp, &pkt);
}

/*
 * The saved READ or atomic a duplicate repeats: one whose PSNs hold the
 * duplicate's, asked with the same key at the same place (a READ asked
 * again from a lost response on: the rest of the saved one, or less).
 */
static AxonRdRes *axon_roce_saved(AxonQp *qp, const AxonPkt *pkt, bool atomic)
{
    unsigned i;

    for (i = 0; i < AXON_MAX_RD_ATOMIC; i++) {
        AxonRdRes *res = &qp->resp.res[i];
        uint32_t k = axon_psn_diff(pkt->psn, res->psn);
        uint64_t off = (uint64_t)k * qp->mtu;

        if (!res->valid || res->atomic != atomic || k >= res->npkts ||
            pkt->rkey != res->rkey || pkt->va != res->va + off) {
            continue;
        }
        if (atomic || pkt->dmalen <= res->len - off) {
            return res;
        }
    }
    return NULL;
}

/*
 * A request with a PSN already executed: answered again from what was
 * saved of it, never executed again. A READ or atomic matching nothing
 * saved (forged, or too old) is dropped, and nothing it names is checked
 * or touched: a duplicate never moves the QP to ERR.
 */
static void axon_roce_duplicate(AxonNicState *s, AxonQp *qp,
                                const AxonPkt *pkt)
{
    uint8_t kind = axon_ib_ops[pkt->opcode].kind;
    AxonRdRes *res;
    AxonMr *mr = NULL;

    s->rdma->stats.dup_reqs++;

    qp->stats.dup_reqs++;
    if (kind != KIND_READ && kind != KIND_ATOMIC) {
        axon_roce_ack_later(s, qp);
        return;
    }
    res = axon_roce_saved(qp, pkt, kind == KIND_ATOMIC);
    if (!res) {
        trace_axon_nic_err_roce_dup(qp->qpn, pkt->psn, pkt->opcode);
        s->rdma->stats.stray++;
        qp->stats.stray++;
        return;
    }
    if (kind == KIND_ATOMIC) {
        axon_roce_atomic_ack(s, qp, pkt->psn, res->orig);
        return;
    }
    /* the data is read again: the MR may be gone since */
    if (pkt->dmalen) {
        mr = axon_mr_check_remote(s, qp, pkt->rkey, pkt->va, pkt->dmalen,
                           AXON_ACCESS_REMOTE_READ);
    }
    if (!(qp->attr.access & cpu_to_le32(AXON_ACCESS_REMOTE_READ)) ||
        (pkt->dmalen && !mr) ||
        !axon_roce_read_resp(s, qp, pkt->psn, mr, pkt->va, pkt->dmalen)) {
        s->rdma->stats.stray++;
        qp->stats.stray++;
    }
}

/* Does op continue the message of the previous request? */
static bool axon_roce_check_sequence(AxonQp *qp, uint8_t op)
{
    uint16_t flags = axon_ib_ops[op].flags;

    switch (qp->resp.last_op) {
    case IB_SEND_FIRST:
    case IB_SEND_MIDDLE:
        return axon_ib_ops[op].kind == KIND_SEND && !(flags & OP_START);
    case IB_WRITE_FIRST:
    case IB_WRITE_MIDDLE:
        return axon_ib_ops[op].kind == KIND_WRITE && !(flags & OP_START);
    default:
        return flags & OP_START;
    }
}

static void axon_roce_resp_send(AxonNicState *s, AxonQp *qp,
                                const AxonPkt *pkt, uint16_t flags)
{
    if (flags & OP_START && !axon_roce_take_recv(s, qp)) {
        return;
    }
    if (pkt->len > axon_roce_recv_room(qp) - qp->resp.recv_off) {
        axon_roce_recv_fail(s, qp, AXON_WC_LOC_LEN_ERR, NAK_INV_REQ,
                            "SEND longer than the receive WQE");
        return;
    }
    if (!axon_mr_sge_rw(s, axon_roce_recv_pdn(qp), qp->resp.recv_sge,
                        qp->resp.recv_nsge, qp->resp.recv_off,
                        (uint8_t *)pkt->payload, pkt->len,
                        DMA_DIRECTION_FROM_DEVICE)) {
        axon_roce_recv_fail(s, qp, AXON_WC_LOC_PROT_ERR, NAK_REM_OP,
                            "receive WQE lkey");
        return;
    }
    qp->resp.recv_off += pkt->len;
    if (!(flags & OP_END)) {
        return;
    }
    /* SEND with invalidate: a fast-registration MR of this QP's PD */
    if ((flags & OP_IETH) && !axon_mr_local_inv(s, qp->pdn, pkt->rkey)) {
        axon_roce_recv_fail(s, qp, AXON_WC_LOC_PROT_ERR, NAK_INV_REQ,
                            "SEND_INV of a key not to invalidate");
        return;
    }
    axon_qp_cqe(s, qp, true, qp->resp.recv_wr_id, qp->resp.recv_idx,
                AXON_WC_RECV, AXON_WC_SUCCESS, qp->resp.recv_off,
                flags & OP_IETH ? cpu_to_be32(pkt->rkey) : pkt->imm,
                (flags & OP_IMM ? AXON_CQE_WITH_IMM : 0) |
                (flags & OP_IETH ? AXON_CQE_WITH_INV : 0) |
                (pkt->se ? AXON_CQE_SOLICITED : 0));
    axon_roce_recv_done(qp);
}

static void axon_roce_resp_write(AxonNicState *s, AxonQp *qp,
                                 const AxonPkt *pkt, uint16_t flags)
{
    bool allowed = qp->attr.access & cpu_to_le32(AXON_ACCESS_REMOTE_WRITE);
    AxonMr *mr;

    if (flags & OP_START) {
        qp->resp.wr_va = pkt->va;
        qp->resp.wr_rkey = pkt->rkey;
        qp->resp.wr_left = pkt->dmalen;
        qp->resp.wr_len = pkt->dmalen;
        if (pkt->dmalen &&
            (!allowed || !axon_mr_check_remote(s, qp, pkt->rkey, pkt->va,
                                        pkt->dmalen,
                                        AXON_ACCESS_REMOTE_WRITE))) {
            axon_roce_resp_fail(s, qp, NAK_REM_ACCESS, AXON_EVENT_QP_ACCESS_ERR,
                                "WRITE outside the MR");
            return;
        }
    }
    if (pkt->len > qp->resp.wr_left ||
        ((flags & OP_END) && pkt->len != qp->resp.wr_left)) {
        axon_roce_resp_fail(s, qp, NAK_INV_REQ, AXON_EVENT_QP_REQ_ERR,
                            "WRITE length");
        return;
    }
    if (pkt->len) {
        /* checked per packet: the MR may be gone since the first */
        mr = axon_mr_check_remote(s, qp, qp->resp.wr_rkey, qp->resp.wr_va,
                           pkt->len, AXON_ACCESS_REMOTE_WRITE);
        if (!mr || !allowed) {
            axon_roce_resp_fail(s, qp, NAK_REM_ACCESS, AXON_EVENT_QP_ACCESS_ERR,
                                "WRITE outside the MR");
            return;
        }
        if (!axon_mr_rw(s, mr, qp->resp.wr_va, (uint8_t *)pkt->payload,
                        pkt->len, DMA_DIRECTION_FROM_DEVICE)) {
            axon_roce_resp_fail(s, qp, NAK_REM_OP, AXON_EVENT_QP_FATAL,
                                "WRITE target not writable");
            return;
        }
    }
    qp->resp.wr_va += pkt->len;
    qp->resp.wr_left -= pkt->len;
    if (flags & OP_IMM) {
        if (!axon_roce_take_recv(s, qp)) {
            return;
        }
        axon_qp_cqe(s, qp, true, qp->resp.recv_wr_id, qp->resp.recv_idx,
                    AXON_WC_RECV_RDMA_WITH_IMM, AXON_WC_SUCCESS,
                    qp->resp.wr_len, pkt->imm, AXON_CQE_WITH_IMM |
                    (pkt->se ? AXON_CQE_SOLICITED : 0));
        axon_roce_recv_done(qp);
    }
}

static AxonRdRes *axon_roce_new_res(AxonQp *qp)
{
    AxonRdRes *res = &qp->resp.res[qp->resp.res_next];

    qp->resp.res_next = (qp->resp.res_next + 1) % AXON_MAX_RD_ATOMIC;
    memset(res, 0, sizeof(*res));
    return res;
}

static void axon_roce_resp_atomic(AxonNicState *s, AxonQp *qp,
                                  const AxonPkt *pkt)
{
    AxonRdRes *res;
    AxonMr *mr;
    uint64_t orig;

    if (pkt->va & 7) {
        axon_roce_resp_fail(s, qp, NAK_INV_REQ, AXON_EVENT_QP_REQ_ERR,
                            "misaligned atomic");
        return;
    }
    mr = axon_mr_check_remote(s, qp, pkt->rkey, pkt->va, 8,
                       AXON_ACCESS_REMOTE_ATOMIC);
    if (!mr || !(qp->attr.access & cpu_to_le32(AXON_ACCESS_REMOTE_ATOMIC))) {
        axon_roce_resp_fail(s, qp, NAK_REM_ACCESS, AXON_EVENT_QP_ACCESS_ERR,
                            "atomic outside the MR");
        return;
    }
    if (!axon_mr_atomic(s, mr, pkt->va, pkt->opcode == IB_CMP_SWP,
                        pkt->opcode == IB_CMP_SWP ? pkt->cmp :
                        pkt->swap_add, pkt->swap_add, &orig)) {
        axon_roce_resp_fail(s, qp, NAK_REM_OP, AXON_EVENT_QP_FATAL,
                            "atomic target not readable");
        return;
    }
    res = axon_roce_new_res(qp);
    res->valid = true;
    res->atomic = true;
    res->psn = pkt->psn;
    res->npkts = 1;
    res->va = pkt->va;
    res->rkey = pkt->rkey;
    res->orig = orig;
    qp->resp.epsn = axon_psn_add(qp->resp.epsn, 1);
    qp->resp.msn++;
    axon_roce_atomic_ack(s, qp, pkt->psn, orig);
}

static void axon_roce_resp_read(AxonNicState *s, AxonQp *qp,
                                const AxonPkt *pkt)
{
    uint32_t n = pkt->dmalen ? DIV_ROUND_UP(pkt->dmalen, qp->mtu) : 1;
    AxonRdRes *res;
    AxonMr *mr = NULL;

    if (pkt->dmalen) {
        mr = axon_mr_check_remote(s, qp, pkt->rkey, pkt->va, pkt->dmalen,
                           AXON_ACCESS_REMOTE_READ);
    }
    if (!(qp->attr.access & cpu_to_le32(AXON_ACCESS_REMOTE_READ)) ||
        (pkt->dmalen && !mr)) {
        axon_roce_resp_fail(s, qp, NAK_REM_ACCESS, AXON_EVENT_QP_ACCESS_ERR,
                            "READ outside the MR");
        return;
    }
    if (pkt->dmalen > AXON_MAX_MSG_SIZE) {
        axon_roce_resp_fail(s, qp, NAK_INV_REQ, AXON_EVENT_QP_REQ_ERR,
                            "READ too long");
        return;
    }
    res = axon_roce_new_res(qp);
    res->valid = true;
    res->psn = pkt->psn;
    res->npkts = n;
    res->va = pkt->va;
    res->rkey = pkt->rkey;
    res->len = pkt->dmalen;
    qp->resp.epsn = axon_psn_add(qp->resp.epsn, n);
    qp->resp.msn++;
    if (!axon_roce_read_resp(s, qp, pkt->psn, mr, pkt->va, pkt->dmalen)) {
        axon_roce_resp_fail(s, qp, NAK_REM_OP, AXON_EVENT_QP_FATAL,
                            "READ source not readable");
    }
}

/* A request for a QP acting as responder. */
void axon_roce_resp_rx(AxonNicState *s, AxonQp *qp, const AxonPkt *pkt)
{
    uint16_t flags = axon_ib_ops[pkt->opcode].flags;
    uint8_t kind = axon_ib_ops[pkt->opcode].kind;
    int32_t d;

    if (qp->state != AXON_QPS_RTR && qp->state != AXON_QPS_RTS) {
        s->rdma->stats.rx_drops++;
        return;
    }
    d = axon_psn_diff(pkt->psn, qp->resp.epsn);
    if (d < 0) {
        axon_roce_duplicate(s, qp, pkt);
        return;
    }
    if (d > 0) {
        /* one NAK for the expected PSN (the spec's), nothing else */
        s->rdma->stats.out_of_seq++;
        qp->stats.out_of_seq++;
        if (!qp->resp.nak_sent) {
            qp->resp.nak_sent = true;
            axon_roce_send_ack(s, qp, AETH_NAK << AETH_TYPE_SHIFT |
                               NAK_PSN_SEQ, qp->resp.epsn);
        }
        return;
    }
    qp->resp.nak_sent = false;
    if (qp->state == AXON_QPS_RTR && !qp->comm_est) {
        qp->comm_est = true;
        axon_qp_event(s, qp, AXON_EVENT_COMM_EST);
    }
    if (!axon_roce_check_sequence(qp, pkt->opcode) ||
        ((flags & OP_PAYLOAD) &&
         (pkt->len > qp->mtu || (!(flags & OP_END) && pkt->len != qp->mtu)))) {
        axon_roce_resp_fail(s, qp, NAK_INV_REQ, AXON_EVENT_QP_REQ_ERR,
                            "opcode sequence or length");
        return;
    }
    /* a message needing a receive WQE waits for one: RNR */
    if (((kind == KIND_SEND && (flags & OP_START)) ||
         (kind == KIND_WRITE && (flags & OP_IMM))) &&
        axon_qp_recv_wq(qp)->ci == axon_qp_recv_wq(qp)->pi) {
        trace_axon_nic_roce_rnr(qp->qpn, pkt->psn, 0);
        axon_roce_send_ack(s, qp, AETH_RNR_NAK << AETH_TYPE_SHIFT |
                           qp->attr.min_rnr_timer, pkt->psn);
        return;
    }
    switch (kind) {
    case KIND_SEND:
        axon_roce_resp_send(s, qp, pkt, flags);
        break;
    case KIND_WRITE:
        axon_roce_resp_write(s, qp, pkt, flags);
        break;
    case KIND_READ:
        axon_roce_resp_read(s, qp, pkt);
        qp->resp.last_op = pkt->opcode;
        return;
    default:
        axon_roce_resp_atomic(s, qp, pkt);
        qp->resp.last_op = pkt->opcode;
        return;
    }
    if (qp->state != AXON_QPS_RTR && qp->state != AXON_QPS_RTS) {
        return;
    }
    qp->resp.last_op = pkt->opcode;
    qp->resp.epsn = axon_psn_add(qp->resp.epsn, 1);
    if (flags & OP_END) {
        qp->resp.msn++;
    }
    if (pkt->ackreq) {
        axon_roce_ack_later(s, qp);
    }
}
