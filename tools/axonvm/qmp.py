# SPDX-License-Identifier: GPL-2.0
"""One QMP command on a node's monitor socket (nodeN/qmp.sock), the way
tools/tests/axon-qmp sends it from a shell.
"""

import json
import socket


def qmp_command(path, execute, arguments=None, timeout=5.0):
    """Connect to the QMP socket path, leave capabilities negotiation and
    run one command; return QEMU's reply ({"return": ...} or {"error":
    {"class": ..., "desc": ...}}). OSError if the monitor cannot be reached
    or does not answer within timeout seconds (QEMU serves one QMP client
    at a time: another connected client, e.g. a --host-cmd's, makes us
    wait), ValueError if it answers something that is not QMP."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(path)
        with s.makefile("rw") as f:

            def read():
                line = f.readline()
                if not line:
                    raise OSError("QMP: connection closed by QEMU")
                return json.loads(line)

            def call(cmd, args=None):
                msg = {"execute": cmd}
                if args:
                    msg["arguments"] = args
                f.write(json.dumps(msg) + "\n")
                f.flush()
                while True:
                    reply = read()
                    # Events ({"event": ...}) may come in between.
                    if "return" in reply or "error" in reply:
                        return reply

            if "QMP" not in read():
                raise ValueError("QMP: no greeting")
            reply = call("qmp_capabilities")
            if "error" in reply:
                return reply
            return call(execute, arguments)


def qmp_error(reply):
    """The error text of a QMP reply, None if it succeeded."""
    err = reply.get("error")
    if err is None:
        return None
    if isinstance(err, dict):
        return "%s: %s" % (err.get("class", "Error"), err.get("desc", err))
    return str(err)
