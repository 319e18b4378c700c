/* SPDX-License-Identifier: ISC */
/* A client's process name and systemd unit (peer.h). */
#include "peer.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-login.h>
#include <unistd.h>

/* /proc/PID/comm: the name and a newline, at most 16 bytes. */
static int take_comm(pid_t pid, char comm[PEER_COMM_MAX])
{
	char path[32], buf[PEER_COMM_MAX + 1];
	ssize_t n = -1;
	int fd;

	comm[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	if (buf[n - 1] == '\n')
		n--;
	n = n < PEER_COMM_MAX - 1 ? n : PEER_COMM_MAX - 1;
	memcpy(comm, buf, (size_t)n);
	comm[n] = '\0';
	return 0;
}

/* The unit from /proc/PID/cgroup (sd_pid_get_unit); "" when there is none or it is too long. */
static void take_unit(pid_t pid, char unit[PEER_UNIT_MAX])
{
	char *u = NULL;

	unit[0] = '\0';
	if (sd_pid_get_unit(pid, &u) >= 0 && strlen(u) < PEER_UNIT_MAX)
		memcpy(unit, u, strlen(u) + 1);
	free(u);
}

int peer_identity_take(pid_t pid, struct peer_identity *id)
{
	/* A peer in another pid namespace has pid 0, which to sd_pid_get_unit means "myself". */
	if (pid <= 0) {
		id->comm[0] = id->unit[0] = '\0';
		return -1;
	}
	take_unit(pid, id->unit);
	return take_comm(pid, id->comm);
}
