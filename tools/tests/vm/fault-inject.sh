#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Kernel fault injection on the debug kernel (tools/axon-vm --kernel debug;
# Documentation/testing.rst, "Fault injection"): failslab and
# fail_page_alloc, then fail_usercopy, fail a share of the allocations (and
# user copies) made in the context of the test processes only (task-filter,
# /proc/<pid>/make-it-fail), while the verbs test programs run, the kernel
# verbs test loads and axon.ko probes (with --gpu: axon-gpu-basic and
# axon_gpu.ko's probe). Every run must end by itself (no hang, no signal)
# and every errno it reports must be one the same program reports without
# injection, or an injected one (ENOMEM, EFAULT). Afterwards, with
# injection off, the device must have nothing left allocated (max_pd PDs,
# the whole VRAM), the modules must load again and the verbs work. The
# harness fails the run on any kernel report and on kmemleak's; the
# injected failures' own stack dumps are exempt (tools/axonvm/logscan.py).
#
# x86_64 has no stack-trace filter (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER
# depends on !X86_64), so the failures are not confined to axon's code:
# they land in whatever the test process's system calls allocate (uverbs,
# ib_core, the mm, axon). The injected faults are counted (the attributes'
# "times" countdown) and the axon functions they hit named, from the first
# axon frame of each failure's stack (verbose=2).
#
# Environment: AXON_FAULT_RUNS (injected runs of each program; default 2
# for axon-verbs-basic and the probes, 1 for the others: make check's time),
# and the failure probabilities in percent: AXON_FAULT_PROBABILITY (failslab,
# default 3), AXON_FAULT_PAGE_PROBABILITY (fail_page_alloc, default 20: far
# fewer calls), AXON_FAULT_USERCOPY_PROBABILITY (default 5),
# AXON_FAULT_INSMOD_PROBABILITY (both allocators under insmod, default 1).
set -u
. "$(dirname "$0")/lib.sh"

runs=${AXON_FAULT_RUNS:-}
prob=${AXON_FAULT_PROBABILITY:-3}
pprob=${AXON_FAULT_PAGE_PROBABILITY:-20}
uprob=${AXON_FAULT_USERCOPY_PROBABILITY:-5}
kprob=${AXON_FAULT_INSMOD_PROBABILITY:-1}
tests=$AXON_REPO/tools/tests
kverbs_ko=${AXON_KO%/drivers/axon/axon.ko}/tools/tests/kverbs/axon-kverbs-test.ko
dbg=/sys/kernel/debug
attrs="failslab fail_page_alloc fail_usercopy"
work=/tmp/fault-inject
mkdir -p $work
gpu=0
[ -n "${AXON_GPU_KO:-}" ] && gpu=1

# ---- the fault-injection attributes (debugfs) ---------------------------------
# A large "times" that counts down by one per injected failure: the count.
times0=1000000

fi_set() { # ATTR KNOB VALUE
	echo "$3" >"$dbg/$1/$2"
}

fi_setup() {
	for a in $attrs; do
		fi_set $a probability 0 &&
			fi_set $a interval 1 &&
			fi_set $a times $times0 &&
			fi_set $a space 0 &&
			fi_set $a verbose 2 &&
			fi_set $a task-filter Y || return 1
	done
	# Sleeping allocations too (the default skips them: nearly all of
	# the driver's), order 0 pages too (the default is 1 and up); user
	# pages (__GFP_HIGHMEM: the process's own memory, pipe buffers) are
	# left alone, so the program's output survives.
	fi_set failslab ignore-gfp-wait N &&
		fi_set fail_page_alloc ignore-gfp-wait N &&
		fi_set fail_page_alloc ignore-gfp-highmem Y &&
		fi_set fail_page_alloc min-order 0
}

# inject ATTR=PERCENT...: these attributes at PERCENT, the others off
inject() {
	for a in $attrs; do
		fi_set $a probability 0
	done
	for a in "$@"; do
		fi_set "${a%=*}" probability "${a#*=}"
	done
}

injected() { # ATTR: failures injected so far
	echo $((times0 - $(cat "$dbg/$1/times")))
}

