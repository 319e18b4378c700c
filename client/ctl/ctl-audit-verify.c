/* SPDX-License-Identifier: ISC */
/*
 * p256signctl audit-verify FILE... [--pubkey PEM]: reads a series of audit files, oldest first,
 * one line at a time, and stops at the first record that breaks the log (audit-verifier-chain.c);
 * otherwise prints what it checked and what no checkpoint seals yet. docs/audit.md, "Verifying".
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

static void print_summary_json(const struct audit_chain *c, int files, uint64_t unsealed,
	uint64_t from, uint64_t to)
{
	char key_id[2 * AUDIT_HASH_LEN + 1];
	json_t *j;

	hex_encode(c->key_id, AUDIT_HASH_LEN, key_id);
	j = json_pack("{s:b, s:i, s:I, s:I, s:I, s:I, s:I, s:s, s:s, s:s, s:b, s:b, s:I, s:I, s:I}",
		"intact", 1, "files", files, "records", (json_int_t)c->records,
		"requests", (json_int_t)c->requests, "checkpoints", (json_int_t)c->checkpoints,
		"first_seq", (json_int_t)c->first_seq, "last_seq", (json_int_t)c->seq,
		"first_time", c->first_time, "last_time", c->last_time, "key_id", key_id,
		"key_from_log", c->key_from_log, "continues", c->continues,
		"unsealed", (json_int_t)unsealed, "unsealed_from", (json_int_t)(unsealed ? from : 0),
		"unsealed_to", (json_int_t)(unsealed ? to : 0));
	print_json(j, "{\"intact\": true}");
}

static void print_summary(const struct audit_chain *c, int files, uint64_t unsealed,
	uint64_t from, uint64_t to)
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
	if (unsealed != 0)
		printf("%llu record%s after the last checkpoint (seq %llu-%llu) %s not sealed: a cut "
			"there cannot be detected\n", (unsigned long long)unsealed,
			unsealed == 1 ? "" : "s", (unsigned long long)from, (unsigned long long)to,
			unsealed == 1 ? "is" : "are");
}

/* The FILEs in their order into files (argc entries), and --pubkey wherever it is. */
static int parse_args(int argc, char **argv, const char **pubkey, char **files, int *nfiles)
{
	static const struct option options[] = {
		{ "pubkey", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	optind = 1;
	*nfiles = 0;
	while ((opt = getopt_long(argc, argv, "-p:", options, NULL)) != -1) {
		if (opt == 1)
			files[(*nfiles)++] = optarg;
		else if (opt == 'p' && *pubkey == NULL)
			*pubkey = optarg;
		else
			return -1;
	}
	return *nfiles > 0 ? 0 : -1;
}

int ctl_audit_verify(const struct ctl_options *o, int argc, char **argv)
{
	uint8_t point[P256SIGN_POINT_LEN];
	struct audit_chain c;
	struct audit_break b;
	const char *pubkey = NULL;
	uint64_t unsealed, from, to;
	char **files;
	int nfiles, r = 0;

	audit_chain_init(&c, NULL);
	if ((files = calloc((size_t)argc, sizeof(*files))) == NULL) {
		r = ctl_error(CMD, "out of memory");
		goto out;
	}
	if (parse_args(argc, argv, &pubkey, files, &nfiles) != 0) {
		r = ctl_usage(CMD);
		goto out;
	}
	if (pubkey != NULL) {
		if (ctl_load_pubkey_file(CMD, pubkey, point) != 0) {
			r = CTL_EXIT_USAGE;
			goto out;
		}
		audit_chain_init(&c, point);
	}
	for (int i = 0; i < nfiles && r == 0; i++)
		r = verify_file(&c, files[i], &b);
	if (r == AUDIT_BROKEN) {
		print_break(o, &b);
		r = CTL_EXIT_REFUSED;
	} else if (r == AUDIT_INTERNAL) {
		r = ctl_error(CMD, "out of memory, or hashing failed");
	} else if (r == 0) {
		unsealed = audit_chain_unsealed(&c, &from, &to);
		if (o->json)
			print_summary_json(&c, nfiles, unsealed, from, to);
		else
			print_summary(&c, nfiles, unsealed, from, to);
		r = unsealed ? CTL_EXIT_AUDIT_UNSEALED : CTL_EXIT_OK;
	}
out:
	audit_chain_free(&c);
	free(files);
	return r;
}
