/*
 * axon simulator: pcap capture (see axon-sim-pcap.h)
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "axon-sim-pcap.h"

#include <cerrno>
#include <cstring>

namespace axonsim {

namespace {

/* the classic pcap format, nanosecond timestamps, LINKTYPE_ETHERNET */
struct PcapFileHeader {
    uint32_t magic = 0xa1b23c4d;
    uint16_t major = 2, minor = 4;
    int32_t zone = 0;
    uint32_t sigfigs = 0, snaplen = 65535, linktype = 1;
};

struct PcapRecord {
    uint32_t sec, nsec, caplen, len;
};

} // namespace

Pcap::~Pcap()
{
    if (f_) {
        fclose(f_);
    }
}

bool Pcap::open(const std::string &path, std::string *why)
{
    PcapFileHeader h;

    f_ = fopen(path.c_str(), "wb");
    if (!f_ || fwrite(&h, sizeof(h), 1, f_) != 1) {
        *why = path + ": " + strerror(errno);
        return false;
    }
    return true;
}

void Pcap::frame(int64_t now_ns, const uint8_t *f, size_t len)
{
    PcapRecord r = { (uint32_t)(now_ns / 1000000000),
                     (uint32_t)(now_ns % 1000000000), (uint32_t)len,
                     (uint32_t)len };

    if (f_) {
        fwrite(&r, sizeof(r), 1, f_);
        fwrite(f, len, 1, f_);
    }
}

} // namespace axonsim
