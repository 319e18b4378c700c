#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Each connection's peer is named at accept, inside the parent's sandbox: its process name
(/proc/PID/comm) and systemd unit (from its cgroup) reach the request log lines. A client
renames itself (prctl PR_SET_NAME) and is moved into a cgroup named like a service (root only,
removed again); the name's space and newline are logged as '?'; a client outside any unit is
logged with unit=-."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

CGROUP2_ROOTS = ("/sys/fs/cgroup", "/sys/fs/cgroup/unified")

# Renames itself, waits for the test to move it, then sends one PING on a new connection.
PROBE = r"""
import ctypes, sys
sys.path.insert(0, %r)
from daemonlib import *
ctypes.CDLL(None, use_errno=True).prctl(15, sys.argv[2].encode(), 0, 0, 0)   # PR_SET_NAME
print("ready", flush=True)
sys.stdin.readline()
c = Client(sys.argv[1])
check(c.call(frame(PING, 77)).ok(PING).id == 77, "PING")
c.close()
print("done", flush=True)
""" % os.path.dirname(os.path.abspath(__file__))


def cgroup2_root():
    for root in CGROUP2_ROOTS:
        with open("/proc/self/mountinfo") as f:
            if any(line.split()[4] == root and " - cgroup2 " in line for line in f):
                return root
    fail("no cgroup2 hierarchy mounted")


def client(socket_path, name, cgroup=None):
    p = subprocess.Popen([sys.executable, "-c", PROBE, socket_path, name], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
    check(p.stdout.readline().strip() == "ready", "probe not ready")
    if cgroup:
        with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
            f.write(str(p.pid))
    p.stdin.write("go\n")
    p.stdin.flush()
    check(p.stdout.readline().strip() == "done", "probe failed")
    check(p.wait(30) == 0, "probe exit status")
    return p.pid


def main():
    d = Daemon(sys.argv[1])
    unit = "p256sign-idtest-%d.service" % os.getpid()
    cgroup = os.path.join(cgroup2_root(), unit)
    os.mkdir(cgroup)
    try:
        in_unit = client(d.socket, "p256-idtest", cgroup)
    finally:
        os.rmdir(cgroup)    # its process has exited
    odd = client(d.socket, "a b\nc")
    log = d.stop()
    # The audit records (none configured: on stderr) carry what was taken at accept.
    records = [json.loads(l) for l in log.splitlines() if l.startswith('{"v":1,"type":"request"')]
    peers = [r["peer"] for r in records if r["op"] == "ping" and r["id"] == 77]
    check(len(peers) == 2, "two PING records: %s" % peers)
    check(peers[0] == {"pid": in_unit, "uid": 0, "gid": 0, "comm": "p256-idtest", "unit": unit},
          "the renamed client in its unit: %s" % peers[0])
    # Outside systemd (the root cgroup) the client is in no unit; under it, in the test's own.
    mine = open("/proc/self/cgroup").read()
    check(peers[1]["pid"] == odd and peers[1]["comm"] == "a b\nc" and
          ("unit" not in peers[1] or "0::/\n" not in mine),
          "a name with a space and a newline, as it is (JSON escapes it): %s" % peers[1])
    print("ok")


main()
