#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The Debian packages under a real systemd 252 and journald: a Debian 12 container
(containerlib.py) in which the packages are installed with apt, then, as an operator would run
it: the socket enabled on install and the daemon started by the first connection, READY after
the self-test and STATUS=; `systemctl reload` under a signing load with no failed request and
the key replaced on disk in use after it; `systemd-analyze security` of the installed unit; every
audit record an entry of the journal, a burst above journald's rate limit with none suppressed;
the watchdog (the parent stopped: Result=watchdog, restarted, the audit chain goes on); a key as
an encrypted credential; Debian's nginx signing TLS 1.3 and 1.2 handshakes through the provider
package; the logrotate rule; the audit trail sent by systemd-journal-upload to
systemd-journal-remote and verified on the collector's journal; apt-get remove and purge (docs/daemon.md, "Removing").
Prints the time of each part. The packages come from debs.sh (built once per source tree into
BUILD_DIR), the root file system from rootfs.sh (cached in $P256SIGN_TEST_CACHE, default
/var/cache/p256sign-test). Usage: test_container.py SOURCE_DIR BUILD_DIR"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from containerlib import Container, check  # noqa: E402

top, build = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
here = os.path.join(top, "tests", "systemd")
SOCK = "/run/p256sign/p256sign.sock"
DROPINS = "/etc/systemd/system/p256signd.service.d"
AUDIT = "/var/log/p256sign/audit.jsonl"
LOAD = ["python3", "/srv/tests/systemd/load.py", SOCK, "load"]
STOP = "/run/p256sign-test-load-stop"
LOAD_KEY_DIR = "/var/lib/p256sign-keys"
LOAD_KEY = LOAD_KEY_DIR + "/load.key"
times = []


def timed(name, fn, *args):
    t0 = time.monotonic()
    result = fn(*args)
    times.append((name, time.monotonic() - t0))
    print("time: %-30s %6.1f s" % times[-1], flush=True)
    return result


