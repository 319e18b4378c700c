#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""CERTIFICATE (docs/protocol.md section 4.1): the key's configured certificate as DER (a PEM
file's certificate, re-encoded as the DER openssl makes of it), by name and by key id, with the
key's id; a key without one is no-certificate, an unknown key unknown-key, a point selector
bad-key-selector; a caller the key's allow list does not name is denied, also for a key without
a certificate; LIST_KEYS says which keys have one and the SHA-256 of its DER; a reload that changes a certificate (and one
that drops it) is answered from the new key set; a certificate of more than 16384 bytes of DER is
refused at start and on reload; every request is one audit record (op certificate) and
p256signctl audit-verify finds the file intact; p256signctl cert writes DER, PEM, a file, JSON,
and fails with the daemon's reason."""
import hashlib
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

NOBODY = 65534
CTL = os.environ["P256SIGNCTL"]

PROBE = r"""
import json, sys
sys.path.insert(0, %r)
from daemonlib import *
c = Client(sys.argv[1])
for name in sys.argv[2:]:
    r = c.call(frame(CERTIFICATE, 1, key_name(name)))
    print(json.dumps({"error": r.error, "der": r.body[34:].hex() if r.error is None else None}))
""" % os.path.dirname(os.path.abspath(__file__))


def sh(argv, **kw):
    return subprocess.run(argv, check=True, capture_output=True, **kw).stdout


def make_cert(tmp, name, key, serial, subject, extra=()):
    """A certificate for key signed by the test's CA, as PEM; returns (path, its DER)."""
    csr = os.path.join(tmp, name + ".csr")
    pem = os.path.join(tmp, name + ".pem")
    sh(["openssl", "req", "-new", "-key", key, "-subj", subject, "-out", csr])
    sh(["openssl", "x509", "-req", "-in", csr, "-CA", os.path.join(tmp, "ca.pem"), "-CAkey",
        os.path.join(tmp, "ca.key"), "-set_serial", serial, "-days", "2", "-out", pem,
        *extra])
    return pem, sh(["openssl", "x509", "-in", pem, "-outform", "DER"])


def as_nobody(sock, *names):
    r = subprocess.run(["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY,
                        "--clear-groups", "python3", "-c", PROBE, sock, *names],
                       capture_output=True, text=True, timeout=TIMEOUT)
    check(r.returncode == 0, "probe as nobody: %s" % r.stderr)
    return [json.loads(line) for line in r.stdout.splitlines()]


def ctl(d, *args):
    return subprocess.run([CTL, "--socket", d.socket, *args], capture_output=True,
                          timeout=TIMEOUT)


def requests(audit_file):
    recs = []
    with open(audit_file) as f:
        for line in f:
            r = json.loads(line)
            if r["type"] == "request" and r["op"] == "certificate":
                recs.append(r)
    return recs


def answers(d, tmp, rfc_der, shared_der):
    c = d.client()
    rfc_id, _, rfc_spki = c.pubkey("rfc")
    kid, der = c.certificate(key_name("rfc"))
    check(kid == rfc_id and der == rfc_der, "rfc's certificate by name, DER as openssl writes it")
    check(c.certificate(key_id(rfc_id)) == (rfc_id, rfc_der), "and by key id")
    # The certificate holds the key's public key.
    with open(os.path.join(tmp, "got.der"), "wb") as f:
        f.write(der)
    pub = sh(["openssl", "x509", "-inform", "DER", "-in", os.path.join(tmp, "got.der"),
              "-noout", "-pubkey"])
    check(sh(["openssl", "pkey", "-pubin", "-outform", "DER"], input=pub) == rfc_spki,
          "its public key is the key's")
    check(c.certificate(key_name("shared"))[1] == shared_der, "shared's certificate")
    c.expect_error(frame(CERTIFICATE, 2, key_name("plain")), E["no_certificate"])
    c.expect_error(frame(CERTIFICATE, 3, key_name("nosuch")), E["unknown_key"])
    c.expect_error(frame(CERTIFICATE, 4, key_id(bytes(32))), E["unknown_key"])
    c.expect_error(frame(CERTIFICATE, 5, key_point(b"\x04" + bytes(64))), E["bad_key_selector"])
    # A byte after the selector is a frame the daemon cannot trust: bad-frame, closed.
    c.expect_error(frame(CERTIFICATE, 6, key_name("rfc") + b"\x00"), E["bad_frame"], closes=True)
    c = d.client()
    listed = {k["name"]: k for k in c.call(frame(LIST_KEYS, 7)).ok(LIST_KEYS).json()["keys"]}
    check("certificate_not_after" in listed["rfc"] and "certificate_not_after" in listed["shared"]
          and "certificate_not_after" not in listed["plain"], "LIST_KEYS: %s" % listed)
    check_sha256(listed, {"rfc": rfc_der, "shared": shared_der})
    # As nobody, whom only shared's allow names: rfc and plain are denied, not told apart.
    got = as_nobody(d.socket, "shared", "rfc", "plain", "nosuch")
    check(got[0] == {"error": None, "der": shared_der.hex()} and
          [g["error"] for g in got[1:]] == [E["denied"], E["denied"], E["unknown_key"]],
          "as nobody: %s" % got)
    c.close()


