#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The audit's journal destination end to end: p256signd in a private mount namespace whose
/run/systemd/journal/socket is this test's own socket, speaking journald's native protocol.
Every record arrives as P256SIGN_* fields equal to the file's record; a journald that stops
reading for a moment (its queue full) holds the replies back and fails nothing; one that stays
stuck past the bound, or is gone, fails closed with audit-unavailable, and signing comes back by
itself once it reads again."""
import hashlib
import json
import os
import socket
import struct
import subprocess
import sys
import threading
import time

if os.environ.get("P256SIGN_TEST_NS") != "1":
    os.environ["P256SIGN_TEST_NS"] = "1"
    os.execvp("unshare", ["unshare", "--mount", "--propagation", "private", sys.executable] +
              sys.argv)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

AUDIT_UNAVAILABLE = 20
JOURNAL = "/run/systemd/journal/socket"


def parse_entry(data):
    """A native-protocol datagram: KEY=value lines, or KEY, a newline, a u64le length, the value
    and a newline."""
    fields, i = {}, 0
    while i < len(data):
        nl = data.index(b"\n", i)
        line = data[i:nl]
        if b"=" in line:
            k, v = line.split(b"=", 1)
            i = nl + 1
        else:
            (n,) = struct.unpack("<Q", data[nl + 1:nl + 9])
            k, v = line, data[nl + 9:nl + 9 + n]
            check(data[nl + 9 + n:nl + 10 + n] == b"\n", "binary field ends in a newline")
            i = nl + 10 + n
        fields[k.decode()] = v.decode()
    return fields


class Journal:
    """A journald stand-in: a datagram socket at JOURNAL, read by a thread while `reading` is set."""

    def __init__(self):
        self.entries = []
        self.reading = threading.Event()
        self.reading.set()
        self.open()

    def open(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(JOURNAL)
        os.chmod(JOURNAL, 0o666)
        self.sock.settimeout(0.05)
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop:
            if not self.reading.wait(0.05):
                continue
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            self.entries.append(parse_entry(data))

    def close(self):
        self.stop = True
        self.thread.join()
        self.sock.close()
        os.unlink(JOURNAL)


def pipeline(c, first, n, key="rfc"):
    """n SIGN requests sent at once; returns their responses by id."""
    digest = bytes(32)
    c.send(b"".join(sign_req(first + i, key_name(key), digest) for i in range(n)))
    got = {}
    while len(got) < n:
        r = c.recv()
        check(r is not None, "connection closed after %d of %d answers" % (len(got), n))
        got[r.id] = r
    return got


def main():
    binary = sys.argv[1]
    # journald's socket lives on this namespace's own /run; the daemon's are in a temporary one.
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m,mode=0755", "tmpfs", "/run"], check=True)
    os.makedirs(os.path.dirname(JOURNAL))
    j = Journal()
    tmp = scratch_dir("p256signd-journal-")
    # The tmpfs on /run goes with this process's mount namespace, also after a failure.
    try:
        os.chmod(tmp, 0o755)
        audit_key = os.path.join(tmp, "audit.pem")
        openssl_key(audit_key)
        path = os.path.join(tmp, "audit.jsonl")
        d = Daemon(binary, keys=[{"name": "rfc", "file": RFC_KEY, "nonce": "deterministic"},
                                 {"name": "audit", "file": audit_key, "purpose": "audit"}],
                   extra={"audit": {"journal": True, "file": path, "key": "audit"}})
        c = d.client()

        # Every record, the open record first, reaches the journal with the file's members.
        r = c.call(sign_req(1, key_name("rfc"), RFC_DIGEST)).ok(SIGN)
        sig = r.body[2:]
        time.sleep(0.2)
        with open(path) as f:
            recs = [json.loads(l) for l in f]
        by_seq = {int(e["P256SIGN_SEQ"]): e for e in j.entries}
        for rec in recs:
            e = by_seq.get(rec["seq"])
            check(e is not None, "record %d in the journal" % rec["seq"])
            for name, v in journal_fields(rec).items():
                check(e.get(name) == v, "journal field %s of record %d: %s"
                      % (name, rec["seq"], e.get(name)))
            check(e["SYSLOG_IDENTIFIER"] == "p256signd" and e["PRIORITY"] == "6" and
                  e["MESSAGE"].startswith("audit %s %d" % (rec["type"], rec["seq"])),
                  "MESSAGE, PRIORITY, SYSLOG_IDENTIFIER: %s" % e)
        sign_rec = [e for e in j.entries if e.get("P256SIGN_OP") == "sign"]
        check(len(sign_rec) == 1 and sign_rec[0]["P256SIGN_DIGEST"] == RFC_DIGEST.hex() and
              sign_rec[0]["P256SIGN_SIG_SHA256"] == hashlib.sha256(sig).hexdigest() and
              sign_rec[0]["P256SIGN_PEER_UID"] == "0",
              "the signature's record: digest, sig_sha256, peer uid: %s" % sign_rec)

        # journald stops reading: its queue fills, the replies wait for their records; it reads
        # again within the bound, and every request is signed.
        qlen = int(open("/proc/sys/net/unix/max_dgram_qlen").read())
        n = qlen + 200
        j.reading.clear()
        time.sleep(0.1)
        done = {}
        t = threading.Thread(target=lambda: done.update(pipeline(c, 100, n)))
        t.start()
        time.sleep(0.4)
        check(t.is_alive(), "replies held while the journal's queue is full")
        j.reading.set()
        t.join(30)
        check(not t.is_alive() and len(done) == n, "all %d answered" % n)
        bad = sorted(set(r.error for r in done.values() if r.type != SIGN | RESPONSE))
        check(not bad, "a busy journald fails nothing: errors %s\n%s" % (bad, d.log_text()[-3000:]))
        check(c.call(frame(STATUS, 2)).ok(STATUS).json()["audit"]["state"] == "ok", "audit ok")

        # Stuck past the bound (1 s): the records are refused, signing fails closed, PING works;
        # once journald reads again, signing resumes by itself.
        j.reading.clear()
        time.sleep(0.1)
        got = pipeline(c, 1000, qlen + 50)
        refused = [r for r in got.values() if r.type == ERROR]
        check(refused and all(r.error == AUDIT_UNAVAILABLE for r in refused),
              "a journald stuck past the bound: audit-unavailable (%d of %d)" % (len(refused), len(got)))
        check(c.call(frame(PING, 3)).ok(PING).id == 3, "PING answered while failing")
        st = c.call(frame(STATUS, 4)).ok(STATUS).json()["audit"]
        check(st["state"] == "failing" and "journal" in st["error"], "STATUS says why: %s" % st)
        j.reading.set()
        c.wait_signed(5, "rfc", 5, "signing did not come back")

        # journald gone: refused at once; back when its socket is.
        j.close()
        c.expect_error(sign_req(6, key_name("rfc"), RFC_DIGEST), AUDIT_UNAVAILABLE)
        j = Journal()
        c.wait_signed(7, "rfc", 5, "signing did not come back after journald did")
        c.close()
        d.stop()
        j.close()
    finally:
        subprocess.run(["rm", "-rf", tmp], check=True)
    print("ok")


main()
