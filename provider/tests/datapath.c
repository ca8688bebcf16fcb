// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The provider's data path (io.c, linked in) on hand-built objects: a
 * context, a QP and a CQ whose rings and doorbell page are ordinary
 * memory. The test plays the device: it reads the WQEs and doorbell words
 * the verbs wrote and writes the CQEs they poll. This covers what the
 * device-less tests cannot reach through libibverbs: ibv_post_send/recv,
 * ibv_poll_cq, ibv_req_notify_cq, ibv_bind_mw, the ibv_wr_*() and
 * ibv_start_poll() families, and their errors.
 *
 * Prints TAP (tools/lib/tap.h): the plan, one result per check; exits
 * non-zero if a check failed or did not run.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../axon.h"

#include "tap.h"

/* One TAP result (tools/lib/tap.h), why it failed as a diagnostic. */
static void check(const char *name, bool ok, const char *why)
{
	if (!tap_ok(ok, "%s", name))
		tap_diag("%s", why);
}

/* axon.c is not linked in: the test sets the clock page itself. */
int axon_map_ctx_page(struct axon_context *ctx __maybe_unused,
		      void **page __maybe_unused, uint64_t key __maybe_unused,
		      int prot __maybe_unused, const char *what __maybe_unused)
{
	return EOPNOTSUPP;
}

#define QPN	0x42
#define CQN	0x7
#define CQ_SHIFT 3

static struct axon_context *ctx;
static struct axon_qp *qp;
static struct axon_cq *cq;
static uint32_t *db_page;
static uint32_t cq_pi;		/* the device's CQ producer index */

static uint32_t db_word(unsigned int offset)
{
	return le32toh(db_page[offset / 4]);
}

static void setup(void)
{
	ctx = calloc(1, sizeof(*ctx));
	qp = calloc(1, sizeof(*qp));
	cq = calloc(1, sizeof(*cq));
	db_page = calloc(1, AXON_DB_PAGE_SIZE);
	ctx->db_page = db_page;

	qp->ctx = ctx;
	qp->qpn = QPN;
	qp->dest_qpn = 0x99;
	qp->vqp.qp.context = &ctx->ibvctx.context;
	qp->vqp.qp.send_cq = &cq->vcq.cq;
	qp->vqp.qp.recv_cq = &cq->vcq.cq;
	qp->vqp.qp.state = IBV_QPS_INIT;
	qp->vqp.qp.qp_type = IBV_QPT_RC;
	/* 4 x 128-byte SQ slots: 4 SGEs or 64 inline bytes */
	qp->sq = (struct axon_wq){ .depth = 4, .wqe_shift = 7, .max_sge = 4,
				   .max_inline = 64 };
	qp->sq.buf = calloc(4, 128);
	qp->rq = (struct axon_wq){ .depth = 4, .wqe_shift = 5, .max_sge = 1 };
	qp->rq.buf = calloc(4, 32);
	qp->sq_db = db_page + AXON_DB_SQ / 4;
	qp->rq_db = db_page + AXON_DB_RQ / 4;
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	ctx->qp_table[0] = calloc(AXON_QP_TABLE_SIZE, sizeof(struct axon_qp *));
	ctx->qp_table[0][QPN] = qp;
	axon_qp_ex_set_ops(qp);

	cq->vcq.cq.context = &ctx->ibvctx.context;
	cq->cqn = CQN;
	cq->db = db_page + AXON_DB_CQ_ARM / 4;
	cq->buf = calloc((1 << CQ_SHIFT) + 1, AXON_CQE_SIZE);
	cq->ring.cqes = cq->buf;
	cq->ring.dbrec = (struct axon_cq_dbrec *)(cq->ring.cqes +
						  (1 << CQ_SHIFT));
	cq->ring.depth_shift = CQ_SHIFT;
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
}

/* Device side: complete WQE wqe of qpn on the CQ. */
static void dev_cqe(uint32_t qpn, uint16_t wqe, uint8_t opcode, uint8_t flags,
		    uint64_t wr_id)
{
	struct axon_cqe *cqe = &cq->ring.cqes[cq_pi & ((1 << CQ_SHIFT) - 1)];

	memset(cqe, 0, sizeof(*cqe));
	cqe->wr_id = htole64(wr_id);
	cqe->byte_len = htole32(512);
	cqe->imm_data = htobe32(0xabcd);
	cqe->qpn = htole32(qpn);
	cqe->wqe_index = htole16(wqe);
	cqe->opcode = opcode;
	cqe->flags = flags | (((cq_pi >> CQ_SHIFT) & 1) ^ 1);
	cq_pi++;
}

/* An XRC target QP's receive CQE, naming its XRC SRQ as the device does. */
static void dev_xrc_cqe(uint32_t qpn, uint16_t wqe, uint32_t srqn,
			uint64_t wr_id)
{
	struct axon_cqe *cqe = &cq->ring.cqes[cq_pi & ((1 << CQ_SHIFT) - 1)];

	dev_cqe(qpn, wqe, AXON_WC_RECV, AXON_CQE_RECV, wr_id);
	cqe->src_qp = htole32(srqn);
}

static struct axon_send_wqe *sq_wqe(uint32_t idx)
{
	return axon_wq_slot(&qp->sq, idx);
}

static void test_post_send(void)
{
	char payload[64];
	struct ibv_sge sge = { .addr = 0x1000, .length = 16, .lkey = 0x100 };
	struct ibv_sge isge = { .addr = (uintptr_t)payload, .length = 64 };
	struct ibv_send_wr wr[5], *bad = NULL;
	int i, err;

	memset(payload, 'p', sizeof(payload));
	memset(wr, 0, sizeof(wr));
	for (i = 0; i < 5; i++) {
		wr[i].wr_id = 100 + i;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].next = i < 4 ? &wr[i + 1] : NULL;
	}

	err = axon_post_send(&qp->vqp.qp, &wr[0], &bad);
	check("post-send-init", err == EINVAL && bad == &wr[0] &&
	      !db_word(AXON_DB_SQ), "posted in INIT");
	qp->vqp.qp.state = IBV_QPS_RTR;
	err = axon_post_send(&qp->vqp.qp, &wr[0], &bad);
	check("post-send-rtr", err == EINVAL && bad == &wr[0] &&
	      !db_word(AXON_DB_SQ), "posted in RTR");

	qp->vqp.qp.state = IBV_QPS_RTS;
	wr[2].next = NULL;
	wr[1].opcode = IBV_WR_RDMA_WRITE;
	wr[1].wr.rdma.remote_addr = 0x5000;
	wr[1].wr.rdma.rkey = 0x201;
	wr[2].send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
	wr[2].sg_list = &isge;
	err = axon_post_send(&qp->vqp.qp, &wr[0], &bad);
	check("post-send-list",
	      !err && qp->sq.pi == 3 &&
	      db_word(AXON_DB_SQ) == AXON_DB_WORD(QPN, 3) &&
	      sq_wqe(0)->opcode == AXON_WR_SEND &&
	      le64toh(sq_wqe(0)->wr_id) == 100 &&
	      sq_wqe(1)->opcode == AXON_WR_RDMA_WRITE &&
	      le64toh(sq_wqe(1)->remote_addr) == 0x5000 &&
	      sq_wqe(2)->flags == (AXON_WQE_INLINE | AXON_WQE_SIGNALED) &&
	      le32toh(sq_wqe(2)->inline_len) == 64 &&
	      !memcmp(sq_wqe(2) + 1, payload, 64),
	      "three WQEs and one doorbell with producer index 3");

	/* One slot left: the second of two fails with ENOMEM. */
	wr[2].next = &wr[3];
	err = axon_post_send(&qp->vqp.qp, &wr[3], &bad);
	check("post-send-full", err == ENOMEM && bad == &wr[4] &&
	      qp->sq.pi == 4 && db_word(AXON_DB_SQ) == AXON_DB_WORD(QPN, 4),
	      "the WQE before the full queue must be posted and rung");
}

