/* SPDX-License-Identifier: ISC */
#ifndef P256SIGND_PEER_H
#define P256SIGND_PEER_H

#include <sys/types.h>

/*
 * Who a client is beyond its credentials, for the log and the audit: its process name and its
 * systemd unit, taken once at accept from the pid SO_PEERCRED gives. Informative only, never a
 * ground for access: a process names itself (prctl PR_SET_NAME), and the pid may already be
 * another process's when the client exited right after connecting.
 */

#define PEER_COMM_MAX 16	/* the kernel's TASK_COMM_LEN, the NUL included */
#define PEER_UNIT_MAX 256	/* systemd's longest unit name, the NUL included */

struct peer_identity {
	char comm[PEER_COMM_MAX];	/* /proc/PID/comm; "" when unknown */
	char unit[PEER_UNIT_MAX];	/* sd_pid_get_unit; "" when none (not started by systemd) */
};

/*
 * Fills *id for pid: 0, or -1 when the process name could not be read (the process is gone, or
 * /proc is not there); id->comm is then "" and id->unit may still be set. A process outside any
 * systemd unit is no error: id->unit is "".
 */
int peer_identity_take(pid_t pid, struct peer_identity *id);

#endif
