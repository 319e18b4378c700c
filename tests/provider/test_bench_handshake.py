#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""bench-handshake still works and reports what docs/performance.md reads from it (no speed is
asserted): tiny runs against openssl s_server with a key file, TLS 1.3 and 1.2, rounds
alternating between two targets, CPU read for the server's pid; a certificate that does not
verify counts every handshake as a failure (exit 1); bad arguments exit 2.
Usage: test_bench_handshake.py BENCH_HANDSHAKE"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from providerlib import (free_port, make_cert, path, run_handshakes,  # noqa: E402
                         wait_listening)
import providerlib  # noqa: E402
from daemonlib import check, openssl_key  # noqa: E402

bench = os.path.abspath(sys.argv[1])
providerlib.init(bench, ".", "")


def s_server(cert, key):
    port = free_port()
    log = path("s_server-%d.log" % port)
    with open(log, "wb") as out:
        proc = subprocess.Popen(["openssl", "s_server", "-accept", "127.0.0.1:%d" % port,
                                 "-key", key, "-cert", cert, "-www", "-quiet"],
                                env=providerlib.plain_env(), stdin=subprocess.DEVNULL,
                                stdout=out, stderr=out)
    wait_listening(proc, port, log)
    return proc, port


def sane(t, count):
    check(t["handshakes"] == count and t["failures"] == 0, "handshakes: %s" % t)
    check(t["handshakes_per_s"] > 0 and 0 < t["p50_us"] <= t["p99_us"], "figures: %s" % t)
    check(t["server_cpu_us_per_handshake"] >= 0 and t["daemon_cpu_us_per_handshake"] == 0,
          "CPU: %s" % t)


def main():
    key = path("web.key")
    openssl_key(key)
    cert = make_cert(key)
    servers = [s_server(cert, key) for _ in range(2)]
    try:
        (a, pa), (b, pb) = servers
        rc, r, err = run_handshakes(bench, [("a", pa, a.pid), ("b", pb)], "--cafile", cert,
                                    "--count", "6", "--parallel", "2", "--rounds", "3")
        check(rc == 0 and r["protocol"] == "TLSv1.3" and r["rounds"] == 3 and
              [t["name"] for t in r["targets"]] == ["a", "b"], "report: %s %s" % (r, err))
        for t in r["targets"]:
            sane(t, 18)
            check(len(t["rounds_handshakes_per_s"]) == 3, "rounds: %s" % t)
        rc, r, err = run_handshakes(bench, [("a", pa)], "--tls1_2", "--cafile", cert,
                                    "--seconds", "0.2")
        check(rc == 0 and r["protocol"] == "TLSv1.2", "TLS 1.2: %s %s" % (r, err))
        sane(r["targets"][0], r["targets"][0]["handshakes"])
        # A certificate from another key: nothing verifies.
        other = path("other.key")
        openssl_key(other)
        providerlib.ok("req", "-x509", "-new", "-key", other, "-subj", "/CN=localhost",
                       "-days", "2", "-out", path("other.pem"))
        rc, r, err = run_handshakes(bench, [("a", pa)], "--cafile", path("other.pem"),
                                    "--count", "3")
        (t,) = r["targets"]
        check(rc == 1 and t["handshakes"] == 0 and t["failures"] == 3 and
              "certificate verify failed" in t["first_error"], "unverified: %s" % t)
        p = subprocess.run([bench, "--target", "a,%d" % pa, "--count", "3", "--seconds", "1"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        check(p.returncode == 2 and b"usage" in p.stderr, "bad arguments: %r" % (p,))
    finally:
        for proc, _ in servers:
            proc.terminate()
            proc.wait(10)


try:
    main()
finally:
    shutil.rmtree(providerlib.tmp, ignore_errors=True)
print("ok")
