/* SPDX-License-Identifier: ISC */
/* What the p256signctl commands share: errors, connecting, hex, files and hashing. */
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "hex.h"

int ctl_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "p256signctl: %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CTL_EXIT_REFUSED;
}

int ctl_lib_error(const char *cmd, int err)
{
	return ctl_error(cmd, "%s", p256sign_strerror(err));
}

struct p256sign *ctl_connect(const struct ctl_options *o, const char *cmd)
{
	struct p256sign *h = NULL;
	const char *path;
	int r;

	if ((r = p256sign_connect(&h, o->socket)) != 0) {
		/* The library's own lookup (secure_getenv): name the path that was really tried. */
		path = o->socket ? o->socket : secure_getenv(P256SIGN_SOCKET_ENV);
		if (path == NULL || path[0] == '\0')
			path = P256SIGN_SOCKET_DEFAULT;
		if (r == P256SIGN_E_CONNECT || r == P256SIGN_E_IO)
			ctl_error(cmd, "%s at %s: %s", p256sign_strerror(r), path, strerror(errno));
		else
			ctl_error(cmd, "%s: %s", path, p256sign_strerror(r));
		return NULL;
	}
	if (o->timeout_ms > 0)
		(void)p256sign_set_timeout(h, o->timeout_ms);
	return h;
}

int ctl_hex_decode(const char *hex, uint8_t *out, size_t cap, size_t *len)
{
	if (hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X'))
		hex += 2;
	return hex_decode(hex, strlen(hex), out, cap, len) == 0 ? 0 : -1;
}

void ctl_put_hex(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
}

void ctl_print_hex(const uint8_t *p, size_t n)
{
	ctl_put_hex(p, n);
	putchar('\n');
}

int ctl_parse_key(const char *arg, struct p256sign_key *key, uint8_t id[P256SIGN_KEY_ID_LEN])
{
	size_t len;

	memset(key, 0, sizeof(*key));
	if (strncmp(arg, "id:", 3) == 0) {
		if (ctl_hex_decode(arg + 3, id, P256SIGN_KEY_ID_LEN, &len) != 0 ||
		    len != P256SIGN_KEY_ID_LEN)
			return -1;
		key->id = id;
		return 0;
	}
	key->name = arg;
	return 0;
}

/* Opens path for reading; "-" is stdin (not to be closed). */
static int open_input(const char *path)
{
	return strcmp(path, "-") == 0 ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
}

static void close_input(int fd)
{
	int saved = errno;

	if (fd != STDIN_FILENO)
		close(fd);
	errno = saved;
}

int ctl_sha256_file(const char *path, uint8_t digest[P256SIGN_DIGEST_LEN])
{
	static uint8_t chunk[65536];
	EVP_MD_CTX *ctx = NULL;
	unsigned int dlen;
	ssize_t n;
	int fd, r = -1;

	if ((fd = open_input(path)) < 0)
		return -1;
	if ((ctx = EVP_MD_CTX_new()) == NULL || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		errno = ENOMEM;
		goto out;
	}
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto out;
		if (n == 0)
			break;
		if (EVP_DigestUpdate(ctx, chunk, (size_t)n) != 1) {
			errno = EIO;
			goto out;
		}
	}
	if (EVP_DigestFinal_ex(ctx, digest, &dlen) != 1 || dlen != P256SIGN_DIGEST_LEN) {
		errno = EIO;
		goto out;
	}
	r = 0;
out:
	EVP_MD_CTX_free(ctx);
	close_input(fd);
	return r;
}

int ctl_read_file(const char *path, uint8_t *buf, size_t cap, size_t *len)
{
	size_t got = 0;
	uint8_t extra;
	ssize_t n;
	int fd, r = -1;

	if ((fd = open_input(path)) < 0)
		return -1;
	for (;;) {
		n = got < cap ? read(fd, buf + got, cap - got) : read(fd, &extra, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto out;
		if (n == 0)
			break;
		if (got == cap) {
			errno = EFBIG;
			goto out;
		}
		got += (size_t)n;
	}
	*len = got;
	r = 0;
out:
	close_input(fd);
	return r;
}

int ctl_write_file(const char *path, const uint8_t *p, size_t n)
{
	ssize_t k;
	int fd, r = -1;

	if (path == NULL || strcmp(path, "-") == 0)
		fd = STDOUT_FILENO;
	else if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0)
		return -1;
	while (n > 0) {
		k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			goto out;
		p += k;
		n -= (size_t)k;
	}
	r = 0;
out:
	if (fd != STDOUT_FILENO && close(fd) != 0)
		r = -1;
	return r;
}

int ctl_write_pem(const char *path, const char *label, const uint8_t *der, size_t len)
{
	size_t b64_len = 4 * ((len + 2) / 3), cap = b64_len + b64_len / 64 + 2 * strlen(label) + 64;
	char *b64 = malloc(b64_len + 1), *text = malloc(cap);
	size_t n;
	int r = -1;

	if (b64 == NULL || text == NULL || len > INT32_MAX) {
		errno = ENOMEM;
		goto out;
	}
	EVP_EncodeBlock((unsigned char *)b64, der, (int)len);
	n = (size_t)snprintf(text, cap, "-----BEGIN %s-----\n", label);
	for (size_t i = 0; i < b64_len; i += 64)
		n += (size_t)snprintf(text + n, cap - n, "%.*s\n",
		    (int)(b64_len - i < 64 ? b64_len - i : 64), b64 + i);
	n += (size_t)snprintf(text + n, cap - n, "-----END %s-----\n", label);
	r = ctl_write_file(path, (const uint8_t *)text, n);
out:
	free(b64);
	free(text);
	return r;
}

int ctl_parse_format(const char *arg, int *format)
{
	if (strcmp(arg, "der") == 0)
		*format = P256SIGN_DER;
	else if (strcmp(arg, "raw") == 0)
		*format = P256SIGN_RAW;
	else
		return -1;
	return 0;
}
