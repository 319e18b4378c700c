/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_AUDIT_FILE_H
#define P256SIGND_AUDIT_FILE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The audit file on disk: opened for appending only, and read back at start to find the end of
 * the chain it holds (docs/audit.md).
 */

/* Opens path O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, mode 0640: the descriptor, or -1 (errno). */
int audit_file_open(const char *path);

/*
 * The end of the chain in the file at path: *seq and *hash (SHA-256 of the last line) of its last
 * record, *seq 0 when the file is empty or absent. 0, or -1 with err set when the last line is
 * not a whole record (no newline at its end, not a JSON object with "v" 1 and a "seq"), or the
 * file cannot be read.
 */
int audit_file_last(const char *path, uint64_t *seq, uint8_t hash[32], char *err, size_t errlen);

/*
 * Writes len bytes at the file's end, retrying on EINTR: the bytes written (len when all went),
 * with errno set when fewer.
 */
size_t audit_file_write(int fd, const char *buf, size_t len);

#endif
