# SPDX-License-Identifier: GPL-2.0
"""axon-vm, the VM harness, as a package: cli (the command line), run
(a run of N nodes), node, fabric (and its relay), guest (what a node
boots), logscan (what fails a run), common.
"""
