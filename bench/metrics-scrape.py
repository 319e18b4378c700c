#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The time of one scrape, `p256signctl metrics` against a daemon with 4 keys, 100 signatures
made, next to `p256signctl ping` (the cost of starting p256signctl and connecting): 200 runs
of each, wall time around the process as the timer's service sees it.
Usage: metrics-scrape.py P256SIGND P256SIGNCTL"""
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "daemon"))
from daemonlib import (Daemon, RFC_DIGEST, RFC_KEY, SIGN, key_name,  # noqa: E402
                       openssl_key, scratch_dir, sign_req)

RUNS = 200


def times(argv):
    ms = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
        ms.append((time.perf_counter() - t0) * 1000)
    return sorted(ms)


def main():
    daemon, ctl = sys.argv[1:3]
    tmp = scratch_dir("metrics-scrape-")
    keys = [{"name": "rfc", "file": RFC_KEY}]
    for name in ("k1", "k2", "k3"):
        path = os.path.join(tmp, name + ".pem")
        openssl_key(path)
        keys.append({"name": name, "file": path})
    d = Daemon(daemon, keys=keys)
    c = d.client()
    for i in range(100):
        c.call(sign_req(i, key_name("rfc"), RFC_DIGEST)).ok(SIGN)
    c.close()
    out = subprocess.run([ctl, "--socket", d.socket, "metrics"], capture_output=True).stdout
    for name, ms in (("ping", times([ctl, "--socket", d.socket, "ping"])),
                     ("metrics", times([ctl, "--socket", d.socket, "metrics"]))):
        print("p256signctl %-8s %d runs: median %.2f ms, p90 %.2f ms, max %.2f ms" %
              (name, RUNS, statistics.median(ms), ms[RUNS * 9 // 10], ms[-1]))
    print("metrics output: %d lines, %d bytes" % (out.count(b"\n"), len(out)))
    d.stop()


main()
