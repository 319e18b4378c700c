#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""What the provider's tests share: the environment that makes OpenSSL find the module (and the
sanitizer runtimes it needs in an instrumented build), a scratch directory, the openssl command,
p256signctl export-key-ref, a test certificate, ports, and the daemon's connection count.
Standard library only; call init() first."""
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "daemon"))
from daemonlib import (STATUS, Daemon, check, frame, free_port, openssl_key,  # noqa: E402,F401
                       scratch_dir, wait_listening)

ENV = {}
ctl = None
tmp = None
# libssl 3.0 keeps an EC group only if fetching "EC" finds the default provider's keymgmt
# first: default must be loaded before p256sign for TLS 1.2's ECDHE-ECDSA (docs/tls.md).
PROVIDERS = ["-provider", "default", "-provider", "p256sign"]


def init(ctl_path, modules, preload):
    """The p256signctl to run, the module directory, the sanitizer runtimes ("" for none)."""
    global ctl, tmp
    ctl = os.path.abspath(ctl_path)
    ENV.update(os.environ, OPENSSL_MODULES=os.path.abspath(modules))
    ENV.pop("OPENSSL_CONF", None)
    if preload:
        # An instrumented provider inside a plain binary needs the sanitizer runtimes first.
        ENV["LD_PRELOAD"] = preload
    tmp = scratch_dir("p256sign-provider-test-")


bench_handshake = None


def init_server_test(argv):
    """init() from a server test's arguments, P256SIGND P256SIGNCTL MODULE_DIR BENCH_HANDSHAKE
    SERVER [SANITIZER_PRELOAD]; returns the daemon's and the server's paths."""
    global bench_handshake
    init(argv[2], argv[3], argv[6] if len(argv) > 6 else "")
    bench_handshake = os.path.abspath(argv[4])
    return os.path.abspath(argv[1]), argv[5]


def plain_env():
    """The environment for programs that do not load the provider."""
    return {k: v for k, v in ENV.items() if k != "LD_PRELOAD"}


def path(name):
    return os.path.join(tmp, name)


def openssl(*args, stdin=b"", timeout=30):
    p = subprocess.run(["openssl", *args], input=stdin, env=ENV, timeout=timeout,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def ok(*args, **kw):
    rc, out, err = openssl(*args, **kw)
    check(rc == 0, "openssl %s: exit %d: %s" % (" ".join(args), rc, err))
    return out


def refused(want, *args):
    rc, out, err = openssl(*args)
    text = out.decode(errors="replace") + err
    check(rc != 0 and want in text, "openssl %s: exit %d, want %r in: %s" %
          (" ".join(args), rc, want, text))


def ctl_run(*args, env_socket=None, cwd=None):
    env = plain_env()
    env.pop("P256SIGN_SOCKET", None)
    if env_socket:
        env["P256SIGN_SOCKET"] = env_socket
    p = subprocess.run([ctl, *args], env=env, cwd=cwd, timeout=30, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def export_key_ref(key, name, **kw):
    """p256signctl export-key-ref KEY into tmp/NAME; the file's path."""
    rc, out, err = ctl_run("export-key-ref", key, **kw)
    check(rc == 0 and out.startswith(b"-----BEGIN P256SIGN KEY REFERENCE-----\n") and
          out.endswith(b"-----END P256SIGN KEY REFERENCE-----\n"),
          "export-key-ref %s: exit %d, %r, %s" % (key, rc, out, err))
    with open(path(name), "wb") as f:
        f.write(out)
    return path(name)


def make_cert(key):
    """A self-signed certificate for localhost of the key file, as tmp/web.pem."""
    ok("req", "-x509", "-new", "-key", key, "-subj", "/CN=localhost", "-addext",
       "subjectAltName=DNS:localhost", "-days", "2", "-out", path("web.pem"))
    return path("web.pem")


# openssl.cnf for a server: default first, then the provider (docs/tls.md).
OPENSSL_CNF = """openssl_conf = openssl_init

[openssl_init]
providers = provider_sect

[provider_sect]
default = default_sect
p256sign = p256sign_sect

[default_sect]
activate = 1

[p256sign_sect]
module = %(module)s
timeout_ms = 2000
activate = 1
"""


