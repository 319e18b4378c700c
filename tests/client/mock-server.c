/* SPDX-License-Identifier: ISC */
/* A misbehaving-on-demand p256signd stand-in for the library's tests (mock-server.h). */
#include "mock-server.h"

#include <errno.h>
#include <openssl/sha.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd-io.h"
#include "p256.h"
#include "proto.h"
#include "scratch-dir.h"

/* RFC 6979 A.2.5 private key. */
static const uint8_t mock_d[32] = {
	0xc9, 0xaf, 0xa9, 0xd8, 0x45, 0xba, 0x75, 0x16, 0x6b, 0x5c, 0x21, 0x57, 0x67, 0xb1, 0xd6, 0x93,
	0x4e, 0x50, 0xc3, 0xdb, 0x36, 0xe8, 0x9b, 0x12, 0x7b, 0x8a, 0x62, 0x2b, 0x12, 0x0f, 0x67, 0x21,
};

#define MAX_BATCH 4096

static void die(const char *what)
{
	perror(what);
	exit(1);
}

void mock_key_public(uint8_t point[65], uint8_t key_id[32])
{
	if (p256_public_from_private(mock_d, point) != 0 || p256_key_id(point, key_id) != 0)
		die("mock key");
}

static void write_full(int fd, const void *p, size_t n)
{
	if (fd_send_full(fd, p, n) != 0)
		_exit(0);	/* the client went away */
}

/* Reads one request frame into buf; -1 at end of stream. */
static int read_request(int fd, uint8_t *buf, size_t *len)
{
	uint8_t prefix[PROTO_LEN_PREFIX];
	uint32_t n;

	if (fd_read_full(fd, prefix, sizeof(prefix)) != 0 || proto_frame_length(prefix, &n) != 0 ||
	    fd_read_full(fd, buf, n) != 0)
		return -1;
	*len = n;
	return 0;
}

/* 1 when the selector names the mock key; 0 for unknown; -code for "err-N". */
static int key_lookup(const struct proto_key *k)
{
	uint8_t point[65], id[32];

	mock_key_public(point, id);
	if (k->kind == PROTO_KEY_ID)
		return memcmp(k->id, id, 32) == 0;
	if (strncmp(k->name, "err-", 4) == 0)
		return -atoi(k->name + 4);
	return strcmp(k->name, MOCK_KEY_NAME) == 0;
}

static void sign_into(struct proto_response *resp, const uint8_t digest[32], uint8_t format)
{
	uint8_t sig[64];

	if (p256_sign(mock_d, digest, P256_NONCE_HEDGED, NULL, 0, sig) != 0)
		die("sign");
	resp->format = format;
	if (format == PROTO_FORMAT_RAW) {
		memcpy(resp->sig, sig, 64);
		resp->sig_len = 64;
	} else if (p256_sig_to_der(sig, resp->sig, &resp->sig_len) != 0) {
		die("der");
	}
}

static void verify_into(struct proto_response *resp, const struct proto_request *req)
{
	uint8_t point[65], id[32], sig[64];

	mock_key_public(point, id);
	if (req->key.kind == PROTO_KEY_POINT)
		memcpy(point, req->key.point, 65);
	if (req->format == PROTO_FORMAT_RAW)
		memcpy(sig, req->sig, 64);
	else if (p256_sig_from_der(req->sig, req->sig_len, sig) != 0)
		return;
	resp->valid = p256_verify(point, 65, req->digest, sig, 0) == 0;
}

/* The correct answer to req. json_buf backs STATUS and LIST_KEYS texts. */
static void answer(int fd, const struct proto_request *req, struct proto_response *resp,
	char *json_buf, size_t json_cap, unsigned served)
{
	struct ucred cred;
	socklen_t cl = sizeof(cred);
	uint8_t digest[32];
	int k;

	memset(resp, 0, sizeof(*resp));
	resp->h = req->h;
	resp->h.type |= PROTO_RESPONSE;
	switch (req->h.type) {
	case PROTO_SIGN:
	case PROTO_SIGN_MESSAGE:
	case PROTO_PUBKEY:
		if ((k = key_lookup(&req->key)) <= 0) {
			proto_error_response(resp, req->h.id, k < 0 ? (uint16_t)-k : PROTO_E_UNKNOWN_KEY);
			return;
		}
		if (req->h.type == PROTO_PUBKEY) {
			mock_key_public(resp->point, resp->key_id);
			p256_spki(resp->point, resp->spki);
		} else if (req->h.type == PROTO_SIGN) {
			sign_into(resp, req->digest, req->format);
		} else {
			SHA256(req->message, req->message_len, digest);
			sign_into(resp, digest, req->format);
		}
		return;
	case PROTO_VERIFY:
		verify_into(resp, req);
		return;
	case PROTO_STATUS:
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0)
			die("SO_PEERCRED");
		resp->json_len = (size_t)snprintf(json_buf, json_cap,
			"{\"peer_pid\": %d, \"served\": %u}", (int)cred.pid, served);
		resp->json = json_buf;
		return;
	case PROTO_LIST_KEYS:
		resp->json = "{\"keys\": [{\"name\": \"k1\"}]}";
		resp->json_len = strlen(resp->json);
		return;
	default:
		return;	/* PING */
	}
}

