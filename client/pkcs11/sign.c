/* SPDX-License-Identifier: ISC */
/*
 * C_SignInit, C_Sign, C_SignUpdate, C_SignFinal: CKM_ECDSA (the data is a digest; signature
 * r || s, 64 bytes, as PKCS#11 prescribes) and CKM_ECDSA_SHA256 (the data is the message; the
 * daemon hashes it with SIGN_MESSAGE, or, past P11_BUF_MAX bytes of multi-part data, the module
 * hashes it and sends the digest).
 *
 * Purpose-bound keys (tls-server, tls-client) never sign a caller's digest: CKM_ECDSA is refused
 * at C_SignInit and a CKM_ECDSA_SHA256 message is signed only when it is a TLS handshake's
 * content (tls.c), as a SIGN_TLS request; anything else is CKR_KEY_FUNCTION_NOT_PERMITTED.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "p11-functions.h"

/*
 * What one signature needs, taken from the session under the module lock. A job is on the
 * module's list while its thread waits for the daemon, so that a child made by fork() meanwhile,
 * where that thread does not exist, frees it with the inherited state.
 */
struct p11_job {
	struct p11_inflight link;	/* first: on the module's jobs */
	CK_MECHANISM_TYPE mech;
	uint8_t id[P256SIGN_KEY_ID_LEN];
	int purpose;
	uint8_t *data;
	size_t len;
	EVP_MD_CTX *md;
	uint8_t sig[P256SIGN_SIG_RAW_LEN];
	size_t sig_len;
	CK_RV rv;
};

CK_RV p11_C_SignInit(CK_SESSION_HANDLE h, CK_MECHANISM_PTR mech, CK_OBJECT_HANDLE key)
{
	struct p11_session *s;
	struct p11_key *k;
	CK_SLOT_ID slot;
	CK_RV rv;
	int kind;

	if (mech == NULL)
		return CKR_ARGUMENTS_BAD;
	if ((rv = p11_lock_session(h, &s)) != CKR_OK)
		goto out;
	if (s->signing)
		rv = CKR_OPERATION_ACTIVE;
	else if (mech->mechanism != CKM_ECDSA && mech->mechanism != CKM_ECDSA_SHA256)
		rv = CKR_MECHANISM_INVALID;
	else if (mech->pParameter != NULL || mech->ulParameterLen != 0)
		rv = CKR_MECHANISM_PARAM_INVALID;
	else if ((k = p11_object(key, &slot, &kind)) == NULL || slot != s->slot)
		rv = CKR_KEY_HANDLE_INVALID;
	else if (kind != P11_PRIVATE)
		rv = CKR_KEY_TYPE_INCONSISTENT;
	else if (k->purpose == P11_AUDIT || k->purpose == P11_OTHER ||
	    (k->purpose != P11_ANY && mech->mechanism == CKM_ECDSA))
		rv = CKR_KEY_FUNCTION_NOT_PERMITTED;
	else if ((s->buf = malloc(P11_BUF_MAX)) == NULL)
		rv = CKR_HOST_MEMORY;
	else {
		s->signing = 1;
		s->multipart = 0;
		s->mech = mech->mechanism;
		s->key = key;
		s->len = 0;
	}
out:
	p11_unlock();
	return rv;
}

/* Appends data to the operation; CKM_ECDSA_SHA256 data past the buffer goes into a local hash. */
static CK_RV append(struct p11_session *s, const uint8_t *data, size_t len)
{
	if (len == 0)
		return CKR_OK;
	if (s->md == NULL && s->len + len <= P11_BUF_MAX) {
		memcpy(s->buf + s->len, data, len);
		s->len += len;
		return CKR_OK;
	}
	if (s->mech != CKM_ECDSA_SHA256)
		return CKR_DATA_LEN_RANGE;
	if (s->md == NULL) {
		if ((s->md = EVP_MD_CTX_new()) == NULL ||
		    EVP_DigestInit_ex(s->md, EVP_sha256(), NULL) != 1 ||
		    EVP_DigestUpdate(s->md, s->buf, s->len) != 1)
			return CKR_HOST_MEMORY;
		explicit_bzero(s->buf, s->len);	/* only the first len bytes were ever written */
		s->len = 0;
	}
	return EVP_DigestUpdate(s->md, data, len) == 1 ? CKR_OK : CKR_FUNCTION_FAILED;
}

