#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The command line and the configuration: --version, --help, --check-config with good and bad
files (JSON positions, unknown fields, ranges, key and certificate errors by tag), relative key
paths, who may access key and configuration files ($CREDENTIALS_DIRECTORY as systemd leaves it
included), the socket (mode, group, stale file replaced, live daemon refused) and the user drop."""
import grp
import hashlib
import json
import os
import pwd
import signal
import socket
import stat
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

BIN = sys.argv[1]
TMP = scratch_dir("p256signd-config-")


def run(*args, env=None, user=None):
    """p256signd with args; user: a pwd entry to run it as."""
    ids = {} if user is None else {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}
    return subprocess.run([BIN] + list(args), capture_output=True, text=True, timeout=TIMEOUT,
                          env=dict(os.environ, **(env or {})), **ids)


def write(name, data):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(data if isinstance(data, str) else json.dumps(data, indent=1))
    return path


def refused(cfg, *needles, name="c.json"):
    path = write(name, cfg)
    r = run("--check-config", path)
    check(r.returncode == 1, "--check-config accepted %s" % cfg)
    for n in needles:
        check(n in r.stderr, "error for %s should mention %r: %s" % (cfg, n, r.stderr))


def key_id(pem):
    der = subprocess.run(["openssl", "pkey", "-in", pem, "-pubout", "-outform", "DER"],
                         capture_output=True, check=True).stdout
    return hashlib.sha256(der).hexdigest()


def command_line():
    r = run("--version")
    check(r.returncode == 0 and r.stdout.startswith("p256signd "), "--version")
    r = run("--help")
    check(r.returncode == 0 and "--check-config" in r.stdout, "--help")
    check(run("--bogus").returncode == 2, "unknown option")
    check(run("extra").returncode == 2, "stray argument")


def check_config():
    other = os.path.join(TMP, "other.pem")
    openssl_key(other)
    good = write("good.json", {"keys": [{"name": "rfc", "file": RFC_KEY},
                                        {"name": "other", "file": "other.pem"}]})
    r = run("--check-config", good)
    check(r.returncode == 0, "good config: %s" % r.stderr)
    check(r.stdout.splitlines()[:2] == ["rfc " + key_id(RFC_KEY), "other " + key_id(other)],
          "--check-config prints name and id: %s" % r.stdout)
    # Relative names: next to the config, or under $CREDENTIALS_DIRECTORY.
    creds = os.path.join(TMP, "creds")
    os.mkdir(creds)
    os.rename(other, os.path.join(creds, "other.pem"))
    check(run("--check-config", good).returncode == 1, "relative name, file moved away")
    check(run("--check-config", good, env={"CREDENTIALS_DIRECTORY": creds}).returncode == 0,
          "relative name under $CREDENTIALS_DIRECTORY")
    os.rename(os.path.join(creds, "other.pem"), other)

    refused('{"keys": [\n  {"name": "a", "file": "x"},\n]}', "c.json:3:1:")
    refused('{"keys": []', "c.json:1:")
    refused("[]", "top level")
    refused({"keys": [{"name": "a", "file": RFC_KEY}], "sockett": "/x"}, "sockett: unknown field")
    refused({"keys": [{"name": "a", "file": RFC_KEY}], "limits": {"max_conns": 1}},
            "limits.max_conns: unknown field")
    refused({"keys": [{"name": "a", "file": RFC_KEY, "nonse": "hedged"}]},
            "keys[0].nonse: unknown field")
    refused({}, "keys: missing")
    refused({"keys": []}, "keys: must be an array of 1 to 128 keys")
    refused({"keys": [{"name": "k%d" % i, "file": RFC_KEY} for i in range(129)]},
            "keys: must be an array of 1 to 128 keys")
    refused({"keys": [{"file": RFC_KEY}]}, "keys[0].name: missing")
    refused({"keys": [{"name": "a b", "file": RFC_KEY}]}, "keys[0].name")
    refused({"keys": [{"name": "a", "file": RFC_KEY, "nonce": "random"}]},
            'keys[0].nonce: must be "hedged", "deterministic" or "precomputed"')
    refused({"keys": [{"name": "a", "file": RFC_KEY, "nonce": "Precomputed"}]}, "keys[0].nonce")
    for mode in ("hedged", "deterministic", "precomputed"):
        r = run("--check-config", write("n.json", {"keys": [
            {"name": "a", "file": RFC_KEY, "nonce": mode}]}))
        check(r.returncode == 0, "nonce %s accepted: %s" % (mode, r.stderr))
    refused({"keys": [{"name": "a", "file": RFC_KEY, "verify_after_sign": 1}]},
            "keys[0].verify_after_sign")
    refused({"keys": [{"name": "a", "file": RFC_KEY}], "workers": "2"}, "workers")
    refused({"keys": [{"name": "a", "file": RFC_KEY}], "workers": 0}, "workers")
    refused({"keys": [{"name": "a", "file": RFC_KEY}], "socket_mode": "rw"}, "socket_mode")
    for poll in (0, 1000):
        ok = write("poll.json", {"keys": [{"name": "a", "file": RFC_KEY}], "busy_poll_us": poll})
        check(run("--check-config", ok).returncode == 0, "busy_poll_us %d accepted" % poll)
    for poll in (1001, -1, "100", 1.5):
        refused({"keys": [{"name": "a", "file": RFC_KEY}], "busy_poll_us": poll}, "busy_poll_us")
    refused({"keys": [{"name": "a", "file": RFC_KEY}], "limits": {"max_frame_bytes": 70000}},
            "limits.max_frame_bytes")
    refused({"keys": [{"name": "a", "file": RFC_KEY}],
             "limits": {"max_inflight": 10, "max_inflight_per_connection": 20}},
            "max_inflight_per_connection")
    refused({"keys": [{"name": "a", "file": RFC_KEY}, {"name": "a", "file": other}]},
            "keys[1].name", "already used")
    refused({"keys": [{"name": "a", "file": RFC_KEY}, {"name": "b", "file": RFC_KEY}]},
            "keys[1] (b)", "same key as keys[0]")
    refused({"keys": [{"name": "a", "file": "missing.pem"}]}, "missing.pem", "file-unreadable", "No such file")
    rsa = os.path.join(TMP, "rsa.pem")
    subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024",
                    "-out", rsa], check=True, stderr=subprocess.DEVNULL)
    refused({"keys": [{"name": "a", "file": rsa}]}, "key-algorithm")
    # Certificates: the key's own is accepted, another key's is refused.
    cert = os.path.join(TMP, "rfc.crt")
    subprocess.run(["openssl", "req", "-new", "-x509", "-key", RFC_KEY, "-subj", "/CN=rfc",
                    "-days", "1", "-out", cert], check=True, stderr=subprocess.DEVNULL)
    ok = write("cert.json", {"keys": [{"name": "a", "file": RFC_KEY, "certificate": cert}]})
    check(run("--check-config", ok).returncode == 0, "matching certificate")
    refused({"keys": [{"name": "a", "file": other, "certificate": cert}]}, "key-certificate-mismatch")


def key_access():
    """Key files that group or others may access, or that another user owns, are refused with the
    file and the fix named, also through a symbolic link; by --check-config and at start-up."""
    key = os.path.join(TMP, "access.pem")
    openssl_key(key)
    cfg = {"keys": [{"name": "a", "file": key}]}
    ok = write("access.json", cfg)
    for mode in (0o600, 0o400, 0o700):
        os.chmod(key, mode)
        r = run("--check-config", ok)
        check(r.returncode == 0, "key mode %04o accepted: %s" % (mode, r.stderr))
    for mode in (0o640, 0o604, 0o644, 0o666, 0o660, 0o620, 0o602, 0o610, 0o601):
        os.chmod(key, mode)
        refused(cfg, "keys[0] (a): %s: key-file-mode: " % key, "chmod 600")
    link = os.path.join(TMP, "access-link.pem")
    os.symlink(key, link)
    linked = {"keys": [{"name": "a", "file": link}]}
    refused(linked, "keys[0] (a): %s: key-file-mode: " % link, "chmod 600")
    os.chmod(key, 0o600)
    check(run("--check-config", write("link.json", linked)).returncode == 0,
          "a link to a 0600 key is followed")
    if os.geteuid() == 0:
        os.chown(key, 65534, 65534)
        refused(cfg, "keys[0] (a): %s: key-file-owner: " % key, "chown root")
        refused(linked, "keys[0] (a): %s: key-file-owner: " % link, "chown root")
        os.chown(key, 0, 0)
    # Starting, not only checking, is refused the same way.
    os.chmod(key, 0o644)
    r = run("--config", write("start.json", dict(cfg, socket=os.path.join(TMP, "a.sock"))))
    check(r.returncode == 1 and "key-file-mode" in r.stderr and "chmod 600" in r.stderr,
          "the daemon does not start with a 0644 key: %s" % r.stderr)
    check(not os.path.exists(os.path.join(TMP, "a.sock")), "no socket left by a refused start")
    os.chmod(key, 0o600)


def config_access():
    """A configuration that group or others may write is refused, also behind a link; one they
    may only read is not."""
    path = write("mode.json", {"keys": [{"name": "a", "file": RFC_KEY}]})
    for mode in (0o644, 0o640, 0o600, 0o444):
        os.chmod(path, mode)
        r = run("--check-config", path)
        check(r.returncode == 0, "config mode %04o accepted: %s" % (mode, r.stderr))
    for mode in (0o664, 0o666, 0o646, 0o620, 0o602):
        os.chmod(path, mode)
        r = run("--check-config", path)
        check(r.returncode == 1 and r.stderr == "p256signd: %s: group or others may write the "
              "configuration (fix: chmod go-w %s)\n" % (path, path),
              "config mode %04o refused: %r" % (mode, r.stderr))
    link = os.path.join(TMP, "mode-link.json")
    os.symlink(path, link)
    r = run("--check-config", link)
    check(r.returncode == 1 and "chmod go-w %s" % link in r.stderr,
          "a link to a 0602 config refused: %s" % r.stderr)
    os.chmod(path, 0o644)
    check(run("--check-config", link).returncode == 0, "a link to a 0644 config is followed")
    r = run("--check-config", os.path.join(TMP, "absent.json"))
    check(r.returncode == 1 and "absent.json: cannot open: No such file" in r.stderr,
          "a missing config: %s" % r.stderr)


def posix_acl(uid):
    """The access ACL systemd gives a credential for a service's user: user:UID:r--, mask r--
    (the attribute's bytes, linux/posix_acl_xattr.h: version 2, then tag, permissions, id)."""
    none = 0xffffffff
    entries = [(0x01, 4, none), (0x02, 4, uid), (0x04, 0, none), (0x10, 4, none), (0x20, 0, none)]
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)


