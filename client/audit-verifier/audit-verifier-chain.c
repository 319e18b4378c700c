/* SPDX-License-Identifier: ISC */
/*
 * The checks of docs/audit.md "What a verifier checks" across records (audit-verifier.h): seq one
 * more each time, prev the hash of the line before, checkpoints against the hashes of the lines
 * they may cover and the audit key, and one audit key for the whole series.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit-seal.h"
#include "audit-verifier.h"
#include "hex.h"
#include "p256.h"
#include "sha256.h"

void audit_chain_init(struct audit_chain *c, const uint8_t key[AUDIT_POINT_LEN])
{
	memset(c, 0, sizeof(*c));
	if (key != NULL) {
		memcpy(c->key, key, AUDIT_POINT_LEN);
		c->have_key = p256_key_id(key, c->key_id) == 0;
	}
}

void audit_chain_set_anchor(struct audit_chain *c, const uint8_t anchor[AUDIT_HASH_LEN])
{
	memcpy(c->anchor, anchor, AUDIT_HASH_LEN);
	c->have_anchor = 1;
}

void audit_chain_allow_superseded(struct audit_chain *c)
{
	c->allow_superseded = 1;
}

/* r replaces the records from its seq on (audit_chain_allow_superseded): 1 when it may, and the
 * chain is then back at the line before it, r's prev. */
static int supersede(struct audit_chain *c, const struct audit_record *r)
{
	uint64_t back;

	if (!c->allow_superseded || c->seq == 0 || r->seq > c->seq || r->seq <= c->sealed_seq ||
	    r->seq <= c->window_seq)
		return 0;
	back = r->seq - 1;	/* in the window, and not sealed */
	if (memcmp(r->prev, c->window[back - c->window_seq], AUDIT_HASH_LEN) != 0)
		return 0;
	c->superseded += c->seq - back;
	c->seq = back;
	memcpy(c->hash, r->prev, AUDIT_HASH_LEN);
	c->window_len = (size_t)(back - c->window_seq + 1);
	if (c->anchor_seq > back)
		c->anchor_seq = 0;	/* the anchor was a line replaced */
	return 1;
}

void audit_chain_free(struct audit_chain *c)
{
	free(c->window);
	c->window = NULL;
	c->window_len = c->window_cap = 0;
}

static int broken(char why[AUDIT_WHY_MAX], const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int broken(char why[AUDIT_WHY_MAX], const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, AUDIT_WHY_MAX, fmt, ap);
	va_end(ap);
	return AUDIT_BROKEN;
}

/* Appends the hash of line window_seq + window_len. */
static int window_push(struct audit_chain *c, const uint8_t hash[AUDIT_HASH_LEN])
{
	uint8_t (*grown)[AUDIT_HASH_LEN];
	size_t cap;

	if (c->window_len == c->window_cap) {
		cap = c->window_cap ? 2 * c->window_cap : 64;
		if ((grown = realloc(c->window, cap * AUDIT_HASH_LEN)) == NULL)
			return AUDIT_INTERNAL;
		c->window = grown;
		c->window_cap = cap;
	}
	memcpy(c->window[c->window_len++], hash, AUDIT_HASH_LEN);
	return 0;
}

/* Forgets the hashes before seq: no later checkpoint may cover them. */
static void window_drop_before(struct audit_chain *c, uint64_t seq)
{
	size_t k = (size_t)(seq - c->window_seq);

	memmove(c->window, c->window[k], (c->window_len - k) * AUDIT_HASH_LEN);
	c->window_len -= k;
	c->window_seq = seq;
}

