# SPDX-License-Identifier: GPL-2.0
"""Count the RoCEv2 frames of a pcap (Ethernet, IPv4) and those whose ICRC
is wrong, computed as IBA annex A17 says: the 8-byte pseudo header of
ones, the IP header with TOS, TTL and checksum as ones, the UDP header
with its checksum as ones, the BTH with its reserved byte as ones, then
the rest of the packet. Prints "FRAMES BAD"."""
import struct
import sys
import zlib


def frames(path):
    with open(path, "rb") as f:
        head = f.read(24)
        if len(head) < 24 or struct.unpack("<I", head[:4])[0] != 0xa1b23c4d:
            sys.exit(f"{path}: not a nanosecond pcap")
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            caplen = struct.unpack("<4I", rec)[2]
            yield f.read(caplen)


def icrc_ok(fr):
    ip = bytearray(fr[14:34])
    udp = bytearray(fr[34:42])
    bth = bytearray(fr[42:54])
    ip[1] = ip[8] = 0xff
    ip[10] = ip[11] = 0xff
    udp[6] = udp[7] = 0xff
    bth[4] = 0xff
    crc = zlib.crc32(b"\xff" * 8 + ip + udp + bth + fr[54:-4])
    return struct.pack("<I", crc) == fr[-4:]


def main():
    n = bad = 0
    for fr in frames(sys.argv[1]):
        if len(fr) < 58 or fr[12:14] != b"\x08\x00" or fr[23] != 17:
            continue
        if struct.unpack(">H", fr[36:38])[0] != 4791:
            continue
        n += 1
        bad += not icrc_ok(fr)
    print(n, bad)


main()
