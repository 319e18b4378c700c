/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer harness for p256sign_keyref_decode (client/keyref/), the parser of key-reference
 * files that TLS servers hand to the provider. Besides "no crash, no over-read, no leak": a
 * refusal is one of the documented P256SIGN_E_KEYREF_* codes, and an accepted input is
 * canonical, i.e. p256sign_keyref_encode writes the decoded fields back to exactly the input
 * bytes (DER has one encoding per value).
 * Seeds: tests/fuzz/corpus/keyref (a name reference and an id reference).
 */
#include <stdlib.h>
#include <string.h>

#include "p256sign.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct p256sign_keyref kd;
	uint8_t out[P256SIGN_KEYREF_DER_MAX];
	size_t len;
	int r = p256sign_keyref_decode(data, size, &kd);

	if (r != 0) {
		if (r > P256SIGN_E_KEYREF_STRUCTURE || r < P256SIGN_E_KEYREF_TRAILING)
			abort();
		return 0;
	}
	if (p256sign_keyref_encode(&kd, out, sizeof(out), &len) != 0 || len != size ||
	    memcmp(out, data, size) != 0)
		abort();
	return 0;
}
