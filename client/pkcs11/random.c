/* SPDX-License-Identifier: ISC */
/*
 * C_GenerateRandom: the token's random numbers are the kernel's (getrandom(2)), the source the
 * daemon itself draws from on the same machine; programs such as pkcs11-tool's self test ask for
 * them. C_SeedRandom: the kernel's pool takes no seed from here.
 */
#include <errno.h>
#include <sys/random.h>

#include "p11-functions.h"

static CK_RV check_session(CK_SESSION_HANDLE h)
{
	struct p11_session *s;
	CK_RV rv = p11_lock_session(h, &s);

	p11_unlock();
	return rv;
}

CK_RV p11_C_SeedRandom(CK_SESSION_HANDLE h, CK_BYTE_PTR seed, CK_ULONG len)
{
	CK_RV rv = check_session(h);

	if (rv != CKR_OK)
		return rv;
	if (seed == NULL && len > 0)
		return CKR_ARGUMENTS_BAD;
	return CKR_RANDOM_SEED_NOT_SUPPORTED;
}

CK_RV p11_C_GenerateRandom(CK_SESSION_HANDLE h, CK_BYTE_PTR out, CK_ULONG len)
{
	CK_RV rv = check_session(h);
	ssize_t n;

	if (rv != CKR_OK)
		return rv;
	if (out == NULL && len > 0)
		return CKR_ARGUMENTS_BAD;
	while (len > 0) {
		n = getrandom(out, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return CKR_FUNCTION_FAILED;
		out += n;
		len -= (CK_ULONG)n;
	}
	return CKR_OK;
}
