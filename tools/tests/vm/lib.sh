# SPDX-License-Identifier: GPL-2.0
# Helpers for the tests that run inside the VMs (sourced). Results are
# TAP, through tools/lib/tap.sh: plan, check, ok, not_ok, skip, subtest,
# finish. Each script plans what the node it runs on will report.

. "${AXON_REPO:-$(dirname "$0")/../../..}/tools/lib/tap.sh"

# wait_for SECONDS COMMAND...: poll until COMMAND succeeds, for at most
# SECONDS (however long each try takes)
wait_for() {
	end=$(($(date +%s) + $1))
	shift
	while :; do
		"$@" 2>/dev/null && return 0
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# rmmod_refused MODULE WHY: rmmod MODULE must fail because the module is
# in use (the kernel answers EWOULDBLOCK; rmmod says "in use"): two results
rmmod_refused() {
	out=$(rmmod "$1" 2>&1)
	rc=$?
	diag "rmmod: $out"
	check "rmmod $1 $2 fails" [ $rc -ne 0 ]
	case $out in
	*"in use"*) busy=1 ;;
	*) busy=0 ;;
	esac
	check "... because the module is in use" [ $busy -eq 1 ]
}

# quietly COMMAND...: COMMAND with its output discarded (for check: a
# redirection after check would discard check's result line too)
quietly() { "$@" >/dev/null 2>&1; }

has_ibdev() { [ -e "/sys/class/infiniband/$1" ]; }
no_ibdev() { [ ! -e "/sys/class/infiniband/$1" ]; }

# axon_interface: the device interface version (MAJOR.MINOR) of this tree,
# from the header the driver and the model share
axon_interface() {
	awk '$2 == "AXON_DEV_VERSION_MAJOR" { M = $3 }
	     $2 == "AXON_DEV_VERSION_MINOR" { m = $3 }
	     END { print M "." m }' "$AXON_REPO/include/uapi/axon/axon_regs_defs.h"
}

axon_bdf() {
	basename "$(readlink -f /sys/class/infiniband/axon0/device)"
}

# The net_device of axon0, and bringing it up: the RoCE port is active
# only while its netdev is up, and a reloaded driver's netdev starts down.
axon_netdev() {
	ls /sys/class/infiniband/axon0/device/net/ 2>/dev/null | head -n1
}

axon_up() {
	wait_for 10 has_ibdev axon0 && ip link set "$(axon_netdev)" up
}

# admin_irqs: the admin interrupts axon has taken, all CPUs together (the
# CPU columns the header names); fails when axon has no admin interrupt
admin_irqs() {
	awk 'NR == 1 { cpus = NF }
	     /axon-admin/ { found = 1; for (i = 2; i <= cpus + 1; i++) n += $i }
	     END { if (!found) exit 1; print n + 0 }' /proc/interrupts
}

# stat NAME: the axon netdev's ethtool -S counter NAME
stat() {
	ethtool -S "$AXON_NETDEV" | sed -n "s/^[[:space:]]*$1: //p"
}

# agrees NAME: ethtool's counter lies between two reads of the stack's
# counter around it (traffic from the peer may still be arriving)
agrees() {
	a=$(cat "/sys/class/net/$AXON_NETDEV/statistics/$1")
	b=$(stat "$1")
	c=$(cat "/sys/class/net/$AXON_NETDEV/statistics/$1")
	[ "$a" -le "$b" ] && [ "$b" -le "$c" ]
}

# Two nodes tell each other "done" over TCP (the fabric's IPs):
# peer_wait PORT [SECONDS] returns once a peer connected to PORT (status
# non-zero after SECONDS, default 300); peer_tell HOST PORT connects to it,
# retrying for as long.
peer_wait() {
	timeout "${2:-300}" /usr/bin/python3 -c '
import socket, sys
socket.create_server(("", int(sys.argv[1]))).accept()' "$1"
}

peer_tell() {
	wait_for "${3:-300}" /usr/bin/python3 -c '
import socket, sys
socket.create_connection((sys.argv[1], int(sys.argv[2])), 1)' "$1" "$2"
}

# all_done PORT [SECONDS]: a barrier at the end of a command on several
# nodes: tell every other node that this one is done and return once each
# has told this one (status non-zero after SECONDS, default 300), so that
# no node powers off while another still talks to it.
all_done() {
	timeout "${2:-300}" /usr/bin/python3 -c '
import socket, sys, threading, time
port, me = int(sys.argv[1]), sys.argv[2]
peers = [p for p in sys.argv[3:] if p != me]
server = socket.create_server(("", port), backlog=len(peers) + 1)
def tell(peer):
    while True:
        try:
            socket.create_connection((peer, port), 1).close()
            return
        except OSError:
            time.sleep(0.1)
tellers = [threading.Thread(target=tell, args=(p,)) for p in peers]
for t in tellers:
    t.start()
for _ in peers:
    server.accept()[0].close()
for t in tellers:
    t.join()' "$1" "$AXON_IP" $AXON_PEERS
}

# A small file from one node to the other, the same way: peer_recv PORT
# FILE [SECONDS] writes what the first peer to connect to PORT sends;
# peer_send HOST PORT FILE sends FILE, retrying while nobody listens.
peer_recv() {
	timeout "${3:-300}" /usr/bin/python3 -c '
import socket, sys
conn = socket.create_server(("", int(sys.argv[1]))).accept()[0]
with open(sys.argv[2], "wb") as f:
    while data := conn.recv(65536):
        f.write(data)' "$1" "$2"
}

peer_send() {
	wait_for "${4:-300}" /usr/bin/python3 -c '
import socket, sys
with socket.create_connection((sys.argv[1], int(sys.argv[2])), 1) as s, \
        open(sys.argv[3], "rb") as f:
    s.sendall(f.read())' "$1" "$2" "$3"
}
