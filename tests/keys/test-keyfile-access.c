/* SPDX-License-Identifier: ISC */
/*
 * Who may access a private key file (keyfile_check_access, keyfile_load): the rules on their own
 * for every mode, owner and ACL, then on real files: modes, another owner, symbolic links to a
 * good and a bad file, the ACL systemd gives a service's user on its credentials, and
 * certificates, which are public and never checked. The owner and ACL cases on real files need
 * root (chown, and seteuid to read as another user); the rules are checked for any user.
 * Usage: test-keyfile-access DIR (tests/vectors/keys).
 */
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cert.h"
#include "keyfile.h"
#include "keyfile-read.h"
#include "keytest.h"

/* An owner and a reader no account needs to exist for. */
#define OTHER_UID 65534u
#define THIRD_UID 65533u

/* The Linux ACL attribute's entry tags and its version (linux/posix_acl_xattr.h). */
enum { USER_OBJ = 0x01, USER = 0x02, GROUP_OBJ = 0x04, GROUP = 0x08, MASK = 0x10, OTHER = 0x20 };
#define NO_ID 0xffffffffu

struct acl_entry {
	uint16_t tag, perm;
	uint32_t id;
};

static const char *dir;

static void put_le(uint8_t *p, uint32_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* The attribute's bytes for n entries, after `version`; returns their length. */
static size_t acl_bytes(uint32_t version, const struct acl_entry *e, size_t n, uint8_t *out)
{
	put_le(out, version, 4);
	for (size_t i = 0; i < n; i++) {
		put_le(out + 4 + 8 * i, e[i].tag, 2);
		put_le(out + 6 + 8 * i, e[i].perm, 2);
		put_le(out + 8 + 8 * i, e[i].id, 4);
	}
	return 4 + 8 * n;
}

/* The ACL systemd writes on a credential for a service's user: user:UID:r--, mask r--. */
#define CREDENTIAL_ACL(uid) { { USER_OBJ, 4, NO_ID }, { USER, 4, (uid) }, \
	{ GROUP_OBJ, 0, NO_ID }, { MASK, 4, NO_ID }, { OTHER, 0, NO_ID } }

static size_t credential_acl(uint32_t uid, uint8_t *out)
{
	const struct acl_entry e[] = CREDENTIAL_ACL(uid);

	return acl_bytes(2, e, sizeof(e) / sizeof(e[0]), out);
}

static void test_rules(void)
{
	static const struct {
		mode_t mode;
		uid_t owner, reader;
		const char *want;
	} cases[] = {
		{ 0600, 0, 0, "ok" }, { 0400, 0, 0, "ok" }, { 0200, 0, 0, "ok" }, { 0000, 0, 0, "ok" },
		/* the owner's execute bit gives no one else anything (sshd allows it too) */
		{ 0700, 0, 0, "ok" }, { 0100600, 0, 0, "ok" },
		{ 0600, 1000, 1000, "ok" }, { 0600, 0, 1000, "ok" },
		{ 0600, 1000, 0, "key-file-owner" }, { 0600, 1001, 1000, "key-file-owner" },
		/* a wrong owner is named first: chmod would not mend it */
		{ 0644, 1000, 0, "key-file-owner" },
		{ 0640, 0, 0, "key-file-mode" }, { 0604, 0, 0, "key-file-mode" },
		{ 0644, 0, 0, "key-file-mode" }, { 0666, 0, 0, "key-file-mode" },
		{ 0660, 0, 0, "key-file-mode" }, { 0606, 0, 0, "key-file-mode" },
		{ 0610, 0, 0, "key-file-mode" }, { 0620, 0, 0, "key-file-mode" },
		{ 0601, 0, 0, "key-file-mode" }, { 0602, 0, 0, "key-file-mode" },
		{ 0777, 0, 0, "key-file-mode" }, { 0440, 1000, 1000, "key-file-mode" },
	};
	char what[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(what, sizeof(what), "mode %04o owner %u reader %u", (unsigned)cases[i].mode,
		    (unsigned)cases[i].owner, (unsigned)cases[i].reader);
		CHECK_TAG(what, keyfile_check_access(cases[i].mode, cases[i].owner, cases[i].reader,
		    NULL, 0), cases[i].want);
	}
}

