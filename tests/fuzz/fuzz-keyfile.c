/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer harness for the key file reader (PEM, base64, PKCS#8 and SEC 1 DER): any input is
 * accepted or refused without a crash or sanitizer report; an accepted key is consistent and a
 * refused one leaves the output wiped. Seeds: tests/fuzz/corpus/keyfile (the key corpus).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "keyfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[BASE64_DECODED_MAX(KEYFILE_MAX)];
	static const struct keyfile_key wiped;
	struct keyfile_key key;
	uint8_t pub[P256_POINT_LEN];
	size_t len;

	if (size > KEYFILE_MAX)
		return 0;
	if (keyfile_parse(data, size, &key) == 0) {
		if (p256_public_from_private(key.d, pub) != 0 || memcmp(pub, key.pub, sizeof(pub)) != 0)
			abort();
	} else if (memcmp(&key, &wiped, sizeof(key)) != 0) {
		abort();
	}
	keyfile_key_clear(&key);
	if (base64_decode((const char *)data, size, out, sizeof(out), &len) == 0 &&
	    len > BASE64_DECODED_MAX(size))
		abort();
	return 0;
}