def credentials():
    """Keys in $CREDENTIALS_DIRECTORY as systemd's LoadCredential= leaves them: root, 0400; for a
    unit with User=, an ACL entry giving that user read access (stat shows 0440), or, where the file
    system has no ACLs, the file owned by that user. Each passes for its reader only."""
    creds = os.path.join(TMP, "credentials")
    os.mkdir(creds)
    key = os.path.join(creds, "web.key")
    openssl_key(key)
    os.chmod(key, 0o400)
    path = write("credentials.json", {"keys": [{"name": "web", "file": "web.key"}]})
    env = {"CREDENTIALS_DIRECTORY": creds}
    r = run("--check-config", path, env=env)
    check(r.returncode == 0, "a root 0400 credential: %s" % r.stderr)
    if os.geteuid() != 0:
        return
    nobody = pwd.getpwnam("nobody")
    os.chmod(TMP, 0o755)
    os.chmod(creds, 0o755)
    os.setxattr(key, "system.posix_acl_access", posix_acl(nobody.pw_uid))
    check(stat.S_IMODE(os.stat(key).st_mode) == 0o440, "the ACL's mask shows as group bits")
    r = run("--check-config", path, env=env, user=nobody)
    check(r.returncode == 0, "the credential as its user reads it: %s" % r.stderr)
    refused_as_root = run("--check-config", path, env=env)
    check(refused_as_root.returncode == 1 and "key-file-mode" in refused_as_root.stderr,
          "the credential is another user's to root: %s" % refused_as_root.stderr)
    os.removexattr(key, "system.posix_acl_access")
    os.chmod(key, 0o400)
    os.chown(key, nobody.pw_uid, nobody.pw_gid)
    r = run("--check-config", path, env=env, user=nobody)
    check(r.returncode == 0, "a credential owned by its user: %s" % r.stderr)
    r = run("--check-config", path, env=env)
    check(r.returncode == 1 and "key-file-owner" in r.stderr,
          "another user's credential refused for root: %s" % r.stderr)
    os.chmod(TMP, 0o700)


