#!/bin/bash
# SPDX-License-Identifier: ISC
# Installs the build into a temporary destdir and checks what p11-kit needs: the module in its
# module directory exporting C_GetFunctionList alone, and the module configuration naming it in
# its configuration directory; the man page.
# Usage: test-install.sh BUILD_ROOT MODULE_DIR CONFIG_DIR
set -eu
build=$1
module_dir=$2
config_dir=$3
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

meson install -C "$build" --no-rebuild --destdir "$dest" --quiet >/dev/null
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
