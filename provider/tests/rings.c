// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The provider's WQE encoding and CQE parsing (wq.h) against rings in
 * ordinary memory, playing the device's side by hand: what a WQE looks
 * like byte for byte (RC, UD, what UC and RUD may post, memory windows),
 * when a
 * queue is full, which CQEs are valid on which pass, how completions
 * retire WQEs across the 16-bit wrap.
 *
 * Prints TAP (tools/lib/tap.h): the plan, one result per check; exits
 * non-zero if a check failed or did not run.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../wq.h"

#include "tap.h"

/* One TAP result (tools/lib/tap.h), why it failed as a diagnostic. */
static void check(const char *name, bool ok, const char *why)
{
	if (!tap_ok(ok, "%s", name))
		tap_diag("%s", why);
}

static uint64_t rd64(const void *p)
{
	return le64toh(*(const uint64_t *)p);
}

static uint32_t rd32(const void *p)
{
	return le32toh(*(const uint32_t *)p);
}

/* An SQ of 8 slots of 256 bytes: 12 SGEs or 192 inline bytes. */
static struct axon_wq make_sq(void)
{
	struct axon_wq sq = {
		.depth = 8,
		.wqe_shift = 8,
		.max_sge = 12,
		.max_inline = 192,
	};

	sq.buf = calloc(sq.depth, 1u << sq.wqe_shift);
	return sq;
}

static void test_send_encoding(void)
{
	struct axon_wq sq = make_sq();
	struct ibv_sge sg[2] = {
		{ .addr = 0x1122334455667788ull, .length = 100, .lkey = 0x1201 },
		{ .addr = 0x1000, .length = 7, .lkey = 0x3402 },
	};
	struct ibv_send_wr wr = {
		.wr_id = 0xdeadbeefcafef00dull,
		.sg_list = sg,
		.num_sge = 2,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED |
			      IBV_SEND_FENCE,
		.imm_data = htobe32(0xa1b2c3d4),
		.wr.rdma = { .remote_addr = 0xfedcba9876543210ull,
			     .rkey = 0x5603 },
	};
	uint8_t *w = axon_wq_slot(&sq, 3);
	int err;

	memset(w, 0xff, 1u << sq.wqe_shift);
	err = axon_build_send_wqe(&sq, &wr, w);
	check("send-write-imm",
	      !err && w[0] == AXON_WR_RDMA_WRITE_IMM &&
	      w[1] == (AXON_WQE_SIGNALED | AXON_WQE_SOLICITED |
		       AXON_WQE_FENCE) &&
	      w[2] == 2 && w[3] == 0 &&
	      w[4] == 0xa1 && w[7] == 0xd4 &&
	      rd64(w + 8) == wr.wr_id &&
	      rd64(w + 16) == 0xfedcba9876543210ull &&
	      rd32(w + 24) == 0x5603 && rd32(w + 28) == 0 &&
	      rd64(w + 32) == 0 && rd64(w + 40) == 0 &&
	      rd64(w + 48) == 0 && rd64(w + 56) == 0 &&
	      rd64(w + 64) == sg[0].addr && rd32(w + 72) == 100 &&
	      rd32(w + 76) == 0x1201 && rd64(w + 80) == 0x1000 &&
	      rd32(w + 88) == 7 && rd32(w + 92) == 0x3402,
	      "header or SGEs not as axon_dev.h describes");
	check("send-slot", w == sq.buf + 3 * 256 &&
	      axon_wq_slot(&sq, 11) == (void *)w, "slot address");

	wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
	wr.send_flags = 0;
	wr.num_sge = 1;
	wr.wr.atomic.remote_addr = 0x8000;
	wr.wr.atomic.rkey = 0x77;
	wr.wr.atomic.compare_add = 0x0102030405060708ull;
	wr.wr.atomic.swap = 0x1112131415161718ull;
	err = axon_build_send_wqe(&sq, &wr, w);
	check("send-cmp-swp",
	      !err && w[0] == AXON_WR_ATOMIC_CMP_SWP && w[1] == 0 &&
	      w[2] == 1 && rd32(w + 4) == 0 && rd64(w + 16) == 0x8000 &&
	      rd32(w + 24) == 0x77 && rd64(w + 32) == 0x0102030405060708ull &&
	      rd64(w + 40) == 0x1112131415161718ull,
	      "atomic fields");

	wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
	err = axon_build_send_wqe(&sq, &wr, w);
	check("send-fetch-add",
	      !err && w[0] == AXON_WR_ATOMIC_FETCH_ADD &&
	      rd64(w + 32) == 0x0102030405060708ull && rd64(w + 40) == 0,
	      "fetch-add carries only the addend");

	wr.opcode = IBV_WR_RDMA_READ;
	wr.wr.rdma.remote_addr = 0x9000;
	wr.wr.rdma.rkey = 0x99;
	err = axon_build_send_wqe(&sq, &wr, w);
	check("send-read", !err && w[0] == AXON_WR_RDMA_READ &&
	      rd64(w + 16) == 0x9000 && rd32(w + 24) == 0x99 &&
	      rd32(w + 4) == 0, "read fields");

	wr.opcode = IBV_WR_SEND;
	wr.num_sge = 0;
	err = axon_build_send_wqe(&sq, &wr, w);
	check("send-zero-sge", !err && w[0] == AXON_WR_SEND && w[2] == 0 &&
	      rd64(w + 16) == 0, "a SEND has no remote address");

	wr.num_sge = 13;
	check("send-too-many-sge", axon_build_send_wqe(&sq, &wr, w) == EINVAL,
	      "13 SGEs in a 12-SGE slot accepted");
	wr.num_sge = 1;
	wr.opcode = IBV_WR_TSO;
	check("send-unsupported-opcode",
	      axon_build_send_wqe(&sq, &wr, w) == EINVAL,
	      "TSO accepted");
	free(sq.buf);
}

