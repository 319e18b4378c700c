/* SPDX-License-Identifier: ISC */
/*
 * p256signctl audit-verify FILE... [--pubkey PEM] [--anchor HASH] [--expect-stopped]: reads a
 * series of audit files, oldest first, one line at a time, and stops at the first record that
 * breaks the log (audit-verifier-chain.c); otherwise prints what it checked, how the log ends and
 * what no checkpoint seals yet. docs/audit.md, "Verifying".
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit-verifier.h"
#include "ctl.h"
#include "hex.h"

#define CMD "audit-verify"

enum line_result { LINE_OK, LINE_EOF, LINE_TOO_LONG, LINE_UNTERMINATED, LINE_IO_ERROR };

/* The command line. */
struct verify_args {
	const char *pubkey;
	const char *anchor;		/* hex, as given */
	int expect_stopped;
	char **files;			/* argc entries */
	int nfiles;
};

/* Where verification stopped, for the report. */
struct audit_break {
	const char *file;
	unsigned long line;		/* 0: the file as a whole */
	uint64_t seq;			/* 0: not known */
	char why[AUDIT_WHY_MAX];
};

/* The next line into buf (at most cap bytes, the '\n' not kept). */
static enum line_result read_line(FILE *f, uint8_t *buf, size_t cap, size_t *len)
{
	size_t n = 0;
	int ch;

	while ((ch = getc_unlocked(f)) != EOF) {
		if (ch == '\n') {
			*len = n;
			return LINE_OK;
		}
		if (n == cap)
			return LINE_TOO_LONG;
		buf[n++] = (uint8_t)ch;
	}
	if (ferror(f))
		return LINE_IO_ERROR;
	return n == 0 ? LINE_EOF : LINE_UNTERMINATED;
}

/*
 * Adds every line of one file to the chain. 0; AUDIT_BROKEN with b filled; AUDIT_INTERNAL; or
 * CTL_EXIT_USAGE when the file cannot be read (printed here).
 */
static int verify_file(struct audit_chain *c, const char *path, struct audit_break *b)
{
	static uint8_t line[AUDIT_LINE_MAX];
	enum line_result lr;
	size_t len;
	FILE *f;
	int r = 0;

	b->file = path;
	b->line = 0;
	b->seq = 0;
	if ((f = fopen(path, "re")) == NULL) {
		ctl_error(CMD, "%s: %s", path, strerror(errno));
		return CTL_EXIT_USAGE;
	}
	while ((lr = read_line(f, line, sizeof(line), &len)) == LINE_OK) {
		b->line++;
		if ((r = audit_chain_add(c, line, len, b->line == 1, b->why, &b->seq)) != 0)
			goto out;
	}
	b->seq = 0;
	if (lr == LINE_EOF && b->line == 0) {
		snprintf(b->why, sizeof(b->why), "empty: an audit file opens with an open record");
		r = AUDIT_BROKEN;
	} else if (lr == LINE_TOO_LONG || lr == LINE_UNTERMINATED) {
		b->line++;
		snprintf(b->why, sizeof(b->why), lr == LINE_TOO_LONG ?
			"a line longer than %d bytes: not a record" :
			"the last line has no newline: a record cut short", AUDIT_LINE_MAX);
		r = AUDIT_BROKEN;
	} else if (lr == LINE_IO_ERROR) {
		ctl_error(CMD, "%s: %s", path, strerror(errno));
		r = CTL_EXIT_USAGE;
	}
out:
	fclose(f);
	return r;
}

/* One JSON object on a line, or fallback when it could not be made (out of memory). */
static void print_json(json_t *j, const char *fallback)
{
	char *text = j ? json_dumps(j, 0) : NULL;

	printf("%s\n", text ? text : fallback);
	free(text);
	json_decref(j);
}

static void print_break(const struct ctl_options *o, const struct audit_break *b)
{
	json_t *j;

	if (!o->json) {
		printf("%s", b->file);
		if (b->line != 0)
			printf(":%lu", b->line);
		if (b->seq != 0)
			printf(": seq %llu", (unsigned long long)b->seq);
		printf(": %s\nbroken: the log was changed, cut or reordered there, or the files are "
			"not the series in order\n", b->why);
		return;
	}
	/* jansson escapes the file name, whatever bytes it holds */
	j = json_pack("{s:b, s:s, s:I, s:I, s:s}", "intact", 0, "file", b->file,
		"line", (json_int_t)b->line, "seq", (json_int_t)b->seq, "error", b->why);
	print_json(j, "{\"intact\": false}");
}

