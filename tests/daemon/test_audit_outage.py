#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""An audit outage under signing load (docs/audit.md, "When records cannot be written"): clients
sign, ping and are denied from several connections while the audit file's tmpfs is filled up and
then freed. Afterwards every answer a client received is checked against the log: every
signature has its `ok` record; every audit-unavailable answer, ping and denial has its record,
or is counted in a `dropped` record (by op and result, exactly the answers without a record);
every `ok` record of a signature that was withheld is followed by the audit-unavailable record
of the same conn and id; the daemon says when writing resumed; p256signctl audit-verify finds
the log intact and ended by the stop checkpoint. No timing is asserted: the load runs until
each phase has been seen."""
import collections
import hashlib
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

AUDIT_UNAVAILABLE = 20
RESULT = {AUDIT_UNAVAILABLE: "audit-unavailable", E["denied"]: "denied"}
PHASE_S = 60    # at most, for the load to reach each phase (a bound, not a measure)


def sha(data):
    return hashlib.sha256(data).hexdigest()


class Load:
    """Threads of pipelined requests, each on its connection with ids of its own: 14 SIGN, a
    PING and a SIGN with the audit key (denied) to a batch. Keeps every answer by id."""

    def __init__(self, d, threads=4):
        self.answers = {}       # id -> (op, result, signature or None)
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.counts = collections.Counter()
        self.errors = []
        self.threads = [threading.Thread(target=self.run, args=(d, n)) for n in range(threads)]
        for t in self.threads:
            t.start()

    def run(self, d, n):
        c = d.client()
        i = (n + 1) * 10 ** 6
        try:
            while not self.stopping.is_set():
                batch, kinds = [], {}
                for k in range(16):
                    rid = i + k
                    if k == 7:
                        batch.append(frame(PING, rid))
                        kinds[rid] = "ping"
                    elif k == 15:
                        batch.append(sign_req(rid, key_name("audit"), RFC_DIGEST))
                        kinds[rid] = "sign"
                    else:
                        batch.append(sign_req(rid, key_name("rfc"), RFC_DIGEST))
                        kinds[rid] = "sign"
                c.send(b"".join(batch))
                for _ in batch:
                    r = c.recv()
                    if r is None:
                        self.errors.append("connection %d closed" % n)
                        return
                    op = kinds[r.id]
                    if r.type == ERROR:
                        answer = (op, RESULT.get(r.error, "error %d" % r.error), None)
                    else:
                        answer = (op, "ok", r.signature() if op == "sign" else None)
                    with self.lock:
                        self.answers[r.id] = answer
                        self.counts[answer[:2]] += 1
                i += 16
        finally:
            c.close()

    def count(self, op, result):
        with self.lock:
            return self.counts[(op, result)]

    def wait_for(self, op, result, more, what):
        """Until `more` answers of op and result beyond the present ones were received."""
        want = self.count(op, result) + more
        end = time.monotonic() + PHASE_S
        while self.count(op, result) < want:
            check(time.monotonic() < end and not self.errors,
                  "the load reaches %s (%s)" % (what, self.errors))
            time.sleep(0.02)

    def stop(self):
        self.stopping.set()
        for t in self.threads:
            t.join(TIMEOUT)
        check(not self.errors, "load: %s" % self.errors)


def fill(path):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"x" * 65536)
    except OSError:
        pass
    try:
        while True:
            os.write(fd, b"x")
    except OSError:
        pass
    os.close(fd)


def records(path):
    with open(path, "rb") as f:
        data = f.read()
    check(data.endswith(b"\n"), "the log ends with a whole line")
    return [json.loads(line) for line in data.split(b"\n")[:-1]]


def kinds_of(dropped):
    """The counts of a dropped record's kinds, by (op, result)."""
    counts = collections.Counter()
    for entry in dropped["kinds"].split(", "):
        parts = entry.split(" ")
        counts[tuple(parts[:-1]) if len(parts) == 3 else ("other", "")] += int(parts[-1])
    return counts


