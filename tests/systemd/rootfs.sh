#!/bin/sh
# SPDX-License-Identifier: ISC
# Prints the path of a minimal Debian 12 root file system for the container tests, built with
# mmdebstrap from the mirror apt uses on this host, once: it is cached in CACHE (default
# /var/cache/p256sign-test), in a directory named after a hash of everything that goes into it
# (suite, mirror, package list, this script), so that a change of the list makes a new one.
# Built in a temporary directory and renamed when complete: an interrupted build leaves no
# half root file system to be reused.
# Usage: rootfs.sh [CACHE]
set -eu
cache=${1:-/var/cache/p256sign-test}
suite=bookworm
# The daemon's run-time libraries (the packages' Depends:, so that apt installs them offline:
# the container has no network), systemd and journald as PID 1, and what the tests drive:
# nginx and curl for TLS through the provider, logrotate for the package's rule.
# python3 runs the protocol client of tests/daemon (daemonlib.py) for the load;
# prometheus-node-exporter serves p256signctl metrics' textfile; systemd-journal-remote
# (journal-upload and journal-remote) collects the audit trail over loopback.
packages="systemd,systemd-sysv,dbus,libevent-2.1-7,libjansson4,libseccomp2,libssl3,openssl"
packages="$packages,logrotate,nginx,curl,ca-certificates,procps,python3,prometheus-node-exporter"
packages="$packages,systemd-journal-remote"

# The mirror of the host's apt sources (deb822 or one-line), Debian's own when none is named.
mirror=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
	grep -v security | head -n 1 || true)
if [ -z "$mirror" ]; then
	mirror=$(awk '$1 == "deb" && $3 !~ /security/ {print $2; exit}' /etc/apt/sources.list \
		2>/dev/null || true)
fi
mirror=${mirror:-http://deb.debian.org/debian}

key=$( (echo "$suite $mirror $packages"; cat "$0") | sha256sum | cut -c1-16)
dir=$cache/rootfs-$suite-$key
if [ -d "$dir" ]; then
	echo "$dir"
	exit 0
fi
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.rootfs-build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# An empty /etc/machine-id: systemd makes one at boot. policy-rc.d is not left behind: the
# packages' own maintainer scripts start their units in the booted container.
mmdebstrap --quiet --variant=minbase --include="$packages" \
	--customize-hook='echo -n >"$1/etc/machine-id"' \
	"$suite" "$tmp/root" "$mirror" >&2
mv "$tmp/root" "$dir"
# Root file systems of other package lists are not used again.
find "$cache" -mindepth 1 -maxdepth 1 -name "rootfs-$suite-*" ! -path "$dir" -exec rm -rf {} +
echo "$dir"
