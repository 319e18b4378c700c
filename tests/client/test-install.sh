#!/bin/bash
# SPDX-License-Identifier: ISC
# Installs the build into a temporary destdir and checks what a user of the library gets: the
# header, the pkg-config file, the versioned shared library exporting exactly its API, the
# provider built on that API alone, the man pages and the completion; then builds the example
# with pkg-config alone and runs it.
# With --pkcs11 (tests/pkcs11/meson.build), what p11-kit needs of the PKCS#11 module instead: the
# module in p11-kit's module directory exporting C_GetFunctionList alone, the module
# configuration naming it in p11-kit's configuration directory, and its man page.
# Usage: test-install.sh BUILD_ROOT EXAMPLE.c
#        test-install.sh BUILD_ROOT --pkcs11 MODULE_DIR CONFIG_DIR
set -eu
build=$1
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

meson install -C "$build" --no-rebuild --destdir "$dest" --quiet >/dev/null

if [ "$2" = --pkcs11 ]; then
	module_dir=$3
	config_dir=$4
	so=$dest$module_dir/p256sign-pkcs11.so
	[ -f "$so" ] || fail "no $module_dir/p256sign-pkcs11.so installed"
	exported=$(nm -D --defined-only "$so" | awk '{print $3}')
	[ "$exported" = C_GetFunctionList ] || fail "the module exports: $exported"
	conf=$dest$config_dir/p256sign.module
	[ -f "$conf" ] || fail "no $config_dir/p256sign.module installed"
	grep -qx 'module: p256sign-pkcs11.so' "$conf" || fail "$conf does not name the module"
	[ -n "$(find "$dest" -path '*/man/man8/p256sign-pkcs11.8')" ] ||
		fail "man page p256sign-pkcs11.8 not installed"
	echo ok
	exit 0
fi

example=$2
pc=$(find "$dest" -name p256sign.pc)
[ -n "$pc" ] || fail "no p256sign.pc installed"
header=$(find "$dest" -name p256sign.h)
[ -n "$header" ] || fail "no p256sign.h installed"
so=$(find "$dest" -name 'libp256sign.so.0' | head -1)
[ -n "$so" ] || fail "no libp256sign.so.0 installed"
objdump -p "$so" | grep -q 'SONAME *libp256sign.so.0' || fail "soname is not libp256sign.so.0"
# Exactly the functions the installed header declares P256SIGN_API, no more and no fewer.
header=$(find "$dest" -name p256sign.h | head -n1)
[ -n "$header" ] || fail "p256sign.h not installed"
api=$(grep -o '^P256SIGN_API [^(]*(' "$header" | sed 's/.*[ *]\(p256sign_[a-z_]*\)($/\1/' | sort)
exported=$(nm -D --defined-only "$so" | awk '$2 != "A" {sub(/@.*/, "", $3); print $3}' | sort)
[ "$api" = "$exported" ] || fail "exported symbols differ from the header's API: $(diff <(echo "$api") <(echo "$exported") | grep '^[<>]' | tr '\n' ' ')"
nm -D --defined-only "$so" | grep -q 'p256sign_sign_digest@@P256SIGN_0' ||
	fail "p256sign_sign_digest is not exported with version P256SIGN_0"
foreign=$(echo "$exported" | grep -v '^p256sign_' | tr '\n' ' ')
[ -z "$foreign" ] || fail "libp256sign exports symbols without the p256sign_ prefix: $foreign"
# The provider is built on libp256sign's exported API alone: it links the shared library and
# defines none of lib/'s or proto/'s functions, nor a p256sign_ one of its own (such as the
# key-reference format's), so there is one copy of the client code, the library's.
module=$(find "$dest" -name p256sign.so | head -1)
[ -n "$module" ] || fail "no p256sign.so (the OpenSSL provider) installed"
objdump -p "$module" | grep -q 'NEEDED *libp256sign.so.0' ||
	fail "p256sign.so does not link libp256sign.so.0"
copied=$(nm --defined-only "$module" | awk '{print $3}' |
	grep -E '^(pem_|cursor_|builder_|proto_|base64_|hex_|p256_|p256sign_)' | tr '\n' ' ')
[ -z "$copied" ] || fail "p256sign.so defines functions of lib/ or proto/: $copied"
for page in p256signd.8 p256signctl.1 p256signd.json.5 libp256sign.3; do
	[ -n "$(find "$dest" -path "*/man/man*/$page")" ] || fail "man page $page not installed"
done
[ -n "$(find "$dest" -path '*/bash-completion/completions/p256signctl')" ] ||
	fail "bash completion not installed"

# The header stands alone, and a program needs nothing but pkg-config to build against it.
export PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$dest
flags=$(pkg-config --cflags --libs p256sign)
cc -std=c17 -Wall -Wextra -Werror "$example" $flags -o "$dest/example" ||
	fail "the example does not build with: $flags"
# Without a daemon it must fail cleanly, naming the connection error.
libdir=$(dirname "$so")
set +e
out=$(P256SIGN_SOCKET="$dest/no.sock" LD_LIBRARY_PATH=$libdir "$dest/example" k hello 2>&1)
rc=$?
set -e
[ $rc -eq 1 ] && [[ $out == "connect: cannot connect"* ]] || fail "example: exit $rc: $out"
echo ok
