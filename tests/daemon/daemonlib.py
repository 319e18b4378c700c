# SPDX-License-Identifier: ISC
"""Helpers for the p256signd integration tests: a throw-away daemon and a small protocol client.

Standard library only. The wire format is docs/protocol.md: u32 length, then u8 version, u8 type,
u16 flags, u32 id and the body; big-endian.
"""
import atexit
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def private_copy(src, directory):
    """A copy of the key file src in directory, mode 0600: p256signd refuses a key file that group
    or others may read, and git checks files out 0644."""
    dst = os.path.join(directory, os.path.basename(src))
    with open(src, "rb") as f:
        data = f.read()
    fd = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    return dst


_started = []       # the daemons' processes
_scratch = []       # the directories scratch_dir made


def clean_up():
    """Kills the daemons still running, then removes the directories: at exit, whether the test
    passed or a check failed (which exits too), and before an exec, which skips atexit."""
    for proc in _started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    while _scratch:
        shutil.rmtree(_scratch.pop(), ignore_errors=True)


atexit.register(clean_up)
# meson ends a test past its timeout with SIGTERM, which would skip atexit: exit as a failed
# check does instead.
signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


def scratch_dir(prefix):
    """A new directory under /tmp, removed by clean_up."""
    path = tempfile.mkdtemp(prefix=prefix)
    _scratch.append(path)
    return path


# Configurations are refused when group or others may write them: whatever the caller's umask
# (002 for many users), the files the tests write get no group or other write bit.
os.umask(os.umask(0) | 0o022)
_KEYS_DIR = scratch_dir("p256signd-keys-")
RFC_KEY = private_copy(os.path.join(HERE, "keys", "rfc6979.pem"), _KEYS_DIR)
# RFC 6979 A.2.5: SHA-256("sample") and the deterministic signature under RFC_KEY.
RFC_DIGEST = bytes.fromhex("af2bdbe1aa9b6ec1e2ade1d694f41fc71a831d0268e9891562113d8a62add1bf")
RFC_R = bytes.fromhex("efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716")
RFC_S = bytes.fromhex("f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8")
# The generators of the prime curves a ServerKeyExchange may name (SEC 2 version 2), by their
# TLS NamedCurve: points on their curves, which SIGN_TLS requires (docs/protocol.md section 4.1).
TLS_GENERATORS = {
    23: bytes.fromhex("046b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c296"
                      "4fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5"),
    24: bytes.fromhex("04aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a38"
                      "5502f25dbf55296c3a545e3872760ab73617de4a96262c6f5d9e98bf9292dc29f8"
                      "f41dbd289a147ce9da3113b5f0b8c00a60b1ce1d7e819d7a431d7c90ea0e5f"),
    25: bytes.fromhex("0400c6858e06b70404e9cd9e3ecb662395b4429c648139053fb521f828af606b4d"
                      "3dbaa14b5e77efe75928fe1dc127a2ffa8de3348b3c1856a429bf97e7e31c2e5bd"
                      "66011839296a789a3bc0045c8a5fb42c7d1bd998f54449579b446817afbd17273e"
                      "662c97ee72995ef42640c550b9013fad0761353c7086a272c24088be94769fd16650"),
}

PING, SIGN, SIGN_MESSAGE, PUBKEY, VERIFY, LIST_KEYS, STATUS = 1, 2, 3, 4, 5, 6, 7
CERTIFICATE = 9
RESPONSE, ERROR = 0x80, 0xFF
DER, RAW = 0, 1
KEY_NAME, KEY_ID, KEY_POINT = 1, 2, 3
E = dict(bad_frame=1, unsupported_version=2, unknown_type=3, unknown_key=4, bad_digest_length=5,
         overloaded=6, internal=7, bad_format=8, message_too_large=9, bad_key_selector=10,
         frame_too_large=11, bad_flags=12, bad_point=13, bad_signature=14, sign_failed=15,
         shutting_down=16, timeout=17, denied=18, bad_tls_content=19, audit_unavailable=20,
         too_many_connections=21, bad_tls_point=22, no_certificate=23)

TIMEOUT = 20.0


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


# ---- encoding -------------------------------------------------------------------------------

