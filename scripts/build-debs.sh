#!/bin/sh
# SPDX-License-Identifier: ISC
# Builds the Debian packages (debian/) with `dpkg-buildpackage -us -uc -b` in a temporary copy of
# the source tree, so that the clone keeps no build products, and puts the .deb files, the
# .buildinfo and the .changes into OUTDIR (default: build-debs/ at the top of the clone).
# Extra arguments go to dpkg-buildpackage. DEB_BUILD_OPTIONS=nocheck skips the unit suite that
# the package build runs (debian/rules).
# Usage: build-debs.sh [OUTDIR [DPKG-BUILDPACKAGE-ARGS...]]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build-debs}
[ $# -gt 0 ] && shift
mkdir -p "$out"
# OUTDIR holds the last build only: no package of an older one is taken for it.
rm -f "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes
out=$(cd "$out" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/p256sign-debs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The tracked and new files of a git clone, or the whole tree of an export; never build
# directories (they can hold a copy of OUTDIR).
mkdir "$tmp/p256sign"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$top" ls-files -z --cached --others --exclude-standard |
		(cd "$top" && xargs -0 cp --parents -P -t "$tmp/p256sign")
else
	(cd "$top" && tar --exclude='./build*' -cf - .) | tar -C "$tmp/p256sign" -xf -
fi
(cd "$tmp/p256sign" && dpkg-buildpackage -us -uc -b "$@")
mv "$tmp"/*.deb "$tmp"/*.buildinfo "$tmp"/*.changes "$out"/
echo "build-debs.sh: packages in $out:"
ls "$out"
