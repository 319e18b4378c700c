#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""p256signctl against a hostile daemon: the LIST_KEYS and STATUS tables, and the metrics, never
pass the daemon's control characters (terminal escape sequences) to the operator's terminal; its
counters are shown each in its place (signatures, then those with a precomputed nonce).

Usage: test_ctl_hostile.py P256SIGNCTL"""
import atexit
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading

ctl = sys.argv[1]
ESC = "\x1b]2;pwned\x07\x1b[2J"
ANSWERS = {
    0x06: {"keys": [{"name": "k" + ESC, "key_id": ESC, "public_key": "04", "nonce": ESC,
                     "verify_after_sign": True, "signatures": 7, "precomputed_signatures": 5,
                     "allow": [ESC]}]},
    0x07: {"version": ESC, "uptime_s": 1, "workers": 1, "workers_alive": 1, "requests": 1,
           "signatures": 7, "precomputed_signatures": 5, "inflight": 0, "connections": 1,
           "errors": {ESC: 1}},
}
# What each table must show of the counters above.
COUNTERS = {
    "keys": re.compile(r" 7 +5 root\n"),
    "status": re.compile(r"\nsignatures +7\nprecomputed +5\n"),
    "metrics": re.compile(r'\np256sign_signatures_total 7\n(.|\n)*'
                          r'\np256sign_key_signatures_total\{key="k\?\]2;pwned\?\?\[2J"\} 7\n'),
}


def serve(listener):
    """Answers the requests of each connection, as a daemon speaking protocol version 1 would."""
    while True:
        conn, _ = listener.accept()
        with conn:
            while len(head := conn.recv(12, socket.MSG_WAITALL)) == 12:
                length, version, mtype, flags, rid = struct.unpack(">IBBHI", head)
                conn.recv(length - 8, socket.MSG_WAITALL) if length > 8 else None
                body = json.dumps(ANSWERS[mtype]).encode()
                conn.sendall(struct.pack(">IBBHI", 8 + len(body), 1, mtype | 0x80, 0, rid) +
                             body)


tmp = tempfile.mkdtemp(prefix="p256signctl-hostile-")
atexit.register(shutil.rmtree, tmp, True)     # also when p256signctl times out
path = os.path.join(tmp, "s.sock")
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(path)
listener.listen(4)
threading.Thread(target=serve, args=(listener,), daemon=True).start()

failures = 0
for cmd in ("keys", "status", "metrics"):
    p = subprocess.run([ctl, "--socket", path, cmd], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=30)
    out = p.stdout.decode("latin-1")
    if p.returncode != 0 or "?" not in out:
        print("%s: exit %d, %r %r" % (cmd, p.returncode, out, p.stderr))
        failures += 1
    if not COUNTERS[cmd].search(out):
        print("%s: the counters are not in their place: %r" % (cmd, out))
        failures += 1
    if any(ord(ch) < 0x20 and ch != "\n" for ch in out):
        print("%s: control characters reached the terminal: %r" % (cmd, out))
        failures += 1
    # --json passes the daemon's object on as JSON, where jansson escapes control characters.
    p = subprocess.run([ctl, "--socket", path, "--json", cmd], stdout=subprocess.PIPE, timeout=30)
    if p.returncode != 0 or b"\x1b" in p.stdout:
        print("%s --json: exit %d, %r" % (cmd, p.returncode, p.stdout))
        failures += 1
os.unlink(path)
os.rmdir(tmp)
print("ok" if failures == 0 else "%d failure(s)" % failures)
sys.exit(1 if failures else 0)
