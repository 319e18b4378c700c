#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""docs/protocol.md against the real daemon. The frame examples of section 10: each request frame
is sent as written and the daemon's answer must be the documented response frame byte for byte
(STATUS and LIST_KEYS, whose JSON changes at run time, are checked member by member, and the
STATUS members of section 6's table, of the example and of the daemon are the same set, and
STATUS latency counts the examples' answers by op); the
SIGN_TLS examples' signatures verify over the content the document says is signed. Then the
edges of the error model as the document states them: which fault decides a frame with several
(section 7, a byte too many included), name lengths, compressed points, out-of-range and short
DER signatures, high s, ServerKeyExchange points (length, on the curve), purposes and VERIFY,
`allow` to root only, STATUS not counting itself, the unrequested too-many-connections frame,
max_frame_bytes in STATUS, what counts in flight, the idle timeout with a request in flight,
STATUS and refused connections while stopping, and a timeout that never fires before its
limit."""
import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

SIGN_TLS = 8
KEY_POINT_COMPRESSED = 4
PAIRS = [("ping-request", "ping-response"),
         ("sign-request-name-der", "sign-response-der"),
         ("sign-request-keyid-raw", "sign-response-raw"),
         ("sign-message-request", "sign-message-response"),
         ("pubkey-request", "pubkey-response"),
         ("verify-request-point", "verify-response"),
         ("certificate-request", "error-no-certificate")]
RELEASE = key_name("release")
POINT = bytes.fromhex("0460fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"
                      "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299")
X = POINT[1:33]
P = bytes.fromhex("ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")
N = bytes.fromhex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")


def frames(text):
    """{name: bytes} of every <!-- frame: NAME --> hex block."""
    found = re.findall(r"<!-- frame: ([a-z0-9-]+) -->\s*```hex\n(.*?)```", text, re.S)
    check(found, "no frame examples in docs/protocol.md")
    return {name: bytes.fromhex(" ".join(hexes.split())) for name, hexes in found}


def status_table(text):
    """The member names of section 6's STATUS table."""
    m = re.search(r"\*\*STATUS\*\* returns one object:\n\n(.*?)\n\n", text, re.S)
    check(m, "no STATUS table in section 6")
    return [row.split("|")[1].strip() for row in m.group(1).split("\n")[2:]]


def wire(r):
    """A decoded response back as the bytes of its frame."""
    return struct.pack(">I", len(r.body) + 8) + struct.pack(
        ">BBHI", r.version, r.type, r.flags, r.id) + r.body


def compressed(prefix, x):
    return bytes([KEY_POINT_COMPRESSED, prefix]) + x


def der_int(v):
    """A minimal non-negative DER INTEGER of v."""
    b = v.to_bytes(max(1, (v.bit_length() + 8) // 8), "big")
    while len(b) > 1 and b[0] == 0 and b[1] < 0x80:
        b = b[1:]
    return bytes([2, len(b)]) + b


def der_sig(r, s, extra=b""):
    body = der_int(r) + der_int(s) + extra
    return bytes([0x30, len(body)]) + body


def ping_works(c, id_):
    check(c.call(frame(PING, id_)).ok(PING).id == id_, "the connection stays open")


def latency(lat, example):
    """STATUS latency as section 6 says: the example's ops and members, ascending bounds, one
    bucket more than bounds, and the answers of the examples counted by op, errors apart."""
    bounds = lat["bounds_us"]
    check(bounds == example["bounds_us"] and bounds == sorted(set(bounds)),
          "latency bounds: %s" % bounds)
    check(list(lat["ops"]) == list(example["ops"]), "latency ops: %s" % list(lat["ops"]))
    counts = {op: (sum(o["buckets"]), o["errors"]) for op, o in lat["ops"].items()}
    for op, o in lat["ops"].items():
        check(set(o) == {"buckets", "sum_us", "errors"} and len(o["buckets"]) == len(bounds) + 1,
              "latency of %s: %s" % (op, o))
        check(o["sum_us"] >= 0 and (counts[op][0] > 0 or o["sum_us"] == 0),
              "latency sum of %s: %s" % (op, o))
    # ping, sign x2, sign-message, pubkey, verify, certificate (no-certificate: the example key
    # has none); then a SIGN answered unknown-key, LIST_KEYS.
    check(counts == {"frame": (0, 0), "ping": (1, 0), "sign": (3, 1), "sign-message": (1, 0),
                     "pubkey": (1, 0), "verify": (1, 0), "list-keys": (1, 0), "status": (0, 0),
                     "sign-tls": (0, 0), "certificate": (1, 1)},
          "latency counts by op: %s" % counts)


def examples(d, text, f):
    c = d.client()
    for req, resp in PAIRS:
        c.send(f[req])
        raw = wire(c.recv())
        check(raw == f[resp], "%s: expected %s\n%s\ngot\n%s" % (req, resp, f[resp].hex(), raw.hex()))
    # The error example: a SIGN, request id 9, naming a key the daemon does not hold.
    raw = wire(c.call(sign_req(9, key_name("nope"), RFC_DIGEST, DER)))
    check(raw == f["error-unknown-key"], "error-unknown-key: got %s" % raw.hex())
    # JSON bodies: the documented members.
    c.send(f["list-keys-request"])
    keys = c.recv().ok(LIST_KEYS).json()["keys"]
    check(keys == [{"name": "release",
                    "key_id": "5a7a78cca4a0f420d9bc62bb669c3c2759e39f723d3ae10dcbe0f0815a07ecd4",
                    "public_key": POINT.hex(),
                    "nonce": "deterministic", "verify_after_sign": True, "purpose": "any",
                    "signatures": 3, "precomputed_signatures": 0, "allow": None}],
          "LIST_KEYS: %s" % keys)
    example = json.loads(Response(f["status-response"][4:]).body)
    c.send(f["status-request"])
    r = c.recv().ok(STATUS)
    check(r.id == 8, "STATUS id")
    st = r.json()
    # Both ways: every documented member is sent, and every member sent is documented, in the
    # table of section 6 and in the example of section 10.
    check(set(example) == set(st), "STATUS members: example %s, sent %s" %
          (sorted(example), sorted(st)))
    table = status_table(text)
    check(len(table) == len(set(table)) and set(table) == set(st),
          "STATUS members: table %s, sent %s" % (sorted(table), sorted(st)))
    for member, value in example.items():
        check(type(st[member]) is type(value), "STATUS member %s as documented: %s" % (member, st))
    check(st["signatures"] == 3 and st["errors"]["unknown-key"] == 1, "STATUS counters %s" % st)
    check(st["max_frame_bytes"] == 65536 and st["stopping"] is False, "STATUS limits %s" % st)
    latency(st["latency"], example["latency"])
    # The compressed VERIFY example is valid; the SIGN_TLS examples sign what section 4.1 says.
    c.send(f["verify-request-compressed"])
    r = c.recv().ok(VERIFY)
    check(r.id == 15 and r.body == b"\x01", "verify-request-compressed: valid")
    cv = b"\x20" * 64 + b"TLS 1.3, server CertificateVerify\x00" + RFC_DIGEST
    ske = bytes(range(64)) + bytes([3, 0, 29, 32, 9]) + bytes(31)
    for name, id_, fmt, content in (("sign-tls13-request", 16, DER, cv),
                                     ("sign-tls12-request", 17, RAW, ske)):
        c.send(f[name])
        r = c.recv().ok(SIGN_TLS)
        check(r.id == id_ and r.body[0] == fmt, "%s: id and format" % name)
        sig = r.body[2:]
        v = c.call(verify_req(id_, key_point(POINT), hashlib.sha256(content).digest(), sig, fmt))
        check(v.ok(VERIFY).body == b"\x01", "%s: signs the documented content" % name)
    c.close()


def reading_order(d):
    """Section 7: several faults in one frame; syntax first in reading order, then meaning."""
    c = d.client()
    bad_point = b"\x04" + X + bytes(32)         # x of the key, y = 0: not on the curve
    not_strict = b"\x30\x06\x02\x01\x01\x02\x81\x01"   # an INTEGER length in long form
    # A name length of 65 with 3 bytes after it: the length is judged first.
    c.expect_error(frame(SIGN, 1, bytes([1, 65]) + b"abc"), E["bad_key_selector"])
    c.expect_error(frame(SIGN, 2, bytes([1, 0])), E["bad_key_selector"])
    # An invalid name before format 7.
    c.expect_error(frame(SIGN, 3, key_name("a b") + bytes([7, 32]) + RFC_DIGEST),
                   E["bad_key_selector"])
    # A digest length of 33, however many bytes follow.
    c.expect_error(frame(SIGN, 4, RELEASE + bytes([DER, 33]) + b"\0"), E["bad_digest_length"])
    # Phase 2 after all of phase 1: a 63-byte raw signature outranks an unknown key.
    c.expect_error(verify_req(5, key_name("nope"), RFC_DIGEST, bytes(63), RAW), E["bad_signature"])
    # Within phase 2: the key before the DER strictness, the point before it too.
    c.expect_error(verify_req(6, key_name("nope"), RFC_DIGEST, not_strict, DER), E["unknown_key"])
    c.expect_error(verify_req(7, key_point(bad_point), RFC_DIGEST, not_strict, DER), E["bad_point"])
    c.expect_error(verify_req(8, compressed(5, X), RFC_DIGEST, not_strict, DER), E["bad_point"])
    # SIGN_TLS: a side 2 with nothing after it; a hash length 20 with no hash.
    c.expect_error(frame(SIGN_TLS, 9, RELEASE + bytes([DER, 1, 2])), E["bad_tls_content"])
    c.expect_error(frame(SIGN_TLS, 10, RELEASE + bytes([DER, 1, 0, 20])), E["bad_tls_content"])
    # A message length of 20000 with all its bytes.
    c.expect_error(frame(SIGN_MESSAGE, 11, RELEASE + bytes([DER]) + struct.pack(">H", 20000) +
                         bytes(20000)), E["message_too_large"])
    ping_works(c, 12)
    c.close()
    # Phase 1 ends with the trailing bytes: a bad point and one byte too many is bad-frame, and
    # closes; so is an unknown key with a trailing byte, and a message cut short.
    closing = [
        frame(VERIFY, 20, key_point(bad_point) + bytes([DER, 32]) + RFC_DIGEST +
              struct.pack(">H", 8) + not_strict + b"\0"),
        frame(VERIFY, 21, compressed(5, X) + bytes([RAW, 32]) + RFC_DIGEST +
              struct.pack(">H", 64) + RFC_R + RFC_S + b"\0"),
        frame(SIGN, 22, key_name("nope") + bytes([DER, 32]) + RFC_DIGEST + b"\0"),
        frame(SIGN_MESSAGE, 23, RELEASE + bytes([DER]) + struct.pack(">H", 20000) + bytes(100)),
    ]
    for data in closing:
        c = d.client()
        r = c.expect_error(data, E["bad_frame"], closes=True)
        check(r.id == struct.unpack(">I", data[8:12])[0], "bad-frame carries the request id")
        c.close()


def points_and_signatures(d):
    """Section 5.1 compressed points and section 4.2 out-of-range DER integers."""
    c = d.client()
    y_odd = POINT[64] & 1
    check(y_odd == 1, "the example's y is odd")
    # The right prefix verifies, the other parity is another point: valid 0.
    for prefix, valid in ((3, 1), (2, 0)):
        r = c.call(verify_req(1, compressed(prefix, X), RFC_DIGEST, RFC_R + RFC_S)).ok(VERIFY)
        check(r.body == bytes([valid]), "compressed prefix %d: valid %d" % (prefix, valid))
    # x = 0 is on the curve (a valid point, not this key); x = 1 and x = p - 1 have no point;
    # x >= p; prefixes 0x04 and 0x05 on 33 bytes.
    zero, one = bytes(32), bytes(31) + b"\1"
    p_minus_1 = P[:31] + bytes([P[31] - 1])
    r = c.call(verify_req(2, compressed(2, zero), RFC_DIGEST, RFC_R + RFC_S)).ok(VERIFY)
    check(r.body == b"\0", "x = 0: a point, and the signature is not its")
    for i, sel in enumerate([compressed(2, one), compressed(3, p_minus_1), compressed(2, P),
                             compressed(3, b"\xff" * 32), compressed(4, X), compressed(5, X),
                             compressed(0, X)]):
        c.expect_error(verify_req(10 + i, sel, RFC_DIGEST, RFC_R + RFC_S), E["bad_point"])
    # A compressed point outside VERIFY.
    c.expect_error(frame(SIGN, 20, compressed(3, X) + bytes([DER, 32]) + RFC_DIGEST),
                   E["bad_key_selector"])
    # Strict DER of r = 2^256, of s = 2^256 + 1, of r = n: decoded, not valid.
    r_int, s_int = int.from_bytes(RFC_R, "big"), int.from_bytes(RFC_S, "big")
    for i, sig in enumerate([der_sig(1 << 256, s_int), der_sig(r_int, (1 << 256) + 1),
                             der_sig(int.from_bytes(N, "big"), s_int),
                             der_sig((1 << 400) - 1, 1)]):
        check(len(sig) <= 72, "fits the signature field")
        r = c.call(verify_req(30 + i, RELEASE, RFC_DIGEST, sig, DER)).ok(VERIFY)
        check(r.body == b"\0", "out-of-range DER integer %d: valid 0" % i)
    # The same large INTEGER with a byte left in the SEQUENCE: not strict DER.
    c.expect_error(verify_req(40, RELEASE, RFC_DIGEST, der_sig(1 << 256, s_int, b"\0"), DER),
                   E["bad_signature"])
    check(c.call(verify_req(41, RELEASE, RFC_DIGEST, raw_to_der(RFC_R + RFC_S), DER))
          .ok(VERIFY).body == b"\1", "and the real signature is valid")
    c.close()


def limits(binary):
    """too-many-connections (section 1, 7) and a configured max_frame_bytes (section 2)."""
    d = Daemon(binary, keys=[{"name": "release", "file": RFC_KEY, "nonce": "deterministic"}],
               limits={"max_connections": 1, "max_frame_bytes": 1024})
    held = d.client()
    ping_works(held, 1)
    extra = d.client()
    r = extra.recv()
    check(r is not None and r.type == ERROR and r.error == E["too_many_connections"] and
          r.id == 0 and r.text == "too many connections",
          "over max_connections: too-many-connections, id 0: %r" % ((r.error, r.text, r.id),))
    check(extra.recv() is None, "and the connection is closed")
    extra.close()
    st = held.call(frame(STATUS, 2)).ok(STATUS).json()
    check(st["max_frame_bytes"] == 1024, "STATUS max_frame_bytes: %s" % st)
    check(st["errors"]["too-many-connections"] == 1 and st["errors"]["overloaded"] == 0,
          "STATUS counts the refusal as too-many-connections: %s" % st)
    # 11 + 9 + n = 1024 is the longest SIGN_MESSAGE this daemon takes by this name.
    n = st["max_frame_bytes"] - 11 - len(RELEASE)
    r = held.call(sign_message_req(3, RELEASE, bytes(n))).ok(SIGN_MESSAGE)
    check(r.id == 3, "a SIGN_MESSAGE of max_frame_bytes is signed")
    r = held.call(sign_message_req(4, RELEASE, bytes(n + 1)))
    check(r.type == ERROR and r.error == E["frame_too_large"] and r.id == 0,
          "one byte more: frame-too-large, id 0")
    try:
        check(held.recv() is None, "and the connection is closed")
    except ConnectionResetError:
        pass        # closed with the unread body still in the daemon's socket buffer
    held.close()
    d.stop()


def wait_status(c, member, value):
    end = time.monotonic() + TIMEOUT
    while c.call(frame(STATUS, 0)).ok(STATUS).json()[member] != value:
        check(time.monotonic() < end, "STATUS %s reaches %s" % (member, value))
        time.sleep(0.02)


def one_stopped_signer(binary, **limits):
    """A daemon with one signer, stopped (SIGSTOP), whose requests time out after a minute unless
    limits say otherwise, and a client: (daemon, signer pid, client). The caller sends SIGCONT."""
    d = Daemon(binary, workers=1, keys=[{"name": "release", "file": RFC_KEY,
                                         "nonce": "deterministic"}],
               limits=dict({"request_timeout_ms": 60000, "worker_timeout_ms": 60000}, **limits))
    (worker,) = d.workers()
    c = d.client()
    os.kill(worker, signal.SIGSTOP)
    return d, worker, c


def inflight_and_stop(binary):
    """Section 9: only signing requests count in flight; section 1: PING and STATUS while
    stopping, STATUS stopping true."""
    d, worker, c = one_stopped_signer(binary, max_inflight_per_connection=1, max_inflight=1)
    try:
        c.send(sign_req(1, RELEASE, RFC_DIGEST))
        wait_status(c, "inflight", 1)
        # The one signing request fills both limits; every other request is still answered.
        c.expect_error(sign_req(2, RELEASE, RFC_DIGEST), E["overloaded"])
        c.expect_error(frame(SIGN_TLS, 3, RELEASE + bytes([DER, 1, 0, 32]) + RFC_DIGEST),
                       E["overloaded"])
        check(c.call(verify_req(4, RELEASE, RFC_DIGEST, RFC_R + RFC_S)).ok(VERIFY).body == b"\1",
              "VERIFY is not held")
        c.call(frame(PUBKEY, 5, RELEASE)).ok(PUBKEY)
        c.call(frame(LIST_KEYS, 6)).ok(LIST_KEYS)
        ping_works(c, 7)
        st = c.call(frame(STATUS, 8)).ok(STATUS).json()
        check(st["inflight"] == 1 and st["at_workers"] == 1 and st["stopping"] is False,
              "STATUS inflight counts the signing request only: %s" % st)
        d.proc.send_signal(signal.SIGTERM)
        d.wait_for("STOPPING=1")
        # The listening socket is closed: a new connection is refused.
        probe = socket.socket(socket.AF_UNIX)
        try:
            probe.connect(d.socket)
            fail("a connection accepted after SIGTERM")
        except ConnectionRefusedError:
            pass
        finally:
            probe.close()
        st = c.call(frame(STATUS, 9)).ok(STATUS).json()
        check(st["stopping"] is True and st["inflight"] == 1, "STATUS while stopping: %s" % st)
        ping_works(c, 10)
        c.expect_error(sign_req(11, RELEASE, RFC_DIGEST), E["shutting_down"])
        c.expect_error(verify_req(12, RELEASE, RFC_DIGEST, RFC_R + RFC_S), E["shutting_down"])
        # Section 7, phase 2: shutting-down before the key is looked up.
        c.expect_error(sign_req(13, key_name("nope"), RFC_DIGEST), E["shutting_down"])
    finally:
        os.kill(worker, signal.SIGCONT)
    r = c.recv().ok(SIGN)
    check(r.id == 1 and r.signature() == RFC_R + RFC_S, "the request in flight is answered")
    check(c.recv() is None, "then the connection closes")
    c.close()
    # It is stopping on the SIGTERM above: wait for its exit rather than send a second one,
    # which could arrive after its handlers are gone and end it by the signal.
    d.proc.wait(TIMEOUT)
    d.stop()


def timeout_never_early(binary):
    """Section 9: with request_timeout_ms 3, every timeout is logged 3000 us or more after its
    frame was taken (whole milliseconds would let one fire up to 1 ms early)."""
    limit_ms = 3
    d, worker, c = one_stopped_signer(binary, request_timeout_ms=limit_ms)
    try:
        for i in range(1, 41):
            start = time.monotonic()
            c.expect_error(sign_req(i, RELEASE, RFC_DIGEST), E["timeout"])
            check(time.monotonic() - start >= limit_ms / 1000, "timeout %d after its limit" % i)
            time.sleep((i % 7) / 3000)     # spread the requests over the checking period
    finally:
        os.kill(worker, signal.SIGCONT)
    c.close()
    log = d.stop()
    records = [json.loads(l) for l in log.splitlines() if l.startswith("{")]
    ages = [r["us"] for r in records if r.get("op") == "sign" and r.get("result") == "timeout"]
    check(len(ages) == 40, "every timeout is logged: %d" % len(ages))
    check(min(ages) >= limit_ms * 1000, "no timeout before %d ms: the shortest %d us" %
          (limit_ms, min(ages)))


G256, G521 = TLS_GENERATORS[23], TLS_GENERATORS[25]
RANDOMS = bytes(range(64))
NOBODY = 65534
LIST_AS_NOBODY = """
import json, socket, struct, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(struct.pack(">IBBHI", 8, 1, 6, 0, 1))
head = s.recv(4, socket.MSG_WAITALL)
body = s.recv(struct.unpack(">I", head)[0], socket.MSG_WAITALL)
print(body[8:].decode())
"""


def ske_params(curve, point):
    return bytes([3]) + struct.pack(">H", curve) + bytes([len(point)]) + point


def ske_req(id_, key, params, extra=b""):
    return frame(SIGN_TLS, id_, key + bytes([RAW, 2]) + RANDOMS + bytes([len(params)]) + params +
                 extra)


def signs_content(c, id_, key, params, point):
    """A ServerKeyExchange is signed, over the randoms and the params."""
    r = c.call(ske_req(id_, key, params)).ok(SIGN_TLS)
    digest = hashlib.sha256(RANDOMS + params).digest()
    v = c.call(verify_req(id_ + 1, key_point(point), digest, r.body[2:], RAW)).ok(VERIFY)
    check(v.body == b"\x01", "ServerKeyExchange %s: signed over the documented content" %
          params[:4].hex())


def server_key_exchange_points(c):
    """Section 4.1: a secp521r1 point is 0x04 and 132 bytes; a prime-curve point must be on its
    curve (bad-tls-point, phase 1 after the structure, the connection open); X25519's is not
    checked."""
    signs_content(c, 1, RELEASE, ske_params(23, G256), POINT)
    signs_content(c, 3, RELEASE, ske_params(25, G521), POINT)
    signs_content(c, 5, RELEASE, ske_params(29, bytes(32)), POINT)
    c.expect_error(ske_req(7, RELEASE, ske_params(25, G521[:131])), E["bad_tls_content"])
    for i, point in enumerate([b"\x04" + bytes(64), G256[:64] + bytes([G256[64] ^ 1]),
                               b"\x04" + P + G256[33:]]):
        c.expect_error(ske_req(10 + i, RELEASE, ske_params(23, point)), E["bad_tls_point"])
    c.expect_error(ske_req(20, RELEASE, ske_params(24, b"\x04" + bytes(96))), E["bad_tls_point"])
    c.expect_error(ske_req(21, RELEASE, ske_params(25, b"\x04" + bytes(132))),
                   E["bad_tls_point"])
    # In reading order: the point before the trailing bytes; the structure before the point.
    c.expect_error(ske_req(22, RELEASE, ske_params(23, b"\x04" + bytes(64)), b"\0"),
                   E["bad_tls_point"])
    c.expect_error(ske_req(23, RELEASE, ske_params(23, b"\x04" + bytes(64)) + b"\0"),
                   E["bad_tls_content"])
    ping_works(c, 24)


def spec_edges(binary):
    """What section 7 says of a byte too many, section 5.2 of short DER, section 4.2 of high s
    and of purposes and VERIFY, section 6 of `allow`, `purpose` and STATUS `requests`."""
    tmp = scratch_dir("p256signd-spec-")
    web_key = os.path.join(tmp, "web.pem")
    openssl_key(web_key)
    os.chmod(tmp, 0o755)
    d = Daemon(binary, workers=1, keys=[
        {"name": "release", "file": RFC_KEY, "nonce": "deterministic",
         "allow": {"users": [NOBODY], "groups": []}},
        {"name": "web", "file": web_key, "purpose": "tls-server"}],
        extra={"socket_mode": "0666"})
    c = d.client()
    # STATUS does not count itself; the next one does.
    first = c.call(frame(STATUS, 1)).ok(STATUS).json()["requests"]
    check(first == 0, "the first STATUS counts no request: %d" % first)
    check(c.call(frame(STATUS, 2)).ok(STATUS).json()["requests"] == 1,
          "the second counts the first")
    # A byte too many loses to an earlier syntax fault, and the connection stays open.
    c.expect_error(frame(SIGN, 3, RELEASE + bytes([7, 32]) + RFC_DIGEST + b"\0"), E["bad_format"])
    c.expect_error(frame(SIGN, 4, RELEASE + bytes([DER, 33]) + RFC_DIGEST + b"\0"),
                   E["bad_digest_length"])
    ping_works(c, 5)
    # DER under 8 bytes: not strict DER, after the key (phase 2); over 72: before it (phase 1).
    for n in (0, 6, 7):
        c.expect_error(verify_req(10 + n, key_name("nope"), RFC_DIGEST, bytes(n), DER),
                       E["unknown_key"])
        c.expect_error(verify_req(20 + n, RELEASE, RFC_DIGEST, bytes(n), DER), E["bad_signature"])
    c.expect_error(verify_req(30, key_name("nope"), RFC_DIGEST, bytes(73), DER), E["bad_signature"])
    # High s and low s both verify.
    n = int.from_bytes(N, "big")
    twin = (n - int.from_bytes(RFC_S, "big")).to_bytes(32, "big")
    for i, s in enumerate((RFC_S, twin)):
        check(c.call(verify_req(31 + i, RELEASE, RFC_DIGEST, RFC_R + s)).ok(VERIFY).body ==
              b"\x01", "s and n - s are both valid")
    # A key's purpose does not restrict VERIFY: a tls-server key verifies its own signature.
    cv = frame(SIGN_TLS, 33, key_name("web") + bytes([RAW, 1, 0, 32]) + RFC_DIGEST)
    sig = c.call(cv).ok(SIGN_TLS).body[2:]
    content = b"\x20" * 64 + b"TLS 1.3, server CertificateVerify\x00" + RFC_DIGEST
    check(c.call(verify_req(34, key_name("web"), hashlib.sha256(content).digest(), sig))
          .ok(VERIFY).body == b"\x01", "VERIFY by a tls-server key's name")
    server_key_exchange_points(c)
    # LIST_KEYS: purposes from the documented set; "allow" to root, absent for another peer.
    keys = c.call(frame(LIST_KEYS, 40)).ok(LIST_KEYS).json()["keys"]
    check([(k["name"], k["purpose"]) for k in keys] == [("release", "any"), ("web", "tls-server")],
          "LIST_KEYS purposes: %s" % keys)
    check(keys[0]["allow"] == {"users": [NOBODY], "groups": []} and keys[1]["allow"] is None,
          "root sees allow: %s" % keys)
    r = subprocess.run(["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
                        "--clear-groups", sys.executable, "-c", LIST_AS_NOBODY, d.socket],
                       capture_output=True, text=True, timeout=TIMEOUT)
    check(r.returncode == 0, "LIST_KEYS as uid %d: %s" % (NOBODY, r.stderr))
    other = json.loads(r.stdout)["keys"]
    check([k["name"] for k in other] == ["release"] and "allow" not in other[0],
          "another peer sees its key without allow: %s" % other)
    c.close()
    d.stop()
    subprocess.run(["rm", "-rf", tmp], check=True)


def idle_while_in_flight(binary):
    """Section 9: the idle timeout does not run while a signing request is at the signers."""
    d, worker, c = one_stopped_signer(binary, idle_timeout_ms=50)
    try:
        c.send(sign_req(1, RELEASE, RFC_DIGEST))
        wait_status(c, "inflight", 1)
        time.sleep(0.5)                 # ten idle timeouts
    finally:
        os.kill(worker, signal.SIGCONT)
    r = c.recv()
    check(r is not None and r.ok(SIGN).id == 1, "the request is answered on its connection")
    c.close()
    d.stop()


def main():
    spec, binary = sys.argv[1], sys.argv[2]
    with open(spec) as fh:
        text = fh.read()
    f = frames(text)
    for name in [n for pair in PAIRS for n in pair] + [
            "list-keys-request", "status-request", "status-response", "error-unknown-key",
            "verify-request-compressed", "sign-tls13-request", "sign-tls12-request"]:
        check(name in f, "docs/protocol.md has no frame %s" % name)
    d = Daemon(binary, keys=[{"name": "release", "file": RFC_KEY, "nonce": "deterministic"}])
    examples(d, text, f)
    reading_order(d)
    points_and_signatures(d)
    d.stop()
    limits(binary)
    spec_edges(binary)
    idle_while_in_flight(binary)
    inflight_and_stop(binary)
    timeout_never_early(binary)
    print("ok")


main()