static void test_poll(void)
{
	struct ibv_sge sge = { .addr = 0x1000, .length = 16, .lkey = 0x100 };
	struct ibv_send_wr swr = { .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND }, *sbad;
	struct ibv_recv_wr rwr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1 },
			   *rbad;
	struct ibv_wc wc[4];
	int n;

	check("poll-empty", axon_poll_cq(&cq->vcq.cq, 4, wc) == 0,
	      "a completion from an empty ring");

	/* WQE 1 completes, and WQE 0 with it: two slots free. */
	dev_cqe(QPN, 1, AXON_WC_RDMA_WRITE, 0, 101);
	n = axon_poll_cq(&cq->vcq.cq, 4, wc);
	check("poll-send",
	      n == 1 && wc[0].wr_id == 101 && wc[0].status == IBV_WC_SUCCESS &&
	      wc[0].opcode == IBV_WC_RDMA_WRITE && wc[0].qp_num == QPN &&
	      wc[0].src_qp == 0x99 && !wc[0].wc_flags && qp->sq.ci == 2 &&
	      le32toh(cq->ring.dbrec->cons_index) == 1,
	      "send completion, SQ retirement or consumer index");
	swr.num_sge = 5;
	check("post-send-sge", axon_post_send(&qp->vqp.qp, &swr, &sbad) ==
	      EINVAL && sbad == &swr && qp->sq.pi == 4,
	      "5 SGEs accepted in a 4-SGE slot");
	swr.num_sge = 1;
	check("poll-frees-slots",
	      !axon_post_send(&qp->vqp.qp, &swr, &sbad) &&
	      !axon_post_send(&qp->vqp.qp, &swr, &sbad) &&
	      axon_post_send(&qp->vqp.qp, &swr, &sbad) == ENOMEM,
	      "exactly two slots should be free");

	check("post-recv", !axon_post_recv(&qp->vqp.qp, &rwr, &rbad) &&
	      db_word(AXON_DB_RQ) == AXON_DB_WORD(QPN, 1), "RQ doorbell");

	/* A CQE of a QP that is gone, then a receive with immediate. */
	dev_cqe(0x55, 0, AXON_WC_SEND, 0, 1);
	dev_cqe(QPN, 0, AXON_WC_RECV, AXON_CQE_RECV | AXON_CQE_WITH_IMM, 7);
	n = axon_poll_cq(&cq->vcq.cq, 4, wc);
	check("poll-recv-imm",
	      n == 1 && wc[0].wr_id == 7 && wc[0].opcode == IBV_WC_RECV &&
	      wc[0].wc_flags == IBV_WC_WITH_IMM &&
	      wc[0].imm_data == htobe32(0xabcd) && wc[0].byte_len == 512 &&
	      qp->rq.ci == 1 && le32toh(cq->ring.dbrec->cons_index) == 3,
	      "receive completion (the unknown QP's CQE dropped)");

	/* A stale index (WQE 0 retired already) is dropped too. */
	dev_cqe(QPN, 0, AXON_WC_SEND, 0, 1);
	check("poll-stale", axon_poll_cq(&cq->vcq.cq, 4, wc) == 0 &&
	      qp->sq.ci == 2 && le32toh(cq->ring.dbrec->cons_index) == 4,
	      "stale send CQE not dropped");

	axon_req_notify_cq(&cq->vcq.cq, 0);
	check("arm-next", db_word(AXON_DB_CQ_ARM) ==
	      AXON_DB_WORD(CQN, AXON_CQ_ARM_NEXT), "arm doorbell");
	axon_req_notify_cq(&cq->vcq.cq, 1);
	check("arm-solicited", db_word(AXON_DB_CQ_ARM) ==
	      AXON_DB_WORD(CQN, AXON_CQ_ARM_SOLICITED), "arm doorbell");

	/* Flush the SQ (WQEs 2..5) so the next tests start empty. */
	dev_cqe(QPN, 5, AXON_WC_SEND, 0, 5);
	n = axon_poll_cq(&cq->vcq.cq, 4, wc);
	check("poll-retire-all", n == 1 && qp->sq.ci == 6, "SQ not empty");
}

static void test_wr_api(void)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;
	struct ibv_sge sgl[5] = {
		{ .addr = 0x2000, .length = 8, .lkey = 0x300 },
		{ .addr = 0x3000, .length = 9, .lkey = 0x301 },
	};
	struct ibv_data_buf bufs[2] = {
		{ .addr = "hello ", .length = 6 },
		{ .addr = "world", .length = 5 },
	};
	uint32_t db;
	int err;

	ibv_wr_start(qpx);
	qpx->wr_id = 11;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(qpx, 0x401, 0x6000, htobe32(5));
	ibv_wr_set_sge_list(qpx, 2, sgl);
	qpx->wr_id = 12;
	qpx->wr_flags = IBV_SEND_INLINE;
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data_list(qpx, 2, bufs);
	qpx->wr_id = 13;
	qpx->wr_flags = IBV_SEND_FENCE;
	ibv_wr_atomic_cmp_swp(qpx, 0x402, 0x7000, 1, 2);
	ibv_wr_set_sge(qpx, 0x301, 0x8000, 8);
	err = ibv_wr_complete(qpx);
	check("wr-batch",
	      !err && qp->sq.pi == 9 &&
	      db_word(AXON_DB_SQ) == AXON_DB_WORD(QPN, 9) &&
	      sq_wqe(6)->opcode == AXON_WR_RDMA_WRITE_IMM &&
	      sq_wqe(6)->flags == AXON_WQE_SIGNALED &&
	      sq_wqe(6)->imm_data == htobe32(5) && sq_wqe(6)->num_sge == 2 &&
	      le64toh(axon_send_wqe_sges(sq_wqe(6))[1].addr) == 0x3000 &&
	      sq_wqe(7)->opcode == AXON_WR_SEND &&
	      sq_wqe(7)->flags == AXON_WQE_INLINE &&
	      le32toh(sq_wqe(7)->inline_len) == 11 &&
	      !memcmp(sq_wqe(7) + 1, "hello world", 11) &&
	      sq_wqe(8)->opcode == AXON_WR_ATOMIC_CMP_SWP &&
	      sq_wqe(8)->flags == AXON_WQE_FENCE &&
	      le64toh(sq_wqe(8)->compare_add) == 1 &&
	      le64toh(sq_wqe(8)->swap) == 2 && le64toh(sq_wqe(8)->wr_id) == 13,
	      "three WQEs of the batch and one doorbell");

	db = db_word(AXON_DB_SQ);
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_sge_list(qpx, 5, sgl);
	err = ibv_wr_complete(qpx);
	check("wr-too-many-sge", err == EINVAL && qp->sq.pi == 9 &&
	      db_word(AXON_DB_SQ) == db, "a failed batch posted something");

	ibv_wr_start(qpx);
	ibv_wr_rdma_read(qpx, 1, 2);
	ibv_wr_set_inline_data(qpx, "x", 1);
	err = ibv_wr_complete(qpx);
	check("wr-inline-read", err == EINVAL && qp->sq.pi == 9,
	      "inline READ accepted");

	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_send(qpx);
	err = ibv_wr_complete(qpx);
	check("wr-full", err == ENOMEM && qp->sq.pi == 9,
	      "two WQEs in one free slot");

	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_abort(qpx);
	check("wr-abort", qp->sq.pi == 9 && db_word(AXON_DB_SQ) == db,
	      "an aborted batch posted something");

	qp->vqp.qp.state = IBV_QPS_RESET;
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	err = ibv_wr_complete(qpx);
	check("wr-reset", err == EINVAL && qp->sq.pi == 9, "posted in RESET");
	qp->vqp.qp.state = IBV_QPS_RTS;
}

static void test_cq_ex(bool single_threaded)
{
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;
	struct ibv_poll_cq_attr attr = {};
	const char *name = single_threaded ? "cq-ex-unlocked" : "cq-ex";
	uint32_t ci = le32toh(cq->ring.dbrec->cons_index);
	bool ok;

	axon_cq_ex_set_ops(cq, IBV_WC_STANDARD_FLAGS, single_threaded);
	ok = ibv_start_poll(cqx, &attr) == ENOENT;

	dev_cqe(QPN, qp->sq.pi - 2, AXON_WC_SEND, 0, 21);
	dev_cqe(QPN, qp->sq.pi - 1, AXON_WC_COMP_SWAP, 0, 22);
	ok &= !ibv_start_poll(cqx, &attr) && cqx->wr_id == 21 &&
	      cqx->status == IBV_WC_SUCCESS &&
	      ibv_wc_read_opcode(cqx) == IBV_WC_SEND &&
	      ibv_wc_read_qp_num(cqx) == QPN &&
	      ibv_wc_read_src_qp(cqx) == 0x99 &&
	      ibv_wc_read_byte_len(cqx) == 512 && !ibv_wc_read_wc_flags(cqx);
	/* Not handed back before end_poll: the CQE is still being read. */
	ok &= le32toh(cq->ring.dbrec->cons_index) == ci;
	ok &= !ibv_next_poll(cqx) && cqx->wr_id == 22 &&
	      ibv_wc_read_opcode(cqx) == IBV_WC_COMP_SWAP;
	ok &= ibv_next_poll(cqx) == ENOENT;
	ibv_end_poll(cqx);
	ok &= le32toh(cq->ring.dbrec->cons_index) == ci + 2 &&
	      qp->sq.ci == qp->sq.pi;
	/* The lock must be free again. */
	ok &= pthread_spin_trylock(&cq->lock) == 0;
	pthread_spin_unlock(&cq->lock);

	attr.comp_mask = 1;
	ok &= ibv_start_poll(cqx, &attr) == EINVAL &&
	      pthread_spin_trylock(&cq->lock) == 0;
	pthread_spin_unlock(&cq->lock);
	check(name, ok, "start/next/end_poll and the read_* functions");
}

/*
 * A CQ of 64-byte CQEs (struct axon_cqe_ts): both pollers step over
 * whole entries, read_completion_ts gives the device's stamp and the
 * wallclock reading adds the offset to CLOCK_REALTIME taken from the
 * clock page (here a buffer holding a device time).
 */
