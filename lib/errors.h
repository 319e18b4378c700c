/* SPDX-License-Identifier: ISC */
#ifndef P256_ERRORS_H
#define P256_ERRORS_H

/*
 * Every refusal in lib/ has its own negative code, a stable tag (lowercase, dash-separated, used
 * in logs, JSON and docs) and a one-line message. 0 is success. Codes are never reused.
 */
enum p256_err {
	P256_OK = 0,
	P256_ERR_INTERNAL = -1,		/* a library call failed; a bug or out of memory */
	P256_ERR_RANDOM = -2,		/* getrandom failed */
	P256_ERR_LENGTH = -3,		/* an argument has the wrong length */
	P256_ERR_SCALAR_RANGE = -4,	/* private scalar is 0 or >= n */
	P256_ERR_POINT = -5,		/* public point malformed, off the curve or infinity */
	P256_ERR_SIG_RANGE = -6,	/* r or s is 0 or >= n */
	P256_ERR_SIG_INVALID = -7,	/* signature does not verify */
	P256_ERR_SIG_HIGH_S = -8,	/* s > n/2 under the low-s policy */
	P256_ERR_FAULT = -9,		/* a fresh signature failed its own verification */
	P256_ERR_BUFFER = -10,		/* output buffer too small */
	/* byte cursor and DER */
	P256_ERR_TRUNCATED = -11,	/* input ends before a field does */
	P256_ERR_TRAILING = -12,	/* bytes left after the last field */
	P256_ERR_DER_TAG = -13,		/* unexpected or multi-byte DER tag */
	P256_ERR_DER_LENGTH = -14,	/* indefinite or non-minimal DER length */
	P256_ERR_DER_INTEGER = -15,	/* empty, negative or zero-padded DER INTEGER */
	P256_ERR_DER_BITSTRING = -16,	/* BIT STRING with unused bits */
	/* key and certificate files (lib/keyfile.h) */
	P256_ERR_KEY_EMPTY = -20,	/* no private key in the file */
	P256_ERR_KEY_ENCRYPTED = -21,	/* encrypted private key */
	P256_ERR_KEY_ALGORITHM = -22,	/* not an EC key (RSA, Ed25519, ...) */
	P256_ERR_KEY_CURVE = -23,	/* EC key on another named curve */
	P256_ERR_KEY_EXPLICIT_CURVE = -24, /* explicit curve parameters */
	P256_ERR_KEY_VERSION = -25,	/* unsupported structure version */
	P256_ERR_KEY_PUBLIC_MISMATCH = -26, /* embedded public key is not d*G */
	P256_ERR_PEM_LABEL = -27,	/* END label does not match BEGIN */
	P256_ERR_PEM_UNTERMINATED = -28, /* BEGIN without END */
	P256_ERR_BASE64 = -29,		/* a character that is not base64 */
	P256_ERR_BASE64_PADDING = -30,	/* '=' not at the end, or wrong padding */
	P256_ERR_BASE64_TRUNCATED = -31, /* base64 length not a multiple of 4 */
	P256_ERR_KEY_FILE = -32,	/* the file cannot be read */
	P256_ERR_KEY_TOO_LARGE = -33,	/* the file is larger than any key file */
	P256_ERR_CERT_INVALID = -34,	/* certificate cannot be parsed */
	P256_ERR_CERT_ALGORITHM = -35,	/* certificate key is not P-256 */
	P256_ERR_CERT_MISMATCH = -36,	/* certificate is for another key */
	P256_ERR_HEX = -37,		/* hex text malformed (not a digit, odd count) */
	P256_ERR_NOT_REGULAR = -38,	/* a key or certificate path that is not a regular file */
	P256_ERR_KEY_FILE_MODE = -39,	/* group or others may access a private key file */
	P256_ERR_KEY_FILE_OWNER = -40,	/* a private key file owned by neither root nor its reader */
	P256_ERR_CERT_TOO_LARGE = -41,	/* a certificate whose DER is over what CERTIFICATE carries */
	P256_ERR_MIN = -41
};

/* The stable tag of an error code ("der-length"); "unknown-error" for a code not listed. */
const char *p256_err_tag(int err);

/* A one-line English message for an error code; never NULL. */
const char *p256_strerror(int err);

#endif
