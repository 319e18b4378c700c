#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Pipelining 1,000 requests on one connection (ids matched, responses may come out of order),
200 concurrent connections, frames split at every byte boundary, and clients that disconnect
mid-request or mid-frame without disturbing anyone else; a client that shuts down its sending
side still gets every answer."""
import hashlib
import os
import random
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

RFC = key_name("rfc")


def pipelined(d):
    rng = random.Random(1)
    c = d.client()
    want = {}
    data = b""
    for i in range(1000):
        id_ = 1000 + i * 7
        kind = rng.choice(("sign", "sign", "sign", "ping", "message", "pubkey"))
        if kind == "sign":
            digest = hashlib.sha256(b"%d" % i).digest()
            data += sign_req(id_, RFC, digest, rng.choice((RAW, DER)))
        elif kind == "message":
            data += sign_message_req(id_, RFC, b"sample")
        elif kind == "ping":
            data += frame(PING, id_)
        else:
            data += frame(PUBKEY, id_, RFC)
        want[id_] = kind
    c.send(data)
    order = []
    for _ in range(1000):
        r = c.recv()
        check(r is not None and r.type != ERROR, "pipelined request failed: %s" %
              (r and r.error))
        check(r.id in want, "response to an unknown or repeated id %s" % (r and r.id))
        kind = want.pop(r.id)
        order.append(r.id)
        if kind == "message":
            check(r.ok(SIGN_MESSAGE).signature() == RFC_R + RFC_S, "pipelined SIGN_MESSAGE")
        elif kind == "sign":
            r.ok(SIGN)
    check(not want, "every pipelined request answered")
    check(order != sorted(order), "responses to a pipeline may come back out of order")
    c.close()


def concurrent(d, n=200, each=5):
    errors = []
    clients = [d.client() for _ in range(n)]

    def run(k, c):
        try:
            digest = hashlib.sha256(b"conn %d" % k).digest()
            c.send(b"".join(sign_req(k * 100 + j, RFC, digest) for j in range(each)))
            ids = sorted(c.recv().ok(SIGN).id for _ in range(each))
            if ids != [k * 100 + j for j in range(each)]:
                errors.append("conn %d: ids %s" % (k, ids))
        except BaseException as e:  # noqa: B902 - collected for the main thread
            errors.append("conn %d: %r" % (k, e))

    threads = [threading.Thread(target=run, args=(k, c)) for k, c in enumerate(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(not errors, "concurrent connections: %s" % errors[:5])
    st = clients[0].call(frame(STATUS, 1)).ok(STATUS).json()
    check(st["connections"] == n, "STATUS sees %d connections: %s" % (n, st["connections"]))
    for c in clients:
        c.close()


def split_frames(d):
    c = d.client()
    data = sign_req(77, RFC, RFC_DIGEST, DER)
    for k in range(1, len(data)):
        c.send(data[:k])
        time.sleep(0.002)   # separate reads in the daemon (not needed for correctness)
        c.send(data[k:])
        r = c.recv().ok(SIGN)
        check(r.id == 77 and r.signature() == RFC_R + RFC_S, "frame split at byte %d" % k)
    for b in frame(PING, 78):
        c.send(bytes([b]))
        time.sleep(0.001)
    check(c.recv().ok(PING).id == 78, "frame sent one byte at a time")
    # Two frames and a half in one write, then the rest.
    two = frame(PING, 79) + frame(PING, 80) + frame(PING, 81)
    c.send(two[:-3])
    check(c.recv().id == 79 and c.recv().id == 80, "whole frames answered before the rest")
    c.send(two[-3:])
    check(c.recv().id == 81, "the rest completes the third")
    c.close()


def disconnects(d):
    for _ in range(20):
        c = d.client()
        c.send(b"".join(sign_req(i, RFC, RFC_DIGEST) for i in range(50)))
        c.close()                            # requests in flight, nobody to answer
        c = d.client()
        c.send(sign_req(1, RFC, RFC_DIGEST)[:30])
        c.close()                            # mid-frame
    c = d.client()
    check(c.call(sign_req(5, RFC, RFC_DIGEST)).ok(SIGN).signature() == RFC_R + RFC_S,
          "the daemon serves after clients left mid-request")
    end = time.monotonic() + TIMEOUT
    while True:
        st = c.call(frame(STATUS, 6)).ok(STATUS).json()
        if st["inflight"] == 0 and st["connections"] == 1:
            break
        check(time.monotonic() < end, "abandoned requests drain: %s" % st)
        time.sleep(0.05)
    c.close()


def half_close(d, n=300):
    """A client that shuts down its sending side still gets every answer, then end of file; with
    more than 64 frames buffered (one turn's worth), and with a partial frame left over."""
    c = d.client()
    c.send(b"".join(sign_req(i, RFC, RFC_DIGEST) for i in range(n)) + frame(PING, n) +
           sign_req(n + 1, RFC, RFC_DIGEST)[:20])
    c.sock.shutdown(socket.SHUT_WR)
    ids = set()
    while True:
        r = c.recv()
        if r is None:
            break
        if r.id < n:
            check(r.ok(SIGN).signature() == RFC_R + RFC_S, "signature %d after half-close" % r.id)
        else:
            r.ok(PING)
        ids.add(r.id)
    check(ids == set(range(n + 1)), "half-closed client: %d of %d answers" % (len(ids), n + 1))
    c.close()
    c = d.client()                           # nothing in flight: closed at once
    c.sock.shutdown(socket.SHUT_WR)
    check(c.recv() is None, "an idle half-closed connection is closed")
    c.close()


def unread_replies(d, n=20000):
    """A client that sends and does not read: the daemon stops reading it instead of queueing
    replies without bound, then answers everything once the client reads."""
    c = d.client()
    data = b"".join(frame(STATUS, i) for i in range(n))
    sender = threading.Thread(target=c.send, args=(data,))
    other = d.client()
    before = other.call(frame(STATUS, 0)).ok(STATUS).json()["requests"]
    sender.start()
    time.sleep(1.0)
    check(sender.is_alive(), "the daemon stopped reading the client that does not read")
    answered = other.call(frame(STATUS, 0)).ok(STATUS).json()["requests"] - before
    check(answered < n // 4, "replies queued without bound: %d answered unread" % answered)
    other.close()
    ids = [c.recv().ok(STATUS).id for _ in range(n)]
    sender.join()
    check(ids == list(range(n)), "every request answered, in order")
    c.close()


def main():
    d = Daemon(sys.argv[1], workers=2, limits={"max_inflight_per_connection": 1000})
    pipelined(d)
    concurrent(d)
    split_frames(d)
    disconnects(d)
    half_close(d)
    unread_replies(d)
    d.stop()
    print("ok")


main()
