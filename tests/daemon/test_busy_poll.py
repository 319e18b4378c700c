#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""busy_poll_us: a daemon that polls after its work finds the next sequential request without
sleeping (the parent in its event loop, the worker on its socketpair), and stops polling once the
requests stop; and it polls only when that pays: with requests 10 ms apart, far more than the
poll, it sleeps at once after each instead of polling for the whole period.

Sleeping is counted by the kernel: /proc/PID/status voluntary_ctxt_switches grows each time a
process blocks (epoll_wait, read), not when it yields the CPU. Without polling, every sequential
request makes worker 0 (which gets every lone request) block once and the parent at least twice;
polling for the longest period allowed, they block far less. Run alone (not in parallel with other
tests), so that the client's round trip stays well inside that period."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

BIN = sys.argv[1]
N = 300
KEYS = [{"name": "k", "file": RFC_KEY, "verify_after_sign": False}]


def status(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    fail("no %s for %d" % (field, pid))


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])   # utime, stime


def sleeps_per_request(poll_us):
    """Blocking sleeps of the parent and of worker 0 per sequential request; then the CPU ticks
    parent and workers use in the second after the last request."""
    d = Daemon(BIN, keys=KEYS, extra={"busy_poll_us": poll_us})
    c = d.client()
    pids = [d.proc.pid] + d.workers()
    before = [status(p, "voluntary_ctxt_switches") for p in pids[:2]]
    for i in range(1, N + 1):
        check(c.call(sign_req(i, key_name("k"), RFC_DIGEST)).ok(SIGN).id == i, "signature %d" % i)
    after = [status(p, "voluntary_ctxt_switches") for p in pids[:2]]
    time.sleep(0.2)
    ticks = sum(cpu_ticks(p) for p in pids)
    time.sleep(1.0)
    idle = sum(cpu_ticks(p) for p in pids) - ticks
    c.close()
    d.stop()
    return [(a - b) / N for a, b in zip(after, before)], idle


def spaced_requests(poll_us, n=100, gap_s=0.01):
    """CPU ticks (10 ms each) of the parent and the workers over n requests gap_s apart, and the
    parent's sleeps per request."""
    d = Daemon(BIN, keys=KEYS, extra={"busy_poll_us": poll_us})
    c = d.client()
    pids = [d.proc.pid] + d.workers()
    c.call(sign_req(1, key_name("k"), RFC_DIGEST)).ok(SIGN)
    ticks = sum(cpu_ticks(p) for p in pids)
    sleeps = status(pids[0], "voluntary_ctxt_switches")
    for i in range(2, n + 2):
        time.sleep(gap_s)
        check(c.call(sign_req(i, key_name("k"), RFC_DIGEST)).ok(SIGN).id == i, "signature %d" % i)
    used = sum(cpu_ticks(p) for p in pids) - ticks
    sleeps = (status(pids[0], "voluntary_ctxt_switches") - sleeps) / n
    c.close()
    d.stop()
    return used, sleeps


def polls_before_sleep(poll_us, n=100, gap_s=0.01):
    """The parent under strace (epoll_wait and sched_yield only) over n requests gap_s apart,
    far more than the poll: it polls for each signer's answer, replies, and sleeps. Returns the
    answers found by a poll (epoll_wait with no timeout returning events) and, of those, the
    ones followed by another epoll_wait for nothing before the sleep: a pass that looked again
    after running what it found (EVLOOP_NONBLOCK without EVLOOP_ONCE) makes one every time."""
    d = Daemon(BIN, keys=KEYS, extra={"busy_poll_us": poll_us})
    c = d.client()
    out = os.path.join(scratch_dir("p256signd-busy-poll-"), "trace")
    tracer = subprocess.Popen(["strace", "-qq", "-p", str(d.proc.pid), "-o", out,
                               "-e", "trace=epoll_wait,sched_yield"])
    try:
        for _ in range(500):
            if status(d.proc.pid, "TracerPid") == tracer.pid:
                break
            time.sleep(0.01)
        check(status(d.proc.pid, "TracerPid") == tracer.pid, "strace attached to the parent")
        for i in range(1, n + 1):
            time.sleep(gap_s)
            check(c.call(sign_req(i, key_name("k"), RFC_DIGEST)).ok(SIGN).id == i,
                  "signature %d" % i)
    finally:
        tracer.terminate()
        tracer.wait(10)
        c.close()
        d.stop()
    calls = []      # (timeout, events), sched_yield as None
    with open(out) as f:
        for line in f:
            m = re.match(r"epoll_wait\(.*, (-?\d+)\) += (\d+)", line)
            if m is not None:
                calls.append((int(m.group(1)), int(m.group(2))))
            elif line.startswith("sched_yield"):
                calls.append(None)
    found = wasted = 0
    for look, after, then in zip(calls, calls[1:], calls[2:]):
        if look is None or look[0] != 0 or look[1] == 0 or after is None:
            continue
        if after[0] != 0:
            found += 1          # the answer, then the sleep
        elif after[1] == 0 and then is not None and then[0] != 0:
            found += 1          # the answer, a look for nothing, then the sleep
            wasted += 1
    return found, wasted


def main():
    (parent, worker), idle = sleeps_per_request(0)
    print("busy_poll_us 0: sleeps per request: parent %.2f, worker %.2f" % (parent, worker))
    check(parent >= 1.0 and worker >= 0.5, "without polling, the processes sleep between steps")
    check(idle <= 5, "idle daemon without polling used %d ticks" % idle)
    (parent, worker), idle = sleeps_per_request(1000)
    print("busy_poll_us 1000: sleeps per request: parent %.2f, worker %.2f; idle ticks %d" %
          (parent, worker, idle))
    check(parent < 0.5 and worker < 0.5, "polling processes find the next request awake")
    # Polling ends 1 ms after the last request: a second later, the daemon uses no CPU (one
    # tick is 10 ms; a daemon still polling would use about 100 ticks per process).
    check(idle <= 5, "the daemon stopped polling after the requests (%d ticks in 1 s)" % idle)
    # Polling for 1 ms after each of 100 requests 10 ms apart, as a fixed poll did, costs the
    # parent and the worker 1 ms each per request: 200 ms, 20 ticks. Sleeping at once, the
    # daemon's own work is well under 100 us per request: a tick or two in all.
    used, sleeps = spaced_requests(1000)
    print("busy_poll_us 1000, requests 10 ms apart: %d ticks for 100 requests; parent sleeps "
          "per request %.2f" % (used, sleeps))
    check(sleeps >= 1.0, "between spaced requests the parent sleeps")
    check(used < 10, "no polling for requests that come far apart (%d ticks)" % used)
    found, wasted = polls_before_sleep(1000)
    print("busy_poll_us 1000, requests 10 ms apart, under strace: %d answers found by a poll "
          "before the sleep, %d of them with a look for nothing after" % (found, wasted))
    check(found >= 10, "the parent polls for the signer's answer, then sleeps (%d times)" % found)
    # A timer due at that moment (the signers' tick, 10 a second) makes one legitimately.
    check(wasted <= found // 10, "a poll that found the answer looks no more before the sleep")
    print("ok")


main()
