#!/bin/bash
# SPDX-License-Identifier: ISC
# Mutation check of the signing core, of the worker's batching and of the key files: each mutant
# below is a deliberate bug, exact replacements of text in one file of lib/ or daemon/, that the
# tests must notice. The tree is copied to a temporary directory (tracked and new files, not
# build directories) and built once; for each mutant the file is edited, the test programs of its
# suites rebuilt incrementally with ninja, and the suites run: the unit suite (plus the valgrind
# ct suite for the constant-time mutants), or the suite keys for the key files. Prints one line
# per mutant, killed or SURVIVED, and a total; exits non-zero if a mutant survived, no longer
# applies (a text that is not in the file exactly once, so refactors cannot silently neuter the
# check) or does not build.
# Usage: scripts/mutants.sh [NAME-SUBSTRING]   (runs the matching mutants only)
# MUTANTS_ALL_TESTS=1 runs every test for every mutant (slower) to list all that kill it.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
only=${1:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A mutant may crash or be timed out in a test, which then runs no exit handler: what such a
# test leaves in TMPDIR goes with the work directory.
# It is open to every user as /tmp is (tests run throwaway users that must reach their files).
export TMPDIR=$work/tmp
mkdir -p "$TMPDIR" && chmod 755 "$work" && chmod 1777 "$TMPDIR"
src=$work/src
build=$work/build
start=$(date +%s)

# ---- the copy and the baseline build --------------------------------------------------------
mkdir -p "$src"
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
	tar --null -T - -cf -) | tar -xf - -C "$src" || { echo "mutants: cannot copy the tree"; exit 2; }
meson setup "$build" "$src" >"$work/setup.log" 2>&1 || { cat "$work/setup.log"; exit 2; }

# targets SUITE...: the ninja targets (test programs) that the given meson suites run
targets() {
	meson introspect --tests --targets "$build" | python3 -c '
import json, os, sys
info = json.load(sys.stdin)
suites = set("p256sign:" + s for s in sys.argv[2:])
files = {t["id"]: t["filename"] for t in info["targets"]}
deps = {d for t in info["tests"] if suites & set(t["suite"]) for d in t["depends"]}
print(" ".join(sorted(os.path.relpath(f, sys.argv[1]) for d in deps for f in files[d])))
' "$build" "$@"
}
unit_targets=$(targets unit)
ct_targets=$(targets ct)
keys_targets=$(targets keys)
if [ -z "$unit_targets" ] || [ -z "$keys_targets" ]; then
	echo "mutants: no unit or keys tests found"
	exit 2
fi

# run_suites SUITES (unit, unit+ct, keys or all): builds what the suites need and runs them: 0
# when every test passes, 1 when one fails, 2 when the build fails
run_suites() {
	local t args
	case $1 in
	unit) t=$unit_targets args=(--suite unit) ;;
	unit+ct) t="$unit_targets $ct_targets" args=(--suite unit --suite ct) ;;
	keys) t=$keys_targets args=(--suite keys) ;;
	all) t="$unit_targets $ct_targets $keys_targets" args=(--suite unit --suite ct --suite keys) ;;
	esac
	# shellcheck disable=SC2086 # a list of targets
	ninja -C "$build" $t >"$work/build.log" 2>&1 || return 2
	[ "${MUTANTS_ALL_TESTS:-0}" = 1 ] || args+=(--maxfail 1)
	meson test -C "$build" --no-rebuild "${args[@]}" >"$work/test.log" 2>&1 || return 1
}

if ! run_suites all; then
	echo "mutants: the unmutated tree does not pass its tests"
	tail -30 "$work/build.log" "$work/test.log"
	exit 2
fi
echo "baseline built and passing in $(($(date +%s) - start)) s"

# ---- the mutants ------------------------------------------------------------------------------
killed=0
survived=0
broken=0

# replace FILE OLD NEW [OLD NEW]...: each OLD, in turn, must occur exactly once; prints the first
# that does not.
replace() {
	python3 - "$@" <<'PY'
import sys
path, pairs = sys.argv[1], sys.argv[2:]
text = open(path).read()
for old, new in zip(pairs[::2], pairs[1::2]):
    if text.count(old) != 1:
        sys.exit(f"{old!r} occurs {text.count(old)} times")
    text = text.replace(old, new)
open(path, "w").write(text)
PY
}

