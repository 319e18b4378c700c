#!/bin/bash
# SPDX-License-Identifier: ISC
# Each man page given renders with man -l and groff's warnings on, with nothing on stderr.
set -u
failed=0
for page in "$@"; do
	err=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
	out=$(MANWIDTH=80 man -l "$page" 2>/dev/null | wc -l)
	if [ -n "$err" ] || [ "$out" -lt 20 ]; then
		echo "$page: $out lines, warnings: $err"
		failed=1
	fi
done
exit $failed