/* Every byte of [from, to) of the WQE at w is 0. */
static bool zero_from(const uint8_t *w, size_t from, size_t to)
{
	for (; from < to; from++)
		if (w[from])
			return false;
	return true;
}

/* SEND_WITH_INV, LOCAL_INV and BIND_MW, byte for byte. */
static void test_mw_encoding(void)
{
	struct axon_wq sq = make_sq();
	struct ibv_mr mr = { .lkey = 0x4a0b, .rkey = 0x4a0b };
	struct ibv_mw mw = { .rkey = 0x123456, .type = IBV_MW_TYPE_2 };
	struct ibv_sge sg = { .addr = 0x1000, .length = 7, .lkey = 0x3402 };
	char payload[8] = "inline!";
	struct ibv_send_wr wr = {
		.wr_id = 0x55,
		.sg_list = &sg,
		.num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_INV,
		.send_flags = IBV_SEND_SIGNALED,
		.invalidate_rkey = 0xa1b2c3d4,
	};
	uint8_t *w = axon_wq_slot(&sq, 2);

	memset(w, 0xff, 1u << sq.wqe_shift);
	check("send-inv",
	      !axon_build_send_wqe(&sq, &wr, w) && w[0] == AXON_WR_SEND_INV &&
	      w[1] == AXON_WQE_SIGNALED && w[2] == 1 && rd32(w + 4) == 0 &&
	      rd64(w + 8) == 0x55 && rd64(w + 16) == 0 &&
	      rd32(w + 24) == 0xa1b2c3d4 && zero_from(w, 28, 64) &&
	      rd64(w + 64) == 0x1000 && rd32(w + 72) == 7,
	      "the key to invalidate in rkey, host order, and the SGEs");
	sg.addr = (uintptr_t)payload;
	sg.length = sizeof(payload);
	wr.send_flags = IBV_SEND_INLINE;
	check("send-inv-inline",
	      !axon_build_send_wqe(&sq, &wr, w) && w[1] == AXON_WQE_INLINE &&
	      rd32(w + 24) == 0xa1b2c3d4 && rd32(w + 28) == sizeof(payload) &&
	      !memcmp(w + 64, payload, sizeof(payload)),
	      "a SEND_WITH_INV's data inline");

	/* SGEs and INLINE mean nothing for a WQE that moves no data */
	memset(w, 0xff, 1u << sq.wqe_shift);
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.num_sge = 13;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE | IBV_SEND_INLINE;
	wr.invalidate_rkey = 0x123457;
	check("local-inv",
	      !axon_build_send_wqe(&sq, &wr, w) && w[0] == AXON_WR_LOCAL_INV &&
	      w[1] == (AXON_WQE_SIGNALED | AXON_WQE_FENCE) && w[2] == 0 &&
	      rd64(w + 8) == 0x55 && rd64(w + 16) == 0 &&
	      rd32(w + 24) == 0x123457 && zero_from(w, 28, 64),
	      "rkey only: no SGE, no inline flag");

	memset(w, 0xff, 1u << sq.wqe_shift);
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	wr.bind_mw.mw = &mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw.rkey);
	wr.bind_mw.bind_info = (struct ibv_mw_bind_info){
		.mr = &mr, .addr = 0x7f0000001000ull, .length = 0x20000,
		.mw_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};
	check("bind-mw",
	      !axon_build_send_wqe(&sq, &wr, w) && w[0] == AXON_WR_BIND_MW &&
	      w[1] == AXON_WQE_SIGNALED && w[2] == 0 && rd32(w + 4) == 0 &&
	      rd64(w + 8) == 0x55 && rd64(w + 16) == 0x7f0000001000ull &&
	      rd32(w + 24) == 0x123457 && rd32(w + 28) == 0 &&
	      rd64(w + 32) == 0x20000 && rd32(w + 40) == 0x4a0b &&
	      w[44] == (AXON_ACCESS_REMOTE_WRITE | AXON_ACCESS_REMOTE_READ) &&
	      zero_from(w, 45, 64),
	      "start, new key, length, MR, rights (local write dropped)");
	mw.type = IBV_MW_TYPE_1;
	wr.bind_mw.rkey = 0x123400;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_ATOMIC;
	check("bind-mw-type1",
	      !axon_build_send_wqe(&sq, &wr, w) && rd32(w + 24) == 0x123400 &&
	      w[44] == AXON_ACCESS_REMOTE_ATOMIC,
	      "a type 1 window, a tag that wraps, atomic rights");

	wr.bind_mw.rkey = 0x123501;
	check("bind-mw-other-window",
	      axon_build_send_wqe(&sq, &wr, w) == EINVAL,
	      "the key of another window accepted");
	wr.bind_mw.rkey = 0x123457;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_ZERO_BASED;
	check("bind-mw-zero-based",
	      axon_build_send_wqe(&sq, &wr, w) == EINVAL,
	      "a zero-based window accepted");
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_MW_BIND;
	check("bind-mw-mw-bind-right",
	      axon_build_send_wqe(&sq, &wr, w) == EINVAL,
	      "a window granting MW_BIND accepted");
	wr.bind_mw.bind_info = (struct ibv_mw_bind_info){ .length = 64 };
	check("bind-mw-no-mr", axon_build_send_wqe(&sq, &wr, w) == EINVAL,
	      "a bind without an MR accepted");
	wr.bind_mw.bind_info.length = 0;
	check("bind-mw-unbind", axon_build_send_wqe(&sq, &wr, w) == 0 &&
	      ((struct axon_send_wqe *)w)->bind.mr_key == 0,
	      "an unbind (no MR, length 0) refused or naming an MR");
	wr.bind_mw.mw = NULL;
	check("bind-mw-no-mw", axon_build_send_wqe(&sq, &wr, w) == EINVAL,
	      "a bind without a window accepted");
	free(sq.buf);
}