def frame(type_, id_, body=b"", version=1, flags=0):
    payload = struct.pack(">BBHI", version, type_, flags, id_) + body
    return struct.pack(">I", len(payload)) + payload


def key_name(name):
    n = name.encode()
    return bytes([KEY_NAME, len(n)]) + n


def key_id(kid):
    return bytes([KEY_ID]) + kid


def key_point(point):
    return bytes([KEY_POINT]) + point


def sign_req(id_, key, digest, fmt=RAW):
    return frame(SIGN, id_, key + bytes([fmt, len(digest)]) + digest)


def sign_message_req(id_, key, message, fmt=RAW):
    return frame(SIGN_MESSAGE, id_, key + bytes([fmt]) + struct.pack(">H", len(message)) + message)


def verify_req(id_, key, digest, sig, fmt=RAW):
    return frame(VERIFY, id_, key + bytes([fmt, len(digest)]) + digest +
                 struct.pack(">H", len(sig)) + sig)


def der_to_raw(der):
    """Strict enough for the daemon's own output: SEQUENCE of two INTEGERs."""
    check(der[0] == 0x30 and der[1] == len(der) - 2, "DER signature: bad SEQUENCE")
    out, i = b"", 2
    for _ in range(2):
        check(der[i] == 0x02, "DER signature: not an INTEGER")
        n = der[i + 1]
        v = der[i + 2:i + 2 + n]
        check(n > 0 and not (n > 1 and v[0] == 0 and v[1] < 0x80), "DER INTEGER not minimal")
        out += v.lstrip(b"\0").rjust(32, b"\0")
        i += 2 + n
    check(i == len(der), "DER signature: trailing bytes")
    return out


def raw_to_der(raw):
    def integer(v):
        v = v.lstrip(b"\0") or b"\0"
        if v[0] & 0x80:
            v = b"\0" + v
        return bytes([2, len(v)]) + v
    body = integer(raw[:32]) + integer(raw[32:])
    return bytes([0x30, len(body)]) + body


def children(pid):
    with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
        return [int(p) for p in f.read().split()]


# ---- decoding -------------------------------------------------------------------------------

class Response:
    def __init__(self, data):
        self.version, self.type, self.flags, self.id = struct.unpack(">BBHI", data[:8])
        self.body = data[8:]
        self.error = None
        if self.type == ERROR:
            self.error, n = struct.unpack(">HH", self.body[:4])
            self.text = self.body[4:4 + n].decode()

    def ok(self, type_):
        check(self.type == (type_ | RESPONSE),
              "id %d: expected type %#x, got %#x (error %s)" % (self.id, type_ | RESPONSE,
                                                              self.type, self.error))
        return self

    def signature(self):
        fmt, n = self.body[0], self.body[1]
        check(len(self.body) == 2 + n, "signature response length")
        sig = self.body[2:]
        return der_to_raw(sig) if fmt == DER else sig

    def json(self):
        return json.loads(self.body.decode())