def write_openssl_cnf():
    """tmp/openssl.cnf loading the provider module by its absolute path; the server's env."""
    with open(path("openssl.cnf"), "w") as f:
        f.write(OPENSSL_CNF % {"module": os.path.join(ENV["OPENSSL_MODULES"], "p256sign.so")})
    return dict(ENV, OPENSSL_CONF=path("openssl.cnf"))


def curl(port, version):
    """One HTTPS request, certificate verified; (exit status, body, verbose output)."""
    v = ["--tlsv1.3"] if version == "1.3" else [
        "--tlsv1.2", "--tls-max", "1.2", "--ciphers", "ECDHE-ECDSA-AES128-GCM-SHA256"]
    p = subprocess.run(["curl", "-sS", "-v", "--cacert", path("web.pem"), *v,
                        "--resolve", "localhost:%d:127.0.0.1" % port,
                        "https://localhost:%d/" % port],
                       env=plain_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=30)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def curls_ok(port, versions, parallel=4):
    """A curl handshake for each TLS version listed, `parallel` at once; all must verify."""
    with ThreadPoolExecutor(parallel) as pool:
        results = list(pool.map(lambda v: (v, curl(port, v)), versions))
    for version, (rc, body, verbose) in results:
        check(rc == 0 and body == b"ok\n" and
              "SSL connection using TLSv%s" % version in verbose and
              "SSL certificate verify ok" in verbose,
              "curl TLS %s: exit %d, %r\n%s" % (version, rc, body, verbose))


