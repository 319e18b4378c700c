/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_SELFTEST_H
#define P256SIGND_SELFTEST_H

#include <stdint.h>

#include "p256.h"

struct keyset;	/* keyset.h: only the key-holder's side holds one */

/*
 * The start-up self-test each signer passes before the daemon reports READY: the RFC 6979 A.2.5
 * known answer (deterministic signature of SHA-256("sample") under the RFC's P-256 key), its
 * verification, and a signature by every configured key (with that key's nonce mode and
 * sign_checked) verified under the key's public point.
 */

/* Runs the test in a signer; writes the known-answer signature r||s to kat_sig. 0 or an error. */
int selftest_run(const struct keyset *ks, uint8_t kat_sig[P256_SIG_LEN]);

/*
 * The parent's part: the known answer verified under the RFC key's public point, and SHA-256 of
 * "sample" through OpenSSL's EVP interface, as SIGN_MESSAGE hashes. Besides checking, it makes
 * OpenSSL load its configuration and algorithms before the sandbox. 0 or an error.
 */
int selftest_public(void);

/* 1 when sig is the RFC 6979 A.2.5 signature: the parent's check of a signer's answer. */
int selftest_kat_matches(const uint8_t sig[P256_SIG_LEN]);

#endif
