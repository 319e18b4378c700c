#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Debian 12's Apache httpd (apache2, mod_ssl, event MPM) or lighttpd (mod_openssl) with its key
in p256signd: the provider loaded by an openssl.cnf of the test's own (default first), the key
as a key-reference file, the children running as nobody, serving a static file on 127.0.0.1 to
curl over TLS 1.3 and TLS 1.2 (ECDHE-ECDSA) and to bench-handshake, 200 handshakes, each one
verified and signed once by the daemon; no error in the server's log.
Usage: test_httpd.py P256SIGND P256SIGNCTL MODULE_DIR BENCH_HANDSHAKE SERVER [SANITIZER_PRELOAD]
(SERVER: the path of apache2 or lighttpd)"""
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from providerlib import (daemon_with_key, free_port, handshakes_signed,  # noqa: E402
                         path, stop_process, wait_listening, write_openssl_cnf)
import providerlib  # noqa: E402
from daemonlib import check  # noqa: E402

daemon_bin, server = providerlib.init_server_test(sys.argv)
CURLS = 2           # per TLS version, with curl
HANDSHAKES = 100    # per TLS version, with bench-handshake

# One child with four times as many threads as the clients' connections (4 at a time). Once a
# second, Apache's parent counts its idle workers, and if it finds fewer than MinSpareThreads
# and may start no more, it logs "server reached MaxRequestWorkers" as an error (the MPM's
# perform_idle_server_maintenance). With only 4 threads, a count taken while all 4 connections
# were being served failed a sanitizer run in CI.
APACHE_CONF = """ServerRoot /usr/lib/apache2
LoadModule mpm_event_module modules/mod_mpm_event.so
LoadModule authz_core_module modules/mod_authz_core.so
LoadModule dir_module modules/mod_dir.so
LoadModule socache_shmcb_module modules/mod_socache_shmcb.so
LoadModule ssl_module modules/mod_ssl.so
ServerName localhost
User nobody
Group nogroup
PidFile %(dir)s/apache2.pid
DefaultRuntimeDir %(dir)s
ErrorLog %(dir)s/error.log
LogLevel info
StartServers 1
ServerLimit 1
ThreadLimit 16
ThreadsPerChild 16
MinSpareThreads 1
MaxSpareThreads 16
MaxRequestWorkers 16
Listen 127.0.0.1:%(port)d
SSLSessionCache none
<VirtualHost 127.0.0.1:%(port)d>
    SSLEngine on
    SSLProtocol -all +TLSv1.2 +TLSv1.3
    SSLCertificateFile %(dir)s/web.pem
    SSLCertificateKeyFile %(dir)s/web.key-ref.pem
    DocumentRoot %(dir)s/htdocs
    <Directory %(dir)s/htdocs>
        Require all granted
    </Directory>
    DirectoryIndex index.html
</VirtualHost>
"""

LIGHTTPD_CONF = """server.bind = "127.0.0.1"
server.port = %(port)d
server.username = "nobody"
server.groupname = "nogroup"
server.document-root = "%(dir)s/htdocs"
server.errorlog = "%(dir)s/error.log"
index-file.names = ("index.html")
server.modules = ("mod_openssl")
ssl.engine = "enable"
ssl.pemfile = "%(dir)s/web.pem"
ssl.privkey = "%(dir)s/web.key-ref.pem"
ssl.openssl.ssl-conf-cmd = ("MinProtocol" => "TLSv1.2")
"""


def start(kind, port, env):
    """The server, configured under tmp, once it listens; its stop signal."""
    conf = path(kind + ".conf")
    with open(conf, "w") as f:
        f.write((APACHE_CONF if kind == "apache2" else LIGHTTPD_CONF) %
                {"dir": providerlib.tmp, "port": port})
    if kind == "lighttpd":
        # lighttpd opens its log after dropping to nobody.
        with open(path("error.log"), "w"):
            pass
        nobody = pwd.getpwnam("nobody")
        os.chown(path("error.log"), nobody.pw_uid, nobody.pw_gid)
    argv = ([server, "-d", "/usr/lib/apache2", "-f", conf, "-DFOREGROUND"]
            if kind == "apache2" else [server, "-D", "-f", conf, "-m", "/usr/lib/lighttpd"])
    with open(path("server.out"), "wb") as log:
        proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=log)
    wait_listening(proc, port, path("server.out"))
    return proc, signal.SIGTERM if kind == "apache2" else signal.SIGINT


def main():
    kind = os.path.basename(server)
    check(kind in ("apache2", "lighttpd"), "not apache2 or lighttpd: " + server)
    d, _ = daemon_with_key(daemon_bin, allow={"users": ["nobody"]}, socket_mode="0666")
    os.chmod(providerlib.tmp, 0o755)
    os.mkdir(path("htdocs"))
    with open(path("htdocs/index.html"), "w") as f:
        f.write("ok\n")
    os.chmod(path("htdocs/index.html"), 0o644)
    env = write_openssl_cnf()
    port = free_port()
    proc, stop_signal = start(kind, port, env)
    try:
        total = handshakes_signed(d, port, CURLS, HANDSHAKES)
    except SystemExit:
        for name in ("server.out", "error.log"):
            if os.path.exists(path(name)):
                with open(path(name), errors="replace") as f:
                    print("%s:\n%s" % (name, f.read()[-4000:]), file=sys.stderr)
        raise
    finally:
        stop_process(proc, stop_signal)
    with open(path("error.log"), errors="replace") as f:
        errors = [line for line in f if re.search(r":(error|crit|alert|emerg)\]|\(ERROR\)|"
                                                  r"SSL: ", line)]
    check(not errors, "%s logged errors:\n%s" % (kind, "".join(errors)))
    d.stop()
    print("%s: %d handshakes (TLS 1.3 and 1.2)" % (kind, total))


try:
    main()
finally:
    shutil.rmtree(providerlib.tmp, ignore_errors=True)
print("ok")
