/* SPDX-License-Identifier: ISC */
/* Dropping root (privdrop.h). */
#include "privdrop.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

int privdrop(const char *user)
{
	struct passwd *pw;
	uid_t ruid, euid, suid;
	gid_t rgid, egid, sgid;

	if (user == NULL)
		return 0;
	errno = 0;
	if ((pw = getpwnam(user)) == NULL) {
		log_error("user %s: %s", user, errno ? strerror(errno) : "no such user");
		return -1;
	}
	if (geteuid() != 0) {
		if (getuid() == pw->pw_uid && geteuid() == pw->pw_uid)
			return 0;
		log_error("user %s: not running as root, cannot change user", user);
		return -1;
	}
	if (setgroups(1, &pw->pw_gid) != 0 ||
	    setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) != 0 ||
	    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) != 0) {
		log_error("becoming user %s: %s", user, strerror(errno));
		return -1;
	}
	if (getresuid(&ruid, &euid, &suid) != 0 || getresgid(&rgid, &egid, &sgid) != 0 ||
	    ruid != pw->pw_uid || euid != pw->pw_uid || suid != pw->pw_uid ||
	    rgid != pw->pw_gid || egid != pw->pw_gid || sgid != pw->pw_gid ||
	    (pw->pw_uid != 0 && setresuid(0, 0, 0) == 0)) {
		log_error("becoming user %s: the change did not hold", user);
		return -1;
	}
	log_info("running as user %s (uid %u, gid %u)", user, (unsigned)pw->pw_uid,
	    (unsigned)pw->pw_gid);
	return 0;
}
