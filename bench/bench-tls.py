#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""TLS handshakes with the key in a file against the key in p256signd (docs/performance.md,
"TLS handshakes"): Debian 12's nginx (one worker) with its key file, and through the provider
with a key-reference file whose key has verify_after_sign on and off; haproxy with
ssl-mode-async (one thread) with its key file and through the provider. All servers run at once
on 127.0.0.1; bench-handshake alternates between them round by round, so load from elsewhere on
the machine falls on all alike. Prints bench-handshake's JSON reports (throughput with
--parallel clients, latency with one) and, against the key-file server of the same kind, the
median of the rounds' handshakes/s ratios and the p50 latency added at one client; for the
servers through the provider, the daemon's CPU per handshake less the in-process sign_us (its key
without verify_after_sign) or sign_checked_us (with it), both from bench-sign run just before and
after the handshakes (the lower of the two); and, before the handshakes, the wake-ups per second
of each of the daemon's processes over --idle-seconds with no client (/proc/PID/status).
Usage (from the source tree, a build in BUILD):
  python3 bench/bench-tls.py BUILD [--seconds S] [--rounds R] [--parallel P] [--busy-poll-us N]
                             [--daemon PATH] [--idle-seconds S]
--daemon runs another p256signd binary (an older build) with this build's provider and benches.
Run it under `taskset -c 0` to put every process on one CPU (no cross-CPU wake-up)."""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "provider"))
import providerlib  # noqa: E402
from daemonlib import switches  # noqa: E402  (providerlib put tests/daemon on the path)
from providerlib import (daemon_with_key, export_key_ref, free_port, path,  # noqa: E402
                         run_handshakes, start_haproxy, start_nginx, stop_process,
                         write_openssl_cnf)
from daemonlib import check, openssl_key  # noqa: E402


def instance_dir(name):
    d = path(name)
    os.mkdir(d)
    os.chmod(d, 0o755)
    return d


def idle_wakeups(d, seconds):
    """Wake-ups per second of the daemon's parent, key-holder and signers with no client."""
    procs = {"parent": d.proc.pid, "keyholder": d.keyholder()}
    for i, pid in enumerate(d.workers()):
        procs["signer%d" % i] = pid
    before = {k: switches(p) for k, p in procs.items()}
    time.sleep(seconds)
    return {k: round((switches(p) - before[k]) / seconds, 2) for k, p in procs.items()}


