/* SPDX-License-Identifier: ISC */
/*
 * Unit test of the audit record's line (daemon/audit-line.c) against jansson's own
 * json_dumps(JSON_PRESERVE_ORDER | JSON_COMPACT): the same bytes for a request record, for strings
 * that need every kind of escape and for UTF-8, negative and large integers; a line that does not
 * fit, and a type no record holds, are refused.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "audit-line.h"
#include "audit-record.h"

/* audit_line gives exactly json_dumps's bytes for rec. */
static void same_as_jansson(const char *name, json_t *rec)
{
	char line[4096];
	char *want = json_dumps(rec, JSON_PRESERVE_ORDER | JSON_COMPACT);
	size_t len = audit_line(rec, line, sizeof(line));

	test_case = name;
	CHECK(want != NULL);
	if (want != NULL) {
		CHECK_INT(len, strlen(want));
		CHECK(len == strlen(want) && memcmp(line, want, len) == 0);
	}
	free(want);
}

int main(void)
{
	const struct ucred peer = { .pid = 4242, .uid = 1000, .gid = 1000 };
	const uint8_t id[32] = { 0x5a, 0x7a }, sig[64] = { 1, 2, 3 }, prev[32] = { 0xff };
	const struct audit_subject sub = { .kind = AUDIT_SUBJECT_TLS13, .len = 48, .hash = { 7 } };
	struct audit_request r = { .peer = &peer, .comm = "nginx \"w\\orker\"\t\n\r\b\f\x01\x1f",
		.unit = "caf\xc3\xa9-\xe2\x82\xac.service", .conn = 17, .id = 4294967295u,
		.op = "sign-tls", .key = "web", .key_id = id, .subject = &sub, .sig = sig, .sig_len = 64,
		.us = 57 };
	json_t *rec = audit_record_new("request"), *odd;
	char small[64];

	CHECK(rec != NULL && audit_record_request(rec, &r) == 0 && audit_record_chain(rec, 1, prev) == 0);
	same_as_jansson("request record", rec);
	odd = json_pack("{s:I, s:I, s:i, s:s}", "min", (json_int_t)INT64_MIN, "max",
	    (json_int_t)INT64_MAX, "zero", 0, "empty", "");
	same_as_jansson("integers, an empty string", odd);
	test_case = "refusals";
	CHECK_INT(audit_line(rec, small, sizeof(small)), 0);
	CHECK(json_object_set_new(odd, "real", json_real(1.5)) == 0);
	CHECK_INT(audit_line(odd, small, sizeof(small)), 0);
	json_decref(rec);
	json_decref(odd);
	return test_done("audit-line");
}
