# SPDX-License-Identifier: GPL-2.0
"""A run: its directory, the nodes booted and joined by the fabric, the
barrier between them, the host command, the verdict.
"""

import argparse
import os
import re
import shlex
import shutil
import signal
import subprocess
import threading
import time

from .common import EXIT_BOOT_HUNG, KEEP_RUNS, REPO, RUNS, die, say
from .guest import (guest_kernel, module_path, qemu_binary, qemu_devices,
    write_guest_env)
from .fabric import Fabric, choose_fabric, plane_netdev
from .node import Node, boot_hung, kill_node, node_qemu_args, pump_output
from .logscan import check_node
from .qmp import qmp_command, qmp_error


def make_run_dir(args):
    if args.run_dir:
        run_dir = os.path.abspath(args.run_dir)
        os.makedirs(run_dir, exist_ok=True)
        if os.listdir(run_dir):
            die("--run-dir %s is not empty" % run_dir)
    else:
        os.makedirs(RUNS, exist_ok=True)
        run_dir = os.path.join(RUNS, time.strftime("%Y%m%d-%H%M%S") +
                               "-%d" % os.getpid())
        os.makedirs(run_dir)
    if re.search(r"\s", run_dir) or re.search(r"[\s,]", REPO):
        die("paths with blanks or commas are not supported: %s" % run_dir)
    return run_dir


def prune_runs(keep_dir):
    try:
        names = sorted(n for n in os.listdir(RUNS)
                       if re.fullmatch(r"\d{8}-\d{6}-\d+", n))
    except OSError:
        return
    for n in names[:-KEEP_RUNS] if KEEP_RUNS > 0 else []:
        d = os.path.join(RUNS, n)
        if d != keep_dir:
            shutil.rmtree(d, ignore_errors=True)


def run(args):
    cfg = argparse.Namespace()
    cfg.nodes = args.nodes
    cfg.mem = args.mem
    cfg.smp = args.smp
    cfg.kvm = args.kvm
    cfg.nic = not args.no_nic
    cfg.no_axon = args.no_axon
    cfg.insmod = list(args.insmod)
    cfg.gpu = args.gpu
    cfg.gpu_vram = args.gpu_vram
    cfg.qemu_extra = list(args.qemu_arg)
    cfg.hotplug = args.hotplug
    cfg.extra_append = os.environ.get("AXON_VM_APPEND", "")
    cfg.nic_model = args.nic_model
    cfg.no_wait_peers = args.no_wait_peers
    cfg.netem = args.netem
    cfg.loss = args.loss
    cfg.reorder = args.reorder
    cfg.seed = args.seed
    cfg.switch_rate = args.switch_rate
    cfg.switch_queue = args.switch_queue
    cfg.switch_ecn = args.switch_ecn
    cfg.planes = args.planes
    cfg.plane_loss = dict(args.plane_loss)
    cfg.delay = args.delay
    cfg.plane_delay = dict(args.plane_delay)
    cfg.plane_down = list(args.plane_down)
    cfg.capture = os.path.abspath(args.capture) if args.capture else None
    cfg.script = args.cmd[0] if len(args.cmd) == 1 else " ".join(
        shlex.quote(c) for c in args.cmd)
    if cfg.kvm and not os.access("/dev/kvm", os.R_OK | os.W_OK):
        die("--kvm: /dev/kvm is not usable")

    cfg.kernel = guest_kernel(args.kernel)
    cfg.insmod = [module_path(cfg, k) for k in cfg.insmod]
    for ko in cfg.insmod:
        if not os.path.isfile(ko):
            die("--insmod %s: no such file" % ko)
    # Empty: no GPU, nothing to load.
    cfg.gpu_ko = ""
    if cfg.gpu:
        cfg.gpu_ko = cfg.kernel.get("AXON_GPU_KO") or os.path.join(
            REPO, "drivers", "axon_gpu", "axon_gpu.ko")
        if not os.path.isfile(cfg.gpu_ko):
            die("--gpu: %s missing (build the modules first)" % cfg.gpu_ko, 1)
    cfg.qemu = qemu_binary()
    devices = qemu_devices(cfg.qemu)
    for need in ("virtio-9p-pci", "virtio-serial-pci"):
        if need not in devices:
            die("%s has no %s device (built without it?)" % (cfg.qemu, need), 1)
    if cfg.nic and "axon-nic" not in devices:
        die("%s has no axon-nic device: use our QEMU build "
            "($AXON_CACHE/qemu/build) or pass --no-nic" % cfg.qemu, 1)
    if cfg.gpu and "axon-gpu" not in devices:
        die("--gpu: %s has no axon-gpu device: rebuild our QEMU "
            "(qemu-model/build-qemu)" % cfg.qemu, 1)
    choose_fabric(cfg, args, devices)

    run_dir = make_run_dir(args)
    if not args.keep and not args.run_dir:
        prune_runs(run_dir)
    with open(os.path.join(run_dir, "command"), "w") as f:
        f.write(cfg.script + "\n")

    nodes = []
    for i in range(cfg.nodes):
        ndir = os.path.join(run_dir, "node%d" % i)
        os.makedirs(ndir)
        if len(os.path.join(ndir, "qmp.sock")) > 107:
            die("run directory path too long for a QMP socket: %s" % run_dir)
        nodes.append(Node(i, ndir))

    interrupted = []

    def on_signal(signum, _frame):
        interrupted.append(signum)

    # From here on the fabric (network namespace, tcpdump) must be torn
    # down whatever happens: signals are recorded, not raised, and the
    # rest runs under try/finally.
    old_int = signal.signal(signal.SIGINT, on_signal)
    old_term = signal.signal(signal.SIGTERM, on_signal)
    old_hup = signal.signal(signal.SIGHUP, on_signal)
    cfg.fabric_obj = Fabric(cfg, run_dir)
    try:
        return run_nodes(args, cfg, run_dir, nodes, interrupted)
    finally:
        cfg.fabric_obj.teardown()
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)
        signal.signal(signal.SIGHUP, old_hup)


