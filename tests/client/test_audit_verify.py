#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""p256signctl audit-verify against audit logs written here from docs/audit.md alone (a second
writer of the format, with checkpoints signed by openssl, s made low): an intact series passes,
and every kind of tampering is reported at the record it breaks, with the check that failed; how
a log ends (stop, reopen, a time or count checkpoint, unsealed records) decides the exit status,
and --expect-stopped and --anchor close what the files alone cannot show. Every format rule of a
member has its refusal; the seeds of the fuzz harness verify. Hostile lines never crash the
verifier (the meson suite runs it in the sanitizer build too).

Usage: test_audit_verify.py P256SIGNCTL OPENSSL"""
import atexit
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

ctl, openssl = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp(prefix="p256signctl-audit-")
atexit.register(shutil.rmtree, tmp, True)     # also when the verifier or a step crashes
failures = []
SEAL_LABEL = b"p256sign audit checkpoint v2\x00"
ZERO = "0" * 64
N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551	# the group order
# Every member a record may have, in the order the daemon writes them (docs/audit.md).
ORDER = ["v", "type", "seq", "time", "prev", "reason", "pid", "audit_key", "conn", "id", "peer",
         "op", "key", "covers_seq", "covers_hash", "key_id", "digest", "message_sha256", "tls",
         "result", "sig_sha256", "sig", "us", "records", "kinds"]
TLS13 = {"kind": "tls13", "side": "server", "transcript_hash": "ab" * 48}
TLS12 = {"kind": "tls12", "side": "client", "content_sha256": "cd" * 32}


def sha256(b):
    return hashlib.sha256(b).hexdigest()


def line_of(obj):
    """A record's line as the daemon writes it: compact, UTF-8 as it is, the escapes JSON needs
    and no other, \\u00XX in upper case (our test strings hold no backslash before a u)."""
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    return re.sub(r"\\u00([0-9a-f]{2})", lambda m: "\\u00" + m.group(1).upper(), text).encode()


def in_order(obj):
    """obj with its members in the daemon's order (unknown ones last)."""
    rank = {name: i for i, name in enumerate(ORDER)}
    return dict(sorted(obj.items(), key=lambda kv: rank.get(kv[0], len(ORDER))))