class Client:
    def __init__(self, path, timeout=TIMEOUT):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buf = b""

    def send(self, data):
        self.sock.sendall(data)

    def recv(self):
        """The next response frame, or None at end of file."""
        while True:
            if len(self.buf) >= 4:
                n = struct.unpack(">I", self.buf[:4])[0]
                if len(self.buf) >= 4 + n:
                    data, self.buf = self.buf[4:4 + n], self.buf[4 + n:]
                    return Response(data)
            chunk = self.sock.recv(65536)
            if not chunk:
                check(self.buf == b"", "connection closed mid-frame")
                return None
            self.buf += chunk

    def call(self, data):
        self.send(data)
        r = self.recv()
        check(r is not None, "connection closed instead of a response")
        return r

    def expect_error(self, data, code, closes=False):
        r = self.call(data)
        check(r.type == ERROR and r.error == code,
              "expected error %d, got type %#x error %s" % (code, r.type, r.error))
        if closes:
            check(self.recv() is None, "connection not closed after error %d" % code)
        return r

    def wait_signed(self, id_, key, seconds, what):
        """SIGN (RFC_DIGEST with key) again every 0.1 s until it is signed; fails with `what`
        after `seconds`."""
        deadline = time.monotonic() + seconds
        while self.call(sign_req(id_, key_name(key), RFC_DIGEST)).type != SIGN | RESPONSE:
            check(time.monotonic() < deadline, what)
            time.sleep(0.1)

    def pubkey(self, name):
        r = self.call(frame(PUBKEY, 1, key_name(name))).ok(PUBKEY)
        return r.body[:32], r.body[32:97], r.body[97:]

    def wait_status(self, member, value):
        """STATUS again every 0.02 s until its member has value (TIMEOUT at most)."""
        end = time.monotonic() + TIMEOUT
        while self.call(frame(STATUS, 0)).ok(STATUS).json()[member] != value:
            check(time.monotonic() < end, "STATUS %s never %s" % (member, value))
            time.sleep(0.02)

    def certificate(self, selector):
        """CERTIFICATE with a key selector (key_name, key_id): (key id, DER), after checking the
        answer's layout (docs/protocol.md section 4.2)."""
        r = self.call(frame(CERTIFICATE, 1, selector)).ok(CERTIFICATE)
        (n,) = struct.unpack(">H", r.body[32:34])
        check(len(r.body) == 34 + n and 1 <= n <= 16384, "certificate answer layout")
        return r.body[:32], r.body[34:]

    def close(self):
        self.sock.close()


def journal_fields(rec):
    """An audit record's members as its journal entry's fields (docs/audit.md):
    P256SIGN_<MEMBER>, P256SIGN_<OBJECT>_<MEMBER>, values as text."""
    out = {}
    for k, v in rec.items():
        for k2, v2 in (v.items() if isinstance(v, dict) else [(None, v)]):
            out["P256SIGN_" + k.upper() + ("_" + k2.upper() if k2 else "")] = str(v2)
    return out


# ---- the daemon -----------------------------------------------------------------------------

def openssl_key(path):
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt",
                    "ec_paramgen_curve:P-256", "-out", path], check=True,
                   stderr=subprocess.DEVNULL)
    os.chmod(path, 0o600)


