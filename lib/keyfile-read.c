/* SPDX-License-Identifier: ISC */
#include "keyfile-read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errors.h"

int keyfile_read(const char *path, size_t cap, uint8_t **buf, size_t *len)
{
	struct stat st;
	uint8_t *b = NULL;
	size_t n = 0;
	ssize_t got;
	int fd = -1, saved, r = P256_ERR_KEY_FILE;

	*buf = NULL;
	*len = 0;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below). */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0 || fstat(fd, &st) != 0)
		goto out;
	if (!S_ISREG(st.st_mode)) {
		r = P256_ERR_NOT_REGULAR;
		goto out;
	}
	if ((b = calloc(1, cap + 1)) == NULL) {
		r = P256_ERR_INTERNAL;
		goto out;
	}
	/* Read up to one byte past the cap: a file of cap + 1 bytes is too large. */
	while (n <= cap) {
		got = read(fd, b + n, cap + 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			goto out;
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (n > cap) {
		r = P256_ERR_KEY_TOO_LARGE;
		goto out;
	}
	*buf = b;
	*len = n;
	b = NULL;
	r = 0;
out:
	saved = errno;
	keyfile_read_free(b, cap);
	if (fd >= 0)
		close(fd);
	errno = saved;
	return r;
}

int keyfile_is_der(const uint8_t *buf, size_t len)
{
	return len > 0 && buf[0] == 0x30;
}

void keyfile_read_free(uint8_t *buf, size_t cap)
{
	int saved = errno;

	if (buf != NULL) {
		explicit_bzero(buf, cap + 1);
		free(buf);
	}
	errno = saved;
}