/* The first record given: a chain start (seq 1, prev 64 zeros), or where an earlier file ends. */
static int check_first(struct audit_chain *c, const struct audit_record *r, char why[AUDIT_WHY_MAX])
{
	static const uint8_t zeros[AUDIT_HASH_LEN];
	int start = memcmp(r->prev, zeros, AUDIT_HASH_LEN) == 0;

	if (start && r->seq != 1)
		return broken(why, "prev is 64 zeros (a chain start) but seq is not 1");
	if (!start && r->seq == 1)
		return broken(why, "seq 1 starts a chain, but prev is not 64 zeros");
	c->first_seq = r->seq;
	c->continues = !start;
	if (!start && c->have_anchor && memcmp(r->prev, c->anchor, AUDIT_HASH_LEN) == 0)
		c->anchor_seq = r->seq - 1;	/* the chain goes on from the anchor */
	/* The line before the first one given is known by its hash: a checkpoint may cover it. */
	c->window_seq = start ? 1 : r->seq - 1;
	return start ? 0 : window_push(c, r->prev);
}

static int check_next(const struct audit_chain *c, const struct audit_record *r, int first_in_file,
	char why[AUDIT_WHY_MAX])
{
	if (r->seq != c->seq + 1) {
		if (first_in_file)
			return broken(why, "the file does not continue the one before: seq %llu after "
				"%llu (a file missing, or the files out of order)",
				(unsigned long long)r->seq, (unsigned long long)c->seq);
		return broken(why, "seq %llu after %llu: a record is missing, inserted or out of "
			"order", (unsigned long long)r->seq, (unsigned long long)c->seq);
	}
	if (memcmp(r->prev, c->hash, AUDIT_HASH_LEN) != 0)
		return broken(why, "prev is not the SHA-256 of the line before (seq %llu): one of "
			"the two was changed, or a line inserted or removed",
			(unsigned long long)c->seq);
	return 0;
}

/* An open record's audit_key: a valid point, its key id, and the audit key (or the first). */
static int check_open(struct audit_chain *c, const struct audit_record *r, char why[AUDIT_WHY_MAX])
{
	uint8_t id[AUDIT_HASH_LEN];
	char shown[2 * AUDIT_HASH_LEN + 1];

	if (p256_point_check(r->audit_public) != 0)
		return broken(why, "audit_key.public is not a P-256 point");
	if (p256_key_id(r->audit_public, id) != 0)
		return AUDIT_INTERNAL;
	if (memcmp(id, r->audit_key_id, AUDIT_HASH_LEN) != 0)
		return broken(why, "audit_key.key_id is not the key id of audit_key.public");
	if (!c->have_key) {
		memcpy(c->key, r->audit_public, AUDIT_POINT_LEN);
		memcpy(c->key_id, id, AUDIT_HASH_LEN);
		c->have_key = 1;
		c->key_from_log = 1;
		return 0;
	}
	if (memcmp(c->key, r->audit_public, AUDIT_POINT_LEN) != 0) {
		hex_encode(id, 8, shown);
		return broken(why, "audit_key is another key (key id %s...) than the audit key in use "
			"(%s)", shown, c->key_from_log ? "the first open record's" : "--pubkey");
	}
	return 0;
}

/* A checkpoint: what it covers is a line still in the window, with that hash, sealed by the key
 * with the checkpoint's own time and reason. */
static int check_checkpoint(struct audit_chain *c, const struct audit_record *r,
	char why[AUDIT_WHY_MAX])
{
	uint8_t digest[AUDIT_HASH_LEN];
	unsigned long long covers = (unsigned long long)r->covers_seq;
	int v;

	if (r->covers_seq >= r->seq)
		return broken(why, "covers_seq %llu is not before the checkpoint", covers);
	if (r->covers_seq < c->sealed_seq)
		return broken(why, "covers_seq %llu is before the previous checkpoint's %llu", covers,
			(unsigned long long)c->sealed_seq);
	if (r->covers_seq < c->window_seq)
		return broken(why, "covers_seq %llu is before the first record given (seq %llu): "
			"give the earlier file too", covers, (unsigned long long)c->first_seq);
	if (memcmp(r->covers_hash, c->window[r->covers_seq - c->window_seq], AUDIT_HASH_LEN) != 0)
		return broken(why, "covers_hash is not the SHA-256 of the line with seq %llu", covers);
	if (!c->have_key)	/* the journal's copy, its oldest entries gone: no open record */
		return broken(why, "no audit key to check the seal: no open record before it, and "
			"no --pubkey");
	if (memcmp(r->key_id, c->key_id, AUDIT_HASH_LEN) != 0)
		return broken(why, "key_id is not the audit key's");
	if (audit_seal_digest(r->covers_hash, r->covers_seq, r->time, r->reason, digest) != 0)
		return AUDIT_INTERNAL;
	/* n - s verifies whenever s does: the daemon writes the low one, so a seal has one form */
	if ((v = p256_verify(c->key, AUDIT_POINT_LEN, digest, r->sig, P256_VERIFY_LOW_S)) ==
	    P256_ERR_SIG_HIGH_S)
		return broken(why, "sig has a high s (above n/2): a seal is written with the low s "
			"only, and n - s would be a second form of it");
	if (v != 0)
		return broken(why, "sig does not verify with the audit key over the seal of seq %llu",
			covers);
	c->sealed_seq = r->covers_seq;
	window_drop_before(c, r->covers_seq);
	return 0;
}