def check_log(recs, answers):
    requests = [(i, r) for i, r in enumerate(recs) if r["type"] == "request"]
    by_id = collections.defaultdict(list)
    for i, r in requests:
        by_id[r["id"]].append((i, r))
    unrecorded = collections.Counter()
    withheld = 0
    for rid, (op, result, sig) in answers.items():
        recs_of = by_id.get(rid, [])
        if sig is not None:
            check([r["result"] for _, r in recs_of] == ["ok"] and
                  recs_of[0][1]["sig_sha256"] == sha(sig),
                  "id %d: the signature received has its ok record, once: %s" % (rid, recs_of))
            continue
        given = [(i, r) for i, r in recs_of if r["result"] == result]
        check(len(given) <= 1, "id %d: its answer recorded once: %s" % (rid, recs_of))
        if not given:
            unrecorded[(op, result)] += 1
        oks = [(i, r) for i, r in recs_of if r["result"] == "ok" and result != "ok"]
        if oks:     # a signature withheld whose ok line was cut: its answer's record after it
            withheld += 1
            check(result == "audit-unavailable" and len(oks) == 1 and given and
                  given[0][0] > oks[0][0] and given[0][1]["conn"] == oks[0][1]["conn"],
                  "id %d: a withheld signature's ok record is followed by its audit-unavailable "
                  "record: %s" % (rid, recs_of))
    dropped = collections.Counter()
    for r in recs:
        if r["type"] == "dropped":
            dropped += kinds_of(r)
            check(sum(kinds_of(r).values()) == r["records"], "dropped: records is the sum")
    check(unrecorded == dropped, "the answers without a record are those counted dropped: "
          "%s, dropped %s" % (dict(unrecorded), dict(dropped)))
    return withheld, sum(dropped.values())


def main():
    binary = sys.argv[1]
    ctl = os.path.join(os.path.dirname(os.path.abspath(binary)), "..", "client", "ctl",
                       "p256signctl")
    tmp = scratch_dir("p256signd-outage-")
    os.chmod(tmp, 0o755)
    mnt = os.path.join(tmp, "fs")
    os.mkdir(mnt)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m,mode=0755", "tmpfs", mnt], check=True)
    d = None
    try:
        audit_key = os.path.join(tmp, "audit.pem")
        openssl_key(audit_key)
        path, filler = os.path.join(mnt, "audit.jsonl"), os.path.join(mnt, "filler")
        d = Daemon(binary, keys=[{"name": "rfc", "file": RFC_KEY},
                                 {"name": "audit", "file": audit_key, "purpose": "audit"}],
                   extra={"audit": {"journal": False, "file": path, "key": "audit",
                                    "checkpoint_every": 100}})
        c = d.client()
        _, _, spki = c.pubkey("audit")
        pub = os.path.join(tmp, "audit-pub.der")
        with open(pub, "wb") as f:
            f.write(spki)
        load = Load(d)
        load.wait_for("sign", "ok", 200, "signatures before the outage")
        fill(filler)
        load.wait_for("sign", "audit-unavailable", 200, "signing refused on the full disk")
        load.wait_for("ping", "ok", 20, "pings answered during the outage")
        st = c.call(frame(STATUS, 900001)).ok(STATUS).json()["audit"]
        check(st["state"] == "failing" and "No space" in st["error"], "STATUS: %s" % st)
        load.answers[900001] = ("status", "ok", None)
        os.unlink(filler)
        load.wait_for("sign", "ok", 200, "signatures after the outage")
        load.stop()
        st = c.call(frame(STATUS, 900002)).ok(STATUS).json()["audit"]
        check(st["state"] == "ok" and st["queued"] == 0, "STATUS after the outage: %s" % st)
        load.answers[900002] = ("status", "ok", None)
        c.close()
        log = d.stop()
        d = None
        check("audit: writing resumed after" in log, "the daemon says writing resumed:\n" + log)
        recs = records(path)
        withheld, dropped = check_log(recs, load.answers)
        # One outage, one line cut at most: a withheld signature's own ok record is not queued.
        check(withheld <= 1, "%d withheld signatures have an ok record" % withheld)
        v = subprocess.run([ctl, "audit-verify", path, "--pubkey", pub, "--expect-stopped"],
                           capture_output=True, text=True)
        check(v.returncode == 0 and "ends with a stop checkpoint" in v.stdout,
              "audit-verify: %d %s %s" % (v.returncode, v.stdout, v.stderr))
        print("%d answers: %s; %d records, %d withheld signatures with a cut ok line, "
              "%d answers dropped" % (len(load.answers), dict(load.counts), len(recs), withheld,
                                      dropped))
    finally:
        if d is not None and d.proc.poll() is None:
            d.proc.kill()
            d.proc.wait()
        subprocess.run(["umount", mnt], check=True)
        subprocess.run(["rm", "-rf", tmp], check=True)
    print("ok")


main()
