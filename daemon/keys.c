/* SPDX-License-Identifier: ISC */
/* Building the key table from the configuration (keys.h). */
#include "hex.h"
#include "keys.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert.h"
#include "keyfile.h"

/* Where a configured file name points: absolute, under $CREDENTIALS_DIRECTORY, or next to the
 * config file. */
static int resolve(const struct config *cfg, const char *file, char *out, size_t cap)
{
	const char *base = getenv("CREDENTIALS_DIRECTORY");
	char dir[PATH_MAX];
	int n;

	if (file[0] == '/')
		n = snprintf(out, cap, "%s", file);
	else if (base != NULL && base[0] != '\0')
		n = snprintf(out, cap, "%s/%s", base, file);
	else {
		if (snprintf(dir, sizeof(dir), "%s", cfg->path) >= (int)sizeof(dir))
			return -1;
		n = snprintf(out, cap, "%s/%s", dirname(dir), file);
	}
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* Loads key i of the configuration into both halves of the table. */
static int load_one(const struct config *cfg, size_t i, struct keytab *kt, char *err,
	size_t errlen)
{
	const struct config_key *ck = &cfg->keys[i];
	struct key_public *kp = &kt->pub[i];
	struct keyfile_key kf = { 0 };
	char path[PATH_MAX];
	const char *what = ck->file;
	int r = P256_ERR_INTERNAL;

	if (resolve(cfg, ck->file, path, sizeof(path)) != 0) {
		r = P256_ERR_KEY_FILE;
		goto out;
	}
	if ((r = keyfile_load(path, &kf)) != 0)
		goto out;
	/* The verifier's table (150 KiB, 25 ms) only for a key that verifies every signature. */
	r = ck->verify_after_sign ? p256_key_init(&kt->priv[i], kf.d) :
	    p256_key_init_untabled(&kt->priv[i], kf.d);
	if (r != 0)
		goto out;
	if (ck->certificate != NULL) {
		what = ck->certificate;
		if (resolve(cfg, ck->certificate, path, sizeof(path)) != 0) {
			r = P256_ERR_KEY_FILE;
			goto out;
		}
		if ((r = cert_check(path, kf.pub)) != 0)
			goto out;
	}
	snprintf(kp->name, sizeof(kp->name), "%s", ck->name);
	memcpy(kp->point, kf.pub, sizeof(kp->point));
	p256_spki(kp->point, kp->spki);
	if ((r = p256_key_id(kp->point, kp->id)) != 0)
		goto out;
	hex_encode(kp->id, sizeof(kp->id), kp->id_hex);
	kp->nonce = ck->nonce;
	kp->verify_after_sign = ck->verify_after_sign;
	r = 0;
out:
	if (r != 0)
		snprintf(err, errlen, "keys[%zu] (%s): %s: %s: %s%s%s", i, ck->name, what,
		    p256_err_tag(r), p256_strerror(r), r == P256_ERR_KEY_FILE ? ": " : "",
		    r == P256_ERR_KEY_FILE ? strerror(errno) : "");
	keyfile_key_clear(&kf);
	return r;
}

int keys_load(const struct config *cfg, struct keytab *kt, char *err, size_t errlen)
{
	memset(kt, 0, sizeof(*kt));
	kt->pub = calloc(cfg->nkeys, sizeof(*kt->pub));
	kt->priv = calloc(cfg->nkeys, sizeof(*kt->priv));
	if (kt->pub == NULL || kt->priv == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	kt->n = cfg->nkeys;
	for (size_t i = 0; i < cfg->nkeys; i++) {
		if (load_one(cfg, i, kt, err, errlen) != 0)
			return -1;
		for (size_t j = 0; j < i; j++) {
			if (memcmp(kt->pub[j].id, kt->pub[i].id, P256_KEY_ID_LEN) == 0) {
				snprintf(err, errlen, "keys[%zu] (%s): the same key as keys[%zu] (%s)",
				    i, kt->pub[i].name, j, kt->pub[j].name);
				return -1;
			}
		}
	}
	return 0;
}

void keys_forget_private(struct keytab *kt)
{
	if (kt->priv == NULL)
		return;
	for (size_t i = 0; i < kt->n; i++)
		p256_key_clear(&kt->priv[i]);
	explicit_bzero(kt->priv, kt->n * sizeof(*kt->priv));
	free(kt->priv);
	kt->priv = NULL;
}

void keys_free(struct keytab *kt)
{
	keys_forget_private(kt);
	free(kt->pub);
	memset(kt, 0, sizeof(*kt));
}

int keys_find(const struct keytab *kt, const struct proto_key *sel)
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