static void test_cq_timestamp(void)
{
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;
	struct axon_cqring saved = cq->ring;
	uint32_t saved_pi = cq_pi;
	struct ibv_poll_cq_attr attr = {};
	struct axon_cqe_ts *ring = calloc((1 << CQ_SHIFT) + 1,
					  AXON_CQE_TS_SIZE);
	uint64_t *clock = calloc(1, AXON_DB_PAGE_SIZE);
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND }, *bad;
	struct timespec now;
	struct ibv_wc wc;
	int64_t wall, want;
	bool ok;

	cq->cqe_size = AXON_CQE_TS_SIZE;
	cq->ring = (struct axon_cqring){ .cqes = &ring[0].cqe,
		.dbrec = (struct axon_cq_dbrec *)&ring[1 << CQ_SHIFT],
		.depth_shift = CQ_SHIFT, .stride_shift = 1 };
	cq_pi = 0;
	ctx->resp_comp_mask |= AXON_UCONTEXT_RESP_CLOCK;
	ctx->clock_page = clock;
	*clock = htole64(5000000000ULL);
	ok = !axon_clock_sample(ctx);
	axon_cq_ex_set_ops(cq, IBV_WC_STANDARD_FLAGS |
			   IBV_WC_EX_WITH_COMPLETION_TIMESTAMP |
			   IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK, false);

	for (int i = 0; i < 3; i++) {
		ok &= !axon_post_send(&qp->vqp.qp, &wr, &bad);
		ring[i].cqe = (struct axon_cqe){ .wr_id = htole64(60 + i),
			.qpn = htole32(QPN), .wqe_index = htole16(qp->sq.pi - 1),
			.opcode = AXON_WC_SEND, .flags = AXON_CQE_PHASE };
		ring[i].timestamp = htole64(4000000000ULL + i);
	}
	ok &= axon_poll_cq(&cq->vcq.cq, 1, &wc) == 1 && wc.wr_id == 60;
	ok &= !ibv_start_poll(cqx, &attr) && cqx->wr_id == 61 &&
	      ibv_wc_read_completion_ts(cqx) == 4000000001ULL;
	/* device time 4e9 + 1 is 1e9 - 1 ns before the sample at 5e9 */
	wall = (int64_t)ibv_wc_read_completion_wallclock_ns(cqx);
	clock_gettime(CLOCK_REALTIME, &now);
	want = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec - 999999999LL;
	ok &= wall <= want && want - wall < 1000000000LL;
	ok &= !ibv_next_poll(cqx) && cqx->wr_id == 62 &&
	      ibv_wc_read_completion_ts(cqx) == 4000000002ULL;
	ok &= ibv_next_poll(cqx) == ENOENT;
	ibv_end_poll(cqx);
	ok &= le32toh(cq->ring.dbrec->cons_index) == 3 &&
	      qp->sq.ci == qp->sq.pi;
	check("cq-timestamp", ok, "64-byte CQEs, their stamps and wallclock");

	cq->ring = saved;
	cq_pi = saved_pi;
	cq->cqe_size = AXON_CQE_SIZE;
	ctx->clock_page = NULL;
	ctx->resp_comp_mask = 0;
	axon_cq_ex_set_ops(cq, IBV_WC_STANDARD_FLAGS, false);
	free(clock);
	free(ring);
}

/* In ERR, sends are posted: the device completes them flushed. */
static void test_post_err(void)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND }, *bad;
	uint32_t pi = qp->sq.pi;
	int err;

	qp->vqp.qp.state = IBV_QPS_ERR;
	err = axon_post_send(&qp->vqp.qp, &wr, &bad);
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	err |= ibv_wr_complete(qpx);
	check("post-send-err", !err && qp->sq.pi == pi + 2 &&
	      db_word(AXON_DB_SQ) == AXON_DB_WORD(QPN, pi + 2),
	      "sends refused in ERR");
	dev_cqe(QPN, pi + 1, AXON_WC_SEND, 0, 0);
	qp->vqp.qp.state = IBV_QPS_RTS;
}

static int poll_all(struct axon_cq *c, struct ibv_wc *wc)
{
	return axon_poll_cq(&c->vcq.cq, 4, wc);
}

/*
 * A move to RESET while CQEs of the QP wait in its CQ: after it those
 * CQEs must not retire the WQEs posted since, nor report their wr_ids.
 */
static void test_reset(void)
{
	struct ibv_sge sge = { .addr = 0x1000, .length = 16, .lkey = 0x100 };
	struct ibv_send_wr swr = { .wr_id = 31, .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND }, *sbad;
	struct ibv_recv_wr rwr = { .wr_id = 51, .sg_list = &sge, .num_sge = 1 },
			   *rbad;
	struct ibv_wc wc[4];
	int n;

	poll_all(cq, wc);
	axon_qp_reset_queues(qp);
	check("reset-queues", !qp->sq.pi && !qp->sq.ci && !qp->rq.pi &&
	      !qp->rq.ci && !pthread_spin_trylock(&cq->lock),
	      "queues not restarted, or the CQ lock left held");
	pthread_spin_unlock(&cq->lock);

	/* Send 0 and a receive complete; nobody polls before the reset. */
	axon_post_send(&qp->vqp.qp, &swr, &sbad);
	axon_post_recv(&qp->vqp.qp, &rwr, &rbad);
	dev_cqe(QPN, 0, AXON_WC_SEND, 0, 31);
	dev_cqe(QPN, 0, AXON_WC_RECV, AXON_CQE_RECV, 51);
	axon_qp_reset_queues(qp);

	swr.wr_id = 41;
	rwr.wr_id = 61;
	axon_post_send(&qp->vqp.qp, &swr, &sbad);
	axon_post_recv(&qp->vqp.qp, &rwr, &rbad);
	n = poll_all(cq, wc);
	check("reset-purges-cqes", n == 0 && qp->sq.ci == 0 && qp->rq.ci == 0,
	      "a CQE from before the reset retired a new WQE");

	dev_cqe(QPN, 0, AXON_WC_SEND, 0, 41);
	dev_cqe(QPN, 0, AXON_WC_RECV, AXON_CQE_RECV, 61);
	n = poll_all(cq, wc);
	check("reset-new-cqes", n == 2 && wc[0].wr_id == 41 &&
	      wc[1].wr_id == 61 && qp->sq.ci == 1 && qp->rq.ci == 1,
	      "the new WQEs' completions");
}

/* A second QP on its own send CQ and the shared receive CQ. */
static struct axon_qp *qp2;
static struct axon_cq *cq2;

static void setup_qp2(uint32_t qpn)
{
	qp2 = calloc(1, sizeof(*qp2));
	*qp2 = (struct axon_qp){ .ctx = ctx, .qpn = qpn,
				 .sq = qp->sq, .rq = qp->rq,
				 .sq_db = qp->sq_db, .rq_db = qp->rq_db };
	qp2->sq.pi = qp2->sq.ci = qp2->rq.pi = qp2->rq.ci = 0;
	qp2->vqp.qp = (struct ibv_qp){ .context = &ctx->ibvctx.context,
				       .send_cq = &cq2->vcq.cq,
				       .recv_cq = &cq->vcq.cq,
				       .state = IBV_QPS_RTS };
	pthread_spin_init(&qp2->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp2->rq_lock, PTHREAD_PROCESS_PRIVATE);
	ctx->qp_table[0][qpn] = qp2;
}

/* Device side: write a CQE on cq2 (its ring shares cq's layout). */
static void dev_cqe2(uint32_t *pi, uint32_t qpn, uint16_t wqe, uint64_t wr_id)
{
	struct axon_cqe *cqe = &cq2->ring.cqes[*pi & ((1 << CQ_SHIFT) - 1)];

	memset(cqe, 0, sizeof(*cqe));
	cqe->wr_id = htole64(wr_id);
	cqe->qpn = htole32(qpn);
	cqe->wqe_index = htole16(wqe);
	cqe->opcode = AXON_WC_SEND;
	cqe->flags = ((*pi >> CQ_SHIFT) & 1) ^ 1;
	(*pi)++;
}

/*
 * Destroying a QP (verbs.c: locks, table, purge) while its CQEs and
 * another QP's wait: the other's survive, and a QP created with the same
 * qpn sees none of the old ones.
 */
static void test_destroy(void)
{
	struct ibv_sge sge = { .addr = 0x1000, .length = 16, .lkey = 0x100 };
	struct ibv_send_wr swr = { .wr_id = 71, .sg_list = &sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND }, *sbad;
	struct ibv_recv_wr rwr = { .wr_id = 72, .sg_list = &sge, .num_sge = 1 },
			   *rbad;
	uint32_t cq2_pi = 0;
	struct ibv_wc wc[4];
	bool ok;
	int n;

	cq2 = calloc(1, sizeof(*cq2));
	*cq2 = *cq;
	cq2->cqn = CQN - 1;	/* locked before cq */
	cq2->buf = calloc((1 << CQ_SHIFT) + 1, AXON_CQE_SIZE);
	cq2->ring = (struct axon_cqring){ .cqes = cq2->buf,
		.dbrec = (struct axon_cq_dbrec *)((struct axon_cqe *)cq2->buf +
						  (1 << CQ_SHIFT)),
		.depth_shift = CQ_SHIFT };
	pthread_spin_init(&cq2->lock, PTHREAD_PROCESS_PRIVATE);
	setup_qp2(0x43);

	axon_qp_lock_cqs(qp2);
	ok = pthread_spin_trylock(&cq->lock) == EBUSY &&
	     pthread_spin_trylock(&cq2->lock) == EBUSY;
	axon_qp_unlock_cqs(qp2);
	ok &= !pthread_spin_trylock(&cq->lock) &&
	      !pthread_spin_trylock(&cq2->lock);
	pthread_spin_unlock(&cq2->lock);
	pthread_spin_unlock(&cq->lock);
	axon_qp_lock_cqs(qp);
	ok &= pthread_spin_trylock(&cq->lock) == EBUSY &&
	      !pthread_spin_trylock(&cq2->lock);
	pthread_spin_unlock(&cq2->lock);
	axon_qp_unlock_cqs(qp);
	ok &= !pthread_spin_trylock(&cq->lock);
	pthread_spin_unlock(&cq->lock);
	check("lock-cqs", ok, "both CQs, or the one shared CQ once");

	/* qp2's send and receive complete between two receives of qp. */
	axon_post_send(&qp2->vqp.qp, &swr, &sbad);
	axon_post_recv(&qp2->vqp.qp, &rwr, &rbad);
	rwr.wr_id = 81;
	axon_post_recv(&qp->vqp.qp, &rwr, &rbad);
	axon_post_recv(&qp->vqp.qp, &rwr, &rbad);
	dev_cqe2(&cq2_pi, 0x43, 0, 71);
	dev_cqe(QPN, 0, AXON_WC_RECV, AXON_CQE_RECV, 81);
	dev_cqe(0x43, 0, AXON_WC_RECV, AXON_CQE_RECV, 72);
	dev_cqe(QPN, 0, AXON_WC_RECV, AXON_CQE_RECV, 82);

	axon_qp_lock_cqs(qp2);
	ctx->qp_table[0][0x43] = NULL;
	axon_qp_purge_cqes(qp2);
	axon_qp_unlock_cqs(qp2);
	free(qp2);

	/* A new QP gets qpn 0x43 and posts before anyone polls. */
	setup_qp2(0x43);
	swr.wr_id = 91;
	rwr.wr_id = 92;
	axon_post_send(&qp2->vqp.qp, &swr, &sbad);
	axon_post_recv(&qp2->vqp.qp, &rwr, &rbad);
	n = poll_all(cq, wc);
	ok = n == 2 && wc[0].wr_id == 81 && wc[1].wr_id == 82 &&
	     qp2->rq.ci == 0;
	ok &= poll_all(cq2, wc) == 0 && qp2->sq.ci == 0 &&
	      le32toh(cq2->ring.dbrec->cons_index) == 1;
	check("destroy-purges-cqes", ok,
	      "the old QP's CQEs retired the new QP's WQEs, or qp's got lost");
}

