/*
 * axon-nic: the admin queue
 *
 * Commands the driver posts on the admin submission ring, taken in order
 * in the MMIO write of the ring's tail, each executed through
 * one opcode table by the device itself (QUERY_DEVICE, QUERY_PORT,
 * WIRE_TEST) or by its RDMA engine, and completed on the admin
 * completion ring with a status and a result.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/cutils.h"
#include "qemu/log.h"
#include "qemu/main-loop.h"
#include "qemu/timer.h"
#include "hw/pci/pci.h"
#include "hw/pci/msix.h"
#include "sysemu/dma.h"
#include "trace.h"

#include "axon-nic.h"

/* The modified EUI-64 of the MAC, as RoCE devices derive their GUID. */
static uint64_t axon_nic_eui64(const MACAddr *mac)
{
    const uint8_t *a = mac->a;

    return (uint64_t)(a[0] ^ 2) << 56 | (uint64_t)a[1] << 48 |
           (uint64_t)a[2] << 40 | 0xfffeULL << 24 |
           (uint64_t)a[3] << 16 | (uint64_t)a[4] << 8 | a[5];
}

static uint16_t axon_nic_write_resp(AxonNicState *s,
                                    const struct axon_admin_query *q,
                                    const void *resp, size_t len)
{
    uint64_t addr = le64_to_cpu(q->resp_addr);

    if (le32_to_cpu(q->resp_len) < len) {
        trace_axon_nic_err_resp_len(le32_to_cpu(q->resp_len), len);
        return AXON_ADMIN_BAD_PARAM;
    }
    if (pci_dma_write(PCI_DEVICE(s), addr, resp, len) != MEMTX_OK) {
        trace_axon_nic_err_resp_dma(addr);
        return AXON_ADMIN_DMA_ERROR;
    }
    return AXON_ADMIN_SUCCESS;
}

static uint16_t axon_nic_query_device(AxonNicState *s,
                                      const struct axon_admin_cmd *cmd,
                                      uint64_t *result)
{
    const struct axon_admin_query *q = &cmd->query;
    struct axon_dev_attr attr = {};

    if (le32_to_cpu(q->port) ||
        !buffer_is_zero(q->reserved, sizeof(q->reserved))) {
        return AXON_ADMIN_BAD_PARAM;
    }

    attr.max_mr_size = cpu_to_le64(AXON_RDMA_MAX_MR_SIZE);
    attr.page_size_cap = cpu_to_le64(4096 | (2ULL << 20) | (1ULL << 30));
    attr.sys_image_guid = cpu_to_le64(axon_nic_eui64(&s->conf.macaddr));
    attr.vendor_part_id = cpu_to_le32(AXON_PCI_DEVICE_ID_NIC);
    attr.hw_ver = cpu_to_le32(PCI_DEVICE_GET_CLASS(s)->revision);
    attr.max_qp = cpu_to_le32(AXON_RDMA_MAX_QP);
    attr.max_qp_wr = cpu_to_le32(AXON_WQ_MAX_DEPTH);
    attr.max_sge = cpu_to_le32(AXON_MAX_SGE);
    attr.max_srq = cpu_to_le32(AXON_RDMA_MAX_SRQ);
    attr.max_srq_wr = cpu_to_le32(AXON_WQ_MAX_DEPTH);
    attr.max_fast_reg_pages = cpu_to_le32(AXON_FAST_REG_MAX_PAGES);
    attr.max_srq_sge = cpu_to_le16(AXON_MAX_SGE);
    attr.max_cq = cpu_to_le32(AXON_RDMA_MAX_CQ);
    attr.max_cqe = cpu_to_le32(AXON_CQ_MAX_DEPTH);
    attr.max_mr = cpu_to_le32(AXON_RDMA_MAX_MR);
    attr.max_pd = cpu_to_le32(s->max_pd);
    attr.max_qp_rd_atom = cpu_to_le32(AXON_MAX_RD_ATOMIC);
    attr.max_inline = cpu_to_le32(AXON_MAX_INLINE);
    attr.num_ports = cpu_to_le32(AXON_ENGINE_PORTS);
    attr.max_mcast_grp = cpu_to_le32(AXON_MAX_MCAST_GRP);
    attr.max_mcast_qp_attach = cpu_to_le32(AXON_MAX_MCAST_QP_ATTACH);
    memcpy(attr.mac, s->conf.macaddr.a, sizeof(attr.mac));

    return axon_nic_write_resp(s, q, &attr, sizeof(attr));
}

