# SPDX-License-Identifier: GPL-2.0
"""The fabric: one L2 network joining the nodes' NICs.

p2p:    two nodes, QEMU's "-netdev l2tpv3" backend in UDP mode over
        loopback: each node's netdev receives on 127.0.0.1:<its port> and
        sends every frame, behind an 8-byte L2TPv3 header, as one datagram
        to the peer's port. It reads up to 64 datagrams per system call
        (recvmmsg), where "-netdev socket" reads one per main-loop pass: on
        a small host that per-frame pass bounded both RDMA stacks. The
        QEMU that build-qemu builds sends a burst in one sendmsg (UDP
        segmentation offload) into a 4 MiB socket buffer
        (qemu-model/patches). No privileges needed. With --loss,
        --reorder or --delay each node sends to tools/axon-relay instead
        (class Relay), a process a plane.
switch: every node's QEMU sends to a port of tools/axon-switch (the same
        l2tpv3 backend): a learning switch whose egress ports have a line
        rate (--switch-rate), a bounded queue (--switch-queue, tail drop)
        and ECN marking above a threshold (--switch-ecn), as a fabric
        that can congest (an incast). Counters in fabric-switch.txt.
bridge: a Linux bridge with one tap per node, all inside a network
        namespace "axon-vm-<pid>" that the harness creates and always
        deletes; QEMU runs inside it ("ip netns exec NS qemu ...").
none:   the NIC has no backend (its link is up but nothing is connected).

Planes (--planes N, p2p and switch): the axon-nic has up to 4 wires, its
"netdev" (plane 0, which also carries Ethernet/IP) and "plane1".."plane3";
the device spreads RoCE over them (a QP stays on one plane) and drops
anything else that arrives on plane k > 0. Plane k of every node is wired
into a network of its own, built the same way as plane 0 (class Plane):
its own netdev (id "f0" for plane 0, "p<k>" for plane k), its own UDP
ports, and for p2p its own relay when impaired (--loss/--reorder/--delay
on every plane, --plane-loss K:PCT and --plane-delay K:MS for plane K:
planes that differ in delay, as paths through a real fabric do; seeded
with --seed + k; counters in
fabric-relay.txt, fabric-relay-plane<k>.txt), for switch its own
axon-switch with the same --switch-* settings (fabric-switch.txt,
fabric-switch-plane<k>.txt). A p2p --capture of plane k goes to FILE with
"-plane<k>" before its extension. --plane-down takes a plane's link down
and up again through QMP set_link on its netdev id (run.py).

Node i is 192.0.2.(i+1)/24 and fd00:a0::(i+1, hex)/64 on the fabric NIC.
"""

import os
import re
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import time

from .common import die, reap, say, sh


NETNS_PREFIX = "axon-vm-"


L2TPV3_SESSION = 1


# What precedes each frame in a p2p datagram: L2TPv3 over UDP (RFC 3931):
# flags and version 3, then the session ID (no cookie, no counter).
L2TPV3_HEADER = struct.pack(">II", 0x00030000, L2TPV3_SESSION)


BRIDGE = "br0"


AXON_MAC = "52:54:00:a0:00:%02x"    # axon-nic (node GUIDs derive from it)


VIRTIO_MAC = "52:54:00:a1:00:%02x"  # virtio-net stand-in


def node_ip(i):
    return "192.0.2.%d" % (i + 1)


def node_ip6(i):
    return "fd00:a0::%x" % (i + 1)


def plane_netdev(k):
    """The QEMU netdev id of plane k on every node."""
    return "f0" if k == 0 else "p%d" % k


def plane_nic_prop(k):
    """The axon-nic property that takes plane k's netdev."""
    return "netdev" if k == 0 else "plane%d" % k


def plane_file(name, k):
    """Where plane k keeps what plane 0 keeps in name: e.g.
    fabric-switch.txt, fabric-switch-plane1.txt."""
    if k == 0:
        return name
    root, ext = os.path.splitext(name)
    return "%s-plane%d%s" % (root, k, ext)


def plane_impairment(cfg, k):
    """(loss %, reorder %, delay ms) of plane k's wire (p2p):
    --loss/--reorder/--delay, with --plane-loss K:PCT and --plane-delay
    K:MS overriding those of plane K."""
    return (cfg.plane_loss.get(k, cfg.loss), cfg.reorder,
            cfg.plane_delay.get(k, cfg.delay))


