#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The verifier's precomputed table (about 150 KiB per key, docs/signing.md) is built only for
keys with verify_after_sign on: a worker holding 40 keys that verify carries at least 4 MiB more
than one holding the same 40 keys with verify_after_sign off. Both sign, and both pass the
start-up self-test, which checks every key with p256_sign_checked (with or without the table)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

BIN = sys.argv[1]
N = 40
KEY_DIR = scratch_dir("p256signd-tables-")
FILES = [RFC_KEY] + [os.path.join(KEY_DIR, "k%d.pem" % i) for i in range(1, N)]
for path in FILES[1:]:
    openssl_key(path)


def worker_rss_kib(verify):
    keys = [{"name": "k%d" % i, "file": f, "nonce": "deterministic",
             "verify_after_sign": verify} for i, f in enumerate(FILES)]
    d = Daemon(BIN, keys=keys, workers=1)
    c = d.client()
    resp = c.call(sign_req(1, key_name("k0"), RFC_DIGEST))
    check(resp.ok(SIGN) and resp.signature() == RFC_R + RFC_S,
          "verify_after_sign %s: the RFC 6979 vector is not reproduced" % verify)
    resp = c.call(sign_req(2, key_name("k%d" % (N - 1)), RFC_DIGEST))
    check(resp.ok(SIGN), "verify_after_sign %s: the last key does not sign" % verify)
    c.close()
    with open("/proc/%d/status" % d.workers()[0]) as f:
        rss = [int(line.split()[1]) for line in f if line.startswith("VmRSS:")][0]
    d.stop()
    return rss


try:
    with_tables = worker_rss_kib(True)
    without = worker_rss_kib(False)
finally:
    for path in FILES[1:]:
        os.unlink(path)
    os.rmdir(KEY_DIR)
print("worker VmRSS with %d tables: %d KiB, without: %d KiB" % (N, with_tables, without))
check(with_tables - without >= N * 100, "tables built for keys that do not verify after signing")
print("ok")
