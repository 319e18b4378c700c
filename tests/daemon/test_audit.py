#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The audit log (docs/audit.md), checked independently of the daemon's code: every request type
and refusal has its record with the right members (the digest sent, the SHA-256 of the signature
received, the key id PUBKEY gives); the chain (seq, SHA-256 of the previous line) is recomputed
here; every checkpoint's signature is verified with openssl over a seal digest built here; the
stop checkpoint is last and covers the record before it; every seal has a low s; a restart and a
SIGHUP reopen after a rename continue the chain, and p256signctl audit-verify finds the real files
intact, ended by the stop checkpoint (the rotated file alone: by its reopen one); after kill -9 of the parent under pipelined load from several
threads, every signature a client received has its record in the file; fail closed on /dev/full
and on a full tmpfs (signing refused with audit-unavailable, PING answered, STATUS says why,
signing back by itself once space is freed); fail_closed false keeps signing and queues the
records; the configuration's audit section is checked."""
import datetime
import hashlib
import os
import re
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

AUDIT_UNAVAILABLE = 20
HALF_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551 // 2
SIGN_TLS, TLS13, TLS12 = 8, 1, 2
ZERO = "0" * 64


def sha(data):
    return hashlib.sha256(data).hexdigest()


def lines_of(path):
    """The whole lines of an audit file (bytes without the newline), and a cut last line."""
    with open(path, "rb") as f:
        data = f.read()
    parts = data.split(b"\n")
    return parts[:-1], parts[-1]


def records(path):
    whole, cut = lines_of(path)
    check(cut == b"", "%s ends with a whole line" % path)
    return [(line, json.loads(line)) for line in whole]


def check_chain(recs, prev_line=None):
    """seq +1 per record and prev the SHA-256 of the previous line, from prev_line on."""
    for i, (line, r) in enumerate(recs):
        check(list(r)[:5] == ["v", "type", "seq", "time", "prev"] and r["v"] == 1,
              "the chain members first, in order: %s" % line)
        check(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", r["time"]) and
              abs(time.time() - datetime.datetime.strptime(r["time"], "%Y-%m-%dT%H:%M:%S.%fZ")
                  .replace(tzinfo=datetime.timezone.utc).timestamp()) < 600,
              "time is UTC with microseconds: %s" % r["time"])
        before = recs[i - 1][0] if i > 0 else prev_line
        if before is None:
            check(r["seq"] == 1 and r["prev"] == ZERO, "a new chain starts at 1 with zeros")
            continue
        check(r["seq"] == json.loads(before)["seq"] + 1, "seq +1 at %d" % r["seq"])
        check(r["prev"] == sha(before), "prev is the previous line's hash at %d" % r["seq"])


def seal_digest(r):
    """What the audit key signed for checkpoint r (docs/audit.md)."""
    reason = r["reason"].encode()
    return hashlib.sha256(b"p256sign audit checkpoint v2\x00" + bytes.fromhex(r["covers_hash"]) +
                          r["covers_seq"].to_bytes(8, "big") + r["time"].encode() +
                          bytes([len(reason)]) + reason).digest()


def check_checkpoints(recs, spki, key_id, tmp):
    """Each checkpoint covers an earlier line by its hash, and its signature verifies (openssl)."""
    by_seq = {r["seq"]: line for line, r in recs}
    pub = os.path.join(tmp, "audit-pub.der")
    with open(pub, "wb") as f:
        f.write(spki)
    n = 0
    for line, r in recs:
        if r["type"] != "checkpoint":
            continue
        n += 1
        check(r["covers_seq"] < r["seq"] and r["key_id"] == key_id, "checkpoint members")
        if r["covers_seq"] in by_seq:
            check(sha(by_seq[r["covers_seq"]]) == r["covers_hash"], "covers_hash is the line's")
        dig, sig = os.path.join(tmp, "seal.bin"), os.path.join(tmp, "seal.sig")
        with open(dig, "wb") as f:
            f.write(seal_digest(r))
        with open(sig, "wb") as f:
            f.write(raw_to_der(bytes.fromhex(r["sig"])))
        v = subprocess.run(["openssl", "pkeyutl", "-verify", "-pubin", "-keyform", "DER",
                            "-inkey", pub, "-in", dig, "-sigfile", sig], capture_output=True)
        check(v.returncode == 0, "checkpoint %d's signature verifies: %s" % (r["seq"], v.stdout))
        check(int(r["sig"][64:], 16) <= HALF_N, "checkpoint %d's s is low" % r["seq"])
    return n


