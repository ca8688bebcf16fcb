# SPDX-License-Identifier: GPL-2.0
"""What a node boots: the guest kernel and modules, the QEMU binary and
its devices, the kernel command line, the environment of the command.
"""

import os
import re
import shlex
import subprocess

from .common import CACHE, REPO, die
from .fabric import node_ip, node_ip6, node_mac


def guest_kernel(kind):
    """Return dict with AXON_GUEST_KERNEL/INITRD/MODULES/ABI/KDIR (and, for
    the debug kernel, AXON_KO/AXON_KUNIT_KO/AXON_GPU_KO: its own build of
    the modules)."""
    if kind == "debug":
        # The debug kernel (KASAN, lockdep, kmemleak, KUnit) and the axon
        # modules built for it, in $AXON_CACHE/kernel-debug; the modules
        # are brought up to date with the work tree first.
        tool = os.path.join(REPO, "tools", "axon-debug-kernel")
        try:
            subprocess.run([tool, "--kdir"], check=True,
                           stdout=subprocess.DEVNULL)
        except subprocess.CalledProcessError:
            die("--kernel debug: the debug kernel is not built "
                "(run tools/axon-debug-kernel)", 1)
        try:
            subprocess.run([tool, "--modules"], check=True,
                           stdout=subprocess.DEVNULL)
        except subprocess.CalledProcessError:
            die("--kernel debug: building the axon modules for the debug "
                "kernel failed", 1)
        argv = [tool, "--env"]
    else:
        argv = [os.path.join(REPO, "tools", "axon-guest-kernel"), "--env"]
    try:
        out = subprocess.run(argv, check=True, stdout=subprocess.PIPE,
                             universal_newlines=True).stdout
    except subprocess.CalledProcessError:
        die("%s failed: no guest kernel" % os.path.relpath(argv[0], REPO), 1)
    env = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    for key in ("AXON_GUEST_KERNEL", "AXON_GUEST_INITRD", "AXON_GUEST_MODULES"):
        if not os.path.exists(env.get(key, "")):
            die("guest kernel: %s missing (%r)" % (key, env.get(key)), 1)
    env["kind"] = kind
    return env


def module_path(cfg, ko):
    """A module of the work tree, as built for the guest kernel: for the
    debug kernel, its copy in the debug build (tools/axon-debug-kernel)."""
    ko = os.path.abspath(ko)
    if cfg.kernel["kind"] != "debug":
        return ko
    rel = os.path.relpath(ko, REPO)
    if rel.startswith(".."):
        return ko
    # AXON_KO is <axon-build>/drivers/axon/axon.ko
    abuild = os.path.dirname(os.path.dirname(os.path.dirname(
        cfg.kernel["AXON_KO"])))
    return os.path.join(abuild, rel)


def qemu_binary():
    qemu = os.environ.get("AXON_QEMU") or os.path.join(
        CACHE, "qemu", "build", "qemu-system-x86_64")
    if not os.access(qemu, os.X_OK):
        die("no QEMU at %s: build it, or set AXON_QEMU (e.g. "
            "AXON_QEMU=/usr/bin/qemu-system-x86_64 with --no-nic)" % qemu, 1)
    return qemu


def qemu_devices(qemu):
    out = subprocess.run([qemu, "-device", "help"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, universal_newlines=True,
                         stdin=subprocess.DEVNULL).stdout
    return set(re.findall(r'name "([^"]+)"', out))


def kernel_cmdline(cfg):
    # panic=-1: a panic reboots at once, and -no-reboot turns that into
    # QEMU exiting, so a dead guest ends its node quickly.
    # mitigations=off: page-table isolation etc. cost a lot under TCG.
    return ("console=ttyS0,115200 panic=-1 mitigations=off "
            "printk.devkmsg=on " + cfg.extra_append).strip()


def write_guest_env(cfg, node, ndir):
    env = {
        "AXON_NODE": str(node),
        "AXON_NODES": str(cfg.nodes),
        "AXON_REPO": REPO,
        "AXON_CACHE": CACHE,
        "AXON_KO": cfg.kernel.get("AXON_KO") or
        os.path.join(REPO, "drivers", "axon", "axon.ko"),
        "AXON_KUNIT_KO": cfg.kernel.get("AXON_KUNIT_KO", ""),
        "AXON_GPU_KO": cfg.gpu_ko,
        "AXON_KERNEL": cfg.kernel["kind"],
        "AXON_NO_AXON": "1" if cfg.no_axon else "0",
        "AXON_INSMOD": " ".join(cfg.insmod),
        "AXON_GUEST_MODULES": cfg.kernel["AXON_GUEST_MODULES"],
        "AXON_RUN_DIR": ndir,
        "AXON_CMD": cfg.script,
        # The fabric NIC: its driver (empty: no network set-up), MAC,
        # addresses, everyone's addresses.
        "AXON_NIC_MODEL": cfg.nic_model,
        "AXON_NIC_DRIVER": cfg.nic_driver,
        "AXON_FABRIC": cfg.fabric,
        "AXON_PLANES": str(cfg.planes),
        "AXON_MAC": node_mac(cfg, node),
        "AXON_IP": node_ip(node),
        "AXON_IP6": node_ip6(node),
        "AXON_PEERS": " ".join(node_ip(i) for i in range(cfg.nodes)),
        "AXON_PEERS6": " ".join(node_ip6(i) for i in range(cfg.nodes)),
        "AXON_WAIT_PEERS": "0" if cfg.no_wait_peers else "1",
        "AXON_NETEM_GUEST": (cfg.netem or "") if
        cfg.fabric_obj.netem_at == "guest" else "",
    }
    with open(os.path.join(ndir, "guest.env"), "w") as f:
        for k, v in env.items():
            f.write("%s=%s\n" % (k, shlex.quote(v)))