/* The ACLs on their own, each with the mode whose group bits show its mask. */
static void test_acl_rules(void)
{
	static const struct {
		const char *what;
		mode_t mode;
		uid_t owner, reader;
		struct acl_entry e[5];	/* USER_OBJ first; a zero tag ends the list */
		const char *want;
	} cases[] = {
		/* systemd's credential for a service's user, read by that user and by others */
		{ "credential, its user", 0440, 0, OTHER_UID, CREDENTIAL_ACL(OTHER_UID), "ok" },
		{ "credential, owned by its user", 0440, OTHER_UID, OTHER_UID,
			CREDENTIAL_ACL(OTHER_UID), "ok" },
		{ "credential, another reader", 0440, 0, THIRD_UID, CREDENTIAL_ACL(OTHER_UID),
			"key-file-mode" },
		{ "credential, root reads", 0440, 0, 0, CREDENTIAL_ACL(OTHER_UID), "key-file-mode" },
		{ "credential, other bits", 0444, 0, OTHER_UID, CREDENTIAL_ACL(OTHER_UID),
			"key-file-mode" },
		{ "credential, wrong owner", 0440, THIRD_UID, OTHER_UID, CREDENTIAL_ACL(OTHER_UID),
			"key-file-owner" },
		{ "root named", 0640, 0, OTHER_UID, { { USER_OBJ, 6, NO_ID }, { USER, 4, 0 },
			{ GROUP_OBJ, 0, NO_ID }, { MASK, 4, NO_ID }, { OTHER, 0, NO_ID } }, "ok" },
		{ "owning group", 0640, 0, 0, { { USER_OBJ, 6, NO_ID }, { GROUP_OBJ, 4, NO_ID },
			{ MASK, 4, NO_ID }, { OTHER, 0, NO_ID } }, "key-file-mode" },
		{ "named group", 0640, 0, 0, { { USER_OBJ, 6, NO_ID }, { GROUP_OBJ, 0, NO_ID },
			{ GROUP, 4, 5 }, { MASK, 4, NO_ID }, { OTHER, 0, NO_ID } }, "key-file-mode" },
		/* an entry counts only through the mask: -w- under a mask of r-- grants nothing */
		{ "outside the mask", 0640, 0, 0, { { USER_OBJ, 6, NO_ID }, { USER, 2, THIRD_UID },
			{ GROUP_OBJ, 0, NO_ID }, { MASK, 4, NO_ID }, { OTHER, 0, NO_ID } }, "ok" },
		/* a mask of --- leaves every entry without effect; the mode then shows 0600 */
		{ "masked off", 0600, 0, 0, { { USER_OBJ, 6, NO_ID }, { USER, 7, THIRD_UID },
			{ GROUP_OBJ, 7, NO_ID }, { MASK, 0, NO_ID }, { OTHER, 0, NO_ID } }, "ok" },
		/* a tag the kernel would not write is read as granting access */
		{ "unknown tag", 0640, 0, 0, { { USER_OBJ, 6, NO_ID }, { 0x40, 4, NO_ID },
			{ MASK, 4, NO_ID }, { OTHER, 0, NO_ID } }, "key-file-mode" },
	};
	uint8_t acl[256];
	size_t n;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (n = 0; n < 5 && cases[i].e[n].tag != 0; n++)
			;
		n = acl_bytes(2, cases[i].e, n, acl);
		CHECK_TAG(cases[i].what, keyfile_check_access(cases[i].mode, cases[i].owner,
		    cases[i].reader, acl, n), cases[i].want);
	}
	/* no ACL: the group bits are the group's access */
	CHECK_TAG("0440, no ACL", keyfile_check_access(0440, 0, OTHER_UID, NULL, 0),
	    "key-file-mode");
	/* attributes the kernel would not write are read as granting access */
	n = credential_acl(OTHER_UID, acl);
	CHECK_TAG("cut entry", keyfile_check_access(0440, 0, OTHER_UID, acl, n - 1),
	    "key-file-mode");
	CHECK_TAG("cut version", keyfile_check_access(0440, 0, OTHER_UID, acl, 3), "key-file-mode");
	CHECK_TAG("version 1", keyfile_check_access(0440, 0, OTHER_UID, acl,
	    acl_bytes(1, NULL, 0, acl)), "key-file-mode");
}

