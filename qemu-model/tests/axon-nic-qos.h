/*
 * axon-nic qtest fixtures, in the manner of libqos: bring the device up
 * through its registers, run admin commands, drive the Ethernet rings
 * and a wire (a UDP socket netdev that sends to itself), and set up RDMA
 * objects (a PD, MRs with shuffled page lists, CQs, two connected QPs)
 * with helpers to post work and poll completions. The test files
 * (axon-nic-*-test.c, axon-gpu-test.c) are thin, one per function of the
 * device; axon-nic-test.c registers them all.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AXON_NIC_QOS_H
#define AXON_NIC_QOS_H

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/sockets.h"
#include "libqtest.h"
#include "libqos/libqos-pc.h"
#include "libqos/pci-pc.h"
#include "hw/pci/pci_regs.h"

#include "axon/axon_dev.h"
#include "axon/axon_gpu_dev.h"
#include "axon-nic-forge.h"

/* Guest physical memory used by the tests (the VM has 128 MiB). */
#define SQ_ADDR 0x1000000ULL
#define CQ_ADDR 0x1010000ULL
#define EQ_ADDR 0x1020000ULL
#define RESP_ADDR 0x1030000ULL
#define MSI_ADDR 0x1040000ULL
#define ETX_ADDR 0x1050000ULL
#define ERX_ADDR 0x1060000ULL
#define TXBUF_ADDR 0x1100000ULL
#define RXBUF_ADDR 0x1200000ULL
#define BUF_STRIDE 0x4000ULL
#define UNMAPPED_ADDR 0xfff0000000000ULL

#define POLL_LIMIT 100000

typedef struct Axon {
    QTestState *qts;
    QPCIBus *bus;
    QPCIDevice *dev;
    QPCIBar bar;
    uint32_t sq_depth, cq_depth, eq_depth;
    uint32_t sq_tail, cq_head, eq_head;
    bool cq_phase, eq_phase;
    uint16_t next_cid;
    /* Ethernet function */
    uint32_t tx_depth, rx_depth, mtu;
    uint32_t tx_tail, rx_tail;
    /* the netdev's UDP socket, for injecting frames; -1 without */
    int wire_fd;
    struct sockaddr_in wire_addr;
    uint8_t wire_hdr[8];        /* what inject() puts before a frame */
    unsigned wire_hdr_len;
    /*
     * Runs QEMU's main loop, for a device in this process (the fuzz
     * targets): set, the fixture's waits call it after each clock step.
     */
    void (*run_main_loop)(QTestState *qts);
} Axon;

#define ETH_MSI_ADDR (MSI_ADDR + 8)
#define DESC_SIZE sizeof(struct axon_eth_desc)
#define DESC_FLAGS offsetof(struct axon_eth_desc, flags)
#define DESC_LEN offsetof(struct axon_eth_desc, len)

enum { L3_V4, L3_V6 };

#define R_BASE 0x2000000ULL
#define PBL_ADDR (R_BASE + 0x000000)    /* page lists, 64 KiB each */
#define CEQ_ADDR (R_BASE + 0x100000)
#define ATTR_ADDR (R_BASE + 0x110000)
#define RCQ_ADDR(i) (R_BASE + 0x120000 + (i) * 0x10000)
#define RSQ_ADDR(i) (R_BASE + 0x200000 + (i) * 0x40000)
#define RRQ_ADDR(i) (R_BASE + 0x220000 + (i) * 0x40000)
#define MEM_ADDR(i) (R_BASE + 0x400000 + (i) * 0x200000)
#define MEM_PAGES 256                   /* 1 MiB per region */
#define R_CQ_DEPTH 64
#define R_WQ_DEPTH 64
#define R_WQE_SHIFT 9
#define R_UAR 3
#define R_MTU 1024
#define T_MAC "52:54:00:12:34:56"

/* A region of 4 KiB pages in an MR whose page list is shuffled. */
typedef struct TMr {
    uint64_t iova;
    uint32_t key;
    uint64_t pages[MEM_PAGES];
} TMr;

typedef struct TCq {
    uint32_t cqn;
    uint64_t ring;
    uint32_t cons;
    uint32_t depth;             /* 0: R_CQ_DEPTH */
    const uint64_t *pages;      /* a ring in 4 KiB pages; NULL: at ring */
    uint32_t cqe_size;          /* 0: AXON_CQE_SIZE */
} TCq;

/* The guest address of byte off of the CQ's ring memory. */
uint64_t tcq_addr(const TCq *cq, uint64_t off);

typedef struct TQp {
    uint32_t qpn;
    uint64_t key;               /* RUD: its receive key, from MODIFY_QP */
    uint64_t sq, rq;
    uint16_t sq_pi, rq_pi;
    TCq *scq, *rcq;
} TQp;

