#!/usr/bin/python3
# SPDX-License-Identifier: ISC
"""The figures of docs/performance.md, as SVG, from the benches' JSON kept in DIR:
  compare.json  bench-compare --json (p256signd with verify_after_sign on and off, ssh-agent, the
                in-process core): signatures per second against connections, and latency;
  load.json     bench-load --json --light: the daemon's CPU per signature (parent and signers)
                against load, the light-load row included;
  tls.out       bench-tls.py's output (one JSON document a line, the summary last): TLS handshakes
                per second, key file against the provider, and the daemon's CPU per handshake.
A file that is missing is skipped (its figure too). Writes DIR/*.svg. Debian's python3 with
python3-matplotlib (scripts/install-deps.sh); bench/figures.sh measures and plots in one go.
Usage: /usr/bin/python3 bench/plot.py DIR"""
import json
import os
import sys

import matplotlib
matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

# SVG without a date or random ids: the same JSON gives the same file.
matplotlib.rcParams["svg.hashsalt"] = "p256sign"
matplotlib.rcParams["svg.fonttype"] = "none"
SAVE = {"format": "svg", "metadata": {"Date": None}, "bbox_inches": "tight"}


def load(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def documents(text):
    """The JSON documents printed one after the other (bench-tls.py's output)."""
    dec, docs, i = json.JSONDecoder(), [], 0
    while True:
        i = text.find("{", i)
        if i < 0:
            return docs
        doc, i = dec.raw_decode(text, i)
        docs.append(doc)


def save(fig, out):
    fig.savefig(out, **SAVE)
    plt.close(fig)
    print(out)


def rate_figure(cmp, out):
    """Signatures per second against connections, one line per backend."""
    fig, ax = plt.subplots(figsize=(6.4, 4))
    for r in cmp["results"]:
        conns = sorted(int(c) for c in r["rate"])
        ax.plot(conns, [r["rate"][str(c)] for c in conns], marker="o", label=r["name"])
    ax.set_xscale("log", base=2)
    ax.set_xticks([1, 4, 16, 64], ["1", "4", "16", "64"])
    ax.set_xlabel("connections (threads for the in-process core)")
    ax.set_ylabel("signatures per second")
    ax.set_title("bench-compare: signatures per second (%d CPUs)" % cmp["cpus"])
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, out)


def latency_figure(cmp, out):
    """Sequential latency on one connection: p50 and p99 per backend."""
    names = [r["name"] for r in cmp["results"]]
    x = range(len(names))
    fig, ax = plt.subplots(figsize=(6.4, 4))
    ax.bar([i - 0.2 for i in x], [r["p50_us"] for r in cmp["results"]], 0.4, label="p50")
    ax.bar([i + 0.2 for i in x], [r["p99_us"] for r in cmp["results"]], 0.4, label="p99")
    ax.set_xticks(list(x), names, rotation=20, ha="right", fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("microseconds per signature (log)")
    ax.set_title("bench-compare: latency on one connection")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend()
    save(fig, out)


def cpu_figure(ld, out):
    """The daemon's CPU per signature (parent and signers stacked) at each load, verify_after_sign
    on and off, against the in-process CPU time of one signature of its kind."""
    fig, axes = plt.subplots(1, 2, figsize=(8, 4), sharey=True)
    for ax, vas in zip(axes, (False, True)):
        rows = [r for r in ld["runs"] if r["verify_after_sign"] is vas and r["run"] == 1]
        rows.sort(key=lambda r: (r["interval_us"] == 0, r["connections"]))
        labels = ["1, one\nevery %d us" % r["interval_us"] if r["interval_us"] else
                  "%d" % r["connections"] for r in rows]
        parent = [r["cpu_us_per_sign"]["parent"] for r in rows]
        signers = [r["cpu_us_per_sign"]["workers"] for r in rows]
        x = range(len(rows))
        ax.bar(x, parent, label="parent")
        ax.bar(x, signers, bottom=parent, label="signers")
        yard = [r["sign_checked_cpu_us"] if vas else r["sign_cpu_us"] for r in rows]
        ax.plot(x, yard, "k_", markersize=20, label="in-process CPU of one signature")
        ax.set_xticks(list(x), labels, fontsize=8)
        ax.set_xlabel("connections")
        ax.set_title("verify_after_sign %s" % ("on" if vas else "off"))
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].set_ylabel("daemon CPU per signature (us)")
    axes[1].legend(fontsize=8)
    fig.suptitle("bench-load: the daemon's CPU per signature against load")
    save(fig, out)


def tls_figure(docs, out):
    """Handshakes per second with the key in a file and through the provider, and the daemon's
    CPU per handshake."""
    report = next(d for d in docs if "targets" in d)      # the throughput half comes first
    summary = next(d["summary"] for d in docs if "summary" in d)
    names = [t["name"] for t in report["targets"]]
    x = range(len(names))
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9, 4))
    ax.bar(x, [t["handshakes_per_s"] for t in report["targets"]],
           color=["tab:gray" if "keyfile" in n else "tab:blue" for n in names])
    ax.set_xticks(list(x), names, rotation=25, ha="right", fontsize=8)
    ax.set_ylabel("TLS 1.3 handshakes per second")
    ax.set_title("%d clients" % report["parallel"])
    ax.grid(True, axis="y", alpha=0.3)
    prov = [n for n in names if "p256sign" in n]
    ax2.bar(range(len(prov)), [summary[n]["daemon_cpu_us"] for n in prov], label="daemon")
    ax2.set_xticks(range(len(prov)), prov, rotation=25, ha="right", fontsize=8)
    ax2.axhline(summary["sign_us"], color="k", ls="--", lw=1, label="sign_us")
    ax2.axhline(summary["sign_checked_us"], color="k", ls=":", lw=1, label="sign_checked_us")
    ax2.set_ylabel("daemon CPU per handshake (us)")
    ax2.set_title("the daemon's CPU per handshake")
    ax2.grid(True, axis="y", alpha=0.3)
    ax2.legend(fontsize=8)
    fig.suptitle("bench-tls: nginx and haproxy, key file against p256signd")
    save(fig, out)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    d = sys.argv[1]
    cmp = load(os.path.join(d, "compare.json"))
    if cmp:
        rate_figure(cmp, os.path.join(d, "rate.svg"))
        latency_figure(cmp, os.path.join(d, "latency.svg"))
    ld = load(os.path.join(d, "load.json"))
    if ld:
        cpu_figure(ld, os.path.join(d, "daemon-cpu.svg"))
    tls = os.path.join(d, "tls.out")
    if os.path.exists(tls):
        with open(tls) as f:
            tls_figure(documents(f.read()), os.path.join(d, "tls.svg"))


main()
