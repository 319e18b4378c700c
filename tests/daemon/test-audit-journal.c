/* SPDX-License-Identifier: ISC */
/*
 * Unit test of the journal destination (daemon/audit/audit-journal.c). Each kind of record's entry is
 * parsed as the native protocol (NAME=value lines; NAME, newline, u64 little-endian length, value
 * for a value with a newline) and checked field by field, in order, against the record's own
 * line (audit-line.c) read by jansson: every member, objects flattened, then MESSAGE, PRIORITY
 * and SYSLOG_IDENTIFIER. Then sending, against a journal of its own: in a private mount
 * namespace a tmpfs hides /run, and a datagram socket bound at /run/systemd/journal/socket
 * receives. A batch arrives whole and in order, one datagram an entry; the refusals: no journal
 * (no socket, a socket nobody listens on), a journal that stopped reading (EAGAIN at once, not a
 * wait, with what was taken counted exactly); a journal that restarted is reconnected to.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "testutil.h"
#include "test-audit-ns.h"
#include "audit-journal.h"
#include "audit-line.h"

#define FIELDS 64
#define ENTRY_MAX 2048
#define BATCH 3
#define FLOOD 5000	/* more than a journal's queue holds (net.unix.max_dgram_qlen, 512) */

struct parsed {
	size_t n;
	char name[FIELDS][80];
	char value[FIELDS][512];
	int binary[FIELDS];
};

/* The native protocol, strictly: -1 on anything malformed. */
static int parse(const uint8_t *p, size_t len, struct parsed *out)
{
	size_t i = 0;

	out->n = 0;
	while (i < len) {
		size_t start = i, vlen;
		uint64_t le = 0;

		if (out->n == FIELDS)
			return -1;
		while (i < len && p[i] != '=' && p[i] != '\n')
			i++;
		if (i == len || i == start || i - start >= sizeof(out->name[0]))
			return -1;
		memcpy(out->name[out->n], p + start, i - start);
		out->name[out->n][i - start] = '\0';
		out->binary[out->n] = p[i] == '\n';
		if (p[i++] == '=') {
			start = i;
			while (i < len && p[i] != '\n')
				i++;
			if (i == len)
				return -1;
			vlen = i - start;
		} else {
			if (len - i < 8)
				return -1;
			for (int b = 7; b >= 0; b--)
				le = le << 8 | p[i + (size_t)b];
			i += 8;
			if (le > len - i || len - i - le < 1 || p[i + le] != '\n')
				return -1;
			start = i;
			vlen = (size_t)le;
			i += vlen;
		}
		if (vlen >= sizeof(out->value[0]))
			return -1;
		memcpy(out->value[out->n], p + start, vlen);
		out->value[out->n][vlen] = '\0';
		out->n++;
		i++;	/* the newline */
	}
	return 0;
}

static void check_field(const struct parsed *got, size_t i, const char *name, const char *value,
	int binary)
{
	if (i >= got->n) {
		fprintf(stderr, "[%s] field %zu (%s) missing\n", test_case, i, name);
		test_failures++;
		return;
	}
	if (strcmp(got->name[i], name) != 0 || strcmp(got->value[i], value) != 0 ||
	    got->binary[i] != binary) {
		fprintf(stderr, "[%s] field %zu: got %s=\"%s\" (binary %d), expected %s=\"%s\" (%d)\n",
		    test_case, i, got->name[i], got->value[i], got->binary[i], name, value, binary);
		test_failures++;
	}
}

static const uint8_t prev[32] = { 0xff, 0x01 };

/* e's journal entry, parsed into *got; its length. */
static size_t entry_of(const struct audit_entry *e, uint64_t seq, struct parsed *got)
{
	char buf[ENTRY_MAX];
	size_t len = audit_journal_entry(e, seq, prev, buf, sizeof(buf));

	CHECK(len > 0);
	CHECK(parse((const uint8_t *)buf, len, got) == 0);
	return len;
}

/* The journal's name of a member: in upper case after P256SIGN_ and its object's name. */
static void field_name(char *out, size_t cap, const char *object, const char *member)
{
	snprintf(out, cap, "P256SIGN_%s%s%s", object ? object : "", object ? "_" : "", member);
	for (char *c = out; *c != '\0'; c++)
		*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
}

/* A member of the line as the journal should have it: strings as they are, integers in decimal. */
static void check_member(const struct parsed *got, size_t *i, const char *name, json_t *value)
{
	char number[32];
	const char *text = json_string_value(value);

	if (json_is_integer(value)) {
		snprintf(number, sizeof(number), "%" JSON_INTEGER_FORMAT,
		    json_integer_value(value));
		text = number;
	}
	CHECK(text != NULL);
	if (text != NULL)
		check_field(got, *i, name, text, strchr(text, '\n') != NULL);
	(*i)++;
}