def run_handshakes(bench, targets, *args):
    """bench-handshake with --target for each (name, port[, pid...]) and args; (exit status,
    its JSON report, stderr)."""
    argv = [bench]
    for t in targets:
        argv += ["--target", ",".join(str(x) for x in t)]
    p = subprocess.run(argv + list(args), env=plain_env(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=300)
    try:
        report = json.loads(p.stdout)
    except ValueError:
        check(False, "bench-handshake printed no JSON: %r %r" % (p.stdout, p.stderr))
    return p.returncode, report, p.stderr.decode(errors="replace")


def handshakes_ok(port, count, version, parallel=4):
    """count new handshakes (TLS version "1.3" or "1.2") by bench-handshake, `parallel` at once,
    each certificate verified against tmp/web.pem: all must succeed."""
    args = ["--cafile", path("web.pem"), "--count", str(count), "--parallel", str(parallel)]
    rc, report, err = run_handshakes(bench_handshake, [("server", port)], *args,
                                     *(["--tls1_2"] if version == "1.2" else []))
    (t,) = report["targets"]
    check(rc == 0 and report["protocol"] == "TLSv" + version and t["handshakes"] == count and
          t["failures"] == 0, "%d TLS %s handshakes: exit %d, %s %s" % (count, version, rc,
                                                                      report, err))


def handshakes_signed(d, port, curls, handshakes):
    """curls handshakes by curl and `handshakes` by bench-handshake for each of TLS 1.3 and
    1.2, all verified, each one signature by the daemon (STATUS): how many there were."""
    signed = signatures(d)
    curls_ok(port, ["1.3", "1.2"] * curls)
    for version in ("1.3", "1.2"):
        handshakes_ok(port, handshakes, version)
    total = 2 * (curls + handshakes)
    check(signatures(d) - signed == total, "%d signatures for %d handshakes" %
          (signatures(d) - signed, total))
    return total


def signatures(d):
    """The signatures the daemon has released (STATUS)."""
    c = d.client()
    n = c.call(frame(STATUS, 1)).ok(STATUS).json()["signatures"]
    c.close()
    return n


def daemon_with_key(daemon_bin, allow=None, more_keys=(), **extra):
    """A fresh key "web" (tmp/web.key) in a daemon started with config extra, its certificate
    (tmp/web.pem) and its key-reference file (tmp/web.key-ref.pem): (daemon, key-ref path).
    allow: the key's "allow" (without it, root and the daemon's own user only); more_keys: more
    entries of the daemon's "keys", with web's allow list. The key is
    purpose-bound, "tls-server": the servers sign handshakes only (SIGN_TLS)."""
    key = path("web.key")
    openssl_key(key)
    make_cert(key)
    entry = {"name": "web", "file": key, "purpose": "tls-server"}
    if allow:
        entry["allow"] = allow
    more = [dict(k, allow=allow) if allow else dict(k) for k in more_keys]
    d = Daemon(daemon_bin, keys=[entry] + more, extra=extra)
    return d, export_key_ref("web", "web.key-ref.pem", env_socket=d.socket)


def stop_process(proc, sig):
    """Stops a server with its graceful signal; killed if it takes longer than 20 s."""
    if proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def children(pid, want=None):
    """The child processes of pid; with want, once there are that many (within 20 s: a server
    may listen before it has forked all its workers)."""
    end = time.monotonic() + 20
    while True:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            kids = {int(p) for p in f.read().split()}
        if want is None or len(kids) == want or time.monotonic() > end:
            return kids
        time.sleep(0.05)


def connections_total(d):
    """The daemon's connections_total (STATUS), this query's connection included."""
    c = d.client()
    total = c.call(frame(STATUS, 1)).ok(STATUS).json()["connections_total"]
    c.close()
    return total


# nginx as the tests and the benchmark run it (docs/tls.md): everything under DIR.
NGINX_CONF = """daemon off;
master_process on;
worker_processes %(workers)d;
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
        ssl_certificate %(cert)s;
        ssl_certificate_key %(key)s;
        ssl_protocols TLSv1.2 TLSv1.3;
        location / { return 200 "ok\\n"; }
    }
}
"""

# haproxy likewise: the certificate and the key (a key file or a key reference) in one crt file.
HAPROXY_CFG = """global
    nbthread 1
    ssl-mode-async
    log stderr format raw local0 info
%(global)s
defaults
    mode http
    log global
    timeout connect 5s
    timeout client 10s
    timeout server 10s

frontend web
    bind 127.0.0.1:%(port)d ssl crt %(crt)s
    http-request return status 200 content-type text/plain string "ok\\n"
"""


def start_nginx(nginx, directory, port, cert, key, env, workers=2, access_log=True):
    """nginx with NGINX_CONF in directory (its config, logs and temp files), listening once
    this returns; the process (its output in directory/nginx.out)."""
    conf = NGINX_CONF % {"dir": directory, "port": port, "cert": cert, "key": key,
                         "workers": workers}
    if not access_log:
        conf = conf.replace("access_log %s/access.log pid;" % directory, "access_log off;")
    with open(os.path.join(directory, "nginx.conf"), "w") as f:
        f.write(conf)
    out = os.path.join(directory, "nginx.out")
    with open(out, "wb") as log:
        proc = subprocess.Popen([nginx, "-p", directory, "-c",
                                 os.path.join(directory, "nginx.conf")], env=env,
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    wait_listening(proc, port, out)
    return proc


def start_haproxy(haproxy, directory, port, parts, env, global_lines="", wrap=()):
    """haproxy -W -db with HAPROXY_CFG in directory (global_lines added to its global section),
    its crt file the concatenation of parts, listening once this returns; the process (its
    output in directory/haproxy.out). wrap: a command line that runs haproxy's."""
    crt = os.path.join(directory, "web.crt")
    with open(crt, "wb") as out:
        for part in parts:
            with open(part, "rb") as f:
                out.write(f.read())
    cfg = os.path.join(directory, "haproxy.cfg")
    with open(cfg, "w") as f:
        f.write(HAPROXY_CFG % {"port": port, "crt": crt, "global": global_lines})
    out = os.path.join(directory, "haproxy.out")
    with open(out, "wb") as log:
        proc = subprocess.Popen([*wrap, haproxy, "-W", "-db", "-f", cfg], env=env,
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log)
    wait_listening(proc, port, out)
    return proc