class Daemon:
    """p256signd on a socket in a fresh directory, with a notify socket the test reads."""

    def __init__(self, binary, keys=None, workers=2, limits=None, extra=None, env=None,
                 wrap=None, wait_ready=True):
        self.dir = scratch_dir("p256signd-test-")
        self.socket = os.path.join(self.dir, "s.sock")
        self.log = os.path.join(self.dir, "stderr.log")
        if keys is None:
            keys = [{"name": "rfc", "file": RFC_KEY, "nonce": "deterministic"}]
        cfg = {"socket": self.socket, "workers": workers, "keys": keys}
        if limits:
            cfg["limits"] = limits
        cfg.update(extra or {})
        self.socket = cfg["socket"]
        self.config = os.path.join(self.dir, "p256signd.json")
        with open(self.config, "w") as f:
            json.dump(cfg, f, indent=1)
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify_path = os.path.join(self.dir, "notify.sock")
        self.notify.bind(self.notify_path)
        # Reachable after the daemon drops to another user.
        os.chmod(self.dir, 0o755)
        os.chmod(self.notify_path, 0o777)
        # Read all the time, as systemd would: a full queue (10 datagrams) blocks sd_notify.
        self.messages = []
        self.reader = threading.Thread(target=self._read_notify_socket, daemon=True)
        self.reader.start()
        e = dict(os.environ)
        e["NOTIFY_SOCKET"] = self.notify_path
        e.update(env or {})
        argv = [binary, "--config", self.config]
        if wrap:
            argv = wrap(argv)
        self.stderr = open(self.log, "wb")
        self.proc = subprocess.Popen(argv, env=e, stderr=self.stderr, stdin=subprocess.DEVNULL)
        _started.append(self.proc)
        if wait_ready:
            self.wait_for("READY=1")

    def _read_notify_socket(self):
        while True:
            try:
                data = self.notify.recv(4096)
            except OSError:
                return
            if not data:
                return      # shut down by stop()
            self.messages.extend(data.decode().split("\n"))

    def read_notify(self, timeout):
        """The notify messages that arrive in the next timeout seconds."""
        start = len(self.messages)
        time.sleep(timeout)
        return self.messages[start:]

    def wait_for(self, message, timeout=TIMEOUT):
        end = time.monotonic() + timeout
        while message not in self.messages:
            if self.proc.poll() is not None:
                fail("daemon exited with %s before %s; log:\n%s" %
                     (self.proc.returncode, message, self.log_text()))
            check(time.monotonic() < end, "no %s within %s s" % (message, timeout))
            time.sleep(0.02)

    def client(self):
        return Client(self.socket)

    def write_keys(self, keys):
        """Replaces the configuration's keys (atomically: a reload reads it whole)."""
        with open(self.config) as f:
            cfg = json.load(f)
        cfg["keys"] = keys
        with open(self.config + ".new", "w") as f:
            json.dump(cfg, f)
        os.rename(self.config + ".new", self.config)

    def log_text(self):
        self.stderr.flush()
        with open(self.log, errors="replace") as f:
            return f.read()

    def keyholder(self):
        """Process id of the key-holder (the daemon's one child)."""
        (pid,) = children(self.proc.pid)
        return pid

    def workers(self):
        """Process ids of the signers (the key-holder's children)."""
        return children(self.keyholder())

    def stop(self, expect=0):
        """SIGTERM, then checks the exit status and the log for sanitizer and valgrind reports; returns the
        log and removes the directory."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            fail("daemon did not stop on SIGTERM")
        text = self.log_text()
        self.stderr.close()
        self.notify.shutdown(socket.SHUT_RDWR)
        self.notify.close()
        check(rc == expect, "daemon exited with %d, expected %d; log:\n%s" % (rc, expect, text))
        # valgrind's lines start "==PID==": with -q it prints nothing unless it found an error,
        # also in a worker, whose exit status the daemon does not report.
        check("ERROR: AddressSanitizer" not in text and "ERROR: LeakSanitizer" not in text and
              "runtime error:" not in text and not re.search(r"^==\d+== ", text, re.M),
              "sanitizer or valgrind report:\n" + text)
        subprocess.run(["rm", "-rf", self.dir], check=True)
        _scratch.remove(self.dir)
        return text


class SignLoad:
    """Clients sending SIGN requests for the key named "rfc" (RFC 6979 A.2.5's, deterministic)
    one after the other, each answer counted and checked against the known signature; a client
    whose answer failed reconnects and goes on. finish() checks that none failed."""

    def __init__(self, d, connections):
        self.d = d
        self.stop_flag = threading.Event()
        self.lock = threading.Lock()
        self.sent = self.answered = 0
        self.failures = []
        self.longest = 0.0
        self.threads = [threading.Thread(target=self.run, args=(i,), daemon=True)
                        for i in range(connections)]
        for t in self.threads:
            t.start()

    def run(self, n):
        c = self.d.client()
        i = 0
        while not self.stop_flag.is_set():
            i += 1
            start = time.monotonic()
            with self.lock:
                self.sent += 1
            err = None
            try:
                r = c.call(sign_req(i, key_name("rfc"), RFC_DIGEST))
            except OSError as e:
                r, err = None, e
            took = time.monotonic() - start
            with self.lock:
                self.longest = max(self.longest, took)
                if r is None or r.type != (SIGN | RESPONSE) or r.id != i or \
                        r.signature() != RFC_R + RFC_S:
                    self.failures.append((n, i, err if r is None else (r.type, r.error)))
                    c.close()
                    c = self.d.client()
                    continue
                self.answered += 1
        c.close()

    def finish(self, what="load"):
        self.stop_flag.set()
        for t in self.threads:
            t.join(TIMEOUT)
        check(not any(t.is_alive() for t in self.threads), "every client finished")
        print("%s: %d requests, %d failed, longest wait %.0f ms" %
              (what, self.sent, len(self.failures), self.longest * 1000))
        check(not self.failures, "%s: failed requests: %s" % (what, self.failures[:5]))
        check(self.sent == self.answered and self.sent > 0,
              "answers = requests: %d sent, %d answered" % (self.sent, self.answered))
        return self


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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


def switches(pid):
    """Context switches of pid so far, voluntary and not: its wake-ups."""
    n = 0
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                n += int(line.split()[1])
    return n