/* A UD QP on the shared CQ, and address handles of its PD and another. */
#define UD_QPN	0x44

static struct ibv_pd pd, other_pd;
static struct axon_qp *ud;
static struct axon_ah ah, foreign_ah;

static void setup_ud(void)
{
	static const struct ibv_ah_attr attr = {
		.grh.dgid.raw = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 2 },
		.grh.sgid_index = 3,
		.grh.hop_limit = 64,
		.is_global = 1,
		.port_num = 1,
	};
	static const uint8_t dmac[6] = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 };

	ud = calloc(1, sizeof(*ud));
	*ud = (struct axon_qp){ .ctx = ctx, .qpn = UD_QPN,
				.sq = qp->sq, .rq = qp->rq,
				.sq_db = qp->sq_db, .rq_db = qp->rq_db };
	ud->sq.buf = calloc(4, 128);
	ud->rq.buf = calloc(4, 32);
	ud->sq.pi = ud->sq.ci = ud->rq.pi = ud->rq.ci = 0;
	ud->vqp.qp = (struct ibv_qp){ .context = &ctx->ibvctx.context,
				      .pd = &pd,
				      .send_cq = &cq->vcq.cq,
				      .recv_cq = &cq->vcq.cq,
				      .qp_type = IBV_QPT_UD,
				      .state = IBV_QPS_RTS };
	pthread_spin_init(&ud->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&ud->rq_lock, PTHREAD_PROCESS_PRIVATE);
	ctx->qp_table[0][UD_QPN] = ud;
	axon_qp_ex_set_ops(ud);

	ah.ibvah.pd = &pd;
	axon_ud_av_init(&ah.av, &attr, dmac);
	foreign_ah.ibvah.pd = &other_pd;
	foreign_ah.av = ah.av;
}

static struct axon_send_wqe *ud_wqe(uint32_t idx)
{
	return axon_wq_slot(&ud->sq, idx);
}

static bool ud_wqe_is(uint32_t idx, uint8_t opcode, uint32_t qpn,
		      uint32_t qkey)
{
	struct axon_send_wqe *w = ud_wqe(idx);

	return w->opcode == opcode && le32toh(w->remote_qpn) == qpn &&
	       le32toh(w->qkey) == qkey && !w->rkey &&
	       !memcmp(&w->av, &ah.av, sizeof(ah.av));
}

static void test_ud_post(void)
{
	struct ibv_sge sge = { .addr = 0x1000, .length = 16, .lkey = 0x100 };
	struct ibv_send_wr wr[2] = {
		{ .wr_id = 1, .sg_list = &sge, .num_sge = 1,
		  .opcode = IBV_WR_SEND_WITH_IMM, .imm_data = htobe32(9),
		  .wr.ud = { .ah = &ah.ibvah, .remote_qpn = 0x123,
			     .remote_qkey = 0x11111111 } },
		/* its union member is rdma: no AH to follow */
		{ .wr_id = 2, .sg_list = &sge, .num_sge = 1,
		  .opcode = IBV_WR_RDMA_WRITE,
		  .wr.rdma = { .remote_addr = 0xdead000000000000ull,
			       .rkey = 0x201 } },
	}, *bad = NULL;
	int err;

	wr[0].next = &wr[1];
	err = axon_post_send(&ud->vqp.qp, &wr[0], &bad);
	check("ud-post-write", err == EINVAL && bad == &wr[1] &&
	      ud->sq.pi == 1 && db_word(AXON_DB_SQ) == AXON_DB_WORD(UD_QPN, 1) &&
	      ud_wqe_is(0, AXON_WR_SEND_IMM, 0x123, 0x11111111) &&
	      ud_wqe(0)->imm_data == htobe32(9),
	      "the SEND posted with its address, the RDMA WRITE refused");

	wr[0].next = NULL;
	wr[0].wr.ud.ah = &foreign_ah.ibvah;
	err = axon_post_send(&ud->vqp.qp, &wr[0], &bad);
	wr[0].wr.ud.ah = NULL;
	err |= axon_post_send(&ud->vqp.qp, &wr[0], &bad) << 8;
	check("ud-post-bad-ah", err == (EINVAL | EINVAL << 8) &&
	      bad == &wr[0] && ud->sq.pi == 1,
	      "an AH of another PD, or none, accepted");
}

static void test_ud_wr_api(void)
{
	struct ibv_qp_ex *qpx = &ud->vqp.qp_ex;
	uint32_t db;
	int err;

	check("ud-wr-ops", qpx->wr_set_ud_addr && !qpx->wr_rdma_write &&
	      !qpx->wr_atomic_fetch_add, "UD QPs get SENDs and addresses only");

	ibv_wr_start(qpx);
	qpx->wr_id = 3;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, &ah.ibvah, 0x456, 0x22222222);
	ibv_wr_set_inline_data(qpx, "hi", 2);
	qpx->wr_id = 4;
	ibv_wr_send_imm(qpx, htobe32(7));
	ibv_wr_set_sge(qpx, 0x100, 0x2000, 8);
	ibv_wr_set_ud_addr(qpx, &ah.ibvah, 0x457, 0x80000000);
	err = ibv_wr_complete(qpx);
	check("ud-wr-batch", !err && ud->sq.pi == 3 &&
	      db_word(AXON_DB_SQ) == AXON_DB_WORD(UD_QPN, 3) &&
	      ud_wqe_is(1, AXON_WR_SEND, 0x456, 0x22222222) &&
	      ud_wqe(1)->flags == (AXON_WQE_SIGNALED | AXON_WQE_INLINE) &&
	      !memcmp(ud_wqe(1) + 1, "hi", 2) &&
	      ud_wqe_is(2, AXON_WR_SEND_IMM, 0x457, 0x80000000) &&
	      ud_wqe(2)->imm_data == htobe32(7) && ud_wqe(2)->num_sge == 1,
	      "two UD WQEs with their addresses and one doorbell");

	db = db_word(AXON_DB_SQ);
	qpx->wr_flags = 0;
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, &ah.ibvah, 1, 1);
	err = ibv_wr_complete(qpx);
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	err |= ibv_wr_complete(qpx) << 8;
	check("ud-wr-no-addr", err == (EINVAL | EINVAL << 8) &&
	      ud->sq.pi == 3 && db_word(AXON_DB_SQ) == db,
	      "a UD WQE without an address posted");

	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, &foreign_ah.ibvah, 1, 1);
	err = ibv_wr_complete(qpx);
	qpx->wr_flags = IBV_SEND_FENCE;
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, &ah.ibvah, 1, 1);
	err |= ibv_wr_complete(qpx) << 8;
	qpx->wr_flags = 0;
	check("ud-wr-bad", err == (EINVAL | EINVAL << 8) && ud->sq.pi == 3,
	      "an AH of another PD or a fence accepted");
}

/* Completions: a receive names its sender, a send has no peer. */
static void test_ud_poll(void)
{
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;
	struct ibv_poll_cq_attr attr = {};
	struct ibv_sge sge = { .addr = 0x1000, .length = 4096, .lkey = 0x100 };
	struct ibv_recv_wr rwr = { .wr_id = 5, .sg_list = &sge, .num_sge = 1 },
			   *rbad;
	struct axon_cqe *cqe;
	struct ibv_wc wc[4];
	int n;
	bool ok;

	poll_all(cq, wc);
	axon_post_recv(&ud->vqp.qp, &rwr, &rbad);
	axon_post_recv(&ud->vqp.qp, &rwr, &rbad);
	dev_cqe(UD_QPN, 2, AXON_WC_SEND, 0, 3);
	dev_cqe(UD_QPN, 0, AXON_WC_RECV, AXON_CQE_RECV | AXON_CQE_GRH |
		AXON_CQE_GRH_IPV4 | AXON_CQE_WITH_IMM, 5);
	cqe = &cq->ring.cqes[(cq_pi - 1) & ((1 << CQ_SHIFT) - 1)];
	cqe->src_qp = htole32(0x123);
	n = poll_all(cq, wc);
	check("ud-poll",
	      n == 2 && wc[0].wr_id == 3 && !wc[0].wc_flags && !wc[0].src_qp &&
	      ud->sq.ci == 3 && wc[1].wr_id == 5 &&
	      wc[1].wc_flags == (IBV_WC_GRH | IBV_WC_WITH_IMM) &&
	      wc[1].src_qp == 0x123 && wc[1].byte_len == 512 &&
	      !wc[1].pkey_index && !wc[1].slid &&
	      wc[1].sl == (AXON_WC_SL_UDP | AXON_WC_SL_IPV4) && !wc[0].sl &&
	      !wc[1].dlid_path_bits && ud->rq.ci == 1,
	      "send and UD receive completions");

	axon_cq_ex_set_ops(cq, IBV_WC_STANDARD_FLAGS, false);
	dev_cqe(UD_QPN, 1, AXON_WC_RECV, AXON_CQE_RECV | AXON_CQE_GRH, 6);
	cqe = &cq->ring.cqes[(cq_pi - 1) & ((1 << CQ_SHIFT) - 1)];
	cqe->src_qp = htole32(0xabc);
	ok = !ibv_start_poll(cqx, &attr) && cqx->wr_id == 6 &&
	     ibv_wc_read_src_qp(cqx) == 0xabc &&
	     ibv_wc_read_wc_flags(cqx) == IBV_WC_GRH &&
	     ibv_wc_read_sl(cqx) == (AXON_WC_SL_UDP | AXON_WC_SL_IPV6) &&
	     ibv_wc_read_qp_num(cqx) == UD_QPN;
	ibv_end_poll(cqx);
	check("ud-cq-ex", ok && ud->rq.ci == 2,
	      "ibv_wc_read_src_qp(), ibv_wc_read_sl() (RoCE v2 IPv6) and the GRH flag");
}

