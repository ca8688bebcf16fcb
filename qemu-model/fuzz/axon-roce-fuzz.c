/*
 * Fuzz target for the RoCEv2 receive path of axon-nic (axon-roce-rx-fuzz,
 * Documentation/fuzzing.rst).
 *
 * The device is set up once: two pairs of RC QPs connected to each other
 * over its wire (a UDP socket netdev that sends to itself), the second
 * pair's receiver on an SRQ, a pair of UC QPs, a UD QP, a pair of RUD QPs
 * (frames for them carry the receiving QP's key, as the device drew it,
 * unless the step guesses one), MRs (one for fast
 * registration, one allowing windows), a window of each type, CQs; DCQCN
 * on, and the wire marking every 5th ECN-capable frame CE. Each
 * input then runs on that device, as a list of steps: frames
 * forged around the live QPNs, PSNs and keys (with a correct ICRC or a
 * broken one), raw frames, work the QPs post themselves (so responses,
 * ACKs and retransmissions are in flight), receive WQEs posted to the
 * SRQ, CQEs consumed and time passing. After each input the device is
 * reset and set up the same way again, its RAM discarded first and the
 * frames still on the wire dropped, so that no input sees another's state
 * (cheaper than a fork per input, whose page-table copies cost more than
 * the input: Documentation/fuzzing.rst).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "tests/qtest/fuzz/fuzz.h"
#include "exec/cpu-common.h"
#include "exec/ramblock.h"
#include "hw/boards.h"
#include "net/net.h"
#include "qemu/madvise.h"
#include "axon-nic-qos.h"
#include "axon-nic-forge.h"

/* One step of an input; STEP_FORGED and STEP_RAW take len bytes after it */
typedef struct QEMU_PACKED Step {
    uint8_t kind;
    uint8_t opcode;         /* BTH opcode, or the work request's */
    uint8_t aim;            /* AIM_* */
    uint8_t syndrome;       /* AETH */
    int16_t psn_delta;      /* from the PSN the aimed-at side starts at */
    uint16_t len;           /* payload */
    uint32_t key_xor;       /* 0: the MR's valid key (UD: Q_Key) */
    uint32_t offset;        /* into the MR; a QPN (guessed, or UD's source) */
    uint32_t dmalen;        /* RETH DMA length; the clock step in us */
    uint64_t swap_add;
} Step;

enum {
    STEP_FORGED, STEP_RAW, STEP_POST, STEP_POLL, STEP_CLOCK, STEP_SRQ_RECV,
    STEP_KINDS
};

/* AIM_QP1, AIM_PAIR1 and AIM_PAIR2 pick one of the QPs */
#define AIM_QP1             0x01    /* the second QP of its pair */
#define AIM_MR1             0x02    /* else MR 0 */
#define AIM_OVER_FR         AIM_MR1 /* STEP_POST's BIND_MW: over op_key[0] */
#define AIM_GUESSED_QPN     0x04
#define AIM_BAD_ICRC        0x08
#define AIM_PEER_PSN        0x10    /* the PSNs the other QP sends */
#define AIM_INLINE          0x20    /* STEP_POST: data inline */
#define AIM_PAIR1           0x40    /* the second pair: QP 3 on the SRQ */
#define AIM_PAIR2           0x80    /* the UC pair; with PAIR1: the UD QP */
#define AIM_PAIRS           (AIM_PAIR1 | AIM_PAIR2)

/* The first PSNs rdma_bring_up gives QP 0 and QP 1 to send (and pair 1). */
#define QP0_SQ_PSN 0xfffff0u
#define QP1_SQ_PSN 0x000100u