# ---- running a program under injection ----------------------------------------
# The errno texts a program can print: strerror() of every errno.
python3 -c 'import errno, os
for e in sorted(errno.errorcode): print(os.strerror(e))' >$work/strerror

errnos() { # LOG: the distinct errno texts in LOG
	grep -oF -f $work/strerror "$1" | sort -u
}

# The kernel log since the last mark(): mark() writes a numbered line.
mark_n=0
mark() {
	mark_n=$((mark_n + 1))
	echo "fault-inject: mark $mark_n" >/dev/kmsg
}
since_mark() {
	dmesg | sed -n "/fault-inject: mark $mark_n\$/,\$p"
}

# The injected failures in a kernel log (stdin) as "ATTR SITE" lines: SITE
# is the first frame of the failure's stack in an axon module (func+offset
# [module]), or "-" if no axon code was on the stack.
fault_sites() {
	awk '
	/FAULT_INJECTION: forcing a failure/ { if (attr != "") print attr, "-"; attr = ""; want = 1; next }
	want && /name [a-z_]+, interval/ { sub(/.*name /, ""); sub(/,.*/, ""); attr = $0; want = 0; next }
	attr != "" && /\[(axon|axon_gpu|axon_kverbs_test)\]/ && !/ \? / {
		s = $0; sub(/^\[ *[0-9.]+\] */, "", s); sub(/^ +/, "", s)
		sub(/\/0x[0-9a-f]+/, "", s)
		print attr, s; attr = ""; next
	}
	attr != "" && /<\/TASK>/ { print attr, "-"; attr = "" }
	END { if (attr != "") print attr, "-" }'
}

# The errnos an injected failure may surface as: ENOMEM, and EFAULT (a user
# copy that failed, or one whose page fault could not get memory).
nomem="Cannot allocate memory
Bad address"

# Every run's result is one line in $work/runs: "NAME VERDICT WHY".
: >$work/runs
: >$work/sites

# verdict NAME LOG RC ALLOWED-ERRNOS-FILE: judge one run, log the verdict
# (the shell has no local variables: v_* are its own)
verdict() {
	v_name=$1 v_log=$2 v_rc=$3 v_allowed=$4
	why=
	case $v_rc in
	0) v=passed ;;
	2) v=unclean why="no injection (exit status 2: make-it-fail?)" ;;
	124) v=unclean why="timed out (a hang)" ;;
	12[5-9] | 1[3-9][0-9] | 2[0-9][0-9]) v=unclean why="exit status $v_rc (a signal?)" ;;
	*) v=failed ;;
	esac
	bad=$(errnos "$v_log" | grep -vxF -f "$v_allowed")
	if [ -n "$bad" ]; then
		v=unclean
		why="$why errno not seen without injection: $(echo $bad)"
	fi
	if grep -q '^UNCLEAN: ' "$v_log"; then
		v=unclean
		why="$why $(grep '^UNCLEAN: ' "$v_log" | sed 's/^UNCLEAN: //')"
	fi
	# expect_errno()'s "WHAT: GOT (want WANT)": a failed check must have
	# got an injected errno (a bad input that succeeded, or failed with
	# another errno than its own, is unclean)
	got=$(sed -n 's/^not ok [0-9]* .*: \(.*\) (want .*)$/\1/p' "$v_log" |
		sort -u | grep -vxF "$nomem")
	if [ -n "$got" ]; then
		v=unclean
		why="$why a check got: $(echo $got)"
	fi
	echo "$v_name $v $why" >>$work/runs
	[ "$v" = unclean ] || return 0
	diag "$v_name: unclean: $why"
	{ grep -e ': succeeded (want ' -e '^UNCLEAN: ' "$v_log"
		tail -n 8 "$v_log"; } | sed 's/^/|  /' | while IFS= read -r l; do
		diag "$l"
	done
}

