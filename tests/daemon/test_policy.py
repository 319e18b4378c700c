#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Who may sign: each key's "allow" (users and groups by name or id, resolved when the
configuration is read), clients of other uids run with setpriv, supplementary groups taken from
the kernel (SO_PEERGROUPS); a key without "allow" serves root and the daemon's own user only;
LIST_KEYS shows a peer only its keys (root sees all, with their allow lists); a tls-server key
refuses SIGN even to root; an unknown name is a configuration error; max_connections_per_uid
refuses one uid's surplus connections and not another's, with one summary line a second.
Throw-away users and a group are created and removed by the test."""
import atexit
import grp
import json
import os
import pwd
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

USERS = ("p256sign-tweb", "p256sign-tother")
GROUP = "p256sign-ttls"

# Run as another uid: each command is a request; prints the results as JSON lines.
PROBE = r"""
import json, sys
sys.path.insert(0, %r)
from daemonlib import *
c = Client(sys.argv[1])
for line in sys.argv[2:]:
    kind, name = line.split(":")
    if kind == "sign":
        r = c.call(sign_req(1, key_name(name), RFC_DIGEST))
    elif kind == "pubkey":
        r = c.call(frame(PUBKEY, 1, key_name(name)))
    else:
        r = c.call(frame(LIST_KEYS, 1))
    print(json.dumps({"error": r.error, "keys": [k["name"] for k in r.json()["keys"]]
                      if kind == "list" else None}))
