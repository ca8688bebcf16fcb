# SPDX-License-Identifier: GPL-2.0
"""Send or receive a deterministic byte stream over TCP and verify it.

    tcp-stream.py send HOST MIB
    tcp-stream.py recv BIND-ADDRESS MIB

The stream is SHAKE-256 of the block number, so the receiver checks every
byte without the sender's help. Prints "ok <bytes> <sha256>" on success.
"""
import hashlib
import socket
import sys
import time

PORT = 47910
CHUNK = 1 << 16


def block(i):
    return hashlib.shake_256(b"axon block %d" % i).digest(CHUNK)


def main():
    mode, addr, mib = sys.argv[1], sys.argv[2], int(sys.argv[3])
    nblocks = mib * 1024 * 1024 // CHUNK
    total = hashlib.sha256()
    if mode == "send":
        deadline = time.monotonic() + 120
        while True:
            try:
                s = socket.create_connection((addr, PORT), timeout=10)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        for i in range(nblocks):
            b = block(i)
            total.update(b)
            s.sendall(b)
        s.shutdown(socket.SHUT_WR)
        s.recv(1)
        print("ok %d %s" % (nblocks * CHUNK, total.hexdigest()))
        return 0
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, PORT))
    ls.listen(1)
    ls.settimeout(180)
    s, _ = ls.accept()
    got = bytearray()
    i = 0
    while True:
        data = s.recv(1 << 20)
        if not data:
            break
        got += data
        while len(got) >= CHUNK:
            if i >= nblocks or got[:CHUNK] != block(i):
                print("corrupt block %d" % i)
                return 1
            total.update(got[:CHUNK])
            del got[:CHUNK]
            i += 1
    s.close()
    if got or i != nblocks:
        print("short stream: %d blocks and %d bytes" % (i, len(got)))
        return 1
    print("ok %d %s" % (nblocks * CHUNK, total.hexdigest()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