def sockets():
    path = os.path.join(TMP, "stale.sock")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.close()
    d = Daemon(BIN, extra={"socket": path, "socket_mode": "0600"})
    check(stat.S_IMODE(os.stat(path).st_mode) == 0o600, "socket_mode applied")
    check("replaced a stale socket" in d.log_text(), "stale socket replaced")
    r = run("--config", write("second.json", {"socket": path, "keys": [{"name": "a",
                                                                          "file": RFC_KEY}]}))
    check(r.returncode == 1 and "another daemon is running" in r.stderr,
          "a second daemon on a live socket is refused: %s" % r.stderr)
    check(d.client().call(frame(PING, 1)).ok(PING).id == 1, "the first one still serves")
    d.stop()
    plain = write("plain", "not a socket")
    r = run("--config", write("third.json", {"socket": plain, "keys": [{"name": "a",
                                                                         "file": RFC_KEY}]}))
    check(r.returncode == 1 and "is not a socket" in r.stderr, "a regular file is not replaced")


def user_drop():
    nobody = pwd.getpwnam("nobody")
    if os.geteuid() != 0:
        r = run("--config", write("user.json", {"socket": os.path.join(TMP, "u.sock"),
                                                "user": "nobody",
                                                "keys": [{"name": "a", "file": RFC_KEY}]}))
        check(r.returncode == 1 and "not running as root" in r.stderr, "user without root")
        return
    group = grp.getgrgid(nobody.pw_gid).gr_name
    d = Daemon(BIN, extra={"user": "nobody", "socket_group": group})
    check(os.stat(d.socket).st_gid == nobody.pw_gid, "socket_group applied")
    for pid in [d.proc.pid] + d.workers():
        with open("/proc/%d/status" % pid) as f:
            ids = {l.split(":")[0]: l.split()[1:] for l in f if l[:4] in ("Uid:", "Gid:")}
        check(ids["Uid"] == [str(nobody.pw_uid)] * 4 and ids["Gid"] == [str(nobody.pw_gid)] * 4,
              "process %d runs as nobody: %s" % (pid, ids))
    check(d.client().call(sign_req(1, key_name("rfc"), RFC_DIGEST)).ok(SIGN).signature() ==
          RFC_R + RFC_S, "signing after the drop")
    d.stop()