/* The last CQE dev_cqe() wrote. */
static struct axon_cqe *last_cqe(void)
{
	return &cq->ring.cqes[(cq_pi - 1) & ((1 << CQ_SHIFT) - 1)];
}

/*
 * Memory windows on the RC QP: ibv_bind_mw() (type 1: the new key kept
 * only when posted), IBV_WR_BIND_MW, LOCAL_INV and SEND_WITH_INV through
 * ibv_post_send() and ibv_wr_*(), and their completions.
 */
static void test_mw(void)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;
	struct ibv_poll_cq_attr attr = {};
	struct ibv_mr mr = { .pd = &pd, .lkey = 0x3300, .rkey = 0x3300 };
	struct ibv_mw mw1 = { .pd = &pd, .rkey = 0x12ff, .type = IBV_MW_TYPE_1 };
	struct ibv_mw mw2 = { .pd = &pd, .rkey = 0x1400, .type = IBV_MW_TYPE_2 };
	struct ibv_mw_bind bind = {
		.wr_id = 0x61, .send_flags = IBV_SEND_SIGNALED,
		.bind_info = { .mr = &mr, .addr = 0x10000, .length = 4096,
			       .mw_access_flags = IBV_ACCESS_REMOTE_WRITE },
	};
	struct ibv_sge sge = { .addr = 0x1000, .length = 16, .lkey = 0x100 };
	struct ibv_send_wr wr[3] = {
		{ .wr_id = 0x62, .opcode = IBV_WR_LOCAL_INV,
		  .invalidate_rkey = 0x1300 },
		{ .wr_id = 0x63, .opcode = IBV_WR_SEND_WITH_INV,
		  .sg_list = &sge, .num_sge = 1, .invalidate_rkey = 0x5501 },
		{ .wr_id = 0x64, .opcode = IBV_WR_BIND_MW,
		  .send_flags = IBV_SEND_SIGNALED,
		  .bind_mw = { .mw = &mw2, .rkey = 0x1401,
			       .bind_info = bind.bind_info } },
	}, *bad = NULL;
	struct ibv_recv_wr rwr = { .wr_id = 0x65, .sg_list = &sge,
				   .num_sge = 1 }, *rbad;
	uint32_t pi = qp->sq.pi, db;
	struct ibv_wc wc[4];
	int err, n;
	bool ok;

	err = axon_bind_mw(&qp->vqp.qp, &mw1, &bind);
	check("bind-mw-type1",
	      !err && mw1.rkey == 0x1200 && qp->sq.pi == pi + 1 &&
	      db_word(AXON_DB_SQ) == AXON_DB_WORD(QPN, pi + 1) &&
	      sq_wqe(pi)->opcode == AXON_WR_BIND_MW &&
	      sq_wqe(pi)->flags == AXON_WQE_SIGNALED &&
	      le64toh(sq_wqe(pi)->wr_id) == 0x61 &&
	      le32toh(sq_wqe(pi)->rkey) == 0x1200 &&
	      le64toh(sq_wqe(pi)->remote_addr) == 0x10000 &&
	      le64toh(sq_wqe(pi)->bind.length) == 4096 &&
	      le32toh(sq_wqe(pi)->bind.mr_key) == 0x3300 &&
	      sq_wqe(pi)->bind.access == AXON_ACCESS_REMOTE_WRITE,
	      "the WQE under the next tag (wrapping), the window's new key");

	bind.bind_info.mw_access_flags = IBV_ACCESS_ZERO_BASED;
	err = axon_bind_mw(&qp->vqp.qp, &mw1, &bind);
	bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_READ;
	err |= axon_bind_mw(&ud->vqp.qp, &mw1, &bind) << 8;
	check("bind-mw-einval",
	      err == (EINVAL | EINVAL << 8) && mw1.rkey == 0x1200 &&
	      qp->sq.pi == pi + 1 && ud->sq.pi == ud->sq.ci,
	      "a zero-based window, or a bind on a UD QP, accepted");

	wr[0].next = &wr[1];
	wr[1].next = &wr[2];
	err = axon_post_send(&qp->vqp.qp, &wr[0], &bad);
	check("post-send-mw",
	      !err && qp->sq.pi == pi + 4 && mw2.rkey == 0x1400 &&
	      sq_wqe(pi + 1)->opcode == AXON_WR_LOCAL_INV &&
	      le32toh(sq_wqe(pi + 1)->rkey) == 0x1300 &&
	      !sq_wqe(pi + 1)->num_sge &&
	      sq_wqe(pi + 2)->opcode == AXON_WR_SEND_INV &&
	      le32toh(sq_wqe(pi + 2)->rkey) == 0x5501 &&
	      sq_wqe(pi + 2)->num_sge == 1 &&
	      sq_wqe(pi + 3)->opcode == AXON_WR_BIND_MW &&
	      le32toh(sq_wqe(pi + 3)->rkey) == 0x1401 &&
	      le32toh(sq_wqe(pi + 3)->bind.mr_key) == 0x3300,
	      "LOCAL_INV, SEND_WITH_INV and a type 2 BIND_MW; mw->rkey kept");

	/* both binds, the LOCAL_INV, a receive invalidating 0x1401 */
	axon_post_recv(&qp->vqp.qp, &rwr, &rbad);
	dev_cqe(QPN, pi, AXON_WC_BIND_MW, 0, 0x61);
	dev_cqe(QPN, pi + 1, AXON_WC_LOCAL_INV, 0, 0x62);
	dev_cqe(QPN, 0, AXON_WC_RECV, AXON_CQE_RECV | AXON_CQE_WITH_INV, 0x65);
	last_cqe()->imm_data = htobe32(0x1401);
	dev_cqe(QPN, pi + 3, AXON_WC_BIND_MW, 0, 0x64);
	last_cqe()->status = AXON_WC_MW_BIND_ERR;
	n = poll_all(cq, wc);
	check("poll-mw",
	      n == 4 && wc[0].opcode == IBV_WC_BIND_MW && wc[0].wr_id == 0x61 &&
	      wc[1].opcode == IBV_WC_LOCAL_INV &&
	      wc[2].opcode == IBV_WC_RECV &&
	      wc[2].wc_flags == IBV_WC_WITH_INV &&
	      wc[2].invalidated_rkey == 0x1401 &&
	      wc[3].opcode == IBV_WC_BIND_MW &&
	      wc[3].status == IBV_WC_MW_BIND_ERR && qp->sq.ci == pi + 4,
	      "IBV_WC_BIND_MW, _LOCAL_INV, WITH_INV's key, MW_BIND_ERR");

	check("wr-mw-ops", qpx->wr_bind_mw && qpx->wr_local_inv &&
	      qpx->wr_send_inv && !ud->vqp.qp_ex.wr_bind_mw &&
	      !ud->vqp.qp_ex.wr_local_inv && !ud->vqp.qp_ex.wr_send_inv,
	      "RC QPs get the window operations, UD QPs do not");

	pi = qp->sq.pi;
	ibv_wr_start(qpx);
	qpx->wr_id = 0x71;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(qpx, &mw2, 0x1402, &bind.bind_info);
	qpx->wr_id = 0x72;
	qpx->wr_flags = 0;
	ibv_wr_local_inv(qpx, 0x1402);
	qpx->wr_id = 0x73;
	ibv_wr_send_inv(qpx, 0x5502);
	ibv_wr_set_inline_data(qpx, "bye", 3);
	err = ibv_wr_complete(qpx);
	check("wr-mw-batch",
	      !err && qp->sq.pi == pi + 3 &&
	      db_word(AXON_DB_SQ) == AXON_DB_WORD(QPN, pi + 3) &&
	      sq_wqe(pi)->opcode == AXON_WR_BIND_MW &&
	      sq_wqe(pi)->flags == AXON_WQE_SIGNALED &&
	      le32toh(sq_wqe(pi)->rkey) == 0x1402 &&
	      sq_wqe(pi)->bind.access == AXON_ACCESS_REMOTE_READ &&
	      sq_wqe(pi + 1)->opcode == AXON_WR_LOCAL_INV &&
	      le32toh(sq_wqe(pi + 1)->rkey) == 0x1402 &&
	      le64toh(sq_wqe(pi + 1)->wr_id) == 0x72 &&
	      sq_wqe(pi + 2)->opcode == AXON_WR_SEND_INV &&
	      le32toh(sq_wqe(pi + 2)->rkey) == 0x5502 &&
	      sq_wqe(pi + 2)->flags == AXON_WQE_INLINE &&
	      !memcmp(sq_wqe(pi + 2) + 1, "bye", 3),
	      "BIND_MW, LOCAL_INV and an inline SEND_WITH_INV in one batch");

	db = db_word(AXON_DB_SQ);
	dev_cqe(QPN, pi + 2, AXON_WC_SEND, 0, 0x73);
	ok = poll_all(cq, wc) == 1 && qp->sq.ci == pi + 3;
	ibv_wr_start(qpx);
	ibv_wr_local_inv(qpx, 0x1402);
	ibv_wr_set_sge(qpx, 0x100, 0x1000, 8);
	err = ibv_wr_complete(qpx);
	ibv_wr_start(qpx);
	ibv_wr_bind_mw(qpx, &mw2, 0x1501, &bind.bind_info);
	err |= ibv_wr_complete(qpx) << 8;
	check("wr-mw-bad", ok && err == (EINVAL | EINVAL << 8) &&
	      qp->sq.pi == pi + 3 && db_word(AXON_DB_SQ) == db,
	      "an SGE on a LOCAL_INV, or another window's key, accepted");

	axon_post_recv(&qp->vqp.qp, &rwr, &rbad);
	dev_cqe(QPN, 0, AXON_WC_RECV, AXON_CQE_RECV | AXON_CQE_WITH_INV, 0x65);
	last_cqe()->imm_data = htobe32(0x1402);
	axon_cq_ex_set_ops(cq, IBV_WC_STANDARD_FLAGS, false);
	ok = !ibv_start_poll(cqx, &attr) && cqx->wr_id == 0x65 &&
	     ibv_wc_read_opcode(cqx) == IBV_WC_RECV &&
	     ibv_wc_read_wc_flags(cqx) == IBV_WC_WITH_INV &&
	     ibv_wc_read_invalidated_rkey(cqx) == 0x1402;
	ibv_end_poll(cqx);
	check("cq-ex-with-inv", ok, "ibv_wc_read_invalidated_rkey()");
}

