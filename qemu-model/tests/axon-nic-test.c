/*
 * qtest of the axon-nic device model (and of the axon-gpu it reaches peer
 * to peer), driven through the devices' BARs with no guest OS. The
 * fixtures are axon-nic-qos.c; each axon-*-test.c file tests one
 * function of the device.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-nic-qos.h"

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    axon_nic_ctrl_tests();
    axon_nic_eth_tests();
    axon_nic_rdma_tests();
    axon_nic_wire_tests();
    axon_nic_cc_tests();
    axon_nic_peer_tests();
    axon_nic_srq_tests();
    axon_nic_ud_tests();
    axon_nic_uc_tests();
    axon_nic_rud_tests();
    axon_nic_frmr_tests();
    axon_nic_mw_tests();
    axon_gpu_tests();

    return g_test_run();
}
