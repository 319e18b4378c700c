#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The command line and the configuration: --version, --help, --check-config with good and bad
files (JSON positions, unknown fields, ranges, key and certificate errors by tag), relative key
paths, the socket (mode, group, stale file replaced, live daemon refused) and the user drop."""
import grp
import hashlib
import json
import os
import pwd
import socket
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

BIN = sys.argv[1]
TMP = tempfile.mkdtemp(prefix="p256signd-config-")


def run(*args, env=None):
    return subprocess.run([BIN] + list(args), capture_output=True, text=True, timeout=TIMEOUT,
                          env=dict(os.environ, **(env or {})))


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
    refused({"keys": [{"name": "a", "file": RFC_KEY, "nonce": "random"}]}, "keys[0].nonce")
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


def main():
    command_line()
    check_config()
    sockets()
    user_drop()
    subprocess.run(["rm", "-rf", TMP], check=True)
    print("ok")


main()
