#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""SIGN, SIGN_MESSAGE, PUBKEY, VERIFY, LIST_KEYS, STATUS and PING through the socket: both output
formats, the nonce modes (deterministic = RFC 6979 A.2.5, hedged, precomputed), verify_after_sign on and off, keys by
name and by id; signatures checked by the daemon's VERIFY and by openssl. The precomputed key's
signatures made with a nonce from its pool are counted (LIST_KEYS and STATUS
precomputed_signatures), the other keys' never."""
import hashlib
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403


def openssl_verify(d, spki, digest, raw):
    spki_path = os.path.join(d.dir, "pub.der")
    dig_path = os.path.join(d.dir, "digest.bin")
    sig_path = os.path.join(d.dir, "sig.der")
    for path, data in ((spki_path, spki), (dig_path, digest), (sig_path, raw_to_der(raw))):
        with open(path, "wb") as f:
            f.write(data)
    r = subprocess.run(["openssl", "pkeyutl", "-verify", "-pubin", "-keyform", "DER", "-inkey",
                        spki_path, "-in", dig_path, "-sigfile", sig_path],
                       capture_output=True, text=True)
    return r.returncode == 0 and "Success" in r.stdout


def main():
    binary = sys.argv[1]
    tmp = scratch_dir("p256signd-keys-")
    hedged = os.path.join(tmp, "hedged.pem")
    fast = os.path.join(tmp, "fast.pem")
    pool = os.path.join(tmp, "pool.pem")
    openssl_key(hedged)
    openssl_key(fast)
    openssl_key(pool)
    d = Daemon(binary, keys=[
        {"name": "rfc", "file": RFC_KEY, "nonce": "deterministic"},
        {"name": "hedged", "file": hedged},
        {"name": "fast", "file": fast, "nonce": "hedged", "verify_after_sign": False},
        {"name": "pool", "file": pool, "nonce": "precomputed"},
    ])
    c = d.client()

    r = c.call(frame(PING, 0xfffffffe)).ok(PING)
    check(r.id == 0xfffffffe and r.body == b"", "PING echoes the id with an empty body")

    # Deterministic: the RFC 6979 vector in both formats, by name and by id, and by SIGN_MESSAGE.
    kid, point, spki = c.pubkey("rfc")
    check(hashlib.sha256(spki).digest() == kid, "key id is SHA-256 of the SPKI")
    check(point[0] == 4 and spki.endswith(point[1:]) or spki.endswith(point), "SPKI holds the point")
    check(c.call(frame(PUBKEY, 2, key_id(kid))).ok(PUBKEY).body[:32] == kid, "PUBKEY by id")
    for i, (key, fmt) in enumerate([(key_name("rfc"), RAW), (key_name("rfc"), DER),
                                    (key_id(kid), RAW), (key_id(kid), DER)]):
        r = c.call(sign_req(10 + i, key, RFC_DIGEST, fmt)).ok(SIGN)
        check(r.id == 10 + i, "id echoed")
        check(r.body[0] == fmt, "format echoed")
        if fmt == DER:
            check(r.body[2:] == raw_to_der(RFC_R + RFC_S), "DER is the minimal encoding")
        check(r.signature() == RFC_R + RFC_S, "deterministic SIGN equals RFC 6979 A.2.5")
    r = c.call(sign_message_req(20, key_name("rfc"), b"sample")).ok(SIGN_MESSAGE)
    check(r.signature() == RFC_R + RFC_S, "SIGN_MESSAGE hashes with SHA-256 in the daemon")
    r = c.call(sign_message_req(21, key_name("rfc"), b"", DER)).ok(SIGN_MESSAGE)
    check(openssl_verify(d, spki, hashlib.sha256(b"").digest(), r.signature()),
          "SIGN_MESSAGE of an empty message verifies")
    big = bytes(range(256)) * 64
    r = c.call(sign_message_req(22, key_name("rfc"), big)).ok(SIGN_MESSAGE)
    check(openssl_verify(d, spki, hashlib.sha256(big).digest(), r.signature()),
          "SIGN_MESSAGE of 16 KiB verifies")

    # Hedged keys, with and without verify_after_sign, and a key with precomputed nonces: fresh
    # signatures that verify.
    for name in ("hedged", "fast", "pool"):
        kid, point, spki = c.pubkey(name)
        digest = hashlib.sha256(name.encode()).digest()
        sigs = set()
        for i in range(4):
            fmt = (RAW, DER)[i % 2]
            sig = c.call(sign_req(30 + i, key_name(name), digest, fmt)).ok(SIGN).signature()
            sigs.add(sig)
            v = c.call(verify_req(40 + i, key_name(name), digest, sig)).ok(VERIFY)
            check(v.body == b"\x01", "VERIFY by name accepts the daemon's signature")
            v = c.call(verify_req(50 + i, key_point(point), digest, raw_to_der(sig), DER))
            check(v.ok(VERIFY).body == b"\x01", "VERIFY by explicit point, DER")
            check(openssl_verify(d, spki, digest, sig), "openssl verifies a %s signature" % name)
        check(len(sigs) == 4, "hedged signatures of one digest differ")
        bad = bytearray(sig)
        bad[63] ^= 1
        v = c.call(verify_req(60, key_id(kid), digest, bytes(bad))).ok(VERIFY)
        check(v.body == b"\x00", "VERIFY rejects a changed signature")
        v = c.call(verify_req(61, key_name(name), bytes(32), sig)).ok(VERIFY)
        check(v.body == b"\x00", "VERIFY rejects another digest")
        v = c.call(verify_req(62, key_name(name), digest, bytes(64))).ok(VERIFY)
        check(v.body == b"\x00", "VERIFY: r = s = 0 is invalid, not an error")

    keys = c.call(frame(LIST_KEYS, 70)).ok(LIST_KEYS).json()["keys"]
    check([k["name"] for k in keys] == ["rfc", "hedged", "fast", "pool"],
          "LIST_KEYS in config order")
    check([k["nonce"] for k in keys] == ["deterministic", "hedged", "hedged", "precomputed"],
          "nonce modes")
    check(keys[2]["verify_after_sign"] is False and keys[0]["verify_after_sign"] is True,
          "verify_after_sign listed")
    check(keys[0]["signatures"] == 7 and keys[1]["signatures"] == 4, "signature counters")
    kid, point, _ = c.pubkey("hedged")
    check(keys[1]["key_id"] == kid.hex() and keys[1]["public_key"] == point.hex(),
          "LIST_KEYS key_id and public_key are PUBKEY's")
    st = c.call(frame(STATUS, 71)).ok(STATUS).json()
    check(st["workers"] == 2 and st["workers_alive"] == 2, "STATUS workers")
    check(st["requests"] >= 40 and st["inflight"] == 0 and st["connections"] == 1 and
          st["signatures"] == 19,
          "STATUS counters: %s" % st)
    check(all(v == 0 for v in st["errors"].values()) and "unknown-key" in st["errors"],
          "STATUS errors by kind")

    # Requests a few ms apart on the precomputed key: the signers refill its pool in between, so
    # signatures come from it (one is enough; at most 10 s of them). No other key's ever does.
    _, _, spki = c.pubkey("pool")
    digest = hashlib.sha256(b"pool").digest()
    deadline = time.monotonic() + 10
    pooled = sent = 0
    while pooled == 0 and time.monotonic() < deadline:
        sig = c.call(sign_req(100 + sent, key_name("pool"), digest)).ok(SIGN).signature()
        check(openssl_verify(d, spki, digest, sig), "a precomputed key's signature verifies")
        sent += 1
        time.sleep(0.005)
        keys = c.call(frame(LIST_KEYS, 72)).ok(LIST_KEYS).json()["keys"]
        pooled = keys[3]["precomputed_signatures"]
    check(0 < pooled <= keys[3]["signatures"] == 4 + sent,
          "the precomputed key's signatures from its pool are counted: %s" % keys[3])
    check([k["precomputed_signatures"] for k in keys[:3]] == [0, 0, 0],
          "no deterministic or hedged signature is counted as precomputed: %s" % keys)
    st = c.call(frame(STATUS, 73)).ok(STATUS).json()
    check(st["precomputed_signatures"] == sum(k["precomputed_signatures"] for k in keys) and
          st["signatures"] == sum(k["signatures"] for k in keys),
          "STATUS precomputed_signatures is the keys' sum: %s" % st)
    c.close()
    log = d.stop()
    # Without an "audit" section the records go to the journal, or to stderr without one.
    check("audit: not configured" in log, "the missing audit section is said at start-up")
    if "request records go to stderr" in log:
        lines = [json.loads(l) for l in log.splitlines() if l.startswith('{"v":1,"type":"request"')]
        check(len(lines) == st["requests"] + 1, "one record per request")
        # SO_PEERCRED, and the process name read at accept (its unit, if any, is not checked).
        me = {"pid": os.getpid(), "uid": os.getuid(), "gid": os.getgid(),
              "comm": open("/proc/self/comm").read().strip()}
        check(all({k: l["peer"].get(k) for k in me} == me for l in lines),
              "records carry the peer's credentials")
        check(any(l["id"] == 20 and l["op"] == "sign-message" and l["key"] == "rfc" and
                  l["result"] == "ok" for l in lines),
              "a record names request id, type, key and result: %s" % lines[:3])
    subprocess.run(["rm", "-rf", tmp], check=True)
    print("ok")


main()
