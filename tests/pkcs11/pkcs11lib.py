#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""What the PKCS#11 module's program tests share: a daemon with three keys (rfc: any; web:
tls-server, both with a self-signed certificate for localhost in the daemon's configuration, in
rfc-cert.pem and web-cert.pem; audit: the audit key, with an audit file and no certificate), the
module's path, a scratch directory,
a p11-kit user configuration that registers the module, running programs, and the public key
and signature checks by openssl. Standard library only; call init() first."""
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "daemon"))
from daemonlib import (RFC_KEY, Daemon, check, free_port, openssl_key,  # noqa: E402,F401
                       scratch_dir, wait_listening)

NOBODY = 65534
RFC_ID = "5a7a78cca4a0f420d9bc62bb669c3c2759e39f723d3ae10dcbe0f0815a07ecd4"
module = None
tmp = None
daemon = None
ENV = {}


def init(daemon_bin, module_path, preload="", allow=()):
    """Starts the daemon, whose rfc key nobody and the users `allow` lists may use; ENV makes
    the module (and libp256sign) find its socket. preload: the sanitizer runtimes an
    instrumented module needs in plain programs ("" for none)."""
    global module, tmp, daemon
    module = os.path.abspath(module_path)
    tmp = scratch_dir("p256sign-pkcs11-test-")
    os.chmod(tmp, 0o755)
    web = path("web.key")
    openssl_key(web)
    audit = path("audit.key")
    openssl_key(audit)
    for name, key in (("rfc", RFC_KEY), ("web", web)):
        subprocess.run(["openssl", "req", "-x509", "-new", "-key", key, "-subj", "/CN=localhost",
                        "-addext", "subjectAltName=DNS:localhost", "-days", "2", "-out",
                        path(name + "-cert.pem")], check=True, stderr=subprocess.DEVNULL)
    keys = [{"name": "rfc", "file": RFC_KEY, "nonce": "deterministic",
             "certificate": path("rfc-cert.pem"), "allow": {"users": [NOBODY, *allow]}},
            {"name": "web", "file": web, "purpose": "tls-server",
             "certificate": path("web-cert.pem")},
            {"name": "audit", "file": audit, "purpose": "audit"}]
    daemon = Daemon(os.path.abspath(daemon_bin), keys=keys, extra={
        "socket_mode": "0666",
        "audit": {"journal": False, "file": path("audit.jsonl"), "key": "audit"}})
    ENV.update(os.environ, P256SIGN_SOCKET=daemon.socket, HOME=path("home"))
    ENV.pop("P256SIGN_PKCS11_CONFIG", None)
    if preload:
        # The programs' own leaks are not the module's (its own are the valgrind test's).
        ENV.update(LD_PRELOAD=preload, ASAN_OPTIONS="detect_leaks=0")
    os.makedirs(path("home"))
    return daemon


def plain_env():
    """The environment for programs that do not load the module: no sanitizer runtimes."""
    return {k: v for k, v in ENV.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS")}


def finish():
    daemon.stop()
    shutil.rmtree(tmp, ignore_errors=True)


def path(name):
    return os.path.join(tmp, name)


def run(argv, stdin=b"", timeout=60, env=None):
    """(exit status, stdout, stderr as text) of a program."""
    p = subprocess.run(argv, input=stdin, env=env or ENV or None, timeout=timeout,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def ok(argv, **kw):
    rc, out, err = run(argv, **kw)
    check(rc == 0, "%s: exit %d: %s %s" % (" ".join(argv), rc, out, err))
    return out


def as_nobody(argv):
    """argv run as nobody (uid and gid 65534, no supplementary groups)."""
    return ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups", *argv]


def nobody_env():
    """The environment of a program run as nobody: HOME a directory of nobody's own, where
    p11-kit reads its user configuration (which it ignores in programs run as root)."""
    home = path("nobody-home")
    if not os.path.isdir(home):
        os.makedirs(home)
        os.chown(home, NOBODY, NOBODY)
    return dict(ENV, HOME=home)


def p11kit_register(reserved=None):
    """The module in nobody's p11-kit user configuration ($HOME/.config/pkcs11/modules), by its
    absolute path; reserved: the x-init-reserved line's settings."""
    d = os.path.join(nobody_env()["HOME"], ".config", "pkcs11", "modules")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "p256sign.module"), "w") as f:
        f.write("module: %s\n" % module)
        if reserved:
            f.write("x-init-reserved: %s\n" % reserved)
    return os.path.join(d, "p256sign.module")


def audit_records(op=None):
    """The audit file's request records (op: only those of that op)."""
    recs = []
    with open(path("audit.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            if r.get("type") == "request" and (op is None or r.get("op") == op):
                recs.append(r)
    return recs


def wait_audit(op, count):
    """Returns once the audit file holds count records of op (the daemon writes each before the
    answer, so this is at once after the request returned)."""
    end = time.monotonic() + 10
    while len(audit_records(op)) < count:
        check(time.monotonic() < end, "%d %s records, want %d" %
              (len(audit_records(op)), op, count))
        time.sleep(0.02)
    return audit_records(op)


def pubkey_pem(name):
    """The daemon's public key of key `name` as a PEM file (from LIST_KEYS, not the module)."""
    c = daemon.client()
    key_id, point, spki = c.pubkey(name)
    c.close()
    der = path(name + "-daemon-pub.der")
    with open(der, "wb") as f:
        f.write(spki)
    pem = path(name + "-daemon-pub.pem")
    ok(["openssl", "pkey", "-pubin", "-inform", "DER", "-in", der, "-out", pem])
    return pem


def cert_der(name):
    """The DER of key `name`'s configured certificate, as openssl writes it."""
    return ok(["openssl", "x509", "-in", path(name + "-cert.pem"), "-outform", "DER"],
              env=plain_env())


def key_id(name):
    """The key id of key `name` in hex, from the daemon."""
    c = daemon.client()
    kid, _, _ = c.pubkey(name)
    c.close()
    return kid.hex()


def verify_der(pub_pem, data_file, sig_der, raw_digest=False):
    """openssl checks a DER ECDSA signature over the file (SHA-256) or over the digest in it."""
    if raw_digest:
        argv = ["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", pub_pem, "-in", data_file,
                "-sigfile", sig_der]
    else:
        argv = ["openssl", "dgst", "-sha256", "-verify", pub_pem, "-signature", sig_der,
                data_file]
    rc, out, err = run(argv)
    check(rc == 0 and b"Verified" in out, "%s: %d %s %s" % (" ".join(argv), rc, out, err))
