#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# With the driver unbound, attack the device through its BAR; then the
# driver must load again and work.
set -u
. "$(dirname "$0")/lib.sh"

plan 5
bdf=$(axon_bdf)
check "unload the driver" rmmod axon
subtest "axon-bar-fuzz" "$AXON_REPO/tools/tests/axon-bar-fuzz" "$bdf"
check "driver reloads after the fuzzing" insmod "$AXON_KO"
check "axon0 registered" axon_up
check "verbs work" quietly "$AXON_REPO/tools/tests/axon-verbs-basic" axon0
finish
