#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""OpenSSH with the daemon's key through the module: ssh-keygen -D prints it; ssh -I logs in to
Debian's sshd on 127.0.0.1 (a throwaway user, the key in its authorized_keys) and runs a command;
a second throwaway user, whom the key's allow list does not name, finds no key and is refused.
Both users and everything sshd needs are removed at the end.
Usage: test_pkcs11_ssh.py P256SIGND MODULE SSHD [SANITIZER_PRELOAD]"""
import os
import pwd
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pkcs11lib  # noqa: E402
from pkcs11lib import check, ok, path, run  # noqa: E402

USERS = ("p256sign-ssh-ok", "p256sign-ssh-no")
created_users = []
made_run_dir = False
sshd = None


def add_user(name, home):
    run(["userdel", name])     # a leftover of an interrupted run
    # "*": no password, but not locked (sshd refuses a locked account without PAM)
    ok(["useradd", "-M", "-d", home, "-s", "/bin/sh", "-p", "*", name])
    created_users.append(name)
    return pwd.getpwnam(name).pw_uid


def as_user(name, argv):
    u = pwd.getpwnam(name)
    return ["setpriv", "--reuid=%d" % u.pw_uid, "--regid=%d" % u.pw_gid, "--init-groups", *argv]


def ssh(user, port):
    argv = as_user(user, ["ssh", "-F", "/dev/null", "-I", pkcs11lib.module, "-p", str(port),
                          "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
                          "-o", "UserKnownHostsFile=/dev/null",
                          "-o", "PasswordAuthentication=no",
                          "%s@127.0.0.1" % USERS[0], "echo logged-in-as-$(id -un)"])
    return run(argv, env=dict(pkcs11lib.ENV, HOME=path("ssh-home")), timeout=60)


def start_sshd(sshd_bin, authorized):
    global sshd, made_run_dir
    if not os.path.isdir("/run/sshd"):     # its privilege separation directory
        os.makedirs("/run/sshd", 0o755)
        made_run_dir = True
    ok(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", path("host_key")])
    port = pkcs11lib.free_port()
    with open(path("sshd_config"), "w") as f:
        f.write("ListenAddress 127.0.0.1:%d\nHostKey %s\nPidFile %s\nAuthorizedKeysFile %s\n"
                "StrictModes no\nUsePAM no\nPasswordAuthentication no\n"
                "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\nAllowUsers %s\n" %
                (port, path("host_key"), path("sshd.pid"), authorized, USERS[0]))
    log = path("sshd.log")
    sshd = subprocess.Popen([sshd_bin, "-D", "-e", "-f", path("sshd_config")],
                            stdout=open(log, "wb"), stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    pkcs11lib.wait_listening(sshd, port, log)
    return port


def main():
    home = os.path.join("/tmp", "p256sign-ssh-test-home")
    uid_ok = add_user(USERS[0], home)
    add_user(USERS[1], home)
    pkcs11lib.init(sys.argv[1], sys.argv[2], sys.argv[4] if len(sys.argv) > 4 else "",
                   allow=[uid_ok])
    os.makedirs(path("ssh-home"), 0o777)
    os.chmod(path("ssh-home"), 0o777)

    # ssh-keygen -D: the keys' public halves, rfc's the daemon's.
    listed = ok(["ssh-keygen", "-D", pkcs11lib.module]).decode()
    rfc_pub = pkcs11lib.pubkey_pem("rfc")
    want = ok(["ssh-keygen", "-i", "-m", "PKCS8", "-f", rfc_pub]).decode().split()[:2]
    check(" ".join(want) in listed and want[0] == "ecdsa-sha2-nistp256",
          "ssh-keygen -D: %s, want %s" % (listed, want))
    authorized = path("authorized_keys")
    with open(authorized, "w") as f:
        f.write(" ".join(want) + " rfc\n")
    os.chmod(authorized, 0o644)

    port = start_sshd(sys.argv[3], authorized)
    rc, out, err = ssh(USERS[0], port)
    check(rc == 0 and out == b"logged-in-as-%s\n" % USERS[0].encode(),
          "ssh -I as %s: %d %s %s\nsshd: %s" % (USERS[0], rc, out, err, sshd_log()))
    before = len(pkcs11lib.audit_records("sign"))
    rc, out, err = ssh(USERS[1], port)
    check(rc == 255 and b"logged-in" not in out and "Permission denied (publickey)" in err,
          "ssh -I as %s: %d %s %s" % (USERS[1], rc, out, err))
    check(len(pkcs11lib.audit_records("sign")) == before, "a signature for the refused user")
    pkcs11lib.finish()
    print("pkcs11 ssh: all checks passed")


def sshd_log():
    with open(path("sshd.log"), errors="replace") as f:
        return f.read()


try:
    main()
finally:
    if sshd is not None and sshd.poll() is None:
        sshd.terminate()
        sshd.wait(10)
    for name in created_users:
        subprocess.run(["userdel", name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if made_run_dir:
        shutil.rmtree("/run/sshd", ignore_errors=True)
