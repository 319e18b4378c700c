/* SPDX-License-Identifier: ISC */
/*
 * A minimal p256signd client for the demo and tests (the wire codec from proto/): one request,
 * one response, over a Unix socket.
 *   p256sign-testclient SOCKET ping
 *   p256sign-testclient SOCKET status | list-keys       (prints the JSON)
 *   p256sign-testclient SOCKET pubkey KEY SPKI.der      (writes the SubjectPublicKeyInfo)
 *   p256sign-testclient SOCKET sign-message KEY FILE SIG.der
 * Exits 0 on success, 1 on an error response or failure, 2 on bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "proto.h"

static uint8_t frame[PROTO_LEN_PREFIX + PROTO_FRAME_MAX];

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "%s: path too long\n", path);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int io_all(int fd, uint8_t *p, size_t n, int writing)
{
	while (n > 0) {
		ssize_t r = writing ? write(fd, p, n) : read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Sends req and decodes the answer into resp (text and json point into a static buffer). */
static int call(const char *path, const struct proto_request *req, struct proto_response *resp)
{
	size_t len;
	uint32_t n;
	int fd, r = -1;

	if (proto_encode_request(req, frame, sizeof(frame), &len) != 0) {
		fprintf(stderr, "cannot encode the request\n");
		return -1;
	}
	if ((fd = connect_to(path)) < 0)
		return -1;
	if (io_all(fd, frame, len, 1) != 0 || io_all(fd, frame, PROTO_LEN_PREFIX, 0) != 0 ||
	    proto_frame_length(frame, &n) != 0 || io_all(fd, frame, n, 0) != 0 ||
	    proto_decode_response(frame, n, resp) != 0) {
		fprintf(stderr, "%s: no valid response\n", path);
		goto out;
	}
	if (resp->h.type == PROTO_ERROR) {
		fprintf(stderr, "error %u (%s): %.*s\n", resp->error, proto_error_tag(resp->error),
		    (int)resp->text_len, resp->text);
		goto out;
	}
	r = 0;
out:
	close(fd);
	return r;
}

static int write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int set_key(struct proto_key *k, const char *name)
{
	if (strlen(name) > PROTO_NAME_MAX)
		return -1;
	k->kind = PROTO_KEY_NAME;
	k->name_len = (uint8_t)strlen(name);
	memcpy(k->name, name, k->name_len + 1);
	return 0;
}

static int sign_message(const char *sock, struct proto_request *req, const char *in,
	const char *out)
{
	static uint8_t msg[PROTO_MESSAGE_MAX + 1];
	struct proto_response resp;
	FILE *f = fopen(in, "rb");
	size_t n;

	if (f == NULL) {
		fprintf(stderr, "%s: %s\n", in, strerror(errno));
		return -1;
	}
	n = fread(msg, 1, sizeof(msg), f);
	fclose(f);
	if (n > PROTO_MESSAGE_MAX) {
		fprintf(stderr, "%s: larger than %d bytes\n", in, PROTO_MESSAGE_MAX);
		return -1;
	}
	req->h.type = PROTO_SIGN_MESSAGE;
	req->format = PROTO_FORMAT_DER;
	req->message = msg;
	req->message_len = n;
	if (call(sock, req, &resp) != 0)
		return -1;
	return write_file(out, resp.sig, resp.sig_len);
}

int main(int argc, char **argv)
{
	struct proto_request req = { .h = { .version = PROTO_VERSION, .id = 1 } };
	struct proto_response resp;
	const char *cmd = argc > 2 ? argv[2] : "";

	if (argc == 3 && (strcmp(cmd, "ping") == 0 || strcmp(cmd, "status") == 0 ||
			     strcmp(cmd, "list-keys") == 0)) {
		req.h.type = cmd[0] == 'p' ? PROTO_PING : cmd[0] == 's' ? PROTO_STATUS :
		    PROTO_LIST_KEYS;
		if (call(argv[1], &req, &resp) != 0)
			return 1;
		if (req.h.type == PROTO_PING)
			printf("pong\n");
		else
			printf("%.*s\n", (int)resp.json_len, resp.json);
		return 0;
	}
	if (argc == 5 && strcmp(cmd, "pubkey") == 0 && set_key(&req.key, argv[3]) == 0) {
		req.h.type = PROTO_PUBKEY;
		return call(argv[1], &req, &resp) == 0 &&
		    write_file(argv[4], resp.spki, sizeof(resp.spki)) == 0 ? 0 : 1;
	}
	if (argc == 6 && strcmp(cmd, "sign-message") == 0 && set_key(&req.key, argv[3]) == 0)
		return sign_message(argv[1], &req, argv[4], argv[5]) == 0 ? 0 : 1;
	fprintf(stderr, "usage: p256sign-testclient SOCKET ping | status | list-keys\n"
	    "       p256sign-testclient SOCKET pubkey KEY SPKI.der\n"
	    "       p256sign-testclient SOCKET sign-message KEY FILE SIG.der\n");
	return 2;
}
