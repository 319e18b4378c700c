/* SPDX-License-Identifier: ISC */
/*
 * A slot's key table taking a new reading of the daemon's list (keys.c reads it), by key id, and
 * the certificates it holds already, by the SHA-256 LIST_KEYS gives for each (docs/pkcs11.md):
 * a held certificate is moved into the new entry rather than asked of the daemon again. No I/O:
 * the fuzz harness drives it directly.
 */
#include <stdlib.h>
#include <string.h>

#include "p11.h"

/* Whether the table's entry t holds the certificate the listed entry k names. */
static int holds_cert(const struct p11_key *t, const struct p11_key *k)
{
	return t->cert != NULL && t->has_cert_sha256 && k->has_cert && k->has_cert_sha256 &&
		memcmp(t->cert_sha256, k->cert_sha256, sizeof(k->cert_sha256)) == 0;
}

/* The table's entry for a key id, or NULL. */
static struct p11_key *find_key(const struct p11_slot *s, const uint8_t *id)
{
	for (size_t j = 0; j < s->nkeys; j++)
		if (memcmp(s->keys[j].id, id, sizeof(s->keys[j].id)) == 0)
			return &s->keys[j];
	return NULL;
}

void p11_cached_certs(const struct p11_slot *s, struct p11_key *keys, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct p11_key *t = find_key(s, keys[i].id);

		keys[i].cert_cached = t != NULL && holds_cert(t, &keys[i]);
	}
}

/* Under the module lock: the slot's table becomes the daemon's list, by key id. A key gone from
 * it loses its certificate; the others take the list's, or keep the table's when the list's entry
 * is marked for it and it is still the one listed (another reading may have replaced it since the
 * mark: the key then goes without until the next reading). */
int p11_merge_keys(struct p11_slot *s, struct p11_key *keys, size_t n)
{
	size_t i, j, old = s->nkeys;

	for (j = 0; j < s->nkeys; j++)
		s->keys[j].present = 0;
	for (i = 0; i < n; i++) {
		struct p11_key *t = find_key(s, keys[i].id);

		j = t != NULL ? (size_t)(t - s->keys) : s->nkeys;
		if (j == s->nkeys) {
			if (s->nkeys == P11_MAX_KEYS)
				return -1;
			if (s->nkeys == s->capkeys) {
				size_t cap = s->capkeys ? 2 * s->capkeys : 8;
				struct p11_key *grown = realloc(s->keys, cap * sizeof(*grown));

				if (grown == NULL)
					return -1;
				s->keys = grown;
				s->capkeys = cap;
			}
			s->nkeys++;
		} else if (keys[i].cert == NULL && keys[i].cert_cached &&
		    holds_cert(&s->keys[j], &keys[i])) {
			keys[i].cert = s->keys[j].cert;		/* kept: moved, not copied */
			keys[i].cert_len = s->keys[j].cert_len;
			keys[i].fields = s->keys[j].fields;
			s->keys[j].cert = NULL;
		} else {
			p11_key_clear_cert(&s->keys[j]);
		}
		keys[i].cert_cached = 0;
		s->keys[j] = keys[i];	/* a renamed key or a new purpose after a reload */
		keys[i].cert = NULL;	/* the table's now */
		keys[i].cert_len = 0;
	}
	for (j = 0; j < old; j++)
		if (!s->keys[j].present)
			p11_key_clear_cert(&s->keys[j]);
	return 0;
}