/* The second pair and its SRQ, between the fixture's queues and MRs */
#define SRQ_RING (R_BASE + 0x300000)
#define SRQ_DEPTH 16
#define PAIR1_SQ(i) (R_BASE + 0x340000 + (i) * 0x8000)
#define PAIR1_RQ (R_BASE + 0x3c0000)
#define PAIR2_SQ(i) (R_BASE + 0x350000 + (i) * 0x8000)
#define PAIR2_RQ(i) (R_BASE + 0x3d0000 + (i) * 0x8000)
#define UD_SQ (R_BASE + 0x360000)
#define UD_RQ (R_BASE + 0x3e0000)
#define UD_QKEY 0x11110000u
#define FR_PBL (R_BASE + 0x370000)      /* the fast-registration MR's list */
#define RUD_SQ(i) (R_BASE + 0x380000 + (i) * 0x8000)
#define RUD_RQ(i) (R_BASE + 0x3f0000 + (i) * 0x8000)
#define RUD_SERVICE AXON_RUD_OPCODE_DATA /* BTH opcodes of RUD */
#define RUD_STEP_POST 0x80              /* Step.syndrome: RUD pair posts */
#define RUD_BAD_KEY 0x80000000u         /* Step.key_xor: a guessed key */
#define FR_PAGES 8

static Rdma *rdma;
static TQp pair1[2];
static TQp pair2[2];                /* UC */
static TQp ud_qp;                   /* its own peer */
static TQp rud[2];                  /* with pair 0's PSNs */
/*
 * The keys the local operations work on: [0] a fast-registration MR, [1]
 * and [2] windows of type 1 and 2 over [3], an MR over MR 1's pages that
 * allows them, or over [0]; each as last registered or bound (by the
 * fuzzer's tag), at op_iova.
 */
static uint32_t op_key[4];
static uint64_t op_iova[4];
static uint32_t srqn;
static uint16_t srq_pi;
static int wire_port;
static int netdev_fd = -1;

static TQp *aimed_qp(const Step *st, int second)
{
    TQp *pair;

    switch (st->aim & AIM_PAIRS) {
    case AIM_PAIR1:
        pair = pair1;
        break;
    case AIM_PAIR2:
        pair = pair2;
        break;
    case AIM_PAIRS:
        return &ud_qp;
    default:
        pair = rdma->qp;
    }
    return &pair[!(st->aim & AIM_QP1) != !second];
}

/*
 * A RUD frame at rud[QP1 ? 1 : 0], carrying that QP's key (or, with
 * RUD_BAD_KEY, one that differs from it), a request the other QP's PSNs,
 * an ACK or READ response the aimed QP's own; then RUDETH (or SACKETH)
 * from the step, the fuzzer's bytes after it.
 */
static void forged_rud(const Step *st, const uint8_t *payload)
{
    int to = !!(st->aim & AIM_QP1);
    bool answer = (st->opcode & 3) >= 2;
    int from = answer ? to : !to;
    TMr *mr = &rdma->mr[st->aim & AIM_MR1 ? 1 : 0];
    uint64_t key = rud[to].key;
    uint8_t p[AXON_RUDETH_LEN + FORGE_MAX_PAYLOAD] = {};
    uint32_t hdr = (st->opcode & 3) == 3 ? AXON_SACKETH_LEN : AXON_RUDETH_LEN;
    uint32_t len = MIN(st->len, FORGE_MAX_PAYLOAD - hdr);
    uint8_t buf[FORGE_MAX_FRAME];
    Forged f = {
        .opcode = RUD_SERVICE | (st->opcode & 3),
        .dqpn = rud[to].qpn,
        .psn = ((from ? QP1_SQ_PSN : QP0_SQ_PSN) + st->psn_delta) &
               AXON_PSN_MASK,
        .payload = p,
        .len = hdr + len,
    };
    size_t n;

    if (st->key_xor & RUD_BAD_KEY) {
        key ^= (uint64_t)st->swap_add << 1 | 1;
    }
    if (hdr == AXON_SACKETH_LEN) {
        stq_be_p(p + AXON_SACKETH_KEY, key);
        p[AXON_SACKETH_SYNDROME] = st->syndrome;
        p[AXON_SACKETH_CE] = st->dmalen;
        stl_be_p(p + AXON_SACKETH_ACK_PSN, f.psn - (st->dmalen >> 8));
        stl_be_p(p + AXON_SACKETH_ERR_PSN, f.psn - (st->offset & 0xffff));
        stl_be_p(p + AXON_SACKETH_ERR_MSG, st->offset >> 16 & 0xff);
    } else {
        stq_be_p(p + AXON_RUDETH_KEY, key);
        stl_be_p(p + AXON_RUDETH_MSG_ID, st->syndrome);         /* message */
        stl_be_p(p + AXON_RUDETH_MSG_LEN, st->dmalen);          /* its length */
        stl_be_p(p + AXON_RUDETH_OFFSET, st->offset % (MEM_PAGES * 4096));
        p[AXON_RUDETH_OP] = st->swap_add % 6;
        stl_be_p(p + AXON_RUDETH_RKEY, mr->key ^ (st->key_xor & ~RUD_BAD_KEY));
        stl_be_p(p + AXON_RUDETH_REQ_LEN, st->swap_add >> 8 & 0xffff);
        stq_be_p(p + AXON_RUDETH_VA, mr->iova);
    }
    memcpy(p + hdr, payload, len);
    n = forge_frame(&f, buf);
    if (st->aim & AIM_BAD_ICRC) {
        buf[n - 1] ^= 0x01;
    }
    inject(rdma->a, buf, n);
}

