/* SPDX-License-Identifier: ISC */
#ifndef P256_SCRATCH_DIR_H
#define P256_SCRATCH_DIR_H

/*
 * A C test's temporary directories, removed when the test exits: at the end of a passing run and
 * also when a failed check or a broken set-up exits early, which no cleanup at the end of main
 * would see. Only the process that made a directory removes it: a forked child of the test that
 * exits leaves it to its parent, which may still be using it. (A test killed by a signal runs no
 * exit handler; nothing in the process can remove its directories then.)
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SCRATCH_DIRS_MAX 16

static struct scratch_entry {
	char path[128];
	pid_t owner;
} scratch_dirs[SCRATCH_DIRS_MAX];

static inline int scratch_remove_entry(const char *path, const struct stat *st, int flag,
	struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

/* Removes a directory and what it holds; 0 when it is gone. */
static inline int scratch_remove_tree(const char *path)
{
	/* deepest first, symbolic links themselves (FTW_PHYS), never crossing into a mount */
	if (nftw(path, scratch_remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) != 0 &&
	    errno != ENOENT)
		return -1;
	return 0;
}

/* At exit: what this process made and did not remove yet. */
static inline void scratch_remove_all(void)
{
	for (unsigned i = 0; i < SCRATCH_DIRS_MAX; i++) {
		struct scratch_entry *d = &scratch_dirs[i];

		if (d->path[0] != '\0' && d->owner == getpid())
			(void)scratch_remove_tree(d->path);
		d->path[0] = '\0';
	}
}

/*
 * mkdtemp(template) (a name ending in XXXXXX), the directory then removed at exit unless
 * scratch_dir_remove removed it before. Returns 0, or -1 when mkdtemp failed or the test holds
 * more directories than are kept track of.
 */
static inline int scratch_dir(char *template)
{
	static int registered;
	struct scratch_entry *d = NULL;
	int rc = -1;

	for (unsigned i = 0; i < SCRATCH_DIRS_MAX && d == NULL; i++)
		if (scratch_dirs[i].path[0] == '\0')
			d = &scratch_dirs[i];
	if (d == NULL || strlen(template) >= sizeof(d->path))
		goto out;
	if (!registered && atexit(scratch_remove_all) != 0)
		goto out;
	registered = 1;
	if (mkdtemp(template) == NULL)
		goto out;
	memcpy(d->path, template, strlen(template) + 1);
	d->owner = getpid();
	rc = 0;
out:
	return rc;
}

/* Removes a directory scratch_dir made, now; 0 when it is gone. */
static inline int scratch_dir_remove(const char *path)
{
	for (unsigned i = 0; i < SCRATCH_DIRS_MAX; i++) {
		struct scratch_entry *d = &scratch_dirs[i];

		if (d->path[0] != '\0' && strcmp(d->path, path) == 0) {
			d->path[0] = '\0';
			return scratch_remove_tree(path);
		}
	}
	return -1;
}

#endif
