#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""systemd integration: socket activation (systemd-socket-activate, sd_listen_fds_with_names) and
the notify protocol read from a datagram socket: READY=1 after the workers' self-test, STATUS=,
WATCHDOG=1 only while every worker answers, STOPPING=1. Watchdog timing bounds are generous."""
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

RFC = key_name("rfc")
WATCHDOG_USEC = 200000      # keep-alives every 100 ms


def watchdogs(d, seconds):
    return d.read_notify(seconds).count("WATCHDOG=1")


def main():
    binary = sys.argv[1]
    tmp = scratch_dir("p256signd-sa-")
    path = os.path.join(tmp, "activated.sock")
    os.chmod(tmp, 0o755)

    def wrap(argv):
        # systemd-socket-activate passes on only the variables given with -E. exec keeps the
        # pid, so the daemon is the process WATCHDOG_PID names.
        return ["sh", "-c", 'exec systemd-socket-activate -E WATCHDOG_PID=$$ "$@"', "sh",
                "-E", "NOTIFY_SOCKET", "-E", "WATCHDOG_USEC=%d" % WATCHDOG_USEC,
                "-l", path, "--fdname=p256signd"] + argv

    # The request timeout above the worker timeout, as the defaults nest them: the stopped
    # signers' requests are answered by their replacements, after 4 s, not timed out.
    d = Daemon(binary, workers=2, wrap=wrap, wait_ready=False,
               limits={"worker_timeout_ms": 4000, "request_timeout_ms": 8000})
    # systemd-socket-activate starts the daemon on the first connection attempt. Its socket's
    # file exists from bind(), before listen(): until then a connection is refused.
    end = time.monotonic() + TIMEOUT
    while True:
        try:
            c = Client(path)
            break
        except (FileNotFoundError, ConnectionRefusedError):
            check(time.monotonic() < end, "systemd-socket-activate listens")
            time.sleep(0.02)
    d.wait_for("READY=1")
    check(c.call(sign_req(1, RFC, RFC_DIGEST)).ok(SIGN).signature() == RFC_R + RFC_S,
          "signing on the activated socket")
    log = d.log_text()
    check("listening on socket-activated fd 3 (p256signd)" in log, "activation logged: " + log)
    check(not os.path.exists(d.socket), "no socket of its own when activated")
    check(log.index("ready: 2 signers passed the self-test") < len(log), "self-test logged")
    status = [m for m in d.messages if m.startswith("STATUS=")]
    check(status and "2/2 signers alive" in status[0], "STATUS with READY: %s" % status)

    # STATUS= follows the requests served (updated every second).
    for i in range(5):
        c.call(frame(PING, 10 + i)).ok(PING)
    end = time.monotonic() + TIMEOUT
    while not any(m.startswith("STATUS=6 requests served") for m in d.messages):
        check(time.monotonic() < end, "STATUS= counts requests: %s" % d.messages[-5:])
        d.read_notify(0.2)

    # WATCHDOG=1 at half the period, but not while no signer answers: both stopped, each with a
    # request, are suspected after a quarter of worker_timeout_ms (1 s) and replaced after it
    # (4 s); their requests are answered by the replacements, and the keep-alives resume.
    check(watchdogs(d, 1.0) >= 3, "WATCHDOG=1 keep-alives")
    workers = d.workers()
    for w in workers:
        os.kill(w, signal.SIGSTOP)
    try:
        c.send(sign_req(20, RFC, RFC_DIGEST) + sign_req(21, RFC, RFC_DIGEST))
        d.read_notify(1.3)           # a keep-alive already on its way may still arrive
        check(watchdogs(d, 1.0) == 0, "no WATCHDOG=1 while no signer answers")
        ids = sorted(c.recv().ok(SIGN).id for _ in range(2))
        check(ids == [20, 21], "the requests of the stopped signers are answered: %s" % ids)
    finally:
        for w in workers:
            try:
                os.kill(w, signal.SIGCONT)
            except ProcessLookupError:
                pass    # replaced, as it should be
    check(watchdogs(d, 1.0) >= 3, "WATCHDOG=1 again once signers answer")
    check(not set(workers) & set(d.workers()), "both stopped signers were replaced")

    c.close()
    d.proc.send_signal(signal.SIGTERM)
    check(d.proc.wait(TIMEOUT) == 0, "exit status 0")
    d.read_notify(0.2)
    check("STOPPING=1" in d.messages, "STOPPING=1 on SIGTERM")
    d.stop()
    subprocess.run(["rm", "-rf", tmp], check=True)
    print("ok")


main()