def sign_times(build):
    """sign_us and sign_checked_us of bench-sign, in process."""
    out = subprocess.run([os.path.join(build, "bench", "bench-sign"), "--rounds", "100",
                          "--json"], check=True, capture_output=True, text=True).stdout
    r = json.loads(out)
    return r["sign_us"], r["sign_checked_us"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--seconds", type=float, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--parallel", type=int, default=4)
    ap.add_argument("--busy-poll-us", type=int, help="the daemon's busy_poll_us (default: its own)")
    ap.add_argument("--daemon", help="the p256signd binary (default: BUILD's)")
    ap.add_argument("--idle-seconds", type=float, default=10)
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    providerlib.init(os.path.join(build, "client", "ctl", "p256signctl"),
                     os.path.join(build, "client", "provider"), "")
    os.chmod(providerlib.tmp, 0o755)
    bench = os.path.join(build, "bench", "bench-handshake")
    # Key "web" (verify_after_sign on, the default) and "fast" (off), both tls-server keys;
    # the key-file servers use web's file. One certificate per key, both in the CA file.
    extra = {} if a.busy_poll_us is None else {"busy_poll_us": a.busy_poll_us}
    fast_key = path("fast.key")
    openssl_key(fast_key)
    d, web_ref = daemon_with_key(a.daemon or os.path.join(build, "daemon", "p256signd"),
                                 allow={"users": ["nobody"]}, socket_mode="0666", **extra,
                                 more_keys=[{"name": "fast", "file": fast_key,
                                              "purpose": "tls-server",
                                              "verify_after_sign": False}])
    fast_ref = export_key_ref("fast", "fast.key-ref.pem", env_socket=d.socket)
    providerlib.ok("req", "-x509", "-new", "-key", fast_key, "-subj", "/CN=localhost",
                   "-addext", "subjectAltName=DNS:localhost", "-days", "2",
                   "-out", path("fast.pem"))
    with open(path("ca.pem"), "wb") as out:
        for part in ("web.pem", "fast.pem"):
            with open(path(part), "rb") as f:
                out.write(f.read())
    env = write_openssl_cnf()
    nginx, haproxy = "/usr/sbin/nginx", "/usr/sbin/haproxy"
    servers, targets = [], []

    def add(name, proc, port):
        servers.append((proc, signal.SIGQUIT if "nginx" in name else signal.SIGUSR1))
        targets.append((name, port, proc.pid))

    for name, cert, key in (("nginx-keyfile", "web.pem", "web.key"),
                            ("nginx-p256sign-verify", "web.pem", web_ref),
                            ("nginx-p256sign", "fast.pem", fast_ref)):
        port = free_port()
        add(name, start_nginx(nginx, instance_dir(name), port, path(cert), path(key), env,
                              workers=1, access_log=False), port)
    for name, parts in (("haproxy-keyfile", ("web.pem", "web.key")),
                        ("haproxy-p256sign-async", ("fast.pem", fast_ref))):
        port = free_port()
        add(name, start_haproxy(haproxy, instance_dir(name), port,
                                [path(p) for p in parts], env), port)
    try:
        time.sleep(2)   # what the start left due (a status update, a ping) is not idle time
        idle = idle_wakeups(d, a.idle_seconds)
        print(json.dumps({"idle_wakeups_per_s": idle, "seconds": a.idle_seconds}))
        sign = [sign_times(build)]
        reports = {}
        for kind, parallel in (("throughput", a.parallel), ("latency", 1)):
            rc, r, err = run_handshakes(bench, targets, "--daemon", str(d.proc.pid),
                                        "--cafile", path("ca.pem"), "--seconds",
                                        str(a.seconds), "--rounds", str(a.rounds),
                                        "--parallel", str(parallel))
            check(rc == 0, "bench-handshake: exit %d: %s %s" % (rc, r, err))
            reports[kind] = r
            print(json.dumps(r))
        sign.append(sign_times(build))
        sign_us, checked_us = min(x[0] for x in sign), min(x[1] for x in sign)
        summary = {"sign_us": sign_us, "sign_checked_us": checked_us,
                   "idle_wakeups_per_s": idle}
        for kind in ("throughput", "latency"):
            by = {t["name"]: t for t in reports[kind]["targets"]}
            for name, t in by.items():
                base = by[name.split("-")[0] + "-keyfile"]
                summary.setdefault(name, {})
                if kind == "throughput":
                    # Round i of every server ran close together: the median of the rounds'
                    # ratios follows load from elsewhere better than a ratio of medians.
                    ratios = sorted(x / y for x, y in zip(t["rounds_handshakes_per_s"],
                                                          base["rounds_handshakes_per_s"]))
                    summary[name]["rate_ratio"] = round(ratios[len(ratios) // 2], 3)
                    summary[name]["server_cpu_us"] = t["server_cpu_us_per_handshake"]
                    summary[name]["daemon_cpu_us"] = t["daemon_cpu_us_per_handshake"]
                    if "p256sign" in name:
                        yard = checked_us if name.endswith("-verify") else sign_us
                        summary[name]["daemon_over_sign_us"] = round(
                            t["daemon_cpu_us_per_handshake"] - yard, 1)
                else:
                    summary[name]["p50_added_us"] = round(t["p50_us"] - base["p50_us"], 1)
        print(json.dumps({"summary": summary}, indent=1))
    finally:
        for proc, sig in servers:
            stop_process(proc, sig)
        d.stop()
        shutil.rmtree(providerlib.tmp, ignore_errors=True)


main()