""" % os.path.dirname(os.path.abspath(__file__))


def setup_accounts():
    def cleanup():
        for u in USERS:
            subprocess.run(["userdel", u], stderr=subprocess.DEVNULL)
        subprocess.run(["groupdel", GROUP], stderr=subprocess.DEVNULL)
    cleanup()
    atexit.register(cleanup)
    subprocess.run(["groupadd", "--system", GROUP], check=True)
    for u in USERS:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell",
                        "/usr/sbin/nologin", u], check=True)


def as_user(user, socket_path, *requests, groups=None):
    pw = pwd.getpwnam(user)
    argv = ["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid]
    argv += ["--groups=%s" % ",".join(str(g) for g in groups)] if groups else ["--clear-groups"]
    r = subprocess.run(argv + ["python3", "-c", PROBE, socket_path] + list(requests),
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, "probe as %s failed: %s" % (user, r.stderr))
    return [json.loads(l) for l in r.stdout.splitlines()]


def access(binary, tls_gid):
    web = pwd.getpwnam(USERS[0])
    tmp = scratch_dir("p256signd-policy-")
    RFC_KEY2, RFC_KEY3, RFC_KEY4 = (os.path.join(tmp, "k%d.pem" % i) for i in (2, 3, 4))
    for k in (RFC_KEY2, RFC_KEY3, RFC_KEY4):
        openssl_key(k)
    keys = [{"name": "open", "file": RFC_KEY, "nonce": "deterministic",
             "allow": {"users": [USERS[0], 4242]}},
            {"name": "grp", "file": RFC_KEY2, "allow": {"groups": [GROUP]}},
            {"name": "private", "file": RFC_KEY3},
            {"name": "tls", "file": RFC_KEY4, "purpose": "tls-server",
             "allow": {"users": [web.pw_uid]}}]
    d = Daemon(binary, keys=keys, workers=1, extra={"socket_mode": "0666"})
    D = E["denied"]
    got = as_user(USERS[0], d.socket, "sign:open", "sign:grp", "sign:private", "sign:tls",
                  "pubkey:tls", "pubkey:private", "list:-")
    check([g["error"] for g in got] == [None, D, D, D, None, D, None],
          "as the allowed user: %s" % got)
    check(got[-1]["keys"] == ["open", "tls"], "LIST_KEYS as %s: %s" % (USERS[0], got[-1]))
    got = as_user(USERS[1], d.socket, "sign:open", "sign:grp", "list:-", groups=[tls_gid])
    check([g["error"] for g in got] == [D, None, None] and got[-1]["keys"] == ["grp"],
          "as a member of %s by a supplementary group: %s" % (GROUP, got))
    got = as_user(USERS[1], d.socket, "sign:grp", "list:-")
    check(got[0]["error"] == D and got[1]["keys"] == [], "without the group: %s" % got)
    c = d.client()
    lst = c.call(frame(LIST_KEYS, 2)).ok(LIST_KEYS).json()["keys"]
    check([k["name"] for k in lst] == ["open", "grp", "private", "tls"], "root sees all")
    allow = {k["name"]: k["allow"] for k in lst}
    check(allow["open"] == {"users": [web.pw_uid, 4242], "groups": []} and
          allow["grp"] == {"users": [], "groups": [tls_gid]} and allow["private"] is None,
          "allow lists, as ids: %s" % allow)
    check([k["purpose"] for k in lst] == ["any", "any", "any", "tls-server"], "purposes")
    check(c.call(sign_req(3, key_name("private"), RFC_DIGEST)).ok(SIGN).id == 3,
          "root signs with a key without allow")
    c.expect_error(sign_req(4, key_name("tls"), RFC_DIGEST), D)
    c.expect_error(sign_message_req(5, key_name("tls"), b"x"), D)
    st = c.call(frame(STATUS, 6)).ok(STATUS).json()
    check(st["errors"]["denied"] == 8, "denials counted: %s" % st["errors"])
    c.close()
    log = d.stop()
    if "request records go to stderr" in log:  # no journal: the audit records are on stderr
        check(log.count('"result":"denied"') == 8, "every denial is recorded")
    subprocess.run(["rm", "-rf", tmp], check=True)


def config_errors(binary):
    for allow, what in (({"users": ["p256sign-no-such-user"]}, 'user "p256sign-no-such-user"'),
                        ({"groups": ["p256sign-no-such-group"]}, 'group "p256sign-no-such-group"'),
                        ({"users": [-1]}, "names or numeric ids"),
                        ({"people": []}, "unknown field")):
        path = os.path.join(scratch_dir("p256signd-policy-"), "c.json")
        with open(path, "w") as f:
            json.dump({"keys": [{"name": "k", "file": RFC_KEY, "allow": allow}]}, f)
        r = subprocess.run([binary, "--check-config", path], capture_output=True, text=True)
        check(r.returncode == 1 and what in r.stderr and "keys[0].allow" in r.stderr,
              "allow %s refused: %s" % (allow, r.stderr))
        subprocess.run(["rm", "-rf", os.path.dirname(path)], check=True)


def per_uid_limit(binary):
    d = Daemon(binary, workers=1, extra={"socket_mode": "0666"},
               limits={"max_connections": 10, "max_connections_per_uid": 2})
    held = [d.client(), d.client()]
    for c in held:
        c.call(frame(PING, 1)).ok(PING)
    for _ in range(5):
        extra = d.client()
        r = extra.recv()
        check(r is not None and r.error == E["too_many_connections"] and r.id == 0 and
              extra.recv() is None,
              "a uid's third connection is refused and closed")
    got = as_user(USERS[0], d.socket, "list:-")
    check(got[0]["error"] is None, "another uid still gets in: %s" % got)
    time.sleep(1.2)
    log = d.stop()
    lines = [l for l in log.splitlines() if "over max_connections_per_uid" in l]
    check(len(lines) == 1 and "and 5 over max_connections_per_uid (2)" in lines[0],
          "one summary line for the refusals: %s" % lines)


def audit_purpose(binary):
    """A key of purpose audit signs checkpoints only: every client's signing request with it is
    denied, root's and an allowed user's alike, while PUBKEY and LIST_KEYS show it."""
    tmp = scratch_dir("p256signd-policy-")
    key = os.path.join(tmp, "audit.pem")
    openssl_key(key)
    keys = [{"name": "rfc", "file": RFC_KEY},
            {"name": "audit", "file": key, "purpose": "audit", "allow": {"users": [USERS[0]]}}]
    d = Daemon(binary, keys=keys, workers=1, extra={"socket_mode": "0666"})
    D = E["denied"]
    got = as_user(USERS[0], d.socket, "sign:audit", "pubkey:audit", "list:-")
    check([g["error"] for g in got] == [D, None, None] and got[-1]["keys"] == ["audit"],
          "the allowed user may see the audit key, not sign with it: %s" % got)
    c = d.client()
    c.expect_error(sign_req(1, key_name("audit"), RFC_DIGEST), D)
    c.expect_error(sign_message_req(2, key_name("audit"), b"x"), D)
    c.expect_error(frame(8, 3, key_name("audit") + bytes([DER, 1, 0, 32]) + bytes(32)), D)
    lst = c.call(frame(LIST_KEYS, 4)).ok(LIST_KEYS).json()["keys"]
    check([k["purpose"] for k in lst] == ["any", "audit"], "purpose audit listed: %s" % lst)
    c.pubkey("audit")
    c.close()
    d.stop()
    subprocess.run(["rm", "-rf", tmp], check=True)


def main():
    binary = sys.argv[1]
    setup_accounts()
    config_errors(binary)
    access(binary, grp.getgrnam(GROUP).gr_gid)
    audit_purpose(binary)
    per_uid_limit(binary)
    print("ok")


main()
