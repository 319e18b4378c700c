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

/* Signs every message with requests in flight together; results may arrive in any order. */
static int sign_all(struct p256sign *h, const struct p256sign_key *key, int n, char **msgs)
{
	struct p256sign_result res;
	struct p256sign_result *out = calloc((size_t)n, sizeof(*out));
	uint32_t first = 0, id;
	int done = 0, r = -1;

	if (out == NULL)
		return -1;
	for (int i = 0; i < n; i++) {
		r = p256sign_submit_sign_message(h, key, msgs[i], strlen(msgs[i]), P256SIGN_DER, &id);
		if (r != 0) {
			fprintf(stderr, "submit: %s\n", p256sign_strerror(r));
			goto out;
		}
		if (i == 0)
			first = id;	/* ids of one handle increase by one */
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
			out[res.id - first] = res;
			done++;
		}
	}
	for (int i = 0; i < n; i++)
		print_hex(out[i].sig, out[i].sig_len);
	r = 0;
out:
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