def check_sha256(listed, ders):
    """LIST_KEYS's certificate_sha256: the SHA-256 of the DER CERTIFICATE answers, in lowercase
    hex, for the keys in ders; absent for every other key."""
    for name, k in listed.items():
        if name in ders:
            check(k.get("certificate_sha256") == hashlib.sha256(ders[name]).hexdigest(),
                  "%s: certificate_sha256 of its DER: %s" % (name, k))
        else:
            check("certificate_sha256" not in k, "%s has none: %s" % (name, k))


def ctl_cert(d, tmp, rfc_der):
    r = ctl(d, "cert", "rfc")
    check(r.returncode == 0 and r.stdout == rfc_der, "p256signctl cert: %s" % r.stderr)
    r = ctl(d, "cert", "rfc", "--pem")
    check(r.returncode == 0 and r.stdout.startswith(b"-----BEGIN CERTIFICATE-----\n") and
          sh(["openssl", "x509", "-outform", "DER"], input=r.stdout) == rfc_der,
          "p256signctl cert --pem: %s %s" % (r.stdout, r.stderr))
    out = os.path.join(tmp, "ctl.der")
    r = ctl(d, "cert", "rfc", "--out", out)
    with open(out, "rb") as f:
        check(r.returncode == 0 and r.stdout == b"" and f.read() == rfc_der, "--out: %s" % r.stderr)
    c = d.client()
    rfc_id = c.pubkey("rfc")[0]
    c.close()
    r = ctl(d, "--json", "cert", "id:" + rfc_id.hex())
    check(r.returncode == 0 and json.loads(r.stdout) == {"key_id": rfc_id.hex(),
                                                         "certificate": rfc_der.hex()},
          "--json: %s %s" % (r.stdout, r.stderr))
    r = ctl(d, "cert", "plain")
    check(r.returncode == 1 and b"no certificate" in r.stderr, "a key without one: %s" % r.stderr)
    r = ctl(d, "cert", "nosuch")
    check(r.returncode == 1 and b"no such key" in r.stderr, "unknown key: %s" % r.stderr)
    check(ctl(d, "cert").returncode == 2 and ctl(d, "cert", "rfc", "--der").returncode == 2,
          "usage errors")


def reload(d, tmp, keys):
    """A new certificate for rfc (another serial) and none for shared: the answers follow."""
    c = d.client()
    new_pem, new_der = make_cert(tmp, "rfc2", RFC_KEY, "0x0102", "/CN=rfc renewed")
    keys[0] = dict(keys[0], certificate=new_pem)
    keys[1] = {k: v for k, v in keys[1].items() if k != "certificate"}
    d.write_keys(keys)
    d.proc.send_signal(signal.SIGHUP)
    c.wait_status("key_set", 2)
    check(c.certificate(key_name("rfc"))[1] == new_der, "the reloaded certificate")
    c.expect_error(frame(CERTIFICATE, 2, key_name("shared")), E["no_certificate"])
    listed = {k["name"]: k for k in c.call(frame(LIST_KEYS, 3)).ok(LIST_KEYS).json()["keys"]}
    check_sha256(listed, {"rfc": new_der})
    # A certificate over 16384 bytes of DER: the reload is refused, the key set stays.
    big_pem, big_der = make_cert(tmp, "big", RFC_KEY, "0x03", "/CN=big", extra=(
        "-extfile", big_extension(tmp)))
    check(len(big_der) > 16384, "the big certificate is %d bytes" % len(big_der))
    d.write_keys([dict(keys[0], certificate=big_pem)] + keys[1:])
    d.proc.send_signal(signal.SIGHUP)
    end = time.monotonic() + TIMEOUT
    while "reload refused" not in d.log_text():
        check(time.monotonic() < end, "reload refused: %s" % d.log_text())
        time.sleep(0.05)
    check("certificate-too-large" in d.log_text(), "the refusal says why: %s" % d.log_text())
    check(c.certificate(key_name("rfc"))[1] == new_der, "the key set in use stays")
    c.close()
    return big_pem