/* Takes the module lock (the caller unlocks): the session of h, which must be signing. */
static CK_RV lock_signing(CK_SESSION_HANDLE h, struct p11_session **s)
{
	CK_RV rv = p11_lock_session(h, s);

	return rv == CKR_OK && !(*s)->signing ? CKR_OPERATION_NOT_INITIALIZED : rv;
}

/*
 * Under the module lock, on a signing session: the checks before a signature is made (PKCS#11
 * 2.40 section 5.2: a NULL signature buffer asks for the size, a short one gets
 * CKR_BUFFER_TOO_SMALL, and both leave the operation active), then C_Sign's data, then the job,
 * which takes the operation's data and ends the operation. *ready is 1 when the job is to be
 * signed.
 */
static CK_RV take_job(struct p11_session *s, const CK_BYTE *data, CK_ULONG len, int final,
	CK_BYTE_PTR sig, CK_ULONG_PTR sig_len, struct p11_job *job, struct p11_slot **slot,
	int *ready)
{
	struct p11_key *k = NULL;
	CK_SLOT_ID sid;
	int kind;

	*ready = 0;
	if (sig_len == NULL || (!final && data == NULL && len > 0)) {
		p11_session_reset(s);
		return CKR_ARGUMENTS_BAD;
	}
	if (sig == NULL) {
		*sig_len = P256SIGN_SIG_RAW_LEN;
		return CKR_OK;
	}
	if (*sig_len < P256SIGN_SIG_RAW_LEN) {
		*sig_len = P256SIGN_SIG_RAW_LEN;
		return CKR_BUFFER_TOO_SMALL;
	}
	job->rv = CKR_OK;
	if (!final && s->multipart)
		job->rv = CKR_OPERATION_ACTIVE;	/* C_Sign after C_SignUpdate */
	else if (!final)
		job->rv = append(s, data, len);
	if (job->rv == CKR_OK && (k = p11_object(s->key, &sid, &kind)) == NULL)
		job->rv = CKR_KEY_HANDLE_INVALID;	/* gone from the daemon's list meanwhile */
	if (job->rv == CKR_OK) {
		memcpy(job->id, k->id, sizeof(job->id));
		job->purpose = k->purpose;
		*slot = &p11_mod->slots[sid];
	}
	job->mech = s->mech;
	job->data = s->buf;
	job->len = s->len;
	job->md = s->md;
	s->buf = NULL;
	s->md = NULL;
	p11_session_reset(s);
	*ready = 1;
	return CKR_OK;
}

/* CKM_ECDSA's data as the daemon's 32-byte digest: ECDSA uses the leftmost 256 bits of a longer
 * hash (FIPS 186-4 section 6.4), and a shorter one is the same integer left-padded with zeros. */
static void as_digest(const uint8_t *data, size_t len, uint8_t digest[P256SIGN_DIGEST_LEN])
{
	memset(digest, 0, P256SIGN_DIGEST_LEN);
	if (len >= P256SIGN_DIGEST_LEN)
		memcpy(digest, data, P256SIGN_DIGEST_LEN);
	else if (len > 0)
		memcpy(digest + P256SIGN_DIGEST_LEN - len, data, len);
}

static int sign_request(struct p256sign *h, void *arg)
{
	struct p11_job *job = arg;
	struct p256sign_key key = { .id = job->id };
	uint8_t digest[P256SIGN_DIGEST_LEN];
	struct p256sign_tls tls;
	unsigned int md_len = 0;
	uint8_t *sig = job->sig;
	size_t cap = sizeof(job->sig);

	if (job->mech == CKM_ECDSA) {
		as_digest(job->data, job->len, digest);
		return p256sign_sign_digest(h, &key, digest, P256SIGN_RAW, sig, cap, &job->sig_len);
	}
	if (job->md != NULL) {
		if (EVP_DigestFinal_ex(job->md, digest, &md_len) != 1 || md_len != sizeof(digest))
			return P256SIGN_E_INTERNAL;
		if (job->purpose != P11_ANY)
			return P256SIGN_E_DENIED;
		return p256sign_sign_digest(h, &key, digest, P256SIGN_RAW, sig, cap, &job->sig_len);
	}
	if (job->purpose == P11_ANY)
		return p256sign_sign_message(h, &key, job->data, job->len, P256SIGN_RAW, sig, cap,
			&job->sig_len);
	if (p256sign_tls_parse(job->data, job->len, &tls) != 0)
		return P256SIGN_E_DENIED;
	return p256sign_sign_tls(h, &key, &tls, P256SIGN_RAW, sig, cap, &job->sig_len);
}

