#!/bin/sh
# SPDX-License-Identifier: ISC
# Installs every Debian 12 package that building, running, testing and benchmarking p256sign needs.
# Used by both README commands and by CI; safe to run again.
set -eu
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps.sh: run as root (it calls apt-get)" >&2
	exit 2
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	build-essential meson ninja-build pkg-config python3 \
	clang libclang-rt-14-dev llvm \
	libevent-dev libsystemd-dev libjansson-dev libssl-dev libseccomp-dev \
	nettle-dev valgrind \
	openssl openssh-client systemd \
	scdoc man-db bash-completion ca-certificates git strace gdb procps util-linux passwd acl iproute2 \
	libp11-kit-dev p11-kit opensc gnutls-bin libnss3-tools softhsm2 >/dev/null
# Java's SunPKCS11 provider loads the PKCS#11 module (tests/pkcs11/test_pkcs11_java.py runs
# tests/pkcs11/P11Sign.java with the JDK's single-file source launcher). Its postinst links man
# pages with update-alternatives, which fails where an image left out /usr/share/man/man1.
mkdir -p /usr/share/man/man1
apt-get install -y -qq --no-install-recommends openjdk-17-jdk-headless >/dev/null
# The figures of docs/performance.md from the benches' JSON (bench/plot.py, Debian's python3).
apt-get install -y -qq --no-install-recommends python3-matplotlib >/dev/null
# The Debian packages (scripts/build-debs.sh, lintian) and the tests under a real systemd
# (tests/systemd: a Debian 12 root file system made by mmdebstrap, booted with systemd-nspawn).
apt-get install -y -qq --no-install-recommends \
	debhelper dpkg-dev lintian mmdebstrap systemd-container >/dev/null
# TLS servers for the provider's tests (tests/provider), installed without starting them: a
# policy-rc.d that refuses every service start while apt-get runs (the tests start their own
# instance on 127.0.0.1 with a configuration under a temporary directory).
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
	trap 'rm -f "$policy"' EXIT
	printf '#!/bin/sh\nexit 101\n' >"$policy"
	chmod 755 "$policy"
fi
apt-get install -y -qq --no-install-recommends nginx haproxy apache2 lighttpd lighttpd-mod-openssl \
	curl openssh-server >/dev/null
# promtool (Debian's prometheus) checks p256signctl metrics' output (tests/client); only the tool
# is used, and the policy above keeps the server from starting.
apt-get install -y -qq --no-install-recommends prometheus >/dev/null
