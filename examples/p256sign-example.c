/* SPDX-License-Identifier: ISC */
/*
 * libp256sign example: prints a key's public point (blocking API), then has the daemon sign
 * each argument (SHA-256 of it) with the non-blocking API, all requests in flight at once and
 * collected with poll, and prints one DER signature per line, in argument order.
 *
 *   cc p256sign-example.c $(pkg-config --cflags --libs p256sign) -o p256sign-example
 *   ./p256sign-example KEY MESSAGE...
 *
 * The socket comes from $P256SIGN_SOCKET, else the default path. Exit 0, or 1 on any error.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <p256sign.h>

static void print_hex(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
	printf("\n");
}

/* The index of the request with this id: results carry ids, which may wrap past 0. */
static int index_of(const uint32_t *ids, int n, uint32_t id)
{
	for (int i = 0; i < n; i++)
		if (ids[i] == id)
			return i;
	return -1;
}

/* Signs every message with requests in flight together; results may arrive in any order. */
static int sign_all(struct p256sign *h, const struct p256sign_key *key, int n, char **msgs)
{
	struct p256sign_result res;
	struct p256sign_result *out = calloc((size_t)n, sizeof(*out));
	uint32_t *ids = calloc((size_t)n, sizeof(*ids));
	int done = 0, i, r = -1;

	if (out == NULL || ids == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		r = p256sign_submit_sign_message(h, key, msgs[i], strlen(msgs[i]), P256SIGN_DER, &ids[i]);
		if (r != 0) {
			fprintf(stderr, "submit: %s\n", p256sign_strerror(r));
			goto out;
		}
	}
	while (done < n) {
		struct pollfd pfd = { .fd = p256sign_fd(h), .events = POLLIN };

		if (p256sign_want_write(h))
			pfd.events |= POLLOUT;
		if (pfd.fd >= 0 && poll(&pfd, 1, p256sign_next_timeout(h)) < 0) {
			perror("poll");
			goto out;
		}
		if ((r = p256sign_process(h)) < 0)
			goto out;
		while (p256sign_next_result(h, &res) == 0) {
			if (res.error != 0) {
				fprintf(stderr, "sign: %s\n", p256sign_strerror(res.error));
				r = res.error;
				goto out;
			}
			if ((i = index_of(ids, n, res.id)) < 0) {
				fprintf(stderr, "a result for no request of ours\n");
				r = -1;
				goto out;
			}
			out[i] = res;
			done++;
		}
	}
	for (i = 0; i < n; i++)
		print_hex(out[i].sig, out[i].sig_len);
	r = 0;
out:
	free(ids);
	free(out);
	return r;
}

int main(int argc, char **argv)
{
	struct p256sign_key key = { 0 };
	struct p256sign_pubkey pub;
	struct p256sign *h = NULL;
	int r;

	if (argc < 3) {
		fprintf(stderr, "usage: p256sign-example KEY MESSAGE...\n");
		return 2;
	}
	key.name = argv[1];
	if ((r = p256sign_connect(&h, NULL)) != 0) {
		fprintf(stderr, "connect: %s\n", p256sign_strerror(r));
		return 1;
	}
	if ((r = p256sign_get_pubkey(h, &key, &pub)) != 0) {
		fprintf(stderr, "pubkey: %s\n", p256sign_strerror(r));
		goto out;
	}
	print_hex(pub.point, sizeof(pub.point));
	r = sign_all(h, &key, argc - 2, argv + 2);
out:
	p256sign_close(h);
	return r == 0 ? 0 : 1;
}
