#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Debian 12's haproxy with its key in p256signd and ssl-mode-async: master-worker (-W), one
worker thread, the provider loaded by an openssl.cnf of the test's own, the certificate and a
key-reference file in one crt file. Four handshakes at once while the daemon is stopped: all four
signatures are in flight together in the one thread, each in a paused ASYNC job on a connection
of its own (four new daemon connections; a blocking signature would hold the thread and open
one), and all four complete once the daemon runs again. Then 40 curl handshakes and 1,000 of
bench-handshake, four at once, over TLS 1.3 and TLS 1.2 (ECDHE-ECDSA), each one verified and
signed once by the daemon.
Usage: test_haproxy.py P256SIGND P256SIGNCTL MODULE_DIR BENCH_HANDSHAKE HAPROXY
[SANITIZER_PRELOAD]"""
import os
import re
import shutil
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from providerlib import (children, connections_total, curls_ok,  # noqa: E402
                         daemon_with_key, free_port, handshakes_ok, path, signatures,
                         start_haproxy, stop_process, write_openssl_cnf)
import providerlib  # noqa: E402
from daemonlib import check  # noqa: E402

daemon_bin, haproxy = providerlib.init_server_test(sys.argv)
CURLS = 20          # per TLS version, with curl
HANDSHAKES = 500    # per TLS version, with bench-handshake
AT_ONCE = 4



def main():
    d, ref = daemon_with_key(daemon_bin)
    port = free_port()
    env = write_openssl_cnf()
    proc = start_haproxy(haproxy, providerlib.tmp, port, [path("web.pem"), ref], env)
    try:
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
        signed = signatures(d)
        curls_ok(port, ["1.3", "1.2"] * CURLS)
        for version in ("1.3", "1.2"):
            handshakes_ok(port, HANDSHAKES, version)
        total = 2 * (CURLS + HANDSHAKES)
        check(signatures(d) - signed == total, "%d signatures for %d handshakes" %
              (signatures(d) - signed, total))
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
    d.stop()
    print("haproxy: %d handshakes at once in one thread opened %d job connections; %d more "
          "handshakes" % (AT_ONCE, opened, total))


try:
    main()
finally:
    shutil.rmtree(providerlib.tmp, ignore_errors=True)
print("ok")
