#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Generates the key file corpus in files/ and its MANIFEST with the openssl CLI.

Keys, certificates and the forms OpenSSL writes come from openssl itself; the files OpenSSL
cannot write (non-minimal lengths, spliced public keys, stray '=', PKCS#8 v2, short scalars...)
are built here from the DER of those keys. Expected scalars and points are the ones
`openssl pkey -text` prints; key ids are SHA-256 of `openssl pkey -pubout -outform DER`.
Both this script and its outputs are committed: the tests need no openssl.

MANIFEST lines (tab-separated):
  key FILE ok FORM D PUB KEY_ID OPENSSL     the file loads with this form, scalar, point, key id
  key FILE error TAG OPENSSL                the file is refused with this error tag
  cert CERT KEYFILE ok KEY_ID               the certificate matches the key and has this key id
  cert CERT KEYFILE error TAG               the certificate is refused (or does not match)
OPENSSL says whether `openssl pkey` 3.0 accepts the file too ("openssl-accepts"/"openssl-refuses").

Usage: python3 tests/vectors/keys/generate.py   (rewrites files/, MANIFEST and the fuzz seeds)
"""
import base64
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = os.path.join(HERE, "files")
FUZZ_SEEDS = os.path.join(HERE, "..", "..", "fuzz", "corpus", "keyfile")

OID_EC = bytes.fromhex("2a8648ce3d0201")
OID_P256 = bytes.fromhex("2a8648ce3d030107")
OID_P384 = bytes.fromhex("2b81040022")
OID_FRIENDLY_NAME = bytes.fromhex("2a864886f70d010914")
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551

manifest = []
tmp = tempfile.mkdtemp()


def ossl(*args, data=None):
    """Runs openssl and returns its standard output."""
    return subprocess.run(["openssl", *args], input=data, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, check=True).stdout


def openssl_accepts(path):
    fmt = "DER" if path.endswith(".der") else "PEM"
    r = subprocess.run(["openssl", "pkey", "-inform", fmt, "-in", path, "-noout",
                        "-passin", "pass:wrong"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return "openssl-accepts" if r.returncode == 0 else "openssl-refuses"


# ---- DER and PEM ------------------------------------------------------------------------------

def length(n, long_form=0):
    """A DER length; long_form > 0 forces that many length bytes (non-minimal)."""
    if n < 0x80 and long_form == 0:
        return bytes([n])
    body = n.to_bytes(max(long_form, (n.bit_length() + 7) // 8), "big")
    return bytes([0x80 | len(body)]) + body


def tlv(tag, content, long_form=0):
    return bytes([tag]) + length(len(content), long_form) + content


def elements(der):
    """The top-level (tag, contents) pairs of der."""
    out, i = [], 0
    while i < len(der):
        tag, n = der[i], der[i + 1]
        i += 2
        if n & 0x80:
            k = n & 0x7F
            n = int.from_bytes(der[i:i + k], "big")
            i += k
        out.append((tag, der[i:i + n]))
        i += n
    return out


def pem(label, der, width=64):
    return pem_text(label, base64.b64encode(der).decode(), width)


def pem_text(label, b64, width=64):
    lines = [b64[i:i + width] for i in range(0, len(b64), width)]
    return "\n".join([f"-----BEGIN {label}-----", *lines, f"-----END {label}-----", ""]).encode()


def unpem(text):
    lines = text.decode().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("-----BEGIN "))
    body = []
    for line in lines[start + 1:]:
        if line.startswith("-----END "):
            break
        body.append(line)
    return base64.b64decode("".join(body))


def sec1(d, params=True, pub=None, version=1, curve=OID_P256, octets_tag=0x04):
    c = tlv(0x02, bytes([version])) + tlv(octets_tag, d)
    if params:
        c += tlv(0xA0, tlv(0x06, curve))
    if pub is not None:
        c += tlv(0xA1, tlv(0x03, b"\x00" + pub))
    return tlv(0x30, c)


def pkcs8(inner, version=0, attributes=False, pub=None):
    c = tlv(0x02, bytes([version])) + tlv(0x30, tlv(0x06, OID_EC) + tlv(0x06, OID_P256))
    c += tlv(0x04, inner)
    if attributes:
        name = tlv(0x1E, "signing key".encode("utf-16-be"))
        c += tlv(0xA0, tlv(0x30, tlv(0x06, OID_FRIENDLY_NAME) + tlv(0x31, name)))
    if pub is not None:
        c += tlv(0x81, b"\x00" + pub)
    return tlv(0x30, c)


# ---- keys -------------------------------------------------------------------------------------

class Key:
    """A P-256 key as OpenSSL prints it: the scalar, the point and the key id."""

    def __init__(self, pem_bytes=None, path=None):
        if path is None:
            path = os.path.join(tmp, "key.pem")
            with open(path, "wb") as f:
                f.write(pem_bytes)
        self.pem = pem_bytes
        fmt = ["-inform", "DER" if path.endswith(".der") else "PEM", "-in", path]
        text = ossl("pkey", *fmt, "-text", "-noout").decode()
        self.d = int(self.field(text, "priv:"), 16).to_bytes(32, "big")
        self.pub = bytes.fromhex(self.field(text, "pub:"))
        spki = ossl("pkey", *fmt, "-pubout", "-outform", "DER")
        self.key_id = hashlib.sha256(spki).hexdigest()

    @staticmethod
    def field(text, name):
        lines = text.splitlines()
        i = lines.index(name) + 1
        hexdigits = ""
        while i < len(lines) and lines[i].startswith("    "):
            hexdigits += lines[i].strip().replace(":", "")
            i += 1
        return hexdigits

    def compressed(self):
        return bytes([2 | (self.pub[64] & 1)]) + self.pub[1:33]


def write(name, data):
    path = os.path.join(FILES, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def accept(name, data, key, form):
    """An accepted file; where OpenSSL reads it too, it must print the same key."""
    path = write(name, data)
    verdict = openssl_accepts(path)
    if verdict == "openssl-accepts":
        seen = Key(path=path)
        assert seen.d == key.d and seen.pub in (key.pub, key.compressed()), name
        # OpenSSL writes the SPKI of a compressed key compressed; key ids use the full point.
        assert seen.pub != key.pub or seen.key_id == key.key_id, name
    manifest.append(["key", name, "ok", form, key.d.hex(), key.pub.hex(), key.key_id, verdict])


def refuse(name, data, tag):
    path = write(name, data)
    manifest.append(["key", name, "error", tag, openssl_accepts(path)])


def cert(name, data, keyfile, outcome, detail):
    write(name, data)
    manifest.append(["cert", name, keyfile, outcome, detail])


def genpkey(*opts):
    return ossl("genpkey", *opts)


def convert(key_pem, *args):
    path = os.path.join(tmp, "in.pem")
    with open(path, "wb") as f:
        f.write(key_pem)
    return ossl(*args, "-in", path)


def self_signed(key_pem):
    path = os.path.join(tmp, "signer.pem")
    with open(path, "wb") as f:
        f.write(key_pem)
    return ossl("req", "-x509", "-new", "-key", path, "-subj", "/CN=p256sign test",
                "-days", "36500")


def main():
    shutil.rmtree(FILES, ignore_errors=True)
    os.makedirs(FILES)

    a = Key(genpkey("-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"))
    b = Key(genpkey("-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"))
    # A scalar below 2^248: written with 32 bytes by OpenSSL 3, with 31 by some old encoders.
    short_d = b"\x00" + os.urandom(31)
    short = Key(convert(pem("EC PRIVATE KEY", sec1(short_d)), "ec"))
    assert short.d == short_d
    a_sec1 = unpem(convert(a.pem, "ec"))
    a_inner = sec1(a.d, params=False, pub=a.pub)	# as OpenSSL nests it in PKCS#8

    # ---- accepted: what OpenSSL writes ----
    accept("pkcs8-v1.pem", a.pem, a, "pkcs8-pem")
    accept("pkcs8-v1.der", convert(a.pem, "pkcs8", "-topk8", "-nocrypt", "-outform", "DER"),
           a, "pkcs8-der")
    accept("sec1.pem", convert(a.pem, "ec"), a, "sec1-pem")
    accept("sec1.der", convert(a.pem, "ec", "-outform", "DER"), a, "sec1-der")
    accept("sec1-no-public.pem", convert(a.pem, "ec", "-no_public"), a, "sec1-pem")
    accept("sec1-compressed.pem", convert(a.pem, "ec", "-conv_form", "compressed"), a, "sec1-pem")
    accept("pkcs8-crlf.pem", a.pem.replace(b"\n", b"\r\n"), a, "pkcs8-pem")
    accept("sec1-crlf.pem", convert(a.pem, "ec").replace(b"\n", b"\r\n"), a, "sec1-pem")
    ecparam = ossl("ecparam", "-name", "prime256v1", "-genkey")
    accept("ecparam-genkey.pem", ecparam, Key(ecparam), "sec1-pem")
    a_cert = self_signed(a.pem)
    accept("certificate-then-key.pem", a_cert + a.pem, a, "pkcs8-pem")
    p12 = os.path.join(tmp, "a.p12")
    with open(os.path.join(tmp, "a.pem"), "wb") as f:
        f.write(a.pem + a_cert)
    ossl("pkcs12", "-export", "-in", os.path.join(tmp, "a.pem"), "-out", p12,
         "-passout", "pass:x", "-name", "signing key")
    accept("pkcs12-export.pem", ossl("pkcs12", "-in", p12, "-passin", "pass:x", "-noenc"),
           a, "pkcs8-pem")
    accept("text-before-key.pem", b"Signing key for release artefacts\n\n" + a.pem, a, "pkcs8-pem")

    # ---- accepted: built here ----
    accept("sec1-no-params.der", sec1(a.d, params=False, pub=a.pub), a, "sec1-der")
    accept("sec1-bare.der", sec1(a.d, params=False), a, "sec1-der")
    accept("pkcs8-v2.pem", pem("PRIVATE KEY", pkcs8(a_inner, version=1, pub=a.pub)), a,
           "pkcs8-pem")
    accept("pkcs8-v2-outer-public-only.der",
           pkcs8(sec1(a.d, params=False), version=1, pub=a.pub), a, "pkcs8-der")
    accept("pkcs8-attributes.pem", pem("PRIVATE KEY", pkcs8(a_inner, attributes=True)), a,
           "pkcs8-pem")
    accept("pkcs8-v2-attributes.der",
           pkcs8(a_inner, version=1, attributes=True, pub=a.pub), a, "pkcs8-der")
    accept("pkcs8-inner-params.der", pkcs8(sec1(a.d, pub=a.pub)), a, "pkcs8-der")
    accept("pkcs8-one-line.pem", pem("PRIVATE KEY", unpem(a.pem), width=10000), a, "pkcs8-pem")
    accept("short-scalar-sec1.pem", pem("EC PRIVATE KEY", sec1(short.d[1:], pub=short.pub)),
           short, "sec1-pem")
    accept("short-scalar-sec1.der", sec1(short.d[1:], pub=short.pub), short, "sec1-der")
    accept("short-scalar-pkcs8.pem",
           pem("PRIVATE KEY", pkcs8(sec1(short.d[1:], params=False, pub=short.pub))),
           short, "pkcs8-pem")

    # ---- refused: encrypted, other curves and algorithms ----
    refuse("pkcs8-encrypted.pem", convert(a.pem, "pkcs8", "-topk8", "-v2", "aes-256-cbc",
                                          "-passout", "pass:x"), "key-encrypted")
    refuse("pkcs8-encrypted.der", convert(a.pem, "pkcs8", "-topk8", "-v2", "aes-256-cbc",
                                          "-passout", "pass:x", "-outform", "DER"),
           "key-encrypted")
    refuse("sec1-encrypted.pem", convert(a.pem, "ec", "-aes256", "-passout", "pass:x"),
           "key-encrypted")
    p384 = genpkey("-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384")
    refuse("p384.pem", p384, "key-curve")
    refuse("p384-sec1.der", convert(p384, "ec", "-outform", "DER"), "key-curve")
    refuse("secp256k1.pem", genpkey("-algorithm", "EC", "-pkeyopt",
                                    "ec_paramgen_curve:secp256k1"), "key-curve")
    explicit = ossl("ecparam", "-name", "prime256v1", "-param_enc", "explicit", "-genkey",
                    "-noout")
    refuse("explicit-curve-sec1.pem", explicit, "key-explicit-curve")
    refuse("explicit-curve-pkcs8.pem", convert(explicit, "pkcs8", "-topk8", "-nocrypt"),
           "key-explicit-curve")
    rsa = genpkey("-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048")
    refuse("rsa-pkcs8.pem", rsa, "key-algorithm")
    refuse("rsa-pkcs8.der", convert(rsa, "pkcs8", "-topk8", "-nocrypt", "-outform", "DER"),
           "key-algorithm")
    refuse("rsa-traditional.pem", convert(rsa, "rsa", "-traditional"), "key-algorithm")
    refuse("ed25519.pem", genpkey("-algorithm", "ED25519"), "key-algorithm")

    # ---- refused: no private key ----
    refuse("certificate-only.pem", a_cert, "key-missing")
    refuse("certificate-only.der", convert(a_cert, "x509", "-outform", "DER"), "key-missing")
    refuse("public-key.pem", convert(a.pem, "pkey", "-pubout"), "key-missing")
    refuse("public-key.der", convert(a.pem, "pkey", "-pubout", "-outform", "DER"), "key-missing")
    refuse("ec-parameters-only.pem", ossl("ecparam", "-name", "prime256v1"), "key-missing")
    refuse("empty.pem", b"", "key-missing")
    refuse("text-only.pem", b"this is not a key\n", "key-missing")

    # ---- refused: PEM and base64 ----
    body = a.pem.decode().split("\n")
    refuse("label-mismatch.pem", a.pem.replace(b"END PRIVATE KEY", b"END EC PRIVATE KEY"),
           "pem-label-mismatch")
    refuse("label-same-length.pem", a.pem.replace(b"END PRIVATE KEY", b"END PRIVATE KEZ"),
           "pem-label-mismatch")
    refuse("unterminated.pem", "\n".join(body[:-2]).encode() + b"\n", "pem-unterminated")
    refuse("base64-invalid-char.pem", "\n".join([body[0], "*" + body[1][1:], *body[2:]]).encode(),
           "base64-invalid")
    # A '=' where padding could start (third digit of a group) with digits after it: refused
    # for those digits, where a decoder that lets '=' through reads on and miscounts the groups.
    refuse("base64-stray-equals.pem",
           "\n".join([body[0], body[1][:22] + "=" + body[1][22:], *body[2:]]).encode(),
           "base64-padding")
    der = unpem(a.pem)
    der += bytes((1 - len(der)) % 3)	# one byte in the last group: it ends in "=="
    b64 = base64.b64encode(der).decode()
    assert b64.endswith("==")
    refuse("base64-three-equals.pem", pem_text("PRIVATE KEY", b64[:-3] + "==="), "base64-padding")
    refuse("base64-truncated.pem", "\n".join([body[0], body[1][1:], *body[2:]]).encode(),
           "base64-truncated")

    # ---- refused: DER ----
    refuse("der-non-minimal-length.der", tlv(0x30, elements(a_sec1)[0][1], long_form=1),
           "der-length")
    refuse("der-non-minimal-length.pem",
           pem("PRIVATE KEY", tlv(0x30, elements(unpem(a.pem))[0][1], long_form=2)), "der-length")
    inner = elements(elements(a_sec1)[0][1])
    refuse("der-non-minimal-inner-length.der",
           tlv(0x30, tlv(0x02, b"\x01") + tlv(0x04, a.d, long_form=1) +
               b"".join(tlv(t, c) for t, c in inner[2:])), "der-length")
    refuse("der-wrong-tag.der", sec1(a.d, pub=a.pub, octets_tag=0x03), "der-tag")
    refuse("sec1-version-2.der", sec1(a.d, pub=a.pub, version=2), "key-version")
    refuse("pkcs8-version-2.der", pkcs8(a_inner, version=2), "key-version")
    refuse("pkcs8-v1-with-public.der", pkcs8(a_inner, version=0, pub=a.pub), "key-version")
    refuse("der-truncated.der", a_sec1[:-10], "truncated")
    refuse("der-trailing.der", a_sec1 + b"\x00", "trailing-bytes")
    refuse("der-trailing.pem", pem("EC PRIVATE KEY", a_sec1 + b"\x05\x00"), "trailing-bytes")
    bad_bits = tlv(0x30, b"".join(tlv(t, c) for t, c in inner[:3]) +
                   tlv(0xA1, tlv(0x03, b"\x01" + a.pub)))
    refuse("public-key-unused-bits.der", bad_bits, "der-bitstring")

    # ---- refused: scalar range and public keys ----
    refuse("scalar-zero.der", sec1(bytes(32)), "scalar-range")
    refuse("scalar-n.der", sec1(N.to_bytes(32, "big")), "scalar-range")
    refuse("scalar-n-plus-1.der", sec1((N + 1).to_bytes(32, "big")), "scalar-range")
    refuse("scalar-all-ff.pem", pem("EC PRIVATE KEY", sec1(b"\xff" * 32)), "scalar-range")
    refuse("scalar-33-bytes.der", sec1(b"\x00" + a.d), "scalar-range")
    refuse("public-mismatch-sec1.pem", pem("EC PRIVATE KEY", sec1(a.d, pub=b.pub)),
           "key-public-mismatch")
    refuse("public-mismatch-pkcs8-v2-outer.pem",
           pem("PRIVATE KEY", pkcs8(a_inner, version=1, pub=b.pub)), "key-public-mismatch")
    refuse("public-mismatch-pkcs8-v2-inner.der",
           pkcs8(sec1(a.d, params=False, pub=b.pub), version=1, pub=a.pub),
           "key-public-mismatch")
    wrong_parity = bytes([a.compressed()[0] ^ 1]) + a.compressed()[1:]
    refuse("public-mismatch-compressed.der", sec1(a.d, pub=wrong_parity), "key-public-mismatch")

    # ---- certificates ----
    cert("cert-a.pem", a_cert, "pkcs8-v1.pem", "ok", a.key_id)
    cert("cert-a.der", convert(a_cert, "x509", "-outform", "DER"), "sec1.der", "ok", a.key_id)
    cert("cert-then-key.pem", a_cert + a.pem, "pkcs8-v1.pem", "ok", a.key_id)
    cert("cert-b.pem", self_signed(b.pem), "pkcs8-v1.pem", "error", "key-certificate-mismatch")
    cert("cert-p384.pem", self_signed(p384), "pkcs8-v1.pem", "error", "certificate-algorithm")
    cert("cert-rsa.pem", self_signed(rsa), "pkcs8-v1.pem", "error", "certificate-algorithm")
    cert("cert-garbage.pem", b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
         "pkcs8-v1.pem", "error", "certificate-invalid")
    der_cert = convert(a_cert, "x509", "-outform", "DER")
    cert("cert-trailing.der", der_cert + b"\x00", "pkcs8-v1.pem", "error", "certificate-invalid")
    cert("cert-key-only.pem", a.pem, "pkcs8-v1.pem", "error", "certificate-invalid")

    with open(os.path.join(HERE, "MANIFEST"), "w") as f:
        f.write("# Generated by generate.py; see its header for the format.\n")
        for row in manifest:
            f.write("\t".join(row) + "\n")

    # The fuzzer starts from every key file.
    shutil.rmtree(FUZZ_SEEDS, ignore_errors=True)
    os.makedirs(FUZZ_SEEDS)
    for row in manifest:
        if row[0] == "key":
            shutil.copy(os.path.join(FILES, row[1]), FUZZ_SEEDS)
    shutil.rmtree(tmp)
    print(f"{len(manifest)} files", file=sys.stderr)


if __name__ == "__main__":
    main()
