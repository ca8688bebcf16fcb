# SPDX-License-Identifier: GPL-2.0
#
# axon: GPU-attached RoCEv2 RDMA SmartNIC stack.
#
#   make            kernel module(s), provider, tools
#   make check      everything, tested in QEMU VMs (installs what it needs)
#   make kunit      the KUnit suites (kunit/) on the debug kernel
#   make demo       the main job: two VMs, the stack end to end
#   make bench      benchmarks (numbers, not tests): TCP over axon vs
#                   virtio-net, perftest over axon vs rdma_rxe; BENCH= picks
#                   some of tools/bench/ (Documentation/benchmarks.rst)
#   make qemu       QEMU 7.2 with the axon device models
#   make fuzz       coverage-guided fuzzing of the models, FUZZ_TIME
#                   seconds a target (Documentation/fuzzing.rst)
#   make install    module (modules_install) and provider
#
# KDIR selects the kernel to build against (default: the running one).
# The VM targets build against the Debian 12 stock kernel the VMs boot.

KDIR		?= /lib/modules/$(shell uname -r)/build
AXON_CACHE	?= $(HOME)/.cache/axon
BENCH		?= tcp-throughput rdma-perftest middleware
FUZZ_TIME	?= 600
FUZZ_TARGETS	?=
export AXON_CACHE

all: modules provider tools

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

provider:
	$(MAKE) -C provider

tools:
	$(MAKE) -C tools

qemu:
	qemu-model/build-qemu

check:
	tools/axon-check

fuzz:
	tools/axon-deps
	tools/axon-fuzz --time $(FUZZ_TIME) $(FUZZ_TARGETS)

demo:
	tools/axon-demo

kunit:
	tools/axon-kunit

bench:
	tools/axon-build > $(AXON_CACHE)/bench-build.log 2>&1 || \
		{ tail -n 30 $(AXON_CACHE)/bench-build.log; exit 1; }
	@rc=0; for b in $(BENCH); do tools/bench/$$b || rc=1; done; exit $$rc

install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install
	$(MAKE) -C provider install

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null || \
		find . -name '*.o' -o -name '*.ko' -o -name '*.mod*' | xargs rm -f
	$(MAKE) -C provider clean
	$(MAKE) -C tools clean

.PHONY: all modules provider tools qemu fuzz check kunit demo bench install clean