class Setup:
    """Keys: rfc (any), web (tls-server, precomputed nonces), audit (purpose audit)."""

    def __init__(self):
        self.tmp = scratch_dir("p256signd-audit-")
        os.chmod(self.tmp, 0o755)
        self.audit_key = os.path.join(self.tmp, "audit.pem")
        self.web_key = os.path.join(self.tmp, "web.pem")
        openssl_key(self.audit_key)
        openssl_key(self.web_key)
        self.file = os.path.join(self.tmp, "audit.jsonl")

    def keys(self):
        return [{"name": "rfc", "file": RFC_KEY, "nonce": "deterministic"},
                {"name": "web", "file": self.web_key, "purpose": "tls-server",
                 "nonce": "precomputed"},
                {"name": "audit", "file": self.audit_key, "purpose": "audit"}]

    def daemon(self, binary, file=None, **audit):
        a = {"journal": False, "file": file or self.file, "key": "audit"}
        a.update(audit)
        return Daemon(binary, keys=self.keys(), extra={"audit": a})


def status_audit(c):
    return c.call(frame(STATUS, 99)).ok(STATUS).json()["audit"]


def every_request(binary, s):
    d = s.daemon(binary, checkpoint_every=5)
    c = d.client()
    rfc_id, rfc_point, _ = c.pubkey("rfc")
    web_id, web_point, _ = c.pubkey("web")
    audit_id, _, audit_spki = c.pubkey("audit")
    got = {}   # request id -> what the client received

    def sig_of(r):
        return r.body[2:]

    got[10] = sig_of(c.call(sign_req(10, key_name("rfc"), RFC_DIGEST)).ok(SIGN))
    got[11] = sig_of(c.call(sign_req(11, key_id(rfc_id), RFC_DIGEST, fmt=DER)).ok(SIGN))
    got[12] = sig_of(c.call(sign_message_req(12, key_name("rfc"), b"sample")).ok(SIGN_MESSAGE))
    c.call(frame(PING, 13)).ok(PING)
    c.call(verify_req(14, key_name("rfc"), RFC_DIGEST, RFC_R + RFC_S)).ok(VERIFY)
    c.call(frame(LIST_KEYS, 15)).ok(LIST_KEYS)
    transcript = bytes(range(48))
    got[16] = sig_of(c.call(frame(SIGN_TLS, 16, key_name("web") + bytes([DER, TLS13, 0, 48]) +
                                  transcript)).ok(SIGN_TLS))
    cr, sr = b"\x01" * 32, b"\x02" * 32
    params = b"\x03\x00\x17\x41" + web_point
    got[17] = sig_of(c.call(frame(SIGN_TLS, 17, key_name("web") + bytes([DER, TLS12]) + cr + sr +
                                  bytes([len(params)]) + params)).ok(SIGN_TLS))
    c.expect_error(sign_req(18, key_name("audit"), RFC_DIGEST), E["denied"])
    c.expect_error(sign_message_req(19, key_name("audit"), b"x"), E["denied"])
    c.expect_error(sign_req(20, key_name("nope"), RFC_DIGEST), E["unknown_key"])
    c.expect_error(frame(99, 21), E["unknown_type"])
    c.expect_error(sign_req(22, key_name("rfc"), RFC_DIGEST[:31]), E["bad_digest_length"])
    st = status_audit(c)
    check(st["state"] == "ok" and st["lost"] == 0 and st["records"] >= 15, "STATUS audit: %s" % st)
    # A signature held for its record still counts as precomputed once released: handshakes a
    # few ms apart until one came from web's pool (at most 10 s of them).
    deadline, n, web = time.monotonic() + 10, 0, None
    while (web is None or web["precomputed_signatures"] == 0) and time.monotonic() < deadline:
        c.call(frame(SIGN_TLS, 200 + n, key_name("web") + bytes([DER, TLS13, 0, 48]) +
                     transcript)).ok(SIGN_TLS)
        n += 1
        time.sleep(0.005)
        web = c.call(frame(LIST_KEYS, 199)).ok(LIST_KEYS).json()["keys"][1]
    check(0 < web["precomputed_signatures"] <= web["signatures"] == 2 + n,
          "held signatures from the pool are counted when released: %s" % web)
    c.expect_error(frame(PING, 23, version=9), E["unsupported_version"], closes=True)
    c2 = d.client()
    c2.send(b"\x00\x00\x00\x02ab")     # shorter than a header: bad-frame, id 0
    r = c2.recv()
    check(r.type == ERROR and r.error == E["bad_frame"], "bad frame answered")
    c2.close()
    c.close()
    d.stop()
    recs = records(s.file)
    check_chain(recs)
    check(recs[0][1]["type"] == "open" and recs[0][1]["reason"] == "start" and
          recs[0][1]["audit_key"] == {"name": "audit", "key_id": audit_id.hex(),
                                      "public": c_point_hex(audit_spki)},
          "the open record names the audit key: %s" % recs[0][0])
    last = recs[-1][1]
    check(last["type"] == "checkpoint" and last["reason"] == "stop" and
          last["covers_seq"] == last["seq"] - 1, "the stop checkpoint is last: %s" % last)
    check(check_checkpoints(recs, audit_spki, audit_id.hex(), s.tmp) >= 3,
          "count checkpoints and the stop one")
    check({r["reason"] for _, r in recs if r["type"] == "checkpoint"} >= {"count", "stop"},
          "count and stop checkpoints")
    req = {r["id"]: r for _, r in recs if r["type"] == "request" and r["conn"] == 1}
    # SO_PEERCRED, and the process name read at accept (its unit, if any, is not checked).
    me = {"pid": os.getpid(), "uid": os.getuid(), "gid": os.getgid(),
          "comm": open("/proc/self/comm").read().strip()}
    for i in got:
        check(req[i]["result"] == "ok" and req[i]["sig_sha256"] == sha(got[i]),
              "id %d: sig_sha256 is the signature received" % i)
    for i in range(10, 24):
        check({k: req[i]["peer"].get(k) for k in me} == me and isinstance(req[i]["us"], int),
              "id %d: peer and us" % i)
    check(req[10]["op"] == "sign" and req[10]["digest"] == RFC_DIGEST.hex() and
          req[10]["key"] == "rfc" and req[10]["key_id"] == rfc_id.hex(), "SIGN's record")
    check(req[11]["key_id"] == rfc_id.hex() and req[11]["key"] == "rfc", "SIGN by key id")
    check(req[12]["op"] == "sign-message" and
          req[12]["message_sha256"] == sha(b"sample") and "digest" not in req[12],
          "SIGN_MESSAGE's record")
    check(req[13]["op"] == "ping" and "key" not in req[13] and "sig_sha256" not in req[13],
          "PING's record")
    check(req[14]["op"] == "verify" and req[14]["key"] == "rfc", "VERIFY's record")
    check(req[15]["op"] == "list-keys", "LIST_KEYS's record")
    check(req[16]["op"] == "sign-tls" and req[16]["key_id"] == web_id.hex() and
          req[16]["tls"] == {"kind": "tls13", "side": "server",
                             "transcript_hash": transcript.hex()}, "TLS 1.3's record")
    check(req[17]["tls"] == {"kind": "tls12", "side": "server",
                             "content_sha256": sha(cr + sr + params)}, "TLS 1.2's record")
    check(req[18]["result"] == "denied" and req[18]["key"] == "audit" and
          "sig_sha256" not in req[18], "the audit key refused to a client, recorded")
    check(req[19]["result"] == "denied", "SIGN_MESSAGE with the audit key refused")
    check(req[20]["result"] == "unknown-key" and "key" not in req[20], "unknown key recorded")
    check(req[21]["result"] == "unknown-type" and req[21]["op"] == "frame", "unknown type")
    check(req[22]["result"] == "bad-digest-length", "bad digest length recorded")
    check(req[23]["result"] == "unsupported-version", "protocol error recorded")
    bad = [r for _, r in recs if r["type"] == "request" and r["conn"] == 2]
    check(len(bad) == 1 and bad[0]["op"] == "frame" and bad[0]["id"] == 0 and
          bad[0]["result"] == "bad-frame", "bad frame recorded: %s" % bad)
    return recs, audit_spki, audit_id