# program NAME BASE N CMD...: CMD N times (or $AXON_FAULT_RUNS) with
# AXON_FAULT_INJECT=1 (the program sets make-it-fail once it has opened its
# device), each run judged
# by verdict(). The errnos allowed are the injected ones and those the
# program prints without injection: in a first run of CMD without it if
# BASE is "-" (the return status is that run's), else those of program
# BASE's first run.
program() {
	name=$1 base=$2 n_runs=${runs:-$3}
	shift 3
	base_rc=0
	if [ "$base" = - ]; then
		base=$name
		timeout 120 "$@" >$work/$name.base 2>&1
		base_rc=$?
		{ errnos $work/$name.base; printf '%s\n' "$nomem"; } |
			sort -u >$work/$name.allowed
	fi
	i=0
	while [ $i -lt "$n_runs" ]; do
		i=$((i + 1))
		mark
		{ AXON_FAULT_INJECT=1 timeout 120 "$@" 2>&1; echo "exit status $?"; } |
			cat >$work/$name.$i
		rc=$(sed -n 's/^exit status //p' $work/$name.$i | tail -n 1)
		verdict "$name/$i" $work/$name.$i "$rc" $work/$base.allowed
		since_mark | fault_sites >>$work/sites
	done
	return $base_rc
}

# insmod_failing KO: load KO with injection from right before
# finit_module() (the module's init and the PCI probe it runs are in that
# process's context); its output is "insmod KO: ok" or "...: <strerror>".
# The modules are read from a copy in tmpfs: reading them from the 9p root
# would fail in 9p.
insmod_failing() {
	cp "$1" $work/ && AXON_FAULT_INJECT=1 timeout 120 \
		"$tests/axon-fault-insmod" "$work/${1##*/}"
}

# bound MODULE: how many PCI devices MODULE's driver is bound to
bound() {
	n=0
	for d in "/sys/bus/pci/drivers/$1"/0000:*; do
		[ -e "$d" ] && n=$((n + 1))
	done
	echo $n
}

# probe MODULE KO READY: $runs times, insmod KO under injection (its init
# and the PCI probe it runs), then rmmod it if it loaded. insmod's errno
# must be ENOMEM; a probe that failed must say so with -12 (ENOMEM); a
# probe that succeeded must have brought up its device (command READY).
probe() {
	mod=$1 ko=$2 ready=$3 n_runs=${runs:-2}
	printf '%s\n' "$nomem" >$work/$mod.allowed
	# The device stays enabled (sysfs "enable") while the probes run, so
	# that pcim_enable_device() only counts: 6.1's ACPICA, failing an
	# allocation as it evaluates _PRT for the device's interrupt
	# (acpi_pci_irq_enable()), then reads freed memory (KASAN in
	# acpi_ex_resolve_to_value(), after "AE_NO_MEMORY, Could not update
	# object reference count").
	: >$work/$mod.enabled
	for d in /sys/bus/pci/drivers/$mod/0000:*; do
		readlink -f "$d" >>$work/$mod.enabled
	done
	! grep -q "^$mod " /proc/modules || rmmod "$mod"
	while read -r d; do
		echo 1 >"$d/enable" ||
			echo "$mod-probe/0 unclean cannot enable $d" >>$work/runs
	done <$work/$mod.enabled
	i=0
	while [ $i -lt "$n_runs" ]; do
		i=$((i + 1))
		log=$work/$mod-probe.$i
		mark
		{ insmod_failing "$ko" 2>&1; echo "exit status $?"; } |
			cat >$log
		rc=$(sed -n 's/^exit status //p' $log | tail -n 1)
		since_mark >$log.dmesg
		err=$(sed -n 's/.*: probe of .* failed with error \(-[0-9]*\)$/\1/p' $log.dmesg)
		for e in $err; do
			[ "$e" = -12 ] || echo "UNCLEAN: probe failed with error $e" >>$log
		done
		if [ "$rc" = 0 ] && [ "$(bound "$mod")" -gt 0 ]; then
			echo "probe: bound" >>$log
			if wait_for 10 $ready; then
				:
			elif [ $mod = axon ] && has_ibdev axon0 &&
				grep -q 'ib_uverbs_add_one' $log.dmesg; then
				# ib_core registers a device whose uverbs client
				# failed to attach (its add_one's error is dropped):
				# axon0 exists, no verbs process can open it
				echo "probe: axon0 registered, its uverbs client failed under injection" >>$log
			else
				echo "UNCLEAN: bound, but no device ($ready)" >>$log
			fi
		elif [ "$rc" = 0 ]; then
			rc=1	# the module loaded, its probe failed
			[ -n "$err" ] ||
				echo "UNCLEAN: loaded, not bound, no probe error logged" >>$log
		fi
		verdict "$mod-probe/$i" $log "$rc" $work/$mod.allowed
		fault_sites <$log.dmesg >>$work/sites
		! grep -q "^$mod " /proc/modules || rmmod "$mod"
	done
	while read -r d; do
		echo 0 >"$d/enable"
	done <$work/$mod.enabled
}