class Key:
    """A P-256 key from a fixed scalar, as openssl files: key.pem, pub.pem (SubjectPublicKeyInfo,
    the form p256signctl pubkey writes) and pub.der."""

    def __init__(self, name, scalar_hex):
        self.name = name
        der = bytes.fromhex("30310201010420" + scalar_hex + "a00a06082a8648ce3d030107")
        base = os.path.join(tmp, name)
        with open(base + ".der", "wb") as f:
            f.write(der)
        self.pem = base + ".pem"
        self.pub_pem = base + ".pub.pem"
        self.pub_der = base + ".pub.der"
        subprocess.run([openssl, "pkey", "-inform", "DER", "-in", base + ".der", "-out", self.pem],
                       check=True)
        subprocess.run([openssl, "pkey", "-in", self.pem, "-pubout", "-out", self.pub_pem],
                       check=True)
        subprocess.run([openssl, "pkey", "-in", self.pem, "-pubout", "-outform", "DER",
                        "-out", self.pub_der], check=True)
        with open(self.pub_der, "rb") as f:
            spki = f.read()
        self.key_id = sha256(spki)
        self.public = spki[-65:].hex()

    def sign(self, digest, high=False):
        """ECDSA over a 32-byte digest, as r || s in hex (openssl writes DER), with s in its low
        form as the daemon writes it, or in its high form."""
        path = os.path.join(tmp, "digest")
        with open(path, "wb") as f:
            f.write(digest)
        der = subprocess.run([openssl, "pkeyutl", "-sign", "-inkey", self.pem, "-in", path],
                             check=True, stdout=subprocess.PIPE).stdout
        raw = der_to_raw(der)
        s = int.from_bytes(raw[32:], "big")
        if (s > N // 2) != high:
            s = N - s
        return (raw[:32] + s.to_bytes(32, "big")).hex()


def der_to_raw(der):
    """SEQUENCE { INTEGER r, INTEGER s } to 64 bytes r || s."""
    assert der[0] == 0x30
    i = 2
    out = b""
    for _ in range(2):
        assert der[i] == 0x02
        n = der[i + 1]
        out += der[i + 2:i + 2 + n].lstrip(b"\x00").rjust(32, b"\x00")
        i += 2 + n
    return out


def seal_digest(covers_hash, covers_seq, time, reason):
    return hashlib.sha256(SEAL_LABEL + bytes.fromhex(covers_hash) + covers_seq.to_bytes(8, "big") +
                          time.encode() + bytes([len(reason)]) + reason.encode()).digest()


KEY_A = Key("a", "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721")
KEY_B = Key("b", "0f56db78ca460b055c500064824bed999a25aaf48ebb519ac201537b85479813")


class Log:
    """Writes a chain of records across files as the daemon would (docs/audit.md). Each record is
    a dict in the format's member order; mutate(obj) may change it before it is written, with the
    chain still computed over the line as written."""

    def __init__(self, key=KEY_A, seq=0, prev=ZERO):
        self.key = key
        self.seq = seq
        self.prev = prev
        self.hashes = {}
        self.files = []		# lists of lines (bytes, no newline)

    def next_time(self):
        """The time member of the next record."""
        s = self.seq
        return "2026-12-01T12:%02d:%02d.%06dZ" % ((s // 60) % 60, s % 60, s * 7919 % 1000000)

    def record(self, rtype, members, mutate=None, order=True):
        obj = {"v": 1, "type": rtype, "seq": self.seq + 1, "time": self.next_time(),
               "prev": self.prev}
        obj.update(members)
        if mutate:
            mutate(obj)
        line = line_of(in_order(obj) if order else obj)
        self.files[-1].append(line)
        self.seq += 1
        self.prev = sha256(line)
        self.hashes[self.seq] = self.prev
        return self.seq

    def open(self, reason="start", key=None, mutate=None):
        key = key or self.key
        self.files.append([])
        return self.record("open", {"reason": reason, "pid": 4242, "audit_key": {
            "name": "audit", "key_id": key.key_id, "public": key.public}}, mutate)

    def request(self, n=1, op="sign", mutate=None, order=True):
        """n requests of op, each with the member of what it signed (none for other ops)."""
        for _ in range(n):
            i = self.seq
            subject = {"sign": {"digest": sha256(b"digest %d" % i)},
                       "sign-message": {"message_sha256": sha256(b"message %d" % i)},
                       "sign-tls": {"tls": dict(TLS13)}}.get(op, {})
            self.record("request", {
                "conn": 1 + i // 5, "id": i, "peer": {"pid": 1000 + i, "uid": 1000, "gid": 1000,
                                                        "comm": "signer", "unit": "signer.service"},
                "op": op, "key": "release", "key_id": KEY_A.key_id, **subject,
                "result": "ok", "sig_sha256": sha256(b"sig %d" % i), "us": 120 + i}, mutate,
                order)
        return self.seq

    def dropped(self, records=125, kinds="ping ok 5, sign audit-unavailable 120", mutate=None,
                order=True):
        """What an outage's queue could not keep (docs/audit.md)."""
        return self.record("dropped", {"records": records, "kinds": kinds}, mutate, order)

    def checkpoint(self, covers=None, reason="count", key=None, key_id=None, mutate=None,
                   high=False):
        covers = self.seq if covers is None else covers
        key = key or self.key
        h = self.hashes[covers]
        return self.record("checkpoint", {
            "reason": reason, "covers_seq": covers, "covers_hash": h,
            "key_id": key_id or self.key.key_id,
            "sig": key.sign(seal_digest(h, covers, self.next_time(), reason), high)},
            mutate)

    def rotate(self, key=None):
        """SIGHUP after a rename: a reopen checkpoint ends the old file, an open starts the new."""
        self.checkpoint(reason="reopen")
        return self.open("reopen", key)

    def write(self, name, files=None):
        """The files as name.1, name.2 ...; returns their paths."""
        paths = []
        for k, lines in enumerate(self.files if files is None else files):
            path = os.path.join(tmp, "%s.%d" % (name, k + 1))
            with open(path, "wb") as f:
                f.write(b"".join(line + b"\n" for line in lines))
            paths.append(path)
        return paths


def standard_log(**kw):
    """Two files across a rotation, 24 records: checkpoints by count, one covering a record two
    back (the signing round trip), and a stop checkpoint at the end."""
    log = Log(**kw)
    log.open()			# 1
    log.request(4)		# 2-5
    log.checkpoint()		# 6 covers 5
    log.request(3)		# 7-9
    log.checkpoint(covers=8)	# 10 covers 8
    log.request(2)		# 11-12
    log.rotate()		# 13 covers 12, file 2: 14 open
    log.request(5, op="sign-message")  # 15-19
    log.checkpoint(covers=17, reason="time")  # 20 covers 17
    log.request(3)		# 21-23
    log.checkpoint(reason="stop")  # 24 covers 23
    return log


def run(*args):
    p = subprocess.run([ctl, "audit-verify", *args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def expect(name, args, code, *needles, absent=()):
    rc, out, err = run(*args)
    text = out + err
    problems = []
    if rc != code:
        problems.append("exit %d, expected %d" % (rc, code))
    problems += ["no %r" % n for n in needles if n not in text]
    problems += ["unexpected %r" % n for n in absent if n in text]
    if "runtime error" in err or "Sanitizer" in err:
        problems.append("sanitizer report")
    if any(ord(ch) < 0x20 and ch not in "\n" for ch in text):
        problems.append("control characters in the output")
    if problems:
        failures.append("%s: %s\nstdout: %s\nstderr: %s" % (name, "; ".join(problems), out, err))
    return out


def at(path, line, seq):
    """The prefix of a break report."""
    return "%s:%d: seq %d: " % (path, line, seq)


def tampered(name, edit, log=None):
    """The standard log's files, edit(files) applied to a copy of their lines."""
    log = log or standard_log()
    files = [list(lines) for lines in log.files]
    edit(files)
    return log.write(name, files)


def set_member(line, **members):
    obj = json.loads(line)
    obj.update(members)
    return line_of(obj)


def rechain(files, start_file, start_line):
    """What an attacker with write access but no key can do: every prev after an edit fixed."""
    prev = None
    for f in range(len(files)):
        for i in range(len(files[f])):
            if (f, i) > (start_file, start_line):
                files[f][i] = set_member(files[f][i], prev=prev)
            prev = sha256(files[f][i])


# ---- an intact series -----------------------------------------------------------------------
good = standard_log()
paths = good.write("good")
expect("intact", [*paths, "--pubkey", KEY_A.pub_pem], 0,
       "intact: 2 files, 24 records (17 requests, 5 checkpoints), seq 1-24",
       "from 2026-12-01T12:00:00.000000Z to 2026-12-01T12:00:23.", "audit key: " + KEY_A.key_id,
       absent=("not sealed", "key taken", "continues"))
expect("intact, --pubkey first", ["--pubkey", KEY_A.pub_pem, *paths], 0, "intact: 2 files")
expect("intact, DER --pubkey", [*paths, "--pubkey", KEY_A.pub_der], 0, "intact: 2 files")
expect("no --pubkey: the warning", paths, 0,
       "key taken from the log itself: pass --pubkey to check it is yours")
out = expect("--json", ["--json", *paths, "--pubkey", KEY_A.pub_pem], 0)
try:
    j = json.loads(out)
    if (j["intact"], j["files"], j["records"], j["requests"], j["checkpoints"], j["first_seq"],
            j["last_seq"], j["key_id"], j["key_from_log"], j["unsealed"]) != \
            (True, 2, 24, 17, 5, 1, 24, KEY_A.key_id, False, 0):
        failures.append("--json: %r" % j)
except (ValueError, KeyError) as e:
    failures.append("--json: %s in %r" % (e, out))
expect("--pubkey of another key", [*paths, "--pubkey", KEY_B.pub_pem], 1,
       at(paths[0], 1, 1) + "audit_key is another key", "(--pubkey)")
expect("the second file alone", [paths[1], "--pubkey", KEY_A.pub_pem], 0,
       "the chain continues an earlier file not given: starts at seq 14")

# A checkpoint may cover the line before the first one given: its hash is that line's prev.
log = Log(seq=99, prev=sha256(b"an earlier line"))
log.hashes[99] = log.prev
log.open("reopen")
log.request(2)
log.checkpoint(covers=99)
log.checkpoint(reason="stop")
expect("covers the line before the first given", [*log.write("before"), "--pubkey", KEY_A.pub_pem],
       0, "starts at seq 100", absent=("not sealed",))

# ---- edits, deletions, insertions, reordering -----------------------------------------------
p = tampered("edit", lambda f: f[0].__setitem__(2, set_member(f[0][2], id=7777)))
expect("edit a sealed record", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[0], 4, 4) + "prev is not the SHA-256 of the line before")
p = tampered("edit-last", lambda f: f[0].__setitem__(4, set_member(f[0][4], us=9999)))
expect("edit the last record before a checkpoint", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[0], 6, 6) + "prev is not the SHA-256")


def edit_and_rechain(f):
    f[0][6] = set_member(f[0][6], digest="ab" * 32)	# seq 7, sealed by the checkpoint at 10
    rechain(f, 0, 6)


p = tampered("rechain", edit_and_rechain)
expect("edit, every prev after it rewritten", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[0], 10, 10) + "covers_hash is not the SHA-256 of the line with seq 8")


def edit_rechain_and_covers(f):
    edit_and_rechain(f)
    files = [list(x) for x in f]
    # the attacker also puts the new hash of seq 8 into the checkpoint, and rechains after it
    f[0][9] = set_member(f[0][9], covers_hash=sha256(files[0][7]))
    rechain(f, 0, 9)


p = tampered("rechain-covers", edit_rechain_and_covers)
expect("edit, rechained, covers_hash rewritten", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[0], 10, 10) + "sig does not verify with the audit key over the seal of seq 8")
p = tampered("delete", lambda f: f[0].pop(3))
expect("delete a record", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[0], 4, 5) + "seq 5 after 3: a record is missing, inserted or out of order")


