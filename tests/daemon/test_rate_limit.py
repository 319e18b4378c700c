#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""A key's max_signatures_per_second, per uid: a burst beyond it gets overloaded and the
connection stays open; another uid is unaffected; after a second the bucket is full again; the
refusals are counted in STATUS; a reload applies the new limits (changed, added with a new key,
removed); out-of-range values are configuration errors."""
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

RATE = 20
OTHER_UID = 4321    # no account needed: setpriv takes the number

# Run as another uid: sends N signatures at once, prints how many were signed and refused.
PROBE = r"""
import json, sys
sys.path.insert(0, %r)
from daemonlib import *
c = Client(sys.argv[1])
n = int(sys.argv[2])
c.send(b"".join(sign_req(i + 1, key_name("rfc"), RFC_DIGEST) for i in range(n)))
got = [c.recv() for _ in range(n)]
print(json.dumps({"ok": sum(r.type == SIGN | RESPONSE for r in got),
                  "overloaded": sum(r.error == E["overloaded"] for r in got)}))
""" % os.path.dirname(os.path.abspath(__file__))


def burst(c, n, first_id=1, key="rfc"):
    """n SIGN requests sent at once: (signed, refused with overloaded)."""
    c.send(b"".join(sign_req(first_id + i, key_name(key), RFC_DIGEST) for i in range(n)))
    got = [c.recv() for _ in range(n)]
    check(all(r is not None for r in got), "connection closed during a burst")
    signed = sum(r.type == SIGN | RESPONSE for r in got)
    refused = sum(r.type == ERROR and r.error == E["overloaded"] for r in got)
    check(signed + refused == n, "other answers in a burst: %s" %
          [(r.type, r.error) for r in got])
    return signed, refused


def as_other_uid(socket_path, n):
    r = subprocess.run(["setpriv", "--reuid=%d" % OTHER_UID, "--regid=%d" % OTHER_UID,
                        "--clear-groups", "python3", "-c", PROBE, socket_path, str(n)],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, "probe as uid %d failed: %s" % (OTHER_UID, r.stderr))
    return json.loads(r.stdout)


def limits(binary):
    key = {"name": "rfc", "file": RFC_KEY, "nonce": "deterministic",
           "allow": {"users": [OTHER_UID]}, "max_signatures_per_second": RATE}
    d = Daemon(binary, keys=[key], extra={"socket_mode": "0666"})
    c = d.client()
    start = time.monotonic()
    signed, refused = burst(c, 2 * RATE)
    elapsed = time.monotonic() - start
    # One second's worth, and what refilled while the burst was taken (a token per 1/RATE s).
    check(RATE <= signed <= RATE + 1 + int(elapsed * RATE),
          "a burst of %d signed %d in %.3f s at %d/s" % (2 * RATE, signed, elapsed, RATE))
    check(c.call(frame(PING, 100)).ok(PING).id == 100, "the connection stays open")
    other = as_other_uid(d.socket, RATE)
    check(other == {"ok": RATE, "overloaded": 0}, "another uid is unaffected: %s" % other)
    time.sleep(1.05)
    again, refused2 = burst(c, RATE, 200)
    check(again == RATE and refused2 == 0, "refilled after a second: %d of %d" % (again, RATE))
    st = c.call(frame(STATUS, 300)).ok(STATUS).json()
    check(st["errors"]["overloaded"] == refused, "STATUS overloaded %s, refused %d" %
          (st["errors"]["overloaded"], refused))
    # Other keys and requests are not limited: PUBKEY of the same key still answers.
    for i in range(3 * RATE):
        c.call(frame(PUBKEY, 400 + i, key_name("rfc"))).ok(PUBKEY)
    c.close()
    d.stop()


def limited_to(c, key, rate, first_id):
    """A burst of 2 rate + 2 on key signs rate (and what refilled meanwhile); rate 0: all."""
    n = 2 * max(rate, 10) + 2
    start = time.monotonic()
    signed, refused = burst(c, n, first_id, key)
    elapsed = time.monotonic() - start
    if rate == 0:
        check(signed == n, "key %s unlimited: %d of %d signed" % (key, signed, n))
    else:
        check(rate <= signed <= rate + 1 + int(elapsed * rate),
              "key %s at %d/s: a burst of %d signed %d in %.3f s" % (key, rate, n, signed, elapsed))


def reload_limits(binary):
    """SIGHUP reads the keys again, and with them their limits: one lowered, one added with a
    new key, then one removed. (Before, a reload kept the start-up limits and a new key had none.)"""
    rfc = {"name": "rfc", "file": RFC_KEY, "nonce": "deterministic"}
    d = Daemon(binary, keys=[dict(rfc, max_signatures_per_second=RATE)])
    second = os.path.join(d.dir, "second.pem")
    openssl_key(second)
    new = {"name": "new", "file": second, "nonce": "deterministic"}
    c = d.client()
    limited_to(c, "rfc", RATE, 1)
    for gen, keys, rates in ((2, [dict(rfc, max_signatures_per_second=5),
                                  dict(new, max_signatures_per_second=7)], {"rfc": 5, "new": 7}),
                             (3, [rfc, dict(new, max_signatures_per_second=7)], {"rfc": 0})):
        d.write_keys(keys)
        d.proc.send_signal(signal.SIGHUP)
        end = time.monotonic() + TIMEOUT
        while c.call(frame(STATUS, 0)).ok(STATUS).json()["key_set"] != gen:
            check(time.monotonic() < end, "reload to key set %d" % gen)
            time.sleep(0.02)
        for i, (key, rate) in enumerate(sorted(rates.items())):
            limited_to(c, key, rate, 1000 * gen + 100 * i)
    c.close()
    d.stop()


def config_errors(binary):
    tmp = scratch_dir("p256signd-rate-")
    for bad in (0, 1000001, "10", 1.5):
        path = os.path.join(tmp, "c.json")
        with open(path, "w") as f:
            json.dump({"keys": [{"name": "rfc", "file": RFC_KEY,
                                 "max_signatures_per_second": bad}]}, f)
        r = subprocess.run([binary, "--check-config", path], capture_output=True, text=True)
        check(r.returncode != 0 and "keys[0].max_signatures_per_second: must be an integer "
              "from 1 to 1000000" in r.stderr, "%r accepted: %s" % (bad, r.stderr))
    subprocess.run(["rm", "-rf", tmp], check=True)


def main():
    binary = sys.argv[1]
    config_errors(binary)
    limits(binary)
    reload_limits(binary)
    print("ok")


main()
