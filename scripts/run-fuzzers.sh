#!/bin/bash
# SPDX-License-Identifier: ISC
# Runs every libFuzzer harness built in BUILD_DIR (tests/fuzz/fuzz-NAME) for SECONDS each, starting
# from its committed seed corpus tests/fuzz/corpus/NAME. Fails if any harness finds a crash.
set -eu
build=${1:?usage: run-fuzzers.sh BUILD_DIR SECONDS}
seconds=${2:-60}
top=$(cd "$(dirname "$0")/.." && pwd)
status=0
found=0
build=$(cd "$build" && pwd) # the harness runs from its work directory
for bin in "$build"/tests/fuzz/fuzz-*; do
	[ -f "$bin" ] && [ -x "$bin" ] || continue # not the fuzz-NAME.p object directories
	found=1
	name=${bin##*/fuzz-}
	work=$(mktemp -d)
	cp -r "$top/tests/fuzz/corpus/$name/." "$work/" 2>/dev/null || true
	echo "fuzz-$name: ${seconds}s"
	if ! (cd "$work" && "$bin" -max_total_time="$seconds" -print_final_stats=1 \
		-artifact_prefix="$work/" "$work" >"$work.log" 2>&1); then
		tail -40 "$work.log"
		status=1
	else
		grep -E 'stat::number_of_executed_units' "$work.log" || true
	fi
	rm -rf "$work" "$work.log"
done
[ "$found" -eq 1 ] || { echo "no fuzz harness built"; exit 1; }
exit $status