/* The end's name in --json: the last checkpoint's reason, or "unsealed". */
static const char *end_name(const struct audit_chain *c, enum audit_end end)
{
	return end == AUDIT_END_UNSEALED ? "unsealed" : c->reason;
}

static void print_summary_json(const struct audit_chain *c, int files, uint64_t unsealed,
	uint64_t from, uint64_t to)
{
	char key_id[2 * AUDIT_HASH_LEN + 1], last[2 * AUDIT_HASH_LEN + 1];
	json_t *j;

	hex_encode(c->key_id, AUDIT_HASH_LEN, key_id);
	hex_encode(c->hash, AUDIT_HASH_LEN, last);
	j = json_pack("{s:b, s:i, s:I, s:I, s:I, s:I, s:I, s:s, s:s, s:s, s:b, s:b, s:I, s:I, s:I, "
		"s:s, s:s}",
		"intact", 1, "files", files, "records", (json_int_t)c->records,
		"requests", (json_int_t)c->requests, "checkpoints", (json_int_t)c->checkpoints,
		"first_seq", (json_int_t)c->first_seq, "last_seq", (json_int_t)c->seq,
		"first_time", c->first_time, "last_time", c->last_time, "key_id", key_id,
		"key_from_log", c->key_from_log, "continues", c->continues,
		"unsealed", (json_int_t)unsealed, "unsealed_from", (json_int_t)(unsealed ? from : 0),
		"unsealed_to", (json_int_t)(unsealed ? to : 0),
		"end", end_name(c, audit_chain_end(c)), "last_hash", last);
	if (j != NULL && c->have_anchor &&
	    json_object_set_new(j, "anchor_seq", json_integer((json_int_t)c->anchor_seq)) != 0) {
		json_decref(j);
		j = NULL;
	}
	print_json(j, "{\"intact\": true}");
}

/* How the log ends (docs/audit.md, "How a log ends"), and the anchor. */
static void print_end(const struct audit_chain *c, const struct verify_args *a, uint64_t unsealed,
	uint64_t from, uint64_t to)
{
	enum audit_end end = audit_chain_end(c);

	printf("last line: seq %llu, SHA-256 ", (unsigned long long)c->seq);
	ctl_print_hex(c->hash, AUDIT_HASH_LEN);
	if (end == AUDIT_END_STOP)
		printf("ends with a stop checkpoint: the daemon stopped there\n");
	else if (end == AUDIT_END_REOPEN)
		printf("ends with a reopen checkpoint: the file written after it is not given (the "
			"newest file missing, or a rotated file on its own)\n");
	else if (end == AUDIT_END_SEALED)
		printf("ends with a %s checkpoint: the daemon may still be writing, or the log was "
			"cut after it\n", c->reason);
	else
		printf("%llu record%s after the last checkpoint (seq %llu-%llu) %s not sealed: a "
			"cut there cannot be detected\n", (unsigned long long)unsealed,
			unsealed == 1 ? "" : "s", (unsigned long long)from, (unsigned long long)to,
			unsealed == 1 ? "is" : "are");
	if (a->expect_stopped && end != AUDIT_END_STOP)
		printf("not stopped: --expect-stopped wants a stop checkpoint last\n");
	if (!c->have_anchor)
		return;
	if (c->anchor_seq == 0)
		printf("anchor not reached: no line given has the SHA-256 of --anchor, nor does the "
			"first continue from it: the log was cut before it, or it is another log\n");
	else if (c->anchor_seq < c->first_seq)
		printf("anchor reached: the chain continues from it (the line with seq %llu)\n",
			(unsigned long long)c->anchor_seq);
	else
		printf("anchor reached: the line with seq %llu\n",
			(unsigned long long)c->anchor_seq);
}

static void print_summary(const struct audit_chain *c, int files)
{
	printf("intact: %d file%s, %llu records (%llu requests, %llu checkpoints), seq %llu-%llu\n",
		files, files == 1 ? "" : "s", (unsigned long long)c->records,
		(unsigned long long)c->requests, (unsigned long long)c->checkpoints,
		(unsigned long long)c->first_seq, (unsigned long long)c->seq);
	printf("from %s to %s\naudit key: ", c->first_time, c->last_time);
	ctl_print_hex(c->key_id, AUDIT_HASH_LEN);
	if (c->key_from_log)
		printf("key taken from the log itself: pass --pubkey to check it is yours\n");
	if (c->continues)
		printf("the chain continues an earlier file not given: starts at seq %llu\n",
			(unsigned long long)c->first_seq);
}

