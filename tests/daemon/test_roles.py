#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The process roles as an attacker would inspect them: under strace, only the key-holder opens
key files (the parent opens the configuration and no key); run with "user" and "signer_user",
each role has the uid it should, no capability, NoNewPrivs 1, Seccomp 2, is not dumpable, and
the signers lock their keys (VmLck > 0); a signer made (through gdb) to open a file, create a
socket or execute a program dies of SIGSYS and is replaced, and so does the parent for execve; from the parent's uid no other role's memory can be read, nor can
the signers be traced. Throw-away users are created and removed by the test."""
import atexit
import os
import pwd
import re
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemonlib import *  # noqa: E402,F403

# The process titles that daemon/proc.h promises, as ps shows them.
TITLES = {"parent": "p256signd", "keyholder": "p256signd-keys", "signer": "p256signd-sign"}
USERS = ("p256sign-tparent", "p256sign-tsigner")


def status_of(pid):
    with open("/proc/%d/status" % pid) as f:
        return {l.split(":")[0]: l.split(":", 1)[1].strip() for l in f}


def make_users():
    for u in USERS:
        subprocess.run(["userdel", u], stderr=subprocess.DEVNULL)
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell",
                        "/usr/sbin/nologin", u], check=True)
    atexit.register(lambda: [subprocess.run(["userdel", u], stderr=subprocess.DEVNULL)
                             for u in USERS])


def opens(binary, key):
    """Who opens what at start-up: strace -f of the daemon."""
    trace = os.path.join(scratch_dir("p256signd-strace-"), "trace")

    def wrap(argv):
        return ["strace", "-f", "-qq", "-e", "trace=open,openat,openat2", "-o", trace] + argv
    d = Daemon(binary, keys=[{"name": "k", "file": key}], workers=2, wrap=wrap)
    c = d.client()
    check(c.call(sign_req(1, key_name("k"), RFC_DIGEST)).ok(SIGN).id == 1, "signature")
    c.close()
    (parent,) = children(d.proc.pid)          # d.proc is strace
    (keyholder,) = children(parent)
    os.kill(parent, signal.SIGTERM)           # strace would detach from it and leave it running
    d.stop()
    with open(trace) as f:
        lines = f.read().splitlines()
    by = {}
    for line in lines:
        m = re.match(r"(\d+) +open(?:at2?)?\((?:[A-Z_]+, )?\"([^\"]*)\"", line)
        if m:
            by.setdefault(m.group(2), set()).add(int(m.group(1)))
    check(by.get(key) == {keyholder}, "the key file is opened by the key-holder %d only: %s" %
          (keyholder, by.get(key)))
    check(parent in by.get(d.config, set()), "the trace sees the parent's opens too")
    for path, pids in by.items():
        check(parent not in pids or not path.endswith(".pem"),
              "the parent opened %s" % path)
    print("strace: %s opened by the key-holder only; the parent opened %d files, none a key" %
          (key, sum(parent in p for p in by.values())))


def identities(binary, key):
    make_users()
    pu, su = (pwd.getpwnam(u) for u in USERS)
    d = Daemon(binary, keys=[{"name": "k", "file": key}], workers=2,
               extra={"user": USERS[0], "signer_user": USERS[1]})
    c = d.client()
    check(c.call(sign_req(1, key_name("k"), RFC_DIGEST)).ok(SIGN).id == 1, "signature")
    roles = [("parent", d.proc.pid, pu), ("keyholder", d.keyholder(), su)] + \
        [("signer", w, su) for w in d.workers()]
    for name, pid, user in roles:
        st = status_of(pid)
        check(st["Uid"].split() == [str(user.pw_uid)] * 4 and
              st["Gid"].split() == [str(user.pw_gid)] * 4, "%s %d ids: %s %s" %
              (name, pid, st["Uid"], st["Gid"]))
        check(st["CapEff"] == "0" * 16 and st["CapPrm"] == "0" * 16,
              "%s has no capability: %s" % (name, st["CapEff"]))
        check(st["NoNewPrivs"] == "1", "%s NoNewPrivs: %s" % (name, st["NoNewPrivs"]))
        title = TITLES[name]
        check(st["Name"] == title, "%s %d is named %s: %s" % (name, pid, title, st["Name"]))
        check(st["Seccomp"] == "2", "%s Seccomp: %s" % (name, st["Seccomp"]))
        if name == "signer":
            check(int(st["VmLck"].split()[0]) > 0, "signer keys locked: VmLck %s" % st["VmLck"])
        print("%s %d: uid %s, CapEff %s, NoNewPrivs %s, Seccomp %s, VmLck %s" %
              (name, pid, user.pw_uid, st["CapEff"], st["NoNewPrivs"], st["Seccomp"],
               st["VmLck"]))
    # From the parent's uid: no role's memory can be read, nor can it be attached to.
    for name, pid, _ in roles[1:]:
        probe = subprocess.run(
            ["setpriv", "--reuid=%d" % pu.pw_uid, "--regid=%d" % pu.pw_gid, "--clear-groups",
             "python3", "-c",
             "import sys\ntry:\n open('/proc/%d/mem','rb').read(1)\nexcept OSError as e:\n"
             " print(e.errno); sys.exit(0)\nsys.exit(1)" % pid], capture_output=True, text=True)
        check(probe.returncode == 0, "the parent's uid read %s %d's memory" % (name, pid))
        gdb = subprocess.run(
            ["setpriv", "--reuid=%d" % pu.pw_uid, "--regid=%d" % pu.pw_gid, "--clear-groups",
             "gdb", "-nx", "-batch", "-p", str(pid), "-ex", "info registers rip"],
            capture_output=True, text=True, timeout=60)
        check("rip" not in gdb.stdout, "the parent's uid attached to %s %d: %s" %
              (name, pid, gdb.stdout))
    # From the signers' uid too (dumpable 0): another signer's memory stays closed.
    (w1, w2) = d.workers()
    probe = subprocess.run(
        ["setpriv", "--reuid=%d" % su.pw_uid, "--regid=%d" % su.pw_gid, "--clear-groups",
         "python3", "-c", "open('/proc/%d/mem','rb')" % w2], capture_output=True, text=True)
    check(probe.returncode != 0, "the signers' uid opened a signer's memory")
    c.close()
    d.stop()


def inject(pid, call):
    """Makes process pid run `call` (C, through gdb as root): the sandbox decides, not us."""
    return subprocess.run(["gdb", "-nx", "-batch", "-p", str(pid), "-ex", "call " + call],
                          capture_output=True, text=True, timeout=60)


def sandboxes(binary, key):
    """Every role in its seccomp filter (Seccomp 2); a signer made to call openat, socket or
    execve dies of SIGSYS and is replaced; an allowed call (getpid) changes nothing; the parent
    made to call execve dies of SIGSYS."""
    d = Daemon(binary, keys=[{"name": "k", "file": key}], workers=2)
    for pid in [d.proc.pid, d.keyholder()] + d.workers():
        check(status_of(pid)["Seccomp"] == "2", "role %d in its filter: %s" %
              (pid, status_of(pid)["Seccomp"]))
    victim = d.workers()[0]
    inject(victim, "(long)getpid()")
    check(victim in d.workers(), "an allowed call leaves the signer running")
    calls = ['(long)syscall(257, -100, "/etc/hostname", 0)', "(long)socket(2, 1, 0)",
             '(long)execve("/bin/true", 0, 0)']
    for call in calls:
        victim = d.workers()[0]
        inject(victim, call)
        end = time.monotonic() + TIMEOUT
        while "signer %d killed by signal 31" % victim not in d.log_text():
            check(time.monotonic() < end, "%s in signer %d: no SIGSYS:\n%s" %
                  (call, victim, d.log_text()[-1500:]))
            time.sleep(0.02)
        while len(d.workers()) != 2 or victim in d.workers():
            check(time.monotonic() < end, "the killed signer is replaced")
            time.sleep(0.02)
    c = d.client()
    check(c.call(sign_req(1, key_name("k"), RFC_DIGEST)).ok(SIGN).id == 1, "signing goes on")
    c.close()
    inject(d.proc.pid, '(long)execve("/bin/true", 0, 0)')
    rc = d.proc.wait(TIMEOUT)
    check(rc == -signal.SIGSYS, "the parent made to execve dies of SIGSYS: %s" % rc)
    d.stop(expect=rc)
    print("sandboxes: Seccomp 2 in every role; openat, socket, execve kill a signer (SIGSYS), "
          "execve kills the parent")


def main():
    binary = sys.argv[1]
    tmp = scratch_dir("p256signd-roles-")
    os.chmod(tmp, 0o755)
    key = os.path.join(tmp, "key.pem")
    openssl_key(key)
    opens(binary, key)
    identities(binary, key)
    sandboxes(binary, key)
    subprocess.run(["rm", "-rf", tmp], check=True)
    print("ok")


main()