# kverbs: the kernel verbs test module under injection: its init returns
# -EIO when checks failed, -ENOMEM when its allocation did (or the module
# load's did).
kverbs() {
	printf '%s\nInput/output error\n' "$nomem" >$work/kverbs.allowed
	n_runs=${runs:-1}
	i=0
	while [ $i -lt "$n_runs" ]; do
		i=$((i + 1))
		mark
		{ insmod_failing "$kverbs_ko" 2>&1; echo "exit status $?"; } |
			cat >$work/kverbs.$i
		rc=$(sed -n 's/^exit status //p' $work/kverbs.$i | tail -n 1)
		verdict "kverbs/$i" $work/kverbs.$i "$rc" $work/kverbs.allowed
		since_mark | fault_sites >>$work/sites
		grep -q '^axon_kverbs_test ' /proc/modules && rmmod axon_kverbs_test
	done
}

# summary PREFIX: "N runs: P passed, F failed cleanly, U unclean"
summary() {
	n=$(grep -c "^$1/" $work/runs)
	p=$(grep -c "^$1/[0-9]* passed" $work/runs)
	f=$(grep -c "^$1/[0-9]* failed" $work/runs)
	u=$(grep -c "^$1/[0-9]* unclean" $work/runs)
	diag "$1: $n runs: $p passed, $f failed cleanly, $u unclean"
	[ "$u" -eq 0 ] && [ "$n" -eq "$n_runs" ]
}

# ---- the tests ------------------------------------------------------------------
axon_ready() { has_ibdev axon0 && ibv_devinfo -d axon0 >/dev/null 2>&1; }
gdev=/dev/axon_gpu0
gpu_ready() { test -c $gdev; }

if [ $gpu = 1 ]; then
	plan 14
else
	plan 18
fi
have=1
for a in $attrs; do
	[ -d "$dbg/$a" ] || have=0
done
check "the kernel has failslab, fail_page_alloc and fail_usercopy in debugfs" \
	[ $have -eq 1 ]
check "configure them: task-filter, verbose, sleeping allocations" fi_setup
if [ $gpu = 1 ]; then
	check "$gdev exists" wait_for 10 gpu_ready
else
	check "axon0 is up" axon_up
fi

# Phase 1: failslab and fail_page_alloc under the programs, then
# fail_usercopy (ioctl arguments, udata in and out).
if [ $gpu = 1 ]; then
	inject failslab="$prob" fail_page_alloc="$pprob"
	program gpu-basic - 2 "$tests/axon-gpu-basic" $gdev
	check "axon-gpu-basic passes without injection" [ $? -eq 0 ]
	check "axon-gpu-basic under failslab+fail_page_alloc: no unclean run" \
		summary gpu-basic
	inject fail_usercopy="$uprob"
	program gpu-basic-uc gpu-basic 1 "$tests/axon-gpu-basic" $gdev
	check "axon-gpu-basic under fail_usercopy: no unclean run" \
		summary gpu-basic-uc
