/* SPDX-License-Identifier: ISC */
/* The listening socket (listen.h). */
#include "listen.h"

#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "log.h"

static int activated(struct listener_socket *ls)
{
	char **names = NULL;
	int n = sd_listen_fds_with_names(1, &names);
	int r = -1;

	if (n < 0) {
		log_error("socket activation: %s", strerror(-n));
		goto out;
	}
	r = 0;
	if (n == 0)
		goto out;
	r = -1;
	if (n != 1) {
		log_error("socket activation: %d sockets passed, expected one", n);
		goto out;
	}
	if (sd_is_socket_unix(SD_LISTEN_FDS_START, SOCK_STREAM, 1, NULL, 0) <= 0) {
		log_error("socket activation: fd %d is not a listening Unix stream socket",
		    SD_LISTEN_FDS_START);
		goto out;
	}
	ls->fd = SD_LISTEN_FDS_START;
	ls->activated = 1;
	log_info("listening on socket-activated fd %d (%s)", ls->fd,
	    names != NULL && names[0] != NULL ? names[0] : "unnamed");
	r = 0;
out:
	for (int i = 0; names != NULL && names[i] != NULL; i++)
		free(names[i]);
	free(names);
	return r;
}

/* 0 when path is free to bind (absent, or a stale socket now removed), else -1 (logged). */
static int clear_stale(const struct sockaddr_un *sa)
{
	struct stat st;
	int fd = -1, r = -1;

	if (lstat(sa->sun_path, &st) != 0) {
		if (errno == ENOENT)
			return 0;
		log_error("%s: %s", sa->sun_path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		log_error("%s exists and is not a socket", sa->sun_path);
		return -1;
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		log_error("socket: %s", strerror(errno));
		goto out;
	}
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0) {
		log_error("%s: another daemon is running on this socket", sa->sun_path);
		goto out;
	}
	if (errno != ECONNREFUSED) {
		log_error("%s: %s", sa->sun_path, strerror(errno));
		goto out;
	}
	if (unlink(sa->sun_path) != 0 && errno != ENOENT) {
		log_error("%s: cannot remove the stale socket: %s", sa->sun_path, strerror(errno));
		goto out;
	}
	log_info("%s: replaced a stale socket", sa->sun_path);
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	return r;
}

static int own_socket(const struct config *cfg, struct listener_socket *ls)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct group *gr = NULL;
	struct stat st;
	mode_t old;
	int fd = -1, r = -1;

	if (strlen(cfg->socket) >= sizeof(sa.sun_path)) {
		log_error("%s: socket path too long", cfg->socket);
		goto out;
	}
	memcpy(sa.sun_path, cfg->socket, strlen(cfg->socket) + 1);
	if (cfg->socket_group != NULL && (gr = getgrnam(cfg->socket_group)) == NULL) {
		log_error("socket_group %s: no such group", cfg->socket_group);
		goto out;
	}
	if (clear_stale(&sa) != 0)
		goto out;
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		log_error("socket: %s", strerror(errno));
		goto out;
	}
	/* Created owner-only, then opened up to the configured mode once the group is right. */
	old = umask(0177);
	r = bind(fd, (const struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (r != 0) {
		r = -1;
		log_error("bind %s: %s", cfg->socket, strerror(errno));
		goto out;
	}
	r = -1;
	if ((gr != NULL && chown(cfg->socket, (uid_t)-1, gr->gr_gid) != 0) ||
	    chmod(cfg->socket, cfg->socket_mode) != 0 || lstat(cfg->socket, &st) != 0 ||
	    listen(fd, SOMAXCONN) != 0) {
		log_error("%s: %s", cfg->socket, strerror(errno));
		unlink(cfg->socket);
		goto out;
	}
	ls->fd = fd;
	ls->dev = st.st_dev;
	ls->ino = st.st_ino;
	fd = -1;
	log_info("listening on %s", cfg->socket);
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	return r;
}

int listen_open(const struct config *cfg, struct listener_socket *ls)
{
	memset(ls, 0, sizeof(*ls));
	ls->fd = -1;
	if (activated(ls) != 0)
		return -1;
	if (ls->activated)
		return 0;
	return own_socket(cfg, ls);
}

void listen_cleanup(const struct config *cfg, const struct listener_socket *ls)
{
	struct stat st;

	if (ls->activated || ls->ino == 0)
		return;
	if (lstat(cfg->socket, &st) == 0 && st.st_dev == ls->dev && st.st_ino == ls->ino &&
	    unlink(cfg->socket) != 0)
		log_error("%s: cannot remove: %s", cfg->socket, strerror(errno));
}
