#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Debian 12's nginx with its key in p256signd: the provider loaded by an openssl.cnf of the
test's own (default first), the key as a key-reference file from p256signctl export-key-ref,
two forked workers running as nobody (master_process on), serving HTTPS on 127.0.0.1 to curl
over TLS 1.3 and TLS 1.2 (ECDHE-ECDSA), every handshake verified, from four clients at once.
The signatures are made in the workers, through connections of their own.
Usage: test_nginx.py P256SIGND P256SIGNCTL MODULE_DIR NGINX [SANITIZER_PRELOAD]"""
import os
import re
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from providerlib import (children, connections_total, curls_ok,  # noqa: E402
                         daemon_with_key, free_port, path, stop_process, wait_listening,
                         write_openssl_cnf)
import providerlib  # noqa: E402
from daemonlib import check  # noqa: E402

daemon_bin, nginx = providerlib.init_server_test(sys.argv)
HANDSHAKES = 100    # per TLS version

NGINX_CONF = """daemon off;
master_process on;
worker_processes 2;
pid %(dir)s/nginx.pid;
error_log %(dir)s/error.log info;
events { worker_connections 64; }
http {
    log_format pid '$pid $ssl_protocol';
    access_log %(dir)s/access.log pid;
    client_body_temp_path %(dir)s/client_body;
    proxy_temp_path %(dir)s/proxy;
    fastcgi_temp_path %(dir)s/fastcgi;
    uwsgi_temp_path %(dir)s/uwsgi;
    scgi_temp_path %(dir)s/scgi;
    server {
        listen 127.0.0.1:%(port)d ssl;
        ssl_certificate %(dir)s/web.pem;
        ssl_certificate_key %(dir)s/web.key-ref.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        location / { return 200 "ok\\n"; }
    }
}
"""


def main():
    # Workers run as nobody: the socket must let them in (a deployment uses socket_group), and
    # the key's allow list name them.
    d, _ = daemon_with_key(daemon_bin, allow={"users": ["nobody"]}, socket_mode="0666")
    port = free_port()
    with open(path("nginx.conf"), "w") as f:
        f.write(NGINX_CONF % {"dir": providerlib.tmp, "port": port})
    os.chmod(providerlib.tmp, 0o755)    # the workers read nothing there but write the logs
    env = write_openssl_cnf()
    log = open(path("nginx.out"), "wb")
    before = connections_total(d)
    proc = subprocess.Popen([nginx, "-p", providerlib.tmp, "-c", path("nginx.conf")], env=env,
                            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    try:
        wait_listening(proc, port, path("nginx.out"))
        workers = children(proc.pid)
        check(len(workers) == 2, "nginx has %d workers" % len(workers))
        jobs = ["1.3", "1.2"] * HANDSHAKES
        curls_ok(port, jobs)
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
        log.close()
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
