#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""p256signctl metrics against the real p256signd with 4 keys (one with a certificate) and an audit
file: the output passes
`promtool check metrics`, every family has HELP and TYPE, and the values are STATUS's and
LIST_KEYS's (taken right after, with nothing in between but the metrics run's own connection);
the histograms are cumulative and end in +Inf at their count; --output replaces the file
atomically (no temporary file left, mode 0644); an unreachable daemon gives p256sign_up 0 and
exit 1.
Usage: test_ctl_metrics.py P256SIGND P256SIGNCTL PROMTOOL"""
import calendar
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "daemon"))
from daemonlib import (Daemon, RFC_DIGEST, RFC_KEY, SIGN, STATUS, LIST_KEYS, check,  # noqa: E402
                       frame, key_name, openssl_key, scratch_dir, sign_req)

daemon_bin, ctl, promtool = sys.argv[1:4]
tmp = scratch_dir("p256signctl-metrics-")
SAMPLE = re.compile(r'^([a-z_0-9]+)(?:\{(.*)\})? (\S+)$')


def metrics(sock, *args):
    p = subprocess.run([ctl, "--socket", sock, "metrics", *args], capture_output=True, text=True,
                       timeout=30)
    return p.returncode, p.stdout, p.stderr


def parse(text):
    """{(name, frozenset of label pairs): value} and {family: type}, checking HELP/TYPE first."""
    samples, types, helped = {}, {}, set()
    for line in text.splitlines():
        if line.startswith("# HELP "):
            helped.add(line.split()[2])
            continue
        if line.startswith("# TYPE "):
            _, _, name, type_ = line.split()
            check(name in helped and name not in types, "TYPE after HELP, once: %s" % line)
            types[name] = type_
            continue
        m = SAMPLE.match(line)
        check(m, "a sample line: %r" % line)
        name, labels, value = m.groups()
        family = re.sub(r"_(bucket|sum|count)$", "", name) if name not in types else name
        check(family in types, "%s: a sample of a declared family" % name)
        pairs = frozenset(re.findall(r'([a-z_]+)="((?:[^"\\]|\\.)*)"', labels or ""))
        samples[(name, pairs)] = float(value)
    return samples, types


def get(samples, name, **labels):
    key = (name, frozenset(labels.items()))
    check(key in samples, "no sample %s %s" % (name, labels))
    return samples[key]


def promtool_check(text):
    p = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True)
    check(p.returncode == 0 and p.stdout == "" and p.stderr == "",
          "promtool check metrics: %d %s %s" % (p.returncode, p.stdout, p.stderr))


def start():
    keys = [{"name": "rfc", "file": RFC_KEY, "nonce": "deterministic"}]
    for name in ("k1", "k2"):
        path = os.path.join(tmp, name + ".pem")
        openssl_key(path)
        keys.append({"name": name, "file": path})
    # k1 with a certificate, whose notAfter LIST_KEYS reports.
    cert = os.path.join(tmp, "k1.crt")
    subprocess.run(["openssl", "req", "-new", "-x509", "-key", keys[1]["file"], "-subj", "/CN=k1",
                    "-days", "30", "-out", cert], check=True, stderr=subprocess.DEVNULL)
    keys[1]["certificate"] = cert
    audit_key = os.path.join(tmp, "audit.pem")
    openssl_key(audit_key)
    keys.append({"name": "audit", "file": audit_key, "purpose": "audit"})
    audit = {"journal": False, "file": os.path.join(tmp, "audit.log"), "key": "audit"}
    return Daemon(daemon_bin, keys=keys, extra={"audit": audit})


def traffic(d):
    """3 signatures with rfc, 1 with k1, an unknown key, a frame of unknown type."""
    c = d.client()
    for i, key in enumerate(("rfc", "rfc", "rfc", "k1")):
        c.call(sign_req(i + 1, key_name(key), RFC_DIGEST)).ok(SIGN)
    c.expect_error(sign_req(9, key_name("nope"), RFC_DIGEST), 4)
    c.expect_error(frame(0x55, 10), 3)
    c.close()


def against_status(d, samples, types):
    c = d.client()
    st = c.call(frame(STATUS, 1)).ok(STATUS).json()
    keys = c.call(frame(LIST_KEYS, 2)).ok(LIST_KEYS).json()["keys"]
    c.close()
    # The metrics run made one STATUS and one LIST_KEYS; this STATUS does not count itself.
    check(get(samples, "p256sign_up") == 1, "up")
    check(get(samples, "p256sign_build_info", version=st["version"],
              ctl_version=st["version"]) == 1, "build_info")
    for member, name in (("workers", "p256sign_signers"),
                         ("workers_alive", "p256sign_signers_alive"),
                         ("workers_replaced", "p256sign_signers_replaced_total"),
                         ("workers_hung", "p256sign_signers_hung_total"),
                         ("requests_resent", "p256sign_requests_resent_total"),
                         ("key_set", "p256sign_key_set_generation"),
                         ("signatures", "p256sign_signatures_total")):
        check(get(samples, name) == st[member], "%s: %s" % (name, st[member]))
    check(get(samples, "p256sign_replies_total") == st["requests"] - 2, "replies: %s" % st)
    check(get(samples, "p256sign_connections_accepted_total") == st["connections_total"] - 1,
          "connections accepted: %s" % st)
    check(get(samples, "p256sign_signatures_total") == 4, "4 signatures")
    for tag, n in st["errors"].items():
        check(get(samples, "p256sign_errors_total", tag=tag) == n, "errors %s" % tag)
    check(get(samples, "p256sign_errors_total", tag="unknown-key") == 1, "one unknown-key")
    a = st["audit"]
    check(get(samples, "p256sign_audit_configured") == 1 and get(samples, "p256sign_audit_ok") == 1,
          "audit state: %s" % a)
    check(get(samples, "p256sign_audit_lost_total") == a["lost"] == 0, "audit lost")
    check(get(samples, "p256sign_audit_checkpoints_total") == a["checkpoints"], "checkpoints")
    check(0 < get(samples, "p256sign_audit_records_total") <= a["records"], "records")
    for k in keys:
        check(get(samples, "p256sign_key_signatures_total", key=k["name"]) == k["signatures"],
              "signatures of %s" % k["name"])
        check(get(samples, "p256sign_key_info", key=k["name"], key_id=k["key_id"],
                  nonce=k["nonce"], purpose=k["purpose"]) == 1, "key_info %s" % k["name"])
    check(get(samples, "p256sign_key_signatures_total", key="rfc") == 3, "rfc signed 3")
    # The certificate's notAfter, as openssl reads it; no series for the keys without one.
    end = subprocess.run(["openssl", "x509", "-in", os.path.join(tmp, "k1.crt"), "-noout",
                          "-enddate"], capture_output=True, text=True, check=True).stdout
    want = calendar.timegm(time.strptime(end.strip().split("=", 1)[1], "%b %d %H:%M:%S %Y GMT"))
    by_name = {k["name"]: k for k in keys}
    check(by_name["k1"]["certificate_not_after"] == want, "LIST_KEYS not-after: %s" % by_name)
    check(all("certificate_not_after" not in by_name[k] for k in ("rfc", "k2", "audit")),
          "not-after of a key without a certificate: %s" % by_name)
    check(get(samples, "p256sign_key_certificate_not_after_seconds", key="k1") == want,
          "the not-after gauge")
    check([k for k in samples if k[0] == "p256sign_key_certificate_not_after_seconds"] ==
          [("p256sign_key_certificate_not_after_seconds", frozenset({("key", "k1")}))],
          "one not-after series")
    # Answers by op and result: 4 signatures and an unknown key; a frame without a known type.
    check(get(samples, "p256sign_requests_total", op="sign", result="ok") == 4, "sign ok")
    check(get(samples, "p256sign_requests_total", op="sign", result="error") == 1, "sign error")
    check(get(samples, "p256sign_requests_total", op="frame", result="error") == 1, "frame")
    check(types["p256sign_request_duration_seconds"] == "histogram", "a histogram")
    bounds = [b / 1e6 for b in st["latency"]["bounds_us"]] + [float("inf")]
    for op, o in st["latency"]["ops"].items():
        counts = [get(samples, "p256sign_request_duration_seconds_bucket", op=op,
                      le=("+Inf" if b == float("inf") else ("%.6f" % b).rstrip("0").rstrip(".")))
                  for b in bounds]
        check(counts == sorted(counts), "%s buckets are cumulative: %s" % (op, counts))
        total = get(samples, "p256sign_request_duration_seconds_count", op=op)
        check(counts[-1] == total, "%s: +Inf is the count" % op)
        if op not in ("status", "list-keys"):     # the metrics run's own are not in st yet
            check(total == sum(o["buckets"]), "%s count: %s" % (op, o))
            check(abs(get(samples, "p256sign_request_duration_seconds_sum", op=op) -
                      o["sum_us"] / 1e6) < 1e-9, "%s sum" % op)
        ok = get(samples, "p256sign_requests_total", op=op, result="ok")
        check(ok + get(samples, "p256sign_requests_total", op=op, result="error") == total,
              "%s: ok and error add up to the count" % op)


def output_file(d):
    out = os.path.join(tmp, "textfile", "p256sign.prom")
    os.mkdir(os.path.dirname(out))
    with open(out, "w") as f:
        f.write("old\n")
    rc, text, err = metrics(d.socket, "--output", out)
    check(rc == 0 and text == "" and err == "", "--output: %d %r %r" % (rc, text, err))
    check(os.listdir(os.path.dirname(out)) == ["p256sign.prom"], "no temporary file left")
    check(os.stat(out).st_mode & 0o777 == 0o644, "mode 0644")
    with open(out) as f:
        written = f.read()
    check(written.startswith("# HELP p256sign_up") and "p256sign_up 1\n" in written, "written")
    promtool_check(written)
    # A directory that cannot be written: the old file stays, the error is said.
    rc, _, err = metrics(d.socket, "--output", os.path.join(tmp, "missing", "p256sign.prom"))
    check(rc == 1 and "cannot write" in err, "--output into a missing directory: %d %r" % (rc, err))


def unreachable():
    rc, text, err = metrics(os.path.join(tmp, "no.sock"))
    check(rc == 1 and err.startswith("p256signctl: metrics:"), "unreachable: %d %r" % (rc, err))
    check("\np256sign_up 0\n" in text, "p256sign_up 0: %r" % text)
    promtool_check(text)


def main():
    d = start()
    traffic(d)
    rc, text, err = metrics(d.socket)
    check(rc == 0 and err == "", "metrics: %d %r" % (rc, err))
    promtool_check(text)
    samples, types = parse(text)
    against_status(d, samples, types)
    output_file(d)
    unreachable()
    rc, _, _ = metrics(d.socket, "--bogus")
    check(rc == 2, "usage error: exit 2")
    d.stop()
    print("ok")


main()