static void forged_frame(const Step *st, const uint8_t *payload)
{
    TQp *qp = aimed_qp(st, 0);
    TMr *mr = &rdma->mr[st->aim & AIM_MR1 ? 1 : 0];
    /* a request to QP 1 or a response to QP 0 carries QP 0's PSNs */
    bool qp0_psn = !(st->aim & AIM_QP1) != !(st->aim & AIM_PEER_PSN);
    uint8_t buf[FORGE_MAX_FRAME];
    Forged f = {
        .opcode = st->opcode,
        .dqpn = st->aim & AIM_GUESSED_QPN ? st->offset & AXON_QPN_MASK
                                          : qp->qpn,
        .psn = (qp0_psn ? QP0_SQ_PSN : QP1_SQ_PSN) + st->psn_delta,
        .va = mr->iova + st->offset,
        .rkey = mr->key ^ st->key_xor,
        .dmalen = st->dmalen,
        .swap_add = st->swap_add,
        .cmp = st->swap_add >> 7,
        .syndrome = st->syndrome,
        .qkey = UD_QKEY ^ st->key_xor,
        .src_qpn = st->offset & AXON_QPN_MASK,
        .imm = st->swap_add,
        .payload = payload,
        .len = MIN(st->len, FORGE_MAX_PAYLOAD),
    };
    size_t n;

    if ((st->opcode & 0xe0) == RUD_SERVICE) {
        forged_rud(st, payload);
        return;
    }
    n = forge_frame(&f, buf);
    if (st->aim & AIM_BAD_ICRC) {
        buf[n - 1] ^= 0x01;
    }
    inject(rdma->a, buf, n);
}

