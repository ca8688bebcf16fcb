/*
 * axon simulator: a capture of one switch port's frames (pcap, Ethernet),
 * which tshark decodes as RoCE v2
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef AXON_SIM_PCAP_H
#define AXON_SIM_PCAP_H

#include <cstdint>
#include <cstdio>
#include <string>

namespace axonsim {

class Pcap {
public:
    ~Pcap();
    /* false with *why */
    bool open(const std::string &path, std::string *why);
    void frame(int64_t now_ns, const uint8_t *f, size_t len);

private:
    FILE *f_ = nullptr;
};

} // namespace axonsim

#endif /* AXON_SIM_PCAP_H */