def run_nodes(args, cfg, run_dir, nodes, interrupted):
    cfg.fabric_obj.setup()
    for n in nodes:
        write_guest_env(cfg, n.idx, n.dir)

    say("%d node(s), %s, %d MiB, %d vCPU, kernel %s, run dir %s" % (
        cfg.nodes, "KVM" if cfg.kvm else "TCG", cfg.mem, cfg.smp,
        cfg.kernel.get("AXON_GUEST_ABI", "?"), run_dir))
    if cfg.fabric != "none" or cfg.nic_driver:
        say("fabric %s%s, NIC %s%s%s%s%s%s" % (
            cfg.fabric, " (netns %s)" % cfg.fabric_obj.netns
            if cfg.fabric_obj.netns else "", cfg.nic_model,
            ", %d planes" % cfg.planes if cfg.planes > 1 else "",
            ", netem %r on the %s" % (cfg.netem, "taps" if
                                      cfg.fabric_obj.netem_at == "host"
                                      else "guests' NICs")
            if cfg.netem is not None else "",
            cfg.fabric_obj.relay_text(),
            ", %g Mbit/s ports, %d KB queues, ECN above %d KB" % (
                cfg.switch_rate, cfg.switch_queue, cfg.switch_ecn)
            if cfg.fabric == "switch" else "",
            ", capture " + cfg.capture if cfg.capture else ""))
    t0 = time.monotonic()
    for n in nodes:
        argv = node_qemu_args(cfg, n.idx, n.dir)
        with open(n.path("qemu.cmdline"), "w") as f:
            f.write(" ".join(shlex.quote(a) for a in argv) + "\n")
        with open(n.path("qemu.stderr"), "wb") as err:
            n.t_start = time.monotonic()
            n.wall_start = time.time()
            # stdin is a pipe we never write nor close: at EOF on stdin
            # QEMU's stdio chardev would report the port disconnected.
            n.proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=err,
                                      start_new_session=True)
        n.reader = threading.Thread(target=pump_output, args=(n,), daemon=True)
        n.reader.start()
    host = start_host_cmd(args, cfg, run_dir) if args.host_cmd else None

    deadline = t0 + args.timeout
    boot_deadline = (t0 + args.boot_timeout
                     if args.boot_timeout < args.timeout else None)
    timed_out = False
    hung = []
    barrier_state = {}
    cfg.wait_peers = (cfg.fabric != "none" and cfg.nodes > 1 and
                      not cfg.no_wait_peers)
    link_events = plane_link_events(cfg)
    link_failures = []
    while True:
        barrier(cfg, nodes, barrier_state)
        if link_events and barrier_state.get("done"):
            set_plane_links(link_events, nodes, barrier_state["t_go"],
                            link_failures)
        live = [n for n in nodes if n.proc.poll() is None]
        for n in nodes:
            if n.t_end is None and n.proc.returncode is not None:
                n.t_end = time.monotonic()
        if host and host.proc.poll() is None:
            live.append(host)
        if not live or interrupted:
            break
        if time.monotonic() > deadline:
            timed_out = True
            break
        if boot_deadline and time.monotonic() > boot_deadline:
            hung = boot_hung(nodes)
            if hung:
                timed_out = True
                break
            boot_deadline = None
        time.sleep(0.1)
    for n in hung:
        n.boot_hung = True
    for n in nodes:
        if n.proc.poll() is None:
            n.timed_out = timed_out
            kill_node(n)
        else:
            n.timed_out = False
        if n.t_end is None:
            n.t_end = time.monotonic()
    for n in nodes:
        n.reader.join(10)
    cfg.fabric_obj.stop_relay()
    for t, k, up in link_events:
        say("plane %d %s at %g s: not done, the run ended first" % (
            k, "up" if up else "down", t))

    failures = list(link_failures)
    for n in nodes:
        failures += check_node(n, args, cfg)
    if host:
        if host.proc.poll() is None:
            kill_node(host)
            failures.append("host command: %s" % (
                "timed out" if timed_out else "killed"))
        elif host.proc.returncode != 0:
            failures.append("host command failed with exit status %d" %
                            host.proc.returncode)
        host.reader.join(10)
    for f in failures:
        say("FAIL: " + f)
    if interrupted:
        say("interrupted")
    ok = not failures and not interrupted
    say("%s in %.1f s" % ("PASS" if ok else "FAIL", time.monotonic() - t0))
    say("logs in " + run_dir)
    if interrupted:
        return 130
    if hung:
        return EXIT_BOOT_HUNG
    return 0 if ok else 1


