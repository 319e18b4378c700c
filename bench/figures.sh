#!/bin/sh
# SPDX-License-Identifier: ISC
# Measures and draws the figures of docs/performance.md ("Figures"): runs bench-compare,
# bench-load (with its light-load row) and bench-tls.py against BUILD, keeps their JSON in
# docs/figures/ and turns it into SVG there (bench/plot.py). With --plot-only, draws again from
# the JSON kept, without measuring. Run from the source tree, as root (bench-tls starts nginx
# and haproxy), with the packages of scripts/install-deps.sh.
#   bench/figures.sh BUILD [--plot-only]
set -eu
if [ $# -lt 1 ]; then
	echo "usage: bench/figures.sh BUILD [--plot-only]" >&2
	exit 2
fi
build=$1
out=docs/figures
mkdir -p "$out"
if [ "${2:-}" != --plot-only ]; then
	"$build/bench/bench-compare" --seconds 2 --json >"$out/compare.json"
	"$build/bench/bench-load" --connections 1,4,16,64 --seconds 3 --light --json >"$out/load.json"
	python3 bench/bench-tls.py "$build" --seconds 2 --rounds 3 --idle-seconds 10 >"$out/tls.out"
fi
/usr/bin/python3 bench/plot.py "$out"
