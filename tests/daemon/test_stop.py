#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""SIGTERM: the daemon stops accepting, answers new requests (PING and STATUS aside) with
shutting-down, answers every request in flight, says STOPPING=1, removes its socket and exits 0;
a stop that cannot finish is bounded by shutdown_timeout_ms; more SIGTERMs during the stop change
nothing (exit status 0, never death by the signal); a plain stop logs no error. Workers are paused with SIGSTOP to hold
requests in flight."""
import os
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

RFC = key_name("rfc")


def wait_inflight(c, n):
    end = time.monotonic() + TIMEOUT
    while c.call(frame(STATUS, 0)).ok(STATUS).json()["inflight"] != n:
        check(time.monotonic() < end, "%d requests in flight" % n)
        time.sleep(0.02)


def wait_refused(path):
    """Until the daemon no longer accepts: its listener is gone."""
    end = time.monotonic() + TIMEOUT
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
        except OSError:
            return
        finally:
            s.close()
        check(time.monotonic() < end, "the daemon stops accepting")
        time.sleep(0.02)


def drain(d):
    (worker,) = d.workers()
    a, b = d.client(), d.client()
    os.kill(worker, signal.SIGSTOP)
    a.send(b"".join(sign_req(i, RFC, RFC_DIGEST, i % 2) for i in range(50)))
    wait_inflight(b, 50)
    d.proc.send_signal(signal.SIGTERM)
    wait_refused(d.socket)
    check(b.recv() is None, "an idle connection is closed during the stop")
    a.expect_error(sign_req(99, RFC, RFC_DIGEST), E["shutting_down"])
    check(a.call(frame(PING, 98)).ok(PING).id == 98, "PING is still answered while stopping")
    d.wait_for("STOPPING=1")
    check(d.proc.poll() is None, "the daemon waits for requests in flight")
    os.kill(worker, signal.SIGCONT)
    ids = sorted(a.recv().ok(SIGN).id for _ in range(50))
    check(ids == list(range(50)), "every request in flight answered")
    check(a.recv() is None, "then the connection is closed")
    check(d.proc.wait(TIMEOUT) == 0, "exit status 0")
    check(not os.path.exists(d.socket), "socket file removed")
    d.stop()


def bounded(d):
    (worker,) = d.workers()
    a = d.client()
    os.kill(worker, signal.SIGSTOP)
    try:
        a.send(sign_req(1, RFC, RFC_DIGEST))
        wait_inflight(d.client(), 1)
        start = time.monotonic()
        d.proc.send_signal(signal.SIGTERM)
        check(d.proc.wait(TIMEOUT) == 0, "exit status 0 after the stop timeout")
        check(time.monotonic() - start < 10, "the stop is bounded")
    finally:
        try:
            os.kill(worker, signal.SIGCONT)
        except ProcessLookupError:
            pass        # killed by the daemon on its way out, as it should be
    text = d.stop()
    check("unanswered after 500 ms" in text, "the unfinished stop is logged")


def repeated(d):
    """SIGTERM every 0.2 ms from the first until the daemon has exited: some arrive while it tears
    down (the audit stop checkpoint, the key-holder's exit), after its signal events are gone."""
    a = d.client()
    check(a.call(sign_req(1, RFC, RFC_DIGEST)).ok(SIGN).id == 1, "signs before the stop")
    sent = 0
    while d.proc.poll() is None:
        try:
            d.proc.send_signal(signal.SIGTERM)
            sent += 1
        except ProcessLookupError:
            break
        time.sleep(0.0002)
    check(d.proc.wait(TIMEOUT) == 0, "exit status 0 after %d SIGTERMs, not %s" %
          (sent, d.proc.returncode))
    text = d.stop()
    check("stopped after" in text, "the stop ran to its end")
    return sent


def quiet(d):
    """A plain stop logs no error: the key-holder, whose channel the parent closes before the
    signers', neither replaces nor reports the signers that then leave (it did, racing the
    parent's end: "sending a signer-exit message: Broken pipe", a replacement signer's
    set-up failing)."""
    a = d.client()
    check(a.call(sign_req(1, RFC, RFC_DIGEST)).ok(SIGN).id == 1, "signs before the stop")
    text = d.stop()
    errors = [line for line in text.splitlines() if "error:" in line]
    check(not errors, "no error logged by the stop: %s" % errors)


def main():
    drain(Daemon(sys.argv[1], workers=1))
    # A loaded machine may not run this loop again before a daemon has stopped: each stop is
    # checked, and most must have had SIGTERMs during their teardown.
    sent = [repeated(Daemon(sys.argv[1], workers=1)) for _ in range(20)]
    check(sum(n > 1 for n in sent) >= 10, "more than one SIGTERM sent to most daemons: %s" %
          sent)
    for _ in range(10):
        quiet(Daemon(sys.argv[1], workers=2))
    bounded(Daemon(sys.argv[1], workers=1, limits={"shutdown_timeout_ms": 500}))
    print("ok")


main()
