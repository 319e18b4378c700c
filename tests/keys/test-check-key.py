#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""p256signctl check-key on every corpus file, in JSON and text mode, against the MANIFEST, each key
read from a private copy (mode 0600; certificates are read where they are), and the refusals of a
key file that others may access.

Usage: test-check-key.py P256SIGNCTL DIR   (DIR holds MANIFEST and files/)
"""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile

failures = 0


def check(cond, what):
    global failures
    if not cond:
        print(f"check failed: {what}", file=sys.stderr)
        failures += 1


def run(ctl, *args):
    p = subprocess.run([ctl, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=30)
    return p.returncode, p.stdout, p.stderr


def private_copy(src, directory):
    """src copied into directory with mode 0600: git checks the corpus out 0644."""
    dst = os.path.join(directory, os.path.basename(src))
    shutil.copyfile(src, dst)
    os.chmod(dst, 0o600)
    return dst


def refused(ctl, path, tag, fix):
    """check-key refuses path with tag, naming the file and the fix, in JSON and in text."""
    rc, out, _ = run(ctl, "check-key", path, "--json")
    j = json.loads(out)
    check(rc == 1 and j["ok"] is False and j.get("error") == tag, f"{path}: {out!r}, want {tag}")
    check(j.get("message", "").startswith(path + ": ") and fix in j["message"],
          f"{path}: message names the file and {fix!r}: {j.get('message')!r}")
    check("public_key" not in j, f"{path}: no key shown")
    rc, _, err = run(ctl, "check-key", path)
    check(rc == 1 and err.startswith(f"p256signctl: {tag}: {path}: ") and fix in err,
          f"{path}: text refusal {err!r}")


def accepted(ctl, path, what):
    rc, out, _ = run(ctl, "check-key", path, "--json")
    check(rc == 0 and json.loads(out)["ok"] is True, f"{what}: accepted: {out!r}")


def access(ctl, top, tmp):
    """Who may access the key file: modes, owner, symbolic links; what the daemon refuses too."""
    key = private_copy(os.path.join(top, "files", "pkcs8-v1.pem"), tmp)
    for mode in (0o600, 0o400, 0o700):
        os.chmod(key, mode)
        accepted(ctl, key, "mode %04o" % mode)
    for mode in (0o640, 0o604, 0o644, 0o666, 0o660, 0o620, 0o602):
        os.chmod(key, mode)
        refused(ctl, key, "key-file-mode", "chmod 600")
    os.chmod(key, 0o600)
    link = os.path.join(tmp, "link.pem")
    os.symlink(key, link)
    accepted(ctl, link, "link to a 0600 file")
    os.chmod(key, 0o644)
    refused(ctl, link, "key-file-mode", "chmod 600")
    os.chmod(key, 0o600)
    if os.geteuid() == 0:
        os.chown(key, 65534, 65534)
        refused(ctl, key, "key-file-owner", "chown root")
        refused(ctl, link, "key-file-owner", "chown root")
        os.chown(key, 0, 0)


def main():
    ctl, top = sys.argv[1], sys.argv[2]
    files = os.path.join(top, "files")
    tmp = tempfile.mkdtemp(prefix="p256-check-key-")
    atexit.register(shutil.rmtree, tmp, True)     # also when a step raises
    keys = os.path.join(tmp, "keys")
    os.mkdir(keys)
    rows = [line.rstrip("\n").split("\t") for line in open(os.path.join(top, "MANIFEST"))
            if not line.startswith("#")]
    secrets = [r[4] for r in rows if r[0] == "key" and r[2] == "ok"]
    outputs = []

    for row in rows:
        if row[0] == "key":
            path = private_copy(os.path.join(files, row[1]), keys)
            rc, out, err = run(ctl, "check-key", path, "--json")
            outputs += [out, err]
            j = json.loads(out)
            if row[2] == "ok":
                check(rc == 0 and j["ok"] is True, f"{row[1]} accepted")
                check(j.get("form") == row[3], f"{row[1]} form")
                check(j.get("public_key") == row[5], f"{row[1]} public_key")
                check(j.get("key_id") == row[6], f"{row[1]} key_id")
                check("error" not in j, f"{row[1]} has no error")
            else:
                check(rc == 1 and j["ok"] is False, f"{row[1]} refused")
                check(j.get("error") == row[3], f"{row[1]}: {j.get('error')} != {row[3]}")
                check(path in j.get("message", ""), f"{row[1]} message names the file")
                check("public_key" not in j, f"{row[1]} shows no key")
            rc, out, err = run(ctl, "check-key", path)
            outputs += [out, err]
            if row[2] == "ok":
                check(rc == 0 and f"key-id: {row[6]}\n" in out and f"form: {row[3]}\n" in out
                      and f"public-key: {row[5]}\n" in out, f"{row[1]} text")
            else:
                check(rc == 1 and err.startswith(f"p256signctl: {row[3]}: {path}: "),
                      f"{row[1]} text refusal: {err!r}")
        else:
            cert = os.path.join(files, row[1])
            key = private_copy(os.path.join(files, row[2]), keys)
            rc, out, err = run(ctl, "check-key", key, "--cert", cert, "--json")
            outputs += [out, err]
            j = json.loads(out)
            matches = row[3] == "ok"
            check(j.get("certificate_matches") is matches, f"{row[1]} certificate_matches")
            check(rc == (0 if matches else 1) and j["ok"] is matches, f"{row[1]} exit status")
            if matches:
                check(j.get("key_id") == row[4], f"{row[1]} key_id")
            else:
                check(j.get("error") == row[4], f"{row[1]}: {j.get('error')} != {row[4]}")
                check(cert in j.get("message", ""), f"{row[1]} message names the certificate")
            rc, out, err = run(ctl, "check-key", key, "--cert", cert)
            outputs += [out, err]
            verdict = "matches" if matches else "does not match"
            check(rc == (0 if matches else 1) and f"certificate: {cert} {verdict}\n" in out,
                  f"{row[1]} text")

    # Never private material, in any output.
    check(not any(s in o for s in secrets for o in outputs), "no scalar is ever printed")

    # Usage errors exit 2; help exits 0.
    check(run(ctl)[0] == 2, "no command")
    check(run(ctl, "frobnicate")[0] == 2, "unknown command")
    check(run(ctl, "check-key")[0] == 2, "no file")
    check(run(ctl, "check-key", "a", "b")[0] == 2, "two files")
    check(run(ctl, "check-key", "a", "--bogus")[0] == 2, "unknown option")
    rc, out, _ = run(ctl, "help")
    check(rc == 0 and "check-key FILE" in out, "help")
    rc, out, _ = run(ctl, "check-key", os.path.join(files, "no-such-file"), "--json")
    check(rc == 1 and json.loads(out)["error"] == "file-unreadable"
          and "No such file" in json.loads(out)["message"], "missing file")

    access(ctl, top, tmp)
    shutil.rmtree(tmp)

    print(f"check-key: {len(rows)} corpus lines, {failures} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