def insert(f):
    forged = set_member(f[0][3], id=31337)	# a copy of seq 4 with another request id
    f[0].insert(4, set_member(forged, seq=5, prev=sha256(f[0][3])))


p = tampered("insert", insert)
expect("insert a record", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[0], 6, 5) + "seq 5 after 5")
p = tampered("reorder", lambda f: f[0].insert(3, f[0].pop(2)))
expect("reorder two records", [*p, "--pubkey", KEY_A.pub_pem], 1, at(p[0], 3, 4) + "seq 4 after 2")
p = tampered("duplicate", lambda f: f[0].insert(3, f[0][2]))
expect("duplicate a record", [*p, "--pubkey", KEY_A.pub_pem], 1, at(p[0], 4, 3) + "seq 3 after 3")

# The last checkpoint of a file has no record after it to chain it: its time and reason are
# under its seal.
p = tampered("stop-time", lambda f: f[1].__setitem__(
    10, set_member(f[1][10], time="2026-12-01T11:00:00.000000Z")))
expect("the last checkpoint's time changed", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[1], 11, 24) + "sig does not verify with the audit key over the seal of seq 23")
p = tampered("stop-reason", lambda f: f[1].__setitem__(10, set_member(f[1][10], reason="count")))
expect("the last checkpoint's reason changed", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[1], 11, 24) + "sig does not verify with the audit key over the seal of seq 23")

# ---- truncation -----------------------------------------------------------------------------
p = tampered("cut-sealed", lambda f: f[0].__delitem__(slice(8, None)))
expect("truncate inside the sealed region", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[1], 1, 14) + "the file does not continue the one before: seq 14 after 8")
p = tampered("cut-tail", lambda f: f[1].pop())
expect("truncate after the last checkpoint", [*p, "--pubkey", KEY_A.pub_pem], 3,
       "intact: 2 files, 23 records",
       "6 records after the last checkpoint (seq 18-23) are not sealed: a cut there cannot be "
       "detected")
p = tampered("cut-line", lambda f: f[1].__setitem__(10, f[1][10][:40]))
with open(p[1], "rb+") as fh:	# the last line without its newline: a write cut short
    fh.truncate(os.path.getsize(p[1]) - 1)
expect("truncate inside a line", [*p, "--pubkey", KEY_A.pub_pem], 1,
       "%s:11: the last line has no newline: a record cut short" % p[1])
log = Log()
log.open()
log.request(3)
expect("no checkpoint at all", [*log.write("unsealed"), "--pubkey", KEY_A.pub_pem], 3,
       "intact: 1 file, 4 records (3 requests, 0 checkpoints)",
       "4 records after the last checkpoint (seq 1-4) are not sealed")
log.checkpoint(covers=3)
expect("the last checkpoint does not cover the record before it",
       [*log.write("unsealed-cp"), "--pubkey", KEY_A.pub_pem], 3,
       "2 records after the last checkpoint (seq 4-5) are not sealed")

# ---- checkpoints ----------------------------------------------------------------------------


def checkpoint_log(name, **kw):
    log = Log()
    log.open()
    log.request(3)
    log.checkpoint(**kw)
    log.request(1)
    return log.write(name)


p = checkpoint_log("cp-sig", mutate=lambda o: o.update(sig="00" + o["sig"][2:]))
expect("a checkpoint with a wrong signature", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[0], 5, 5) + "sig does not verify")
p = checkpoint_log("cp-key", key=KEY_B)
expect("a checkpoint signed by another key", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[0], 5, 5) + "sig does not verify")
p = checkpoint_log("cp-key-id", key=KEY_B, key_id=KEY_B.key_id)
expect("a checkpoint naming another key", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[0], 5, 5) + "key_id is not the audit key's")
p = checkpoint_log("cp-hash", mutate=lambda o: o.update(covers_hash=sha256(b"x")))
expect("a wrong covers_hash", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[0], 5, 5) + "covers_hash is not the SHA-256 of the line with seq 4")
p = checkpoint_log("cp-self", mutate=lambda o: o.update(covers_seq=5))
expect("a checkpoint covering itself", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[0], 5, 5) + "covers_seq 5 is not before the checkpoint")
log = Log()
log.open()
log.request(3)
log.checkpoint(covers=4)
log.checkpoint(covers=3)
p = log.write("cp-back")
expect("covers_seq going back", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[0], 6, 6) + "covers_seq 3 is before the previous checkpoint's 4")
log = Log(seq=99, prev=sha256(b"an earlier line"))
log.hashes[98] = sha256(b"not known")
log.open("reopen")
log.checkpoint(covers=98)
p = log.write("cp-before")
expect("covers a record before the first given", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[0], 2, 101) + "covers_seq 98 is before the first record given (seq 100)")

