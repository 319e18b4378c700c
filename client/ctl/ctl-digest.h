/* SPDX-License-Identifier: ISC */
#ifndef P256SIGNCTL_DIGEST_H
#define P256SIGNCTL_DIGEST_H

#include "ctl.h"

/* Where a command's digest comes from: exactly one of the two is set. */
struct ctl_digest {
	const char *hex;	/* --digest HEX */
	const char *file;	/* --file PATH, or "-" for stdin */
};

/* Records one source (hex or file, the other NULL); CTL_EXIT_USAGE if a source was already
 * given. */
int ctl_digest_set(struct ctl_digest *d, const char *cmd, const char *hex, const char *file);

/* The 32-byte digest: decoded, or hashed from the file. 0, or an exit status after printing why. */
int ctl_digest_get(const struct ctl_digest *d, const char *cmd,
	uint8_t digest[P256SIGN_DIGEST_LEN]);

#endif
