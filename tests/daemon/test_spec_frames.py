#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The frame examples of docs/protocol.md section 10 against the real daemon: each request frame
is sent as written and the daemon's answer must be the documented response frame byte for byte
(STATUS and LIST_KEYS, whose JSON changes at run time, are checked member by member)."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

PAIRS = [("ping-request", "ping-response"),
         ("sign-request-name-der", "sign-response-der"),
         ("sign-request-keyid-raw", "sign-response-raw"),
         ("sign-message-request", "sign-message-response"),
         ("pubkey-request", "pubkey-response"),
         ("verify-request-point", "verify-response")]


def frames(path):
    """{name: bytes} of every <!-- frame: NAME --> hex block."""
    with open(path) as f:
        text = f.read()
    found = re.findall(r"<!-- frame: ([a-z0-9-]+) -->\s*```hex\n(.*?)```", text, re.S)
    check(found, "no frame examples in " + path)
    return {name: bytes.fromhex(" ".join(hexes.split())) for name, hexes in found}


def main():
    spec, binary = sys.argv[1], sys.argv[2]
    f = frames(spec)
    for name in [n for pair in PAIRS for n in pair] + ["list-keys-request", "status-request",
                                                       "status-response", "error-unknown-key"]:
        check(name in f, "docs/protocol.md has no frame %s" % name)
    d = Daemon(binary, keys=[{"name": "release", "file": RFC_KEY, "nonce": "deterministic"}])
    c = d.client()
    for req, resp in PAIRS:
        c.send(f[req])
        got = c.recv()
        raw = struct.pack(">I", len(got.body) + 8) + struct.pack(
            ">BBHI", got.version, got.type, got.flags, got.id) + got.body
        check(raw == f[resp], "%s: expected %s\n%s\ngot\n%s" % (req, resp, f[resp].hex(), raw.hex()))
    # The error example: a SIGN, request id 9, naming a key the daemon does not hold.
    r = c.call(sign_req(9, key_name("nope"), RFC_DIGEST, DER))
    raw = struct.pack(">I", len(r.body) + 8) + struct.pack(">BBHI", 1, r.type, 0, r.id) + r.body
    check(raw == f["error-unknown-key"], "error-unknown-key: got %s" % raw.hex())
    # JSON bodies: the documented members.
    c.send(f["list-keys-request"])
    keys = c.recv().ok(LIST_KEYS).json()["keys"]
    check(keys == [{"name": "release",
                    "key_id": "5a7a78cca4a0f420d9bc62bb669c3c2759e39f723d3ae10dcbe0f0815a07ecd4",
                    "public_key": "0460fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"
                                  "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299",
                    "nonce": "deterministic", "verify_after_sign": True, "purpose": "any",
                    "signatures": 3, "allow": None}],
          "LIST_KEYS: %s" % keys)
    example = json.loads(Response(f["status-response"][4:]).body)
    c.send(f["status-request"])
    r = c.recv().ok(STATUS)
    check(r.id == 8, "STATUS id")
    st = r.json()
    # Both ways: every documented member is sent, and every member sent is documented.
    check(set(example) == set(st), "STATUS members: documented %s, sent %s" %
          (sorted(example), sorted(st)))
    for member, value in example.items():
        check(type(st[member]) is type(value), "STATUS member %s as documented: %s" % (member, st))
    check(st["signatures"] == 3 and st["errors"]["unknown-key"] == 1, "STATUS counters %s" % st)
    c.close()
    d.stop()
    print("ok")


main()
