/* SPDX-License-Identifier: ISC */
/* Certificates beside a key: parsed by OpenSSL, their point matched to the key (cert.h). */
#include "cert.h"

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdlib.h>
#include <string.h>

#include "keyfile.h"
#include "keyfile-read.h"

#define CERT_MAX KEYFILE_MAX

/* A certificate file never asks for a password: refuse to prompt on the terminal. */
static int no_password(char *buf, int size, int rwflag, void *u)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)u;
	return -1;
}

static int parse_x509(const uint8_t *buf, size_t len, X509 **out)
{
	const unsigned char *p = buf;
	BIO *bio = NULL;
	int r = P256_ERR_CERT_INVALID;

	*out = NULL;
	if (keyfile_is_der(buf, len)) {
		if ((*out = d2i_X509(NULL, &p, (long)len)) != NULL && p != buf + len)
			goto out; /* bytes after the certificate */
	} else {
		if ((bio = BIO_new_mem_buf(buf, (int)len)) == NULL) {
			r = P256_ERR_INTERNAL;
			goto out;
		}
		*out = PEM_read_bio_X509(bio, NULL, no_password, NULL);
	}
	if (*out != NULL)
		r = 0;
out:
	if (r != 0) {
		X509_free(*out);
		*out = NULL;
		ERR_clear_error(); /* the refusal is reported by its code, not OpenSSL's queue */
	}
	BIO_free(bio);
	return r;
}

/* The certificate key's point, when it is an EC key on prime256v1. */
static int p256_point_of(const EVP_PKEY *pkey, uint8_t pub[P256_POINT_LEN])
{
	char group[64];
	BIGNUM *x = NULL, *y = NULL;
	int r = P256_ERR_CERT_ALGORITHM;

	if (pkey == NULL) {
		r = P256_ERR_CERT_INVALID;
		goto out;
	}
	if (!EVP_PKEY_is_a(pkey, "EC") ||
	    EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof(group),
		    NULL) != 1 ||
	    strcmp(group, "prime256v1") != 0)
		goto out;
	r = P256_ERR_CERT_INVALID;
	if (EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_EC_PUB_X, &x) != 1 ||
	    EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_EC_PUB_Y, &y) != 1 ||
	    BN_bn2binpad(x, pub + 1, 32) != 32 || BN_bn2binpad(y, pub + 33, 32) != 32)
		goto out;
	pub[0] = 0x04;
	if (p256_point_check(pub) != 0)
		goto out;
	r = 0;
out:
	BN_free(x);
	BN_free(y);
	return r;
}

/* The certificate's notAfter as seconds since 1970, by OpenSSL's difference from the epoch. */
static int not_after_of(const X509 *x509, int64_t *t)
{
	ASN1_TIME *epoch = ASN1_TIME_set(NULL, 0);
	int day, sec, r = P256_ERR_CERT_INVALID;

	if (epoch == NULL)
		return P256_ERR_INTERNAL;
	if (ASN1_TIME_diff(&day, &sec, epoch, X509_get0_notAfter(x509)) == 1) {
		*t = (int64_t)day * 86400 + sec;
		r = 0;
	}
	ASN1_TIME_free(epoch);
	return r;
}

/* The certificate's DER encoding as OpenSSL parsed it, in a buffer of its own. */
static int der_of(X509 *x509, struct cert_der *out)
{
	int n = i2d_X509(x509, NULL);
	unsigned char *p;

	if (n <= 0)
		return P256_ERR_CERT_INVALID;
	if ((out->der = malloc((size_t)n)) == NULL)
		return P256_ERR_INTERNAL;
	p = out->der;
	if (i2d_X509(x509, &p) != n) {
		free(out->der);
		out->der = NULL;
		return P256_ERR_INTERNAL;
	}
	out->len = (size_t)n;
	return 0;
}

/* cert_load, and the notAfter and the DER when not_after and der are not NULL. */
static int load(const char *path, uint8_t pub[P256_POINT_LEN], int64_t *not_after,
	struct cert_der *der)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	X509 *x509 = NULL;
	int r = P256_ERR_INTERNAL;

	memset(pub, 0, P256_POINT_LEN);
	if ((r = keyfile_read(path, CERT_MAX, &buf, &len)) != 0 ||
	    (r = parse_x509(buf, len, &x509)) != 0 ||
	    (r = p256_point_of(X509_get0_pubkey(x509), pub)) != 0 ||
	    (not_after != NULL && (r = not_after_of(x509, not_after)) != 0) ||
	    (der != NULL && (r = der_of(x509, der)) != 0))
		goto out;
out:
	if (r != 0)
		memset(pub, 0, P256_POINT_LEN);
	X509_free(x509);
	keyfile_read_free(buf, CERT_MAX);
	return r;
}

int cert_load(const char *path, uint8_t pub[P256_POINT_LEN])
{
	return load(path, pub, NULL, NULL);
}

/* cert_check_until, and the DER when der is not NULL. */
static int check(const char *path, const uint8_t key_pub[P256_POINT_LEN], int64_t *not_after,
	struct cert_der *der)
{
	uint8_t pub[P256_POINT_LEN];
	int r;

	*not_after = 0;
	if ((r = load(path, pub, not_after, der)) == 0 && memcmp(pub, key_pub, P256_POINT_LEN) != 0)
		r = P256_ERR_CERT_MISMATCH;
	if (r != 0) {
		*not_after = 0;
		if (der != NULL)
			cert_der_free(der);
	}
	return r;
}

int cert_check_until(const char *path, const uint8_t key_pub[P256_POINT_LEN], int64_t *not_after)
{
	return check(path, key_pub, not_after, NULL);
}

int cert_read(const char *path, const uint8_t key_pub[P256_POINT_LEN], int64_t *not_after,
	struct cert_der *der)
{
	memset(der, 0, sizeof(*der));
	return check(path, key_pub, not_after, der);
}

void cert_der_free(struct cert_der *der)
{
	free(der->der);
	memset(der, 0, sizeof(*der));
}

int cert_check(const char *path, const uint8_t key_pub[P256_POINT_LEN])
{
	int64_t not_after;

	return cert_check_until(path, key_pub, &not_after);
}