# mutant NAME FILE SUITES OLD NEW [OLD NEW]...
mutant() {
	local name=$1 file=$2 suites=$3
	shift 3
	[ -n "$only" ] && [[ $name != *"$only"* ]] && return
	local f=$src/$file orig=$work/orig why
	local t0
	t0=$(date +%s)
	cp -p "$f" "$orig"
	if ! why=$(replace "$f" "$@" 2>&1); then
		printf '%-28s BROKEN: does not apply: %s\n' "$name" "$why"
		broken=$((broken + 1))
		cp -p "$orig" "$f"
		return
	fi
	run_suites "$suites"
	local status=$?
	if [ $status -eq 2 ]; then
		printf '%-28s BROKEN: does not build\n' "$name"
		tail -5 "$work/build.log"
		broken=$((broken + 1))
	elif [ $status -ne 0 ]; then
		printf '%-28s killed   (%s, %d s) by %s\n' "$name" "$suites" $(($(date +%s) - t0)) \
			"$(grep -oE '[^ ]+ +FAIL' "$work/test.log" | awk '{print $1}' | tr '\n' ' ')"
		killed=$((killed + 1))
	else
		printf '%-28s SURVIVED (%s)\n' "$name" "$suites"
		survived=$((survived + 1))
	fi
	cat "$orig" >"$f"	# new mtime: ninja rebuilds it for the next mutant
}

# RFC 6979 HMAC-DRBG (lib/drbg.c)
mutant drbg-separators-swapped lib/drbg.c unit \
	'update(d, 0x00, x, 32' \
	'update(d, 0xAA, x, 32' \
	'update(d, 0x01, x, 32' \
	'update(d, 0x00, x, 32' \
	'update(d, 0xAA, x, 32' \
	'update(d, 0x01, x, 32'
mutant drbg-extra-dropped lib/drbg.c unit \
	'update(d, 0x00, x, 32, h1, 32, extra, extra_len)' \
	'update(d, 0x00, x, 32, h1, 32, extra, 0)' \
	'update(d, 0x01, x, 32, h1, 32, extra, extra_len)' \
	'update(d, 0x01, x, 32, h1, 32, extra, 0)'
mutant drbg-retry-no-update lib/drbg.c unit \
	'if (d->started && (r = update(d, 0x00, NULL, 0, NULL, 0, NULL, 0)) != 0)' \
	'if (0)'
mutant drbg-v-not-stepped lib/drbg.c unit \
	'if ((r = hmac_v(d, -1, NULL, 0, NULL, 0, NULL, 0, d->v)) != 0)' \
	'if ((r = hmac_v(d, -1, NULL, 0, NULL, 0, NULL, 0, t)) != 0)' \
	'memcpy(t, d->v, sizeof(d->v));' \
	''
mutant drbg-k-taken-for-v lib/drbg.c unit \
	'    (r = hmac_v(d, -1, NULL, 0, NULL, 0, NULL, 0, d->v)) != 0)' \
	'    (memcpy(d->v, k, 32), 0) != 0)'

# signing (lib/sign.c)
mutant digest-not-reduced lib/sign.c unit \
	'scalar_to_bytes(h1, &s->e);' \
	'memcpy(h1, digest, 32);'
mutant hedge-dropped lib/sign.c unit \
	'*ad_len += HEDGE_LEN;' \
	''
mutant private-range-unchecked lib/sign.c unit \
	'return ok ? 0 : P256_ERR_SCALAR_RANGE;' \
	'return 0;'
mutant sign-checked-no-verify lib/sign.c unit \
	'r = ec_verify_sig(q, table, digest, sig, w, ctx);' \
	'r = 0;'
mutant batch-back-substitution-off-by-one lib/sign-batch.c unit \
	'for (size_t j = m - 1; j > 0; j--) {' \
	'for (size_t j = m - 1; j > 1; j--) {'
mutant batch-hedge-of-previous-item lib/sign-batch.c unit \
	'return hedges != NULL ? hedges + SIGN_HEDGE_LEN * i : none;' \
	'return hedges != NULL ? hedges + SIGN_HEDGE_LEN * (i > 0 ? i - 1 : 0) : none;'
mutant batch-checked-no-verify lib/sign-batch.c unit \
	'sign_check_batch(items, n, &nonces);' \
	''
