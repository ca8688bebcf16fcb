// SPDX-License-Identifier: GPL-2.0
/*
 * A trimming switch's cut of a RUD DATA frame (axon-trim.h).
 */
#include "axon-trim.h"

#define ETH_LEN		14
#define IP_LEN		20
#define UDP_LEN		8
#define BTH_LEN		12
#define ROCE_UDP_PORT	4791

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void ipv4_checksum(uint8_t *ip)
{
	uint32_t sum = 0;
	unsigned i;

	ip[10] = ip[11] = 0;
	for (i = 0; i < IP_LEN; i += 2)
		sum += (uint32_t)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put16(ip + 10, ~sum & 0xffff);
}

size_t axon_trim_frame(uint8_t *f, size_t len, uint8_t dscp)
{
	uint8_t *ip = f + ETH_LEN, *udp = ip + IP_LEN;

	if (len < AXON_TRIM_LEN || f[12] != 0x08 || f[13] != 0x00 ||
	    ip[0] != 0x45 || ip[9] != 17 ||
	    (udp[2] << 8 | udp[3]) != ROCE_UDP_PORT ||
	    udp[UDP_LEN] != AXON_RUD_OPCODE_DATA)
		return 0;
	ip[1] = (uint8_t)(dscp << 2 | (ip[1] & 3));
	put16(ip + 2, AXON_TRIM_LEN - ETH_LEN);
	ipv4_checksum(ip);
	put16(udp + 4, AXON_TRIM_LEN - ETH_LEN - IP_LEN);
	put16(udp + 6, 0);
	return AXON_TRIM_LEN;
}
