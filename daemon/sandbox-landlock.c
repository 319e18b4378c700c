/* SPDX-License-Identifier: ISC */
/* Landlock rule sets for the sandboxes (sandbox-landlock.h). */
#include "sandbox-landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"

#ifndef SANDBOX_SANITIZER
#error "SANDBOX_SANITIZER must be defined by the build (daemon/meson.build)"
#endif

/* Every file-system right of Landlock ABI 1: handled, hence denied where no rule grants it. */
#define LANDLOCK_ABI1_FS (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
	LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR | \
	LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE | \
	LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR | \
	LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK | \
	LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | \
	LANDLOCK_ACCESS_FS_MAKE_SYM)

/* access beneath path: a directory and everything in it, or one file (then reading it, for
 * LANDLOCK_READ: READ_DIR on a file is refused by the kernel). */
static int add_rule(const char *role, int ruleset, const char *path, __u64 access)
{
	struct landlock_path_beneath_attr rule = { .allowed_access = access };
	struct stat st;
	int r = -1;

	if ((rule.parent_fd = open(path, O_PATH | O_CLOEXEC)) < 0 || fstat(rule.parent_fd, &st) != 0) {
		log_error("sandbox %s: %s: %s", role, path, strerror(errno));
		goto out;
	}
	if (!S_ISDIR(st.st_mode) && access == LANDLOCK_READ)
		rule.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE;
	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
		log_error("sandbox %s: Landlock rule for %s: %s", role, path, strerror(errno));
	else
		r = 0;
out:
	if (rule.parent_fd >= 0)
		close(rule.parent_fd);
	return r;
}

int landlock_confine(const char *role, const char *const *reads, size_t n,
	const struct landlock_grant *grants, size_t n_grants)
{
	struct landlock_ruleset_attr attr = { .handled_access_fs = LANDLOCK_ABI1_FS };
	int ruleset, r = -1;

	if (syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) < 0) {
		if (errno != ENOSYS && errno != EOPNOTSUPP) {
			log_error("sandbox %s: Landlock: %s", role, strerror(errno));
			return -1;
		}
		return 0;
	}
	if ((ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0)) < 0) {
		log_error("sandbox %s: Landlock ruleset: %s", role, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (add_rule(role, ruleset, reads[i], LANDLOCK_READ) != 0)
			goto out;
	for (size_t i = 0; i < n_grants; i++)
		if (grants[i].path != NULL &&
		    add_rule(role, ruleset, grants[i].path, grants[i].access) != 0)
			goto out;
	/* LeakSanitizer's tracer lists the threads in /proc/PID/task at exit. */
	if (SANDBOX_SANITIZER && add_rule(role, ruleset, "/proc", LANDLOCK_READ) != 0)
		goto out;
	if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
		log_error("sandbox %s: Landlock: %s", role, strerror(errno));
		goto out;
	}
	r = 1;
out:
	close(ruleset);
	return r;
}