JSON_MAX = 65536 - 8             # a frame's body after its header
COUNTER_MAX = 2 ** 63 - 1       # the largest a signature counter can show
LONG_ID = 4294967294            # an id of 10 digits, the longest


def listing_keys(n, users, groups, more_users=0, files=None, certs=0, cert_files=None):
    """n keys whose LIST_KEYS entries are the longest: 64-character names, the longest nonce and
    purpose words, verify_after_sign false; each allowed to `users` users and `groups` groups,
    the first more_users keys to one user more, the first `certs` with a certificate."""
    keys = []
    for i in range(n):
        extra = 1 if i < more_users else 0
        keys.append({"name": ("k%03d-" % i).ljust(64, "x"),
                     "file": files[i] if files else "/nonexistent/%d.key" % i,
                     "nonce": "deterministic", "verify_after_sign": False,
                     "purpose": "tls-server",
                     "allow": {"users": [LONG_ID - j for j in range(users + extra)],
                               "groups": [LONG_ID - j for j in range(groups)]}})
        if i < certs:
            keys[i]["certificate"] = cert_files[i] if cert_files else "/nonexistent/%d.pem" % i
    return keys


def root_listing(keys, counter, ids=None, certs=None):
    """Root's LIST_KEYS JSON for keys as docs/protocol.md section 6 gives it, compact, with both
    counters at `counter`; ids: [(key_id, public_key)] in hex, else zeros of their length;
    certs: [(certificate_not_after, certificate_sha256)] of the keys with a certificate, else
    the longest: the most negative time, zeros."""
    entries = []
    for i, k in enumerate(keys):
        key_id, point = ids[i] if ids else ("0" * 64, "0" * 130)
        e = {"name": k["name"], "key_id": key_id, "public_key": point, "nonce": k["nonce"],
             "verify_after_sign": k["verify_after_sign"], "purpose": k["purpose"],
             "signatures": counter, "precomputed_signatures": counter}
        if "certificate" in k:
            e["certificate_not_after"], e["certificate_sha256"] = (
                certs[i] if certs else (-2 ** 63, "0" * 64))
        e["allow"] = k["allow"]
        entries.append(e)
    return json.dumps({"keys": entries}, separators=(",", ":")).encode()


