/* SPDX-License-Identifier: ISC */
/*
 * p256signctl audit-verify FILE... [--pubkey PEM] [--anchor HASH] [--expect-stopped]: reads a
 * series of audit files, oldest first, one line at a time, and stops at the first record that
 * breaks the log (audit-verifier-chain.c); otherwise prints what it checked, how the log ends and
 * what no checkpoint seals yet. docs/audit.md, "Verifying".
 * With --journal [--host HOST], the FILEs (none, or -: standard input) are journalctl -o json
 * output instead, each audit entry's line rebuilt from its fields (audit-verifier-journal.c):
 * one host's chain, the same checks. docs/audit.md, "Collecting the trail of many hosts".
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
#define JOURNAL_LINE_MAX (1024 * 1024)	/* an entry of journalctl -o json, all its fields */

enum line_result { LINE_OK, LINE_EOF, LINE_TOO_LONG, LINE_UNTERMINATED, LINE_IO_ERROR };

/* The command line. */
struct verify_args {
	const char *pubkey;
	const char *anchor;		/* hex, as given */
	int expect_stopped;
	int journal;			/* the files are journalctl -o json output */
	const char *host;		/* --host: a machine id or host name */
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

/* The host whose entries are verified: --host, or the first audit entry's. */
struct journal_host {
	const char *want;		/* --host, or NULL */
	struct audit_journal_host first;	/* the first audit entry's host */
	int have_first;
	uint64_t others;		/* audit entries of other hosts, left out (with --host) */
};

static int host_is(const struct audit_journal_host *h, const char *name)
{
	return strcmp(h->machine_id, name) == 0 || strcmp(h->hostname, name) == 0;
}

/* 1: the entry of host e is one to verify; 0: left out; -1: a second host without --host. */
static int journal_pick(struct journal_host *h, const struct audit_journal_host *e)
{
	if (h->want != NULL && !host_is(e, h->want)) {
		h->others++;
		return 0;
	}
	if (!h->have_first) {
		h->first = *e;
		h->have_first = 1;
		return 1;
	}
	if (h->want == NULL && strcmp(e->machine_id, h->first.machine_id) != 0) {
		ctl_error(CMD, "entries of more than one host (machine id %s, %s, and %s, %s): "
			"verify each with --host", h->first.machine_id, h->first.hostname,
			e->machine_id, e->hostname);
		return -1;
	}
	return 1;
}

/*
 * Adds the audit entries of one journalctl -o json output (one entry a line) of the chosen host
 * to the chain: as verify_file, with the line number of the entry for the report. No entry is
 * the first of a file: the journal holds the chain across the files the daemon wrote, and may
 * begin anywhere in it (entries vacuumed).
 */
static int verify_journal(struct audit_chain *c, struct journal_host *h, const char *path,
	struct audit_break *b)
{
	static uint8_t line[AUDIT_LINE_MAX];
	struct audit_journal_host host;
	char *entry = NULL;
	size_t cap = 0, len;
	ssize_t n;
	FILE *f;
	int r = 0, pick;

