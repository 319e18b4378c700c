#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""gnutls-serv with its key and its certificate both in the daemon, each named by a pkcs11: URI
through the module (the certificate object: the daemon's CERTIFICATE; no certificate file):
gnutls-cli and openssl s_client complete TLS 1.3 and TLS 1.2 ECDHE-ECDSA handshakes, each
certificate verified against the one the daemon was configured with, each handshake one audit
record of the daemon, and the server's start and handshakes one CERTIFICATE request per key
with a certificate (the module fetches a certificate only when it changed). The same server with the tls-server key fails its handshakes: GnuTLS gives PKCS#11 the
handshake's digest (CKM_ECDSA), which a purpose-bound key never signs (docs/pkcs11.md).
gnutls-serv cannot be told to listen on 127.0.0.1 only, so the test runs in a network namespace
of its own, whose loopback is its only interface.
Usage: test_pkcs11_gnutls.py P256SIGND MODULE [SANITIZER_PRELOAD]"""
import os
import re
import subprocess
import sys

NETNS_FLAG = "P256SIGN_TEST_OWN_NETNS"
if os.environ.get(NETNS_FLAG) != "1":
    os.environ[NETNS_FLAG] = "1"
    os.execvp("unshare", ["unshare", "--net", "--", sys.executable, *sys.argv])

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pkcs11lib  # noqa: E402
from pkcs11lib import check, ok, path, run  # noqa: E402

servers = []


def start_server(key):
    port = pkcs11lib.free_port()
    log = path("gnutls-serv-%d.log" % port)
    uri = "pkcs11:token=p256sign;object=%s;type=" % key
    proc = subprocess.Popen(["gnutls-serv", "--provider", pkcs11lib.module, "--echo", "-q",
                             "--port", str(port), "--x509certfile", uri + "cert",
                             "--x509keyfile", uri + "private"],
                            env=pkcs11lib.ENV, stdin=subprocess.DEVNULL,
                            stdout=open(log, "wb"), stderr=subprocess.STDOUT)
    servers.append(proc)
    pkcs11lib.wait_listening(proc, port, log)
    return proc, port


def stop_server(proc):
    proc.terminate()
    proc.wait(10)


PRIORITY = {"1.3": "NORMAL:-VERS-ALL:+VERS-TLS1.3",
            "1.2": "NORMAL:-VERS-ALL:+VERS-TLS1.2:-KX-ALL:+ECDHE-ECDSA"}


CA = {"file": None}     # the certificate of the server's key: the one the client trusts


def gnutls_cli(port, version):
    return run(["gnutls-cli", "--port", str(port), "--x509cafile", CA["file"],
                "--priority", PRIORITY[version], "localhost"], stdin=b"ping\n", timeout=30,
               env=pkcs11lib.plain_env())


def s_client(port, version):
    v = ["-tls1_3"] if version == "1.3" else ["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"]
    return run(["openssl", "s_client", "-connect", "127.0.0.1:%d" % port, "-servername",
                "localhost", "-verify_hostname", "localhost", "-brief", "-CAfile",
                CA["file"], "-verify_return_error", *v], stdin=b"ping\n", timeout=30,
               env=pkcs11lib.plain_env())


def handshake_ok(client, port, version):
    before = len(pkcs11lib.audit_records("sign"))
    rc, out, err = client(port, version)
    text = out.decode(errors="replace") + err
    if client is gnutls_cli:
        good = ("- Status: The certificate is trusted." in text and
                "Handshake was completed" in text and
                re.search(r"- Description: \(TLS%s-X\.509\)-\(ECDHE-SECP256R1\)-"
                          r"\(ECDSA-(SECP256R1-)?SHA256\)" % re.escape(version), text) and
                "\nping\n" in text)
    else:
        good = ("Protocol version: TLSv%s" % version in text and "Verification: OK" in text and
                "\nSignature type: ECDSA" in text and "Verified peername: localhost" in text)
    check(rc == 0 and good, "%s TLS %s: exit %d: %s" % (client.__name__, version, rc, text))
    # One signature for the handshake, recorded by the daemon before it answered.
    after = pkcs11lib.wait_audit("sign", before + 1)
    check(len(after) == before + 1 and after[-1]["key"] == "rfc" and
          after[-1]["result"] == "ok", "audit records: %s" % after[before:])


def main():
    ok(["ip", "link", "set", "lo", "up"])
    pkcs11lib.init(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "")
    CA["file"] = path("rfc-cert.pem")
    before = len(pkcs11lib.audit_records("certificate"))
    proc, port = start_server("rfc")
    # The server read its certificate from the daemon (CERTIFICATE, one audit record or more).
    certs = pkcs11lib.audit_records("certificate")
    check(len(certs) > before and all(r["result"] == "ok" and r["key"] in ("rfc", "web")
                                      for r in certs), "certificate records: %s" % certs)
    for client in (gnutls_cli, s_client):
        for version in ("1.3", "1.2"):
            handshake_ok(client, port, version)
    # The module asks for a certificate only when LIST_KEYS names a DER it does not hold
    # (certificate_sha256), although gnutls-serv searches the token's objects about ten times as
    # it starts: one CERTIFICATE, so one record, per key with a certificate (rfc, web; the audit
    # key has none) and module load. gnutls-serv loads the module once (measured: all its
    # records on one connection), and the handshakes search no more.
    certs = pkcs11lib.audit_records("certificate")[before:]
    check(sorted(r["key"] for r in certs) == ["rfc", "web"] and
          len({r["conn"] for r in certs}) == 1,
          "one certificate request per key with a certificate: %s" % certs)
    stop_server(proc)

    CA["file"] = path("web-cert.pem")
    proc, port = start_server("web")
    rc, out, err = s_client(port, "1.3")
    check(rc != 0, "a tls-server key signed a digest for gnutls-serv: %s" % out)
    denied = [r for r in pkcs11lib.audit_records()
              if r.get("key") == "web" and r["op"].startswith("sign")]
    check(denied == [] or all(r["result"] != "ok" for r in denied),
          "web key records: %s" % denied)
    stop_server(proc)
    pkcs11lib.finish()
    print("pkcs11 gnutls: all checks passed")


try:
    main()
finally:
    for p in servers:
        if p.poll() is None:
            p.kill()
            p.wait()