static void test_inline(void)
{
	struct axon_wq sq = make_sq();
	char a[100], b[92];
	struct ibv_sge sg[2] = {
		{ .addr = (uintptr_t)a, .length = sizeof(a) },
		{ .addr = (uintptr_t)b, .length = sizeof(b) },
	};
	struct ibv_send_wr wr = {
		.sg_list = sg,
		.num_sge = 2,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.send_flags = IBV_SEND_INLINE,
	};
	uint8_t *w = axon_wq_slot(&sq, 0);

	memset(a, 'a', sizeof(a));
	memset(b, 'b', sizeof(b));
	check("inline-192",
	      !axon_build_send_wqe(&sq, &wr, w) &&
	      w[1] == AXON_WQE_INLINE && w[2] == 0 &&
	      rd32(w + 28) == 192 && !memcmp(w + 64, a, 100) &&
	      !memcmp(w + 164, b, 92),
	      "payload not concatenated after the header");

	sg[1].length = 93;
	check("inline-too-long", axon_build_send_wqe(&sq, &wr, w) == EINVAL,
	      "193 inline bytes accepted");

	sg[1].length = 1;
	wr.opcode = IBV_WR_RDMA_READ;
	check("inline-read", axon_build_send_wqe(&sq, &wr, w) == EINVAL,
	      "inline RDMA READ accepted");
	free(sq.buf);
}

/* What ibv_create_ah() was given, to ::ffff:192.0.2.2 (IPv4). */
static const struct ibv_ah_attr ah_v4 = {
	.grh = {
		.dgid.raw = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 2 },
		.sgid_index = 3,
		.hop_limit = 64,
		.traffic_class = 0x20,
	},
	.is_global = 1,
	.port_num = 1,
};

static const uint8_t dmac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

