#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Debian 12's haproxy with its key in p256signd and ssl-mode-async: master-worker (-W), one
worker thread, the provider loaded by an openssl.cnf of the test's own, the certificate and a
key-reference file in one crt file. Four handshakes at once while the daemon is stopped: all four
signatures are in flight together in the one thread, each in a paused ASYNC job, their four
requests on the one daemon connection the thread's jobs share (four times the bytes of one
request wait there; a blocking signature would hold the thread with one request sent), and
all four complete once the daemon runs again. Then 40 curl handshakes and 1,000 of
bench-handshake, four at once, over TLS 1.3 and TLS 1.2 (ECDHE-ECDSA), each one verified and
signed once by the daemon. Last, haproxy with chroot and user nobody: its worker reaches the
daemon only with the daemon's directory bind-mounted at the same path inside the jail.
Usage: test_haproxy.py P256SIGND P256SIGNCTL MODULE_DIR BENCH_HANDSHAKE HAPROXY
[SANITIZER_PRELOAD]"""
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from providerlib import (children, connections_total, curls_ok,  # noqa: E402
                         daemon_with_key, free_port, handshakes_signed, path, run_handshakes,
                         start_haproxy, stop_process, write_openssl_cnf)
import providerlib  # noqa: E402
from daemonlib import check  # noqa: E402

daemon_bin, haproxy = providerlib.init_server_test(sys.argv)
CURLS = 20          # per TLS version, with curl
HANDSHAKES = 500    # per TLS version, with bench-handshake
AT_ONCE = 4



def queued(sock):
    """Recv-Q of each connection whose local end is the daemon's socket, the non-empty ones."""
    out = subprocess.run(["ss", "-xn"], stdout=subprocess.PIPE, check=True).stdout.decode()
    return [int(f[2]) for f in (line.split() for line in out.split("\n")[1:])
            if len(f) > 4 and f[4] == sock and int(f[2]) > 0]


def stopped_daemon_queue(d, port, n, want=None):
    """n TLS 1.3 handshakes at once while the daemon is stopped: the bytes of their requests
    waiting at the daemon, which must all be on one connection, once there are want bytes (or,
    without want, once they stop growing); the handshakes complete when it runs again."""
    os.kill(d.proc.pid, signal.SIGSTOP)
    clients = threading.Thread(target=curls_ok, args=(port, ["1.3"] * n, n))
    clients.start()
    seen, end = [], time.monotonic() + 10

    def waiting():
        if want is not None:
            return not seen or sum(seen[-1]) < want
        return len(seen) < 5 or len(set(seen[-5:])) > 1 or seen[-1] == ()

    while time.monotonic() < end and waiting():
        time.sleep(0.05)
        seen.append(tuple(queued(d.socket)))
    os.kill(d.proc.pid, signal.SIGCONT)
    clients.join(60)
    check(not clients.is_alive(), "the handshakes did not finish")
    check(len(seen[-1]) == 1, "requests queued on %d daemon connections: %s" %
          (len(seen[-1]), seen[-1]))
    return seen[-1][0]


# haproxy's default chroot (Debian's haproxy.cfg: chroot /var/lib/haproxy, user haproxy): the
# key is loaded before the chroot, the signatures are made after it with the same socket path,
# which the daemon's directory bind-mounted at that path inside the jail makes reach the daemon.
# The mount is made in a mount namespace of haproxy's own (unshare), so it goes with haproxy.
BIND = ["unshare", "--mount", "--propagation", "private", "sh", "-ec",
        'src=$1 dst=$2; shift 2; mount --bind "$src" "$dst"; exec "$@"', "sh"]


def chrooted(d, ref, env, bind):
    """haproxy with chroot and user nobody, the daemon's directory bind-mounted in the jail if
    bind; the number of handshakes out of 20 that succeeded."""
    jail, run = path("jail"), path("chroot-run")
    os.makedirs(jail + d.dir, exist_ok=True)
    os.makedirs(run, exist_ok=True)
    port = free_port()
    proc = start_haproxy(haproxy, run, port, [path("web.pem"), ref], env,
                         "    chroot %s\n    user nobody\n    group nogroup\n" % jail,
                         BIND + [d.dir, jail + d.dir] if bind else ())
    try:
        rc, report, err = run_handshakes(providerlib.bench_handshake, [("chroot", port)],
                                         "--cafile", path("web.pem"), "--count", "20")
    finally:
        stop_process(proc, signal.SIGUSR1)
    return report["targets"][0]["handshakes"]


def main():
    d, ref = daemon_with_key(daemon_bin, allow={"users": ["nobody"]}, socket_mode="0666")
    port = free_port()
    env = write_openssl_cnf()
    proc = start_haproxy(haproxy, providerlib.tmp, port, [path("web.pem"), ref], env)
    try:
        check(len(children(proc.pid, 1)) == 1, "haproxy has no single worker")
        # The worker thread's jobs share one daemon connection: a first handshake opens it.
        curls_ok(port, ["1.3"])
        before = connections_total(d)
        # Handshakes while the daemon cannot answer: one, then four at once. Each must get as
        # far as the signature, which only a paused job allows in one thread, and the four
        # requests wait together on that one connection (the bytes queued at the daemon's end,
        # `ss -x`, four times one request's).
        one = stopped_daemon_queue(d, port, 1)
        four = stopped_daemon_queue(d, port, AT_ONCE, AT_ONCE * one)
        check(four == AT_ONCE * one, "%d bytes queued for %d requests, %d for one" %
              (four, AT_ONCE, one))
        opened = connections_total(d) - before - 1
        check(opened == 0, "%d more daemon connections for handshakes at once" % opened)
        total = handshakes_signed(d, port, CURLS, HANDSHAKES)
    except SystemExit:
        with open(path("haproxy.out"), errors="replace") as f:
            print("haproxy's output:\n" + f.read()[-4000:], file=sys.stderr)
        raise
    finally:
        stop_process(proc, signal.SIGUSR1)    # soft stop of master and worker
    with open(path("haproxy.out"), errors="replace") as f:
        text = f.read()
    check(not re.search(r"\[(ALERT|EMERG)\]|Sanitizer|runtime error", text),
          "haproxy reported:\n" + text)
    # Chrooted: no handshake without the daemon's socket in the jail, all with it.
    check(chrooted(d, ref, env, bind=False) == 0, "a chrooted worker reached the daemon")
    check(chrooted(d, ref, env, bind=True) == 20, "the bind-mounted socket did not serve")
    d.stop()
    print("haproxy: %d handshakes at once in one thread, %d bytes queued on one daemon "
          "connection (%d for one); %d more handshakes" % (AT_ONCE, four, one, total))


try:
    main()
finally:
    shutil.rmtree(providerlib.tmp, ignore_errors=True)
print("ok")
