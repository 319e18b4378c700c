/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer harness for keyref_der_decode, the parser of key-reference files that TLS servers
 * hand to the provider. Besides "no crash, no over-read, no leak": a refusal is one of the
 * documented KEYREF_E_* codes, and an accepted input is canonical, i.e. keyref_der_encode writes
 * the decoded fields back to exactly the input bytes (DER has one encoding per value).
 * Seeds: tests/fuzz/corpus/keyref (a name reference and an id reference).
 */
#include <stdlib.h>
#include <string.h>

#include "keyref-der.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct keyref_der kd;
	uint8_t out[KEYREF_DER_MAX];
	size_t len;
	int r = keyref_der_decode(data, size, &kd);

	if (r != 0) {
		if (r > KEYREF_E_STRUCTURE || r < KEYREF_E_TRAILING)
			abort();
		return 0;
	}
	if (keyref_der_encode(&kd, out, sizeof(out), &len) != 0 || len != size ||
	    memcmp(out, data, size) != 0)
		abort();
	return 0;
}
