/* SPDX-License-Identifier: ISC */
#ifndef CLIENT_FD_IO_H
#define CLIENT_FD_IO_H

#include <stddef.h>

/*
 * Whole-buffer I/O on blocking sockets, for the test servers and the benchmarks that speak the
 * protocol by hand (the library itself never blocks on its socket). EINTR is retried.
 */

/* Reads exactly n bytes into p: 0, or -1 on an error or an end of stream before n bytes. */
int fd_read_full(int fd, void *p, size_t n);

/* Sends all n bytes of p without raising SIGPIPE: 0, or -1 on an error. */
int fd_send_full(int fd, const void *p, size_t n);

#endif
