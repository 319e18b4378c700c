/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer harness for the journal input of p256signctl audit-verify --journal
 * (client/audit-verifier/audit-verifier.h, audit_journal_entry_line): the input as one line of
 * journalctl -o json. Besides "no crash, no over-read, no leak": every refusal has a reason in
 * printable ASCII (the operator's terminal shows it; it names fields, never quotes values), the
 * host fields are C strings of printable ASCII, and a line rebuilt from the fields fits its
 * buffer and goes through the record parser as a line of a file would.
 * Seeds: tests/fuzz/corpus/audit-journal, entries of a real daemon's journal (one of each
 * record type, and a process name journalctl shows as bytes).
 */
#include <stdlib.h>
#include <string.h>

#include "audit-verifier.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_text(const char *s, size_t cap, int may_be_empty)
{
	size_t n = strnlen(s, cap);

	if (n == cap || (n == 0 && !may_be_empty))
		abort();
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t line[AUDIT_LINE_MAX];
	struct audit_journal_host host;
	struct audit_record rec;
	char why[AUDIT_WHY_MAX];
	size_t len = 0;
	int r;

	r = audit_journal_entry_line(data, size, &host, line, sizeof(line), &len, why);
	check_text(host.machine_id, sizeof(host.machine_id), 1);
	check_text(host.hostname, sizeof(host.hostname), 1);
	if (r == AUDIT_BROKEN)
		check_text(why, AUDIT_WHY_MAX, 0);
	else if (r == 0 && (len == 0 || len > sizeof(line)))
		abort();
	else if (r == 0 && audit_record_parse(line, len, &rec, why, sizeof(why)) != 0)
		check_text(why, AUDIT_WHY_MAX, 0);
	return 0;
}
