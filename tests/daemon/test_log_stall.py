#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The log never blocks the daemon: with stderr a pipe that nobody reads, 10,000 signatures are
all answered, and PING and STATUS too; the lines that did not fit are counted (STATUS
log_lines_dropped) and, once the pipe is read, the log says how many were dropped."""
import os
import re
import select
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

SIGNATURES = 10000
BATCH = 200     # below max_inflight_per_connection (256)


def read_until_dropped_line(fd, timeout=TIMEOUT):
    """Everything the pipe gives until a "N log lines dropped" line has arrived."""
    data, end = b"", time.monotonic() + timeout
    while not re.search(rb"^p256signd: \d+ log lines dropped$", data, re.M):
        check(time.monotonic() < end, "no dropped-lines line within %s s; read %d bytes" %
              (timeout, len(data)))
        if select.select([fd], [], [], 0.1)[0]:
            data += os.read(fd, 65536)
    return data.decode()


def main():
    tmp = scratch_dir("p256signd-stall-")
    fifo = os.path.join(tmp, "stderr")
    os.mkfifo(fifo)
    # The test holds the only reader and does not read until the signatures are done.
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    d = Daemon(sys.argv[1], wrap=lambda argv: ["sh", "-c", 'exec "$@" 2>"$0"', fifo] + argv)
    c = d.client()
    answered = 0
    for start in range(0, SIGNATURES, BATCH):
        c.send(b"".join(sign_req(start + i + 1, key_name("rfc"), RFC_DIGEST)
                        for i in range(BATCH)))
        ids = set()
        for i in range(BATCH):
            r = c.recv()    # in any order: two signers
            check(r is not None, "connection closed after %d replies" % answered)
            check(r.ok(SIGN).signature() == RFC_R + RFC_S, "signature %d" % r.id)
            ids.add(r.id)
            answered += 1
        check(ids == set(range(start + 1, start + BATCH + 1)), "replies to batch %d" % start)
    check(answered == SIGNATURES, "%d of %d signatures answered" % (answered, SIGNATURES))
    check(c.call(frame(PING, 1)).ok(PING).id == 1, "PING answered")
    st = c.call(frame(STATUS, 2)).ok(STATUS).json()
    check(st["signatures"] == SIGNATURES, "STATUS signatures: %s" % st["signatures"])
    # 10,002 audit records of ~400 bytes (no audit configured: on stderr) cannot fit in a pipe (64 KiB) and the log's buffer.
    dropped = st["log_lines_dropped"]
    check(dropped > 0, "STATUS log_lines_dropped is %s" % dropped)
    text = read_until_dropped_line(reader)
    reported = sum(int(n) for n in re.findall(r"^p256signd: (\d+) log lines dropped$", text, re.M))
    requests = len(re.findall(r'^\{"v":1,"type":"request"', text, re.M))
    check(reported >= dropped, "the log reports %d dropped lines, STATUS said %d" %
          (reported, dropped))
    # Every request line either reached the pipe or was counted.
    check(requests + reported >= SIGNATURES + 2, "%d request lines read and %d dropped for %d "
          "requests" % (requests, reported, SIGNATURES + 2))
    check(requests > 0, "no request line reached the pipe")
    # The daemon goes on logging after the stall.
    check(c.call(frame(PING, 3)).ok(PING).id == 3, "PING after the stall")
    c.close()
    d.stop()
    os.close(reader)
    subprocess.run(["rm", "-rf", tmp], check=True)
    print("ok (%d lines dropped, %d request lines written)" % (reported, requests))


main()
