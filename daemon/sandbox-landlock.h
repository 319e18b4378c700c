/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_SANDBOX_LANDLOCK_H
#define P256SIGND_SANDBOX_LANDLOCK_H

#include <linux/landlock.h>
#include <stddef.h>

/*
 * Landlock (ABI 1, Linux 5.13) for the seccomp backend of sandbox.h: which files a role may
 * still reach, where seccomp can only judge a call's flags. The caller gives the paths.
 */

/* Reading a directory and everything beneath it, or one file. */
#define LANDLOCK_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)

/* A directory and the Landlock rights a role has beneath it (path NULL: nothing granted). */
struct landlock_grant {
	const char *path;
	__u64 access;
};

/*
 * Handles every file-system right of ABI 1 for the calling process for good: reading only
 * beneath reads[0..n) (directories, or single files), the rights of grants[0..n_grants) beneath
 * theirs, nothing else anywhere. 1 when confined; 0 when the kernel has no Landlock (ENOSYS, or
 * EOPNOTSUPP when built but not enabled: the caller logs what that means for its role); -1 on
 * failure (logged, naming role).
 */
int landlock_confine(const char *role, const char *const *reads, size_t n,
	const struct landlock_grant *grants, size_t n_grants);

#endif
