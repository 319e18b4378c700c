/* SPDX-License-Identifier: ISC */
/* The public key table (keytab.h). */
#include "keytab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hex.h"
#include "sha256.h"

int keytab_alloc(struct keytab *kt, size_t n)
{
	memset(kt, 0, sizeof(*kt));
	if (n == 0 || (kt->pub = calloc(n, sizeof(*kt->pub))) == NULL)
		return -1;
	kt->n = n;
	return 0;
}

void key_public_release(struct key_public *kp)
{
	p256_verify_key_free(kp->verifier);
	kp->verifier = NULL;
	free(kp->cert);
	kp->cert = NULL;
	kp->cert_len = 0;
	kp->cert_sha256_hex[0] = '\0';
}

int key_public_set_cert(struct key_public *kp, const uint8_t *der, size_t len)
{
	uint8_t digest[32];

	if (kp->cert != NULL || len == 0 || len > PROTO_CERT_MAX ||
	    sha256(der, len, digest) != 0 ||
	    (kp->cert = malloc(len)) == NULL)
		return -1;
	memcpy(kp->cert, der, len);
	kp->cert_len = len;
	hex_encode(digest, sizeof(digest), kp->cert_sha256_hex);
	return 0;
}

void keytab_free(struct keytab *kt)
{
	for (size_t i = 0; kt->pub != NULL && i < kt->n; i++)
		key_public_release(&kt->pub[i]);
	free(kt->pub);
	memset(kt, 0, sizeof(*kt));
}

int keytab_set_public(struct key_public *kp, const struct config_key *ck,
	const uint8_t point[P256_POINT_LEN])
{
	int r;

	memset(kp, 0, sizeof(*kp));
	snprintf(kp->name, sizeof(kp->name), "%s", ck->name);
	memcpy(kp->point, point, sizeof(kp->point));
	p256_spki(kp->point, kp->spki);
	if ((r = p256_key_id(kp->point, kp->id)) != 0)
		return r;
	hex_encode(kp->id, sizeof(kp->id), kp->id_hex);
	kp->nonce = ck->nonce;
	kp->verify_after_sign = ck->verify_after_sign;
	kp->purpose = ck->purpose;
	kp->allow = ck->allow;
	kp->max_signatures_per_second = ck->max_signatures_per_second;
	return 0;
}

int keytab_find(const struct keytab *kt, const struct proto_key *sel)
{
	for (size_t i = 0; i < kt->n; i++) {
		if (sel->kind == PROTO_KEY_NAME && strcmp(kt->pub[i].name, sel->name) == 0)
			return (int)i;
		if (sel->kind == PROTO_KEY_ID &&
		    memcmp(kt->pub[i].id, sel->id, P256_KEY_ID_LEN) == 0)
			return (int)i;
	}
	return -1;
}

void key_usage_reset(struct key_usage *u, const struct keytab *kt)
{
	for (size_t i = 0; i < kt->n; i++) {
		memset(&u[i], 0, sizeof(u[i]));
		ratelimit_init(&u[i].rate, kt->pub[i].max_signatures_per_second);
	}
}
