# SPDX-License-Identifier: GPL-2.0
"""The command line of tools/axon-vm.
"""

import argparse
import os

from .common import EXIT_BOOT_HUNG, parse_pct, parse_range, parse_size_mib
from .run import run


MAX_PLANES = 4


def parse_plane_loss(text):
    """--plane-loss K:PCT -> (K, PCT)."""
    k, sep, pct = text.partition(":")
    if not sep or not k.isdigit():
        raise argparse.ArgumentTypeError("expected PLANE:PCT: %r" % text)
    return int(k), parse_pct(pct)


def parse_ms(text):
    """A delay in milliseconds, 0..10000."""
    return parse_range(text, 10000, "ms")


def parse_plane_delay(text):
    """--plane-delay K:MS -> (K, MS)."""
    k, sep, ms = text.partition(":")
    if not sep or not k.isdigit():
        raise argparse.ArgumentTypeError("expected PLANE:MS: %r" % text)
    return int(k), parse_ms(ms)


def check_plane_impairment(r, args, name, pairs):
    """--plane-loss/--plane-delay: (plane, value) pairs for planes that
    exist, one each, on the p2p fabric (its relays impair the wire)."""
    planes = [k for k, _ in pairs]
    if any(k >= args.planes for k in planes):
        r.error("%s: no such plane (--planes %d)" % (name, args.planes))
    if len(set(planes)) != len(planes):
        r.error("%s: a plane given twice" % name)
    if pairs and (args.nodes != 2 or args.fabric not in ("auto", "p2p") or
                  args.netem is not None):
        r.error("%s needs the p2p fabric (2 nodes, no --netem)" % name)


