/* SPDX-License-Identifier: ISC */
/* The blocking calls: each is one submit call followed by p256sign_wait. */
#include <string.h>

#include "libp256sign-private.h"

/*
 * Waits for request *id into *res when submitting it worked (r == 0; the submit call made the
 * fork check). id is passed by address: it is read only after the submit call in the caller's
 * argument list has run.
 */
static int finish(struct p256sign *h, int r, const uint32_t *id, struct p256sign_result *res)
{
	memset(res, 0, sizeof(*res));
	return r != 0 ? r : async_wait_checked(h, *id, res);
}

int p256sign_ping(struct p256sign *h)
{
	struct p256sign_result res;
	uint32_t id = 0;

	return finish(h, p256sign_submit_ping(h, &id), &id, &res);
}

/* Copies a signature result out to the caller's buffer. */
static int copy_sig(int r, const struct p256sign_result *res, uint8_t *sig, size_t sig_cap,
	size_t *sig_len)
{
	if (r != 0)
		return r;
	if (res->sig_len > sig_cap)
		return P256SIGN_E_BUFFER;
	memcpy(sig, res->sig, res->sig_len);
	*sig_len = res->sig_len;
	return 0;
}

int p256sign_sign_digest(struct p256sign *h, const struct p256sign_key *key,
	const uint8_t digest[P256SIGN_DIGEST_LEN], int format, uint8_t *sig, size_t sig_cap,
	size_t *sig_len)
{
	struct p256sign_result res;
	uint32_t id = 0;
	int r;

	if (sig == NULL || sig_len == NULL)
		return P256SIGN_E_INVALID;
	r = finish(h, p256sign_submit_sign(h, key, digest, format, &id), &id, &res);
	return copy_sig(r, &res, sig, sig_cap, sig_len);
}

int p256sign_sign_message(struct p256sign *h, const struct p256sign_key *key,
	const void *msg, size_t msg_len, int format, uint8_t *sig, size_t sig_cap, size_t *sig_len)
{
	struct p256sign_result res;
	uint32_t id = 0;
	int r;

	if (sig == NULL || sig_len == NULL)
		return P256SIGN_E_INVALID;
	r = finish(h, p256sign_submit_sign_message(h, key, msg, msg_len, format, &id), &id, &res);
	return copy_sig(r, &res, sig, sig_cap, sig_len);
}

int p256sign_sign_tls(struct p256sign *h, const struct p256sign_key *key,
	const struct p256sign_tls *tls, int format, uint8_t *sig, size_t sig_cap, size_t *sig_len)
{
	struct p256sign_result res;
	uint32_t id = 0;
	int r;

	if (sig == NULL || sig_len == NULL)
		return P256SIGN_E_INVALID;
	r = finish(h, p256sign_submit_sign_tls(h, key, tls, format, &id), &id, &res);
	return copy_sig(r, &res, sig, sig_cap, sig_len);
}

int p256sign_get_pubkey(struct p256sign *h, const struct p256sign_key *key,
	struct p256sign_pubkey *pub)
{
	struct p256sign_result res;
	uint32_t id = 0;
	int r;

	if (pub == NULL)
		return P256SIGN_E_INVALID;
	if ((r = finish(h, p256sign_submit_pubkey(h, key, &id), &id, &res)) != 0)
		return r;
	*pub = res.pubkey;
	return 0;
}

int p256sign_certificate(struct p256sign *h, const struct p256sign_key *key,
	uint8_t *der, size_t cap, size_t *der_len)
{
	struct p256sign_result res;
	uint32_t id = 0;
	int r;

	if (der == NULL || der_len == NULL)
		return P256SIGN_E_INVALID;
	if ((r = finish(h, p256sign_submit_certificate(h, key, &id), &id, &res)) != 0)
		goto out;
	*der_len = res.certificate_len;
	if (res.certificate_len > cap) {
		r = P256SIGN_E_BUFFER;
		goto out;
	}
	memcpy(der, res.certificate, res.certificate_len);
out:
	p256sign_result_clear(&res);
	return r;
}

int p256sign_verify(struct p256sign *h, const struct p256sign_key *key,
	const uint8_t digest[P256SIGN_DIGEST_LEN], int format, const uint8_t *sig, size_t sig_len,
	int *valid)
{
	struct p256sign_result res;
	uint32_t id = 0;
	int r;

	if (valid == NULL)
		return P256SIGN_E_INVALID;
	*valid = 0;
	r = finish(h, p256sign_submit_verify(h, key, digest, format, sig, sig_len, &id), &id, &res);
	if (r != 0)
		return r;
	*valid = res.valid;
	return 0;
}

/* LIST_KEYS and STATUS: hands the result's JSON text to the caller. */
static int get_json(struct p256sign *h, int r, const uint32_t *id, char **json)
{
	struct p256sign_result res;

	if ((r = finish(h, r, id, &res)) != 0) {
		p256sign_result_clear(&res);
		return r;
	}
	*json = res.json;
	return 0;
}

int p256sign_list_keys(struct p256sign *h, char **json)
{
	uint32_t id = 0;

	if (json == NULL)
		return P256SIGN_E_INVALID;
	*json = NULL;
	return get_json(h, p256sign_submit_list_keys(h, &id), &id, json);
}

int p256sign_status(struct p256sign *h, char **json)
{
	uint32_t id = 0;

	if (json == NULL)
		return P256SIGN_E_INVALID;
	*json = NULL;
	return get_json(h, p256sign_submit_status(h, &id), &id, json);
}
