# SPDX-License-Identifier: ISC
"""systemd-journald itself (the system's), run by a test on its own: in a private mount
namespace /run is a tmpfs, and journald runs on it with volatile storage, its own journald.conf
and a machine id of the test's (so that the entries name a host of their own). Read back with
`journalctl -D /run/log/journal`.

enter_namespace() first (it runs the test again under unshare), then setup(tmp), start(), and
cleanup() at the end."""
import os
import signal
import subprocess
import sys
import time

from daemonlib import check, clean_up

JOURNAL = "/run/systemd/journal/socket"
JOURNAL_DIR = "/run/log/journal"
JOURNALD = next(p for p in ("/lib/systemd/systemd-journald", "/usr/lib/systemd/systemd-journald")
                if os.path.exists(p))
CONF = """[Journal]
Storage=volatile
ReadKMsg=no
ForwardToSyslog=no
ForwardToWall=no
Audit=no
"""

_journalds = []
_made = []      # mount points this test had to create (a machine without them), removed at the end


def enter_namespace():
    """Runs this test again in a private mount namespace, once."""
    if os.environ.get("P256SIGN_TEST_NS") != "1":
        os.environ["P256SIGN_TEST_NS"] = "1"
        clean_up()      # the keys directory daemonlib made: exec skips atexit
        os.execvp("unshare", ["unshare", "--mount", "--propagation", "private", sys.executable] +
                  sys.argv)


def bind_over(src, target):
    """src mounted over target in this namespace only; target made first if the machine lacks it."""
    if not os.path.exists(target):
        open(target, "w").close()
        _made.append(target)
    subprocess.run(["mount", "--bind", src, target], check=True)


def setup(tmp):
    """A tmpfs on /run, journald.conf and a new machine id (tmp holds the two files); its id."""
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m,mode=0755", "tmpfs", "/run"],
                   check=True)
    os.chmod(tmp, 0o755)
    conf, machine_id = os.path.join(tmp, "journald.conf"), os.path.join(tmp, "machine-id")
    with open(conf, "w") as f:
        f.write(CONF)
    ident = os.urandom(16).hex()
    with open(machine_id, "w") as f:
        f.write(ident + "\n")
    bind_over(conf, "/etc/systemd/journald.conf")
    bind_over(machine_id, "/etc/machine-id")
    return ident


def start():
    p = subprocess.Popen([JOURNALD], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _journalds.append(p)
    deadline = time.monotonic() + 10
    while not os.path.exists(JOURNAL):
        check(p.poll() is None, "systemd-journald exited: %s" % p.returncode)
        check(time.monotonic() < deadline, "systemd-journald did not listen")
        time.sleep(0.05)
    return p


def stop(p):
    p.send_signal(signal.SIGTERM)
    p.wait(10)


def cleanup():
    for p in _journalds:
        if p.poll() is None:
            p.kill()
            p.wait()
    for target in _made:
        subprocess.run(["umount", target])
        os.unlink(target)