/* A work request of QP 0 or 1 to the other, as a consumer posts it. */
static void post_work(const Step *st)
{
    static const uint8_t ops[] = {
        AXON_WR_RDMA_WRITE, AXON_WR_RDMA_WRITE_IMM, AXON_WR_SEND,
        AXON_WR_SEND_IMM, AXON_WR_RDMA_READ, AXON_WR_ATOMIC_CMP_SWP,
        AXON_WR_ATOMIC_FETCH_ADD, AXON_WR_SEND_INV, AXON_WR_REG_MR,
        AXON_WR_LOCAL_INV, AXON_WR_BIND_MW,
    };
    int from = st->aim & AIM_QP1 ? 1 : 0;
    bool rud_pair = st->syndrome & RUD_STEP_POST;
    TQp *qp = rud_pair ? &rud[from] : aimed_qp(st, 0);
    TQp *peer = rud_pair ? &rud[!from] : aimed_qp(st, 1);
    uint32_t len = st->len;
    uint8_t op = ops[st->opcode % ARRAY_SIZE(ops)];
    struct axon_sge sg = sge(rdma, from, st->offset % (MEM_PAGES * 4096), len);
    struct axon_sge rsg = sge(rdma, !from, st->dmalen % (MEM_PAGES * 4096),
                              len);
    struct axon_send_wqe w = {
        .opcode = op,
        .flags = AXON_WQE_SIGNALED,
        .num_sge = 1,
        .wr_id = cpu_to_le64(st->swap_add),
        .remote_addr = cpu_to_le64(le64_to_cpu(rsg.addr)),
        .rkey = cpu_to_le32(rdma->mr[!from].key ^ (st->key_xor & 1)),
        .compare_add = cpu_to_le64(st->swap_add),
    };
    uint8_t inl[64] = {};
    uint32_t *target = &op_key[st->syndrome % ARRAY_SIZE(op_key)];

    /* RDMA through a key a local operation made, now and then */
    if (st->key_xor & 2) {
        w.rkey = cpu_to_le32(*target);
        w.remote_addr = cpu_to_le64(op_iova[target - op_key] +
                                    st->dmalen % (MEM_PAGES * 4096));
    }
    if (op == AXON_WR_SEND_INV || op == AXON_WR_LOCAL_INV) {
        w.rkey = cpu_to_le32(*target ^ (st->key_xor >> 8 & 0xff));
    }
    /* a LOCAL_INV names no memory: with an SGE, the device refuses it */
    if (op == AXON_WR_LOCAL_INV && !(st->aim & AIM_INLINE)) {
        w.num_sge = 0;
        post_send(rdma, qp, &w, NULL, NULL);
        return;
    }
    if (op == AXON_WR_REG_MR || op == AXON_WR_BIND_MW) {
        /* a window over the fast-registration MR, or over op_key[3] */
        int parent = st->aim & AIM_OVER_FR ? 0 : 3;

        /* a new tag, or the same: both are rules the device checks */
        target = &op_key[op == AXON_WR_REG_MR ? 0 : 1 + (st->syndrome & 1)];
        *target = AXON_KEY(AXON_KEY_GET_INDEX(*target),
                           AXON_KEY_GET_TAG(*target) + (st->key_xor >> 8));
        w.rkey = cpu_to_le32(*target);
        w.num_sge = 0;
        w.remote_addr = cpu_to_le64(op == AXON_WR_REG_MR ? st->swap_add :
                                    op_iova[parent] +
                                    st->offset % (MEM_PAGES * 4096));
        op_iova[target - op_key] = le64_to_cpu(w.remote_addr);
        memset(&w.reg, 0, sizeof(w.reg));
        if (op == AXON_WR_REG_MR) {
            w.reg.length = cpu_to_le64(st->dmalen);
            w.reg.pbl_addr = cpu_to_le64(FR_PBL);
            w.reg.npages = cpu_to_le32(st->len % (FR_PAGES + 2));
            w.reg.page_shift = 12 + (st->opcode >> 7);
            w.reg.access = st->psn_delta;
        } else {
            w.bind.length = cpu_to_le64(st->dmalen % (MEM_PAGES * 4096));
            w.bind.mr_key = cpu_to_le32(op_key[parent] ^
                                        (st->key_xor >> 16 & 1));
            w.bind.access = st->psn_delta & 0x0e;
        }
        post_send(rdma, qp, &w, NULL, NULL);
        return;
    }
    if (qp == &ud_qp) {
        /* a datagram to itself, through the wire */
        w.remote_qpn = cpu_to_le32(ud_qp.qpn);
        w.qkey = cpu_to_le32(UD_QKEY ^ (st->key_xor & 0x80000001));
        w.rkey = 0;
        own_av(rdma, &w.av);
    }
    /* pair 1's second QP receives from the SRQ only */
    if ((op == AXON_WR_SEND || op == AXON_WR_SEND_IMM ||
         op == AXON_WR_SEND_INV || op == AXON_WR_RDMA_WRITE_IMM) &&
        peer != &pair1[1]) {
        post_recv(rdma, peer, st->swap_add, &rsg, 1);
    }
    if (st->aim & AIM_INLINE && op != AXON_WR_RDMA_READ) {
        w.flags |= AXON_WQE_INLINE;
        w.num_sge = 0;
        w.inline_len = cpu_to_le32(MIN(len, sizeof(inl)));
        post_send(rdma, qp, &w, NULL, inl);
        return;
    }
    post_send(rdma, qp, &w, &sg, NULL);
}

