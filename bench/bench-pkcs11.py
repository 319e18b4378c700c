#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""C_Sign through PKCS#11 (docs/performance.md, "PKCS#11"): the p256sign module in front of
p256signd (verify_after_sign on, the default), against p11-kit's server in front of SoftHSM2
(p11-kit-client.so, the best-known way to put a key behind a local socket), in the same run,
both with a P-256 key and CKM_ECDSA over 32-byte digests. bench-pkcs11 runs 1 and 64 processes
(one session, one connection each, as PKCS#11 callers are); the two alternate round by round,
so load from elsewhere falls on both alike. Prints each run's JSON and, per process count, the
median over the rounds of signatures/s and of the p50 latency, and their ratios. Each run also
counts the CPU time of the signing window, the callers' and the whole machine's (so the figures
hold only on an otherwise quiet machine): signatures per CPU-second, which sets the rate on a
machine whose cores the callers share with the server side.
Usage (from the source tree, a build in BUILD):
  python3 bench/bench-pkcs11.py BUILD [--seconds S] [--rounds R] [--processes 1,64]
                                 [--workers N] [--busy-poll-us N] [--only-ours]"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "daemon"))
from daemonlib import Daemon, check, openssl_key, scratch_dir  # noqa: E402

SOFTHSM = "/usr/lib/x86_64-linux-gnu/softhsm/libsofthsm2.so"
P11KIT_CLIENT = "/usr/lib/x86_64-linux-gnu/pkcs11/p11-kit-client.so"
PIN = "1234"


def softhsm_behind_p11kit(tmp):
    """A SoftHSM2 token "bench" with a P-256 key, served by `p11-kit server`; (process, env)."""
    conf = os.path.join(tmp, "softhsm2.conf")
    os.makedirs(os.path.join(tmp, "tokens"))
    with open(conf, "w") as f:
        f.write("directories.tokendir = %s\nobjectstore.backend = file\nlog.level = ERROR\n" %
                os.path.join(tmp, "tokens"))
    env = dict(os.environ, SOFTHSM2_CONF=conf)
    subprocess.run(["softhsm2-util", "--init-token", "--free", "--label", "bench", "--pin", PIN,
                    "--so-pin", PIN], env=env, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["pkcs11-tool", "--module", SOFTHSM, "--token-label", "bench", "--login",
                    "--pin", PIN, "--keypairgen", "--key-type", "EC:prime256v1", "--label", "k"],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    sock = os.path.join(tmp, "p11-kit.sock")
    proc = subprocess.Popen(["p11-kit", "server", "-f", "-n", sock, "--provider", SOFTHSM,
                             "pkcs11:token=bench"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    end = time.monotonic() + 10
    while not os.path.exists(sock):
        check(proc.poll() is None and time.monotonic() < end, "p11-kit server did not start")
        time.sleep(0.05)
    return proc, dict(os.environ, P11_KIT_SERVER_ADDRESS="unix:path=" + sock)


def run_bench(bench, module, processes, seconds, env, extra=()):
    p = subprocess.run([bench, "--module", module, "--processes", str(processes), "--seconds",
                        str(seconds), *extra], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=seconds + 120)
    check(p.returncode == 0, "bench-pkcs11 %s: %s" % (module, p.stderr.decode()))
    rep = json.loads(p.stdout)
    cpu = rep["cpu_us_per_signature"]
    rep["signatures_per_cpu_s"] = round(1e6 / cpu["machine"]) if cpu["machine"] > 0 else None
    return rep


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--processes", default="1,64")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="the daemon's signers (default: one per CPU)")
    ap.add_argument("--busy-poll-us", type=int, help="the daemon's busy_poll_us (default: its own)")
    ap.add_argument("--only-ours", action="store_true",
                    help="the p256sign module alone (no ratios): for comparing daemon settings")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    bench = os.path.join(build, "bench", "bench-pkcs11")
    module = os.path.join(build, "client", "pkcs11", "p256sign-pkcs11.so")
    tmp = scratch_dir("p256sign-bench-pkcs11-")
    os.chmod(tmp, 0o755)
    key = os.path.join(tmp, "bench.key")
    openssl_key(key)
    daemon = Daemon(os.path.join(build, "daemon", "p256signd"),
                    keys=[{"name": "bench", "file": key, "verify_after_sign": True}],
                    workers=a.workers,
                    limits={"max_connections": 1024},
                    extra=None if a.busy_poll_us is None else {"busy_poll_us": a.busy_poll_us})
    server, p11kit_env = softhsm_behind_p11kit(tmp)
    ours_env = dict(os.environ, P256SIGN_SOCKET=daemon.socket)
    results = {}
    try:
        for n in [int(x) for x in a.processes.split(",")]:
            for r in range(a.rounds):
                for name, mod, env, extra in (
                        ("p256sign", module, ours_env, ()),
                        ("p11-kit+softhsm2", P11KIT_CLIENT, p11kit_env,
                         ("--pin", PIN, "--token", "bench"))):
                    if a.only_ours and name != "p256sign":
                        continue
                    rep = run_bench(bench, mod, n, a.seconds, env, extra)
                    rep["name"] = name
                    print(json.dumps(rep), flush=True)
                    results.setdefault((name, n), []).append(rep)
    finally:
        server.terminate()
        server.wait(10)
        daemon.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    for n in sorted({k[1] for k in results}):
        ours = results[("p256sign", n)]
        if a.only_ours:
            print("%3d processes: p256sign %.0f/s, machine CPU per signature %.1f us" % (
                n, statistics.median(x["signatures_per_s"] for x in ours),
                statistics.median(x["cpu_us_per_signature"]["machine"] for x in ours)))
            continue
        theirs = results[("p11-kit+softhsm2", n)]
        rate = [statistics.median(x["signatures_per_s"] for x in v) for v in (ours, theirs)]
        p50 = [statistics.median(x["latency_us"]["p50"] for x in v) for v in (ours, theirs)]
        cpu = [statistics.median([x["signatures_per_cpu_s"] for x in v
                                  if x["signatures_per_cpu_s"] is not None] or [float("nan")])
               for v in (ours, theirs)]
        print("%3d processes: p256sign %.0f/s p50 %.1f us; p11-kit+softhsm2 %.0f/s p50 %.1f us;"
              " rate x%.2f, latency x%.2f; signatures per CPU-second %.0f against %.0f: x%.2f" %
              (n, rate[0], p50[0], rate[1], p50[1], rate[0] / rate[1], p50[0] / p50[1],
               cpu[0], cpu[1], cpu[0] / cpu[1]))


main()
