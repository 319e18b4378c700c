#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""After start-up the parent holds no private key material: its whole readable memory (heap,
stack, every mapping) contains neither the scalar (big- or little-endian, as a bignum stores it)
nor the key file's DER or PEM text, while a worker's memory does hold the scalar (which shows the
scan finds what is there). Reading a non-dumpable process's memory needs CAP_SYS_PTRACE: without
it the test is skipped (exit 77)."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

SKIP = 77


def memory(pid):
    """Every readable mapping of pid but the kernel's ([vvar], [vsyscall], ...)."""
    out = []
    with open("/proc/%d/maps" % pid) as maps, open("/proc/%d/mem" % pid, "rb", 0) as mem:
        for line in maps:
            f = line.split()
            start, end = (int(x, 16) for x in f[0].split("-"))
            if "r" not in f[1] or (len(f) > 5 and f[5] in ("[vvar]", "[vsyscall]")):
                continue
            try:
                mem.seek(start)
                out.append(mem.read(end - start))
            except OSError:
                continue
    return b"".join(out)


def main():
    tmp = scratch_dir("p256signd-keymem-")
    key = os.path.join(tmp, "key.pem")
    openssl_key(key)
    der = subprocess.run(["openssl", "pkey", "-in", key, "-outform", "DER"],
                         capture_output=True, check=True).stdout
    text = subprocess.run(["openssl", "pkey", "-in", key, "-text", "-noout"],
                          capture_output=True, check=True, text=True).stdout
    priv = text.split("priv:")[1].split("pub:")[0]
    d_be = bytes.fromhex("".join(priv.split()).replace(":", ""))[-32:]
    with open(key, "rb") as f:
        pem_lines = [l for l in f.read().split(b"\n") if l and not l.startswith(b"-----")]
    secrets = {"scalar": d_be, "scalar, little-endian": d_be[::-1],
               "scalar, first half": d_be[:16], "scalar, second half": d_be[16:],
               "DER file": der[:48], "PEM text": pem_lines[0][:48]}

    d = Daemon(sys.argv[1], keys=[{"name": "k", "file": key}], workers=1)
    c = d.client()
    check(c.call(sign_req(1, key_name("k"), RFC_DIGEST)).ok(SIGN).id == 1, "signature")
    try:
        parent = memory(d.proc.pid)
        (worker,) = d.workers()
        held = memory(worker)
    except PermissionError:
        d.stop()
        print("skipped: reading a non-dumpable process's memory needs CAP_SYS_PTRACE")
        sys.exit(SKIP)
    check(d_be in held, "the scan finds the scalar in the worker")
    for what, b in secrets.items():
        check(b not in parent, "the parent holds the private key's %s" % what)
    d.stop()
    subprocess.run(["rm", "-rf", tmp], check=True)
    print("ok")


main()
