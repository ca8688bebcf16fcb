#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# libfabric (Debian's 1.17) over axon0 across two VMs: fi_info lists axon0
# under the verbs provider for connected (FI_EP_MSG) and, through ofi_rxm,
# reliable datagram (FI_EP_RDM) endpoints; fi_pingpong runs every size
# with its data check (-c) on each, with libfabric's defaults (ofi_rxm
# sizes its verbs CQ for FI_UNIVERSE_SIZE, 1024 peers: 131072 entries).
# Node 0 serves, node 1 is the client.
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"

pt_require_two_nodes
pt_require_ucm
plan 4
side=$PT_SIDE
peer=${AXON_PEERS%% *}

# fi_lists PROVIDER EP_TYPE: fi_info has a PROVIDER endpoint of EP_TYPE
# on axon0's domain
fi_lists() {
	fi_info -p "$1" -t "$2" >"$AXON_OUT/fi_info.$2.log" 2>&1 &&
		grep -q "domain: $RDMA_DEV" "$AXON_OUT/fi_info.$2.log"
}
check "fi_info -p verbs lists $RDMA_DEV for FI_EP_MSG" fi_lists verbs FI_EP_MSG
check "fi_info -p 'verbs;ofi_rxm' lists $RDMA_DEV for FI_EP_RDM" \
	fi_lists "verbs;ofi_rxm" FI_EP_RDM

# fi_pp NAME PORT ARGS...: fi_pingpong on both nodes, the client retrying
# while the server does not listen yet
fi_pp() {
	log=$AXON_OUT/$1.$side.log
	port=$2
	shift 2
	if [ "$AXON_NODE" = 0 ]; then
		timeout "$PT_TIMEOUT" fi_pingpong "$@" -B "$port" \
			</dev/null >"$log" 2>&1
		rc=$?
	else
		tries=0
		while :; do
			timeout "$PT_TIMEOUT" fi_pingpong "$@" -P "$port" "$peer" \
				</dev/null >"$log" 2>&1 && rc=0 || rc=$?
			[ $rc != 0 ] && [ $tries -lt 60 ] &&
				grep -qi "refused" "$log" || break
			tries=$((tries + 1))
			sleep 0.5
		done
	fi
	[ $rc = 0 ] && return 0
	tail -n 15 "$log" | sed 's/^/#   | /'
	return 1
}
check "fi_pingpong -p verbs -e msg -c, every size ($side)" \
	fi_pp pingpong_msg 47600 -p verbs -d "$RDMA_DEV" -e msg -c -I 50
grep -E "^ *[0-9]+(k|m)? +[0-9]+ " "$AXON_OUT/pingpong_msg.$side.log" 2>/dev/null |
	tail -n 3 | sed 's/^/# msg: /'
check "fi_pingpong -p 'verbs;ofi_rxm' -e rdm -c, every size ($side)" \
	fi_pp pingpong_rdm 47601 -p "verbs;ofi_rxm" -d "$RDMA_DEV" -e rdm -c -I 50
finish
