#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The implemented verbs through libibverbs and the axon provider.
set -u
exec "$AXON_REPO/tools/tests/axon-verbs-basic" axon0
