/* SPDX-License-Identifier: ISC */
/* Each lib/ refusal's stable tag and one-line message (errors.h). */
#include "errors.h"

struct err_text {
	const char *tag;
	const char *msg;
};

/* Indexed by -code; a code missing here reads as unknown-error. */
static const struct err_text err_texts[-P256_ERR_MIN + 1] = {
	[-P256_OK] = { "ok", "success" },
	[-P256_ERR_INTERNAL] = { "internal", "internal error (library call failed)" },
	[-P256_ERR_RANDOM] = { "random", "the system random generator failed" },
	[-P256_ERR_LENGTH] = { "length", "an argument has the wrong length" },
	[-P256_ERR_SCALAR_RANGE] = { "scalar-range", "private scalar is 0 or not below the group order" },
	[-P256_ERR_POINT] = { "point-invalid", "public point is malformed, not on P-256, or infinity" },
	[-P256_ERR_SIG_RANGE] = { "signature-range", "signature r or s is 0 or not below the group order" },
	[-P256_ERR_SIG_INVALID] = { "signature-invalid", "signature does not verify" },
	[-P256_ERR_SIG_HIGH_S] = { "signature-high-s", "signature s is above n/2 (low-s policy)" },
	[-P256_ERR_FAULT] = { "sign-fault", "a fresh signature failed verification and was discarded" },
	[-P256_ERR_BUFFER] = { "buffer-small", "output buffer too small" },
	[-P256_ERR_TRUNCATED] = { "truncated", "input ends before a field does" },
	[-P256_ERR_TRAILING] = { "trailing-bytes", "bytes left after the last field" },
	[-P256_ERR_DER_TAG] = { "der-tag", "unexpected DER tag" },
	[-P256_ERR_DER_LENGTH] = { "der-length", "indefinite or non-minimal DER length" },
	[-P256_ERR_DER_INTEGER] = { "der-integer", "DER INTEGER is empty, negative or zero-padded" },
	[-P256_ERR_DER_BITSTRING] = { "der-bitstring", "DER BIT STRING has unused bits" },
	[-P256_ERR_KEY_EMPTY] = { "key-missing", "no private key in the file" },
	[-P256_ERR_KEY_ENCRYPTED] = { "key-encrypted", "private key is encrypted" },
	[-P256_ERR_KEY_ALGORITHM] = { "key-algorithm", "not an EC private key" },
	[-P256_ERR_KEY_CURVE] = { "key-curve", "EC key on a curve other than P-256" },
	[-P256_ERR_KEY_EXPLICIT_CURVE] = { "key-explicit-curve", "EC key with explicit curve parameters" },
	[-P256_ERR_KEY_VERSION] = { "key-version", "unsupported key structure version" },
	[-P256_ERR_KEY_PUBLIC_MISMATCH] = { "key-public-mismatch", "embedded public key does not match the private key" },
	[-P256_ERR_PEM_LABEL] = { "pem-label-mismatch", "PEM END label does not match BEGIN" },
	[-P256_ERR_PEM_UNTERMINATED] = { "pem-unterminated", "PEM BEGIN line without END line" },
	[-P256_ERR_BASE64] = { "base64-invalid", "invalid character in base64" },
	[-P256_ERR_BASE64_PADDING] = { "base64-padding", "base64 '=' padding misplaced" },
	[-P256_ERR_BASE64_TRUNCATED] = { "base64-truncated", "base64 text is truncated" },
	[-P256_ERR_KEY_FILE] = { "file-unreadable", "the file cannot be read" },
	[-P256_ERR_KEY_TOO_LARGE] = { "file-too-large", "the file is too large to be a key file" },
	[-P256_ERR_CERT_INVALID] = { "certificate-invalid", "certificate cannot be parsed" },
	[-P256_ERR_CERT_ALGORITHM] = { "certificate-algorithm", "certificate key is not a P-256 key" },
	[-P256_ERR_CERT_MISMATCH] = { "key-certificate-mismatch", "certificate is for another key" },
	[-P256_ERR_HEX] = { "hex-invalid", "hex text malformed" },
	[-P256_ERR_NOT_REGULAR] = { "file-not-regular",
		"not a regular file (a directory, FIFO, socket or device)" },
	[-P256_ERR_KEY_FILE_MODE] = { "key-file-mode",
		"group or others may access the private key file (fix: chmod 600 on it)" },
	[-P256_ERR_KEY_FILE_OWNER] = { "key-file-owner",
		"the private key file belongs to neither root nor the user reading it "
		"(fix: chown root on it, or chown to that user)" },
	[-P256_ERR_CERT_TOO_LARGE] = { "certificate-too-large",
		"the certificate's DER is over 16384 bytes, the most the daemon serves" },
};

static const struct err_text *err_lookup(int err)
{
	if (err > 0 || err < P256_ERR_MIN || err_texts[-err].tag == 0)
		return 0;
	return &err_texts[-err];
}

const char *p256_err_tag(int err)
{
	const struct err_text *t = err_lookup(err);
	return t ? t->tag : "unknown-error";
}

const char *p256_strerror(int err)
{
	const struct err_text *t = err_lookup(err);
	return t ? t->msg : "unknown error";
}
