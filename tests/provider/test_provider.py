#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The provider through the openssl command against the real p256signd: the store loader, the
public key, signatures checked by OpenSSL's default provider, the refused private export, and
p256signctl export-key-ref, and openssl s_server serving TLS 1.3 and TLS 1.2 (ECDHE-ECDSA) with
the key in the daemon, named by a URI or a key-reference file; a handshake while the daemon is
down fails cleanly, the next one after its restart succeeds; s_server -async signs from inside
OpenSSL ASYNC jobs, with many clients at once, and goes on serving after a client that left while
its handshake's signature was held at the daemon.
Usage: test_provider.py P256SIGND P256SIGNCTL MODULE_DIR [SANITIZER_PRELOAD]"""
import hashlib
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from providerlib import (PROVIDERS, connections_total, ctl_run, export_key_ref,  # noqa: E402
                         free_port, make_cert, ok, openssl, path, plain_env, refused,
                         wait_listening)
import providerlib  # noqa: E402
from daemonlib import (DER, STATUS, Daemon, E, check, frame, key_name,  # noqa: E402
                       openssl_key, sign_req)

daemon_bin = os.path.abspath(sys.argv[1])
providerlib.init(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else "")
ENV = providerlib.ENV
tmp = providerlib.tmp
servers = []


def start_server(key, providers):
    """openssl s_server on a free port; returns (process, port) once it accepts."""
    port = free_port()
    log = open(path("s_server-%d.log" % port), "wb")
    # The interactive mode, its stdin held open: -www sleeps a second on every async retry.
    proc = subprocess.Popen(["openssl", "s_server", *providers, "-accept", "127.0.0.1:%d" % port,
                             "-key", key, "-cert", path("web.pem")],
                            env=ENV, stdin=subprocess.PIPE, stdout=log, stderr=log)
    servers.append(proc)
    wait_listening(proc, port, path("s_server-%d.log" % port))
    return proc, port


def server_log(port):
    with open(path("s_server-%d.log" % port), errors="replace") as f:
        return f.read()


def stop_server(proc):
    proc.terminate()
    proc.wait(10)
    proc.stdin.close()


def start_client(port, version):
    """One verified s_client handshake, running."""
    v = ["-tls1_3"] if version == "1.3" else ["-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-GCM-SHA256"]
    return subprocess.Popen(["openssl", "s_client", "-connect", "127.0.0.1:%d" % port, "-brief",
                             "-CAfile", path("web.pem"), "-verify_return_error", *v],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT,
                            env=plain_env())


def finish_client(proc):
    """(exit status, output) of a client from start_client."""
    out, _ = proc.communicate(timeout=30)
    return proc.returncode, out.decode(errors="replace")


def handshake(port, version):
    return finish_client(start_client(port, version))


def check_handshake(port, version, rc, out):
    check(rc == 0 and "Protocol version: TLSv%s" % version in out and "Verification: OK" in out
          and "Signature type: ECDSA" in out,
          "TLS %s handshake: exit %d: %s\nserver: %s" % (version, rc, out, server_log(port)))


def handshake_ok(port, version):
    check_handshake(port, version, *handshake(port, version))


def status(d):
    c = d.client()
    st = c.call(frame(STATUS, 1)).ok(STATUS).json()
    c.close()
    return st


def wait_status(d, what, cond):
    """The daemon's STATUS once cond(STATUS) holds, within 10 s; what: for the failure."""
    end = time.monotonic() + 10
    while True:
        st = status(d)
        if cond(st):
            return st
        check(time.monotonic() < end, "%s: %s" % (what, st))
        time.sleep(0.01)