def accepted_and_listed(name, keys, what):
    """--check-config accepts keys; a daemon on them answers root's LIST_KEYS: (daemon, client,
    the answer's bytes, its keys, their (key_id, public_key))."""
    r = run("--check-config", write(name, {"keys": keys}))
    check(r.returncode == 0, "%s is accepted: %s" % (what, r.stderr))
    d = Daemon(BIN, keys=keys, workers=1)
    c = d.client()
    body = c.call(frame(LIST_KEYS, 1)).ok(LIST_KEYS).body
    got = json.loads(body)["keys"]
    return d, c, body, got, [(k["key_id"], k["public_key"]) for k in got]


def certificate_boundary(files):
    """The 128 keys with 2 ids each (which fit) and the first m with a certificate, each taking
    certificate_not_after and certificate_sha256 at their longest: the most that fit are
    accepted and answered as documented, byte for byte; one more is refused."""
    m = max(m for m in range(129) if len(root_listing(listing_keys(128, 2, 0, certs=m),
                                                          COUNTER_MAX)) <= JSON_MAX)
    check(0 < m < 128, "the boundary lies between no key and every key with a certificate: %d" % m)
    over = listing_keys(128, 2, 0, certs=m + 1)
    refused({"keys": over}, too_large(len(root_listing(over, COUNTER_MAX))))
    pems = []
    for i in range(m):
        pems.append(os.path.join(TMP, "list-%d.pem" % i))
        subprocess.run(["openssl", "req", "-x509", "-new", "-key", files[i], "-subj", "/CN=k%d" % i,
                        "-days", "2", "-out", pems[i]], check=True, capture_output=True)
    fits = listing_keys(128, 2, 0, files=files, certs=m, cert_files=pems)
    d, c, body, got, ids = accepted_and_listed("fits-certs.json", fits,
                                               "the most certificates that fit")
    certs = []
    for i, k in enumerate(got[:m]):
        der = subprocess.run(["openssl", "x509", "-in", pems[i], "-outform", "DER"], check=True,
                             capture_output=True).stdout
        certs.append((k["certificate_not_after"], hashlib.sha256(der).hexdigest()))
    check(body == root_listing(fits, 0, ids, certs),
          "root's answer with certificates is the documented JSON, byte for byte")
    check(len(root_listing(fits, COUNTER_MAX)) <= JSON_MAX, "and fits at its longest")
    c.close()
    d.stop()