def big_extension(tmp):
    path = os.path.join(tmp, "big.ext")
    with open(path, "w") as f:
        f.write("1.2.3.4 = ASN1:UTF8String:%s\n" % ("x" * 17000))
    return path


def main():
    binary = sys.argv[1]
    tmp = scratch_dir("p256signd-cert-")
    os.chmod(tmp, 0o755)  # the key-holder reads the certificates here on reload
    shared_key = os.path.join(tmp, "shared.key")
    plain_key = os.path.join(tmp, "plain.key")
    audit_key = os.path.join(tmp, "audit.key")
    for k in (shared_key, plain_key, audit_key):
        openssl_key(k)
    sh(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out",
        os.path.join(tmp, "ca.key")])
    sh(["openssl", "req", "-x509", "-new", "-key", os.path.join(tmp, "ca.key"), "-subj",
        "/CN=p256sign test CA", "-days", "2", "-out", os.path.join(tmp, "ca.pem")])
    rfc_pem, rfc_der = make_cert(tmp, "rfc", RFC_KEY, "0x80112233", "/O=p256sign/CN=rfc")
    shared_pem, shared_der = make_cert(tmp, "shared", shared_key, "7", "/CN=shared")
    keys = [{"name": "rfc", "file": RFC_KEY, "certificate": rfc_pem},
            {"name": "shared", "file": shared_key, "certificate": shared_pem,
             "allow": {"users": [NOBODY]}},
            {"name": "plain", "file": plain_key},
            {"name": "audit", "file": audit_key, "purpose": "audit"}]
    d = Daemon(binary, keys=keys, extra={"socket_mode": "0666", "audit": {
        "journal": False, "file": os.path.join(tmp, "audit.jsonl"), "key": "audit"}})
    answers(d, tmp, rfc_der, shared_der)
    ctl_cert(d, tmp, rfc_der)
    big_pem = reload(d, tmp, keys)
    recs = requests(os.path.join(tmp, "audit.jsonl"))
    results = [r["result"] for r in recs]
    check(results.count("ok") >= 9 and "no-certificate" in results and "denied" in results and
          "unknown-key" in results and all(r.get("key") in ("rfc", "shared", "plain", None)
                                           for r in recs), "certificate records: %s" % results)
    check(all("sig_sha256" not in r for r in recs), "no signature in a certificate record")
    d.stop()
    audit = subprocess.run([CTL, "audit-verify", os.path.join(tmp, "audit.jsonl")],
                           capture_output=True, text=True, timeout=TIMEOUT)
    check(audit.returncode == 0 and "intact" in audit.stdout,
          "audit-verify: %s %s" % (audit.stdout, audit.stderr))
    # At start, and by --check-config, the big certificate is refused with its tag.
    bad = os.path.join(tmp, "big.json")
    with open(bad, "w") as f:
        json.dump({"keys": [dict(keys[0], certificate=big_pem)]}, f)
    os.chmod(bad, 0o644)
    r = subprocess.run([binary, "--check-config", bad], capture_output=True, text=True,
                       timeout=TIMEOUT)
    check(r.returncode != 0 and "keys[0] (rfc): " in r.stderr and
          "certificate-too-large" in r.stderr, "--check-config: %s" % r.stderr)
    subprocess.run(["rm", "-rf", tmp], check=True)
    print("ok")


main()