def client_gone_while_signing(d, port):
    """A TLS 1.3 client sends its ClientHello and closes its TCP connection while the server's
    signature is held at the daemon (its signers stopped), then the signers go on."""
    signers = d.workers()
    for pid in signers:
        os.kill(pid, signal.SIGSTOP)
    try:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        ctx.minimum_version = ssl.TLSVersion.TLSv1_3
        with ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10),
                             do_handshake_on_connect=False) as tls:
            tls.setblocking(False)
            try:
                tls.do_handshake()
                check(False, "a handshake finished with the signers stopped")
            except ssl.SSLWantReadError:
                pass    # the ClientHello is out
            wait_status(d, "the server's signature never reached the daemon",
                        lambda st: st["inflight"] == 1)
    finally:
        for pid in signers:
            os.kill(pid, signal.SIGCONT)


def main():
    key = path("web.key")
    openssl_key(key)
    make_cert(key)

    # Init needs no daemon: the provider is listed active with none running.
    out = ok("list", "-providers", *PROVIDERS).decode()
    check("p256sign" in out and "status: active" in out, "provider not active: " + out)

    d = Daemon(daemon_bin, keys=[{"name": "web", "file": key}], extra={"socket": path("s.sock")})
    uri = "p256sign:web;socket=" + d.socket
    c = d.client()
    _, point, spki = c.pubkey("web")
    c.close()

    # The public key through the store loader is the daemon's.
    der = ok("pkey", "-provider", "p256sign", "-provider", "default", "-in", uri, "-pubout",
             "-outform", "DER")
    check(der == spki, "pkey -pubout differs from the daemon's SubjectPublicKeyInfo")
    pem = ok("pkey", "-provider", "p256sign", "-provider", "default", "-in", uri, "-pubout")
    with open(path("pub.pem"), "wb") as f:
        f.write(pem)
    # ... selected by id too
    kid = hashlib.sha256(spki).hexdigest()
    check(ok("pkey", *PROVIDERS, "-in", "p256sign:id=%s;socket=%s" % (kid, d.socket),
             "-pubout") == pem, "the key by id is another key")
    # The private half cannot be written out.
    rc, out, err = openssl("pkey", *PROVIDERS, "-in", uri)
    check(rc != 0 and b"PRIVATE KEY" not in out, "a private key was written: %r" % out)

    # pkeyutl -sign through the provider; pkeyutl -verify with the default provider only.
    digest = hashlib.sha256(b"hello").digest()
    with open(path("digest"), "wb") as f:
        f.write(digest)
    ok("pkeyutl", *PROVIDERS, "-sign", "-inkey", uri, "-in", path("digest"),
       "-out", path("sig"))
    out = ok("pkeyutl", "-verify", "-pubin", "-inkey", path("pub.pem"), "-in", path("digest"),
             "-sigfile", path("sig"))
    check(b"Signature Verified Successfully" in out, "pkeyutl -verify: %r" % out)
    with open(path("other"), "wb") as f:
        f.write(hashlib.sha256(b"other").digest())
    refused("Signature Verification Failure", "pkeyutl", "-verify", "-pubin", "-inkey",
            path("pub.pem"), "-in", path("other"), "-sigfile", path("sig"))
    # openssl dgst: update/final through the provider, SHA-384 truncated to the curve's size.
    with open(path("msg"), "wb") as f:
        f.write(b"a message" * 100)
    ok("dgst", *PROVIDERS, "-sha384", "-sign", uri, "-out", path("msg.sig"), path("msg"))
    ok("dgst", "-sha384", "-verify", path("pub.pem"), "-signature", path("msg.sig"), path("msg"))

    # Key-reference files from p256signctl export-key-ref, read through the decoder.
    ref = export_key_ref("web", "web.key-ref.pem", cwd=tmp, env_socket=d.socket)
    check(ok("pkey", *PROVIDERS, "-in", ref, "-pubout") == pem, "key reference: another key")
    by_id = export_key_ref("id:" + kid, "id.key-ref.pem", env_socket=d.socket)
    check(ok("pkey", *PROVIDERS, "-in", by_id, "-pubout") == pem, "key reference by id")
    rc, out, err = ctl_run("--socket", d.socket, "export-key-ref", "nope")
    check(rc == 1 and out == b"" and "no such key" in err, "export-key-ref nope: %d %s" % (rc, err))
    rc, out, err = ctl_run("--socket", "s.sock", "export-key-ref", "web", cwd=tmp)
    check(rc == 1 and out == b"" and "absolute socket path" in err,
          "export-key-ref with a relative socket: %d %s" % (rc, err))

    # Errors name the cause.
    refused("no such key", "pkey", *PROVIDERS, "-in", "p256sign:nope;socket=" + d.socket)
    refused("cannot connect", "pkey", *PROVIDERS, "-in", "p256sign:web;socket=" + path("none"))
    refused("malformed p256sign key URI", "pkey", *PROVIDERS, "-in", "p256sign:id=12")

    # s_server with the key in the daemon: TLS 1.3 and TLS 1.2 ECDHE-ECDSA.
    server, port = start_server(uri, PROVIDERS)
    handshake_ok(port, "1.3")
    handshake_ok(port, "1.2")
    # The daemon stopped: the handshake fails, the server stays up and says why.
    d.stop()
    rc, out = handshake(port, "1.3")
    check(rc != 0, "a handshake succeeded with the daemon stopped: " + out)
    check(server.poll() is None, "s_server died with the daemon")
    check("signing with key web" in server_log(port), "no provider error in: " + server_log(port))
    # Started again (same socket): the next handshake works.
    d = Daemon(daemon_bin, keys=[{"name": "web", "file": key}], extra={"socket": path("s.sock")})
    handshake_ok(port, "1.3")
    handshake_ok(port, "1.2")
    stop_server(server)

    # The key-reference file as s_server's key.
    server, port = start_server(ref, PROVIDERS)
    handshake_ok(port, "1.3")
    handshake_ok(port, "1.2")
    stop_server(server)

    # s_server -async: the signatures run inside ASYNC jobs, on the one daemon connection its
    # thread's jobs share: the server's connections are the key load's and the jobs' (a
    # blocking server signs on the key load's), plus this test's STATUS query.
    before = connections_total(d)
    server, port = start_server(uri, PROVIDERS + ["-async"])
    clients = [start_client(port, "1.3" if i % 2 else "1.2") for i in range(12)]
    for i, c in enumerate(clients):
        check_handshake(port, "1.3" if i % 2 else "1.2", *finish_client(c))
    check(connections_total(d) - before == 1 + 1 + 1, "the async server's jobs did not share "
          "one connection")
    stop_server(server)

    # A client gone while its handshake's signature is held at the daemon: s_server -async does
    # not free a connection whose job is paused, it resumes the job until it finishes
    # (init_ssl_connection in OpenSSL's apps/s_server.c), so the late answer completes a
    # handshake nobody reads. The server goes on serving full handshakes, the daemon has no
    # request left in flight, and its signers were neither taken for hung nor replaced.
    server, port = start_server(uri, PROVIDERS + ["-async"])
    handshake_ok(port, "1.3")
    before = status(d)
    client_gone_while_signing(d, port)
    wait_status(d, "the abandoned handshake's signature is still in flight",
                lambda st: st["inflight"] == 0 and st["signatures"] == before["signatures"] + 1)
    check(server.poll() is None, "s_server died after the client left: " + server_log(port))
    handshake_ok(port, "1.3")
    handshake_ok(port, "1.2")
    after = status(d)
    check(after["inflight"] == 0 and after["signatures"] == before["signatures"] + 3 and
          after["workers_hung"] == before["workers_hung"] and
          after["workers_replaced"] == before["workers_replaced"] and
          after["requests_resent"] == before["requests_resent"],
          "after the abandoned handshake: %s, before: %s" % (after, before))
    stop_server(server)

    # The providers in the order p256sign, default: TLS 1.3 works (TLS 1.2 needs default first).
    server, port = start_server(uri, ["-provider", "p256sign", "-provider", "default"])
    handshake_ok(port, "1.3")
    stop_server(server)
    d.stop()

    # A purpose-bound key ("tls-server"): the provider recognises the handshake's input and
    # sends SIGN_TLS, so TLS 1.3 and TLS 1.2 handshakes work, blocking and async.
    d = Daemon(daemon_bin, keys=[{"name": "web", "file": key, "purpose": "tls-server"}],
               extra={"socket": path("s.sock")})
    for extra in ([], ["-async"]):
        server, port = start_server(uri, PROVIDERS + extra)
        handshake_ok(port, "1.3")
        handshake_ok(port, "1.2")
        stop_server(server)
    # The provider refuses a digest (pkeyutl) and a message of the caller's choosing (dgst)
    # itself, from the purpose it read at key load: no request reaches the daemon.
    for args in (["pkeyutl", *PROVIDERS, "-sign", "-inkey", uri, "-in", path("digest"),
                  "-out", path("sig2")],
                 ["dgst", *PROVIDERS, "-sha256", "-sign", ref, "-out", path("sig2"),
                  path("msg")]):
        refused("key web has purpose tls-server: it signs TLS handshakes only", *args)
    st = status(d)
    check(st["signatures"] == 4 and not st["errors"].get("denied"),
          "four handshakes signed by SIGN_TLS, the refused signatures never sent: %s" % st)
    # The daemon refuses the same digest on its own (a client without the provider's check).
    c = d.client()
    c.expect_error(sign_req(2, key_name("web"), digest, DER), E["denied"])
    c.close()
    check(status(d)["errors"]["denied"] == 1, "the daemon did not deny the digest")
    # Each handshake is one SIGN_TLS audit record (no audit section and no journal here: the
    # records are on the daemon's stderr): two TLS 1.3 and two TLS 1.2 server signatures.
    log = d.stop()
    tls = [r["tls"] for r in (json.loads(l) for l in log.splitlines()
                              if l.startswith('{"v":1,"type":"request"'))
           if r["op"] == "sign-tls" and r["result"] == "ok" and "sig_sha256" in r]
    check(sorted((t["kind"], t["side"]) for t in tls) ==
          [("tls12", "server")] * 2 + [("tls13", "server")] * 2,
          "one sign-tls audit record per handshake: %s" % tls)

    # Each purpose's refusal says what the key is for, before any request: an audit key signs
    # neither a digest nor a handshake, a tls-client key no server's handshake.
    pkeyutl = ["pkeyutl", *PROVIDERS, "-sign", "-inkey", uri, "-in", path("digest"),
               "-out", path("sig2")]
    for purpose, digest_why, handshake_why in (
            ("audit", "it seals the daemon's audit log and signs nothing else",
             "it seals the daemon's audit log and signs nothing else"),
            ("tls-client", "it signs TLS handshakes only",
             "it signs TLS client handshakes only")):
        d = Daemon(daemon_bin, keys=[{"name": "web", "file": key, "purpose": purpose}],
                   extra={"socket": path("s.sock")})
        refused("key web has purpose %s: %s" % (purpose, digest_why), *pkeyutl)
        server, port = start_server(uri, PROVIDERS)
        rc, out = handshake(port, "1.3")
        want = "key web has purpose %s: %s" % (purpose, handshake_why)
        check(rc != 0 and want in server_log(port),
              "a %s key refused in the handshake, %r: exit %d: %s\nserver: %s" %
              (purpose, want, rc, out, server_log(port)))
        stop_server(server)
        st = status(d)
        check(st["signatures"] == 0 and not st["errors"].get("denied"),
              "a %s key: no request sent for the refused signatures: %s" % (purpose, st))
        d.stop()


try:
    main()
finally:
    for s in servers:
        if s.poll() is None:
            s.kill()
            s.wait()
        s.stdin.close()
    shutil.rmtree(tmp, ignore_errors=True)
print("ok")