# ---- files and audit keys -------------------------------------------------------------------
log = Log()
log.open()
log.request(2)
log.rotate(key=KEY_B)
log.request(1)
p = log.write("other-key")
expect("an open record with another audit key", p, 1,
       at(p[1], 1, 5) + "audit_key is another key (key id %s...)" % KEY_B.key_id[:16],
       "the first open record's")
expect("files out of order", [paths[1], paths[0], "--pubkey", KEY_A.pub_pem], 1,
       at(paths[0], 1, 1) + "the file does not continue the one before: seq 1 after 24")
log = standard_log()
log.rotate()
log.request(2)
log.checkpoint(reason="stop")
p = log.write("three")
expect("three files", [*p, "--pubkey", KEY_A.pub_pem], 0, "intact: 3 files")
expect("a missing middle file", [p[0], p[2], "--pubkey", KEY_A.pub_pem], 1,
       at(p[2], 1, 26) + "the file does not continue the one before: seq 26 after 13")
p = tampered("no-open", lambda f: f[1].pop(0))
expect("a file that does not open with an open record", [p[1], "--pubkey", KEY_A.pub_pem], 1,
       at(p[1], 1, 15) + "the first record of a file is not an open record")
with open(os.path.join(tmp, "empty"), "wb"):
    pass
expect("an empty file", [paths[0], os.path.join(tmp, "empty")], 1,
       os.path.join(tmp, "empty") + ": empty: an audit file opens with an open record")
log = Log(seq=4)
log.open()
p = log.write("zero-prev")
expect("a chain start with seq 5", p, 1,
       at(p[0], 1, 5) + "prev is 64 zeros (a chain start) but seq is not 1")

# ---- malformed records ----------------------------------------------------------------------


def request_log(name, mutate=None, raw=None, op="sign", order=True):
    """open, two requests, the second (of op) changed by mutate or replaced by the raw line."""
    log = Log()
    log.open()
    log.request(1)
    log.request(1, op=op, mutate=mutate, order=order)
    if raw is not None:
        log.files[-1][-1] = raw
    return log.write(name)


p = request_log("long", mutate=lambda o: o["peer"].update(comm="x" * 5000))
expect("a line too long", p, 1, "%s:3: a line longer than 4096 bytes" % p[0])
p = request_log("json", raw=b'{"v":1,"type":"request",')
expect("invalid JSON", p, 1, "%s:3: not valid JSON" % p[0])
p = request_log("array", raw=b"[1,2]")
expect("not an object", p, 1, "%s:3: not a JSON object" % p[0])
p = request_log("missing", mutate=lambda o: o.pop("result"))
expect("a missing member", p, 1, at(p[0], 3, 3) + "member 'result': missing")
p = request_log("missing-nested", mutate=lambda o: o["peer"].pop("uid"))
expect("a missing nested member", p, 1, at(p[0], 3, 3) + "member 'peer.uid': missing")
p = request_log("seq-str", mutate=lambda o: o.update(seq="3"))
expect("seq as a string", p, 1, "%s:3: member 'seq': not an integer" % p[0])
p = request_log("uid-str", mutate=lambda o: o["peer"].update(uid="1000"))
expect("peer.uid as a string", p, 1, at(p[0], 3, 3) + "member 'peer.uid': not an integer")
p = request_log("id-real", mutate=lambda o: o.update(id=2.0))
expect("id as a real", p, 1, at(p[0], 3, 3) + "member 'id': not an integer")
p = request_log("peer-str", mutate=lambda o: o.update(peer="me"))
expect("peer not an object", p, 1, at(p[0], 3, 3) + "member 'peer': not an object")
p = request_log("op-int", mutate=lambda o: o.update(op=1))
expect("op as an integer", p, 1, at(p[0], 3, 3) + "member 'op': not a string")
log = Log()
log.open()
log.request(1)
log.checkpoint(reason="rotate")	# signed over its reason: only the list of reasons refuses it
p = log.write("reason-unknown")
expect("an unknown checkpoint reason", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[0], 3, 3) + "member 'reason': not one of its values")
p = request_log("op-unknown", mutate=lambda o: o.update(op="exfiltrate"))
expect("an unknown op", p, 1, at(p[0], 3, 3) + "member 'op': not one of its values")
p = request_log("digest-upper", mutate=lambda o: o.update(digest=o["digest"].upper()))
expect("hex in upper case", p, 1, at(p[0], 3, 3) + "member 'digest': not lowercase hex")
p = request_log("digest-short", mutate=lambda o: o.update(digest="ab"))
expect("a short digest", p, 1, at(p[0], 3, 3) + "member 'digest': not 64 hex digits")
p = request_log("time", mutate=lambda o: o.update(time="2026-12-01 12:00:00"))
expect("a malformed time", p, 1, at(p[0], 3, 3) + "member 'time': not a UTC time")
p = request_log("v2", mutate=lambda o: o.update(v=2))
expect("version 2", p, 1, "%s:3: member 'v': 2 is out of range" % p[0])
p = request_log("order", raw=b'{"type":"request","v":1}')
expect("members out of order", p, 1, "%s:3: member 'v': not member 1 of the record" % p[0])
p = request_log("extra", mutate=lambda o: o.update({"x\x1b[2J": 1}))
expect("an unknown member, with an escape sequence in its name", p, 1,
       at(p[0], 3, 3) + "member 'x?[2J': not a member of this record")
p = request_log("dup", raw=b'{"v":1,"type":"request","seq":3,"seq":4}')
expect("a duplicate member", p, 1, "%s:3: a member appears twice (at byte" % p[0])
p = request_log("nul", raw=b'{"v":1,\x00}')
expect("a NUL byte", p, 1, "%s:3: not valid JSON" % p[0])
p = request_log("tls", op="sign-tls")
expect("a sign-tls record", p, 3, "intact: 1 file, 3 records (2 requests, 0 checkpoints)")
# CERTIFICATE's records: no subject, no signature; its own error tag.
p = request_log("cert", op="certificate", mutate=lambda o: o.pop("sig_sha256"))
expect("a certificate record", p, 3, "intact: 1 file, 3 records (2 requests, 0 checkpoints)")
p = request_log("cert-none", op="certificate",
                mutate=lambda o: (o.pop("sig_sha256"), o.update(result="no-certificate")))