static int check_record(struct audit_chain *c, const struct audit_record *r, int first_in_file,
	char why[AUDIT_WHY_MAX])
{
	int ret;

	if (first_in_file && r->type != AUDIT_OPEN)
		return broken(why, "the first record of a file is not an open record");
	ret = c->seq == 0 ? check_first(c, r, why) :
		supersede(c, r) ? 0 : check_next(c, r, first_in_file, why);
	if (ret != 0)
		return ret;
	if (r->type == AUDIT_OPEN)
		return check_open(c, r, why);
	if (r->type == AUDIT_CHECKPOINT)
		return check_checkpoint(c, r, why);
	return 0;
}

int audit_chain_add(struct audit_chain *c, const uint8_t *line, size_t len, int first_in_file,
	char why[AUDIT_WHY_MAX], uint64_t *seq)
{
	struct audit_record r;
	uint8_t hash[AUDIT_HASH_LEN];
	int ret;

	ret = audit_record_parse(line, len, &r, why, AUDIT_WHY_MAX);
	*seq = r.seq;
	if (ret != 0)
		return AUDIT_BROKEN;
	if ((ret = check_record(c, &r, first_in_file, why)) != 0)
		return ret;
	if (sha256(line, len, hash) != 0 || window_push(c, hash) != 0)
		return AUDIT_INTERNAL;
	memcpy(c->hash, hash, AUDIT_HASH_LEN);
	c->seq = r.seq;
	c->type = r.type;
	memcpy(c->reason, r.reason, sizeof(c->reason));
	if (c->have_anchor && c->anchor_seq == 0 && memcmp(hash, c->anchor, AUDIT_HASH_LEN) == 0)
		c->anchor_seq = r.seq;
	if (c->records++ == 0)
		memcpy(c->first_time, r.time, sizeof(r.time));
	memcpy(c->last_time, r.time, sizeof(r.time));
	c->requests += r.type == AUDIT_REQUEST;
	c->checkpoints += r.type == AUDIT_CHECKPOINT;
	return 0;
}

/* The last record is a checkpoint of the one before it: its own signature seals it. */
static int sealed_to_last(const struct audit_chain *c)
{
	return c->type == AUDIT_CHECKPOINT && c->sealed_seq != 0 && c->sealed_seq + 1 == c->seq;
}

uint64_t audit_chain_unsealed(const struct audit_chain *c, uint64_t *from, uint64_t *to)
{
	*from = c->sealed_seq ? c->sealed_seq + 1 : c->first_seq;
	*to = c->seq;
	if (c->records == 0 || sealed_to_last(c))
		return 0;
	return *to - *from + 1;
}

enum audit_end audit_chain_end(const struct audit_chain *c)
{
	if (c->records == 0 || !sealed_to_last(c))
		return AUDIT_END_UNSEALED;
	if (strcmp(c->reason, audit_seal_reasons[AUDIT_SEAL_STOP]) == 0)
		return AUDIT_END_STOP;
	if (strcmp(c->reason, audit_seal_reasons[AUDIT_SEAL_REOPEN]) == 0)
		return AUDIT_END_REOPEN;
	return AUDIT_END_SEALED;
}