# Ports handed to QEMU netdevs, which bind them only when QEMU starts: a
# relay's own socket must not take one in between (EADDRINUSE in QEMU).
_given_ports = set()


def bind_udp_not_given():
    """A UDP socket on 127.0.0.1, on no port free_udp_ports() gave out."""
    held = []
    try:
        while True:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind(("127.0.0.1", 0))
            if s.getsockname()[1] not in _given_ports:
                return s
            held.append(s)      # keep it, so the next bind gets another
    finally:
        for h in held:
            h.close()


def free_udp_ports(n):
    """n distinct UDP ports on 127.0.0.1 that are free right now."""
    socks = []
    try:
        for _ in range(n):
            socks.append(bind_udp_not_given())
        ports = [s.getsockname()[1] for s in socks]
        _given_ports.update(ports)
        return ports
    finally:
        for s in socks:
            s.close()


class Plane:
    """One plane of a p2p or switch fabric: the network that joins plane
    k of every node's NIC. Plane 0 is the only one without --planes."""

    def __init__(self, k, nplanes):
        self.k = k
        self.netdev = plane_netdev(k)
        # Prefix of the counters the harness prints ("" with one plane).
        self.label = "plane%d " % k if nplanes > 1 else ""
        self.ports = []         # where each node's netdev receives
        self.relay = None       # p2p with loss or reordering
        self.switch_proc = None
        self.switch_ports = []  # where each node's netdev sends (switch)


