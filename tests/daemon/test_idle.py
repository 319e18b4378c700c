#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""An idle daemon does not wake up: its timers are armed only while there is something to time
(requests at signers, records to write or seal, a status to send), and an idle signer is not
pinged. Counted by the kernel: /proc/PID/status voluntary_ctxt_switches grows each time a
process blocks and is woken again, nonvoluntary_ctxt_switches each time it is preempted. Before
this, an idle parent woke about 17 times a second (the signers' 100 ms tick, the audit's 250 ms
timer, the request timeouts' and the status updates' 1 s) and each signer about 4 times (a ping
a second and its polling): some 50 wake-ups in the 3 s counted here against the bound of 5.
Two daemons: the default (no audit section, a notify socket as systemd gives), and one with an
audit file sealed by an audit key, counted once its time checkpoint has been written."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

BIN = sys.argv[1]
QUIET_S = 3
BOUND = 5


def processes(d):
    procs = {"parent": d.proc.pid, "key-holder": d.keyholder()}
    for i, pid in enumerate(d.workers()):
        procs["signer %d" % i] = pid
    return procs


def check_idle(d, what):
    procs = processes(d)
    c = d.client()
    # The count moves when there is work: the measure is alive.
    before = {k: switches(p) for k, p in procs.items()}
    for i in range(1, 21):
        check(c.call(sign_req(i, key_name("k"), RFC_DIGEST)).ok(SIGN).id == i, "signature %d" % i)
    c.call(frame(PING, 99)).ok(PING)
    c.close()
    check(switches(procs["parent"]) > before["parent"], "%s: the parent's count moves" % what)
    # What is still due after the last request: the status update (1 s), the time checkpoint
    # of the audit's records (2 s) and its seal by the key-holder.
    time.sleep(2.6)
    before = {k: switches(p) for k, p in procs.items()}
    time.sleep(QUIET_S)
    woke = {k: switches(p) - before[k] for k, p in procs.items()}
    print("%s: wake-ups in %d s idle: %s" % (what, QUIET_S, woke))
    for k, n in woke.items():
        check(n < BOUND, "%s: the idle %s woke %d times in %d s" % (what, k, n, QUIET_S))


def main():
    keys = [{"name": "k", "file": RFC_KEY, "nonce": "deterministic"}]
    d = Daemon(BIN, keys=keys)
    check_idle(d, "no audit section")
    d.stop()

    tmp = scratch_dir("p256signd-idle-")
    os.chmod(tmp, 0o755)
    audit_key = os.path.join(tmp, "audit.pem")
    openssl_key(audit_key)
    log = os.path.join(tmp, "audit.jsonl")
    d = Daemon(BIN, keys=keys + [{"name": "audit", "file": audit_key, "purpose": "audit"}],
               extra={"audit": {"journal": False, "file": log, "key": "audit"}})
    check_idle(d, "audit file")
    d.stop()
    with open(log) as f:
        recs = [json.loads(line) for line in f]
    times = [r for r in recs if r["type"] == "checkpoint" and r["reason"] == "time"]
    last_request = max(r["seq"] for r in recs if r["type"] == "request")
    check(any(r["covers_seq"] >= last_request for r in times),
          "a time checkpoint sealed the last request before the idle count: %s" % times)
    subprocess.run(["rm", "-rf", tmp], check=True)
    print("ok")


main()