/* A UC QP on the shared CQ: what it posts, what ibv_wr_*() it has. */
#define UC_QPN	0x45

static struct axon_qp *uc;

static void setup_uc(void)
{
	uc = calloc(1, sizeof(*uc));
	*uc = (struct axon_qp){ .ctx = ctx, .qpn = UC_QPN, .dest_qpn = 0x98,
				.sq = qp->sq, .rq = qp->rq,
				.sq_db = qp->sq_db, .rq_db = qp->rq_db };
	uc->sq.buf = calloc(4, 128);
	uc->rq.buf = calloc(4, 32);
	uc->sq.pi = uc->sq.ci = uc->rq.pi = uc->rq.ci = 0;
	uc->vqp.qp = (struct ibv_qp){ .context = &ctx->ibvctx.context,
				      .pd = &pd,
				      .send_cq = &cq->vcq.cq,
				      .recv_cq = &cq->vcq.cq,
				      .qp_type = IBV_QPT_UC,
				      .state = IBV_QPS_RTS };
	pthread_spin_init(&uc->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&uc->rq_lock, PTHREAD_PROCESS_PRIVATE);
	ctx->qp_table[0][UC_QPN] = uc;
	axon_qp_ex_set_ops(uc);
}

static void test_uc(void)
{
	struct ibv_sge sge = { .addr = 0x1000, .length = 16, .lkey = 0x100 };
	struct ibv_send_wr wr[2] = {
		{ .wr_id = 1, .sg_list = &sge, .num_sge = 1,
		  .opcode = IBV_WR_RDMA_WRITE_WITH_IMM, .imm_data = htobe32(3),
		  .wr.rdma = { .remote_addr = 0x2000, .rkey = 0x201 } },
		{ .wr_id = 2, .sg_list = &sge, .num_sge = 1,
		  .opcode = IBV_WR_RDMA_READ,
		  .wr.rdma = { .remote_addr = 0x2000, .rkey = 0x201 } },
	}, *bad = NULL;
	struct ibv_qp_ex *qpx = &uc->vqp.qp_ex;
	struct axon_send_wqe *w;
	struct ibv_wc wc[4];
	int err, n;

	poll_all(cq, wc);
	wr[0].next = &wr[1];
	err = axon_post_send(&uc->vqp.qp, &wr[0], &bad);
	w = axon_wq_slot(&uc->sq, 0);
	check("uc-post-read", err == EINVAL && bad == &wr[1] &&
	      uc->sq.pi == 1 && db_word(AXON_DB_SQ) == AXON_DB_WORD(UC_QPN, 1) &&
	      w->opcode == AXON_WR_RDMA_WRITE_IMM && le32toh(w->rkey) == 0x201,
	      "the WRITE posted, the READ refused");

	check("uc-wr-ops", qpx->wr_rdma_write && qpx->wr_rdma_write_imm &&
	      qpx->wr_send && !qpx->wr_rdma_read && !qpx->wr_atomic_cmp_swp &&
	      !qpx->wr_atomic_fetch_add && !qpx->wr_set_ud_addr,
	      "UC QPs get SENDs and WRITEs only");
	ibv_wr_start(qpx);
	qpx->wr_id = 7;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, 0x301, 0x3000);
	ibv_wr_set_sge(qpx, 0x100, 0x1000, 64);
	err = ibv_wr_complete(qpx);
	w = axon_wq_slot(&uc->sq, 1);
	check("uc-wr-write", !err && uc->sq.pi == 2 &&
	      db_word(AXON_DB_SQ) == AXON_DB_WORD(UC_QPN, 2) &&
	      w->opcode == AXON_WR_RDMA_WRITE && le64toh(w->remote_addr) == 0x3000,
	      "ibv_wr_rdma_write() on a UC QP");

	/* a receive of a UC QP names its peer, as an RC one's */
	dev_cqe(UC_QPN, 1, AXON_WC_RDMA_WRITE, 0, 7);
	n = poll_all(cq, wc);
	check("uc-poll", n == 1 && wc[0].wr_id == 7 && wc[0].src_qp == 0x98 &&
	      uc->sq.ci == 2, "the WRITE's completion retires both WQEs");
}

/*
 * A RUD QP (axondv.h: IBV_QPT_DRIVER, axon's only driver type) on the
 * shared CQ: an RC QP's opcodes but atomics, invalidation and windows.
 */
#define RUD_QPN	0x46

static struct axon_qp *rud;

static void setup_rud(void)
{
	rud = calloc(1, sizeof(*rud));
	*rud = (struct axon_qp){ .ctx = ctx, .qpn = RUD_QPN, .dest_qpn = 0x97,
				 .sq = qp->sq, .rq = qp->rq,
				 .sq_db = qp->sq_db, .rq_db = qp->rq_db };
	rud->sq.buf = calloc(4, 128);
	rud->rq.buf = calloc(4, 32);
	rud->sq.pi = rud->sq.ci = rud->rq.pi = rud->rq.ci = 0;
	rud->vqp.qp = (struct ibv_qp){ .context = &ctx->ibvctx.context,
				       .pd = &pd,
				       .send_cq = &cq->vcq.cq,
				       .recv_cq = &cq->vcq.cq,
				       .qp_type = IBV_QPT_DRIVER,
				       .state = IBV_QPS_RTS };
	pthread_spin_init(&rud->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&rud->rq_lock, PTHREAD_PROCESS_PRIVATE);
	ctx->qp_table[0][RUD_QPN] = rud;
	axon_qp_ex_set_ops(rud);
}

static void test_rud(void)
{
	struct ibv_sge sge = { .addr = 0x1000, .length = 16, .lkey = 0x100 };
	struct ibv_send_wr wr[3] = {
		{ .wr_id = 1, .sg_list = &sge, .num_sge = 1,
		  .opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_FENCE,
		  .wr.rdma = { .remote_addr = 0x2000, .rkey = 0x201 } },
		{ .wr_id = 2, .sg_list = &sge, .num_sge = 1,
		  .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		  .wr.atomic = { .remote_addr = 0x3000, .rkey = 0x201,
				 .compare_add = 1 } },
		{ .wr_id = 3, .sg_list = &sge, .num_sge = 1,
		  .opcode = IBV_WR_SEND },
	}, *bad = NULL;
	struct ibv_qp_ex *qpx = &rud->vqp.qp_ex;
	struct axon_send_wqe *w;
	struct ibv_wc wc[4];
	int err, n;

	poll_all(cq, wc);
	wr[0].next = &wr[1];
	wr[1].next = &wr[2];
	err = axon_post_send(&rud->vqp.qp, &wr[0], &bad);
	w = axon_wq_slot(&rud->sq, 0);
	check("rud-post-atomic", err == EINVAL && bad == &wr[1] &&
	      rud->sq.pi == 1 &&
	      db_word(AXON_DB_SQ) == AXON_DB_WORD(RUD_QPN, 1) &&
	      w->opcode == AXON_WR_RDMA_READ && w->flags == AXON_WQE_FENCE &&
	      le64toh(w->remote_addr) == 0x2000 && le32toh(w->rkey) == 0x201,
	      "the fenced READ posted, the atomic refused, the SEND not posted");

	check("rud-wr-ops", qpx->wr_send && qpx->wr_send_imm &&
	      qpx->wr_rdma_write && qpx->wr_rdma_write_imm &&
	      qpx->wr_rdma_read && !qpx->wr_atomic_cmp_swp &&
	      !qpx->wr_atomic_fetch_add && !qpx->wr_send_inv &&
	      !qpx->wr_local_inv && !qpx->wr_bind_mw && !qpx->wr_set_ud_addr,
	      "RUD QPs get SENDs, WRITEs and READs only");
	ibv_wr_start(qpx);
	qpx->wr_id = 8;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(qpx, 0x301, 0x3000);
	ibv_wr_set_sge(qpx, 0x100, 0x1000, 64);
	err = ibv_wr_complete(qpx);
	w = axon_wq_slot(&rud->sq, 1);
	check("rud-wr-read", !err && rud->sq.pi == 2 &&
	      db_word(AXON_DB_SQ) == AXON_DB_WORD(RUD_QPN, 2) &&
	      w->opcode == AXON_WR_RDMA_READ && w->flags == AXON_WQE_SIGNALED &&
	      le64toh(w->remote_addr) == 0x3000 && le32toh(w->rkey) == 0x301,
	      "ibv_wr_rdma_read() on a RUD QP");

	/* a RUD QP has one peer, as an RC one */
	dev_cqe(RUD_QPN, 1, AXON_WC_RDMA_READ, 0, 8);
	n = poll_all(cq, wc);
	check("rud-poll", n == 1 && wc[0].wr_id == 8 &&
	      wc[0].opcode == IBV_WC_RDMA_READ && wc[0].src_qp == 0x97 &&
	      rud->sq.ci == 2, "the READ's completion retires both WQEs");
}