def barrier(cfg, nodes, state):
    """The guests' start barrier: once every node wrote "at-barrier",
    write an empty "go" into each; if a node stopped before getting there,
    write the reason instead, so the others fail at once."""
    if state.get("done") or cfg.wait_peers is False:
        return
    dead = [n for n in nodes if n.proc.poll() is not None and
            not os.path.exists(n.path("at-barrier"))]
    if dead:
        msg = "node%d stopped before its fabric was up\n" % dead[0].idx
    elif all(os.path.exists(n.path("at-barrier")) for n in nodes):
        msg = ""
    else:
        return
    for n in nodes:
        try:
            with open(n.path("go"), "w") as f:
                f.write(msg)
        except OSError:
            pass
    state["done"] = True
    state["t_go"] = time.monotonic()


def plane_link_events(cfg):
    """--plane-down as [seconds after the start barrier, plane, up], in
    the order they happen."""
    events = []
    for k, start, duration in cfg.plane_down:
        events.append((start, k, False))
        if duration is not None:
            events.append((start + duration, k, True))
    return sorted(events, key=lambda e: e[0])


def set_plane_links(events, nodes, t_go, failures):
    """Carry out (and remove from events) the --plane-down events that are
    due: QMP set_link of the plane's netdev on every node still running.
    An error answer from QEMU, or no answer from a running node, goes to
    failures. Called from the main loop; each node answers at once."""
    while events and events[0][0] <= time.monotonic() - t_go:
        _, k, up = events.pop(0)
        say("plane %d %s at %.1f s" % (k, "up" if up else "down",
                                       time.monotonic() - t_go))
        args = {"name": plane_netdev(k), "up": up}
        for n in nodes:
            if n.proc.poll() is not None:
                continue
            try:
                err = qmp_error(qmp_command(n.path("qmp.sock"), "set_link",
                                            args))
            except (OSError, ValueError) as e:
                if n.proc.poll() is not None:
                    continue    # it ended meanwhile
                err = "no answer: %s" % e
            if err:
                failures.append("node%d: QMP set_link %s up=%s: %s" % (
                    n.idx, args["name"], str(up).lower(), err))


def start_host_cmd(args, cfg, run_dir):
    """Run --host-cmd on the host, its output prefixed "[host] "."""
    host = Node("host", run_dir)
    env = dict(os.environ)
    env.update({
        "AXON_RUN_DIR": run_dir,
        "AXON_QMP_DIR": run_dir,
        "AXON_QMP": " ".join(os.path.join(run_dir, "node%d" % i, "qmp.sock")
                             for i in range(cfg.nodes)),
        "AXON_NODES": str(cfg.nodes),
        "AXON_FABRIC": cfg.fabric,
        "AXON_NETNS": cfg.fabric_obj.netns or "",
    })
    host.proc = subprocess.Popen(["/bin/sh", "-c", args.host_cmd], env=env,
                                 stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT,
                                 start_new_session=True)
    host.reader = threading.Thread(target=pump_output, args=(host,),
                                   daemon=True)
    host.reader.start()
    return host