static void post_srq(const Step *st)
{
    struct axon_sge sg = sge(rdma, st->aim & AIM_MR1 ? 1 : 0,
                             st->offset % (MEM_PAGES * 4096), st->len);
    struct axon_recv_wqe w = { .wr_id = cpu_to_le64(st->swap_add),
                               .num_sge = 1 };
    uint64_t addr = SRQ_RING + (srq_pi % SRQ_DEPTH) * (1u << R_WQE_SHIFT);

    qtest_memwrite(rdma->a->qts, addr, &w, sizeof(w));
    qtest_memwrite(rdma->a->qts, addr + sizeof(w), &sg, sizeof(sg));
    /* the producer index as the fuzzer says: valid or not */
    srq_pi += st->opcode & 0x80 ? st->psn_delta : 1;
    ring(rdma, R_UAR, AXON_DB_SRQ, srqn, srq_pi);
}

static void run_input(const uint8_t *data, size_t size)
{
    struct axon_cqe cqe;
    Step st;

    while (size >= sizeof(st)) {
        memcpy(&st, data, sizeof(st));
        data += sizeof(st);
        size -= sizeof(st);
        st.len = MIN(st.len, size);
        switch (st.kind % STEP_KINDS) {
        case STEP_FORGED:
            forged_frame(&st, data);
            break;
        case STEP_RAW:
            inject(rdma->a, data, st.len);
            break;
        case STEP_POST:
            post_work(&st);
            st.len = 0;
            break;
        case STEP_POLL:
            poll_cq_now(rdma, &rdma->cq[st.aim & 1], &cqe);
            st.len = 0;
            break;
        case STEP_SRQ_RECV:
            post_srq(&st);
            st.len = 0;
            break;
        case STEP_CLOCK:
            axon_step(rdma->a, (int64_t)(st.dmalen % 2000000) * 1000);
            st.len = 0;
            break;
        }
        data += st.len;
        size -= st.len;
        flush_events(rdma->a->qts);
    }
    /* what is in flight lands, and retransmission timers fire */
    axon_step(rdma->a, 100 * 1000 * 1000);
}

/*
 * Frames an input sent and the device has not taken yet, in the socket or
 * queued in QEMU between the netdev and the device, must not reach the
 * next input's QPs.
 */
