# SPDX-License-Identifier: ISC
"""A Debian 12 container whose PID 1 is systemd, for the tests under a real systemd.

The root file system (rootfs.sh, cached) is booted with systemd-nspawn --volatile=overlay: it
stays read-only, every change goes to a tmpfs that vanishes with the container. Without a host
systemd, nspawn needs --register=no --keep-unit; its own seccomp filter must let the units'
processes call mlock (the key-holder locks its key pages), Landlock and bpf (IPAddressDeny=).
Commands run inside through nsenter into the namespaces of the container's PID 1; run_unit()
runs one in a real unit context (systemd-run). --private-network: loopback only. The container
is stopped at exit, and if this process dies first, nspawn gets SIGTERM (PR_SET_PDEATHSIG) and
halts it: nothing is left (no machine is registered, no veth made, the overlay is nspawn's own
mount)."""
import atexit
import ctypes
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "daemon"))
from daemonlib import check, fail  # noqa: E402,F401  (test_container.py takes check from here)

PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
PR_SET_PDEATHSIG = 1


def _die_with_parent():
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


class Container:
    def __init__(self, rootfs, name, binds, log_path):
        self.rootfs, self.name, self.binds, self.log_path = rootfs, name, binds, log_path
        self.proc = None
        self.leader = None

    def boot(self, timeout=60):
        """Starts the container and waits until systemd says the system is running; returns
        the seconds it took."""
        t0 = time.monotonic()
        cmd = ["systemd-nspawn", "-D", self.rootfs, "--machine=" + self.name, "--boot",
               "--volatile=overlay", "--register=no", "--keep-unit", "--console=passive",
               "--private-network",
               "--system-call-filter=landlock_create_ruleset landlock_add_rule "
               "landlock_restrict_self bpf", "--system-call-filter=@memlock"]
        cmd += ["--bind-ro=%s:%s" % (host, inside) for host, inside in self.binds]
        env = dict(os.environ, SYSTEMD_NSPAWN_UNIFIED_HIERARCHY="1")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
        atexit.register(self.stop)
        deadline = t0 + timeout
        while self.leader is None:
            check(self.proc.poll() is None, "systemd-nspawn exited: %s" % self.log_text())
            check(time.monotonic() < deadline, "no container PID 1 after %d s" % timeout)
            self.leader = self._child_with_own_pid_ns()
            if self.leader is None:
                time.sleep(0.05)
        while True:
            r = self.run(["systemctl", "is-system-running", "--wait"], check=False,
                         timeout=timeout)
            state = r.stdout.strip()
            if state in ("running", "degraded"):
                break
            check(time.monotonic() < deadline, "the container's systemd is %r" % state)
            time.sleep(0.1)
        failed = self.run(["systemctl", "--failed", "--plain", "--no-legend"]).stdout.strip()
        check(state == "running", "the container booted %s: %s" % (state, failed))
        return time.monotonic() - t0

    def _child_with_own_pid_ns(self):
        """The container's PID 1: the descendant of nspawn in another pid namespace."""
        mine = os.readlink("/proc/self/ns/pid")
        todo = [self.proc.pid]
        while todo:
            pid = todo.pop()
            try:
                if pid != self.proc.pid and os.readlink("/proc/%d/ns/pid" % pid) != mine:
                    return pid
                with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
                    todo += [int(c) for c in f.read().split()]
            except (FileNotFoundError, ProcessLookupError, PermissionError):
                pass
        return None

    def log_text(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()[-3000:]

    def run(self, cmd, check=True, input=None, timeout=120, user=None):
        """cmd (a list) inside the container, as root or as `user`; its CompletedProcess."""
        inner = ["env", "-i", "PATH=" + PATH, "LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1"]
        if user:
            inner = ["runuser", "-u", user, "--"] + inner
        p = subprocess.run(["nsenter", "-t", str(self.leader), "-a"] + inner + cmd,
                           input=input, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=timeout)
        if check and p.returncode != 0:
            fail("in the container, %s: exit %d\n%s%s" % (" ".join(cmd), p.returncode,
                                                          p.stdout[-2000:], p.stderr[-2000:]))
        return p

    def sh(self, script, **kw):
        return self.run(["sh", "-ec", script], **kw)

    def spawn(self, cmd, user=None):
        """cmd inside the container in the background: its Popen (stdout a pipe)."""
        inner = ["env", "-i", "PATH=" + PATH, "LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1"]
        if user:
            inner = ["runuser", "-u", user, "--"] + inner
        return subprocess.Popen(["nsenter", "-t", str(self.leader), "-a"] + inner + cmd,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def run_unit(self, cmd, props=(), **kw):
        """cmd as a transient service of the container's systemd (a real unit context)."""
        args = ["systemd-run", "--wait", "--pipe", "--collect", "--quiet"]
        args += ["--property=" + p for p in props]
        return self.run(args + cmd, **kw)

    def write(self, path, text, mode=0o644):
        self.run(["sh", "-ec", 'umask 077; cat >"$1"; chmod %o "$1"' % mode, "sh", path],
                 input=text)

    def read(self, path):
        return self.run(["cat", path]).stdout

    def show(self, unit, prop):
        return self.run(["systemctl", "show", "-P", prop, unit]).stdout.strip()

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()     # an orderly halt of the container
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            # PID 1 of the container first: its pid namespace ends with it.
            if self.leader is not None:
                os.kill(self.leader, signal.SIGKILL)
            self.proc.kill()
            self.proc.wait()
        self.log.close()