static void test_ud_av(void)
{
	struct ibv_ah_attr ah_v6 = ah_v4;
	struct axon_ud_av av;
	uint8_t *a = (uint8_t *)&av;

	memset(&av, 0xff, sizeof(av));
	axon_ud_av_init(&av, &ah_v4, dmac);
	check("ud-av-ipv4",
	      !memcmp(a, ah_v4.grh.dgid.raw, 16) && !memcmp(a + 16, dmac, 6) &&
	      a[22] == 3 && a[23] == 64 && a[24] == 0x20 &&
	      a[25] == AXON_AV_IPV4 && a[26] == 0 && a[27] == 0 &&
	      rd32(a + 28) == 0,
	      "address bytes as axon_dev.h describes, IPv4 flag");

	/* 2001:db8::2 with a flow label, which picks the UDP port */
	memset(ah_v6.grh.dgid.raw, 0, 16);
	ah_v6.grh.dgid.raw[0] = 0x20;
	ah_v6.grh.dgid.raw[1] = 0x01;
	ah_v6.grh.dgid.raw[15] = 2;
	ah_v6.grh.flow_label = 0xabcde;
	axon_ud_av_init(&av, &ah_v6, dmac);
	check("ud-av-ipv6",
	      !memcmp(a, ah_v6.grh.dgid.raw, 16) && a[25] == 0 &&
	      rd32(a + 28) == 0xabcde &&
	      le16toh(av.udp_sport) == ibv_flow_label_to_udp_sport(0xabcde) &&
	      le16toh(av.udp_sport) >= 0xc000,
	      "IPv6 address, flow label and its UDP source port");

	/* UCX sets all 32 bits: the 20 of the wire are kept */
	ah_v6.grh.flow_label = 0xffffffff;
	axon_ud_av_init(&av, &ah_v6, dmac);
	check("ud-av-flow-label-32",
	      rd32(a + 28) == 0xfffff &&
	      le16toh(av.udp_sport) == ibv_flow_label_to_udp_sport(0xfffff),
	      "a 32-bit flow label keeps its 20 bits");
}

static void test_ud_encoding(void)
{
	struct axon_wq sq = make_sq();
	struct ibv_pd pd = {}, other_pd = {};
	struct axon_ah ah = { .ibvah.pd = &pd };
	char payload[] = "datagram";
	struct ibv_sge sg = { .addr = 0x1000, .length = 100, .lkey = 0x1201 };
	struct ibv_send_wr wr = {
		.wr_id = 77,
		.sg_list = &sg,
		.num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htobe32(0x11223344),
		.wr.ud = { .ah = &ah.ibvah, .remote_qpn = 0xabcdef,
			   .remote_qkey = 0x11111111 },
	};
	uint8_t *w = axon_wq_slot(&sq, 1);

	axon_ud_av_init(&ah.av, &ah_v4, dmac);
	memset(w, 0xff, 1u << sq.wqe_shift);
	check("ud-send-imm",
	      !axon_build_ud_send_wqe(&sq, &wr, &pd, w) &&
	      w[0] == AXON_WR_SEND_IMM && w[1] == AXON_WQE_SIGNALED &&
	      w[2] == 1 && w[4] == 0x11 && w[7] == 0x44 && rd64(w + 8) == 77 &&
	      rd32(w + 16) == 0xabcdef && rd32(w + 20) == 0x11111111 &&
	      rd32(w + 24) == 0 && rd32(w + 28) == 0 &&
	      !memcmp(w + 32, &ah.av, sizeof(ah.av)) &&
	      rd64(w + 64) == 0x1000 && rd32(w + 72) == 100 &&
	      rd32(w + 76) == 0x1201,
	      "QPN and Q_Key over remote_addr, rkey 0, the address at 32");

	/* inline, with the QP's own Q_Key (bit 31) */
	sg.addr = (uintptr_t)payload;
	sg.length = sizeof(payload);
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_INLINE;
	wr.wr.ud.remote_qkey = 0x80000000;
	check("ud-send-inline",
	      !axon_build_ud_send_wqe(&sq, &wr, &pd, w) &&
	      w[0] == AXON_WR_SEND && w[1] == AXON_WQE_INLINE &&
	      rd32(w + 28) == sizeof(payload) &&
	      !memcmp(w + 64, payload, sizeof(payload)) &&
	      rd32(w + 20) == 0x80000000 &&
	      !memcmp(w + 32, &ah.av, sizeof(ah.av)),
	      "inline payload after the header, address kept");

	wr.send_flags = 0;
	check("ud-foreign-ah",
	      axon_build_ud_send_wqe(&sq, &wr, &other_pd, w) == EINVAL,
	      "an AH of another PD accepted");
	wr.wr.ud.ah = NULL;
	check("ud-no-ah", axon_build_ud_send_wqe(&sq, &wr, &pd, w) == EINVAL,
	      "a UD send without an AH accepted");
	/* an RDMA WRITE's union member is rdma: its address is no AH */
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = 0xdead000000000000ull;
	check("ud-write", axon_build_ud_send_wqe(&sq, &wr, &pd, w) == EINVAL,
	      "RDMA WRITE on a UD QP accepted");
	wr.opcode = IBV_WR_SEND;
	wr.wr.ud.ah = &ah.ibvah;
	wr.send_flags = IBV_SEND_FENCE;
	check("ud-fence", axon_build_ud_send_wqe(&sq, &wr, &pd, w) == EINVAL,
	      "a fenced UD send accepted");
	wr.send_flags = 0;
	wr.wr.ud.remote_qpn = 0x1000000;
	check("ud-qpn", axon_build_ud_send_wqe(&sq, &wr, &pd, w) == EINVAL,
	      "a 25-bit QPN accepted");
	wr.opcode = IBV_WR_LOCAL_INV;
	check("ud-local-inv",
	      axon_build_ud_send_wqe(&sq, &wr, &pd, w) == EINVAL,
	      "LOCAL_INV on a UD QP accepted");
	free(sq.buf);
}

