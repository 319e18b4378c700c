#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Debian 12's nginx with its key in p256signd: the provider loaded by an openssl.cnf of the
test's own (default first), the key as a key-reference file from p256signctl export-key-ref,
two forked workers running as nobody (master_process on), serving HTTPS on 127.0.0.1 to curl
and to bench-handshake over TLS 1.3 and TLS 1.2 (ECDHE-ECDSA), 1,040 handshakes, each one
verified and signed once by the daemon, from four clients at once.
The signatures are made in the workers, through connections of their own.
Usage: test_nginx.py P256SIGND P256SIGNCTL MODULE_DIR BENCH_HANDSHAKE NGINX [SANITIZER_PRELOAD]"""
import os
import re
import shutil
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from providerlib import (children, connections_total, daemon_with_key,  # noqa: E402
                         free_port, handshakes_signed, path, start_nginx, stop_process,
                         write_openssl_cnf)
import providerlib  # noqa: E402
from daemonlib import check  # noqa: E402

daemon_bin, nginx = providerlib.init_server_test(sys.argv)
CURLS = 20          # per TLS version, with curl
HANDSHAKES = 500    # per TLS version, with bench-handshake



def main():
    # Workers run as nobody: the socket must let them in (a deployment uses socket_group), and
    # the key's allow list name them.
    d, _ = daemon_with_key(daemon_bin, allow={"users": ["nobody"]}, socket_mode="0666")
    port = free_port()
    os.chmod(providerlib.tmp, 0o755)    # the workers read nothing there but write the logs
    env = write_openssl_cnf()
    before = connections_total(d)
    proc = start_nginx(nginx, providerlib.tmp, port, path("web.pem"), path("web.key-ref.pem"),
                       env)
    try:
        workers = children(proc.pid, 2)
        check(len(workers) == 2, "nginx has %d workers" % len(workers))
        handshakes_signed(d, port, CURLS, HANDSHAKES)
        jobs = ["1.3", "1.2"] * (CURLS + HANDSHAKES)
        with open(path("access.log")) as f:
            lines = f.read().split("\n")[:-1]
        check(len(lines) == len(jobs), "%d requests logged" % len(lines))
        served_by = {int(line.split()[0]) for line in lines}
        check(served_by <= workers, "requests served outside the workers: %s" % served_by)
        protocols = sorted(line.split()[1] for line in lines)
        check(protocols == sorted(["TLSv%s" % v for v in jobs]), "protocols: %s" % protocols)
        # The key load in the master, and the workers' own connections for the signatures.
        check(connections_total(d) - before >= 3, "the workers did not connect to the daemon")
    finally:
        stop_process(proc, signal.SIGQUIT)    # graceful stop of master and workers
    with open(path("error.log")) as f:
        errors = [line for line in f if re.search(r"\[(emerg|alert|crit|error)\]", line)]
    check(not errors, "nginx logged errors:\n" + "".join(errors))
    check(proc.returncode == 0, "nginx exited with %d" % proc.returncode)
    d.stop()
    print("nginx: %d workers served %d handshakes (TLS 1.3 and 1.2)" % (len(served_by),
                                                                         len(jobs)))


try:
    main()
finally:
    shutil.rmtree(providerlib.tmp, ignore_errors=True)
print("ok")