expect("a certificate record answered no-certificate", p, 3,
       "intact: 1 file, 3 records (2 requests, 0 checkpoints)")
p = request_log("cert-digest", op="certificate",
                mutate=lambda o: (o.pop("sig_sha256"), o.update(digest=sha256(b"d"))))
expect("a digest in a certificate record", p, 1, at(p[0], 3, 3))
p = request_log("tls-kind", op="sign-tls", mutate=lambda o: o.update(tls=dict(TLS13, kind="ssl3")))
expect("an unknown tls.kind", p, 1, at(p[0], 3, 3) + "member 'tls.kind': not one of its values")
p = request_log("tls-hash", op="sign-tls",
                mutate=lambda o: o.update(tls=dict(TLS13, transcript_hash="ab" * 20)))
expect("a transcript hash of no SHA-2 length", p, 1,
       at(p[0], 3, 3) + "member 'tls.transcript_hash': not 64, 96 or 128 hex digits")
p = request_log("key-name", mutate=lambda o: o.update(key="a b"))
expect("a key name with a space", p, 1, at(p[0], 3, 3) + "member 'key': not a key name")
p = request_log("result", mutate=lambda o: o.update(result="Denied!"))
expect("a result that is no error tag", p, 1, at(p[0], 3, 3) + "member 'result': not ok or an")
p = request_log("neg", mutate=lambda o: o.update(us=-1))
expect("a negative duration", p, 1, at(p[0], 3, 3) + "member 'us': -1 is out of range")
log = Log()
log.open(mutate=lambda o: o["audit_key"].update(key_id=KEY_B.key_id))
expect("an open record whose key_id is not its key's", log.write("open-id"), 1,
       "audit_key.key_id is not the key id of audit_key.public")
log = Log()
log.open(mutate=lambda o: o["audit_key"].update(public="04" + "00" * 64))
expect("an open record whose key is not a point", log.write("open-point"), 1,
       "audit_key.public is not a P-256 point")

# ---- how a log ends -------------------------------------------------------------------------
STOPPED = "ends with a stop checkpoint: the daemon stopped there"
REOPENED = "ends with a reopen checkpoint: the file written after it is not given"
NOT_STOPPED = "not stopped: --expect-stopped wants a stop checkpoint last"
expect("a stop checkpoint last", [*paths, "--pubkey", KEY_A.pub_pem], 0, STOPPED,
       "last line: seq 24, SHA-256 " + good.hashes[24], absent=(NOT_STOPPED,))
expect("a stop checkpoint last, --expect-stopped",
       [*paths, "--pubkey", KEY_A.pub_pem, "--expect-stopped"], 0, STOPPED, absent=(NOT_STOPPED,))
expect("the newest file dropped: a reopen checkpoint last", [paths[0], "--pubkey", KEY_A.pub_pem],
       4, "intact: 1 file, 13 records", REOPENED, absent=("not sealed",))
expect("the newest file dropped, --expect-stopped",
       ["--expect-stopped", paths[0], "--pubkey", KEY_A.pub_pem], 4, REOPENED, NOT_STOPPED)
# cut right after the count checkpoint of seq 6 (it covers seq 5), the newest file dropped
p = tampered("cut-count", lambda f: (f[0].__delitem__(slice(6, None)), f.pop()))
expect("cut after a count checkpoint", [*p, "--pubkey", KEY_A.pub_pem], 0,
       "intact: 1 file, 6 records",
       "ends with a count checkpoint: the daemon may still be writing, or the log was cut after it",
       absent=("not sealed", NOT_STOPPED))
expect("cut after a count checkpoint, --expect-stopped",
       [*p, "--pubkey", KEY_A.pub_pem, "--expect-stopped"], 3, "ends with a count checkpoint",
       NOT_STOPPED)
log = Log()
log.open()
log.request(2)
log.checkpoint(reason="time")
p = log.write("end-time")
expect("a time checkpoint last", [*p, "--pubkey", KEY_A.pub_pem], 0,
       "ends with a time checkpoint: the daemon may still be writing")
expect("a time checkpoint last, --expect-stopped", [*p, "--pubkey", KEY_A.pub_pem,
                                                    "--expect-stopped"], 3, NOT_STOPPED)
p = tampered("cut-stop", lambda f: f[1].pop())
expect("the stop checkpoint cut, --expect-stopped",
       [*p, "--pubkey", KEY_A.pub_pem, "--expect-stopped"], 3,
       "6 records after the last checkpoint (seq 18-23) are not sealed", NOT_STOPPED)
# a reopen tail: the reopen checkpoint cut from a file whose successor is dropped
p = tampered("cut-reopen", lambda f: (f[0].pop(), f.pop()))
expect("a reopen tail cut", [*p, "--pubkey", KEY_A.pub_pem], 3,
       "4 records after the last checkpoint (seq 9-12) are not sealed", absent=(REOPENED,))
for name, args, end in [("stop", paths, "stop"), ("reopen", paths[:1], "reopen"),
                        ("count", tampered("cut-count-json",
                                           lambda f: (f[0].__delitem__(slice(6, None)), f.pop())),
                         "count"),
                        ("unsealed", tampered("cut-json", lambda f: f[1].pop()), "unsealed")]:
    out = expect("--json, end " + name, ["--json", *args, "--pubkey", KEY_A.pub_pem],
                 {"stop": 0, "reopen": 4, "count": 0, "unsealed": 3}[name])
    try:
        j = json.loads(out)
        with open(args[-1], "rb") as f:
            last = f.read().split(b"\n")[-2]
        if j["end"] != end or j["last_hash"] != sha256(last) or "anchor_seq" in j:
            failures.append("--json, end %s: %r" % (name, j))
    except (ValueError, KeyError) as e:
        failures.append("--json, end %s: %s in %r" % (name, e, out))