/* e's journal entry holds its line's members, in order, then the three fields of every entry,
 * MESSAGE being message. */
static void same_as_line(const char *name, const struct audit_entry *e, uint64_t seq,
	const char *message)
{
	static struct parsed got;
	char line[ENTRY_MAX], field[160];
	size_t len = audit_line(e, seq, prev, line, sizeof(line)), i = 0;
	json_t *rec = json_loadb(line, len, 0, NULL), *value, *inner_value;
	const char *key, *inner;

	test_case = name;
	CHECK(len > 0 && rec != NULL);
	entry_of(e, seq, &got);
	json_object_foreach(rec, key, value) {
		if (!json_is_object(value)) {
			field_name(field, sizeof(field), NULL, key);
			check_member(&got, &i, field, value);
			continue;
		}
		json_object_foreach(value, inner, inner_value) {
			field_name(field, sizeof(field), key, inner);
			check_member(&got, &i, field, inner_value);
		}
	}
	check_field(&got, i++, "MESSAGE", message, 0);
	check_field(&got, i++, "PRIORITY", "6", 0);
	check_field(&got, i++, "SYSLOG_IDENTIFIER", "p256signd", 0);
	CHECK_INT(got.n, i);
	json_decref(rec);
}

/* n entries of e (seq 1 to n) back to back in a new buffer, their ends in *ends. */
static char *entries(const struct audit_entry *e, size_t n, size_t **ends)
{
	char *buf = malloc(n * ENTRY_MAX);
	size_t fill = 0;

	*ends = malloc(n * sizeof(**ends));
	if (buf == NULL || *ends == NULL)
		test_fatal("malloc");
	for (size_t i = 0; i < n; i++) {
		size_t len = audit_journal_entry(e, i + 1, prev, buf + fill, ENTRY_MAX);

		CHECK(len > 0);
		fill += len;
		(*ends)[i] = fill;
	}
	return buf;
}

/* Entry i of buf arrived, as it was. */
static void received(int fd, const char *buf, const size_t *ends, size_t i)
{
	static char got[ENTRY_MAX + 1];
	size_t start = i > 0 ? ends[i - 1] : 0;
	ssize_t n = recv(fd, got, sizeof(got), MSG_DONTWAIT);

	if (n != (ssize_t)(ends[i] - start) || memcmp(got, buf + start, (size_t)n) != 0) {
		fprintf(stderr, "[%s] datagram %zu: %zd bytes, not entry %zu's %zu\n", test_case,
		    i, n, i, ends[i] - start);
		test_failures++;
	}
}