class Fabric:
    """The network between the nodes, set up before and torn down after
    the QEMUs (teardown is idempotent and runs on every exit path)."""

    def __init__(self, cfg, run_dir):
        self.cfg = cfg
        self.run_dir = run_dir
        self.mode = cfg.fabric
        self.netns = None
        self.capture_proc = None
        self.netem_at = None    # "host" (on the taps) or "guest"
        # p2p and switch: one per plane, in plane order.
        self.planes = []

    def tap(self, node):
        return "tap%d" % node

    def ns(self, *argv):
        return ["ip", "netns", "exec", self.netns] + list(argv)

    def setup(self):
        cfg = self.cfg
        if self.mode in ("p2p", "switch"):
            self.planes = [Plane(k, cfg.planes) for k in range(cfg.planes)]
            for plane in self.planes:
                if self.mode == "p2p":
                    self.setup_p2p(plane)
                else:
                    self.setup_switch(plane)
        elif self.mode == "bridge":
            self.setup_bridge()
        self.write_env()

    def setup_p2p(self, plane):
        plane.ports = free_udp_ports(2)
        loss, reorder, delay = plane_impairment(self.cfg, plane.k)
        if loss or reorder or delay:
            plane.relay = Relay(plane.ports, loss, reorder, delay,
                                self.cfg.seed + plane.k,
                                ("relay " + plane.label).strip(),
                                os.path.join(self.run_dir, plane_file(
                                    "fabric-relay.txt", plane.k)))

    def setup_switch(self, plane):
        cfg = self.cfg
        binary = os.path.join(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))), "axon-switch")
        if not os.access(binary, os.X_OK):
            die("--fabric switch needs %s (make tools)" % binary, 1)
        both = free_udp_ports(2 * cfg.nodes)
        plane.ports, plane.switch_ports = both[:cfg.nodes], both[cfg.nodes:]
        argv = [binary, "--rate", "%g" % cfg.switch_rate,
                "--queue", str(cfg.switch_queue),
                "--ecn", str(cfg.switch_ecn),
                "--stats", os.path.join(self.run_dir, plane_file(
                    "fabric-switch.txt", plane.k))]
        for q, s in zip(plane.ports, plane.switch_ports):
            argv += ["--node", "%d:%d" % (q, s)]
        plane.switch_proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, universal_newlines=True,
            start_new_session=True)
        line = plane.switch_proc.stdout.readline()
        if "ready" not in line:
            plane.switch_proc.wait()
            plane.switch_proc = None
            die("axon-switch%s did not start: %s" % (
                " of plane %d" % plane.k if plane.label else "",
                line.strip()), 1)

    def setup_bridge(self):
        cfg = self.cfg
        for tool in ("ip", "tc"):
            if not shutil.which(tool):
                die("--fabric bridge needs '%s' (iproute2)" % tool, 1)
        prune_stale_netns()
        self.netns = NETNS_PREFIX + str(os.getpid())
        sh(["ip", "netns", "add", self.netns])
        try:
            cmds = [
                # No host-originated IPv6 chatter (RS, MLD) on the fabric.
                ["sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1"],
                ["sysctl", "-q", "-w", "net.ipv6.conf.default.disable_ipv6=1"],
                ["ip", "link", "set", "lo", "up"],
                # No STP (ports forward at once), no multicast snooping
                # (IPv6 neighbour discovery is multicast).
                ["ip", "link", "add", BRIDGE, "type", "bridge",
                 "stp_state", "0", "forward_delay", "0",
                 "mcast_snooping", "0"],
            ]
            for i in range(cfg.nodes):
                cmds += [["ip", "tuntap", "add", "dev", self.tap(i),
                          "mode", "tap"],
                         ["ip", "link", "set", self.tap(i), "master", BRIDGE],
                         ["ip", "link", "set", self.tap(i), "up"]]
            cmds.append(["ip", "link", "set", BRIDGE, "up"])
            for c in cmds:
                sh(self.ns(*c))
            if cfg.netem is not None:
                self.setup_netem()
            if cfg.capture:
                self.start_tcpdump()
        except RuntimeError as e:
            self.teardown()
            die("fabric set-up failed: %s" % e, 1)

    def setup_netem(self):
        spec = shlex.split(self.cfg.netem)
        for i in range(self.cfg.nodes):
            rc, out = sh(self.ns("tc", "qdisc", "add", "dev", self.tap(i),
                                 "root", "netem", *spec), check=False)
            if rc == 0:
                continue
            if i == 0 and re.search(r"qdisc kind is unknown|"
                                    r"No such file or directory", out):
                # The host kernel has no sch_netem (and may not load
                # modules): impair each guest's NIC egress instead.
                self.netem_at = "guest"
                say("the host kernel has no netem qdisc: applying --netem "
                    "in every guest on its fabric NIC's egress")
                return
            raise RuntimeError("--netem %r: %s" % (self.cfg.netem, out.strip()))
        self.netem_at = "host"

    def start_tcpdump(self):
        if not shutil.which("tcpdump"):
            raise RuntimeError("--capture with the bridge fabric needs "
                               "tcpdump (tools/axon-deps)")
        log = os.path.join(self.run_dir, "capture.log")
        # The bridge in promiscuous mode (tcpdump's default) passes up
        # every frame it forwards, so br0 sees all traffic between taps.
        # -Z root: write the file as root; --immediate-mode -U: no
        # buffering in the kernel nor in tcpdump.
        with open(log, "wb") as f:
            self.capture_proc = subprocess.Popen(
                self.ns("tcpdump", "-i", BRIDGE, "--immediate-mode", "-U",
                        "-s", "0", "-Z",
                        "root", "-w", self.cfg.capture),
                stdin=subprocess.DEVNULL, stdout=f, stderr=f,
                start_new_session=True)
        for _ in range(100):
            with open(log, errors="replace") as f:
                if "listening on" in f.read():
                    return
            if self.capture_proc.poll() is not None:
                raise RuntimeError("tcpdump failed: see %s" % log)
            time.sleep(0.05)
        raise RuntimeError("tcpdump did not start: see %s" % log)

    def write_env(self):
        cfg = self.cfg
        with open(os.path.join(self.run_dir, "fabric.env"), "w") as f:
            for k, v in (("AXON_FABRIC", self.mode),
                         ("AXON_NODES", str(cfg.nodes)),
                         ("AXON_PLANES", str(cfg.planes)),
                         ("AXON_NIC_MODEL", cfg.nic_model),
                         ("AXON_NETNS", self.netns or ""),
                         ("AXON_BRIDGE", BRIDGE if self.netns else ""),
                         ("AXON_NETEM", cfg.netem or ""),
                         ("AXON_NETEM_AT", self.netem_at or ""),
                         ("AXON_CAPTURE", cfg.capture or ""),
                         ("AXON_LOSS", "%g" % cfg.loss),
                         ("AXON_REORDER", "%g" % cfg.reorder),
                         ("AXON_DELAY", "%g" % cfg.delay),
                         ("AXON_PEERS", " ".join(node_ip(i) for i in
                                                 range(cfg.nodes)))):
                f.write("%s=%s\n" % (k, shlex.quote(v)))
        netdevs = [p.netdev for p in self.planes] or (
            ["f0"] if self.mode != "none" else [])
        for i in range(cfg.nodes):
            ndir = os.path.join(self.run_dir, "node%d" % i)
            env = [("AXON_NODE", str(i)),
                   ("AXON_FABRIC", self.mode),
                   ("AXON_PLANES", str(cfg.planes)),
                   ("AXON_NETDEV_ID", "f0" if self.mode != "none" else ""),
                   ("AXON_NETDEV_IDS", " ".join(netdevs)),
                   ("AXON_MAC", node_mac(cfg, i)),
                   ("AXON_IP", node_ip(i)),
                   ("AXON_IP6", node_ip6(i)),
                   ("AXON_QMP", os.path.join(ndir, "qmp.sock"))]
            if self.planes:
                # Plane 0's endpoints, then every plane's in plane order.
                env += [("AXON_INJECT", "127.0.0.1:%d" %
                         self.planes[0].ports[i]),
                        ("AXON_INJECT_HEADER", L2TPV3_HEADER.hex()),
                        ("AXON_PEER_ENDPOINT", "127.0.0.1:%d" %
                         self.send_port(self.planes[0], i)),
                        ("AXON_INJECT_PLANES", " ".join(
                            "127.0.0.1:%d" % p.ports[i]
                            for p in self.planes))]
            if self.netns:
                env += [("AXON_NETNS", self.netns), ("AXON_TAP", self.tap(i))]
            with open(os.path.join(ndir, "fabric.env"), "w") as f:
                for k, v in env:
                    f.write("%s=%s\n" % (k, shlex.quote(v)))

    def args(self, node):
        """(QEMU arguments, NIC properties: ",netdev=f0" and, with planes,
        ",plane1=p1..." for the axon-nic) of one node."""
        if self.planes:
            a, props = [], ""
            for p in self.planes:
                a += ["-netdev", "l2tpv3,id=%s,udp=on,src=127.0.0.1,"
                      "dst=127.0.0.1,srcport=%d,dstport=%d,txsession=%d,"
                      "rxsession=%d" % (p.netdev, p.ports[node],
                                        self.send_port(p, node),
                                        L2TPV3_SESSION, L2TPV3_SESSION)]
                if self.mode == "p2p" and self.cfg.capture and node == 0:
                    # Node 0's netdev sees every frame of the two-node link.
                    a += ["-object", "filter-dump,id=capture%d,netdev=%s,"
                          "file=%s" % (p.k, p.netdev,
                                       self.capture_file(p.k))]
                props += ",%s=%s" % (plane_nic_prop(p.k), p.netdev)
            return a, props
        if self.mode == "bridge":
            return (["-netdev", "tap,id=f0,ifname=%s,script=no,downscript=no"
                     % self.tap(node)], ",netdev=f0")
        return [], ""

    def capture_file(self, k):
        """The p2p --capture file of plane k."""
        return os.path.join(os.path.dirname(self.cfg.capture), plane_file(
            os.path.basename(self.cfg.capture), k))

    def send_port(self, plane, node):
        """Where node's netdev sends on plane: the peer's port, the
        relay's or the switch's."""
        if plane.switch_ports:
            return plane.switch_ports[node]
        if plane.relay:
            return plane.relay.ports[node]
        return plane.ports[1 - node]

    def relay_text(self):
        """The relays, for the harness's fabric line ("" without)."""
        relayed = [p for p in self.planes if p.relay]
        if not relayed:
            return ""
        if len(relayed) == len(self.planes) and len(
                {p.relay.impairment() for p in relayed}) == 1:
            r = relayed[0].relay
            return ", %s (%s, seed %d%s)" % (
                r.impairment_text(),
                "a relay per plane" if len(relayed) > 1 else "relay",
                r.seed, " + plane" if len(relayed) > 1 else "")
        return "".join(", plane %d %s (relay, seed %d)"
                       % (p.k, p.relay.impairment_text(), p.relay.seed)
                       for p in relayed)

    def wrap(self, argv):
        return self.ns(*argv) if self.netns else argv

    def record_stats(self):
        if not self.netns or self.netem_at != "host":
            return
        for i in range(self.cfg.nodes):
            _, out = sh(self.ns("tc", "-s", "qdisc", "show", "dev",
                                self.tap(i)), check=False)
            with open(os.path.join(self.run_dir, "node%d" % i,
                                   "netem.txt"), "w") as f:
                f.write(out)

    def stop_relay(self):
        for p in self.planes:
            if p.relay:
                p.relay.stop()
                p.relay = None

    def stop_switch(self):
        running = [p for p in self.planes if p.switch_proc]
        for p in running:
            p.switch_proc.terminate()
        for p in running:
            reap(p.switch_proc)
            p.switch_proc = None
            try:
                with open(os.path.join(self.run_dir, plane_file(
                        "fabric-switch.txt", p.k))) as f:
                    for ln in f.read().splitlines()[1:]:
                        say("switch " + p.label + ln)
            except OSError:
                pass

    def teardown(self):
        if self.capture_proc and self.capture_proc.poll() is None:
            # tcpdump drops what it has not read yet when it stops: let it
            # drain (the QEMUs are gone, nothing new arrives).
            time.sleep(0.5)
            self.capture_proc.send_signal(signal.SIGINT)
            try:
                self.capture_proc.wait(5)
            except subprocess.TimeoutExpired:
                self.capture_proc.kill()
                self.capture_proc.wait()
        self.capture_proc = None
        self.stop_relay()
        self.stop_switch()
        if self.netns:
            try:
                self.record_stats()
            except OSError:
                pass
            sh(["ip", "netns", "del", self.netns], check=False)
            self.netns = None


