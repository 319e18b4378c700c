/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer harness for p256_sig_from_der. Besides "no crash, no leak": a refusal is one of the
 * documented error codes, and an accepted input is canonical, i.e. p256_sig_to_der re-encodes the
 * decoded r||s to exactly the input bytes (strict DER has one encoding per value, so a decoder
 * that accepts a second one is not strict).
 */
#include <stdlib.h>
#include <string.h>

#include "p256.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int documented_error(int r)
{
	switch (r) {
	case P256_ERR_TRUNCATED:
	case P256_ERR_TRAILING:
	case P256_ERR_DER_TAG:
	case P256_ERR_DER_LENGTH:
	case P256_ERR_DER_INTEGER:
	case P256_ERR_SIG_RANGE:	/* an INTEGER of more than 32 bytes */
		return 1;
	default:
		return 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t sig[P256_SIG_LEN], der[P256_SIG_DER_MAX];
	size_t der_len;
	int r;

	if ((r = p256_sig_from_der(data, size, sig)) != 0) {
		if (!documented_error(r))
			abort();
		return 0;
	}
	if (p256_sig_to_der(sig, der, &der_len) != 0 || der_len != size ||
	    memcmp(der, data, size) != 0)
		abort();
	return 0;
}