mutant batch-check-first-inverse lib/sign-batch-check.c unit \
	'it->sig, &w[j]);' \
	'it->sig, &w[0]);'
mutant batch-check-range-unguarded lib/sign-batch-check.c unit \
	'if (!ec_in_range(it->sig + 32)) {' \
	'if (0) {'
mutant table-never-built lib/sign.c unit \
	'return key_init(key, d, 1);' \
	'return key_init(key, d, 0);'
mutant untabled-builds-table lib/sign.c unit \
	'return key_init(key, d, 0);' \
	'return key_init(key, d, 1);'

# precomputed nonces (lib/nonce-pool.c, daemon/signer.c, daemon/signer-pools.c) and the batch's x (lib/field.c)
mutant pool-entry-reused lib/nonce-pool.c unit \
	'e = &pg->e[--pg->ready];' \
	'e = &pg->e[pg->ready - 1];'
mutant pool-kept-in-fork-child lib/nonce-pool.c unit \
	'madvise(p, pool->bytes, MADV_WIPEONFORK) != 0 ||' \
	''
mutant pool-refill-while-request-waits daemon/signer-pools.c unit \
	'if (request_waiting(fd))' \
	'if (request_waiting(fd) && 0)'
mutant signer-ignores-pool daemon/signer.c unit \
	'if (pools[key] != NULL && (r = p256_pool_sign(' \
	'if (0 && (r = p256_pool_sign('
mutant field-batch-back-substitution-dropped lib/field.c unit \
	'mont_mul(t.v, t.v, z[j].v);' \
	''

# mod-n arithmetic (lib/scalar.c)
mutant mont-low-limb-dropped lib/scalar.c unit \
	'c = mac(t0, m, N[0], *t0, 0);' \
	'c = mac(t0, m, N[0], 0, 0);'
mutant mont-high-word-dropped lib/scalar.c unit \
	'reduce_once(r, t4, t5, t6, t7, top);' \
	'reduce_once(r, t4, t5, t6, t7, 0);'
mutant reduce-once-keeps-a lib/scalar.c unit \
	'mask = (uint64_t)0 - (hi | (borrow ^ 1));' \
	'mask = 0;'
mutant add-carry-dropped lib/scalar.c unit \
	'reduce_once(r->v, s[0], s[1], s[2], s[3], carry);' \
	'reduce_once(r->v, s[0], s[1], s[2], s[3], 0);'
mutant range-zero-accepted lib/scalar.c unit \
	'return (uint64_t)0 - (below_n & nonzero);' \
	'return (uint64_t)0 - below_n;'

# safegcd inversion (lib/modinv.c) and arithmetic mod p (lib/field.c)
mutant divstep-swap-dropped lib/modinv.c unit \
	'f += g & swap;' \
	'' \
	'U += Q & swap;' \
	''
mutant divsteps-batch-missing lib/modinv.c unit \
	'#define BATCHES 10' \
	'#define BATCHES 9'
mutant inverse-sign-not-corrected lib/modinv.c unit \
	'normalize(&d, f.v[4] >> 63, m);' \
	'normalize(&d, 0, m);'
mutant field-final-subtraction-dropped lib/field.c unit \
	'reduce_once(r, t, t[4], d);' \
	'memcpy(r, t, 4 * sizeof(r[0]));'
mutant verify-x-plus-n-unbounded lib/field.c unit \
	'return rn[0] == 0 && sub_p(d, c.v) == 1 && ' \
	'return rn[0] == 0 && '

# constant time (killed by the valgrind ct suite only: the results stay correct)
mutant k-plus-n-removed lib/ec.c unit+ct \
	'scalar_plus_n_bytes(kn, k);' \
	'kn[0] = 0; scalar_to_bytes(kn + 1, k);'
mutant select-by-branch lib/scalar.c unit+ct \
	'r[0] = (d0 & mask) | (a0 & ~mask);' \
	'r[0] = mask ? d0 : a0;'
mutant divstep-swap-by-branch lib/modinv.c unit+ct \
	'swap = pos & odd;' \
	'swap = (eta >> 63) ? 0 : odd;'

