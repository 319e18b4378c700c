#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""What the provider's tests share: the environment that makes OpenSSL find the module (and the
sanitizer runtimes it needs in an instrumented build), a scratch directory, the openssl command,
p256signctl export-key-ref, a test certificate, ports, and the daemon's connection count.
Standard library only; call init() first."""
import os
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "daemon"))
from daemonlib import STATUS, Daemon, check, frame, openssl_key  # noqa: E402

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
    tmp = tempfile.mkdtemp(prefix="p256sign-provider-test-")


def init_server_test(argv):
    """init() from a server test's arguments, P256SIGND P256SIGNCTL MODULE_DIR SERVER
    [SANITIZER_PRELOAD]; returns the daemon's and the server's paths."""
    init(argv[2], argv[3], argv[5] if len(argv) > 5 else "")
    return os.path.abspath(argv[1]), argv[4]


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


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_cert(key):
    """A self-signed certificate for localhost of the key file, as tmp/web.pem."""
    ok("req", "-x509", "-new", "-key", key, "-subj", "/CN=localhost", "-addext",
       "subjectAltName=DNS:localhost", "-days", "2", "-out", path("web.pem"))
    return path("web.pem")


def wait_listening(proc, port, log):
    """Returns once 127.0.0.1:port accepts; fails if proc exits first (log: its output file)."""
    end = time.monotonic() + 20
    while True:
        if proc.poll() is not None:
            with open(log, errors="replace") as f:
                check(False, "server exited with %s: %s" % (proc.returncode, f.read()))
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            check(time.monotonic() < end, "nothing listens on %d" % port)
            time.sleep(0.05)


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


def daemon_with_key(daemon_bin, allow=None, **extra):
    """A fresh key "web" (tmp/web.key) in a daemon started with config extra, its certificate
    (tmp/web.pem) and its key-reference file (tmp/web.key-ref.pem): (daemon, key-ref path).
    allow: the key's "allow" (without it, root and the daemon's own user only). The key is
    purpose-bound, "tls-server": the servers sign handshakes only (SIGN_TLS)."""
    key = path("web.key")
    openssl_key(key)
    make_cert(key)
    entry = {"name": "web", "file": key, "purpose": "tls-server"}
    if allow:
        entry["allow"] = allow
    d = Daemon(daemon_bin, keys=[entry], extra=extra)
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


def children(pid):
    """The child processes of pid."""
    with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
        return {int(p) for p in f.read().split()}


def connections_total(d):
    """The daemon's connections_total (STATUS), this query's connection included."""
    c = d.client()
    total = c.call(frame(STATUS, 1)).ok(STATUS).json()["connections_total"]
    c.close()
    return total
