/* SPDX-License-Identifier: ISC */
#ifndef P256_KEYFILE_READ_H
#define P256_KEYFILE_READ_H

#include <stddef.h>
#include <stdint.h>

/*
 * Reads a whole file of at most `cap` bytes into a new buffer of cap + 1 bytes (*buf, *len).
 * The caller releases it with keyfile_read_free, which wipes it: key files are secret.
 * P256_ERR_KEY_FILE when it cannot be opened or read (errno says why), P256_ERR_KEY_TOO_LARGE
 * when it holds more than cap bytes, P256_ERR_INTERNAL when out of memory.
 */
int keyfile_read(const char *path, size_t cap, uint8_t **buf, size_t *len);

/* Wipes and frees a buffer from keyfile_read with its cap; NULL is fine. Keeps errno. */
void keyfile_read_free(uint8_t *buf, size_t cap);

/*
 * 1 when a key or certificate file is DER: its first byte is a SEQUENCE tag, '0' in ASCII, which
 * no PEM file is expected to start with. Deciding on the first byte alone keeps a DER key's bytes
 * away from any text scanning.
 */
int keyfile_is_der(const uint8_t *buf, size_t len);

#endif
