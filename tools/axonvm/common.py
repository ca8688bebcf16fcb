# SPDX-License-Identifier: GPL-2.0
"""Paths, messages and small helpers every part of axon-vm uses.
"""

import argparse
import os
import re
import subprocess
import sys
import threading


REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.realpath(__file__))))


CACHE = os.environ.get("AXON_CACHE") or os.path.expanduser("~/.cache/axon")


RUNS = os.path.join(CACHE, "runs")


KEEP_RUNS = int(os.environ.get("AXON_KEEP_RUNS", "20"))


# Debian's firmware directories (SeaBIOS, option ROMs, linuxboot_dma.bin).
# Exit status when a node's kernel hung before init (--boot-timeout): none
# of the project's code ran yet, so tools/axon-check boots once more.
EXIT_BOOT_HUNG = 75


FIRMWARE_DIRS = ["/usr/share/qemu", "/usr/share/seabios", "/usr/lib/ipxe/qemu"]


print_lock = threading.Lock()


def say(msg):
    with print_lock:
        print("axon-vm: " + msg, flush=True)


def die(msg, code=2):
    print("axon-vm: " + msg, file=sys.stderr, flush=True)
    sys.exit(code)


def parse_size_mib(text):
    m = re.fullmatch(r"(\d+)([MmGg]?)", text)
    if not m:
        raise argparse.ArgumentTypeError("expected MiB or e.g. 2G: %r" % text)
    n = int(m.group(1))
    return n * 1024 if m.group(2) in ("G", "g") else n


def parse_range(text, top, unit=""):
    """A number from 0 to top (an argparse type)."""
    try:
        v = float(text)
    except ValueError:
        v = -1
    if not 0 <= v <= top:
        raise argparse.ArgumentTypeError("expected 0..%g%s: %r" % (
            top, " " + unit if unit else "", text))
    return v


def parse_pct(text):
    return parse_range(text, 100)


def reap(proc, grace=5):
    """Wait for a process asked to stop (terminate()), for grace seconds;
    then kill it."""
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def sh(argv, check=True):
    """Run a host command quietly; return (status, combined output)."""
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL, universal_newlines=True)
    if check and p.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(argv), p.stdout.strip()))
    return p.returncode, p.stdout
