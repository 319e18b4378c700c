/* SPDX-License-Identifier: ISC */
#ifndef P256_KEYFILE_READ_H
#define P256_KEYFILE_READ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/*
 * Reads a whole file of at most `cap` bytes into a new buffer of cap + 1 bytes (*buf, *len).
 * The caller releases it with keyfile_read_free, which wipes it: key files are secret.
 * P256_ERR_KEY_FILE when it cannot be opened or read (errno says why), P256_ERR_NOT_REGULAR for
 * a directory, FIFO, socket or device, P256_ERR_KEY_TOO_LARGE when it holds more than cap
 * bytes, P256_ERR_INTERNAL when out of memory. For public files (certificates).
 */
int keyfile_read(const char *path, size_t cap, uint8_t **buf, size_t *len);

/*
 * keyfile_read for a private key file: before reading, the file (the one a symbolic link leads
 * to) must pass keyfile_check_access for the effective user, else its refusal is returned.
 */
int keyfile_read_secret(const char *path, size_t cap, uint8_t **buf, size_t *len);

/*
 * Whether only its owner may access a private key file, and the owner is one that may hold it,
 * from the file's mode and owner, the reading user and the bytes of its POSIX access ACL
 * (attribute system.posix_acl_access; NULL when it has none). With an ACL, the group bits are
 * its mask and every entry under it counts: a named-user entry for root or the reader is allowed
 * (systemd grants a service's user its credentials that way), any other grant is not. Returns 0,
 * P256_ERR_KEY_FILE_OWNER when the owner is neither root nor reader, else P256_ERR_KEY_FILE_MODE
 * when a group or another user has any permission bit (the owner's execute bit is allowed).
 */
int keyfile_check_access(mode_t mode, uid_t owner, uid_t reader, const uint8_t *acl,
	size_t acl_len);

/* Wipes and frees a buffer from keyfile_read with its cap; NULL is fine. Keeps errno. */
void keyfile_read_free(uint8_t *buf, size_t cap);

/*
 * 1 when a key or certificate file is DER: its first byte is a SEQUENCE tag, '0' in ASCII, which
 * no PEM file is expected to start with. Deciding on the first byte alone keeps a DER key's bytes
 * away from any text scanning.
 */
int keyfile_is_der(const uint8_t *buf, size_t len);

#endif
