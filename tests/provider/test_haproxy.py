#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Debian 12's haproxy with its key in p256signd and ssl-mode-async: master-worker (-W), one
worker thread, the provider loaded by an openssl.cnf of the test's own, the certificate and a
key-reference file in one crt file. Four handshakes at once while the daemon is stopped: all four
signatures are in flight together in the one thread, each in a paused ASYNC job on a connection
of its own (four new daemon connections; a blocking signature would hold the thread and open
one), and all four complete once the daemon runs again. Then 200 curl handshakes over TLS 1.3
and TLS 1.2 (ECDHE-ECDSA), all verified.
Usage: test_haproxy.py P256SIGND P256SIGNCTL MODULE_DIR HAPROXY [SANITIZER_PRELOAD]"""
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
                         daemon_with_key, free_port, path, stop_process, wait_listening,
                         write_openssl_cnf)
import providerlib  # noqa: E402
from daemonlib import check  # noqa: E402

daemon_bin, haproxy = providerlib.init_server_test(sys.argv)
HANDSHAKES = 100    # per TLS version
AT_ONCE = 4

HAPROXY_CFG = """global
    nbthread 1
    ssl-mode-async
    log stderr format raw local0 info

defaults
    mode http
    log global
    timeout connect 5s
    timeout client 10s
    timeout server 10s

frontend web
    bind 127.0.0.1:%(port)d ssl crt %(dir)s/web.crt
    http-request return status 200 content-type text/plain string "ok\\n"
"""


def main():
    d, ref = daemon_with_key(daemon_bin)
    with open(path("web.crt"), "wb") as out:
        for part in (path("web.pem"), ref):
            with open(part, "rb") as f:
                out.write(f.read())
    port = free_port()
    with open(path("haproxy.cfg"), "w") as f:
        f.write(HAPROXY_CFG % {"dir": providerlib.tmp, "port": port})
    env = write_openssl_cnf()
    log = open(path("haproxy.out"), "wb")
    proc = subprocess.Popen([haproxy, "-W", "-db", "-f", path("haproxy.cfg")], env=env,
                            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    try:
        wait_listening(proc, port, path("haproxy.out"))
        check(len(children(proc.pid)) == 1, "haproxy has no single worker")
        # Four handshakes while the daemon cannot answer: all four must get as far as the
        # signature at the same time, which only paused jobs allow in one thread.
        before = connections_total(d)
        os.kill(d.proc.pid, signal.SIGSTOP)
        clients = threading.Thread(target=curls_ok, args=(port, ["1.3", "1.2"] * (AT_ONCE // 2),
                                                           AT_ONCE))
        clients.start()
        time.sleep(0.5)
        os.kill(d.proc.pid, signal.SIGCONT)
        clients.join(60)
        check(not clients.is_alive(), "the handshakes did not finish")
        opened = connections_total(d) - before - 1
        check(opened >= AT_ONCE, "%d daemon connections for %d handshakes at once: no paused "
              "jobs" % (opened, AT_ONCE))
        curls_ok(port, ["1.3", "1.2"] * HANDSHAKES)
    except SystemExit:
        with open(path("haproxy.out"), errors="replace") as f:
            print("haproxy's output:\n" + f.read()[-4000:], file=sys.stderr)
        raise
    finally:
        stop_process(proc, signal.SIGUSR1)    # soft stop of master and worker
        log.close()
    with open(path("haproxy.out"), errors="replace") as f:
        text = f.read()
    check(not re.search(r"\[(ALERT|EMERG)\]|Sanitizer|runtime error", text),
          "haproxy reported:\n" + text)
    d.stop()
    print("haproxy: %d handshakes at once in one thread opened %d job connections; %d more "
          "handshakes" % (AT_ONCE, opened, 2 * HANDSHAKES))


try:
    main()
finally:
    shutil.rmtree(providerlib.tmp, ignore_errors=True)
print("ok")
