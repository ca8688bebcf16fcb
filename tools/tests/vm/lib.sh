# SPDX-License-Identifier: GPL-2.0
# Helpers for the tests that run inside the VMs (sourced).

failures=0

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }

# check NAME COMMAND...: PASS if COMMAND succeeds
check() {
	name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name"; fi
}

# wait_for SECONDS COMMAND...: poll until COMMAND succeeds
wait_for() {
	tries=$(($1 * 10))
	shift
	while [ "$tries" -gt 0 ]; do
		"$@" 2>/dev/null && return 0
		sleep 0.1
		tries=$((tries - 1))
	done
	return 1
}

has_ibdev() { [ -e "/sys/class/infiniband/$1" ]; }
no_ibdev() { [ ! -e "/sys/class/infiniband/$1" ]; }

axon_bdf() {
	basename "$(readlink -f /sys/class/infiniband/axon0/device)"
}

finish() {
	echo "$failures failed"
	[ "$failures" -eq 0 ]
}