/* A UC QP SENDs and WRITEs; nothing it has no packets for. */
static void test_uc_encoding(void)
{
	static const enum ibv_wr_opcode refused[] = {
		IBV_WR_RDMA_READ, IBV_WR_ATOMIC_CMP_AND_SWP,
		IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_SEND_WITH_INV,
		IBV_WR_LOCAL_INV, IBV_WR_BIND_MW,
	};
	struct axon_wq sq = make_sq();
	struct ibv_sge sg = { .addr = 0x1000, .length = 3000, .lkey = 0x1201 };
	struct ibv_send_wr wr = {
		.wr_id = 5,
		.sg_list = &sg,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE,
		.imm_data = htobe32(0x55667788),
		.wr.rdma = { .remote_addr = 0x7f0000001000ull, .rkey = 0x4301 },
	};
	uint8_t *w = axon_wq_slot(&sq, 2);
	unsigned int i, bad = 0;

	memset(w, 0xff, 1u << sq.wqe_shift);
	check("uc-write-imm",
	      !axon_build_uc_send_wqe(&sq, &wr, w) &&
	      w[0] == AXON_WR_RDMA_WRITE_IMM &&
	      w[1] == (AXON_WQE_SIGNALED | AXON_WQE_FENCE) && w[2] == 1 &&
	      w[4] == 0x55 && w[7] == 0x88 && rd64(w + 16) == 0x7f0000001000ull &&
	      rd32(w + 24) == 0x4301 && rd64(w + 64) == 0x1000 &&
	      rd32(w + 72) == 3000,
	      "a UC RDMA WRITE with immediate, fenced, as an RC one");
	wr.opcode = IBV_WR_SEND;
	check("uc-send",
	      !axon_build_uc_send_wqe(&sq, &wr, w) && w[0] == AXON_WR_SEND,
	      "a UC SEND refused");
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		wr.opcode = refused[i];
		if (axon_build_uc_send_wqe(&sq, &wr, w) != EINVAL) {
			tap_diag("opcode %d accepted", refused[i]);
			bad++;
		}
	}
	check("uc-no-read-atomic-inv", !bad,
	      "READ, atomics, invalidation or MW bind on a UC QP accepted");
	free(sq.buf);
}