else
	# axon-verbs-basic prints no errno when it passes (checked below)
	printf '%s\n' "$nomem" >$work/verbs-basic.allowed
	inject failslab="$prob" fail_page_alloc="$pprob"
	program verbs-basic verbs-basic 2 "$tests/axon-verbs-basic" axon0
	check "axon-verbs-basic under failslab+fail_page_alloc: no unclean run" \
		summary verbs-basic
	program badinput - 1 "$tests/axon-verbs-badinput" axon0
	check "axon-verbs-badinput passes without injection" [ $? -eq 0 ]
	check "axon-verbs-badinput under failslab+fail_page_alloc: no unclean run" \
		summary badinput
	inject fail_usercopy="$uprob"
	program verbs-basic-uc verbs-basic 1 "$tests/axon-verbs-basic" axon0
	check "axon-verbs-basic under fail_usercopy: no unclean run" \
		summary verbs-basic-uc
fi
inject

# Injection off: the device has nothing left allocated.
if [ $gpu = 1 ]; then
	check "axon-gpu-basic passes after injection (the VRAM is all free)" \
		quietly "$tests/axon-gpu-basic" $gdev
else
	check "axon-verbs-basic passes after injection (max_pd PDs: none leaked)" \
		quietly "$tests/axon-verbs-basic" axon0
fi

# Phase 2: insmod under failslab+fail_page_alloc, at a lower probability
# (loading the module alone makes hundreds of allocations): the kernel
# verbs test's init, and the module's init and PCI probe.
inject failslab="$kprob" fail_page_alloc="$kprob"
if [ $gpu = 1 ]; then
	probe axon_gpu "$AXON_GPU_KO" gpu_ready
	check "axon_gpu.ko probe under failslab+fail_page_alloc: no unclean run" \
		summary axon_gpu-probe
else
	kverbs
	check "axon-kverbs-test under failslab+fail_page_alloc: no unclean run" \
		summary kverbs
	# Every allocation failing around ib_drain_qp() (the test's
	# starve_drain window): a ULP's teardown must not need memory.
	inject failslab=100 fail_page_alloc=100
	check "ib_drain_qp with every allocation failing: QPs to ERR, flushed, no WARN" \
		quietly insmod "$kverbs_ko" starve_drain=1
	inject failslab="$kprob" fail_page_alloc="$kprob"
	! grep -q '^axon_kverbs_test ' /proc/modules || rmmod axon_kverbs_test
	probe axon "$AXON_KO" axon_ready
	check "axon.ko probe under failslab+fail_page_alloc: no unclean run" \
		summary axon-probe
fi
inject

slab=$(injected failslab)
page=$(injected fail_page_alloc)
ucopy=$(injected fail_usercopy)
diag "injected: failslab $slab, fail_page_alloc $page, fail_usercopy $ucopy"
check "failslab injected failures ($slab)" [ "$slab" -gt 0 ]
# axon_gpu.ko allocates next to no pages in the process's context (its
# VRAM is the device's): not a count to insist on
[ $gpu = 1 ] ||
	check "fail_page_alloc injected failures ($page)" [ "$page" -gt 0 ]
check "fail_usercopy injected failures ($ucopy)" [ "$ucopy" -gt 0 ]

# Where they landed (the failures logged with a stack: not __GFP_NOWARN).
total=$(wc -l <$work/sites)
in_axon=$(grep -cv ' -$' $work/sites)
sites=$(grep -v ' -$' $work/sites | cut -d' ' -f2- | sort -u | wc -l)
funcs=$(grep -v ' -$' $work/sites | cut -d' ' -f2 | sed 's/+.*//' | sort -u)
diag "failures logged with a stack: $total; $in_axon with axon code on it, at $sites distinct axon call sites in $(echo "$funcs" | grep -c .) functions:"
diag "$(echo $funcs)"
check "injected failures reached axon's code" [ "$in_axon" -gt 0 ]

# Injection off: the modules load, and work.
if [ $gpu = 1 ]; then
	check "insmod axon_gpu" insmod "$AXON_GPU_KO"
	check "$gdev is back" wait_for 10 gpu_ready
	check "axon-gpu-basic after reload" quietly "$tests/axon-gpu-basic" $gdev
else
	check "insmod axon" insmod "$AXON_KO"
	check "axon0 is up" axon_up
	check "axon-verbs-basic after reload" quietly "$tests/axon-verbs-basic" axon0
fi
finish
