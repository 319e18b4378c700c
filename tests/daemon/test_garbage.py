#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Mutated frames (fixed seed): bit flips, truncations, stray bytes and random lengths of valid
requests, each on a connection of its own or pipelined after valid ones. The daemon must answer
or close, never crash (the ASan rerun checks its memory too), and serve normally afterwards."""
import os
import random
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

RFC = key_name("rfc")


def seeds():
    point = bytes.fromhex("0460fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"
                          "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299")
    sig = raw_to_der(RFC_R + RFC_S)
    return [frame(PING, 1), sign_req(2, RFC, RFC_DIGEST, DER), sign_req(3, RFC, RFC_DIGEST),
            sign_message_req(4, RFC, b"sample"), frame(PUBKEY, 5, RFC),
            verify_req(6, key_point(point), RFC_DIGEST, sig, DER),
            verify_req(7, RFC, RFC_DIGEST, RFC_R + RFC_S), frame(LIST_KEYS, 8),
            frame(STATUS, 9)]


def mutate(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(5)
        if op == 0 and data:
            i = rng.randrange(len(data))
            data[i] ^= 1 << rng.randrange(8)
        elif op == 1 and data:
            data = data[:rng.randrange(len(data))]
        elif op == 2:
            i = rng.randrange(len(data) + 1)
            data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif op == 3 and len(data) >= 4:
            data[0:4] = struct.pack(">I", rng.choice((0, 7, 8, 9, len(data) - 4, 65536, 65537,
                                                      rng.randrange(1 << 32))))
        elif op == 4 and len(data) >= 12:
            data[rng.randrange(4, 12)] = rng.randrange(256)      # a header byte
    return bytes(data)


def drain(sock):
    """Reads until the daemon closes or goes quiet; every frame must be well formed."""
    sock.settimeout(0.01)
    buf = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            buf += chunk
    except (socket.timeout, ConnectionResetError):
        pass
    while len(buf) >= 4:
        n = struct.unpack(">I", buf[:4])[0]
        check(8 <= n <= 65536, "response frame length %d" % n)
        if len(buf) < 4 + n:
            break
        r = Response(buf[4:4 + n])
        check(r.version == 1 and (r.type == ERROR or r.type & RESPONSE), "response header")
        buf = buf[4 + n:]


def main():
    rng = random.Random(20261129)
    d = Daemon(sys.argv[1], limits={"frame_timeout_ms": 200})
    base = seeds()
    for i in range(600):
        c = d.client()
        data = b"".join(rng.choice(base) for _ in range(rng.randint(0, 3)))
        data += mutate(rng, rng.choice(base))
        try:
            c.send(data)
        except (BrokenPipeError, ConnectionResetError):
            pass
        if i % 3:
            drain(c.sock)
        c.close()
    c = d.client()
    r = c.call(sign_req(1, RFC, RFC_DIGEST)).ok(SIGN)
    check(r.signature() == RFC_R + RFC_S, "the daemon still signs")
    st = c.call(frame(STATUS, 2)).ok(STATUS).json()
    check(st["workers_alive"] == 2, "no worker was harmed: %s" % st)
    c.close()
    d.stop()
    print("ok")


main()
