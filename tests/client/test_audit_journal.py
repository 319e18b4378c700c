#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""p256signctl audit-verify --journal on the journal's copy of a real daemon's audit trail:
p256signd logs to systemd-journald itself (run here in a private mount namespace,
tests/daemon/journaldlib.py) and to its file, and the records rebuilt from the entries'
P256SIGN_* fields are the file's lines: the same chain, the same last hash, intact and ending
with the stop checkpoint, from a file or standard input, among journald's own entries. Clients
whose process names need escapes (a newline, a quote, a control byte that journalctl shows as an
array of bytes) verify too. Then the journalctl -o json output is tampered with: a field
changed, a number spelled otherwise, a field added, an entry dropped, two swapped, a seal's
signature changed, an entry given another host: each fails at the entry it breaks, with the
check that failed. Records that only the journal got (an entry twice; a fork of two records
that the next one replaces) are counted as superseded, but never one a checkpoint sealed. Two hosts' entries interleaved need --host, and each host then verifies.

Usage: test_audit_journal.py P256SIGND P256SIGNCTL"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "daemon"))
import journaldlib  # noqa: E402
from daemonlib import *  # noqa: E402,F403

journaldlib.enter_namespace()
binary, ctl = sys.argv[1], sys.argv[2]
COMMS = ["ev\nP256SIGN_X=1", 'q"\x01\\\u00e9t\u00e9']     # a newline; a quote, a control byte


def verify(path, *args, stdin=None):
    r = subprocess.run([ctl, "audit-verify", "--journal"] + ([path] if path else []) +
                       list(args), capture_output=True, text=True, input=stdin)
    return r.returncode, r.stdout + r.stderr


def expect(entries, status, words, *args, tmp):
    """entries (the journalctl -o json objects) written as its output and verified: status and
    words in the output."""
    path = os.path.join(tmp, "tampered.json")
    with open(path, "w") as f:
        f.writelines(json.dumps(e) + "\n" for e in entries)
    code, out = verify(path, *args)
    check(code == status and words in out,
          "%s: exit %d (not %d), %r not in:\n%s" % (words, code, status, words, out))


def audit_index(entries):
    return [i for i, e in enumerate(entries) if "P256SIGN_TYPE" in e]


def first_of(entries, **fields):
    return next(i for i in audit_index(entries)
                if all(entries[i].get(k) == v for k, v in fields.items()))


def tampered(entries, tmp, pub, ident):
    idx = audit_index(entries)
    req = first_of(entries, P256SIGN_TYPE="request", P256SIGN_OP="sign")
    cp = first_of(entries, P256SIGN_TYPE="checkpoint")
    seq = int(entries[req]["P256SIGN_SEQ"])

    def edit(i, **fields):
        out = [dict(e) for e in entries]
        out[i].update(fields)
        return out

    expect(edit(req, P256SIGN_PEER_UID="12345"), 1,
           "seq %d: prev is not the SHA-256 of the line before (seq %d)" % (seq + 1, seq),
           "--pubkey", pub, tmp=tmp)
    expect(edit(req, P256SIGN_US="0" + entries[req]["P256SIGN_US"]), 1,
           "member 'us': field P256SIGN_US is not an integer in decimal", tmp=tmp)
    expect(edit(req, P256SIGN_EXTRA="1"), 1, "field P256SIGN_EXTRA: not a member of this record",
           tmp=tmp)
    expect(edit(req, P256SIGN_KEY=["rfc", "rfc"]), 1, "field P256SIGN_KEY: given more than once",
           tmp=tmp)
    expect(edit(req, P256SIGN_DIGEST=None), 1, "give journalctl --all", tmp=tmp)
    sig = entries[cp]["P256SIGN_SIG"]
    expect(edit(cp, P256SIGN_SIG=sig[:-2] + ("00" if sig[-2:] != "00" else "01")), 1,
           "sig does not verify with the audit key", tmp=tmp)
    dropped = [e for i, e in enumerate(entries) if i != req]
    expect(dropped, 1, "seq %d after %d: a record is missing" % (seq + 1, seq - 1), tmp=tmp)
    swapped = [dict(e) for e in entries]
    nxt = idx[idx.index(req) + 1]
    swapped[req], swapped[nxt] = swapped[nxt], swapped[req]
    expect(swapped, 1, "seq %d after %d" % (seq + 1, seq - 1), tmp=tmp)
    # Records the journal got and the file did not: the same record again (a write made
    # again), or another record of its seq (the daemon killed between journald and the file,
    # then its next start continuing the file): taken, counted; never in place of one a
    # checkpoint sealed.
    again = entries[:req + 1] + [dict(entries[req])] + entries[req + 1:]
    expect(again, 0, "1 of the records superseded", tmp=tmp)
    lost = [dict(entries[idx[idx.index(req) + k]]) for k in (0, 1)]
    lost[1]["P256SIGN_US"] = str(int(lost[1]["P256SIGN_US"]) + 1)    # its line differs
    forked = entries[:req] + lost + entries[req:]
    expect(forked, 0, "2 of the records superseded", "--pubkey", pub, tmp=tmp)
    covered = int(entries[cp]["P256SIGN_COVERS_SEQ"])
    sealed = first_of(entries, P256SIGN_SEQ=str(covered))
    expect(entries[:cp + 1] + [entries[sealed]] + entries[cp + 1:], 1,
           "seq %d after %d" % (covered, int(entries[cp]["P256SIGN_SEQ"])), tmp=tmp)
    # The oldest entries vacuumed, the open record among them: the key from --pubkey.
    vacuumed = [e for i, e in enumerate(entries) if i != idx[0]]
    expect(vacuumed, 1, "no audit key to check the seal: no open record before it", tmp=tmp)
    expect(vacuumed, 0, "the chain continues an earlier file not given: starts at seq 2",
           "--pubkey", pub, tmp=tmp)
    # An entry of another host: without --host, two hosts; with it, the entry is left out.
    other = edit(req, _MACHINE_ID="0" * 32, _HOSTNAME="other")
    expect(other, 2, "entries of more than one host", tmp=tmp)
    expect(other, 1, "seq %d after %d" % (seq + 1, seq - 1), "--host", ident, tmp=tmp)
    # Not journalctl -o json, and a journal with no audit entry.
    for host in ([], ["--host", ident]):
        expect(entries[:idx[0]] + ["not an entry"] + entries[idx[0]:], 1,
               "not a journal entry of journalctl -o json", *host, tmp=tmp)
    expect(entries[:idx[0]], 1, "no audit entry (one with P256SIGN_TYPE)", tmp=tmp)