def too_large(n):
    return ("keys: LIST_KEYS would not fit in one frame: %d bytes of JSON, at most %d" %
            (n, JSON_MAX))


def list_keys_size():
    """docs/protocol.md section 6: a key set whose root LIST_KEYS answer could exceed a frame is
    refused at start and on reload, the size computed exactly; the largest that fits is answered
    and printed by p256signctl keys."""
    # The largest configuration the fields allow: 128 keys, 64-character names, 32 + 32 ids.
    biggest = listing_keys(128, 32, 32)
    size = len(root_listing(biggest, COUNTER_MAX))
    check(size > 2 * JSON_MAX, "the largest configuration is far over a frame: %d" % size)
    refused({"keys": biggest}, too_large(size))
    path = write("biggest.json", {"keys": biggest, "socket": os.path.join(TMP, "big.sock")})
    r = run("--config", path)
    check(r.returncode == 1 and too_large(size) in r.stderr,
          "the daemon does not start with it: %s" % r.stderr)
    # The boundary: 128 such keys with 2 users each fit, with 3 each do not; between them, the
    # most keys with a third user that still fit.
    more = max(m for m in range(129) if len(root_listing(listing_keys(128, 2, 0, m),
                                                             COUNTER_MAX)) <= JSON_MAX)
    check(0 < more < 128, "the boundary lies between 2 and 3 users a key: %d" % more)
    over = listing_keys(128, 2, 0, more + 1)
    refused({"keys": over}, too_large(len(root_listing(over, COUNTER_MAX))))
    files = []
    for i in range(128):
        files.append(os.path.join(TMP, "list-%d.key" % i))
        openssl_key(files[i])
    fits = listing_keys(128, 2, 0, more, files)
    d, c, body, got, ids = accepted_and_listed("fits.json", fits, "the largest key set that fits")
    check(body == root_listing(fits, 0, ids),
          "root's answer is the documented JSON, byte for byte")
    check(len(root_listing(fits, COUNTER_MAX, ids)) <= JSON_MAX,
          "and it would still fit with counters at their largest")
    ctl = subprocess.run([os.environ["P256SIGNCTL"], "--socket", d.socket, "keys"],
                         capture_output=True, text=True, timeout=TIMEOUT)
    check(ctl.returncode == 0, "p256signctl keys: %s" % ctl.stderr)
    for k in fits:
        check(k["name"] in ctl.stdout, "p256signctl keys prints %s" % k["name"])
    # A reload to a key set one id over keeps the key set in use, and says why.
    d.write_keys(listing_keys(128, 2, 0, more + 1, files))
    d.proc.send_signal(signal.SIGHUP)
    end = time.monotonic() + TIMEOUT
    while "reload refused" not in d.log_text():
        check(time.monotonic() < end, "reload refused: %s" % d.log_text())
        time.sleep(0.05)
    check(too_large(len(root_listing(over, COUNTER_MAX))) in d.log_text(),
          "the reload says why: %s" % d.log_text())
    st = c.call(frame(STATUS, 2)).ok(STATUS).json()
    check(st["key_set"] == 1, "the key set in use stays: %s" % st)
    check(c.call(frame(LIST_KEYS, 3)).ok(LIST_KEYS).body == root_listing(fits, 0, ids),
          "and is listed as before")
    c.close()
    d.stop()
    certificate_boundary(files)


def main():
    command_line()
    check_config()
    key_access()
    config_access()
    credentials()
    sockets()
    user_drop()
    list_keys_size()
    subprocess.run(["rm", "-rf", TMP], check=True)
    print("ok")


main()
