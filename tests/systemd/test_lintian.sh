#!/bin/sh
# SPDX-License-Identifier: ISC
# lintian on the packages built from this tree (debs.sh): no error, no warning, and no info-level
# tag either (every one is fixed or overridden with its reason in debian/*.lintian-overrides).
# Usage: test_lintian.sh BUILDDIR
set -eu
debs=$("$(dirname "$0")/debs.sh" "$1")
out=$(lintian --info --pedantic --fail-on error,warning,info "$debs"/*.changes 2>&1) || {
	printf 'FAIL: lintian failed:\n%s\n' "$out" >&2
	exit 1
}
tags=$(printf '%s\n' "$out" | grep -E '^[EWIPX]: ' || true)
if [ -n "$tags" ]; then
	printf 'FAIL: lintian tags:\n%s\n' "$tags" >&2
	exit 1
fi
# The five packages were checked, with their contents: a lintian that saw nothing passes too.
for p in p256signd libp256sign0 libp256sign-dev p256signctl p256sign-openssl-provider; do
	ls "$debs/${p}_"*.deb >/dev/null || { echo "FAIL: no package $p" >&2; exit 1; }
done
echo "lintian: $(ls "$debs"/*.deb | wc -l) packages clean"
echo ok
