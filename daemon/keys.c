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
#include <sys/mman.h>
#include <unistd.h>

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

int keys_set_public(struct key_public *kp, const struct config_key *ck,
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
	ratelimit_init(&kp->rate, ck->max_signatures_per_second);
	return 0;
}

int keys_read_dirs(const struct config *cfg, char ***dirs)
{
	/* What getpwnam and getgrnam read for the names in "allow" (files: Debian's default). */
	static const char *const accounts[] = { "/etc/nsswitch.conf", "/etc/passwd", "/etc/group" };
	const char *cred = getenv("CREDENTIALS_DIRECTORY");
	size_t n = 0, cap = 2 * cfg->nkeys + 3 + 3;
	char **d = calloc(cap, sizeof(*d));
	char path[PATH_MAX];
	int r = -1;

	if (d == NULL)
		goto out;
	/* The config file's directory, $CREDENTIALS_DIRECTORY, and every key and certificate's. */
	if (snprintf(path, sizeof(path), "%s", cfg->path) >= (int)sizeof(path) ||
	    (d[n++] = strdup(dirname(path))) == NULL)
		goto out;
	if (cred != NULL && cred[0] != '\0' && (d[n++] = strdup(cred)) == NULL)
		goto out;
	for (size_t i = 0; i < sizeof(accounts) / sizeof(accounts[0]); i++)
		if (access(accounts[i], R_OK) == 0 && (d[n++] = strdup(accounts[i])) == NULL)
			goto out;
	for (size_t i = 0; i < cfg->nkeys; i++) {
		const char *files[2] = { cfg->keys[i].file, cfg->keys[i].certificate };

		for (size_t j = 0; j < 2; j++) {
			if (files[j] == NULL)
				continue;
			if (resolve(cfg, files[j], path, sizeof(path)) != 0 ||
			    (d[n++] = strdup(dirname(path))) == NULL)
				goto out;
		}
	}
	r = 0;
out:
	if (r != 0 && d != NULL) {
		for (size_t i = 0; i < n; i++)
			free(d[i]);
		free(d);
		d = NULL;
	}
	*dirs = d;
	return r;
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
	r = keys_set_public(kp, ck, kf.pub);
out:
	if (r != 0)
		snprintf(err, errlen, "keys[%zu] (%s): %s: %s: %s%s%s", i, ck->name, what,
		    p256_err_tag(r), p256_strerror(r), r == P256_ERR_KEY_FILE ? ": " : "",
		    r == P256_ERR_KEY_FILE ? strerror(errno) : "");
	keyfile_key_clear(&kf);
	return r;
}

/* The private half's mapping: whole pages, so that it can be locked and kept out of core dumps
 * without touching anything else. */
static size_t priv_bytes(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (n * sizeof(struct p256_key) + page - 1) / page * page;
}

int keys_alloc(struct keytab *kt, size_t n, int with_private)
{
	void *p;

	memset(kt, 0, sizeof(*kt));
	if (n == 0 || (kt->pub = calloc(n, sizeof(*kt->pub))) == NULL)
		return -1;
	kt->n = n;
	if (!with_private)
		return 0;
	p = mmap(NULL, priv_bytes(n), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || madvise(p, priv_bytes(n), MADV_DONTDUMP) != 0) {
		if (p != MAP_FAILED)
			munmap(p, priv_bytes(n));
		free(kt->pub);
		memset(kt, 0, sizeof(*kt));
		return -1;
	}
	kt->priv = p;
	return 0;
}

int keys_lock(const struct keytab *kt)
{
	return mlock(kt->priv, priv_bytes(kt->n));
}

int keys_load(const struct config *cfg, struct keytab *kt, char *err, size_t errlen)
{
	if (keys_alloc(kt, cfg->nkeys, 1) != 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
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
	munmap(kt->priv, priv_bytes(kt->n));
	kt->priv = NULL;
}

void keys_free(struct keytab *kt)
{
	keys_forget_private(kt);
	for (size_t i = 0; kt->pub != NULL && i < kt->n; i++)
		p256_verify_key_free(kt->pub[i].verifier);
	free(kt->pub);
	memset(kt, 0, sizeof(*kt));
}

const char *keys_nonce_name(enum p256_nonce nonce)
{
	return nonce == P256_NONCE_DETERMINISTIC ? "deterministic" :
	    nonce == P256_NONCE_PRECOMPUTED ? "precomputed" : "hedged";
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
