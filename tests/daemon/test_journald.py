#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The audit's journal destination through systemd-journald itself (the system's, run here): in a
private mount namespace /run is a tmpfs, journald runs on it with volatile storage, and
p256signd logs to it and to its audit file. Read back with `journalctl -o json`, every record of
the file is one journal entry, in order, whose P256SIGN_* fields are the record's members and
nothing else: a client whose process name holds a newline and a field of its own
("ev\\nP256SIGN_X=1") gets that name as one field, no P256SIGN_X. The entry is the daemon's
(_PID, SYSLOG_IDENTIFIER, PRIORITY, MESSAGE). journald stopped and started again: signing fails
closed meanwhile and comes back by itself, and the records after the restart reach the new
journald."""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import journaldlib  # noqa: E402
from daemonlib import *  # noqa: E402,F403

journaldlib.enter_namespace()
COMM = "ev\nP256SIGN_X=1"       # 15 bytes: the longest a process name can be
start_journald, stop_journald = journaldlib.start, journaldlib.stop


def entries():
    """The journal's entries from p256signd, oldest first; a field journalctl shows as an array
    of bytes (a newline in it) as its text."""
    r = subprocess.run(["journalctl", "-D", "/run/log/journal", "-o", "json", "--all",
                        "--no-pager", "SYSLOG_IDENTIFIER=p256signd"],
                       capture_output=True, text=True)
    check(r.returncode == 0, "journalctl: %s" % r.stderr)
    out = []
    for line in r.stdout.splitlines():
        e = json.loads(line)
        out.append({k: bytes(v).decode() if isinstance(v, list) else v for k, v in e.items()})
    return out


def wait_for_entries(path, checkpoints):
    """The file's records, once it has at least `checkpoints` checkpoints and the journal as
    many entries as the file has lines. The journal is read first: a record goes to it before
    the file, so a record written between the two reads makes them differ. A checkpoint comes
    when the key-holder answers, after the records it covers: on a busy machine the two can
    agree before the last one is written."""
    deadline = time.monotonic() + 10
    while True:
        got = entries()
        with open(path) as f:
            recs = [json.loads(l) for l in f]
        if len(got) == len(recs) and sum(r["type"] == "checkpoint" for r in recs) >= checkpoints:
            return recs, got
        check(time.monotonic() < deadline, "%d records in the file, %d in the journal, "
              "%d checkpoints wanted" % (len(recs), len(got), checkpoints))
        time.sleep(0.1)


def same_records(recs, got, pid):
    check(len(got) == len(recs), "one journal entry a record: %d for %d" % (len(got), len(recs)))
    for rec, e in zip(recs, got):
        want = journal_fields(rec)
        have = {k: v for k, v in e.items() if k.startswith("P256SIGN_")}
        check(have == want, "record %d: journal fields %s, file members %s" % (rec["seq"], have, want))
        check(e["_PID"] == str(pid) and e["PRIORITY"] == "6" and
              e["MESSAGE"].startswith("audit %s %d" % (rec["type"], rec["seq"])),
              "record %d: the daemon's entry (_PID, PRIORITY, MESSAGE): %s" % (rec["seq"], e))


def main():
    binary = sys.argv[1]
    tmp = scratch_dir("p256signd-journald-")
    try:
        journaldlib.setup(tmp)
        journald = start_journald()
        audit_key = os.path.join(tmp, "audit.pem")
        openssl_key(audit_key)
        path = os.path.join(tmp, "audit.jsonl")
        d = Daemon(binary, keys=[{"name": "rfc", "file": RFC_KEY, "nonce": "deterministic"},
                                 {"name": "audit", "file": audit_key, "purpose": "audit"}],
                   extra={"audit": {"journal": True, "file": path, "key": "audit",
                                    "checkpoint_every": 10}})
        with open("/proc/self/comm", "w") as f:
            f.write(COMM)
        c = d.client()
        for i in range(25):
            c.call(sign_req(i + 1, key_name("rfc"), RFC_DIGEST)).ok(SIGN)
        c.expect_error(sign_req(99, key_name("audit"), RFC_DIGEST), E["denied"])  # the audit key
        recs, got = wait_for_entries(path, 2)     # after records 10 and 20
        same_records(recs, got, d.proc.pid)
        signs = [e for e in got if e.get("P256SIGN_OP") == "sign"]
        check(len(signs) == 26 and all(e["P256SIGN_PEER_COMM"] == COMM for e in signs),
              "the client's name, newline and all, as one field: %s" % signs[:1])
        check(sum(r["type"] == "checkpoint" for r in recs) >= 2, "checkpoints in the journal too")

        # journald stops: signing fails closed; it starts again: signing comes back by itself.
        stop_journald(journald)
        c.expect_error(sign_req(200, key_name("rfc"), RFC_DIGEST), E["audit_unavailable"])
        journald = start_journald()
        c.wait_signed(201, "rfc", 10, "signing did not come back after journald did")
        c.close()
        d.stop()
        stop_journald(journald)
        # Every record the file has, the two journals have: the first's and the second's,
        # read together from the same directory.
        recs, got = wait_for_entries(path, 3)     # and the stop checkpoint
        same_records(recs, got, d.proc.pid)
        check(recs[-1]["type"] == "checkpoint" and recs[-1]["reason"] == "stop",
              "the stop checkpoint, last: %s" % recs[-1])
    finally:
        journaldlib.cleanup()
        subprocess.run(["rm", "-rf", tmp], check=True)
    print("ok")


main()
