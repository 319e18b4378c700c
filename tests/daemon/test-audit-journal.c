/* SPDX-License-Identifier: ISC */
/*
 * Unit test of the journal destination (daemon/audit-journal.c), against a journal of its own: in
 * a private mount namespace a tmpfs hides /run, and a datagram socket bound at
 * /run/systemd/journal/socket receives what audit_journal_send sends. The entry is parsed as the
 * native protocol (NAME=value lines; NAME, newline, u64 little-endian length, value for a value
 * with a newline) and every field is checked, in order: names, values, nested objects flattened,
 * MESSAGE, PRIORITY, SYSLOG_IDENTIFIER. Then the refusals: no journal (no socket, a socket
 * nobody listens on), a journal that stopped reading (the call returns -EAGAIN at once rather
 * than wait), too many fields, too long a member, a member of another type.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "testutil.h"
#include "audit-journal.h"

#define SOCKET_PATH "/run/systemd/journal/socket"
#define FIELDS 64

struct parsed {
	size_t n;
	char name[FIELDS][80];
	char value[FIELDS][512];
	int binary[FIELDS];
};

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r = -1;

	if (fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text))
		r = 0;
	if (fd >= 0)
		close(fd);
	return r;
}

/* A mount namespace of our own (as root, or through a user namespace), /run a private tmpfs. */
static int private_run(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	if (unshare(CLONE_NEWNS) != 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
			return -1;
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)uid);
		if (write_file("/proc/self/uid_map", map) != 0 ||
		    write_file("/proc/self/setgroups", "deny") != 0)
			return -1;
		snprintf(map, sizeof(map), "0 %u 1", (unsigned)gid);
		if (write_file("/proc/self/gid_map", map) != 0)
			return -1;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("tmpfs", "/run", "tmpfs", 0, "mode=0755") != 0 ||
	    mkdir("/run/systemd", 0755) != 0 || mkdir("/run/systemd/journal", 0755) != 0)
		return -1;
	return 0;
}

static int journal_bind(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = SOCKET_PATH };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		perror("journal socket");
		return -1;
	}
	return fd;
}

/* The native protocol, strictly: -1 on anything malformed. */
static int parse(const uint8_t *p, size_t len, struct parsed *out)
{
	size_t i = 0;

	out->n = 0;
	while (i < len) {
		size_t start = i, vlen;
		uint64_t le = 0;

		if (out->n == FIELDS)
			return -1;
		while (i < len && p[i] != '=' && p[i] != '\n')
			i++;
		if (i == len || i == start || i - start >= sizeof(out->name[0]))
			return -1;
		memcpy(out->name[out->n], p + start, i - start);
		out->name[out->n][i - start] = '\0';
		out->binary[out->n] = p[i] == '\n';
		if (p[i++] == '=') {
			start = i;
			while (i < len && p[i] != '\n')
				i++;
			if (i == len)
				return -1;
			vlen = i - start;
		} else {
			if (len - i < 8)
				return -1;
			for (int b = 7; b >= 0; b--)
				le = le << 8 | p[i + (size_t)b];
			i += 8;
			if (le > len - i || len - i - le < 1 || p[i + le] != '\n')
				return -1;
			start = i;
			vlen = (size_t)le;
			i += vlen;
		}
		if (vlen >= sizeof(out->value[0]))
			return -1;
		memcpy(out->value[out->n], p + start, vlen);
		out->value[out->n][vlen] = '\0';
		out->n++;
		i++;	/* the newline */
	}
	return 0;
}

/* Receives one entry, if one is queued, into *out; its length, or -1. */
static ssize_t receive(int fd, struct parsed *out)
{
	static uint8_t buf[65536];
	ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

	if (n < 0 || parse(buf, (size_t)n, out) != 0)
		return -1;
	return n;
}

static void check_field(const struct parsed *got, size_t i, const char *name, const char *value,
	int binary)
{
	if (i >= got->n) {
		fprintf(stderr, "[%s] field %zu (%s) missing\n", test_case, i, name);
		test_failures++;
		return;
	}
	if (strcmp(got->name[i], name) != 0 || strcmp(got->value[i], value) != 0 ||
	    got->binary[i] != binary) {
		fprintf(stderr, "[%s] field %zu: got %s=\"%s\" (binary %d), expected %s=\"%s\" (%d)\n",
		    test_case, i, got->name[i], got->value[i], got->binary[i], name, value, binary);
		test_failures++;
	}
}

static json_t *wide_record(int members)
{
	json_t *r = json_object();
	char key[16];

	for (int i = 0; i < members; i++) {
		snprintf(key, sizeof(key), "m%d", i);
		json_object_set_new(r, key, json_integer(i));
	}
	return r;
}

