#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The PKCS#11 module through the programs that load modules, against the real p256signd with an
`any` key (rfc) and a tls-server key (web), each with its certificate, and the audit key, without
one: OpenSC's pkcs11-tool (slots, objects, the certificates and their DER, the public key, ECDSA
and ECDSA-SHA256 signatures checked by openssl, the purpose rules, its own --test), GnuTLS's
p11tool (list, the certificates, export the public key), p11-kit (the module registered by a
config file: list-modules, p11-kit-proxy.so, the settings of x-init-reserved) and NSS (modutil
-add, certutil -K and -L); and bench-pkcs11 still runs and reports what docs/performance.md reads
from it (no speed asserted).
Usage: test_pkcs11_tools.py P256SIGND MODULE SANITIZER_PRELOAD BENCH_PKCS11"""
import hashlib
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pkcs11lib  # noqa: E402
from pkcs11lib import RFC_ID, audit_records, check, ok, path, run  # noqa: E402

PROXY = "/usr/lib/x86_64-linux-gnu/p11-kit-proxy.so"


def tool(*args, module=None, **kw):
    return run(["pkcs11-tool", "--module", module or pkcs11lib.module, *args], **kw)


def tool_ok(*args, **kw):
    rc, out, err = tool(*args, **kw)
    check(rc == 0, "pkcs11-tool %s: exit %d: %s %s" % (" ".join(args), rc, out, err))
    return out.decode(errors="replace")


def write(name, data):
    with open(path(name), "wb") as f:
        f.write(data)
    return path(name)


def tls13_content(side=b"server"):
    return b"\x20" * 64 + b"TLS 1.3, " + side + b" CertificateVerify\x00" + bytes(range(32))


def tls12_content(curve=23):
    """client_random, server_random, ServerECDHParams of a secp256r1 (23) ephemeral point."""
    point = bytes.fromhex(
        "0460fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"
        "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299")
    return bytes(range(32)) + bytes(range(32, 64)) + bytes([3, 0, curve, 65]) + point


def pkcs11_tool(pub):
    slots = tool_ok("--list-slots")
    check("token label        : p256sign" in slots and "token initialized" in slots and
          "login required" not in slots, slots)
    objects = tool_ok("--list-objects")
    check(objects.count("Private Key Object; EC") == 2 and
          objects.count("Public Key Object; EC") == 3, objects)
    check("label:      rfc" in objects and "ID:         " + RFC_ID in objects and
          "never extractable" in objects and "06082a8648ce3d030107" in objects, objects)
    # The certificates the daemon holds: rfc's and web's; the audit key has none.
    check(objects.count("Certificate Object; type = X.509 cert") == 2, objects)
    certs = tool_ok("--list-objects", "--type", "cert")
    check("label:      rfc" in certs and "label:      web" in certs and
          "label:      audit" not in certs and "ID:         " + RFC_ID in certs and
          "CN=localhost" in certs, "certificate objects: %s" % certs)
    tool_ok("--read-object", "--type", "cert", "--id", RFC_ID, "-o", path("rfc-read.der"))
    with open(path("rfc-read.der"), "rb") as f:
        check(f.read() == pkcs11lib.cert_der("rfc"), "--read-object --type cert: the DER")
    # The audit key: its public key only, never a key that signs.
    privs = tool_ok("--list-objects", "--type", "privkey")
    check("label:      audit" not in privs and "label:      web" in privs, privs)
    check("label:      audit" in tool_ok("--list-objects", "--type", "pubkey"), objects)
    mechs = tool_ok("--list-mechanisms")
    check("ECDSA, keySize={256,256}" in mechs and "ECDSA-SHA256" in mechs, mechs)

    # The public key as the daemon has it (CKA_EC_POINT, the DER OCTET STRING).
    c = pkcs11lib.daemon.client()
    _, point, _ = c.pubkey("rfc")
    c.close()
    check("EC_POINT:   0441" + point.hex() in objects, "rfc's CKA_EC_POINT: %s" % objects)

    # ECDSA over a digest, ECDSA-SHA256 over a message; openssl checks both. (pkcs11-tool picks
    # the key to sign with by --id only.)
    msg = write("msg.txt", b"a message for the daemon's key\n")
    digest = write("digest.bin", hashlib.sha256(b"a digest").digest())
    for mech, data, raw in (("ECDSA", digest, True), ("ECDSA-SHA256", msg, False)):
        tool_ok("--sign", "-m", mech, "--id", RFC_ID, "-i", data, "-o", path("sig.der"),
                "--signature-format", "openssl")
        pkcs11lib.verify_der(pub, data, path("sig.der"), raw_digest=raw)
    # Raw r || s, 64 bytes, as PKCS#11 prescribes.
    tool_ok("--sign", "-m", "ECDSA", "--id", RFC_ID, "-i", digest, "-o", path("sig.raw"))
    check(os.path.getsize(path("sig.raw")) == 64, "raw signature size")

    # tls-server key: no digest, no message of the caller's; a TLS 1.3 server CertificateVerify
    # content goes to the daemon as SIGN_TLS.
    web_pub = pkcs11lib.pubkey_pem("web")
    web_id = pkcs11lib.key_id("web")
    for mech, data in (("ECDSA", digest), ("ECDSA-SHA256", msg),
                       ("ECDSA-SHA256", write("client-cv.bin", tls13_content(b"client"))),
                       ("ECDSA-SHA256", write("ske-bad-curve.bin", tls12_content(curve=99)))):
        rc, out, err = tool("--sign", "-m", mech, "--id", web_id, "-i", data, "-o",
                            path("refused.der"))
        check(rc != 0 and "CKR_KEY_FUNCTION_NOT_PERMITTED" in err, "%s: %d %s" % (mech, rc, err))
    # TLS 1.3 CertificateVerify and TLS 1.2 ServerKeyExchange contents: SIGN_TLS, one record each.
    before = len(audit_records("sign-tls"))
    for name, content in (("server-cv", tls13_content()), ("ske", tls12_content())):
        data = write(name + ".bin", content)
        tool_ok("--sign", "-m", "ECDSA-SHA256", "--id", web_id, "-i", data, "-o",
                path(name + ".der"), "--signature-format", "openssl")
        pkcs11lib.verify_der(web_pub, data, path(name + ".der"))
    recs = pkcs11lib.wait_audit("sign-tls", before + 2)
    check(len(recs) == before + 2 and all(r["key"] == "web" and r["result"] == "ok"
                                          for r in recs[before:]), "sign-tls records: %s" % recs)

    # OpenSC's own test, logged in with any PIN.
    out = tool_ok("--test", "--login", "--pin", "0000")
    check("No errors" in out, out)


def p11tool(pub):
    rc, out, err = run(["p11tool", "--provider", pkcs11lib.module, "--list-all",
                        "pkcs11:token=p256sign"])
    text = out.decode(errors="replace")
    check(rc == 0 and "pkcs11:model=p256signd;manufacturer=p256sign" in text and
          "object=rfc;type=public" in text and "object=web;type=private" in text,
          "p11tool --list-all: %d %s %s" % (rc, text, err))
    rc, out, err = run(["p11tool", "--provider", pkcs11lib.module, "--list-all-certs",
                        "pkcs11:token=p256sign"])
    text = out.decode(errors="replace")
    check(rc == 0 and "object=rfc;type=cert" in text and "object=web;type=cert" in text and
          "object=audit" not in text and "Type: X.509 Certificate" in text,
          "p11tool --list-all-certs: %d %s %s" % (rc, text, err))
    rc, out, err = run(["p11tool", "--provider", pkcs11lib.module, "--export",
                        "pkcs11:token=p256sign;object=rfc;type=cert", "--outder"])
    check(rc == 0 and out == pkcs11lib.cert_der("rfc"),
          "p11tool --export of the certificate: %d %s" % (rc, err))
    rc, out, err = run(["p11tool", "--provider", pkcs11lib.module, "--export-pubkey",
                        "pkcs11:token=p256sign;object=rfc;type=public"])
    with open(pub, "rb") as f:
        check(rc == 0 and out == f.read(), "p11tool --export-pubkey: %d %s %s" % (rc, out, err))


def p11kit(pub):
    """As nobody (p11-kit reads no user configuration in programs run as root), whom the daemon
    lets use rfc only: the other keys are absent."""
    # The socket from x-init-reserved: the environment's points nowhere.
    conf = pkcs11lib.p11kit_register("socket=%s timeout_ms=3000" % pkcs11lib.daemon.socket)
    env = dict(pkcs11lib.nobody_env(), P256SIGN_SOCKET=path("nothing-listens-here"))
    nobody = pkcs11lib.as_nobody
    rc, out, err = run(nobody(["p11-kit", "list-modules"]), env=env)
    text = out.decode(errors="replace")
    check(rc == 0 and "p256sign: " in text and "library-manufacturer: p256sign" in text and
          "token: p256sign" in text and "model: p256signd" in text,
          "p11-kit list-modules: %d %s %s" % (rc, text, err))
    rc, out, err = run(nobody(["pkcs11-tool", "--module", PROXY, "--token-label", "p256sign",
                               "--list-objects"]), env=env)
    text = out.decode(errors="replace")
    check(rc == 0 and "label:      rfc" in text and "label:      web" not in text and
          "label:      audit" not in text, "proxy: %d %s %s" % (rc, text, err))
    msg = path("msg.txt")
    sig = os.path.join(env["HOME"], "proxy-sig.der")
    rc, out, err = run(nobody(["pkcs11-tool", "--module", PROXY, "--token-label", "p256sign",
                               "--sign", "-m", "ECDSA-SHA256", "--id", RFC_ID, "-i", msg,
                               "-o", sig, "--signature-format", "openssl"]),
                       env=env)
    check(rc == 0, "proxy sign: %d %s" % (rc, err))
    pkcs11lib.verify_der(pub, msg, sig)
    # An unknown setting makes the module's C_Initialize fail: p11-kit leaves the module out.
    pkcs11lib.p11kit_register("sokcet=/x")
    rc, out, err = run(nobody(["p11-kit", "list-modules"]), env=env)
    check(rc == 0 and "p256sign: " not in out.decode(errors="replace"),
          "a bad setting went unnoticed: %s %s" % (out, err))
    os.remove(conf)


def nss():
    db = "sql:" + path("nssdb")
    os.makedirs(path("nssdb"))
    ok(["certutil", "-N", "-d", db, "--empty-password"])
    ok(["modutil", "-dbdir", db, "-add", "p256sign", "-libfile", pkcs11lib.module, "-force"])
    text = ok(["modutil", "-dbdir", db, "-list", "p256sign"]).decode(errors="replace")
    check("p256sign" in text and "Token Name: p256sign" in text, text)
    text = ok(["certutil", "-K", "-d", db, "-h", "p256sign"]).decode(errors="replace")
    check(re.search(r"<\s*\d+> ec\s+%s\s+rfc\n" % RFC_ID[:40], text) and
          re.search(r"<\s*\d+> ec\s+[0-9a-f]{40}\s+web\n", text) and
          "audit" not in text, "certutil -K: " + text)
    text = ok(["certutil", "-L", "-d", db, "-h", "p256sign"]).decode(errors="replace")
    check(re.search(r"^p256sign:rfc\s+u,u,u$", text, re.M) and
          re.search(r"^p256sign:web\s+u,u,u$", text, re.M) and "audit" not in text,
          "certutil -L: " + text)


def bench(path_):
    rc, out, err = run([path_, "--module", pkcs11lib.module, "--processes", "2", "--seconds",
                        "0.5"])
    check(rc == 0, "bench-pkcs11: %d %s" % (rc, err))
    rep = json.loads(out)
    check(rep["processes"] == 2 and rep["signatures"] > 0 and rep["signatures_per_s"] > 0 and
          0 < rep["latency_us"]["p50"] <= rep["latency_us"]["p90"] <= rep["latency_us"]["p99"],
          "bench-pkcs11: %s" % rep)
    # A module without the token fails the run rather than reporting nothing.
    rc, out, err = run([path_, "--module", pkcs11lib.module, "--token", "absent", "--seconds",
                        "0.2"])
    check(rc != 0 and out == b"", "bench-pkcs11 without a token: %d %s" % (rc, out))


def main():
    pkcs11lib.init(sys.argv[1], sys.argv[2], sys.argv[3])
    pub = pkcs11lib.pubkey_pem("rfc")
    pkcs11_tool(pub)
    p11tool(pub)
    p11kit(pub)
    nss()
    bench(os.path.abspath(sys.argv[4]))
    pkcs11lib.finish()
    print("pkcs11 tools: all checks passed")


main()
