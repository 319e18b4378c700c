/* SPDX-License-Identifier: ISC */
/*
 * libFuzzer harness for libp256sign's response handling. A local socket plays the daemon: the
 * library submits seven requests (ids 1 to 7: ping, sign DER, pubkey, list keys, verify, sign raw,
 * certificate),
 * the input is written back as the daemon's byte stream, and the socket is closed. Properties (a
 * violation aborts):
 * - every request completes exactly once, with 0 or a known P256SIGN_E_* code, whatever the bytes;
 * - a successful signature has the format asked for and decodes; JSON text is NUL-terminated at
 *   its length; a certificate has 1 to P256SIGN_CERT_MAX bytes;
 * - nothing crashes, over-reads or leaks (the sanitizers).
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "p256.h"
#include "p256sign.h"
#include "scratch-dir.h"

#define REQUESTS 7
#define INPUT_MAX 60000		/* below a socket buffer: the write never blocks */

static int listen_fd = -1;
static char sock_path[108];

static void require(int cond)
{
	if (!cond)
		abort();
}

static void setup(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[] = "/tmp/fuzz-client-XXXXXX";

	require(scratch_dir(dir) == 0);	/* removed when the fuzzer exits */
	snprintf(sock_path, sizeof(sock_path), "%s/s", dir);
	memcpy(sa.sun_path, sock_path, strlen(sock_path) + 1);
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	require(listen_fd >= 0 && bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
		listen(listen_fd, 4) == 0);
}

static void submit_all(struct p256sign *h)
{
	static const uint8_t digest[32] = { 1 }, sig[64] = { 2 }, id_bytes[32] = { 3 };
	const struct p256sign_key name = { .name = "k" }, id = { .id = id_bytes };
	uint32_t ids[REQUESTS];

	require(p256sign_submit_ping(h, &ids[0]) == 0);
	require(p256sign_submit_sign(h, &name, digest, P256SIGN_DER, &ids[1]) == 0);
	require(p256sign_submit_pubkey(h, &id, &ids[2]) == 0);
	require(p256sign_submit_list_keys(h, &ids[3]) == 0);
	require(p256sign_submit_verify(h, &name, digest, P256SIGN_RAW, sig, 64, &ids[4]) == 0);
	require(p256sign_submit_sign(h, &name, digest, P256SIGN_RAW, &ids[5]) == 0);
	require(p256sign_submit_certificate(h, &id, &ids[6]) == 0);
	for (uint32_t i = 0; i < REQUESTS; i++)
		require(ids[i] == i + 1);
}

static void check_result(const struct p256sign_result *res, int *seen)
{
	uint8_t rs[P256_SIG_LEN];

	require(res->id >= 1 && res->id <= REQUESTS && !seen[res->id - 1]);
	seen[res->id - 1] = 1;
	require(res->error == 0 || (res->error >= P256SIGN_E_NO_CERTIFICATE && res->error <= -1) ||
		(res->error <= P256SIGN_E_CONNECT && res->error >= P256SIGN_E_DAEMON));
	if (res->error != 0)
		return;
	if (res->id == 2)
		require(res->format == P256SIGN_DER &&
			p256_sig_from_der(res->sig, res->sig_len, rs) == 0);
	if (res->id == 6)
		require(res->format == P256SIGN_RAW && res->sig_len == 64);
	if (res->id == 4)
		require(res->json != NULL && strlen(res->json) == res->json_len);
	if (res->id == 7)
		require(res->certificate != NULL && res->certificate_len >= 1 &&
			res->certificate_len <= P256SIGN_CERT_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct p256sign_result res;
	struct p256sign *h;
	int seen[REQUESTS] = { 0 }, done = 0, sfd;
	char drain[4096];

	if (size > INPUT_MAX)
		return 0;
	if (listen_fd < 0)
		setup();
	require(p256sign_connect(&h, sock_path) == 0);
	require((sfd = accept(listen_fd, NULL, NULL)) >= 0);
	submit_all(h);
	while (recv(sfd, drain, sizeof(drain), MSG_DONTWAIT) > 0)
		;
	require(size == 0 || send(sfd, data, size, MSG_NOSIGNAL) == (ssize_t)size);
	close(sfd);
	while (done < REQUESTS) {
		struct pollfd pfd = { .fd = p256sign_fd(h), .events = POLLIN };

		require(pfd.fd >= 0);
		require(poll(&pfd, 1, 5000) == 1);
		require(p256sign_process(h) >= 0);
		while (p256sign_next_result(h, &res) == 0) {
			check_result(&res, seen);
			p256sign_result_clear(&res);
			done++;
		}
	}
	p256sign_close(h);
	return 0;
}