/* A RUD QP (axondv.h) SENDs, WRITEs and READs, as an RC one; no more. */
static void test_rud_encoding(void)
{
	static const enum ibv_wr_opcode accepted[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM,
	};
	static const enum ibv_wr_opcode refused[] = {
		IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD,
		IBV_WR_SEND_WITH_INV, IBV_WR_LOCAL_INV, IBV_WR_BIND_MW,
		IBV_WR_TSO, IBV_WR_DRIVER1,
	};
	struct axon_wq sq = make_sq();
	struct ibv_sge sg = { .addr = 0x2000, .length = 4096, .lkey = 0x1301 };
	struct ibv_send_wr wr = {
		.wr_id = 6,
		.sg_list = &sg,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_READ,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE |
			      IBV_SEND_SOLICITED,
		.wr.rdma = { .remote_addr = 0x7f0000002000ull, .rkey = 0x4401 },
	};
	uint8_t *w = axon_wq_slot(&sq, 3);
	uint8_t rc[256];
	unsigned int i, bad = 0;

	/* byte for byte what an RC QP's READ is */
	memset(w, 0xff, 1u << sq.wqe_shift);
	memset(rc, 0xff, sizeof(rc));
	check("rud-read",
	      !axon_build_rud_send_wqe(&sq, &wr, w) &&
	      !axon_build_send_wqe(&sq, &wr, rc) &&
	      !memcmp(w, rc, sizeof(rc)) && w[0] == AXON_WR_RDMA_READ &&
	      w[1] == (AXON_WQE_SIGNALED | AXON_WQE_SOLICITED |
		       AXON_WQE_FENCE) &&
	      rd64(w + 16) == 0x7f0000002000ull && rd32(w + 24) == 0x4401 &&
	      rd64(w + 64) == 0x2000 && rd32(w + 72) == 4096,
	      "a RUD READ, fenced and solicited, differs from an RC one");
	for (i = 0; i < sizeof(accepted) / sizeof(accepted[0]); i++) {
		wr.opcode = accepted[i];
		if (axon_build_rud_send_wqe(&sq, &wr, w) ||
		    w[0] != axon_wr_opcode(accepted[i])) {
			tap_diag("opcode %d refused", accepted[i]);
			bad++;
		}
	}
	check("rud-send-write", !bad, "a RUD SEND or WRITE refused");
	bad = 0;
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		wr.opcode = refused[i];
		if (axon_build_rud_send_wqe(&sq, &wr, w) != EINVAL) {
			tap_diag("opcode %d accepted", refused[i]);
			bad++;
		}
	}
	check("rud-no-atomic-inv-mw", !bad,
	      "atomics, invalidation, MW bind or TSO on a RUD QP accepted");
	wr.opcode = IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_INLINE;
	check("rud-inline-read", axon_build_rud_send_wqe(&sq, &wr, w) == EINVAL,
	      "an inline RUD READ accepted");
	free(sq.buf);
}

static void test_recv_and_full(void)
{
	struct axon_wq rq = {
		.depth = 2, .wqe_shift = 6, .max_sge = 3,
	};
	struct ibv_sge sg[4] = {
		{ .addr = 0xabc, .length = 4096, .lkey = 0x101 },
	};
	struct ibv_recv_wr wr = { .wr_id = 42, .sg_list = sg, .num_sge = 1 };
	uint8_t *w;

	rq.buf = calloc(rq.depth, 1u << rq.wqe_shift);
	w = axon_wq_slot(&rq, 1);
	check("recv-encoding",
	      !axon_build_recv_wqe(&rq, &wr, w) && rd64(w) == 42 &&
	      w[8] == 1 && rd64(w + 16) == 0xabc && rd32(w + 24) == 4096 &&
	      rd32(w + 28) == 0x101,
	      "receive WQE layout");
	wr.num_sge = 4;
	check("recv-too-many-sge", axon_build_recv_wqe(&rq, &wr, w) == EINVAL,
	      "4 SGEs in a 3-SGE slot accepted");

	rq.pi = 7;
	rq.ci = 5;
	check("wq-full", axon_wq_full(&rq, rq.pi), "depth 2 with 2 outstanding");
	rq.ci = 6;
	check("wq-room", !axon_wq_full(&rq, rq.pi), "one slot free");

	check("rq-retire", axon_rq_retire(&rq) && rq.ci == 7 &&
	      !axon_rq_retire(&rq) && rq.ci == 7,
	      "receive completions retire one WQE, none when empty");
	free(rq.buf);
}

static void test_sq_retire(void)
{
	struct axon_wq sq = { .depth = 8 };

	sq.pi = 5;
	check("sq-retire", axon_sq_retire(&sq, 2) && sq.ci == 3,
	      "WQE 2 completes WQEs 0..2");
	check("sq-retire-stale", !axon_sq_retire(&sq, 1) && sq.ci == 3,
	      "an already retired index accepted");
	check("sq-retire-future", !axon_sq_retire(&sq, 5) && sq.ci == 3,
	      "an index never posted accepted");

	/* Free-running 32-bit counters, 16-bit index from the device. */
	sq.ci = 0xfffe;
	sq.pi = 0x10004;
	check("sq-retire-wrap", axon_sq_retire(&sq, 0x0001) && sq.ci == 0x10002,
	      "index 1 after 0xffff");
}

/* Device side: write the CQE of producer index pi. */
static void dev_write_cqe(struct axon_cqring *cq, uint32_t pi, uint16_t wqe,
			  uint8_t flags)
{
	struct axon_cqe *cqe = &cq->cqes[pi & ((1u << cq->depth_shift) - 1)];

	memset(cqe, 0, sizeof(*cqe));
	cqe->wr_id = htole64(1000 + pi);
	cqe->byte_len = htole32(pi * 10);
	cqe->imm_data = htobe32(0x01020304);
	cqe->qpn = htole32(0x1234);
	cqe->wqe_index = htole16(wqe);
	cqe->opcode = flags & AXON_CQE_RECV ? AXON_WC_RECV : AXON_WC_SEND;
	cqe->status = AXON_WC_SUCCESS;
	cqe->vendor_err = 3;
	cqe->flags = flags | (((pi >> cq->depth_shift) & 1) ^ 1);
}

