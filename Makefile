# SPDX-License-Identifier: GPL-2.0
#
# axon: GPU-attached RoCEv2 RDMA SmartNIC stack.
#
#   make            kernel module(s), provider, tools, the NCCL net plugin
#   make check      everything, tested in QEMU VMs (installs what it needs)
#   make kunit      the KUnit suites (kunit/) on the debug kernel
#   make demo       the main job: two VMs, the stack end to end
#   make bench      benchmarks (numbers, not tests): TCP over axon vs
#                   virtio-net, perftest over axon vs rdma_rxe; BENCH= picks
#                   some of tools/bench/ (Documentation/benchmarks.rst)
#   make qemu       QEMU 7.2 with the axon device models
#   make sim        the engine at datacenter scale in ns-3: every scenario
#                   of sim/scenarios/ (SCENARIO= one), CSVs and plots under
#                   $(AXON_CACHE)/sim/ (Documentation/simulator.rst)
#   make fuzz       coverage-guided fuzzing of the models, FUZZ_TIME
#                   seconds a target, FUZZ_JOBS processes each
#                   (Documentation/fuzzing.rst)
#   make install    the modules (axon.ko, axon_gpu.ko) for KDIR's kernel,
#                   the provider with its axon.driver file, axondv.h and
#                   its man page, axonctl and its man page, the NCCL net
#                   plugin libnccl-net-axon.so; DESTDIR stages
#   make uninstall  removes what make install installed
#   make dkms-install   the driver sources under /usr/src/axon-VERSION,
#                   added to DKMS, built and installed for the running
#                   kernel (or KVER); rebuilt on each kernel update
#   make dkms-uninstall removes them from DKMS and /usr/src
#
# KDIR selects the kernel to build against (default: the running one).
# The VM targets build against the Debian 12 stock kernel the VMs boot.

KVER		?= $(shell uname -r)
KDIR		?= /lib/modules/$(KVER)/build
# the release, in the DKMS source directory's name
AXON_VERSION	:= 0.9.0
DKMS_SRC	:= $(DESTDIR)/usr/src/axon-$(AXON_VERSION)
# KDIR's kernel, and make install's modules under its extra/
KRELEASE	= $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' \
			$(KDIR)/include/generated/utsrelease.h 2>/dev/null)
MOD_DIR		= $(DESTDIR)/lib/modules/$(KRELEASE)/extra
AXON_CACHE	?= $(HOME)/.cache/axon
BENCH		?= tcp-throughput rdma-perftest middleware
FUZZ_TIME	?= 600
FUZZ_TARGETS	?=
FUZZ_JOBS	?= 1
export AXON_CACHE

all: modules provider tools nccl-net

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

provider:
	$(MAKE) -C provider

# after the provider: axon-rud-xfer links it
tools: provider
	$(MAKE) -C tools

# libnccl-net-axon.so and its tests (Documentation/nccl.rst)
nccl-net:
	$(MAKE) -C nccl-net

qemu:
	qemu-model/build-qemu

check:
	tools/axon-check

fuzz:
	tools/axon-deps
	tools/axon-fuzz --time $(FUZZ_TIME) --jobs $(FUZZ_JOBS) $(FUZZ_TARGETS)

demo:
	tools/axon-demo

sim:
	tools/axon-simulate $(SCENARIO)

kunit:
	tools/axon-kunit

bench:
	tools/axon-build > $(AXON_CACHE)/bench-build.log 2>&1 || \
		{ tail -n 30 $(AXON_CACHE)/bench-build.log; exit 1; }
	@rc=0; for b in $(BENCH); do tools/bench/$$b || rc=1; done; exit $$rc

install: provider
	$(MAKE) -C $(KDIR) M=$(CURDIR) AXON_DRIVERS_ONLY=1 modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) AXON_DRIVERS_ONLY=1 \
		INSTALL_MOD_PATH=$(DESTDIR) modules_install
	[ -n "$(DESTDIR)" ] || depmod -a $(KRELEASE)
	$(MAKE) -C provider install
	$(MAKE) -C tools install
	$(MAKE) -C nccl-net install

uninstall:
	rm -f $(MOD_DIR)/drivers/axon/axon.ko $(MOD_DIR)/drivers/axon_gpu/axon_gpu.ko
	-rmdir -p $(MOD_DIR)/drivers/axon $(MOD_DIR)/drivers/axon_gpu 2>/dev/null
	[ -n "$(DESTDIR)" ] || depmod -a $(KRELEASE)
	$(MAKE) -C provider uninstall
	$(MAKE) -C tools uninstall
	$(MAKE) -C nccl-net uninstall

# the files a kernel build of the drivers needs, and dkms.conf
dkms-install:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)/include
	cp -r Kbuild drivers $(DKMS_SRC)/
	cp -r include/uapi $(DKMS_SRC)/include/
	find $(DKMS_SRC)/drivers -type f ! -name '*.[ch]' ! -name Kbuild -delete
	sed 's/@VERSION@/$(AXON_VERSION)/' dkms.conf > $(DKMS_SRC)/dkms.conf
	dkms add -m axon -v $(AXON_VERSION)
	dkms build -m axon -v $(AXON_VERSION) -k $(KVER)
	dkms install -m axon -v $(AXON_VERSION) -k $(KVER)

dkms-uninstall:
	-dkms remove -m axon -v $(AXON_VERSION) --all
	rm -rf $(DKMS_SRC)

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || \
		find . -name '*.o' -o -name '*.ko' -o -name '*.mod*' | xargs rm -f
	$(MAKE) -C provider clean
	$(MAKE) -C tools clean
	$(MAKE) -C nccl-net clean
	$(MAKE) -C sim clean

.PHONY: all modules provider tools nccl-net qemu fuzz check kunit demo sim bench install \
	uninstall dkms-install dkms-uninstall clean
