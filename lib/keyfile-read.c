/* SPDX-License-Identifier: ISC */
/* Reading a key file whole and bounded, wiped when released (keyfile-read.h). */
#include "keyfile-read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cursor.h"
#include "errors.h"

/*
 * A file's POSIX access ACL as Linux stores it (linux/posix_acl_xattr.h): a u32 version, then
 * entries of u16 tag, u16 permissions and u32 id, all little-endian.
 */
#define ACL_XATTR "system.posix_acl_access"
#define ACL_VERSION 2
#define ACL_USER_OBJ 0x01
#define ACL_USER 0x02
#define ACL_GROUP_OBJ 0x04
#define ACL_GROUP 0x08
#define ACL_MASK 0x10
#define ACL_OTHER 0x20
/* Far more entries than a key file's ACL needs: a longer one is refused unread. */
#define ACL_ENTRIES_MAX 32
#define ACL_BYTES_MAX (4 + 8 * ACL_ENTRIES_MAX)

/* A little-endian integer of n bytes (at most 4). */
static int get_le(struct cursor *c, size_t n, uint32_t *v)
{
	const uint8_t *p;
	int r;

	*v = 0;
	if ((r = cursor_get_bytes(c, &p, n)) != 0)
		return r;
	while (n-- > 0)
		*v = *v << 8 | p[n];
	return 0;
}

/*
 * 0 when no entry of the ACL lets a group or a user other than the owner, root or reader in.
 * Named entries and the owning group count only through the mask; the other entry is the mode's
 * "other" bits and is checked by the caller. An ACL the kernel could not have written (another
 * version, a cut entry, an unknown tag) is read as one that grants access.
 */
static int acl_private(const uint8_t *acl, size_t len, uint32_t mask, uid_t reader)
{
	struct cursor c;
	uint32_t version, tag, perm, id;

	cursor_init(&c, acl, len);
	if (get_le(&c, 4, &version) != 0 || version != ACL_VERSION)
		return P256_ERR_KEY_FILE_MODE;
	while (cursor_left(&c) > 0) {
		if (get_le(&c, 2, &tag) != 0 || get_le(&c, 2, &perm) != 0 || get_le(&c, 4, &id) != 0)
			return P256_ERR_KEY_FILE_MODE;
		if (tag == ACL_USER_OBJ || tag == ACL_MASK || tag == ACL_OTHER)
			continue;
		if (tag == ACL_USER && (id == 0 || id == reader))
			continue;
		if ((tag != ACL_USER && tag != ACL_GROUP_OBJ && tag != ACL_GROUP) || (perm & mask) != 0)
			return P256_ERR_KEY_FILE_MODE;
	}
	return 0;
}

int keyfile_check_access(mode_t mode, uid_t owner, uid_t reader, const uint8_t *acl,
	size_t acl_len)
{
	if (owner != 0 && owner != reader)
		return P256_ERR_KEY_FILE_OWNER;
	if ((mode & S_IRWXO) != 0)
		return P256_ERR_KEY_FILE_MODE;
	if ((mode & S_IRWXG) == 0)
		return 0;
	/* With an ACL, the group bits are its mask; without one, they are the group's access. */
	if (acl == NULL)
		return P256_ERR_KEY_FILE_MODE;
	return acl_private(acl, acl_len, (mode & S_IRWXG) >> 3, reader);
}

/*
 * keyfile_check_access on an open file, as the effective user. The ACL is read only when group
 * bits are set: without them no ACL entry but the owner's can grant anything.
 */
static int check_private(int fd, const struct stat *st)
{
	uint8_t acl[ACL_BYTES_MAX];
	ssize_t n = -1;

	if ((st->st_mode & S_IRWXG) != 0 && (n = fgetxattr(fd, ACL_XATTR, acl, sizeof(acl))) < 0) {
		if (errno == ERANGE)
			return P256_ERR_KEY_FILE_MODE;
		if (errno != ENODATA && errno != EOPNOTSUPP)
			return P256_ERR_KEY_FILE;
	}
	return keyfile_check_access(st->st_mode, st->st_uid, geteuid(), n < 0 ? NULL : acl,
	    n < 0 ? 0 : (size_t)n);
}

/* Reads fd to its end into b, at most cap + 1 bytes (b holds that many): a file of cap + 1
 * bytes is too large. 0 with *n, P256_ERR_KEY_FILE (errno says why) or P256_ERR_KEY_TOO_LARGE. */
static int read_all(int fd, uint8_t *b, size_t cap, size_t *n)
{
	ssize_t got;

	*n = 0;
	while (*n <= cap) {
		got = read(fd, b + *n, cap + 1 - *n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return P256_ERR_KEY_FILE;
		if (got == 0)
			break;
		*n += (size_t)got;
	}
	return *n > cap ? P256_ERR_KEY_TOO_LARGE : 0;
}

/* keyfile_read, with the access check of a private key file when `secret`. */
static int read_file(const char *path, size_t cap, int secret, uint8_t **buf, size_t *len)
{
	struct stat st;
	uint8_t *b = NULL;
	size_t n = 0;
	int fd = -1, saved, r = P256_ERR_KEY_FILE;

	*buf = NULL;
	*len = 0;
	/*
	 * O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below). The checks
	 * are made on the open descriptor: on the file a symbolic link leads to, and on the very
	 * file then read.
	 */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0 || fstat(fd, &st) != 0)
		goto out;
	if (!S_ISREG(st.st_mode)) {
		r = P256_ERR_NOT_REGULAR;
		goto out;
	}
	if (secret && (r = check_private(fd, &st)) != 0)
		goto out;
	if ((b = calloc(1, cap + 1)) == NULL) {
		r = P256_ERR_INTERNAL;
		goto out;
	}
	if ((r = read_all(fd, b, cap, &n)) != 0)
		goto out;
	*buf = b;
	*len = n;
	b = NULL;
out:
	saved = errno;
	keyfile_read_free(b, cap);
	if (fd >= 0)
		close(fd);
	errno = saved;
	return r;
}

int keyfile_read(const char *path, size_t cap, uint8_t **buf, size_t *len)
{
	return read_file(path, cap, 0, buf, len);
}

int keyfile_read_secret(const char *path, size_t cap, uint8_t **buf, size_t *len)
{
	return read_file(path, cap, 1, buf, len);
}

int keyfile_is_der(const uint8_t *buf, size_t len)
{
	return len > 0 && buf[0] == 0x30;
}

void keyfile_read_free(uint8_t *buf, size_t cap)
{
	int saved = errno;

	if (buf != NULL) {
		explicit_bzero(buf, cap + 1);
		free(buf);
	}
	errno = saved;
}