# verification (lib/verify.c, lib/verify-key.c, lib/ec.c)
mutant low-s-comparison-flipped lib/verify.c unit \
	'memcmp(sig + 32, HALF_N, 32) > 0' \
	'memcmp(sig + 32, HALF_N, 32) < 0'
mutant normalize-half-n-moved lib/verify.c unit \
	'memcmp(sig + 32, HALF_N, 32) <= 0' \
	'memcmp(sig + 32, HALF_N, 32) < 0'
mutant s-range-unchecked lib/verify.c unit \
	'return ec_in_range(sig) && ec_in_range(sig + 32);' \
	'return ec_in_range(sig);'
mutant eip7951-length-loose lib/verify.c unit \
	'input_len != 160 ||' \
	'input_len < 160 ||'
mutant verify-infinity-unchecked lib/field.c unit \
	'if ((z2.v[0] | z2.v[1] | z2.v[2] | z2.v[3]) == 0)' \
	'if (0)'
mutant verify-x-not-reduced lib/field.c unit \
	'return rn[0] == 0 && sub_p(d, c.v) == 1 && x_equals(x.v, z2.v, c.v);' \
	'return 0;'
mutant table-term-dropped lib/ec.c unit \
	'ctx) == 1 && EC_POINT_add(g, rp, rp, t, ctx) == 1;' \
	'ctx) == 1;'
# the batch's randomised check (lib/sign-batch-check.c), its point sum (lib/point-sum.c) and the
# field operations under it (lib/field.c)
mutant batch-check-multipliers-equal lib/sign-batch-check.c unit \
	'sign_draw_random(rnd[0], m * MULT_RANDOM) != 0)' \
	'(memset(rnd, 0, sizeof(rnd)), 0))'
mutant batch-check-places-repeat lib/sign-batch-check.c unit \
	'		place[k] = place[i];' \
	''
mutant batch-check-digit-sign-dropped lib/sign-batch-check.c unit \
	'd[b] = negative ? -1 : 1;' \
	'd[b] = 1;'
mutant batch-check-minus-added lib/sign-batch-check.c unit \
	'scalar_sub(a_mont, &p, &q);' \
	'scalar_add(a_mont, &p, &q);'
mutant scalar-sub-borrow-dropped lib/scalar.c unit \
	'borrow = sbb(&nb.v[2], N[2], b->v[2], borrow);' \
	'borrow = sbb(&nb.v[2], N[2], b->v[2], 0);'
mutant batch-check-r-not-x lib/sign-batch-check.c unit \
	'if (!r_is_x(it->sig, xy[j]))' \
	'if (0)'
mutant batch-check-first-key-only lib/sign-batch-check.c unit \
	'for (size_t k = 0; k < rs->nkeys; k++) {' \
	'for (size_t k = 0; k < 1; k++) {'
mutant batch-check-passed-index lib/sign-batch-check.c unit \
	'passed[at_known[j]] = 1;' \
	'passed[j] = 1;'
mutant point-sum-equal-as-infinity lib/point-sum.c unit \
	'			dbl(acc, acc);' \
	'			memset(acc, 0, sizeof(*acc));'
mutant point-sum-digit-not-negated lib/point-sum.c unit \
	'fe_sub(&minus[j].Y, &(fe){ { 0 } }, &plus[j].Y);' \
	''
mutant point-sum-affine-z-squared-once lib/point-sum.c unit \
	'fe_mul(&s2, &s2, &z1z1);		/* Y2 Z1^3 */' \
	'fe_mul(&s2, &s2, &acc->Z);'
mutant point-sum-y-uncompared lib/point-sum.c unit \
	'return memcmp(&a, &b, sizeof(a)) == 0;' \
	'return 1;'
mutant point-sum-alpha-twice lib/point-sum.c unit \
	'fe_add(&alpha, &alpha, &t);' \
	''
mutant field-sub-no-add-back lib/field.c unit \
	'mask = (uint64_t)0 - borrow;' \
	'mask = 0;'
mutant verify-precomputed-low-s-ignored lib/verify-key.c unit \
	'if (verify_low_s_refused(sig, flags))' \
	'if (0)'
mutant verify-precomputed-accepts-all lib/verify-key.c unit \
	'r = ec_verify_sig(NULL, vk->table, digest, sig, NULL, ctx);' \
	'r = 0;'