def host(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(p.returncode == 0, "%s: %s" % (" ".join(cmd), p.stderr[-3000:]))
    return p.stdout.strip()


def genkey(c, path, owner="root"):
    """A fresh P-256 key at path, mode 0600, renamed into place."""
    c.run(["sh", "-ec", 'umask 077; openssl genpkey -algorithm EC -pkeyopt '
           'ec_paramgen_curve:P-256 -out "$1.new" 2>/dev/null; chown "$2:" "$1.new"; '
           'mv "$1.new" "$1"', "sh", path, owner])


def point_of(c, path):
    """The uncompressed public point (hex) of a private key file in the container."""
    return c.run(["sh", "-ec", 'openssl pkey -in "$1" -pubout -outform DER | tail -c 65 | '
                  "od -An -v -tx1 | tr -d ' \\n'", "sh", path]).stdout


def daemon_point(c, key):
    return c.run(["p256signctl", "pubkey", key, "--format", "hex"], user="tester").stdout.strip()


def records(c):
    return [json.loads(line) for line in c.read(AUDIT).splitlines()]


def journal(c, *args):
    c.run(["journalctl", "--sync"])
    out = c.run(["journalctl", "--no-pager", "-o", "json"] + list(args), timeout=300).stdout
    return [json.loads(line) for line in out.splitlines()]


def unit_messages(c, unit):
    c.run(["journalctl", "--sync"])
    return c.run(["journalctl", "--no-pager", "-o", "cat", "-u", unit]).stdout


def start_load(c, conns, depth, count=None):
    c.run(["rm", "-f", STOP])
    return c.spawn(LOAD + [str(conns), str(depth), STOP] + ([str(count)] if count else []),
                   user="tester")


def end_load(c, proc, stop=True):
    """The load's totals: stopped now, or (stop False) when it has its count."""
    if stop:
        c.run(["touch", STOP])
    out, err = proc.communicate(timeout=120)
    check(proc.returncode == 0, "the load failed: %s" % err[-2000:])
    return json.loads(out)


def wait_until(what, cond, seconds=60):
    deadline = time.monotonic() + seconds
    while not cond():
        check(time.monotonic() < deadline, what)
        time.sleep(0.2)


# ---- the parts ------------------------------------------------------------------------------

def install(c, debs):
    names = sorted(f for f in os.listdir(debs) if f.endswith(".deb") and "-dbgsym_" not in f)
    c.run(["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-q",
           "--no-install-recommends"] + ["/srv/debs/" + n for n in names], timeout=300)
    check(c.run(["systemctl", "is-enabled", "p256signd.socket"]).stdout.strip() == "enabled",
          "the socket is not enabled by the install")
    check(c.show("p256signd.socket", "ActiveState") == "active", "the socket is not started")
    check(c.show("p256signd.service", "ActiveState") == "inactive",
          "the daemon started before any connection")
    check(c.run(["stat", "-c", "%a %U", "/etc/p256sign/keys"]).stdout.split() == ["700", "root"],
          "/etc/p256sign/keys is not root's alone")
    c.run(["getent", "passwd", "p256sign"])
    c.run(["test", "-f", "/usr/lib/x86_64-linux-gnu/ossl-modules/p256sign.so"])
    c.run(["test", "-s", "/etc/logrotate.d/p256signd"])


def configure(c):
    """The example configuration (web and audit keys as the unit's credentials), plus a key for
    the load (purpose-free, the group's) that the daemon reads itself, so that a reload sees it
    replaced: a credential is systemd's copy, made at start (docs/daemon.md, "Installing").
    A client user in the p256sign group; nginx's certificate for the web key."""
    for k in ("web", "audit"):
        genkey(c, "/etc/p256sign/keys/%s.key" % k)
    c.run(["install", "-d", "-m", "0700", "-o", "p256sign", "-g", "p256sign", LOAD_KEY_DIR])
    genkey(c, LOAD_KEY, "p256sign")
    cfg = json.loads(c.read("/usr/share/doc/p256signd/examples/p256signd.json.example"))
    cfg["keys"].append({"name": "load", "file": LOAD_KEY, "allow": {"groups": ["p256sign"]}})
    c.write("/etc/p256sign/p256signd.json", json.dumps(cfg, indent=1))
    c.run(["mkdir", "-p", DROPINS])
    c.run(["sh", "-ec", "openssl req -x509 -new -key /etc/p256sign/keys/web.key -subj "
           "/CN=localhost -addext subjectAltName=DNS:localhost -days 2 "
           "-out /etc/nginx/p256sign-web.pem 2>/dev/null"])
    # Checked as the unit reads it: its user, its credentials.
    c.run_unit(["p256signd", "--check-config", "/etc/p256sign/p256signd.json"],
               props=["User=p256sign", "LoadCredential=web.key:/etc/p256sign/keys/web.key",
                      "LoadCredential=audit.key:/etc/p256sign/keys/audit.key"])
    c.run(["useradd", "-M", "-G", "p256sign", "tester"])


def activation(c):
    check(c.show("p256signd.service", "ActiveState") == "inactive", "started too early")
    c.run(["p256signctl", "ping"], user="tester")
    check(c.show("p256signd.service", "ActiveState") == "active",
          "the first connection did not start the daemon")
    status = c.show("p256signd.service", "StatusText")
    m = re.search(r"(\d+)/(\d+) signers alive", status)
    check(m and m.group(1) == m.group(2) and int(m.group(1)) > 0, "STATUS=%r" % status)
    log = unit_messages(c, "p256signd.service")
    check(re.search(r"ready: %s signers passed the self-test, 3 key\(s\)" % m.group(2), log),
          "no self-test before READY in the journal:\n" + log[-2000:])
    check(c.show("p256signd.service", "Type") == "notify", "not Type=notify")
    print("status: " + status)


def reload_under_load(c):
    before = daemon_point(c, "load")
    load = start_load(c, 4, 8)
    time.sleep(1)        # the load is under way (not a measurement)
    genkey(c, LOAD_KEY, "p256sign")     # a new key on disk, renamed into place
    for _ in range(3):
        c.run(["systemctl", "reload", "p256signd.service"])
    time.sleep(1)
    totals = end_load(c, load)
    print("reload under load: %s" % json.dumps(totals))
    check(totals["signed"] > 0 and not totals["errors"] and totals["broken_connections"] == 0,
          "requests failed across the reloads: %s" % totals)
    after = daemon_point(c, "load")
    check(after != before and after == point_of(c, LOAD_KEY),
          "the key replaced on disk is not the one in use after the reload")
    check(c.show("p256signd.service", "NRestarts") == "0", "the reload restarted the daemon")


def security(c):
    out = c.run(["systemd-analyze", "security", "--no-pager", "p256signd.service"]).stdout
    m = re.search(r"Overall exposure level for p256signd\.service: ([0-9.]+)", out)
    check(m, "no exposure level:\n" + out[-1000:])
    print("systemd-analyze security: %s" % m.group(1))
    check(float(m.group(1)) <= 0.4, "exposure %s > 0.4" % m.group(1))


def journald(c):
    """journald's limit lowered to 1,000 messages per 30 s (journald scales it up with the free
    space, here to about 3,000; the default 10,000 would be about 30,000, more than this test
    can sign in 30 s), proven in force by a unit of its own whose 12,000 lines are cut short;
    then 12,000 requests at once: every record of the file is an entry, with its fields, none
    suppressed."""
    c.run(["mkdir", "-p", "/etc/systemd/journald.conf.d"])
    c.write("/etc/systemd/journald.conf.d/rate-limit.conf",
            "[Journal]\nRateLimitIntervalSec=30s\nRateLimitBurst=1000\n")
    c.run(["systemctl", "restart", "systemd-journald.service"])
    # The unit's own standard output: the stream's header names the unit to journald (a
    # stream of a process's own is known by its pid, which may be a reused one's).
    c.run(["systemd-run", "--wait", "--quiet", "--collect", "--unit=burst-control", "sh", "-c",
           "seq 12000"], timeout=120)
    c.run(["journalctl", "--sync"])
    kept = sum(1 for line in c.run(["journalctl", "--no-pager", "-o", "cat", "-u",
                                    "burst-control.service"]).stdout.splitlines()
               if line.isdigit())
    check(0 < kept < 12000, "journald's limit did not hold back the control unit: %d of 12000"
          % kept)
    first = len(records(c)) + 1
    totals = end_load(c, start_load(c, 4, 8, 12000), stop=False)
    check(totals["signed"] >= 12000 and not totals["errors"], "the burst: %s" % totals)
    c.run(["p256signctl", "ping"], user="tester")       # the last record written after the burst
    in_file = {r["seq"]: r for r in records(c) if r["seq"] >= first}
    entries = {}
    for e in journal(c, "-u", "p256signd.service", "--output-fields=P256SIGN_SEQ,P256SIGN_TYPE,"
                     "P256SIGN_OP,P256SIGN_RESULT,P256SIGN_KEY,P256SIGN_PEER_UID"):
        if "P256SIGN_SEQ" in e and int(e["P256SIGN_SEQ"]) >= first:
            entries[int(e["P256SIGN_SEQ"])] = e
    check(len(in_file) > 12000, "%d records in the file" % len(in_file))
    missing = sorted(set(in_file) - set(entries))
    check(not missing, "%d records not in the journal, first seq %s" % (len(missing),
                                                                        missing[:5]))
    tester_uid = c.run(["id", "-u", "tester"]).stdout.strip()
    for seq, r in in_file.items():
        e = entries[seq]
        check(e["P256SIGN_TYPE"] == r["type"], "seq %d: type %s" % (seq, e["P256SIGN_TYPE"]))
        if r["type"] == "request":
            check(e["P256SIGN_OP"] == r["op"] and e["P256SIGN_RESULT"] == r["result"] and
                  e["P256SIGN_PEER_UID"] == tester_uid, "seq %d: entry %s" % (seq, e))
    print("journald: the limit kept %d of 12,000 lines of a unit; %d audit records, %d entries"
          % (kept, len(in_file), len(entries)))


def watchdog(c):
    """WatchdogSec=2s (TimeoutAbortSec=2s: a stopped process takes its SIGABRT only when woken)
    by a drop-in; the parent stopped with SIGSTOP under load."""
    c.write(DROPINS + "/watchdog.conf", "[Service]\nWatchdogSec=2s\nTimeoutAbortSec=2s\n")
    c.run(["systemctl", "daemon-reload"])
    c.run(["systemctl", "restart", "p256signd.service"])
    restarts = int(c.show("p256signd.service", "NRestarts"))
    main = c.show("p256signd.service", "MainPID")
    load = start_load(c, 4, 8)
    time.sleep(1)
    c.run(["kill", "-STOP", main])
    wait_until("no restart after the watchdog",
               lambda: int(c.show("p256signd.service", "NRestarts")) > restarts and
               c.show("p256signd.service", "ActiveState") == "active", 60)
    c.run(["p256signctl", "ping"], user="tester")
    time.sleep(1)
    totals = end_load(c, load)
    print("watchdog: %s" % json.dumps(totals))
    check(c.show("p256signd.service", "MainPID") != main, "the same daemon")
    check("Failed with result 'watchdog'" in unit_messages(c, "p256signd.service"),
          "the unit did not fail with Result=watchdog")
    # Failures bounded: the connections open at the stop, each failed once; none after.
    check(totals["signed"] > 0 and totals["broken_connections"] <= 4 and
          sum(totals["errors"].values()) == 0, "the load across the restart: %s" % totals)
    c.run(["rm", DROPINS + "/watchdog.conf"])
    c.run(["systemctl", "daemon-reload"])
    c.run(["systemctl", "restart", "p256signd.service"])
    verify_audit(c, [AUDIT])


def verify_audit(c, files):
    """p256signctl audit-verify on the files: intact, one chain. The live file's records after
    its last checkpoint are not sealed yet: status 3 (docs/audit.md), not 0."""
    c.run(["sh", "-ec", "openssl pkey -in /etc/p256sign/keys/audit.key -pubout "
           "-out /run/audit.pub"])
    r = c.run(["p256signctl", "audit-verify"] + files + ["--pubkey", "/run/audit.pub"],
              check=False)
    check(r.returncode in (0, 3) and r.stdout.startswith("intact: %d file" % len(files)),
          "audit-verify %s: exit %d\n%s%s" % (files, r.returncode, r.stdout, r.stderr))
    print("audit-verify: " + r.stdout.splitlines()[0])


def encrypted_credential(c):
    """The web key sealed with systemd-creds (the host key: no TPM here), its plaintext file
    deleted, the unit's LoadCredential= for it replaced by LoadCredentialEncrypted=."""
    c.run(["install", "-d", "-m", "0700", "/etc/credstore.encrypted"])
    c.run(["systemd-creds", "encrypt", "--name=web.key", "/etc/p256sign/keys/web.key",
           "/etc/credstore.encrypted/web.key"])
    point = point_of(c, "/etc/p256sign/keys/web.key")
    c.run(["rm", "/etc/p256sign/keys/web.key"])
    sealed = c.read("/etc/credstore.encrypted/web.key")
    check("PRIVATE KEY" not in sealed, "the credential is not encrypted")
    c.write(DROPINS + "/web-key.conf", "[Service]\nLoadCredential=\n"
            "LoadCredential=audit.key:/etc/p256sign/keys/audit.key\n"
            "LoadCredentialEncrypted=web.key:/etc/credstore.encrypted/web.key\n")
    c.run(["systemctl", "daemon-reload"])
    c.run(["systemctl", "restart", "p256signd.service"])
    check(daemon_point(c, "web") == point, "the encrypted credential's key is not in use")
    c.run(["test", "!", "-e", "/etc/p256sign/keys/web.key"])


NGINX_SITE = """server {
    listen 127.0.0.1:8443 ssl;
    server_name localhost;
    ssl_certificate /etc/nginx/p256sign-web.pem;
    ssl_certificate_key /etc/nginx/p256sign-web.key-ref.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256;
    ssl_session_tickets off;
    ssl_session_cache off;
    location / { return 200 "ok\\n"; }
}
"""
OPENSSL_CNF = """openssl_conf = openssl_init
[openssl_init]
providers = provider_sect
[provider_sect]
default = default_sect
p256sign = p256sign_sect
[default_sect]
activate = 1
[p256sign_sect]
module = p256sign.so
timeout_ms = 2000
activate = 1
"""


def nginx(c):
    """docs/tls.md's deployment: www-data in the p256sign group, an OPENSSL_CONF drop-in, the
    web key (purpose tls-server; the encrypted credential) as a key-reference file."""
    ref = c.run(["p256signctl", "export-key-ref", "web"], user="tester").stdout
    c.write("/etc/nginx/p256sign-web.key-ref.pem", ref)
    c.write("/etc/ssl/p256sign.cnf", OPENSSL_CNF)
    c.write("/etc/nginx/sites-enabled/p256sign", NGINX_SITE)
    c.run(["mkdir", "-p", "/etc/systemd/system/nginx.service.d"])
    c.write("/etc/systemd/system/nginx.service.d/p256sign.conf",
            "[Service]\nEnvironment=OPENSSL_CONF=/etc/ssl/p256sign.cnf\n")
    c.run(["usermod", "-a", "-G", "p256sign", "www-data"])
    c.run(["systemctl", "daemon-reload"])
    c.run(["systemctl", "restart", "nginx.service"])
    first = len(records(c)) + 1
    for version, args in (("1.3", ["--tlsv1.3"]),
                          ("1.2", ["--tlsv1.2", "--tls-max", "1.2"])):
        r = c.run(["curl", "-sS", "-v", "--cacert", "/etc/nginx/p256sign-web.pem"] + args +
                  ["https://localhost:8443/"], check=False)
        check(r.returncode == 0 and r.stdout == "ok\n" and
              "SSL connection using TLSv%s" % version in r.stderr,
              "curl TLS %s: exit %d %s" % (version, r.returncode, r.stderr[-1500:]))
    tls = [r for r in records(c) if r["seq"] >= first and r.get("op") == "sign-tls"]
    kinds = sorted(r["tls"]["kind"] for r in tls)
    check(kinds == ["tls12", "tls13"], "sign-tls records of the two handshakes: %s" % tls)
    # The workers (www-data), each through a connection of its own.
    www = int(c.run(["id", "-u", "www-data"]).stdout)
    check(all(r["result"] == "ok" and r["key"] == "web" and r["peer"]["uid"] == www
              for r in tls), "the records: %s" % tls)


def logrotate(c):
    c.run(["logrotate", "-f", "/etc/logrotate.d/p256signd"])
    c.run(["p256signctl", "ping"], user="tester")
    reopened = records(c)
    check(reopened[0]["type"] == "open" and reopened[0]["reason"] == "reopen",
          "the new audit file does not begin with a reopen record")
    verify_audit(c, [AUDIT + ".1", AUDIT])


def metrics(c):
    """The metrics timer of p256signctl, installed and not enabled; enabled, it writes
    p256sign.prom into node_exporter's textfile directory, atomically, and Debian's
    prometheus-node-exporter serves the p256sign_ series with the textfile read without error."""
    prom = "/var/lib/prometheus/node-exporter/p256sign.prom"
    check(c.run(["systemctl", "is-enabled", "p256sign-metrics.timer"],
                check=False).stdout.strip() == "disabled", "the metrics timer is enabled by the install")
    wait_until("node_exporter is not running",
               lambda: c.show("prometheus-node-exporter.service", "ActiveState") == "active")
    c.run(["systemctl", "enable", "--now", "p256sign-metrics.timer"])
    c.run(["systemctl", "start", "p256sign-metrics.service"])
    check(c.show("p256sign-metrics.service", "Result") == "success", "the metrics service failed:\n" +
          unit_messages(c, "p256sign-metrics.service")[-1500:])
    check(c.run(["stat", "-c", "%a %U", prom]).stdout.split() == ["644", "root"], prom)
    check(c.run(["sh", "-c", "ls /var/lib/prometheus/node-exporter"]).stdout.split() ==
          ["p256sign.prom"], "a temporary file is left beside p256sign.prom")
    # The timer runs the service again by itself (every 15 s): the file is replaced.
    first = c.run(["stat", "-c", "%i %Y", prom]).stdout
    wait_until("the timer did not write the metrics again",
               lambda: c.run(["stat", "-c", "%i %Y", prom]).stdout != first, 40)
    page = c.run(["curl", "-sS", "http://127.0.0.1:9100/metrics"]).stdout
    for want in (r"p256sign_up 1", r'p256sign_key_signatures_total\{key="web"\} \d+',
                 r'p256sign_request_duration_seconds_bucket\{op="ping",le="\+Inf"\} [1-9]',
                 r'p256sign_request_duration_seconds_count\{op="ping"\} [1-9]',
                 r"p256sign_audit_ok 1", r'p256sign_build_info\{ctl_version="[^"]+",version='):
        check(re.search("^" + want, page, re.M), "node_exporter does not serve %s:\n%s" %
              (want, "\n".join(ln for ln in page.splitlines() if "p256sign_" in ln)[-3000:]))
    # node_exporter read the file without error (an unparsable one is an error, not skipped).
    check(re.search(r"^node_textfile_scrape_error 0$", page, re.M), "the textfile collector failed")
    print("metrics: %d p256sign_ series served by node_exporter" %
          len([ln for ln in page.splitlines() if ln.startswith("p256sign_")]))
    score = c.run(["systemd-analyze", "security", "p256sign-metrics.service"]).stdout
    print("metrics: " + score.strip().splitlines()[-1])
    # Left off, so that it does not start the daemon again while it is removed.
    c.run(["systemctl", "disable", "--now", "p256sign-metrics.timer"])


REMOTE = "/var/log/journal/remote"
REMOTE_HTTP = """[Service]
ExecStart=
ExecStart=/lib/systemd/systemd-journal-remote --listen-http=-3 --output=%s/
""" % REMOTE


def remote_journal(c, *args):
    """The collector's journal of the daemon's entries, as journalctl -o json writes it."""
    return c.run(["journalctl", "--no-pager", "-o", "json", "-D", REMOTE,
                  "_SYSTEMD_UNIT=p256signd.service"] + list(args), timeout=300).stdout


def verify_journal(c, text, *args):
    c.write("/run/audit-journal.json", text)
    t0 = time.monotonic()
    r = c.run(["p256signctl", "audit-verify", "--journal", "/run/audit-journal.json",
               "--pubkey", "/run/audit.pub"] + list(args), check=False)
    return r, time.monotonic() - t0


def journal_remote(c):
    """docs/audit.md, "Collecting the trail of many hosts": systemd-journal-remote listening on
    loopback (HTTP on its socket, port 19532), systemd-journal-upload sending it this host's
    journal. A run of the daemon with a load of 10,000 signatures, stopped: its entries on the
    collector verify (the chain continues the earlier runs', and ends with the stop
    checkpoint); a copy with one field changed fails at the record after it; the whole trail
    since the install verifies too."""
    c.run(["mkdir", "-p", "/etc/systemd/system/systemd-journal-remote.service.d"])
    c.write("/etc/systemd/system/systemd-journal-remote.service.d/http.conf", REMOTE_HTTP)
    c.write("/etc/systemd/journal-upload.conf", "[Upload]\nURL=http://127.0.0.1:19532\n")
    c.run(["systemctl", "daemon-reload"])
    c.run(["systemctl", "start", "systemd-journal-remote.socket"])
    c.run(["systemctl", "restart", "p256signd.service"])
    invocation = c.show("p256signd.service", "InvocationID")
    totals = end_load(c, start_load(c, 4, 8, 10000), stop=False)
    check(totals["signed"] >= 10000 and not totals["errors"], "the load: %s" % totals)
    c.run(["systemctl", "stop", "p256signd.service"])
    last = records(c)[-1]
    check(last["type"] == "checkpoint" and last["reason"] == "stop", "no stop checkpoint")
    c.run(["journalctl", "--sync"])
    c.run(["systemctl", "start", "systemd-journal-upload.service"])
    this_run = "_SYSTEMD_INVOCATION_ID=" + invocation
    wait_until("the stop checkpoint did not reach the collector", lambda: '"P256SIGN_SEQ":"%d"'
               % last["seq"] in c.run(["sh", "-c", "journalctl -o json -D %s %s "
                                       "P256SIGN_TYPE=checkpoint 2>/dev/null | tail -n 3"
                                       % (REMOTE, this_run)]).stdout, 120)
    text = remote_journal(c, this_run)
    r, seconds = verify_journal(c, text)
    n = sum(1 for line in text.splitlines() if '"P256SIGN_TYPE"' in line)
    check(r.returncode == 0 and r.stdout.startswith("intact: the journal of host ") and
          "%d records" % n in r.stdout and "ends with a stop checkpoint" in r.stdout and
          "the chain continues an earlier file not given" in r.stdout,
          "audit-verify --journal on the collector: exit %d\n%s%s" % (r.returncode, r.stdout,
                                                                     r.stderr))
    print("journal-remote: %d records of one run verified in %.2f s (p256signctl inside the "
          "container, nsenter included)" % (n, seconds))
    entries = [json.loads(line) for line in text.splitlines()]
    i = next(k for k, e in enumerate(entries) if e.get("P256SIGN_OP") == "sign")
    entries[i]["P256SIGN_PEER_UID"] = "0"
    r, _ = verify_journal(c, "".join(json.dumps(e) + "\n" for e in entries))
    check(r.returncode == 1 and "seq %d: prev is not the SHA-256 of the line before"
          % (int(entries[i]["P256SIGN_SEQ"]) + 1) in r.stdout,
          "a tampered copy: exit %d\n%s" % (r.returncode, r.stdout))
    # The whole trail, every run since the install (the watchdog's kill among them, which
    # may have left records that journald got and the file did not: superseded), as far back
    # as the journal keeps it.
    text = remote_journal(c)
    r, seconds = verify_journal(c, text)
    check(r.returncode == 0 and "ends with a stop checkpoint" in r.stdout,
          "audit-verify --journal on the whole trail: exit %d\n%s%s" % (r.returncode, r.stdout,
                                                                        r.stderr))
    print("journal-remote: the whole trail, %d entries, verified in %.2f s: %s"
          % (text.count("\n"), seconds, " / ".join(r.stdout.splitlines()[:1] +
                                                    [l for l in r.stdout.splitlines()
                                                     if "superseded" in l])))


def remove_and_purge(c):
    kept = ["/etc/credstore.encrypted/web.key", "/etc/p256sign/keys/audit.key",
            "/etc/p256sign/p256signd.json", AUDIT, AUDIT + ".1"]
    apt = ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "-y", "-q"]
    c.run(apt + ["remove", "p256signd"])
    check(c.run(["pgrep", "-x", "p256signd"], check=False).returncode == 1,
          "the daemon runs after apt-get remove")
    check(c.show("p256signd.socket", "ActiveState") == "inactive", "the socket after remove")
    c.run(["test", "!", "-e", "/usr/bin/p256signd"])
    c.run(["test", "!", "-e", SOCK])
    c.run(["test", "-f", "/etc/logrotate.d/p256signd"])     # a conffile: kept until purge
    for f in kept:
        c.run(["test", "-s", f])
    c.run(apt + ["purge", "p256signd"])
    c.run(["test", "!", "-e", "/etc/logrotate.d/p256signd"])
    c.run(["test", "!", "-e", "/etc/systemd/system/sockets.target.wants/p256signd.socket"])
    for f in kept:
        c.run(["test", "-s", f])
    c.run(["getent", "passwd", "p256sign"])


