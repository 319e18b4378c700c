/* SPDX-License-Identifier: ISC */
/*
 * The digest a sign or verify command works on: --digest HEX, or SHA-256 of --file PATH or
 * stdin.
 */
#include <errno.h>
#include <string.h>

#include "ctl-digest.h"

int ctl_digest_set(struct ctl_digest *d, const char *cmd, const char *hex, const char *file)
{
	if ((hex != NULL) + (file != NULL) + (d->hex != NULL) + (d->file != NULL) != 1)
		return ctl_usage(cmd);
	if (hex != NULL)
		d->hex = hex;
	else
		d->file = file;
	return 0;
}

int ctl_digest_get(const struct ctl_digest *d, const char *cmd, uint8_t digest[P256SIGN_DIGEST_LEN])
{
	size_t len;

	if (d->hex == NULL && d->file == NULL)
		return ctl_usage(cmd);
	if (d->hex != NULL) {
		if (ctl_hex_decode(d->hex, digest, P256SIGN_DIGEST_LEN, &len) != 0 ||
		    len != P256SIGN_DIGEST_LEN)
			return ctl_error(cmd, "--digest must be 64 hex digits (a SHA-256 digest)");
		return 0;
	}
	if (ctl_sha256_file(d->file, digest) != 0)
		return ctl_error(cmd, "%s: %s", strcmp(d->file, "-") == 0 ? "stdin" : d->file,
			strerror(errno));
	return 0;
}
