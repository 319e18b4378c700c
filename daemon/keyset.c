/* SPDX-License-Identifier: ISC */
/* Loading the key set from the configuration, the private half and the reload paths (keyset.h). */
#include "keyset.h"

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
		if (snprintf(dir, sizeof(dir), "%s", cfg->path) >= (int)sizeof(dir)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		n = snprintf(out, cap, "%s/%s", dirname(dir), file);
	}
	if (n < 0 || (size_t)n >= cap) {
		errno = ENAMETOOLONG;	/* what the refusal's message names */
		return -1;
	}
	return 0;
}

int keyset_read_paths(const struct config *cfg, char ***paths)
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
	*paths = d;
	return r;
}

/* Loads key i of the configuration into both halves of the set. */
static int load_one(const struct config *cfg, size_t i, struct keyset *ks, char *err,
	size_t errlen)
{
	const struct config_key *ck = &cfg->keys[i];
	struct key_public *kp = &ks->pub[i];
	struct keyfile_key kf = { 0 };
	struct cert_der der = { 0 };
	char path[PATH_MAX];
	const char *what = ck->file;
	int64_t not_after = 0;
	int r = P256_ERR_INTERNAL;

	if (resolve(cfg, ck->file, path, sizeof(path)) != 0) {
		r = P256_ERR_KEY_FILE;
		goto out;
	}
	if ((r = keyfile_load(path, &kf)) != 0)
		goto out;
	/* The verifier's table (150 KiB, 25 ms) only for a key that verifies every signature. */
	r = ck->verify_after_sign ? p256_key_init(&ks->priv[i], kf.d) :
	    p256_key_init_untabled(&ks->priv[i], kf.d);
	if (r != 0)
		goto out;
	if (ck->certificate != NULL) {
		what = ck->certificate;
		if (resolve(cfg, ck->certificate, path, sizeof(path)) != 0) {
			r = P256_ERR_KEY_FILE;
			goto out;
		}
		if ((r = cert_read(path, kf.pub, &not_after, &der)) != 0)
			goto out;
		/* What CERTIFICATE hands out must fit its answer (docs/protocol.md). */
		if (der.len > PROTO_CERT_MAX) {
			r = P256_ERR_CERT_TOO_LARGE;
			goto out;
		}
	}
	if ((r = keytab_set_public(kp, ck, kf.pub)) != 0)
		goto out;
	kp->cert_not_after = not_after;
	kp->cert = der.der;	/* the record's now */
	kp->cert_len = der.len;
	der = (struct cert_der){ 0 };
out:
	if (r != 0)
		snprintf(err, errlen, "keys[%zu] (%s): %s: %s: %s%s%s", i, ck->name, what,
		    p256_err_tag(r), p256_strerror(r), r == P256_ERR_KEY_FILE ? ": " : "",
		    r == P256_ERR_KEY_FILE ? strerror(errno) : "");
	keyfile_key_clear(&kf);
	cert_der_free(&der);
	return r;
}

/* The private half's mapping: whole pages, so that it can be locked and kept out of core dumps
 * without touching anything else. */
static size_t priv_bytes(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (n * sizeof(struct p256_key) + page - 1) / page * page;
}

int keyset_alloc(struct keyset *ks, size_t n)
{
	void *p;

	memset(ks, 0, sizeof(*ks));
	if (n == 0 || (ks->pub = calloc(n, sizeof(*ks->pub))) == NULL)
		return -1;
	ks->n = n;
	p = mmap(NULL, priv_bytes(n), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || madvise(p, priv_bytes(n), MADV_DONTDUMP) != 0) {
		if (p != MAP_FAILED)
			munmap(p, priv_bytes(n));
		free(ks->pub);
		memset(ks, 0, sizeof(*ks));
		return -1;
	}
	ks->priv = p;
	return 0;
}

int keyset_lock(const struct keyset *ks)
{
	return mlock(ks->priv, priv_bytes(ks->n));
}

int keyset_load(const struct config *cfg, struct keyset *ks, char *err, size_t errlen)
{
	const struct key_public *pub;

	if (keyset_alloc(ks, cfg->nkeys) != 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	pub = ks->pub;
	for (size_t i = 0; i < cfg->nkeys; i++) {
		if (load_one(cfg, i, ks, err, errlen) != 0)
			return -1;
		for (size_t j = 0; j < i; j++) {
			if (memcmp(pub[j].id, pub[i].id, P256_KEY_ID_LEN) == 0) {
				snprintf(err, errlen, "keys[%zu] (%s): the same key as keys[%zu] (%s)",
				    i, pub[i].name, j, pub[j].name);
				return -1;
			}
		}
	}
	return 0;
}

void keyset_free(struct keyset *ks)
{
	if (ks->priv != NULL) {
		for (size_t i = 0; i < ks->n; i++)
			p256_key_clear(&ks->priv[i]);
		explicit_bzero(ks->priv, ks->n * sizeof(*ks->priv));
		munmap(ks->priv, priv_bytes(ks->n));
	}
	for (size_t i = 0; ks->pub != NULL && i < ks->n; i++)
		key_public_release(&ks->pub[i]);
	free(ks->pub);
	memset(ks, 0, sizeof(*ks));
}
