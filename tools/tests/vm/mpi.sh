#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Open MPI (Debian's 4.1) over UCX across two VMs: node 0's mpirun starts
# tools/tests/axon-mpi with one rank per node (ping-pong from 1 byte to
# 4 MiB and allreduces, every byte and every sum checked; its TAP is a
# subtest here), and each node checks the job's traffic went through its
# RDMA device's packet counters.
#
# The launch: mpirun's rsh launcher starts Open MPI's daemon (orted) on
# node 1 through ssh. Node 1 runs Debian's dropbear SSH server on its
# fabric address only, with a host key made for this run, password logins
# off, and as its one authorized key the one node 0 made for this run and
# sent over. Open MPI's settings: --mca pml ucx (MPI's point to point and
# collectives over UCX, UCX's own choice of transports), the daemons'
# out-of-band TCP on the fabric netdev; UCX's own defaults.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"

pt_require_two_nodes
pt_require_rdma
# rxe needs this UCX setting (see ucx.sh); axon none
ucx_env=
[ "$RDMA_DEV" = rxe0 ] && ucx_env="-x UCX_UD_ETH_DGID_CHECK=n"
# AXON_PEERS: the nodes' fabric addresses, node 0's first
node0=${AXON_PEERS%% *}
node1=$(echo "$AXON_PEERS" | cut -d' ' -f2)
keys=/tmp/axon-mpi-keys
mkdir -m 700 "$keys"
# mpirun's job, with a margin for the launch
job_timeout=$((PT_TIMEOUT + 60))

# TCP ports the two nodes talk on: node 0's key, node 1 ready, job ended
key_port=13600
ready_port=13601
done_port=13602

# moved BEFORE MIN: at least MIN packets went through RDMA_DEV since BEFORE
moved() {
	n=$(($(pt_pkts) - $1))
	diag "$n packets through $RDMA_DEV"
	[ "$n" -ge "$2" ]
}

if [ "$AXON_NODE" = 1 ]; then
	plan 4
	[ -d /root/.ssh ] || mkdir -m 700 /root/.ssh
	check "node 0's public key arrives" \
		peer_recv $key_port /root/.ssh/authorized_keys 120
	chmod 600 /root/.ssh/authorized_keys
	dropbearkey -t ed25519 -f "$keys/host" >/dev/null 2>&1
	before=$(pt_pkts)
	dropbear -F -E -s -p "$AXON_IP:22" -r "$keys/host" \
		>"$AXON_OUT/dropbear.log" 2>&1 &
	sshd=$!
	check "dropbear listens on $AXON_IP:22" \
		wait_for 30 sh -c "ss -Htln 'sport = :22' | grep -q '$AXON_IP:22'"
	peer_tell "$node0" $ready_port
	check "node 0's MPI job ends" peer_wait $done_port $((job_timeout + 60))
	check "rank 1's traffic went through $RDMA_DEV" moved "$before" 1000
	kill $sshd 2>/dev/null
	wait $sshd 2>/dev/null
	finish
	exit
fi

plan 4
ssh-keygen -q -t ed25519 -N '' -C axon-mpi -f "$keys/id"
check "the public key goes to node 1" \
	peer_send "$node1" $key_port "$keys/id.pub" 120 &&
	peer_wait $ready_port 120 ||
	{ echo "Bail out! node 1's SSH server never became ready"; exit 1; }
ssh_opts="-i $keys/id -o BatchMode=yes -o StrictHostKeyChecking=no"
ssh_opts="$ssh_opts -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
# shellcheck disable=SC2086 # a word list
check "ssh runs a command on node 1" \
	sh -c "[ \"\$(ssh $ssh_opts $node1 hostname)\" = axon-node1 ]"

before=$(pt_pkts)
# shellcheck disable=SC2086 # $ucx_env: none or two words
subtest "mpirun -np 2, one rank per node, pml ucx: axon-mpi" \
	timeout $job_timeout mpirun --allow-run-as-root -np 2 \
	-H "$node0:1,$node1:1" \
	--mca plm_rsh_agent ssh --mca plm_rsh_args "$ssh_opts" \
	--mca plm_rsh_no_tree_spawn 1 \
	--mca oob_tcp_if_include "$AXON_NETDEV" \
	--mca pml ucx --mca osc ucx --mca btl self $ucx_env \
	"$AXON_REPO/tools/tests/axon-mpi"
check "rank 0's traffic went through $RDMA_DEV" moved "$before" 1000
peer_tell "$node1" $done_port
finish