static void check_nothing_queued(int fd)
{
	char c;

	CHECK(recv(fd, &c, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN);
}

/* The BATCH entries of buf are taken whole, and arrive one datagram each, in order. */
static void batch_arrives(int fd, const char *buf, const size_t *ends)
{
	int err;

	CHECK_INT(audit_journal_send(buf, ends, BATCH, &err), BATCH);
	CHECK_INT(err, 0);
	for (size_t i = 0; i < BATCH; i++)
		received(fd, buf, ends, i);
	check_nothing_queued(fd);
}

int main(void)
{
	const struct ucred peer = { .pid = 4242, .uid = 1000, .gid = 1000 };
	const uint8_t id[32] = { 0x5a, 0x7a }, sig[64] = { 1, 2, 3 };
	struct audit_subject digest = { .kind = AUDIT_SUBJECT_DIGEST, .len = 32, .hash = { 9 } };
	struct audit_subject tls = { .kind = AUDIT_SUBJECT_TLS13, .len = 48, .hash = { 7 },
		.tls_client = 1 };
	struct audit_request r = { .peer = &peer, .comm = "ng\nP256SIGN_X=1",
		.unit = "nginx.service", .conn = 17, .id = 4294967295u, .op = "sign", .key = "web",
		.key_id = id, .subject = &digest, .sig = sig, .sig_len = 64, .us = 57 };
	struct audit_key key = { .name = "audit" };
	static struct parsed got;
	struct audit_entry e[BATCH], flood;
	char small[ENTRY_MAX];
	size_t *ends, *flood_ends, len, sent;
	char *buf, *flood_buf;
	int fd, err;

	/* Every kind of record: a request whose comm holds a newline (it must not become a field
	 * of its own), a refused TLS request, a frame that was no request, a checkpoint, an open
	 * record with its audit key. */
	CHECK(audit_record_request(&e[0], &r) == 0);
	same_as_line("request", &e[0], 7, "audit request 7 sign key=web ok");
	entry_of(&e[0], 7, &got);
	check_field(&got, 10, "P256SIGN_PEER_COMM", "ng\nP256SIGN_X=1", 1);
	check_field(&got, 11, "P256SIGN_PEER_UNIT", "nginx.service", 0);

	r.subject = &tls;
	r.error = PROTO_E_DENIED;
	r.sig = NULL;
	r.comm = "nginx";
	CHECK(audit_record_request(&e[1], &r) == 0);
	same_as_line("TLS request, denied", &e[1], 8, "audit request 8 sign key=web denied");
	entry_of(&e[1], 8, &got);
	check_field(&got, 15, "P256SIGN_TLS_KIND", "tls13", 0);
	check_field(&got, 16, "P256SIGN_TLS_SIDE", "client", 0);

	r = (struct audit_request){ .peer = &peer, .op = "frame", .error = PROTO_E_BAD_FRAME };
	CHECK(audit_record_request(&flood, &r) == 0);
	same_as_line("frame", &flood, 9, "audit request 9 frame bad-frame");

	CHECK(audit_record_new(&e[2], AUDIT_CHECKPOINT) == 0);
	e[2].u.cp = (struct audit_checkpoint_entry){ .reason = "count", .covers_seq = 9,
		.covers_hash = { 0xab }, .key_id = { 0xcd }, .sig = { 0xef } };
	same_as_line("checkpoint", &e[2], 10, "audit checkpoint 10");

	key.point[0] = 4;
	CHECK(audit_record_new(&flood, AUDIT_OPEN) == 0);
	flood.u.open = (struct audit_open_entry){ .reason = "start", .pid = 31337, .key = &key };
	same_as_line("open", &flood, 1, "audit open 1");

	test_case = "an entry that does not fit";
	len = audit_journal_entry(&e[0], 7, prev, small, sizeof(small));
	CHECK(len > 0);
	CHECK_INT(audit_journal_entry(&e[0], 7, prev, small, len), len);
	CHECK_INT(audit_journal_entry(&e[0], 7, prev, small, len - 1), 0);
	e[2].type = 99;
	CHECK_INT(audit_journal_entry(&e[2], 7, prev, small, sizeof(small)), 0);
	e[2].type = AUDIT_CHECKPOINT;

	if (private_run() != 0) {
		perror("a private mount namespace with /run on tmpfs");
		return 1;
	}
	/* The batch: the three records of e[] as seq 1 to 3 (built one by one, as the daemon
	 * does, each with its own members). */
	buf = malloc(BATCH * ENTRY_MAX);
	ends = malloc(BATCH * sizeof(*ends));
	if (buf == NULL || ends == NULL)
		test_fatal("malloc");
	for (size_t i = 0, fill = 0; i < BATCH; i++) {
		fill += audit_journal_entry(&e[i], i + 1, prev, buf + fill, ENTRY_MAX);
		ends[i] = fill;
	}

	test_case = "no journal: no socket";
	CHECK_INT(audit_journal_send(buf, ends, BATCH, &err), 0);
	CHECK_INT(err, ENOENT);

	test_case = "no journal: a socket nobody listens on";
	fd = journal_bind();
	CHECK(fd >= 0);
	close(fd);
	CHECK_INT(audit_journal_send(buf, ends, BATCH, &err), 0);
	CHECK_INT(err, ECONNREFUSED);
	CHECK(unlink(TEST_JOURNAL_SOCKET) == 0);

	test_case = "a batch: one datagram an entry, in order";
	fd = journal_bind();
	CHECK(fd >= 0);
	batch_arrives(fd, buf, ends);

	test_case = "a journal that stopped reading: EAGAIN at once, what was taken counted";
	flood_buf = entries(&e[0], FLOOD, &flood_ends);
	sent = audit_journal_send(flood_buf, flood_ends, FLOOD, &err);
	CHECK(sent > 0 && sent < FLOOD);
	CHECK_INT(err, EAGAIN);
	for (size_t i = 0; i < sent; i++)
		received(fd, flood_buf, flood_ends, i);
	check_nothing_queued(fd);	/* no more than it said */
	batch_arrives(fd, buf, ends);	/* room again */

	test_case = "a journal that restarted: connected to anew";
	close(fd);
	CHECK(unlink(TEST_JOURNAL_SOCKET) == 0);
	fd = journal_bind();
	CHECK(fd >= 0);
	batch_arrives(fd, buf, ends);

	test_case = "a journal gone: refused";
	close(fd);
	CHECK(unlink(TEST_JOURNAL_SOCKET) == 0);
	CHECK_INT(audit_journal_send(buf, ends, BATCH, &err), 0);
	CHECK_INT(err, ENOENT);
	free(flood_buf);
	free(flood_ends);
	free(buf);
	free(ends);
	return test_done("audit-journal");
}