typedef struct Rdma {
    Axon *a;
    bool v6;                    /* IPv6 GIDs (else IPv4-mapped) */
    QPCIBar db;
    uint32_t pdn;
    TMr mr[2];
    TCq cq[2];
    TQp qp[2];
} Rdma;

#define GPU_VRAM (16 * 1024 * 1024)

extern const uint8_t gid_v6[16];

uint32_t rd(Axon *a, uint32_t reg);

void wr(Axon *a, uint32_t reg, uint32_t val);

/* The axon-nic at 04.0 of the machine qts drives. */
Axon *axon_attach(QTestState *qts);

/* A machine with the axon-nic at 04.0, extra added to its -device. */
Axon *axon_start(const char *extra);

/* Moves the virtual clock by ns, what the fixture's waits do each turn. */
void axon_step(Axon *a, int64_t ns);

/* A free local UDP port for the device's socket netdev. */
int free_udp_port(void);

/* The device with netdev=n0, a socket netdev that sends to itself. */
Axon *axon_start_wire(const char *extra);

/* Opens the socket that inject() sends from to the netdev at port. */
void wire_open(Axon *a, int port);

/* The same over QEMU's l2tpv3 backend, with a 4 MiB socket buffer. */
Axon *axon_start_l2tp_wire(const char *extra);

void axon_stop(Axon *a);

void program_queues(Axon *a, uint64_t sq, uint32_t sqd, uint64_t cq,
                    uint32_t cqd, uint64_t eq, uint32_t eqd);

/* Reset, zero the rings, program them and enable; returns AXON_REG_ERROR. */
uint32_t axon_enable(Axon *a, uint32_t sqd, uint32_t cqd, uint32_t eqd);

void setup_msix(Axon *a, unsigned vector, uint64_t addr, uint32_t data);

void submit(Axon *a, struct axon_admin_cmd *cmd);

/* Wait for the next completion; returns false if none arrives. */
bool reap(Axon *a, struct axon_admin_cqe *cqe);

uint16_t run_cmd(Axon *a, struct axon_admin_cmd *cmd, uint64_t *result);

uint16_t query(Axon *a, uint16_t opcode, uint64_t addr, uint32_t len,
               uint32_t port);

bool wait_word(Axon *a, uint64_t addr, uint32_t want);

void read_event(Axon *a, struct axon_event *ev);

/* Waits for the next async event and consumes it; false if none comes. */
bool take_event(Axon *a, struct axon_event *ev);

void program_eth(Axon *a, uint64_t tx, uint32_t txd, uint64_t rx,
                 uint32_t rxd, uint32_t mtu);

/* Admin queues up, then the Ethernet rings; returns AXON_REG_ERROR. */
uint32_t eth_enable(Axon *a, uint32_t txd, uint32_t rxd, uint32_t mtu);

uint64_t rx_buf(uint32_t idx);

void write_desc(Axon *a, uint64_t ring, uint32_t idx, uint64_t addr,
                uint16_t len);

/* Posts one RX buffer of buf_len bytes at addr (0: the default one). */
uint32_t post_rx_at(Axon *a, uint64_t addr, uint16_t buf_len);

void post_rx(Axon *a, unsigned n);

/* Queues a TX descriptor (frame already in guest memory at addr). */
uint32_t tx_desc(Axon *a, uint64_t addr, uint16_t len);

uint32_t tx_frame(Axon *a, const void *frame, uint16_t len);

/* Waits until the device has written back the descriptor's flags. */
uint16_t wait_desc(Axon *a, uint64_t ring, uint32_t idx);

bool wait_reg(Axon *a, uint32_t reg, uint32_t want);

uint16_t rx_len(Axon *a, uint32_t idx);

/* Checks that RX buffer idx holds exactly this frame. */
void check_rx(Axon *a, uint32_t idx, const uint8_t *frame, size_t len);

void inject(Axon *a, const void *frame, size_t len);

/* An Ethernet frame of len bytes: header, then a pattern from seed. */
uint8_t *make_frame(size_t len, uint16_t ethertype, uint8_t seed);

/*
 * IPv4 or IPv6 / UDP to dport, optionally VLAN-tagged, with payload_len
 * bytes after the UDP header; returns the frame, its length in *len.
 */
uint8_t *make_udp(int l3, bool vlan, uint16_t dport, uint16_t frag,
                  size_t payload_len, size_t *len);

void set_link(Axon *a, const char *name, bool up);

uint32_t port_state(Axon *a);