# ---- --anchor: a hash kept outside the log --------------------------------------------------
expect("--anchor of a line given", [*paths, "--pubkey", KEY_A.pub_pem, "--anchor", good.hashes[13]],
       0, "anchor reached: the line with seq 13")
expect("--anchor of the last line", [*paths, "--anchor", good.hashes[24].upper()], 0,
       "anchor reached: the line with seq 24")
expect("--anchor after the files given (the newest file dropped)",
       [paths[0], "--pubkey", KEY_A.pub_pem, "--anchor", good.hashes[20]], 1,
       "anchor not reached: no line given has the SHA-256 of --anchor")
p = tampered("cut-anchor", lambda f: (f[0].__delitem__(slice(6, None)), f.pop()))
expect("--anchor: a cut after a checkpoint shows", [*p, "--pubkey", KEY_A.pub_pem, "--anchor",
                                                   good.hashes[13]], 1, "anchor not reached")
expect("--anchor that the first record continues from",
       [paths[1], "--pubkey", KEY_A.pub_pem, "--anchor", good.hashes[13]], 0,
       "anchor reached: the chain continues from it (the line with seq 13)")
expect("--anchor of another log", [*paths, "--anchor", sha256(b"another log")], 1,
       "anchor not reached")
expect("--anchor of 64 zeros (no line's hash)", [*tampered("zeros", lambda f: None), "--anchor",
                                                ZERO], 1, "anchor not reached")
out = expect("--anchor, --json", ["--json", *paths, "--anchor", good.hashes[13]], 0)
try:
    if json.loads(out)["anchor_seq"] != 13:
        failures.append("--anchor, --json: %r" % out)
except (ValueError, KeyError) as e:
    failures.append("--anchor, --json: %s in %r" % (e, out))
out = expect("--anchor not reached, --json", ["--json", paths[0], "--anchor", good.hashes[20]], 1)
try:
    if json.loads(out)["anchor_seq"] != 0:
        failures.append("--anchor not reached, --json: %r" % out)
except (ValueError, KeyError) as e:
    failures.append("--anchor not reached, --json: %s in %r" % (e, out))
expect("--anchor not hex", [*paths, "--anchor", "xy" * 32], 2, "--anchor: not a SHA-256 in hex")
expect("--anchor too short", [*paths, "--anchor", "ab"], 2, "--anchor: not a SHA-256 in hex")
expect("two --anchor", [*paths, "--anchor", good.hashes[1], "--anchor", good.hashes[2]], 2, "usage")
expect("two --expect-stopped", [*paths, "--expect-stopped", "--expect-stopped"], 2, "usage")

# ---- one form per seal: low s, the daemon's bytes -------------------------------------------
HIGH_S = "sig has a high s (above n/2): a seal is written with the low s only"
p = checkpoint_log("cp-high", high=True)
expect("a checkpoint with a high s", [*p, "--pubkey", KEY_A.pub_pem], 1, at(p[0], 5, 5) + HIGH_S)


def flip_s(line):
    sig = json.loads(line)["sig"]
    return set_member(line, sig=sig[:64] + "%064x" % (N - int(sig[64:], 16)))


p = tampered("stop-high", lambda f: f[1].__setitem__(10, flip_s(f[1][10])))
expect("the stop checkpoint's s replaced by n - s", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[1], 11, 24) + HIGH_S)
FORM = "not in the daemon's form (compact JSON, escapes only where JSON needs them)"
for name, old, new, where in [
        ("an escape for a letter", b'"reason":"stop"', b'"reason":"\\u0073top"', 22),
        ("a space after a colon", b'"reason":"stop"', b'"reason": "stop"', 10),
        ("a space before the end", b'}', b' }', 0),
        ("-0", b'"covers_seq":23', b'"covers_seq":-0', 0),
        ("an escaped slash", b'"reason":"stop"', b'"reason":"st\\/op"', 0)]:
    def edit(f, old=old, new=new):
        f[1][10] = f[1][10].replace(old, new) if old != b'}' else f[1][10][:-1] + new
    p = tampered("form", edit)
    if name == "-0":
        expect("the stop checkpoint: " + name, [*p, "--pubkey", KEY_A.pub_pem], 1,
               at(p[1], 11, 24))
    elif name == "an escaped slash":
        expect("the stop checkpoint: " + name, [*p, "--pubkey", KEY_A.pub_pem], 1,
               at(p[1], 11, 24) + "member 'reason': not one of its values")
    else:
        expect("the stop checkpoint: " + name, [*p, "--pubkey", KEY_A.pub_pem], 1,
               at(p[1], 11, 24) + FORM)
p = tampered("form-order", lambda f: f[1].__setitem__(10, line_of(
    {k: v for k, v in sorted(json.loads(f[1][10]).items(), key=lambda kv: kv[0] == "key_id")})))
expect("the stop checkpoint's members reordered", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[1], 11, 24) + "member 'key_id': out of order: it comes before 'sig'")
p = request_log("order-us", order=False, mutate=lambda o: o.update(us=o.pop("us"), result=o.pop(
    "result")))
expect("a request's members out of order", p, 1,
       at(p[0], 3, 3) + "member 'result': out of order: it comes before 'us'")
p = request_log("order-peer", order=False, mutate=lambda o: o["peer"].update(pid=o["peer"].pop(
    "pid")))
expect("a nested member out of order", p, 1,
       at(p[0], 3, 3) + "member 'peer.pid': out of order: it comes before 'unit'")
p = request_log("us-minus-zero", raw=None, mutate=lambda o: o.update(us=0))
with open(p[0], "rb") as fh:
    data = fh.read()
with open(p[0], "wb") as fh:
    fh.write(data.replace(b'"us":0}', b'"us":-0}'))
expect("-0 for an integer", p, 1, at(p[0], 3, 3) + FORM)
p = request_log("comm-utf8", mutate=lambda o: o["peer"].update(comm="sign\u00e9\u001b"))
with open(p[0], "rb") as fh:
    written = fh.read()
if "sign\u00e9\\u001B".encode() not in written:
    failures.append("the test's writer: %r" % written)
expect("UTF-8 as it is, a control character as \\u001B", p, 3, "intact: 1 file, 3 records")
with open(p[0], "wb") as fh:
    fh.write(written.replace(b"\\u001B", b"\\u001b"))
