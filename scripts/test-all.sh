#!/bin/bash
# SPDX-License-Identifier: ISC
# The whole test suite, as CI runs it: a -Werror build and every meson suite, the unit and
# integration suites again under ASan+UBSan, the daemon under valgrind in a build without
# seccomp, every libFuzzer harness for a short run, and the mutation check of the signing core
# and of the key files. Says how long each part took, and ends with one line "N passed, N failed
# in N s".
set -u
cd "$(dirname "$0")/.."
passed=0
failed=0
failures=$(mktemp) # what failed, repeated at the end: a long log's tail should name it
trap 'rm -f "$failures"' EXIT

step() { # step NAME COMMAND...: runs one check and counts it
	local name=$1 t0=$SECONDS
	shift
	echo "=== $name"
	if "$@"; then
		passed=$((passed + 1))
		echo "=== $name: ok ($((SECONDS - t0)) s)"
	else
		failed=$((failed + 1))
		echo "=== $name: FAILED ($((SECONDS - t0)) s)"
		echo "check: $name" >>"$failures"
	fi
}

# failed_tests TESTLOG.JSON: each failed test of a meson run with the last lines of its output.
failed_tests() {
	python3 - "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t["result"] in ("OK", "SKIP", "EXPECTEDFAIL"):
        continue
    print(f"test: {t['name']}: {t['result']} (exit {t['returncode']})")
    for out in (t.get("stdout") or "", t.get("stderr") or ""):
        for l in out.splitlines()[-25:]:
            print("    " + l)
PY
}

# meson_suite DIR ARGS...: runs meson test and adds its own counts to ours.
meson_suite() {
	local dir=$1 t0=$SECONDS
	shift
	local log
	log=$(mktemp)
	meson test -C "$dir" --print-errorlogs "$@" 2>&1 | tee "$log"
	echo "=== meson test in $dir: $((SECONDS - t0)) s"
	local ok fail
	ok=$(awk '/^Ok:/ {print $2}' "$log")
	fail=$(awk '/^(Fail|Timeout|Unexpected Pass):/ {s += $2} END {print s + 0}' "$log")
	rm -f "$log"
	passed=$((passed + ${ok:-0}))
	failed=$((failed + ${fail:-0}))
	failed_tests "$dir/meson-logs/testlog.json" >>"$failures"
	[ "${ok:-0}" -gt 0 ] && [ "$fail" -eq 0 ]
}

configure() { # configure DIR MESON-ARGS...
	local dir=$1 t0=$SECONDS
	shift
	rm -rf "$dir"
	meson setup "$dir" -Dwerror=true "$@" >"$dir.log" 2>&1 || { cat "$dir.log"; return 1; }
	ninja -C "$dir" >>"$dir.log" 2>&1 || { tail -50 "$dir.log"; return 1; }
	echo "=== $dir built in $((SECONDS - t0)) s"
}

if configure build-ci; then
	meson_suite build-ci || true
else
	failed=$((failed + 1))
fi

if configure build-asan -Db_sanitize=address,undefined -Db_lundef=false; then
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		meson_suite build-asan --suite unit --suite integration --no-suite ct || true
else
	failed=$((failed + 1))
fi

# valgrind cannot run a process that installs a seccomp filter: the daemon under memcheck is a
# build without the sandbox backend (a build option, never a run-time switch).
if configure build-valgrind -Dseccomp=disabled; then
	meson_suite build-valgrind --suite valgrind || true
else
	failed=$((failed + 1))
fi

if CC=clang configure build-fuzz -Dfuzz=true -Db_lundef=false; then
	step "fuzzers (30 s each)" scripts/run-fuzzers.sh build-fuzz 30
else
	failed=$((failed + 1))
fi

step "mutation check of the signing core and the key files" scripts/mutants.sh

if [ -s "$failures" ]; then
	echo "=== what failed"
	cat "$failures"
fi
echo "$passed passed, $failed failed in $SECONDS s"
[ "$failed" -eq 0 ]
