#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Every error code a client can cause, each with its distinct code, and the limits: requests in
flight per connection and in total, connections, request timeout, a dead worker. (sign-failed
needs a fault in the signing hardware; denied comes with access control.)"""
import os
import signal
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

RFC = key_name("rfc")


def codec_errors(d):
    """Errors that come from decoding, and those that keep the connection open."""
    c = d.client()
    c.expect_error(frame(0x42, 1), E["unknown_type"])
    c.expect_error(frame(PING, 2, flags=1), E["bad_flags"])
    c.expect_error(sign_req(3, key_name("nope"), RFC_DIGEST), E["unknown_key"])
    c.expect_error(sign_req(4, key_id(bytes(32)), RFC_DIGEST), E["unknown_key"])
    c.expect_error(frame(PUBKEY, 5, key_name("nope")), E["unknown_key"])
    c.expect_error(sign_req(6, RFC, RFC_DIGEST[:20]), E["bad_digest_length"])
    c.expect_error(sign_req(7, RFC, RFC_DIGEST, fmt=2), E["bad_format"])
    c.expect_error(sign_message_req(8, RFC, bytes(16385)), E["message_too_large"])
    c.expect_error(sign_req(9, bytes([9]), RFC_DIGEST), E["bad_key_selector"])
    c.expect_error(sign_req(10, key_name("bad name"), RFC_DIGEST), E["bad_key_selector"])
    c.expect_error(sign_req(11, key_point(bytes(65)), RFC_DIGEST), E["bad_key_selector"])
    c.expect_error(verify_req(12, key_point(b"\x04" + bytes(64)), RFC_DIGEST, bytes(64)),
                   E["bad_point"])
    c.expect_error(verify_req(13, RFC, RFC_DIGEST, b"\x30\x00", DER), E["bad_signature"])
    c.expect_error(verify_req(14, RFC, RFC_DIGEST, bytes(63)), E["bad_signature"])
    r = c.call(frame(PING, 15)).ok(PING)
    check(r.id == 15, "the connection still works after every error above")
    # Errors that close the connection.
    for data, code in ((frame(PING, 16, version=2), E["unsupported_version"]),
                       (frame(PING, 17, b"x"), E["bad_frame"]),
                       (struct.pack(">I", 4) + b"abcd", E["bad_frame"]),
                       (struct.pack(">I", 65537), E["frame_too_large"]),
                       (struct.pack(">I", 0xffffffff) + bytes(100), E["frame_too_large"])):
        c = d.client()
        r = c.expect_error(data, code, closes=True)
        check(r.text != "", "error %d has a text" % code)
        c.close()


def limits(d):
    """With the only worker stopped: per-connection and total in-flight limits, the timeout."""
    (worker,) = d.workers()
    a, b = d.client(), d.client()
    os.kill(worker, signal.SIGSTOP)
    try:
        a.send(sign_req(1, RFC, RFC_DIGEST) + sign_req(2, RFC, RFC_DIGEST))
        a.expect_error(sign_req(3, RFC, RFC_DIGEST), E["overloaded"])      # per connection: 2
        b.send(sign_req(4, RFC, RFC_DIGEST))
        b.expect_error(sign_req(5, RFC, RFC_DIGEST), E["overloaded"])      # in total: 3
        check(b.call(frame(PING, 6)).ok(PING).id == 6, "the parent answers while signing waits")
        start = time.monotonic()
        got = sorted((r.id, r.error) for r in (a.recv(), a.recv(), b.recv()))
        check(got == [(1, E["timeout"]), (2, E["timeout"]), (4, E["timeout"])],
              "requests time out: %s" % got)
        check(time.monotonic() - start < 10, "timeout within bounds")
    finally:
        os.kill(worker, signal.SIGCONT)
    # The late answers are dropped (they hold their places until then), and signing works again.
    end = time.monotonic() + TIMEOUT
    while a.call(frame(STATUS, 0)).ok(STATUS).json()["at_workers"] != 0:
        check(time.monotonic() < end, "late answers arrive")
        time.sleep(0.02)
    r = a.call(sign_req(7, RFC, RFC_DIGEST)).ok(SIGN)
    check(r.id == 7 and r.signature() == RFC_R + RFC_S, "signing resumes after the timeouts")
    st = a.call(frame(STATUS, 8)).ok(STATUS).json()
    check(st["errors"]["timeout"] == 3 and st["errors"]["overloaded"] == 2, "STATUS counts %s" % st)
    a.close()
    b.close()


def connection_limit(d):
    open_ = [d.client() for _ in range(3)]
    for c in open_:
        c.call(frame(PING, 1)).ok(PING)
    extra = d.client()
    r = extra.recv()
    check(r is not None and r.type == ERROR and r.error == E["too_many_connections"] and r.id == 0,
          "a connection beyond max_connections gets too-many-connections")
    check(extra.recv() is None, "and is closed")
    open_.pop().close()
    time.sleep(0.2)
    c = d.client()
    check(c.call(frame(PING, 2)).ok(PING).id == 2, "a connection is taken once one closed")
    for c in open_ + [c]:
        c.close()


def dead_worker(d):
    """The only signer killed with a request in flight: the request is answered by its
    replacement, and STATUS counts the replacement and the resent request."""
    (worker,) = d.workers()
    c = d.client()
    os.kill(worker, signal.SIGSTOP)
    c.send(sign_req(2, RFC, RFC_DIGEST))
    time.sleep(0.05)
    os.kill(worker, signal.SIGKILL)
    r = c.recv().ok(SIGN)
    check(r.id == 2 and r.signature() == RFC_R + RFC_S, "the request survives its signer")
    st = c.call(frame(STATUS, 3)).ok(STATUS).json()
    check(st["workers_alive"] == 1 and st["workers_replaced"] == 1 and
          st["requests_resent"] == 1, "STATUS after a replacement: %s" % st)
    check(d.workers() != [worker], "a new signer process")
    c.close()


def main():
    binary = sys.argv[1]
    d = Daemon(binary, workers=1, limits={"max_inflight_per_connection": 2, "max_inflight": 3,
                                          "max_connections": 3, "max_connections_per_uid": 3,
                                          "request_timeout_ms": 1500,
                                          "worker_timeout_ms": 60000})
    codec_errors(d)
    limits(d)
    connection_limit(d)
    dead_worker(d)
    text = d.stop()
    check("killed by signal 9" in text or "closed its channel" in text,
          "the worker's death is logged:\n" + text)
    print("ok")


main()
