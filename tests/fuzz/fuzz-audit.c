/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer harness for the audit log verifier of p256signctl audit-verify
 * (client/audit-verifier/audit-verifier.h):
 * the input as one record for audit_record_parse, then its lines, as one file, for the chain.
 * Besides "no crash, no over-read, no leak": an accepted record has a type, a seq of at least 1
 * and a well-formed time; every refusal has a reason in printable ASCII, since the operator's
 * terminal shows it (a reason never quotes the line's bytes); a log's end is sealed exactly when
 * no record is unsealed.
 * Seeds: tests/fuzz/corpus/audit (a sealed series as one file, and one record of each type),
 * written by tests/fuzz/make-corpus.
 */
#include <stdlib.h>
#include <string.h>

#include "audit-verifier.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_reason(const char *why)
{
	if (why[0] == '\0')
		abort();
	for (const char *p = why; *p != '\0'; p++)
		if (*p < 0x20 || *p > 0x7e)
			abort();
}

static void one_record(const uint8_t *data, size_t size)
{
	struct audit_record r;
	char why[AUDIT_WHY_MAX];

	if (audit_record_parse(data, size, &r, why, sizeof(why)) != 0) {
		check_reason(why);
		return;
	}
	if (r.type > AUDIT_DROPPED || r.seq == 0 || strlen(r.time) != AUDIT_TIME_LEN ||
	    r.time[AUDIT_TIME_LEN - 1] != 'Z')
		abort();
}

static void one_file(const uint8_t *data, size_t size)
{
	struct audit_chain c;
	char why[AUDIT_WHY_MAX];
	const uint8_t *nl;
	uint64_t seq, from, to;
	int r = 0, first = 1;

	audit_chain_init(&c, NULL);
	while (size > 0 && r == 0 && (nl = memchr(data, '\n', size)) != NULL) {
		r = audit_chain_add(&c, data, (size_t)(nl - data), first, why, &seq);
		if (r == AUDIT_BROKEN)
			check_reason(why);
		first = 0;
		size -= (size_t)(nl - data) + 1;
		data = nl + 1;
	}
	if (r == 0) {
		uint64_t unsealed = audit_chain_unsealed(&c, &from, &to);

		if (unsealed > c.records ||
		    (audit_chain_end(&c) != AUDIT_END_UNSEALED) != (c.records > 0 && unsealed == 0))
			abort();
	}
	audit_chain_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size <= AUDIT_LINE_MAX)
		one_record(data, size);
	one_file(data, size);
	return 0;
}
