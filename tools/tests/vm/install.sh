#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Installing axon the ways a user does, into the guest's root made
# writable (overlays on /usr and /lib/modules): make install, then the
# driver loaded with modprobe from where it went and verbs working through
# the installed provider; make uninstall, then nothing of it left. With
# AXON_INSTALL_DKMS=1 the same with make dkms-install / dkms-uninstall:
# DKMS builds the modules here, in the guest, for its kernel (minutes
# under TCG: the full run).
set -u
. "$AXON_REPO/tools/tests/vm/lib.sh"
. "$AXON_REPO/tools/tests/vm/perftest-lib.sh"
. "$AXON_REPO/tools/tests/vm/rdma-lib.sh"

dkms=${AXON_INSTALL_DKMS:-0}
plan "$([ "$dkms" = 1 ] && echo 13 || echo 7)"
kver=$(uname -r)
# the work tree, writable: its build is current, so make install builds
# nothing again
src=$AXON_REPO

# the host's directory, writable here: an overlay with a tmpfs upper layer
writable() {
	up=/run/.install-overlay$1
	mkdir -p "$up/upper" "$up/work"
	mount -t overlay overlay \
		-o "lowerdir=$1,upperdir=$up/upper,workdir=$up/work" "$1"
}

unload() {
	for m in axon axon_gpu; do
		! grep -q "^$m " /proc/modules || rmmod $m || return 1
	done
}

# verbs: a loaded driver's netdev up with the node's address (its RoCE v2
# GID), the device listed through the installed provider, a loopback
# ibv_rc_pingpong
verbs_work() {
	axon_up || return 1
	ip addr replace "$AXON_IP/24" dev "$(axon_netdev)" || return 1
	wait_for 30 port_active axon0 &&
		wait_for 10 gid_index axon0 "$AXON_IP" >/dev/null || return 1
	GID_IDX=$(gid_index axon0 "$AXON_IP")
	ibv_devices | grep -q axon0 || return 1
	ibv_rc_pingpong -d axon0 -g "$GID_IDX" -n 20 -p 18950 >/tmp/pp-srv.log 2>&1 &
	s=$!
	sleep 1
	ibv_rc_pingpong -d axon0 -g "$GID_IDX" -n 20 -p 18950 127.0.0.1 >/tmp/pp-cli.log 2>&1
	c=$?
	wait $s
	[ $? = 0 ] && [ $c = 0 ]
}

writable /usr && writable /lib/modules && writable "$src"
check "/usr, /lib/modules and the work tree made writable" \
	sh -c "touch /usr/.axon-install /lib/modules/.axon-install $src/.axon-install"
unload
check "the work tree's modules unloaded" sh -c "! grep -q '^axon ' /proc/modules"

make -C "$src" install >/tmp/install.log 2>&1
rc=$?
tail -n 3 /tmp/install.log | sed 's/^/# /'
check "make install ($rc): modules under extra/, the provider, axon.driver" \
	sh -c "[ $rc = 0 ] && [ -f /lib/modules/$kver/extra/drivers/axon/axon.ko ] &&
	       [ -f /usr/lib/x86_64-linux-gnu/libibverbs/libaxon-rdmav34.so ] &&
	       grep -qx 'driver axon' /etc/libibverbs.d/axon.driver"
modprobe axon
check "modprobe axon loads the installed module ($(modinfo -n axon 2>&1))" \
	sh -c "grep -q '^axon ' /proc/modules && [ \"\$(modinfo -n axon)\" = /lib/modules/$kver/extra/drivers/axon/axon.ko ]"
check "verbs through the installed provider: ibv_devices, ibv_rc_pingpong" verbs_work
unload
make -C "$src" uninstall >/tmp/uninstall.log 2>&1
rc=$?
[ $rc = 0 ] || tail -n 5 /tmp/uninstall.log | sed 's/^/# /'
check "make uninstall ($rc): nothing of it left, modprobe axon fails" \
	sh -c "[ $rc = 0 ] && [ ! -e /lib/modules/$kver/extra/drivers/axon/axon.ko ] &&
	       [ ! -e /usr/lib/x86_64-linux-gnu/libibverbs/libaxon-rdmav34.so ] &&
	       [ ! -e /etc/libibverbs.d/axon.driver ] && ! modprobe axon 2>/dev/null"

if [ "$dkms" = 1 ]; then
	make -C "$src" dkms-install >/tmp/dkms.log 2>&1
	rc=$?
	tail -n 5 /tmp/dkms.log | sed 's/^/# /'
	check "make dkms-install ($rc): DKMS built and installed axon for $kver" \
		sh -c "[ $rc = 0 ] && dkms status axon | grep -q 'axon/.*$kver.*installed'"
	check "the sources under /usr/src with their dkms.conf" \
		sh -c "grep -q '^PACKAGE_VERSION=\"[0-9.]*\"' /usr/src/axon-*/dkms.conf"
	make -C "$src/provider" install >/dev/null 2>&1
	modprobe axon
	check "modprobe axon loads DKMS's module ($(modinfo -n axon 2>&1))" \
		sh -c "modinfo -n axon | grep -q '^/lib/modules/$kver/updates/dkms/axon.ko'"
	check "verbs on DKMS's module" verbs_work
	unload
	make -C "$src" dkms-uninstall >/tmp/dkms-un.log 2>&1
	rc=$?
	check "make dkms-uninstall ($rc): DKMS has no axon, modprobe axon fails" \
		sh -c "[ $rc = 0 ] && [ -z \"\$(dkms status axon)\" ] && ! ls -d /usr/src/axon-* 2>/dev/null && ! modprobe axon 2>/dev/null"
	make -C "$src/provider" uninstall >/dev/null 2>&1
	check "the provider uninstalled again" \
		[ ! -e /usr/lib/x86_64-linux-gnu/libibverbs/libaxon-rdmav34.so ]
fi
check "no kernel warnings" kernel_quiet
finish
