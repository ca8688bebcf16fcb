/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause */
/*
 * axon's generic netlink family: the contract between axon.ko and
 * axonctl (tools/axonctl.c) for what the rdma and devlink tools do not
 * show.
 */
#ifndef _UAPI_AXON_NETLINK_H
#define _UAPI_AXON_NETLINK_H

/**
 * DOC: axon generic netlink family
 *
 * The family ``AXON_NL_FAMILY_NAME``, version ``AXON_NL_FAMILY_VERSION``,
 * lives in the initial network namespace. A request names its device by
 * ``AXON_NL_ATTR_DEV_NAME``, the RDMA device's name (``axon0``); every
 * attribute of a request is checked against the family's policy, strictly:
 * an attribute of the wrong type or length, out of range, or not one a
 * request may carry is refused with EINVAL or ERANGE, a missing one with
 * EINVAL, and each with an extended ack message naming the attribute.
 * Commands that change state, and QP_GET, need ``CAP_NET_ADMIN`` (EPERM
 * otherwise), and DEV_GET leaves out for other users what takes a device
 * command to read: no request of an unprivileged user reaches the device.
 *
 * Answers are one message per object, attributes at the top level. A
 * field a device does not have is left out, never sent as 0.
 */
#define AXON_NL_FAMILY_NAME		"axon"
#define AXON_NL_FAMILY_VERSION		1

/**
 * enum axon_nl_cmd - commands of the axon family
 * @AXON_NL_CMD_UNSPEC: not a command
 * @AXON_NL_CMD_DEV_GET: a device (@AXON_NL_ATTR_DEV_NAME), or every
 *	device with ``NLM_F_DUMP``: what it is and, to ``CAP_NET_ADMIN``
 *	only, its wire test settings
 * @AXON_NL_CMD_DEV_SET: ``CAP_NET_ADMIN``; the device's wire test
 *	settings (@AXON_NL_ATTR_WIRE_DROP_EVERY,
 *	@AXON_NL_ATTR_WIRE_REORDER_EVERY, at least one); EOPNOTSUPP
 *	without ``AXON_CAP_WIRE_TEST``
 * @AXON_NL_CMD_QP_GET: ``CAP_NET_ADMIN`` (its PSNs are what a forger
 *	must guess); one QP of a device (@AXON_NL_ATTR_DEV_NAME,
 *	@AXON_NL_ATTR_QPN; ENOENT if it has none by that number), or each of
 *	its QPs with ``NLM_F_DUMP``: the driver's view, and the device's live
 *	transport state and counters
 * @__AXON_NL_CMD_MAX: the number of commands
 */
enum axon_nl_cmd {
	AXON_NL_CMD_UNSPEC,
	AXON_NL_CMD_DEV_GET,
	AXON_NL_CMD_DEV_SET,
	AXON_NL_CMD_QP_GET,
	__AXON_NL_CMD_MAX,
};

#define AXON_NL_CMD_MAX			(__AXON_NL_CMD_MAX - 1)

/**
 * enum axon_nl_attr - attributes of the axon family
 * @AXON_NL_ATTR_UNSPEC: not an attribute
 * @AXON_NL_ATTR_PAD: padding of 64-bit attributes
 * @AXON_NL_ATTR_DEV_NAME: string; the RDMA device (requests and answers)
 * @AXON_NL_ATTR_DEV_INDEX: u32; its index in the RDMA core
 * @AXON_NL_ATTR_NETDEV_NAME: string; its Ethernet interface
 * @AXON_NL_ATTR_BUS_NAME: string; its PCI function (``0000:00:04.0``)
 * @AXON_NL_ATTR_FW_VERSION: string; the firmware release
 * @AXON_NL_ATTR_IF_VERSION: string; the device interface version (1.10)
 * @AXON_NL_ATTR_CAPS: u32; the device's ``AXON_CAP_*``
 * @AXON_NL_ATTR_NODE_GUID: u64; the node GUID
 * @AXON_NL_ATTR_DEV_FATAL: flag; the device failed (DEVICE_FATAL sent)
 * @AXON_NL_ATTR_QP_COUNT: u32; the device's QPs
 * @AXON_NL_ATTR_WIRE_DROP_EVERY: u32; wire test: lose every Nth frame sent,
 *	0 none (answers and DEV_SET)
 * @AXON_NL_ATTR_WIRE_REORDER_EVERY: u32; wire test: send every Nth frame
 *	after the next one, 0 none (answers and DEV_SET)
 * @AXON_NL_ATTR_QPN: u32, at most 0xffffff; the QP (requests and answers)
 * @AXON_NL_ATTR_QP_TYPE: string; RC, UC, UD, GSI, XRC_INI, XRC_TGT or RUD
 * @AXON_NL_ATTR_QP_STATE: string; the state the driver last set or saw
 * @AXON_NL_ATTR_QP_DEST_QPN: u32; the connected QP's peer
 * @AXON_NL_ATTR_QP_SQ_DEPTH: u32; send queue WQEs
 * @AXON_NL_ATTR_QP_RQ_DEPTH: u32; receive queue WQEs (none with an SRQ)
 * @AXON_NL_ATTR_QP_KERNEL: flag; a kernel consumer's QP
 * @AXON_NL_ATTR_QP_LIVE: nested, &enum axon_nl_live; the device's live
 *	state, present when the device answered QUERY_QP_LIVE
 * @__AXON_NL_ATTR_MAX: the number of attributes
 */
