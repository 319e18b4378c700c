#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""The benchmark programs behind docs/performance.md still run and report what the page reads
from them: bench-load's --runs (every run with its own yardstick, the targets judged on the median
run), the CPU split per signature and the daemon's CPU per signature as a ratio to the yardstick
of its kind (sign_us, or sign_checked_us with verify_after_sign); bench-floor's transport figures. Nothing here asserts a
speed: the machine running the tests is not the benchmark machine."""
import json
import statistics
import subprocess
import sys

BENCH_LOAD, BENCH_FLOOR = sys.argv[1], sys.argv[2]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(args, expect=0):
    p = subprocess.run(args, capture_output=True, text=True, timeout=100)
    if p.returncode != expect:
        fail("%s: exit %d, expected %d\n%s" % (" ".join(args), p.returncode, expect, p.stderr))
    return p.stdout


def check_load():
    out = json.loads(run([BENCH_LOAD, "--connections", "1,64", "--seconds", "0.2", "--runs", "2",
                          "--json"]))
    rows = out["runs"]
    if len(rows) != 2 * 2 * 2:
        fail("bench-load: %d rows for 2 runs x 2 daemons x 2 connection counts" % len(rows))
    if sorted({r["run"] for r in rows}) != [1, 2]:
        fail("bench-load: run numbers %s" % sorted({r["run"] for r in rows}))
    for r in rows:
        if r["errors"] != 0 or r["signs_per_s"] <= 0 or r["signs_per_cpu_s"] <= 0:
            fail("bench-load: row %s" % r)
        cpu = r["cpu_us_per_sign"]
        # /proc counts CPU time in clock ticks (10 ms): in a 0.2 s run of a slow (sanitizer)
        # build one share may round to 0, so each must be there and the daemon's total not 0.
        if min(cpu["parent"], cpu["workers"], cpu["bench_load"]) < 0 or \
                cpu["parent"] + cpu["workers"] <= 0:
            fail("bench-load: CPU split missing in %s" % r)
        if not 0 < r["ratio"] < 5 or not 0 < r["sign_us"] < r["sign_checked_us"] < 10000:
            fail("bench-load: ratio, sign_us or sign_checked_us out of any sense in %s" % r)
        # The daemon's CPU per signature against the yardstick of its kind (rows rounded to
        # 0.01 us and 0.001: a relative error of 0.005 / base, a tenth of a percent at most).
        base = r["sign_checked_us"] if r["verify_after_sign"] else r["sign_us"]
        want = (cpu["parent"] + cpu["workers"]) / base
        if abs(r["daemon_cpu_ratio"] - want) > 0.002 + 0.001 * want:
            fail("bench-load: daemon_cpu_ratio is not (parent + workers) / %s in %s" %
                 ("sign_checked_us" if r["verify_after_sign"] else "sign_us", r))
    off = [r for r in rows if r["verify_after_sign"] is False]
    t = out["targets"]
    ratios = [r["ratio"] for r in off if r["connections"] == 64]
    extras = [r["p50_us"] - r["sign_us"] for r in off if r["connections"] == 1]
    # The median of two runs is their mean; the rows are rounded to 0.001 and 0.1 us.
    if abs(t["ratio_64"]["median"] - statistics.median(ratios)) > 0.002 or \
            t["ratio_64"]["runs"] != 2 or t["ratio_64"]["min"] > t["ratio_64"]["max"]:
        fail("bench-load: ratio_64 %s against rows %s" % (t["ratio_64"], ratios))
    for name, vas in (("daemon_cpu_ratio_64", False), ("daemon_cpu_ratio_64_verify", True)):
        got = [r["daemon_cpu_ratio"] for r in rows
               if r["connections"] == 64 and r["verify_after_sign"] is vas]
        if abs(t[name]["median"] - statistics.median(got)) > 0.002 or t[name]["runs"] != 2:
            fail("bench-load: %s %s against rows %s" % (name, t[name], got))
    if abs(t["p50_minus_sign_us_1"]["median"] - statistics.median(extras)) > 0.2:
        fail("bench-load: p50_minus_sign_us_1 %s against rows %s" % (t["p50_minus_sign_us_1"],
                                                                   extras))
    if out["pinned"] is not None:
        fail("bench-load: pinned without --pin: %s" % out["pinned"])
    for bad in (["--runs", "0"], ["--runs", "51"], ["--pin", "0"], ["--pin", "0:x"],
                ["--pin", "0:0", "--socket", "/nonexistent"]):
        run([BENCH_LOAD] + bad, expect=2)
    # --pin: the CPUs read back from the kernel, for the daemon (after it answered) and the load.
    pinned = json.loads(run([BENCH_LOAD, "--pin", "0:0", "--connections", "1", "--seconds",
                             "0.2", "--json"]))
    if pinned["pinned"] != {"daemon": "0", "load": "0"} or len(pinned["runs"]) != 2 or \
            any(r["errors"] or r["signs_per_s"] <= 0 for r in pinned["runs"]):
        fail("bench-load --pin 0:0: %s" % pinned)
    text = run([BENCH_LOAD, "--connections", "1", "--seconds", "0.2", "--runs", "2"])
    if "run 2 of 2" not in text or "median of 2 runs" not in text:
        fail("bench-load: text output without the runs:\n" + text)


def check_light():
    """--light: a row per daemon at one connection, a request every 1,000 us, its CPU per
    signature less the in-process CPU time of its kind; --idle-seconds: each daemon's processes
    counted with no client."""
    out = json.loads(run([BENCH_LOAD, "--connections", "4", "--seconds", "0.3", "--light",
                          "--idle-seconds", "0.5", "--json"]))
    rows = out["runs"]
    light = [r for r in rows if r["interval_us"] == 1000]
    if len(rows) != 4 or len(light) != 2 or any(r["connections"] != 1 for r in light) or \
            any(r["interval_us"] != 0 for r in rows if r not in light):
        fail("bench-load --light: rows %s" % rows)
    for r in rows:
        cpu = r["cpu_us_per_sign"]
        base = r["sign_checked_cpu_us"] if r["verify_after_sign"] else r["sign_cpu_us"]
        if not 0 < r["sign_cpu_us"] < r["sign_checked_cpu_us"] or \
                abs(r["daemon_over_sign_us"] - (cpu["parent"] + cpu["workers"] - base)) > 0.02:
            fail("bench-load: daemon_over_sign_us is not parent + workers less %s in %s" %
                 ("sign_checked_cpu_us" if r["verify_after_sign"] else "sign_cpu_us", r))
    # The light rows are also judged against a signature made after an idle spell, of its kind.
    inproc = out["inprocess"]
    for r in light:
        cpu = r["cpu_us_per_sign"]
        cold = inproc["sign_checked_cold_us" if r["verify_after_sign"] else "sign_cold_us"]
        if abs(r["cold_us"] - cold) > 0.06 or \
                abs(r["daemon_over_cold_us"] - (cpu["parent"] + cpu["workers"] - cold)) > 0.06:
            fail("bench-load: daemon_over_cold_us is not parent + workers less %.1f in %s" %
                 (cold, r))
    if not 0 < inproc["sign_cold_us"] < inproc["sign_checked_cold_us"]:
        fail("bench-load --light: cold signatures %s" % inproc)
    t = out["targets"]
    for name, key, vas in (("light_daemon_over_sign_us", "daemon_over_sign_us", False),
                           ("light_daemon_over_sign_checked_us", "daemon_over_sign_us", True),
                           ("light_daemon_over_sign_cold_us", "daemon_over_cold_us", False),
                           ("light_daemon_over_sign_checked_cold_us", "daemon_over_cold_us",
                            True)):
        (row,) = [r for r in light if r["verify_after_sign"] is vas]
        if t[name]["runs"] != 1 or abs(t[name]["median"] - row[key]) > 0.006:
            fail("bench-load: %s %s against the row %s" % (name, t[name], row))
    idle = out["idle"]
    if sorted(i["verify_after_sign"] for i in idle) != [False, True] or \
            any(i["seconds"] != 0.5 or len(i["wakeups_per_s"]["signers"]) != 2 or
                min([i["wakeups_per_s"]["parent"], i["wakeups_per_s"]["keyholder"]] +
                    i["wakeups_per_s"]["signers"]) < 0 for i in idle):
        fail("bench-load --idle-seconds: %s" % idle)
    for bad in (["--idle-seconds", "0"], ["--idle-seconds", "x"]):
        run([BENCH_LOAD] + bad, expect=2)


def check_floor():
    out = json.loads(run([BENCH_FLOOR, "--connections", "8", "--seconds", "0.3", "--json"]))
    if out["round_trips_per_s"] <= 0 or out["cpu_us_per_round_trip"] <= 0:
        fail("bench-floor: %s" % out)
    # A SIGN request carries a 32-byte digest, its raw response a 64-byte signature.
    if out["request_bytes"] <= 32 or out["response_bytes"] <= 64:
        fail("bench-floor: frame sizes %s" % out)
    for bad in (["--connections", "0"], ["--seconds", "0"], ["extra"]):
        run([BENCH_FLOOR] + bad, expect=2)
    # --light: one request a millisecond through a relay; 0.3 s is about 300 of them.
    light = json.loads(run([BENCH_FLOOR, "--light", "--seconds", "0.3", "--json"]))
    if light["interval_us"] != 1000 or not 100 <= light["requests"] <= 300:
        fail("bench-floor --light: %s" % light)
    cpu = light["cpu_us_per_request"]
    if set(cpu) != {"relay", "answerer"} or min(cpu.values()) < 0:
        fail("bench-floor --light: %s" % light)


check_load()
check_light()
check_floor()
print("ok")