int main(void)
{
	static const char digest[] =
	    "af2bdbe1aa9b6ec1e2ade1d694f41fc71a831d0268e9891562113d8a62add1bf";
	static struct parsed got;
	char long_value[258];
	json_t *rec;
	int fd, sent, r;

	if (private_run() != 0) {
		perror("a private mount namespace with /run on tmpfs");
		return 1;
	}
	rec = json_pack("{s:i, s:s, s:I, s:{s:i, s:i, s:i, s:s, s:s}, s:s, s:s, s:s, s:{s:s, s:s}, "
	    "s:i}",
	    "v", 1, "type", "request", "seq", (json_int_t)9007199254740993LL,
	    "peer", "pid", 4242, "uid", 1000, "gid", 1000, "comm", "nginx\nP256SIGN_FAKE=1",
	    "unit", "nginx.service",
	    "op", "sign", "key_id", "5a7a", "digest", digest,
	    "tls", "kind", "tls13", "side", "server", "us", -1);
	CHECK(rec != NULL);

	test_case = "no journal: no socket";
	CHECK_INT(audit_journal_send(rec, "sign by nginx"), -ENOENT);

	test_case = "no journal: a socket nobody listens on";
	fd = journal_bind();
	CHECK(fd >= 0);
	close(fd);
	CHECK_INT(audit_journal_send(rec, "sign by nginx"), -ECONNREFUSED);
	CHECK(unlink(SOCKET_PATH) == 0);

	test_case = "every field";
	fd = journal_bind();
	CHECK(fd >= 0);
	CHECK_INT(audit_journal_send(rec, "sign by nginx (pid 4242)\nsecond line"), 0);
	CHECK(receive(fd, &got) > 0);
	CHECK_INT(got.n, 17);
	check_field(&got, 0, "P256SIGN_V", "1", 0);
	check_field(&got, 1, "P256SIGN_TYPE", "request", 0);
	check_field(&got, 2, "P256SIGN_SEQ", "9007199254740993", 0);
	check_field(&got, 3, "P256SIGN_PEER_PID", "4242", 0);
	check_field(&got, 4, "P256SIGN_PEER_UID", "1000", 0);
	check_field(&got, 5, "P256SIGN_PEER_GID", "1000", 0);
	/* A newline in a value cannot start a field of its own. */
	check_field(&got, 6, "P256SIGN_PEER_COMM", "nginx\nP256SIGN_FAKE=1", 1);
	check_field(&got, 7, "P256SIGN_PEER_UNIT", "nginx.service", 0);
	check_field(&got, 8, "P256SIGN_OP", "sign", 0);
	check_field(&got, 9, "P256SIGN_KEY_ID", "5a7a", 0);
	check_field(&got, 10, "P256SIGN_DIGEST", digest, 0);
	check_field(&got, 11, "P256SIGN_TLS_KIND", "tls13", 0);
	check_field(&got, 12, "P256SIGN_TLS_SIDE", "server", 0);
	check_field(&got, 13, "P256SIGN_US", "-1", 0);
	check_field(&got, 14, "MESSAGE", "sign by nginx (pid 4242)\nsecond line", 1);
	check_field(&got, 15, "PRIORITY", "6", 0);
	check_field(&got, 16, "SYSLOG_IDENTIFIER", "p256signd", 0);
	CHECK(receive(fd, &got) < 0);	/* one entry per call */

	test_case = "member names: '-' becomes '_'";
	json_decref(rec);
	rec = json_pack("{s:s}", "sig-sha256", "00");
	CHECK_INT(audit_journal_send(rec, "m"), 0);
	CHECK(receive(fd, &got) > 0);
	check_field(&got, 0, "P256SIGN_SIG_SHA256", "00", 0);

	test_case = "a long MESSAGE is cut, a long member refused";
	memset(long_value, 'x', sizeof(long_value) - 1);
	long_value[sizeof(long_value) - 1] = '\0';
	CHECK_INT(audit_journal_send(rec, long_value), 0);
	CHECK(receive(fd, &got) > 0);
	CHECK_INT(strlen(got.value[1]), 256);
	json_decref(rec);
	rec = json_pack("{s:s}", "digest", long_value);
	CHECK_INT(audit_journal_send(rec, "m"), -E2BIG);
	long_value[256] = '\0';
	json_decref(rec);
	rec = json_pack("{s:s}", "digest", long_value);
	CHECK_INT(audit_journal_send(rec, "m"), 0);	/* 256 bytes fit */
	CHECK(receive(fd, &got) > 0);
	CHECK_INT(strlen(got.value[0]), 256);

	test_case = "too many fields";
	json_decref(rec);
	rec = wide_record(37);
	CHECK_INT(audit_journal_send(rec, "m"), 0);	/* with MESSAGE, PRIORITY, SYSLOG_...: 40 */
	CHECK(receive(fd, &got) > 0);
	CHECK_INT(got.n, 40);
	check_field(&got, 36, "P256SIGN_M36", "36", 0);
	json_decref(rec);
	rec = wide_record(38);
	CHECK_INT(audit_journal_send(rec, "m"), -E2BIG);
	json_decref(rec);
	rec = wide_record(100);
	CHECK_INT(audit_journal_send(rec, "m"), -E2BIG);
	CHECK(receive(fd, &got) < 0);	/* nothing was sent */

	test_case = "other types";
	json_decref(rec);
	rec = json_pack("{s:{s:{s:i}}}", "a", "b", "c", 1);
	CHECK_INT(audit_journal_send(rec, "m"), -EINVAL);
	json_decref(rec);
	rec = json_pack("{s:b}", "a", 1);
	CHECK_INT(audit_journal_send(rec, "m"), -EINVAL);
	json_decref(rec);
	rec = json_pack("{s:n}", "a");
	CHECK_INT(audit_journal_send(rec, "m"), -EINVAL);
	CHECK(receive(fd, &got) < 0);

	test_case = "a journal that stopped reading: -EAGAIN at once, not a wait";
	json_decref(rec);
	rec = json_pack("{s:s}", "op", "sign");
	for (sent = 0; sent < 100000 && (r = audit_journal_send(rec, "m")) == 0; sent++)
		;
	CHECK_INT(r, -EAGAIN);
	CHECK(sent > 0 && sent < 100000);
	CHECK(receive(fd, &got) > 0);	/* journald reads one: there is room again */
	CHECK_INT(audit_journal_send(rec, "m"), 0);
	close(fd);
	json_decref(rec);
	return test_done("audit-journal");
}
