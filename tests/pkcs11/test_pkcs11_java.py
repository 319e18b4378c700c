#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Java's SunPKCS11 provider with the module (docs/pkcs11.md, "Java"): P11Sign.java, run by the
JDK's single-file source launcher, opens the token as a PKCS11 KeyStore with any PIN, finds a
PrivateKeyEntry per key with a certificate (rfc, web; not the audit key, which has neither a
private key object nor a certificate), reads rfc's certificate (the daemon's DER), signs with
SHA256withECDSA (which SunPKCS11 maps to CKM_ECDSA_SHA256 when the token has it: the daemon
hashes, SIGN_MESSAGE) and NONEwithECDSA over a SHA-256 digest (CKM_ECDSA: SIGN), verifies both in
Java with the certificate's public key, and is refused the tls-server key. openssl verifies
Java's signatures against the daemon's public key; each signature is one audit record of the op
the mechanism maps to.
Usage: test_pkcs11_java.py P256SIGND MODULE [SANITIZER_PRELOAD]"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pkcs11lib  # noqa: E402
from pkcs11lib import audit_records, check, path, run  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    pkcs11lib.init(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "")
    # The provider configuration of docs/pkcs11.md.
    conf = path("p256sign-java.cfg")
    with open(conf, "w") as f:
        f.write("name = p256sign\nlibrary = %s\nslotListIndex = 0\n" % pkcs11lib.module)
    env = dict(pkcs11lib.ENV)
    if "LD_PRELOAD" in env:
        # The JVM takes SIGSEGV for its own null checks: the sanitizer must leave it that.
        env["ASAN_OPTIONS"] = "detect_leaks=0:handle_segv=0:allow_user_segv_handler=1"
    before = {op: len(audit_records(op)) for op in ("sign", "sign-message")}
    rc, out, err = run(["java", os.path.join(HERE, "P11Sign.java"), conf, pkcs11lib.tmp],
                       env=env, timeout=120)
    text = out.decode(errors="replace")
    check(rc == 0 and text.endswith("ok\n"), "P11Sign.java: exit %d: %s %s" % (rc, text, err))
    lines = dict(line.split(": ", 1) for line in text.splitlines() if ": " in line)
    check(lines.get("aliases") == "rfc,web", "aliases: %s" % text)
    check(lines.get("key algorithm") == "EC" and lines.get("subject") == "CN=localhost",
          "rfc's entry: %s" % text)
    check(lines.get("web", "").startswith("refused: "), "the tls-server key: %s" % text)
    with open(path("java-cert.der"), "rb") as f:
        check(f.read() == pkcs11lib.cert_der("rfc"), "Java's certificate is the daemon's")

    # openssl checks Java's signatures under the daemon's public key.
    pub = pkcs11lib.pubkey_pem("rfc")
    pkcs11lib.verify_der(pub, path("java-msg.txt"), path("java-sha256.sig"))
    pkcs11lib.verify_der(pub, path("java-digest.bin"), path("java-none.sig"), raw_digest=True)

    # One record per signature: SHA256withECDSA came as CKM_ECDSA_SHA256 (SIGN_MESSAGE, the
    # daemon hashed), NONEwithECDSA as CKM_ECDSA (SIGN of Java's digest).
    msgs = pkcs11lib.wait_audit("sign-message", before["sign-message"] + 1)
    signs = pkcs11lib.wait_audit("sign", before["sign"] + 1)
    check(len(msgs) == before["sign-message"] + 1 and msgs[-1]["key"] == "rfc" and
          msgs[-1]["result"] == "ok", "sign-message records: %s" % msgs[before["sign-message"]:])
    with open(path("java-digest.bin"), "rb") as f:
        digest = f.read().hex()
    check(len(signs) == before["sign"] + 1 and signs[-1]["key"] == "rfc" and
          signs[-1]["result"] == "ok" and signs[-1]["digest"] == digest,
          "sign records: %s" % signs[before["sign"]:])
    web = [r for r in audit_records() if r.get("key") == "web" and r["op"].startswith("sign")]
    check(all(r["result"] != "ok" for r in web), "web key records: %s" % web)
    pkcs11lib.finish()
    print(text, end="")     # what Java found, for the log
    print("pkcs11 java: all checks passed")


main()