class Relay:
    """--loss/--reorder/--delay/--plane-loss/--plane-delay: a p2p plane
    through tools/axon-relay, a process of its own (one plane's frames
    never wait for another's). Each node's netdev sends to its own relay
    socket, bound here and inherited; the relay forwards every datagram
    (one Ethernet frame) to the other node's netdev port, except that it
    drops loss% of them and holds back reorder% until the next datagram in
    the same direction has been forwarded, or at most 5 ms (then the frame
    is only late); with a delay, every frame it forwards leaves that many
    ms after it arrived, in order. Choices come from a PRNG seeded with
    seed (--seed, plus the plane). The impairment is on the wire itself,
    so it hits whatever the NIC models send (RoCEv2 from axon-nic
    included), unlike a guest's qdisc. tag ("relay", "relay plane1")
    prefixes the counters, written to stats_path and printed at the
    end."""

    def __init__(self, qemu_ports, loss_pct, reorder_pct, delay_ms, seed,
                 tag, stats_path):
        binary = os.path.join(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))), "axon-relay")
        if not os.access(binary, os.X_OK):
            die("--loss, --reorder and --delay need %s (make tools)"
                % binary, 1)
        self.tag = tag
        self.loss_pct = loss_pct
        self.reorder_pct = reorder_pct
        self.delay_ms = delay_ms
        self.seed = seed
        self.stats_path = stats_path
        socks = []
        for _ in range(2):
            s = bind_udp_not_given()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
            socks.append(s)
        self.ports = [s.getsockname()[1] for s in socks]
        argv = [binary, "--loss", "%g" % loss_pct, "--reorder",
                "%g" % reorder_pct, "--delay", "%g" % delay_ms,
                "--seed", str(seed), "--tag", tag, "--stats", stats_path]
        for s, port in zip(socks, qemu_ports):
            argv += ["--side", "%d:%d" % (s.fileno(), port)]
        try:
            self.proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, start_new_session=True,
                pass_fds=[s.fileno() for s in socks])
        finally:
            for s in socks:
                s.close()

    def impairment(self):
        return self.loss_pct, self.reorder_pct, self.delay_ms

    def impairment_text(self):
        text = "loss %g%% reorder %g%%" % (self.loss_pct, self.reorder_pct)
        return text + (" delay %g ms" % self.delay_ms if self.delay_ms else "")

    def stop(self):
        """Stop (the QEMUs are gone) and print the counters."""
        self.proc.terminate()
        reap(self.proc)
        try:
            with open(self.stats_path) as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            lines = ["no counters (%s)" % self.stats_path]
        for ln in lines:
            say(self.tag + " " + ln)