static uint16_t axon_nic_query_port(AxonNicState *s,
                                    const struct axon_admin_cmd *cmd,
                                    uint64_t *result)
{
    const struct axon_admin_query *q = &cmd->query;
    struct axon_port_attr attr = {};
    uint32_t port = le32_to_cpu(q->port);

    if (port < 1 || port > AXON_ENGINE_PORTS ||
        !buffer_is_zero(q->reserved, sizeof(q->reserved))) {
        return AXON_ADMIN_BAD_PARAM;
    }

    attr.state = cpu_to_le32(s->link_up ? AXON_PORT_ACTIVE : AXON_PORT_DOWN);
    attr.max_mtu = cpu_to_le32(4096);
    attr.active_mtu = cpu_to_le32(AXON_ENGINE_ACTIVE_MTU);
    attr.gid_tbl_len = cpu_to_le32(AXON_ENGINE_GID_TBL_LEN);
    attr.speed_mbps = cpu_to_le32(100000);
    attr.max_msg_sz = cpu_to_le32(1U << 31);

    return axon_nic_write_resp(s, q, &attr, sizeof(attr));
}

typedef uint16_t AxonAdminExec(AxonNicState *s,
                               const struct axon_admin_cmd *cmd,
                               uint64_t *result);

/*
 * Every admin command, by opcode, and who executes it: the device itself
 * (dev) or its RDMA engine.
 */
typedef struct AxonAdminOp {
    AxonAdminExec *dev;
    AxonEngineCmd *engine;
} AxonAdminOp;

static const AxonAdminOp axon_nic_admin_ops[] = {
    [AXON_ADMIN_QUERY_DEVICE] = { .dev = axon_nic_query_device },
    [AXON_ADMIN_QUERY_PORT] = { .dev = axon_nic_query_port },
    [AXON_ADMIN_CREATE_PD] = { .engine = axon_mr_create_pd },
    [AXON_ADMIN_DESTROY_PD] = { .engine = axon_mr_destroy_pd },
    [AXON_ADMIN_SET_GID] = { .engine = axon_gid_set },
    [AXON_ADMIN_CREATE_MR] = { .engine = axon_mr_create },
    [AXON_ADMIN_DESTROY_MR] = { .engine = axon_mr_destroy },
    [AXON_ADMIN_INVALIDATE_MR] = { .engine = axon_mr_invalidate },
    [AXON_ADMIN_REMAP_MR] = { .engine = axon_mr_remap },
    [AXON_ADMIN_CREATE_CQ] = { .engine = axon_cq_create },
    [AXON_ADMIN_DESTROY_CQ] = { .engine = axon_cq_destroy },
    [AXON_ADMIN_CREATE_QP] = { .engine = axon_qp_create },
    [AXON_ADMIN_MODIFY_QP] = { .engine = axon_qp_modify },
    [AXON_ADMIN_QUERY_QP] = { .engine = axon_qp_query },
    [AXON_ADMIN_DESTROY_QP] = { .engine = axon_qp_destroy },
    [AXON_ADMIN_CREATE_SRQ] = { .engine = axon_srq_create },
    [AXON_ADMIN_MODIFY_SRQ] = { .engine = axon_srq_modify },
    [AXON_ADMIN_QUERY_SRQ] = { .engine = axon_srq_query },
    [AXON_ADMIN_DESTROY_SRQ] = { .engine = axon_srq_destroy },
    [AXON_ADMIN_RESIZE_CQ] = { .engine = axon_cq_resize },
    [AXON_ADMIN_REREG_MR] = { .engine = axon_mr_rereg },
    [AXON_ADMIN_QUERY_QP_LIVE] = { .engine = axon_qp_query_live },
    [AXON_ADMIN_WIRE_TEST] = { .dev = axon_nic_wire_test },
    [AXON_ADMIN_ALLOC_COUNTER_SET] = { .engine = axon_cset_alloc },
    [AXON_ADMIN_FREE_COUNTER_SET] = { .engine = axon_cset_free },
    [AXON_ADMIN_BIND_COUNTER_SET] = { .engine = axon_cset_bind },
    [AXON_ADMIN_QUERY_COUNTER_SET] = { .engine = axon_cset_query },
    [AXON_ADMIN_ATTACH_MCAST] = { .engine = axon_mcast_attach },
    [AXON_ADMIN_DETACH_MCAST] = { .engine = axon_mcast_detach },
    [AXON_ADMIN_MAP_PAGES] = { .engine = axon_odp_map },
    [AXON_ADMIN_UNMAP_PAGES] = { .engine = axon_odp_unmap },
    [AXON_ADMIN_RESUME_QP] = { .engine = axon_odp_resume },
};

