/* SPDX-License-Identifier: ISC */
/* The audit file: append-only opens and the read-back of its last record (audit-file.h). */
#include "audit-file.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit-record.h"
#include "sha256.h"

/* The longest line read back: a record is a few hundred bytes. */
#define LAST_LINE_MAX 16384

int audit_file_open(const char *path)
{
	return open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0640);
}

size_t audit_file_write(int fd, const char *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = write(fd, buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			break;
		}
		off += (size_t)n;
	}
	return off;
}

/* The record of one line (len bytes, no newline): its seq, or 0 when it is not a record. */
static uint64_t line_seq(const char *line, size_t len)
{
	json_t *rec = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
	json_t *v = json_object_get(rec, "v"), *seq = json_object_get(rec, "seq");
	uint64_t r = 0;

	if (json_is_object(rec) && json_is_integer(v) && json_integer_value(v) == 1 &&
	    json_is_integer(seq) && json_integer_value(seq) > 0)
		r = (uint64_t)json_integer_value(seq);
	json_decref(rec);
	return r;
}

int audit_file_last(const char *path, uint64_t *seq, uint8_t hash[32], char *err, size_t errlen)
{
	static char buf[LAST_LINE_MAX + 1];
	struct stat st;
	size_t len, start;
	ssize_t n;
	int fd, r = -1;

	*seq = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		goto out;
	}
	r = 0;
	if (st.st_size == 0)
		goto out;
	r = -1;
	len = st.st_size > LAST_LINE_MAX + 1 ? LAST_LINE_MAX + 1 : (size_t)st.st_size;
	if ((n = pread(fd, buf, len, st.st_size - (off_t)len)) != (ssize_t)len) {
		snprintf(err, errlen, "%s: cannot read: %s", path, n < 0 ? strerror(errno) : "short read");
		goto out;
	}
	for (start = len - 1; start > 0 && buf[start - 1] != '\n'; start--)
		;
	if (buf[len - 1] != '\n' || (start == 0 && len > LAST_LINE_MAX) ||
	    (*seq = line_seq(buf + start, len - 1 - start)) == 0) {
		snprintf(err, errlen, "%s: the last line is not a whole audit record (cut by a crash or "
		    "a full disk, or edited): check the file with p256signctl audit-verify, then move it "
		    "aside to start a new chain", path);
		goto out;
	}
	if (sha256(buf + start, len - 1 - start, hash) != 0) {
		snprintf(err, errlen, "%s: SHA-256 failed", path);
		goto out;
	}
	r = 0;
out:
	close(fd);
	return r;
}
