#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Started with descriptors 0, 1 and 2 closed, the daemon opens /dev/null on them: no client
connection takes number 2 and receives the request log, and no other role keeps a
socket there or anything beyond its channel."""
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403


def fds(pid):
    path = "/proc/%d/fd" % pid
    return {int(f): os.readlink(os.path.join(path, f)) for f in os.listdir(path)}


def main():
    closed = ["sh", "-c", 'exec "$@" <&- >&- 2>&-', "sh"]
    d = Daemon(sys.argv[1], wrap=lambda argv: closed + argv)
    c = d.client()
    check(c.call(frame(PING, 1)).ok(PING).id == 1, "PING answered")
    time.sleep(0.2)     # the log is written at most 20 ms after the reply
    c.sock.settimeout(0.3)
    try:
        extra = c.sock.recv(100)
    except socket.timeout:
        extra = None
    check(extra is None, "the client received bytes beyond its reply: %r" % extra)
    parent = fds(d.proc.pid)
    check(all(parent[fd] == "/dev/null" for fd in (0, 1, 2)), "parent's 0-2: %s" % parent)
    # The key-holder and every signer: /dev/null on 0-2 and their channel on 3, nothing else
    # (not the listening socket, not a client, not another signer's channel).
    # The key-holder has its signalfd besides (SIGCHLD of its signers).
    for w, extra in [(d.keyholder(), {4: "anon_inode:[signalfd]"})] + [(w, {}) for w in d.workers()]:
        f = fds(w)
        check(all(f.get(fd) == "/dev/null" for fd in (0, 1, 2)) and f[3].startswith("socket:")
              and {k: v for k, v in f.items() if k > 3} == extra, "role %d's descriptors: %s" % (w, f))
    d.stop()
    print("ok")


main()