/*
 * XRC on the shared CQ: an XRC_SEND QP (a send queue only), an XRC_RECV
 * QP (nothing: not in the QP table, as one of another process), and
 * the CQ's XRC SRQ, whose receives name the XRC_RECV QP.
 */
#define XRC_QPN		0x47
#define XRC_TGT_QPN	0x48
#define XRC_SRQN	0x9

static struct axon_qp *xrc, *xrc_tgt;
/* given as the XRC_SEND QP's recv_cq, which it must never touch */
static struct axon_cq cq2_for_xrc;
static struct axon_srq *xsrq;

static struct axon_srq *xrc_srq_alloc(uint32_t srqn)
{
	struct axon_srq *s = calloc(1, sizeof(*s));

	s->wq = (struct axon_wq){ .depth = 4, .wqe_shift = 5, .max_sge = 1 };
	s->wq.buf = calloc(4, 32);
	s->srqn = srqn;
	s->db = db_page + AXON_DB_SRQ / 4;
	s->vsrq.srq_type = IBV_SRQT_XRC;
	s->vsrq.srq_num = srqn;
	s->xrc_cq = cq;
	pthread_spin_init(&s->lock, PTHREAD_PROCESS_PRIVATE);
	s->xrc_next = cq->xrc_srqs;
	cq->xrc_srqs = s;
	return s;
}

static void setup_xrc(void)
{
	xrc = calloc(1, sizeof(*xrc));
	*xrc = (struct axon_qp){ .ctx = ctx, .qpn = XRC_QPN, .sq = qp->sq,
				 .sq_db = qp->sq_db, .rq_db = qp->rq_db };
	/* room for every test's WQEs, none retired before test_xrc_poll() */
	xrc->sq.depth = 8;
	xrc->sq.buf = calloc(8, 128);
	xrc->sq.pi = xrc->sq.ci = 0;
	/* libibverbs keeps a recv_cq given to it; the QP does not use it */
	xrc->vqp.qp = (struct ibv_qp){ .context = &ctx->ibvctx.context,
				       .pd = &pd,
				       .send_cq = &cq->vcq.cq,
				       .recv_cq = &cq2_for_xrc.vcq.cq,
				       .qp_type = IBV_QPT_XRC_SEND,
				       .state = IBV_QPS_RTS };
	pthread_spin_init(&xrc->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&xrc->rq_lock, PTHREAD_PROCESS_PRIVATE);
	ctx->qp_table[0][XRC_QPN] = xrc;
	axon_qp_ex_set_ops(xrc);

	xrc_tgt = calloc(1, sizeof(*xrc_tgt));
	*xrc_tgt = (struct axon_qp){ .ctx = ctx, .qpn = XRC_TGT_QPN };
	xrc_tgt->vqp.qp = (struct ibv_qp){ .context = &ctx->ibvctx.context,
					   .qp_num = XRC_TGT_QPN,
					   .qp_type = IBV_QPT_XRC_RECV,
					   .state = IBV_QPS_RTS };
	xsrq = xrc_srq_alloc(XRC_SRQN);
}

static void test_xrc_post(void)
{
	struct ibv_sge sge = { .addr = 0x1000, .length = 8, .lkey = 0x100 };
	struct ibv_send_wr wr[3] = {
		{ .wr_id = 1, .sg_list = &sge, .num_sge = 1,
		  .opcode = IBV_WR_SEND,
		  .qp_type.xrc.remote_srqn = 0xabcdef },
		{ .wr_id = 2, .sg_list = &sge, .num_sge = 1,
		  .opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
		  .wr.atomic = { .remote_addr = 0x3000, .rkey = 0x201,
				 .compare_add = 5, .swap = 6 },
		  .qp_type.xrc.remote_srqn = 0x12 },
		{ .wr_id = 3, .opcode = IBV_WR_LOCAL_INV,
		  .invalidate_rkey = 0x301,
		  .qp_type.xrc.remote_srqn = 0xffffffff },
	}, *bad = NULL;
	struct ibv_recv_wr rwr = { .wr_id = 9, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *rbad = NULL;
	struct axon_send_wqe *w0, *w1, *w2;
	struct ibv_wc wc[4];
	int err, err2;

	poll_all(cq, wc);
	wr[0].next = &wr[1];
	wr[1].next = &wr[2];
	err = axon_post_send(&xrc->vqp.qp, &wr[0], &bad);
	w0 = axon_wq_slot(&xrc->sq, 0);
	w1 = axon_wq_slot(&xrc->sq, 1);
	w2 = axon_wq_slot(&xrc->sq, 2);
	check("xrc-post-srqn", !err && xrc->sq.pi == 3 &&
	      db_word(AXON_DB_SQ) == AXON_DB_WORD(XRC_QPN, 3) &&
	      le32toh(w0->xrc_srqn) == 0xabcdef &&
	      le32toh(w1->xrc_srqn) == 0x12 &&
	      le64toh(w1->compare_add) == 5 && le64toh(w1->swap) == 6 &&
	      w2->opcode == AXON_WR_LOCAL_INV && !w2->xrc_srqn,
	      "each WQE names its SRQ; a LOCAL_INV none");

	wr[0].qp_type.xrc.remote_srqn = 0x1000000;
	wr[0].next = NULL;
	err = axon_post_send(&xrc->vqp.qp, &wr[0], &bad);
	check("xrc-post-srqn-einval", err == EINVAL && bad == &wr[0] &&
	      xrc->sq.pi == 3, "an SRQ number over 24 bits");

	err = axon_post_recv(&xrc->vqp.qp, &rwr, &rbad);
	check("xrc-post-recv-einval", err == EINVAL && rbad == &rwr,
	      "an XRC_SEND QP has no receive queue");

	bad = NULL;
	rbad = NULL;
	wr[0].qp_type.xrc.remote_srqn = 1;
	err = axon_post_send(&xrc_tgt->vqp.qp, &wr[0], &bad);
	err2 = axon_post_recv(&xrc_tgt->vqp.qp, &rwr, &rbad);
	check("xrc-tgt-post-einval", err == EINVAL && bad == &wr[0] &&
	      err2 == EINVAL && rbad == &rwr,
	      "an XRC_RECV QP has no queue");
}

static void test_xrc_wr_api(void)
{
	struct ibv_qp_ex *qpx = &xrc->vqp.qp_ex;
	uint32_t pi = xrc->sq.pi;
	struct axon_send_wqe *w;
	int err;

	check("xrc-wr-ops", qpx->wr_set_xrc_srqn && qpx->wr_send &&
	      qpx->wr_rdma_read && qpx->wr_atomic_cmp_swp &&
	      qpx->wr_atomic_fetch_add && qpx->wr_bind_mw &&
	      !qpx->wr_set_ud_addr, "XRC_SEND QPs get RC's operations");

	ibv_wr_start(qpx);
	qpx->wr_id = 11;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_fetch_add(qpx, 0x201, 0x3000, 7);
	ibv_wr_set_xrc_srqn(qpx, 0x77);
	ibv_wr_set_sge(qpx, 0x100, 0x1000, 8);
	err = ibv_wr_complete(qpx);
	w = axon_wq_slot(&xrc->sq, pi);
	check("xrc-wr-srqn", !err && xrc->sq.pi == pi + 1 &&
	      w->opcode == AXON_WR_ATOMIC_FETCH_ADD &&
	      le32toh(w->xrc_srqn) == 0x77 && le64toh(w->compare_add) == 7,
	      "ibv_wr_set_xrc_srqn() on the WQE");

	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 0x100, 0x1000, 8);
	ibv_wr_send(qpx);
	ibv_wr_set_xrc_srqn(qpx, 0x77);
	err = ibv_wr_complete(qpx);
	check("xrc-wr-no-srqn-einval", err == EINVAL && xrc->sq.pi == pi + 1,
	      "a WQE without its SRQ fails the batch");

	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_xrc_srqn(qpx, 0x1000000);
	err = ibv_wr_complete(qpx);
	check("xrc-wr-srqn-einval", err == EINVAL && xrc->sq.pi == pi + 1,
	      "an SRQ number over 24 bits");
}

