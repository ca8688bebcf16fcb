# SPDX-License-Identifier: GPL-2.0
"""One node: its QEMU command line, its process, its output.
"""

import json
import os
import sys

from .common import FIRMWARE_DIRS, print_lock, reap
from .guest import kernel_cmdline
from .fabric import AXON_MAC, VIRTIO_MAC, fabric_args


# --hotplug: on q35 a device on the root complex cannot be unplugged; one
# behind a PCIe root port can (QEMU 7.2 signals it to the guest through
# ACPI, the guest's acpiphp ejects it, or pciehp with ACPI hotplug off).
HOTPLUG_PORT = "pcie-root-port,id=axon-rp0,chassis=1,slot=1"
HOTPLUG_NIC = ",id=axon-nic0,bus=axon-rp0"


def write_nic_device(spec, ndir):
    """The NIC's -device spec as QMP device_add arguments, for a host
    command that plugs it back: nodeN/nic-device.json."""
    driver, *props = spec.split(",")
    args = {"driver": driver}
    args.update(p.split("=", 1) for p in props)
    with open(os.path.join(ndir, "nic-device.json"), "w") as f:
        json.dump(args, f)
        f.write("\n")


def node_qemu_args(cfg, node, ndir):
    """The complete QEMU command line of one node."""
    a = [cfg.qemu, "-name", "axon-node%d" % node,
         "-machine", "q35", "-m", str(cfg.mem), "-smp", str(cfg.smp)]
    if cfg.kvm:
        a += ["-accel", "kvm", "-cpu", "host"]
    else:
        a += ["-accel", "tcg,tb-size=256"]
    for d in FIRMWARE_DIRS:
        if os.path.isdir(d):
            a += ["-L", d]
    a += ["-nographic", "-nodefaults", "-no-user-config", "-no-reboot",
          "-monitor", "none",
          "-kernel", cfg.kernel["AXON_GUEST_KERNEL"],
          "-initrd", cfg.kernel["AXON_GUEST_INITRD"],
          "-append", kernel_cmdline(cfg),
          # ttyS0: the kernel console, straight into console.log.
          "-serial", "file:" + os.path.join(ndir, "console.log"),
          # The host root, read-only, and the node's read-write run share.
          "-fsdev", "local,id=hostroot,path=/,readonly=on,"
                    "security_model=none,multidevs=remap",
          "-device", "virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot",
          "-fsdev", "local,id=axonrun,path=%s,security_model=none,"
                    "multidevs=remap" % ndir,
          "-device", "virtio-9p-pci,fsdev=axonrun,mount_tag=axonrun",
          # The command's stdout+stderr: a virtio console port on our pipe.
          # Two ports (0 is kept for a console), not the default 31: every
          # virtqueue adds an eventfd that QEMU's main loop polls on each
          # pass, i.e. for every batch of frames the netdev receives.
          "-device", "virtio-serial-pci,id=vser0,max_ports=2",
          "-chardev", "stdio,id=axonout,signal=off",
          "-device", "virtserialport,bus=vser0.0,chardev=axonout,name=axon.out",
          "-device", "virtio-rng-pci"]
    # QMP for host-side tests (QEMU state, hot-plug, link up/down, ...).
    a += ["-qmp", "unix:%s,server=on,wait=off" % os.path.join(ndir, "qmp.sock")]
    fabric, netdev_prop = fabric_args(cfg, node)
    a += fabric
    if cfg.nic:
        # A distinct MAC per node, so node GUIDs differ across the fabric.
        nic = "axon-nic,mac=%s" % (AXON_MAC % (node + 1)) + (
            netdev_prop if cfg.nic_model == "axon" else "")
        if cfg.hotplug:
            nic += HOTPLUG_NIC
            a += ["-device", HOTPLUG_PORT]
            write_nic_device(nic, ndir)
        a += ["-device", nic]
    if cfg.gpu:
        a += ["-device", "axon-gpu" + (",vram-size=%d" % (cfg.gpu_vram << 20)
                                       if cfg.gpu_vram else "")]
    if cfg.nic_model == "virtio":
        # romfile=: no iPXE option ROM (we boot the kernel directly).
        a += ["-device", "virtio-net-pci,mac=%s,romfile=" %
              (VIRTIO_MAC % (node + 1)) + netdev_prop]
    a += cfg.qemu_extra
    return cfg.fabric_obj.wrap(a)


class Node:
    def __init__(self, idx, ndir):
        self.idx = idx
        self.dir = ndir
        self.proc = None
        self.reader = None
        self.t_start = None
        self.t_end = None
        self.killed = False
        self.boot_hung = False

    def path(self, name):
        return os.path.join(self.dir, name)

    def read_file(self, name):
        try:
            with open(self.path(name), errors="replace") as f:
                return f.read()
        except OSError:
            return None


def pump_output(node):
    """Copy the node's command output to output.log and to our stdout."""
    if node.idx == "host":
        prefix, logname = "[host] ", "host.log"
    else:
        prefix, logname = "[node%d] " % node.idx, "output.log"
    with open(node.path(logname), "wb") as log:
        pending = b""
        while True:
            chunk = node.proc.stdout.read1(65536)
            if not chunk:
                break
            log.write(chunk)
            log.flush()
            pending += chunk
            *lines, pending = pending.split(b"\n")
            if lines:
                text = "".join(prefix + ln.rstrip(b"\r").decode(
                    "utf-8", "replace") + "\n" for ln in lines)
                with print_lock:
                    sys.stdout.write(text)
                    sys.stdout.flush()
        if pending:
            with print_lock:
                sys.stdout.write(prefix + pending.rstrip(b"\r").decode(
                    "utf-8", "replace") + "\n")
                sys.stdout.flush()


# The kernel's line when it starts init: past it, the boot is done.
INIT_LINE = "Run /init as init process"


def boot_hung(nodes):
    """The nodes still running whose kernel has not started init."""
    return [n for n in nodes if n.proc.poll() is None and
            INIT_LINE not in (n.read_file("console.log") or "")]


def kill_node(node):
    if node.proc and node.proc.poll() is None:
        node.killed = True
        node.proc.terminate()
        reap(node.proc)