def c_point_hex(spki):
    return spki[-65:].hex()


def restart_and_reopen(binary, s, recs, spki, kid):
    d = s.daemon(binary)
    c = d.client()
    c.call(sign_req(1, key_name("rfc"), RFC_DIGEST)).ok(SIGN)
    time.sleep(2.8)     # records unsealed for 2 s get a time checkpoint
    os.rename(s.file, s.file + ".1")
    d.proc.send_signal(signal.SIGHUP)
    d.wait_for("READY=1")
    end = time.monotonic() + 5
    while not os.path.exists(s.file):
        check(time.monotonic() < end, "reopened file created")
        time.sleep(0.02)
    sig = c.call(sign_req(2, key_name("rfc"), RFC_DIGEST)).ok(SIGN).body[2:]
    c.close()
    d.stop()
    old, new = records(s.file + ".1"), records(s.file)
    check_chain(old)
    check(old[len(recs)][1]["type"] == "open" and old[len(recs)][1]["reason"] == "start" and
          old[:len(recs)] == recs, "a restart continues the chain in the same file")
    check(old[-1][1]["type"] == "checkpoint" and old[-1][1]["reason"] == "reopen" and
          old[-1][1]["covers_seq"] == old[-1][1]["seq"] - 1, "the old file ends with reopen")
    check(new[0][1]["type"] == "open" and new[0][1]["reason"] == "reopen", "new file opens")
    check(any(r["type"] == "checkpoint" and r["reason"] == "time" and r["covers_seq"] ==
              old[len(recs) + 1][1]["seq"] for _, r in old), "a time checkpoint seals the sign")
    check_chain(new, old[-1][0])
    check(any(r.get("sig_sha256") == sha(sig) for _, r in new), "the new file has the signature")
    check_checkpoints(old + new, spki, kid.hex(), s.tmp)
    # p256signctl audit-verify, of the same build, on the daemon's own bytes
    ctl = os.path.join(os.path.dirname(os.path.abspath(binary)), "..", "client", "ctl", "p256signctl")
    pub = os.path.join(s.tmp, "audit-pub.der")
    for files, code, end in [([s.file + ".1", s.file], 0, "ends with a stop checkpoint"),
                             ([s.file + ".1"], 4, "ends with a reopen checkpoint")]:
        v = subprocess.run([ctl, "audit-verify", *files, "--pubkey", pub, "--expect-stopped"],
                           capture_output=True, text=True)
        check(v.returncode == code and end in v.stdout, "audit-verify %s: %d %s %s" % (
            files, v.returncode, v.stdout, v.stderr))
    # A start on the empty file that follows a rotation goes on from FILE.1.
    os.rename(s.file, s.file + ".1")
    open(s.file, "w").close()
    d = s.daemon(binary)
    d.stop()
    again = records(s.file)
    check_chain(again, records(s.file + ".1")[-1][0])
    os.unlink(s.file + ".1")
    os.unlink(s.file)