	b->file = strcmp(path, "-") == 0 ? "(standard input)" : path;
	b->line = 0;
	b->seq = 0;
	if ((f = strcmp(path, "-") == 0 ? stdin : fopen(path, "re")) == NULL) {
		ctl_error(CMD, "%s: %s", path, strerror(errno));
		return CTL_EXIT_USAGE;
	}
	while (r == 0 && (n = getline(&entry, &cap, f)) > 0) {
		b->line++;
		b->seq = 0;
		if (n > JOURNAL_LINE_MAX) {
			ctl_error(CMD, "%s:%lu: an entry longer than %d bytes: not journalctl -o json "
				"output", b->file, b->line, JOURNAL_LINE_MAX);
			r = CTL_EXIT_USAGE;
			break;
		}
		n -= entry[n - 1] == '\n';
		r = audit_journal_entry_line((const uint8_t *)entry, (size_t)n, &host, line,
		    sizeof(line), &len, b->why);
		if (r == AUDIT_JOURNAL_OTHER) {
			r = 0;
			continue;
		}
		/* a line that names no host (not an entry) is broken whichever host is verified */
		if ((r != AUDIT_BROKEN || host.machine_id[0] != '\0') &&
		    (pick = journal_pick(h, &host)) <= 0) {
			r = pick < 0 ? CTL_EXIT_USAGE : 0;
			continue;
		}
		if (r == 0)
			r = audit_chain_add(c, line, len, 0, b->why, &b->seq);
	}
	if (r == 0 && !feof(f)) {	/* getline failed: a read error, or out of memory */
		ctl_error(CMD, "%s: %s", b->file, strerror(errno));
		r = CTL_EXIT_USAGE;
	}
	free(entry);
	if (f != stdin)
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

static void print_summary_json(const struct audit_chain *c, int files,
	const struct journal_host *h, uint64_t unsealed, uint64_t from, uint64_t to)
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
	if (j != NULL && h != NULL &&
	    (json_object_set_new(j, "machine_id", json_string(h->first.machine_id)) != 0 ||
	     json_object_set_new(j, "hostname", json_string(h->first.hostname)) != 0 ||
	     json_object_set_new(j, "superseded", json_integer((json_int_t)c->superseded)) != 0)) {
		json_decref(j);
		j = NULL;
	}
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

static void print_summary(const struct audit_chain *c, int files, const struct journal_host *h)
{
	if (h != NULL)
		printf("intact: the journal of host %s (machine id %s), ",
			h->first.hostname[0] ? h->first.hostname : "(unnamed)",
			h->first.machine_id[0] ? h->first.machine_id : "(none)");
	else
		printf("intact: %d file%s, ", files, files == 1 ? "" : "s");
	printf("%llu records (%llu requests, %llu checkpoints), seq %llu-%llu\n",
		(unsigned long long)c->records,
		(unsigned long long)c->requests, (unsigned long long)c->checkpoints,
		(unsigned long long)c->first_seq, (unsigned long long)c->seq);
	printf("from %s to %s\naudit key: ", c->first_time, c->last_time);
	ctl_print_hex(c->key_id, AUDIT_HASH_LEN);
	if (c->key_from_log)
		printf("key taken from the log itself: pass --pubkey to check it is yours\n");
	if (c->continues)
		printf("the chain continues an earlier file not given: starts at seq %llu\n",
			(unsigned long long)c->first_seq);
	if (h != NULL && h->others > 0)
		printf("%llu audit entries of other hosts left out\n",
			(unsigned long long)h->others);
	if (c->superseded > 0)
		printf("%llu of the records superseded: a record of the same seq after them continues "
			"from the line before (records the journal got and the file did not: the daemon "
			"stopped between the two, or a write made again)\n",
			(unsigned long long)c->superseded);
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
		{ "journal", no_argument, NULL, 'j' },
		{ "host", required_argument, NULL, 'h' },
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
		else if (opt == 'j' && !a->journal)
			a->journal = 1;
		else if (opt == 'h' && a->host == NULL)
			a->host = optarg;
		else
			return -1;
	}
	if (a->journal && a->nfiles == 0)
		a->files[a->nfiles++] = "-";	/* journalctl ... | p256signctl audit-verify --journal */
	return a->nfiles > 0 && (a->journal || a->host == NULL) ? 0 : -1;
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
	struct journal_host h = { 0 };
	uint64_t unsealed, from, to;
	int r = 0;

	audit_chain_init(&c, NULL);
	if ((a.files = calloc((size_t)argc + 1, sizeof(*a.files))) == NULL) {
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
	h.want = a.host;
	if (a.journal)
		audit_chain_allow_superseded(&c);
	for (int i = 0; i < a.nfiles && r == 0; i++)
		r = a.journal ? verify_journal(&c, &h, a.files[i], &b) :
			verify_file(&c, a.files[i], &b);
	if (r == 0 && a.journal && c.records == 0) {
		b.line = b.seq = 0;
		snprintf(b.why, sizeof(b.why), "no audit entry (one with P256SIGN_TYPE)%s%s",
			a.host ? " of host " : "", a.host ? a.host : "");
		r = AUDIT_BROKEN;
	}
	if (r == AUDIT_BROKEN) {
		print_break(o, &b);
		r = CTL_EXIT_REFUSED;
	} else if (r == AUDIT_INTERNAL) {
		r = ctl_error(CMD, "out of memory, or hashing failed");
	} else if (r == 0) {
		unsealed = audit_chain_unsealed(&c, &from, &to);
		if (o->json) {
			print_summary_json(&c, a.nfiles, a.journal ? &h : NULL, unsealed, from, to);
		} else {
			print_summary(&c, a.nfiles, a.journal ? &h : NULL);
			print_end(&c, &a, unsealed, from, to);
		}
		r = end_status(&c, &a);
	}
out:
	audit_chain_free(&c);
	free(a.files);
	return r;
}