static void free_job(struct p11_job *job)
{
	if (job->data != NULL)
		explicit_bzero(job->data, job->len);
	free(job->data);
	EVP_MD_CTX_free(job->md);
	explicit_bzero(job->sig, sizeof(job->sig));
	free(job);
}

static void free_job_entry(struct p11_inflight *e)
{
	free_job((struct p11_job *)e);	/* the entry's first member */
}

/* Signs the job on the slot's handle (no module lock held) and writes the signature. */
static CK_RV finish(struct p11_job *job, struct p11_slot *slot, CK_BYTE_PTR sig,
	CK_ULONG_PTR sig_len)
{
	CK_RV rv = job->rv;
	int r;

	if (rv == CKR_OK) {
		r = p11_request(slot, sign_request, job);
		if (r == P256SIGN_E_BAD_TLS_CONTENT || r == P256SIGN_E_INVALID)
			r = job->purpose != P11_ANY ? P256SIGN_E_DENIED : r;
		rv = p11_rv(r);
	}
	if (rv == CKR_OK && job->sig_len != P256SIGN_SIG_RAW_LEN)
		rv = CKR_DEVICE_ERROR;
	if (rv == CKR_OK) {
		memcpy(sig, job->sig, P256SIGN_SIG_RAW_LEN);
		*sig_len = P256SIGN_SIG_RAW_LEN;
	}
	p11_lock();
	p11_inflight_unlink(&job->link);
	p11_unlock();
	free_job(job);
	return rv;
}

/* C_Sign and C_SignFinal: take_job under the lock, then the signature unless only its size was
 * asked for or the buffer was short. */
static CK_RV sign_now(CK_SESSION_HANDLE h, const CK_BYTE *data, CK_ULONG len, int final,
	CK_BYTE_PTR sig, CK_ULONG_PTR sig_len)
{
	struct p11_job *job = calloc(1, sizeof(*job));
	struct p11_session *s;
	struct p11_slot *slot = NULL;
	int ready = 0;
	CK_RV rv;

	if (job == NULL)
		return CKR_HOST_MEMORY;
	if ((rv = lock_signing(h, &s)) == CKR_OK)
		rv = take_job(s, data, len, final, sig, sig_len, job, &slot, &ready);
	if (rv == CKR_OK && ready)
		p11_inflight_link(&p11_mod->jobs, &job->link, free_job_entry);
	p11_unlock();
	if (rv != CKR_OK || !ready) {
		free(job);
		return rv;
	}
	return finish(job, slot, sig, sig_len);
}

CK_RV p11_C_Sign(CK_SESSION_HANDLE h, CK_BYTE_PTR data, CK_ULONG len, CK_BYTE_PTR sig,
	CK_ULONG_PTR sig_len)
{
	return sign_now(h, data, len, 0, sig, sig_len);
}

CK_RV p11_C_SignFinal(CK_SESSION_HANDLE h, CK_BYTE_PTR sig, CK_ULONG_PTR sig_len)
{
	return sign_now(h, NULL, 0, 1, sig, sig_len);
}

CK_RV p11_C_SignUpdate(CK_SESSION_HANDLE h, CK_BYTE_PTR data, CK_ULONG len)
{
	struct p11_session *s;
	CK_RV rv;

	if ((rv = lock_signing(h, &s)) == CKR_OK) {
		rv = data == NULL && len > 0 ? CKR_ARGUMENTS_BAD : append(s, data, len);
		s->multipart = 1;
		if (rv != CKR_OK)
			p11_session_reset(s);	/* an error ends the operation */
	}
	p11_unlock();
	return rv;
}