def audit_key_kept(binary, s):
    """A reload that would change the audit key is refused: the chain names one key."""
    d = s.daemon(binary)
    new = os.path.join(s.tmp, "new.pem")
    openssl_key(new)
    os.rename(new, s.audit_key)
    d.proc.send_signal(signal.SIGHUP)
    end = time.monotonic() + 10
    while "reload refused" not in d.log_text():
        check(time.monotonic() < end, "reload refused: %s" % d.log_text())
        time.sleep(0.05)
    check("the audit key audit must stay the same key" in d.log_text(), "says why")
    c = d.client()
    c.call(sign_req(1, key_name("rfc"), RFC_DIGEST)).ok(SIGN)
    c.close()
    d.stop()
    os.unlink(s.file)
    openssl_key(new)    # a fresh audit key and file for what follows
    os.rename(new, s.audit_key)


def kill_under_load(binary, s):
    d = s.daemon(binary)
    received, lock, stop = [], threading.Lock(), threading.Event()

    def load(n):
        c = d.client()
        i = 0
        try:
            while not stop.is_set():
                batch = [sign_message_req(i + k, key_name("rfc"), b"%d-%d" % (n, i + k))
                         for k in range(16)]
                c.send(b"".join(batch))
                for _ in batch:
                    r = c.recv()
                    if r is None:
                        return
                    if r.type == SIGN_MESSAGE | RESPONSE:
                        with lock:
                            received.append(r.body[2:])
                i += 16
        except OSError:
            return

    threads = [threading.Thread(target=load, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    os.kill(d.proc.pid, signal.SIGKILL)
    d.proc.wait()
    stop.set()
    for t in threads:
        t.join(10)
    whole, _ = lines_of(s.file)
    recs = [(line, json.loads(line)) for line in whole]
    check_chain(recs)
    logged = {r.get("sig_sha256") for _, r in recs}
    check(len(received) > 100, "load ran: %d signatures" % len(received))
    print("kill -9 after %d signatures received" % len(received))
    missing = [x for x in received if sha(x) not in logged]
    check(not missing, "every signature received is in the audit file (%d of %d missing)" %
          (len(missing), len(received)))
    d.stop(expect=-signal.SIGKILL)
    os.unlink(s.file)


def full_device(binary, s):
    d = s.daemon(binary, file="/dev/full")
    c = d.client()
    c.expect_error(sign_req(1, key_name("rfc"), RFC_DIGEST), AUDIT_UNAVAILABLE)
    c.call(frame(PING, 2)).ok(PING)
    st = status_audit(c)
    check(st["state"] == "failing" and "No space" in st["error"], "STATUS says why: %s" % st)
    c.close()
    d.stop()
    d = s.daemon(binary, file="/dev/full", fail_closed=False)
    c = d.client()
    for i in range(5):
        c.call(sign_req(i, key_name("rfc"), RFC_DIGEST)).ok(SIGN)
    st = status_audit(c)
    check(st["state"] == "failing" and st["queued"] + st["lost"] >= 5,
          "fail open queues the records of the signatures it released: %s" % st)
    c.close()
    d.stop()


def full_tmpfs(binary, s):
    mnt = scratch_dir("p256signd-audit-fs-")
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0755", "tmpfs", mnt], check=True)
    d = None
    try:
        path, filler = os.path.join(mnt, "audit.jsonl"), os.path.join(mnt, "filler")
        d = s.daemon(binary, file=path)
        c = d.client()
        sigs = [c.call(sign_req(1, key_name("rfc"), RFC_DIGEST)).ok(SIGN).body[2:]]
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while True:
                os.write(fd, b"x" * 1024)
        except OSError:
            pass
        os.close(fd)
        refused = 0
        for i in range(200):      # the file's last page fills first, then every write fails
            r = c.call(sign_req(100 + i, key_name("rfc"), RFC_DIGEST))
            if r.type == ERROR:
                check(r.error == AUDIT_UNAVAILABLE, "refused with audit-unavailable")
                refused += 1
                if refused >= 3:
                    break
            else:
                sigs.append(r.body[2:])
        check(refused >= 3, "signing refused on a full disk")
        c.call(frame(PING, 2)).ok(PING)
        st = status_audit(c)
        check(st["state"] == "failing" and "No space" in st["error"], "STATUS: %s" % st)
        os.unlink(filler)
        end = time.monotonic() + 5
        retries = 0
        while True:     # no restart, no signal: the daemon retries by itself
            r = c.call(sign_req(3, key_name("rfc"), RFC_DIGEST))
            if r.type != ERROR:
                sigs.append(r.body[2:])
                break
            retries += 1
            check(time.monotonic() < end, "signing resumes once space is freed")
            time.sleep(0.05)
        check(status_audit(c)["state"] == "ok", "STATUS ok again")
        # Each answer counted once, a signature withheld for its unwritten record too: the
        # requests above (1 + 200 at most + PING + 2 STATUS + the retries; this STATUS is
        # counted once it is answered).
        st = c.call(frame(STATUS, 4)).ok(STATUS).json()
        check(st["requests"] == len(sigs) + refused + retries + 3,
              "STATUS counts %d requests, %d were answered" %
              (st["requests"], len(sigs) + refused + retries + 3))
        c.close()
        d.stop()
        recs = records(path)
        check_chain(recs)
        logged = {r.get("sig_sha256") for _, r in recs}
        check(all(sha(x) in logged for x in sigs), "every released signature was recorded")
        check(any(r.get("result") == "audit-unavailable" for _, r in recs),
              "a refusal written after the recovery")
    finally:
        if d is not None and d.proc.poll() is None:
            d.proc.kill()
            d.proc.wait()
        subprocess.run(["umount", mnt], check=True)
        os.rmdir(mnt)


def config_checks(binary, s):
    cases = [({"file": s.file}, "audit.key: missing"),
             ({"file": s.file, "key": "rfc"}, "must have \"purpose\": \"audit\""),
             ({"file": s.file, "key": "none"}, "no key is named"),
             ({"file": "relative.jsonl", "key": "audit"}, "must be an absolute path"),
             ({"journal": False}, "audit.file: missing"),
             ({"files": "x"}, "audit.files: unknown field")]
    for audit, text in cases:
        cfg = os.path.join(s.tmp, "bad.json")
        with open(cfg, "w") as f:
            json.dump({"socket": os.path.join(s.tmp, "x.sock"), "keys": s.keys(),
                       "audit": audit}, f)
        r = subprocess.run([binary, "--config", cfg], capture_output=True, text=True)
        check(r.returncode == 1 and text in r.stderr, "%s refused: %s" % (audit, r.stderr))


def not_configured(binary):
    d = Daemon(binary)
    c = d.client()
    check(c.call(frame(STATUS, 1)).ok(STATUS).json()["audit"] == "not configured",
          "STATUS: not configured")
    c.call(frame(PING, 7)).ok(PING)
    c.close()
    log = d.stop()
    check("audit: not configured" in log, "said at start-up")
    if "request records go to stderr" in log:
        recs = [json.loads(l) for l in log.splitlines() if l.startswith('{"v":1,')]
        check(any(r.get("op") == "ping" and r.get("id") == 7 for r in recs),
              "records on stderr without a journal")


def main():
    binary = sys.argv[1]
    s = Setup()
    recs, spki, kid = every_request(binary, s)
    restart_and_reopen(binary, s, recs, spki, kid)
    audit_key_kept(binary, s)
    kill_under_load(binary, s)
    full_device(binary, s)
    full_tmpfs(binary, s)
    config_checks(binary, s)
    not_configured(binary)
    subprocess.run(["rm", "-rf", s.tmp], check=True)
    print("ok")


main()