static void send_response(int fd, const struct proto_response *resp)
{
	static uint8_t out[PROTO_LEN_PREFIX + PROTO_FRAME_MAX];
	size_t len;

	if (proto_encode_response(resp, out, sizeof(out), &len) != 0)
		die("encode response");
	write_full(fd, out, len);
}

/* 1 when another request is readable within a few milliseconds. */
static int more_pending(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 20) == 1;
}

static void serve(int fd, enum mock_mode mode)
{
	static uint8_t frames[MAX_BATCH][1024];
	static struct proto_request reqs[MAX_BATCH];
	static char json[256];
	static uint8_t big[PROTO_FRAME_MAX];
	struct proto_response resp;
	size_t len, n;
	unsigned served = 0;
	int r;

	if (mode == MOCK_STUCK)
		for (;;)
			pause();
	if (mode == MOCK_TOO_MANY) {
		proto_error_response(&resp, 0, PROTO_E_TOO_MANY_CONNECTIONS);
		send_response(fd, &resp);
		_exit(0);
	}
	for (;;) {
		n = 0;
		do {
			/* Reverse mode keeps a batch of frames; requests point into their frame. */
			uint8_t *buf = mode == MOCK_REVERSE ? frames[n] : big;

			if (read_request(fd, big, &len) != 0)
				_exit(0);
			if (buf != big) {
				if (len > sizeof(frames[0]))
					die("mock: request too large for reverse mode");
				memcpy(buf, big, len);
			}
			if ((r = proto_decode_request(buf, len, &reqs[n])) != 0) {
				proto_error_response(&resp, reqs[n].h.id, (uint16_t)-r);
				send_response(fd, &resp);
				if (proto_error_closes((uint16_t)-r))
					_exit(0);
				continue;
			}
			n++;
		} while (mode == MOCK_REVERSE && n < MAX_BATCH && more_pending(fd));
		if (mode == MOCK_CLOSE)
			_exit(0);
		if (mode == MOCK_GARBAGE) {
			write_full(fd, "\0\0\0\4garbage", 11);
			continue;
		}
		while (n > 0) {
			struct proto_request *req = &reqs[mode == MOCK_REVERSE ? n - 1 : 0];

			answer(fd, req, &resp, json, sizeof(json), ++served);
			if (mode == MOCK_WRONG_ID)
				resp.h.id += 1000;
			if (mode == MOCK_WRONG_TYPE && resp.h.type != PROTO_ERROR)
				resp.h.type = (req->h.type == PROTO_PING ? PROTO_STATUS : PROTO_PING) |
					PROTO_RESPONSE;
			send_response(fd, &resp);
			n--;
		}
		if (mode == MOCK_ANSWER_CLOSE)
			_exit(0);
	}
}

/* The serving process: accepts connections, one process each. */
static void accept_loop(int lfd, enum mock_mode mode)
{
	int fd;

	signal(SIGCHLD, SIG_IGN);	/* no zombies */
	for (;;) {
		if ((fd = accept(lfd, NULL, NULL)) < 0) {
			if (errno == EINTR)
				continue;
			die("accept");
		}
		switch (fork()) {
		case -1:
			die("fork");
			break;
		case 0:
			(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(lfd);
			serve(fd, mode);
			_exit(0);
		default:
			close(fd);
		}
	}
}

void mock_restart(struct mock *m, enum mock_mode mode)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork");
	if (pid == 0) {
		/* Never outlive a test that failed and exited. */
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (setpgid(0, 0) != 0)
			die("setpgid");
		accept_loop(m->listen_fd, mode);
		_exit(0);
	}
	/* Set it here too, so that a kill right after start reaches the whole group. */
	(void)setpgid(pid, pid);
	m->pid = pid;
}

void mock_start(struct mock *m, enum mock_mode mode)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	memset(m, 0, sizeof(*m));
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
		die("PR_SET_CHILD_SUBREAPER");
	snprintf(m->dir, sizeof(m->dir), "/tmp/p256sign-mock-XXXXXX");
	if (scratch_dir(m->dir) != 0)	/* removed at exit too: a failed CHECK exits */
		die("mkdtemp");
	snprintf(m->path, sizeof(m->path), "%s/sock", m->dir);
	memcpy(sa.sun_path, m->path, strlen(m->path) + 1);
	if ((m->listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(m->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    listen(m->listen_fd, 128) != 0)
		die("mock socket");
	mock_restart(m, mode);
}

void mock_kill(struct mock *m)
{
	if (m->pid <= 0)
		return;
	(void)kill(-m->pid, SIGKILL);
	/* The connection processes left by the group leader were reparented to us (the subreaper):
	 * wait for every one, so that no connection outlives the kill. */
	while (waitpid(-m->pid, NULL, 0) > 0 || errno == EINTR)
		;
	m->pid = 0;
}

void mock_stop(struct mock *m)
{
	mock_kill(m);
	close(m->listen_fd);
	if (scratch_dir_remove(m->dir) != 0)
		die(m->dir);
}
