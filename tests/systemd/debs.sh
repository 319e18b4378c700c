#!/bin/sh
# SPDX-License-Identifier: ISC
# Prints the directory of the Debian packages of this source tree, built with
# scripts/build-debs.sh into BUILDDIR/debs/HASH once, HASH naming the contents of the tree: the
# lintian test and the container test use the same build, and a changed file makes a new one.
# tests/systemd, which no package holds, is left out of it. A lock makes a second caller wait
# for the first one's build.
# Usage: debs.sh BUILDDIR
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
base=$1/debs
mkdir -p "$base"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	key=$(cd "$top" && git ls-files -z --cached --others --exclude-standard -- . \
		':!tests/systemd' | xargs -0 sha256sum 2>/dev/null | sha256sum | cut -c1-16)
else
	key=$(cd "$top" && find . \( -path './build*' -o -path ./tests/systemd \) -prune -o \
		-type f -print0 | sort -z |
		xargs -0 sha256sum | sha256sum | cut -c1-16)
fi
exec 9>"$base/.lock"
flock 9
if [ ! -e "$base/$key/.complete" ]; then
	rm -rf "$base"/*/
	# The unit suite already ran in this build directory: the package build skips it.
	DEB_BUILD_OPTIONS=nocheck "$top/scripts/build-debs.sh" "$base/$key" >"$base/build.log" 2>&1 || {
		tail -n 40 "$base/build.log" >&2
		exit 1
	}
	touch "$base/$key/.complete"
fi
echo "$base/$key"