static void test_xrc_poll(void)
{
	struct ibv_sge sge = { .addr = 0x1000, .length = 8, .lkey = 0x100 };
	struct ibv_recv_wr rwr[2] = {
		{ .wr_id = 0x51, .sg_list = &sge, .num_sge = 1 },
		{ .wr_id = 0x52, .sg_list = &sge, .num_sge = 1 },
	}, *rbad;
	struct axon_srq *other;
	struct ibv_wc wc[4];
	int err, n;

	poll_all(cq, wc);
	rwr[0].next = &rwr[1];
	err = axon_post_srq_recv(&xsrq->vsrq.srq, &rwr[0], &rbad);
	dev_xrc_cqe(XRC_TGT_QPN, 0, XRC_SRQN, 0x51);
	n = poll_all(cq, wc);
	check("xrc-poll-recv", !err && n == 1 && wc[0].wr_id == 0x51 &&
	      wc[0].qp_num == XRC_TGT_QPN && wc[0].opcode == IBV_WC_RECV &&
	      !wc[0].src_qp && xsrq->wq.ci == 1,
	      "the XRC_RECV QP's receive retires the CQ's XRC SRQ's WQE");

	dev_cqe(XRC_QPN, (uint16_t)(xrc->sq.pi - 1), AXON_WC_FETCH_ADD, 0, 11);
	n = poll_all(cq, wc);
	check("xrc-poll-send", n == 1 && wc[0].wr_id == 11 &&
	      wc[0].qp_num == XRC_QPN && xrc->sq.ci == xrc->sq.pi,
	      "the XRC_SEND QP's completion retires its WQEs");

	/* two XRC SRQs on the CQ: the one the CQE names */
	other = xrc_srq_alloc(XRC_SRQN + 1);
	rwr[0].wr_id = 0x61;
	rwr[0].next = NULL;
	err = axon_post_srq_recv(&other->vsrq.srq, &rwr[0], &rbad);
	dev_xrc_cqe(XRC_TGT_QPN, 0, XRC_SRQN + 1, 0x61);
	dev_xrc_cqe(XRC_TGT_QPN, 1, XRC_SRQN, 0x52);
	n = poll_all(cq, wc);
	check("xrc-poll-two-srqs", !err && n == 2 && wc[0].wr_id == 0x61 &&
	      wc[1].wr_id == 0x52 && other->wq.ci == 1 && xsrq->wq.ci == 2,
	      "each receive retires its own SRQ's WQE");

	/* none outstanding, or no SRQ of the CQ: a stray receive is dropped */
	dev_xrc_cqe(XRC_TGT_QPN + 1, 1, XRC_SRQN, 0x52);
	dev_xrc_cqe(XRC_TGT_QPN, 2, XRC_SRQN + 2, 0x53);
	n = poll_all(cq, wc);
	check("xrc-poll-stray-dropped", n == 0 && xsrq->wq.ci == 2 &&
	      other->wq.ci == 1, "no outstanding XRC SRQ WQE");
	cq->xrc_srqs = NULL;
}

/*
 * An RC QP with a send queue doorbell record after its ring: the index
 * goes to the record, asking the device to poll from four WQEs in flight
 * (a stream); the doorbell rings unless the device polls and the QP
 * streams (both ibv_post_send() and ibv_wr_complete()).
 */
#define DBREC_QPN	0x47

static bool dbrec_post(struct axon_qp *q, uint32_t want_index, uint32_t db)
{
	struct ibv_sge sge = { .addr = 0x1000, .length = 16, .lkey = 0x100 };
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND }, *bad = NULL;

	return !axon_post_send(&q->vqp.qp, &wr, &bad) &&
	       le32toh(q->sq_dbrec->prod_index) == want_index &&
	       db_word(AXON_DB_SQ) == db;
}

static void test_sq_dbrec(void)
{
	struct axon_qp *q = calloc(1, sizeof(*q));
	struct ibv_qp_ex *qpx = &q->vqp.qp_ex;
	uint32_t db;

	*q = (struct axon_qp){ .ctx = ctx, .qpn = DBREC_QPN, .sq = qp->sq,
			       .rq = qp->rq, .sq_db = qp->sq_db,
			       .rq_db = qp->rq_db };
	q->sq.depth = 8;
	q->sq.buf = calloc(1, 8 * 128 + sizeof(struct axon_sq_dbrec));
	q->sq_dbrec = (struct axon_sq_dbrec *)(q->sq.buf + 8 * 128);
	q->rq.buf = calloc(4, 32);
	q->sq.pi = q->sq.ci = q->rq.pi = q->rq.ci = 0;
	q->vqp.qp = (struct ibv_qp){ .context = &ctx->ibvctx.context,
				     .pd = &pd, .send_cq = &cq->vcq.cq,
				     .recv_cq = &cq->vcq.cq,
				     .qp_type = IBV_QPT_RC,
				     .state = IBV_QPS_RTS };
	pthread_spin_init(&q->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&q->rq_lock, PTHREAD_PROCESS_PRIVATE);
	ctx->qp_table[0][DBREC_QPN] = q;
	axon_qp_ex_set_ops(q);

	check("dbrec-not-polled",
	      dbrec_post(q, 1, AXON_DB_WORD(DBREC_QPN, 1)),
	      "index 1 in the record and rung");
	q->sq_dbrec->polling = htole32(1);
	check("dbrec-polled-ping-pong",
	      dbrec_post(q, 2, AXON_DB_WORD(DBREC_QPN, 2)) &&
	      dbrec_post(q, 3, AXON_DB_WORD(DBREC_QPN, 3)),
	      "polled, 2 and 3 in flight: rung, no polling asked");
	check("dbrec-polled-stream",
	      dbrec_post(q, 4 | AXON_SQ_DBREC_POLL,
			 AXON_DB_WORD(DBREC_QPN, 3)),
	      "polled, 4 in flight: polling asked, not rung");
	db = db_word(AXON_DB_SQ);
	ibv_wr_start(qpx);
	qpx->wr_id = 5;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 0x100, 0x1000, 16);
	check("dbrec-wr-api-polled",
	      !ibv_wr_complete(qpx) &&
	      le32toh(q->sq_dbrec->prod_index) == (5 | AXON_SQ_DBREC_POLL) &&
	      db_word(AXON_DB_SQ) == db,
	      "ibv_wr_complete(): index 5 in the record, not rung");
	q->sq_dbrec->polling = 0;
	ibv_wr_start(qpx);
	qpx->wr_id = 6;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 0x100, 0x1000, 16);
	check("dbrec-wr-api-not-polled",
	      !ibv_wr_complete(qpx) &&
	      le32toh(q->sq_dbrec->prod_index) == (6 | AXON_SQ_DBREC_POLL) &&
	      db_word(AXON_DB_SQ) == AXON_DB_WORD(DBREC_QPN, 6),
	      "ibv_wr_complete(): index 6 in the record and rung");
	/* the index is the doorbell's 16 bits, never the poll bit by wrap */
	q->sq.pi = q->sq.ci = 0x7ffffffe;
	check("dbrec-index-masked",
	      dbrec_post(q, 0xffff, AXON_DB_WORD(DBREC_QPN, 0xffff)) &&
	      (q->sq.ci = q->sq.pi, dbrec_post(q, 0, AXON_DB_WORD(DBREC_QPN, 0))),
	      "posts 2^31 - 1 and 2^31: indexes 0xffff and 0, no poll bit");
	q->sq_dbrec->polling = htole32(1);
	axon_qp_reset_queues(q);
	check("dbrec-reset", !q->sq_dbrec->prod_index && !q->sq_dbrec->polling,
	      "RESET left the record set");
}

/* The checks each test makes (the plan). */
#define POST_SEND_CHECKS	4
#define POLL_CHECKS		10
#define WR_API_CHECKS		6
#define CQ_EX_CHECKS		1
#define CQ_TS_CHECKS		1
#define POST_ERR_CHECKS		1
#define RESET_CHECKS		3
#define DESTROY_CHECKS		2
#define UD_POST_CHECKS		2
#define UD_WR_API_CHECKS	4
#define UD_POLL_CHECKS		2
#define MW_CHECKS		8
#define UC_CHECKS		4
#define RUD_CHECKS		4
#define XRC_POST_CHECKS		4
#define XRC_WR_API_CHECKS	4
#define XRC_POLL_CHECKS		4
#define DBREC_CHECKS		7

int main(void)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_SEND }, *bad;

	tap_plan(POST_SEND_CHECKS + POLL_CHECKS + WR_API_CHECKS +
		 2 * CQ_EX_CHECKS + CQ_TS_CHECKS + POST_ERR_CHECKS + RESET_CHECKS +
		 DESTROY_CHECKS + UD_POST_CHECKS + UD_WR_API_CHECKS +
		 UD_POLL_CHECKS + MW_CHECKS + UC_CHECKS + RUD_CHECKS +
		 XRC_POST_CHECKS + XRC_WR_API_CHECKS + XRC_POLL_CHECKS +
		 DBREC_CHECKS);
	setup();
	test_post_send();
	test_poll();
	test_wr_api();
	/* Each variant retires the last two outstanding WQEs. */
	test_cq_ex(false);
	axon_post_send(&qp->vqp.qp, &wr, &bad);
	axon_post_send(&qp->vqp.qp, &wr, &bad);
	test_cq_ex(true);
	test_cq_timestamp();
	test_post_err();
	test_reset();
	test_destroy();
	setup_ud();
	test_ud_post();
	test_ud_wr_api();
	test_ud_poll();
	test_mw();
	setup_uc();
	test_uc();
	setup_rud();
	test_rud();
	setup_xrc();
	test_xrc_post();
	test_xrc_wr_api();
	test_xrc_poll();
	test_sq_dbrec();
	return tap_done();
}
