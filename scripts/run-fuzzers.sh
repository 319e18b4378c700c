#!/bin/bash
# SPDX-License-Identifier: ISC
# Runs every libFuzzer harness built in BUILD_DIR (tests/fuzz/fuzz-NAME) for SECONDS each, starting
# from its committed seed corpus tests/fuzz/corpus/NAME, as many at once as there are CPUs (each
# harness is single-threaded). Fails if any harness finds a crash.
set -eu
build=${1:?usage: run-fuzzers.sh BUILD_DIR SECONDS}
seconds=${2:-60}
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd) # the harness runs from its work directory
jobs=$(nproc)

# fuzz_one NAME BIN: one run in a scratch copy of the corpus; prints its report, returns its status.
fuzz_one() {
	local name=$1 bin=$2 work status=0
	work=$(mktemp -d)
	cp -r "$top/tests/fuzz/corpus/$name/." "$work/" 2>/dev/null || true
	if ! (cd "$work" && "$bin" -max_total_time="$seconds" -print_final_stats=1 \
		-artifact_prefix="$work/" "$work" >"$work.log" 2>&1); then
		echo "fuzz-$name: FAILED"
		tail -40 "$work.log"
		status=1
	else
		echo "fuzz-$name: ${seconds}s, $(grep -Eo 'number_of_executed_units: [0-9]+' "$work.log")"
	fi
	rm -rf "$work" "$work.log"
	return $status
}

# Each run leaves its exit status in $results/NAME: wait -n would lose statuses it reaps.
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
for bin in "$build"/tests/fuzz/fuzz-*; do
	[ -f "$bin" ] && [ -x "$bin" ] || continue # not the fuzz-NAME.p object directories
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n || true
	done
	name=${bin##*/fuzz-}
	(status=0; fuzz_one "$name" "$bin" || status=1; echo $status >"$results/$name.status") &
done
wait
[ -n "$(ls "$results")" ] || { echo "no fuzz harness built"; exit 1; }
! grep -qv '^0$' "$results"/*.status
