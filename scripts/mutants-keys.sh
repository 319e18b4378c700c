#!/bin/bash
# SPDX-License-Identifier: ISC
# Mutation check of the key file reader (docs/keys.md, "Mutants"): applies each mutant below to
# a copy of the tree, rebuilds it and runs the meson suite 'keys'. A mutant is killed when a
# test fails. Exits 0 only when every mutant is killed. Self-contained: needs meson, ninja and
# python3; usage: scripts/mutants-keys.sh
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# name @@ file @@ exact original text (must occur once) @@ replacement
mutants=(
	"'=' accepted inside base64@@lib/base64.c@@if (pads > 0) {@@if (0) {"
	"END label not compared@@lib/pem.c@@if (end_len != block->label_len || memcmp(end_label, block->label, end_len) != 0)@@if (0)"
	"END label compared by length only@@lib/pem.c@@if (end_len != block->label_len || memcmp(end_label, block->label, end_len) != 0)@@if (end_len != block->label_len)"
	"embedded public key not compared@@lib/keyfile.c@@if (!public_matches(dk.pubs[i], dk.pub_lens[i], out->pub)) {@@if (0) {"
	"short scalar not padded@@lib/keyfile-der.c@@return cursor_copy(octets, d + P256_SCALAR_LEN - n, n);@@return cursor_copy(octets, d, n);"
	"trailing DER bytes ignored@@lib/keyfile-der.c@@if ((r = cursor_get_der(&c, TAG_SEQUENCE, &seq)) != 0 || (r = cursor_end(&c)) != 0)@@if ((r = cursor_get_der(&c, TAG_SEQUENCE, &seq)) != 0)"
	"key file read without the access check@@lib/keyfile-read.c@@return read_file(path, cap, 1, buf, len);@@return read_file(path, cap, 0, buf, len);"
	"owner not checked@@lib/keyfile-read.c@@if (owner != 0 && owner != reader)@@if (0)"
	"others' read bit allowed@@lib/keyfile-read.c@@if ((mode & S_IRWXO) != 0)@@if ((mode & (S_IWOTH | S_IXOTH)) != 0)"
	"group bits allowed@@lib/keyfile-read.c@@if ((mode & S_IRWXG) == 0)@@if (1)"
	"any named user of an ACL allowed@@lib/keyfile-read.c@@if (tag == ACL_USER && (id == 0 || id == reader))@@if (tag == ACL_USER)"
	"ACL entries read without the mask@@lib/keyfile-read.c@@|| (perm & mask) != 0)@@|| perm != 0)"
)

# replace FILE OLD NEW: exact, single-occurrence substitution (a mutant that no longer applies is
# an error, so that this list follows the code).
replace() {
	python3 - "$1" "$2" "$3" <<'PY'
import sys
path, old, new = sys.argv[1:]
text = open(path).read()
if text.count(old) != 1:
    sys.exit(f"mutant does not apply: {old!r} occurs {text.count(old)} times in {path}")
open(path, "w").write(text.replace(old, new))
PY
}

# The tree as it is, committed or not (build folders excluded).
(cd "$top" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar -cf - 2>/dev/null) |
	(mkdir -p "$work/src" && tar -C "$work/src" -xf -)
meson setup "$work/build" "$work/src" >"$work/setup.log" 2>&1 || { cat "$work/setup.log"; exit 2; }
ninja -C "$work/build" >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 2; }
if ! meson test -C "$work/build" --suite keys >"$work/test.log" 2>&1; then
	echo "the unmutated tree fails its 'keys' tests:"
	grep -E 'FAIL|ERROR' "$work/test.log"
	exit 2
fi

killed=0
survived=0
for m in "${mutants[@]}"; do
	name=${m%%@@*}
	rest=${m#*@@}
	file=${rest%%@@*}
	rest=${rest#*@@}
	old=${rest%%@@*}
	new=${rest#*@@}
	cp "$work/src/$file" "$work/orig"
	replace "$work/src/$file" "$old" "$new" || exit 2
	if ! ninja -C "$work/build" >"$work/build.log" 2>&1; then
		echo "mutant does not build: $name"
		tail -20 "$work/build.log"
		exit 2
	fi
	if meson test -C "$work/build" --suite keys >"$work/test.log" 2>&1; then
		echo "SURVIVED: $name"
		survived=$((survived + 1))
	else
		by=$(awk '/ FAIL / {print $4}' "$work/test.log" | sort -u | paste -sd, -)
		echo "killed: $name (by ${by:-a failing test})"
		killed=$((killed + 1))
	fi
	cp "$work/orig" "$work/src/$file"
done
echo "key file mutants: $killed killed, $survived survived"
[ "$survived" -eq 0 ]