enum axon_nl_attr {
	AXON_NL_ATTR_UNSPEC,
	AXON_NL_ATTR_PAD,
	AXON_NL_ATTR_DEV_NAME,
	AXON_NL_ATTR_DEV_INDEX,
	AXON_NL_ATTR_NETDEV_NAME,
	AXON_NL_ATTR_BUS_NAME,
	AXON_NL_ATTR_FW_VERSION,
	AXON_NL_ATTR_IF_VERSION,
	AXON_NL_ATTR_CAPS,
	AXON_NL_ATTR_NODE_GUID,
	AXON_NL_ATTR_DEV_FATAL,
	AXON_NL_ATTR_QP_COUNT,
	AXON_NL_ATTR_WIRE_DROP_EVERY,
	AXON_NL_ATTR_WIRE_REORDER_EVERY,
	AXON_NL_ATTR_QPN,
	AXON_NL_ATTR_QP_TYPE,
	AXON_NL_ATTR_QP_STATE,
	AXON_NL_ATTR_QP_DEST_QPN,
	AXON_NL_ATTR_QP_SQ_DEPTH,
	AXON_NL_ATTR_QP_RQ_DEPTH,
	AXON_NL_ATTR_QP_KERNEL,
	AXON_NL_ATTR_QP_LIVE,
	__AXON_NL_ATTR_MAX,
};

#define AXON_NL_ATTR_MAX		(__AXON_NL_ATTR_MAX - 1)

/**
 * enum axon_nl_live - a QP's live state, in @AXON_NL_ATTR_QP_LIVE
 * @AXON_NL_LIVE_UNSPEC: not an attribute
 * @AXON_NL_LIVE_PAD: padding of 64-bit attributes
 * @AXON_NL_LIVE_STATE: string; the device's QP state
 * @AXON_NL_LIVE_SQ_PSN: u32; the next PSN to send
 * @AXON_NL_LIVE_UNA_PSN: u32; the oldest PSN not acknowledged
 * @AXON_NL_LIVE_PSN_HI: u32; one after the highest PSN sent
 * @AXON_NL_LIVE_EPSN: u32; the next PSN expected
 * @AXON_NL_LIVE_MSN: u32; the responder's message sequence number
 * @AXON_NL_LIVE_SEND_WINDOW: u32; send WQEs taken and not completed
 * @AXON_NL_LIVE_READS_INFLIGHT: u32; READs and atomics in that window
 * @AXON_NL_LIVE_RETRY_LEFT: u32; retries left
 * @AXON_NL_LIVE_RNR_LEFT: u32; RNR retries left (7: unlimited)
 * @AXON_NL_LIVE_FLAGS: u32; ``AXON_QP_LIVE_*`` (axon_admin_cmds_defs.h)
 * @AXON_NL_LIVE_TX_PKTS: u64; this and the rest: the counters of
 *	&struct axon_qp_live, in its order
 * @AXON_NL_LIVE_TX_BYTES: u64
 * @AXON_NL_LIVE_RX_PKTS: u64
 * @AXON_NL_LIVE_RX_BYTES: u64
 * @AXON_NL_LIVE_RETRANS: u64
 * @AXON_NL_LIVE_TIMEOUTS: u64
 * @AXON_NL_LIVE_SEQ_NAKS_SENT: u64
 * @AXON_NL_LIVE_RNR_NAKS_SENT: u64
 * @AXON_NL_LIVE_ERR_NAKS_SENT: u64
 * @AXON_NL_LIVE_SEQ_NAKS_RCVD: u64
 * @AXON_NL_LIVE_RNR_NAKS_RCVD: u64
 * @AXON_NL_LIVE_ERR_NAKS_RCVD: u64
 * @AXON_NL_LIVE_OUT_OF_SEQ: u64
 * @AXON_NL_LIVE_DUP_REQS: u64
 * @AXON_NL_LIVE_STRAY: u64
 * @AXON_NL_LIVE_LOCAL_ERRS: u64
 * @AXON_NL_LIVE_REMOTE_ERRS: u64
 * @__AXON_NL_LIVE_MAX: the number of attributes
 */
enum axon_nl_live {
	AXON_NL_LIVE_UNSPEC,
	AXON_NL_LIVE_PAD,
	AXON_NL_LIVE_STATE,
	AXON_NL_LIVE_SQ_PSN,
	AXON_NL_LIVE_UNA_PSN,
	AXON_NL_LIVE_PSN_HI,
	AXON_NL_LIVE_EPSN,
	AXON_NL_LIVE_MSN,
	AXON_NL_LIVE_SEND_WINDOW,
	AXON_NL_LIVE_READS_INFLIGHT,
	AXON_NL_LIVE_RETRY_LEFT,
	AXON_NL_LIVE_RNR_LEFT,
	AXON_NL_LIVE_FLAGS,
	AXON_NL_LIVE_TX_PKTS,
	AXON_NL_LIVE_TX_BYTES,
	AXON_NL_LIVE_RX_PKTS,
	AXON_NL_LIVE_RX_BYTES,
	AXON_NL_LIVE_RETRANS,
	AXON_NL_LIVE_TIMEOUTS,
	AXON_NL_LIVE_SEQ_NAKS_SENT,
	AXON_NL_LIVE_RNR_NAKS_SENT,
	AXON_NL_LIVE_ERR_NAKS_SENT,
	AXON_NL_LIVE_SEQ_NAKS_RCVD,
	AXON_NL_LIVE_RNR_NAKS_RCVD,
	AXON_NL_LIVE_ERR_NAKS_RCVD,
	AXON_NL_LIVE_OUT_OF_SEQ,
	AXON_NL_LIVE_DUP_REQS,
	AXON_NL_LIVE_STRAY,
	AXON_NL_LIVE_LOCAL_ERRS,
	AXON_NL_LIVE_REMOTE_ERRS,
	__AXON_NL_LIVE_MAX,
};

#define AXON_NL_LIVE_MAX		(__AXON_NL_LIVE_MAX - 1)

#endif /* _UAPI_AXON_NETLINK_H */