mutant verify-precomputed-without-table lib/verify-key.c unit \
	'(r = ec_table_new(q, &vk->table)) != 0)' \
	'(r = 0) != 0)'
mutant verify-low-s-out-of-range lib/verify.c unit \
	'return (flags & P256_VERIFY_LOW_S) && sig_in_range(sig) &&' \
	'return (flags & P256_VERIFY_LOW_S) &&'
mutant table-of-g lib/ec-table.c unit \
	'EC_GROUP_set_generator(t, q, EC_GROUP_get0_order(g), EC_GROUP_get0_cofactor(g)) != 1 ||' \
	''

# DER and cursor (lib/der.c, lib/cursor.c)
mutant der-minimal-length-unchecked lib/cursor.c unit \
	'if (v < 0x80 || (first > 1 && (v >> (8 * (first - 1))) == 0))' \
	'if (0)'
mutant der-zero-padding-accepted lib/cursor.c unit \
	'if (!(v.p[1] & 0x80))' \
	'if (0)'
mutant der-trailing-accepted lib/der.c unit \
	'(r = cursor_get_der(&c, 0x30, &seq)) == 0 && (r = cursor_end(&c)) == 0 &&' \
	'(r = cursor_get_der(&c, 0x30, &seq)) == 0 &&'
mutant der-sign-byte-dropped lib/der.c unit \
	'if (v[skip] & 0x80)' \
	'if (0)'

# the signer's batching (daemon/signer.c)
mutant answers-once-per-batch daemon/signer.c unit \
	'if (r == 0 && c.n > 0 && (answered += c.n) % IPC_ANSWERS_PER_WRITE == 0 &&' \
	'if (0 &&'
# key files (lib/base64.c, lib/pem.c, lib/keyfile*.c): docs/keys.md, "Mutants"
mutant base64-pad-inside-accepted lib/base64.c keys \
	'if (pads > 0) {' \
	'if (0) {'
mutant pem-end-label-unchecked lib/pem.c keys \
	'if (end_len != block->label_len || memcmp(end_label, block->label, end_len) != 0)' \
	'if (0)'
mutant pem-end-label-length-only lib/pem.c keys \
	'if (end_len != block->label_len || memcmp(end_label, block->label, end_len) != 0)' \
	'if (end_len != block->label_len)'
mutant keyfile-public-not-compared lib/keyfile.c keys \
	'if (!public_matches(dk.pubs[i], dk.pub_lens[i], out->pub)) {' \
	'if (0) {'
mutant keyfile-short-scalar-not-padded lib/keyfile-der.c keys \
	'return cursor_copy(octets, d + P256_SCALAR_LEN - n, n);' \
	'return cursor_copy(octets, d, n);'
mutant keyfile-trailing-der-ignored lib/keyfile-der.c keys \
	'if ((r = cursor_get_der(&c, TAG_SEQUENCE, &seq)) != 0 || (r = cursor_end(&c)) != 0)' \
	'if ((r = cursor_get_der(&c, TAG_SEQUENCE, &seq)) != 0)'
mutant keyfile-access-unchecked lib/keyfile-read.c keys \
	'return read_file(path, cap, 1, buf, len);' \
	'return read_file(path, cap, 0, buf, len);'
mutant keyfile-owner-unchecked lib/keyfile-read.c keys \
	'if (owner != 0 && owner != reader)' \
	'if (0)'
mutant keyfile-others-read-allowed lib/keyfile-read.c keys \
	'if ((mode & S_IRWXO) != 0)' \
	'if ((mode & (S_IWOTH | S_IXOTH)) != 0)'
mutant keyfile-group-bits-allowed lib/keyfile-read.c keys \
	'if ((mode & S_IRWXG) == 0)' \
	'if (1)'
mutant keyfile-acl-any-user-allowed lib/keyfile-read.c keys \
	'if (tag == ACL_USER && (id == 0 || id == reader))' \
	'if (tag == ACL_USER)'
mutant keyfile-acl-mask-ignored lib/keyfile-read.c keys \
	'|| (perm & mask) != 0)' \
	'|| perm != 0)'

total=$((killed + survived + broken))
echo "mutants: $killed killed, $survived survived, $broken broken of $total in $(($(date +%s) - start)) s"
[ "$survived" -eq 0 ] && [ "$broken" -eq 0 ] && [ "$total" -gt 0 ]