def parse_plane_down(text):
    """--plane-down K:START[:DURATION] -> (K, START, DURATION or None)."""
    parts = text.split(":")
    try:
        if len(parts) not in (2, 3) or not parts[0].isdigit():
            raise ValueError
        k, start = int(parts[0]), float(parts[1])
        duration = float(parts[2]) if len(parts) == 3 else None
    except ValueError:
        raise argparse.ArgumentTypeError(
            "expected PLANE:START[:DURATION] (seconds): %r" % text)
    if not 0 <= start < float("inf") or duration is not None and \
            not 0 < duration < float("inf"):
        raise argparse.ArgumentTypeError(
            "START must be >= 0 and DURATION > 0 seconds: %r" % text)
    return k, start, duration


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="axon-vm",
        description="Run a command in QEMU test VMs (see Documentation/testing.rst).")
    sub = p.add_subparsers(dest="verb", required=True)
    r = sub.add_parser(
        "run", help="boot VMs, run CMD on each node, check the logs",
        usage="axon-vm run [options] -- CMD...",
        description="Boot N VMs and run CMD (via sh -c) on each. One CMD "
                    "argument is a shell script; several are quoted and joined.")
    r.add_argument("--nodes", type=int, default=1, metavar="N",
                   help="number of VMs (default 1)")
    r.add_argument("--kernel", choices=["stock", "debug"], default="stock",
                   help="guest kernel (default stock: Debian's linux-image)")
    r.add_argument("--timeout", type=float, default=600, metavar="S",
                   help="seconds until the run is killed and fails (default 600)")
    r.add_argument("--boot-timeout", type=float, default=120, metavar="S",
                   help="a node whose kernel has not started init after S "
                   "seconds hung during boot: stop the run and exit with "
                   "status %d (default 120: the debug kernel starts init in "
                   "20 to 40 s under TCG)" % EXIT_BOOT_HUNG)
    r.add_argument("--mem", type=parse_size_mib, default=1024, metavar="M",
                   help="memory per VM in MiB, or e.g. 2G (default 1024)")
    r.add_argument("--smp", type=int, default=1, metavar="N",
                   help="vCPUs per VM (default 1)")
    r.add_argument("--kvm", action="store_true",
                   default=os.environ.get("AXON_KVM") == "1",
                   help="use KVM instead of TCG (also AXON_KVM=1)")
    r.add_argument("--no-axon", action="store_true",
                   help="do not load drivers/axon/axon.ko in the guest")
    r.add_argument("--no-nic", action="store_true",
                   help="do not add the axon-nic device (stock QEMU)")
    r.add_argument("--gpu", action="store_true",
                   help="add an axon-gpu device to every node and load "
                        "drivers/axon_gpu/axon_gpu.ko")
    r.add_argument("--gpu-vram", type=parse_size_mib, metavar="M",
                   help="the axon-gpu's VRAM in MiB, or e.g. 1G (implies "
                        "--gpu; default: the model's)")
    r.add_argument("--insmod", action="append", default=[], metavar="KO",
                   help="also load this module (after axon.ko); repeatable")
    r.add_argument("--ignore-log", action="append", default=[], metavar="RE",
                   help="kernel log lines matching RE do not fail the run")
    r.add_argument("--nic-model", choices=["axon", "virtio"],
                   default=os.environ.get("AXON_NIC_MODEL") or "axon",
                   help="the NIC joined to the fabric and given the node's "
                        "IP addresses: axon (axon-nic, default) or virtio "
                        "(virtio-net-pci; axon-nic stays, unconnected, "
                        "unless --no-nic); also AXON_NIC_MODEL")
    r.add_argument("--fabric", choices=["auto", "p2p", "bridge", "switch",
                                        "none"],
                   default="auto",
                   help="network between the nodes: p2p (QEMU l2tpv3 "
                        "over UDP on the host's loopback, 2 nodes), bridge "
                        "(Linux bridge + taps in a private network "
                        "namespace), switch (l2tpv3 to tools/axon-switch: "
                        "egress ports with a line rate, a queue and ECN "
                        "marking; --switch-*), none; auto (default): "
                        "none for 1 node, p2p for 2, bridge for 3+ or "
                        "with --netem, switch with a --switch-* option "
                        "or for 3+ with --planes")
    r.add_argument("--switch-rate", type=float, default=0, metavar="MBIT",
                   help="switch fabric: each egress port's line rate "
                        "(default 0: no rate, no queue)")
    r.add_argument("--switch-queue", type=int, default=256, metavar="KB",
                   help="switch fabric: each egress queue's size; a frame "
                        "that does not fit is dropped (default 256)")
    r.add_argument("--switch-ecn", type=int, default=0, metavar="KB",
                   help="switch fabric: mark ECN-capable frames CE when "
                        "more than KB wait in their queue (default 0: "
                        "never)")
    r.add_argument("--planes", type=int, default=1, metavar="N",
                   help="axon-nic fabric planes, 1..%d (default 1): plane "
                        "k of every node's NIC (netdev f0, then plane<k>="
                        "p<k>) is wired into a network of its own, built "
                        "like plane 0; RoCE is spread over them by the "
                        "device; p2p or switch fabric (a switch per "
                        "plane)" % MAX_PLANES)
    r.add_argument("--plane-loss", action="append", type=parse_plane_loss,
                   default=[], metavar="K:PCT",
                   help="p2p fabric: plane K's relay drops PCT%% of the "
                        "frames instead of --loss's (seeded with --seed + "
                        "K, counters in fabric-relay-planeK.txt; plane "
                        "0's in fabric-relay.txt); repeatable")
    r.add_argument("--plane-delay", action="append", type=parse_plane_delay,
                   default=[], metavar="K:MS",
                   help="p2p fabric: plane K's relay delays every frame "
                        "by MS milliseconds, each direction, instead of "
                        "--delay's; repeatable")
    r.add_argument("--plane-down", action="append", type=parse_plane_down,
                   default=[], metavar="K:START[:DURATION]",
                   help="take plane K's link down on every node START "
                        "seconds after the start barrier (QMP set_link "
                        "of netdev p<K>, f0 for plane 0), and up again "
                        "DURATION seconds later (without: it stays down); "
                        "seconds may have fractions; repeatable")
    r.add_argument("--netem", metavar="SPEC",
                   help="impair the fabric: 'tc qdisc add dev TAP root "
                        "netem SPEC' on every node's tap (bridge fabric)")
    r.add_argument("--loss", type=parse_pct, default=0, metavar="PCT",
                   help="p2p fabric: drop PCT%% of the frames, each "
                        "direction, in a relay between the two QEMUs "
                        "(counters in fabric-relay.txt; with --planes a "
                        "relay per plane)")
    r.add_argument("--reorder", type=parse_pct, default=0, metavar="PCT",
                   help="p2p fabric: hold back PCT%% of the frames until "
                        "the next one in the same direction has passed "
                        "(at most 5 ms), in the same relay")
    r.add_argument("--delay", type=parse_ms, default=0, metavar="MS",
                   help="p2p fabric: delay every frame by MS milliseconds "
                        "(fractions allowed), each direction, in the same "
                        "relay (frames keep their order)")
    r.add_argument("--seed", type=int, default=1, metavar="N",
                   help="seed of the relay's --loss/--reorder choices "
                        "(default 1; plane k's relay: N + k)")
    r.add_argument("--capture", metavar="FILE",
                   help="write all fabric traffic to this pcap file "
                        "(p2p with --planes: plane k's to FILE with "
                        "-plane<k> before its extension)")
    r.add_argument("--no-wait-peers", action="store_true",
                   help="start CMD without waiting for every node's "
                        "fabric interface to be up (start barrier)")
    r.add_argument("--host-cmd", metavar="SCRIPT",
                   help="run SCRIPT (sh -c) on the host once all QEMUs are "
                        "started, with AXON_RUN_DIR, AXON_QMP_DIR, ... set; "
                        "its failure fails the run")
    r.add_argument("--hotplug", action="store_true",
                   help="put the axon-nic behind a pcie-root-port (id "
                        "axon-rp0), with id axon-nic0, so that a --host-cmd "
                        "can unplug it (QMP device_del) and plug it back "
                        "(device_add with nodeN/nic-device.json)")
    r.add_argument("--host-kills", action="append", type=int, default=[],
                   metavar="N",
                   help="the --host-cmd kills node N (tools/tests/"
                        "axon-kill-node): its missing exit status is "
                        "expected, and the run fails if it was not killed "
                        "that way; repeatable")
    r.add_argument("--qemu-arg", action="append", default=[], metavar="ARG",
                   help="extra QEMU argument for every node; repeatable")
    r.add_argument("--run-dir", metavar="DIR",
                   help="where to keep the logs (default "
                        "$AXON_CACHE/runs/<timestamp>-<pid>)")
    r.add_argument("--keep", action="store_true",
                   help="do not prune old run directories (by default the "
                        "newest $AXON_KEEP_RUNS=20 under $AXON_CACHE/runs stay)")
    r.add_argument("cmd", nargs=argparse.REMAINDER, metavar="CMD")
    args = p.parse_args(argv)
    if args.cmd and args.cmd[0] == "--":
        args.cmd = args.cmd[1:]
    if not args.cmd:
        r.error("no command given (axon-vm run [options] -- CMD...)")
    if args.fabric == "p2p" and args.nodes != 2:
        r.error("--fabric p2p needs exactly 2 nodes")
    if args.netem is not None and args.fabric in ("p2p", "none"):
        r.error("--netem needs the bridge fabric (--fabric auto|bridge)")
    if (args.loss or args.reorder or args.delay) and (
            args.nodes != 2 or args.fabric not in ("auto", "p2p") or
            args.netem is not None):
        r.error("--loss/--reorder/--delay need the p2p fabric (2 nodes, "
                "no --netem)")
    if not 1 <= args.planes <= MAX_PLANES:
        r.error("--planes: 1 to %d" % MAX_PLANES)
    if args.planes > 1 and (args.fabric not in ("auto", "p2p", "switch") or
                            args.nodes < 2 or args.netem is not None):
        r.error("--planes needs the p2p fabric (2 nodes) or the switch "
                "fabric (2 or more nodes), no --netem")
    if args.planes > 1 and (args.no_nic or args.nic_model != "axon"):
        r.error("--planes needs the axon-nic as the fabric NIC "
                "(--nic-model axon, no --no-nic)")
    for name, pairs in (("--plane-loss", args.plane_loss),
                        ("--plane-delay", args.plane_delay)):
        check_plane_impairment(r, args, name, pairs)
    if any(k >= args.planes for k, _, _ in args.plane_down):
        r.error("--plane-down: no such plane (--planes %d)" % args.planes)
    if args.plane_down and (args.nodes < 2 or args.no_wait_peers or
                            args.fabric == "none"):
        r.error("--plane-down counts from the start barrier: it needs a "
                "fabric, 2 or more nodes and no --no-wait-peers")
    if args.capture and args.fabric == "none":
        r.error("--capture needs a fabric")
    if args.host_kills and not args.host_cmd:
        r.error("--host-kills needs a --host-cmd that kills the node")
    if any(not 0 <= i < args.nodes for i in args.host_kills):
        r.error("--host-kills: no such node")
    if args.hotplug and args.no_nic:
        r.error("--hotplug needs the axon-nic (no --no-nic)")
    if args.nodes > 250:
        r.error("--nodes: at most 250 (one IPv4 /24)")
    if args.gpu_vram is not None:
        args.gpu = True
        if args.gpu_vram & (args.gpu_vram - 1) or args.gpu_vram < 1:
            r.error("--gpu-vram: a power of 2 of MiB")
    if args.nodes < 1 or args.smp < 1 or args.mem < 128 or args.timeout <= 0:
        r.error("--nodes/--smp must be >= 1, --mem >= 128, --timeout > 0")
    return args


def main(argv):
    args = parse_args(argv)
    if args.verb == "run":
        return run(args)
    return 2
