#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Hangs that overlap cost a client a delay, never an error (docs/daemon.md, "Healing"): under
16 signing connections with the default timeouts (worker_timeout_ms 2,000, request_timeout_ms
4,000), every answer is counted and must be the right signature, with 0 failed requests, when
- all signers are stopped (SIGSTOP) at once: 2 of 2, and 3 of 3;
- stops make a chain: signer A stopped, B stopped 1.5 s later, then A's replacement stopped;
- kills and stops are mixed with reloads for 10 s;
- and in a chaos run of a minute (argument 2, seconds: 60 unless given): every 0.3 to 1.0 s a
  random signer killed or stopped (some continued later), or a reload. With "no-reloads" as
  argument 3, only a chaos run of kills and stops, that long.
The longest wait of each is printed (docs/performance.md, "Overlapping hangs"), not checked: the
test counts failures only."""
import os
import random
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

CONNECTIONS = 16


def signal_all(pids, sig):
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass    # replaced already


def settle(d, n):
    """Until n signers run and answer (every stopped one replaced or continued)."""
    end = time.monotonic() + TIMEOUT
    while True:
        c = d.client()
        st = c.call(frame(STATUS, 1)).ok(STATUS).json()
        c.close()
        if st["workers_alive"] == n and len(d.workers()) == n:
            return
        check(time.monotonic() < end, "%d signers back: %s" % (n, st))
        time.sleep(0.05)


def all_stopped(binary, n):
    d = Daemon(binary, workers=n)
    load = SignLoad(d, CONNECTIONS)
    time.sleep(0.5)
    victims = d.workers()
    signal_all(victims, signal.SIGSTOP)
    time.sleep(3.0)
    signal_all(victims, signal.SIGCONT)
    load.finish("%d of %d signers stopped at once" % (n, n))
    settle(d, n)
    d.stop()


def new_signer(d, known, within):
    """A signer that is none of known, once there is one."""
    end = time.monotonic() + within
    while True:
        fresh = [w for w in d.workers() if w not in known]
        if fresh:
            return fresh[0]
        check(time.monotonic() < end, "a replacement within %s s" % within)
        time.sleep(0.01)


def chain(binary):
    d = Daemon(binary, workers=2)
    load = SignLoad(d, CONNECTIONS)
    time.sleep(0.5)
    a, b = d.workers()
    os.kill(a, signal.SIGSTOP)
    time.sleep(1.5)
    os.kill(b, signal.SIGSTOP)
    a2 = new_signer(d, (a, b), TIMEOUT)
    os.kill(a2, signal.SIGSTOP)
    time.sleep(3.0)
    signal_all((a, b, a2), signal.SIGCONT)
    load.finish("chain: A stopped, B 1.5 s later, then A's replacement")
    settle(d, 2)
    d.stop()


def chaos(binary, seconds, reloads=True, rng=None):
    """Every 0.3 to 1.0 s: a random signer killed or stopped (a stopped one continued after 0.5
    to 3 s, or never), or a reload."""
    rng = rng or random.Random(seconds)
    d = Daemon(binary, workers=2)
    load = SignLoad(d, connections=rng.choice((16, 24, 32)))
    time.sleep(0.5)
    counts = {"kill": 0, "stop": 0, "reload": 0}
    stopped = []    # (when to continue, pid)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        now = time.monotonic()
        signal_all([p for t, p in stopped if t <= now], signal.SIGCONT)
        stopped = [(t, p) for t, p in stopped if t > now]
        action = rng.choice(("kill", "stop", "reload") if reloads else ("kill", "stop"))
        victims = d.workers()
        if action == "reload":
            d.proc.send_signal(signal.SIGHUP)
        elif victims:
            pid = rng.choice(victims)
            signal_all([pid], signal.SIGKILL if action == "kill" else signal.SIGSTOP)
            if action == "stop" and rng.random() < 0.5:
                stopped.append((now + rng.uniform(0.5, 3.0), pid))
        counts[action] += 1
        time.sleep(rng.uniform(0.3, 1.0))
    signal_all([p for _, p in stopped], signal.SIGCONT)
    load.finish("%s for %d s under %d connections: %d kills, %d stops, %d reloads" %
                ("kills, stops and reloads" if reloads else "kills and stops", seconds,
                 len(load.threads), counts["kill"], counts["stop"], counts["reload"]))
    settle(d, 2)
    d.stop()


def main():
    binary = sys.argv[1]
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    if len(sys.argv) > 3 and sys.argv[3] == "no-reloads":
        chaos(binary, seconds, reloads=False)    # kills and stops only (docs/performance.md)
        print("ok")
        return
    all_stopped(binary, 2)
    all_stopped(binary, 3)
    chain(binary)
    chaos(binary, 10, rng=random.Random(1))
    chaos(binary, seconds)
    print("ok")


main()