static uint16_t axon_nic_exec_admin(AxonNicState *s,
                                    const struct axon_admin_cmd *cmd,
                                    uint64_t *result)
{
    uint16_t opcode = le16_to_cpu(cmd->opcode);
    const AxonAdminOp *op;

    trace_axon_nic_admin_cmd(le16_to_cpu(cmd->command_id), opcode);
    if (cmd->flags) {
        return AXON_ADMIN_BAD_PARAM;
    }
    op = opcode < ARRAY_SIZE(axon_nic_admin_ops) ?
         &axon_nic_admin_ops[opcode] : NULL;
    if (!op || (!op->dev && !op->engine)) {
        trace_axon_nic_err_admin_opcode(opcode);
        return AXON_ADMIN_BAD_OPCODE;
    }
    return op->engine ? op->engine(s->engine, cmd, result) :
                        op->dev(s, cmd, result);
}

/* Test hook: like hung firmware, commands stay pending until a reset. */
static bool axon_nic_admin_stalled(AxonNicState *s)
{
    if (s->admin_stall_after && s->stat_aq_cmds >= s->admin_stall_after) {
        trace_axon_nic_admin_stalled(s->stat_aq_cmds);
        return true;
    }
    return false;
}

/*
 * Drains the admin SQ up to the tail, in the MMIO write of the tail: a
 * command costs no hand-off to the main loop. The device's reentrancy
 * guard is engaged there, so no DMA of a command reaches its own BARs.
 */
static void axon_nic_admin_run(AxonNicState *s)
{
    PCIDevice *pdev = PCI_DEVICE(s);
    AxonRing *sq = &s->aq_sq, *cq = &s->aq_cq;
    bool completed = false;

    while (axon_nic_ready(s) && sq->idx != s->aq_sq_tail &&
           !axon_nic_admin_stalled(s)) {
        struct axon_admin_cmd cmd;
        struct axon_admin_cqe cqe = {};
        uint64_t result = 0;
        uint16_t status;

        if (pci_dma_read(pdev, sq->base + (uint64_t)sq->idx * sizeof(cmd),
                         &cmd, sizeof(cmd)) != MEMTX_OK) {
            axon_nic_fatal(s, AXON_DEV_ERR_DMA);
            break;
        }
        sq->idx = (sq->idx + 1) % sq->depth;

        status = axon_nic_exec_admin(s, &cmd, &result);
        s->stat_aq_cmds++;
        if (status != AXON_ADMIN_SUCCESS) {
            s->stat_aq_errors++;
        }
        trace_axon_nic_admin_cqe(le16_to_cpu(cmd.command_id), status);

        cqe.command_id = cmd.command_id;
        cqe.status = cpu_to_le16(status);
        cqe.flags = cpu_to_le16(cq->phase ? AXON_ADMIN_CQE_PHASE : 0);
        cqe.result = cpu_to_le64(result);
        if (pci_dma_write(pdev, cq->base + (uint64_t)cq->idx * sizeof(cqe),
                          &cqe, sizeof(cqe)) != MEMTX_OK) {
            axon_nic_fatal(s, AXON_DEV_ERR_DMA);
            break;
        }
        if (++cq->idx == cq->depth) {
            cq->idx = 0;
            cq->phase = !cq->phase;
        }
        completed = true;
    }
    if (completed) {
        axon_nic_irq(s, AXON_MSIX_ADMIN);
    }
}

/*
 * Test hook x-admin-delay-us: the queue is drained that long after its
 * tail moved, from a timer (as a device whose firmware takes its time;
 * commands that arrive meanwhile go with it), with the reentrancy guard
 * engaged as in the MMIO write.
 */
static void axon_nic_admin_late(void *opaque)
{
    AxonNicState *s = opaque;
    MemReentrancyGuard *guard = &DEVICE(s)->mem_reentrancy_guard;
    bool engaged = guard->engaged_in_io;

    guard->engaged_in_io = true;
    if (axon_nic_ready(s)) {
        axon_nic_admin_run(s);
    }
    guard->engaged_in_io = engaged;
}

/* The driver moved the tail. */
void axon_nic_admin_tail(AxonNicState *s)
{
    if (!axon_nic_ready(s)) {
        return;
    }
    if (!s->admin_delay_us) {
        axon_nic_admin_run(s);
    } else if (!timer_pending(s->admin_timer)) {
        timer_mod(s->admin_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                  (int64_t)s->admin_delay_us * SCALE_US);
    }
}

void axon_nic_admin_realize(AxonNicState *s)
{
    s->admin_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, axon_nic_admin_late, s);
}

void axon_nic_admin_reset(AxonNicState *s)
{
    timer_del(s->admin_timer);
}

void axon_nic_admin_exit(AxonNicState *s)
{
    timer_free(s->admin_timer);
    s->admin_timer = NULL;
}
