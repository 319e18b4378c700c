#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""SIGN_TLS: the daemon builds what a TLS handshake signs. TLS 1.3 CertificateVerify (RFC 8446
section 4.4.3, server and client, transcript hashes of 32, 48 and 64 bytes) and TLS 1.2
ServerKeyExchange (RFC 8422 section 5.4) signatures verify with openssl over the content built
independently here; a tls-server key signs a server's handshake only, a tls-client key a
client's; every malformed input is bad-tls-content, a prime curve's point off its curve
bad-tls-point, and both leave the connection open."""
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

SIGN_TLS = 8
TLS13, TLS12 = 1, 2
SERVER, CLIENT = 0, 1


def tls13(id_, key, side, transcript, fmt=DER):
    return frame(SIGN_TLS, id_, key + bytes([fmt, TLS13, side, len(transcript)]) + transcript)


def tls12(id_, key, client_random, server_random, params, fmt=DER):
    return frame(SIGN_TLS, id_, key + bytes([fmt, TLS12]) + client_random + server_random +
                 bytes([len(params)]) + params)


def content13(side, transcript):
    ctx = b"TLS 1.3, %s CertificateVerify" % (b"server" if side == SERVER else b"client")
    return b"\x20" * 64 + ctx + b"\x00" + transcript


def verifies(tmp, pub, content, der):
    c, s = os.path.join(tmp, "content"), os.path.join(tmp, "sig")
    with open(c, "wb") as f:
        f.write(content)
    with open(s, "wb") as f:
        f.write(der)
    r = subprocess.run(["openssl", "dgst", "-sha256", "-verify", pub, "-signature", s, c],
                       capture_output=True, text=True)
    return r.returncode == 0 and "Verified OK" in r.stdout


def main():
    tmp = scratch_dir("p256signd-tls-")
    keys = {}
    for name in ("srv", "cli", "any"):
        keys[name] = os.path.join(tmp, name + ".pem")
        openssl_key(keys[name])
    pubs = {}
    for name, path in keys.items():
        pubs[name] = os.path.join(tmp, name + ".pub")
        subprocess.run(["openssl", "pkey", "-in", path, "-pubout", "-out", pubs[name]], check=True)
    d = Daemon(sys.argv[1], workers=2, keys=[
        {"name": "srv", "file": keys["srv"], "purpose": "tls-server"},
        {"name": "cli", "file": keys["cli"], "purpose": "tls-client"},
        {"name": "any", "file": keys["any"]}])
    c = d.client()
    n = 0
    for name, side in (("srv", SERVER), ("cli", CLIENT), ("any", SERVER), ("any", CLIENT)):
        for hlen in (32, 48, 64):
            n += 1
            transcript = bytes((n * 7 + i) & 0xff for i in range(hlen))
            der = c.call(tls13(n, key_name(name), side, transcript)).ok(SIGN_TLS).body[2:]
            check(verifies(tmp, pubs[name], content13(side, transcript), der),
                  "TLS 1.3 %s side, %d-byte hash, key %s: the signature verifies over the RFC "
                  "8446 content" % ("server" if side == SERVER else "client", hlen, name))
    # TLS 1.2 ServerKeyExchange, ECDHE on each curve with a defined point encoding.
    cr, sr = bytes(range(32)), bytes(range(100, 132))
    for curve, point in sorted(TLS_GENERATORS.items()) + [(29, bytes([9]) + bytes(31)),
                                                          (30, bytes([5]) + bytes(55))]:
        params = bytes([3]) + struct.pack(">H", curve) + bytes([len(point)]) + point
        n += 1
        der = c.call(tls12(n, key_name("srv"), cr, sr, params)).ok(SIGN_TLS).body[2:]
        check(verifies(tmp, pubs["srv"], cr + sr + params, der),
              "TLS 1.2 ServerKeyExchange, curve %d: verifies over client_random, "
              "server_random and the ServerECDHParams" % curve)
    raw = c.call(tls13(90, key_name("srv"), SERVER, bytes(32), fmt=RAW)).ok(SIGN_TLS)
    check(raw.body[0] == RAW and raw.body[1] == 64, "raw format")
    # Purposes: each handshake key signs its own side only.
    D, B = E["denied"], 19
    c.expect_error(tls13(91, key_name("srv"), CLIENT, bytes(32)), D)
    c.expect_error(tls13(92, key_name("cli"), SERVER, bytes(32)), D)
    p256 = bytes([3, 0, 23, 65]) + TLS_GENERATORS[23]
    c.expect_error(tls12(93, key_name("cli"), cr, sr, p256), D)
    c.expect_error(sign_req(94, key_name("srv"), RFC_DIGEST), D)
    # Not a handshake input: bad-tls-content, and the connection stays open.
    bad = [frame(SIGN_TLS, 95, key_name("srv") + bytes([DER, 3])),            # kind
           tls13(96, key_name("srv"), 2, bytes(32)),                          # side
           tls13(97, key_name("srv"), SERVER, bytes(20)),                     # hash length
           tls13(98, key_name("srv"), SERVER, bytes(65)),
           tls12(99, key_name("srv"), cr, sr, bytes([1, 0, 23, 65, 4]) + bytes(64)),  # type
           tls12(100, key_name("srv"), cr, sr, bytes([3, 0, 99, 65, 4]) + bytes(64)),  # curve
           tls12(101, key_name("srv"), cr, sr, bytes([3, 0, 23, 33, 2]) + bytes(32)),  # compressed
           tls12(102, key_name("srv"), cr, sr, bytes([3, 0, 23, 65, 4]) + bytes(63)),  # short
           tls12(103, key_name("srv"), cr, sr, p256 + b"\x00"),                        # trailing
           tls12(104, key_name("srv"), cr, sr, bytes(138))]                            # too long
    for req in bad:
        c.expect_error(req, B)
    # A prime curve's point off the curve: bad-tls-point (docs/protocol.md section 4.1).
    c.expect_error(tls12(107, key_name("srv"), cr, sr, bytes([3, 0, 23, 65, 4]) + bytes(64)),
                   E["bad_tls_point"])
    check(c.call(frame(PING, 105)).ok(PING).id == 105, "the connection stays open")
    # Truncated: bad-frame, which closes.
    c.expect_error(frame(SIGN_TLS, 106, key_name("srv") + bytes([DER, TLS13, SERVER, 32]) +
                         bytes(10)), E["bad_frame"], closes=True)
    # p256signctl sign-tls13, the operators' tool, through libp256sign's p256sign_sign_tls.
    ctl = os.path.join(os.path.dirname(os.path.abspath(sys.argv[1])), "..", "client", "ctl",
                       "p256signctl")
    transcript = bytes(range(48))
    out = os.path.join(tmp, "ctl.sig")
    r = subprocess.run([ctl, "--socket", d.socket, "sign-tls13", "cli", "--client",
                        "--transcript-hash", transcript.hex(), "--out", out],
                       capture_output=True, text=True)
    with open(out, "rb") as f:
        check(r.returncode == 0 and verifies(tmp, pubs["cli"], content13(CLIENT, transcript),
                                              f.read()), "p256signctl sign-tls13: %s" % r.stderr)
    r = subprocess.run([ctl, "--socket", d.socket, "sign-tls13", "cli", "--transcript-hash",
                        transcript.hex()], capture_output=True, text=True)
    check(r.returncode != 0 and "not allowed" in r.stderr, "the server side refused: %s" %
          r.stderr)
    r = subprocess.run([ctl, "--socket", d.socket, "sign-tls13", "cli", "--transcript-hash",
                        "00" * 20], capture_output=True, text=True)
    check(r.returncode != 0 and "32, 48 or 64" in r.stderr, "a 20-byte hash: %s" % r.stderr)
    st = d.client().call(frame(STATUS, 1)).ok(STATUS).json()
    check(st["errors"]["bad-tls-content"] == len(bad), "counted: %s" % st["errors"])
    d.stop()
    subprocess.run(["rm", "-rf", tmp], check=True)
    print("ok: %d handshake signatures verified, %d refusals" % (n, len(bad) + 5))


main()