uint16_t set_gid(Axon *a, uint32_t port, uint32_t index, uint32_t type,
                 uint32_t rsvd0, uint8_t rsvd);

uint16_t cmd_result(Axon *a, struct axon_admin_cmd *cmd, uint16_t op,
                    uint64_t *result);

uint16_t create_pd(Axon *a, uint64_t *pdn);

uint16_t create_mr(Axon *a, uint32_t pdn, uint32_t access,
                   uint64_t iova, uint64_t length, uint32_t npages,
                   uint8_t shift, uint8_t levels, uint64_t *key);

uint16_t destroy_mr(Axon *a, uint32_t key);

/* A window (AXON_MR_MW_TYPE1 or AXON_MR_MW_TYPE2 in flags) in pdn. */
uint16_t create_mw(Axon *a, uint32_t pdn, uint16_t flags, uint64_t *key);

uint16_t create_cq(Axon *a, uint64_t ring, uint32_t depth, uint32_t uar,
                   uint64_t *cqn);

uint16_t create_cq_flags(Axon *a, uint64_t ring, uint32_t depth,
                         uint32_t uar, uint8_t flags, uint64_t *cqn);

uint16_t destroy_cq(Axon *a, uint32_t cqn);

uint16_t resize_cq(Axon *a, uint32_t cqn, uint64_t ring, uint32_t depth);

/* A CREATE_QP with a send queue of depth at sq, and no receive queue. */
void create_qp_cmd(struct axon_admin_cmd *cmd, uint32_t pdn, uint32_t scqn,
                   uint32_t rcqn, uint64_t sq, uint16_t depth);

uint16_t create_qp(Axon *a, uint32_t pdn, uint32_t scqn, uint32_t rcqn,
                   uint64_t sq, uint64_t rq, uint16_t depth,
                   uint8_t sig_all, uint64_t *qpn);

/*
 * A QP of this type (enum axon_qp_type) with an SQ and an RQ of
 * R_WQ_DEPTH at sq and rq, completing on cq; qp->qpn is set on success.
 */
uint16_t create_qp_type(Rdma *r, TQp *qp, uint8_t type, uint64_t sq,
                        uint64_t rq, TCq *cq);

/* A UD QP through INIT (with qkey) and RTR to RTS (SQ PSN sq_psn). */
void ud_to_rts(Rdma *r, TQp *qp, uint32_t qkey, uint32_t sq_psn);

/* The address of this device's own GID (the fixture's, IPv4 or IPv6). */
void own_av(Rdma *r, struct axon_ud_av *av);

/* A UC QP to dest: INIT (REMOTE_WRITE), RTR, RTS, at the fixture's path. */
void uc_connect(Rdma *r, TQp *qp, uint32_t dest, uint32_t sq_psn,
                uint32_t rq_psn);

/* A QP with an SQ of R_WQ_DEPTH at sq that receives from SRQ srqn. */
uint16_t create_qp_srq(Axon *a, uint32_t pdn, uint32_t scqn, uint32_t rcqn,
                       uint64_t sq, uint32_t srqn, uint64_t *qpn);

uint16_t qp_cmd(Axon *a, uint16_t op, uint32_t qpn, uint32_t mask,
                uint64_t addr);

uint16_t modify_qp(Axon *a, uint32_t qpn, uint32_t mask,
                   const struct axon_qp_attr *attr);

/* MODIFY_QP, with the command's result (a RUD QP's key out of RESET). */
uint16_t modify_qp_result(Axon *a, uint32_t qpn, uint32_t mask,
                          const struct axon_qp_attr *attr, uint64_t *result);

uint32_t qp_state(Axon *a, uint32_t qpn);

/* QUERY_QP_LIVE of qpn into st, in CPU order for the 64-bit counters. */
void qp_live(Axon *a, uint32_t qpn, struct axon_qp_live *st);

void rdma_enable(Axon *a);

/* Region i: MEM_PAGES pages, listed in a shuffled order behind iova. */
void make_mr(Rdma *r, int i, uint32_t access);

/* Reads or writes an MR's memory as the device sees it (through iova). */
void mr_access(Rdma *r, int i, uint64_t va, void *buf, size_t len,
               bool write);

/* RESET -> INIT with every remote right; a RUD QP's new key in qp->key. */
void init_qp(Rdma *r, TQp *qp);

/* INIT -> RTR -> RTS; peer_key: a RUD QP's peer's key (0: none given). */
void ready_qp(Rdma *r, TQp *qp, uint32_t dest, uint32_t sq_psn,
              uint32_t rq_psn, uint8_t rnr_retry, uint64_t peer_key);

void connect_qp(Rdma *r, TQp *qp, uint32_t dest, uint32_t sq_psn,
                uint32_t rq_psn, uint8_t rnr_retry);

