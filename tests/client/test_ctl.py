#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""p256signctl against the real p256signd: every command and format, exit codes, --json output
parsed as JSON, and signatures and public keys checked by openssl.
Also runs examples/p256sign-example.c against the same daemon.
Usage: test_ctl.py P256SIGND P256SIGNCTL P256SIGN-EXAMPLE"""
import hashlib
import json
import re
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "daemon"))
from daemonlib import Daemon, RFC_DIGEST, RFC_R, RFC_S, check, fail, scratch_dir  # noqa: E402

daemon_bin, ctl, example = sys.argv[1], sys.argv[2], sys.argv[3]
tmp = scratch_dir("p256signctl-test-")


def run(*args, stdin=None, env_socket=None, full=False):
    """(exit status, stdout bytes, stderr text) of one p256signctl run; full: stdout is /dev/full,
    where every write fails."""
    env = dict(os.environ)
    env.pop("P256SIGN_SOCKET", None)
    if env_socket:
        env["P256SIGN_SOCKET"] = env_socket
    with open("/dev/full", "wb") as devfull:
        p = subprocess.run([ctl, *args], input=stdin, env=env, timeout=30, stderr=subprocess.PIPE,
                           stdout=devfull if full else subprocess.PIPE)
    return p.returncode, p.stdout or b"", p.stderr.decode()


def ok(*args, **kw):
    rc, out, err = run(*args, **kw)
    check(rc == 0, "%s: exit %d, stderr %r" % (" ".join(args), rc, err))
    return out


def fails(want_rc, *args, **kw):
    """A failing run: exit status want_rc and one error line on stderr."""
    rc, out, err = run(*args, **kw)
    check(rc == want_rc, "%s: exit %d, want %d" % (" ".join(args), rc, want_rc))
    if want_rc != 0:
        lines = err.strip().split("\n")
        check(err.strip() != "", "%s: nothing on stderr" % " ".join(args))
        if want_rc == 1:
            check(len(lines) == 1 and lines[0].startswith("p256signctl: "),
                  "%s: error is not one line: %r" % (" ".join(args), err))
    return out


def path(name):
    return os.path.join(tmp, name)


def write(name, data):
    with open(path(name), "wb") as f:
        f.write(data)
    return path(name)


def openssl(*args):
    p = subprocess.run(["openssl", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout


def invalid(*args):
    """verify of an invalid signature: "invalid" on stdout, exit 1, nothing on stderr."""
    rc, out, err = run(*args)
    check(rc == 1 and out == b"invalid\n" and err == "",
          "%s: exit %d, stdout %r, stderr %r" % (" ".join(args), rc, out, err))


d = Daemon(daemon_bin)  # the RFC 6979 A.2.5 key as "rfc", deterministic nonces
sock = ["--socket", d.socket]
X = "60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"
Y = "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299"
KEY_ID = "5a7a78cca4a0f420d9bc62bb669c3c2759e39f723d3ae10dcbe0f0815a07ecd4"

# ---- ping, status, keys -------------------------------------------------------------------------
check(ok(*sock, "ping").startswith(b"ok"), "ping")
check(json.loads(ok(*sock, "--json", "ping"))["ok"] is True, "ping --json")
check(ok("ping", env_socket=d.socket).startswith(b"ok"), "ping through $P256SIGN_SOCKET")
table = ok(*sock, "status").decode()
for row in ("version", "uptime", "signers", "requests", "signatures", "precomputed",
            "in flight", "errors", "resent", "key set"):
    check(row in table, "status table lacks %s:\n%s" % (row, table))
check(re.search(r"signers +\d+ \(\d+ alive, 0 replaced, 0 of them hung\)", table),
      "signers alive and replaced:\n" + table)
st = json.loads(ok(*sock, "status", "--json"))
for member in ("uptime_s", "workers", "requests", "inflight", "errors"):
    check(member in st, "status --json lacks %s" % member)
table = ok(*sock, "keys").decode()
check("rfc" in table and KEY_ID in table and "deterministic" in table and " any " in table and
      table.rstrip().endswith("root+daemon"), "keys table (root sees who may use it):\n" + table)
check(re.search(r"SIGNATURES PRECOMPUTED ALLOWED\n", table) and
      re.search(r" any +\d+ +0 root\+daemon\n", table),
      "keys table: a deterministic key's precomputed signatures are 0:\n" + table)
keys = json.loads(ok(*sock, "--json", "keys"))
check([k["key_id"] for k in keys["keys"]] == [KEY_ID], "keys --json")

# ---- pubkey -------------------------------------------------------------------------------------
pem = write("pub.pem", ok(*sock, "pubkey", "rfc"))
rc, der_by_openssl = openssl("pkey", "-pubin", "-in", pem, "-outform", "DER")
check(rc == 0, "openssl does not read the PEM public key")
der = ok(*sock, "pubkey", "rfc", "--format", "der")
check(der == der_by_openssl and len(der) == 91, "pubkey --format der")
check(ok(*sock, "pubkey", "rfc", "--format", "hex").decode() == "04" + X + Y + "\n", "hex")
check(ok(*sock, "pubkey", "rfc", "--format=sec1") == bytes.fromhex("04" + X + Y), "sec1")
# Compressed: 0x03 as y is odd, then x; openssl reads it as the same key.
check(ok(*sock, "pubkey", "rfc", "--format", "sec1-compressed") == bytes.fromhex("03" + X),
      "sec1-compressed")
check(ok(*sock, "pubkey", "id:" + KEY_ID, "--format", "hex").decode() == "04" + X + Y + "\n",
      "pubkey by key id")
pj = json.loads(ok(*sock, "--json", "pubkey", "rfc"))
check(pj["key_id"] == KEY_ID and pj["spki"] == der.hex(), "pubkey --json")
write("pub.der", der)
write("pub.sec1", bytes.fromhex("04" + X + Y))
write("pub.sec1c", bytes.fromhex("03" + X))

# ---- sign ---------------------------------------------------------------------------------------
message = write("sample", b"sample")
sig_hex = ok(*sock, "sign", "rfc", "--file", message, "--format", "raw").decode().strip()
check(bytes.fromhex(sig_hex) == RFC_R + RFC_S, "RFC 6979 A.2.5 signature of 'sample'")
check(ok(*sock, "sign", "rfc", "--digest", RFC_DIGEST.hex(), "--format", "raw").decode().strip()
      == sig_hex, "--digest gives the same signature")
check(ok(*sock, "sign", "rfc", "-", "--format", "raw", stdin=b"sample").decode().strip()
      == sig_hex, "stdin gives the same signature")
ok(*sock, "sign", "rfc", "--file", message, "--out", path("sample.sig"))
rc, _ = openssl("dgst", "-sha256", "-verify", pem, "-signature", path("sample.sig"), message)
check(rc == 0, "openssl dgst -verify refuses the signature")
digest_file = write("digest.bin", RFC_DIGEST)
rc, _ = openssl("pkeyutl", "-verify", "-pubin", "-inkey", pem, "-in", digest_file,
                "-sigfile", path("sample.sig"))
check(rc == 0, "openssl pkeyutl -verify refuses the signature")
# A file larger than any buffer: streamed and hashed here.
big = write("big", os.urandom(1 << 20) * 6)
ok(*sock, "sign", "rfc", "--file", big, "--out", path("big.sig"))
rc, _ = openssl("dgst", "-sha256", "-verify", pem, "-signature", path("big.sig"), big)
check(rc == 0, "openssl refuses the signature of a 6 MiB file")
sj = json.loads(ok(*sock, "--json", "sign", "rfc", "--digest", RFC_DIGEST.hex()))
check(sj["digest"] == RFC_DIGEST.hex() and sj["format"] == "der", "sign --json")

# ---- verify -------------------------------------------------------------------------------------
sig = path("sample.sig")
bad = write("bad.sig", bytes.fromhex(sig_hex[:-2] + "00"))
for keyargs in (["rfc"], ["--pubkey", pem], ["--pubkey", path("pub.der")],
                ["--pubkey", path("pub.sec1")], ["--pubkey-hex", "04" + X + Y],
                ["--pubkey-hex", der.hex()], ["--pubkey-hex", "03" + X],
                ["--pubkey", path("pub.sec1c")]):
    check(ok(*sock, "verify", *keyargs, "--signature", sig, "--file", message) == b"valid\n",
          "verify %s" % keyargs)
    check(ok(*sock, "verify", *keyargs, "--signature-hex", sig_hex, "--format", "raw",
             "--digest", RFC_DIGEST.hex()) == b"valid\n", "verify raw %s" % keyargs)
    invalid(*sock, "verify", *keyargs, "--signature", bad, "--format", "raw",
            "--digest", RFC_DIGEST.hex())
    invalid(*sock, "verify", *keyargs, "--signature", sig, "--digest", "00" * 32)
    invalid(*sock, "verify", *keyargs, "--signature-hex", "3000", "--digest", "00" * 32)
check(json.loads(ok(*sock, "--json", "verify", "rfc", "--signature", sig, "--file", message))
      == {"valid": True}, "verify --json")

# Offline: no daemon needed.
nosock = ["--socket", path("no-such.sock")]
check(ok(*nosock, "verify", "--pubkey", pem, "--signature", sig, "--file", message) ==
      b"valid\n", "offline verify")
fails(1, *nosock, "verify", "rfc", "--signature", sig, "--file", message)
# Compressed points that are none: the other parity's point does not verify; x with no point,
# x = p, and the 0x04 and 0x05 prefixes on 33 bytes are refused.
invalid(*nosock, "verify", "--pubkey-hex", "02" + X, "--signature", sig, "--file", message)
P = "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff"
for bad_point in ("02" + "00" * 31 + "01", "03" + P, "04" + X, "05" + X):
    fails(1, *nosock, "verify", "--pubkey-hex", bad_point, "--signature", sig, "--file", message)

# ---- eip7951 -----------------------------------------------------------------------------------
vector = RFC_DIGEST.hex() + RFC_R.hex() + RFC_S.hex() + X + Y
check(ok("eip7951", vector) == b"00" * 31 + b"01\n", "eip7951 valid")
check(ok("eip7951", "0x" + vector) == b"00" * 31 + b"01\n", "eip7951 0x prefix")
check(ok("eip7951", vector[:-2] + "00") == b"\n", "eip7951 invalid point: empty output")
check(ok("eip7951", vector[:-2]) == b"\n", "eip7951 short input: empty output")
fails(1, "eip7951", "zz")

# ---- errors and exit codes ----------------------------------------------------------------------
fails(1, *sock, "pubkey", "nope")
fails(1, *sock, "sign", "nope", "--digest", RFC_DIGEST.hex())
fails(1, *sock, "sign", "rfc", "--digest", "abcd")
fails(1, *sock, "sign", "rfc", "--file", path("missing"))
fails(1, *nosock, "status")
fails(1, *nosock, "ping")
fails(2)
fails(2, "frobnicate")
fails(2, *sock, "sign", "rfc")
fails(2, *sock, "sign", "rfc", "--digest", RFC_DIGEST.hex(), "--file", message)
fails(2, *sock, "sign", "rfc", "--digest", RFC_DIGEST.hex(), "--format", "pem")
fails(2, *sock, "pubkey", "rfc", "--format", "jpeg")
fails(2, *sock, "verify", "rfc", "--pubkey", pem, "--signature", sig, "--file", message)
fails(2, *sock, "verify", "rfc", "--file", message)
fails(2, *sock, "status", "extra")
fails(2, "--timeout", "0", "ping")
# A stuck daemon: --timeout bounds the wait.
d.proc.send_signal(signal.SIGSTOP)
t0 = time.monotonic()
rc, _, err = run(*sock, "--timeout", "300", "ping")
d.proc.send_signal(signal.SIGCONT)
check(rc == 1 and "timeout" in err and time.monotonic() - t0 < 5, "--timeout: %d %r" % (rc, err))
fails(2, "--socket")
# Output that cannot be written is a failure, reported on stderr, for every command.
for args in (["ping"], ["status"], ["keys"], ["pubkey", "rfc"], ["pubkey", "rfc", "--format", "der"],
             ["sign", "rfc", "--digest", RFC_DIGEST.hex()],
             ["verify", "rfc", "--signature", sig, "--file", message], ["eip7951", vector],
             ["--help"], ["sign", "--help"]):
    fails(1, *sock, *args, full=True)
check(b"usage:" in ok("--help") and b"eip7951" in ok("help"), "--help")
for cmd in ("status", "keys", "pubkey", "sign", "verify", "eip7951", "ping", "check-key"):
    out = ok(cmd, "--help")
    check(out.startswith(b"usage: p256signctl") and cmd.encode() in out, "%s --help" % cmd)
    check(ok("help", cmd) == out, "help %s" % cmd)

# ---- the example program: its public point, then one signature per message, in order ----------
msgs = ["m%d" % i for i in range(20)]
p = subprocess.run([example, "rfc", *msgs], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                   env=dict(os.environ, P256SIGN_SOCKET=d.socket), timeout=30)
lines = p.stdout.decode().split()
check(p.returncode == 0 and len(lines) == 1 + len(msgs) and lines[0] == "04" + X + Y,
      "example: exit %d, %r, %r" % (p.returncode, p.stdout, p.stderr))
for m, sig_line in zip(msgs, lines[1:]):
    check(ok("verify", "--pubkey-hex", lines[0], "--signature-hex", sig_line,
             "--digest", hashlib.sha256(m.encode()).hexdigest()) == b"valid\n",
          "example signature of %s" % m)

d.stop()
subprocess.run(["rm", "-rf", tmp], check=True)
print("ok")