expect("\\u001b in lower case", p, 1, at(p[0], 3, 3) + FORM)
with open(p[0], "wb") as fh:
    fh.write(written.replace("\u00e9".encode(), b"\\u00E9"))
expect("an escape for a character that needs none", p, 1, at(p[0], 3, 3) + FORM)
with open(p[0], "wb") as fh:
    fh.write(written.replace("sign\u00e9".encode(), b"\\ud83d\\ude00"))
expect("a surrogate pair escape (the daemon writes UTF-8)", p, 1, at(p[0], 3, 3) + FORM)
with open(p[0], "wb") as fh:
    fh.write(written.replace("sign\u00e9".encode(), b"si\\u0000gn"))
expect("\\u0000 in a string", p, 1,
       "%s:3: a string holds \\u0000, which the format does not allow" % p[0])
with open(p[0], "wb") as fh:
    fh.write(written.replace("sign\u00e9".encode(), b"si\\ud800gn"))
expect("an unpaired surrogate", p, 1, "%s:3: a string holds an unpaired surrogate" % p[0])

# ---- one rule per member --------------------------------------------------------------------
for t, ok in [("2026-02-30T12:00:00.000000Z", False), ("2026-04-31T12:00:00.000000Z", False),
              ("2028-02-29T12:00:00.000000Z", True), ("2100-02-29T12:00:00.000000Z", False),
              ("2000-02-29T23:59:59.999999Z", True), ("1969-12-31T23:59:59.000000Z", False),
              ("2026-12-31T23:59:60.000000Z", False), ("2026-13-01T00:00:00.000000Z", False),
              ("2026-12-00T00:00:00.000000Z", False), ("2026-12-01T24:00:00.000000Z", False)]:
    p = request_log("time", mutate=lambda o, t=t: o.update(time=t))
    if ok:
        expect("time " + t, p, 3, "intact: 1 file, 3 records")
    else:
        expect("time " + t, p, 1, at(p[0], 3, 3) + "member 'time': not a UTC time")
for result, ok in [("fine", False), ("denied", True), ("audit-unavailable", True),
                   ("unknown-error", False), ("ok", True), ("OK", False)]:
    def mutate(o, result=result):
        o.update(result=result)
        if result != "ok":
            o.pop("sig_sha256")
    p = request_log("result", mutate=mutate)
    if ok:
        expect("result " + result, p, 3, "intact: 1 file, 3 records")
    else:
        expect("result " + result, p, 1,
               at(p[0], 3, 3) + "member 'result': not ok or an error tag of the protocol")
p = request_log("sig-denied", mutate=lambda o: o.update(result="denied"))
expect("sig_sha256 with a refusal", p, 1,
       at(p[0], 3, 3) + "member 'sig_sha256': in a record whose result is not ok")
p = request_log("tls12", op="sign-tls", mutate=lambda o: o.update(tls=dict(TLS12)))
expect("a tls12 record", p, 3, "intact: 1 file, 3 records")
p = request_log("tls12-transcript", op="sign-tls",
                mutate=lambda o: o.update(tls={"kind": "tls12", "side": "client",
                                               "transcript_hash": "ab" * 32}))
expect("a tls12 record with transcript_hash", p, 1,
       at(p[0], 3, 3) + "member 'tls.transcript_hash': in a tls12 record")
p = request_log("tls13-content", op="sign-tls",
                mutate=lambda o: o.update(tls=dict(TLS13, content_sha256="cd" * 32)))
expect("a tls13 record with content_sha256", p, 1,
       at(p[0], 3, 3) + "member 'tls.content_sha256': in a tls13 record")
p = request_log("tls12-none", op="sign-tls",
                mutate=lambda o: o.update(tls={"kind": "tls12", "side": "server"}))
expect("a tls12 record without its hash", p, 1,
       at(p[0], 3, 3) + "member 'tls.content_sha256': missing (a tls12 record has it)")
p = request_log("digest-message", op="sign-message", mutate=lambda o: o.update(digest="ab" * 32))
expect("a digest in a sign-message record", p, 1,
       at(p[0], 3, 3) + "member 'digest': in a record of op sign-message (only of op sign)")
p = request_log("tls-sign", mutate=lambda o: o.update(tls=dict(TLS13)))
expect("tls in a sign record", p, 1, at(p[0], 3, 3) + "member 'tls': in a record of op sign")
p = request_log("ping", op="ping", mutate=lambda o: o.pop("sig_sha256"))
expect("a ping record", p, 3, "intact: 1 file, 3 records")
p = request_log("comm-long", mutate=lambda o: o["peer"].update(comm="x" * 16))
expect("a comm of 16 bytes", p, 1, at(p[0], 3, 3) + "member 'peer.comm': not 1 to 15 bytes")
p = request_log("comm-empty", mutate=lambda o: o["peer"].update(comm=""))
expect("an empty comm", p, 1, at(p[0], 3, 3) + "member 'peer.comm': not 1 to 15 bytes")

# ---- the dropped record of an audit outage --------------------------------------------------


def dropped_log(name, **kw):
    log = Log()
    log.open()
    log.request(2)
    log.dropped(**kw)
    log.request(1)
    log.checkpoint(reason="stop")
    return log.write(name)


for kinds, records in [("ping ok 5, sign audit-unavailable 120", 125), ("frame bad-frame 1", 1),
                       ("ping ok 2, sign ok 1, sign denied 4, sign audit-unavailable 9, "
                        "sign-tls ok 3, frame unknown-type 1, other 7", 27), ("other 3", 3),
                       ("sign-tls ok 1, certificate ok 2, certificate no-certificate 1, "
                        "frame bad-frame 1", 5)]:
    p = dropped_log("dropped", records=records, kinds=kinds)
    expect("a dropped record: " + kinds, [*p, "--pubkey", KEY_A.pub_pem], 0,
           "intact: 1 file, 6 records (3 requests, 1 checkpoints)", STOPPED)
