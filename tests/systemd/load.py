#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A signing load for the container tests, run inside the container as a member of the p256sign
group: CONNS connections, each with DEPTH SIGN requests in flight, until the file STOP exists
(or COUNT requests were answered). A connection that fails (the daemon restarted under it) is
counted and opened again. Prints one JSON line: answers by kind (signed, error codes), failed
connections, and the public keys whose signatures verified, checked with openssl afterwards.
Usage: load.py SOCKET KEY CONNS DEPTH STOP [COUNT]"""
import json
import os
import struct
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "daemon"))
from daemonlib import (SIGN, RESPONSE, RFC_DIGEST, Client, key_name, sign_req)  # noqa: E402

sock_path, key, conns, depth, stop = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
    int(sys.argv[4]), sys.argv[5]
count = int(sys.argv[6]) if len(sys.argv) > 6 else None
lock = threading.Lock()
totals = {"signed": 0, "errors": {}, "broken_connections": 0, "answered": 0}


def done():
    return os.path.exists(stop) or (count is not None and totals["answered"] >= count)


def add(kind):
    with lock:
        totals["answered"] += 1
        if kind == "signed":
            totals["signed"] += 1
        else:
            totals["errors"][kind] = totals["errors"].get(kind, 0) + 1


def one_connection():
    c = Client(sock_path, timeout=30)
    next_id = 1
    for _ in range(depth):
        c.send(sign_req(next_id, key_name(key), RFC_DIGEST))
        next_id += 1
    try:
        while not done():
            r = c.recv()
            if r is None:
                raise OSError("connection closed")
            add("signed" if r.type == SIGN | RESPONSE else "error-%s" % r.error)
            c.send(sign_req(next_id, key_name(key), RFC_DIGEST))
            next_id += 1
    finally:
        c.close()


def worker():
    while not done():
        try:
            one_connection()
        except (OSError, struct.error):
            with lock:
                totals["broken_connections"] += 1


threads = [threading.Thread(target=worker) for _ in range(conns)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps(totals))