static void drain_wire(void)
{
    NetClientState *nc = qemu_find_netdev("n0");
    uint8_t buf[65536];

    while (recv(netdev_fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0) {
        continue;
    }
    qemu_purge_queued_packets(nc);
    qemu_purge_queued_packets(nc->peer);
}

/* The UDP socket the netdev receives on: the one bound to wire_port. */
static int find_netdev_fd(void)
{
    for (int fd = 0; fd < 1024; fd++) {
        struct sockaddr_in sa;
        socklen_t len = sizeof(sa);

        if (fd != rdma->a->wire_fd &&
            getsockname(fd, (struct sockaddr *)&sa, &len) == 0 &&
            sa.sin_family == AF_INET && ntohs(sa.sin_port) == wire_port) {
            return fd;
        }
    }
    g_assert_not_reached();
}

/* QP 2 (own RQ) and QP 3 (on an SRQ of SRQ_DEPTH), connected. */
static void bring_up_pair1(void)
{
    struct axon_admin_cmd cmd = {};
    uint64_t v;

    srq_pi = 0;
    cmd.srq.ring_addr = cpu_to_le64(SRQ_RING);
    cmd.srq.pdn = cpu_to_le32(rdma->pdn);
    cmd.srq.uar = cpu_to_le32(R_UAR);
    cmd.srq.depth = cpu_to_le16(SRQ_DEPTH);
    cmd.srq.wqe_shift = R_WQE_SHIFT;
    g_assert_cmpuint(cmd_result(rdma->a, &cmd, AXON_ADMIN_CREATE_SRQ, &v),
                     ==, AXON_ADMIN_SUCCESS);
    srqn = v;
    pair1[0] = (TQp){ .sq = PAIR1_SQ(0), .rq = PAIR1_RQ,
                      .scq = &rdma->cq[0], .rcq = &rdma->cq[0] };
    g_assert_cmpuint(create_qp(rdma->a, rdma->pdn, rdma->cq[0].cqn,
                               rdma->cq[0].cqn, pair1[0].sq, pair1[0].rq,
                               R_WQ_DEPTH, 0, &v), ==, AXON_ADMIN_SUCCESS);
    pair1[0].qpn = v;
    pair1[1] = (TQp){ .sq = PAIR1_SQ(1), .scq = &rdma->cq[1],
                      .rcq = &rdma->cq[1] };
    g_assert_cmpuint(create_qp_srq(rdma->a, rdma->pdn, rdma->cq[1].cqn,
                                   rdma->cq[1].cqn, pair1[1].sq, srqn, &v),
                     ==, AXON_ADMIN_SUCCESS);
    pair1[1].qpn = v;
    connect_qp(rdma, &pair1[0], pair1[1].qpn, QP0_SQ_PSN, QP1_SQ_PSN, 7);
    connect_qp(rdma, &pair1[1], pair1[0].qpn, QP1_SQ_PSN, QP0_SQ_PSN, 7);
}

/* The UC pair, with pair 0's PSNs, the UD QP and the RUD pair. */
static void bring_up_uc_ud(void)
{
    for (int i = 0; i < 2; i++) {
        g_assert_cmpuint(create_qp_type(rdma, &pair2[i], AXON_QPT_UC,
                                        PAIR2_SQ(i), PAIR2_RQ(i),
                                        &rdma->cq[i]), ==, AXON_ADMIN_SUCCESS);
    }
    uc_connect(rdma, &pair2[0], pair2[1].qpn, QP0_SQ_PSN, QP1_SQ_PSN);
    uc_connect(rdma, &pair2[1], pair2[0].qpn, QP1_SQ_PSN, QP0_SQ_PSN);
    g_assert_cmpuint(create_qp_type(rdma, &ud_qp, AXON_QPT_UD, UD_SQ, UD_RQ,
                                    &rdma->cq[0]), ==, AXON_ADMIN_SUCCESS);
    ud_to_rts(rdma, &ud_qp, UD_QKEY, QP0_SQ_PSN);
    for (int i = 0; i < 2; i++) {
        g_assert_cmpuint(create_qp_type(rdma, &rud[i], AXON_QPT_RUD,
                                        RUD_SQ(i), RUD_RQ(i), &rdma->cq[i]),
                         ==, AXON_ADMIN_SUCCESS);
    }
    connect_rud(rdma, rud, QP0_SQ_PSN, QP1_SQ_PSN);
}

/*
 * A fast-registration MR whose list is 8 pages of MR 0, an MR over MR 1's
 * pages that allows windows (the page list in the fixture's place is
 * still MR 1's), and a window of each type.
 */
static void bring_up_keys(void)
{
    struct axon_admin_cmd cmd = {};
    uint64_t pbl[FR_PAGES], v;

    for (int i = 0; i < FR_PAGES; i++) {
        pbl[i] = cpu_to_le64(rdma->mr[0].pages[i]);
    }
    qtest_memwrite(rdma->a->qts, FR_PBL, pbl, sizeof(pbl));
    g_assert_cmpuint(create_mr(rdma->a, rdma->pdn,
                               AXON_ACCESS_ALL | AXON_ACCESS_MW_BIND,
                               rdma->mr[1].iova,
                               MEM_PAGES * 4096ULL - 0x123 - 5, MEM_PAGES, 12,
                               1, &v), ==, AXON_ADMIN_SUCCESS);
    op_key[3] = v;
    op_iova[3] = rdma->mr[1].iova;
    cmd.mr.pdn = cpu_to_le32(rdma->pdn);
    cmd.mr.npages = cpu_to_le32(FR_PAGES);
    cmd.mr.flags = cpu_to_le16(AXON_MR_FAST_REG);
    g_assert_cmpuint(cmd_result(rdma->a, &cmd, AXON_ADMIN_CREATE_MR, &v), ==,
                     AXON_ADMIN_SUCCESS);
    op_key[0] = v;
    for (int i = 1; i <= 2; i++) {
        memset(&cmd, 0, sizeof(cmd));
        cmd.mr.pdn = cpu_to_le32(rdma->pdn);
        cmd.mr.flags = cpu_to_le16(i == 1 ? AXON_MR_MW_TYPE1 :
                                   AXON_MR_MW_TYPE2);
        g_assert_cmpuint(cmd_result(rdma->a, &cmd, AXON_ADMIN_CREATE_MR, &v),
                         ==, AXON_ADMIN_SUCCESS);
        op_key[i] = v;
        op_iova[i] = rdma->mr[1].iova;
    }
    op_iova[0] = 0;
}

/* What rdma_bring_up does not set up: the target's own QPs and keys */
static void bring_up_rest(void)
{
    bring_up_pair1();
    bring_up_uc_ud();
    bring_up_keys();
}

/*
 * The state every input starts from, again: the device reset so that it
 * sends no more, nothing left on the wire, RAM back to the zeroes it
 * started with, then set up as pre_fuzz did.
 */
static void start_again(void)
{
    RAMBlock *rb = current_machine->ram->ram_block;

    wr(rdma->a, AXON_REG_CTRL, AXON_CTRL_RESET);
    drain_wire();
    g_assert_cmpint(ram_block_discard_range(rb, 0, rb->used_length), ==, 0);
    rdma_configure(rdma, true, 7);
    bring_up_rest();
}

static void axon_roce_fuzz(QTestState *s, const unsigned char *data,
                           size_t size)
{
    run_input(data, size);
    start_again();
}

static void axon_roce_pre_fuzz(QTestState *s)
{
    Axon *a = axon_attach(s);

    a->run_main_loop = flush_events;
    wire_open(a, wire_port);
    rdma = rdma_bring_up(a, true, 7, false);
    bring_up_rest();
    netdev_fd = find_netdev_fd();
    /* each input faults in the pages it touches again: small ones */
    qemu_madvise(current_machine->ram->ram_block->host,
                 current_machine->ram->ram_block->used_length,
                 QEMU_MADV_NOHUGEPAGE);
}

static GString *axon_roce_cmdline(FuzzTarget *t)
{
    GString *cmd_line = g_string_new(TARGET_NAME);

    wire_port = free_udp_port();
    g_string_append_printf(cmd_line,
        " -display none -machine q35,accel=qtest -nodefaults -m 128M "
        "-device axon-nic,addr=04.0,mac=" T_MAC ",x-wire-loopback=on,"
        "dcqcn=on,dcqcn-line-rate=1000,x-tx-ce-every=5,"
        "netdev=n0 -netdev socket,id=n0,udp=127.0.0.1:%d,"
        "localaddr=127.0.0.1:%d", wire_port, wire_port);
    return cmd_line;
}

static void register_axon_roce_fuzz_targets(void)
{
    fuzz_add_target(&(FuzzTarget){
        .name = "axon-roce-rx-fuzz",
        .description = "RoCEv2 frames into an axon-nic with live RC, UC "
                       "and UD QPs and MRs, the device reset and set up "
                       "again after each input",
        .get_init_cmdline = axon_roce_cmdline,
        .pre_fuzz = axon_roce_pre_fuzz,
        .fuzz = axon_roce_fuzz,
    });
}

fuzz_target_init(register_axon_roce_fuzz_targets);