def two_hosts(entries, tmp, ident):
    """The entries of a second host (a copy, its host fields changed) interleaved with the
    first's, as a collector's journal gives them."""
    copy = [dict(e, _MACHINE_ID="1" * 32, _HOSTNAME="signer-b") for e in entries]
    mixed = [e for pair in zip(entries, copy) for e in pair]
    expect(mixed, 2, "verify each with --host", tmp=tmp)
    n = len(audit_index(entries))
    expect(mixed, 0, "%d audit entries of other hosts left out" % n, "--host", ident, tmp=tmp)
    expect(mixed, 0, "intact: the journal of host signer-b (machine id %s)" % ("1" * 32),
           "--host", "signer-b", tmp=tmp)


def main():
    tmp = scratch_dir("p256signctl-journal-")
    try:
        ident = journaldlib.setup(tmp)
        journaldlib.start()
        audit_key = os.path.join(tmp, "audit.pem")
        openssl_key(audit_key)
        pub = os.path.join(tmp, "audit.pub")
        subprocess.run(["openssl", "pkey", "-in", audit_key, "-pubout", "-out", pub], check=True)
        path = os.path.join(tmp, "audit.jsonl")
        d = Daemon(binary, keys=[{"name": "rfc", "file": RFC_KEY, "nonce": "deterministic"},
                                 {"name": "audit", "file": audit_key, "purpose": "audit"}],
                   extra={"audit": {"journal": True, "file": path, "key": "audit",
                                    "checkpoint_every": 7}})
        for n, comm in enumerate(COMMS):
            with open("/proc/self/comm", "w") as f:
                f.write(comm)
            c = d.client()
            for i in range(12):
                c.call(sign_req(i + 1, key_name("rfc"), RFC_DIGEST)).ok(SIGN)
            c.expect_error(sign_req(99, key_name("nope"), RFC_DIGEST), E["unknown_key"])
            c.close()
        d.stop()
        subprocess.run(["journalctl", "-D", journaldlib.JOURNAL_DIR, "--sync"], check=False)
        journal = os.path.join(tmp, "journal.json")
        with open(journal, "w") as f:
            subprocess.run(["journalctl", "-D", journaldlib.JOURNAL_DIR, "-o", "json",
                            "--no-pager"], stdout=f, check=True)
        with open(path) as f:
            lines = f.read().splitlines()
        with open(journal) as f:
            entries = [json.loads(line) for line in f]
        check(any("P256SIGN_TYPE" not in e for e in entries), "journald's own entries too")
        check(any(isinstance(e.get("P256SIGN_PEER_COMM"), list) for e in entries),
              "a process name journalctl shows as bytes")

        code, out = verify(journal, "--pubkey", pub)
        check(code == 0 and out.startswith("intact: the journal of host ") and
              "(machine id %s), %d records" % (ident, len(lines)) in out and
              "ends with a stop checkpoint" in out, "the journal: exit %d\n%s" % (code, out))
        r = subprocess.run([ctl, "--json", "audit-verify", path, "--pubkey", pub],
                           capture_output=True, text=True)
        from_file = json.loads(r.stdout)
        with open(journal) as f:
            code, out = verify(None, "--pubkey", pub, "--json", stdin=f.read())
        from_journal = json.loads(out)
        check(code == 0 and from_journal["last_hash"] == from_file["last_hash"] and
              from_journal["superseded"] == 0 and
              from_journal["records"] == from_file["records"] == len(lines) and
              from_journal["machine_id"] == ident,
              "the journal's chain is the file's: %s, %s" % (from_journal, from_file))
        tampered(entries, tmp, pub, ident)
        two_hosts(entries, tmp, ident)
    finally:
        journaldlib.cleanup()
        subprocess.run(["rm", "-rf", tmp], check=True)
    print("ok")


main()