def prune_stale_netns():
    """Delete namespaces left by harness runs that were SIGKILLed."""
    _, out = sh(["ip", "netns", "list"], check=False)
    for line in out.splitlines():
        m = re.match(re.escape(NETNS_PREFIX) + r"(\d+)\b", line)
        if m and not os.path.exists("/proc/" + m.group(1)):
            sh(["ip", "netns", "del", NETNS_PREFIX + m.group(1)], check=False)


def node_mac(cfg, node):
    return (VIRTIO_MAC if cfg.nic_model == "virtio" else AXON_MAC) % (node + 1)


def fabric_args(cfg, node):
    """QEMU arguments joining node's fabric NIC to the other nodes: the
    -netdev backends (and capture filters), and the ",netdev=ID" (with
    planes also ",plane<k>=ID") properties to add to the NIC's -device."""
    return cfg.fabric_obj.args(node)


def choose_fabric(cfg, args, devices):
    """Set cfg.fabric and cfg.nic_driver (the guest driver of the fabric
    NIC, empty when the guest has no network to configure)."""
    fabric_nic = True
    why = ""
    if cfg.nic_model == "virtio":
        if "virtio-net-pci" not in devices:
            die("%s has no virtio-net-pci device" % cfg.qemu, 1)
        cfg.nic_driver = "virtio_net"
    elif not cfg.nic:
        fabric_nic, why = False, "--no-nic"
    else:
        out = subprocess.run([cfg.qemu, "-device", "axon-nic,help"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL,
                             universal_newlines=True).stdout
        if not re.search(r"^\s*netdev=", out, re.M):
            fabric_nic = False
            why = "this axon-nic has no netdev property yet " \
                  "(try --nic-model virtio)"
        elif cfg.planes > 1 and not re.search(
                r"^\s*plane%d=" % (cfg.planes - 1), out, re.M):
            die("--planes %d: this axon-nic has no plane%d property "
                "(rebuild QEMU: qemu-model/build-qemu)" % (
                    cfg.planes, cfg.planes - 1), 1)
        cfg.nic_driver = "" if cfg.no_axon else "axon"
    if not fabric_nic:
        cfg.nic_driver = ""
        if args.fabric in ("p2p", "bridge") or cfg.netem is not None or \
                cfg.capture or cfg.loss or cfg.reorder or cfg.delay or \
                cfg.planes > 1 or cfg.plane_loss or cfg.plane_delay or \
                cfg.plane_down:
            die("no fabric NIC: %s" % why)
        cfg.fabric = "none"
        return
    fabric = args.fabric
    switch_opts = args.switch_rate or args.switch_ecn
    if switch_opts and fabric not in ("auto", "switch"):
        die("--switch-rate/--switch-ecn need --fabric switch")
    if fabric == "auto":
        if switch_opts or (cfg.planes > 1 and cfg.nodes >= 3 and
                           cfg.netem is None and not cfg.capture):
            fabric = "switch"
        elif cfg.netem is not None or cfg.nodes >= 3:
            fabric = "bridge"
        elif cfg.nodes == 2:
            fabric = "p2p"
        elif cfg.capture:
            fabric = "bridge"
        else:
            fabric = "none"
    if fabric == "switch" and (cfg.nodes < 2 or cfg.netem is not None or
                               cfg.capture or cfg.loss or cfg.reorder or
                               cfg.delay or cfg.plane_loss or
                               cfg.plane_delay):
        die("--fabric switch joins 2 or more nodes, without --netem, "
            "--capture, --loss, --reorder, --delay, --plane-loss or "
            "--plane-delay")
    if cfg.planes > 1 and fabric not in ("p2p", "switch"):
        die("--planes %d needs the p2p fabric (2 nodes) or the switch "
            "fabric, not %s" % (cfg.planes, fabric))
    if cfg.plane_down and fabric == "none":
        die("--plane-down needs a fabric")
    if fabric == "bridge" and os.geteuid() != 0:
        die("--fabric bridge (3+ nodes, --netem) needs root: it creates a "
            "network namespace with a bridge and taps", 1)
    cfg.fabric = fabric
