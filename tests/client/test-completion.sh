#!/bin/bash
# SPDX-License-Identifier: ISC
# The bash completion of p256signctl: commands, options and format values complete.
# Usage: test-completion.sh COMPLETION-FILE
set -u
source /usr/share/bash-completion/bash_completion
source "$1"
failed=0

# expect "WORDS..." WORD...: completing the last word of the line must offer each WORD.
expect() {
	local line=$1
	shift
	read -ra COMP_WORDS <<<"$line"
	[[ $line == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	_p256signctl
	for want in "$@"; do
		if ! printf '%s\n' "${COMPREPLY[@]}" | grep -qx -- "$want"; then
			echo "completing '$line': no '$want' in: ${COMPREPLY[*]}"
			failed=1
		fi
	done
}

expect "p256signctl " status keys pubkey cert export-key-ref sign verify eip7951 ping metrics \
	check-key audit-verify
expect "p256signctl ce" cert
expect "p256signctl cert k --" --out --pem --json
expect "p256signctl exp" export-key-ref
expect "p256signctl export-key-ref --" --socket --timeout
expect "p256signctl si" sign
expect "p256signctl --socket /x ke" keys
expect "p256signctl pubkey k --format " pem der hex sec1 sec1-compressed
expect "p256signctl sign k --format " der raw
expect "p256signctl sign k --" --digest --file --format --out --json
expect "p256signctl verify --" --pubkey --pubkey-hex --signature --signature-hex --digest --file
expect "p256signctl check-key --" --cert
expect "p256signctl audit-verify --" --pubkey --anchor --expect-stopped --journal --host \
	--json
expect "p256signctl metrics --" --output --socket --timeout
expect "p256signctl help me" metrics
expect "p256signctl help ve" verify
exit $failed