/* RUD QPs u[0] and u[1] connected to each other, keys exchanged. */
void connect_rud(Rdma *r, TQp *u, uint32_t psn0, uint32_t psn1);

/*
 * Two QPs of this device connected to each other: in loopback, or, with
 * wire_args, through RoCEv2 frames on a socket netdev that sends to itself.
 * dev_args (loopback only) adds to the command line after the device.
 */
Rdma *rdma_setup_on(const char *wire_args, uint8_t rnr_retry,
                    bool v6, const char *dev_args);

/* rdma_setup_on(wire_args, 7, false, NULL) with an l2tpv3 wire. */
Rdma *rdma_setup_l2tp(const char *wire_args);

/*
 * The RDMA objects of rdma_setup_on on a device that is up: with wire,
 * its Ethernet function carries the RoCEv2 frames.
 */
Rdma *rdma_bring_up(Axon *a, bool wire, uint8_t rnr_retry, bool v6);

/*
 * rdma_bring_up's work on r again, from a device reset (which it does):
 * what r held is forgotten. The fuzz targets start each input from it.
 */
void rdma_configure(Rdma *r, bool wire, uint8_t rnr_retry);

Rdma *rdma_setup(uint8_t rnr_retry);

void rdma_stop(Rdma *r);

void ring(Rdma *r, uint32_t page, uint32_t reg, uint32_t id,
          uint32_t val);

struct axon_sge sge(Rdma *r, int mr, uint64_t off, uint32_t len);

void post_send(Rdma *r, TQp *qp, struct axon_send_wqe *w,
               const struct axon_sge *sg, const void *inl);

/* A BIND_MW of mw_key to [addr, addr + len) of mr_key, posted on qp. */
void post_bind_mw(Rdma *r, TQp *qp, uint32_t mw_key, uint32_t mr_key,
                  uint64_t addr, uint64_t len, uint8_t rights,
                  uint64_t wr_id);

/* QP 0's WRITE (or READ) of len bytes at MR 0's offset 300000 to raddr. */
void post_rdma0(Rdma *r, uint8_t opcode, uint32_t rkey, uint64_t raddr,
                uint32_t len, uint64_t wr_id);

void post_recv(Rdma *r, TQp *qp, uint64_t wr_id,
               const struct axon_sge *sg, int n);

/*
 * A signaled WQE of one SGE on qp: len bytes at MR 0's offset off, a
 * WRITE's or READ's remote side at MR 1's offset roff with rkey; its
 * immediate data is 0xc0de0000 | (uint8_t)wr_id.
 */
void post_sge_wqe(Rdma *r, TQp *qp, uint8_t opcode, uint8_t flags,
                  uint64_t wr_id, uint64_t off, uint32_t len, uint64_t roff,
                  uint32_t rkey);

/* A receive on qp of one SGE: len bytes at MR 1's offset off. */
void post_sge_recv(Rdma *r, TQp *qp, uint64_t wr_id, uint64_t off,
                   uint32_t len);

bool poll_cq(Rdma *r, TCq *cq, struct axon_cqe *cqe);

/* A CQE that comes without the virtual clock moving: no timer in its way. */
bool poll_cq_now(Rdma *r, TCq *cq, struct axon_cqe *cqe);

void expect_cqe(Rdma *r, TCq *cq, uint64_t wr_id, uint8_t opcode,
                uint8_t status);

uint8_t *pattern(size_t len, uint8_t seed);

void check_mem(Rdma *r, int mr, uint64_t off, const uint8_t *want,
               size_t len);

/*
 * Sends f (axon-nic-forge.h) and waits until the device took it and the
 * frames it answers with (the device's wire loops back to it) came back:
 * frames in all. The loopback is the host's, and takes real time on a
 * busy host.
 */
void forge(Rdma *r, const Forged *f, uint32_t frames);

/* Size and flags of a memory BAR, probed the way firmware does. */
uint64_t bar_size(QPCIDevice *dev, int bar, uint32_t *flags);

/* Each test file registers its tests. */
void axon_nic_ctrl_tests(void);
void axon_nic_eth_tests(void);
void axon_nic_rdma_tests(void);
void axon_nic_wire_tests(void);
void axon_nic_cc_tests(void);
void axon_nic_peer_tests(void);
void axon_nic_srq_tests(void);
void axon_nic_ud_tests(void);
void axon_nic_uc_tests(void);
void axon_nic_rud_tests(void);
void axon_nic_frmr_tests(void);
void axon_nic_mw_tests(void);
void axon_gpu_tests(void);

#endif /* AXON_NIC_QOS_H */