/* The exit status of an intact log: the anchor missed, then how it ends. */
static int end_status(const struct audit_chain *c, const struct verify_args *a)
{
	enum audit_end end = audit_chain_end(c);

	if (c->have_anchor && c->anchor_seq == 0)
		return CTL_EXIT_REFUSED;
	if (end == AUDIT_END_REOPEN)
		return CTL_EXIT_AUDIT_REOPEN;
	if (end == AUDIT_END_UNSEALED || (end == AUDIT_END_SEALED && a->expect_stopped))
		return CTL_EXIT_AUDIT_UNSEALED;
	return CTL_EXIT_OK;
}

/* The FILEs in their order into a->files, and the options wherever they are (each once). */
static int parse_args(int argc, char **argv, struct verify_args *a)
{
	static const struct option options[] = {
		{ "pubkey", required_argument, NULL, 'p' },
		{ "anchor", required_argument, NULL, 'a' },
		{ "expect-stopped", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	a->nfiles = 0;
	while ((opt = getopt_long(argc, argv, "-p:", options, NULL)) != -1) {
		if (opt == 1)
			a->files[a->nfiles++] = optarg;
		else if (opt == 'p' && a->pubkey == NULL)
			a->pubkey = optarg;
		else if (opt == 'a' && a->anchor == NULL)
			a->anchor = optarg;
		else if (opt == 's' && !a->expect_stopped)
			a->expect_stopped = 1;
		else
			return -1;
	}
	return a->nfiles > 0 ? 0 : -1;
}

/* --anchor: 64 hex digits, the SHA-256 of a line (docs/audit.md). 0, or -1 (said). */
static int set_anchor(struct audit_chain *c, const char *text)
{
	uint8_t anchor[AUDIT_HASH_LEN];
	size_t len;

	if (strlen(text) != 2 * AUDIT_HASH_LEN ||
	    hex_decode(text, strlen(text), anchor, sizeof(anchor), &len) != 0 || len != sizeof(anchor)) {
		ctl_error(CMD, "--anchor: not a SHA-256 in hex (64 digits)");
		return -1;
	}
	audit_chain_set_anchor(c, anchor);
	return 0;
}

int ctl_audit_verify(const struct ctl_options *o, int argc, char **argv)
{
	uint8_t point[P256SIGN_POINT_LEN];
	struct audit_chain c;
	struct audit_break b;
	struct verify_args a = { 0 };
	uint64_t unsealed, from, to;
	int r = 0;

	audit_chain_init(&c, NULL);
	if ((a.files = calloc((size_t)argc, sizeof(*a.files))) == NULL) {
		r = ctl_error(CMD, "out of memory");
		goto out;
	}
	if (parse_args(argc, argv, &a) != 0) {
		r = ctl_usage(CMD);
		goto out;
	}
	if (a.pubkey != NULL) {
		if (ctl_load_pubkey_file(CMD, a.pubkey, point) != 0) {
			r = CTL_EXIT_USAGE;
			goto out;
		}
		audit_chain_init(&c, point);
	}
	if (a.anchor != NULL && set_anchor(&c, a.anchor) != 0) {
		r = CTL_EXIT_USAGE;
		goto out;
	}
	for (int i = 0; i < a.nfiles && r == 0; i++)
		r = verify_file(&c, a.files[i], &b);
	if (r == AUDIT_BROKEN) {
		print_break(o, &b);
		r = CTL_EXIT_REFUSED;
	} else if (r == AUDIT_INTERNAL) {
		r = ctl_error(CMD, "out of memory, or hashing failed");
	} else if (r == 0) {
		unsealed = audit_chain_unsealed(&c, &from, &to);
		if (o->json) {
			print_summary_json(&c, a.nfiles, unsealed, from, to);
		} else {
			print_summary(&c, a.nfiles);
			print_end(&c, &a, unsealed, from, to);
		}
		r = end_status(&c, &a);
	}
out:
	audit_chain_free(&c);
	free(a.files);
	return r;
}
