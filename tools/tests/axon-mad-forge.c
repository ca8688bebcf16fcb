// SPDX-License-Identifier: GPL-2.0
/*
 * axon-mad-forge: malformed MADs at another node's QP 1, from a UD QP of
 * this one with the GSI Q_Key (which needs CAP_NET_RAW), as a peer on
 * the fabric could send them. KIND is what each of COUNT datagrams is:
 *
 *   base-version   a CM REQ header with base version 2 (only 1 exists)
 *   class          a Get of management class 0x55, which nobody serves
 *   class-version  a CM REQ header of class version 1 (the CM's is 2)
 *   attribute      a CM Send of attribute 0x00ff, which does not exist
 *   short          a CM REQ header alone, 24 bytes (a MAD is 256)
 *   long           a CM REQ of 512 bytes
 *   req-flood      CM REQs, each with its own communication ID, to a
 *                  service ID nobody listens on (the CM rejects each)
 *
 * Every datagram's send completion is checked; the receiving node checks
 * what became of them. One TAP result per KIND.
 *
 * Usage: axon-mad-forge [-d DEVICE] [-g GID_INDEX] [-n COUNT] IPV4 KIND...
 *        (axon0, GID 0, 100 datagrams of each KIND)
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axon-test.h"

#define GSI_QPN		1
#define GSI_QKEY	0x80010000u
#define MAD_SIZE	256
#define BUF_SIZE	512
#define DEPTH		64

#define CM_CLASS	0x07
#define CM_VERSION	2
#define CM_REQ		0x0010
#define METHOD_GET	0x01
#define METHOD_SEND	0x03
/* the rdma_cm's TCP port space; a port nobody listens on */
#define UNUSED_SERVICE	0x0000000001064995ull

struct forge {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	uint8_t buf[BUF_SIZE];
};

/* The common MAD header (IBA 13.4.3) of the datagram in @buf. */
static void mad_header(uint8_t *buf, uint8_t base, uint8_t class,
		       uint8_t version, uint8_t method, uint16_t attr,
		       uint64_t tid)
{
	uint16_t be_attr = htobe16(attr);
	uint64_t be_tid = htobe64(tid);

	memset(buf, 0, BUF_SIZE);
	buf[0] = base;
	buf[1] = class;
	buf[2] = version;
	buf[3] = method;
	memcpy(buf + 8, &be_tid, 8);
	memcpy(buf + 16, &be_attr, 2);
}

/* A REQ's local communication ID and service ID (IBA 12.6.5). */
static void req_body(uint8_t *buf, uint32_t comm_id, uint64_t service)
{
	uint32_t be_id = htobe32(comm_id);
	uint64_t be_sid = htobe64(service);

	memcpy(buf + 24, &be_id, 4);
	memcpy(buf + 32, &be_sid, 8);
}

/* Datagram @i of @kind into f->buf; its length, or 0 for no such kind. */
static uint32_t forge_mad(struct forge *f, const char *kind, unsigned int i)
{
	uint64_t tid = 0xa5a50000ull + i;

	if (!strcmp(kind, "base-version")) {
		mad_header(f->buf, 2, CM_CLASS, CM_VERSION, METHOD_SEND, CM_REQ,
			   tid);
	} else if (!strcmp(kind, "class")) {
		mad_header(f->buf, 1, 0x55, 1, METHOD_GET, 0x0010, tid);
	} else if (!strcmp(kind, "class-version")) {
		mad_header(f->buf, 1, CM_CLASS, 1, METHOD_SEND, CM_REQ, tid);
	} else if (!strcmp(kind, "attribute")) {
		mad_header(f->buf, 1, CM_CLASS, CM_VERSION, METHOD_SEND, 0x00ff,
			   tid);
	} else if (!strcmp(kind, "short")) {
		mad_header(f->buf, 1, CM_CLASS, CM_VERSION, METHOD_SEND, CM_REQ,
			   tid);
		return 24;
	} else if (!strcmp(kind, "long")) {
		mad_header(f->buf, 1, CM_CLASS, CM_VERSION, METHOD_SEND, CM_REQ,
			   tid);
		req_body(f->buf, 0x5a000000 + i, UNUSED_SERVICE);
		return BUF_SIZE;
	} else if (!strcmp(kind, "req-flood")) {
		mad_header(f->buf, 1, CM_CLASS, CM_VERSION, METHOD_SEND, CM_REQ,
			   tid);
		req_body(f->buf, 0x5b000000 + i, UNUSED_SERVICE);
	} else {
		return 0;
	}
	return MAD_SIZE;
}

