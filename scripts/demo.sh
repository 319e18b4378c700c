#!/bin/bash
# SPDX-License-Identifier: ISC
# The p256sign demonstration: builds the project if needed, makes two fresh P-256 keys (one to
# sign with, one to seal the audit log) and a config in a temporary directory, starts p256signd
# there, and with the operators' tool p256signctl lists the keys, signs a message (verified with
# openssl), shows another user denied, then leaves the daemon in the foreground with its log on the
# terminal until Ctrl-C, and at the end checks the audit log's chain and seals. With
# DEMO_ONESHOT=1, or when stdin is not a terminal, it stops after the demonstration (that is how
# it is tested). P256SIGN_BUILD=DIR uses an existing build.
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
ctl=$build/client/ctl/p256signctl

dir=$(mktemp -d)
export P256SIGN_SOCKET=$dir/p256sign.sock
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

step "Two fresh P-256 keys (one to sign with, one to seal the audit log) and a config in $dir"
# Private from the start: p256signd refuses a key that group or others may read, and a
# configuration they may write. The directory is searchable (not readable) by others, so that a
# second user can reach the socket and show what the allow list does.
umask 077
chmod 0711 "$dir"
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/demo.key" 2>/dev/null
openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/audit.key" 2>/dev/null
cat >"$dir/p256signd.json" <<JSON
{
	"socket": "$dir/p256sign.sock",
	"socket_mode": "0666",
	"keys": [
		{ "name": "demo", "file": "demo.key", "nonce": "hedged", "verify_after_sign": true,
		  "allow": { "users": ["root"] } },
		{ "name": "audit", "file": "audit.key", "purpose": "audit" }
	],
	"audit": { "file": "$dir/audit.jsonl", "key": "audit", "journal": false,
		   "checkpoint_every": 1000, "fail_closed": true }
}
JSON
cat "$dir/p256signd.json"
"$daemon" --check-config "$dir/p256signd.json"

step "Starting p256signd (its log follows on this terminal)"
"$daemon" --config "$dir/p256signd.json" &
pid=$!
for _ in $(seq 100); do
	"$ctl" ping >/dev/null 2>&1 && break
	kill -0 "$pid" 2>/dev/null || { echo "p256signd did not start" >&2; exit 1; }
	sleep 0.1
done
"$ctl" ping

step "The three roles: the parent (clients, no key), the key-holder, the signers"
keyholder=$(pgrep -P "$pid")
signers=$(pgrep -P "$keyholder" | paste -sd, -)
ps -o pid,ppid,user,comm -p "$pid,$keyholder,$signers"
for p in $pid $keyholder ${signers//,/ }; do
	printf '%-8s %s\n' "$p" "$(grep -E '^(NoNewPrivs|Seccomp|VmLck):' "/proc/$p/status" | tr -s '\t\n' '  ')"
done

step "The keys, and who may use them"
"$ctl" keys

step "Signing a message through the socket with p256signctl"
echo "Hello from the p256sign demonstration, $(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$dir/message.txt"
cat "$dir/message.txt"
"$ctl" pubkey demo --format pem >"$dir/demo.pub"
"$ctl" sign demo --file "$dir/message.txt" --out "$dir/message.sig"
echo "signature (DER): $(od -An -tx1 -v "$dir/message.sig" | tr -d ' \n')"

step "Verifying it with openssl, using the public key the daemon returned"
openssl dgst -sha256 -verify "$dir/demo.pub" -signature "$dir/message.sig" "$dir/message.txt"

step "Another user (nobody) may reach the socket but not the key: denied"
digest=$(openssl dgst -sha256 -r "$dir/message.txt" | cut -d' ' -f1)
if out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups "$ctl" sign demo --digest "$digest" 2>&1); then
	echo "nobody was allowed to sign with demo" >&2
	exit 1
fi
echo "$out"
grep -q "not allowed" <<<"$out"

step "Daemon status"
"$ctl" status

step "The audit key's public key, to check the log with later"
"$ctl" pubkey audit --format pem >"$dir/audit.pub"

if [ "${DEMO_ONESHOT:-0}" = 1 ] || [ ! -t 0 ]; then
	step "Done (one-shot): stopping p256signd, which seals the audit log"
	kill -TERM "$pid"
	wait "$pid"
else
	step "p256signd is serving on $dir/p256sign.sock; press Ctrl-C to stop it"
	trap 'kill -TERM "$pid" 2>/dev/null || true' INT TERM
	while kill -0 "$pid" 2>/dev/null; do
		wait "$pid" || true
	done
fi
pid=

step "The audit log: one record per request, the denial included, chained and sealed"
echo "the denied request's record:"
grep '"result":"denied"' "$dir/audit.jsonl"
echo "the last record, the checkpoint the stop wrote (signed by the audit key):"
tail -n 1 "$dir/audit.jsonl"
"$ctl" audit-verify "$dir/audit.jsonl" --pubkey "$dir/audit.pub"