def main():
    # meson's SIGTERM at a timeout: exit through atexit, which stops the container.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("FAIL: terminated"))
    debs = timed("packages (debs.sh)", host, [os.path.join(here, "debs.sh"), build])
    cache = os.environ.get("P256SIGN_TEST_CACHE", "/var/cache/p256sign-test")
    rootfs = timed("root file system (rootfs.sh)", host, [os.path.join(here, "rootfs.sh"),
                                                          cache])
    log = tempfile.NamedTemporaryFile(prefix="p256sign-nspawn-", suffix=".log", delete=False)
    c = Container(rootfs, "p256sign-test-%d" % os.getpid(),
                  [(debs, "/srv/debs"), (os.path.join(top, "tests"), "/srv/tests")], log.name)
    try:
        timed("boot", c.boot)
        for name, fn in (("install", install), ("configure", configure),
                         ("activation", activation), ("reload", reload_under_load),
                         ("security", security), ("journald", journald),
                         ("watchdog", watchdog), ("encrypted credential", encrypted_credential),
                         ("nginx", nginx), ("logrotate", logrotate), ("metrics", metrics),
                         ("journal-remote", journal_remote),
                         ("remove and purge", remove_and_purge)):
            timed(name, fn, c, *([debs] if fn is install else []))
    except SystemExit:
        print(c.log_text()[-1500:], file=sys.stderr)
        raise
    finally:
        try:
            c.stop()
        finally:
            os.unlink(log.name)     # also when stopping the container fails
    print("time: %-30s %6.1f s" % ("total", sum(s for _, s in times)))


main()
print("ok")
