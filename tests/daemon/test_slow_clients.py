#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Slow clients cannot hold the daemon: hundreds of connections that send one byte and stop do
not delay a normal client, and are closed after frame_timeout_ms; idle connections are closed
after idle_timeout_ms, also when their last request was answered by a worker. Time bounds are
generous."""
import os
import select
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

RFC = key_name("rfc")


def closed_within(clients, seconds):
    """True when the daemon closed every one of clients within seconds."""
    end = time.monotonic() + seconds
    left = {c.sock: c for c in clients}
    while left and time.monotonic() < end:
        ready = select.select(list(left), [], [], 0.2)[0]
        for s in ready:
            if s.recv(100) == b"":
                del left[s]
    return not left


def main():
    d = Daemon(sys.argv[1], limits={"frame_timeout_ms": 1000, "idle_timeout_ms": 1500,
                                    "max_connections": 1000,
                                    "max_connections_per_uid": 1000})
    idle = d.client()
    stalled = []
    for _ in range(300):
        c = d.client()
        c.send(b"\x00")
        stalled.append(c)
    normal = d.client()
    start = time.monotonic()
    for i in range(50):
        r = normal.call(sign_req(i, RFC, RFC_DIGEST)).ok(SIGN)
        check(r.signature() == RFC_R + RFC_S, "normal client's signature")
    took = time.monotonic() - start
    check(took < 5, "50 signatures beside 300 stalled connections took %.2f s" % took)
    st = normal.call(frame(STATUS, 99)).ok(STATUS).json()
    check(st["connections"] == 302, "the stalled connections were still open: %s" % st)
    check(closed_within(stalled, 10), "stalled connections closed after frame_timeout_ms")
    check(closed_within([idle], 10), "an idle connection is closed after idle_timeout_ms")
    # The idle timer stops while a signature is at a worker; the answer must start it again.
    signer = d.client()
    check(signer.call(sign_req(1, RFC, RFC_DIGEST)).ok(SIGN).id == 1, "signer's signature")
    check(closed_within([signer], 10), "idle after a signature: closed after idle_timeout_ms")
    fresh = d.client()
    check(fresh.call(frame(PING, 100)).ok(PING).id == 100, "new clients are served")
    text = d.stop()
    check(text.count("closed after a frame stalled") == 300, "stalls logged")
    check(text.count("closed after being idle") >= 2, "idle closes logged")
    print("ok")


main()
