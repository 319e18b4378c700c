/* SPDX-License-Identifier: ISC */
/* The non-blocking API's submit calls: arguments checked and turned into protocol requests. */
#include <string.h>

#include "libp256sign-private.h"

/* Copies the key selector into the request: exactly one member set; a point only if allowed. */
static int put_key(struct proto_key *k, const struct p256sign_key *key, int point_allowed)
{
	if (key == NULL || (key->name != NULL) + (key->id != NULL) + (key->point != NULL) != 1)
		return P256SIGN_E_INVALID;
	if (key->name != NULL) {
		if (proto_key_name(k, key->name) != 0)
			return P256SIGN_E_BAD_KEY_SELECTOR;
	} else if (key->id != NULL) {
		k->kind = PROTO_KEY_ID;
		memcpy(k->id, key->id, sizeof(k->id));
	} else {
		if (!point_allowed)
			return P256SIGN_E_INVALID;
		k->kind = PROTO_KEY_POINT;
		memcpy(k->point, key->point, sizeof(k->point));
	}
	return 0;
}

static int format_ok(int format)
{
	return format == P256SIGN_DER || format == P256SIGN_RAW;
}

/* A request without a body. */
static int submit_empty(struct p256sign *h, uint8_t type, uint32_t *id)
{
	struct proto_request req = { .h.type = type };

	if (h == NULL || id == NULL)
		return P256SIGN_E_INVALID;
	return frames_submit(h, &req, id);
}

int p256sign_submit_ping(struct p256sign *h, uint32_t *id)
{
	return submit_empty(h, PROTO_PING, id);
}

int p256sign_submit_list_keys(struct p256sign *h, uint32_t *id)
{
	return submit_empty(h, PROTO_LIST_KEYS, id);
}

int p256sign_submit_status(struct p256sign *h, uint32_t *id)
{
	return submit_empty(h, PROTO_STATUS, id);
}

int p256sign_submit_sign(struct p256sign *h, const struct p256sign_key *key,
	const uint8_t digest[P256SIGN_DIGEST_LEN], int format, uint32_t *id)
{
	struct proto_request req = { .h.type = PROTO_SIGN, .format = (uint8_t)format };
	int r;

	if (h == NULL || digest == NULL || id == NULL || !format_ok(format))
		return P256SIGN_E_INVALID;
	if ((r = put_key(&req.key, key, 0)) != 0)
		return r;
	memcpy(req.digest, digest, sizeof(req.digest));
	return frames_submit(h, &req, id);
}

int p256sign_submit_sign_message(struct p256sign *h, const struct p256sign_key *key,
	const void *msg, size_t msg_len, int format, uint32_t *id)
{
	struct proto_request req = { .h.type = PROTO_SIGN_MESSAGE, .format = (uint8_t)format };
	int r;

	if (h == NULL || (msg == NULL && msg_len > 0) || id == NULL || !format_ok(format))
		return P256SIGN_E_INVALID;
	if (msg_len > P256SIGN_MESSAGE_MAX)
		return P256SIGN_E_MESSAGE_TOO_LARGE;
	if ((r = put_key(&req.key, key, 0)) != 0)
		return r;
	req.message = msg;
	req.message_len = msg_len;
	return frames_submit(h, &req, id);
}

int p256sign_submit_sign_tls(struct p256sign *h, const struct p256sign_key *key,
	const struct p256sign_tls *tls, int format, uint32_t *id)
{
	struct proto_request req = { .h.type = PROTO_SIGN_TLS, .format = (uint8_t)format };
	int r;

	if (h == NULL || tls == NULL || id == NULL || !format_ok(format))
		return P256SIGN_E_INVALID;
	if ((r = put_key(&req.key, key, 0)) != 0 || (r = tls_to_proto(&req.tls, tls)) != 0)
		return r;
	return frames_submit(h, &req, id);
}

/* A request whose body is a key selector alone (PUBKEY, CERTIFICATE). */
static int submit_key_only(struct p256sign *h, uint8_t type, const struct p256sign_key *key,
	uint32_t *id)
{
	struct proto_request req = { .h.type = type };
	int r;

	if (h == NULL || id == NULL)
		return P256SIGN_E_INVALID;
	if ((r = put_key(&req.key, key, 0)) != 0)
		return r;
	return frames_submit(h, &req, id);
}

int p256sign_submit_pubkey(struct p256sign *h, const struct p256sign_key *key, uint32_t *id)
{
	return submit_key_only(h, PROTO_PUBKEY, key, id);
}

int p256sign_submit_certificate(struct p256sign *h, const struct p256sign_key *key, uint32_t *id)
{
	return submit_key_only(h, PROTO_CERTIFICATE, key, id);
}

int p256sign_submit_verify(struct p256sign *h, const struct p256sign_key *key,
	const uint8_t digest[P256SIGN_DIGEST_LEN], int format, const uint8_t *sig, size_t sig_len,
	uint32_t *id)
{
	struct proto_request req = { .h.type = PROTO_VERIFY, .format = (uint8_t)format };
	int r;

	if (h == NULL || digest == NULL || sig == NULL || id == NULL || !format_ok(format))
		return P256SIGN_E_INVALID;
	if (sig_len > PROTO_SIG_MAX || (format == P256SIGN_RAW && sig_len != P256SIGN_SIG_RAW_LEN))
		return P256SIGN_E_BAD_SIGNATURE;
	if ((r = put_key(&req.key, key, 1)) != 0)
		return r;
	memcpy(req.digest, digest, sizeof(req.digest));
	memcpy(req.sig, sig, sig_len);
	req.sig_len = sig_len;
	return frames_submit(h, &req, id);
}
