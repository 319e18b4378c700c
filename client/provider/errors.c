/* SPDX-License-Identifier: ISC */
/* The provider's errors: reason texts and raising them through the core's error functions. */
#include <stdarg.h>

#include "provider.h"

const OSSL_ITEM prov_reason_strings[] = {
	{ PROV_R_BAD_URI, "malformed p256sign key URI" },
	{ PROV_R_DAEMON, "p256signd request failed" },
	{ PROV_R_NOT_A_DAEMON_KEY, "not a key held by p256signd" },
	{ PROV_R_BAD_DIGEST, "unsupported digest (SHA-256, SHA-384 or SHA-512)" },
	{ PROV_R_BAD_INPUT_LENGTH, "input is not a digest of the expected length" },
	{ PROV_R_BUFFER, "signature buffer too small" },
	{ PROV_R_PRIVATE_EXPORT, "the private key cannot be exported from p256signd" },
	{ PROV_R_BAD_KEY, "not a P-256 public key" },
	{ PROV_R_BAD_KEYREF, "malformed " P256SIGN_KEYREF_PEM_LABEL },
	{ PROV_R_CONFIG, "bad p256sign provider configuration" },
	{ PROV_R_NOMEM, "out of memory" },
	{ PROV_R_PURPOSE, "the key's purpose does not allow this signature" },
	{ 0, NULL },
};

void prov_error(const struct prov_ctx *prov, int reason, const char *fmt, ...)
{
	va_list ap;

	/* The core functions are all present from OpenSSL 3.0 on; init took them or none. */
	if (prov == NULL || prov->new_error == NULL || prov->vset_error == NULL)
		return;
	prov->new_error(prov->handle);
	va_start(ap, fmt);
	prov->vset_error(prov->handle, (uint32_t)reason, fmt, ap);
	va_end(ap);
}