static void test_cq(void)
{
	struct axon_cqring cq = { .depth_shift = 2 };
	struct axon_cqe *cqe;
	struct ibv_wc wc;
	uint32_t i;
	bool ok = true;

	cq.cqes = calloc(4 + 1, AXON_CQE_SIZE);
	cq.dbrec = (struct axon_cq_dbrec *)(cq.cqes + 4);

	check("cq-empty", !axon_cqe_peek(&cq), "a zeroed ring has a CQE");

	for (i = 0; i < 4; i++)
		dev_write_cqe(&cq, i, i, 0);
	for (i = 0; i < 4; i++) {
		cqe = axon_cqe_peek(&cq);
		ok &= cqe && le64toh(cqe->wr_id) == 1000 + i;
		cq.ci++;
	}
	check("cq-first-pass", ok, "phase 1 CQEs of the first pass");
	check("cq-old-pass", !axon_cqe_peek(&cq),
	      "a first-pass CQE taken for a second-pass one");

	axon_cq_publish(&cq);
	check("cq-dbrec", rd32(&cq.dbrec->cons_index) == 4,
	      "consumer index record not updated");

	dev_write_cqe(&cq, 4, 9, AXON_CQE_RECV | AXON_CQE_WITH_IMM);
	cqe = axon_cqe_peek(&cq);
	check("cq-second-pass", cqe == &cq.cqes[0], "phase 0 on the second pass");
	if (cqe) {
		axon_cqe_to_wc(cqe, 0x99, &wc);
		check("cq-to-wc",
		      wc.wr_id == 1004 && wc.byte_len == 40 &&
		      wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_RECV &&
		      wc.imm_data == htobe32(0x01020304) &&
		      wc.qp_num == 0x1234 && wc.vendor_err == 3 &&
		      wc.wc_flags == IBV_WC_WITH_IMM && wc.src_qp == 0x99,
		      "ibv_wc fields");
	}

	/* A UD receive names its sender; a GRH flag on a send means nothing. */
	cq.ci++;
	dev_write_cqe(&cq, 5, 0, AXON_CQE_RECV | AXON_CQE_GRH |
		      AXON_CQE_GRH_IPV4);
	cq.cqes[1].src_qp = htole32(0xff00abcd);
	cqe = axon_cqe_peek(&cq);
	memset(&wc, 0xff, sizeof(wc));
	if (cqe)
		axon_cqe_to_wc(cqe, 0, &wc);
	check("cq-ud-recv",
	      cqe && wc.wc_flags == IBV_WC_GRH && wc.src_qp == 0xabcd &&
	      wc.byte_len == 50 && !wc.pkey_index && !wc.slid &&
	      wc.sl == (AXON_WC_SL_UDP | AXON_WC_SL_IPV4) && !wc.dlid_path_bits,
	      "GRH flag, 24-bit src_qp, RoCE v2 IPv4 in the SL, no P_Key index, LID or path bits");
	cq.ci++;
	dev_write_cqe(&cq, 6, 6, AXON_CQE_GRH);
	cq.cqes[2].src_qp = htole32(0x55);
	cqe = axon_cqe_peek(&cq);
	if (cqe)
		axon_cqe_to_wc(cqe, 0x99, &wc);
	check("cq-grh-on-send", cqe && !wc.wc_flags && wc.src_qp == 0x99 &&
	      !wc.sl, "a send CQE with the GRH flag taken for a UD receive");

	/* a SEND_WITH_INV's receive: the key, in host order */
	cq.ci++;
	dev_write_cqe(&cq, 7, 0, AXON_CQE_RECV | AXON_CQE_WITH_INV);
	cq.cqes[3].imm_data = htobe32(0x123457);
	cqe = axon_cqe_peek(&cq);
	if (cqe)
		axon_cqe_to_wc(cqe, 0x99, &wc);
	check("cq-with-inv",
	      cqe && wc.opcode == IBV_WC_RECV &&
	      wc.wc_flags == IBV_WC_WITH_INV &&
	      wc.invalidated_rkey == 0x123457 && axon_cqe_imm(cqe) == 0x123457,
	      "IBV_WC_WITH_INV, invalidated_rkey in host order");
	cq.ci++;
	dev_write_cqe(&cq, 8, 1, 0);
	cq.cqes[0].opcode = AXON_WC_BIND_MW;
	cq.cqes[0].status = AXON_WC_MW_BIND_ERR;
	cqe = axon_cqe_peek(&cq);
	if (cqe)
		axon_cqe_to_wc(cqe, 0x99, &wc);
	check("cq-bind-mw-err",
	      cqe && wc.opcode == IBV_WC_BIND_MW &&
	      wc.status == IBV_WC_MW_BIND_ERR && !wc.wc_flags &&
	      wc.imm_data == htobe32(0x01020304),
	      "IBV_WC_BIND_MW, IBV_WC_MW_BIND_ERR, imm_data as written");
	cq.ci++;
	dev_write_cqe(&cq, 9, 2, 0);
	cq.cqes[1].opcode = AXON_WC_LOCAL_INV;
	cqe = axon_cqe_peek(&cq);
	if (cqe)
		axon_cqe_to_wc(cqe, 0x99, &wc);
	check("cq-local-inv", cqe && wc.opcode == IBV_WC_LOCAL_INV &&
	      wc.status == IBV_WC_SUCCESS, "IBV_WC_LOCAL_INV");
	free(cq.cqes);
}

