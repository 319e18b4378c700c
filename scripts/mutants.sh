#!/bin/bash
# SPDX-License-Identifier: ISC
# Mutation check of the signing core (and of the worker's batching): each mutant below is a
# deliberate bug (a sed edit of one file in lib/ or daemon/) that the tests must notice. The tree
# is copied to a temporary directory (tracked and new files, not build directories), built once,
# and for each mutant the file is edited, the unit-test programs rebuilt incrementally with ninja
# and the unit suite run (plus the valgrind ct suite for the constant-time mutants). Prints one
# line per mutant, killed or SURVIVED, and a total; exits non-zero if a mutant survived, no longer
# applies (a sed pattern that does not match, so refactors cannot silently neuter the check) or
# does not build.
# Usage: scripts/mutants.sh [NAME-SUBSTRING]   (runs the matching mutants only)
# MUTANTS_ALL_TESTS=1 runs every test for every mutant (slower) to list all that kill it.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
only=${1:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
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
if [ -z "$unit_targets" ]; then
	echo "mutants: no unit tests found"
	exit 2
fi

# run_suites SUITES: builds what the suites need and runs them: 0 when every test passes, 1 when
# one fails, 2 when the build fails
run_suites() {
	local t=$unit_targets args=(--suite unit)
	if [ "$1" = unit+ct ]; then
		t="$t $ct_targets"
		args+=(--suite ct)
	fi
	# shellcheck disable=SC2086 # a list of targets
	ninja -C "$build" $t >"$work/build.log" 2>&1 || return 2
	[ "${MUTANTS_ALL_TESTS:-0}" = 1 ] || args+=(--maxfail 1)
	meson test -C "$build" --no-rebuild "${args[@]}" >"$work/test.log" 2>&1 || return 1
}

if ! run_suites unit+ct; then
	echo "mutants: the unmutated tree does not pass its tests"
	tail -30 "$work/build.log" "$work/test.log"
	exit 2
fi
echo "baseline built and passing in $(($(date +%s) - start)) s"

# ---- the mutants ------------------------------------------------------------------------------
killed=0
survived=0
broken=0

# mutant NAME FILE SUITES SED-EXPRESSION...: each expression must change the file
mutant() {
	local name=$1 file=$2 suites=$3
	shift 3
	[ -n "$only" ] && [[ $name != *"$only"* ]] && return
	local f=$src/$file orig=$work/orig
	local t0
	t0=$(date +%s)
	cp -p "$f" "$orig"
	for expr in "$@"; do
		sed -e "$expr" "$f" >"$work/next"
		if cmp -s "$f" "$work/next"; then
			printf '%-28s BROKEN: pattern does not apply: %s\n' "$name" "$expr"
			broken=$((broken + 1))
			cp -p "$orig" "$f"
			return
		fi
		cat "$work/next" >"$f"
	done
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
	's/update(d, 0x00, x, 32/update(d, 0xAA, x, 32/' \
	's/update(d, 0x01, x, 32/update(d, 0x00, x, 32/' \
	's/update(d, 0xAA, x, 32/update(d, 0x01, x, 32/'
mutant drbg-extra-dropped lib/drbg.c unit \
	's/x, 32, h1, 32, extra, extra_len)/x, 32, h1, 32, extra, 0)/g'
mutant drbg-retry-no-update lib/drbg.c unit \
	's/if (d->started && (r = update(d, 0x00, NULL, 0, NULL, 0, NULL, 0)) != 0)/if (0)/'
mutant drbg-v-not-stepped lib/drbg.c unit \
	's/^\tif ((r = hmac_v(d, -1, NULL, 0, NULL, 0, NULL, 0, d->v)) != 0)$/\tif ((r = hmac_v(d, -1, NULL, 0, NULL, 0, NULL, 0, t)) != 0)/' \
	's/^\tmemcpy(t, d->v, sizeof(d->v));$//'
mutant drbg-k-taken-for-v lib/drbg.c unit \
	's/^\t    (r = hmac_v(d, -1, NULL, 0, NULL, 0, NULL, 0, d->v)) != 0)$/\t    (memcpy(d->v, k, 32), 0) != 0)/'

# signing (lib/sign.c)
mutant digest-not-reduced lib/sign.c unit \
	's/scalar_to_bytes(h1, \&s->e);/memcpy(h1, digest, 32);/'
mutant hedge-dropped lib/sign.c unit \
	's/^\t\*ad_len += HEDGE_LEN;$//'
mutant private-range-unchecked lib/sign.c unit \
	's/return ok ? 0 : P256_ERR_SCALAR_RANGE;/return 0;/'
mutant sign-checked-no-verify lib/sign.c unit \
	's/r = ec_verify_sig(q, key->verifier, digest, sig, w, ctx);/r = 0;/'
mutant batch-back-substitution-off-by-one lib/sign-batch.c unit \
	's/for (size_t j = m - 1; j > 0; j--) {/for (size_t j = m - 1; j > 1; j--) {/'
mutant batch-hedge-of-previous-item lib/sign-batch.c unit \
	's/return hedges != NULL ? hedges + SIGN_HEDGE_LEN \* i : none;/return hedges != NULL ? hedges + SIGN_HEDGE_LEN * (i > 0 ? i - 1 : 0) : none;/'
mutant batch-checked-no-verify lib/sign-batch.c unit \
	's/^\tsign_check_batch(items, n);$//'
mutant batch-check-first-inverse lib/sign-batch.c unit \
	's/it->sig, \&w\[j\]);/it->sig, \&w[0]);/'
mutant batch-check-range-unguarded lib/sign-batch.c unit \
	's/if (!ec_in_range(it->sig + 32)) {/if (0) {/'
mutant table-never-built lib/sign.c unit \
	's/return key_init(key, d, 1);/return key_init(key, d, 0);/'
mutant untabled-builds-table lib/sign.c unit \
	's/return key_init(key, d, 0);/return key_init(key, d, 1);/'

# precomputed nonces (lib/nonce-pool.c, daemon/signer.c) and the batch's x (lib/field.c)
mutant pool-entry-reused lib/nonce-pool.c unit \
	's/e = \&pg->e\[--pg->ready\];/e = \&pg->e[pg->ready - 1];/'
mutant pool-kept-in-fork-child lib/nonce-pool.c unit \
	's/madvise(p, pool->bytes, MADV_WIPEONFORK) != 0 ||//'
mutant pool-refill-while-request-waits daemon/signer.c unit \
	's/if (request_waiting(fd))/if (request_waiting(fd) \&\& 0)/'
mutant signer-ignores-pool daemon/signer.c unit \
	's/if (pools\[key\] != NULL \&\& (r = p256_pool_sign(/if (0 \&\& (r = p256_pool_sign(/'
mutant field-batch-back-substitution-dropped lib/field.c unit \
	's/^\t\t\tmont_mul(t.v, t.v, z\[j\].v);.*$//'

# mod-n arithmetic (lib/scalar.c)
mutant mont-low-limb-dropped lib/scalar.c unit \
	's/c = mac(t0, m, N\[0\], \*t0, 0);/c = mac(t0, m, N[0], 0, 0);/'
mutant mont-high-word-dropped lib/scalar.c unit \
	's/reduce_once(r, t4, t5, t6, t7, top);/reduce_once(r, t4, t5, t6, t7, 0);/'
mutant reduce-once-keeps-a lib/scalar.c unit \
	's/mask = (uint64_t)0 - (hi | (borrow ^ 1));/mask = 0;/'
mutant add-carry-dropped lib/scalar.c unit \
	's/reduce_once(r->v, s\[0\], s\[1\], s\[2\], s\[3\], carry);/reduce_once(r->v, s[0], s[1], s[2], s[3], 0);/'
mutant range-zero-accepted lib/scalar.c unit \
	's/return (uint64_t)0 - (below_n \& nonzero);/return (uint64_t)0 - below_n;/'

# safegcd inversion (lib/modinv.c) and arithmetic mod p (lib/field.c)
mutant divstep-swap-dropped lib/modinv.c unit \
	's/^\t\tf += g \& swap;$//' \
	's/^\t\tU += Q \& swap;$//'
mutant divsteps-batch-missing lib/modinv.c unit \
	's/^#define BATCHES 10$/#define BATCHES 9/'
mutant inverse-sign-not-corrected lib/modinv.c unit \
	's/normalize(\&d, f.v\[4\] >> 63, m);/normalize(\&d, 0, m);/'
mutant field-final-subtraction-dropped lib/field.c unit \
	's/mask = (uint64_t)0 - (t\[4\] | (sub_p(d, t) ^ 1));/mask = 0 * sub_p(d, t);/'
mutant verify-x-plus-n-unbounded lib/field.c unit \
	's/return rn\[0\] == 0 \&\& sub_p(d, c.v) == 1 \&\& /return rn[0] == 0 \&\& /'

# constant time (killed by the valgrind ct suite only: the results stay correct)
mutant k-plus-n-removed lib/ec.c unit+ct \
	's/scalar_plus_n_bytes(kn, k);/kn[0] = 0; scalar_to_bytes(kn + 1, k);/'
mutant select-by-branch lib/scalar.c unit+ct \
	's/r\[0\] = (d0 \& mask) | (a0 \& ~mask);/r[0] = mask ? d0 : a0;/'
mutant divstep-swap-by-branch lib/modinv.c unit+ct \
	's/^\t\tswap = pos \& odd;$/\t\tswap = (eta >> 63) ? 0 : odd;/'

# verification (lib/verify.c, lib/ec.c)
mutant low-s-comparison-flipped lib/verify.c unit \
	's/memcmp(sig + 32, HALF_N, 32) > 0/memcmp(sig + 32, HALF_N, 32) < 0/'
mutant normalize-half-n-moved lib/verify.c unit \
	's/memcmp(sig + 32, HALF_N, 32) <= 0/memcmp(sig + 32, HALF_N, 32) < 0/'
mutant s-range-unchecked lib/verify.c unit \
	's/return ec_in_range(sig) \&\& ec_in_range(sig + 32);/return ec_in_range(sig);/'
mutant eip7951-length-loose lib/verify.c unit \
	's/input_len != 160 ||/input_len < 160 ||/'
mutant verify-infinity-unchecked lib/field.c unit \
	's/if ((z2.v\[0\] | z2.v\[1\] | z2.v\[2\] | z2.v\[3\]) == 0)/if (0)/'
mutant verify-x-not-reduced lib/field.c unit \
	's/return rn\[0\] == 0 \&\& sub_p(d, c.v) == 1 \&\& x_equals(x.v, z2.v, c.v);/return 0;/'
mutant table-term-dropped lib/ec.c unit \
	's/ctx) == 1 \&\& EC_POINT_add(g, rp, rp, t, ctx) == 1;/ctx) == 1;/'
mutant table-of-g lib/ec-table.c unit \
	's/EC_GROUP_set_generator(t, q, EC_GROUP_get0_order(g), EC_GROUP_get0_cofactor(g)) != 1 ||//'

# DER and cursor (lib/der.c, lib/cursor.c)
mutant der-minimal-length-unchecked lib/cursor.c unit \
	's/if (v < 0x80 || (first > 1 \&\& (v >> (8 \* (first - 1))) == 0))/if (0)/'
mutant der-zero-padding-accepted lib/cursor.c unit \
	's/if (!(v.p\[1\] \& 0x80))/if (0)/'
mutant der-trailing-accepted lib/der.c unit \
	's/(r = cursor_get_der(&c, 0x30, &seq)) == 0 && (r = cursor_end(&c)) == 0 &&/(r = cursor_get_der(\&c, 0x30, \&seq)) == 0 \&\&/'
mutant der-sign-byte-dropped lib/der.c unit \
	's/int pad = (v\[skip\] \& 0x80) != 0;/int pad = 0;/'

# the signer's batching (daemon/signer.c)
mutant answers-once-per-batch daemon/signer.c unit \
	's/if (c.n > 0 \&\& (answered += c.n) % IPC_ANSWERS_PER_WRITE == 0 \&\&/if (0 \&\&/'

total=$((killed + survived + broken))
echo "mutants: $killed killed, $survived survived, $broken broken of $total in $(($(date +%s) - start)) s"
[ "$survived" -eq 0 ] && [ "$broken" -eq 0 ] && [ "$total" -gt 0 ]
