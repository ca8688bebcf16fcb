# SPDX-License-Identifier: GPL-2.0
"""What fails a run in a node's logs: kernel reports, a crashed QEMU,
the command's exit status.
"""

import os
import re
import sys

from .common import print_lock, say


# Kernel log lines that fail a run (searched anywhere in a line).
BAD_LOG = [
    r"\bOops\b",
    r"\bBUG:",
    r"kernel BUG at",
    r"\bWARNING:",
    r"\bKASAN:",
    r"\bUBSAN:",
    r"\bKFENCE:",
    r"possible circular locking",
    r"inconsistent lock state",
    r"possible recursive locking",
    r"possible irq lock inversion",
    r"suspicious RCU usage",
    r"DEBUG_LOCKS_WARN_ON",
    r"bad unlock balance",
    r"lock held when returning to user space",
    r"general protection fault",
    r"Call Trace:",
    r"unreferenced object",
    r"Kernel panic",
    r"soft lockup",
    r"hard LOCKUP",
    r"blocked for more than \d+ seconds",
    r"rcu: .*detected stalls",
]


# A failure forced by the kernel's fault injection (failslab,
# fail_page_alloc, fail_usercopy with verbose=2: tools/tests/vm/fault-inject.sh)
# is logged as these lines, in this order, each right after the one before
# (the first two are one message), then the stack. Only the "Call Trace:"
# line of such a dump is exempt; anything else in it, and any stack that
# does not follow these exact lines, still fails the run.
FAULT_DUMP_HEAD = [
    r"FAULT_INJECTION: forcing a failure\.$",
    r"name \S+, interval \d+, probability \d+, space -?\d+, times -?\d+$",
    r"CPU: \d+ PID: \d+ Comm: ",
    r"Hardware name: ",
    r"Call Trace:$",
]


# An allocation failure report (warn_alloc()) has the same shape. It is
# exempt in the same way, but only once the log has shown an injected
# failure: the failure it reports may be an injected one, or follow from
# one (a vmalloc whose vm_struct allocation was failed).
ALLOC_FAIL_HEAD = [
    r": (page allocation failure: order:\d+|vmalloc error: size \d+, .*), "
    r"mode:0x[0-9a-f]+",
    r"CPU: \d+ PID: \d+ Comm: ",
    r"Hardware name: ",
    r"Call Trace:$",
]


# 6.1's register_irq_proc() does not check what proc_create_data()
# returns: an injected failure there leaves an interrupt without one of
# its /proc/irq/N files, and freeing the interrupt later warns in
# remove_proc_entry() that the file is missing. Once the log has shown an
# injected failure, that warning's dump, from these two lines to its end
# line, is exempt; the same warning without injection still fails a run.
IRQ_PROC_WARN_HEAD = [
    r"name '(smp_affinity|smp_affinity_list|affinity_hint|node|spurious|"
    r"effective_affinity|effective_affinity_list)'$",
    r"WARNING: CPU: \d+ PID: \d+ at fs/proc/generic\.c:\d+ "
    r"remove_proc_entry",
]
WARN_END = r"---\[ end trace [0-9a-f]+ \]---"


def scan_log(text, ignore):
    """Return the first line of text that fails a run, or None."""
    bad = re.compile("|".join(BAD_LOG))
    ign = re.compile("|".join(ignore)) if ignore else None
    heads = [[re.compile(r) for r in FAULT_DUMP_HEAD],
             [re.compile(r) for r in ALLOC_FAIL_HEAD]]
    steps = [0, 0]  # lines of each head matched by the lines just before
    injected = False
    irq_head = [re.compile(r) for r in IRQ_PROC_WARN_HEAD]
    warn_end = re.compile(WARN_END)
    after_irq_name = False
    in_irq_warn = False
    for line in text.splitlines():
        line = line.rstrip("\r")
        if in_irq_warn or (injected and after_irq_name and
                           irq_head[1].search(line)):
            in_irq_warn = not warn_end.search(line)
            after_irq_name = False
            continue
        after_irq_name = bool(irq_head[0].search(line))
        exempt = False
        for i, head in enumerate(heads):
            if i == 1 and not injected:
                continue
            step = steps[i]
            step = step + 1 if head[step].search(line) else (
                1 if head[0].search(line) else 0)
            if step == len(head):
                exempt = True
                step = 0
            steps[i] = step
        if steps[0] == 1:
            injected = True
        if bad.search(line) and not exempt and not (ign and ign.search(line)):
            return line.strip()
    return None