/* Only CQEs written and not consumed, across the wrap, and no further. */
static void test_cq_purge(void)
{
	struct axon_cqring cq = { .depth_shift = 2, .ci = 2 };
	unsigned int recv, recv2, recv3;
	uint32_t i;
	bool ok;

	cq.cqes = calloc(4 + 1, AXON_CQE_SIZE);
	cq.dbrec = (struct axon_cq_dbrec *)(cq.cqes + 4);
	/* 0 and 1 consumed; 2, 3 and (second pass, slot 0) 4 written. */
	for (i = 0; i < 5; i++)
		dev_write_cqe(&cq, i, i, 0);
	cq.cqes[3].qpn = htole32(0x99);
	cq.cqes[2].flags |= AXON_CQE_RECV;
	ok = axon_cq_purge(&cq, 0x1234, &recv) == 2 && recv == 1 &&
	     le32toh(cq.cqes[2].qpn) == AXON_QPN_PURGED &&
	     le32toh(cq.cqes[0].qpn) == AXON_QPN_PURGED &&
	     le32toh(cq.cqes[3].qpn) == 0x99 &&
	     le32toh(cq.cqes[1].qpn) == 0x1234 &&
	     axon_cqe_peek(&cq) == &cq.cqes[2];
	check("cq-purge", ok, "the CQEs of one QP from ci to the last written");

	/* A full ring (2..5): the walk ends after one pass. */
	dev_write_cqe(&cq, 5, 5, 0);
	ok = axon_cq_purge(&cq, 0x1234, &recv) == 1 &&
	     axon_cq_purge(&cq, 0x99, &recv2) == 1 &&
	     axon_cq_purge(&cq, AXON_QPN_PURGED, &recv3) == 4 &&
	     recv == 0 && recv2 == 0 && recv3 == 1;
	check("cq-purge-full", ok, "each CQE of a full ring once");
	free(cq.cqes);
}

static void test_doorbell(void)
{
	uint32_t db = 0;

	axon_ring_db(&db, 0x1234, 0x1abcd);
	check("doorbell", le32toh(db) == 0x1234abcd,
	      "qpn in 31:16, producer index mod 2^16 in 15:0");
}

/* The checks each test makes (the plan). */
#define SEND_ENCODING_CHECKS	8
#define INLINE_CHECKS		3
#define MW_ENCODING_CHECKS	11
#define RECV_AND_FULL_CHECKS	5
#define SQ_RETIRE_CHECKS	4
#define UD_AV_CHECKS		3
#define UD_ENCODING_CHECKS	8
#define UC_ENCODING_CHECKS	3
#define RUD_ENCODING_CHECKS	4
#define CQ_CHECKS		11
#define CQ_PURGE_CHECKS		2
#define DOORBELL_CHECKS		1

int main(void)
{
	tap_plan(SEND_ENCODING_CHECKS + INLINE_CHECKS + MW_ENCODING_CHECKS +
		 UD_AV_CHECKS + UD_ENCODING_CHECKS + UC_ENCODING_CHECKS +
		 RUD_ENCODING_CHECKS +
		 RECV_AND_FULL_CHECKS + SQ_RETIRE_CHECKS + CQ_CHECKS +
		 CQ_PURGE_CHECKS + DOORBELL_CHECKS);
	test_send_encoding();
	test_inline();
	test_mw_encoding();
	test_ud_av();
	test_ud_encoding();
	test_uc_encoding();
	test_rud_encoding();
	test_recv_and_full();
	test_sq_retire();
	test_cq();
	test_cq_purge();
	test_doorbell();
	return tap_done();
}
