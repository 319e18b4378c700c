/* SPDX-License-Identifier: ISC */
/* Whole-buffer reads and writes on blocking sockets (fd-io.h). */
#include "fd-io.h"

#include <errno.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>

/* One loop for both directions: a short transfer continues, EINTR retries, 0 or -1 stops. */
static int full_io(int fd, uint8_t *p, size_t n, int sending)
{
	ssize_t k;

	while (n > 0) {
		k = sending ? send(fd, p, n, MSG_NOSIGNAL) : read(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

int fd_read_full(int fd, void *p, size_t n)
{
	return full_io(fd, p, n, 0);
}

int fd_send_full(int fd, const void *p, size_t n)
{
	/* full_io does not write through p when sending. */
	return full_io(fd, (uint8_t *)(uintptr_t)p, n, 1);
}