def tail(text, n):
    lines = (text or "").rstrip("\n").splitlines()
    return lines[-n:]


def check_node(n, args, cfg):
    """Report the node's outcome; return the list of failure reasons."""
    name = "node%d" % n.idx
    fails = []
    rc = n.proc.returncode
    exitcode = (n.read_file("exitcode") or "").strip()
    console = n.read_file("console.log") or ""
    dmesg = n.read_file("dmesg.txt")
    qerr = n.read_file("qemu.stderr") or ""

    # --host-kills: the host command ended this node on purpose (QMP quit
    # through tools/tests/axon-kill-node, which leaves this mark first).
    # Only then, and only from a QEMU that exited normally, is the missing
    # exit status expected; the kernel logs are still scanned.
    declared = n.idx in args.host_kills
    marked = os.path.exists(n.path("killed-by-host"))
    killed_by_host = declared and marked and rc == 0 and not n.killed
    if declared and not marked:
        fails.append("%s: --host-kills %d, but the host command did not "
                     "kill it" % (name, n.idx))
    elif marked and not declared:
        fails.append("%s: killed by the host command without --host-kills "
                     "%d" % (name, n.idx))

    if n.boot_hung:
        fails.append("%s: the kernel hung during boot: no init after %g s "
                     "(QEMU killed)" % (name, args.boot_timeout))
    elif n.timed_out:
        fails.append("%s: timed out after %g s (QEMU killed)" % (
            name, args.timeout))
    elif n.killed:
        fails.append("%s: QEMU killed (interrupted)" % name)
    elif rc < 0:
        fails.append("%s: QEMU crashed with signal %d%s" % (
            name, -rc, "; stderr: " + " | ".join(tail(qerr, 3)) if qerr else ""))
    elif rc != 0:
        fails.append("%s: QEMU exited with status %d%s" % (
            name, rc, "; stderr: " + " | ".join(tail(qerr, 3)) if qerr else ""))

    if exitcode == "" and killed_by_host:
        pass
    elif exitcode == "":
        error = (n.read_file("error") or "").strip()
        if error:
            fails.append("%s: %s" % (name, error))
        elif not n.timed_out and not n.killed and rc == 0:
            fails.append("%s: the guest stopped before the command finished "
                         "(kernel panic?)" % name)
    elif exitcode != "0":
        fails.append("%s: command failed with exit status %s" % (name, exitcode))

    kmemleak = n.read_file("kmemleak.txt")
    for fname, text in (("dmesg.txt", dmesg), ("console.log", console),
                        ("kmemleak.txt", kmemleak)):
        if text is None:
            continue
        line = scan_log(text, args.ignore_log)
        if line:
            fails.append("%s: kernel log %s: %s" % (name, fname, line))
            break

    started = n.path("started")
    timing = ""
    if os.path.exists(started):
        boot = os.path.getmtime(started) - n.wall_start
        timing = ", command started %.1f s after launch" % boot
    say("%s: %s%s, %.1f s total" % (
        name, "exit " + exitcode if exitcode else
        "killed by the host command, as declared" if killed_by_host else
        "no exit status", timing,
        n.t_end - n.t_start))
    if fails and not exitcode and console:
        with print_lock:
            print("axon-vm: %s: last console lines:" % name)
            for ln in tail(console, 15):
                print("  [%s console] %s" % (name, ln.rstrip("\r")))
            sys.stdout.flush()
    return fails
