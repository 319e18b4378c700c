#!/bin/bash
# SPDX-License-Identifier: ISC
# The p256sign demonstration: builds the project if needed, makes a fresh P-256 key and a config
# in a temporary directory, starts p256signd there, signs a message through its socket, verifies
# the signature with openssl, and leaves the daemon running in the foreground with its log on
# the terminal until Ctrl-C. With DEMO_ONESHOT=1, or when stdin is not a terminal, it stops
# after the demonstration (that is how it is tested). P256SIGN_BUILD=DIR uses an existing build.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "${P256SIGN_BUILD:-}" ]; then
	build=$P256SIGN_BUILD
else
	build=build
	[ -f "$build/build.ninja" ] || meson setup "$build"
	ninja -C "$build"
fi
daemon=$build/daemon/p256signd
client=$build/tests/daemon/p256sign-testclient

dir=$(mktemp -d)
pid=
cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" || true
	fi
	rm -rf "$dir"
}
trap cleanup EXIT

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "A fresh P-256 key and a config in $dir"
# Private from the start: p256signd refuses a key that group or others may read, and a
# configuration they may write.
umask 077
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/demo.key" 2>/dev/null
cat >"$dir/p256signd.json" <<JSON
{
	"socket": "$dir/p256sign.sock",
	"socket_mode": "0600",
	"keys": [ { "name": "demo", "file": "demo.key", "nonce": "hedged", "verify_after_sign": true } ]
}
JSON
cat "$dir/p256signd.json"
"$daemon" --check-config "$dir/p256signd.json"

step "Starting p256signd (its log follows on this terminal)"
"$daemon" --config "$dir/p256signd.json" &
pid=$!
for _ in $(seq 100); do
	"$client" "$dir/p256sign.sock" ping >/dev/null 2>&1 && break
	kill -0 "$pid" 2>/dev/null || { echo "p256signd did not start" >&2; exit 1; }
	sleep 0.1
done
"$client" "$dir/p256sign.sock" ping

step "The three roles: the parent (clients, no key), the key-holder, the signers"
keyholder=$(pgrep -P "$pid")
signers=$(pgrep -P "$keyholder" | paste -sd, -)
ps -o pid,ppid,user,comm -p "$pid,$keyholder,$signers"
for p in $pid $keyholder ${signers//,/ }; do
	printf '%-8s %s\n' "$p" "$(grep -E '^(NoNewPrivs|Seccomp|VmLck):' "/proc/$p/status" | tr -s '\t\n' '  ')"
done

step "Signing a message through the socket"
echo "Hello from the p256sign demonstration, $(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$dir/message.txt"
cat "$dir/message.txt"
"$client" "$dir/p256sign.sock" pubkey demo "$dir/demo.spki"
openssl pkey -pubin -inform DER -in "$dir/demo.spki" -out "$dir/demo.pub"
"$client" "$dir/p256sign.sock" sign-message demo "$dir/message.txt" "$dir/message.sig"
echo "signature (DER): $(od -An -tx1 -v "$dir/message.sig" | tr -d ' \n')"

step "Verifying it with openssl, using the public key the daemon returned"
openssl dgst -sha256 -verify "$dir/demo.pub" -signature "$dir/message.sig" "$dir/message.txt"

step "Daemon status"
"$client" "$dir/p256sign.sock" status

if [ "${DEMO_ONESHOT:-0}" = 1 ] || [ ! -t 0 ]; then
	step "Done (one-shot): stopping p256signd"
	kill -TERM "$pid"
	wait "$pid"
	pid=
	exit 0
fi
step "p256signd is serving on $dir/p256sign.sock; press Ctrl-C to stop it"
trap 'kill -TERM "$pid" 2>/dev/null || true' INT TERM
while kill -0 "$pid" 2>/dev/null; do
	wait "$pid" || true
done
pid=