for kinds, records, why in [
        ("ping ok 5, sign audit-unavailable 120", 124, "its counts do not sum to records"),
        ("sign audit-unavailable 120, ping ok 5", 125, "a kind out of order or twice"),
        ("ping ok 5, sign ok 5, ping ok 1", 11, "a kind out of order or twice"),
        ("sign ok 1, sign ok 1", 2, "a kind out of order or twice"),
        ("sign audit-unavailable 1, sign ok 1", 2, "a kind out of order or twice"),
        ("sign fine 1", 1, "an entry whose op or result the format does not name"),
        ("sign unknown-error 1", 1, "an entry whose op or result the format does not name"),
        ("checkpoint ok 1", 1, "an entry whose op or result the format does not name"),
        ("other 1, ping ok 1", 2, "not \"OP RESULT COUNT\" entries"),
        ("ping ok 01", 1, "not \"OP RESULT COUNT\" entries"),
        ("ping ok 0", 0, "member 'records': 0 is out of range"),
        ("ping ok 0", 1, "not \"OP RESULT COUNT\" entries"),
        ("ping ok 1,", 1, "not \"OP RESULT COUNT\" entries"),
        ("ping ok 1, ", 1, "not \"OP RESULT COUNT\" entries"),
        ("ping ok 1,sign ok 1", 2, "not \"OP RESULT COUNT\" entries"),
        ("ping  ok 1", 1, "an entry whose op or result"),
        ("ping ok", 1, "an entry whose op or result"),
        ("ping ok 99999999999999999999", 1, "not \"OP RESULT COUNT\" entries"),
        ("", 1, "member 'kinds': empty")]:
    p = dropped_log("dropped-bad", records=records, kinds=kinds)
    expect("a dropped record refused: %r" % kinds, [*p, "--pubkey", KEY_A.pub_pem], 1,
           at(p[0], 4, 4) + ("" if why.startswith("member") else "member 'kinds': ") + why)
p = dropped_log("dropped-extra", mutate=lambda o: o.update(conn=1))
expect("a dropped record with a request's member", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[0], 4, 4) + "member 'conn': not a member of this record")
p = dropped_log("dropped-missing", mutate=lambda o: o.pop("kinds"))
expect("a dropped record without kinds", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[0], 4, 4) + "member 'kinds': missing")
p = dropped_log("dropped-order", mutate=lambda o: o.update(records=o.pop("records")),
                order=False)
expect("a dropped record's members out of order", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[0], 4, 4) + "member 'records': out of order: it comes before 'kinds'")
p = dropped_log("dropped-type", mutate=lambda o: o.update(records="125"))
expect("a dropped record's records as a string", [*p, "--pubkey", KEY_A.pub_pem], 1,
       at(p[0], 4, 4) + "member 'records': not an integer")

# --pubkey: a PEM or DER SubjectPublicKeyInfo of the uncompressed point, or the bare point,
# 65 bytes uncompressed or 33 compressed; a SubjectPublicKeyInfo of the compressed point is not
point = bytes.fromhex(KEY_A.public)
for name, data, code in [("65-byte point", point, 0),
                         ("33-byte compressed point", bytes([2 + point[64] % 2]) + point[1:33], 0),
                         ("33-byte point of the other parity", bytes([3 - point[64] % 2]) +
                          point[1:33], 1)]:
    keyfile = os.path.join(tmp, "point")
    with open(keyfile, "wb") as f:
        f.write(data)
    expect("--pubkey as a " + name, [*paths, "--pubkey", keyfile], code,
           *(["intact: 2 files"] if code == 0 else ["audit_key is another key"]))
compressed_der = os.path.join(tmp, "compressed.der")
subprocess.run([openssl, "pkey", "-in", KEY_A.pem, "-pubout", "-outform", "DER",
                "-ec_conv_form", "compressed", "-out", compressed_der], check=True)
expect("--pubkey as a SubjectPublicKeyInfo of the compressed point",
       [*paths, "--pubkey", compressed_der], 2, "not a P-256 public key")

# ---- the fuzz harness's seeds are records the verifier accepts ------------------------------
seeds = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fuzz", "corpus", "audit")
expect("the seed series", [os.path.join(seeds, "sealed-series"), "--pubkey", KEY_A.pub_pem], 0,
       "intact: 1 file, 8 records (4 requests, 2 checkpoints)", STOPPED)
with open(os.path.join(seeds, "sealed-series"), "rb") as f:
    series = f.read().split(b"\n")
for name in ("open", "request", "request-tls", "checkpoint"):
    with open(os.path.join(seeds, name), "rb") as f:
        if f.read() not in series:
            failures.append("seed %s is not a line of the seed series" % name)

# ---- usage and files ------------------------------------------------------------------------
expect("no file", [], 2, "usage: p256signctl audit-verify")
expect("a file that does not exist", [os.path.join(tmp, "none")], 2, "No such file or directory")
expect("an unreadable --pubkey", [*paths, "--pubkey", os.path.join(tmp, "none")], 2,
       "No such file or directory")
not_a_key = os.path.join(tmp, "not-a-key")
with open(not_a_key, "wb") as f:
    f.write(b"-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
expect("a --pubkey that is not a key", [*paths, "--pubkey", not_a_key], 2,
       "not a P-256 public key")
expect("two --pubkey", [*paths, "--pubkey", KEY_A.pub_pem, "--pubkey", KEY_A.pub_pem], 2, "usage")

# ---- hostile input: random damage to good logs never crashes the verifier -------------------
rng = random.Random(20261201)
flat = b"".join(line + b"\n" for line in good.files[0])
hostile = os.path.join(tmp, "hostile")
for i in range(150):
    data = bytearray(flat)
    for _ in range(rng.randint(1, 8)):
        pos = rng.randrange(len(data))
        what = rng.randrange(4)
        if what == 0:
            data[pos] = rng.randrange(256)
        elif what == 1:
            del data[pos:pos + rng.randint(1, 40)]
        elif what == 2:
            data[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))
        else:
            data[pos:pos] = rng.choice([b'"', b"\\u0000", b"{", b"]", b"\n", b"99999999999999999999",
                                        b'"\xff\xfe"', b"-0", b"1e400", b"\\ud800"])
    with open(hostile, "wb") as f:
        f.write(bytes(data))
    rc, out, err = run(hostile)
    if rc not in (0, 1, 3, 4) or "Sanitizer" in err or "runtime error" in err:
        failures.append("hostile input %d: exit %d\n%s" % (i, rc, err))
        break

for f in failures:
    print("FAIL", f)
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