static bool send_one(struct forge *f, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)f->buf, .length = len, .lkey = f->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = f->ah, .remote_qpn = GSI_QPN,
			   .remote_qkey = GSI_QKEY },
	}, *bad;
	struct ibv_wc wc;

	if (ibv_post_send(f->qp, &wr, &bad)) {
		tap_diag("ibv_post_send: %s", strerror(errno));
		return false;
	}
	if (!poll_one(f->cq, &wc, 5000) || wc.status != IBV_WC_SUCCESS) {
		tap_diag("send completion: %s", ibv_wc_status_str(wc.status));
		return false;
	}
	return true;
}

/* A UD QP in RTS with the GSI Q_Key, and an address handle to @dgid. */
static int forge_open(struct forge *f, const char *name, int gid_index,
		      const union ibv_gid *dgid)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = GSI_QKEY,
	};
	struct ibv_ah_attr ah = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = *dgid, .sgid_index = gid_index,
			 .hop_limit = 64 },
	};

	f->ctx = open_device(name);
	if (!f->ctx)
		return -1;
	f->pd = ibv_alloc_pd(f->ctx);
	f->cq = f->pd ? ibv_create_cq(f->ctx, DEPTH, NULL, NULL, 0) : NULL;
	init.send_cq = init.recv_cq = f->cq;
	f->qp = f->cq ? ibv_create_qp(f->pd, &init) : NULL;
	f->mr = f->qp ? ibv_reg_mr(f->pd, f->buf, BUF_SIZE, 0) : NULL;
	if (!f->mr) {
		tap_diag("PD, CQ, QP or MR: %s", strerror(errno));
		return -1;
	}
	errno = ibv_modify_qp(f->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			      IBV_QP_PORT | IBV_QP_QKEY);
	if (errno) {
		tap_diag("to INIT with the GSI Q_Key: %s", strerror(errno));
		return -1;
	}
	a.qp_state = IBV_QPS_RTR;
	errno = ibv_modify_qp(f->qp, &a, IBV_QP_STATE);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (errno || (errno = ibv_modify_qp(f->qp, &a, IBV_QP_STATE |
					    IBV_QP_SQ_PSN))) {
		tap_diag("to RTR and RTS: %s", strerror(errno));
		return -1;
	}
	f->ah = ibv_create_ah(f->pd, &ah);
	if (!f->ah) {
		tap_diag("ibv_create_ah: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *name = "axon0";
	unsigned int i, count = 100;
	struct forge f = { 0 };
	union ibv_gid dgid = { .raw = { [10] = 0xff, [11] = 0xff } };
	int opt, k, gid_index = 0;

	while ((opt = getopt(argc, argv, "d:g:n:")) != -1) {
		switch (opt) {
		case 'd':
			name = optarg;
			break;
		case 'g':
			gid_index = atoi(optarg);
			break;
		case 'n':
			count = strtoul(optarg, NULL, 0);
			break;
		default:
			optind = argc + 1;
		}
	}
	if (optind + 2 > argc ||
	    inet_pton(AF_INET, argv[optind], dgid.raw + 12) != 1) {
		fprintf(stderr,
			"usage: %s [-d DEVICE] [-g GID_INDEX] [-n COUNT] IPV4 KIND...\n",
			argv[0]);
		return 2;
	}
	tap_plan(argc - optind - 1);
	if (forge_open(&f, name, gid_index, &dgid)) {
		tap_bail("a UD QP with the GSI Q_Key on %s", name);
		return 1;
	}
	for (k = optind + 1; k < argc; k++) {
		for (i = 0; i < count; i++) {
			uint32_t len = forge_mad(&f, argv[k], i);

			if (!len) {
				tap_diag("no such kind: %s", argv[k]);
				break;
			}
			if (!send_one(&f, len))
				break;
		}
		tap_ok(i == count, "%u datagrams to QP 1 of %s: %s", count,
		       argv[optind], argv[k]);
	}
	ibv_destroy_ah(f.ah);
	ibv_destroy_qp(f.qp);
	ibv_dereg_mr(f.mr);
	ibv_destroy_cq(f.cq);
	ibv_dealloc_pd(f.pd);
	ibv_close_device(f.ctx);
	return tap_done();
}