/* keyfile_load of path: want's tag, and a wiped key on refusal. */
static void check_load(const char *what, const char *path, const char *want)
{
	struct keyfile_key key;

	memset(&key, 0xaa, sizeof(key));
	CHECK_TAG(what, keyfile_load(path, &key), want);
	if (strcmp(want, "ok") != 0)
		CHECK(all_zero(&key, sizeof(key)));
	keyfile_key_clear(&key);
}

static void set_mode(const char *path, mode_t mode)
{
	if (chmod(path, mode) != 0)
		test_fatal("chmod failed");
}

static void test_modes(const char *path)
{
	static const mode_t good[] = { 0600, 0400, 0700 };
	static const mode_t bad[] = { 0640, 0604, 0644, 0666, 0660, 0606, 0610, 0601 };
	char what[32];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(what, sizeof(what), "file mode %04o", (unsigned)good[i]);
		set_mode(path, good[i]);
		check_load(what, path, "ok");
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(what, sizeof(what), "file mode %04o", (unsigned)bad[i]);
		set_mode(path, bad[i]);
		check_load(what, path, "key-file-mode");
	}
	set_mode(path, 0600);
}

/* A link is judged by the file it leads to; the link's own mode (0777) does not count. */
static void test_links(const char *path)
{
	char link[PATH_MAX + 8];

	snprintf(link, sizeof(link), "%s.link", path);
	if (symlink(path, link) != 0)
		test_fatal("symlink failed");
	check_load("link to a 0600 file", link, "ok");
	set_mode(path, 0644);
	check_load("link to a 0644 file", link, "key-file-mode");
	set_mode(path, 0600);
	if (geteuid() == 0) {
		if (chown(path, OTHER_UID, OTHER_UID) != 0)
			test_fatal("chown failed");
		check_load("link to another user's file", link, "key-file-owner");
		if (chown(path, 0, 0) != 0)
			test_fatal("chown failed");
	}
	unlink(link);
}

/* As root: another owner, and a credential as systemd leaves it for a service's user. */
static void test_owners(const char *path)
{
	uint8_t acl[256];
	size_t n = credential_acl(OTHER_UID, acl);
	struct stat st;

	if (geteuid() != 0)
		return;
	if (chown(path, OTHER_UID, OTHER_UID) != 0)
		test_fatal("chown failed");
	check_load("owned by another user", path, "key-file-owner");
	if (chown(path, 0, 0) != 0)
		test_fatal("chown failed");
	set_mode(path, 0400);
	check_load("root, 0400 (a credential)", path, "ok");
	if (setxattr(path, "system.posix_acl_access", acl, n, 0) != 0)
		test_fatal("cannot set an ACL on a temporary file");
	/* the kernel shows the ACL's mask as the group bits */
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0440);
	check_load("credential ACL, read by root", path, "key-file-mode");
	if (seteuid(OTHER_UID) != 0)
		test_fatal("seteuid failed");
	check_load("credential ACL, read by its user", path, "ok");
	if (seteuid(0) != 0)
		test_fatal("seteuid back failed");
	/* with no ACL the same mode 0440 lets the group read */
	if (removexattr(path, "system.posix_acl_access") != 0)
		test_fatal("removexattr failed");
	set_mode(path, 0440);
	check_load("0440 without an ACL", path, "key-file-mode");
	set_mode(path, 0600);
}

static void test_files(void)
{
	size_t len;
	uint8_t *buf = corpus_file(dir, "pkcs8-v1.pem", &len);
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s", temp_key_file(buf, len));
	free(buf);
	test_modes(path);
	test_links(path);
	test_owners(path);
	unlink(path);
}

/* Certificates hold public data: any mode, any owner. */
static void test_certificates(void)
{
	uint8_t pub[P256_POINT_LEN];
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s", corpus_copy(dir, "cert-a.pem"));
	set_mode(path, 0666);
	CHECK_TAG("certificate 0666", cert_load(path, pub), "ok");
	if (geteuid() == 0) {
		if (chown(path, OTHER_UID, OTHER_UID) != 0)
			test_fatal("chown failed");
		CHECK_TAG("another user's certificate", cert_load(path, pub), "ok");
	}
	unlink(path);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		test_fatal("usage: test-keyfile-access DIR");
	dir = argv[1];
	test_rules();
	test_acl_rules();
	test_files();
	test_certificates();
	return test_done("keyfile-access");
}
